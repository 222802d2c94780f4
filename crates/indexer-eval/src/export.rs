//! `indexer eval --export-features FILE`: one row per (question, candidate) of the first
//! stage, with the candidate's features as the learned ranking reads them, its label (its
//! note is on a gold page of the question) and the keys a trainer splits and groups by (the
//! question, its fold by document, the document). `tools/train-ranker` reads it.

use crate::eval::{EvalConfig, first_stage};
use crate::{Error, Question, Result, read_questions};
use indexer_engine::{Engine, Filter, ranking::features::feature_names};
use std::io::Write;

/// What an export wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExportSummary {
    /// Answerable questions exported (an unanswerable one has no label to learn from).
    pub questions: usize,
    pub rows: usize,
    /// Rows whose note is on a gold page.
    pub positives: usize,
}

/// A value as the CSV holds it: `nan` for a missing one.
fn value(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else {
        format!("{v}")
    }
}

/// A CSV field: quoted when it holds a comma or a quote.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Writes the features of the first-stage candidates of every answerable question of
/// `cfg.questions` to `path` (CSV with a header: `question,fold,doc,note,page,gold,label`, then
/// the features by name; `gold` is the question's number of gold pages, found or not).
pub fn export_features(
    cfg: &EvalConfig,
    engine: &Engine,
    path: &std::path::Path,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ExportSummary> {
    let mut questions: Vec<Question> = read_questions(&cfg.questions)?;
    if let Some(l) = cfg.limit {
        questions.truncate(l);
    }
    let folds = crate::folds::question_folds(&questions, cfg.folds.max(1));
    let io = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    let header: Vec<&str> = ["question", "fold", "doc", "note", "page", "gold", "label"]
        .into_iter()
        .chain(feature_names())
        .collect();
    writeln!(out, "{}", header.join(",")).map_err(io)?;
    let mut summary = ExportSummary {
        questions: 0,
        rows: 0,
        positives: 0,
    };
    let total = questions.len();
    for (i, q) in questions.iter().enumerate() {
        progress(i, total);
        if !q.answerable || q.evidence_pages.is_empty() {
            continue;
        }
        let filter = Filter {
            docs: q.docs.clone(),
            ..Filter::default()
        };
        let question = engine.searched_question(&q.question, cfg.matching, cfg.rewrite, &filter)?;
        let pool = engine.first_stage_pool(&question, &filter, first_stage(cfg))?;
        let table = engine.feature_table(&question, &pool);
        let width = feature_names().count();
        let gold_pages: usize = q.evidence_pages.values().map(Vec::len).sum();
        for (e, row) in pool.entries().iter().zip(table.chunks_exact(width)) {
            let gold = e.note.page.is_some_and(|p| {
                q.evidence_pages
                    .get(&e.note.doc)
                    .is_some_and(|pages| pages.contains(&p))
            });
            let mut cells = vec![
                field(&q.id),
                folds.get(&q.id).copied().unwrap_or(0).to_string(),
                field(&e.note.doc),
                field(&e.note.id),
                e.note.page.map_or(String::new(), |p| p.to_string()),
                gold_pages.to_string(),
                u8::from(gold).to_string(),
            ];
            cells.extend(row.iter().map(|v| value(*v)));
            writeln!(out, "{}", cells.join(",")).map_err(io)?;
            summary.rows += 1;
            summary.positives += usize::from(gold);
        }
        summary.questions += 1;
    }
    out.flush().map_err(io)?;
    progress(total, total);
    Ok(summary)
}
