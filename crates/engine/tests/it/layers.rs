//! The engine's modules form a stack: a module may use modules below it and none above or beside
//! it. This test reads every `crate::` path in the engine's non-test source and fails on any that
//! points up or sideways, naming the file and line. The order is written here and in the crate
//! documentation (`src/lib.rs`); keep the two the same.

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

/// Outside the stack, behind cargo features: they may use anything; nothing in the stack uses them.
const OUTSIDE: &[&str] = &["server", "mock", "bench"];

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
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let rank = rank_of();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    let mut seen_modules = std::collections::BTreeSet::new();
    for file in &files {
        let Some(module) = module_of(&src, file) else { continue };
        seen_modules.insert(module.clone());
        if OUTSIDE.contains(&module.as_str()) || is_test_file(file) {
            continue;
        }
        let Some(&own) = rank.get(module.as_str()) else {
            problems.push(format!("{}: module `{module}` is not placed in the layer list", file.display()));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for (line_no, line) in non_test_lines(&text) {
            for used in crate_refs(&line) {
                if used == module {
                    continue;
                }
                let rel = file.strip_prefix(&src).unwrap().display();
                if OUTSIDE.contains(&used.as_str()) {
                    problems.push(format!("src/{rel}:{line_no}: `{module}` uses `{used}`, which is outside the stack"));
                } else if let Some(&other) = rank.get(used.as_str()) {
                    if other >= own {
                        let how = if other == own { "beside" } else { "above" };
                        problems.push(format!("src/{rel}:{line_no}: `{module}` uses `{used}`, which is {how} it"));
                    }
                }
                // Anything else is an item of the crate root (`crate::version`, re-exports).
            }
        }
    }
    for m in rank.keys().chain(OUTSIDE.iter()) {
        assert!(seen_modules.contains(*m), "the layer list names `{m}`, which no longer exists");
    }
    assert!(problems.is_empty(), "modules that use a module above or beside them:\n{}", problems.join("\n"));
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
