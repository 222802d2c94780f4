//! The targets. Each reads its input as the real caller would get it and checks what must
//! hold of the answer, beside not panicking.

use crate::fixture::fixture;
use axum::body::Body;
use axum::http::Request;
use indexer_engine::{
    Filter, GroupBy, IndexView, Matching, NoteKind, SearchRequest, SelectorKind, parse_pages,
};
use indexer_ingest::{FileType, IngestOptions, WorkerPool};
use std::path::Path;
use tower::ServiceExt;

/// A fuzz target: a function of the input bytes.
pub type Target = fn(&[u8]);

/// Every target by name, as `fuzz/` and the regression tests run them.
pub const TARGETS: [(&str, Target); 6] = [
    ("markup", markup),
    ("query", query),
    ("server", server),
    ("mcp", mcp),
    ("store", store),
    ("pdf", pdf),
];

/// Markdown, HTML or text (by the first byte) into notes: ids unique, of the document, in
/// order.
pub fn markup(data: &[u8]) {
    let Some((&kind, rest)) = data.split_first() else {
        return;
    };
    let kind = [FileType::Markdown, FileType::Html, FileType::Text][kind as usize % 3];
    let src = String::from_utf8_lossy(rest);
    let counter = indexer_notes::WordCounter;
    let doc =
        indexer_ingest::parse_markup(&src, "fuzz.md", kind, &IngestOptions::default(), &counter);
    let mut ids = std::collections::HashSet::new();
    for n in &doc.notes {
        assert_eq!(n.doc, "fuzz.md");
        assert!(ids.insert(n.id.clone()), "note id {} twice", n.id);
        assert!(
            n.text.len() <= src.len() * 4 + 4096,
            "a note longer than its source"
        );
    }
}

/// The selector a query input's fourth byte names: every selector is reached.
pub fn selector_of(sel: u8) -> SelectorKind {
    SelectorKind::ALL[(sel & 0x7f) as usize % SelectorKind::ALL.len()]
}

/// A search as the CLI makes one: a question and filters from the input (lines: question,
/// document, pages, a selector with options, and the rewrite rules), options from its first
/// four bytes: flags (kinds, matching, grouping), budget, candidates and the selector (any of
/// [`SelectorKind::ALL`]; with its high bit set, the fourth line read as `NAME:KEY=VALUE`).
/// The fifth line, when there is one, is the rules as a user writes them (`all`, `false`,
/// `pages,terms`); without it, or when they do not parse, the default rules run. A question that names a page ("page 2",
/// "slides 1-3"), a document by its title or a financial measure goes through those rules.
/// An answer keeps within its budget and its filters; an error is one the caller can fix.
pub fn query(data: &[u8]) {
    let [flags, budget, candidates, sel, rest @ ..] = data else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let mut lines = text.split('\n');
    let question = lines.next().unwrap_or("").to_string();
    let doc = lines.next().filter(|d| !d.is_empty()).map(str::to_string);
    let pages = lines.next().map(parse_pages).and_then(Result::ok);
    let spec_line = lines.next();
    let rules = match lines.next().map(str::parse::<indexer_engine::Rules>) {
        None => indexer_engine::Rules::DEFAULT,
        Some(Ok(r)) => r,
        Some(Err(message)) => {
            assert!(!message.is_empty(), "a refused rule says why");
            indexer_engine::Rules::DEFAULT
        }
    };
    if let Some((a, b)) = pages {
        assert!(a >= 1 && a <= b);
    }
    let kinds: Vec<NoteKind> = NoteKind::ALL
        .iter()
        .enumerate()
        .filter(|(i, _)| flags & (1 << i) != 0)
        .map(|(_, k)| *k)
        .collect();
    let matching = [
        Matching::EXACT,
        Matching::PREFIX,
        Matching::TYPOS,
        Matching::TYPING,
    ][(flags >> 3) as usize % 4];
    let mut req = SearchRequest::new(question);
    req.budget = *budget as usize % 20;
    req.candidates = *candidates as usize % 120;
    req.selector = match spec_line.filter(|_| sel & 0x80 != 0) {
        Some(text) => match indexer_engine::parse_selector(text) {
            Ok(spec) => spec,
            Err((code, message)) => {
                assert!(
                    code == "unknown_selector" || code == "bad_selector_option",
                    "{code}"
                );
                assert!(!message.is_empty());
                return;
            }
        },
        None => selector_of(*sel).into(),
    };
    req.matching = matching;
    req.rewrite = rules;
    req.filter = Filter {
        docs: doc.into_iter().collect(),
        kinds: kinds.clone(),
        pages,
    };
    let f = fixture();
    match f.engine.search(&req) {
        Ok(r) => {
            assert!(
                r.hits.len() <= req.budget,
                "{} hits for B = {}",
                r.hits.len(),
                req.budget
            );
            for h in &r.hits {
                assert!(kinds.is_empty() || kinds.contains(&h.note.kind));
                assert!(h.snippet.text.len() <= req.snippet_chars * 4 + 64);
                for &[a, b] in &h.snippet.highlights {
                    assert!(a <= b && b <= h.snippet.text.len());
                    assert!(
                        h.snippet.text.is_char_boundary(a) && h.snippet.text.is_char_boundary(b)
                    );
                }
            }
        }
        Err(e) => assert!(e.is_user_error(), "not the caller's error: {e}"),
    }
    let by = if flags & 0x80 != 0 {
        GroupBy::Page
    } else {
        GroupBy::Document
    };
    if let Err(e) = f.engine.search_grouped(&req, by) {
        assert!(e.is_user_error(), "not the caller's error: {e}");
    }
}

