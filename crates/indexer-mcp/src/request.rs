//! A search as the MCP tools and the Python package take it: the arguments checked in one
//! place into the engine's [`SearchRequest`], and every failure named by the code the HTTP API
//! gives it (`docs/http-api.md#errors`), so a search means the same, and fails
//! the same, from every door.
//!
//! The server's mapping (`indexer-server`'s `ApiError`) is private to that crate; [`Failure`]
//! maps an engine error the same way: a model server's error by its own code, an unknown
//! document as `unknown_document`, any other error the caller can fix as `bad_request`, the
//! rest as `internal`.

use indexer_engine::{Filter, GroupBy, Hint, Matching, NoteKind, SearchRequest, parse_pages};

/// What kind of failure it is: the HTTP API's `type` (its status class), which the Python
/// package raises as an exception subclass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureClass {
    /// The caller can fix the request (400).
    InvalidRequest,
    /// A note, image or document that is not there (404).
    NotFound,
    /// The model server failed or is unreachable (502).
    Upstream,
    /// The model server took longer than its time limit (504).
    Timeout,
    /// Anything else (500).
    Internal,
}

impl FailureClass {
    /// The HTTP API's `type` of the class.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureClass::InvalidRequest => "invalid_request_error",
            FailureClass::NotFound => "not_found_error",
            FailureClass::Upstream => "upstream_error",
            FailureClass::Timeout => "timeout_error",
            FailureClass::Internal => "internal_error",
        }
    }
}

/// A failure with the HTTP API's stable code, its message and, when there is one, a hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub class: FailureClass,
    /// `empty_query`, `unknown_document`, `note_not_found`, `llm_unreachable`, ...
    pub code: &'static str,
    pub message: String,
    pub hint: Option<String>,
}

impl Failure {
    pub fn invalid(code: &'static str, message: impl Into<String>) -> Failure {
        Failure {
            class: FailureClass::InvalidRequest,
            code,
            message: message.into(),
            hint: None,
        }
    }

    pub fn not_found(code: &'static str, message: impl Into<String>) -> Failure {
        Failure {
            class: FailureClass::NotFound,
            code,
            message: message.into(),
            hint: None,
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Failure {
        self.hint = Some(hint.into());
        self
    }

    /// `ask` without a model server: the HTTP API's `ask_disabled`, with the hint of
    /// `indexer ask`'s own error for it.
    pub fn ask_disabled(what: &str) -> Failure {
        let config = indexer_engine::LlmError::Config(String::new());
        let mut f =
            Failure::not_found("ask_disabled", format!("{what} has no model server to ask"));
        f.hint = config.hint();
        f
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

impl From<indexer_engine::Error> for Failure {
    fn from(e: indexer_engine::Error) -> Failure {
        use indexer_engine::Error as E;
        use indexer_engine::LlmError as L;
        let (class, code) = match &e {
            E::Llm(l) => (
                match l {
                    L::TimedOut { .. } => FailureClass::Timeout,
                    _ if l.is_user_error() => FailureClass::InvalidRequest,
                    _ => FailureClass::Upstream,
                },
                l.code(),
            ),
            E::UnknownDocument { .. } => (FailureClass::InvalidRequest, "unknown_document"),
            _ if e.is_user_error() => (FailureClass::InvalidRequest, "bad_request"),
            _ => (FailureClass::Internal, "internal"),
        };
        Failure {
            class,
            code,
            message: e.to_string(),
            hint: e.hint(),
        }
    }
}

/// What a search returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unit {
    /// An evidence set of B notes, chosen by the selector.
    #[default]
    Note,
    /// The B best pages, each with its best notes (the selector is not used).
    Page,
    /// The B best documents, each with its best notes (the selector is not used).
    Document,
}

impl Unit {
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Note => "note",
            Unit::Page => "page",
            Unit::Document => "document",
        }
    }

    /// The grouping of a page or document search; `None` for notes.
    pub fn group(self) -> Option<GroupBy> {
        match self {
            Unit::Note => None,
            Unit::Page => Some(GroupBy::Page),
            Unit::Document => Some(GroupBy::Document),
        }
    }
}

impl std::str::FromStr for Unit {
    type Err = Failure;
    fn from_str(s: &str) -> Result<Unit, Failure> {
        match s.trim() {
            "note" | "" => Ok(Unit::Note),
            "page" => Ok(Unit::Page),
            "document" => Ok(Unit::Document),
            _ => Err(Failure::invalid(
                "unknown_unit",
                format!("unit must be note, page or document, not {s:?}"),
            )),
        }
    }
}

/// A page filter as given: `"3-9"` or `"5"`, a page, or a first and last page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pages {
    Text(String),
    One(i64),
    Range(i64, i64),
}

