//! The response cache: successful replies only, keyed by endpoint, model, the full request
//! (messages, sampling parameters, output schema) and the repeat index.

use rusqlite::{params, OptionalExtension};
use sha2::{Digest, Sha256};

use super::config::ModelConfig;
use super::types::{ChatRequest, ChatResponse};
use crate::error::{ApiError, ApiResult};
use crate::store::{Store, StoredColumn};
use crate::util::now_rfc3339;

/// What a cache key is the hash of, borrowed from the request: serialized straight into the hash
/// (no copy of the messages), byte for byte the JSON object earlier versions hashed, so their
/// cached replies still match.
#[cfg(test)]
#[derive(serde::Serialize)]
struct KeyMaterial<'a> {
    endpoint: &'a str,
    kind: &'a str,
    model: &'a str,
    messages: &'a [super::types::Message],
    temperature: Option<f64>,
    top_p: Option<f64>,
    max_tokens: Option<u32>,
    seed: Option<i64>,
    response_format: &'a super::types::ResponseFormat,
    repeat: u32,
}

/// The cache key of a request to a model.
///
/// The bytes hashed are exactly `KeyMaterial`'s JSON (see `key_by_derive`), written piece by
/// piece so that the part before the second message can be reused: a run sends its system prompt
/// (the whole policy, tens of KB) with every call, as one shared text, and hashing it again for
/// every call was the largest single cost of building a request. The hash state after that
/// prefix is kept for the few most recent shared texts (`PREFIXES`).
pub fn key(cfg: &ModelConfig, req: &ChatRequest) -> String {
    let mut h = match req.messages.first() {
        Some(first) if first.content.len() >= MEMO_MIN_BYTES => prefix_state(cfg, first),
        first => {
            let mut h = Sha256::new();
            write_head(&mut h, cfg);
            if let Some(m) = first {
                write_json(&mut h, m);
            }
            h
        }
    };
    for m in req.messages.iter().skip(1) {
        h.update(b",");
        write_json(&mut h, m);
    }
    h.update(b"],\"temperature\":");
    write_json(&mut h, &req.temperature);
    h.update(b",\"top_p\":");
    write_json(&mut h, &req.top_p);
    h.update(b",\"max_tokens\":");
    write_json(&mut h, &req.max_tokens);
    h.update(b",\"seed\":");
    write_json(&mut h, &req.seed);
    h.update(b",\"response_format\":");
    write_json(&mut h, &req.response_format);
    h.update(b",\"repeat\":");
    write_json(&mut h, &req.repeat);
    h.update(b"}");
    hex::encode(h.finalize())
}

/// First messages shorter than this are hashed each time (keeping them costs more than it saves).
const MEMO_MIN_BYTES: usize = 4096;
/// How many (model, shared first message) prefixes are kept.
const MEMO_ENTRIES: usize = 8;

