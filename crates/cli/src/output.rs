//! Printing: JSON for scripts, aligned plain text for people, errors on stderr.

use psebench::util::format::count;
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

/// Asks a yes/no question on the terminal: `Ok(())` on yes, `Cancelled` with `refused` otherwise.
/// `--yes` answers for the user; without a terminal (a script) and without `--yes` it refuses with
/// `no_terminal`, since nobody can answer.
fn ask_yes_no(question: &str, yes: bool, no_terminal: &str, refused: &str) -> Result<(), ApiError> {
    use std::io::{IsTerminal, Write};
    if yes {
        return Ok(());
    }
    if !std::io::stdin().is_terminal() {
        return Err(ApiError::invalid(no_terminal));
    }
    eprint!("{question} [y/N] ");
    // A prompt that cannot be shown or read leaves the answer empty, which means "no".
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    let _ = std::io::stdin().read_line(&mut answer);
    if matches!(answer.trim(), "y" | "Y" | "yes") {
        Ok(())
    } else {
        Err(ApiError::new(psebench::ErrorCode::Cancelled, refused))
    }
}

/// Before a run sends data to remote providers: say what goes where and ask (or require `--yes`
/// when nobody can answer). `what` names the data, e.g. "case text".
pub fn confirm_remote(remote: &[String], what: &str, yes: bool) -> Result<(), ApiError> {
    if remote.is_empty() || yes {
        return Ok(());
    }
    eprintln!("This run sends {what} to remote providers: {}.", remote.join(", "));
    ask_yes_no(
        "Continue?",
        yes,
        "Refusing to send data off this machine without confirmation: add --yes.",
        "Not started.",
    )
}

/// Before a deletion whose contents were just printed: ask y/N on a terminal; `--yes` skips the
/// question; without a terminal (a script) and without `--yes` it refuses, saying so.
pub fn confirm_delete(question: &str, yes: bool) -> Result<(), ApiError> {
    ask_yes_no(
        question,
        yes,
        "Nothing was deleted: there is no terminal to ask for confirmation. Add --yes to delete without the question.",
        "Nothing was deleted.",
    )
}

/// What deleting a run removes and what stays, as printed before the question.
pub fn print_run_removal(r: &psebench::api::removals::RunRemoval) {
    let who = if r.model.is_empty() { "no model recorded".to_string() } else { r.model.clone() };
    let label = r.label.as_deref().map(|l| format!(" · {l}")).unwrap_or_default();
    eprintln!("Run {} ({who}{label}), {}:", r.run_id, r.status.words());
    for line in &r.removes {
        eprintln!("  removes: {line}");
    }
    for line in &r.keeps {
        eprintln!("  keeps:   {line}");
    }
}

/// "Made with" lines of a run: protocol, policy edition, fingerprints, judge and prompts.
pub fn print_provenance(p: Option<&psebench::protocol::RunProvenance>) {
    let Some(p) = p else {
        println!("Made with: not recorded (imported from a file, or made by an older version, which followed the studio protocol)");
        return;
    };
    let short = |h: &str| h.chars().take(12).collect::<String>();
    println!("Made with:");
    let what = if p.protocol.is_paper() {
        "the paper's method only"
    } else {
        "the paper's method with this application's additions"
    };
    println!("  Protocol      {} ({what})", p.protocol);
    for e in &p.policy_editions {
        let edition = if e.edition == "official" { "imported official text" } else { "summary edition" };
        println!("  Policy        {}, {edition}, hash {}", e.policy, short(&e.source_hash));
    }
    println!("  Card library  {}", short(&p.library_fingerprint));
    println!("  Case set      {}, {}", count(p.case_count, "item"), short(&p.case_set_fingerprint));
    if let Some(j) = &p.judge_model {
        println!("  Judge         {j}");
    }
    let prompts: Vec<String> = p.prompt_versions.iter().map(|(n, v)| format!("{n} {v}")).collect();
    println!("  Prompts       {}", prompts.join(", "));
}

/// A run's status in words, "finished with problems" when the engine warns that a run that went
/// through its items produced mostly unusable results (its message says how many and why).
pub fn run_status_words(status: psebench::jobs::RunStatus, problems: Option<&psebench::jobs::RunProblems>) -> String {
    match problems {
        Some(_) => "finished with problems".to_string(),
        None => status.words().to_string(),
    }
}
