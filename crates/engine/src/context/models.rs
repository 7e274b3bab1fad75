//! Model registry actions: add, list, remove, store a key, test with one tiny real call, cache
//! and usage views.

use serde::{Deserialize, Serialize};
use std::time::Instant;

use super::model_test;
use crate::context::Engine;
use crate::error::{ApiError, ApiResult};
use crate::llm::accounting::{self, CallContext, UsageTotals};
use crate::llm::cache::{self, CacheStats};
use crate::llm::{registry, ChatRequest, LlmClient, LlmError, Message, ModelConfig, ProviderKind};
use crate::secrets::model_account;

/// What `models add` takes. Omitted fields keep provider defaults.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields)]
#[serde(default)]
pub struct ModelAddRequest {
    pub name: String,
    pub kind: String,
    pub model: String,
    pub base_url: Option<String>,
    pub api_key_env: Option<String>,
    /// A key to store in the OS keyring now (never written anywhere else).
    pub api_key: Option<String>,
    /// Keep `api_key` in memory for this session only instead of the OS keyring (for a computer
    /// without one): it is never written anywhere and is forgotten when the app closes.
    pub key_for_session: Option<bool>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub max_tokens: Option<u32>,
    pub seed: Option<i64>,
    pub price_in: Option<f64>,
    pub price_out: Option<f64>,
    pub price_cached_in: Option<f64>,
    pub local: bool,
    pub concurrency: Option<u32>,
    pub timeout_secs: Option<u32>,
    pub api_version: Option<String>,
    /// When the base URL moves to another scheme, host or port, keep the environment variable
    /// (or keyring key) for the new address. Without it the key link is dropped (a key typed in
    /// this request always counts as confirmed).
    pub confirm_key_for_new_host: Option<bool>,
}

/// A registered model as shown to people and scripts (no key material, ever).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelView {
    #[serde(flatten)]
    pub config: ModelConfig,
    pub local: bool,
    pub destination: String,
    /// `session` (a key held in memory for this session), `env:VAR`, `keyring`, or `none`.
    pub key_source: String,
    /// The key is held in memory only and lasts until the app closes.
    pub key_for_session_only: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelTestResult {
    pub name: String,
    pub ok: bool,
    pub latency_ms: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub reply: String,
    pub destination: String,
}

fn view(c: ModelConfig, in_session: bool) -> ModelView {
    let key_source = match (in_session, &c.api_key_env, c.key_in_keyring) {
        (true, _, _) => "session".into(),
        (false, Some(v), _) => format!("env:{v}"),
        (false, None, true) => "keyring".into(),
        _ => "none".into(),
    };
    ModelView {
        local: c.is_local(),
        destination: c.destination(),
        key_source,
        key_for_session_only: in_session,
        config: c,
    }
}

fn check_name(name: &str) -> ApiResult<()> {
    let ok =
        !name.is_empty() && name.len() <= 64 && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c));
    if ok {
        Ok(())
    } else {
        Err(ApiError::invalid(format!(
            "\"{name}\" cannot be used as a model name: use up to 64 letters, digits, '-', '_', '.' or ':'."
        )))
    }
}

