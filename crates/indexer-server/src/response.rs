//! The JSON the API answers: one type per response, built from the engine's values. The hits
//! add what a page needs to show and link a result (escaped snippet HTML, URLs) and leave out
//! the server's own file paths.

use indexer_engine::{
    CdsDiagnostics, DocumentInfo, Engine, FailureInfo, NoteKind, PageResponse, Rewrite, Snippet,
    Timings,
};
use indexer_engine::{Note, PageResult};
use serde::{Serialize, Serializer};

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
    pub(crate) fn new(info: DocumentInfo, links: &Links) -> Document {
        let file_url = links.file_url(&info.doc, None, None);
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

/// The keys a hit may carry, in the order they are sent. `fields` picks among them.
pub(crate) const HIT_FIELDS: [&str; 17] = [
    "rank",
    "score",
    "cosine",
    "bm25_rank",
    "vector_rank",
    "doc",
    "page",
    "kind",
    "caption",
    "section",
    "url",
    "snippet",
    "note",
    "snippet_html",
    "crop_url",
    "note_url",
    "file_url",
];

/// Which keys of [`HIT_FIELDS`] the hits of an answer carry (Meilisearch's attributes to
/// retrieve): all of them unless the request names some.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HitFields(u32);

impl HitFields {
    pub(crate) fn all() -> HitFields {
        HitFields((1 << HIT_FIELDS.len()) - 1)
    }

    /// The named keys; all of them for an empty list.
    pub(crate) fn parse<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<HitFields, String> {
        let mut bits = 0u32;
        for name in names.into_iter().map(str::trim).filter(|n| !n.is_empty()) {
            let i = HIT_FIELDS.iter().position(|f| *f == name).ok_or_else(|| {
                format!(
                    "unknown field {name:?} (fields of a hit: {})",
                    HIT_FIELDS.join(", ")
                )
            })?;
            bits |= 1 << i;
        }
        Ok(if bits == 0 {
            HitFields::all()
        } else {
            HitFields(bits)
        })
    }

    fn has(self, name: &str) -> bool {
        let i = HIT_FIELDS
            .iter()
            .position(|f| *f == name)
            .expect("a field of HIT_FIELDS");
        self.0 >> i & 1 == 1
    }

    /// `value()` as a shown field when `name` is asked for.
    fn pick<T>(self, name: &str, value: impl FnOnce() -> T) -> Field<T> {
        if self.has(name) {
            Field::Shown(value())
        } else {
            Field::Omitted
        }
    }
}

/// A key of a response that a request can leave out: serialised as its value when shown,
/// skipped when omitted.
#[derive(Debug)]
pub(crate) enum Field<T> {
    Omitted,
    Shown(T),
}

impl<T> Field<T> {
    fn is_omitted(&self) -> bool {
        matches!(self, Field::Omitted)
    }
}

impl<T: Serialize> Serialize for Field<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Shown(v) => v.serialize(s),
            Field::Omitted => s.serialize_unit(),
        }
    }
}

/// Where the links of an answer point.
#[derive(Debug, Clone, Default)]
pub(crate) struct Links {
    /// `/documents/{doc}/file` is served.
    pub files_served: bool,
    /// The site the documents are published at: a hit opens `{site}/{doc}#...`.
    pub site_url: Option<String>,
}

impl Links {
    /// The original file on this server, at the note's page or section.
    fn file_url(&self, doc: &str, page: Option<u32>, anchor: Option<&str>) -> Option<String> {
        self.files_served
            .then(|| format!("/documents/{}/file{}", encode(doc), fragment(page, anchor)))
    }

    /// What a result opens: the published page when there is a site, else the file, else the
    /// note.
    fn url(&self, doc: &str, page: Option<u32>, anchor: Option<&str>, note_url: &str) -> String {
        match &self.site_url {
            Some(site) => format!("{site}/{}{}", encode_path(doc), fragment(page, anchor)),
            None => self
                .file_url(doc, page, anchor)
                .unwrap_or_else(|| note_url.to_string()),
        }
    }
}

/// `#page=N` for a page of a PDF, `#anchor` for a section of an HTML or Markdown page.
fn fragment(page: Option<u32>, anchor: Option<&str>) -> String {
    match (page, anchor) {
        (Some(p), _) => format!("#page={p}"),
        (None, Some(a)) => format!("#{}", encode(a)),
        (None, None) => String::new(),
    }
}

/// `GET` and `POST /search`: the evidence set, or the groups of a grouped search.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum SearchAnswer {
    Notes(Box<Search>),
    Groups(Box<Grouped>),
}

