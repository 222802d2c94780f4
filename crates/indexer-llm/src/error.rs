//! Every way asking a model server can fail, each with a stable code and a hint.

use indexer_notes::Hint;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A setting that cannot work (a URL that is not one, a zero limit).
    #[error("{0}")]
    Config(String),
    /// A prompt template that cannot be used.
    #[error("{}{message}", path.as_ref().map(|p| format!("{}: ", p.display())).unwrap_or_default())]
    Template {
        path: Option<PathBuf>,
        message: String,
    },
    /// Nothing answers at the URL (refused, no such host, connection dropped).
    #[error("cannot reach the model server at {url}: {message}")]
    Unreachable { url: String, message: String },
    /// The answer did not complete within the time limit.
    #[error("the model server at {url} did not answer within {} s", after.as_secs_f64())]
    TimedOut { url: String, after: Duration },
    /// 401 or 403: the key is missing or wrong.
    #[error("the model server at {url} refused the request ({status}): {message}")]
    Unauthorized {
        url: String,
        status: u16,
        message: String,
        /// The variable the key was read from.
        key_env: String,
        key_set: bool,
    },
    /// The server does not serve the model asked for.
    #[error(
        "the model server at {url} does not serve the model {model:?}{}",
        served_list(served)
    )]
    ModelNotFound {
        url: String,
        model: String,
        served: Vec<String>,
    },
    /// No model was named and the server lists none.
    #[error("no model named and the model server at {url} lists none")]
    NoModel { url: String },
    /// 404 for the endpoint itself.
    #[error("the model server at {url} has no chat-completions endpoint (404): {message}")]
    NotFound { url: String, message: String },
    /// Even the question with one evidence note does not fit the model's context window.
    #[error("{}", context_message(*context, *max_tokens))]
    ContextTooSmall {
        context: Option<u32>,
        max_tokens: u32,
    },
    /// The server refused a request with images (`images = always`).
    #[error("the model server refused the request with images ({status}): {message}")]
    ImagesRefused { status: u16, message: String },
    /// Any other error status.
    #[error("the model server answered {status}: {message}")]
    Server { status: u16, message: String },
    /// The caller stopped the answer (a client that went away).
    #[error("the answer was cancelled")]
    Cancelled,
    /// An answer that is not chat completions.
    #[error("the model server's answer is not a chat completion: {0}")]
    Protocol(String),
}

fn served_list(served: &[String]) -> String {
    if served.is_empty() {
        return String::new();
    }
    let mut shown: Vec<&str> = served.iter().take(8).map(String::as_str).collect();
    if served.len() > shown.len() {
        shown.push("...");
    }
    format!("; it serves {}", shown.join(", "))
}

fn context_message(context: Option<u32>, max_tokens: u32) -> String {
    match context {
        Some(c) => format!(
            "the model's context window ({c} tokens) cannot hold the question and one evidence note with room for an answer of {max_tokens} tokens"
        ),
        None => format!(
            "the model's context window cannot hold the question and one evidence note with room for an answer of {max_tokens} tokens"
        ),
    }
}

impl Error {
    /// A stable code: the server's error code and `indexer ask --format json`'s.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Config(_) => "llm_config",
            Error::Template { .. } => "llm_template",
            Error::Unreachable { .. } => "llm_unreachable",
            Error::TimedOut { .. } => "llm_timeout",
            Error::Unauthorized { .. } => "llm_unauthorized",
            Error::ModelNotFound { .. } => "llm_model_not_found",
            Error::NoModel { .. } => "llm_no_model",
            Error::NotFound { .. } => "llm_endpoint_not_found",
            Error::ContextTooSmall { .. } => "llm_context_too_small",
            Error::ImagesRefused { .. } => "llm_images_refused",
            Error::Server { .. } => "llm_error",
            Error::Protocol(_) => "llm_protocol",
            Error::Cancelled => "cancelled",
        }
    }

    /// Whether the caller can fix it (a setting, the template), as against the server failing.
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            Error::Config(_) | Error::Template { .. } | Error::ContextTooSmall { .. }
        )
    }
}

impl Hint for Error {
    fn hint(&self) -> Option<String> {
        Some(match self {
            Error::Config(_) => {
                "set the model server with --llm-url, INDEXER_LLM_URL or llm_url in indexer.toml (for example http://127.0.0.1:8080/v1)".into()
            }
            Error::Template { .. } => {
                "the template needs {{question}} and {{evidence}}; a line `---` may separate a system message above from the user message below".into()
            }
            Error::Unreachable { .. } => {
                "is the model server running at that address? Start it, or point --llm-url / INDEXER_LLM_URL at it".into()
            }
            Error::TimedOut { .. } => {
                "the server may be busy or the model slow: raise --llm-timeout, lower --max-tokens, or send less evidence (--budget)".into()
            }
            Error::Unauthorized {
                key_env, key_set, ..
            } => {
                if *key_set {
                    format!("the key in {key_env} was refused: check it, and that it may use this model")
                } else {
                    format!("set the server's API key in the environment variable {key_env}")
                }
            }
            Error::ModelNotFound { served, .. } => match served.first() {
                Some(m) => format!("name a served model with --llm-model, for example --llm-model {m}"),
                None => "check the model's name with the server's documentation".into(),
            },
            Error::NoModel { .. } => "name the model with --llm-model".into(),
            Error::NotFound { .. } => {
                "--llm-url is the API's base URL, usually ending in /v1 (requests go to URL/chat/completions)".into()
            }
            Error::ContextTooSmall { .. } => {
                "lower --max-tokens, send fewer notes (--budget), or use a model (or server setting) with a larger context window".into()
            }
            Error::ImagesRefused { .. } => {
                "the model may not read images: use --images auto (send again without them) or --images never".into()
            }
            Error::Server { .. } | Error::Protocol(_) | Error::Cancelled => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unauthorized_hint_names_the_variable_never_the_key() {
        let e = Error::Unauthorized {
            url: "http://127.0.0.1:1/v1".into(),
            status: 401,
            message: "Invalid API key".into(),
            key_env: "MY_KEY".into(),
            key_set: false,
        };
        assert_eq!(e.code(), "llm_unauthorized");
        assert!(e.hint().unwrap().contains("MY_KEY"));
    }

    #[test]
    fn model_not_found_lists_what_is_served() {
        let served: Vec<String> = (0..10).map(|i| format!("m{i}")).collect();
        let e = Error::ModelNotFound {
            url: "u".into(),
            model: "nope".into(),
            served,
        };
        let s = e.to_string();
        assert!(
            s.contains("\"nope\"") && s.contains("m0, m1") && s.ends_with("m7, ..."),
            "{s}"
        );
        assert!(e.hint().unwrap().contains("--llm-model m0"));
    }
}
