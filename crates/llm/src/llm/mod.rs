//! The LLM provider layer: one interface over OpenAI-compatible servers, OpenAI, Azure OpenAI,
//! Anthropic and Gemini, with shared middleware (retries, adaptive concurrency, cache,
//! accounting, cancellation), a tolerant JSON extractor, and the separation of a reasoning
//! model's reasoning from its answer (`reasoning`).

pub mod accounting;
pub mod batch;
pub mod cache;
pub mod chain;
pub mod client;
pub mod config;
pub mod error;
pub mod json_extract;
pub mod ledger;
pub mod limiter;
pub mod origin;
pub mod reasoning;
pub mod registry;
pub mod retry;
pub mod types;
pub mod wire;

pub use chain::CallChain;
pub use client::{ClientOptions, LlmClient, ModelHandle};
pub use config::{ModelConfig, ProviderKind};
pub use error::LlmError;
pub use ledger::{CallContext, Completion};
pub use limiter::{LiftGuard, LimiterSnapshot};
pub use tokio_util::sync::CancellationToken;
pub use types::{ChatRequest, ChatResponse, Message, ResponseFormat, Role, Usage};
