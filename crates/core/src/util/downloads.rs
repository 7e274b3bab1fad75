//! Saving a download on the user's computer (the desktop app's downloads): which folder, which
//! names are allowed, and writing without ever replacing a file.
//!
//! * The folder is the system's Downloads folder. When the system names none, or names the home
//!   folder itself (a common setting on Linux desktops without XDG user folders), files go to a
//!   `Downloads` folder inside the app's data folder instead, never loose into the home folder
//!   where a name like `.profile` or `.bashrc` would be read by the shell.
//! * A name is one plain file name: not empty, not starting with a dot, no path separators, no
//!   `..` as a name, no control characters, no `:` (a Windows stream name), and nothing else
//!   Windows refuses or changes (`< > " | ? *`, a dot or space at the end, device names such as
//!   `CON` or `nul.csv`; see `util::file_names`), so a name saved on one system works on all.
//! * The file is created with `create_new`, so an existing file (or a link placed where the file
//!   would go) is never written through; a taken name becomes `name (2).ext`, `name (3).ext`, ...

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{ApiError, ApiResult, ErrorCode};

/// Longest file name accepted, in characters.
pub const MAX_NAME_CHARS: usize = 200;
/// How many numbered alternatives are tried before giving up.
const MAX_ALTERNATIVES: u32 = 9_999;

/// The folder downloads go to, from what the system reports (`os_downloads`, `home`) and the
/// app's data folder. Never the home folder itself.
pub fn choose_folder(os_downloads: Option<&Path>, home: Option<&Path>, app_data: &Path) -> PathBuf {
    let same = |a: &Path, b: &Path| {
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        canon(a) == canon(b)
    };
    match (os_downloads, home) {
        (Some(d), Some(h)) if same(d, h) => app_data.join("Downloads"),
        (Some(d), _) if d.as_os_str().is_empty() || d.parent().is_none() => app_data.join("Downloads"),
        (Some(d), _) => d.to_path_buf(),
        (None, _) => app_data.join("Downloads"),
    }
}

/// The folder this computer's downloads go to (see `choose_folder`); `app_data` is the folder
/// that holds the app's store.
pub fn default_folder(app_data: &Path) -> PathBuf {
    choose_folder(dirs::download_dir().as_deref(), dirs::home_dir().as_deref(), app_data)
}

/// Check a download's file name; returns it trimmed.
pub fn check_name(name: &str) -> ApiResult<String> {
    let n = name.trim();
    let refuse = |why: &str| {
        ApiError::new(
            ErrorCode::InvalidInput,
            format!("\"{name}\" cannot be used as the name of a downloaded file: {why}."),
        )
    };
    if n.is_empty() {
        return Err(refuse("it is empty"));
    }
    if n.starts_with('.') {
        return Err(refuse("names starting with a dot are hidden files, some of which programs run or read"));
    }
    // With no separator and no leading dot, ".." cannot name a parent folder; inside a name
    // ("run..2.jsonl", from an id) it is harmless.
    if n.contains('/') || n.contains('\\') {
        return Err(refuse("it contains a folder separator"));
    }
    if n.chars().any(|c| c.is_control() || c == ':') {
        return Err(refuse("it contains a control character or a colon"));
    }
    if n.chars().count() > MAX_NAME_CHARS {
        return Err(refuse(&format!("it is longer than {MAX_NAME_CHARS} characters")));
    }
    if let Some(why) = crate::util::file_names::windows_problem(n) {
        return Err(refuse(&why));
    }
    Ok(n.to_string())
}

