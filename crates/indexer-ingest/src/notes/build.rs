//! Notes from parsed paragraphs and figures: chunks, figure/table notes with context, links,
//! summaries and keywords.

use crate::elements::CELL_SEPARATOR;
use crate::labels::label_number;
use crate::notes::chunk::sentences;
use crate::notes::chunk::{self, ChunkInput};
use crate::notes::number_pages;
use crate::options::{Chunking, IngestOptions};
use indexer_notes::{BBox, Link, LinkKind, Note, NoteKind, TokenCounter, note_id};
use std::collections::{HashMap, HashSet};

/// A paragraph of running text (or a heading, or a caption) in reading order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Para {
    pub text: String,
    pub page: Option<u32>,
    /// Boxes of the paragraph's lines, merged per column, with their pages.
    pub boxes: Vec<(u32, BBox)>,
    pub section: Vec<String>,
    /// The fragment id of the section (HTML and Markdown).
    pub anchor: Option<String>,
    pub heading: bool,
}

/// A figure or table before it becomes a note.
#[derive(Debug, Clone)]
pub(crate) struct FigureDraft {
    pub kind: NoteKind,
    pub ordinal: u32,
    pub page: Option<u32>,
    pub bbox: Vec<BBox>,
    pub caption: String,
    /// Normalised label (`figure 3`), empty when the figure has no number.
    pub label: String,
    pub inside: String,
    pub image: Option<String>,
    /// The paragraph the figure sits at in reading order (its caption, or the paragraph
    /// before it).
    pub para: usize,
    pub section: Vec<String>,
    /// The fragment id of the section (HTML and Markdown).
    pub anchor: Option<String>,
}

/// How many words of context go into the embedded text of a figure note, on each side.
const FIGURE_TEXT_CONTEXT_WORDS: usize = 60;
const KEYWORDS_PER_NOTE: usize = 8;
const SUMMARY_WORDS: usize = 40;
const SAME_PAGE_LINKS: usize = 6;

pub(crate) fn build_notes(
    doc: &str,
    paras: &[Para],
    figures: &[FigureDraft],
    opts: &IngestOptions,
    counter: &dyn TokenCounter,
) -> Vec<Note> {
    let inputs: Vec<ChunkInput> = paras
        .iter()
        .enumerate()
        .map(|(i, p)| ChunkInput {
            text: &p.text,
            section_start: p.heading,
            page_start: p.page.is_some() && (i == 0 || paras[i - 1].page != p.page),
        })
        .collect();
    let chunks = chunk::chunk(&inputs, opts.chunking, counter);
    let mut notes = Vec::with_capacity(chunks.len() + figures.len());
    // Which chunk holds each paragraph first: captions and positions resolve through it.
    let mut chunk_of_para = vec![usize::MAX; paras.len()];
    for (k, c) in chunks.iter().enumerate() {
        let p = &paras[c.first_para];
        let mut note = Note::new(
            note_id(doc, NoteKind::Text, k),
            doc,
            NoteKind::Text,
            &c.text,
        );
        note.page = p.page;
        note.section = p.section.clone();
        note.anchor = p.anchor.clone();
        if let Some(page) = p.page {
            for para in &paras[c.first_para..=c.last_para] {
                for (pg, b) in &para.boxes {
                    if *pg == page {
                        merge_box(&mut note.bbox, *b);
                    }
                }
            }
        }
        for slot in &mut chunk_of_para[c.first_para..=c.last_para] {
            if *slot == usize::MAX {
                *slot = k;
            }
        }
        notes.push(note);
    }
    // Paragraphs between chunks (empty ones) point at the next chunk.
    let mut next = usize::MAX;
    for slot in chunk_of_para.iter_mut().rev() {
        if *slot == usize::MAX {
            *slot = next;
        } else {
            next = *slot;
        }
    }

    // The running words of the document, for figure context.
    let mut words: Vec<&str> = Vec::new();
    let mut para_word = Vec::with_capacity(paras.len() + 1);
    for p in paras {
        para_word.push(words.len());
        words.extend(p.text.split_whitespace());
    }
    para_word.push(words.len());

    let first_figure = notes.len();
    // The figure each figure or table note comes from: a long table is several notes.
    let mut note_figure = Vec::with_capacity(figures.len());
    let fits = |text: &str| match opts.chunking {
        Chunking::Tokens { max, .. } => counter.count_tokens(text) <= max,
        Chunking::Chars { size, .. } => text.chars().count() <= size,
    };
    let mut next_table = 0usize;
    for (i, f) in figures.iter().enumerate() {
        let pos = para_word.get(f.para).copied().unwrap_or(words.len());
        let window = |n: usize| -> String {
            let a = pos.saturating_sub(n);
            let b = (pos + n).min(words.len());
            words[a..b].join(" ")
        };
        let context = window(opts.context_words);
        let nearby = window(FIGURE_TEXT_CONTEXT_WORDS);
        let parts = if f.kind == NoteKind::Table {
            table_parts(&f.caption, &f.inside, &fits)
        } else {
            vec![f.inside.clone()]
        };
        for part in parts {
            let mut text = f.caption.clone();
            if !part.is_empty() {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&part);
            }
            if !nearby.is_empty() {
                text.push('\n');
                text.push_str(&nearby);
            }
            let ordinal = if f.kind == NoteKind::Table {
                next_table += 1;
                next_table - 1
            } else {
                f.ordinal as usize
            };
            let mut note = Note::new(note_id(doc, f.kind, ordinal), doc, f.kind, text);
            note.page = f.page;
            note.bbox = f.bbox.clone();
            note.caption = Some(f.caption.clone()).filter(|c| !c.is_empty());
            note.context = Some(context.clone()).filter(|c| !c.is_empty());
            note.image = f.image.clone();
            note.section = f.section.clone();
            note.anchor = f.anchor.clone();
            notes.push(note);
            note_figure.push(i);
        }
    }

    add_links(
        &mut notes,
        &chunks,
        &chunk_of_para,
        figures,
        &note_figure,
        first_figure,
    );
    notes.extend(number_page_notes(doc, paras, chunks.len()));
    for n in &mut notes {
        let source = match (&n.kind, &n.caption) {
            (NoteKind::Text, _) | (_, None) => n.text.as_str(),
            (_, Some(c)) => c.as_str(),
        };
        n.summary = summary(source);
    }
    add_keywords(&mut notes);
    notes
}

