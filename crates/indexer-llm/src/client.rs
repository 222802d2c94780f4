//! The HTTP side: `GET {url}/models` and a streamed `POST {url}/chat/completions`, with every
//! failure mapped to an [`Error`] that says what happened.

use crate::answer::Usage;
use crate::config::{API_KEY_ENV, Llm};
use crate::{Error, Result};
use serde::Deserialize;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::ops::ControlFlow;

/// A completed (streamed or not) chat completion.
#[derive(Debug, Default)]
pub(crate) struct Completion {
    pub text: String,
    pub model: Option<String>,
    pub finish_reason: Option<String>,
    pub usage: Option<Usage>,
}

/// What a streamed request reports as it goes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Streamed<'a> {
    /// The server took the request (a 200); the answer follows.
    Accepted,
    Delta(&'a str),
}

/// How a request failed before any of the answer arrived, with what the server said: the
/// caller decides whether to send again (less evidence, no images).
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The prompt does not fit: the context window and the tokens asked for, when the
    /// server's message gives them.
    Context {
        context: Option<u32>,
        requested: Option<u32>,
    },
    /// Any other error status, with the server's message.
    Status { status: u16, message: String },
}

impl Llm {
    fn auth(
        &self,
        req: ureq::RequestBuilder<ureq::typestate::WithoutBody>,
    ) -> ureq::RequestBuilder<ureq::typestate::WithoutBody> {
        match &self.cfg.api_key {
            Some(k) => req.header("Authorization", format!("Bearer {}", k.expose())),
            None => req,
        }
    }

    fn auth_body(
        &self,
        req: ureq::RequestBuilder<ureq::typestate::WithBody>,
    ) -> ureq::RequestBuilder<ureq::typestate::WithBody> {
        match &self.cfg.api_key {
            Some(k) => req.header("Authorization", format!("Bearer {}", k.expose())),
            None => req,
        }
    }

    fn transport(&self, e: ureq::Error) -> Error {
        match e {
            ureq::Error::Timeout(_) => Error::TimedOut {
                url: self.base.clone(),
                after: self.cfg.timeout,
            },
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => Error::TimedOut {
                url: self.base.clone(),
                after: self.cfg.timeout,
            },
            other => Error::Unreachable {
                url: self.base.clone(),
                message: other.to_string(),
            },
        }
    }

    fn unauthorized(&self, status: u16, message: String) -> Error {
        Error::Unauthorized {
            url: self.base.clone(),
            status,
            message,
            key_env: self.key_env().to_string(),
            key_set: self.cfg.api_key.is_some(),
        }
    }

    /// The variable the key is read from (for hints).
    fn key_env(&self) -> &str {
        self.cfg.key_env.as_deref().unwrap_or(API_KEY_ENV)
    }

    /// The model to ask: the configured one, checked against the server's list when the server
    /// gives one (llama.cpp's server answers any name with its one model, so a wrong name would
    /// otherwise pass unnoticed), else the first model listed.
    pub(crate) fn resolve_model(&self) -> Result<String> {
        let listed = self.list_models()?;
        match (&self.cfg.model, listed) {
            (Some(m), Some(served)) if !served.is_empty() && !served.contains(m) => {
                Err(Error::ModelNotFound {
                    url: self.base.clone(),
                    model: m.clone(),
                    served,
                })
            }
            (Some(m), _) => Ok(m.clone()),
            (None, Some(served)) => served.into_iter().next().ok_or_else(|| Error::NoModel {
                url: self.base.clone(),
            }),
            (None, None) => Err(Error::NoModel {
                url: self.base.clone(),
            }),
        }
    }

    /// The model ids of `GET {url}/models`; `None` when the server has no such list (the
    /// route is missing or the answer is not one).
    fn list_models(&self) -> Result<Option<Vec<String>>> {
        #[derive(Deserialize)]
        struct List {
            data: Vec<Model>,
        }
        #[derive(Deserialize)]
        struct Model {
            id: String,
        }
        let resp = self
            .auth(self.agent.get(format!("{}/models", self.base)))
            .call()
            .map_err(|e| self.transport(e))?;
        let status = resp.status().as_u16();
        let body = resp
            .into_body()
            .read_to_string()
            .map_err(|e| self.transport(e))?;
        match status {
            200 => Ok(serde_json::from_str::<List>(&body)
                .ok()
                .map(|l| l.data.into_iter().map(|m| m.id).collect())),
            401 | 403 => Err(self.unauthorized(status, server_message(&body))),
            // No list here and no model named: most likely a base URL without its `/v1`.
            404 if self.cfg.model.is_none() => Err(Error::NotFound {
                url: self.base.clone(),
                message: format!("GET {}/models: {}", self.base, server_message(&body)),
            }),
            _ => Ok(None),
        }
    }

