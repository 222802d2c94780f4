//! The tools: `search`, `ask`, `show`, `list_documents`. Each answers text for the model and,
//! from the 2025-06-18 revision on, the same as `structuredContent` under a declared output
//! schema. A failure is a result with `isError`, its text the HTTP API's code, message and hint.

use crate::protocol::{RpcError, codes, write_message};
use crate::request::{Failure, Pages, RewriteArg, SearchArgs, Unit};
use crate::shapes;
use crate::uri::crop_uri;
use indexer_engine::{AskEvent, Engine, Llm, SelectorKind};
use serde_json::{Map, Value, json};
use std::io::Write;
use std::ops::ControlFlow;

/// What a tool call needs of its connection.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub engine: &'a Engine,
    /// The model server of `ask`.
    pub llm: Option<&'a Llm>,
    /// Whether the agreed revision has structured output and resource links.
    pub structured: bool,
}

impl<'a> Context<'a> {
    fn engine(&self) -> &'a Engine {
        self.engine
    }

    fn llm(&self) -> Option<&'a Llm> {
        self.llm
    }

    fn structured(&self) -> bool {
        self.structured
    }
}

/// What a tool answers when it succeeds.
struct Output {
    text: String,
    structured: Value,
    /// Crops to link to (resource links, from 2025-06-18).
    links: Vec<(String, String)>,
}

/// The arguments `search` and `ask` share, as JSON schema properties.
fn search_properties(with_unit: bool) -> Value {
    let selectors: Vec<&str> = SelectorKind::ALL.iter().map(|k| k.as_str()).collect();
    let mut p = json!({
        "query": {"type": "string", "description": "The question or search words"},
        "budget": {"type": "integer", "minimum": 1, "description": "How many evidence notes (or pages, documents) to return; default 10"},
        "selector": {"type": "string", "examples": selectors, "description": format!("How the evidence set is chosen: one of {}, options as NAME:KEY=VALUE (fused-cap:cap=2); default fused-cap (the fused BM25 and vector order, at most one note a page before a second); cds for a relevant, non-redundant set", SelectorKind::names())},
        "docs": {"type": "array", "items": {"type": "string"}, "description": "Only these documents: ids as list_documents names them, or a unique end of one (lmer.pdf)"},
        "kinds": {"type": "array", "items": {"type": "string", "enum": ["text", "figure", "table"]}, "description": "Only these kinds of note"},
        "pages": {"type": ["string", "integer"], "description": "Only these pages: 5 or \"3-9\" (1-based)"},
        "rewrite": {"oneOf": [{"type": "boolean"}, {"type": "string"}, {"type": "array", "items": {"type": "string", "enum": ["instructions", "terms", "pages"]}}], "description": "The rewrite stage's rules: true (the default: terms and pages), all, false, or rules by name: instructions (closing instructions about the answer, \"Answer in millions.\", left out of the search), terms (a financial measure's line items added, in a financial context), pages (pages the query names of a known document, \"page 12\", put first). false searches the query as typed; \"pages,instructions\" or a list runs only those. The result says what was rewritten and why"},
        "ranking": {"type": "string", "enum": ["learned", "fused"], "description": "How the candidates are ranked before selection: learned (a model over each candidate's features, for the index's encoder) or fused (the first stage's fused score of BM25 and the vectors)"},
    });
    if with_unit {
        p["unit"] = json!({"type": "string", "enum": ["note", "page", "document"], "description": "note (default): an evidence set of notes; page or document: the best pages or documents, each with its best notes"});
    }
    p
}

fn read_only(open_world: bool) -> Value {
    json!({
        "readOnlyHint": true,
        "destructiveHint": false,
        "idempotentHint": !open_world,
        "openWorldHint": open_world,
    })
}

