//! The search request of the API: `GET /search`'s query string and `POST /search`'s JSON body
//! become one [`SearchQuery`], which [`SearchQuery::validate`] checks against the server's
//! limits and turns into the engine's [`SearchRequest`].
//!
//! As in Meilisearch, the query string has its own type ([`SearchQueryGet`], every value a
//! string, since that is all a query string holds) that converts into the body's type; the
//! body's numbers stay numbers. Every check then happens once, on the typed request. A body
//! (`POST /search`, `POST /ask`) is read by [`search_body`].

use crate::config::ServerConfig;
use crate::error::ApiError;
use crate::response::HitFields;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::StatusCode;
use indexer_engine::{Filter, GroupBy, Matching, NoteKind, SearchRequest, parse_pages};
use serde::Deserialize;

/// The longest snippet a request may ask for, in bytes.
const MAX_SNIPPET_CHARS: usize = 2000;

/// A validated search: the engine's request and how the answer is shaped.
#[derive(Debug)]
pub(crate) struct ApiSearch {
    pub req: SearchRequest,
    /// One result per page or per document, with its best notes; `None`: the evidence set.
    pub group: Option<GroupBy>,
    /// The keys each hit carries.
    pub fields: HitFields,
}

/// A search, as `POST /search` takes it and `GET /search` converts into.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchQuery {
    #[serde(alias = "query")]
    pub q: Option<String>,
    /// B: evidence notes in the answer.
    pub budget: Option<usize>,
    pub selector: Option<String>,
    /// k: candidates from each of BM25 and the vector index.
    pub candidates: Option<usize>,
    /// One document id or several.
    pub doc: Option<OneOrMany>,
    /// Kinds: a list, and each item may itself be comma-separated (`"figure,table"`).
    pub kind: Option<OneOrMany>,
    pub pages: Option<Pages>,
    /// `exact`, `prefix`, `typos` or `typing`.
    pub matching: Option<String>,
    /// Pseudo-relevance feedback in the first stage (default true).
    pub feedback: Option<bool>,
    /// The rules of the rewrite stage: `true` (the default rules), `all`, `false` (the query
    /// searched as typed), or rules by name: `"pages,terms"` or `["pages", "terms"]`.
    pub rewrite: Option<RewriteRules>,
    /// `learned` or `fused`: how the candidates are ranked before selection.
    pub ranking: Option<String>,
    /// `page` or `document`.
    pub group: Option<String>,
    /// The keys of each hit to send (a list, or comma-separated).
    pub fields: Option<OneOrMany>,
    /// About how long a snippet is, in bytes.
    pub snippet_chars: Option<usize>,
}

/// The rewrite rules as a body or a query string gives them: a boolean, rules by name
/// (comma-separated), or a list of names.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum RewriteRules {
    On(bool),
    Names(OneOrMany),
}

impl RewriteRules {
    fn rules(self) -> Result<indexer_engine::Rules, ApiError> {
        let text = match self {
            RewriteRules::On(on) => return Ok(on.into()),
            RewriteRules::Names(names) => names.into_vec().join(","),
        };
        text.parse()
            .map_err(|e: String| ApiError::bad_request("bad_rewrite", e))
    }
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

/// A page filter: `"3-9"` or `"5"`, `5`, or `[3, 9]`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum Pages {
    Text(String),
    One(u32),
    Range(u32, u32),
    /// Any other JSON, so that a page filter of another shape is answered with `bad_pages`,
    /// not `bad_json`.
    Other(serde_json::Value),
}

/// `GET /search`'s query string: the fields of [`SearchQuery`] as strings, the documents as
/// repeated parameters (`?doc=a.pdf&doc=b.pdf`) and the kinds comma-separated.
#[derive(Debug, Default)]
pub(crate) struct SearchQueryGet {
    q: Option<String>,
    budget: Option<String>,
    selector: Option<String>,
    candidates: Option<String>,
    docs: Vec<String>,
    kind: Option<String>,
    pages: Option<String>,
    matching: Option<String>,
    feedback: Option<String>,
    rewrite: Option<String>,
    ranking: Option<String>,
    group: Option<String>,
    fields: Option<String>,
    snippet_chars: Option<String>,
}

