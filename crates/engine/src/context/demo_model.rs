//! The demo model inside the app: Settings' "Try the demo model" starts the simulation of
//! `psebench mock-llm serve --demo` on a free port of this computer, in this process, and
//! registers a model named `demo` that points at it. It answers until it is stopped or the app
//! closes; the registration stays (runs name it), so after a restart the status says plainly
//! that it is stopped and starting it again moves the registration to the new port.

use serde::{Deserialize, Serialize};

use super::models::ModelAddRequest;
use crate::context::Engine;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::llm::registry;
use psebench_mock::{MockServer, Script};

/// The name the demo model is registered under.
pub const DEMO_MODEL_NAME: &str = "demo";

/// The running demo endpoint of this process, if any.
#[derive(Default)]
struct DemoEndpoint {
    server: tokio::sync::Mutex<Option<MockServer>>,
}

/// Where the demo model stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DemoModelStatus {
    /// The registered model's name (`demo`).
    pub model_name: String,
    /// The demo model answers in this app now.
    pub running: bool,
    /// Its address while it runs.
    pub base_url: Option<String>,
    /// A model named `demo` is registered as the demo model (it may be stopped).
    pub registered: bool,
    /// What to tell the person, in one or two sentences.
    pub message: String,
}

impl Engine {
    /// Where the demo model stands.
    pub async fn demo_model_status(&self) -> ApiResult<DemoModelStatus> {
        let endpoint = self.extension::<DemoEndpoint>();
        let base_url = endpoint.server.lock().await.as_ref().map(MockServer::openai_base);
        self.demo_status_with(base_url).await
    }

    /// Start the demo model (when it is not running) on a free port of this computer and register
    /// the model `demo` at its address, marked as a simulation.
    pub async fn demo_model_start(&self) -> ApiResult<DemoModelStatus> {
        let existing = self.blocking(|e| e.store().with_conn(|c| registry::get(c, DEMO_MODEL_NAME))).await?;
        if let Some(m) = &existing {
            if !m.simulation {
                return Err(ApiError::new(
                    ErrorCode::Conflict,
                    format!(
                        "A model named \"{DEMO_MODEL_NAME}\" is already registered and it is not the demo model. Rename or \
                         remove it in Settings → Models, then try the demo model again."
                    ),
                ));
            }
        }
        let endpoint = self.extension::<DemoEndpoint>();
        let mut server = endpoint.server.lock().await;
        if server.is_none() {
            let started = MockServer::start_with(Script::demo(), 0, false).await.map_err(|e| {
                ApiError::new(ErrorCode::Io, format!("The demo model could not start on this computer ({e})."))
            })?;
            *server = Some(started);
        }
        let base_url = server.as_ref().map(MockServer::openai_base).unwrap_or_default();
        drop(server);
        let req = ModelAddRequest {
            name: DEMO_MODEL_NAME.into(),
            kind: "openai-compatible".into(),
            model: psebench_mock::demo::DEMO_MODEL_ID.into(),
            base_url: Some(base_url.clone()),
            temperature: Some(0.0),
            price_in: Some(0.0),
            price_out: Some(0.0),
            local: true,
            concurrency: Some(8),
            timeout_secs: Some(30),
            ..Default::default()
        };
        self.blocking(move |e| e.model_save(&req, Some(true))).await?;
        self.demo_status_with(Some(base_url)).await
    }

    /// Stop the demo model. Its registration stays, so runs that used it still name it.
    pub async fn demo_model_stop(&self) -> ApiResult<DemoModelStatus> {
        let endpoint = self.extension::<DemoEndpoint>();
        // Dropping the server stops it.
        endpoint.server.lock().await.take();
        self.demo_status_with(None).await
    }

    async fn demo_status_with(&self, base_url: Option<String>) -> ApiResult<DemoModelStatus> {
        let registered = self
            .blocking(|e| e.store().with_conn(|c| registry::get(c, DEMO_MODEL_NAME)))
            .await?
            .filter(|m| m.simulation);
        let running = base_url.is_some();
        let message = match (running, &registered) {
            (true, Some(m)) if Some(&m.base_url) == base_url.as_ref() => format!(
                "The demo model is running. Choose \"{DEMO_MODEL_NAME}\" as any model in Evaluate, Generate or \
                 Authoring. It is a simulation for learning the app, not a real language model, and its results are \
                 labelled so."
            ),
            (true, _) => "The demo model is running, but no model points at it; start it again to register it.".into(),
            (false, Some(_)) => format!(
                "The demo model is stopped (it stops when the app closes). Runs with \"{DEMO_MODEL_NAME}\" fail until \
                 you start it again."
            ),
            (false, None) => "The demo model is not running. One click starts a simulated model that plays every role \
                              of the app, so you can try each step without an API key."
                .into(),
        };
        Ok(DemoModelStatus {
            model_name: DEMO_MODEL_NAME.into(),
            running,
            base_url,
            registered: registered.is_some(),
            message,
        })
    }
}
