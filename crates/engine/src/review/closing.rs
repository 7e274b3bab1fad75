//! Closing a review session: its owner ends the review, every personal link (and every local
//! reviewer token) of the session is refused from then on, and the answers stay readable to the
//! owner. A closed session can be reopened; links that were valid before work again.

use rusqlite::{params, Connection, OptionalExtension};

use crate::context::Engine;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::review::repo;
use crate::review::{ReviewSessionDetail, SessionRole};
use crate::util::now_rfc3339;

/// What a reviewer of a closed session is told, whatever they ask.
pub const CLOSED_MESSAGE: &str = "This review has been closed by its organiser. Your answers are kept; \
     ask the organiser if you think it should still be open.";

/// When the session was closed, or `None` while it is open.
pub fn closed_at(c: &Connection, session_id: &str) -> ApiResult<Option<String>> {
    let at: Option<Option<String>> = c
        .query_row("SELECT closed_at FROM review_sessions WHERE session_id = ?1", [session_id], |r| r.get(0))
        .optional()?;
    Ok(at.flatten())
}

/// The refusal for reviewer calls to a closed session.
pub fn closed() -> ApiError {
    ApiError::new(ErrorCode::Forbidden, CLOSED_MESSAGE)
}

/// Refuse when the session is closed.
pub fn ensure_open(c: &Connection, session_id: &str) -> ApiResult<()> {
    match closed_at(c, session_id)? {
        Some(_) => Err(closed()),
        None => Ok(()),
    }
}

fn set_closed(c: &Connection, session_id: &str, at: Option<&str>) -> ApiResult<()> {
    c.execute("UPDATE review_sessions SET closed_at = ?2 WHERE session_id = ?1", params![session_id, at])?;
    Ok(())
}

impl Engine {
    /// Close a session: from now on its reviewers' links are refused with a plain message. Closing
    /// a closed session changes nothing (it keeps its first closing time).
    pub fn review_close(&self, session: &str) -> ApiResult<ReviewSessionDetail> {
        let id = self.store().with_tx(|tx| {
            let s = repo::resolve_session(tx, session)?;
            if s.role == SessionRole::Visiting {
                return Err(ApiError::new(
                    ErrorCode::Forbidden,
                    format!(
                        "Session \"{}\" was opened here from a review pack; only the store that created it can close it.",
                        s.name
                    ),
                ));
            }
            if closed_at(tx, &s.session_id)?.is_none() {
                set_closed(tx, &s.session_id, Some(&now_rfc3339()))?;
            }
            Ok::<_, ApiError>(s.session_id)
        })?;
        tracing::info!(session = %id, "review session closed");
        self.review_show(&id)
    }

    /// Reopen a closed session: the links given out before work again.
    pub fn review_reopen(&self, session: &str) -> ApiResult<ReviewSessionDetail> {
        let id = self.store().with_tx(|tx| {
            let s = repo::resolve_session(tx, session)?;
            set_closed(tx, &s.session_id, None)?;
            Ok::<_, ApiError>(s.session_id)
        })?;
        tracing::info!(session = %id, "review session reopened");
        self.review_show(&id)
    }
}
