//! Printing: JSON for scripts, aligned plain text for people, errors on stderr.

use psebench::ApiError;
use serde::Serialize;

pub fn print_json<T: Serialize>(v: &T) {
    match serde_json::to_string_pretty(v) {
        Ok(s) => println!("{s}"),
        Err(e) => eprintln!("error: could not encode the result as JSON: {e}"),
    }
}

pub fn print_error(e: &ApiError, json: bool) {
    if json {
        let wrapped = serde_json::json!({ "error": e });
        eprintln!("{}", serde_json::to_string_pretty(&wrapped).unwrap_or_default());
    } else {
        eprintln!("error: {}", e.message);
        if let Some(d) = &e.detail {
            for line in d.lines().take(40) {
                eprintln!("  {line}");
            }
        }
    }
}

/// A simple text table: columns padded to their widest cell.
pub fn table(headers: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            if i < widths.len() {
                widths[i] = widths[i].max(c.chars().count());
            }
        }
    }
    let line = |cells: Vec<String>| {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| if i + 1 == cells.len() { c.clone() } else { format!("{c:<w$}", w = widths[i]) })
            .collect();
        println!("{}", parts.join("  ").trim_end());
    };
    line(headers.iter().map(|h| h.to_string()).collect());
    line(widths.iter().map(|w| "-".repeat(*w)).collect());
    for r in rows {
        line(r.clone());
    }
}

pub fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}
