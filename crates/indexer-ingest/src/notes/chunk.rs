//! Chunking: paragraphs into chunks of at most a given size, split at paragraph, then
//! sentence, then word boundaries, with overlap between consecutive chunks.

use crate::options::Chunking;
use indexer_notes::TokenCounter;

/// A piece of text that chunking never splits further: a paragraph, a sentence of a long
/// paragraph, or a run of words of a long sentence.
#[derive(Debug, Clone)]
struct Unit {
    text: String,
    para: usize,
    len: usize,
    /// The unit starts a section (a heading): a good place to start a new chunk.
    section_start: bool,
    /// The unit is the first of a page: a chunk always starts there.
    page_start: bool,
}

/// A chunk: its text and the paragraphs it draws from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chunk {
    pub text: String,
    pub first_para: usize,
    pub last_para: usize,
}

/// The input of chunking: one paragraph.
pub(crate) struct ChunkInput<'a> {
    pub text: &'a str,
    pub section_start: bool,
    /// The paragraph is the first that starts on its page (a paragraph that goes on from
    /// the page before belongs to that page). A chunk never runs from one page into the
    /// next paragraph's page, so every page with text starts a note of its own: a slide of
    /// thirty words is not folded into the chunk of the slide before.
    pub page_start: bool,
}

struct Measure<'a> {
    chunking: Chunking,
    counter: &'a dyn TokenCounter,
}

impl Measure<'_> {
    fn len(&self, s: &str) -> usize {
        match self.chunking {
            Chunking::Tokens { .. } => self.counter.count_tokens(s),
            Chunking::Chars { .. } => s.chars().count(),
        }
    }
    fn max(&self) -> usize {
        match self.chunking {
            Chunking::Tokens { max, .. } => max.max(1),
            Chunking::Chars { size, .. } => size.max(1),
        }
    }
    fn overlap(&self) -> usize {
        match self.chunking {
            Chunking::Tokens { overlap, .. } | Chunking::Chars { overlap, .. } => overlap,
        }
    }
    /// The cost of the separator between two units (a space or a blank line in char mode;
    /// tokenizers add nothing for whitespace).
    fn join(&self, same_para: bool) -> usize {
        match self.chunking {
            Chunking::Tokens { .. } => 0,
            Chunking::Chars { .. } => {
                if same_para {
                    1
                } else {
                    2
                }
            }
        }
    }
}

const ABBREVIATIONS: &[&str] = &[
    "fig", "figs", "eq", "eqs", "e.g", "i.e", "al", "vs", "cf", "dr", "mr", "mrs", "ms", "no",
    "sec", "ch", "ref", "refs", "tab", "approx", "etc", "resp", "vol", "pp", "p",
];

/// Splits text into sentences: after `.`, `!` or `?` followed by a space and an upper-case
/// letter, a digit or an opening bracket, unless the word before is a known abbreviation.
pub(crate) fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if matches!(b, b'.' | b'!' | b'?')
            && i + 1 < bytes.len()
            && bytes[i + 1].is_ascii_whitespace()
        {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            let next = text[j..].chars().next().unwrap_or(' ');
            let word_start = text[..i]
                .rfind(|c: char| c.is_whitespace())
                .map_or(0, |p| p + 1);
            let word = text[word_start.max(start)..i].to_ascii_lowercase();
            let abbrev = b == b'.'
                && (ABBREVIATIONS.contains(&word.as_str())
                    || (word.len() == 1 && word.chars().all(|c| c.is_alphabetic())));
            if j < bytes.len()
                && !abbrev
                && (next.is_uppercase() || next.is_ascii_digit() || "([\"'".contains(next))
            {
                out.push(text[start..=i].trim());
                start = j;
                i = j;
                continue;
            }
        }
        i += 1;
    }
    if start < text.len() {
        let rest = text[start..].trim();
        if !rest.is_empty() {
            out.push(rest);
        }
    }
    out
}

fn push_units(m: &Measure, para: usize, input: &ChunkInput, out: &mut Vec<Unit>) {
    let text = input.text.trim();
    let len = m.len(text);
    let max = m.max();
    let (mut section_start, mut page_start) = (input.section_start, input.page_start);
    let mut push = |text: String, len: usize, out: &mut Vec<Unit>| {
        out.push(Unit {
            text,
            para,
            len,
            section_start: std::mem::take(&mut section_start),
            page_start: std::mem::take(&mut page_start),
        });
    };
    if len <= max {
        push(text.to_string(), len, out);
        return;
    }
    for s in sentences(text) {
        let slen = m.len(s);
        if slen <= max {
            push(s.to_string(), slen, out);
            continue;
        }
        // A sentence longer than a chunk: runs of words.
        let mut run = String::new();
        let mut run_len = 0;
        for w in s.split_whitespace() {
            let wlen = m.len(w);
            if wlen > max {
                if !run.is_empty() {
                    push(std::mem::take(&mut run), run_len, out);
                    run_len = 0;
                }
                // One "word" longer than a chunk (a long URL, base64): cut it by characters.
                let chars: Vec<char> = w.chars().collect();
                let step = match m.chunking {
                    Chunking::Chars { .. } => max,
                    Chunking::Tokens { .. } => (max * 2).max(1),
                };
                for piece in chars.chunks(step) {
                    let p: String = piece.iter().collect();
                    let plen = m.len(&p).min(max);
                    push(p, plen, out);
                }
                continue;
            }
            let j = m.join(true);
            if !run.is_empty() && run_len + j + wlen > max {
                push(std::mem::take(&mut run), run_len, out);
                run_len = 0;
            }
            if !run.is_empty() {
                run.push(' ');
                run_len += j;
            }
            run.push_str(w);
            run_len += wlen;
        }
        if !run.is_empty() {
            push(run, run_len, out);
        }
    }
}

