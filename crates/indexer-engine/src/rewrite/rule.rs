//! The types of the rewrite stage, below the rules and the stage that runs them: which rules
//! a request switches on ([`Rules`]), what a rule reads ([`Scope`], [`Draft`]) and returns
//! ([`Change`], [`PageReferences`]), and why it changed a question ([`Reason`]).

use crate::Result;
use serde::Serialize;
use std::ops::Range;

/// One rule of the stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleKind {
    /// Closing instructions about the answer left out.
    Instructions,
    /// Line items and statement titles added for a financial measure.
    Terms,
    /// Named pages of a known document put first.
    Pages,
}

impl RuleKind {
    /// Every rule, in the order the stage runs them.
    pub const ALL: [RuleKind; 3] = [RuleKind::Instructions, RuleKind::Terms, RuleKind::Pages];

    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::Instructions => "instructions",
            RuleKind::Terms => "terms",
            RuleKind::Pages => "pages",
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl std::fmt::Display for RuleKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The rules a search runs: any of [`RuleKind::ALL`], each switched on its own. Written as a
/// user writes it everywhere (flags, `indexer.toml`, the HTTP API, MCP, Python): `true` (the
/// default rules, [`Rules::DEFAULT`]), `all` (every rule), `false` (none: the question searched
/// as typed), or the rules by name, comma-separated (`pages,terms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rules(u8);

impl Rules {
    /// Every rule.
    pub const ALL: Rules = Rules(0b111);
    /// The rules a search runs when it does not say, and what `true` switches on: `terms`
    /// and `pages`. `instructions` is one name away: on mmlb-dev it puts the right page
    /// first more often (B = 3, page R@1) but finds less at B = 10, the default budget, on
    /// the folds by document (`docs/evaluation.md`, "The rewrite stage, rule by rule").
    pub const DEFAULT: Rules = Rules(0b110);
    /// No rule: the question is searched as typed.
    pub const NONE: Rules = Rules(0);

    pub fn contains(self, rule: RuleKind) -> bool {
        self.0 & rule.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// These rules and `rule`.
    pub fn with(self, rule: RuleKind) -> Rules {
        Rules(self.0 | rule.bit())
    }

    /// These rules without `rule`.
    pub fn without(self, rule: RuleKind) -> Rules {
        Rules(self.0 & !rule.bit())
    }

    /// The rules switched on, in the stage's order.
    pub fn iter(self) -> impl Iterator<Item = RuleKind> {
        RuleKind::ALL.into_iter().filter(move |r| self.contains(*r))
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::DEFAULT
    }
}

/// `true` is [`Rules::DEFAULT`], `false` [`Rules::NONE`].
impl From<bool> for Rules {
    fn from(on: bool) -> Rules {
        if on { Rules::DEFAULT } else { Rules::NONE }
    }
}

/// `false`, or the rules' names, comma-separated, as [`Rules`] reads them.
impl std::fmt::Display for Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Rules::NONE => f.write_str("false"),
            r => f.write_str(&r.iter().map(RuleKind::as_str).collect::<Vec<_>>().join(",")),
        }
    }
}

impl std::str::FromStr for Rules {
    type Err = String;
    /// `true` / `on` (the default rules), `all`, `false` / `none` / `off`, or names:
    /// `pages,instructions,terms`.
    fn from_str(s: &str) -> std::result::Result<Rules, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "true" | "on" | "1" => return Ok(Rules::DEFAULT),
            "all" => return Ok(Rules::ALL),
            "false" | "none" | "off" | "0" => return Ok(Rules::NONE),
            _ => {}
        }
        let mut rules = Rules::NONE;
        for name in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let rule = RuleKind::ALL
                .into_iter()
                .find(|r| r.as_str().eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    format!(
                        "rewrite must be true, false, all or rules among {} (comma-separated), not {s:?}",
                        RuleKind::ALL.map(RuleKind::as_str).join(", ")
                    )
                })?;
            rules = rules.with(rule);
        }
        if rules.is_empty() {
            return Err(format!(
                "rewrite must be true, false, all or rules among {}, not {s:?}",
                RuleKind::ALL.map(RuleKind::as_str).join(", ")
            ));
        }
        Ok(rules)
    }
}

impl Serialize for Rules {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// What the rules read of the index besides the question. The engine's scope reads the
/// index being searched; each answer is looked up only when a rule asks.
pub trait Scope {
    /// The document of the index the question names by its file name or title, if one.
    fn named_document(&self, question: &str) -> Result<Option<String>>;
    /// The documents the request's filter names (resolved ids); empty without a filter.
    fn filter_docs(&self) -> &[String];
    /// Whether a document the search reads (the filter's, else any) has statement pages: a
    /// page of numbers under a statement's title.
    fn has_statement_pages(&self) -> Result<bool>;
}

/// The question as a rule reads it: as typed, and what the rules before it kept of it.
#[derive(Debug, Clone, Copy)]
pub struct Draft<'q> {
    /// The question as typed (trimmed).
    pub typed: &'q str,
    /// What is searched of its words so far: `typed`, or a prefix of it.
    pub kept: &'q str,
}

/// What one rule changes, with why, in words for a person.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// Keep only the first `kept` bytes of the draft's `kept` text.
    Drop { kept: usize, why: String },
    /// Add these words to what is searched.
    Add { words: Vec<String>, why: String },
    /// The question names these pages of a known document.
    Pages {
        references: PageReferences,
        why: String,
    },
}

/// A small trait at the extension point: one rule of the stage.
pub trait Rule {
    fn kind(&self) -> RuleKind;
    /// What the rule changes of `draft`, or `None`.
    fn apply(&self, draft: &Draft<'_>, scope: &dyn Scope) -> Result<Option<Change>>;
}

/// Why the stage changed a question: the rule and its reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reason {
    pub rule: RuleKind,
    pub why: String,
}

/// A page reference in a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageRef {
    /// Pages `first..=last` by number: the numbers printed on them, or else their places.
    Numbers(u32, u32),
    /// Pages `first..=last` by roman numeral ("page xiv"): only pages that show them (front
    /// matter), never places in the file.
    Roman(u32, u32),
    /// The page at this place in the file (1-based): "the second page", "the cover".
    Place(u32),
    /// The document's last page.
    Last,
}

/// The pages a question names in one document, with the words that name each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageReferences {
    /// The document's id.
    pub doc: String,
    /// Each reference with the byte range of the words of the question that make it.
    pub refs: Vec<(PageRef, Range<usize>)>,
}
