//! Keeping a reasoning model's reasoning apart from its answer.
//!
//! Reasoning arrives in several shapes: inline `<think>…</think>` or `<thinking>…</thinking>`
//! blocks at the start of the content (local servers without a reasoning parser), a separate
//! `reasoning_content` or `reasoning` field (OpenAI-compatible servers), thinking blocks
//! (Anthropic) and thought parts (Gemini). Every wire parser sends its reply through
//! [`separate`], so the reply's `text` is the answer only and the JSON extractor never reads a
//! brace written while the model was thinking.

use super::types::ChatResponse;

/// Opening and closing tags of an inline reasoning block, the longer name first so that
/// `<thinking>` is not read as `<think>` followed by `ing>`.
const TAGS: [(&str, &str); 2] = [("<thinking>", "</thinking>"), ("<think>", "</think>")];

/// What [`split_inline`] finds in a reply's content.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Split {
    /// The content with the reasoning taken out (trimmed when reasoning was found).
    pub answer: String,
    /// The reasoning, trimmed; None when there was none (or the block was empty).
    pub reasoning: Option<String>,
    /// A reasoning block was opened and never closed: the reply stopped while the model was
    /// still thinking.
    pub unclosed: bool,
}

/// Position of `needle` in `hay`, ignoring ASCII case.
fn find_ci(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    if n.is_empty() || h.len() < n.len() {
        return None;
    }
    (0..=h.len() - n.len()).find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}

