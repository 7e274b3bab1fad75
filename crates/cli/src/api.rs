//! The command line's one way into the engine: every store and engine action goes through the
//! API table (`psebench::api::rpc`), as the desktop app's and `psebench serve`'s do. The engine
//! itself stays private to this module; commands get a [`Api`] (or its async [`Client`]) and
//! name the API method they call.

use psebench::api::rpc::{self, Caller};
use psebench::api::{Engine, EngineOptions};
use psebench::jobs::Progress;
use psebench::ApiError;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::future::Future;

use crate::Cli;

/// Calls API methods from async code (following a run, Ctrl-C handlers).
#[derive(Clone)]
pub struct Client {
    engine: Engine,
}

impl Client {
    /// Call one API method as the command line.
    pub async fn call<P, R>(&self, method: &str, params: &P) -> Result<R, ApiError>
    where
        P: Serialize + ?Sized,
        R: DeserializeOwned,
    {
        rpc::call_typed(&self.engine, &Caller::Cli, method, params).await
    }

    /// The progress events of the runs of this store.
    pub fn progress(&self) -> tokio::sync::broadcast::Receiver<Progress> {
        rpc::progress_events(&self.engine)
    }
}

/// The opened store and an async runtime to call it from synchronous command code.
pub struct Api {
    client: Client,
    rt: tokio::runtime::Runtime,
}

impl Api {
    /// Open the chosen database (`--db`, PSEBENCH_DB, or the per-user default).
    pub fn open(cli: &Cli) -> Result<Api, ApiError> {
        let path = cli.db.clone().unwrap_or_else(psebench::store::default_db_path);
        let mut opts = EngineOptions::default();
        opts.client.use_cache = !cli.no_cache;
        let engine = Engine::open_with(&path, opts)?;
        Ok(Api { client: Client { engine }, rt: crate::commands::command_runtime()? })
    }

    /// Call one API method and wait for its answer.
    pub fn call<P, R>(&self, method: &str, params: &P) -> Result<R, ApiError>
    where
        P: Serialize + ?Sized,
        R: DeserializeOwned,
    {
        self.rt.block_on(self.client.call(method, params))
    }

    pub fn client(&self) -> Client {
        self.client.clone()
    }

    /// Run async command code (a followed run) on this API's runtime.
    pub fn block_on<F: Future>(&self, f: F) -> F::Output {
        self.rt.block_on(f)
    }

    /// `psebench serve` hands the engine to the server, which sends every request through the
    /// same API table (`rpc::call`); nothing else may take it out of here.
    pub fn into_server_engine(self) -> Engine {
        self.client.engine
    }
}
