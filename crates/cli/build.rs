// Embeds the built user interface (ui/dist) into the psebench binary so `psebench serve` works
// from a single file. Without a built UI the server still runs and explains how to build it.
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn walk(dir: &Path, base: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            walk(&p, base, out);
        } else if let Ok(rel) = p.strip_prefix(base) {
            out.push((rel.to_string_lossy().replace('\\', "/"), p.clone()));
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let dist = manifest.join("../../ui/dist");
    println!("cargo:rerun-if-changed={}", dist.display());
    println!("cargo:rerun-if-changed=build.rs");
    let mut files = Vec::new();
    if dist.join("index.html").exists() {
        walk(&dist, &dist, &mut files);
    }
    let mut code = String::from("pub static UI_ASSETS: &[(&str, &[u8])] = &[\n");
    for (rel, path) in &files {
        let abs = path.canonicalize().unwrap_or(path.clone());
        let _ = writeln!(code, "    ({rel:?}, include_bytes!({:?})),", abs.display().to_string());
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default()).join("ui_assets.rs");
    if let Err(e) = std::fs::write(&out, code) {
        panic!("could not write {}: {e}", out.display());
    }
}
