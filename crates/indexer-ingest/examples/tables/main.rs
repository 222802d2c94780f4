//! Measures table detection against hand labels: which pages have tables, and where.
//!
//! `cargo run --release -p indexer-ingest --example tables -- --docs DIR [--docs DIR ...]
//! [--labels FILE] [--pages] [--rules-only]`
//!
//! The labels (`labels.tsv` beside this file, see `README.md` there) name PDFs by file name;
//! each is looked up in the `--docs` folders. Every labelled file is parsed as `indexer
//! ingest` parses it; the table notes of the labelled pages are compared with the labels:
//! per page (has a table or not) and per table (a found table matches a labelled one when
//! their boxes' intersection over union is at least 0.5), overall and for tables with and
//! without ruling lines. `--pages` prints each page's result. Tables are found as `ingest
//! --aligned-tables` finds them; `--rules-only` as without it (ruled tables with a caption).

use indexer_ingest::{IngestOptions, parse_file};
use indexer_notes::{BBox, NoteKind, WordCounter};
use std::collections::BTreeMap;
use std::path::PathBuf;

const MIN_IOU: f32 = 0.5;

struct Label {
    file: String,
    page: u32,
    /// (box, ruled)
    tables: Vec<(BBox, bool)>,
    note: String,
}

fn parse_labels(text: &str) -> Vec<Label> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        assert!(f.len() >= 5, "labels line {}: expected 5 fields", n + 1);
        let count: usize = f[2].parse().expect("tables is a number");
        let mut tables = Vec::new();
        if count > 0 {
            let ruled: Vec<bool> = f[3].split(',').map(|r| r.trim() == "y").collect();
            for (i, b) in f[4].split(';').enumerate() {
                let v: Vec<f32> = b
                    .split_whitespace()
                    .map(|x| x.parse().expect("box coordinate"))
                    .collect();
                assert_eq!(v.len(), 4, "labels line {}: a box has 4 numbers", n + 1);
                tables.push((BBox::new(v[0], v[1], v[2], v[3]), ruled[i]));
            }
            assert_eq!(
                tables.len(),
                count,
                "labels line {}: boxes != tables",
                n + 1
            );
        }
        out.push(Label {
            file: f[0].to_string(),
            page: f[1].parse().expect("page is a number"),
            tables,
            note: f.get(5).unwrap_or(&"").to_string(),
        });
    }
    out
}

fn iou(a: &BBox, b: &BBox) -> f32 {
    let w = a.right.min(b.right) - a.left.max(b.left);
    let h = a.top.min(b.top) - a.bottom.max(b.bottom);
    if w <= 0.0 || h <= 0.0 {
        return 0.0;
    }
    let i = w * h;
    i / (a.area() + b.area() - i)
}

#[derive(Default)]
struct Count {
    found: usize,
    labelled: usize,
}

fn main() {
    let mut docs: Vec<PathBuf> = Vec::new();
    let mut labels = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/tables/labels.tsv");
    let mut per_page = false;
    let mut aligned = true;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--docs" => docs.push(args.next().expect("--docs DIR").into()),
            "--labels" => labels = args.next().expect("--labels FILE").into(),
            "--pages" => per_page = true,
            "--rules-only" => aligned = false,
            other => panic!("unknown argument {other}"),
        }
    }
    let text = std::fs::read_to_string(&labels)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", labels.display()));
    let labels = parse_labels(&text);
    let mut by_file: BTreeMap<&str, Vec<&Label>> = BTreeMap::new();
    for l in &labels {
        by_file.entry(l.file.as_str()).or_default().push(l);
    }
    let opts = IngestOptions {
        crops: false,
        aligned_tables: aligned,
        ..IngestOptions::default()
    };
    let crop_dir = std::env::temp_dir().join("indexer-tables-example");
    // Pages: true/false positives and negatives.
    let (mut tp, mut fp, mut fneg, mut tn) = (0, 0, 0, 0);
    // Tables: labelled (all, ruled, not ruled) found; found tables that match a label.
    let mut recall: [Count; 3] = Default::default();
    let (mut predicted, mut matched) = (0usize, 0usize);
    for (file, pages) in by_file {
        let Some(path) = docs.iter().map(|d| d.join(file)).find(|p| p.exists()) else {
            eprintln!("{file}: not in any --docs folder, skipped");
            continue;
        };
        let doc = parse_file(&path, file, &opts, &WordCounter, &crop_dir, &mut |_| {})
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        for l in pages {
            // The parts of a long table are notes with the table's box: one table.
            let mut found: Vec<BBox> = Vec::new();
            for n in &doc.notes {
                if n.kind == NoteKind::Table
                    && n.page == Some(l.page)
                    && let Some(b) = n.bbox.first()
                    && !found.contains(b)
                {
                    found.push(*b);
                }
            }
            match (l.tables.is_empty(), found.is_empty()) {
                (false, false) => tp += 1,
                (false, true) => fneg += 1,
                (true, false) => fp += 1,
                (true, true) => tn += 1,
            }
            // Greedy one-to-one matching, best overlap first.
            let mut pairs: Vec<(f32, usize, usize)> = Vec::new();
            for (i, (lb, _)) in l.tables.iter().enumerate() {
                for (j, fb) in found.iter().enumerate() {
                    let v = iou(lb, fb);
                    if v >= MIN_IOU {
                        pairs.push((v, i, j));
                    }
                }
            }
            pairs.sort_by(|a, b| b.0.total_cmp(&a.0));
            let (mut li, mut fj) = (vec![false; l.tables.len()], vec![false; found.len()]);
            for (_, i, j) in pairs {
                if !li[i] && !fj[j] {
                    li[i] = true;
                    fj[j] = true;
                }
            }
            for (i, (_, ruled)) in l.tables.iter().enumerate() {
                for k in [0, if *ruled { 1 } else { 2 }] {
                    recall[k].labelled += 1;
                    recall[k].found += usize::from(li[i]);
                }
            }
            predicted += found.len();
            matched += fj.iter().filter(|&&m| m).count();
            if per_page {
                let show =
                    |b: &BBox| format!("{:.0} {:.0} {:.0} {:.0}", b.left, b.bottom, b.right, b.top);
                println!(
                    "{file} p{}: labelled [{}] found [{}] matched {}/{}  ({})",
                    l.page,
                    l.tables
                        .iter()
                        .map(|(b, _)| show(b))
                        .collect::<Vec<_>>()
                        .join("; "),
                    found.iter().map(show).collect::<Vec<_>>().join("; "),
                    li.iter().filter(|&&m| m).count(),
                    l.tables.len(),
                    l.note
                );
            }
        }
    }
    let pct = |a: usize, b: usize| {
        if b == 0 {
            "-".to_string()
        } else {
            format!("{:.0}% ({a}/{b})", 100.0 * a as f64 / b as f64)
        }
    };
    println!("| measure | value |\n|---|---|");
    println!("| pages with a table: precision | {} |", pct(tp, tp + fp));
    println!("| pages with a table: recall | {} |", pct(tp, tp + fneg));
    println!(
        "| pages without a table found clean | {} |",
        pct(tn, tn + fp)
    );
    println!(
        "| tables: precision (IoU >= {MIN_IOU}) | {} |",
        pct(matched, predicted)
    );
    println!(
        "| tables: recall, all | {} |",
        pct(recall[0].found, recall[0].labelled)
    );
    println!(
        "| tables: recall, ruled | {} |",
        pct(recall[1].found, recall[1].labelled)
    );
    println!(
        "| tables: recall, not ruled | {} |",
        pct(recall[2].found, recall[2].labelled)
    );
}
