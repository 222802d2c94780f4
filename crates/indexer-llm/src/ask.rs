//! One question answered: the model resolved, the request built, sent again with less
//! evidence when it does not fit the context window (or without images when the server refuses
//! them), the answer streamed, its citations checked.

use crate::answer::{Answer, LlmEvent, LlmTimings};
use crate::client::{Refusal, Streamed};
use crate::config::{Images, Llm};
use crate::prompt::Evidence;
use crate::{Error, Result, parse_citations};
use serde_json::{Value, json};
use std::ops::ControlFlow;
use std::time::Instant;

/// Tokens kept free beside the estimate of the prompt when evidence is cut to fit.
const CONTEXT_MARGIN: u32 = 32;

impl Llm {
    /// The chat-completions request body for a question and its evidence, as it would be sent
    /// to `model` (images as the configuration says, crops as data URLs).
    pub fn request_body(&self, model: &str, question: &str, evidence: &[Evidence]) -> Value {
        self.body(model, question, evidence, self.cfg.images != Images::Never)
            .0
    }

    fn body(
        &self,
        model: &str,
        question: &str,
        evidence: &[Evidence],
        images: bool,
    ) -> (Value, crate::prompt::ImagesAttached) {
        let (messages, attached) = self.cfg.template.messages(question, evidence, images);
        let mut body = json!({
            "model": model,
            "messages": messages,
            "max_tokens": self.cfg.max_tokens,
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        if let Value::Object(fields) = &mut body {
            for (k, v) in &self.cfg.options {
                fields.insert(k.clone(), v.clone());
            }
        }
        (body, attached)
    }

    /// The model this client will ask (see [`Llm::ask`]).
    pub fn model(&self) -> Result<String> {
        self.resolve_model()
    }

    /// Answers `question` from `evidence` (numbered from 1, most relevant first), streaming
    /// events to `on_event`. When the server says the prompt does not fit its context window,
    /// the evidence is cut from the end (by the server's token counts when it gives them, else
    /// by half) and sent again; when it refuses images under [`Images::Auto`], it is sent again
    /// without them. Both are said in notices.
    pub fn ask(
        &self,
        question: &str,
        evidence: &[Evidence],
        on_event: &mut dyn FnMut(LlmEvent<'_>) -> ControlFlow<()>,
    ) -> Result<Answer> {
        let t0 = Instant::now();
        let model = self.resolve_model()?;
        let mut notices: Vec<String> = Vec::new();
        let mut keep = evidence.len();
        let mut images = self.cfg.images != Images::Never;
        let mut first_token_ms: Option<f64> = None;
        loop {
            let (body, attached) = self.body(&model, question, &evidence[..keep], images);
            for u in &attached.unreadable {
                let n = format!("a crop could not be read and was not sent: {u}");
                if !notices.contains(&n) {
                    if on_event(LlmEvent::Notice(&n)).is_break() {
                        return Err(Error::Cancelled);
                    }
                    notices.push(n);
                }
            }
            let images_sent = attached.sent;
            let outcome = self.chat(&body, &mut |s| match s {
                Streamed::Accepted => on_event(LlmEvent::Accepted {
                    evidence: keep,
                    images: images_sent,
                }),
                Streamed::Delta(t) => {
                    first_token_ms.get_or_insert_with(|| t0.elapsed().as_secs_f64() * 1e3);
                    on_event(LlmEvent::Delta(t))
                }
            })?;
            match outcome {
                Ok(done) => {
                    let citations = parse_citations(&done.text, keep);
                    return Ok(Answer {
                        model: done.model.unwrap_or(model),
                        citations,
                        evidence_sent: keep,
                        images_sent,
                        notices,
                        usage: done.usage,
                        finish_reason: done.finish_reason,
                        timings: LlmTimings {
                            first_token_ms,
                            total_ms: t0.elapsed().as_secs_f64() * 1e3,
                        },
                        text: done.text,
                    });
                }
                Err(Refusal::Status { status, message }) if images_sent > 0 => {
                    if self.cfg.images == Images::Always {
                        return Err(Error::ImagesRefused { status, message });
                    }
                    images = false;
                    let n = format!(
                        "the model server refused the request with images ({status}: {message}); sent again without them"
                    );
                    if on_event(LlmEvent::Notice(&n)).is_break() {
                        return Err(Error::Cancelled);
                    }
                    notices.push(n);
                }
                Err(Refusal::Status { status, message }) => {
                    return Err(Error::Server { status, message });
                }
                Err(Refusal::Context { context, requested }) => {
                    let blocks: Vec<usize> = evidence[..keep]
                        .iter()
                        .map(|e| e.block().len() + 2)
                        .collect();
                    let fixed = self.body(&model, question, &[], false).0.to_string().len();
                    let fit = fitting(&blocks, fixed, context, requested, self.cfg.max_tokens);
                    if fit == 0 {
                        return Err(Error::ContextTooSmall {
                            context,
                            max_tokens: self.cfg.max_tokens,
                        });
                    }
                    let n = match context {
                        Some(c) => format!(
                            "the evidence did not fit the model's context window ({c} tokens): sent the first {fit} of {keep} notes"
                        ),
                        None => format!(
                            "the evidence did not fit the model's context window: sent the first {fit} of {keep} notes"
                        ),
                    };
                    if on_event(LlmEvent::Notice(&n)).is_break() {
                        return Err(Error::Cancelled);
                    }
                    notices.push(n);
                    keep = fit;
                }
            }
        }
    }
}

/// How many of the evidence blocks (their lengths in bytes, most relevant first) to keep after
/// the server said the prompt does not fit. With the server's figures (its context window and
/// the tokens the request asked for, answer included), the prompt's tokens per byte are
/// estimated from the request that failed and the blocks are kept while the estimate, plus the
/// answer's length and a margin, fits; without them, half. Always fewer than before.
fn fitting(
    blocks: &[usize],
    fixed: usize,
    context: Option<u32>,
    requested: Option<u32>,
    max_tokens: u32,
) -> usize {
    let n = blocks.len();
    if n == 0 {
        return 0;
    }
    let (Some(context), Some(requested)) = (context, requested) else {
        return n / 2;
    };
    let total_bytes = (fixed + blocks.iter().sum::<usize>()) as f64;
    let prompt_tokens = requested.saturating_sub(max_tokens).max(1) as f64;
    let per_byte = prompt_tokens / total_bytes.max(1.0);
    let room = context.saturating_sub(max_tokens + CONTEXT_MARGIN) as f64;
    let mut used = fixed as f64 * per_byte;
    let mut keep = 0;
    for b in blocks {
        used += *b as f64 * per_byte;
        if used > room {
            break;
        }
        keep += 1;
    }
    keep.min(n - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LlmConfig;

    #[test]
    fn request_body_has_the_protocol_fields_and_the_options() {
        let mut cfg = LlmConfig::new("http://127.0.0.1:1/v1");
        cfg.max_tokens = 77;
        cfg.options.insert("temperature".into(), 0.into());
        let llm = Llm::new(cfg).unwrap();
        let b = llm.request_body("m", "q?", &[Evidence::text(1, "d", Some(2), "t")]);
        assert_eq!(b["model"], "m");
        assert_eq!(b["max_tokens"], 77);
        assert_eq!(b["stream"], true);
        assert_eq!(b["temperature"], 0);
        assert_eq!(b["messages"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn fitting_keeps_what_the_estimate_allows() {
        // 10 blocks of 400 bytes and 200 fixed: 4,200 bytes were 1,050 prompt tokens (0.25 a
        // byte). A window of 600 with 100 for the answer and the margin leaves 468 tokens:
        // 50 fixed + 100 a block -> 4 blocks.
        let blocks = [400; 10];
        assert_eq!(fitting(&blocks, 200, Some(600), Some(1150), 100), 4);
        // Room for none: 0, the caller's "too small".
        assert_eq!(fitting(&blocks, 200, Some(150), Some(1150), 100), 0);
        // The estimate says all fit (the server counted differently): still one fewer.
        assert_eq!(fitting(&blocks, 200, Some(100_000), Some(1150), 100), 9);
        // No figures: half.
        assert_eq!(fitting(&blocks, 200, None, None, 100), 5);
        assert_eq!(fitting(&[400], 200, None, None, 100), 0);
        assert_eq!(fitting(&[], 200, Some(10), Some(20), 1), 0);
    }
}
