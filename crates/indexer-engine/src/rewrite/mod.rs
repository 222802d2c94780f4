//! The rewrite stage: the one place a question is read before it is searched. Each rule is a
//! value behind [`Rule`]: it reads the question (as the rules before it left it) and what it
//! needs of the index ([`Scope`]: its documents, the request's document filter, whether a
//! document searched has statement pages), and returns what it changes and why ([`Change`]).
//! [`rewrite`] runs the rules a request switches on ([`Rules`]) in one order and gives
//! [`Rewritten`]: what the first stage searches and what a response says was changed.
//!
//! The rules:
//! - `instructions` ([`instructions`]): closing sentences about the answer's form ("Answer in
//!   millions.") are left out of the search;
//! - `terms` ([`terms`]): a financial measure, in a financial context, brings the line items it
//!   is computed from and the titles of the statements that print them;
//! - `pages` ([`pages`]): pages a question names of a known document ("page 12", "slides 3-5")
//!   are found, and the ranking stage (`named_pages`) puts their notes first.
//!
//! Like a query parser that only parses, no rule guesses from a benchmark: each reads only
//! what the question's words and grammar say (`grammar`).

mod documents;
mod grammar;
pub(crate) mod instructions;
pub(crate) mod pages;
mod rule;
pub(crate) mod terms;

pub use documents::{DocumentNames, named_document};
pub(crate) use grammar::is_function_word;
pub use rule::{Change, Draft, PageRef, PageReferences, Reason, Rule, RuleKind, Rules, Scope};

use crate::Result;
use std::borrow::Cow;

/// A question after the stage: what the first stage searches, and what was changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Rewritten<'q> {
    /// The question as typed (trimmed).
    pub typed: &'q str,
    /// The question's words that are searched: `typed` without `dropped`.
    pub kept: &'q str,
    /// The closing instructions left out; empty when none were.
    pub dropped: &'q str,
    /// Words added to the search.
    pub related: Vec<String>,
    /// What the first stage searches: `kept`, then `related`.
    pub searched: Cow<'q, str>,
    /// The pages the question names of a known document, for the ranking stage.
    pub pages: Option<PageReferences>,
    /// Each change with its rule and reason, in the stage's order.
    pub reasons: Vec<Reason>,
}

/// The pages `question` names of the document `doc`, taken as known (a search filtered to
/// it), as the `pages` rule reads them; empty when it names none, or asks how to do
/// something.
pub fn pages_named_in(question: &str, doc: &str) -> Vec<PageRef> {
    /// A scope of one document, filtered to.
    struct One<'a>(&'a [String]);
    impl Scope for One<'_> {
        fn named_document(&self, _question: &str) -> Result<Option<String>> {
            Ok(None)
        }
        fn filter_docs(&self) -> &[String] {
            self.0
        }
        fn has_statement_pages(&self) -> Result<bool> {
            Ok(false)
        }
    }
    let docs = [doc.to_string()];
    let draft = Draft {
        typed: question.trim(),
        kept: question.trim(),
    };
    match pages::Pages.apply(&draft, &One(&docs)) {
        Ok(Some(Change::Pages { references, .. })) => {
            references.refs.into_iter().map(|(r, _)| r).collect()
        }
        _ => Vec::new(),
    }
}

/// The rule of each kind.
fn rule(kind: RuleKind) -> &'static dyn Rule {
    match kind {
        RuleKind::Instructions => &instructions::Instructions,
        RuleKind::Terms => &terms::Terms,
        RuleKind::Pages => &pages::Pages,
    }
}

