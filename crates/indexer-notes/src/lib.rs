//! The note data model shared by every `indexer` crate, and the [`Hint`] trait of their errors.
//!
//! A [`Note`] is one self-contained unit of evidence: a chunk of running text, or a figure or
//! table with its caption, nearby text and the crop of its region. Notes come from one
//! [`ParsedDocument`] each; [`Link`]s between notes form the note graph that selectors such as
//! personalised PageRank use.
//!
//! ```
//! use indexer_notes::{Note, NoteKind, note_id};
//! let id = note_id("papers/a.pdf", NoteKind::Text, 3);
//! assert_eq!(id, "papers/a.pdf#t3");
//! let note = Note::new(id, "papers/a.pdf", NoteKind::Text, "Some running text.");
//! assert_eq!(note.page, None);
//! ```

use serde::{Deserialize, Serialize};
use std::fmt;

/// What a note is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoteKind {
    /// A chunk of running text.
    Text,
    /// A figure (vector graphic, raster image, chart) with its caption and context.
    Figure,
    /// A table with its caption, cell text and context.
    Table,
}

impl NoteKind {
    pub const ALL: [NoteKind; 3] = [NoteKind::Text, NoteKind::Figure, NoteKind::Table];

    pub fn as_str(self) -> &'static str {
        match self {
            NoteKind::Text => "text",
            NoteKind::Figure => "figure",
            NoteKind::Table => "table",
        }
    }

    /// The one-letter tag used inside note ids.
    pub fn tag(self) -> char {
        match self {
            NoteKind::Text => 't',
            NoteKind::Figure => 'f',
            NoteKind::Table => 'b',
        }
    }
}

impl fmt::Display for NoteKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for NoteKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "text" => Ok(NoteKind::Text),
            "figure" => Ok(NoteKind::Figure),
            "table" => Ok(NoteKind::Table),
            other => Err(format!(
                "unknown note kind {other:?}: expected text, figure or table"
            )),
        }
    }
}

/// A rectangle in PDF points on one page, in PDF user space: origin at the bottom-left corner
/// of the page, y grows upwards (`bottom < top`). The same convention pdfium uses, so boxes
/// read off pdfium need no conversion and a crop is `points_to_pixels` of the box.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BBox {
    pub left: f32,
    pub bottom: f32,
    pub right: f32,
    pub top: f32,
}

impl BBox {
    pub fn new(left: f32, bottom: f32, right: f32, top: f32) -> BBox {
        BBox {
            left,
            bottom,
            right,
            top,
        }
    }
    pub fn width(&self) -> f32 {
        self.right - self.left
    }
    pub fn height(&self) -> f32 {
        self.top - self.bottom
    }
    pub fn area(&self) -> f32 {
        self.width().max(0.0) * self.height().max(0.0)
    }
    /// The smallest box holding both.
    pub fn union(&self, o: &BBox) -> BBox {
        BBox {
            left: self.left.min(o.left),
            bottom: self.bottom.min(o.bottom),
            right: self.right.max(o.right),
            top: self.top.max(o.top),
        }
    }
    /// Whether `o` lies inside this box, allowing `slack` points on every side.
    pub fn contains(&self, o: &BBox, slack: f32) -> bool {
        o.left >= self.left - slack
            && o.right <= self.right + slack
            && o.bottom >= self.bottom - slack
            && o.top <= self.top + slack
    }
}

/// Why two notes are linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// Consecutive text chunks of one document.
    Adjacent,
    /// A figure or table note and the text chunk that holds its caption or surrounds it.
    Caption,
    /// An explicit reference in the text ("Figure 3", "Table II") resolved to its target.
    Reference,
    /// Notes on the same page.
    SamePage,
}

/// A directed link from the note that holds it to `target` (a note id). Selectors that need an
/// undirected graph symmetrise it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Link {
    pub target: String,
    pub kind: LinkKind,
}

