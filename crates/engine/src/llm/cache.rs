//! The response cache: successful replies only, keyed by endpoint, model, the full request
//! (messages, sampling parameters, output schema) and the repeat index.

use rusqlite::{params, OptionalExtension};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::config::ModelConfig;
use super::types::{ChatRequest, ChatResponse};
use crate::error::{ApiError, ApiResult};
use crate::store::{Store, StoredColumn};
use crate::util::now_rfc3339;

/// What a cache key is the hash of, borrowed from the request: serialized straight into the hash
/// (no copy of the messages), byte for byte the JSON object earlier versions hashed, so their
/// cached replies still match.
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
pub fn key(cfg: &ModelConfig, req: &ChatRequest) -> String {
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
    match serde_json::to_writer(&mut hasher, &material) {
        Ok(()) => hex::encode(hasher.finalize()),
        // Writing into a hash cannot fail, and these fields always serialize; keep a key anyway.
        Err(_) => legacy_key(cfg, req),
    }
}

/// The key as earlier versions built it (through a JSON value).
fn legacy_key(cfg: &ModelConfig, req: &ChatRequest) -> String {
    let material = json!({
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
        Some(j) => Ok(Some(CACHED_REPLY.parse(&j, key)?)),
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
    }
}