/// The arguments of a search, unchecked: numbers as given (a caller may send 0 or -1), names
/// as strings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchArgs {
    pub query: String,
    /// B: evidence notes (or pages, documents). Default 10.
    pub budget: Option<i64>,
    /// `fused-cap` (default), `cds`, `mmr`, ...
    pub selector: Option<String>,
    /// k: candidates from each of BM25 and vectors. Default 100.
    pub candidates: Option<i64>,
    /// Documents, by id or a unique end of one (`lmer.pdf`).
    pub docs: Vec<String>,
    /// `text`, `figure`, `table` (an item may itself be comma-separated).
    pub kinds: Vec<String>,
    pub pages: Option<Pages>,
    /// `note` (default), `page` or `document`.
    pub unit: Option<String>,
    /// `typing` (default), `exact`, `prefix` or `typos`.
    pub matching: Option<String>,
    /// Pseudo-relevance feedback in the first stage (default true).
    pub feedback: Option<bool>,
    /// The rules of the rewrite stage (default all): on or off, or rules by name
    /// (`"pages,terms"`).
    pub rewrite: Option<RewriteArg>,
    /// `learned` or `fused`: how the candidates are ranked before selection.
    pub ranking: Option<String>,
}

/// The rewrite rules as a caller gives them: on or off, or the rules by name,
/// comma-separated (`instructions`, `terms`, `pages`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RewriteArg {
    On(bool),
    Rules(String),
}

impl RewriteArg {
    /// The rules, or a `bad_rewrite` failure that lists them.
    pub fn rules(&self) -> Result<indexer_engine::Rules, Failure> {
        match self {
            RewriteArg::On(on) => Ok((*on).into()),
            RewriteArg::Rules(text) => text
                .parse()
                .map_err(|e: String| Failure::invalid("bad_rewrite", e)),
        }
    }
}

/// A checked search: the engine's request and what to return.
#[derive(Debug, Clone)]
pub struct Search {
    pub request: SearchRequest,
    pub unit: Unit,
}

impl SearchArgs {
    pub fn new(query: impl Into<String>) -> SearchArgs {
        SearchArgs {
            query: query.into(),
            ..SearchArgs::default()
        }
    }

    /// Checks every argument (whether the documents are in the index is checked by the
    /// search, which has the index) and builds the engine's request.
    pub fn validate(self) -> Result<Search, Failure> {
        let query = self.query.trim();
        if query.is_empty() {
            return Err(Failure::invalid("empty_query", "the query is empty"));
        }
        let mut req = SearchRequest::new(query);
        req.budget = count("budget", self.budget, req.budget)?;
        req.candidates = count("candidates", self.candidates, req.candidates)?;
        if let Some(s) = self.selector.as_deref().filter(|s| !s.trim().is_empty()) {
            req.selector = indexer_engine::parse_selector(s)
                .map_err(|(code, message)| Failure::invalid(code, message))?;
        }
        req.filter = Filter {
            docs: self
                .docs
                .into_iter()
                .map(|d| d.trim().to_string())
                .filter(|d| !d.is_empty())
                .collect(),
            kinds: kinds(&self.kinds)?,
            pages: self.pages.map(page_range).transpose()?.flatten(),
        };
        if let Some(m) = self.matching.as_deref().filter(|m| !m.trim().is_empty()) {
            req.matching = m
                .parse::<Matching>()
                .map_err(|e| Failure::invalid("unknown_matching", e))?;
        }
        if let Some(f) = self.feedback {
            req.feedback = f;
        }
        if let Some(r) = &self.rewrite {
            req.rewrite = r.rules()?;
        }
        if let Some(r) = self.ranking.as_deref().filter(|r| !r.trim().is_empty()) {
            req.ranking = r
                .parse()
                .map_err(|e| Failure::invalid("unknown_ranking", e))?;
        }
        let unit = match self.unit.as_deref() {
            Some(u) => u.parse()?,
            None => Unit::Note,
        };
        Ok(Search { request: req, unit })
    }
}

