fn main() {
    // tauri.conf.json lives at the repository root (one folder up from this crate).
    if let Err(e) = tauri_build::try_build(tauri_build::Attributes::new().config_path("../tauri.conf.json")) {
        panic!("tauri build step failed: {e:#}");
    }
}
