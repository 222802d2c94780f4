//! What the rules read of a question's grammar, without a dictionary: its words, the closed
//! classes of English (determiners, pronouns, prepositions, conjunctions, auxiliaries, question
//! words), and the forms a question takes (a question to the reader, a how-to question, an
//! imperative, a program's name as its topic label). Closed classes are the words a language
//! does not add to; a word outside them is a content word, whatever the corpus.

use std::ops::Range;

/// Determiners: what points at one thing or some ("the second page", "a PDF").
pub(crate) const DETERMINERS: &[&str] = &[
    "the", "this", "that", "these", "those", "its", "their", "our", "your", "my", "his", "her",
    "a", "an", "any", "each", "every", "some", "all", "both", "no",
];

/// Articles and quantifiers that make a noun generic: "a PDF", "any document" is not this one.
pub(crate) const INDEFINITE: &[&str] = &["a", "an", "any", "every", "each", "some"];

/// Personal and other pronouns.
pub(crate) const PRONOUNS: &[&str] = &[
    "i",
    "me",
    "you",
    "we",
    "us",
    "they",
    "them",
    "it",
    "he",
    "him",
    "she",
    "one",
    "myself",
    "yourself",
    "itself",
    "themselves",
    "something",
    "anything",
    "everything",
];

/// Prepositions.
pub(crate) const PREPOSITIONS: &[&str] = &[
    "about",
    "above",
    "across",
    "after",
    "against",
    "along",
    "among",
    "around",
    "as",
    "at",
    "before",
    "behind",
    "below",
    "beside",
    "besides",
    "between",
    "beyond",
    "by",
    "during",
    "except",
    "for",
    "from",
    "in",
    "inside",
    "into",
    "like",
    "near",
    "of",
    "off",
    "on",
    "onto",
    "out",
    "outside",
    "over",
    "per",
    "since",
    "than",
    "through",
    "throughout",
    "to",
    "toward",
    "towards",
    "under",
    "until",
    "up",
    "upon",
    "versus",
    "via",
    "with",
    "within",
    "without",
];

/// Conjunctions.
pub(crate) const CONJUNCTIONS: &[&str] = &[
    "and", "or", "but", "nor", "so", "yet", "if", "because", "while", "whether", "although",
    "though", "unless", "then",
];

/// Auxiliary and modal verbs.
pub(crate) const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "have", "has",
    "had", "can", "could", "may", "might", "must", "shall", "should", "will", "would",
];

/// Auxiliaries that leave the main verb for later ("What does the cover show?").
pub(crate) const DO_SUPPORT: &[&str] = &[
    "do", "does", "did", "can", "could", "may", "might", "must", "shall", "should", "will", "would",
];

/// Question words.
pub(crate) const QUESTION_WORDS: &[&str] = &[
    "what", "which", "who", "whom", "whose", "where", "when", "why", "how",
];

/// Adverbs and particles of the closed classes ("not", "also", "only").
pub(crate) const PARTICLES: &[&str] = &[
    "not", "also", "only", "just", "very", "too", "there", "here", "please", "e", "g", "eg", "ie",
    "etc", "such",
];

/// Number words: they count, they name nothing.
pub(crate) const NUMBER_WORDS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "first",
    "second", "third", "last",
];

/// Whether `w` (lower case) is a word of a closed class, or a number.
pub(crate) fn is_closed_class(w: &str) -> bool {
    w.bytes().all(|b| b.is_ascii_digit())
        || [
            DETERMINERS,
            PRONOUNS,
            PREPOSITIONS,
            CONJUNCTIONS,
            AUXILIARIES,
            QUESTION_WORDS,
            PARTICLES,
            NUMBER_WORDS,
        ]
        .iter()
        .any(|class| class.contains(&w))
}

/// Whether `w` (lower case) is a function word: a word of a closed class other than a number.
pub(crate) fn is_function_word(w: &str) -> bool {
    [
        DETERMINERS,
        PRONOUNS,
        PREPOSITIONS,
        CONJUNCTIONS,
        AUXILIARIES,
        QUESTION_WORDS,
        PARTICLES,
    ]
    .iter()
    .any(|class| class.contains(&w))
}

