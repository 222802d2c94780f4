//! What the tools answer: each result as JSON (`structuredContent`) and as the text a model
//! reads, from the same data.

use crate::uri::crop_uri;
use indexer_engine::{AskResponse, Hit, IndexView, Note, PageResponse, Rewrite, SearchResponse};
use serde_json::{Value, json};
use std::fmt::Write as _;

/// A note's location as people cite it: `doc p.3` (with the printed page number when it
/// differs: `doc p.14 (printed xii)`).
pub fn location(n: &Note) -> String {
    match (n.page, n.page_label.as_deref()) {
        (Some(p), Some(l)) if l != p.to_string() => format!("{} p.{p} (printed {l})", n.doc),
        (Some(p), _) => format!("{} p.{p}", n.doc),
        (None, _) => n.doc.clone(),
    }
}

/// The URI of a note's crop, if the note has one in the index's crop folder.
fn image_uri(view: &IndexView, n: &Note) -> Option<String> {
    view.image_path(n).map(|_| crop_uri(&n.id))
}

/// A hit as JSON: what the `search` and `ask` tools' output schemas name.
pub fn hit_json(view: &IndexView, h: &Hit) -> Value {
    let n = &h.note;
    let mut v = json!({
        "rank": h.rank,
        "note_id": n.id,
        "doc": n.doc,
        "kind": n.kind.as_str(),
        "section": n.section,
        "text": n.text,
        "snippet": h.snippet.text,
        "score": finite(h.score),
    });
    if let Some(p) = n.page {
        v["page"] = json!(p);
    }
    if let Some(l) = &n.page_label {
        v["page_label"] = json!(l);
    }
    if let Some(c) = &n.caption {
        v["caption"] = json!(c);
    }
    if let Some(u) = image_uri(view, n) {
        v["image_uri"] = json!(u);
    }
    v
}

/// JSON has no NaN or infinity.
fn finite(x: f64) -> f64 {
    if x.is_finite() { x } else { 0.0 }
}

/// The JSON schema of [`hit_json`].
pub fn hit_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "rank": {"type": "integer", "description": "1-based; [n] in an answer is the hit of rank n"},
            "note_id": {"type": "string"},
            "doc": {"type": "string"},
            "page": {"type": "integer", "description": "1-based page of a PDF; absent for Markdown, HTML and text"},
            "page_label": {"type": "string", "description": "the number printed on the page, when it shows one"},
            "kind": {"type": "string", "enum": ["text", "figure", "table"]},
            "section": {"type": "array", "items": {"type": "string"}},
            "caption": {"type": "string"},
            "text": {"type": "string"},
            "snippet": {"type": "string"},
            "score": {"type": "number"},
            "image_uri": {"type": "string", "description": "the crop image of a figure or table, a resource"},
        },
        "required": ["rank", "note_id", "doc", "kind", "text", "score"],
    })
}

/// An evidence set as JSON.
pub fn search_json(view: &IndexView, r: &SearchResponse) -> Value {
    let mut v = json!({
        "query": r.query,
        "unit": "note",
        "selector": r.selector,
        "ranking": r.ranking,
        "hits": r.hits.iter().map(|h| hit_json(view, h)).collect::<Vec<_>>(),
    });
    if let Some(rw) = &r.rewrite {
        v["rewrite"] = json!(rw);
    }
    if let Some(routing) = &r.routing {
        v["routing"] = json!(routing);
    }
    v
}

/// What the search changed of the query, as the model reads it: a line for the text searched
/// and one for the pages put first; nothing when it searched the query as typed.
fn rewrite_text(out: &mut String, r: Option<&Rewrite>) {
    let Some(r) = r else {
        return;
    };
    if let (Some(searched), Some(changed)) = (&r.searched, r.changed_words()) {
        let _ = writeln!(out, "Searched as {searched:?} ({changed}).");
    }
    if !r.named_pages.is_empty() {
        let pages: Vec<String> = r.named_pages.iter().map(|p| p.to_string()).collect();
        let _ = writeln!(
            out,
            "Pages the query names, put first: {}.",
            pages.join(", ")
        );
    }
    for reason in &r.reasons {
        let _ = writeln!(out, "Rewritten ({}): {}.", reason.rule, reason.why);
    }
}

/// Ranked pages or documents as JSON.
pub fn pages_json(view: &IndexView, r: &PageResponse, unit: &str) -> Value {
    let pages: Vec<Value> = r
        .pages
        .iter()
        .map(|p| {
            let mut v = json!({
                "rank": p.rank,
                "doc": p.doc,
                "score": finite(p.score),
                "hits": p.notes.iter().map(|h| hit_json(view, h)).collect::<Vec<_>>(),
            });
            if let Some(page) = p.page {
                v["page"] = json!(page);
            }
            v
        })
        .collect();
    let mut v = json!({"query": r.query, "unit": unit, "pages": pages});
    if let Some(rw) = &r.rewrite {
        v["rewrite"] = json!(rw);
    }
    v
}

