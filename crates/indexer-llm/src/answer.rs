//! What a question's answer is made of: the [`LlmEvent`]s while it streams, and the finished
//! [`Answer`] with the server's token [`Usage`] and its [`LlmTimings`].

use crate::citations::Citations;
use serde::{Deserialize, Serialize};

/// What happens while a question is answered, in order: notices (evidence cut, images
/// dropped), then `Accepted` once the server has taken the request, then the answer's text
/// piece by piece. The receiver answers `ControlFlow::Break` to stop (the connection to the
/// server is closed, and `ask` returns [`Error::Cancelled`](crate::Error::Cancelled)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlmEvent<'a> {
    Notice(&'a str),
    /// The server took the request: the first `evidence` items were sent, with `images` crops.
    Accepted {
        evidence: usize,
        images: usize,
    },
    Delta(&'a str),
}

/// Token counts as the server reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
}

/// Where the time of an answer went, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LlmTimings {
    /// From the first request to the first token of the answer (with any requests sent again).
    pub first_token_ms: Option<f64>,
    pub total_ms: f64,
}

/// A finished answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Answer {
    pub text: String,
    /// The model that answered, as the server names it (else as asked).
    pub model: String,
    pub citations: Citations,
    /// How many of the evidence items were sent (the first ones; fewer when the context window
    /// was too small for all).
    pub evidence_sent: usize,
    pub images_sent: usize,
    /// What was changed to get an answer, said to the user.
    pub notices: Vec<String>,
    pub usage: Option<Usage>,
    /// `stop`, or `length` when the answer hit the maximum length.
    pub finish_reason: Option<String>,
    pub timings: LlmTimings,
}
