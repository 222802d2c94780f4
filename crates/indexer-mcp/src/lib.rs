//! `indexer mcp`: a Model Context Protocol server over stdio, so that an agent (Claude Desktop,
//! an IDE, the `mcp` Python client) searches an index as a tool.
//!
//! JSON-RPC 2.0, one message a line, on the caller's reader and writer (the binary gives it
//! stdin and stdout; stdout carries nothing else). The handshake era of the protocol:
//! `initialize` answers the version the client asks for when it is one of
//! [`PROTOCOL_VERSIONS`], else the newest. A client that first probes `server/discover` (the
//! stateless revision) is told the method is not found and falls back to `initialize`, as the
//! protocol says it should.
//!
//! - tools: `search` (the evidence set, or the best pages or documents, with the filters and
//!   selectors of `indexer query`), `ask` (the evidence read by the model server `indexer ask`
//!   is configured with; a tool error without one), `show` (a note whole), `list_documents`;
//! - resources: the crop image of a figure or table note, `indexer://crop/{note_id}` (the id
//!   percent-encoded), a base64 PNG read only from the index's crop folder
//!   ([`indexer_engine::IndexView::image_path`]).
//!
//! A failure of a tool (an unknown document, a bad page range, a model server that is down) is
//! a tool result with `isError` and the HTTP API's code and hint in it, which the model reads;
//! a malformed message, an unknown method or tool, or an unknown resource is a JSON-RPC error.
//! Requests are answered one at a time, in order.
//!
//! ```no_run
//! let rt = indexer_engine::Runtime::discover()?;
//! let engine = indexer_engine::Engine::open(std::path::Path::new(".indexer"), &rt)?;
//! indexer_mcp::serve_stdio(&engine, None)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod protocol;
mod resources;
mod shapes;
mod tools;
mod uri;

pub mod request;

pub use protocol::{PROTOCOL_VERSIONS, RpcError, codes};
pub use request::{Failure, FailureClass, Pages, RewriteArg, Search, SearchArgs, Unit};

use indexer_engine::{Engine, Llm};
use protocol::{error_response, write_message};
use serde_json::{Value, json};
use std::io::{BufRead, Write};

/// Serves `engine` over the process's stdin and stdout until stdin closes.
pub fn serve_stdio(engine: &Engine, llm: Option<&Llm>) -> std::io::Result<()> {
    run(
        engine,
        llm,
        std::io::stdin().lock(),
        std::io::stdout().lock(),
    )
}

/// Serves `engine` on one connection: reads messages from `input` until it ends, writes every
/// answer and notification to `output` (a line each, flushed). `llm` is the model server of the
/// `ask` tool. Errors are only those of reading and writing.
pub fn run(
    engine: &Engine,
    llm: Option<&Llm>,
    mut input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()> {
    let mut server = Server::new(engine, llm);
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        if line.trim().is_empty() {
            continue;
        }
        server.handle_line(&line, &mut output)?;
    }
}

/// One connection's state: the engine, the model server and the negotiated revision.
#[derive(Debug)]
pub struct Server<'a> {
    engine: &'a Engine,
    llm: Option<&'a Llm>,
    protocol: &'static str,
}