    /// Sends one chat-completions request and streams the answer's text to `on_delta`. A
    /// refusal before the answer starts is returned as such (the caller may send again);
    /// `Ok(Ok(_))` is a completed answer.
    pub(crate) fn chat(
        &self,
        request: &Value,
        on: &mut dyn FnMut(Streamed<'_>) -> ControlFlow<()>,
    ) -> Result<std::result::Result<Completion, Refusal>> {
        let bytes = serde_json::to_vec(request).map_err(|e| Error::Protocol(e.to_string()))?;
        let resp = self
            .auth_body(self.agent.post(format!("{}/chat/completions", self.base)))
            .header("Content-Type", "application/json")
            .header("Accept", "text/event-stream, application/json")
            .send(&bytes[..])
            .map_err(|e| self.transport(e))?;
        let status = resp.status().as_u16();
        let content_type = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let mut body = resp.into_body();
        if status != 200 {
            let text = body.read_to_string().map_err(|e| self.transport(e))?;
            let message = server_message(&text);
            return match status {
                401 | 403 => Err(self.unauthorized(status, message)),
                404 if mentions_model(&message) => Err(Error::ModelNotFound {
                    url: self.base.clone(),
                    model: body_model(body_json_model(&text), &message),
                    served: Vec::new(),
                }),
                404 => Err(Error::NotFound {
                    url: self.base.clone(),
                    message,
                }),
                _ if is_context_error(&text) => Ok(Err(Refusal::Context {
                    context: number_after(&message, "context length is")
                        .or_else(|| number_after(&message, "context window of")),
                    requested: number_after(&message, "you requested")
                        .or_else(|| number_after(&message, "requested tokens (")),
                })),
                _ => Ok(Err(Refusal::Status { status, message })),
            };
        }
        let mut done = Completion::default();
        if !content_type.starts_with("text/event-stream") {
            // A server that ignored `stream`: one JSON completion.
            let text = body.read_to_string().map_err(|e| self.transport(e))?;
            let v: Value = serde_json::from_str(&text)
                .map_err(|e| Error::Protocol(format!("{e}: {}", clip(&text))))?;
            let content = v["choices"][0]["message"]["content"]
                .as_str()
                .ok_or_else(|| {
                    Error::Protocol(format!("no choices[0].message.content in {}", clip(&text)))
                })?;
            if on(Streamed::Accepted).is_break() || on(Streamed::Delta(content)).is_break() {
                return Err(Error::Cancelled);
            }
            done.text = content.to_string();
            done.model = v["model"].as_str().map(str::to_string);
            done.finish_reason = v["choices"][0]["finish_reason"]
                .as_str()
                .map(str::to_string);
            done.usage = serde_json::from_value(v["usage"].clone()).ok();
            return Ok(Ok(done));
        }
        // `Accepted` waits for the first piece of the answer: a server may take a request with
        // a 200 and then fail on it inside the stream (llama.cpp's Python server does, on
        // images for a text-only model), which is a refusal the caller can still act on.
        let mut accepted = false;
        let mut finished = false;
        let reader = BufReader::new(body.as_reader());
        for line in reader.lines() {
            let line = line.map_err(|e| {
                if e.kind() == std::io::ErrorKind::TimedOut
                    || e.to_string().to_ascii_lowercase().contains("timeout")
                {
                    Error::TimedOut {
                        url: self.base.clone(),
                        after: self.cfg.timeout,
                    }
                } else {
                    Error::Unreachable {
                        url: self.base.clone(),
                        message: format!("the answer broke off: {e}"),
                    }
                }
            })?;
            let Some(data) = line.strip_prefix("data:") else {
                continue;
            };
            let data = data.trim();
            if data == "[DONE]" {
                finished = true;
                break;
            }
            let v: Value = serde_json::from_str(data)
                .map_err(|e| Error::Protocol(format!("{e}: {}", clip(data))))?;
            if v.get("error").is_some() {
                return Err(Error::Server {
                    status,
                    message: server_message(data),
                });
            }
            if done.model.is_none() {
                done.model = v["model"].as_str().map(str::to_string);
            }
            if let Ok(u) = serde_json::from_value::<Usage>(v["usage"].clone()) {
                done.usage = Some(u);
            }
            let choice = &v["choices"][0];
            if let Some(r) = choice["finish_reason"].as_str() {
                done.finish_reason = Some(r.to_string());
            }
            if let Some(t) = choice["delta"]["content"].as_str()
                && !t.is_empty()
            {
                if !accepted {
                    accepted = true;
                    if on(Streamed::Accepted).is_break() {
                        return Err(Error::Cancelled);
                    }
                }
                if on(Streamed::Delta(t)).is_break() {
                    // Dropping the response closes the connection: the server stops.
                    return Err(Error::Cancelled);
                }
                done.text.push_str(t);
            }
        }
        let ended = finished || done.finish_reason.is_some();
        match (accepted, ended) {
            (true, true) => Ok(Ok(done)),
            (false, true) => {
                // An empty answer, complete.
                if on(Streamed::Accepted).is_break() {
                    return Err(Error::Cancelled);
                }
                Ok(Ok(done))
            }
            (false, false) if request["stream"] == true => {
                // The server failed inside the stream before its first token and said nothing
                // (llama.cpp's Python server does, for a prompt over its context window or
                // images for a text-only model). The same request without streaming gets its
                // error as a status and a message, or the answer at once.
                let mut once = request.clone();
                once["stream"] = Value::Bool(false);
                if let Some(fields) = once.as_object_mut() {
                    fields.remove("stream_options");
                }
                self.chat(&once, on)
            }
            (false, false) => Ok(Err(Refusal::Status {
                status,
                message: "the answer ended before it began: the server failed on the request"
                    .into(),
            })),
            (true, false) => Err(Error::Unreachable {
                url: self.base.clone(),
                message: "the answer broke off before its end".into(),
            }),
        }
    }
}

/// The message of an error body: `error.message`, `error` as a string, `message`, or the text.
pub(crate) fn server_message(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        for m in [
            &v["error"]["message"],
            &v["error"],
            &v["message"],
            &v["detail"],
        ] {
            if let Some(s) = m.as_str() {
                return s.to_string();
            }
        }
    }
    let t = body.trim();
    if t.is_empty() {
        "(no message)".into()
    } else {
        clip(t)
    }
}

