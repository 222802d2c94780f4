//! The document a question names: its file name ("lmer.pdf") or, in words, its title or the
//! stem of its file name ("the Annual Report 2019"). A name of one word is no name ("manual",
//! "octave" are words a question uses for other things); a file name with its extension is.

use super::grammar::words;
use indexer_index::DocumentInfo;

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
        if w.len() >= 2 {
            out.push(w);
        }
    }
    out
}

/// Whether `words` holds `name` as consecutive words.
fn holds(words: &[String], name: &[String]) -> bool {
    !name.is_empty() && words.windows(name.len()).any(|w| w == name)
}

/// The document of `documents` that `question` names (see the module): the one with the
/// longest name in it; `None` when none is named, or two are named as long.
pub fn named_document<'d>(
    question: &str,
    documents: &'d [DocumentInfo],
) -> Option<&'d DocumentInfo> {
    let q = words(question);
    let mut best: Option<(usize, &DocumentInfo)> = None;
    let mut tied = false;
    for d in documents {
        let Some(len) = names(d).iter().filter(|n| holds(&q, n)).map(Vec::len).max() else {
            continue;
        };
        match best {
            Some((b, _)) if b > len => {}
            Some((b, _)) if b == len => tied = true,
            _ => {
                best = Some((len, d));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(_, d)| d)
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
        let named = |q: &str| named_document(q, &docs).map(|d| d.doc.as_str());
        assert_eq!(
            named("What does page 3 of lmer.pdf show?"),
            Some("papers/lmer.pdf")
        );
        assert_eq!(
            named("the figure on page 4 of Fitting Linear Mixed-Effects Models"),
            Some("papers/lmer.pdf")
        );
        assert_eq!(
            named("What is on page 2 of the annual report 2019?"),
            Some("reports/annual_report_2019.pdf")
        );
        assert_eq!(
            named("What is on page 2 of the GNU Octave manual?"),
            Some("guide/octave.html")
        );
        // One word is no name.
        assert_eq!(named("Which manual covers page 2?"), None);
        assert_eq!(named("How do I plot in octave?"), None);
        assert_eq!(named("How do I list all git branches?"), None);
        // Two documents named as long: neither.
        let twins = [doc("a/notes.pdf", None), doc("b/notes.pdf", None)];
        assert!(named_document("page 2 of notes.pdf", &twins).is_none());
    }
}