/// The tool list; output schemas only for a revision that has them.
pub fn list(structured: bool) -> Vec<Value> {
    let mut tools = vec![
        json!({
            "name": "search",
            "title": "Search the documents",
            "description": "Search the indexed documents (PDFs, Markdown, HTML, text) for a question. Returns a small evidence set of notes: text passages, figures and tables with captions, each with its document and page, best first. Figures and tables have a crop image (image_uri, a resource).",
            "inputSchema": {
                "type": "object",
                "properties": search_properties(true),
                "required": ["query"],
                "additionalProperties": false,
            },
            "outputSchema": shapes::search_schema(),
            "annotations": read_only(false),
        }),
        json!({
            "name": "ask",
            "title": "Answer from the documents",
            "description": "Answer a question in prose from the evidence set of a search, read by the model server indexer is configured with; the answer cites its evidence as [n], listed with document and page.",
            "inputSchema": {
                "type": "object",
                "properties": search_properties(false),
                "required": ["query"],
                "additionalProperties": false,
            },
            "outputSchema": shapes::answer_schema(),
            "annotations": read_only(true),
        }),
        json!({
            "name": "show",
            "title": "Show a note",
            "description": "One note whole, by the id search gave it: its text, caption, section, the text around a figure or table, keywords and links to other notes.",
            "inputSchema": {
                "type": "object",
                "properties": {"note_id": {"type": "string", "description": "A note id, for example guide/a.pdf#f3"}},
                "required": ["note_id"],
                "additionalProperties": false,
            },
            "outputSchema": shapes::note_schema(),
            "annotations": read_only(false),
        }),
        json!({
            "name": "list_documents",
            "title": "List the documents",
            "description": "The documents in the index, with their titles, pages and notes, and the files that failed to parse.",
            "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
            "outputSchema": documents_schema(),
            "annotations": read_only(false),
        }),
    ];
    if !structured {
        for t in &mut tools {
            if let Some(m) = t.as_object_mut() {
                m.remove("outputSchema");
            }
        }
    }
    tools
}

/// `tools/call`.
pub fn call(server: &Context<'_>, params: &Value, out: &mut dyn Write) -> Result<Value, RpcError> {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(RpcError::new(
            codes::INVALID_PARAMS,
            "tools/call needs a tool name",
        ));
    };
    let progress = params.pointer("/_meta/progressToken").cloned();
    let result = match params.get("arguments") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(_) => Err(Failure::invalid(
            "bad_json",
            "the arguments are a JSON object",
        )),
    }
    .and_then(|args| {
        let args = Args(args);
        match name {
            "search" => search(server, args),
            "ask" => ask(server, args, progress, out),
            "show" => show(server, args),
            "list_documents" => list_documents(server, args),
            _ => Err(Failure::invalid("unknown_tool", String::new())),
        }
    });
    match result {
        Err(f) if f.code == "unknown_tool" => Err(RpcError::new(
            codes::INVALID_PARAMS,
            format!("no tool {name:?} (search, ask, show, list_documents)"),
        )),
        Ok(o) => Ok(success(server, o)),
        Err(f) => Ok(failure(server, &f)),
    }
}

fn success(server: &Context<'_>, o: Output) -> Value {
    let mut content = vec![json!({"type": "text", "text": o.text})];
    if server.structured() {
        for (uri, name) in o.links {
            content.push(
                json!({"type": "resource_link", "uri": uri, "name": name, "mimeType": "image/png"}),
            );
        }
    }
    let mut r = json!({"content": content, "isError": false});
    if server.structured() {
        r["structuredContent"] = o.structured;
    }
    r
}

/// A failed call as the model reads it: the code first, then the message and the hint.
fn failure(server: &Context<'_>, f: &Failure) -> Value {
    let mut text = format!("error {}: {}", f.code, f.message);
    if let Some(h) = &f.hint {
        text.push_str(&format!("\nhint: {h}"));
    }
    let mut r = json!({"content": [{"type": "text", "text": text}], "isError": true});
    if server.structured() {
        r["structuredContent"] = json!({"error": {
            "code": f.code,
            "type": f.class.as_str(),
            "message": f.message,
            "hint": f.hint,
        }});
    }
    r
}

fn search_args(args: &Args, with_unit: bool) -> Result<SearchArgs, Failure> {
    let mut known = vec![
        "query", "budget", "selector", "docs", "kinds", "pages", "rewrite", "ranking",
    ];
    if with_unit {
        known.push("unit");
    }
    args.only(&known)?;
    Ok(SearchArgs {
        query: args.string("query")?.unwrap_or_default(),
        budget: args.integer("budget")?,
        selector: args.string("selector")?,
        docs: args.strings("docs")?,
        kinds: args.strings("kinds")?,
        pages: args.pages("pages")?,
        rewrite: args.rewrite("rewrite")?,
        ranking: args.string("ranking")?,
        unit: if with_unit {
            args.string("unit")?
        } else {
            None
        },
        ..SearchArgs::default()
    })
}

