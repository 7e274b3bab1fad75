//! A batch's request body, written request by request while it is sent. Queued requests stay
//! conversations whose text is shared with the calls waiting for them (the policy in a system
//! prompt is one allocation for a whole run); each becomes the provider's JSON only when its turn
//! on the wire comes, so a round of thousands of requests is never one body in memory.

use futures::StreamExt as _;
use std::io::Write;
use std::sync::Arc;

use serde_json::Value;

use super::provider::Line;
use crate::llm::client::ModelHandle;
use crate::llm::error::LlmError;
use crate::llm::wire;

/// The JSON a direct call would send for this request.
pub fn request_body(m: &ModelHandle, req: &crate::llm::types::ChatRequest) -> Value {
    wire::build(&m.cfg, m.key_str(), req).body
}

/// How many bytes `v` takes as JSON, without writing it anywhere.
pub fn json_len(v: &Value) -> usize {
    struct Count(usize);
    impl Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    // Writing a JSON value into a counter cannot fail.
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

/// Turns one queued request into its bytes in the provider's format.
pub type Render = fn(&ModelHandle, &Line) -> Result<Vec<u8>, serde_json::Error>;

/// A body made of `head`, the rendered lines separated by `separator`, and `tail`.
#[derive(Clone)]
pub struct Upload {
    m: ModelHandle,
    lines: Arc<[Line]>,
    head: Vec<u8>,
    separator: &'static [u8],
    tail: Vec<u8>,
    render: Render,
}

impl Upload {
    pub fn new(
        m: &ModelHandle,
        lines: Arc<[Line]>,
        head: impl Into<Vec<u8>>,
        separator: &'static [u8],
        tail: impl Into<Vec<u8>>,
        render: Render,
    ) -> Upload {
        Upload { m: m.clone(), lines, head: head.into(), separator, tail: tail.into(), render }
    }

    fn problem(&self, e: serde_json::Error) -> LlmError {
        LlmError::Config(format!("{}: a request of the batch could not be written as JSON ({e})", self.m.cfg.name))
    }

    /// The body's exact length (every line is rendered once to count it; nothing is kept).
    pub fn byte_len(&self) -> Result<u64, LlmError> {
        let mut n = self.head.len() + self.tail.len();
        for (i, l) in self.lines.iter().enumerate() {
            if i > 0 {
                n += self.separator.len();
            }
            n += (self.render)(&self.m, l).map_err(|e| self.problem(e))?.len();
        }
        Ok(n as u64)
    }

    /// The body as a stream: each line is rendered when the connection is ready for it.
    pub fn body(&self) -> reqwest::Body {
        let this = self.clone();
        let count = self.lines.len();
        let chunks = futures::stream::iter(0..count + 2).map(move |i| -> Result<Vec<u8>, std::io::Error> {
            if i == 0 {
                return Ok(this.head.clone());
            }
            if i == count + 1 {
                return Ok(this.tail.clone());
            }
            let mut chunk = if i > 1 { this.separator.to_vec() } else { Vec::new() };
            let line = (this.render)(&this.m, &this.lines[i - 1]).map_err(std::io::Error::other)?;
            chunk.extend_from_slice(&line);
            Ok(chunk)
        });
        reqwest::Body::wrap_stream(chunks)
    }

    /// The whole body at once (tests).
    #[cfg(test)]
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = self.head.clone();
        for (i, l) in self.lines.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(self.separator);
            }
            out.extend_from_slice(&(self.render)(&self.m, l).unwrap_or_default());
        }
        out.extend_from_slice(&self.tail);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::batch::{anthropic, gemini, openai};
    use crate::llm::config::{ModelConfig, ProviderKind};
    use crate::llm::types::{ChatRequest, Message};

    fn lines(system: &Arc<str>) -> Arc<[Line]> {
        (0..3)
            .map(|i| Line {
                custom_id: format!("k{i}"),
                req: ChatRequest::new(vec![Message::system(system), Message::user(format!("case {i}: \"quoted\"\n"))]),
            })
            .collect()
    }

    #[test]
    fn each_provider_body_is_valid_json_of_every_request_and_its_length_is_exact() {
        let system: Arc<str> = "The policy, shared by every request.".into();
        let lines = lines(&system);
        for kind in [ProviderKind::OpenAi, ProviderKind::Azure, ProviderKind::Anthropic, ProviderKind::Gemini] {
            let m = ModelHandle::with_key(ModelConfig::new("m", kind, "model-x", "http://127.0.0.1:1"), Some("k"));
            let upload = match kind {
                ProviderKind::Anthropic => anthropic::create_body(&m, &lines),
                ProviderKind::Gemini => gemini::create_body(&m, &lines),
                _ => openai::input_file(&m, &lines),
            };
            let bytes = upload.to_vec();
            assert_eq!(upload.byte_len().unwrap(), bytes.len() as u64, "{kind:?}");
            let text = String::from_utf8(bytes).unwrap();
            assert!(!text.contains("\"k\""), "the key never goes into a body");
            let ids: Vec<String> = match kind {
                ProviderKind::Anthropic => {
                    let v: Value = serde_json::from_str(&text).unwrap();
                    v["requests"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|r| r["custom_id"].as_str().unwrap().to_string())
                        .collect()
                }
                ProviderKind::Gemini => {
                    let v: Value = serde_json::from_str(&text).unwrap();
                    let list = v.pointer("/batch/input_config/requests/requests").unwrap().as_array().unwrap().clone();
                    list.iter().map(|r| r["metadata"]["key"].as_str().unwrap().to_string()).collect()
                }
                _ => text
                    .lines()
                    .map(|l| serde_json::from_str::<Value>(l).unwrap()["custom_id"].as_str().unwrap().to_string())
                    .collect(),
            };
            assert_eq!(ids, ["k0", "k1", "k2"], "{kind:?}");
            assert_eq!(text.matches("shared by every request").count(), 3, "{kind:?}");
        }
        // Writing the lines did not copy the shared text into the requests themselves.
        assert_eq!(Arc::strong_count(&system), 4);
    }
}
