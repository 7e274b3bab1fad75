//! Owner-only permissions for what holds the owner's data (the store folder, the database and its
//! WAL, shared-memory and backup files, the log folder and its files). On unix folders get mode
//! 0700 and files 0600, set explicitly after creation so the process umask does not matter.
//!
//! On Windows these calls change nothing, on purpose: the data lives under the user's profile
//! (`%APPDATA%\psebench`), whose access list already lets only that user, the system and
//! administrators in, and new files and folders inherit it. Unix mode bits have no Windows
//! equivalent in the standard library (its only permission is the read-only flag, which would
//! stop SQLite from writing), and rewriting the access list ourselves would add nothing to what
//! the profile folder already gives.

use std::io;
use std::path::Path;

/// Create `dir` (and missing parents) and, if `dir` itself did not exist before, make it readable
/// by the owner only. A folder that already existed keeps its mode: it may be shared on purpose.
pub fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    let existed = dir.is_dir();
    std::fs::create_dir_all(dir)?;
    if !existed {
        restrict_dir(dir)?;
    }
    Ok(())
}

/// Give the folder `dir` mode 0700 (unix).
pub fn restrict_dir(dir: &Path) -> io::Result<()> {
    set_mode(dir, 0o700)
}

/// Give the file `file` mode 0600 (unix).
pub fn restrict_file(file: &Path) -> io::Result<()> {
    set_mode(file, 0o600)
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

/// Nothing to do: the per-user profile's access list protects the data folder (see the top).
#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> io::Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn new_folders_are_private_and_existing_ones_keep_their_mode() {
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let tmp = tempfile::tempdir().unwrap();
        let shared = tmp.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o755)).unwrap();
        create_private_dir_all(&shared).unwrap();
        assert_eq!(mode(&shared), 0o755);
        let fresh = shared.join("a").join("b");
        create_private_dir_all(&fresh).unwrap();
        assert_eq!(mode(&fresh), 0o700);
        let f = fresh.join("f");
        std::fs::write(&f, "x").unwrap();
        restrict_file(&f).unwrap();
        assert_eq!(mode(&f), 0o600);
    }
}