/// The output schema of `search`: `hits` for notes, `pages` for pages and documents.
pub fn search_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "unit": {"type": "string", "enum": ["note", "page", "document"]},
            "selector": {"type": "string"},
            "ranking": {"type": "string", "enum": ["learned", "fused"], "description": "how the candidates were ranked before selection"},
            "routing": {
                "type": "object",
                "description": "without a document filter: the documents the candidates came from (by: candidates), or the one the query names, which alone was searched (by: named)",
                "properties": {
                    "by": {"type": "string", "enum": ["named", "candidates"]},
                    "documents": {"type": "array", "items": {"type": "object", "properties": {"doc": {"type": "string"}, "share": {"type": "number"}}, "required": ["doc", "share"]}},
                },
            },
            "rewrite": {
                "type": "object",
                "description": "what was searched, when it is not the query as typed (absent then)",
                "properties": {
                    "searched": {"type": "string", "description": "the text searched: the query without its closing instructions about the answer"},
                    "dropped": {"type": "string", "description": "the instructions left out"},
                    "related": {
                        "type": "array",
                        "description": "words added to the search: the line items of a financial measure the query names and the titles of the statements that print them, the title of the statement that prints a line item named beside a year, the year of a fiscal-year label",
                        "items": {"type": "string"},
                    },
                    "named_pages": {
                        "type": "array",
                        "description": "the pages put first because the query names them",
                        "items": {
                            "type": "object",
                            "properties": {
                                "doc": {"type": "string"},
                                "page": {"type": "integer"},
                                "phrase": {"type": "string", "description": "the words of the query that name it"},
                            },
                            "required": ["doc", "page", "phrase"],
                        },
                    },
                    "reasons": {
                        "type": "array",
                        "description": "each rule that changed the query and why",
                        "items": {
                            "type": "object",
                            "properties": {
                                "rule": {"type": "string", "enum": ["instructions", "terms", "pages"]},
                                "why": {"type": "string"},
                            },
                            "required": ["rule", "why"],
                        },
                    },
                },
            },
            "hits": {"type": "array", "items": hit_schema()},
            "pages": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "rank": {"type": "integer"},
                        "doc": {"type": "string"},
                        "page": {"type": "integer"},
                        "score": {"type": "number"},
                        "hits": {"type": "array", "items": hit_schema()},
                    },
                    "required": ["rank", "doc", "score", "hits"],
                },
            },
        },
        "required": ["query", "unit"],
    })
}

/// A hit as the model reads it: number, location, kind, caption, the note's text, its crop.
fn hit_text(out: &mut String, view: &IndexView, h: &Hit) {
    let n = &h.note;
    let _ = write!(out, "[{}] {}", h.rank, location(n));
    if n.kind != indexer_engine::NoteKind::Text {
        let _ = write!(out, " ({})", n.kind);
    }
    let _ = writeln!(out, " - note {}", n.id);
    if !n.section.is_empty() {
        let _ = writeln!(out, "Section: {}", n.section.join(" > "));
    }
    if let Some(c) = &n.caption {
        let _ = writeln!(out, "Caption: {}", one_line(c));
    }
    let body = indexer_engine::snippet_source(&n.text, n.caption.as_deref()).trim();
    if !body.is_empty() {
        let _ = writeln!(out, "{body}");
    }
    if let Some(u) = image_uri(view, n) {
        let _ = writeln!(out, "Image: {u}");
    }
}

pub fn search_text(view: &IndexView, r: &SearchResponse) -> String {
    if r.hits.is_empty() {
        return format!(
            "No evidence for {:?} in the index (or within the filters).",
            r.query
        );
    }
    let mut s = format!(
        "Evidence for {:?}: {} notes (selector {}). Cite them by document and page.\n",
        r.query,
        r.hits.len(),
        r.selector
    );
    rewrite_text(&mut s, r.rewrite.as_ref());
    for h in &r.hits {
        s.push('\n');
        hit_text(&mut s, view, h);
    }
    s
}

pub fn pages_text(r: &PageResponse, unit: &str) -> String {
    if r.pages.is_empty() {
        return format!(
            "No {unit}s for {:?} in the index (or within the filters).",
            r.query
        );
    }
    let mut s = format!("The best {unit}s for {:?}:\n", r.query);
    rewrite_text(&mut s, r.rewrite.as_ref());
    for p in &r.pages {
        let at = match p.page {
            Some(n) => format!("{} p.{n}", p.doc),
            None => p.doc.clone(),
        };
        let _ = writeln!(s, "\n[{}] {at} (score {:.3})", p.rank, p.score);
        for h in &p.notes {
            let _ = writeln!(
                s,
                "  - {} ({}): {}",
                h.note.id,
                h.note.kind,
                one_line(&h.snippet.text)
            );
        }
    }
    s
}

