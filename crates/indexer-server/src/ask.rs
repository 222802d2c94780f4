//! `POST /ask`: the evidence set of a search, read by the configured model server, streamed as
//! server-sent events.
//!
//! The body is a search (as `POST /search` takes it; `fields` shapes the evidence hits,
//! `group` does not apply). Errors before the model server takes the request are ordinary
//! error answers (`404 ask_disabled`, `502 llm_unreachable`, `504 llm_timeout`, ...); after it,
//! the stream is:
//!
//! - `notice`: `{"message"}` (evidence cut to fit the model's context window, images dropped),
//!   before `evidence`;
//! - `evidence`: `{"evidence": [hit...], "images"}`, the notes sent, `[n]` being the hit of
//!   rank n;
//! - `delta`: `{"text"}`, the answer as it arrives;
//! - `done`: `{"answer", "citations", "unknown_citations", "model", "usage",
//!   "finish_reason", "notices", "timings"}`;
//! - `error`: the error body (`message, code, type, link`) if the answer breaks off.

use crate::error::ApiError;
use crate::request::search_body;
use crate::response::{Hit, HitFields};
use crate::state::{Shared, blocking, search_turn};
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use indexer_engine::{AskEvent, AskTimings, Citation, Usage};
use serde::Serialize;
use std::convert::Infallible;
use std::ops::ControlFlow;

/// The `evidence` event.
#[derive(Debug, Serialize)]
struct EvidenceEvent {
    evidence: Vec<Hit>,
    images: usize,
}

/// The `done` event.
#[derive(Debug, Serialize)]
struct DoneEvent {
    answer: String,
    citations: Vec<Citation>,
    unknown_citations: Vec<usize>,
    model: String,
    usage: Option<Usage>,
    finish_reason: Option<String>,
    notices: Vec<String>,
    timings: AskTimings,
}

/// What the answering thread sends the response.
enum Msg {
    /// An event before the model server took the request (a notice).
    Early(Event),
    /// The model server took the request: the `evidence` event.
    Started(Event),
    /// An event of the answer.
    Event(Event),
    /// The answer failed.
    Failed(ApiError),
}

fn event(name: &str, data: &impl Serialize) -> Event {
    Event::default()
        .event(name)
        .data(serde_json::to_string(data).unwrap_or_default())
}

/// `POST /ask`.
pub(crate) async fn ask(
    State(st): State<Shared>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let Some(llm) = st.cfg.llm.clone() else {
        let mut e = ApiError::not_found("ask_disabled", "this server has no model server for /ask");
        e.hint =
            Some("start indexer serve with --llm-url (or INDEXER_LLM_URL) to turn /ask on".into());
        return Err(e);
    };
    let search = search_body(&st.cfg, body)?;
    if search.group.is_some() {
        return Err(ApiError::bad_request(
            "group_not_supported",
            "group does not apply to /ask: the evidence is a set of notes",
        ));
    }
    let fields = search.fields;
    let req = search.req;
    // The search holds a turn in the queue; the model's answer does not.
    let found = {
        let _turn = search_turn(&st).await?;
        blocking(&st, move |st| Ok(st.engine.search(&req)?)).await?
    };
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Msg>(64);
    let state = st.clone();
    tokio::task::spawn_blocking(move || answer(state, llm, found, fields, tx));
    let mut early = Vec::new();
    loop {
        match rx.recv().await {
            Some(Msg::Failed(e)) => return Err(e),
            Some(Msg::Early(ev)) => early.push(ev),
            Some(Msg::Started(ev)) | Some(Msg::Event(ev)) => {
                early.push(ev);
                break;
            }
            None => return Err(ApiError::internal("the answer stopped without a word")),
        }
    }
    let rest = futures_util::stream::unfold(rx, |mut rx| async move {
        let ev = match rx.recv().await? {
            Msg::Early(ev) | Msg::Started(ev) | Msg::Event(ev) => ev,
            Msg::Failed(e) => Event::default().event("error").data(e.body_json()),
        };
        Some((ev, rx))
    });
    let stream = futures_util::stream::iter(early)
        .chain(rest)
        .map(Ok::<_, Infallible>);
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response())
}

/// Runs on a blocking thread: the model server's answer, as messages. A closed channel (the
/// client went away) stops the answer.
fn answer(
    st: Shared,
    llm: std::sync::Arc<indexer_engine::Llm>,
    found: indexer_engine::SearchResponse,
    fields: HitFields,
    tx: tokio::sync::mpsc::Sender<Msg>,
) {
    let links = st.cfg.links();
    let send = |m: Msg| {
        if tx.blocking_send(m).is_ok() {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(())
        }
    };
    let result = indexer_engine::answer(found, &llm, &mut |e| match e {
        AskEvent::Notice(n) => send(Msg::Early(event(
            "notice",
            &serde_json::json!({"message": n}),
        ))),
        AskEvent::Started { evidence, images } => {
            let evidence = evidence
                .iter()
                .map(|h| Hit::new(h.clone(), &st.engine, &links, fields))
                .collect();
            send(Msg::Started(event(
                "evidence",
                &EvidenceEvent { evidence, images },
            )))
        }
        AskEvent::Delta(t) => send(Msg::Event(event("delta", &serde_json::json!({"text": t})))),
    });
    let last = match result {
        Ok(r) => Msg::Event(event(
            "done",
            &DoneEvent {
                answer: r.answer,
                citations: r.citations,
                unknown_citations: r.unknown_citations,
                model: r.model,
                usage: r.usage,
                finish_reason: r.finish_reason,
                notices: r.notices,
                timings: r.timings,
            },
        )),
        Err(indexer_engine::Error::Llm(indexer_engine::LlmError::Cancelled)) => return,
        Err(e) => Msg::Failed(ApiError::from(e)),
    };
    let _ = send(last);
}
