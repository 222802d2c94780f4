//! Notes from parsed paragraphs and figures: chunks, figure/table notes with context, links,
//! summaries and keywords.

use crate::labels::label_number;
use crate::notes::chunk::sentences;
use crate::notes::chunk::{self, ChunkInput};
use crate::options::IngestOptions;
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
        .map(|p| ChunkInput {
            text: &p.text,
            section_start: p.heading,
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
    for f in figures {
        let pos = para_word.get(f.para).copied().unwrap_or(words.len());
        let window = |n: usize| -> String {
            let a = pos.saturating_sub(n);
            let b = (pos + n).min(words.len());
            words[a..b].join(" ")
        };
        let context = window(opts.context_words);
        let mut text = f.caption.clone();
        if !f.inside.is_empty() {
            text.push('\n');
            text.push_str(&f.inside);
        }
        let nearby = window(FIGURE_TEXT_CONTEXT_WORDS);
        if !nearby.is_empty() {
            text.push('\n');
            text.push_str(&nearby);
        }
        let mut note = Note::new(note_id(doc, f.kind, f.ordinal as usize), doc, f.kind, text);
        note.page = f.page;
        note.bbox = f.bbox.clone();
        note.caption = Some(f.caption.clone()).filter(|c| !c.is_empty());
        note.context = Some(context).filter(|c| !c.is_empty());
        note.image = f.image.clone();
        note.section = f.section.clone();
        notes.push(note);
    }

    add_links(&mut notes, &chunks, &chunk_of_para, figures, first_figure);
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

fn add_links(
    notes: &mut [Note],
    chunks: &[chunk::Chunk],
    chunk_of_para: &[usize],
    figures: &[FigureDraft],
    first_figure: usize,
) {
    let n_chunks = chunks.len();
    for k in 1..n_chunks {
        link(notes, k - 1, k, LinkKind::Adjacent);
        link(notes, k, k - 1, LinkKind::Adjacent);
    }
    let mut by_label: HashMap<&str, usize> = HashMap::new();
    for (i, f) in figures.iter().enumerate() {
        if !f.label.is_empty() {
            by_label.entry(f.label.as_str()).or_insert(first_figure + i);
        }
        let fi = first_figure + i;
        if let Some(&c) = chunk_of_para.get(f.para)
            && c < n_chunks
        {
            link(notes, fi, c, LinkKind::Caption);
            link(notes, c, fi, LinkKind::Caption);
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
}