fn search(server: &Context<'_>, args: Args) -> Result<Output, Failure> {
    let s = search_args(&args, true)?.validate()?;
    let engine = server.engine();
    engine.refresh()?;
    let view = engine.view();
    match s.unit.group() {
        None => {
            let r = engine.search(&s.request)?;
            Ok(Output {
                text: shapes::search_text(&view, &r),
                structured: shapes::search_json(&view, &r),
                links: crop_links(&view, r.hits.iter()),
            })
        }
        Some(by) => {
            let r = engine.search_grouped(&s.request, by)?;
            Ok(Output {
                text: shapes::pages_text(&r, s.unit.as_str()),
                structured: shapes::pages_json(&view, &r, s.unit.as_str()),
                links: crop_links(&view, r.pages.iter().flat_map(|p| &p.notes)),
            })
        }
    }
}

/// Resource links to the crops of the hits that have one.
fn crop_links<'h>(
    view: &indexer_engine::IndexView,
    hits: impl Iterator<Item = &'h indexer_engine::Hit>,
) -> Vec<(String, String)> {
    hits.filter(|h| view.image_path(&h.note).is_some())
        .map(|h| (crop_uri(&h.note.id), h.note.id.clone()))
        .collect()
}

fn ask(
    server: &Context<'_>,
    args: Args,
    progress: Option<Value>,
    out: &mut dyn Write,
) -> Result<Output, Failure> {
    let s = search_args(&args, false)?.validate()?;
    debug_assert_eq!(s.unit, Unit::Note);
    let Some(llm) = server.llm() else {
        return Err(Failure::ask_disabled("indexer mcp"));
    };
    let engine = server.engine();
    engine.refresh()?;
    // The answer's text as it arrives, as progress notifications when the client asked for
    // them; a client that went away stops the answer.
    let mut pieces = 0u64;
    let r = engine.ask(&s.request, llm, &mut |e| {
        let (Some(token), AskEvent::Delta(text)) = (&progress, e) else {
            return ControlFlow::Continue(());
        };
        pieces += 1;
        let note = json!({
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": token, "progress": pieces, "message": text},
        });
        match write_message(out, &note) {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        }
    })?;
    let view = engine.view();
    Ok(Output {
        text: shapes::answer_text(&r),
        structured: shapes::answer_json(&view, &r),
        links: Vec::new(),
    })
}

fn show(server: &Context<'_>, args: Args) -> Result<Output, Failure> {
    args.only(&["note_id"])?;
    let Some(id) = args.string("note_id")?.filter(|s| !s.trim().is_empty()) else {
        return Err(Failure::invalid("bad_json", "show needs a note_id"));
    };
    let engine = server.engine();
    engine.refresh()?;
    let view = engine.view();
    let Some(note) = view.note(id.trim())? else {
        return Err(
            Failure::not_found("note_not_found", format!("no note {id:?} in the index"))
                .with_hint("note ids are as search returns them, for example guide/a.pdf#f3"),
        );
    };
    let links = crop_links_of(&view, &note);
    Ok(Output {
        text: shapes::note_text(&view, &note),
        structured: shapes::note_json(&view, &note),
        links,
    })
}

fn crop_links_of(
    view: &indexer_engine::IndexView,
    n: &indexer_engine::Note,
) -> Vec<(String, String)> {
    view.image_path(n)
        .map(|_| vec![(crop_uri(&n.id), n.id.clone())])
        .unwrap_or_default()
}

fn documents_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "documents": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "doc": {"type": "string"},
                        "title": {"type": "string"},
                        "pages": {"type": "integer"},
                        "notes": {"type": "integer"},
                    },
                    "required": ["doc", "pages", "notes"],
                },
            },
            "failed": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"doc": {"type": "string"}, "error": {"type": "string"}},
                    "required": ["doc", "error"],
                },
            },
            "notes": {"type": "integer"},
            "model": {"type": "string"},
            "generation": {"type": "integer"},
        },
        "required": ["documents", "failed", "notes", "model"],
    })
}

