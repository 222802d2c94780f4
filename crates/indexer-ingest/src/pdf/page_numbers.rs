//! Printed page numbers: the number a page shows in its margin (`12`, `Page 12`, `- 12 -`,
//! `xiv`, `3 / 59`, `5 of 20`). It often differs from the page's place in the file: a cover
//! and front matter come first, and a paper in proceedings starts at page 6981. A question
//! that names "page 12" may mean either, so notes keep both (`Note::page_label`).

use crate::elements::{LineRole, PageElements};
use std::collections::HashMap;

/// The page number a line reads as, normalised (digits without leading zeros, a roman
/// numeral as written (lower case), the first number of `3 / 59` or `5 of 20`); `None` for any other
/// text.
pub(crate) fn page_number(text: &str) -> Option<String> {
    let t = text.trim();
    let t = ["Page ", "page ", "PAGE ", "p. ", "P. "]
        .iter()
        .find_map(|p| t.strip_prefix(p))
        .unwrap_or(t);
    let t = t.trim_matches(|c: char| c == '-' || c == '–' || c == '—' || c.is_whitespace());
    let first = t
        .split_once('/')
        .or_else(|| t.split_once(" of "))
        .map_or(Some(t), |(a, b)| {
            let b = b.trim();
            (!b.is_empty() && b.len() <= 5 && b.chars().all(|c| c.is_ascii_digit()))
                .then_some(a.trim())
        })?;
    if !first.is_empty() && first.len() <= 5 && first.chars().all(|c| c.is_ascii_digit()) {
        let n = first.trim_start_matches('0');
        return Some(if n.is_empty() { "0" } else { n }.to_string());
    }
    // Front matter is numbered in lower-case roman numerals; upper-case words of those
    // letters (`CIVIL`, `MID`) are more often headings.
    let roman =
        !first.is_empty() && first.len() <= 8 && first.chars().all(|c| "ivxlcdm".contains(c));
    roman.then(|| first.to_string())
}