fn join_units(units: &[Unit]) -> String {
    let mut s = String::new();
    for (k, u) in units.iter().enumerate() {
        if k > 0 {
            s.push_str(if units[k - 1].para == u.para {
                " "
            } else {
                "\n\n"
            });
        }
        s.push_str(&u.text);
    }
    s
}

/// Cuts paragraphs into chunks. A chunk starts at a heading when the current one is already a
/// quarter full, so chunks follow sections without becoming tiny, and always at the first
/// paragraph of a page.
pub(crate) fn chunk(
    paras: &[ChunkInput],
    chunking: Chunking,
    counter: &dyn TokenCounter,
) -> Vec<Chunk> {
    let m = Measure { chunking, counter };
    let mut units = Vec::new();
    // An empty first paragraph of a page passes its page start on to the next one.
    let mut page_start = false;
    for (i, p) in paras.iter().enumerate() {
        page_start |= p.page_start;
        if !p.text.trim().is_empty() {
            let p = ChunkInput {
                page_start: std::mem::take(&mut page_start),
                ..*p
            };
            push_units(&m, i, &p, &mut units);
        }
    }
    let max = m.max();
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < units.len() {
        let mut end = start;
        let mut total = 0;
        while end < units.len() {
            let u = &units[end];
            let j = if end > start {
                m.join(units[end - 1].para == u.para)
            } else {
                0
            };
            if end > start
                && (total + j + u.len > max
                    || u.page_start
                    || (u.section_start && total * 4 >= max))
            {
                break;
            }
            total += j + u.len;
            end += 1;
        }
        // Unit lengths add up only approximately for real tokenizers: check the joined text
        // and give back units until it fits.
        let mut text = join_units(&units[start..end]);
        if matches!(chunking, Chunking::Tokens { .. }) {
            while end - start > 1 && m.len(&text) > max {
                end -= 1;
                text = join_units(&units[start..end]);
            }
        }
        chunks.push(Chunk {
            text,
            first_para: units[start].para,
            last_para: units[end - 1].para,
        });
        if end >= units.len() {
            break;
        }
        // Overlap: the next chunk repeats the last units of this one that fit in `overlap`,
        // and only as many as leave room for the unit this chunk could not take: a chunk
        // always adds text, it is never the overlap alone (a suffix of the chunk before).
        let mut next = end;
        let mut carried = 0;
        // The length the next chunk would have from `next` through `units[end]`, joins included.
        let mut span = units[end].len;
        while next > start + 1 {
            let u = &units[next - 1];
            let with = span + m.join(u.para == units[next].para) + u.len;
            if carried + u.len > m.overlap() || with > max {
                break;
            }
            carried += u.len;
            span = with;
            next -= 1;
        }
        if units[end].section_start || units[end].page_start {
            next = end;
        }
        start = next.max(start + 1);
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;
    use indexer_notes::WordCounter;

    fn inputs(texts: &[String]) -> Vec<ChunkInput<'_>> {
        texts
            .iter()
            .map(|t| ChunkInput {
                text: t,
                section_start: false,
                page_start: false,
            })
            .collect()
    }

    #[test]
    fn sentences_respect_abbreviations() {
        let s = sentences("See Fig. 3 for details. It shows e.g. the result. Next one! (A) last");
        assert_eq!(
            s,
            [
                "See Fig. 3 for details.",
                "It shows e.g. the result.",
                "Next one!",
                "(A) last"
            ]
        );
    }

    #[test]
    fn every_page_starts_a_chunk_of_its_own() {
        // Slides of a few words each: without page starts they would share one chunk.
        let texts: Vec<String> = [
            "Title slide",
            "Agenda: one, two",
            "",
            "Results in a table",
            "Thanks",
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        let pages = [true, true, true, false, true];
        let paras: Vec<ChunkInput> = texts
            .iter()
            .zip(pages)
            .map(|(t, page_start)| ChunkInput {
                text: t,
                section_start: false,
                page_start,
            })
            .collect();
        let chunking = Chunking::Tokens {
            max: 50,
            overlap: 8,
        };
        let got: Vec<(usize, usize)> = chunk(&paras, chunking, &WordCounter)
            .iter()
            .map(|c| (c.first_para, c.last_para))
            .collect();
        // The empty first paragraph of the third page passes its start on; no chunk
        // repeats the end of the page before as overlap.
        assert_eq!(got, [(0, 0), (1, 1), (3, 3), (4, 4)]);
        // Without page starts, one chunk holds them all.
        let one = chunk(&inputs(&texts), chunking, &WordCounter);
        assert_eq!(one.len(), 1);
    }

    #[test]
    fn chunks_fit_and_overlap() {
        let paras: Vec<String> = (0..20)
            .map(|p| {
                (0..9)
                    .map(|s| format!("Paragraph {p} sentence {s} has seven words."))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let chunks = chunk(
            &inputs(&paras),
            Chunking::Tokens {
                max: 50,
                overlap: 8,
            },
            &WordCounter,
        );
        assert!(chunks.len() > 10);
        for c in &chunks {
            assert!(WordCounter.count_tokens(&c.text) <= 50, "{}", c.text);
        }
        // Consecutive chunks share their boundary sentence.
        for w in chunks.windows(2) {
            let last_sentence = sentences(&w[0].text).last().unwrap().to_string();
            assert!(w[1].text.starts_with(&last_sentence), "{:?}", w);
        }
        // Every sentence is in some chunk.
        for p in &paras {
            for s in sentences(p) {
                assert!(chunks.iter().any(|c| c.text.contains(s)));
            }
        }
    }

    /// A 10-K's list of officers: short lines, then a paragraph that fills a chunk alone.
    /// The overlap carried from the list must not become chunks of their own (the build
    /// before made "53 Chief Legal Officer ... Robert A. Kotick ..." and then "Robert A.
    /// Kotick ..." before the paragraph: notes that are suffixes of the note before).
    #[test]
    fn overlap_never_makes_a_chunk_of_its_own() {
        let mut texts: Vec<String> = (0..12)
            .map(|i| format!("{} Officer number {i} of the company", 40 + i))
            .collect();
        texts.push(
            (0..46)
                .map(|w| format!("w{w}"))
                .collect::<Vec<_>>()
                .join(" "),
        );
        let chunking = Chunking::Tokens {
            max: 50,
            overlap: 8,
        };
        let chunks = chunk(&inputs(&texts), chunking, &WordCounter);
        assert_eq!(chunks.len(), 3, "{chunks:#?}");
        // The paragraph of 46 words leaves room for no line of 7 words before it.
        assert_eq!(chunks[2].text, texts[12]);
        for w in chunks.windows(2) {
            assert!(!w[0].text.ends_with(&w[1].text), "{w:#?}");
        }
    }

    proptest::proptest! {
        /// Whatever the paragraph and sentence lengths: every chunk fits (or is one unit that
        /// cannot be cut), every chunk reaches further than the one before (none is a suffix
        /// of another: the overlap alone is never a chunk), and no sentence is lost.
        #[test]
        fn chunks_always_advance(
            paras in proptest::collection::vec(
                (proptest::collection::vec(1usize..30, 1..6), proptest::bool::ANY, proptest::bool::ANY),
                1..40,
            ),
            max in 10usize..80,
            overlap in 0usize..20,
        ) {
            let texts: Vec<String> = paras
                .iter()
                .enumerate()
                .map(|(p, (sents, _, _))| {
                    sents
                        .iter()
                        .enumerate()
                        .map(|(s, &n)| {
                            let mut words: Vec<String> = (0..n).map(|w| format!("p{p}s{s}w{w}")).collect();
                            words[0] = format!("P{p}s{s}");
                            words.join(" ") + "."
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            let inputs: Vec<ChunkInput> = texts
                .iter()
                .zip(&paras)
                .map(|(t, (_, section_start, page_start))| ChunkInput {
                    text: t,
                    section_start: *section_start,
                    page_start: *page_start,
                })
                .collect();
            let chunks = chunk(&inputs, Chunking::Tokens { max, overlap }, &WordCounter);
            for c in &chunks {
                proptest::prop_assert!(WordCounter.count_tokens(&c.text) <= max, "{}", c.text);
            }
            for w in chunks.windows(2) {
                proptest::prop_assert!(!w[0].text.ends_with(&w[1].text), "{:#?}", w);
                proptest::prop_assert!(w[1].last_para >= w[0].last_para);
            }
            for t in &texts {
                for s in sentences(t) {
                    for run in s.split_whitespace().collect::<Vec<_>>().chunks(max) {
                        let run = run.join(" ");
                        proptest::prop_assert!(chunks.iter().any(|c| c.text.contains(&run)), "{run}");
                    }
                }
            }
        }
    }

    #[test]
    fn char_mode_splits_long_words_and_keeps_paragraph_breaks() {
        let paras = vec!["short one.".to_string(), "x".repeat(250), "tail.".into()];
        let chunks = chunk(
            &inputs(&paras),
            Chunking::Chars {
                size: 100,
                overlap: 10,
            },
            &WordCounter,
        );
        assert!(chunks.iter().all(|c| c.text.chars().count() <= 100));
        assert_eq!(chunks[0].text, "short one.");
        assert!(chunks[1].text.starts_with("xxx"));
        let xs: usize = chunks.iter().map(|c| c.text.matches('x').count()).sum();
        assert!(xs >= 250);
    }
}