fn starts_with_ci(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

fn push_part(parts: &mut Vec<String>, s: &str) {
    let s = s.trim();
    if !s.is_empty() {
        parts.push(s.to_string());
    }
}

/// Take inline reasoning out of a reply's content.
///
/// - One or more `<think>`/`<thinking>` blocks at the start (after white space; tags in any
///   case) are reasoning; what follows the last one is the answer.
/// - An opening tag that is never closed makes the whole rest reasoning (`unclosed`): the
///   reply was cut off mid-thought.
/// - A closing tag with no opening tag before it (servers whose chat template already opened
///   the block) makes everything before it reasoning.
/// - Anything else is all answer, unchanged.
pub fn split_inline(content: &str) -> Split {
    let mut parts: Vec<String> = Vec::new();
    let mut rest = content;
    let mut found = false;
    loop {
        let trimmed = rest.trim_start();
        let Some((open, close)) = TAGS.iter().find(|(open, _)| starts_with_ci(trimmed, open)) else {
            break;
        };
        found = true;
        let inner = &trimmed[open.len()..];
        match find_ci(inner, close) {
            Some(end) => {
                push_part(&mut parts, &inner[..end]);
                rest = &inner[end + close.len()..];
            }
            None => {
                push_part(&mut parts, inner);
                return Split { answer: String::new(), reasoning: joined(parts), unclosed: true };
            }
        }
    }
    if found {
        return Split { answer: rest.trim().to_string(), reasoning: joined(parts), unclosed: false };
    }
    // A closing tag without an opening one: the template opened the block before the reply began.
    for (open, close) in TAGS {
        if let Some(end) = find_ci(content, close) {
            if find_ci(&content[..end], open).is_none() {
                push_part(&mut parts, &content[..end]);
                let answer = content[end + close.len()..].trim().to_string();
                return Split { answer, reasoning: joined(parts), unclosed: false };
            }
        }
    }
    Split { answer: content.to_string(), reasoning: None, unclosed: false }
}

fn joined(parts: Vec<String>) -> Option<String> {
    if parts.is_empty() {
        None
    } else {
        Some(parts.join("\n\n"))
    }
}

/// The answer and the reasoning of a reply, from its content and the reasoning the provider
/// sent apart from it (`native`, if any): inline blocks are taken out of the content too, and
/// both kinds of reasoning are kept, the provider's first.
pub fn separate(content: &str, native: Option<String>) -> (String, Option<String>) {
    let split = split_inline(content);
    let mut parts: Vec<String> = Vec::new();
    if let Some(n) = native {
        push_part(&mut parts, &n);
    }
    if let Some(r) = split.reasoning {
        parts.push(r);
    }
    (split.answer, joined(parts))
}

/// Whether a finish reason says the model was stopped at its output-token limit (`length` for
/// OpenAI-style servers, `max_tokens` for Anthropic, `MAX_TOKENS` for Gemini).
pub fn stopped_at_limit(finish_reason: Option<&str>) -> bool {
    finish_reason.is_some_and(|f| {
        let f = f.to_ascii_lowercase();
        f == "length" || f == "max_tokens"
    })
}

/// Why a reply could not be read, in plain words: says when the reply held only the model's
/// reasoning, and when the model was stopped at its token limit, since then the fix is more
/// output tokens rather than another prompt.
pub fn unreadable_reason(why: &str, cut_off: bool, only_reasoning: bool) -> String {
    match (only_reasoning, cut_off) {
        (true, true) => "the reply held only the model's reasoning and was cut off at the token limit before any \
                         answer; give the model more output tokens"
            .to_string(),
        (true, false) => format!("the reply held only the model's reasoning and no answer after it ({why})"),
        (false, true) => format!(
            "the reply stopped at the model's token limit before it was complete ({why}); give the model more output tokens"
        ),
        (false, false) => why.to_string(),
    }
}

impl ChatResponse {
    /// The model was stopped at its output-token limit.
    pub fn cut_off(&self) -> bool {
        stopped_at_limit(self.finish_reason.as_deref())
    }

    /// The reply holds reasoning and no answer at all.
    pub fn only_reasoning(&self) -> bool {
        self.text.trim().is_empty() && self.reasoning.as_deref().is_some_and(|r| !r.trim().is_empty())
    }

    /// `why` (a reply that could not be read), said so that the cause shows: see
    /// [`unreadable_reason`].
    pub fn unreadable_reason(&self, why: &str) -> String {
        unreadable_reason(why, self.cut_off(), self.only_reasoning())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(s: &str) -> (String, Option<String>, bool) {
        let r = split_inline(s);
        (r.answer, r.reasoning, r.unclosed)
    }

    #[test]
    fn content_without_tags_is_all_answer_and_unchanged() {
        let s = "  {\"action\": \"ASK\", \"question\": \"Who?\"}\n";
        assert_eq!(split(s), (s.to_string(), None, false));
        assert_eq!(separate(s, None), (s.to_string(), None));
        assert_eq!(split(""), (String::new(), None, false));
    }

    #[test]
    fn a_think_block_with_braces_stays_out_of_the_answer() {
        let s = "<think>\nMaybe {\"action\":\"ANSWER\",\"final_verdict\":\"Non-reportable\"}? No: {nested {braces}}.\n</think>\n\n{\"action\":\"ANSWER\",\"final_verdict\":\"Reportable\"}";
        let (answer, reasoning, unclosed) = split(s);
        assert_eq!(answer, "{\"action\":\"ANSWER\",\"final_verdict\":\"Reportable\"}");
        let reasoning = reasoning.unwrap_or_default();
        assert!(reasoning.starts_with("Maybe {\"action\""), "{reasoning}");
        assert!(reasoning.ends_with("{nested {braces}}."), "{reasoning}");
        assert!(!unclosed);
    }

    #[test]
    fn thinking_tags_any_case_and_leading_space_are_recognised() {
        assert_eq!(
            split("\n  <THINKING>plan</Thinking>answer"),
            ("answer".to_string(), Some("plan".to_string()), false)
        );
        assert_eq!(split("<Think>a</THINK> b "), ("b".to_string(), Some("a".to_string()), false));
    }

    #[test]
    fn several_blocks_are_joined_and_an_empty_block_is_dropped() {
        assert_eq!(
            split("<think>one</think>\n<think>two</think>\nthe answer"),
            ("the answer".to_string(), Some("one\n\ntwo".to_string()), false)
        );
        // Qwen-style replies with thinking switched off still send an empty block.
        assert_eq!(split("<think>\n\n</think>\n\n{\"a\":1}"), ("{\"a\":1}".to_string(), None, false));
    }

    #[test]
    fn an_unclosed_block_is_all_reasoning_and_marked_cut_off() {
        assert_eq!(
            split("<think>Let me weigh {\"action\":\"ANSWER\"} against"),
            (String::new(), Some("Let me weigh {\"action\":\"ANSWER\"} against".to_string()), true)
        );
        assert_eq!(split("<think>"), (String::new(), None, true));
    }

    #[test]
    fn a_closing_tag_without_an_opening_one_ends_the_reasoning() {
        assert_eq!(
            split("The template opened the block. {x}\n</think>\n\nfinal"),
            ("final".to_string(), Some("The template opened the block. {x}".to_string()), false)
        );
        assert_eq!(split("why</thinking>ok"), ("ok".to_string(), Some("why".to_string()), false));
    }

    #[test]
    fn tags_inside_an_answer_are_left_alone() {
        let s = "{\"rationale\": \"models may write <think> blocks</think> too\"}";
        // A closing tag after an opening one is not a stray close; the text does not start with a tag.
        assert_eq!(split(s), (s.to_string(), None, false));
    }

    #[test]
    fn native_and_inline_reasoning_are_both_kept() {
        let (answer, reasoning) = separate("<think>inline</think>ans", Some(" native ".into()));
        assert_eq!(answer, "ans");
        assert_eq!(reasoning.as_deref(), Some("native\n\ninline"));
        let (answer, reasoning) = separate("  plain  ", Some("native".into()));
        assert_eq!(answer, "  plain  ");
        assert_eq!(reasoning.as_deref(), Some("native"));
        assert_eq!(separate("x", Some("  ".into())), ("x".to_string(), None));
    }

    #[test]
    fn token_limit_finish_reasons_of_every_provider() {
        for f in ["length", "max_tokens", "MAX_TOKENS"] {
            assert!(stopped_at_limit(Some(f)), "{f}");
        }
        for f in [None, Some("stop"), Some("end_turn"), Some("STOP")] {
            assert!(!stopped_at_limit(f), "{f:?}");
        }
    }

    #[test]
    fn unreadable_reasons_say_what_happened() {
        let why = "no JSON object";
        assert_eq!(unreadable_reason(why, false, false), why);
        let cut = unreadable_reason(why, true, false);
        assert!(cut.contains("token limit") && cut.contains(why) && cut.contains("more output tokens"), "{cut}");
        let only = unreadable_reason(why, true, true);
        assert!(only.contains("only the model's reasoning") && only.contains("cut off at the token limit"), "{only}");
        assert!(only.contains("more output tokens"), "{only}");
        let uncut = unreadable_reason(why, false, true);
        assert!(uncut.contains("only the model's reasoning") && uncut.contains(why), "{uncut}");
    }
}
