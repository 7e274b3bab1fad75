//! The case view: a case with what the store and the card library know about it.

use serde::{Deserialize, Serialize};

use super::Engine;
use crate::case::repo::{self, CaseMeta};
use crate::case::Case;
use crate::error::{ApiError, ApiResult};

pub use crate::case::actions::CasesImportResult;

/// One case for the case view: its content, what the store knows about it, and the names the
/// page shows for its clause and card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CaseDetail {
    pub case: Case,
    pub meta: CaseMeta,
    /// The clause's label and short title in the case's policy (None when the policy does not know it).
    pub clause_label: Option<String>,
    pub clause_short_title: Option<String>,
    /// Audit status of the case's card in the library, or None when the library has no such card.
    pub card_status: Option<String>,
}

impl Engine {
    /// A case with its store metadata and the names of its clause and card.
    pub fn case_detail(&self, case_id: &str) -> ApiResult<CaseDetail> {
        let (case, meta, card) = self.store().with_conn(|c| {
            let case = repo::get_case(c, case_id)?;
            let meta = repo::case_meta(c, case_id)?;
            let card = crate::card::repo::get_row(c, &case.clause_card_id)?;
            Ok::<_, ApiError>((case, meta, card))
        })?;
        let clause = self.pack_and_vocab(&case.policy).ok().and_then(|(pack, _)| pack.clause(&case.clause_id).cloned());
        Ok(CaseDetail {
            clause_label: clause.as_ref().map(|c| c.label.clone()),
            clause_short_title: clause.as_ref().map(|c| c.short_title.clone()),
            card_status: card.map(|r| r.status),
            case,
            meta,
        })
    }
}
