//! Registered models: which provider, which endpoint, defaults, prices, and whether the endpoint
//! is on this machine.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub enum ProviderKind {
    /// Any server that speaks OpenAI chat completions: vLLM, Ollama, llama.cpp, LM Studio, OpenRouter, …
    #[serde(rename = "openai-compatible")]
    OpenAiCompatible,
    #[serde(rename = "openai")]
    OpenAi,
    #[serde(rename = "azure")]
    Azure,
    #[serde(rename = "anthropic")]
    Anthropic,
    #[serde(rename = "gemini")]
    Gemini,
}

impl ProviderKind {
    pub const ALL: [ProviderKind; 5] = [
        ProviderKind::OpenAiCompatible,
        ProviderKind::OpenAi,
        ProviderKind::Azure,
        ProviderKind::Anthropic,
        ProviderKind::Gemini,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::OpenAiCompatible => "openai-compatible",
            ProviderKind::OpenAi => "openai",
            ProviderKind::Azure => "azure",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Gemini => "gemini",
        }
    }
    pub fn parse(s: &str) -> Option<ProviderKind> {
        ProviderKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
    pub fn default_base_url(self) -> Option<&'static str> {
        match self {
            ProviderKind::OpenAi => Some("https://api.openai.com/v1"),
            ProviderKind::Anthropic => Some("https://api.anthropic.com"),
            ProviderKind::Gemini => Some("https://generativelanguage.googleapis.com"),
            ProviderKind::OpenAiCompatible | ProviderKind::Azure => None,
        }
    }
    /// Providers with a batch API (OpenAI-compatible servers have none).
    pub fn supports_batch(self) -> bool {
        !matches!(self, ProviderKind::OpenAiCompatible)
    }
    /// How long the provider may take to finish a batch, in plain words.
    pub fn batch_window(self) -> Option<&'static str> {
        match self {
            ProviderKind::OpenAi | ProviderKind::Azure | ProviderKind::Anthropic => Some("within 24 hours"),
            ProviderKind::Gemini => Some("usually within 24 hours (expires after 48)"),
            ProviderKind::OpenAiCompatible => None,
        }
    }
    /// Providers that cannot be used without a key.
    pub fn requires_key(self) -> bool {
        !matches!(self, ProviderKind::OpenAiCompatible)
    }
}

/// Batch prices as a share of online prices (half, at all three providers with a batch API).
pub const BATCH_PRICE_FACTOR: f64 = 0.5;

/// A model as registered with `psebench models add`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelConfig {
    pub name: String,
    pub kind: ProviderKind,
    /// Provider model id (Azure: the deployment name).
    pub model: String,
    pub base_url: String,
    pub api_key_env: Option<String>,
    pub key_in_keyring: bool,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub max_tokens: Option<u32>,
    pub seed: Option<i64>,
    /// US$ per million tokens.
    pub price_in: Option<f64>,
    pub price_out: Option<f64>,
    pub price_cached_in: Option<f64>,
    /// The user marked the endpoint as local (loopback endpoints are local regardless).
    pub local_flag: bool,
    /// Starting (and maximum) number of requests in flight to this endpoint.
    pub concurrency: u32,
    pub timeout_secs: u32,
    /// Azure `api-version` or Anthropic `anthropic-version` override.
    pub api_version: Option<String>,
    /// Set when the base URL moved to another scheme, host or port and the key link was dropped:
    /// says which, and how to confirm the key for the new address. No key is sent meanwhile.
    #[serde(default)]
    pub key_link_dropped: Option<String>,
    /// Its endpoint said, when the model was registered, that it is a simulation (the built-in
    /// demo model): its results are labelled a simulation wherever they appear.
    #[serde(default)]
    pub simulation: bool,
}

impl ModelConfig {
    pub fn new(name: &str, kind: ProviderKind, model: &str, base_url: &str) -> ModelConfig {
        ModelConfig {
            name: name.to_string(),
            kind,
            model: model.to_string(),
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key_env: None,
            key_in_keyring: false,
            temperature: None,
            top_p: None,
            max_tokens: None,
            seed: None,
            price_in: None,
            price_out: None,
            price_cached_in: None,
            local_flag: false,
            concurrency: 8,
            timeout_secs: 120,
            api_version: None,
            key_link_dropped: None,
            simulation: false,
        }
    }

