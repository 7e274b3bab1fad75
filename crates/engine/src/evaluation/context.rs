//! What each role is shown: the evaluated model's system prompt built from the policy (official
//! text where imported, our summaries otherwise), the information provider's fact list, and the
//! judge's boundary-condition list.

use indexmap::IndexMap;
use std::sync::Arc;

use crate::case::Case;
use crate::error::ApiResult;
use crate::policy::{OfficialSection, PolicyPack};
use crate::prompt::{load, Prompt};
use crate::protocol::Protocol;
use crate::trajectory::InfoStatus;

/// Every template the environment uses, loaded once per run for the run's protocol.
#[derive(Debug, Clone)]
pub struct EvalPrompts {
    /// The protocol the templates were chosen for.
    pub protocol: Protocol,
    pub system: Prompt,
    pub initial: Prompt,
    pub followup_answered: Prompt,
    pub followup_refused: Prompt,
    pub followup_unknown: Prompt,
    pub force_answer: Prompt,
    pub info_system: Prompt,
    pub info_user: Prompt,
    pub judge_system: Prompt,
    pub judge_user: Prompt,
    /// The provider's and the judge's system prompts as shared message text: every case's
    /// requests point at one copy (thousands of requests wait at once in batch mode).
    pub info_system_text: Arc<str>,
    pub judge_system_text: Arc<str>,
}

impl EvalPrompts {
    /// The templates of a protocol. `paper` differs in two: the evaluated model's instructions
    /// (`eval_system_paper`: the paper's order and content, without this application's extra
    /// cues) and the judge's user message (`judge_user_paper`: the rationale and the boundary
    /// conditions only, no clause text). The other turns already say what the paper's say.
    pub fn load(protocol: Protocol) -> ApiResult<EvalPrompts> {
        let info_system = load("info_system")?;
        let judge_system = load("judge_system")?;
        let (system, judge_user) = match protocol {
            Protocol::Paper => ("eval_system_paper", "judge_user_paper"),
            Protocol::Studio => ("eval_system", "judge_user"),
        };
        Ok(EvalPrompts {
            protocol,
            info_system_text: info_system.text.as_str().into(),
            judge_system_text: judge_system.text.as_str().into(),
            info_system,
            judge_system,
            system: load(system)?,
            initial: load("eval_initial")?,
            followup_answered: load("eval_followup_answered")?,
            followup_refused: load("eval_followup_refused_too_vague")?,
            followup_unknown: load("eval_followup_unknown")?,
            force_answer: load("eval_force_answer")?,
            info_user: load("info_user")?,
            judge_user: load(judge_user)?,
        })
    }

    /// name → version of every template (stored with the run and with each turn).
    pub fn versions(&self) -> IndexMap<String, String> {
        [
            &self.system,
            &self.initial,
            &self.followup_answered,
            &self.followup_refused,
            &self.followup_unknown,
            &self.force_answer,
            &self.info_system,
            &self.info_user,
            &self.judge_system,
            &self.judge_user,
        ]
        .iter()
        .map(|p| (p.name.clone(), p.version.clone()))
        .collect()
    }

    pub fn followup(&self, status: InfoStatus) -> &Prompt {
        match status {
            InfoStatus::Answered => &self.followup_answered,
            InfoStatus::RefusedTooVague => &self.followup_refused,
            InfoStatus::Unknown => &self.followup_unknown,
        }
    }
}

fn official_block(sections: &[OfficialSection], source: &str) -> Option<String> {
    let s: Vec<String> = sections
        .iter()
        .filter(|x| x.source == source)
        .map(|x| format!("### {} [{}]\n{}", x.heading, x.evidence_id, x.body))
        .collect();
    if s.is_empty() {
        None
    } else {
        Some(s.join("\n\n"))
    }
}

/// The evaluated model's system prompt for a policy.
pub fn system_prompt(prompts: &EvalPrompts, pack: &PolicyPack, official: &[OfficialSection]) -> ApiResult<String> {
    let clause_text = official_block(official, "clauses").unwrap_or_else(|| {
        let mut s = String::from(if pack.edition == "user" {
            "(The clauses as written for this policy.)\n\n"
        } else {
            "(Summary edition: short summaries of each clause.)\n\n"
        });
        for c in &pack.clauses {
            s.push_str(&format!("### {} — {}\n{}\n\n", c.label, c.short_title, c.summary));
        }
        s.trim_end().to_string()
    });
    let guidance_text = official_block(official, "guidance").unwrap_or_else(|| {
        let mut s = String::from(if pack.edition == "user" {
            "(The guidance as written for this policy, one section per heading.)\n\n"
        } else {
            "(Summary edition: short summaries of each guidance section.)\n\n"
        });
        for g in &pack.guidance {
            if g.topic == g.id {
                s.push_str(&format!("### {}\n{}\n\n", g.id, g.summary));
            } else {
                s.push_str(&format!("### {} — {}\n{}\n\n", g.id, g.topic, g.summary));
            }
        }
        s.trim_end().to_string()
    });
    let clause_vocabulary = pack.clauses.iter().map(|c| format!("- {}", c.label)).collect::<Vec<_>>().join("\n");
    let evidence_vocabulary =
        pack.evidence(official).iter().map(|e| format!("- {}", e.id)).collect::<Vec<_>>().join("\n");
    prompts.system.render(&[
        ("policy_name", &pack.name),
        ("clause_text", &clause_text),
        ("guidance_text", &guidance_text),
        ("clause_vocabulary", &clause_vocabulary),
        ("evidence_vocabulary", &evidence_vocabulary),
    ])
}

/// The clause text the judge is shown for a case (`studio` protocol): the clause's approved
/// extraction when there is one, always led by the clause's own wording; otherwise the clause's
/// official wording if imported, else its summary.
pub fn judge_clause_text(
    pack: &PolicyPack,
    official: &[OfficialSection],
    clause_id: &str,
    approved: Option<&crate::policy::extraction::ApprovedExtraction>,
) -> String {
    match approved {
        Some(x) => crate::policy::extraction::context_with_clause(&x.document, pack, official, clause_id),
        None => crate::policy::context::clause_wording(pack, official, clause_id),
    }
}

/// The information provider's knowledge: every element of the case, masked ones included.
pub fn fact_list(case: &Case) -> String {
    case.elements
        .iter()
        .map(|e| {
            format!("- field: {}\n  meaning: {}\n  value: {}", e.name, e.meaning, e.value.as_deref().unwrap_or("null"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The judge's view of the case's boundary conditions.
pub fn condition_list(case: &Case) -> String {
    case.boundary_conditions
        .iter()
        .map(|b| format!("- name: {}\n  value: {}\n  meaning: {}", b.name, b.value, b.meaning))
        .collect::<Vec<_>>()
        .join("\n")
}
