//! The question evaluation: pools, selection, per-question rows (resumable) and aggregation.

use crate::metrics::{
    GoldPages, Mean, PageRef, hit, page_recall, page_recall_at, rank_pages, redundancy,
};
use crate::report::{EvalReport, FoldGroup, Group, Summary, write_report};
use crate::{Error, Question, Result, read_questions};
use indexer_engine::{
    DEFAULT_MATCHING, DEFAULT_RANKING, DEFAULT_REWRITE, Engine, Filter, FirstStage, Fusion,
    Matching, Note, Pool, Ranker, Ranking, Rules, Selector, SelectorKind, SelectorSpec,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// Where the candidate notes of a question come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PoolMode {
    /// Every note of the question's documents, as the CDS paper does.
    All,
    /// The index's BM25 + vector candidates restricted to the question's documents.
    Hybrid,
}

impl std::fmt::Display for PoolMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PoolMode::All => "all",
            PoolMode::Hybrid => "hybrid",
        })
    }
}

impl std::str::FromStr for PoolMode {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "all" => Ok(PoolMode::All),
            "hybrid" => Ok(PoolMode::Hybrid),
            _ => Err(format!("unknown pool mode {s:?} (all, hybrid)")),
        }
    }
}

/// What each question is searched over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Its own documents: the search filtered to them (the default, MMLongBench-Doc's setting).
    Docs,
    /// Its documents and `K` others of the set, chosen by the question's id (the CDS paper's
    /// protocol is 4 others).
    DocsAnd(usize),
    /// The whole index, no filter: how a user searches a library.
    Library,
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scope::Docs => f.write_str("docs"),
            Scope::DocsAnd(k) => write!(f, "docs:{k}"),
            Scope::Library => f.write_str("library"),
        }
    }
}

impl std::str::FromStr for Scope {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Scope, String> {
        let bad =
            || format!("scope must be docs, docs:K (K other documents) or library, not {s:?}");
        match s.trim() {
            "docs" => Ok(Scope::Docs),
            "library" => Ok(Scope::Library),
            other => other
                .strip_prefix("docs:")
                .and_then(|k| k.parse().ok())
                .map(Scope::DocsAnd)
                .ok_or_else(bad),
        }
    }
}

impl Scope {
    /// The documents a question is searched over (empty: the whole index): its own, with
    /// `K` others of `all` (the set's documents the index holds), those first in the order of
    /// the FNV-1a hash of the question's id and the document's name.
    pub fn documents(self, question: &Question, all: &[String]) -> Vec<String> {
        match self {
            Scope::Library => Vec::new(),
            Scope::Docs => question.docs.clone(),
            Scope::DocsAnd(k) => {
                let mut others: Vec<&String> =
                    all.iter().filter(|d| !question.docs.contains(d)).collect();
                others.sort_by_key(|d| {
                    (crate::folds::fnv1a(&format!("{}\u{0}{d}", question.id)), *d)
                });
                let mut docs = question.docs.clone();
                docs.extend(others.into_iter().take(k).cloned());
                docs
            }
        }
    }
}

/// Settings of one evaluation run.
#[derive(Debug, Clone)]
pub struct EvalConfig {
    pub questions: PathBuf,
    pub docs: PathBuf,
    pub index: PathBuf,
    pub selectors: Vec<SelectorKind>,
    /// A parameter grid: selectors with options (`cds-hybrid:beta=0.3:page=0.5`), evaluated
    /// beside `selectors`, each under its own text.
    pub grid: Vec<SelectorSpec>,
    /// The paper's B values.
    pub budgets: Vec<usize>,
    pub pools: Vec<PoolMode>,
    /// BM25 and vector list length of the hybrid pool.
    pub candidates: usize,
    /// How the hybrid pool fuses its BM25 and vector lists.
    pub fusion: Fusion,
    /// Pseudo-relevance feedback in the hybrid pool's first stage.
    pub feedback: bool,
    /// The rewrite stage's rules questions go through, as a search's
    /// (`SearchRequest::rewrite`).
    pub rewrite: Rules,
    /// Folds by document (`folds`): the report's figures per fold; 0 for none.
    pub folds: usize,
    /// What each question is searched over in the hybrid pool.
    pub scope: Scope,
    /// How the hybrid pool's candidates are ranked (`SearchRequest::ranking`).
    pub ranking: Ranking,
    /// A folder of learned models, one a fold (`fold-K.json`, `fold-K.txt`, trained without
    /// fold K by `tools/train-ranker`): each fold's questions ranked by its own, so that the
    /// learned ranking is measured on documents it was not trained on. Overrides `ranking`.
    pub ranker_folds: Option<PathBuf>,
    /// How query words match the index's terms in the hybrid pool.
    pub matching: Matching,
    pub out: PathBuf,
    /// Evaluate only the first `limit` questions.
    pub limit: Option<usize>,
}

