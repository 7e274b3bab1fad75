//! What is in the store: for `psebench status` and the app's Home page.

use serde::{Deserialize, Serialize};

use super::Engine;
use crate::error::{ApiError, ApiResult};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CountByKey {
    pub key: String,
    pub count: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct StoreInfo {
    pub path: String,
    pub app_version: String,
    pub schema: Vec<String>,
    pub created_now: bool,
    pub backup_made: Option<String>,
    pub policies: Vec<String>,
    pub cards_by_status: Vec<CountByKey>,
    pub cards_by_type: Vec<CountByKey>,
    pub cases_by_type: Vec<CountByKey>,
    /// The folder of the daily log files that the desktop app and `psebench serve` write (a week
    /// of them is kept), next to the database file.
    pub log_folder: String,
}

fn counts(rows: Vec<(String, i64)>) -> Vec<CountByKey> {
    rows.into_iter().map(|(key, count)| CountByKey { key, count }).collect()
}

impl Engine {
    pub fn store_info(&self) -> ApiResult<StoreInfo> {
        let report = self.store().open_report().clone();
        let schema = self.store().applied_migrations()?;
        let (policies, by_status, by_type, cases) = self.store().with_read(|c| {
            Ok::<_, ApiError>((
                crate::policy::repo::list_pack_ids(c)?,
                counts(crate::card::repo::count_by_status(c)?),
                counts(crate::card::repo::count_by_event_type(c)?),
                counts(crate::case::repo::count_by_type(c)?),
            ))
        })?;
        Ok(StoreInfo {
            path: self.store().path().display().to_string(),
            app_version: crate::version().to_string(),
            schema,
            created_now: report.created,
            backup_made: report.backup.map(|p| p.display().to_string()),
            policies,
            cards_by_status: by_status,
            cards_by_type: by_type,
            cases_by_type: cases,
            log_folder: crate::logging::log_dir_for(self.store().path()).display().to_string(),
        })
    }
}
