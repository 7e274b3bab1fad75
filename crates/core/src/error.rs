//! The error shape that crosses the `api` boundary: a stable `code` the UI branches on, a sentence
//! a reviewer can act on, and optional technical detail shown behind a disclosure.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Stable error codes. The strings are part of the API contract (UI and scripts branch on them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// A file could not be read, is too large, is not UTF-8 or is not valid JSON.
    InvalidInput,
    /// Input parsed but breaks a schema or a rule.
    ValidationFailed,
    /// The thing asked for does not exist.
    NotFound,
    /// The request conflicts with what is stored (duplicate id, wrong state).
    Conflict,
    /// The database cannot be used (newer schema, corrupt, locked).
    StoreUnavailable,
    /// Reading or writing the database failed.
    StoreFailed,
    /// A file-system operation failed.
    Io,
    /// A model provider failed (after retries) or answered with something unusable.
    Provider,
    /// Credentials are missing or the keyring is unavailable.
    Secrets,
    /// This computer has no OS keyring to keep a key in; the key can be kept in memory for the
    /// session instead, or read from an environment variable.
    KeyringUnavailable,
    /// Work was cancelled by the user.
    Cancelled,
    /// The action is not allowed (for example: revealing a verdict before a blind answer).
    Forbidden,
    /// The request did not carry the key of the server's printed link (`psebench serve`).
    Unauthorized,
    /// A bug: something that should never happen did.
    Internal,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "invalid_input",
            ErrorCode::ValidationFailed => "validation_failed",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Conflict => "conflict",
            ErrorCode::StoreUnavailable => "store_unavailable",
            ErrorCode::StoreFailed => "store_failed",
            ErrorCode::Io => "io",
            ErrorCode::Provider => "provider",
            ErrorCode::Secrets => "secrets",
            ErrorCode::KeyringUnavailable => "keyring_unavailable",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Internal => "internal",
        }
    }
}

/// `{code, message, detail}`: what every API function returns on failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError { code, message: message.into(), detail: None }
    }
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError::new(ErrorCode::NotFound, message)
    }
    pub fn invalid(message: impl Into<String>) -> Self {
        ApiError::new(ErrorCode::InvalidInput, message)
    }
    pub fn conflict(message: impl Into<String>) -> Self {
        ApiError::new(ErrorCode::Conflict, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        ApiError::new(ErrorCode::Internal, message)
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(d) = &self.detail {
            write!(f, "\n  detail: {d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ApiError {}

pub type ApiResult<T> = Result<T, ApiError>;