/// The words of `text`, lower case, letters and digits only, each with its byte range.
pub(crate) fn words_with_spans(text: &str) -> Vec<(String, Range<usize>)> {
    let mut out = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(at),
            (false, Some(s)) => {
                out.push((text[s..at].to_lowercase(), s..at));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((text[s..].to_lowercase(), s..text.len()));
    }
    out
}

/// The words of `text`, lower case.
pub(crate) fn words(text: &str) -> Vec<String> {
    words_with_spans(text).into_iter().map(|(w, _)| w).collect()
}

/// The question without a topic label in front ("Vim: jump to the last page", "LaTeX -
/// number the pages"): the label's end, if there is one. A label is a few words before a colon
/// or a spaced dash at the start, without a verb of the closed classes, so "Note: what is ..."
/// and "What is it: a or b" are read the same way (a label is only ever the first words).
pub(crate) fn label_end(question: &str) -> Option<usize> {
    let head = question.trim_start();
    let offset = question.len() - head.len();
    let (at, sep) = [": ", " - ", " — "]
        .into_iter()
        .filter_map(|sep| Some((head.find(sep)?, sep)))
        .min()?;
    let label = &head[..at];
    let w = words(label);
    // A label names a topic: one to three words, none a question word or an auxiliary.
    let names_a_topic = (1..=3).contains(&w.len())
        && !w
            .iter()
            .any(|x| QUESTION_WORDS.contains(&x.as_str()) || AUXILIARIES.contains(&x.as_str()));
    names_a_topic.then(|| offset + at + sep.trim_end().len())
}

/// Whether `question` opens with a topic label (see [`label_end`]): a question about a
/// program or a subject, "Vim: jump to the last page".
pub(crate) fn has_topic_label(question: &str) -> bool {
    label_end(question).is_some()
}

/// Whether `question` asks how to do something ("How do I ...", "How can we ...", "How to
/// ..."): a question about a task, not about what a document shows.
pub(crate) fn is_how_to(question: &str) -> bool {
    let start = label_end(question).unwrap_or(0);
    let w = words(&question[start..]);
    match w.as_slice() {
        [how, to, ..] if how == "how" && to == "to" => true,
        [how, aux, who, ..] if how == "how" && AUXILIARIES.contains(&aux.as_str()) => {
            matches!(who.as_str(), "i" | "we" | "you" | "one")
        }
        _ => false,
    }
}

/// Whether `text` is put as a question: it ends with a question mark or opens with a
/// question word or an auxiliary ("What was the revenue in 2015.", "Is it ...").
pub(crate) fn is_interrogative(text: &str) -> bool {
    let text = text.trim();
    if text.ends_with('?') {
        return true;
    }
    words(text)
        .first()
        .is_some_and(|w| QUESTION_WORDS.contains(&w.as_str()) || AUXILIARIES.contains(&w.as_str()))
}

/// Verbs that ask the reader about a text when they open an imperative ("Summarise pages
/// 3-5", "List the figures on page 2", "Tell me what slide 4 shows"): a request put to the
/// reader, as a question is.
pub(crate) const READING_VERBS: &[&str] = &[
    "compare",
    "count",
    "describe",
    "explain",
    "find",
    "identify",
    "list",
    "name",
    "read",
    "summarise",
    "summarize",
    "tell",
];