/// A request to `indexer serve`'s router: method and route from the first byte, then the rest
/// of the path and query string up to a newline, then the body. No answer is a 500, and every
/// answer that is not a 200 is the error format.
pub fn server(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let (target, body) = match rest.iter().position(|&b| b == b'\n') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let route = [
        "/search?",
        "/search",
        "/notes/",
        "/documents/",
        "/ask",
        "/stats?",
        "/",
    ][(first & 0x0f) as usize % 7];
    let method = if first & 0x10 != 0 { "POST" } else { "GET" };
    let uri = format!("{route}{}", String::from_utf8_lossy(target));
    let Ok(req) = Request::builder()
        .method(method)
        .uri(uri.as_str())
        .header("content-type", "application/json")
        .body(Body::from(body.to_vec()))
    else {
        return; // not a URI an HTTP parser would pass on
    };
    let f = fixture();
    let resp =
        f.rt.block_on(f.router.clone().oneshot(req))
            .expect("the router is infallible");
    let status = resp.status().as_u16();
    let is_json = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let bytes =
        f.rt.block_on(axum::body::to_bytes(resp.into_body(), 16 << 20))
            .expect("the body is read");
    assert!(
        status != 500,
        "{method} {uri}: 500 {}",
        String::from_utf8_lossy(&bytes)
    );
    if status >= 400 {
        assert!(is_json, "{method} {uri}: {status} is not JSON");
        let v: serde_json::Value = serde_json::from_slice(&bytes).expect("an error body is JSON");
        for key in ["message", "code", "type", "link"] {
            assert!(v[key].is_string(), "{method} {uri}: no {key} in {v}");
        }
    }
}

/// A message to `indexer mcp`'s server as a client writes one. The first byte says what the
/// rest is: the arguments of a tool call (`search`, `show`, `list_documents`, or `ask` with no
/// model server), as JSON, or as a string when they do not parse (these go through
/// `SearchArgs`, the conversion the Python API's keyword arguments go through too); the URI of
/// a resource to read; or a whole line of JSON-RPC. Every request gets one answer with its id,
/// and no input is the server's own failure: no internal error, no tool result of type
/// `internal_error`.
pub fn mcp(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest).into_owned();
    let line = match first % 6 {
        tool @ 0..=3 => {
            let name = ["search", "show", "list_documents", "ask"][tool as usize];
            let args = serde_json::from_str::<serde_json::Value>(&text)
                .unwrap_or(serde_json::Value::String(text));
            serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": {"name": name, "arguments": args}})
            .to_string()
        }
        4 => serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "resources/read",
            "params": {"uri": text}})
        .to_string(),
        _ => text,
    };
    let templated = first % 6 < 5;
    let f = fixture();
    let mut server = indexer_mcp::Server::new(&f.engine, None);
    let mut out = Vec::new();
    server
        .handle_line(&line, &mut out)
        .expect("writing to memory");
    let out = String::from_utf8(out).expect("the server writes UTF-8");
    assert!(out.is_empty() || out.ends_with('\n'), "a message is a line");
    let messages: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line the server writes is JSON"))
        .collect();
    for m in &messages {
        let answers = match m {
            serde_json::Value::Array(a) => a.as_slice(),
            one => std::slice::from_ref(one),
        };
        for a in answers {
            assert_ne!(
                a["error"]["code"].as_i64(),
                Some(-32603),
                "{line}: an internal error {a}"
            );
            assert_ne!(
                a["result"]["structuredContent"]["error"]["type"].as_str(),
                Some("internal_error"),
                "{line}: an internal error {a}"
            );
        }
    }
    if templated {
        let last = messages.last().expect("a request is answered");
        assert_eq!(last["id"], 7, "{line}: {last}");
        assert!(
            last.get("result").is_some() != last.get("error").is_some(),
            "{line}: a result or an error: {last}"
        );
    }
}

