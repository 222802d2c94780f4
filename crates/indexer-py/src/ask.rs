//! `Index.ask`: the evidence set read by a model server, the answer streamed. The model server
//! is asked on a thread of its own; the Python iterator takes its pieces from a channel,
//! without holding the GIL while it waits. Dropping or closing the stream stops the answer.

use crate::errors;
use crate::types::{Answer, Hit};
use indexer_engine::{AskEvent, Engine, Llm, SearchResponse};
use indexer_mcp::Failure;
use pyo3::exceptions::PyStopIteration;
use pyo3::prelude::*;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

enum Msg {
    Notice(String),
    Started(Vec<Hit>),
    Delta(String),
    Done(Box<Answer>),
    Failed(Failure),
}

/// How often a waiting iterator looks for Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// The answer to a question, as it arrives: iterating yields the answer's text piece by piece;
/// `result()` waits for the end and returns the `Answer` (text, citations, evidence).
#[pyclass(frozen, module = "indexer")]
pub struct AskStream {
    rx: Mutex<Option<Receiver<Msg>>>,
    /// Set by `close()`, which may be called from another thread while one waits.
    closed: AtomicBool,
    state: Mutex<State>,
}

impl std::fmt::Debug for AskStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AskStream")
            .field("closed", &self.closed.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct State {
    notices: Vec<String>,
    evidence: Vec<Hit>,
    answer: Option<Answer>,
    failure: Option<Failure>,
}

impl AskStream {
    /// Starts answering from `search`'s evidence on a new thread.
    pub fn start(engine: Arc<Engine>, llm: Llm, search: SearchResponse) -> AskStream {
        let view = engine.view();
        let evidence = search.hits.iter().map(|h| Hit::of(&view, h)).collect();
        // A small bound: a reader that stops reading holds the model server back a little,
        // not the whole answer in memory.
        let (tx, rx) = std::sync::mpsc::sync_channel(64);
        std::thread::Builder::new()
            .name("indexer-ask".into())
            .spawn(move || answer(&engine, &llm, search, &tx))
            .expect("start the thread of ask");
        AskStream {
            rx: Mutex::new(Some(rx)),
            closed: AtomicBool::new(false),
            state: Mutex::new(State {
                evidence,
                ..State::default()
            }),
        }
    }

    /// The next message, waiting without the GIL; `None` once the stream has ended.
    fn next_msg(&self, py: Python<'_>) -> PyResult<Option<Msg>> {
        let mut guard = self.rx.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if self.closed.load(Ordering::SeqCst) {
                *guard = None;
            }
            // A receiver is not shared between threads: it is moved out while waiting.
            let Some(rx) = guard.take() else {
                return Ok(None);
            };
            let (rx, got) = py.detach(move || {
                let got = rx.recv_timeout(SIGNAL_CHECK);
                (rx, got)
            });
            *guard = Some(rx);
            match got {
                Ok(m) => return Ok(Some(m)),
                Err(RecvTimeoutError::Timeout) => py.check_signals()?,
                Err(RecvTimeoutError::Disconnected) => return Ok(None),
            }
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next piece of text; `None` at the end. A failure is raised once.
    fn next_text(&self, py: Python<'_>) -> PyResult<Option<String>> {
        loop {
            let Some(msg) = self.next_msg(py)? else {
                return Ok(None);
            };
            match msg {
                Msg::Notice(n) => self.state().notices.push(n),
                Msg::Started(hits) => self.state().evidence = hits,
                Msg::Delta(t) => return Ok(Some(t)),
                Msg::Done(a) => {
                    self.end();
                    self.state().answer = Some(*a);
                    return Ok(None);
                }
                Msg::Failed(f) => {
                    self.end();
                    self.state().failure = Some(f.clone());
                    return Err(errors::to_py(f));
                }
            }
        }
    }

    fn end(&self) {
        *self.rx.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

#[pymethods]
impl AskStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<String> {
        match self.next_text(py)? {
            Some(t) => Ok(t),
            None => Err(PyStopIteration::new_err(())),
        }
    }

    /// Waits for the end of the answer (reading what is left) and returns it.
    fn result(&self, py: Python<'_>) -> PyResult<Answer> {
        while self.next_text(py)?.is_some() {}
        let s = self.state();
        if let Some(a) = &s.answer {
            return Ok(a.clone());
        }
        Err(errors::to_py(s.failure.clone().unwrap_or_else(|| {
            Failure::from(indexer_engine::Error::Llm(
                indexer_engine::LlmError::Cancelled,
            ))
        })))
    }

    /// Stops the answer: the connection to the model server is closed.
    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        // Dropped here unless another thread is waiting on it, which drops it itself.
        if let Ok(mut rx) = self.rx.try_lock() {
            *rx = None;
        }
    }

    /// The evidence sent to the model (the search's evidence set until the model server has
    /// taken the request; it may cut it to fit its context window).
    #[getter]
    fn evidence(&self) -> Vec<Hit> {
        self.state().evidence.clone()
    }

    /// What was changed to get an answer (evidence cut to fit, images dropped), so far.
    #[getter]
    fn notices(&self) -> Vec<String> {
        self.state().notices.clone()
    }
}

/// The thread's work: the answer, its pieces sent as they come; a reader that went away stops
/// it.
fn answer(engine: &Engine, llm: &Llm, search: SearchResponse, tx: &SyncSender<Msg>) {
    let view = engine.view();
    let sent = |m: Msg| match tx.send(m) {
        Ok(()) => ControlFlow::Continue(()),
        Err(_) => ControlFlow::Break(()),
    };
    let r = indexer_engine::answer(search, llm, &mut |e| match e {
        AskEvent::Notice(n) => sent(Msg::Notice(n.to_string())),
        AskEvent::Started { evidence, .. } => sent(Msg::Started(
            evidence.iter().map(|h| Hit::of(&view, h)).collect(),
        )),
        AskEvent::Delta(t) => sent(Msg::Delta(t.to_string())),
    });
    let _ = tx.send(match r {
        Ok(r) => Msg::Done(Box::new(Answer::of(&view, &r))),
        Err(e) => Msg::Failed(Failure::from(e)),
    });
}
