//! The engine's modules form a stack: a module may use modules below it and none above or beside
//! it. This test reads every `crate::` path in the non-test source of the stack's crates and fails
//! on any that points up or sideways, naming the file and line. The order is written here and in
//! the crate documentation (`src/lib.rs`); keep the two the same.
//!
//! The stack is split into crates along the same order (`STACK_CRATES`), so across crates the
//! compiler enforces it too; a second test checks that each crate holds one band of the layers and
//! that its manifest depends on no crate above it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Bottom first. Modules in one layer may not use each other.
const LAYERS: &[&[&str]] = &[
    &["error"],
    &["util"],
    &["store", "secrets", "prompt", "builtin", "logging"],
    &["llm"],
    &["jobs"],
    &["context"],
    &["policy"],
    &["case"],
    &["card", "trajectory"],
    &["protocol"],
    &["metrics"],
    &["charts"],
    &["tables"],
    &["authoring"],
    &["anchor", "screen"],
    &["generation", "evaluation", "label_audit"],
    &["review"],
    &["export", "results"],
    &["api"],
];

/// The crates of the stack, bottom first, and their folders. Each holds the modules of a band of
/// consecutive layers; a lower crate's modules are re-exported by the ones above under their own
/// names, so `crate::store` reads the same in every crate.
const STACK_CRATES: &[(&str, &str)] =
    &[("psebench-core", "crates/core"), ("psebench-llm", "crates/llm"), ("psebench", "crates/engine")];

/// Outside the stack, crates of their own: they may use anything; nothing in the stack uses them
/// (`psebench-mock` uses nothing of the engine, which re-exports it as `mock` for the tests), with
/// the exceptions in `OUTSIDE_USES_ALLOWED`.
const OUTSIDE: &[&str] = &["server", "mock", "bench"];

/// Files of the stack allowed to use an outside crate, and why. The built-in demo model ("Try the
/// demo model" in Settings) runs the mock crate's demo simulation inside the app; the mock crate
/// uses nothing of the engine, so no cycle can form.
const OUTSIDE_USES_ALLOWED: &[(&str, &str)] = &[("crates/engine/src/context/demo_model.rs", "mock")];
const OUTSIDE_CRATES: &[(&str, &str)] =
    &[("psebench-server", "crates/server"), ("psebench-mock", "crates/mock"), ("psebench-bench", "crates/bench")];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every non-lib Rust file of the stack's crates, with the `src` folder it is under.
fn stack_files() -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for (_, dir) in STACK_CRATES {
        let src = repo_root().join(dir).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        files.sort();
        out.extend(files.into_iter().map(|f| (src.clone(), f)));
    }
    out
}

/// A file's path for messages: `crates/core/src/store/mod.rs`.
fn shown(file: &Path) -> String {
    let root = repo_root();
    let rel = file.strip_prefix(&root).unwrap_or(file);
    rel.to_string_lossy().replace('\\', "/")
}

fn rank_of() -> HashMap<&'static str, usize> {
    LAYERS.iter().enumerate().flat_map(|(i, l)| l.iter().map(move |m| (*m, i))).collect()
}

pub(super) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().and_then(|e| e.to_str()) == Some("rs") {
            out.push(p);
        }
    }
}

/// The file's lines with test-only items removed (`#[cfg(test)]` items, `mod tests { … }`).
pub(super) fn non_test_lines(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim();
        if t == "#[cfg(test)]" {
            // Skip the attribute and the item after it: one line, or a block up to its closing
            // brace at the item's own indentation.
            let mut j = i + 1;
            while j < lines.len() && lines[j].trim().starts_with("#[") {
                j += 1;
            }
            if j < lines.len() && lines[j].trim_end().ends_with('{') {
                let indent = lines[j].len() - lines[j].trim_start().len();
                let close = format!("{}}}", " ".repeat(indent));
                let mut k = j + 1;
                while k < lines.len() && lines[k].trim_end() != close {
                    k += 1;
                }
                i = k + 1;
            } else {
                i = j + 1;
            }
            continue;
        }
        let code = match t.find("//") {
            Some(0) => "",
            _ => lines[i],
        };
        out.push((i + 1, code.to_string()));
        i += 1;
    }
    out
}