/// The printed number of each page, by 1-based page number. A page's candidates are its
/// running header and footer lines that read as a page number (lines [`LineRole::Furniture`]
/// marks). A value that several pages show is a running header (a year, a volume), not a
/// page number, and is dropped; of a page's remaining candidates, the one that is the page's
/// place plus the document's most common offset wins, and a single candidate stands alone
/// (numbering restarts after front matter) when another page is numbered in step with it.
pub(crate) fn printed_page_numbers(pages: &[PageElements]) -> HashMap<u32, String> {
    let candidates: Vec<(u32, Vec<String>)> = pages
        .iter()
        .map(|p| {
            let mut c: Vec<String> = p
                .lines
                .iter()
                .filter(|l| l.role == LineRole::Furniture)
                .filter_map(|l| page_number(&l.text))
                .collect();
            c.dedup();
            (p.page, c)
        })
        .collect();
    let mut pages_showing: HashMap<&str, u32> = HashMap::new();
    for (_, c) in &candidates {
        for v in c {
            *pages_showing.entry(v.as_str()).or_default() += 1;
        }
    }
    let unique = |v: &String| pages_showing.get(v.as_str()).copied() == Some(1);
    let offset = |page: u32, v: &str| v.parse::<i64>().ok().map(|n| n - i64::from(page));
    let mut offsets: HashMap<i64, u32> = HashMap::new();
    for (page, c) in &candidates {
        for v in c.iter().filter(|v| unique(v)) {
            if let Some(o) = offset(*page, v) {
                *offsets.entry(o).or_default() += 1;
            }
        }
    }
    let common = offsets
        .iter()
        .max_by_key(|&(o, n)| (*n, std::cmp::Reverse(o.abs())))
        .map(|(o, _)| *o);
    let mut out = HashMap::new();
    for (page, c) in &candidates {
        let page = *page;
        let kept: Vec<&String> = c.iter().filter(|v| unique(v)).collect();
        let chosen = kept
            .iter()
            .find(|v| common.is_some() && offset(page, v) == common)
            .or(if kept.len() == 1 { kept.first() } else { None });
        if let Some(v) = chosen {
            out.insert(page, (*v).clone());
        }
    }
    // A number is a page number when another page's number runs in step with it (the same
    // offset to its place in the file); a lone number in the margin of one page is
    // something else (a chart's value, a year, a figure's number). Roman numerals need
    // another page numbered in roman numerals.
    let mut steps: HashMap<Option<i64>, u32> = HashMap::new();
    for (page, v) in &out {
        *steps.entry(offset(*page, v)).or_default() += 1;
    }
    out.retain(|page, v| steps.get(&offset(*page, v)).is_some_and(|&n| n >= 2));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elements::TextLine;
    use indexer_notes::BBox;

    #[test]
    fn page_number_reads_the_usual_forms() {
        for (text, want) in [
            ("12", Some("12")),
            ("Page 12", Some("12")),
            ("- 7 -", Some("7")),
            ("– 007 –", Some("7")),
            ("xiv", Some("xiv")),
            ("XIV", None),
            ("3 / 59", Some("3")),
            ("5 of 20", Some("5")),
            ("p. 6985", Some("6985")),
            ("Figure 3", None),
            ("Mix", None),
            ("1 of x", None),
            ("123456", None),
            ("3 / x", None),
            ("", None),
        ] {
            assert_eq!(page_number(text).as_deref(), want, "{text:?}");
        }
    }

    fn page(n: u32, margin: &[&str]) -> PageElements {
        let line = |t: &str, role| TextLine {
            text: t.to_string(),
            bbox: BBox::new(10.0, 10.0, 50.0, 20.0),
            size: 9.0,
            hyphen: false,
            block_start: true,
            role,
            words: Vec::new(),
        };
        let mut lines = vec![line("Body text that mentions 44.", LineRole::Body)];
        lines.extend(margin.iter().map(|t| line(t, LineRole::Furniture)));
        PageElements {
            page: n,
            width: 600.0,
            height: 800.0,
            lines,
            regions: Vec::new(),
        }
    }

    #[test]
    fn printed_numbers_follow_the_documents_offset() {
        // A cover without a number, front matter in roman numerals, then arabic numbers
        // from 1 on the fourth page, under a running header that shows the year.
        let pages = vec![
            page(1, &["2019"]),
            page(2, &["2019", "ii"]),
            page(3, &["2019", "iii"]),
            page(4, &["2019", "1"]),
            page(5, &["2019", "2"]),
            page(6, &["2019", "3"]),
            // A stray number in the margin that breaks the pattern loses to the page's own.
            page(7, &["2019", "88", "4"]),
            page(8, &[]),
        ];
        let got = printed_page_numbers(&pages);
        let want: HashMap<u32, String> = [
            (2, "ii"),
            (3, "iii"),
            (4, "1"),
            (5, "2"),
            (6, "3"),
            (7, "4"),
        ]
        .into_iter()
        .map(|(p, v)| (p, v.to_string()))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_lone_number_out_of_step_is_not_a_page_number() {
        // Slides without numbers, one of which shows a value in its margin; and a single
        // roman numeral.
        let pages = vec![
            page(1, &[]),
            page(2, &["632"]),
            page(3, &[]),
            page(4, &["iv"]),
        ];
        assert!(printed_page_numbers(&pages).is_empty());
        // Two pages in step are enough.
        let pages = vec![page(1, &[]), page(2, &["7"]), page(3, &["8"])];
        assert_eq!(printed_page_numbers(&pages).len(), 2);
    }

    #[test]
    fn body_numbers_are_not_page_numbers() {
        let mut p = page(3, &[]);
        p.lines.push(TextLine {
            role: LineRole::Body,
            ..p.lines[0].clone()
        });
        p.lines[1].text = "17".into();
        assert!(printed_page_numbers(&[p]).is_empty());
    }
}
