fn main() {
    // tauri.conf.json lives at the repository root (one folder up from this crate).
    if let Err(e) = tauri_build::try_build(tauri_build::Attributes::new().config_path("../tauri.conf.json")) {
        panic!("tauri build step failed: {e:#}");
    }
    link_webkits_voice_early();
}

/// The library WebKitGTK links for its speech synthesis, flite's `cmu_time_awb` voice, makes 31,000
/// of the dynamic loader's 73,000 symbol lookups when the app starts: each is a reference of the
/// voice to one of its own symbols, looked up library by library in load order, where the voice
/// comes about 80th. Named by the app itself it comes 17th, and the loader's lookups at start take
/// about half as long (BENCHMARKS.md, "Desktop app", round eight). Only where WebKitGTK links it.
fn link_webkits_voice_early() {
    const VOICE: &str = "libflite_cmu_time_awb.so.1";
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let dirs = [
        format!("/usr/lib/{arch}-linux-gnu"),
        format!("/lib/{arch}-linux-gnu"),
        "/usr/lib64".into(),
        "/usr/lib".into(),
    ];
    let webkit =
        dirs.iter().map(|dir| std::path::Path::new(dir).join("libwebkit2gtk-4.1.so.0")).find(|path| path.exists());
    let Some(webkit) = webkit else { return };
    println!("cargo:rerun-if-changed={}", webkit.display());
    // Its name among the library's strings, which each end in a zero byte.
    let links_voice = std::fs::read(&webkit).is_ok_and(|bytes| bytes.split(|b| *b == 0).any(|s| s == VOICE.as_bytes()));
    if links_voice {
        println!("cargo:rustc-link-arg-bins=-Wl,--no-as-needed,-l:{VOICE},--as-needed");
    }
}
