//! API keys: kept in the OS keyring behind `SecretStore` (an in-memory store for tests), wrapped
//! in `Secret` so they cannot be printed by accident, and scrubbed from any text we show.

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

/// Keyring service name for every PSEBench secret.
pub const KEYRING_SERVICE: &str = "psebench";

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SecretError {
    /// No OS keyring can be used on this computer (on Linux: no Secret Service is running).
    #[error(
        "This computer has no system keyring PSEBench Studio can keep the key in, so the key was not saved. \
         Keep the key in memory for this session only (it is forgotten when PSEBench Studio closes), or put it in \
         an environment variable and start PSEBench Studio again with it set (command line: --api-key-env VAR)."
    )]
    Unavailable(String),
    #[error("The keyring refused the operation ({0}).")]
    Failed(String),
}

impl SecretError {
    /// The technical cause (the keyring's own words), for the error's detail.
    pub fn cause(&self) -> &str {
        match self {
            SecretError::Unavailable(c) | SecretError::Failed(c) => c,
        }
    }
}

impl From<SecretError> for crate::error::ApiError {
    fn from(e: SecretError) -> Self {
        use crate::error::{ApiError, ErrorCode};
        let code = match &e {
            SecretError::Unavailable(_) => ErrorCode::KeyringUnavailable,
            SecretError::Failed(_) => ErrorCode::Secrets,
        };
        let cause = e.cause().to_string();
        ApiError::new(code, e.to_string()).with_detail(cause)
    }
}

/// Keys kept in memory for this session only, per model: for a computer without an OS keyring.
/// They are never written anywhere and are gone when the process ends.
#[derive(Default)]
pub struct SessionKeys {
    map: Mutex<HashMap<String, Secret>>,
}

impl SessionKeys {
    pub fn get(&self, account: &str) -> Option<Secret> {
        self.map.lock().unwrap_or_else(|p| p.into_inner()).get(account).cloned()
    }
    pub fn set(&self, account: &str, key: Secret) {
        self.map.lock().unwrap_or_else(|p| p.into_inner()).insert(account.to_string(), key);
    }
    pub fn remove(&self, account: &str) {
        self.map.lock().unwrap_or_else(|p| p.into_inner()).remove(account);
    }
    pub fn holds(&self, account: &str) -> bool {
        self.map.lock().unwrap_or_else(|p| p.into_inner()).contains_key(account)
    }
}

/// Where API keys live.
pub trait SecretStore: Send + Sync {
    fn get(&self, account: &str) -> Result<Option<String>, SecretError>;
    fn set(&self, account: &str, secret: &str) -> Result<(), SecretError>;
    fn delete(&self, account: &str) -> Result<(), SecretError>;
    /// A short description for settings screens ("OS keyring", "memory (tests)").
    fn describe(&self) -> &'static str;
}

/// The operating system's keyring (Secret Service on Linux, Keychain on macOS, Credential Manager on Windows).
pub struct KeyringStore;

fn map_keyring(e: keyring::Error) -> SecretError {
    match e {
        keyring::Error::NoStorageAccess(inner) => SecretError::Unavailable(inner.to_string()),
        keyring::Error::PlatformFailure(inner) => SecretError::Unavailable(inner.to_string()),
        other => SecretError::Failed(other.to_string()),
    }
}

impl SecretStore for KeyringStore {
    fn get(&self, account: &str) -> Result<Option<String>, SecretError> {
        let entry = keyring::Entry::new(KEYRING_SERVICE, account).map_err(map_keyring)?;
        match entry.get_password() {
            Ok(p) => Ok(Some(p)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(map_keyring(e)),
        }
    }
    fn set(&self, account: &str, secret: &str) -> Result<(), SecretError> {
        keyring::Entry::new(KEYRING_SERVICE, account).and_then(|e| e.set_password(secret)).map_err(map_keyring)
    }
    fn delete(&self, account: &str) -> Result<(), SecretError> {
        let entry = keyring::Entry::new(KEYRING_SERVICE, account).map_err(map_keyring)?;
        match entry.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(map_keyring(e)),
        }
    }
    fn describe(&self) -> &'static str {
        "OS keyring"
    }
}