/// One unit of evidence. Field meanings follow `DESIGN.md` section 3.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Note {
    /// Stable id: `DOC#<kind tag><ordinal>` (see [`note_id`]); unique in an index.
    pub id: String,
    /// The document id: the file's path relative to the ingest root, with `/` separators.
    pub doc: String,
    /// 1-based page number for paged documents (PDF); `None` for Markdown, HTML and text.
    pub page: Option<u32>,
    /// The number printed on that page (in its header or footer: `12`, `xiv`), when the page
    /// shows one; it differs from `page` when a cover or front matter comes first. A question
    /// that names "page 12" may mean either.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_label: Option<String>,
    /// Boxes on `page` in PDF points (empty for unpaged documents).
    #[serde(default)]
    pub bbox: Vec<BBox>,
    pub kind: NoteKind,
    /// The text that is embedded and indexed: a chunk's text, or for a figure/table its
    /// caption, the text inside its region and nearby text.
    pub text: String,
    /// The caption of a figure or table.
    #[serde(default)]
    pub caption: Option<String>,
    /// About +-1000 words of running text around a figure or table. For the text note of a
    /// page of numbers (a statement), whose `text` leaves the amounts out: the page's text
    /// with them, which a reader is given in place of `text`. Neither searched nor embedded.
    #[serde(default)]
    pub context: Option<String>,
    /// A short extractive summary.
    #[serde(default)]
    pub summary: String,
    /// Keywords (TF-IDF within the document).
    #[serde(default)]
    pub keywords: Vec<String>,
    /// The heading path of the section the note is in, outermost first.
    #[serde(default)]
    pub section: Vec<String>,
    /// The fragment id of that section in an HTML or Markdown document (`guide.html#install`
    /// opens at it): the heading's `id` (or its section's), a GitHub-style slug of a Markdown
    /// heading. `None` for PDFs, text and headings without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// The image of a figure or table: for PDFs the crop PNG, relative to the crop folder the
    /// caller gave the parser; for Markdown/HTML the referenced image as written in the source.
    #[serde(default)]
    pub image: Option<String>,
    #[serde(default)]
    pub links: Vec<Link>,
}

impl Note {
    /// What a reader (a model answering from the evidence, an evidence pack) reads of the
    /// note: the `context` of a text note that has one (the note of a page of numbers: the
    /// page with its amounts), else `text`.
    pub fn reader_text(&self) -> &str {
        match (&self.kind, &self.context) {
            (NoteKind::Text, Some(page)) => page,
            _ => &self.text,
        }
    }

    /// Whether the note is the note of words of a page of numbers (a statement, a table
    /// without rules): a text note with a context, which no other text note has.
    pub fn is_page_of_numbers(&self) -> bool {
        self.kind == NoteKind::Text && self.context.is_some()
    }

    /// A note with the required fields set and everything else empty.
    pub fn new(
        id: impl Into<String>,
        doc: impl Into<String>,
        kind: NoteKind,
        text: impl Into<String>,
    ) -> Note {
        Note {
            id: id.into(),
            doc: doc.into(),
            page: None,
            page_label: None,
            bbox: Vec::new(),
            kind,
            text: text.into(),
            caption: None,
            context: None,
            summary: String::new(),
            keywords: Vec::new(),
            section: Vec::new(),
            anchor: None,
            image: None,
            links: Vec::new(),
        }
    }
}

/// The longest note of the default chunking, in encoder tokens (context line included),
/// whatever the encoder reads: notes are evidence units, and longer ones lose evidence recall
/// (on mmlb-dev with nomic-embed-text-v1.5, 480-token notes reach recall@10 66.9% where
/// 224-token notes reach 73.2%).
pub const NOTE_TOKENS: usize = 256;

/// Encoder tokens kept free at the head of every chunk for its context line
/// ([`context_line`]): chunks are cut at the encoder's length minus this, so the context never
/// pushes the note's own text past what the encoder reads.
pub const CONTEXT_TOKENS: usize = 32;

