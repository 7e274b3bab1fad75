//! Provider batches as the shells see them: the batches of a run (for progress views and
//! `psebench batches`), and the batch-mode runs to pick up again when the app opens.

use super::Engine;
use crate::error::ApiResult;
use crate::jobs::{self, RunKind, RunStatus};
use crate::llm::batch::repo::{self as batch_repo, BatchView};

impl Engine {
    /// The batches of a run (every batch when `run_id` is None), newest first.
    pub fn batches_list(&self, run_id: Option<&str>) -> ApiResult<Vec<BatchView>> {
        self.store().with_read(|c| batch_repo::list(c, run_id))
    }

    /// Evaluation and generation runs in batch mode that were left interrupted (the app or CLI
    /// closed while they waited) with batches whose answers the run has not taken yet: reopening
    /// the app resumes them, so polling picks up where it stopped.
    pub fn batch_runs_to_resume(&self) -> ApiResult<Vec<(String, RunKind)>> {
        let runs = self.store().with_read(|c| {
            let mut all = jobs::list_runs(c, Some(RunKind::Eval))?;
            all.extend(jobs::list_runs(c, Some(RunKind::Generation))?);
            Ok::<_, crate::error::ApiError>(all)
        })?;
        let mut out = Vec::new();
        for r in runs {
            let batch = r.config.get("batch").and_then(serde_json::Value::as_bool).unwrap_or(false);
            if !batch || r.status != RunStatus::Interrupted {
                continue;
            }
            let open = self.batches_list(Some(&r.run_id))?.iter().any(|b| b.waiting > 0);
            if open {
                out.push((r.run_id, r.kind));
            }
        }
        Ok(out)
    }
}