/// A text note for each page of numbers (a statement, a table without rules): its words
/// without the amounts ([`number_pages::page_words`]), on the page's boxes, with the section
/// of its first paragraph, the page with its amounts as its `context` (what a reader reads,
/// [`number_pages::page_text`]). Numbered after the `chunks` text notes, without links.
fn number_page_notes(doc: &str, paras: &[Para], chunks: usize) -> Vec<Note> {
    let mut pages: std::collections::BTreeMap<u32, Vec<&Para>> = Default::default();
    for p in paras {
        if let Some(page) = p.page {
            pages.entry(page).or_default().push(p);
        }
    }
    let mut notes = Vec::new();
    for (page, on_page) in pages {
        let words: Vec<&str> = on_page
            .iter()
            .flat_map(|p| p.text.split_whitespace())
            .collect();
        let Some(text) = number_pages::page_words(&words) else {
            continue;
        };
        let mut note = Note::new(
            note_id(doc, NoteKind::Text, chunks + notes.len()),
            doc,
            NoteKind::Text,
            text,
        );
        note.page = Some(page);
        note.context = Some(number_pages::page_text(&words));
        note.section = on_page[0].section.clone();
        note.anchor = on_page[0].anchor.clone();
        for (pg, b) in on_page.iter().flat_map(|p| &p.boxes) {
            if *pg == page {
                merge_box(&mut note.bbox, *b);
            }
        }
        notes.push(note);
    }
    notes
}

/// At most this many leading rows of a table are its column heads, repeated in each part.
const MAX_HEAD_ROWS: usize = 2;