/// A prefix's hash state: the model it was for, the shared first message (held, so its address
/// cannot be reused by another text while the entry lives), and the state after it.
struct Prefix {
    head: (String, &'static str, String),
    first: super::types::Message,
    state: Sha256,
}

static PREFIXES: std::sync::Mutex<Vec<Prefix>> = std::sync::Mutex::new(Vec::new());

/// The hash state after `{"endpoint":…,"kind":…,"model":…,"messages":[<first>`.
fn prefix_state(cfg: &ModelConfig, first: &super::types::Message) -> Sha256 {
    let same = |p: &Prefix| {
        std::sync::Arc::ptr_eq(&p.first.content, &first.content)
            && p.first.role == first.role
            && p.head.0 == cfg.base_url
            && p.head.1 == cfg.kind.as_str()
            && p.head.2 == cfg.model
    };
    {
        let mut memo = PREFIXES.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = memo.iter().position(same) {
            // Most recently used last.
            let hit = memo.remove(i);
            let state = hit.state.clone();
            memo.push(hit);
            return state;
        }
    }
    let mut h = Sha256::new();
    write_head(&mut h, cfg);
    write_json(&mut h, first);
    let mut memo = PREFIXES.lock().unwrap_or_else(|p| p.into_inner());
    if memo.len() >= MEMO_ENTRIES {
        memo.remove(0);
    }
    memo.push(Prefix {
        head: (cfg.base_url.clone(), cfg.kind.as_str(), cfg.model.clone()),
        first: first.clone(),
        state: h.clone(),
    });
    h
}

/// `{"endpoint":…,"kind":…,"model":…,"messages":[`
fn write_head(h: &mut Sha256, cfg: &ModelConfig) {
    h.update(b"{\"endpoint\":");
    write_json(h, &cfg.base_url);
    h.update(b",\"kind\":");
    write_json(h, cfg.kind.as_str());
    h.update(b",\"model\":");
    write_json(h, &cfg.model);
    h.update(b",\"messages\":[");
}

/// One value's compact JSON into the hash, through a buffer (the hash takes few large writes
/// faster than the many small ones the serializer makes).
fn write_json<T: serde::Serialize + ?Sized>(h: &mut Sha256, v: &T) {
    let mut buf = std::io::BufWriter::with_capacity(8192, HashWriter(h));
    // Writing into a hash cannot fail, and these values always serialize.
    let _ = serde_json::to_writer(&mut buf, v);
    let _ = std::io::Write::flush(&mut buf);
}

struct HashWriter<'a>(&'a mut Sha256);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.update(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The key through `KeyMaterial`'s derived serialization: what `key` must equal.
#[cfg(test)]
fn key_by_derive(cfg: &ModelConfig, req: &ChatRequest) -> String {
    let material = KeyMaterial {
        endpoint: &cfg.base_url,
        kind: cfg.kind.as_str(),
        model: &cfg.model,
        messages: &req.messages,
        temperature: req.temperature,
        top_p: req.top_p,
        max_tokens: req.max_tokens,
        seed: req.seed,
        response_format: &req.response_format,
        repeat: req.repeat,
    };
    let mut hasher = Sha256::new();
    let _ = serde_json::to_writer(HashWriter(&mut hasher), &material);
    hex::encode(hasher.finalize())
}

/// The key as earlier versions built it (through a JSON value).
#[cfg(test)]
fn legacy_key(cfg: &ModelConfig, req: &ChatRequest) -> String {
    let material = serde_json::json!({
        "endpoint": cfg.base_url,
        "kind": cfg.kind.as_str(),
        "model": cfg.model,
        "messages": req.messages,
        "temperature": req.temperature,
        "top_p": req.top_p,
        "max_tokens": req.max_tokens,
        "seed": req.seed,
        "response_format": req.response_format,
        "repeat": req.repeat,
    });
    hex::encode(Sha256::digest(material.to_string().as_bytes()))
}

/// Where cached replies live (for messages about a broken entry).
const CACHED_REPLY: StoredColumn =
    StoredColumn { table: "llm_cache", column: "response_json", what: "cached reply", row_kind: "cache entry" };

/// A cached reply for `key` (and one more hit counted), or None. A cached reply that can no
/// longer be read is an error naming its entry. Runs on a blocking thread.
pub async fn get(store: &Store, key: &str) -> ApiResult<Option<ChatResponse>> {
    let k = key.to_string();
    // Looked up on a read connection, so a miss never waits for the writer.
    let hit: Option<String> = store
        .call_read_by_key(move |c| {
            Ok(c.prepare_cached("SELECT response_json FROM llm_cache WHERE key = ?1")?
                .query_row([&k], |r| r.get(0))
                .optional()?)
        })
        .await?;
    if hit.is_some() {
        let k = key.to_string();
        let counted = store
            .call_grouped(move |c| {
                c.prepare_cached("UPDATE llm_cache SET hits = hits + 1 WHERE key = ?1")?.execute([&k])?;
                Ok(())
            })
            .await;
        if let Err(e) = counted {
            // The reply is still good; only the reuse count is short by one.
            tracing::warn!(error = %e.message, "could not count a cache hit");
        }
    }
    match hit {
        Some(j) => {
            let mut resp: ChatResponse = CACHED_REPLY.parse(&j, key)?;
            if resp.reasoning.is_none() {
                // Cached before reasoning was kept apart: take inline think blocks out now.
                let (text, reasoning) = super::reasoning::separate(&resp.text, None);
                resp.text = text;
                resp.reasoning = reasoning;
            }
            Ok(Some(resp))
        }
        None => Ok(None),
    }
}

/// A reply to cache, owned and encoded, ready to be written.
pub struct CacheRow {
    key: String,
    base_url: String,
    model: String,
    json: String,
}

impl CacheRow {
    pub fn of(key: &str, cfg: &ModelConfig, resp: &ChatResponse) -> ApiResult<CacheRow> {
        let json = serde_json::to_string(resp)
            .map_err(|e| ApiError::internal(format!("a reply could not be encoded for the cache: {e}")))?;
        Ok(CacheRow { key: key.to_string(), base_url: cfg.base_url.clone(), model: cfg.model.clone(), json })
    }

    /// Write the entry on `c` (replacing an older one under the same key).
    pub fn insert(self, c: &rusqlite::Connection) -> ApiResult<()> {
        c.prepare_cached(
            "INSERT OR REPLACE INTO llm_cache (key, endpoint, model, response_json, created_at, hits) VALUES (?1, ?2, ?3, ?4, ?5, 0)")?.execute(
            params![self.key, self.base_url, self.model, self.json, now_rfc3339()],
        )?;
        Ok(())
    }
}

/// Store a successful reply under `key`. Runs on a blocking thread.
pub async fn put(store: &Store, key: &str, cfg: &ModelConfig, resp: &ChatResponse) -> ApiResult<()> {
    let row = CacheRow::of(key, cfg, resp)?;
    store.call_grouped(move |c| row.insert(c)).await
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
pub struct CacheStats {
    pub entries: u64,
    pub hits: u64,
    pub bytes: u64,
}

pub fn stats(store: &Store) -> ApiResult<CacheStats> {
    Ok(store.with_read(|c| {
        c.query_row(
            "SELECT count(*), coalesce(sum(hits), 0), coalesce(sum(length(response_json)), 0) FROM llm_cache",
            [],
            |r| {
                Ok(CacheStats {
                    entries: r.get::<_, i64>(0)? as u64,
                    hits: r.get::<_, i64>(1)? as u64,
                    bytes: r.get::<_, i64>(2)? as u64,
                })
            },
        )
    })?)
}

/// Forget the replies cached under these keys (replies that turned out unusable), so that asking
/// again asks the model afresh instead of getting the same reply back.
pub async fn forget(store: &Store, keys: Vec<String>) -> ApiResult<()> {
    store
        .call(move |c| {
            for k in &keys {
                c.execute("DELETE FROM llm_cache WHERE key = ?1", [k])?;
            }
            Ok(())
        })
        .await
}

/// Remove cached replies (all, or those of one model id). Returns how many were removed.
pub fn clear(store: &Store, model: Option<&str>) -> ApiResult<u64> {
    Ok(store.with_conn(|c| c.execute("DELETE FROM llm_cache WHERE (?1 IS NULL OR model = ?1)", [model]))? as u64)
}

#[cfg(test)]
mod key_tests {
    use super::*;
    use crate::llm::config::ProviderKind;
    use crate::llm::types::{Message, ResponseFormat};

    /// Replies cached by earlier versions keep matching: the key is the same bytes' hash.
    #[test]
    fn the_key_is_the_one_earlier_versions_computed() {
        let cfg = ModelConfig::new("m", ProviderKind::Anthropic, "claude-x", "https://api.anthropic.com");
        let mut req = ChatRequest::new(vec![
            Message::system("Policy text with \"quotes\", ünïcode and\nnew lines."),
            Message::user("Case 1"),
            Message::assistant("{\"action\": \"ASK\"}"),
        ]);
        assert_eq!(key(&cfg, &req), legacy_key(&cfg, &req));
        req.temperature = Some(0.7);
        req.top_p = Some(1.0);
        req.max_tokens = Some(512);
        req.seed = Some(-3);
        req.repeat = 2;
        req.response_format = ResponseFormat::JsonSchema {
            name: "answer".into(),
            schema:
                serde_json::json!({"type": "object", "properties": {"b": {"type": "number"}, "a": {"type": "string"}}})
                    .into(),
        };
        assert_eq!(key(&cfg, &req), legacy_key(&cfg, &req));
        req.response_format = ResponseFormat::Json;
        req.temperature = Some(0.1 + 0.2);
        assert_eq!(key(&cfg, &req), legacy_key(&cfg, &req));
        assert_eq!(key(&cfg, &req), key_by_derive(&cfg, &req));
        let empty = ChatRequest::new(vec![]);
        assert_eq!(key(&cfg, &empty), legacy_key(&cfg, &empty));
    }

    /// A long shared first message is hashed once per model; the keys stay those of earlier
    /// versions, for the same text, another model, another text, and another role.
    #[test]
    fn a_shared_system_prompt_keeps_the_same_keys() {
        let policy: std::sync::Arc<str> = format!("Policy \"text\" ü\n{}", "clause words ".repeat(2000)).into();
        let a = ModelConfig::new("a", ProviderKind::OpenAiCompatible, "m-a", "http://127.0.0.1:9/v1");
        let b = ModelConfig::new("b", ProviderKind::Anthropic, "m-b", "https://api.anthropic.com");
        for turn in 0..3 {
            let mut messages = vec![Message::system(&policy), Message::user("Case text")];
            for t in 0..turn {
                messages.push(Message::assistant(format!("{{\"action\": \"ASK\", \"q\": {t}}}")));
                messages.push(Message::user("An answer"));
            }
            let req = ChatRequest::new(messages);
            for cfg in [&a, &b, &a] {
                assert_eq!(key(cfg, &req), legacy_key(cfg, &req));
            }
        }
        let other: std::sync::Arc<str> = format!("{policy} and more").into();
        let req = ChatRequest::new(vec![Message::system(&other), Message::user("Case text")]);
        assert_eq!(key(&a, &req), legacy_key(&a, &req));
        let as_user = ChatRequest::new(vec![Message::user(&policy), Message::user("Case text")]);
        assert_eq!(key(&a, &as_user), legacy_key(&a, &as_user));
        assert_ne!(
            key(&a, &as_user),
            key(&a, &ChatRequest::new(vec![Message::system(&policy), Message::user("Case text")]))
        );
    }
}