    /// Scheme, host and port of the base URL (the origin a key is sent to).
    pub fn origin(&self) -> String {
        reqwest::Url::parse(&self.base_url).map(|u| u.origin().ascii_serialization()).unwrap_or_default()
    }

    /// Host part of the base URL.
    pub fn host(&self) -> String {
        reqwest::Url::parse(&self.base_url).ok().and_then(|u| u.host_str().map(str::to_string)).unwrap_or_default()
    }

    /// True when requests stay on this machine: a loopback endpoint, or one the user marked local.
    ///
    /// Decided from the base URL's host name alone, which is sound because a request goes to
    /// that origin and nowhere else: redirects of model servers are never followed, and addresses
    /// a provider names (a batch's results) are fetched only at this origin (`llm::origin`). So no
    /// answer of a "local" server can move case text or a key to another host without the
    /// confirmation a remote model needs.
    pub fn is_local(&self) -> bool {
        self.local_flag || self.is_loopback()
    }

    /// True when the base URL's host is this computer (`localhost`, `*.localhost` or a loopback
    /// address). Requests to it never go through a proxy (`llm::origin::Clients`).
    pub fn is_loopback(&self) -> bool {
        let host = self.host();
        let h = host.trim_start_matches('[').trim_end_matches(']');
        h == "localhost"
            || h.ends_with(".localhost")
            || h.parse::<std::net::IpAddr>().map(|ip| ip.is_loopback()).unwrap_or(false)
    }

    /// Cost of a call in US$.
    pub fn cost(&self, usage: &super::Usage) -> f64 {
        let per = |p: Option<f64>, n: u64| p.unwrap_or(0.0) * n as f64 / 1_000_000.0;
        let cached = usage.cached_input_tokens.min(usage.input_tokens);
        let fresh = usage.input_tokens - cached;
        per(self.price_in, fresh)
            + per(self.price_cached_in.or(self.price_in), cached)
            + per(self.price_out, usage.output_tokens)
    }

    /// Cost of a call answered through the provider's batch API in US$: the three providers that
    /// offer one (OpenAI and Azure OpenAI, Anthropic, Gemini) charge half their online price.
    pub fn batch_cost(&self, usage: &super::Usage) -> f64 {
        self.cost(usage) * BATCH_PRICE_FACTOR
    }

    /// Whether this model's provider has a batch API the engine can use.
    pub fn supports_batch(&self) -> bool {
        self.kind.supports_batch()
    }

    /// A one-line description of where data goes.
    pub fn destination(&self) -> String {
        format!("{} at {} ({})", self.kind.as_str(), self.host(), if self.is_local() { "local" } else { "remote" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locality() {
        let mut m = ModelConfig::new("m", ProviderKind::OpenAiCompatible, "x", "http://127.0.0.1:8080/v1");
        assert!(m.is_local());
        m.base_url = "http://localhost:11434/v1".into();
        assert!(m.is_local());
        m.base_url = "http://[::1]:9/v1".into();
        assert!(m.is_local());
        m.base_url = "https://api.openai.com/v1".into();
        assert!(!m.is_local());
        m.local_flag = true;
        assert!(m.is_local());
    }

    #[test]
    fn cost_uses_cached_price() {
        let mut m = ModelConfig::new("m", ProviderKind::OpenAi, "x", "https://api.openai.com/v1");
        m.price_in = Some(2.0);
        m.price_out = Some(8.0);
        m.price_cached_in = Some(0.5);
        let u = super::super::Usage {
            input_tokens: 1_000_000,
            output_tokens: 500_000,
            cached_input_tokens: 400_000,
            reasoning_tokens: 0,
        };
        assert!((m.cost(&u) - (1.2 + 0.2 + 4.0)).abs() < 1e-9);
    }
}