impl SearchQueryGet {
    /// The parameters of a query string, in order: `doc` may repeat, every other key is
    /// given at most once, and a key of no field is an error that lists the fields.
    pub(crate) fn from_pairs(pairs: Vec<(String, String)>) -> Result<SearchQueryGet, ApiError> {
        let mut g = SearchQueryGet::default();
        for (key, value) in pairs {
            let slot = match key.as_str() {
                "doc" => {
                    g.docs.push(value);
                    continue;
                }
                "q" | "query" => &mut g.q,
                "budget" => &mut g.budget,
                "selector" => &mut g.selector,
                "candidates" => &mut g.candidates,
                "kind" => &mut g.kind,
                "pages" => &mut g.pages,
                "matching" => &mut g.matching,
                "feedback" => &mut g.feedback,
                "rewrite" => &mut g.rewrite,
                "ranking" => &mut g.ranking,
                "group" => &mut g.group,
                "fields" => &mut g.fields,
                "snippet_chars" => &mut g.snippet_chars,
                _ => {
                    return Err(ApiError::bad_request(
                        "bad_query_string",
                        format!(
                            "unknown parameter {key:?} (the parameters of a search: {})",
                            GET_PARAMETERS.join(", ")
                        ),
                    ));
                }
            };
            if slot.is_some() {
                return Err(ApiError::bad_request(
                    "bad_query_string",
                    format!("the parameter {key:?} is given twice (only doc may repeat)"),
                ));
            }
            *slot = Some(value);
        }
        Ok(g)
    }
}

/// The parameters `GET /search` takes.
pub(crate) const GET_PARAMETERS: [&str; 15] = [
    "q",
    "query",
    "budget",
    "selector",
    "candidates",
    "doc",
    "kind",
    "pages",
    "matching",
    "feedback",
    "rewrite",
    "ranking",
    "group",
    "fields",
    "snippet_chars",
];

impl TryFrom<SearchQueryGet> for SearchQuery {
    type Error = ApiError;

    fn try_from(p: SearchQueryGet) -> Result<SearchQuery, ApiError> {
        Ok(SearchQuery {
            q: p.q,
            budget: count("budget", p.budget)?,
            selector: p.selector,
            candidates: count("candidates", p.candidates)?,
            doc: (!p.docs.is_empty()).then_some(OneOrMany::Many(p.docs)),
            kind: p.kind.map(OneOrMany::One),
            pages: p.pages.map(Pages::Text),
            matching: p.matching,
            feedback: boolean("feedback", p.feedback)?,
            rewrite: p.rewrite.map(|r| RewriteRules::Names(OneOrMany::One(r))),
            ranking: p.ranking,
            group: p.group,
            fields: p.fields.map(OneOrMany::One),
            snippet_chars: count("snippet_chars", p.snippet_chars)?,
        })
    }
}

/// A search body (`POST /search`, `POST /ask`), validated.
pub(crate) fn search_body(
    cfg: &ServerConfig,
    body: Result<Bytes, BytesRejection>,
) -> Result<ApiSearch, ApiError> {
    let body = body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "body_too_large",
                format!("the request body is larger than {} bytes", cfg.max_body),
            )
        } else {
            ApiError::bad_request("bad_body", e.body_text())
        }
    })?;
    let q: SearchQuery = serde_json::from_slice(&body).map_err(|e| {
        ApiError::bad_request("bad_json", format!("the body is not a valid search: {e}"))
    })?;
    q.validate(cfg)
}