fn body_json_model(body: &str) -> Option<String> {
    serde_json::from_str::<Value>(body).ok()?["error"]["param"]
        .as_str()
        .filter(|p| *p != "model")
        .map(str::to_string)
}

fn body_model(param: Option<String>, message: &str) -> String {
    param
        .or_else(|| {
            // `model "x" not found` (Ollama), `The model `x` does not exist` (OpenAI).
            let start = message.find(['"', '`', '\''])?;
            let rest = &message[start + 1..];
            let end = rest.find(['"', '`', '\''])?;
            Some(rest[..end].to_string())
        })
        .unwrap_or_default()
}

fn mentions_model(message: &str) -> bool {
    message.to_ascii_lowercase().contains("model")
}

fn is_context_error(body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    b.contains("context_length_exceeded")
        || b.contains("maximum context length")
        || b.contains("exceed context window")
        || b.contains("context window")
}

/// The first number after `key` in `text` (case-insensitive).
pub(crate) fn number_after(text: &str, key: &str) -> Option<u32> {
    let lower = text.to_ascii_lowercase();
    let at = lower.find(&key.to_ascii_lowercase())? + key.len();
    let digits: String = lower[at..]
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

fn clip(s: &str) -> String {
    match s.char_indices().nth(300) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_of_context_messages() {
        let openai = "This model's maximum context length is 2048 tokens. However, you requested 3034 tokens (3031 in the messages, 3 in the completion).";
        assert_eq!(number_after(openai, "context length is"), Some(2048));
        assert_eq!(number_after(openai, "you requested"), Some(3034));
        let llama = "Requested tokens (4100) exceed context window of 4096";
        assert_eq!(number_after(llama, "context window of"), Some(4096));
        assert_eq!(number_after(llama, "requested tokens ("), Some(4100));
        assert!(is_context_error(llama) && is_context_error(openai));
        assert_eq!(number_after("no numbers", "context length is"), None);
    }

    #[test]
    fn messages_of_error_bodies() {
        assert_eq!(
            server_message(r#"{"error":{"message":"bad key"}}"#),
            "bad key"
        );
        assert_eq!(
            server_message(r#"{"error":"model \"x\" not found"}"#),
            "model \"x\" not found"
        );
        assert_eq!(server_message(r#"{"detail":"Not Found"}"#), "Not Found");
        assert_eq!(server_message("  "), "(no message)");
        assert_eq!(
            body_model(None, "model \"llama9\" not found, try pulling it first"),
            "llama9"
        );
        assert_eq!(
            body_model(None, "The model `gpt-9` does not exist"),
            "gpt-9"
        );
    }
}
