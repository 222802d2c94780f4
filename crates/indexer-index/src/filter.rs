//! Which notes a search may return: [`Filter`], applied inside both searches.

use indexer_notes::{Note, NoteKind};

/// Restricts candidates to some documents, kinds and pages. Empty lists mean "any".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub docs: Vec<String>,
    pub kinds: Vec<NoteKind>,
    /// Inclusive 1-based page range. Notes of unpaged documents have no page and never match
    /// a page range.
    pub pages: Option<(u32, u32)>,
}

impl Filter {
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty() && self.kinds.is_empty() && self.pages.is_none()
    }

    /// Whether a note passes the filter: the rule the searches apply inside their queries.
    pub fn matches(&self, note: &Note) -> bool {
        (self.docs.is_empty() || self.docs.contains(&note.doc))
            && (self.kinds.is_empty() || self.kinds.contains(&note.kind))
            && self
                .pages
                .is_none_or(|(a, b)| note.page.is_some_and(|p| p >= a && p <= b))
    }
}