/// One selected note in a result row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelectedNote {
    pub id: String,
    pub doc: String,
    pub page: Option<u32>,
    pub score: f64,
}

/// One line of `results.jsonl`: a question x selector x pool x budget. Rows whose selector is
/// `rank:cosine` / `rank:rrf` (budget 0) hold the candidate page ranking of the pool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultRow {
    pub question: String,
    pub selector: String,
    pub pool: String,
    pub budget: usize,
    pub answerable: bool,
    /// Size of the candidate pool N.
    pub candidates: usize,
    pub selected: Vec<SelectedNote>,
    pub recall: Option<f64>,
    pub hit: Option<bool>,
    /// Page Recall@1/3/5 (MMDocIR) of the pages ranked by the best note score.
    pub page_recall: [Option<f64>; 3],
    pub redundancy: f64,
    pub select_ms: f64,
    #[serde(default)]
    pub diagnostics: Option<serde_json::Value>,
}

impl ResultRow {
    fn key(&self) -> (String, String, String, usize) {
        (
            self.question.clone(),
            self.selector.clone(),
            self.pool.clone(),
            self.budget,
        )
    }
}

struct Acc {
    r: Mean,
    h: Mean,
}

fn group(a: &Acc) -> Group {
    Group {
        n: a.r.n,
        recall: a.r.value(),
        hit: a.h.value(),
    }
}

/// Aggregates rows of one run (the questions give sources and doc types; `folds` the fold of
/// each question, for the figures by fold).
pub fn aggregate(
    rows: &[ResultRow],
    questions: &[Question],
    folds: &HashMap<String, usize>,
) -> Vec<Summary> {
    let qs: HashMap<&str, &Question> = questions.iter().map(|q| (q.id.as_str(), q)).collect();
    let mut keys: Vec<(String, String, usize)> = Vec::new();
    let mut by_key: HashMap<(String, String, usize), Vec<&ResultRow>> = HashMap::new();
    for r in rows {
        if !qs.contains_key(r.question.as_str()) {
            continue;
        }
        let k = (r.selector.clone(), r.pool.clone(), r.budget);
        let e = by_key.entry(k.clone()).or_default();
        if e.is_empty() {
            keys.push(k);
        }
        e.push(r);
    }
    let mut out = Vec::new();
    for k in keys {
        let rows = &by_key[&k];
        let new_acc = || Acc {
            r: Mean::default(),
            h: Mean::default(),
        };
        let mut all = new_acc();
        let mut src: BTreeMap<String, Acc> = BTreeMap::new();
        let mut dt: BTreeMap<String, Acc> = BTreeMap::new();
        let mut by_fold: BTreeMap<usize, (Acc, Mean)> = BTreeMap::new();
        let (mut red, mut ms, mut it, mut kkt) = (
            Mean::default(),
            Mean::default(),
            Mean::default(),
            Mean::default(),
        );
        let mut pr = [Mean::default(); 3];
        let mut doc_hit = [Mean::default(); 2];
        let (mut ured, mut usel, mut un) = (Mean::default(), Mean::default(), 0);
        for r in rows {
            let q = qs[r.question.as_str()];
            ms.add(r.select_ms);
            if let Some(d) = &r.diagnostics {
                if let Some(x) = d.get("iterations").and_then(|v| v.as_f64()) {
                    it.add(x);
                }
                if let Some(x) = d.get("kkt_residual").and_then(|v| v.as_f64()) {
                    kkt.add(x);
                }
            }
            if r.answerable && r.selector.starts_with("rank:") {
                for (m, v) in pr.iter_mut().zip(r.page_recall) {
                    if let Some(v) = v {
                        m.add(v);
                    }
                }
                continue;
            }
            match (r.recall, r.hit) {
                (Some(rec), Some(h)) => {
                    // Whether the question's own documents hold the first hit, and any of the
                    // first three.
                    for (m, k) in doc_hit.iter_mut().zip([1, 3]) {
                        let found = r.selected.iter().take(k).any(|n| q.docs.contains(&n.doc));
                        m.add(if found { 1.0 } else { 0.0 });
                    }
                    red.add(r.redundancy);
                    let hv = if h { 1.0 } else { 0.0 };
                    all.r.add(rec);
                    all.h.add(hv);
                    for s in &q.evidence_sources {
                        let a = src.entry(s.clone()).or_insert_with(new_acc);
                        a.r.add(rec);
                        a.h.add(hv);
                    }
                    let a = dt.entry(q.doc_type.clone()).or_insert_with(new_acc);
                    a.r.add(rec);
                    a.h.add(hv);
                    if let Some(&f) = folds.get(&q.id) {
                        let (a, p1) = by_fold
                            .entry(f)
                            .or_insert_with(|| (new_acc(), Mean::default()));
                        a.r.add(rec);
                        a.h.add(hv);
                        if let Some(v) = r.page_recall[0] {
                            p1.add(v);
                        }
                    }
                    for (m, v) in pr.iter_mut().zip(r.page_recall) {
                        if let Some(v) = v {
                            m.add(v);
                        }
                    }
                }
                _ => {
                    un += 1;
                    ured.add(r.redundancy);
                    usel.add(r.selected.len() as f64);
                }
            }
        }
        out.push(Summary {
            selector: k.0.clone(),
            pool: k.1.clone(),
            budget: k.2,
            answerable: group(&all),
            by_source: src.iter().map(|(k, a)| (k.clone(), group(a))).collect(),
            by_doc_type: dt.iter().map(|(k, a)| (k.clone(), group(a))).collect(),
            by_fold: by_fold
                .iter()
                .map(|(k, (a, p1))| {
                    (
                        *k,
                        FoldGroup {
                            group: group(a),
                            page_r1: p1.value(),
                        },
                    )
                })
                .collect(),
            redundancy: red.value(),
            select_ms: ms.value(),
            page_recall: pr.map(|m| m.value()),
            doc_hit: doc_hit.map(|m| m.value()),
            iterations: it.value(),
            kkt_residual: kkt.value(),
            unanswerable: un,
            unanswerable_redundancy: ured.value(),
            unanswerable_selected: usel.value(),
        });
    }
    out
}