/// Module names a line of code refers to through `crate::`.
fn crate_refs(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(pos) = rest.find("crate::") {
        let after = &rest[pos + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        } else {
            let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
        rest = after;
    }
    out
}

fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    let name = first.trim_end_matches(".rs").to_string();
    (name != "lib").then_some(name)
}

fn is_test_file(file: &Path) -> bool {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests.rs" || name.ends_with("_tests.rs") || name == "fixtures.rs"
}

#[test]
fn engine_modules_only_use_modules_below_them() {
    let rank = rank_of();
    let mut problems = Vec::new();
    let mut seen_modules = std::collections::BTreeSet::new();
    for (src, file) in &stack_files() {
        let Some(module) = module_of(src, file) else { continue };
        seen_modules.insert(module.clone());
        if is_test_file(file) {
            continue;
        }
        let Some(&own) = rank.get(module.as_str()) else {
            problems.push(format!("{}: module `{module}` is not placed in the layer list", file.display()));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for (line_no, line) in non_test_lines(&text) {
            let rel = shown(file);
            let allowed =
                |crate_name: &str| OUTSIDE_USES_ALLOWED.iter().any(|(f, c)| rel.ends_with(f) && *c == crate_name);
            if line.contains("psebench_mock") && !allowed("mock") {
                problems.push(format!("{rel}:{line_no}: `{module}` uses `mock`, which is outside the stack"));
            }
            for used in crate_refs(&line) {
                if used == module {
                    continue;
                }
                if OUTSIDE.contains(&used.as_str()) && !allowed(used.as_str()) {
                    problems.push(format!("{rel}:{line_no}: `{module}` uses `{used}`, which is outside the stack"));
                } else if let Some(&other) = rank.get(used.as_str()) {
                    if other >= own {
                        let how = if other == own { "beside" } else { "above" };
                        problems.push(format!("{rel}:{line_no}: `{module}` uses `{used}`, which is {how} it"));
                    }
                }
                // Anything else is an item of the crate root (`crate::version`, re-exports).
            }
        }
    }
    for m in rank.keys() {
        assert!(seen_modules.contains(*m), "the layer list names `{m}`, which no longer exists");
    }
    for (name, dir) in OUTSIDE_CRATES {
        assert!(repo_root().join(dir).join("Cargo.toml").is_file(), "the outside crate {name} ({dir}) is missing");
    }
    assert!(problems.is_empty(), "modules that use a module above or beside them:\n{}", problems.join("\n"));
}

/// The names of the workspace crates a manifest depends on in its `[dependencies]` sections
/// (target-specific ones included; not dev-dependencies, which only tests see).
fn crate_dependencies(manifest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            let section = t.trim_matches(|c| c == '[' || c == ']');
            in_deps =
                section == "dependencies" || section.ends_with(".dependencies") || section == "build-dependencies";
            continue;
        }
        if in_deps && t.starts_with("psebench") {
            let name: String = t.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
            out.push(name);
        }
    }
    out
}

#[test]
fn each_crate_of_the_stack_holds_a_band_of_layers_and_depends_on_none_above_it() {
    let rank = rank_of();
    let mut problems = Vec::new();
    let mut bands: Vec<(usize, usize)> = Vec::new();
    for (name, dir) in STACK_CRATES {
        let src = repo_root().join(dir).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let ranks: Vec<usize> =
            files.iter().filter_map(|f| module_of(&src, f)).filter_map(|m| rank.get(m.as_str()).copied()).collect();
        let (Some(&lo), Some(&hi)) = (ranks.iter().min(), ranks.iter().max()) else {
            problems.push(format!("{name} ({dir}) holds no module of the layer list"));
            continue;
        };
        bands.push((lo, hi));
    }
    for w in bands.windows(2) {
        if w[0].1 + 1 != w[1].0 {
            problems.push(format!(
                "the crates of the stack do not follow the layer order one band after another: {bands:?} \
                 (layer indexes, bottom first, in the order of STACK_CRATES)"
            ));
        }
    }
    let position = |n: &str| STACK_CRATES.iter().position(|(c, _)| *c == n);
    for (i, (name, dir)) in STACK_CRATES.iter().enumerate() {
        let manifest = std::fs::read_to_string(repo_root().join(dir).join("Cargo.toml")).unwrap();
        for dep in crate_dependencies(&manifest) {
            match position(&dep) {
                Some(j) if j < i => {}
                Some(_) => problems.push(format!("{dir}/Cargo.toml: {name} depends on {dep}, which is not below it")),
                // The engine re-exports the mock provider (`mock` feature); nothing else outside.
                None if *name == "psebench" && dep == "psebench-mock" => {}
                None => problems.push(format!("{dir}/Cargo.toml: {name} depends on {dep}, which is outside the stack")),
            }
        }
    }
    assert!(problems.is_empty(), "crates of the stack:\n{}", problems.join("\n"));
}

