//! Small helpers shared by every module: careful file reading, text utilities, and the CSV and
//! LaTeX escaping every export uses.

pub mod csv_text;
pub mod disk;
pub mod downloads;
pub mod file_names;
pub mod files;
pub mod format;
pub mod ids;
pub mod latex;
pub mod markdown;
pub mod memory;
pub mod parallel;
pub mod private_files;
pub mod text;

/// Current time as an RFC 3339 string in UTC (what the store records everywhere).
pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