/// The key link rule for a model being saved again: when its base URL moves to another
/// scheme, host or port, a stored key or environment variable is not carried to the new
/// address unless a key is typed now or the request confirms it. Sets `key_link_dropped` and
/// returns whether the keyring key must be deleted.
fn relink_key(cfg: &mut ModelConfig, existing: Option<&ModelConfig>, req: &ModelAddRequest) -> bool {
    let Some(old) = existing else { return false };
    let has_link = cfg.api_key_env.is_some() || cfg.key_in_keyring;
    if req.api_key.is_some() || req.confirm_key_for_new_host == Some(true) {
        return false;
    }
    if old.origin() == cfg.origin() {
        // Same address: a link chosen again settles an earlier notice; otherwise it stays.
        cfg.key_link_dropped = if has_link { None } else { old.key_link_dropped.clone() };
        return false;
    }
    if !has_link {
        return false;
    }
    let link = match &cfg.api_key_env {
        Some(v) => format!("the environment variable {v}"),
        None => "the key stored in the keyring".to_string(),
    };
    cfg.key_link_dropped = Some(format!(
        "The address moved from {} to {}, so {link} is no longer sent with requests. To use a key with the new address, \
         confirm it: type the key again, or choose the environment variable again in the model form (command line: \
         models add ... --confirm-key-for-new-host).",
        old.origin(),
        cfg.origin()
    ));
    let drop_keyring = old.key_in_keyring;
    cfg.api_key_env = None;
    cfg.key_in_keyring = false;
    drop_keyring
}

impl Engine {
    /// A model as shown, saying whether its key is held in memory for this session.
    fn model_view(&self, c: ModelConfig) -> ModelView {
        let in_session = self.llm().session_keys().holds(&model_account(&c.name));
        view(c, in_session)
    }

    /// Register (or update) a model, asking its endpoint first whether it is a simulation (see
    /// [`super::simulation`]). What the shells call.
    pub async fn model_register(&self, req: &ModelAddRequest) -> ApiResult<ModelView> {
        let probe_cfg = ModelConfig::new(
            &req.name,
            ProviderKind::parse(&req.kind).unwrap_or(ProviderKind::OpenAiCompatible),
            &req.model,
            req.base_url.as_deref().unwrap_or_default(),
        );
        let said = super::simulation::endpoint_says_simulation(&probe_cfg).await;
        let req = req.clone();
        self.blocking(move |e| e.model_save(&req, said)).await
    }

    /// Register (or update) a model without asking its endpoint: a model saved again at the same
    /// address keeps what its endpoint said before.
    pub fn model_add(&self, req: &ModelAddRequest) -> ApiResult<ModelView> {
        self.model_save(req, None)
    }

