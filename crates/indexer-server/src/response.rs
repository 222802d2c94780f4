//! The JSON the API answers: one type per response, built from the engine's values. The hits
//! add what a page needs to show and link a result (escaped snippet HTML, URLs) and leave out
//! the server's own file paths.

use indexer_engine::{CdsDiagnostics, DocumentInfo, Engine, FailureInfo, Note, Snippet, Timings};
use serde::Serialize;

/// `GET /health`.
#[derive(Debug, Serialize)]
pub(crate) struct Health {
    pub status: &'static str,
    pub generation: u64,
    pub model: String,
    /// Notes in the generation that answered.
    pub notes: usize,
}

/// `GET /stats`.
#[derive(Debug, Serialize)]
pub(crate) struct Stats {
    pub stats: indexer_engine::Stats,
    /// Files the last ingests could not read.
    pub failures: Vec<FailureInfo>,
}

/// `GET /documents`.
#[derive(Debug, Serialize)]
pub(crate) struct Documents {
    pub documents: Vec<Document>,
}

/// A document of the index, with the link to its file when files are served.
#[derive(Debug, Serialize)]
pub(crate) struct Document {
    #[serde(flatten)]
    pub info: DocumentInfo,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_url: Option<String>,
}

impl Document {
    pub(crate) fn new(info: DocumentInfo, files_served: bool) -> Document {
        let file_url = files_served.then(|| file_url(&info.doc, None));
        Document { info, file_url }
    }
}

/// `GET /notes/{id}`: the note, with the link to its crop when it has one.
#[derive(Debug, Serialize)]
pub(crate) struct NoteBody {
    #[serde(flatten)]
    pub note: Note,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crop_url: Option<String>,
}

/// `GET` and `POST /search`: the engine's answer with API hits.
#[derive(Debug, Serialize)]
pub(crate) struct Search {
    pub query: String,
    /// The selector's name (`fused-cap`, `fused`, `cds-hybrid`, ...).
    pub selector: String,
    pub budget: usize,
    /// The index generation that answered.
    pub generation: u64,
    pub model: String,
    /// Fused candidates the selector chose from.
    pub candidates: usize,
    pub hits: Vec<Hit>,
    /// CDS diagnostics; `null` for the other selectors.
    pub diagnostics: Option<CdsDiagnostics>,
    pub timings: Timings,
}

/// One evidence note as the API shows it.
#[derive(Debug, Serialize)]
pub(crate) struct Hit {
    pub rank: usize,
    pub score: f64,
    /// The engine's f32 widened to f64, the digits the server has always sent
    /// (0.5799881219863892, not 0.5799881).
    pub cosine: f64,
    pub bm25_rank: Option<usize>,
    pub vector_rank: Option<usize>,
    pub snippet: Snippet,
    pub note: Note,
    /// The snippet HTML-escaped, with `<mark>` around the query terms.
    pub snippet_html: String,
    /// `/notes/{id}/image`, when the note has a crop the server can send.
    pub crop_url: Option<String>,
    pub note_url: String,
    /// `/documents/{doc}/file`, with `#page=N` for paged documents, when files are served.
    pub file_url: Option<String>,
}

impl Search {
    /// The API answer for the engine's; `engine` says which crops exist.
    pub(crate) fn new(
        r: indexer_engine::SearchResponse,
        engine: &Engine,
        files_served: bool,
    ) -> Search {
        Search {
            query: r.query,
            selector: r.selector,
            budget: r.budget,
            generation: r.generation,
            model: r.model,
            candidates: r.candidates,
            hits: r
                .hits
                .into_iter()
                .map(|h| Hit::new(h, engine, files_served))
                .collect(),
            diagnostics: r.diagnostics,
            timings: r.timings,
        }
    }
}

impl Hit {
    fn new(h: indexer_engine::Hit, engine: &Engine, files_served: bool) -> Hit {
        let crop_url = h
            .image_path
            .as_ref()
            .and_then(|_| engine.image_path(&h.note.id))
            .map(|_| crop_url(&h.note.id));
        Hit {
            rank: h.rank,
            score: h.score,
            cosine: f64::from(h.cosine),
            bm25_rank: h.bm25_rank,
            vector_rank: h.vector_rank,
            snippet_html: snippet_html(&h.snippet.text, &h.snippet.highlights),
            snippet: h.snippet,
            crop_url,
            note_url: format!("/notes/{}", encode(&h.note.id)),
            file_url: files_served.then(|| file_url(&h.note.doc, h.note.page)),
            note: h.note,
        }
    }
}

pub(crate) fn crop_url(id: &str) -> String {
    format!("/notes/{}/image", encode(id))
}

fn file_url(doc: &str, page: Option<u32>) -> String {
    let base = format!("/documents/{}/file", encode(doc));
    match page {
        Some(p) => format!("{base}#page={p}"),
        None => base,
    }
}

/// Percent-encodes everything but unreserved characters, so an id is one path segment.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// The snippet HTML-escaped, with `<mark>` around the highlighted byte ranges.
fn snippet_html(text: &str, highlights: &[[usize; 2]]) -> String {
    let mut out = String::with_capacity(text.len() + 16 * highlights.len());
    let mut at = 0;
    for &[s, e] in highlights {
        if s < at || e > text.len() || !text.is_char_boundary(s) || !text.is_char_boundary(e) {
            continue;
        }
        escape_into(&mut out, &text[at..s]);
        out.push_str("<mark>");
        escape_into(&mut out, &text[s..e]);
        out.push_str("</mark>");
        at = e;
    }
    escape_into(&mut out, &text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_html_escapes_and_marks() {
        let t = "a <b> & cds";
        assert_eq!(
            snippet_html(t, &[[8, 11]]),
            "a &lt;b&gt; &amp; <mark>cds</mark>"
        );
        assert_eq!(encode("a/b.md#t0"), "a%2Fb.md%23t0");
    }

    #[test]
    fn file_urls_point_at_the_page() {
        assert_eq!(
            file_url("a b.pdf", Some(3)),
            "/documents/a%20b.pdf/file#page=3"
        );
        assert_eq!(file_url("g/x.md", None), "/documents/g%2Fx.md/file");
    }
}
