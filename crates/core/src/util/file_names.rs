//! File names that work on every system the app runs on. Windows is the strictest: it refuses
//! `< > : " / \ | ? *` and control characters in a name, silently drops dots and spaces at the
//! end (so `report.` and `report` are one file), and keeps device names (`CON`, `PRN`, `AUX`,
//! `NUL`, `COM1`…`COM9`, `LPT1`…`LPT9`) for itself even with an extension (`nul.csv` is the null
//! device, not a file). Every name the engine builds from ids or other text goes through
//! [`portable_file_name`]; a name that comes from outside is checked with [`windows_problem`].

/// Characters Windows does not allow anywhere in a file name (besides control characters).
pub const WINDOWS_FORBIDDEN: &[char] = &['<', '>', ':', '"', '/', '\\', '|', '?', '*'];

/// Longest name [`portable_file_name`] returns, in characters (the common limit is 255 bytes).
pub const MAX_PORTABLE_CHARS: usize = 200;

/// Whether `stem` (a name up to its first dot) is one of the device names Windows reserves.
pub fn is_reserved_device_name(stem: &str) -> bool {
    let s = stem.trim_end_matches([' ', '.']).to_ascii_uppercase();
    match s.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$" => true,
        _ => {
            let (Some(head), Some(tail)) = (s.get(..3), s.get(3..)) else { return false };
            (head == "COM" || head == "LPT")
                && matches!(tail, "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "¹" | "²" | "³")
        }
    }
}

/// The part of a name Windows compares with the device names: up to the first dot.
fn device_stem(name: &str) -> &str {
    name.split('.').next().unwrap_or(name)
}

/// Why Windows would refuse or change `name` (one plain file name), in words for a message; `None`
/// when it is fine there. Leading dots and length are not judged here.
pub fn windows_problem(name: &str) -> Option<String> {
    if let Some(c) = name.chars().find(|c| WINDOWS_FORBIDDEN.contains(c) || c.is_control()) {
        return Some(if c.is_control() {
            "it contains a control character".to_string()
        } else {
            format!("it contains '{c}', which Windows does not allow in file names")
        });
    }
    if name.ends_with('.') || name.ends_with(' ') {
        return Some("it ends with a dot or a space, which Windows removes from file names".to_string());
    }
    if is_reserved_device_name(device_stem(name)) {
        return Some(format!(
            "Windows keeps the name \"{}\" for a device, even with an extension",
            device_stem(name).trim_end()
        ));
    }
    None
}

/// A file name made from `text` that is valid on Windows, macOS and Linux and is not hidden:
/// forbidden and control characters become `_`, leading dots become `_`, dots and spaces at the
/// end go, a device name gets a `_` in front, an overlong name is shortened before its extension,
/// and an empty result becomes `file`. A name that is already fine comes back unchanged.
pub fn portable_file_name(text: &str) -> String {
    let replaced: String =
        text.trim().chars().map(|c| if WINDOWS_FORBIDDEN.contains(&c) || c.is_control() { '_' } else { c }).collect();
    let leading_dots = replaced.chars().take_while(|c| *c == '.').count();
    let mut name = format!("{}{}", "_".repeat(leading_dots), &replaced[leading_dots..]);
    name.truncate(name.trim_end_matches(['.', ' ']).len());
    if name.is_empty() {
        name = "file".to_string();
    }
    if is_reserved_device_name(device_stem(&name)) {
        name.insert(0, '_');
    }
    if name.chars().count() > MAX_PORTABLE_CHARS {
        let (stem, ext) = match name.rsplit_once('.') {
            Some((s, e)) if !s.is_empty() && e.chars().count() <= 16 => (s.to_string(), format!(".{e}")),
            _ => (name.clone(), String::new()),
        };
        let keep = MAX_PORTABLE_CHARS - ext.chars().count();
        let short: String = stem.chars().take(keep).collect();
        name = format!("{}{ext}", short.trim_end_matches(['.', ' ']));
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_are_fine_everywhere_are_kept() {
        for ok in ["cards.jsonl", "run-1.trajectories.jsonl", "Résultats 2026.csv", "m1_m8@2x.png", "review (2).csv"] {
            assert_eq!(portable_file_name(ok), ok);
            assert_eq!(windows_problem(ok), None, "{ok}");
        }
        // names that merely start like a device are files
        for ok in ["console.txt", "null.json", "com10.csv", "lpt.csv", "review-CON.csv", "CONTEXT", "ééé.txt"] {
            assert_eq!(portable_file_name(ok), ok);
            assert_eq!(windows_problem(ok), None, "{ok}");
        }
    }

    #[test]
    fn forbidden_characters_become_underscores() {
        assert_eq!(portable_file_name("a<b>c:d\"e/f\\g|h?i*j.csv"), "a_b_c_d_e_f_g_h_i_j.csv");
        assert_eq!(portable_file_name("tab\there\n.txt"), "tab_here_.txt");
        assert!(windows_problem("what?.csv").unwrap().contains("'?'"));
        assert!(windows_problem("a\u{7}b").unwrap().contains("control"));
    }

    #[test]
    fn device_names_are_never_produced() {
        for bad in ["CON", "con.csv", "Nul.trajectories.jsonl", "aux", "PRN.txt", "COM1.json", "lpt9", "COM¹.txt"] {
            let fixed = portable_file_name(bad);
            assert!(fixed.starts_with('_'), "{bad} -> {fixed}");
            assert_eq!(windows_problem(&fixed), None, "{bad} -> {fixed}");
            assert!(windows_problem(bad).unwrap().contains("device"), "{bad}");
        }
        assert_eq!(portable_file_name("nul.trajectories.jsonl"), "_nul.trajectories.jsonl");
        assert!(windows_problem("CON .csv").is_some());
    }

    #[test]
    fn trailing_dots_and_spaces_and_leading_dots_go() {
        assert_eq!(portable_file_name("report. . "), "report");
        assert_eq!(portable_file_name(".bashrc"), "_bashrc");
        assert_eq!(portable_file_name("..."), "___");
        assert_eq!(portable_file_name(""), "file");
        assert_eq!(portable_file_name("   "), "file");
        assert!(windows_problem("report.").is_some());
        assert!(windows_problem("report ").is_some());
    }

    #[test]
    fn long_names_keep_their_extension() {
        let long = format!("{}.trajectories.jsonl", "r".repeat(300));
        let short = portable_file_name(&long);
        assert_eq!(short.chars().count(), MAX_PORTABLE_CHARS);
        assert!(short.ends_with(".jsonl"));
        let no_ext = portable_file_name(&"é".repeat(250));
        assert_eq!(no_ext.chars().count(), MAX_PORTABLE_CHARS);
    }
}