/// Verbs that open an imperative that acts on a document or a program ("Print pages 1-5",
/// "Insert a page after page 10", "jump to the last page"), in their base form: the tasks a
/// manual's reader asks how to do. A query that opens with another word ("table on page 3",
/// "pages 2 and 3") is about what a document holds.
pub(crate) const ACTION_VERBS: &[&str] = &[
    "add",
    "align",
    "annotate",
    "append",
    "attach",
    "avoid",
    "bookmark",
    "break",
    "center",
    "centre",
    "change",
    "close",
    "combine",
    "compress",
    "configure",
    "convert",
    "copy",
    "create",
    "crop",
    "cut",
    "delete",
    "disable",
    "display",
    "download",
    "duplicate",
    "edit",
    "embed",
    "enable",
    "export",
    "extract",
    "fill",
    "fit",
    "flip",
    "force",
    "format",
    "generate",
    "get",
    "go",
    "hide",
    "highlight",
    "import",
    "insert",
    "install",
    "jump",
    "keep",
    "link",
    "load",
    "lock",
    "make",
    "merge",
    "move",
    "navigate",
    "number",
    "open",
    "paste",
    "prevent",
    "print",
    "protect",
    "put",
    "remove",
    "rename",
    "render",
    "renumber",
    "reorder",
    "replace",
    "reset",
    "resize",
    "restart",
    "restore",
    "rotate",
    "run",
    "save",
    "scale",
    "scroll",
    "select",
    "send",
    "set",
    "share",
    "shrink",
    "sign",
    "skip",
    "sort",
    "split",
    "start",
    "stop",
    "suppress",
    "switch",
    "turn",
    "undo",
    "unlock",
    "update",
    "upload",
    "use",
    "view",
    "zoom",
];

/// Whether `question` is an imperative that acts rather than reads: it is no question, and
/// it opens (after a topic label) with a verb of [`ACTION_VERBS`], or with a program's name
/// and then one, as a search of a man page does ("lpr print pages 2 to 4").
pub(crate) fn is_action(question: &str) -> bool {
    let start = label_end(question).unwrap_or(0);
    let rest = &question[start..];
    let w = words(rest);
    let acts = |i: usize| w.get(i).is_some_and(|x| ACTION_VERBS.contains(&x.as_str()));
    !is_interrogative(rest)
        && (acts(0) || (w.first().is_some_and(|x| !is_closed_class(x)) && acts(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_how_to_questions_and_actions() {
        assert_eq!(label_end("Vim: jump to the last page"), Some(4));
        assert!(has_topic_label("LaTeX - number the pages"));
        assert!(!has_topic_label("What is it: a or b?"));
        assert!(!has_topic_label("How many people are in the pictures?"));
        for q in [
            "How do I make the first page different in Word?",
            "How to jump to slide 3 in PowerPoint",
            "how can we sign a PDF on page 2",
            "Git: how do I undo the last commit?",
        ] {
            assert!(is_how_to(q), "{q}");
        }
        for q in [
            "How many pages does it have?",
            "How does the chart on page 5 compare the years?",
            "What is on page 3?",
        ] {
            assert!(!is_how_to(q), "{q}");
        }
        for q in [
            "Print pages 1-5 of a PDF with lp",
            "hide the page number on the first page in LaTeX",
            "Insert a blank page after page 10",
            "Vim: jump to the last page",
            "lpr print pages 2 to 4",
        ] {
            assert!(is_action(q), "{q}");
        }
        for q in [
            "Summarise pages 3-5.",
            "Tell me all the pages that show a map",
            "table on page 3",
            "pages 2 and 3",
            "slides 1-3 summary",
            "In the picture on page 50, what time does the bar start?",
            "Looking at the slide of the overview, which share grew?",
            "What is the title of the slide?",
            "Besides the two companies on page 42, which number is given?",
        ] {
            assert!(!is_action(q), "{q}");
        }
    }

    #[test]
    fn interrogatives() {
        assert!(is_interrogative("What was the revenue in 2015."));
        assert!(is_interrogative("Does it run on Windows"));
        assert!(is_interrogative("Python lists?"));
        assert!(!is_interrogative("Excel: convert text to numbers."));
        assert!(!is_interrogative("Rust. Write a string to a file"));
    }

    #[test]
    fn words_keep_their_place() {
        let t = "Résumé — «page 12»";
        let w = words_with_spans(t);
        assert_eq!(w.len(), 3);
        assert_eq!(&t[w[1].1.clone()], "page");
        assert_eq!(w[2].0, "12");
    }
}