fn list_documents(server: &Context<'_>, args: Args) -> Result<Output, Failure> {
    args.only(&[])?;
    let engine = server.engine();
    engine.refresh()?;
    let view = engine.view();
    let docs = view.documents()?;
    let failed = view.failures()?;
    let stats = view.stats()?;
    let mut text = format!(
        "{} documents, {} pages, {} notes (model {}):",
        docs.len(),
        stats.pages,
        stats.notes,
        stats.model
    );
    for d in &docs {
        text.push_str(&format!("\n- {}", d.doc));
        if let Some(t) = d.title.as_deref().filter(|t| !t.trim().is_empty()) {
            text.push_str(&format!(" \"{}\"", t.trim()));
        }
        text.push_str(&format!(" ({} pages, {} notes)", d.pages, d.notes));
    }
    if !failed.is_empty() {
        text.push_str(&format!("\n{} files failed to parse:", failed.len()));
        for f in &failed {
            text.push_str(&format!("\n- {}: {}", f.doc, f.message));
        }
    }
    let structured = json!({
        "documents": docs.iter().map(|d| {
            let mut v = json!({"doc": d.doc, "pages": d.pages, "notes": d.notes});
            if let Some(t) = &d.title {
                v["title"] = json!(t);
            }
            v
        }).collect::<Vec<_>>(),
        "failed": failed.iter().map(|f| json!({"doc": f.doc, "error": f.message})).collect::<Vec<_>>(),
        "notes": stats.notes,
        "model": stats.model,
        "generation": stats.generation,
    });
    Ok(Output {
        text,
        structured,
        links: Vec::new(),
    })
}

/// A tool's arguments, read with the HTTP API's codes for the wrong kind of value.
struct Args(Map<String, Value>);

impl Args {
    fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name).filter(|v| !v.is_null())
    }

    /// Refuses arguments the tool does not have.
    fn only(&self, known: &[&str]) -> Result<(), Failure> {
        match self.0.keys().find(|k| !known.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) => Err(Failure::invalid(
                "bad_json",
                format!(
                    "unknown argument {k:?} (the arguments are {})",
                    known.join(", ")
                ),
            )),
        }
    }

    fn string(&self, name: &str) -> Result<Option<String>, Failure> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(Failure::invalid(
                "bad_json",
                format!("{name} must be a string, not {v}"),
            )),
        }
    }

    /// The rewrite rules: a boolean, rules by name (comma-separated), or a list of names.
    fn rewrite(&self, name: &str) -> Result<Option<RewriteArg>, Failure> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(RewriteArg::On(*b))),
            Some(Value::String(_) | Value::Array(_)) => {
                Ok(Some(RewriteArg::Rules(self.strings(name)?.join(","))))
            }
            Some(v) => Err(Failure::invalid(
                "bad_rewrite",
                format!("{name} must be true, false or rules by name, not {v}"),
            )),
        }
    }

    /// An integer; a number written as a string (`"5"`) is taken too.
    fn integer(&self, name: &str) -> Result<Option<i64>, Failure> {
        let bad = |v: &Value| {
            Failure::invalid("bad_number", format!("{name} must be an integer, not {v}"))
        };
        match self.get(name) {
            None => Ok(None),
            Some(v @ Value::Number(n)) => n
                .as_i64()
                .or_else(|| {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && f.abs() < 1e15)
                        .map(|f| f as i64)
                })
                .map(Some)
                .ok_or_else(|| bad(v)),
            Some(v @ Value::String(s)) => s.trim().parse().map(Some).map_err(|_| bad(v)),
            Some(v) => Err(bad(v)),
        }
    }

    /// A list of strings; one string is a list of one.
    fn strings(&self, name: &str) -> Result<Vec<String>, Failure> {
        let bad = |v: &Value| {
            Failure::invalid(
                "bad_json",
                format!("{name} must be a list of strings, not {v}"),
            )
        };
        match self.get(name) {
            None => Ok(Vec::new()),
            Some(Value::String(s)) => Ok(vec![s.clone()]),
            Some(v @ Value::Array(items)) => items
                .iter()
                .map(|i| i.as_str().map(str::to_string).ok_or_else(|| bad(v)))
                .collect(),
            Some(v) => Err(bad(v)),
        }
    }

    /// `"3-9"`, `"5"`, `5` or `[3, 9]`.
    fn pages(&self, name: &str) -> Result<Option<Pages>, Failure> {
        let bad = |v: &Value| {
            Failure::invalid(
                "bad_pages",
                format!("{name} must be \"3-9\", 5 or [3, 9], not {v}"),
            )
        };
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(Pages::Text(s.clone()))),
            Some(v @ Value::Number(n)) => n
                .as_i64()
                .map(|n| Some(Pages::One(n)))
                .ok_or_else(|| bad(v)),
            Some(v @ Value::Array(a)) => match a.as_slice() {
                [a, b] => match (a.as_i64(), b.as_i64()) {
                    (Some(a), Some(b)) => Ok(Some(Pages::Range(a, b))),
                    _ => Err(bad(v)),
                },
                _ => Err(bad(v)),
            },
            Some(v) => Err(bad(v)),
        }
    }
}
