//! Files crossing the API as data: the app and the browser upload a file's bytes with its name,
//! and receive exports as a named payload they offer for download. Uploads are written to a
//! private temporary folder under their own names so that every import goes through the same
//! readers (size limits, UTF-8 and JSON checks) as the command line, and error messages name the
//! file the user picked, never the temporary folder.

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

use crate::error::{ApiError, ApiResult, ErrorCode};

/// A file the user picked: its name and its bytes (base64).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Upload {
    /// The file's name as picked (no folders), e.g. `cards.jsonl`.
    pub name: String,
    /// Its bytes, base64-encoded (standard alphabet, with padding).
    pub base64: String,
}

/// An export offered for download.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Download {
    /// Suggested file name.
    pub file_name: String,
    /// Media type, e.g. `application/x-ndjson`, `image/svg+xml`, `image/png`.
    pub mime: String,
    /// The bytes, base64-encoded.
    pub base64: String,
    /// What the file holds, in one sentence (shown after saving).
    pub description: String,
}

impl Download {
    /// A download of `bytes`. The suggested name is made valid on every system first (ids and
    /// other text become part of it; see `util::file_names`), so saving it never fails on Windows
    /// because of a `?` or a name like `nul.csv`.
    pub fn from_bytes(file_name: &str, mime: &str, bytes: &[u8], description: impl Into<String>) -> Download {
        Download {
            file_name: crate::util::file_names::portable_file_name(file_name),
            mime: mime.to_string(),
            base64: base64::engine::general_purpose::STANDARD.encode(bytes),
            description: description.into(),
        }
    }

    /// The decoded bytes (for shells that write the file themselves).
    pub fn bytes(&self) -> ApiResult<Vec<u8>> {
        base64::engine::general_purpose::STANDARD
            .decode(&self.base64)
            .map_err(|e| ApiError::internal(format!("a download could not be decoded: {e}")))
    }
}

/// Largest upload accepted in one request (the readers apply their own, smaller limits per file).
pub const MAX_UPLOAD_BYTES: usize = 200 * 1024 * 1024;

/// Uploaded files materialised in a private temporary folder for the duration of one call.
pub struct UploadDir {
    dir: tempfile::TempDir,
    pub paths: Vec<PathBuf>,
}

/// The uploaded file's own name (the last part of whatever the browser sent, with either kind of
/// separator), made valid on this system: a browser on another computer may send a name Windows
/// refuses (`a:b.json` would even name a hidden stream of a file `a`).
fn safe_name(name: &str) -> ApiResult<String> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("").trim().to_string();
    if base.is_empty() || base == "." || base == ".." {
        return Err(ApiError::invalid(format!("\"{name}\" is not a usable file name; rename the file and try again.")));
    }
    Ok(crate::util::file_names::portable_file_name(&base))
}