/// An answer: its text, then the sources it cites (or all the evidence sent, if none).
pub fn answer_text(r: &AskResponse) -> String {
    let mut s = r.answer.trim().to_string();
    s.push_str("\n\n");
    let cited: Vec<&Hit> = r
        .citations
        .iter()
        .filter_map(|c| r.evidence.get(c.n - 1))
        .collect();
    let (title, hits) = if cited.is_empty() {
        (
            "Evidence sent (the answer cites none):",
            r.evidence.iter().collect(),
        )
    } else {
        ("Sources:", cited)
    };
    s.push_str(title);
    for h in hits {
        let _ = write!(s, "\n[{}] {}", h.rank, location(&h.note));
        if h.note.kind != indexer_engine::NoteKind::Text {
            let _ = write!(s, " ({})", h.note.kind);
        }
    }
    for n in &r.notices {
        let _ = write!(s, "\nNote: {n}");
    }
    s
}

pub fn answer_json(view: &IndexView, r: &AskResponse) -> Value {
    json!({
        "question": r.question,
        "answer": r.answer,
        "citations": r.citations.iter().map(|c| {
            let mut v = json!({"n": c.n, "note_id": c.note_id, "doc": c.doc, "kind": c.kind.as_str()});
            if let Some(p) = c.page {
                v["page"] = json!(p);
            }
            v
        }).collect::<Vec<_>>(),
        "unknown_citations": r.unknown_citations,
        "evidence": r.evidence.iter().map(|h| hit_json(view, h)).collect::<Vec<_>>(),
        "model": r.model,
        "notices": r.notices,
        "finish_reason": r.finish_reason,
    })
}

pub fn answer_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "question": {"type": "string"},
            "answer": {"type": "string"},
            "citations": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "n": {"type": "integer"},
                        "note_id": {"type": "string"},
                        "doc": {"type": "string"},
                        "page": {"type": "integer"},
                        "kind": {"type": "string"},
                    },
                    "required": ["n", "note_id", "doc", "kind"],
                },
            },
            "unknown_citations": {"type": "array", "items": {"type": "integer"}},
            "evidence": {"type": "array", "items": hit_schema()},
            "model": {"type": "string"},
            "notices": {"type": "array", "items": {"type": "string"}},
            "finish_reason": {"type": ["string", "null"]},
        },
        "required": ["question", "answer", "citations", "evidence", "model"],
    })
}

/// A note whole, as JSON.
pub fn note_json(view: &IndexView, n: &Note) -> Value {
    let mut v = json!({
        "note_id": n.id,
        "doc": n.doc,
        "kind": n.kind.as_str(),
        "section": n.section,
        "text": n.text,
        "summary": n.summary,
        "keywords": n.keywords,
        "links": n.links.iter().map(|l| json!({"target": l.target, "kind": l.kind})).collect::<Vec<_>>(),
    });
    if let Some(p) = n.page {
        v["page"] = json!(p);
    }
    if let Some(l) = &n.page_label {
        v["page_label"] = json!(l);
    }
    if let Some(c) = &n.caption {
        v["caption"] = json!(c);
    }
    if let Some(c) = &n.context {
        v["context"] = json!(c);
    }
    if let Some(u) = image_uri(view, n) {
        v["image_uri"] = json!(u);
    }
    v
}

pub fn note_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "note_id": {"type": "string"},
            "doc": {"type": "string"},
            "page": {"type": "integer"},
            "page_label": {"type": "string"},
            "kind": {"type": "string", "enum": ["text", "figure", "table"]},
            "section": {"type": "array", "items": {"type": "string"}},
            "caption": {"type": "string"},
            "text": {"type": "string"},
            "context": {"type": "string", "description": "the running text around a figure or table; for the text note of a page of numbers (a statement), the page with the amounts its text leaves out"},
            "summary": {"type": "string"},
            "keywords": {"type": "array", "items": {"type": "string"}},
            "links": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"target": {"type": "string"}, "kind": {"type": "string"}},
                    "required": ["target", "kind"],
                },
            },
            "image_uri": {"type": "string"},
        },
        "required": ["note_id", "doc", "kind", "text"],
    })
}

pub fn note_text(view: &IndexView, n: &Note) -> String {
    let mut s = format!("Note {}: {}", n.id, location(n));
    if n.kind != indexer_engine::NoteKind::Text {
        let _ = write!(s, " ({})", n.kind);
    }
    s.push('\n');
    if !n.section.is_empty() {
        let _ = writeln!(s, "Section: {}", n.section.join(" > "));
    }
    if let Some(c) = &n.caption {
        let _ = writeln!(s, "Caption: {}", one_line(c));
    }
    if let Some(u) = image_uri(view, n) {
        let _ = writeln!(s, "Image: {u}");
    }
    let _ = writeln!(s, "\n{}", n.text.trim());
    if let Some(c) = &n.context {
        let _ = writeln!(s, "\nContext: {}", one_line(c));
    }
    s
}

/// Whitespace runs (line breaks too) as one space.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