/// The engine's answer with API hits.
#[derive(Debug, Serialize)]
pub(crate) struct Search {
    pub query: String,
    /// What was searched, when it is not the query as typed (`searched`, `dropped`,
    /// `related`, `named_pages`); absent when nothing was rewritten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<Rewrite>,
    /// The selector's name (`fused-cap`, `fused`, `cds-hybrid`, ...).
    pub selector: String,
    /// How the candidates were ranked before selection: `learned` or `fused`.
    pub ranking: &'static str,
    /// Without a document filter: the documents the candidates came from, or the one the
    /// query names, which alone was searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routing: Option<indexer_engine::Routing>,
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

/// A grouped search (`group=page` or `group=document`): the best pages or documents, each
/// with its best notes.
#[derive(Debug, Serialize)]
pub(crate) struct Grouped {
    pub query: String,
    /// As a note search's `rewrite`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<Rewrite>,
    /// `page` or `document`.
    pub group: &'static str,
    /// Groups asked for.
    pub budget: usize,
    pub generation: u64,
    pub model: String,
    /// Fused candidate notes the groups were made from.
    pub candidates: usize,
    pub groups: Vec<Group>,
    pub timings: Timings,
}

/// One page or document of a grouped search.
#[derive(Debug, Serialize)]
pub(crate) struct Group {
    pub rank: usize,
    pub doc: String,
    /// The page, for a page group of a paged document.
    pub page: Option<u32>,
    /// The best fused score of its notes.
    pub score: f64,
    /// What the group opens (as a hit's `url`, at the page for a page group).
    pub url: String,
    /// Its best notes, best first; `rank` is a note's rank among all the candidates.
    pub hits: Vec<Hit>,
}

/// One evidence note as the API shows it. Every key can be left out with `fields`.
#[derive(Debug, Serialize)]
pub(crate) struct Hit {
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub rank: Field<usize>,
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub score: Field<f64>,
    /// The engine's f32 widened to f64, the digits the server has always sent
    /// (0.5799881219863892, not 0.5799881).
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub cosine: Field<f64>,
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub bm25_rank: Field<Option<usize>>,
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub vector_rank: Field<Option<usize>>,
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub doc: Field<String>,
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub page: Field<Option<u32>>,
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub kind: Field<NoteKind>,
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub caption: Field<Option<String>>,
    /// The heading path, outermost first.
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub section: Field<Vec<String>>,
    /// What the result opens: the PDF at its page, the HTML or Markdown page at the note's
    /// section (`#anchor`), on the docs site when the server knows it.
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub url: Field<String>,
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub snippet: Field<Snippet>,
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub note: Field<Note>,
    /// The snippet HTML-escaped, with `<mark>` around the query terms.
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub snippet_html: Field<String>,
    /// `/notes/{id}/image`, when the note has a crop the server can send.
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub crop_url: Field<Option<String>>,
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub note_url: Field<String>,
    /// `/documents/{doc}/file`, with `#page=N` for paged documents and `#anchor` for a
    /// section, when files are served.
    #[serde(skip_serializing_if = "Field::is_omitted")]
    pub file_url: Field<Option<String>>,
    /// `true` on a note of a page the query names, which the ranking stage put first
    /// (its `score` is then its fused score); absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub named_page: bool,
}

impl Search {
    /// The API answer for the engine's; `engine` says which crops exist.
    pub(crate) fn new(
        r: indexer_engine::SearchResponse,
        engine: &Engine,
        links: &Links,
        fields: HitFields,
    ) -> Search {
        Search {
            query: r.query,
            rewrite: r.rewrite,
            selector: r.selector,
            ranking: r.ranking,
            routing: r.routing,
            budget: r.budget,
            generation: r.generation,
            model: r.model,
            candidates: r.candidates,
            hits: r
                .hits
                .into_iter()
                .map(|h| Hit::new(h, engine, links, fields))
                .collect(),
            diagnostics: r.diagnostics,
            timings: r.timings,
        }
    }
}

impl Grouped {
    pub(crate) fn new(
        r: PageResponse,
        by: indexer_engine::GroupBy,
        engine: &Engine,
        links: &Links,
        fields: HitFields,
    ) -> Grouped {
        Grouped {
            query: r.query,
            rewrite: r.rewrite,
            group: by.as_str(),
            budget: r.budget,
            generation: r.generation,
            model: r.model,
            candidates: r.candidates,
            groups: r
                .pages
                .into_iter()
                .map(|g| Group::new(g, engine, links, fields))
                .collect(),
            timings: r.timings,
        }
    }
}

impl Group {
    fn new(g: PageResult, engine: &Engine, links: &Links, fields: HitFields) -> Group {
        // Without files or a site, a group opens its best note.
        let note_url = g
            .notes
            .first()
            .map(|h| format!("/notes/{}", encode(&h.note.id)))
            .unwrap_or_default();
        Group {
            rank: g.rank,
            url: links.url(&g.doc, g.page, None, &note_url),
            doc: g.doc,
            page: g.page,
            score: g.score,
            hits: g
                .notes
                .into_iter()
                .map(|h| Hit::new(h, engine, links, fields))
                .collect(),
        }
    }
}

impl Hit {
    pub(crate) fn new(h: indexer_engine::Hit, engine: &Engine, links: &Links, f: HitFields) -> Hit {
        let n = &h.note;
        let note_url = format!("/notes/{}", encode(&n.id));
        let anchor = n.anchor.as_deref();
        Hit {
            named_page: h.named_page,
            rank: f.pick("rank", || h.rank),
            score: f.pick("score", || h.score),
            cosine: f.pick("cosine", || f64::from(h.cosine)),
            bm25_rank: f.pick("bm25_rank", || h.bm25_rank),
            vector_rank: f.pick("vector_rank", || h.vector_rank),
            doc: f.pick("doc", || n.doc.clone()),
            page: f.pick("page", || n.page),
            kind: f.pick("kind", || n.kind),
            caption: f.pick("caption", || n.caption.clone()),
            section: f.pick("section", || n.section.clone()),
            url: f.pick("url", || links.url(&n.doc, n.page, anchor, &note_url)),
            snippet_html: f.pick("snippet_html", || {
                snippet_html(&h.snippet.text, &h.snippet.highlights)
            }),
            crop_url: f.pick("crop_url", || {
                h.image_path
                    .as_ref()
                    .and_then(|_| engine.image_path(&n.id))
                    .map(|_| crop_url(&n.id))
            }),
            file_url: f.pick("file_url", || links.file_url(&n.doc, n.page, anchor)),
            note_url: f.pick("note_url", || note_url.clone()),
            snippet: f.pick("snippet", || h.snippet.clone()),
            note: f.pick("note", || h.note.clone()),
        }
    }
}

pub(crate) fn crop_url(id: &str) -> String {
    format!("/notes/{}/image", encode(id))
}

/// A document id as a URL path: each segment percent-encoded, `/` kept.
fn encode_path(doc: &str) -> String {
    doc.split('/').map(encode).collect::<Vec<_>>().join("/")
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
    fn links_point_at_the_page_or_the_section() {
        let files = Links {
            files_served: true,
            site_url: None,
        };
        assert_eq!(
            files.file_url("a b.pdf", Some(3), None).unwrap(),
            "/documents/a%20b.pdf/file#page=3"
        );
        assert_eq!(
            files.file_url("g/x.md", None, None).unwrap(),
            "/documents/g%2Fx.md/file"
        );
        assert_eq!(
            files.url("g/x.html", None, Some("install"), "/notes/n"),
            "/documents/g%2Fx.html/file#install"
        );
        let site = Links {
            files_served: true,
            site_url: Some("https://docs.example.org".into()),
        };
        assert_eq!(
            site.url("guide/a b.html", None, Some("set-up"), "/notes/n"),
            "https://docs.example.org/guide/a%20b.html#set-up"
        );
        assert_eq!(
            site.url("paper.pdf", Some(4), None, "/notes/n"),
            "https://docs.example.org/paper.pdf#page=4"
        );
        let none = Links::default();
        assert_eq!(none.file_url("a.pdf", Some(1), None), None);
        assert_eq!(none.url("a.pdf", Some(1), None, "/notes/n"), "/notes/n");
    }

    #[test]
    fn fields_pick_keys_and_refuse_unknown_names() {
        assert_eq!(HitFields::parse([]).unwrap(), HitFields::all());
        let f = HitFields::parse(["doc", " url", ""]).unwrap();
        assert!(f.has("doc") && f.has("url") && !f.has("note"));
        assert!(
            HitFields::parse(["text"])
                .unwrap_err()
                .contains("snippet_html")
        );
        let shown: Field<u32> = f.pick("doc", || 3);
        assert_eq!(serde_json::to_string(&shown).unwrap(), "3");
        assert!(f.pick("note", || 3).is_omitted());
    }
}
