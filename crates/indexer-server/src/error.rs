//! One mapping from every failure to an HTTP status and a JSON body.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// Where the error codes are documented.
const ERRORS_DOC: &str = "docs/http-api.md#errors";

/// An error answered as `{message, code, type, link}` with its status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ApiError {
    pub status: StatusCode,
    /// A stable machine-readable code (`query_too_long`, `note_not_found`, ...).
    pub code: &'static str,
    pub message: String,
    pub hint: Option<String>,
}

#[derive(Serialize)]
struct Body<'a> {
    message: &'a str,
    code: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    link: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<&'a str>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            hint: None,
        }
    }

    pub fn bad_request(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    pub fn not_found(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, code, message)
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }

    /// The class of the error, from its status.
    pub fn kind(&self) -> &'static str {
        match self.status.as_u16() {
            404 => "not_found_error",
            408 | 503 => "timeout_error",
            413 => "request_too_large",
            429 => "rate_limit_error",
            502 | 504 => "upstream_error",
            400..=499 => "invalid_request_error",
            _ => "internal_error",
        }
    }
}

impl From<indexer_engine::Error> for ApiError {
    fn from(e: indexer_engine::Error) -> ApiError {
        let mut err = if let indexer_engine::Error::Llm(l) = &e {
            use indexer_engine::LlmError as L;
            let status = match l {
                L::TimedOut { .. } => StatusCode::GATEWAY_TIMEOUT,
                L::ContextTooSmall { .. } => StatusCode::BAD_REQUEST,
                L::Config(_) | L::Template { .. } | L::Cancelled => {
                    StatusCode::INTERNAL_SERVER_ERROR
                }
                _ => StatusCode::BAD_GATEWAY,
            };
            ApiError::new(status, l.code(), e.to_string())
        } else if let indexer_engine::Error::UnknownDocument { .. } = e {
            ApiError::bad_request("unknown_document", e.to_string())
        } else if e.is_user_error() {
            ApiError::bad_request("bad_request", e.to_string())
        } else {
            ApiError::internal(e.to_string())
        };
        err.hint = indexer_engine::Hint::hint(&e);
        err
    }
}

impl ApiError {
    fn body(&self) -> Body<'_> {
        Body {
            message: &self.message,
            code: self.code,
            kind: self.kind(),
            link: format!("{ERRORS_DOC}-{}", self.code.replace('_', "-")),
            hint: self.hint.as_deref(),
        }
    }

    /// The JSON body alone, for an error that happens inside a stream (`/ask`).
    pub fn body_json(&self) -> String {
        serde_json::to_string(&self.body()).unwrap_or_default()
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, axum::Json(self.body())).into_response()
    }
}
