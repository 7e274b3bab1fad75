//! A loopback mock LLM provider: a real HTTP server on 127.0.0.1 that speaks the OpenAI (and
//! Azure), Anthropic and Gemini wire formats, answers from a script, injects faults, adds
//! latency and records every request. Every LLM test of the project goes through it with the
//! real HTTP client. Also available as `psebench mock-llm serve`.

pub mod demo;
pub mod normalize;
mod reset;
pub mod script;
mod server;
mod stream_array;

pub use normalize::Api;
mod batch;
pub use script::{BatchBehaviour, Fault, FaultRate, ReasoningForm, Reply, Rule, Script, UsageOverride, When};
pub use server::{MockServer, RecordedRequest};
