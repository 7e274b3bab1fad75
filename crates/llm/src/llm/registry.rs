//! The model registry in the store.

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::config::{ModelConfig, ProviderKind};
use crate::error::{ApiError, ApiResult};
use crate::util::now_rfc3339;

const COLS: &str = "name, kind, model, base_url, api_key_env, key_in_keyring, temperature, top_p, max_tokens, seed, price_in, price_out, price_cached_in, local_flag, concurrency, timeout_secs, api_version, key_link_dropped, simulation";

fn row(r: &Row<'_>) -> rusqlite::Result<ModelConfig> {
    let kind: String = r.get(1)?;
    Ok(ModelConfig {
        name: r.get(0)?,
        kind: ProviderKind::parse(&kind).unwrap_or(ProviderKind::OpenAiCompatible),
        model: r.get(2)?,
        base_url: r.get(3)?,
        api_key_env: r.get(4)?,
        key_in_keyring: r.get::<_, i64>(5)? != 0,
        temperature: r.get(6)?,
        top_p: r.get(7)?,
        max_tokens: r.get::<_, Option<i64>>(8)?.map(|v| v as u32),
        seed: r.get(9)?,
        price_in: r.get(10)?,
        price_out: r.get(11)?,
        price_cached_in: r.get(12)?,
        local_flag: r.get::<_, i64>(13)? != 0,
        concurrency: r.get::<_, i64>(14)?.max(1) as u32,
        timeout_secs: r.get::<_, i64>(15)?.max(1) as u32,
        api_version: r.get(16)?,
        key_link_dropped: r.get(17)?,
        simulation: r.get::<_, i64>(18)? != 0,
    })
}

pub fn get(conn: &Connection, name: &str) -> ApiResult<Option<ModelConfig>> {
    Ok(conn.query_row(&format!("SELECT {COLS} FROM models WHERE name = ?1"), [name], row).optional()?)
}

pub fn require(conn: &Connection, name: &str) -> ApiResult<ModelConfig> {
    get(conn, name)?.ok_or_else(|| {
        ApiError::not_found(format!(
            "No model is registered as \"{name}\". Register it in Settings → Models (or with `psebench models add`)."
        ))
    })
}

pub fn list(conn: &Connection) -> ApiResult<Vec<ModelConfig>> {
    let mut stmt = conn.prepare(&format!("SELECT {COLS} FROM models ORDER BY name"))?;
    let rows = stmt.query_map([], row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Insert or replace a model's settings.
pub fn upsert(conn: &Connection, m: &ModelConfig) -> ApiResult<()> {
    let now = now_rfc3339();
    conn.execute(
        &format!(
            "INSERT INTO models ({COLS}, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?20)
             ON CONFLICT(name) DO UPDATE SET kind = excluded.kind, model = excluded.model, base_url = excluded.base_url,
               api_key_env = excluded.api_key_env, key_in_keyring = excluded.key_in_keyring, temperature = excluded.temperature,
               top_p = excluded.top_p, max_tokens = excluded.max_tokens, seed = excluded.seed, price_in = excluded.price_in,
               price_out = excluded.price_out, price_cached_in = excluded.price_cached_in, local_flag = excluded.local_flag,
               concurrency = excluded.concurrency, timeout_secs = excluded.timeout_secs, api_version = excluded.api_version,
               key_link_dropped = excluded.key_link_dropped, simulation = excluded.simulation, updated_at = excluded.updated_at"
        ),
        params![
            m.name,
            m.kind.as_str(),
            m.model,
            m.base_url,
            m.api_key_env,
            m.key_in_keyring as i64,
            m.temperature,
            m.top_p,
            m.max_tokens.map(|v| v as i64),
            m.seed,
            m.price_in,
            m.price_out,
            m.price_cached_in,
            m.local_flag as i64,
            m.concurrency as i64,
            m.timeout_secs as i64,
            m.api_version,
            m.key_link_dropped,
            m.simulation as i64,
            now
        ],
    )?;
    Ok(())
}

pub fn remove(conn: &Connection, name: &str) -> ApiResult<bool> {
    Ok(conn.execute("DELETE FROM models WHERE name = ?1", [name])? > 0)
}

pub fn set_key_flag(conn: &Connection, name: &str, in_keyring: bool) -> ApiResult<()> {
    conn.execute(
        "UPDATE models SET key_in_keyring = ?2, updated_at = ?3 WHERE name = ?1",
        params![name, in_keyring as i64, now_rfc3339()],
    )?;
    Ok(())
}
