//! Deletions that reach the tables of several modules. Each table is written only by the module
//! that owns it, and a module may call only modules below it; a deletion whose rows belong to a
//! module above the one that owns the thing deleted is therefore put together here, above all of
//! them, from the owners' functions, in one transaction.

use super::Engine;
use crate::error::{ApiError, ApiResult};
use crate::policy::actions::PolicyDeleteResult;

impl Engine {
    /// Remove a user pack that no card and no case uses, with the extractions and drafts made
    /// from its text (they must not come back as the context of a new pack that reuses the id).
    pub fn policy_delete(&self, id: &str) -> ApiResult<PolicyDeleteResult> {
        self.store().with_tx(|tx| -> ApiResult<()> {
            let builtin = crate::policy::repo::is_builtin(tx, id)?
                .ok_or_else(|| ApiError::not_found(format!("There is no policy pack \"{id}\" in this store.")))?;
            if builtin {
                return Err(ApiError::conflict(format!(
                    "\"{id}\" is a built-in policy pack; it comes with the app and cannot be deleted."
                )));
            }
            let cards = crate::card::repo::count_for_policy(tx, id)?;
            let cases = crate::case::repo::count_for_policy(tx, id)?;
            if cards > 0 || cases > 0 {
                return Err(ApiError::conflict(format!(
                    "The policy \"{id}\" is still used by {cards} card(s) and {cases} case(s). Delete or move those first; nothing was deleted."
                )));
            }
            crate::authoring::repo::delete_for_policy(tx, id)?;
            crate::policy::repo::delete_pack(tx, id)
        })?;
        Ok(PolicyDeleteResult { id: id.to_string(), deleted: true })
    }

    /// Delete anchors, with the copies of their text that generation runs keep (see
    /// `anchors_remove_with`).
    pub fn anchors_remove(&self, anchor_ids: &[String]) -> ApiResult<u32> {
        self.anchors_remove_with(anchor_ids, crate::generation::repo::forget_anchor)
    }
}
