//! The clause and guidance context of a clause: its text plus every guidance section a legal
//! basis cites. Official text is used where the user imported it; otherwise the summary edition,
//! marked as such. Generation builds a card's context from it (the card's clause and legal basis);
//! the label audit builds a stored case's from the case's clause and gold legal basis.

use super::{OfficialSection, PolicyPack};

fn official(sections: &[OfficialSection], source: &str, id: &str) -> Vec<String> {
    sections
        .iter()
        .filter(|s| s.source == source && s.evidence_id == id)
        .map(|s| format!("### {}\n{}", s.heading, s.body.trim()))
        .collect()
}

/// The clause's own wording: its official text where the user imported it, otherwise its summary,
/// marked as such.
pub fn clause_wording(pack: &PolicyPack, sections: &[OfficialSection], clause_id: &str) -> String {
    let Some(c) = pack.clause(clause_id) else {
        return format!("(The policy has no clause {clause_id}.)");
    };
    let off = official(sections, "clauses", &c.label);
    if off.is_empty() {
        format!(
            "### {} — {}\n{}\n\n(A short summary of the clause, not its official wording.)",
            c.label, c.short_title, c.summary
        )
    } else {
        off.join("\n\n")
    }
}

/// Markdown context for a clause and the legal basis of a card or case.
pub fn clause_context(
    clause_id: &str,
    legal_basis: &[String],
    pack: &PolicyPack,
    sections: &[OfficialSection],
) -> String {
    let mut out = String::new();
    let clause = pack.clause(clause_id);
    let mut summary_used = false;
    out.push_str("## Clause text\n\n");
    match clause {
        Some(c) => {
            let off = official(sections, "clauses", &c.label);
            if off.is_empty() {
                summary_used = true;
                out.push_str(&format!("### {} ({})\n{}\n", c.label, c.short_title, c.summary));
            } else {
                out.push_str(&off.join("\n\n"));
                out.push('\n');
            }
        }
        None => out.push_str(&format!("(The policy has no clause {clause_id}.)\n")),
    }
    let mut guidance = Vec::new();
    for id in legal_basis {
        if clause.map(|c| &c.label == id).unwrap_or(false) {
            continue;
        }
        if let Some(other) = pack.clause_by_label(id) {
            let off = official(sections, "clauses", id);
            if off.is_empty() {
                summary_used = true;
                guidance.push(format!("### {} ({})\n{}", other.label, other.short_title, other.summary));
            } else {
                guidance.extend(off);
            }
            continue;
        }
        let off = official(sections, "guidance", id);
        if !off.is_empty() {
            guidance.extend(off);
        } else if let Some(g) = pack.guidance.iter().find(|g| &g.id == id) {
            summary_used = true;
            guidance.push(format!("### {} ({})\n{}", g.id, g.topic, g.summary));
        }
    }
    if !guidance.is_empty() {
        out.push_str("\n## Guidance cited by this card\n\n");
        out.push_str(&guidance.join("\n\n"));
        out.push('\n');
    }
    if summary_used {
        out.push_str("\n(Some passages above are short summaries of the policy, not its official wording.)\n");
    }
    out.trim().to_string()
}
