//! Personal review tokens: 32 random bytes from the operating system, written as 64 hex digits.
//! Only their SHA-256 is stored, so a token is shown once (when a link or pack is made).
//!
//! Kinds stored in `review_tokens`:
//! * `link`: a personal link for the HTTP server (`review_links`); at most one active per reviewer.
//! * `pack`: a review pack's token. In the store that made the pack it only authorises merging
//!   the pack's answers back; in the store where the pack was opened it opens the reviewer's items.
//!
//! Local tokens (`LocalTokens`) let the desktop app or the CLI act as a reviewer of their own
//! store through the same token functions. They live only in the memory of the process that made
//! them and are never written anywhere.

use rand::rngs::OsRng;
use rand::TryRngCore;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;

use crate::error::{ApiError, ApiResult, ErrorCode};

pub const TOKEN_BYTES: usize = 32;

/// A fresh random token.
pub fn new_token() -> ApiResult<String> {
    let mut buf = [0u8; TOKEN_BYTES];
    OsRng.try_fill_bytes(&mut buf).map_err(|e| {
        ApiError::internal("The operating system could not provide random bytes for a review token.")
            .with_detail(e.to_string())
    })?;
    Ok(hex::encode(buf))
}

/// What is stored for a token.
pub fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// Tokens have a fixed shape; anything else is refused before touching the database.
pub fn well_formed(token: &str) -> bool {
    token.len() == TOKEN_BYTES * 2 && token.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// The answer to any token that does not open anything: the same words whatever the reason, so a
/// guess learns nothing.
pub fn refused() -> ApiError {
    ApiError::new(
        ErrorCode::Forbidden,
        "This review link is not valid (it may have been replaced by a newer one). Ask the person running the review for your link.",
    )
}

/// In-process tokens for a local reviewer, by (session, reviewer).
#[derive(Default)]
pub struct LocalTokens {
    inner: Mutex<LocalInner>,
}

#[derive(Default)]
struct LocalInner {
    by_reviewer: HashMap<(String, String), String>,
    by_hash: HashMap<String, (String, String)>,
}

impl LocalTokens {
    /// The local token of a reviewer, made on first use.
    pub fn get_or_make(&self, session_id: &str, reviewer: &str) -> ApiResult<String> {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let key = (session_id.to_string(), reviewer.to_string());
        if let Some(t) = g.by_reviewer.get(&key) {
            return Ok(t.clone());
        }
        let t = new_token()?;
        g.by_hash.insert(hash(&t), key.clone());
        g.by_reviewer.insert(key, t.clone());
        Ok(t)
    }

    /// The (session, reviewer) of a local token, by its hash.
    pub fn resolve(&self, token_hash: &str) -> Option<(String, String)> {
        let g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        g.by_hash.get(token_hash).cloned()
    }

    /// Forget the local tokens of a session (when it is deleted).
    pub fn forget_session(&self, session_id: &str) {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        g.by_reviewer.retain(|(s, _), _| s != session_id);
        g.by_hash.retain(|_, (s, _)| s != session_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_hex_and_hashed() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_ne!(a, b);
        assert!(well_formed(&a));
        assert_eq!(hash(&a).len(), 64);
        assert_ne!(hash(&a), a);
        assert!(!well_formed("abc"));
        assert!(!well_formed(&a.to_uppercase()));
        assert!(!well_formed(&format!("{}g", &a[..63])));
    }

    #[test]
    fn local_tokens_are_stable_per_reviewer_and_resolve() {
        let l = LocalTokens::default();
        let t = l.get_or_make("s1", "Ana").unwrap();
        assert_eq!(l.get_or_make("s1", "Ana").unwrap(), t);
        assert_ne!(l.get_or_make("s1", "Ben").unwrap(), t);
        assert_eq!(l.resolve(&hash(&t)), Some(("s1".into(), "Ana".into())));
        l.forget_session("s1");
        assert_eq!(l.resolve(&hash(&t)), None);
    }
}
