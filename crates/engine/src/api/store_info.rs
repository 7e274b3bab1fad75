//! What is in the store: for `psebench status` and the app's Home page.

use serde::{Deserialize, Serialize};

use super::Engine;
use crate::error::ApiResult;

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

fn counts(conn: &rusqlite::Connection, sql: &str) -> rusqlite::Result<Vec<CountByKey>> {
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map([], |r| Ok(CountByKey { key: r.get(0)?, count: r.get(1)? }))?;
    rows.collect()
}

impl Engine {
    pub fn store_info(&self) -> ApiResult<StoreInfo> {
        let report = self.store().open_report().clone();
        let schema = self.store().applied_migrations()?;
        let (policies, by_status, by_type, cases) = self.store().with_read(|c| {
            Ok::<_, rusqlite::Error>((
                {
                    let mut s = c.prepare("SELECT id FROM policies ORDER BY id")?;
                    let v = s.query_map([], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
                    v
                },
                counts(c, "SELECT status, count(*) FROM cards GROUP BY status ORDER BY status")?,
                counts(c, "SELECT event_type, count(*) FROM cards GROUP BY event_type ORDER BY event_type")?,
                counts(
                    c,
                    "SELECT case_type, count(*) FROM cases WHERE excluded = 0 GROUP BY case_type ORDER BY case_type",
                )?,
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