/// Names of the methods that a module adds to the engine handle (`impl Engine { pub fn … }`): a
/// call to one of them is a use of that module even though no `crate::` path shows it.
fn engine_methods(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().copied().enumerate() {
        if line.starts_with("impl Engine {") || line.starts_with("impl crate::context::Engine {") {
            inside = true;
        } else if inside && line == "}" {
            inside = false;
        } else if inside {
            let t = line.trim_start();
            let indent = line.len() - t.len();
            if indent != 4 {
                continue;
            }
            let rest = t
                .strip_prefix("pub fn ")
                .or_else(|| t.strip_prefix("pub(crate) fn "))
                .or_else(|| t.strip_prefix("pub async fn "))
                .or_else(|| t.strip_prefix("pub(crate) async fn "));
            if let Some(rest) = rest {
                // Only methods (`self` in the signature, on its line or the next): associated
                // functions such as `Engine::open` are never called as `.name(`, and their names
                // clash with unrelated methods (`OpenOptions::open`).
                let next = lines.get(i + 1).copied().unwrap_or("");
                if !(rest.contains("self") || next.trim_start().starts_with("&self") || next.contains("self,")) {
                    continue;
                }
                let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                out.push(name);
            }
        }
    }
    out
}

#[test]
fn engine_methods_are_only_called_from_modules_above_their_own() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let rank = rank_of();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut owner: HashMap<String, String> = HashMap::new();
    for file in &files {
        let Some(module) = module_of(&src, file) else { continue };
        for m in engine_methods(&std::fs::read_to_string(file).unwrap()) {
            owner.insert(m, module.clone());
        }
    }
    assert!(owner.contains_key("cases_all") && owner.contains_key("model_handle"), "no engine methods found");
    let mut problems = Vec::new();
    for file in &files {
        let Some(module) = module_of(&src, file) else { continue };
        let Some(&own) = rank.get(module.as_str()) else { continue };
        if is_test_file(file) {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for (line_no, line) in non_test_lines(&text) {
            for (name, def) in &owner {
                // The handle's own methods (`context`) are below every module that can name the
                // handle; lower modules have unrelated methods of the same names (`store`, `extension`).
                if *def == module || def == "context" || !line.contains(&format!(".{name}(")) {
                    continue;
                }
                if let Some(&other) = rank.get(def.as_str()) {
                    if other >= own {
                        let rel = file.strip_prefix(&src).unwrap().display();
                        problems.push(format!("src/{rel}:{line_no}: `{module}` calls `{name}`, which `{def}` defines"));
                    }
                }
            }
        }
    }
    problems.sort();
    assert!(problems.is_empty(), "engine methods called from below their module:\n{}", problems.join("\n"));
}

#[test]
fn the_checker_sees_grouped_paths_and_skips_tests() {
    assert_eq!(crate_refs("use crate::{card, case::Verdict};"), vec!["card", "case"]);
    assert_eq!(crate_refs("let x = crate::api::Engine::open(p);"), vec!["api"]);
    let text = "use crate::a;\n#[cfg(test)]\nmod tests {\n    use crate::api;\n}\nuse crate::b;\n";
    let kept: Vec<String> = non_test_lines(text).into_iter().flat_map(|(_, l)| crate_refs(&l)).collect();
    assert_eq!(kept, vec!["a", "b"]);
}
