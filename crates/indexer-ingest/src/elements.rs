//! Page elements: what the PDF worker sends back to the parent, in reading order.

use indexer_notes::{BBox, NoteKind, Warning};
use serde::{Deserialize, Serialize};

/// Between the cells of a table row, wherever a table's text is written (PDF tables, Markdown
/// and HTML tables), so that a table reads the same whatever it came from.
pub(crate) const CELL_SEPARATOR: &str = " | ";

/// What a text line is to the notes built from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum LineRole {
    /// Running text.
    #[default]
    Body,
    /// A running header or footer (the same text at the same place on many pages), or a
    /// page number: kept out of chunks.
    Furniture,
    /// Part of the caption of region `n` of the page.
    Caption(u32),
    /// Text inside the graphic of region `n` (axis labels, table cells).
    Inside(u32),
}

/// One text line built from character boxes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextLine {
    pub text: String,
    pub bbox: BBox,
    /// The most common font size of the line's characters, in points.
    pub size: f32,
    /// The line ended in a hyphenated break: join the next line without a space.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hyphen: bool,
    /// The line starts a new block (paragraph, column or region change).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub block_start: bool,
    #[serde(default)]
    pub role: LineRole,
    /// The left and right ends of the line's words, in the frame the line was built in (the
    /// page as shown): what table detection reads cells from. Not sent from the worker.
    #[serde(skip)]
    pub words: Vec<(f32, f32)>,
}

/// A figure or table found on a page: a graphic paired with its caption.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Region {
    pub kind: NoteKind,
    /// The ordinal of this region among the document's regions of the same kind: the
    /// note id and the crop file name use it.
    pub ordinal: u32,
    /// The graphic's box (without the caption).
    pub bbox: BBox,
    pub caption: String,
    pub caption_bbox: BBox,
    /// The label the text refers to it by, normalised: `figure 3`, `table ii`, `figure 15.1`.
    pub label: String,
    /// Text inside the graphic's box.
    pub inside: String,
    /// The crop file name, relative to the crop folder.
    pub image: Option<String>,
}

/// The elements of one page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageElements {
    /// 1-based page number.
    pub page: u32,
    pub width: f32,
    pub height: f32,
    pub lines: Vec<TextLine>,
    #[serde(default)]
    pub regions: Vec<Region>,
}

/// Everything the worker extracts from one PDF.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PdfElements {
    pub title: Option<String>,
    pub pages: Vec<PageElements>,
    pub pages_without_text: Vec<u32>,
    /// Pages read by OCR (see `ParsedDocument::ocr_pages`).
    #[serde(default)]
    pub ocr_pages: Vec<u32>,
    /// Pages whose unreadable text layer was dropped for OCR's text.
    #[serde(default)]
    pub unreadable_pages: Vec<u32>,
    pub warnings: Vec<Warning>,
}

/// Pages larger than this many points on a side are rendered at a lower resolution, so a
/// crop never needs a bitmap of gigabytes (PDF allows pages of 14,400 pt, 5 m at 72 dpi).
pub(crate) const LARGE_PAGE_PT: f32 = 3000.0;
