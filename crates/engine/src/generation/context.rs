//! The clause and guidance context a card's roles are given: the card's clause text plus every
//! guidance section its legal basis cites (`policy::context`). Official text is used where the
//! user imported it; otherwise our summary edition, marked as such. This is the fallback: when the
//! card's clause has an approved loyal extraction (`authoring`), the plan uses that document instead.

use crate::card::ClauseCard;
use crate::policy::{OfficialSection, PolicyPack};

/// Markdown context for one card.
pub fn card_context(card: &ClauseCard, pack: &PolicyPack, sections: &[OfficialSection]) -> String {
    crate::policy::context::clause_context(&card.clause_id, card.legal_basis(), pack, sections)
}
