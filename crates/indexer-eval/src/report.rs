//! What an evaluation run reports (`EvalReport`, its `Summary` rows and their `Group`s), as
//! `report.md` and the PNG plots. The evaluation (`eval`) fills these types; nothing here runs
//! an evaluation.

use crate::{Error, Result};
use plotters::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// Means of one group of rows.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Group {
    pub n: usize,
    pub recall: Option<f64>,
    pub hit: Option<f64>,
}

/// Means of one fold of questions: recall and hit at B, and page Recall@1.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FoldGroup {
    #[serde(flatten)]
    pub group: Group,
    pub page_r1: Option<f64>,
}

/// The aggregate of one selector x pool x budget.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub selector: String,
    pub pool: String,
    pub budget: usize,
    /// Over answerable questions.
    pub answerable: Group,
    pub by_source: BTreeMap<String, Group>,
    pub by_doc_type: BTreeMap<String, Group>,
    /// By document fold (`folds`), when the run asked for folds.
    pub by_fold: BTreeMap<usize, FoldGroup>,
    pub redundancy: Option<f64>,
    pub select_ms: Option<f64>,
    /// Page Recall@1/3/5 over answerable questions.
    pub page_recall: [Option<f64>; 3],
    /// Document hit@1 and @3: how often the question's own documents hold the first hit of
    /// the evidence, and any of its first three (answerable questions).
    pub doc_hit: [Option<f64>; 2],
    pub iterations: Option<f64>,
    pub kkt_residual: Option<f64>,
    pub unanswerable: usize,
    pub unanswerable_redundancy: Option<f64>,
    pub unanswerable_selected: Option<f64>,
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalReport {
    pub questions: usize,
    /// Rows computed in this run.
    pub computed: usize,
    /// Rows found already done in `results.jsonl`.
    pub skipped: usize,
    /// Questions whose documents have no notes in the index.
    pub empty_pools: usize,
    pub summaries: Vec<Summary>,
    /// The number of folds by document of the figures by fold; 0 for none.
    pub folds: usize,
    pub command: String,
}

/// The evidence sources of MMLongBench-Doc, in the order the tables show them.
pub const SOURCES: [&str; 5] = [
    "Pure-text (Plain-text)",
    "Generalized-text (Layout)",
    "Table",
    "Chart",
    "Figure",
];

fn pct(x: Option<f64>) -> String {
    x.map(|v| format!("{:.1}", v * 100.0))
        .unwrap_or_else(|| "-".into())
}

fn g(x: Option<&Group>) -> String {
    match x {
        Some(g) => format!("{} ({})", pct(g.recall), g.n),
        None => "-".into(),
    }
}

