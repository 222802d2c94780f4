//! The clients: the mix of requests, each client's loop, and the check of each answer.

use crate::error::Result;
use crate::http::{Conn, Reply};
use crate::state::Run;
use serde_json::Value;
use std::time::{Duration, Instant};

/// What the search page sends (`indexer_server::PAGE_SEARCH_PARAMS`, copied: this example
/// depends on the evaluation crate only).
const PAGE_PARAMS: &str = "group=document&budget=5&matching=typing&snippet_chars=180&fields=doc,page,kind,caption,section,url,snippet_html,crop_url";

/// Clients 0.. below this open a new connection for every request, the others keep one
/// connection alive: both the accept path and long-lived connections are soaked, and the
/// TIME_WAIT sockets of the first kind stay far below the loopback port range.
const FRESH_CONNECTION_CLIENTS: usize = 4;

/// The requests of the mix, in proportion: out of 20, 12 plain searches (with the run's
/// selector, the server's default unless `--selector` says), 3 as the search page sends them as someone types, 3 POST bodies, one `/stats`
/// and one `/health`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Search,
    PageSearch,
    PostSearch,
    Stats,
    Health,
}

const MIX: [(Kind, u32); 5] = [
    (Kind::Search, 12),
    (Kind::PageSearch, 3),
    (Kind::PostSearch, 3),
    (Kind::Stats, 1),
    (Kind::Health, 1),
];

impl Kind {
    fn pick(x: u32) -> Kind {
        let total: u32 = MIX.iter().map(|(_, w)| w).sum();
        let mut x = x % total;
        for (k, w) in MIX {
            if x < w {
                return k;
            }
            x -= w;
        }
        Kind::Search
    }

    fn is_search(self) -> bool {
        matches!(self, Kind::Search | Kind::PageSearch | Kind::PostSearch)
    }
}

/// One request: method, path, body.
#[derive(Debug)]
struct Req {
    kind: Kind,
    /// The selector's name the answer must report (`--selector` without its options).
    selector: Option<String>,
    method: &'static str,
    path: String,
    body: Option<Vec<u8>>,
}

impl Req {
    /// The request of `kind` for the question `q`; every search asks for `selector` when
    /// there is one.
    fn new(kind: Kind, q: &str, selector: Option<&str>) -> Req {
        let sel = selector.map_or(String::new(), |s| format!("&selector={}", encode(s)));
        let (method, path, body) = match kind {
            Kind::Search => ("GET", format!("/search?q={}{sel}", encode(q)), None),
            Kind::PageSearch => (
                "GET",
                format!("/search?q={}&{PAGE_PARAMS}{sel}", encode(&as_typed(q))),
                None,
            ),
            Kind::PostSearch => {
                let mut body =
                    serde_json::json!({"q": q, "budget": 5, "kind": ["text", "figure", "table"]});
                if let Some(s) = selector {
                    body["selector"] = s.into();
                }
                (
                    "POST",
                    "/search".to_string(),
                    Some(body.to_string().into_bytes()),
                )
            }
            Kind::Stats => ("GET", "/stats".to_string(), None),
            Kind::Health => ("GET", "/health".to_string(), None),
        };
        Req {
            kind,
            selector: selector.map(|s| s.split(':').next().unwrap_or(s).trim().to_string()),
            method,
            path,
            body,
        }
    }
}

/// The question as the search page sends it mid-word: the last word cut to 3 letters.
fn as_typed(q: &str) -> String {
    let q = q.trim_end_matches('?');
    match q.rsplit_once(' ') {
        Some((head, last)) => format!("{head} {}", last.chars().take(3).collect::<String>()),
        None => q.chars().take(3).collect(),
    }
}

/// A small deterministic generator (a 64-bit LCG, the high bits): each client's sequence of
/// requests is reproducible from its number.
#[derive(Debug)]
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
}

/// One client: requests back to back until the run stops; each answer checked, each search
/// timed, each failure counted with its message.
pub(crate) fn client(run: &Run, id: usize) {
    let mut conn = Conn::new(run.addr, id >= FRESH_CONNECTION_CLIENTS);
    let mut rng = Lcg(id as u64 * 7919 + 1);
    let mut last_generation = 0;
    while !run.stopped() {
        let kind = Kind::pick(rng.next());
        let q = &run.queries[rng.next() as usize % run.queries.len()];
        let req = Req::new(kind, q, run.args.selector.as_deref());
        let t = Instant::now();
        let result = conn
            .request(req.method, &req.path, req.body.as_deref())
            .and_then(|reply| check(&req, &reply));
        let ms = t.elapsed().as_secs_f64() * 1e3;
        match result {
            Ok(g) if g < last_generation => run.error(format!(
                "client {id}: {} {}: generation went back from {last_generation} to {g}",
                req.method, req.path
            )),
            Ok(g) => {
                last_generation = g;
                let mut w = run.window.lock().unwrap();
                w.requests += 1;
                if req.kind.is_search() {
                    w.search_ms.push(ms);
                }
            }
            Err(e) => {
                run.window.lock().unwrap().requests += 1;
                run.error(format!("client {id}: {} {}: {e}", req.method, req.path));
                // A dead server would otherwise be asked in a busy loop.
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// A 200 with JSON of the expected shape; the generation that answered.
fn check(req: &Req, r: &Reply) -> Result<u64> {
    if r.status != 200 {
        return Err(format!("status {}: {}", r.status, r.excerpt()));
    }
    let v: Value =
        serde_json::from_slice(&r.body).map_err(|e| format!("not JSON ({e}): {}", r.excerpt()))?;
    let (generation, ok) = match req.kind {
        Kind::Search | Kind::PostSearch => (&v["generation"], v["hits"].is_array()),
        Kind::PageSearch => (&v["generation"], v["groups"].is_array()),
        Kind::Stats => (&v["stats"]["generation"], v["stats"]["notes"].is_u64()),
        Kind::Health => (&v["generation"], v["status"].is_string()),
    };
    if let (Kind::Search | Kind::PostSearch, Some(want)) = (req.kind, &req.selector)
        && v["selector"].as_str() != Some(want.as_str())
    {
        return Err(format!("not the selector {want}: {}", r.excerpt()));
    }
    match generation.as_u64() {
        Some(g) if ok => Ok(g),
        _ => Err(format!("unexpected JSON: {}", r.excerpt())),
    }
}

/// Percent-encodes a query-string value.
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_search_asks_for_the_runs_selector() {
        let get = Req::new(Kind::Search, "mosaic plot", Some("mmr:lambda=0.6"));
        assert_eq!(
            get.path,
            "/search?q=mosaic%20plot&selector=mmr%3Alambda%3D0.6"
        );
        assert_eq!(get.selector.as_deref(), Some("mmr"));
        let page = Req::new(Kind::PageSearch, "mosaic plot", Some("cds"));
        assert!(page.path.ends_with("&selector=cds"), "{}", page.path);
        let post = Req::new(Kind::PostSearch, "mosaic plot", Some("cds"));
        let body: Value = serde_json::from_slice(post.body.as_deref().unwrap()).unwrap();
        assert_eq!(body["selector"], "cds");
        let plain = Req::new(Kind::Search, "mosaic plot", None);
        assert_eq!(plain.path, "/search?q=mosaic%20plot");
        assert!(Req::new(Kind::Stats, "q", Some("cds")).path == "/stats");
    }

    #[test]
    fn typed_queries_cut_the_last_word() {
        assert_eq!(as_typed("What is a mosaic plot?"), "What is a mosaic plo");
        assert_eq!(as_typed("Bose-Einstein"), "Bos");
    }
}
