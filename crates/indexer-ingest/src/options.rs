use std::path::Path;
use std::time::Duration;

/// How running text is cut into chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chunking {
    /// Chunks of at most `max` encoder tokens (counted by the caller's
    /// [`TokenCounter`](indexer_notes::TokenCounter)), consecutive chunks sharing about
    /// `overlap` tokens. The default: the encoder's max length with about 10% overlap.
    Tokens { max: usize, overlap: usize },
    /// Chunks of at most `size` characters sharing about `overlap` characters: the paper's
    /// setting is 3000/300.
    Chars { size: usize, overlap: usize },
}

impl Chunking {
    /// The paper's setting: 3000-character chunks with 300 overlap.
    pub const PAPER: Chunking = Chunking::Chars {
        size: 3000,
        overlap: 300,
    };

    /// `max` tokens with 10% overlap.
    pub fn tokens(max: usize) -> Chunking {
        Chunking::Tokens {
            max,
            overlap: max / 10,
        }
    }
}

/// What ingestion does with each file.
#[derive(Debug, Clone)]
pub struct IngestOptions {
    pub chunking: Chunking,
    /// Words of running text kept on each side of a figure or table as its local context
    /// (the design's "about +-1000 words").
    pub context_words: usize,
    /// Whether figure and table regions are rendered and cropped to PNG files.
    pub crops: bool,
    /// Resolution of the renders that crops are cut from.
    pub dpi: f32,
    /// Whether raster pictures on pages with a text layer (charts, diagrams, screenshots)
    /// are read by OCR, so that their words are indexed. Pages without a text layer are
    /// read by OCR either way. Off by default: on mmlb-dev it makes ingest 21% slower and
    /// leaves gold-page recall where it was.
    pub ocr_pictures: bool,
    /// Whether tables are also found from the alignment of their text (rows of cells in
    /// columns), without ruling lines or a caption: 10-K statements, report tables. Each
    /// becomes a table note (its rows, cut into parts that repeat the column heads) with a
    /// crop. Off by default: table recall on hand-labelled pages goes from 21% to 74%, but
    /// on mmlb-dev the extra notes cost 2 points of recall@10 (docs/evaluation.md, "Tables without
    /// rules").
    pub aligned_tables: bool,
    /// How long a worker process may go without finishing a page (or, after the last page,
    /// the file) before it is stopped and the file fails.
    pub file_timeout: Duration,
    /// Number of worker processes.
    pub jobs: usize,
}

impl Default for IngestOptions {
    fn default() -> Self {
        IngestOptions {
            chunking: Chunking::tokens(256),
            context_words: 1000,
            crops: true,
            dpi: 150.0,
            ocr_pictures: false,
            aligned_tables: false,
            file_timeout: Duration::from_secs(600),
            jobs: 1,
        }
    }
}

/// How this version makes notes of a file. Raised whenever a change to parsing or chunking
/// changes the notes of a file whose bytes and options are unchanged, so that the next ingest
/// parses it again instead of keeping notes made the old way. Indexes made before it existed
/// stored no revision (read as 1). 2: every page with text starts a note, and notes know the
/// number printed on their page. 3: a page whose text layer is unreadable is read by OCR.
/// 4: the overlap a chunk carries over is never a note of its own (no note is the end of the
/// note before). 5: a page of numbers (a statement) gets a note of its words without the
/// amounts (`notes/number_pages.rs`).
pub const NOTES_REVISION: u32 = 5;

impl IngestOptions {
    /// What a file's notes were made with, as a short string: the [`NOTES_REVISION`], then
    /// the options that change notes (chunking, context, crops and their resolution, OCR of
    /// pictures, aligned tables) where they differ from the defaults. An index keeps it per
    /// document, so that an ingest with other settings or a newer parser parses unchanged
    /// files again instead of keeping notes made otherwise.
    pub fn parse_settings(&self) -> String {
        let d = IngestOptions::default();
        let mut parts = vec![format!("notes={NOTES_REVISION}")];
        if self.chunking != d.chunking {
            parts.push(match self.chunking {
                Chunking::Tokens { max, overlap } => format!("chunks={max}/{overlap}tokens"),
                Chunking::Chars { size, overlap } => format!("chunks={size}/{overlap}chars"),
            });
        }
        if self.context_words != d.context_words {
            parts.push(format!("context={}", self.context_words));
        }
        if self.crops != d.crops {
            parts.push(format!("crops={}", if self.crops { "on" } else { "off" }));
        }
        if self.crops && self.dpi != d.dpi {
            parts.push(format!("dpi={}", self.dpi));
        }
        if self.ocr_pictures != d.ocr_pictures {
            parts.push(format!(
                "ocr-pictures={}",
                if self.ocr_pictures { "on" } else { "off" }
            ));
        }
        if self.aligned_tables != d.aligned_tables {
            parts.push(format!(
                "aligned-tables={}",
                if self.aligned_tables { "on" } else { "off" }
            ));
        }
        parts.join(" ")
    }
}

/// The kinds of files ingestion reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileType {
    Pdf,
    Markdown,
    Html,
    Text,
}

/// The file type of `path` by its extension (case-insensitive), or `None` if ingestion does
/// not read such files.
pub fn supported(path: &Path) -> Option<FileType> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "pdf" => Some(FileType::Pdf),
        "md" | "markdown" => Some(FileType::Markdown),
        "html" | "htm" => Some(FileType::Html),
        "txt" => Some(FileType::Text),
        _ => None,
    }
}

/// Parsing progress of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Pages done so far (1-based count).
    pub page: u32,
    pub pages: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_settings_name_what_differs_from_the_defaults() {
        let rev = format!("notes={NOTES_REVISION}");
        let d = IngestOptions::default();
        assert_eq!(d.parse_settings(), rev);
        // Indexes made before the revision stored nothing for the defaults: their files are
        // parsed again.
        assert_ne!(d.parse_settings(), "");
        // Worker count and time limit do not change notes.
        let o = IngestOptions {
            jobs: 8,
            file_timeout: Duration::from_secs(1),
            ..IngestOptions::default()
        };
        assert_eq!(o.parse_settings(), rev);
        let o = IngestOptions {
            chunking: Chunking::PAPER,
            crops: false,
            dpi: 300.0,
            ocr_pictures: true,
            aligned_tables: true,
            ..IngestOptions::default()
        };
        assert_eq!(
            o.parse_settings(),
            format!("{rev} chunks=3000/300chars crops=off ocr-pictures=on aligned-tables=on")
        );
        let o = IngestOptions {
            dpi: 300.0,
            ..IngestOptions::default()
        };
        assert_eq!(o.parse_settings(), format!("{rev} dpi=300"));
    }

    #[test]
    fn file_types_by_extension() {
        assert_eq!(supported(Path::new("a/b.PDF")), Some(FileType::Pdf));
        assert_eq!(supported(Path::new("x.markdown")), Some(FileType::Markdown));
        assert_eq!(supported(Path::new("x.htm")), Some(FileType::Html));
        assert_eq!(supported(Path::new("x.txt")), Some(FileType::Text));
        assert_eq!(supported(Path::new("x.docx")), None);
        assert_eq!(supported(Path::new("README")), None);
    }
}