/// A boolean from the query string: `true` or `false` (also `1` or `0`).
fn boolean(name: &str, v: Option<String>) -> Result<Option<bool>, ApiError> {
    v.map(|v| match v.trim() {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(ApiError::bad_request(
            "bad_boolean",
            format!("{name} must be true or false, not {v:?}"),
        )),
    })
    .transpose()
}

/// A count from the query string.
fn count(name: &str, v: Option<String>) -> Result<Option<usize>, ApiError> {
    v.map(|v| {
        v.trim().parse().map_err(|_| {
            ApiError::bad_request(
                "bad_number",
                format!("{name} must be a positive integer, not {v:?}"),
            )
        })
    })
    .transpose()
}

impl SearchQuery {
    /// Checks the request against the server's limits and names, the one place that does.
    /// Whether the documents are in the index is checked when the search runs, since that
    /// needs the index.
    pub(crate) fn validate(self, cfg: &ServerConfig) -> Result<ApiSearch, ApiError> {
        let q = self.q.unwrap_or_default();
        let q = q.trim();
        if q.is_empty() {
            return Err(ApiError::bad_request("empty_query", "the query q is empty"));
        }
        let len = q.chars().count();
        if len > cfg.max_query_len {
            return Err(ApiError::bad_request(
                "query_too_long",
                format!(
                    "the query has {len} characters, more than the limit of {}",
                    cfg.max_query_len
                ),
            ));
        }
        let mut req = SearchRequest::new(q);
        req.budget = limited("budget", self.budget, req.budget, cfg.max_budget)?;
        req.candidates = limited(
            "candidates",
            self.candidates,
            req.candidates,
            cfg.max_candidates,
        )?;
        if let Some(s) = self.selector.filter(|s| !s.trim().is_empty()) {
            req.selector = indexer_engine::parse_selector(&s)
                .map_err(|(code, message)| ApiError::bad_request(code, message))?;
        }
        req.filter = Filter {
            docs: self
                .doc
                .map(OneOrMany::into_vec)
                .unwrap_or_default()
                .into_iter()
                .filter(|d| !d.is_empty())
                .collect(),
            kinds: kinds(self.kind)?,
            pages: self.pages.map(page_range).transpose()?.flatten(),
        };
        req.snippet_chars = limited(
            "snippet_chars",
            self.snippet_chars,
            req.snippet_chars,
            MAX_SNIPPET_CHARS,
        )?;
        if let Some(m) = self.matching.filter(|m| !m.trim().is_empty()) {
            req.matching = m
                .parse::<Matching>()
                .map_err(|e| ApiError::bad_request("unknown_matching", e))?;
        }
        if let Some(f) = self.feedback {
            req.feedback = f;
        }
        if let Some(r) = self.rewrite {
            req.rewrite = r.rules()?;
        }
        if let Some(r) = self.ranking.filter(|r| !r.trim().is_empty()) {
            req.ranking = r
                .parse()
                .map_err(|e| ApiError::bad_request("unknown_ranking", e))?;
        }
        let group = self
            .group
            .filter(|g| !g.trim().is_empty())
            .map(|g| g.parse::<GroupBy>())
            .transpose()
            .map_err(|e| ApiError::bad_request("unknown_group", e))?;
        let names = self.fields.map(OneOrMany::into_vec).unwrap_or_default();
        let fields = HitFields::parse(names.iter().flat_map(|s| s.split(',')))
            .map_err(|e| ApiError::bad_request("unknown_field", e))?;
        Ok(ApiSearch { req, group, fields })
    }
}

/// A count of at least 1 and at most `max`; `default` (capped at `max`) when absent.
fn limited(name: &str, n: Option<usize>, default: usize, max: usize) -> Result<usize, ApiError> {
    match n {
        None => Ok(default.min(max)),
        Some(0) => Err(ApiError::bad_request(
            "bad_number",
            format!("{name} must be at least 1"),
        )),
        Some(n) if n > max => Err(ApiError::bad_request(
            "limit_exceeded",
            format!("{name} is {n}, more than the limit of {max}"),
        )),
        Some(n) => Ok(n),
    }
}