impl UploadDir {
    /// Write the uploads under their own names (a repeated name gets a numbered folder).
    pub fn new(files: &[Upload]) -> ApiResult<UploadDir> {
        let dir = tempfile::Builder::new()
            .prefix("psebench-upload-")
            .tempdir()
            .map_err(|e| ApiError::new(ErrorCode::Io, format!("could not prepare the uploaded files: {e}")))?;
        let mut paths = Vec::new();
        let mut total = 0usize;
        for (i, f) in files.iter().enumerate() {
            let name = safe_name(&f.name)?;
            let bytes = base64::engine::general_purpose::STANDARD.decode(f.base64.trim()).map_err(|e| {
                ApiError::invalid(format!("{name}: the upload arrived damaged ({e}); pick the file again."))
            })?;
            total += bytes.len();
            if total > MAX_UPLOAD_BYTES {
                return Err(ApiError::invalid(format!(
                    "{name}: the files together are larger than {} MB, which is more than one upload accepts.",
                    MAX_UPLOAD_BYTES / (1024 * 1024)
                )));
            }
            let folder =
                if paths.iter().any(|p: &PathBuf| p.file_name().and_then(|n| n.to_str()) == Some(name.as_str())) {
                    dir.path().join(format!("{i}"))
                } else {
                    dir.path().to_path_buf()
                };
            std::fs::create_dir_all(&folder).map_err(|e| ApiError::new(ErrorCode::Io, e.to_string()))?;
            let p = folder.join(&name);
            std::fs::write(&p, &bytes)
                .map_err(|e| ApiError::new(ErrorCode::Io, format!("{name}: could not be stored for reading: {e}")))?;
            paths.push(p);
        }
        Ok(UploadDir { dir, paths })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Replace the temporary folder in a message with nothing, so it names the user's file.
    pub fn clean(&self, text: &str) -> String {
        let mut out = text.to_string();
        for p in &self.paths {
            if let (Some(full), Some(name)) = (p.to_str(), p.file_name().and_then(|n| n.to_str())) {
                out = out.replace(full, name);
            }
        }
        if let Some(d) = self.dir.path().to_str() {
            // The folder with its separator first ('\\' on Windows, '/' elsewhere), then alone.
            out = out
                .replace(&format!("{d}{}", std::path::MAIN_SEPARATOR), "")
                .replace(&format!("{d}/"), "")
                .replace(d, "");
        }
        out
    }

    /// Run `f` on the uploaded paths; errors come back naming the user's files.
    pub fn run<T>(&self, f: impl FnOnce(&[PathBuf]) -> ApiResult<T>) -> ApiResult<T> {
        f(&self.paths).map_err(|e| ApiError {
            code: e.code,
            message: self.clean(&e.message),
            detail: e.detail.map(|d| self.clean(&d)),
        })
    }
}

/// Save a download into `folder` under its own name, never overwriting: `name (2).ext` and so on.
/// Names starting with a dot or holding a path are refused (see `util::downloads`). Returns where
/// it went.
pub fn save_in_folder(d: &Download, folder: &Path) -> ApiResult<PathBuf> {
    crate::util::downloads::check_name(&d.file_name)?;
    crate::util::downloads::save_new(folder, &d.file_name, &d.bytes()?)
}

/// Save a download where the desktop app puts them: the system's Downloads folder, or a
/// `Downloads` folder beside the store when that would be the home folder itself.
pub fn save_download(d: &Download) -> ApiResult<PathBuf> {
    let db = crate::store::default_db_path();
    let app_data = db.parent().map(Path::to_path_buf).unwrap_or_else(std::env::temp_dir);
    save_in_folder(d, &crate::util::downloads::default_folder(&app_data))
}

/// Write into a temporary file through a path-based exporter and return the bytes. The file has
/// a fixed internal name with the extension of `file_name` (the download's friendly name), so no
/// id inside that name ever becomes part of a path.
pub fn export_via_temp(file_name: &str, f: impl FnOnce(&Path) -> ApiResult<()>) -> ApiResult<Vec<u8>> {
    let dir = tempfile::Builder::new()
        .prefix("psebench-export-")
        .tempdir()
        .map_err(|e| ApiError::new(ErrorCode::Io, format!("could not prepare the export: {e}")))?;
    let ext = match file_name.rsplit_once('.') {
        Some((_, e)) if !e.is_empty() && e.chars().all(|c| c.is_ascii_alphanumeric()) => e,
        _ => "out",
    };
    let p = dir.path().join(format!("export.{ext}"));
    f(&p)?;
    std::fs::read(&p).map_err(|e| ApiError::new(ErrorCode::Io, format!("the export could not be read back: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn up(name: &str, bytes: &[u8]) -> Upload {
        Upload { name: name.into(), base64: base64::engine::general_purpose::STANDARD.encode(bytes) }
    }

    #[test]
    fn uploads_keep_their_names_and_errors_name_them() {
        let d = UploadDir::new(&[up("a.json", b"{}"), up("../../etc/a.json", b"[]")]).unwrap();
        assert_eq!(d.paths.len(), 2);
        assert!(d.paths.iter().all(|p| p.starts_with(d.path())));
        assert_ne!(d.paths[0], d.paths[1]);
        let msg = format!("{}: not valid", d.paths[1].display());
        assert_eq!(d.clean(&msg), "a.json: not valid");
    }

    #[test]
    fn downloads_are_saved_without_overwriting() {
        let dir = tempfile::tempdir().unwrap();
        let d = Download::from_bytes("chart.svg", "image/svg+xml", b"<svg/>", "a chart");
        let a = save_in_folder(&d, dir.path()).unwrap();
        let b = save_in_folder(&d, dir.path()).unwrap();
        assert_eq!(a.file_name().unwrap(), "chart.svg");
        assert_eq!(b.file_name().unwrap(), "chart (2).svg");
        assert_eq!(std::fs::read(&b).unwrap(), b"<svg/>");
    }

    #[test]
    fn downloads_with_dot_names_or_paths_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for name in [".profile", "../x.csv", "a/b.csv", "..", "a\\b.csv", "nul.csv", "what?.csv"] {
            // As the window sends it back (the engine's own downloads already carry safe names).
            let d = Download { file_name: name.into(), ..Download::from_bytes("x", "text/plain", b"x", "a file") };
            assert!(save_in_folder(&d, dir.path()).is_err(), "{name} was accepted");
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing was written");
    }

    #[test]
    fn damaged_uploads_and_empty_names_are_refused() {
        assert_eq!(
            UploadDir::new(&[Upload { name: "x.json".into(), base64: "@@@".into() }]).err().unwrap().code,
            ErrorCode::InvalidInput
        );
        assert!(UploadDir::new(&[up("..", b"x")]).is_err());
    }

    #[test]
    fn upload_and_download_names_are_valid_on_windows() {
        let d =
            UploadDir::new(&[up("C:\\Users\\ana\\cases.jsonl", b"{}"), up("a:b?.json", b"[]"), up("nul.csv", b"x")])
                .unwrap();
        let names: Vec<String> =
            d.paths.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["cases.jsonl", "a_b_.json", "_nul.csv"]);
        let folder = tempfile::tempdir().unwrap();
        let dl = Download::from_bytes("nul.trajectories.jsonl", "application/x-ndjson", b"{}", "runs");
        assert_eq!(dl.file_name, "_nul.trajectories.jsonl");
        let saved = save_in_folder(&dl, folder.path()).unwrap();
        assert_eq!(saved.file_name().unwrap(), "_nul.trajectories.jsonl");
        assert_eq!(Download::from_bytes("label-audit-a?b.csv", "text/csv", b"", "x").file_name, "label-audit-a_b.csv");
    }
}
