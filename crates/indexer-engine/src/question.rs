//! A question as retrieval reads it ([`SearchedQuestion`]: what the rewrite stage made of it,
//! its expansions and its vector, found once and passed on) and what a response says was
//! changed of it ([`Rewrite`], [`NamedPage`]).

use crate::rewrite::{PageReferences, Reason, Rewritten};
use indexer_index::Expansions;
use serde::Serialize;
use std::borrow::Cow;

/// What retrieval reads of a question (`Engine::searched_question`), found once and passed on
/// to the first stage, the named pages and selection.
#[derive(Debug, Clone)]
pub struct SearchedQuestion<'q> {
    /// The question as typed (trimmed): what a response and the reader of `ask` get.
    pub typed: &'q str,
    /// What the first stage searches: `kept`, then the words `related` adds. Its expansions
    /// and its vector are those below.
    pub searched: Cow<'q, str>,
    /// The question's own words that are searched: `typed` without `dropped`. Snippets mark
    /// its terms.
    pub kept: &'q str,
    /// The closing instructions about the answer left out of the search; empty when none
    /// were.
    pub dropped: &'q str,
    /// Words added to the search (a financial measure's line items and statement titles, a
    /// fiscal year's bare year); empty when none were.
    pub related: Vec<String>,
    /// The pages the question names of a known document, which the ranking stage puts first.
    pub pages: Option<PageReferences>,
    /// What each rule changed and why, in the stage's order; empty when nothing was.
    pub reasons: Vec<Reason>,
    /// Completions and corrections of the searched words in the index.
    pub expansions: Expansions,
    /// The vector of `searched`, with its misspelt or unfinished words repaired.
    pub vector: Vec<f32>,
}

impl<'q> SearchedQuestion<'q> {
    /// A rewritten question with its expansions and vector.
    pub(crate) fn new(r: Rewritten<'q>, expansions: Expansions, vector: Vec<f32>) -> Self {
        SearchedQuestion {
            typed: r.typed,
            searched: r.searched,
            kept: r.kept,
            dropped: r.dropped,
            related: r.related,
            pages: r.pages,
            reasons: r.reasons,
            expansions,
            vector,
        }
    }
}

/// What a search changed of its query before searching it, so that a reader sees it: the text
/// it searched, the instructions it left out, the words it added, the pages it put first, and
/// why. `None` in a response when it changed nothing; a request with `rewrite` off searches
/// the query as typed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Rewrite {
    /// The text retrieval searched, when it is not the query: the query without `dropped`,
    /// with `related` after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub searched: Option<String>,
    /// The instructions about the answer left out of the search ("Answer in millions.").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped: Option<String>,
    /// Words added to the search: the line items of a financial measure the query names
    /// ("return on assets": "net income total assets"), the titles of the statements that
    /// print them ("consolidated balance sheets"), and the year of a fiscal-year label
    /// ("FY2019": "2019").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<String>,
    /// The pages put first among the candidates, those the phrase names first and then the
    /// places in the file of named numbers that another page shows.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub named_pages: Vec<NamedPage>,
    /// Each rule that changed something (`instructions`, `terms`, `pages`) and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<Reason>,
}

impl Rewrite {
    /// What was changed of a question searched with `named_pages` put first; `None` when
    /// nothing was.
    pub fn of(question: &SearchedQuestion<'_>, named_pages: Vec<NamedPage>) -> Option<Rewrite> {
        let dropped = !question.dropped.is_empty();
        let related = !question.related.is_empty();
        // A rule that found pages none of which has a note the filter lets through changed
        // nothing: its reason is not shown.
        let reasons: Vec<Reason> = question
            .reasons
            .iter()
            .filter(|r| r.rule != crate::rewrite::RuleKind::Pages || !named_pages.is_empty())
            .cloned()
            .collect();
        (dropped || related || !named_pages.is_empty()).then(|| Rewrite {
            searched: (dropped || related).then(|| question.searched.to_string()),
            dropped: dropped.then(|| question.dropped.to_string()),
            related: question.related.clone(),
            named_pages,
            reasons,
        })
    }

    /// What the search changed of the query's words, for a person to read: `left out: "…"`
    /// for the instructions it dropped, `added: "…"` for the words it added, joined by "; ".
    /// `None` when it searched the query's own words (it only put named pages first).
    pub fn changed_words(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(dropped) = &self.dropped {
            parts.push(format!("left out: {dropped:?}"));
        }
        if !self.related.is_empty() {
            parts.push(format!("added: {:?}", self.related.join(" ")));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// A page put first because the question names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NamedPage {
    /// The document's id.
    pub doc: String,
    /// The page's place in the file, 1-based.
    pub page: u32,
    /// The words of the question that name it ("page 12", "the last page", "on the cover").
    pub phrase: String,
}

/// `doc p.N ("phrase")`: how a person reads a named page in text output.
impl std::fmt::Display for NamedPage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} p.{} ({:?})", self.doc, self.page, self.phrase)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::tests::FixedScope;
    use crate::rewrite::{Rules, rewrite};

    fn read<'q>(question: &'q str, scope: &FixedScope) -> SearchedQuestion<'q> {
        let r = rewrite(question, Rules::ALL, scope).unwrap();
        SearchedQuestion::new(r, Expansions::default(), Vec::new())
    }

    #[test]
    fn a_rewrite_shows_the_words_added_what_was_searched_and_why() {
        let none = FixedScope::default();
        let q = read(
            "What is the company's FY2017 return on assets? Answer in percent.",
            &none,
        );
        let r = Rewrite::of(&q, Vec::new()).expect("rewritten");
        assert_eq!(r.dropped.as_deref(), Some("Answer in percent."));
        let added = "net income total assets consolidated balance sheets consolidated \
                     statements of operations income 2017";
        assert_eq!(r.related.join(" "), added);
        assert_eq!(
            r.searched,
            Some(format!(
                "What is the company's FY2017 return on assets? {added}"
            ))
        );
        assert_eq!(
            r.changed_words(),
            Some(format!(
                r#"left out: "Answer in percent."; added: "{added}""#
            ))
        );
        let rules: Vec<&str> = r.reasons.iter().map(|x| x.rule.as_str()).collect();
        assert_eq!(rules, ["instructions", "terms"]);
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["reasons"][0]["rule"], "instructions");
        assert!(
            json["reasons"][1]["why"]
                .as_str()
                .unwrap()
                .contains("return on assets")
        );
        // Only words added, or only a page put first: the text says just that.
        let added = Rewrite::of(
            &read("How many stores were open in FY2019?", &none),
            Vec::new(),
        );
        assert_eq!(
            added.unwrap().changed_words().as_deref(),
            Some(r#"added: "2019""#)
        );
        let page = NamedPage {
            doc: "docs/a.pdf".into(),
            page: 12,
            phrase: "page 12".into(),
        };
        assert_eq!(page.to_string(), r#"docs/a.pdf p.12 ("page 12")"#);
        let scope = FixedScope::filtered("docs/a.pdf");
        let named = Rewrite::of(&read("What is on page 12?", &scope), vec![page]).unwrap();
        assert_eq!(named.changed_words(), None);
        assert_eq!(named.reasons[0].rule.as_str(), "pages");
        // Pages found but none put first (no note of them passes the filter): no rewrite.
        assert_eq!(
            Rewrite::of(&read("What is on page 12?", &scope), Vec::new()),
            None
        );
        // Nothing added, nothing dropped, no page named: no rewrite to show.
        assert_eq!(
            Rewrite::of(&read("How do I list all git branches?", &none), Vec::new()),
            None
        );
    }
}