fn kinds(k: Option<OneOrMany>) -> Result<Vec<NoteKind>, ApiError> {
    let parts = k.map(OneOrMany::into_vec).unwrap_or_default();
    parts
        .iter()
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.parse::<NoteKind>().map_err(|_| {
                let names: Vec<&str> = NoteKind::ALL.iter().map(|k| k.as_str()).collect();
                ApiError::bad_request(
                    "unknown_kind",
                    format!("unknown kind {p:?} (one of {})", names.join(", ")),
                )
            })
        })
        .collect()
}

/// The inclusive 1-based page range, `None` for an empty string. Text goes to the engine's
/// parser (the CLI's `--pages` takes the same); the JSON numbers are checked as they are.
fn page_range(p: Pages) -> Result<Option<(u32, u32)>, ApiError> {
    let bad = |message: String| ApiError::bad_request("bad_pages", message);
    let (a, b, shown) = match p {
        Pages::Text(s) if s.trim().is_empty() => return Ok(None),
        Pages::Text(s) => return parse_pages(&s).map(Some).map_err(|e| bad(e.to_string())),
        Pages::One(n) => (n, n, n.to_string()),
        Pages::Range(a, b) => (a, b, format!("[{a}, {b}]")),
        Pages::Other(v) => {
            return Err(bad(format!("pages must be \"3-9\", 5 or [3, 9], not {v}")));
        }
    };
    if a == 0 || a > b {
        return Err(bad(format!(
            "pages must be 1-based with the first page no later than the last, not {shown}"
        )));
    }
    Ok(Some((a, b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get_api(qs: &str) -> Result<ApiSearch, ApiError> {
        let p: SearchQueryGet = query_string(qs);
        SearchQuery::try_from(p)?.validate(&ServerConfig::default())
    }

    fn post_api(body: &str) -> Result<ApiSearch, ApiError> {
        let b: SearchQuery = serde_json::from_str(body).unwrap();
        b.validate(&ServerConfig::default())
    }

    fn get(qs: &str) -> Result<SearchRequest, ApiError> {
        get_api(qs).map(|a| a.req)
    }

    fn post(body: &str) -> Result<SearchRequest, ApiError> {
        post_api(body).map(|a| a.req)
    }

    fn query_string(qs: &str) -> SearchQueryGet {
        let uri: axum::http::Uri = format!("/search?{qs}").parse().unwrap();
        let pairs: Vec<(String, String)> = axum::extract::Query::try_from_uri(&uri).unwrap().0;
        SearchQueryGet::from_pairs(pairs).unwrap()
    }

    #[test]
    fn documents_repeat_in_a_query_string_and_nothing_else_does() {
        let r = get("q=x&doc=a.pdf&doc=b%2Fc.pdf").unwrap();
        assert_eq!(r.filter.docs, ["a.pdf", "b/c.pdf"]);
        let pairs = |qs: &str| {
            let uri: axum::http::Uri = format!("/search?{qs}").parse().unwrap();
            let p: Vec<(String, String)> = axum::extract::Query::try_from_uri(&uri).unwrap().0;
            SearchQueryGet::from_pairs(p)
        };
        let e = pairs("q=x&budget=3&budget=4").unwrap_err();
        assert_eq!(e.code, "bad_query_string");
        assert!(
            e.message.contains("\"budget\" is given twice"),
            "{}",
            e.message
        );
        let e = pairs("q=x&colour=red").unwrap_err();
        assert!(
            e.message.contains("unknown parameter \"colour\""),
            "{}",
            e.message
        );
        assert!(e.message.contains("snippet_chars"), "{}", e.message);
    }

    #[test]
    fn query_string_and_body_mean_the_same() {
        let a = get(concat!(
            "q=%20graph%20&budget=3&candidates=20&selector=cds",
            "&doc=a.md&kind=figure,table&pages=2-4"
        ))
        .unwrap();
        let b = post(
            r#"{"query": "graph", "budget": 3, "candidates": 20, "selector": "cds",
                "doc": ["a.md"], "kind": ["figure", "table"], "pages": [2, 4]}"#,
        )
        .unwrap();
        for r in [&a, &b] {
            assert_eq!(r.query, "graph");
            assert_eq!((r.budget, r.candidates), (3, 20));
            assert_eq!(r.selector, indexer_engine::SelectorKind::Cds.into());
            assert_eq!(r.filter.docs, ["a.md"]);
            assert_eq!(r.filter.kinds, [NoteKind::Figure, NoteKind::Table]);
            assert_eq!(r.filter.pages, Some((2, 4)));
        }
    }

    #[test]
    fn matching_group_and_fields_in_both_forms() {
        let a = get_api("q=mos&matching=typing&group=document&fields=doc,url").unwrap();
        let b = post_api(
            r#"{"q": "mos", "matching": "typing", "group": "document", "fields": ["doc", "url"]}"#,
        )
        .unwrap();
        for r in [&a, &b] {
            assert_eq!(r.req.matching, Matching::TYPING);
            assert_eq!(r.group, Some(GroupBy::Document));
            assert_eq!(r.fields, HitFields::parse(["doc", "url"]).unwrap());
        }
        assert_eq!(get("q=x&snippet_chars=120").unwrap().snippet_chars, 120);
        assert_eq!(
            get("q=x&snippet_chars=5000").unwrap_err().code,
            "limit_exceeded"
        );
        let d = get_api("q=x").unwrap();
        assert_eq!(d.req.matching, indexer_engine::DEFAULT_MATCHING);
        assert_eq!(d.group, None);
        assert_eq!(d.fields, HitFields::all());
        assert_eq!(
            get("q=x&matching=fuzzy").unwrap_err().code,
            "unknown_matching"
        );
        assert_eq!(get("q=x&group=chapter").unwrap_err().code, "unknown_group");
        let e = get("q=x&fields=doc,body").unwrap_err();
        assert_eq!(e.code, "unknown_field");
        assert!(e.message.contains("snippet_html"), "{}", e.message);
    }

    #[test]
    fn feedback_in_both_forms() {
        for (get_q, post_q) in [
            ("q=x&feedback=false", r#"{"q": "x", "feedback": false}"#),
            ("q=x&feedback=0", r#"{"q": "x", "feedback": false}"#),
        ] {
            assert!(!get(get_q).unwrap().feedback, "{get_q}");
            assert!(!post(post_q).unwrap().feedback, "{post_q}");
        }
        assert!(get("q=x&feedback=true").unwrap().feedback);
        assert!(post(r#"{"q": "x", "feedback": true}"#).unwrap().feedback);
        assert_eq!(
            get("q=x").unwrap().feedback,
            indexer_engine::DEFAULT_FEEDBACK
        );
        assert_eq!(
            post(r#"{"q": "x"}"#).unwrap().feedback,
            indexer_engine::DEFAULT_FEEDBACK
        );
        let e = get("q=x&feedback=no").unwrap_err();
        assert_eq!(e.code, "bad_boolean");
        assert!(e.message.contains("feedback"), "{}", e.message);
        assert!(serde_json::from_str::<SearchQuery>(r#"{"q": "x", "feedback": "no"}"#).is_err());
    }

    #[test]
    fn ranking_in_both_forms() {
        use indexer_engine::Ranking;
        assert_eq!(
            get("q=x&ranking=learned").unwrap().ranking,
            Ranking::Learned
        );
        assert_eq!(
            post(r#"{"q": "x", "ranking": "fused"}"#).unwrap().ranking,
            Ranking::Fused
        );
        assert_eq!(get("q=x").unwrap().ranking, indexer_engine::DEFAULT_RANKING);
        let e = get("q=x&ranking=best").unwrap_err();
        assert_eq!(e.code, "unknown_ranking");
        assert!(e.message.contains("learned or fused"), "{}", e.message);
    }

    #[test]
    fn rewrite_in_both_forms() {
        use indexer_engine::{RuleKind, Rules};
        let pages_terms = Rules::NONE.with(RuleKind::Pages).with(RuleKind::Terms);
        for (get_q, post_q, want) in [
            (
                "q=x&rewrite=false",
                r#"{"q": "x", "rewrite": false}"#,
                Rules::NONE,
            ),
            (
                "q=x&rewrite=0",
                r#"{"q": "x", "rewrite": "false"}"#,
                Rules::NONE,
            ),
            (
                "q=x&rewrite=true",
                r#"{"q": "x", "rewrite": true}"#,
                Rules::DEFAULT,
            ),
            (
                "q=x&rewrite=all",
                r#"{"q": "x", "rewrite": "all"}"#,
                Rules::ALL,
            ),
            (
                "q=x&rewrite=pages,terms",
                r#"{"q": "x", "rewrite": ["pages", "terms"]}"#,
                pages_terms,
            ),
            (
                "q=x&rewrite=terms%2Cpages",
                r#"{"q": "x", "rewrite": "terms,pages"}"#,
                pages_terms,
            ),
        ] {
            assert_eq!(get(get_q).unwrap().rewrite, want, "{get_q}");
            assert_eq!(post(post_q).unwrap().rewrite, want, "{post_q}");
        }
        assert_eq!(get("q=x").unwrap().rewrite, indexer_engine::DEFAULT_REWRITE);
        assert_eq!(
            post(r#"{"q": "x"}"#).unwrap().rewrite,
            indexer_engine::DEFAULT_REWRITE
        );
        for e in [
            get("q=x&rewrite=maybe").unwrap_err(),
            post(r#"{"q": "x", "rewrite": ["pages", "spelling"]}"#).unwrap_err(),
        ] {
            assert_eq!(e.code, "bad_rewrite");
            assert!(
                e.message.contains("instructions, terms, pages"),
                "{}",
                e.message
            );
        }
    }

    #[test]
    fn pages_in_every_form() {
        assert_eq!(
            post(r#"{"q": "x", "pages": "3-9"}"#).unwrap().filter.pages,
            Some((3, 9))
        );
        assert_eq!(
            post(r#"{"q": "x", "pages": 5}"#).unwrap().filter.pages,
            Some((5, 5))
        );
        assert_eq!(
            post(r#"{"q": "x", "pages": ""}"#).unwrap().filter.pages,
            None
        );
        assert_eq!(
            post(r#"{"q": "x", "pages": null}"#).unwrap().filter.pages,
            None
        );
        for bad in [
            r#""9-3""#,
            "0",
            "-1",
            "3.5",
            "[4, 2]",
            "[0, 2]",
            "[1, 2, 3]",
            "{}",
        ] {
            let e = post(&format!(r#"{{"q": "x", "pages": {bad}}}"#)).unwrap_err();
            assert_eq!(e.code, "bad_pages", "{bad}: {e:?}");
        }
    }

    #[test]
    fn counts_and_limits() {
        assert_eq!(get("q=x").unwrap().budget, indexer_engine::DEFAULT_BUDGET);
        assert_eq!(get("q=x&budget=ten").unwrap_err().code, "bad_number");
        assert_eq!(get("q=x&budget=0").unwrap_err().code, "bad_number");
        assert_eq!(
            post(r#"{"q": "x", "budget": 0}"#).unwrap_err().code,
            "bad_number"
        );
        assert_eq!(get("q=x&budget=51").unwrap_err().code, "limit_exceeded");
        assert_eq!(
            post(r#"{"q": "x", "candidates": 1001}"#).unwrap_err().code,
            "limit_exceeded"
        );
    }
}