/// Secrets held in memory only (tests, or a session that must not touch the keyring).
#[derive(Default)]
pub struct MemoryStore {
    map: Mutex<HashMap<String, String>>,
}

impl SecretStore for MemoryStore {
    fn get(&self, account: &str) -> Result<Option<String>, SecretError> {
        Ok(self.map.lock().unwrap_or_else(|p| p.into_inner()).get(account).cloned())
    }
    fn set(&self, account: &str, secret: &str) -> Result<(), SecretError> {
        self.map.lock().unwrap_or_else(|p| p.into_inner()).insert(account.to_string(), secret.to_string());
        Ok(())
    }
    fn delete(&self, account: &str) -> Result<(), SecretError> {
        self.map.lock().unwrap_or_else(|p| p.into_inner()).remove(account);
        Ok(())
    }
    fn describe(&self) -> &'static str {
        "memory (this session only)"
    }
}

/// A store that is never available (to test the fallback advice).
pub struct UnavailableStore;

impl SecretStore for UnavailableStore {
    fn get(&self, _: &str) -> Result<Option<String>, SecretError> {
        Err(SecretError::Unavailable("no keyring service is running".into()))
    }
    fn set(&self, _: &str, _: &str) -> Result<(), SecretError> {
        Err(SecretError::Unavailable("no keyring service is running".into()))
    }
    fn delete(&self, _: &str) -> Result<(), SecretError> {
        Err(SecretError::Unavailable("no keyring service is running".into()))
    }
    fn describe(&self) -> &'static str {
        "unavailable"
    }
}

/// The keyring account name for a model's key.
pub fn model_account(model_name: &str) -> String {
    format!("model:{model_name}")
}

/// A secret value. Its Debug and Display never show the value.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
    /// Replace every occurrence of the secret (and of its longer fragments) in `text`.
    pub fn scrub(&self, text: &str) -> String {
        redact(text, &self.0)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Remove `secret` from `text`. Providers sometimes echo part of a wrong key ("sk-ab…xyz"), so
/// any fragment of 8 or more characters of it is removed as well.
pub fn redact(text: &str, secret: &str) -> String {
    if secret.len() < 4 {
        return text.to_string();
    }
    let mut out = text.replace(secret, "[redacted]");
    let chars: Vec<char> = secret.chars().collect();
    if chars.len() > 8 {
        for len in (8..chars.len()).rev() {
            for start in 0..=chars.len() - len {
                let frag: String = chars[start..start + len].iter().collect();
                if out.contains(&frag) {
                    out = out.replace(&frag, "[redacted]");
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_never_prints() {
        let s = Secret::new("sk-live-1234567890abcdef");
        assert_eq!(format!("{s:?} {s}"), "Secret(***) ***");
    }

    #[test]
    fn redact_whole_and_fragments() {
        let key = "sk-live-1234567890abcdef";
        let t = format!("bad key {key}; hint sk-live-1234…cdef and 567890abcdef");
        let r = redact(&t, key);
        assert!(!r.contains("1234567890"), "{r}");
        assert!(!r.contains("567890abcdef"), "{r}");
        assert!(r.contains("[redacted]"));
    }

    #[test]
    fn memory_store_round_trip() {
        let m = MemoryStore::default();
        assert_eq!(m.get("a").unwrap(), None);
        m.set("a", "b").unwrap();
        assert_eq!(m.get("a").unwrap().as_deref(), Some("b"));
        m.delete("a").unwrap();
        assert_eq!(m.get("a").unwrap(), None);
    }

    #[test]
    fn unavailable_store_suggests_env_var() {
        let e = UnavailableStore.get("x").unwrap_err();
        assert!(e.to_string().contains("--api-key-env"));
    }
}