    /// Register (or update) a model; `simulation` is what its endpoint said (None: it was not
    /// asked or did not answer, so a model kept at the same address keeps its earlier answer).
    pub fn model_save(&self, req: &ModelAddRequest, simulation: Option<bool>) -> ApiResult<ModelView> {
        check_name(&req.name)?;
        let kind = ProviderKind::parse(&req.kind).ok_or_else(|| {
            ApiError::invalid(format!(
                "\"{}\" is not a provider kind; use one of openai-compatible, openai, azure, anthropic, gemini.",
                req.kind
            ))
        })?;
        let base = match (&req.base_url, kind.default_base_url()) {
            (Some(u), _) => u.clone(),
            (None, Some(d)) => d.to_string(),
            (None, None) => {
                return Err(ApiError::invalid(format!(
                    "A {} model needs the address of its server (base URL).",
                    kind.as_str()
                )));
            }
        };
        let parsed = reqwest::Url::parse(&base).map_err(|e| {
            ApiError::invalid(format!("\"{base}\" is not a valid URL ({e}); for example http://127.0.0.1:8000/v1"))
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(ApiError::invalid(format!("\"{base}\" must start with http:// or https://")));
        }
        if req.api_key.is_some() && req.api_key_env.is_some() {
            return Err(ApiError::invalid("Give either a key to keep in the keyring or the name of an environment variable that holds it, not both."));
        }
        let existing = self.store().with_conn(|c| registry::get(c, &req.name))?;
        let mut cfg = ModelConfig::new(&req.name, kind, &req.model, &base);
        cfg.api_key_env = req.api_key_env.clone();
        let for_session = req.key_for_session == Some(true) && req.api_key.is_some();
        cfg.key_in_keyring = (req.api_key.is_some() && !for_session)
            || (req.api_key_env.is_none() && existing.as_ref().map(|e| e.key_in_keyring).unwrap_or(false));
        let drop_keyring_key = relink_key(&mut cfg, existing.as_ref(), req);
        cfg.temperature = req.temperature;
        cfg.top_p = req.top_p;
        cfg.max_tokens = req.max_tokens;
        cfg.seed = req.seed;
        cfg.price_in = req.price_in;
        cfg.price_out = req.price_out;
        cfg.price_cached_in = req.price_cached_in;
        cfg.local_flag = req.local;
        cfg.concurrency = req.concurrency.unwrap_or(8).clamp(1, 1024);
        cfg.timeout_secs = req.timeout_secs.unwrap_or(120).clamp(1, 3600);
        cfg.api_version = req.api_version.clone();
        cfg.simulation = simulation.unwrap_or_else(|| {
            existing.as_ref().map(|old| old.simulation && old.origin() == cfg.origin()).unwrap_or(false)
        });
        match &req.api_key {
            Some(key) if for_session => self.keep_session_key(&req.name, key)?,
            Some(key) => self.llm().secrets().set(&model_account(&req.name), key)?,
            None => {}
        }
        self.store().with_conn(|c| registry::upsert(c, &cfg))?;
        if drop_keyring_key {
            // After the registry no longer points at it; best effort, like `model_remove`.
            if let Err(e) = self.llm().secrets().delete(&model_account(&req.name)) {
                tracing::warn!(model = %req.name, error = %e, "could not delete a dropped key from the keyring; remove it there by hand");
            }
        }
        Ok(self.model_view(cfg))
    }

    /// Hold a model's key in memory for this session (never written anywhere).
    fn keep_session_key(&self, name: &str, key: &str) -> ApiResult<()> {
        if key.trim().is_empty() {
            return Err(ApiError::invalid("The key is empty; nothing was kept."));
        }
        self.llm().session_keys().set(&model_account(name), crate::secrets::Secret::new(key.trim()));
        Ok(())
    }

    /// Keep a registered model's key in memory for this session only: for a computer without an
    /// OS keyring. Calls of this session use it; it is forgotten when the app closes.
    pub fn model_keep_key_for_session(&self, name: &str, key: &str) -> ApiResult<ModelView> {
        let cfg = self.store().with_conn(|c| registry::require(c, name))?;
        self.keep_session_key(name, key)?;
        Ok(self.model_view(cfg))
    }

    pub fn models_list(&self) -> ApiResult<Vec<ModelView>> {
        Ok(self.store().with_conn(registry::list)?.into_iter().map(|c| self.model_view(c)).collect())
    }

    pub fn model_get(&self, name: &str) -> ApiResult<ModelView> {
        Ok(self.model_view(self.store().with_conn(|c| registry::require(c, name))?))
    }

    pub fn model_remove(&self, name: &str) -> ApiResult<()> {
        let cfg = self.store().with_conn(|c| registry::require(c, name))?;
        if cfg.key_in_keyring {
            // Best effort: a keyring that is unavailable now should not block removal.
            if let Err(e) = self.llm().secrets().delete(&model_account(name)) {
                tracing::warn!(model = %name, error = %e, "could not delete the model's key from the keyring; remove it there by hand");
            }
        }
        self.llm().session_keys().remove(&model_account(name));
        self.store().with_conn(|c| registry::remove(c, name))?;
        Ok(())
    }

    /// Store (or replace) a model's key in the OS keyring.
    pub fn model_set_key(&self, name: &str, key: &str) -> ApiResult<ModelView> {
        let mut cfg = self.store().with_conn(|c| registry::require(c, name))?;
        if key.trim().is_empty() {
            return Err(ApiError::invalid("The key is empty; nothing was stored."));
        }
        self.llm().secrets().set(&model_account(name), key.trim())?;
        // The keyring key now stands for the model: a key held for the session no longer does.
        self.llm().session_keys().remove(&model_account(name));
        cfg.key_in_keyring = true;
        cfg.api_key_env = None;
        cfg.key_link_dropped = None;
        self.store().with_conn(|c| registry::upsert(c, &cfg))?;
        Ok(self.model_view(cfg))
    }

    /// A resolved handle for calls (key looked up now). It reads one registry row by its name
    /// (and the key from the secret store), so the pipelines call it directly from async code
    /// when a run starts rather than sending it to a blocking thread.
    pub fn model_handle(&self, name: &str) -> ApiResult<crate::llm::ModelHandle> {
        let cfg = self.store().with_conn(|c| registry::require(c, name))?;
        Ok(self.llm().resolve(cfg)?)
    }

    /// One tiny real call: says whether the model answers, how fast, and what it costs in tokens.
    /// Exactly one attempt of at most [`model_test::TEST_TIMEOUT_SECS`] seconds (never the
    /// run-time retry policy, never the cache); a failure is one plain sentence saying what is
    /// wrong (see [`model_test`]), with the provider's words as the error's detail.
    pub async fn model_test(&self, name: &str) -> ApiResult<ModelTestResult> {
        let mut handle = self.model_handle(name)?;
        handle.cfg.timeout_secs = handle.cfg.timeout_secs.clamp(1, model_test::TEST_TIMEOUT_SECS);
        let req = ChatRequest {
            max_tokens: Some(16),
            ..ChatRequest::new(vec![
                Message::system("You are a connectivity check. Reply with the single word: ready"),
                Message::user("Are you there?"),
            ])
        };
        let started = Instant::now();
        let mut opts = self.opts.client.clone();
        opts.use_cache = false;
        opts.retry.max_retries = 0;
        let timeout = std::time::Duration::from_secs(u64::from(handle.cfg.timeout_secs));
        opts.connect_timeout = opts.connect_timeout.min(timeout);
        let once = LlmClient::new(self.store().clone(), self.opts.secrets.clone(), opts)
            .with_session_keys(self.llm().session_keys().clone());
        let r = match once
            .chat(&handle, &req, &CallContext::new(None, "models-test"), &crate::llm::CancellationToken::new())
            .await
        {
            Ok(r) => r,
            Err(e) => {
                let probe = match &e {
                    LlmError::Connect { .. } => model_test::probe_connect(&handle.cfg.base_url).await,
                    LlmError::RetriesExhausted { last, .. } if matches!(**last, LlmError::Connect { .. }) => {
                        model_test::probe_connect(&handle.cfg.base_url).await
                    }
                    _ => None,
                };
                return Err(model_test::classify(&e, &handle.cfg, probe).into_error(name, &e));
            }
        };
        Ok(ModelTestResult {
            name: name.to_string(),
            ok: true,
            latency_ms: started.elapsed().as_millis() as u64,
            input_tokens: r.usage.input_tokens,
            output_tokens: r.usage.output_tokens,
            reply: r.text.chars().take(200).collect(),
            destination: handle.cfg.destination(),
        })
    }

    pub fn cache_stats(&self) -> ApiResult<CacheStats> {
        cache::stats(self.store())
    }

    pub fn cache_clear(&self, model: Option<&str>) -> ApiResult<u64> {
        cache::clear(self.store(), model)
    }

    /// Token and cost totals per stage and model for a run (None: calls outside runs).
    pub fn usage_by_stage(&self, run_id: Option<&str>) -> ApiResult<Vec<UsageTotals>> {
        accounting::totals_by_stage(self.store(), run_id)
    }

    /// Rows of the call ledger: a run's calls, or one item's, in the order they were made.
    pub fn calls_list(&self, f: &crate::llm::ledger::CallFilter) -> ApiResult<Vec<crate::llm::ledger::LedgerCall>> {
        self.store().with_read(|c| crate::llm::ledger::list(c, f))
    }

    /// Token and cost totals per stage and model over every recorded call.
    pub fn usage_all_by_stage(&self) -> ApiResult<Vec<UsageTotals>> {
        accounting::totals_by_stage_all(self.store())
    }
}
