//! Finding model servers on this computer: the usual ports of Ollama, LM Studio, llama.cpp's
//! server and vLLM are asked for their OpenAI-compatible model list (`GET /v1/models`), with a
//! short timeout each, so the user can register what runs here in one click, as local.

use futures::future::join_all;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;

use crate::context::Engine;
use crate::error::ApiResult;
use crate::llm::registry;

/// Ports local model servers listen on by default, with the product usually behind each.
pub const KNOWN_PORTS: &[(u16, &str)] =
    &[(11434, "Ollama"), (1234, "LM Studio"), (8080, "llama.cpp server"), (8000, "vLLM or llama-cpp-python")];

/// How long one port may take to answer.
const PROBE_TIMEOUT: Duration = Duration::from_millis(1500);

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
#[serde(default)]
pub struct DiscoverRequest {
    /// Ports to try (default: the usual ones of local servers).
    pub ports: Option<Vec<u16>>,
    /// Ports to try as well as those (a server on a port of its own).
    pub extra_ports: Option<Vec<u16>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DiscoveredModel {
    /// The model id the server reports.
    pub id: String,
    /// A free registry name for it.
    pub suggested_name: String,
    /// The registered model that already points at this server and id, if any.
    pub registered_as: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DiscoveredServer {
    pub port: u16,
    /// What usually listens there (a guess from the port).
    pub product: String,
    /// The base URL to register (`http://127.0.0.1:PORT/v1`).
    pub base_url: String,
    pub models: Vec<DiscoveredModel>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DiscoverResult {
    pub servers: Vec<DiscoveredServer>,
    /// Every port tried, answering or not.
    pub checked: Vec<u16>,
}

/// The model ids of an OpenAI-style list (`{"data": [{"id": ...}]}`) or Ollama's (`{"models": [{"name": ...}]}`).
pub fn model_ids(v: &Value) -> Option<Vec<String>> {
    if let Some(data) = v.get("data").and_then(Value::as_array) {
        return Some(data.iter().filter_map(|m| m.get("id").and_then(Value::as_str).map(str::to_string)).collect());
    }
    v.get("models")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|m| m.get("name").and_then(Value::as_str).map(str::to_string)).collect())
}

/// A registry name from a model id: lower-case letters, digits and dashes, unique among `taken`.
pub fn suggest_name(id: &str, taken: &[String]) -> String {
    let mut base: String = id
        .rsplit('/')
        .next()
        .unwrap_or(id)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect();
    while base.contains("--") {
        base = base.replace("--", "-");
    }
    let base = base.trim_matches('-');
    let base = if base.is_empty() { "local-model" } else { base };
    let mut name = base.to_string();
    let mut n = 2;
    while taken.iter().any(|t| t == &name) {
        name = format!("{base}-{n}");
        n += 1;
    }
    name
}

async fn probe(http: &reqwest::Client, port: u16) -> Option<Vec<String>> {
    let url = format!("http://127.0.0.1:{port}/v1/models");
    let resp = http.get(&url).timeout(PROBE_TIMEOUT).send().await.ok()?;
    if !resp.status().is_success() {
        return None;
    }
    let v: Value = resp.json().await.ok()?;
    model_ids(&v)
}

impl Engine {
    /// Ask the usual local ports (or the given ones) which models they serve.
    pub async fn models_discover(&self, req: &DiscoverRequest) -> ApiResult<DiscoverResult> {
        let mut ports: Vec<u16> = match &req.ports {
            Some(p) if !p.is_empty() => p.clone(),
            _ => KNOWN_PORTS.iter().map(|(p, _)| *p).collect(),
        };
        for p in req.extra_ports.iter().flatten() {
            if !ports.contains(p) {
                ports.push(*p);
            }
        }
        // A redirect is not followed (see `llm::origin`): a port that answers with one is not
        // reported as a model server.
        let http =
            crate::llm::origin::client(reqwest::Client::builder().connect_timeout(Duration::from_millis(500)), false);
        let answers = join_all(ports.iter().map(|p| probe(&http, *p))).await;
        let registered = self.store().call_read(registry::list).await?;
        let mut taken: Vec<String> = registered.iter().map(|m| m.name.clone()).collect();
        let mut servers = Vec::new();
        for (port, ids) in ports.iter().zip(answers) {
            let Some(ids) = ids else { continue };
            let base_url = format!("http://127.0.0.1:{port}/v1");
            let same_server = |m: &crate::llm::ModelConfig| {
                m.base_url.trim_end_matches('/') == base_url
                    || m.base_url.trim_end_matches('/') == format!("http://localhost:{port}/v1")
            };
            let mut models = Vec::new();
            for id in ids {
                let registered_as = registered.iter().find(|m| same_server(m) && m.model == id).map(|m| m.name.clone());
                let suggested_name = suggest_name(&id, &taken);
                if registered_as.is_none() {
                    taken.push(suggested_name.clone());
                }
                models.push(DiscoveredModel { id, suggested_name, registered_as });
            }
            let product = KNOWN_PORTS
                .iter()
                .find(|(p, _)| p == port)
                .map(|(_, n)| n.to_string())
                .unwrap_or_else(|| "an OpenAI-compatible server".into());
            servers.push(DiscoveredServer { port: *port, product, base_url, models });
        }
        Ok(DiscoverResult { servers, checked: ports })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_from_openai_and_ollama_shapes() {
        assert_eq!(
            model_ids(&json!({"object": "list", "data": [{"id": "a"}, {"id": "b"}]})),
            Some(vec!["a".into(), "b".into()])
        );
        assert_eq!(model_ids(&json!({"models": [{"name": "llama3:8b"}]})), Some(vec!["llama3:8b".into()]));
        assert_eq!(model_ids(&json!({"error": "x"})), None);
    }

    #[test]
    fn suggested_names_are_tidy_and_free() {
        assert_eq!(suggest_name("meta-llama/Llama-3.1-8B-Instruct", &[]), "llama-3-1-8b-instruct");
        assert_eq!(suggest_name("llama3:8b", &["llama3-8b".into()]), "llama3-8b-2");
        assert_eq!(suggest_name("///", &[]), "local-model");
    }
}
