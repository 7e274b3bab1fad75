//! Where the built UI comes from: files embedded in the `psebench` binary, or a folder on disk.

use std::borrow::Cow;
use std::path::PathBuf;

/// One file of the built UI.
pub struct Asset {
    pub path: String,
    pub bytes: Cow<'static, [u8]>,
    pub mime: &'static str,
}

pub trait Assets: Send + Sync {
    /// The file at `path` (relative, no leading slash), if there is one.
    fn get(&self, path: &str) -> Option<Asset>;
}

/// No UI (the server still answers the API).
pub struct NoAssets;

impl Assets for NoAssets {
    fn get(&self, _: &str) -> Option<Asset> {
        None
    }
}

/// Media type from a file name.
pub fn mime_for(path: &str) -> &'static str {
    let ext = path.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "ttf" => "font/ttf",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Files compiled into the binary: `(path, bytes)` pairs.
pub struct EmbeddedAssets(pub &'static [(&'static str, &'static [u8])]);

impl Assets for EmbeddedAssets {
    fn get(&self, path: &str) -> Option<Asset> {
        self.0.iter().find(|(p, _)| *p == path).map(|(p, b)| Asset {
            path: p.to_string(),
            bytes: Cow::Borrowed(*b),
            mime: mime_for(p),
        })
    }
}

/// A folder on disk (development: serve `ui/dist` without rebuilding the binary).
pub struct FolderAssets(pub PathBuf);

impl Assets for FolderAssets {
    fn get(&self, path: &str) -> Option<Asset> {
        if path.split('/').any(|seg| seg == ".." || seg.is_empty()) {
            return None;
        }
        let p = self.0.join(path);
        let bytes = std::fs::read(&p).ok()?;
        Some(Asset { path: path.to_string(), bytes: Cow::Owned(bytes), mime: mime_for(path) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_assets_never_leave_their_folder() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("index.html"), "<p>hi</p>").unwrap();
        let a = FolderAssets(d.path().to_path_buf());
        assert_eq!(a.get("index.html").unwrap().mime, "text/html; charset=utf-8");
        assert!(a.get("../etc/passwd").is_none());
        assert!(a.get("a//b").is_none());
        assert!(a.get("missing.js").is_none());
    }
}