/// The hybrid pool's first stage, as a run sets it.
pub(crate) fn first_stage(cfg: &EvalConfig) -> FirstStage {
    FirstStage {
        candidates: cfg.candidates,
        fusion: cfg.fusion,
        feedback: cfg.feedback,
    }
}

fn io_err(path: &std::path::Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Write {
        path: path.to_path_buf(),
        source,
    }
}

/// Reads the rows of an existing `results.jsonl` (none if the file is missing).
pub fn read_rows(path: &std::path::Path) -> Result<Vec<ResultRow>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        // A line cut by an interrupted run is dropped and recomputed.
        match serde_json::from_str::<ResultRow>(line) {
            Ok(r) => rows.push(r),
            Err(e) if i + 1 == text.lines().count() => {
                let _ = e;
            }
            Err(e) => {
                return Err(Error::BadLine {
                    path: path.to_path_buf(),
                    line: i + 1,
                    message: e.to_string(),
                });
            }
        }
    }
    Ok(rows)
}

fn page_ref(n: &Note) -> Option<PageRef> {
    n.page.map(|p| (n.doc.clone(), p))
}

fn ranking_recall(notes: &[&Note], scores: &[f64], gold: &GoldPages) -> [Option<f64>; 3] {
    let scored: Vec<(PageRef, f64)> = notes
        .iter()
        .zip(scores)
        .filter_map(|(n, s)| page_ref(n).map(|p| (p, *s)))
        .collect();
    let ranked = rank_pages(&scored);
    [1, 3, 5].map(|k| page_recall_at(&ranked, gold, k))
}