impl<'a> Server<'a> {
    pub fn new(engine: &'a Engine, llm: Option<&'a Llm>) -> Server<'a> {
        Server {
            engine,
            llm,
            protocol: PROTOCOL_VERSIONS[0],
        }
    }

    /// The revision agreed in `initialize` (the newest before it).
    pub fn protocol(&self) -> &'static str {
        self.protocol
    }

    /// Whether the revision has structured tool output, output schemas and resource links
    /// (2025-06-18 and later).
    fn structured(&self) -> bool {
        self.protocol >= "2025-06-18"
    }

    /// What a tool call needs of the connection.
    fn tool_context(&self) -> tools::Context<'a> {
        tools::Context {
            engine: self.engine,
            llm: self.llm,
            structured: self.structured(),
        }
    }

    /// Answers one line: a message or a batch of them. Answers go to `out`, as do the
    /// notifications sent while a request runs (the progress of `ask`).
    pub fn handle_line(&mut self, line: &str, out: &mut dyn Write) -> std::io::Result<()> {
        let msg: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                let err = RpcError::new(codes::PARSE_ERROR, format!("not JSON: {e}"));
                return write_message(out, &error_response(Value::Null, &err));
            }
        };
        match msg {
            // A batch (JSON-RPC 2.0; the 2025-03-26 revision of the protocol allows it).
            Value::Array(items) if !items.is_empty() => {
                let mut answers = Vec::new();
                for item in items {
                    if let Some(a) = self.handle_message(item, out)? {
                        answers.push(a);
                    }
                }
                if answers.is_empty() {
                    return Ok(());
                }
                write_message(out, &Value::Array(answers))
            }
            msg => match self.handle_message(msg, out)? {
                Some(answer) => write_message(out, &answer),
                None => Ok(()),
            },
        }
    }

    /// The answer to one message: `None` for a notification or a response (this server sends
    /// no requests, so a response is the client's mistake and is dropped).
    fn handle_message(
        &mut self,
        msg: Value,
        out: &mut dyn Write,
    ) -> std::io::Result<Option<Value>> {
        let Value::Object(mut m) = msg else {
            let err = RpcError::new(codes::INVALID_REQUEST, "a message is a JSON object");
            return Ok(Some(error_response(Value::Null, &err)));
        };
        let id = m.remove("id");
        let method = match m.remove("method") {
            Some(Value::String(s)) => s,
            None if m.contains_key("result") || m.contains_key("error") => return Ok(None),
            _ => {
                let err = RpcError::new(codes::INVALID_REQUEST, "a request has a method name");
                return Ok(Some(error_response(id.unwrap_or(Value::Null), &err)));
            }
        };
        if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            let err = RpcError::new(codes::INVALID_REQUEST, "jsonrpc must be \"2.0\"");
            return Ok(id.map(|id| error_response(id, &err)));
        }
        let params = m.remove("params").unwrap_or(Value::Null);
        let Some(id) = id else {
            // Notifications: initialized, cancelled (requests run one at a time and are
            // answered before the next is read, so there is nothing to cancel), roots.
            return Ok(None);
        };
        if !(id.is_string() || id.is_i64() || id.is_u64()) {
            let err = RpcError::new(
                codes::INVALID_REQUEST,
                "a request id is a string or an integer",
            );
            return Ok(Some(error_response(Value::Null, &err)));
        }
        let answer = match self.request(&method, &params, out) {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => error_response(id, &e),
        };
        Ok(Some(answer))
    }

    /// A request's result.
    fn request(
        &mut self,
        method: &str,
        params: &Value,
        out: &mut dyn Write,
    ) -> Result<Value, RpcError> {
        if !(params.is_object() || params.is_null()) {
            return Err(RpcError::new(
                codes::INVALID_PARAMS,
                "params must be an object",
            ));
        }
        match method {
            "initialize" => Ok(self.initialize(params)),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({"tools": tools::list(self.structured())})),
            "tools/call" => tools::call(&self.tool_context(), params, out),
            "resources/list" => resources::list(self.engine, params),
            "resources/templates/list" => Ok(json!({"resourceTemplates": resources::templates()})),
            "resources/read" => resources::read(self.engine, params),
            _ => Err(
                RpcError::new(codes::METHOD_NOT_FOUND, format!("no method {method:?}"))
                    .with_data(json!({"method": method})),
            ),
        }
    }

    fn initialize(&mut self, params: &Value) -> Value {
        let asked = params.get("protocolVersion").and_then(Value::as_str);
        self.protocol = PROTOCOL_VERSIONS
            .into_iter()
            .find(|v| Some(*v) == asked)
            .unwrap_or(PROTOCOL_VERSIONS[0]);
        json!({
            "protocolVersion": self.protocol,
            "capabilities": {
                "tools": {"listChanged": false},
                "resources": {"subscribe": false, "listChanged": false},
            },
            "serverInfo": {
                "name": "indexer",
                "title": "indexer",
                "version": env!("CARGO_PKG_VERSION"),
            },
            "instructions": instructions(self.engine, self.llm.is_some()),
        })
    }
}

/// What the model is told about this server when it connects.
fn instructions(engine: &Engine, ask: bool) -> String {
    let view = engine.view();
    let docs = view.documents().map(|d| d.len()).unwrap_or(0);
    let mut s = format!(
        "Searches an index of {docs} documents (PDFs, Markdown, HTML, text) made by indexer. \
         `search` returns a small evidence set of notes (text chunks, figures and tables with \
         their captions), each with its document and page; cite them by document and page. \
         Filter by document (`docs`, as `list_documents` names them), kind and pages. Figure \
         and table notes have a crop image, a resource to read by its URI. `show` gives a note \
         whole."
    );
    if ask {
        s.push_str(" `ask` answers a question from the evidence set, with citations.");
    }
    s
}