/// The index's own files corrupted: one file of the generation (chosen by the first byte)
/// replaced by the input, cut to a length, or with the input written over part of it. Opening
/// the index, reading every note and searching it either work or fail with an error.
pub fn store(data: &[u8]) {
    let [which, mode, rest @ ..] = data else {
        return;
    };
    let f = fixture();
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let dir = tmp.path().join("index");
    copy_dir(&f.index, &dir);
    let mut files = Vec::new();
    list_files(&dir, &mut files);
    files.retain(|p| !p.to_string_lossy().contains(".lock"));
    files.sort();
    if files.is_empty() {
        return;
    }
    let target = &files[*which as usize % files.len()];
    let mut bytes = std::fs::read(target).unwrap_or_default();
    match mode % 3 {
        0 => bytes = rest.to_vec(),
        1 => {
            let cut = rest
                .iter()
                .take(4)
                .fold(0usize, |n, &b| n << 8 | b as usize);
            bytes.truncate(if bytes.is_empty() {
                0
            } else {
                cut % bytes.len()
            });
        }
        _ => {
            let at = rest.first().map_or(0, |&b| b as usize * 97) % bytes.len().max(1);
            for (i, &b) in rest.iter().skip(1).enumerate() {
                if let Some(x) = bytes.get_mut(at + i) {
                    *x ^= b;
                }
            }
        }
    }
    std::fs::write(target, &bytes).expect("write the corrupted file");
    let Ok(view) = IndexView::open(&dir) else {
        return;
    };
    let _ = view.stats();
    let _ = view.documents();
    let _ = view.failures();
    for n in view.notes().unwrap_or_default() {
        let _ = view.note(&n.id);
    }
    if let Ok(engine) = indexer_engine::Engine::with_encoder(&dir, f.engine.encoder().clone()) {
        let _ = engine.search(&SearchRequest::new("mosaic plot tiles"));
        let _ = engine.search(&SearchRequest::new("mosai"));
    }
}

/// A PDF parsed by a worker process, as ingest parses one: a result or an error for the file,
/// whatever the bytes; a crash of pdfium ends the worker, never the caller. The worker is the
/// program `INDEXER_FUZZ_WORKER` names (`tools/fuzz` builds it).
pub fn pdf(data: &[u8]) {
    let worker = std::env::var_os("INDEXER_FUZZ_WORKER")
        .expect("INDEXER_FUZZ_WORKER names no PDF worker: run tools/fuzz, or build the pdf-worker binary of indexer-fuzz");
    pdf_with(Path::new(&worker), data);
}

/// [`pdf`] with the worker program given.
pub fn pdf_with(worker: &Path, data: &[u8]) {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let file = tmp.path().join("fuzz.pdf");
    std::fs::write(&file, data).expect("write the PDF");
    let opts = IngestOptions {
        file_timeout: std::time::Duration::from_secs(20),
        ..Default::default()
    };
    let pool = WorkerPool::new(std::process::Command::new(worker), 1);
    let results = pool.parse_all(
        vec![(file, "fuzz.pdf".into())],
        &opts,
        &indexer_notes::WordCounter,
        &tmp.path().join("crops"),
        &mut |_| {},
    );
    assert_eq!(results.len(), 1);
    if let (_, Ok(doc)) = &results[0] {
        for n in &doc.notes {
            assert_eq!(n.doc, "fuzz.pdf");
            if let Some(p) = n.page {
                assert!(
                    p >= 1 && p <= doc.pages,
                    "note on page {p} of {}",
                    doc.pages
                );
            }
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the copy");
    for e in std::fs::read_dir(from)
        .expect("read the index folder")
        .flatten()
    {
        let p = e.path();
        let dest = to.join(e.file_name());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).expect("copy an index file");
        }
    }
}

fn list_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            list_files(&p, out);
        } else {
            out.push(p);
        }
    }
}