/// Write `bytes` as a new file named `name` in `folder` (created if missing), or as
/// `stem (2).ext` and so on when the name is taken. Returns where it went.
pub fn save_new(folder: &Path, name: &str, bytes: &[u8]) -> ApiResult<PathBuf> {
    let name = check_name(name)?;
    std::fs::create_dir_all(folder).map_err(|e| {
        ApiError::new(ErrorCode::Io, format!("{}: the folder could not be created: {e}", folder.display()))
    })?;
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s.to_string(), format!(".{e}")),
        _ => (name.clone(), String::new()),
    };
    for n in 1..=MAX_ALTERNATIVES {
        let path = if n == 1 { folder.join(&name) } else { folder.join(format!("{stem} ({n}){ext}")) };
        let mut file = match OpenOptions::open(OpenOptions::new().write(true).create_new(true), &path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(ApiError::new(ErrorCode::Io, format!("{}: could not be created: {e}", path.display())))
            }
        };
        if let Err(e) = file.write_all(bytes).and_then(|_| file.sync_all()) {
            drop(file);
            let _ = std::fs::remove_file(&path);
            return Err(ApiError::new(
                ErrorCode::Io,
                format!("{}: could not be saved ({e}); nothing was left behind.", path.display()),
            ));
        }
        return Ok(path);
    }
    Err(ApiError::new(
        ErrorCode::Io,
        format!(
            "{}: {MAX_ALTERNATIVES} files named like \"{name}\" are already there; tidy the folder and try again.",
            folder.display()
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_home_folder_itself_is_never_chosen() {
        let home = tempfile::tempdir().unwrap();
        let data = home.path().join(".local/share/psebench");
        let dl = home.path().join("Downloads");
        assert_eq!(choose_folder(Some(&dl), Some(home.path()), &data), dl);
        assert_eq!(choose_folder(Some(home.path()), Some(home.path()), &data), data.join("Downloads"));
        assert_eq!(choose_folder(None, Some(home.path()), &data), data.join("Downloads"));
        assert_eq!(choose_folder(Some(Path::new("/")), None, &data), data.join("Downloads"));
        // the same folder written differently
        let dotted = home.path().join(".");
        assert_eq!(choose_folder(Some(&dotted), Some(home.path()), &data), data.join("Downloads"));
    }

    #[test]
    fn names_are_plain_file_names() {
        for bad in
            ["", "  ", ".bashrc", ".profile", "../x.csv", "a/b.csv", "a\\b.csv", "..", "x\0.csv", "c:evil", "a\nb"]
        {
            assert!(check_name(bad).is_err(), "{bad:?} was accepted");
        }
        assert!(check_name(&"a".repeat(MAX_NAME_CHARS + 1)).is_err());
        assert_eq!(check_name(" results table.csv ").unwrap(), "results table.csv");
        assert_eq!(check_name("run..2.jsonl").unwrap(), "run..2.jsonl");
        assert!(check_name(".bashrc").unwrap_err().message.contains("dot"));
    }

    #[test]
    fn names_windows_would_refuse_or_change_are_refused_everywhere() {
        for bad in
            ["what?.csv", "a<b.svg", "a|b.csv", "\"quoted\".csv", "star*.png", "CON", "nul.csv", "com1.json", "report."]
        {
            let e = check_name(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput, "{bad}");
        }
        assert!(check_name("nul.csv").unwrap_err().message.contains("device"));
        assert_eq!(check_name("null.csv").unwrap(), "null.csv");
    }

    #[test]
    fn existing_files_and_links_are_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let a = save_new(dir.path(), "chart.svg", b"one").unwrap();
        let b = save_new(dir.path(), "chart.svg", b"two").unwrap();
        let c = save_new(dir.path(), "chart.svg", b"three").unwrap();
        assert_eq!(a.file_name().unwrap(), "chart.svg");
        assert_eq!(b.file_name().unwrap(), "chart (2).svg");
        assert_eq!(c.file_name().unwrap(), "chart (3).svg");
        assert_eq!(std::fs::read(&a).unwrap(), b"one");
        assert_eq!(save_new(dir.path(), "README", b"x").unwrap().file_name().unwrap(), "README");
        assert_eq!(save_new(dir.path(), "README", b"x").unwrap().file_name().unwrap(), "README (2)");
        #[cfg(unix)]
        {
            let target = dir.path().join("target.txt");
            std::fs::write(&target, b"keep").unwrap();
            std::os::unix::fs::symlink(&target, dir.path().join("report.csv")).unwrap();
            let p = save_new(dir.path(), "report.csv", b"new").unwrap();
            assert_eq!(p.file_name().unwrap(), "report (2).csv");
            assert_eq!(std::fs::read(&target).unwrap(), b"keep", "the link was not followed");
        }
        let nested = dir.path().join("made/here");
        assert!(save_new(&nested, "x.txt", b"x").unwrap().starts_with(&nested));
    }
}