/// Where a note sits: the document's title and the note's section path, outermost first,
/// joined by ` > ` (`Annual Report > Risk factors > Liquidity`). Empty when the document has
/// no title and the note no section. It is put before the note's text when the note is
/// embedded and indexed for BM25, so that a chunk is searched knowing what it belongs to; the
/// note's own text (what is shown) does not change.
///
/// `fits` says whether a candidate line is short enough (the caller counts encoder tokens).
/// While it is not, the outermost sections after the title are dropped, then the title, then
/// words from the end: the innermost section says the most about the note.
pub fn context_line(
    title: Option<&str>,
    section: &[String],
    fits: &dyn Fn(&str) -> bool,
) -> String {
    let clean = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut parts: Vec<String> = title
        .map(clean)
        .into_iter()
        .chain(section.iter().map(|s| clean(s)))
        .filter(|s| !s.is_empty())
        .collect();
    parts.dedup();
    let has_title = title.is_some_and(|t| !clean(t).is_empty());
    loop {
        let line = parts.join(" > ");
        if line.is_empty() || fits(&line) {
            return line;
        }
        if parts.len() > 2 {
            // Keep the title (if any) and the innermost section; drop the one after the title.
            parts.remove(usize::from(has_title));
        } else if parts.len() == 2 {
            parts.remove(0);
        } else {
            let words: Vec<&str> = parts[0].split(' ').collect();
            if words.len() <= 1 {
                return String::new();
            }
            parts[0] = words[..words.len() - 1].join(" ");
        }
    }
}

/// The text that is embedded for a note: its context line, a line break, its text.
pub fn contextual_text(context: &str, text: &str) -> String {
    if context.is_empty() {
        text.to_string()
    } else {
        format!("{context}\n{text}")
    }
}

/// The stable id of the `ordinal`-th note of `kind` in document `doc`.
pub fn note_id(doc: &str, kind: NoteKind, ordinal: usize) -> String {
    format!("{doc}#{}{ordinal}", kind.tag())
}

/// A problem with part of a document that did not stop its parsing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// 1-based page, if the problem is on one page.
    pub page: Option<u32>,
    pub message: String,
}

/// Everything parsed from one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParsedDocument {
    /// Document id (relative path with `/`).
    pub doc: String,
    /// sha256 of the file's bytes, lowercase hex ([`content_hash`]). The parser leaves it empty;
    /// whoever hashed the file to decide to parse it sets it.
    pub hash: String,
    /// Title, when the document has one (PDF metadata, first heading, HTML title).
    pub title: Option<String>,
    /// Number of pages (1 for unpaged documents).
    pub pages: u32,
    /// Pages that have no text layer (1-based), or an unreadable one that OCR did not read.
    #[serde(default)]
    pub pages_without_text: Vec<u32>,
    /// Pages whose text comes from OCR: pages without a text layer, and those of
    /// [`unreadable_pages`](Self::unreadable_pages).
    #[serde(default)]
    pub ocr_pages: Vec<u32>,
    /// Pages whose text layer is unreadable (its characters are not the ones printed: a font
    /// without a correct Unicode map), read by OCR instead.
    #[serde(default)]
    pub unreadable_pages: Vec<u32>,
    pub notes: Vec<Note>,
    #[serde(default)]
    pub warnings: Vec<Warning>,
}