/// The Markdown report.
pub fn markdown(r: &EvalReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# indexer eval\n\n```\n{}\n```\n", r.command);
    let _ = writeln!(
        s,
        "{} questions; {} rows computed, {} reused from results.jsonl; {} questions whose documents have no notes in the index.\n",
        r.questions, r.computed, r.skipped, r.empty_pools
    );
    let _ = writeln!(
        s,
        "## Gold page recall@B and hit@B (answerable questions, %)\n"
    );
    let _ = writeln!(
        s,
        "| selector | pool | B | n | recall | hit | page R@1 | R@3 | R@5 | doc hit@1 | doc hit@3 | redundancy | select ms | CDS iters | KKT residual |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for m in &r.summaries {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            m.selector,
            m.pool,
            m.budget,
            m.answerable.n,
            pct(m.answerable.recall),
            pct(m.answerable.hit),
            pct(m.page_recall[0]),
            pct(m.page_recall[1]),
            pct(m.page_recall[2]),
            pct(m.doc_hit[0]),
            pct(m.doc_hit[1]),
            m.redundancy
                .map(|v| format!("{v:.3}"))
                .unwrap_or("-".into()),
            m.select_ms.map(|v| format!("{v:.2}")).unwrap_or("-".into()),
            m.iterations
                .map(|v| format!("{v:.0}"))
                .unwrap_or("-".into()),
            m.kkt_residual
                .map(|v| format!("{v:.1e}"))
                .unwrap_or("-".into()),
        );
    }
    let _ = writeln!(
        s,
        "\nRows `rank:cosine` / `rank:rrf` are the candidate page ranking of the pool (MMDocIR page Recall@k: pages by their best note); for selectors, pages are ranked by the scores of the B selected notes.\n"
    );
    let sel: Vec<&Summary> = r.summaries.iter().filter(|m| m.budget > 0).collect();
    let _ = writeln!(s, "## Recall@B by evidence source (%, n)\n");
    let _ = writeln!(
        s,
        "| selector | pool | B | {} |\n|---|---|---|{}",
        SOURCES.join(" | "),
        "---|".repeat(SOURCES.len())
    );
    for m in &sel {
        let cols: Vec<String> = SOURCES.iter().map(|k| g(m.by_source.get(*k))).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            m.selector,
            m.pool,
            m.budget,
            cols.join(" | ")
        );
    }
    let types: BTreeSet<&String> = sel.iter().flat_map(|m| m.by_doc_type.keys()).collect();
    let _ = writeln!(s, "\n## Recall@B by document type (%, n)\n");
    let names: Vec<&str> = types.iter().map(|t| t.as_str()).collect();
    let _ = writeln!(
        s,
        "| selector | pool | B | {} |\n|---|---|---|{}",
        names.join(" | "),
        "---|".repeat(names.len())
    );
    for m in &sel {
        let cols: Vec<String> = names.iter().map(|k| g(m.by_doc_type.get(*k))).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            m.selector,
            m.pool,
            m.budget,
            cols.join(" | ")
        );
    }
    if r.folds > 0 {
        let _ = writeln!(
            s,
            "\n## Recall@B and page R@1 by document fold (%, n)\n\nQuestions go with the fold of their document: documents ordered by the FNV-1a hash of their name and dealt into {} folds in turn (`indexer_eval::folds`). A figure of a fold comes from documents that tuning on the other folds has not seen.\n",
            r.folds
        );
        let _ = writeln!(
            s,
            "| selector | pool | B | {} |\n|---|---|---|{}",
            (0..r.folds)
                .map(|f| format!("fold {f} recall | page R@1"))
                .collect::<Vec<_>>()
                .join(" | "),
            "---|---|".repeat(r.folds)
        );
        for m in &sel {
            let cols: Vec<String> = (0..r.folds)
                .map(|f| match m.by_fold.get(&f) {
                    Some(x) => format!("{} | {}", g(Some(&x.group)), pct(x.page_r1)),
                    None => "- | -".into(),
                })
                .collect();
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} |",
                m.selector,
                m.pool,
                m.budget,
                cols.join(" | ")
            );
        }
    }
    let _ = writeln!(
        s,
        "\n## Unanswerable questions\n\n| selector | pool | B | n | notes selected | redundancy |\n|---|---|---|---|---|---|"
    );
    for m in &sel {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            m.selector,
            m.pool,
            m.budget,
            m.unanswerable,
            m.unanswerable_selected
                .map(|v| format!("{v:.1}"))
                .unwrap_or("-".into()),
            m.unanswerable_redundancy
                .map(|v| format!("{v:.3}"))
                .unwrap_or("-".into()),
        );
    }
    let _ = writeln!(
        s,
        "\nPlots: `recall_by_source.png`, `recall_vs_budget.png`."
    );
    s
}

/// Writes `report.md` and the plots into `out`.
pub fn write_report(out: &Path, r: &EvalReport) -> Result<()> {
    let path = out.join("report.md");
    std::fs::write(&path, markdown(r)).map_err(|source| Error::Write { path, source })?;
    let font = register_font();
    plot_by_source(&out.join("recall_by_source.png"), &r.summaries, font)?;
    plot_vs_budget(&out.join("recall_vs_budget.png"), &r.summaries, font)?;
    Ok(())
}

const FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// Registers DejaVu Sans for the plots once; false when the font file is missing, and the
/// plots are then drawn without any text.
pub fn register_font() -> bool {
    static OK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OK.get_or_init(|| match std::fs::read(FONT) {
        Ok(bytes) => {
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok()
        }
        Err(_) => false,
    })
}

fn plot_err(path: &Path) -> impl Fn(String) -> Error + '_ {
    move |message| Error::Plot {
        path: path.to_path_buf(),
        message,
    }
}

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

fn main_budget(sums: &[Summary]) -> Option<usize> {
    let bs: BTreeSet<usize> = sums.iter().map(|m| m.budget).filter(|b| *b > 0).collect();
    if bs.contains(&10) {
        Some(10)
    } else {
        bs.into_iter().next()
    }
}

