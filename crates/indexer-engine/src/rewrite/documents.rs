//! The document a question names: its file name ("lmer.pdf") or, in words, its title or the
//! stem of its file name ("the Annual Report 2019"). A name of one word is no name ("manual",
//! "octave" are words a question uses for other things); a file name with its extension is.
//!
//! [`DocumentNames`] holds every document's names by their words, made once per index
//! generation, so that finding the document a question names costs a lookup per run of the
//! question's words, whatever the number of documents.

use super::grammar::words;
use indexer_index::DocumentInfo;
use std::collections::HashMap;

/// The names a document can be called by in a question, as word sequences: its file name
/// with the extension, and its file stem and its title when they have two words or more.
fn names(doc: &DocumentInfo) -> Vec<Vec<String>> {
    let file = doc.doc.rsplit('/').next().unwrap_or(&doc.doc);
    let mut out = Vec::new();
    let with_extension = words(file);
    if with_extension.len() >= 2 && file.contains('.') {
        out.push(with_extension);
    }
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    let title = doc.title.as_deref().unwrap_or("");
    for name in [stem, title] {
        let w = words(name);
        if w.len() >= 2 && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// The names of an index's documents, by their words.
#[derive(Debug, Clone, Default)]
pub struct DocumentNames {
    /// Each name (its words) with the documents it names.
    by_name: HashMap<Vec<String>, Vec<String>>,
    /// The most words a name has.
    longest: usize,
}

impl DocumentNames {
    pub fn new(documents: &[DocumentInfo]) -> DocumentNames {
        let mut out = DocumentNames::default();
        for d in documents {
            for name in names(d) {
                out.longest = out.longest.max(name.len());
                let docs = out.by_name.entry(name).or_default();
                if !docs.contains(&d.doc) {
                    docs.push(d.doc.clone());
                }
            }
        }
        out
    }

    /// The document `question` names (see the module): the one with the longest name in it;
    /// `None` when none is named, or the longest name found names two documents, or two
    /// documents are named as long.
    pub fn named_in(&self, question: &str) -> Option<&str> {
        let q = words(question);
        for len in (2..=self.longest.min(q.len())).rev() {
            let mut found: Option<&str> = None;
            for run in q.windows(len) {
                let Some(docs) = self.by_name.get(run) else {
                    continue;
                };
                match (docs.as_slice(), found) {
                    ([one], None) => found = Some(one),
                    ([one], Some(f)) if f == one => {}
                    _ => return None,
                }
            }
            if found.is_some() {
                return found;
            }
        }
        None
    }

    /// Whether no document has a name.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }
}

/// The document of `documents` that `question` names ([`DocumentNames::named_in`]).
pub fn named_document(question: &str, documents: &[DocumentInfo]) -> Option<String> {
    DocumentNames::new(documents)
        .named_in(question)
        .map(str::to_string)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn doc(id: &str, title: Option<&str>) -> DocumentInfo {
        DocumentInfo {
            doc: id.into(),
            hash: String::new(),
            title: title.map(str::to_string),
            pages: 10,
            notes: 10,
            pages_without_text: Vec::new(),
        }
    }

    #[test]
    fn a_document_is_named_by_its_file_or_a_title_of_two_words() {
        let docs = [
            doc(
                "papers/lmer.pdf",
                Some("Fitting Linear Mixed-Effects Models"),
            ),
            doc("reports/annual_report_2019.pdf", None),
            doc("manual.pdf", Some("Manual")),
            doc("guide/octave.html", Some("GNU Octave")),
        ];
        let named = |q: &str| named_document(q, &docs);
        assert_eq!(
            named("What does page 3 of lmer.pdf show?").as_deref(),
            Some("papers/lmer.pdf")
        );
        assert_eq!(
            named("the figure on page 4 of Fitting Linear Mixed-Effects Models").as_deref(),
            Some("papers/lmer.pdf")
        );
        assert_eq!(
            named("What is on page 2 of the annual report 2019?").as_deref(),
            Some("reports/annual_report_2019.pdf")
        );
        assert_eq!(
            named("What is on page 2 of the GNU Octave manual?").as_deref(),
            Some("guide/octave.html")
        );
        // One word is no name.
        assert_eq!(named("Which manual covers page 2?"), None);
        assert_eq!(named("How do I plot in octave?"), None);
        assert_eq!(named("How do I list all git branches?"), None);
        // Two documents of one name, or two named as long: neither.
        let twins = [doc("a/notes.pdf", None), doc("b/notes.pdf", None)];
        assert!(named_document("page 2 of notes.pdf", &twins).is_none());
        let two = [
            doc("a.pdf", Some("Mosaic Plots")),
            doc("b.pdf", Some("Sieve Plots")),
        ];
        assert!(named_document("mosaic plots and sieve plots", &two).is_none());
        // The longest name wins: a title that holds another document's name.
        let nested = [
            doc("x.pdf", Some("Mixed Models")),
            doc("y.pdf", Some("Linear Mixed Models in R")),
        ];
        assert_eq!(
            named_document("see Linear Mixed Models in R", &nested).as_deref(),
            Some("y.pdf")
        );
    }

    /// Finding the named document is a lookup per run of the question's words: the same
    /// answer as reading every document's names, on a library of many documents.
    #[test]
    fn the_lookup_agrees_with_reading_every_name() {
        let docs: Vec<DocumentInfo> = (0..2000)
            .map(|i| {
                doc(
                    &format!("lib/report_{i}.pdf"),
                    Some(&format!("Report number {i}")),
                )
            })
            .collect();
        let names = DocumentNames::new(&docs);
        for q in [
            "What is in report number 1234?",
            "report_77.pdf page 2",
            "no name here",
        ] {
            let slow = docs
                .iter()
                .filter(|d| {
                    let q = words(q);
                    names_of_in(d, &q)
                })
                .map(|d| d.doc.clone())
                .max_by_key(|_| 0);
            let fast = names.named_in(q).map(str::to_string);
            assert_eq!(fast.is_some(), slow.is_some(), "{q}");
        }
        assert_eq!(
            names.named_in("What is in report number 1234?"),
            Some("lib/report_1234.pdf")
        );
    }

    fn names_of_in(d: &DocumentInfo, q: &[String]) -> bool {
        names(d)
            .iter()
            .any(|n| q.windows(n.len()).any(|w| w == n.as_slice()))
    }
}