/// A count of at least 1; `default` when absent.
fn count(name: &str, n: Option<i64>, default: usize) -> Result<usize, Failure> {
    match n {
        None => Ok(default),
        Some(n) if n < 1 => Err(Failure::invalid(
            "bad_number",
            format!("{name} must be at least 1, not {n}"),
        )),
        Some(n) => usize::try_from(n)
            .map_err(|_| Failure::invalid("bad_number", format!("{name} is too large: {n}"))),
    }
}

fn kinds(given: &[String]) -> Result<Vec<NoteKind>, Failure> {
    given
        .iter()
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.parse::<NoteKind>().map_err(|_| {
                let names: Vec<&str> = NoteKind::ALL.iter().map(|k| k.as_str()).collect();
                Failure::invalid(
                    "unknown_kind",
                    format!("unknown kind {p:?} (one of {})", names.join(", ")),
                )
            })
        })
        .collect()
}

/// The inclusive 1-based page range; `None` for an empty string.
fn page_range(p: Pages) -> Result<Option<(u32, u32)>, Failure> {
    let bad = |message: String| Failure::invalid("bad_pages", message);
    let (a, b, shown) = match p {
        Pages::Text(s) if s.trim().is_empty() => return Ok(None),
        Pages::Text(s) => return parse_pages(&s).map(Some).map_err(|e| bad(e.to_string())),
        Pages::One(n) => (n, n, n.to_string()),
        Pages::Range(a, b) => (a, b, format!("[{a}, {b}]")),
    };
    let page = |n: i64| u32::try_from(n).ok().filter(|&n| n > 0);
    match (page(a), page(b)) {
        (Some(a), Some(b)) if a <= b => Ok(Some((a, b))),
        _ => Err(bad(format!(
            "pages must be 1-based with the first page no later than the last, not {shown}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(args: SearchArgs) -> &'static str {
        args.validate().unwrap_err().code
    }

    #[test]
    fn defaults_are_the_engines() {
        let s = SearchArgs::new("  mosaic plot ").validate().unwrap();
        let d = SearchRequest::new("mosaic plot");
        assert_eq!(s.request.query, "mosaic plot");
        assert_eq!(s.request.budget, d.budget);
        assert_eq!(s.request.selector, d.selector);
        assert_eq!(s.request.candidates, d.candidates);
        assert_eq!(s.request.matching, d.matching);
        assert_eq!(s.request.feedback, d.feedback);
        assert_eq!(s.request.rewrite, d.rewrite);
        assert_eq!(s.unit, Unit::Note);
    }

    #[test]
    fn arguments_reach_the_request() {
        let s = SearchArgs {
            budget: Some(3),
            selector: Some("cds".into()),
            candidates: Some(50),
            docs: vec!["a.pdf".into(), " ".into()],
            kinds: vec!["figure,table".into()],
            pages: Some(Pages::Text("3-9".into())),
            unit: Some("page".into()),
            matching: Some("exact".into()),
            feedback: Some(false),
            rewrite: Some(RewriteArg::On(false)),
            ..SearchArgs::new("q")
        }
        .validate()
        .unwrap();
        let r = &s.request;
        assert_eq!(r.budget, 3);
        assert_eq!(r.selector, indexer_engine::SelectorKind::Cds.into());
        assert_eq!(r.candidates, 50);
        assert_eq!(r.filter.docs, ["a.pdf"]);
        assert_eq!(r.filter.kinds, [NoteKind::Figure, NoteKind::Table]);
        assert_eq!(r.filter.pages, Some((3, 9)));
        assert_eq!(r.matching, Matching::EXACT);
        assert!(!r.feedback);
        assert_eq!(r.rewrite, indexer_engine::Rules::NONE);
        assert_eq!(s.unit, Unit::Page);
        // Rules by name, and a name that is none: a failure that lists them.
        let rules = |text: &str| {
            SearchArgs {
                rewrite: Some(RewriteArg::Rules(text.into())),
                ..SearchArgs::new("q")
            }
            .validate()
        };
        assert_eq!(
            rules("pages,terms").unwrap().request.rewrite.to_string(),
            "terms,pages"
        );
        let e = rules("spelling").unwrap_err();
        assert_eq!(e.code, "bad_rewrite");
        assert!(
            e.message.contains("instructions, terms, pages"),
            "{}",
            e.message
        );
        let p = |p| {
            SearchArgs {
                pages: Some(p),
                ..SearchArgs::new("q")
            }
            .validate()
            .map(|s| s.request.filter.pages)
        };
        assert_eq!(p(Pages::One(5)).unwrap(), Some((5, 5)));
        assert_eq!(p(Pages::Range(2, 4)).unwrap(), Some((2, 4)));
        assert_eq!(p(Pages::Text(String::new())).unwrap(), None);
    }

    #[test]
    fn each_bad_argument_has_the_apis_code() {
        assert_eq!(code(SearchArgs::new(" ")), "empty_query");
        for budget in [0, -1] {
            let a = SearchArgs {
                budget: Some(budget),
                ..SearchArgs::new("q")
            };
            assert_eq!(code(a), "bad_number");
        }
        let a = SearchArgs {
            selector: Some("best".into()),
            ..SearchArgs::new("q")
        };
        assert_eq!(code(a), "unknown_selector");
        let a = SearchArgs {
            kinds: vec!["chart".into()],
            ..SearchArgs::new("q")
        };
        assert_eq!(code(a), "unknown_kind");
        for pages in [
            Pages::Text("9-3".into()),
            Pages::One(0),
            Pages::Range(4, 2),
            Pages::One(-3),
        ] {
            let a = SearchArgs {
                pages: Some(pages),
                ..SearchArgs::new("q")
            };
            assert_eq!(code(a), "bad_pages");
        }
        let a = SearchArgs {
            unit: Some("chapter".into()),
            ..SearchArgs::new("q")
        };
        assert_eq!(code(a), "unknown_unit");
        let a = SearchArgs {
            matching: Some("fuzzy".into()),
            ..SearchArgs::new("q")
        };
        assert_eq!(code(a), "unknown_matching");
    }

    #[test]
    fn engine_errors_map_as_the_server_maps_them() {
        let f = Failure::from(indexer_engine::Error::UnknownDocument {
            doc: "lmr.pdf".into(),
            ambiguous: false,
            closest: vec!["papers/lmer.pdf".into()],
        });
        assert_eq!(f.code, "unknown_document");
        assert_eq!(f.class, FailureClass::InvalidRequest);
        assert_eq!(f.hint.as_deref(), Some("did you mean papers/lmer.pdf?"));
        let f = Failure::from(indexer_engine::Error::BadRequest("x".into()));
        assert_eq!(
            (f.code, f.class),
            ("bad_request", FailureClass::InvalidRequest)
        );
        let f = Failure::from(indexer_engine::Error::Llm(
            indexer_engine::LlmError::Protocol("garbled".into()),
        ));
        assert_eq!((f.code, f.class), ("llm_protocol", FailureClass::Upstream));
        let f = Failure::ask_disabled("this index");
        assert_eq!((f.code, f.class), ("ask_disabled", FailureClass::NotFound));
        assert!(f.hint.unwrap().contains("INDEXER_LLM_URL"));
    }
}