/// Grouped bars: recall@B per evidence source (groups) and selector (bars), first pool, B = 10
/// when present.
fn plot_by_source(path: &Path, sums: &[Summary], font: bool) -> Result<()> {
    let err = plot_err(path);
    let Some(b) = main_budget(sums) else {
        return Ok(());
    };
    let pool = sums
        .iter()
        .find(|m| m.budget == b)
        .map(|m| m.pool.clone())
        .unwrap_or_default();
    let rows: Vec<&Summary> = sums
        .iter()
        .filter(|m| m.budget == b && m.pool == pool)
        .collect();
    let root = BitMapBackend::new(path, (1000, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let groups = SOURCES.len() + 1;
    let mut chart = ChartBuilder::on(&root);
    chart.margin(20);
    if font {
        chart
            .caption(
                format!("gold page recall@{b} by evidence source ({pool} pool)"),
                ("sans-serif", 20),
            )
            .x_label_area_size(30)
            .y_label_area_size(40);
    }
    let mut chart = chart
        .build_cartesian_2d(0f64..groups as f64, 0f64..1f64)
        .map_err(|e| err(e.to_string()))?;
    if font {
        let labels: Vec<String> = std::iter::once("all".to_string())
            .chain(
                SOURCES
                    .iter()
                    .map(|s| s.split(' ').next().unwrap_or(s).to_string()),
            )
            .collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(groups * 2 + 1)
            .x_label_formatter(&|x| {
                let f = x.fract();
                if (f - 0.5).abs() < 0.05 {
                    labels.get(*x as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_desc("recall")
            .draw()
            .map_err(|e| err(e.to_string()))?;
    }
    let w = 0.8 / rows.len().max(1) as f64;
    for (si, m) in rows.iter().enumerate() {
        let c = COLORS[si % COLORS.len()];
        let vals: Vec<Option<f64>> = std::iter::once(m.answerable.recall)
            .chain(
                SOURCES
                    .iter()
                    .map(|k| m.by_source.get(*k).and_then(|g| g.recall)),
            )
            .collect();
        let series = chart
            .draw_series(vals.iter().enumerate().filter_map(|(gi, v)| {
                let x0 = gi as f64 + 0.1 + si as f64 * w;
                v.map(|v| Rectangle::new([(x0, 0.0), (x0 + w * 0.9, v)], c.filled()))
            }))
            .map_err(|e| err(e.to_string()))?;
        if font {
            series
                .label(m.selector.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], c.filled()));
        }
    }
    if font {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(e.to_string()))?;
    }
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}

/// Lines: recall@B against B, one line per selector and pool.
fn plot_vs_budget(path: &Path, sums: &[Summary], font: bool) -> Result<()> {
    let err = plot_err(path);
    let bmax = sums.iter().map(|m| m.budget).max().unwrap_or(0);
    if bmax == 0 {
        return Ok(());
    }
    let root = BitMapBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root);
    chart.margin(20);
    if font {
        chart
            .caption("gold page recall against B", ("sans-serif", 20))
            .x_label_area_size(30)
            .y_label_area_size(40);
    }
    let mut chart = chart
        .build_cartesian_2d(0f64..(bmax as f64 + 1.0), 0f64..1f64)
        .map_err(|e| err(e.to_string()))?;
    if font {
        chart
            .configure_mesh()
            .x_desc("B")
            .y_desc("recall")
            .draw()
            .map_err(|e| err(e.to_string()))?;
    }
    let keys: BTreeSet<(String, String)> = sums
        .iter()
        .filter(|m| m.budget > 0)
        .map(|m| (m.selector.clone(), m.pool.clone()))
        .collect();
    for (i, (s, p)) in keys.iter().enumerate() {
        let c = COLORS[i % COLORS.len()];
        let mut pts: Vec<(f64, f64)> = sums
            .iter()
            .filter(|m| &m.selector == s && &m.pool == p)
            .filter_map(|m| m.answerable.recall.map(|r| (m.budget as f64, r)))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let style = if p == "all" {
            c.stroke_width(2)
        } else {
            c.stroke_width(1)
        };
        let series = chart
            .draw_series(LineSeries::new(pts, style))
            .map_err(|e| err(e.to_string()))?;
        if font {
            series
                .label(format!("{s} ({p})"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 15, y)], c));
        }
    }
    if font {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(e.to_string()))?;
    }
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}
