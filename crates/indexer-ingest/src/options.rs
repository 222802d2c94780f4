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
            file_timeout: Duration::from_secs(600),
            jobs: 1,
        }
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
    fn file_types_by_extension() {
        assert_eq!(supported(Path::new("a/b.PDF")), Some(FileType::Pdf));
        assert_eq!(supported(Path::new("x.markdown")), Some(FileType::Markdown));
        assert_eq!(supported(Path::new("x.htm")), Some(FileType::Html));
        assert_eq!(supported(Path::new("x.txt")), Some(FileType::Text));
        assert_eq!(supported(Path::new("x.docx")), None);
        assert_eq!(supported(Path::new("README")), None);
    }
}
