//! Helpers of the fault tests: a store in a temporary folder driven through the real `psebench`
//! binary, and a loopback mock provider kept alive for the length of a test.

// The store-in-a-folder driver and the long-run switch are the ones the kill and writer tests use.
pub use crate::support::{long as long_run, s, Env};

/// A mock provider with its own runtime, alive as long as this value.
pub struct Mock {
    _rt: tokio::runtime::Runtime,
    pub server: psebench::mock::MockServer,
}

pub fn start_mock(script: psebench::mock::Script) -> Mock {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let server = rt.block_on(psebench::mock::MockServer::start(script, 0)).unwrap();
    Mock { _rt: rt, server }
}