/// A table's rows (`inside`: a row a line) cut into parts that fit with the caption
/// (`fits`: the chunk length), each part starting with the table's column heads, so that
/// every part reads as a table and every row is embedded whole. A table that fits is one
/// part.
pub(crate) fn table_parts(caption: &str, inside: &str, fits: &dyn Fn(&str) -> bool) -> Vec<String> {
    let with_caption = |body: &str| format!("{caption}\n{body}");
    if inside.is_empty() || fits(&with_caption(inside)) {
        return vec![inside.to_string()];
    }
    let rows: Vec<&str> = inside.lines().collect();
    let heads = rows
        .iter()
        .take(MAX_HEAD_ROWS)
        .take_while(|r| is_head_row(r))
        .count()
        .min(rows.len().saturating_sub(1));
    let head = rows[..heads].join("\n");
    let mut parts: Vec<String> = Vec::new();
    let mut cur = head.clone();
    let mut has_rows = false;
    for r in &rows[heads..] {
        let next = if cur.is_empty() {
            r.to_string()
        } else {
            format!("{cur}\n{r}")
        };
        if has_rows && !fits(&with_caption(&next)) {
            parts.push(std::mem::replace(
                &mut cur,
                if head.is_empty() {
                    r.to_string()
                } else {
                    format!("{head}\n{r}")
                },
            ));
        } else {
            cur = next;
        }
        has_rows = true;
    }
    parts.push(cur);
    parts
}

/// A row of column heads: no cell holds a number other than a year (`2015 | 2014`,
/// `Location | Footage | Use`).
fn is_head_row(row: &str) -> bool {
    row.split(CELL_SEPARATOR).all(|cell| {
        cell.split_whitespace().all(|w| {
            let digits = w.chars().filter(char::is_ascii_digit).count();
            digits == 0 || (digits == 4 && w.trim_matches(|c: char| !c.is_ascii_digit()).len() == 4)
        })
    })
}

fn merge_box(boxes: &mut Vec<BBox>, b: BBox) {
    if let Some(last) = boxes.last_mut() {
        let overlap = last.right.min(b.right) - last.left.max(b.left);
        if overlap > 0.5 * last.width().min(b.width()) && b.top <= last.top + 30.0 {
            *last = last.union(&b);
            return;
        }
    }
    boxes.push(b);
}

fn link(notes: &mut [Note], from: usize, to: usize, kind: LinkKind) {
    if from == to {
        return;
    }
    let target = notes[to].id.clone();
    let links = &mut notes[from].links;
    if !links.iter().any(|l| l.target == target && l.kind == kind) {
        links.push(Link { target, kind });
    }
}

/// Figure references in running text: `Figure 3`, `Fig. 3`, `Figs. 3`, `Table II`, `Tab. 2.1`.
pub(crate) fn references(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let words: Vec<&str> = text.split_whitespace().collect();
    for w in words.windows(2) {
        let head = w[0].trim_start_matches(|c: char| !c.is_alphanumeric());
        let kind = match head.to_ascii_lowercase().as_str() {
            "figure" | "fig." | "figs." | "figures" => "figure",
            "table" | "tab." | "tables" => "table",
            _ => continue,
        };
        if let Some(num) = label_number(w[1]) {
            out.push(format!("{kind} {num}"));
        }
    }
    out
}

/// Links between notes. Figure and table notes start at `first_figure`; `note_figure` gives
/// each one's figure in `figures` (the parts of a long table share one).
fn add_links(
    notes: &mut [Note],
    chunks: &[chunk::Chunk],
    chunk_of_para: &[usize],
    figures: &[FigureDraft],
    note_figure: &[usize],
    first_figure: usize,
) {
    let n_chunks = chunks.len();
    for k in 1..n_chunks {
        link(notes, k - 1, k, LinkKind::Adjacent);
        link(notes, k, k - 1, LinkKind::Adjacent);
    }
    // A reference to a label goes to the first note of its figure or table.
    let mut by_label: HashMap<&str, usize> = HashMap::new();
    for (j, &i) in note_figure.iter().enumerate() {
        let f = &figures[i];
        let fi = first_figure + j;
        if !f.label.is_empty() {
            by_label.entry(f.label.as_str()).or_insert(fi);
        }
        if let Some(&c) = chunk_of_para.get(f.para)
            && c < n_chunks
        {
            link(notes, fi, c, LinkKind::Caption);
            link(notes, c, fi, LinkKind::Caption);
        }
    }
    // The parts of one table follow each other.
    for j in 1..note_figure.len() {
        if note_figure[j] == note_figure[j - 1] {
            link(
                notes,
                first_figure + j - 1,
                first_figure + j,
                LinkKind::Adjacent,
            );
            link(
                notes,
                first_figure + j,
                first_figure + j - 1,
                LinkKind::Adjacent,
            );
        }
    }
    for k in 0..n_chunks {
        let refs = references(&notes[k].text);
        let mut seen = HashSet::new();
        for r in refs {
            if let Some(&fi) = by_label.get(r.as_str())
                && seen.insert(fi)
            {
                link(notes, k, fi, LinkKind::Reference);
                link(notes, fi, k, LinkKind::Reference);
            }
        }
    }
    // Same page: figures and tables with the text chunks of their page.
    let mut chunks_by_page: HashMap<u32, Vec<usize>> = HashMap::new();
    for (k, n) in notes.iter().enumerate().take(n_chunks) {
        if let Some(p) = n.page {
            chunks_by_page.entry(p).or_default().push(k);
        }
    }
    for fi in first_figure..notes.len() {
        let Some(p) = notes[fi].page else { continue };
        let list = chunks_by_page.get(&p).cloned().unwrap_or_default();
        for &k in list.iter().take(SAME_PAGE_LINKS) {
            link(notes, fi, k, LinkKind::SamePage);
            link(notes, k, fi, LinkKind::SamePage);
        }
    }
}