/// Runs the evaluation, appending to `out/results.jsonl` (rows already there are skipped),
/// then writes `report.md` and the plots.
pub fn run_eval(
    cfg: &EvalConfig,
    engine: &Engine,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<EvalReport> {
    let mut questions = read_questions(&cfg.questions)?;
    if let Some(l) = cfg.limit {
        questions.truncate(l);
    }
    std::fs::create_dir_all(&cfg.out).map_err(io_err(&cfg.out))?;
    let results = cfg.out.join("results.jsonl");
    let mut rows = read_rows(&results)?;
    let done: HashSet<(String, String, String, usize)> = rows.iter().map(|r| r.key()).collect();
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&results)
        .map_err(io_err(&results))?;
    let documents: HashSet<String> = engine
        .view()
        .documents()?
        .into_iter()
        .filter(|d| d.notes > 0)
        .map(|d| d.doc)
        .collect();
    // The set's documents the index holds, for a scope of a question's documents and others.
    let mut set_docs: Vec<String> = questions
        .iter()
        .flat_map(|q| q.docs.iter().cloned())
        .filter(|d| documents.contains(d))
        .collect();
    set_docs.sort();
    set_docs.dedup();
    // Every selector of the run, built once, under the name its rows carry: the plain ones by
    // their kind, the grid's with their options.
    let mut choosers: Vec<(String, Box<dyn Selector>)> = cfg
        .selectors
        .iter()
        .map(|&k| (k.to_string(), indexer_engine::selector(k)))
        .collect();
    for spec in &cfg.grid {
        let built = spec
            .build()
            .map_err(|e| Error::Select(format!("{spec}: {e}")))?;
        choosers.push((spec.to_string(), built));
    }
    let folds = crate::folds::question_folds(&questions, cfg.folds);
    // Each fold's questions ranked by the model trained without them.
    let fold_rankers: Option<Vec<Ranker>> = match &cfg.ranker_folds {
        Some(dir) => Some(
            (0..cfg.folds.max(1))
                .map(|f| Ranker::read(dir, &format!("fold-{f}")))
                .collect::<std::result::Result<_, _>>()?,
        ),
        None => None,
    };
    let (mut computed, mut skipped, mut empty_pools) = (0, 0, 0);
    let total = questions.len();
    for (qi, q) in questions.iter().enumerate() {
        // The rows this run wants of the question that results.jsonl does not have yet.
        let mut wanted: Vec<(PoolMode, Row)> = Vec::new();
        for &pool in &cfg.pools {
            let mut rows = vec![Row::Ranking];
            for s in 0..choosers.len() {
                rows.extend(cfg.budgets.iter().map(|&b| Row::Selection(s, b)));
            }
            for row in rows {
                if done.contains(&row.key(&q.id, pool, &choosers)) {
                    skipped += 1;
                } else {
                    wanted.push((pool, row));
                }
            }
        }
        if !q.docs.iter().any(|d| documents.contains(d)) {
            empty_pools += 1;
        }
        if wanted.is_empty() {
            progress(qi + 1, total);
            continue;
        }
        // What `indexer query` searches of a question (its instructions about the answer left out).
        let filter = Filter {
            docs: cfg.scope.documents(q, &set_docs),
            ..Filter::default()
        };
        // As a search without a filter does: a question that names a document searches it.
        let (filter, _) = engine.scope_of(&q.question, &filter)?;
        let question = engine.searched_question(&q.question, cfg.matching, cfg.rewrite, &filter)?;
        let mut new_rows = Vec::new();
        for pool_mode in &cfg.pools {
            let todo: Vec<Row> = wanted
                .iter()
                .filter(|w| w.0 == *pool_mode)
                .map(|w| w.1)
                .collect();
            if todo.is_empty() {
                continue;
            }
            let pool = match pool_mode {
                PoolMode::All => engine.document_pool(&q.docs, &question.vector)?,
                PoolMode::Hybrid => {
                    let stage = first_stage(cfg);
                    match &fold_rankers {
                        Some(rankers) => {
                            let fold = folds.get(&q.id).copied().unwrap_or(0);
                            engine.hybrid_pool_with(&question, &filter, stage, rankers.get(fold))?
                        }
                        None => engine.hybrid_pool(&question, &filter, stage, cfg.ranking)?,
                    }
                }
            };
            let notes: Vec<&Note> = pool.entries().iter().map(|e| &e.note).collect();
            for row in todo {
                new_rows.push(match row {
                    Row::Ranking => ranking_row(q, *pool_mode, &pool, &notes),
                    Row::Selection(s, budget) => {
                        let (name, selector) = &choosers[s];
                        let chosen = Chosen {
                            name,
                            selector: selector.as_ref(),
                            budget,
                        };
                        selection_row(q, *pool_mode, &pool, &notes, &question.vector, chosen)?
                    }
                });
            }
        }
        for r in &new_rows {
            let line = serde_json::to_string(r).map_err(|e| Error::Select(e.to_string()))?;
            writeln!(file, "{line}").map_err(io_err(&results))?;
        }
        file.flush().map_err(io_err(&results))?;
        computed += new_rows.len();
        rows.extend(new_rows);
        progress(qi + 1, total);
    }
    let wanted_sel: HashSet<String> = choosers.iter().map(|c| c.0.clone()).collect();
    let wanted_pool: HashSet<String> = cfg.pools.iter().map(|p| p.to_string()).collect();
    rows.retain(|r| {
        wanted_pool.contains(&r.pool)
            && (r.selector.starts_with("rank:")
                || (wanted_sel.contains(&r.selector) && cfg.budgets.contains(&r.budget)))
    });
    let summaries = aggregate(&rows, &questions, &folds);
    let report = EvalReport {
        questions: questions.len(),
        computed,
        skipped,
        empty_pools,
        summaries,
        folds: cfg.folds,
        command: command_line(cfg),
    };
    write_report(&cfg.out, &report)?;
    Ok(report)
}