/// sha256 of bytes as lowercase hex: the content hash of a file.
pub fn content_hash(bytes: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        use std::fmt::Write;
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Counts encoder tokens of a text. The chunker sizes chunks with it; the encoder crate
/// supplies the real one, tests may supply a word counter.
pub trait TokenCounter: Send + Sync {
    fn count_tokens(&self, text: &str) -> usize;
}

/// Counts whitespace-separated words: a stand-in token counter for tests and for the
/// character-based chunking mode.
#[derive(Debug, Clone, Copy, Default)]
pub struct WordCounter;

impl TokenCounter for WordCounter {
    fn count_tokens(&self, text: &str) -> usize {
        text.split_whitespace().count()
    }
}

/// What the user can do about an error, when there is something: the `hint:` line the CLI
/// prints under it and the `hint` of the server's error body. Every library crate's error
/// implements it, so a caller asks one trait rather than each crate's error type.
pub trait Hint {
    fn hint(&self) -> Option<String>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_line_keeps_title_and_innermost_section_when_short_of_room() {
        let sec: Vec<String> = ["Part II", "Item 7.  Management's discussion", "Liquidity"]
            .map(String::from)
            .to_vec();
        let words = |max: usize| move |s: &str| s.split_whitespace().count() <= max;
        let any = |_: &str| true;
        assert_eq!(
            context_line(Some("ACME 10-K"), &sec, &any),
            "ACME 10-K > Part II > Item 7. Management's discussion > Liquidity"
        );
        // Outer sections go first, then the title, then words from the end.
        assert_eq!(
            context_line(Some("ACME 10-K"), &sec, &words(9)),
            "ACME 10-K > Item 7. Management's discussion > Liquidity"
        );
        assert_eq!(
            context_line(Some("ACME 10-K"), &sec, &words(4)),
            "ACME 10-K > Liquidity"
        );
        assert_eq!(
            context_line(Some("ACME 10-K"), &sec, &words(2)),
            "Liquidity"
        );
        assert_eq!(
            context_line(Some("A long report title"), &[], &words(2)),
            "A long"
        );
        assert_eq!(context_line(None, &[], &any), "");
        assert_eq!(context_line(Some("  "), &[], &any), "");
        assert_eq!(
            context_line(Some("Guide"), &["Guide".into()], &any),
            "Guide"
        );
        assert_eq!(contextual_text("", "body"), "body");
        assert_eq!(contextual_text("T > S", "body"), "T > S\nbody");
    }

    #[test]
    fn kinds_round_trip_through_strings_and_json() {
        for k in NoteKind::ALL {
            assert_eq!(k.as_str().parse::<NoteKind>().unwrap(), k);
            assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{k}\""));
        }
        assert!(
            "chart"
                .parse::<NoteKind>()
                .unwrap_err()
                .contains("text, figure or table")
        );
    }

    #[test]
    fn note_json_round_trip_and_defaults() {
        let mut n = Note::new(
            note_id("a/b.pdf", NoteKind::Figure, 2),
            "a/b.pdf",
            NoteKind::Figure,
            "Figure 2: x",
        );
        n.page = Some(4);
        n.bbox.push(BBox::new(10.0, 20.0, 110.0, 220.0));
        n.links.push(Link {
            target: "a/b.pdf#t1".into(),
            kind: LinkKind::Caption,
        });
        let json = serde_json::to_string(&n).unwrap();
        assert!(json.contains("\"kind\":\"figure\""));
        assert!(json.contains("\"kind\":\"caption\""));
        assert_eq!(serde_json::from_str::<Note>(&json).unwrap(), n);
        let minimal: Note = serde_json::from_str(
            r#"{"id":"x#t0","doc":"x","page":null,"kind":"text","text":"hi"}"#,
        )
        .unwrap();
        assert_eq!(minimal, Note::new("x#t0", "x", NoteKind::Text, "hi"));
    }

    #[test]
    fn bbox_geometry() {
        let a = BBox::new(0.0, 0.0, 10.0, 5.0);
        let b = BBox::new(5.0, -5.0, 20.0, 2.0);
        assert_eq!(a.area(), 50.0);
        assert_eq!(a.union(&b), BBox::new(0.0, -5.0, 20.0, 5.0));
        assert!(a.union(&b).contains(&a, 0.0));
        assert!(!a.contains(&b, 0.0));
        assert!(a.contains(&BBox::new(-1.0, 0.0, 10.0, 5.0), 1.0));
    }

    #[test]
    fn content_hash_is_sha256_hex() {
        assert_eq!(
            content_hash(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