/// The first sentences of a text, up to about [`SUMMARY_WORDS`] words: an extractive summary.
pub(crate) fn summary(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::new();
    let mut n = 0;
    for s in sentences(&flat) {
        let w = s.split_whitespace().count();
        if n > 0 && n + w > SUMMARY_WORDS {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        if w > SUMMARY_WORDS {
            out.push_str(
                &s.split_whitespace()
                    .take(SUMMARY_WORDS)
                    .collect::<Vec<_>>()
                    .join(" "),
            );
            out.push_str(" ...");
            break;
        }
        out.push_str(s);
        n += w;
    }
    out
}

const STOPWORDS: &[&str] = &[
    "the",
    "and",
    "for",
    "are",
    "but",
    "not",
    "you",
    "all",
    "any",
    "can",
    "had",
    "her",
    "was",
    "one",
    "our",
    "out",
    "has",
    "have",
    "his",
    "how",
    "its",
    "may",
    "new",
    "now",
    "see",
    "two",
    "who",
    "did",
    "get",
    "use",
    "used",
    "using",
    "this",
    "that",
    "with",
    "from",
    "they",
    "will",
    "would",
    "there",
    "their",
    "what",
    "about",
    "which",
    "when",
    "were",
    "been",
    "also",
    "into",
    "than",
    "then",
    "them",
    "these",
    "those",
    "some",
    "such",
    "only",
    "other",
    "more",
    "most",
    "each",
    "where",
    "while",
    "here",
    "does",
    "should",
    "could",
    "must",
    "very",
    "between",
    "both",
    "over",
    "under",
    "same",
    "many",
    "much",
    "well",
    "even",
    "just",
    "like",
    "make",
    "made",
    "than",
    "thus",
    "hence",
    "where",
    "whether",
    "being",
    "because",
    "after",
    "before",
    "above",
    "below",
    "shown",
    "show",
    "shows",
    "given",
    "figure",
    "fig",
    "table",
    "section",
    "page",
    "first",
    "second",
    "example",
    "following",
    "however",
    "since",
    "let",
    "within",
    "without",
    "through",
    "per",
    "via",
    "can",
    "cannot",
    "way",
    "number",
    "set",
    "case",
];

fn terms(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric() && c != '-')
        .map(|w| w.trim_matches('-').to_lowercase())
        .filter(|w| {
            w.chars().count() >= 3
                && w.chars().any(|c| c.is_alphabetic())
                && !w.chars().all(|c| c.is_ascii_digit() || c == '-')
                && !STOPWORDS.contains(&w.as_str())
        })
}