/// One row of a question and pool: the candidate page ranking, or a selector (an index into
/// the run's selectors) at a budget.
#[derive(Debug, Clone, Copy)]
enum Row {
    Ranking,
    Selection(usize, usize),
}

/// A selector of the run at one budget, with the name its rows carry.
struct Chosen<'a> {
    name: &'a str,
    selector: &'a dyn Selector,
    budget: usize,
}

impl Row {
    /// The name a ranking row's `selector` field has: the score the pages are ranked by.
    fn ranking_name(pool: PoolMode) -> &'static str {
        match pool {
            PoolMode::All => "rank:cosine",
            PoolMode::Hybrid => "rank:rrf",
        }
    }

    fn key(
        &self,
        question: &str,
        pool: PoolMode,
        choosers: &[(String, Box<dyn Selector>)],
    ) -> (String, String, String, usize) {
        let (selector, budget) = match self {
            Row::Ranking => (Row::ranking_name(pool).to_string(), 0),
            Row::Selection(s, b) => (choosers[*s].0.clone(), *b),
        };
        (question.to_string(), selector, pool.to_string(), budget)
    }
}

/// The candidate pages ranked by their best note: by the cosine for `all`, in the pool's
/// ranking order (named pages first, then the fused score) for `hybrid`.
fn ranking_row(q: &Question, pool_mode: PoolMode, pool: &Pool, notes: &[&Note]) -> ResultRow {
    let scores: Vec<f64> = match pool_mode {
        PoolMode::Hybrid => in_order(pool.len()),
        PoolMode::All => pool.entries().iter().map(|e| f64::from(e.cosine)).collect(),
    };
    ResultRow {
        question: q.id.clone(),
        selector: Row::ranking_name(pool_mode).to_string(),
        pool: pool_mode.to_string(),
        budget: 0,
        answerable: q.answerable,
        candidates: pool.len(),
        selected: Vec::new(),
        recall: None,
        hit: None,
        page_recall: ranking_recall(notes, &scores, &q.evidence_pages),
        redundancy: 0.0,
        select_ms: 0.0,
        diagnostics: None,
    }
}

/// Scores that rank `n` items in the order given.
fn in_order(n: usize) -> Vec<f64> {
    (0..n).map(|i| -(i as f64)).collect()
}

fn selection_row(
    q: &Question,
    pool_mode: PoolMode,
    pool: &Pool,
    notes: &[&Note],
    qvec: &[f32],
    chosen: Chosen<'_>,
) -> Result<ResultRow> {
    let Chosen {
        name,
        selector,
        budget,
    } = chosen;
    let t = Instant::now();
    let sel = pool
        .select_with(selector, qvec, &q.question, budget)
        .map_err(|e| Error::Select(format!("{}: {e}", q.id)))?;
    let select_ms = t.elapsed().as_secs_f64() * 1e3;
    let chosen: Vec<&Note> = sel.indices.iter().map(|&i| notes[i]).collect();
    let pages: Vec<PageRef> = chosen.iter().filter_map(|n| page_ref(n)).collect();
    let mut vecs = Vec::with_capacity(sel.indices.len() * pool.dim());
    for &i in &sel.indices {
        vecs.extend_from_slice(pool.vector(i));
    }
    Ok(ResultRow {
        question: q.id.clone(),
        selector: name.to_string(),
        pool: pool_mode.to_string(),
        budget,
        answerable: q.answerable,
        candidates: pool.len(),
        selected: chosen
            .iter()
            .zip(&sel.scores)
            .map(|(n, s)| SelectedNote {
                id: n.id.clone(),
                doc: n.doc.clone(),
                page: n.page,
                score: *s,
            })
            .collect(),
        recall: page_recall(&pages, &q.evidence_pages),
        hit: hit(&pages, &q.evidence_pages),
        // Pages in the order of the evidence: a selector's scores may not be (named pages
        // come first with their fused score).
        page_recall: ranking_recall(&chosen, &in_order(chosen.len()), &q.evidence_pages),
        redundancy: redundancy(&vecs, pool.dim()),
        select_ms,
        diagnostics: sel
            .diagnostics
            .as_ref()
            .and_then(|d| serde_json::to_value(d).ok()),
    })
}