/// Runs the rules `rules` switches on over `question`, in the order of [`RuleKind::ALL`]:
/// instructions first (the others read what it keeps), then terms, then pages.
pub fn rewrite<'q>(question: &'q str, rules: Rules, scope: &dyn Scope) -> Result<Rewritten<'q>> {
    let typed = question.trim();
    let mut kept = typed;
    let mut related: Vec<String> = Vec::new();
    let mut pages = None;
    let mut reasons = Vec::new();
    for kind in rules.iter() {
        let draft = Draft { typed, kept };
        let Some(change) = rule(kind).apply(&draft, scope)? else {
            continue;
        };
        let why = match change {
            Change::Drop { kept: n, why } => {
                kept = kept[..n.min(kept.len())].trim_end();
                why
            }
            Change::Add { words, why } => {
                for w in words {
                    if !related.contains(&w) {
                        related.push(w);
                    }
                }
                why
            }
            Change::Pages { references, why } => {
                pages = Some(references);
                why
            }
        };
        reasons.push(Reason { rule: kind, why });
    }
    let dropped = typed[kept.len()..].trim();
    let searched = if related.is_empty() {
        Cow::Borrowed(kept)
    } else {
        Cow::Owned(format!("{kept} {}", related.join(" ")))
    };
    Ok(Rewritten {
        typed,
        kept,
        dropped,
        related,
        searched,
        pages,
        reasons,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use indexer_index::DocumentInfo;

    /// A scope of fixed answers.
    #[derive(Debug, Default)]
    pub(crate) struct FixedScope {
        pub documents: Vec<DocumentInfo>,
        pub filter: Vec<String>,
        pub statements: bool,
    }

    impl FixedScope {
        pub(crate) fn filtered(doc: &str) -> FixedScope {
            FixedScope {
                documents: vec![documents::tests::doc(doc, None)],
                filter: vec![doc.to_string()],
                statements: false,
            }
        }
    }

    impl Scope for FixedScope {
        fn named_document(&self, question: &str) -> Result<Option<String>> {
            Ok(named_document(question, &self.documents))
        }
        fn filter_docs(&self) -> &[String] {
            &self.filter
        }
        fn has_statement_pages(&self) -> Result<bool> {
            Ok(self.statements)
        }
    }

    /// The ordinary searches of `tests/data/ordinary-queries.tsv` (Stack Overflow titles, man
    /// page searches, guide headings; none from a benchmark), with their source.
    pub(crate) fn ordinary_queries() -> Vec<(&'static str, &'static str)> {
        include_str!("../../tests/data/ordinary-queries.tsv")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| l.split_once('\t').expect("source, a tab, the query"))
            .collect()
    }

    #[test]
    fn ordinary_queries_pass_through_unchanged() {
        let queries = ordinary_queries();
        assert!(queries.len() >= 100, "{} queries", queries.len());
        // A docs site: pages with titles, no statement pages; searched whole, and filtered
        // to one of its documents (the search box of one page).
        let site = FixedScope {
            documents: vec![
                documents::tests::doc("guide/install.html", Some("Installing the server")),
                documents::tests::doc("guide/pages.md", Some("Pages and layouts")),
                documents::tests::doc("reference/api.html", Some("API reference")),
            ],
            filter: Vec::new(),
            statements: false,
        };
        let filtered = FixedScope {
            filter: vec!["guide/pages.md".into()],
            ..FixedScope {
                documents: site.documents.clone(),
                filter: Vec::new(),
                statements: false,
            }
        };
        for (source, q) in queries {
            for scope in [&site, &filtered] {
                let r = rewrite(q, Rules::ALL, scope).unwrap();
                assert!(
                    r.reasons.is_empty() && r.searched == q.trim() && r.pages.is_none(),
                    "{source}: {q:?} was rewritten with the filter {:?}: {:?}",
                    scope.filter,
                    r.reasons
                );
            }
        }
    }

    #[test]
    fn rules_read_as_users_write_them() {
        for (text, want) in [
            ("true", Rules::DEFAULT),
            ("all", Rules::ALL),
            ("false", Rules::NONE),
            ("pages,instructions,terms", Rules::ALL),
            ("pages", Rules::NONE.with(RuleKind::Pages)),
            (
                " Terms , pages ",
                Rules::NONE.with(RuleKind::Terms).with(RuleKind::Pages),
            ),
        ] {
            assert_eq!(text.parse::<Rules>().unwrap(), want, "{text}");
        }
        for bad in ["", "page", "pages,,nope", "yes please"] {
            let e = bad.parse::<Rules>().unwrap_err();
            assert!(e.contains("instructions, terms, pages"), "{e}");
        }
        // Written back as it is read.
        for r in [
            Rules::ALL,
            Rules::NONE,
            Rules::NONE.with(RuleKind::Pages),
            Rules::ALL.without(RuleKind::Terms),
        ] {
            assert_eq!(r.to_string().parse::<Rules>().unwrap(), r);
        }
        assert_eq!(Rules::ALL.without(RuleKind::Instructions), Rules::DEFAULT);
        assert_eq!(Rules::DEFAULT.to_string(), "terms,pages");
        assert_eq!(Rules::ALL.to_string(), "instructions,terms,pages");
        assert_eq!(Rules::from(false), Rules::NONE);
        assert_eq!(Rules::from(true), Rules::default());
    }

    #[test]
    fn the_stage_runs_each_rule_switched_on_and_says_why() {
        let scope = FixedScope {
            statements: true,
            ..FixedScope::filtered("reports/annual.pdf")
        };
        let q = "  What is the FY2017 return on assets on page 40? Answer in percent. ";
        let r = rewrite(q, Rules::ALL, &scope).unwrap();
        assert_eq!(r.typed, q.trim());
        assert_eq!(r.kept, "What is the FY2017 return on assets on page 40?");
        assert_eq!(r.dropped, "Answer in percent.");
        assert_eq!(
            r.related,
            [
                "net income total assets",
                "consolidated balance sheets",
                "consolidated statements of operations income",
                "2017"
            ]
        );
        assert_eq!(r.searched, format!("{} {}", r.kept, r.related.join(" ")));
        let pages = r.pages.as_ref().unwrap();
        assert_eq!(pages.doc, "reports/annual.pdf");
        assert_eq!(pages.refs[0].0, PageRef::Numbers(40, 40));
        let rules: Vec<RuleKind> = r.reasons.iter().map(|x| x.rule).collect();
        assert_eq!(rules, RuleKind::ALL);
        // Each rule switched off alone.
        let r = rewrite(q, Rules::ALL.without(RuleKind::Instructions), &scope).unwrap();
        assert_eq!((r.kept, r.dropped), (q.trim(), ""));
        assert!(!r.related.is_empty() && r.pages.is_some());
        let r = rewrite(q, Rules::ALL.without(RuleKind::Terms), &scope).unwrap();
        assert!(r.related.is_empty() && r.pages.is_some() && !r.dropped.is_empty());
        assert_eq!(r.searched, r.kept);
        let r = rewrite(q, Rules::ALL.without(RuleKind::Pages), &scope).unwrap();
        assert!(r.pages.is_none() && !r.related.is_empty());
        // None: the question as typed.
        let r = rewrite(q, Rules::NONE, &scope).unwrap();
        assert_eq!((r.searched.as_ref(), r.reasons.len()), (q.trim(), 0));
    }
}