/// Keywords by TF-IDF with the document's notes as the collection.
fn add_keywords(notes: &mut [Note]) {
    let mut df: HashMap<String, u32> = HashMap::new();
    let per_note: Vec<HashMap<String, u32>> = notes
        .iter()
        .map(|n| {
            let mut tf: HashMap<String, u32> = HashMap::new();
            for t in terms(&n.text) {
                *tf.entry(t).or_insert(0) += 1;
            }
            for t in tf.keys() {
                *df.entry(t.clone()).or_insert(0) += 1;
            }
            tf
        })
        .collect();
    let n = notes.len() as f32;
    for (note, tf) in notes.iter_mut().zip(per_note) {
        let mut scored: Vec<(f32, String)> = tf
            .into_iter()
            .map(|(t, f)| {
                let idf = ((n + 1.0) / (df[&t] as f32 + 0.5)).ln();
                ((1.0 + (f as f32).ln()) * idf, t)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        note.keywords = scored
            .into_iter()
            .take(KEYWORDS_PER_NOTE)
            .map(|(_, t)| t)
            .collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indexer_notes::WordCounter;

    #[test]
    fn references_and_labels() {
        assert_eq!(
            references("as shown in Figure 3, Fig. 15.1: and TABLE II. but not Table of contents"),
            ["figure 3", "figure 15.1", "table ii"]
        );
        assert_eq!(label_number("A.2"), Some("a.2".into()));
        assert_eq!(label_number("B1."), Some("b1".into()));
        assert_eq!(label_number("provides"), None);
    }

    #[test]
    fn a_page_of_numbers_gets_a_note_of_its_words_and_other_pages_none() {
        let para = |page: u32, text: String| Para {
            text,
            page: Some(page),
            boxes: vec![(page, BBox::new(50.0, 600.0, 500.0, 700.0))],
            section: vec!["Item 8. Financial Statements".into()],
            anchor: None,
            heading: false,
        };
        let items = [
            "Cash",
            "Securities",
            "Inventories",
            "Receivables",
            "Goodwill",
            "Equipment",
            "Payables",
            "Accruals",
            "Unearned",
            "Debt",
            "Leases",
            "Equity",
        ];
        let rows: Vec<String> = items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                format!(
                    "{item} .......... $ {},{:03} $ {},{:03}",
                    10 + i,
                    7 * i,
                    20 + i,
                    3 * i
                )
            })
            .collect();
        let paras = vec![
            para(
                1,
                "The statements below were audited. Revenue grew 12% in 2017.".into(),
            ),
            para(
                2,
                "CONSOLIDATED BALANCE SHEETS (in millions) 2016 2017".into(),
            ),
            para(2, rows.join(" ")),
            para(
                3,
                "Notes to the statements follow on this page, in prose.".into(),
            ),
        ];
        let opts = IngestOptions::default();
        let notes = build_notes("r.pdf", &paras, &[], &opts, &WordCounter);
        let chunks = notes
            .iter()
            .filter(|n| n.text.contains("audited") || n.text.contains("Notes to"))
            .count();
        let extra: Vec<&Note> = notes
            .iter()
            .filter(|n| n.text.starts_with("CONSOLIDATED") && !n.text.contains("10,000"))
            .collect();
        assert_eq!(extra.len(), 1, "{notes:#?}");
        let n = extra[0];
        assert_eq!(n.kind, NoteKind::Text);
        assert_eq!(n.page, Some(2));
        assert!(!n.bbox.is_empty());
        assert_eq!(n.section, ["Item 8. Financial Statements"]);
        // A reader gets the page with its amounts, without the leaders.
        let page = n.context.as_deref().unwrap();
        assert!(
            page.starts_with(
                "CONSOLIDATED BALANCE SHEETS (in millions) 2016 2017 Cash $ 10,000 $ 20,000 Securities $ 11,007"
            ),
            "{page}"
        );
        assert!(!page.contains(".."), "{page}");
        assert_eq!(
            n.text,
            format!(
                "CONSOLIDATED BALANCE SHEETS (in millions) 2016 2017 {}",
                items.join(" ")
            )
        );
        // Its id follows the chunks' (they keep theirs); its summary and keywords are made as
        // every note's.
        let text_notes = notes.iter().filter(|n| n.kind == NoteKind::Text).count();
        assert_eq!(n.id, format!("r.pdf#t{}", text_notes - 1));
        assert!(!n.summary.is_empty());
        let lower = n.text.to_lowercase();
        assert!(!n.keywords.is_empty());
        assert!(
            n.keywords.iter().all(|k| lower.contains(k.as_str())),
            "{:?}",
            n.keywords
        );
        // The page's rows are still chunks of their own, and pages 1 and 3 got no extra note.
        assert!(
            notes
                .iter()
                .any(|n| n.page == Some(2) && n.text.contains("$ 10,000"))
        );
        assert_eq!(chunks, 2);
        assert_eq!(notes.iter().filter(|n| n.page != Some(2)).count(), 2);
    }

    #[test]
    fn notes_link_chunks_figures_and_references() {
        let paras: Vec<Para> = (0..6)
            .map(|i| Para {
                text: if i == 4 {
                    "Figure 2: Growth of the zebra population.".into()
                } else {
                    format!("Paragraph {i} talks about zebras and see Figure 2 for the growth curve. More words follow here to fill it.")
                },
                page: Some(1 + i as u32 / 3),
                boxes: vec![(1 + i as u32 / 3, BBox::new(50.0, 600.0 - 40.0 * i as f32, 300.0, 630.0 - 40.0 * i as f32))],
                section: vec!["Intro".into()],
                anchor: None,
                heading: false,
            })
            .collect();
        let figures = vec![FigureDraft {
            kind: NoteKind::Figure,
            ordinal: 0,
            page: Some(2),
            bbox: vec![BBox::new(50.0, 300.0, 300.0, 500.0)],
            caption: paras[4].text.clone(),
            label: "figure 2".into(),
            inside: "0 10 20".into(),
            image: Some("x-f0.png".into()),
            para: 4,
            section: vec!["Intro".into()],
            anchor: None,
        }];
        let opts = IngestOptions {
            chunking: crate::Chunking::Tokens {
                max: 30,
                overlap: 3,
            },
            context_words: 10,
            ..IngestOptions::default()
        };
        let notes = build_notes("d.pdf", &paras, &figures, &opts, &WordCounter);
        let fig = notes.iter().find(|n| n.kind == NoteKind::Figure).unwrap();
        assert_eq!(fig.id, "d.pdf#f0");
        assert_eq!(
            fig.caption.as_deref(),
            Some("Figure 2: Growth of the zebra population.")
        );
        assert_eq!(fig.context.as_ref().unwrap().split_whitespace().count(), 20);
        assert!(fig.links.iter().any(|l| l.kind == LinkKind::Caption));
        assert!(fig.summary.starts_with("Figure 2: Growth"));
        assert!(fig.keywords.contains(&"zebra".to_string()));
        let t0 = &notes[0];
        assert_eq!(t0.id, "d.pdf#t0");
        assert!(
            t0.links
                .iter()
                .any(|l| l.kind == LinkKind::Adjacent && l.target == "d.pdf#t1")
        );
        assert!(
            t0.links
                .iter()
                .any(|l| l.kind == LinkKind::Reference && l.target == "d.pdf#f0")
        );
        assert_eq!(t0.page, Some(1));
        assert!(!t0.bbox.is_empty());
        assert!(
            notes
                .iter()
                .all(|n| !n.summary.is_empty() && !n.keywords.is_empty())
        );
    }

    #[test]
    fn long_tables_are_cut_into_parts_that_repeat_the_column_heads() {
        let counter = WordCounter;
        let fits = |t: &str| counter.count_tokens(t) <= 20;
        let mut rows = vec!["Item | 2015 | 2014".to_string()];
        for i in 0..12 {
            rows.push(format!("Row {i} | {} | {}", 100 + i, 200 + i));
        }
        let inside = rows.join("\n");
        let parts = table_parts("Table 2: Costs", &inside, &fits);
        assert!(parts.len() > 1, "{parts:?}");
        let mut seen = Vec::new();
        for p in &parts {
            let lines: Vec<&str> = p.lines().collect();
            assert_eq!(lines[0], "Item | 2015 | 2014", "{p}");
            assert!(lines.len() >= 2);
            assert!(fits(&format!("Table 2: Costs\n{p}")), "{p}");
            seen.extend(lines[1..].iter().map(|l| l.to_string()));
        }
        // Every row once, in order.
        assert_eq!(seen, rows[1..]);
        // A table that fits is one part; a row longer than the budget is a part alone.
        assert_eq!(table_parts("T", "a | 1\nb | 2", &fits), ["a | 1\nb | 2"]);
        let long = format!("Item | 2015\n{} | 7\nshort | 1", vec!["w"; 30].join(" "));
        let parts = table_parts("T", &long, &fits);
        assert_eq!(parts.len(), 2, "{parts:?}");
        assert!(parts[1].ends_with("short | 1"));
    }
}
