//! Prompt templates from `prompts/`: loaded by name, rendered with named `{{slots}}`, versioned by
//! a hash of their text. `PSEBENCH_PROMPTS` may point at a folder of edited copies.

pub mod split;

use include_dir::{include_dir, Dir};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;

use crate::error::{ApiError, ApiResult};

static PROMPTS: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../../prompts");

/// A template and the identity stored with every call that used it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prompt {
    pub name: String,
    pub text: String,
    /// First 12 hex digits of the SHA-256 of the text.
    pub version: String,
    /// `builtin` or the override folder it came from.
    pub source: String,
}

fn version_of(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))[..12].to_string()
}

/// Load a template by name (`eval_system`, `judge_user`, …).
pub fn load(name: &str) -> ApiResult<Prompt> {
    let file = format!("{name}.md");
    if let Ok(dir) = std::env::var("PSEBENCH_PROMPTS") {
        let p = std::path::Path::new(&dir).join(&file);
        if p.exists() {
            let text = crate::util::files::read_text(&p, 4 * 1024 * 1024)?;
            return Ok(Prompt { name: name.to_string(), version: version_of(&text), text, source: dir });
        }
    }
    let f = PROMPTS
        .get_file(&file)
        .ok_or_else(|| ApiError::internal(format!("the prompt template \"{name}\" is missing from this build")))?;
    let text = f.contents_utf8().ok_or_else(|| ApiError::internal(format!("prompt {name} is not UTF-8")))?.to_string();
    Ok(Prompt { name: name.to_string(), version: version_of(&text), text, source: "builtin".into() })
}

/// Every `{{slot}}` name used in `text`.
pub fn slots(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(a) = rest.find("{{") {
        let after = &rest[a + 2..];
        match after.find("}}") {
            Some(b) => {
                let name = after[..b].trim();
                if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    out.insert(name.to_string());
                }
                rest = &after[b + 2..];
            }
            None => break,
        }
    }
    out
}

impl Prompt {
    /// Fill every slot. A slot the template uses but `values` lacks, or a value for a slot the
    /// template does not have, is an error (it would silently change what the model sees).
    pub fn render(&self, values: &[(&str, &str)]) -> ApiResult<String> {
        let wanted = slots(&self.text);
        for w in &wanted {
            if !values.iter().any(|(k, _)| k == w) {
                return Err(ApiError::internal(format!("prompt {}: no value for {{{{{w}}}}}", self.name)));
            }
        }
        for (k, _) in values {
            if !wanted.contains(*k) {
                return Err(ApiError::internal(format!("prompt {}: it has no {{{{{k}}}}} slot", self.name)));
            }
        }
        // Single pass so that values containing "{{" are never re-expanded.
        let mut out = String::with_capacity(self.text.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
        let mut rest = self.text.as_str();
        while let Some(a) = rest.find("{{") {
            out.push_str(&rest[..a]);
            let after = &rest[a + 2..];
            match after.find("}}") {
                Some(b) => {
                    let name = after[..b].trim();
                    match values.iter().find(|(k, _)| *k == name) {
                        Some((_, v)) => out.push_str(v),
                        None => {
                            out.push_str("{{");
                            out.push_str(&after[..b + 2]);
                        }
                    }
                    rest = &after[b + 2..];
                }
                None => {
                    out.push_str(&rest[a..]);
                    rest = "";
                }
            }
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// Names of all built-in templates.
pub fn builtin_names() -> Vec<String> {
    let mut v: Vec<String> = PROMPTS
        .files()
        .filter_map(|f| f.path().file_name().and_then(|n| n.to_str()).map(str::to_string))
        .filter(|n| n.ends_with(".md") && n != "README.md")
        .map(|n| n.trim_end_matches(".md").to_string())
        .collect();
    v.sort();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_template_loads_and_lists_its_slots() {
        let names = builtin_names();
        assert!(names.contains(&"eval_system".to_string()));
        for n in names {
            let p = load(&n).unwrap();
            assert_eq!(p.version.len(), 12);
            assert!(slots(&p.text).iter().all(|s| !s.is_empty()), "{n}");
        }
    }

    #[test]
    fn render_fills_once_and_checks_slots() {
        let p = Prompt {
            name: "t".into(),
            text: "A {{x}} and {{ y }}.".into(),
            version: "v".into(),
            source: "test".into(),
        };
        assert_eq!(p.render(&[("x", "{{y}}"), ("y", "2")]).unwrap(), "A {{y}} and 2.");
        assert!(p.render(&[("x", "1")]).is_err());
        assert!(p.render(&[("x", "1"), ("y", "2"), ("z", "3")]).is_err());
    }
}