fn command_line(cfg: &EvalConfig) -> String {
    let join = |v: Vec<String>| v.join(",");
    let mut s = format!(
        "indexer eval --questions {} --docs {} --index {} --selectors {} --budgets {} --pools {} --candidates {} --out {}",
        cfg.questions.display(),
        cfg.docs.display(),
        cfg.index.display(),
        join(cfg.selectors.iter().map(|s| s.to_string()).collect()),
        join(cfg.budgets.iter().map(|s| s.to_string()).collect()),
        join(cfg.pools.iter().map(|s| s.to_string()).collect()),
        cfg.candidates,
        cfg.out.display()
    );
    if !cfg.feedback {
        s.push_str(" --no-feedback");
    }
    if cfg.rewrite != DEFAULT_REWRITE {
        s.push_str(&format!(" --rewrite {}", cfg.rewrite));
    }
    if cfg.scope != Scope::Docs {
        s.push_str(&format!(" --scope {}", cfg.scope));
    }
    if cfg.ranking != DEFAULT_RANKING {
        s.push_str(&format!(" --ranking {}", cfg.ranking));
    }
    if let Some(dir) = &cfg.ranker_folds {
        s.push_str(&format!(" --ranker-folds {}", dir.display()));
    }
    if cfg.folds != crate::folds::DEFAULT_FOLDS {
        s.push_str(&format!(" --folds {}", cfg.folds));
    }
    if cfg.fusion != Fusion::default() {
        s.push_str(&format!(" --fusion {}", cfg.fusion));
    }
    if cfg.matching != DEFAULT_MATCHING {
        s.push_str(&format!(" --matching {}", cfg.matching));
    }
    if !cfg.grid.is_empty() {
        s.push_str(&format!(" --grid FILE ({} selector specs)", cfg.grid.len()));
    }
    if let Some(l) = cfg.limit {
        s.push_str(&format!(" --limit {l}"));
    }
    s
}

#[cfg(test)]
mod scope_tests {
    use super::*;

    fn question(id: &str, doc: &str) -> Question {
        serde_json::from_value(serde_json::json!({
            "id": id, "question": "q", "docs": [doc], "evidence_pages": {doc: [1]}
        }))
        .unwrap()
    }

    #[test]
    fn scopes_read_as_written_and_choose_other_documents_by_the_question() {
        for (text, want) in [
            ("docs", Scope::Docs),
            ("library", Scope::Library),
            ("docs:4", Scope::DocsAnd(4)),
        ] {
            assert_eq!(text.parse::<Scope>().unwrap(), want);
            assert_eq!(want.to_string(), text);
        }
        assert!("docs:x".parse::<Scope>().unwrap_err().contains("library"));
        let all: Vec<String> = (0..10).map(|i| format!("d{i}.pdf")).collect();
        let q = question("q1", "d3.pdf");
        assert_eq!(Scope::Docs.documents(&q, &all), ["d3.pdf"]);
        assert!(Scope::Library.documents(&q, &all).is_empty());
        let four = Scope::DocsAnd(4).documents(&q, &all);
        assert_eq!(four.len(), 5);
        assert_eq!(four[0], "d3.pdf");
        assert_eq!(four.iter().filter(|d| *d == "d3.pdf").count(), 1);
        // The same question chooses the same others; another question others.
        assert_eq!(Scope::DocsAnd(4).documents(&q, &all), four);
        let other = Scope::DocsAnd(4).documents(&question("q2", "d3.pdf"), &all);
        assert_ne!(other, four);
        assert_eq!(Scope::DocsAnd(20).documents(&q, &all).len(), 10);
    }
}
