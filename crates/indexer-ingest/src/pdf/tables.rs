//! Tables from the alignment of text: rows of several cells whose cells line up in columns,
//! with or without ruling lines. Financial statements and most report tables have no rules,
//! so the graphics of a page ([`figures`](super::figures)) do not show them.
//!
//! Pure geometry over the lines of one page as shown (upright text, x to the right, y up),
//! with the word extents [`TextLine::words`] the line builder keeps:
//! 1. lines split into cells at gaps wider than [`CELL_GAP_EM`] (a lone `$` joins the number
//!    after it), lines at one height form a row;
//! 2. a row of two or more cells, one of them short (a number, a few words), is *tabular*;
//!    list items (a marker and its text) and lines of running text are not; a dot leader
//!    ends a cell;
//! 3. runs of tabular rows, close together, with at most [`MAX_LABEL_ROWS`] short one-cell
//!    rows between them (`Current assets:`), not crossed by running text, are candidates;
//! 4. a candidate is a table when it has [`MIN_ROWS`] tabular rows and most of its later cells
//!    line up with a cell of another row (left, right or centre within half an em): columns;
//!    unless it is a table of contents or an index (rows ending in page numbers) or code.
//!
//! On a two-column page of running text each column is searched alone. Charts whose labels
//! line up like cells are told apart from tables by their graphics, in
//! [`detect_regions`](super::figures::detect_regions).

use crate::elements::{CELL_SEPARATOR, LineRole, TextLine};
use crate::pdf::captions::find_captions;
use crate::pdf::layout::{Col, ColumnSplit, two_columns};
use indexer_notes::BBox;
use std::collections::HashSet;

/// Words further apart than this many ems are in different cells.
const CELL_GAP_EM: f32 = 1.0;
/// A table has at least this many tabular rows.
const MIN_ROWS: usize = 3;
/// At most this many one-cell rows (group labels, wrapped labels) in a row inside a table.
const MAX_LABEL_ROWS: usize = 3;
/// Rows further apart than this many line heights are not one table.
const MAX_ROW_GAP: f32 = 2.5;
/// A cell of at most this many words and characters is short (a value, a column label).
const SHORT_WORDS: usize = 5;
const SHORT_CHARS: usize = 40;
/// Share of the later cells of tabular rows that must line up with a cell of another row.
const MIN_ALIGNED: f32 = 0.7;
/// A line of at least this many words that is not split into cells is running text.
const PROSE_WORDS: usize = 9;

/// One cell: its extent and text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cell {
    pub left: f32,
    pub right: f32,
    pub text: String,
}

/// A row: cells left to right, its vertical extent and the lines it was built from.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub cells: Vec<Cell>,
    pub bbox: BBox,
    pub size: f32,
    pub lines: Vec<usize>,
}

/// A table found from text alignment: its box (the page as shown) and the indices of the
/// page's lines in it.
#[derive(Debug, Clone)]
pub(crate) struct TextTable {
    pub bbox: BBox,
    pub lines: Vec<usize>,
}

/// Rows as text: a row a line, cells separated by ` | `.
pub(crate) fn rows_text(rows: &[Vec<String>]) -> String {
    rows.iter()
        .map(|r| r.join(CELL_SEPARATOR))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_currency(s: &str) -> bool {
    matches!(s, "$" | "€" | "£" | "¥" | "US$" | "(" | "($")
}

/// Splits a line into cells at wide gaps between its words.
fn line_cells(line: &TextLine) -> Vec<Cell> {
    let words: Vec<&str> = line.text.split_whitespace().collect();
    // The builder's word extents match the text's words unless OCR or a ligature split them
    // differently; then the line is one cell.
    if line.words.len() != words.len() || words.is_empty() {
        return vec![Cell {
            left: line.bbox.left,
            right: line.bbox.right,
            text: line.text.clone(),
        }];
    }
    let gap = CELL_GAP_EM * em(line);
    // Dot leaders (`Total assets........ $ 3,706`, `Fonts . . . . 42`) end their cell: a word
    // ending in three dots, or a run of three words of dots.
    let dots: Vec<bool> = words
        .iter()
        .map(|w| w.chars().all(|c| matches!(c, '.' | '·' | '…')))
        .collect();
    let mut leader = vec![false; words.len()];
    let mut i = 0;
    while i < words.len() {
        let mut j = i;
        while j < words.len() && dots[j] {
            j += 1;
        }
        if j - i >= 3 {
            leader[i..j].fill(true);
        }
        i = j.max(i + 1);
    }
    let mut cells: Vec<Cell> = Vec::new();
    let mut closed = false;
    for (k, (w, &(l, r))) in words.iter().zip(&line.words).enumerate() {
        if leader[k] {
            closed = true;
            continue;
        }
        let (text, ends_in_leader) = strip_leader(w);
        match cells.last_mut() {
            Some(c) if !closed && (l - c.right <= gap || is_currency(&c.text)) => {
                if !text.is_empty() {
                    c.text.push(' ');
                    c.text.push_str(text);
                }
                c.right = c.right.max(r);
            }
            _ if text.is_empty() => {}
            _ => cells.push(Cell {
                left: l,
                right: r,
                text: text.to_string(),
            }),
        }
        closed = ends_in_leader;
    }
    cells
}

/// The line's em in points: its font size, or its height when the size is not plausible
/// (some producers scale a huge font down with the text matrix, and pdfium reports the huge
/// size).
pub(crate) fn em(line: &TextLine) -> f32 {
    let h = line.bbox.height();
    if line.size > 0.0 && line.size <= 2.0 * h {
        line.size.max(4.0)
    } else {
        h.max(4.0)
    }
}

fn center_y(b: &BBox) -> f32 {
    (b.top + b.bottom) / 2.0
}

/// Groups lines (by index) into rows, top to bottom; cells left to right.
pub(crate) fn rows_of(lines: &[TextLine], idx: &[usize]) -> Vec<Row> {
    let mut order: Vec<usize> = idx.to_vec();
    order.sort_by(|&a, &b| center_y(&lines[b].bbox).total_cmp(&center_y(&lines[a].bbox)));
    let mut rows: Vec<Row> = Vec::new();
    for i in order {
        let l = &lines[i];
        let same = rows.last().is_some_and(|r| {
            let overlap = r.bbox.top.min(l.bbox.top) - r.bbox.bottom.max(l.bbox.bottom);
            overlap >= 0.5 * r.bbox.height().min(l.bbox.height()).max(0.1)
        });
        if same {
            let r = rows.last_mut().expect("checked");
            r.bbox = r.bbox.union(&l.bbox);
            r.size = r.size.max(em(l));
            r.lines.push(i);
            r.cells.extend(line_cells(l));
        } else {
            rows.push(Row {
                cells: line_cells(l),
                bbox: l.bbox,
                size: em(l),
                lines: vec![i],
            });
        }
    }
    for r in &mut rows {
        r.cells.sort_by(|a, b| a.left.total_cmp(&b.left));
    }
    rows
}

fn is_short(c: &Cell) -> bool {
    c.text.split_whitespace().count() <= SHORT_WORDS && c.text.chars().count() <= SHORT_CHARS
}

/// `•`, `-`, `1.`, `(a)`, `a)`, `iv.`: a list item's marker.
pub(crate) fn is_marker(s: &str) -> bool {
    let t = s.trim();
    if t.chars().count() == 1 && !t.chars().all(char::is_alphanumeric) {
        return true;
    }
    let inner = t
        .strip_prefix('(')
        .and_then(|x| x.strip_suffix(')'))
        .or_else(|| t.strip_suffix(')'))
        .or_else(|| t.strip_suffix('.'));
    inner.is_some_and(|x| {
        !x.is_empty()
            && x.len() <= 4
            && (x.chars().all(|c| c.is_ascii_digit())
                || x.chars().all(|c| "ivxlcdm".contains(c))
                || (x.len() == 1 && x.chars().all(|c| c.is_ascii_alphabetic())))
    })
}

/// A word without its dot leader, and whether it had one (three or more dots at its end).
fn strip_leader(w: &str) -> (&str, bool) {
    let t = w.trim_end_matches(['.', '…', '·']);
    let dots = w.len() - t.len();
    if dots >= 3 || w.ends_with('…') {
        (t, true)
    } else {
        (w, false)
    }
}

/// A page number at the end of a table-of-contents or index row.
fn is_page_ref(s: &str) -> bool {
    let t = s.trim();
    (!t.is_empty() && t.len() <= 4 && t.chars().all(|c| c.is_ascii_digit()))
        || (!t.is_empty() && t.len() <= 6 && t.chars().all(|c| "ivxlcdm".contains(c)))
}

/// Whether a row reads as a table row: two or more cells besides a list marker, one of them
/// short.
fn tabular(r: &Row) -> bool {
    let cells: Vec<&Cell> = r
        .cells
        .iter()
        .enumerate()
        .filter(|(i, c)| !(*i == 0 && is_marker(&c.text)))
        .map(|(_, c)| c)
        .collect();
    cells.len() >= 2 && cells.iter().any(|c| is_short(c))
}

/// A line of running text: many words, not split into cells, on a wide line.
fn is_prose(line: &TextLine, text_width: f32) -> bool {
    line_cells(line).len() == 1
        && line.text.split_whitespace().count() >= PROSE_WORDS
        && line.bbox.width() >= 0.4 * text_width
}

/// Tables on one page. `lines` are the page's lines as shown (running headers and footers
/// already marked); the result's line indices point into it.
pub(crate) fn find_tables(lines: &[TextLine]) -> Vec<TextTable> {
    let idx: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].role != LineRole::Furniture)
        .collect();
    // On a two-column page of running text each column has its own tables (a line of the
    // left column and one of the right are never a row); lines across the gutter go with
    // both. (A page of wide tables can look like two columns: it has no running text.)
    let wordy = |split: &ColumnSplit, side: Col| {
        idx.iter()
            .filter(|&&i| split.col(&lines[i]) == side)
            .filter(|&&i| lines[i].text.split_whitespace().count() >= 6)
            .count()
            >= 5
    };
    let split = two_columns(lines).filter(|s| wordy(s, Col::Left) && wordy(s, Col::Right));
    match split {
        Some(split) => {
            let mut found: Vec<TextTable> = Vec::new();
            for side in [Col::Left, Col::Right] {
                let part: Vec<usize> = idx
                    .iter()
                    .copied()
                    .filter(|&i| matches!(split.col(&lines[i]), c if c == side || c == Col::Full))
                    .collect();
                for t in tables_in(lines, part) {
                    // A table of lines across the gutter is found from both sides.
                    if !found
                        .iter()
                        .any(|f| t.lines.iter().all(|i| f.lines.contains(i)))
                    {
                        found.push(t);
                    }
                }
            }
            found
        }
        None => tables_in(lines, idx),
    }
}

/// Tables among the lines `idx` of one column (or of a page of one column).
fn tables_in(lines: &[TextLine], idx: Vec<usize>) -> Vec<TextTable> {
    if idx.len() < MIN_ROWS {
        return Vec::new();
    }
    let left = idx
        .iter()
        .map(|&i| lines[i].bbox.left)
        .fold(f32::MAX, f32::min);
    let right = idx
        .iter()
        .map(|&i| lines[i].bbox.right)
        .fold(f32::MIN, f32::max);
    let text_width = (right - left).max(1.0);
    // Running text and captions never join a row (a table beside a column of text stays
    // narrow); they end a table when they lie between two rows, across the table's width.
    let captions: HashSet<usize> = find_captions(lines)
        .into_iter()
        .flat_map(|c| c.lines)
        .collect();
    let (prose, cells): (Vec<usize>, Vec<usize>) = idx
        .into_iter()
        .partition(|&i| is_prose(&lines[i], text_width) || captions.contains(&i));
    let rows = rows_of(lines, &cells);
    let crossed = |above: &Row, below: &Row, extent: (f32, f32)| {
        prose.iter().any(|&i| {
            let b = &lines[i].bbox;
            let c = center_y(b);
            c < center_y(&above.bbox)
                && c > center_y(&below.bbox)
                && b.left < extent.1
                && b.right > extent.0
        })
    };
    let mut out = Vec::new();
    let mut run: Vec<usize> = Vec::new();
    let mut extent = (0.0f32, 0.0f32);
    let mut labels = 0;
    let close = |run: &mut Vec<usize>, out: &mut Vec<TextTable>| {
        while run.last().is_some_and(|&k| !tabular(&rows[k])) {
            run.pop();
        }
        if let Some(t) = accept(&rows, run) {
            out.push(t);
        }
        run.clear();
    };
    for (k, r) in rows.iter().enumerate() {
        let is_tab = tabular(r);
        if let Some(&last) = run.last() {
            let prev = &rows[last];
            let em = prev.size.max(r.size).max(4.0);
            let far = prev.bbox.bottom - r.bbox.top > MAX_ROW_GAP * em;
            if far || crossed(prev, r, extent) || (!is_tab && labels >= MAX_LABEL_ROWS) {
                close(&mut run, &mut out);
                labels = 0;
            }
        }
        if is_tab {
            if run.is_empty() {
                extent = (r.bbox.left, r.bbox.right);
            }
            extent = (extent.0.min(r.bbox.left), extent.1.max(r.bbox.right));
            run.push(k);
            labels = 0;
        } else if !run.is_empty() && r.cells.len() == 1 && continues_cell(&rows, &run, r) {
            // A wrapped cell's next line, under its column.
            run.push(k);
        } else if !run.is_empty() && r.cells.len() == 1 && is_short(&r.cells[0]) {
            run.push(k);
            labels += 1;
        } else if !run.is_empty() {
            close(&mut run, &mut out);
            labels = 0;
        }
    }
    close(&mut run, &mut out);
    out
}

/// Whether the one-cell row `r` starts under a later column of the rows in `run` (a cell's
/// text wrapped to a second line).
fn continues_cell(rows: &[Row], run: &[usize], r: &Row) -> bool {
    let tol = 0.5 * r.size;
    let left = r.cells[0].left;
    run.iter()
        .flat_map(|&k| rows[k].cells.iter().skip(1))
        .any(|c| (c.left - left).abs() <= tol)
}

/// A table of contents, a list of tables or an index: every row ends in a page number and
/// the numbers run down the page in order, or most cells end in one (`Albu (class), 239`).
fn reference_list(rows: &[&Row]) -> bool {
    let cells: Vec<&Cell> = rows.iter().flat_map(|r| &r.cells).collect();
    let ends_in_page = |c: &Cell| {
        c.text
            .rsplit_once(", ")
            .is_some_and(|(_, n)| is_page_ref(n))
    };
    if cells.iter().filter(|c| ends_in_page(c)).count() * 4 >= cells.len() {
        return true;
    }
    // Most rows end in a page number (a long title wraps to a row without one), in order.
    let pages: Vec<u32> = rows
        .iter()
        .filter_map(|r| {
            let last = r.cells.last()?;
            if is_page_ref(&last.text) {
                last.text.trim().parse().ok()
            } else {
                None
            }
        })
        .collect();
    pages.len() * 5 >= rows.len() * 4 && pages.windows(2).all(|w| w[0] <= w[1])
}

/// Program code with aligned comments or assignments: many cells hold code punctuation.
fn code(rows: &[&Row]) -> bool {
    let cells: Vec<&Cell> = rows.iter().flat_map(|r| &r.cells).collect();
    let coded = cells
        .iter()
        .filter(|c| c.text.contains(['=', '{', '}', ';', '_', '#']))
        .count();
    coded * 10 >= cells.len() * 3
}

/// The run of rows `run` as a table, if it has the rows and the columns of one.
fn accept(rows: &[Row], run: &[usize]) -> Option<TextTable> {
    let tab: Vec<&Row> = run
        .iter()
        .map(|&k| &rows[k])
        .filter(|r| tabular(r))
        .collect();
    if tab.len() < MIN_ROWS {
        return None;
    }
    if reference_list(&tab) || code(&tab) {
        return None;
    }
    // The later cells of each row line up with a cell of another row.
    let em = tab.iter().map(|r| r.size).fold(0.0f32, f32::max).max(4.0);
    let tol = 0.5 * em;
    let mut later = 0usize;
    let mut aligned = 0usize;
    for (i, r) in tab.iter().enumerate() {
        for c in r.cells.iter().skip(1) {
            later += 1;
            let lines_up = tab.iter().enumerate().any(|(j, o)| {
                j != i
                    && o.cells.iter().skip(1).any(|d| {
                        (d.left - c.left).abs() <= tol
                            || (d.right - c.right).abs() <= tol
                            || ((d.left + d.right) - (c.left + c.right)).abs() <= 2.0 * tol
                    })
            });
            if lines_up {
                aligned += 1;
            }
        }
    }
    if later == 0 || (aligned as f32) < MIN_ALIGNED * later as f32 {
        return None;
    }
    let mut bbox = rows[run[0]].bbox;
    let mut lines = Vec::new();
    for &k in run {
        bbox = bbox.union(&rows[k].bbox);
        lines.extend(&rows[k].lines);
    }
    Some(TextTable { bbox, lines })
}

/// The lines pdfium would give for text pieces `(x, text)` on the baseline `y`: glyphs 5
/// points wide and 10 high, so a piece's words and gaps are where a reader sees them.
#[cfg(test)]
pub(crate) fn test_row(y: f32, pieces: &[(f32, &str)]) -> Vec<TextLine> {
    use crate::pdf::layout::{CharEvent, build_lines, test_glyphs};
    let mut ev = Vec::new();
    for &(x, s) in pieces {
        ev.push(CharEvent::Space);
        ev.extend(test_glyphs(s, x, y, 10.0));
    }
    build_lines(ev)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(y: f32, pieces: &[(f32, &str)]) -> Vec<TextLine> {
        test_row(y, pieces)
    }

    fn page(rows: Vec<Vec<TextLine>>) -> Vec<TextLine> {
        rows.into_iter().flatten().collect()
    }

    fn texts(lines: &[TextLine], t: &TextTable) -> Vec<Vec<String>> {
        rows_of(lines, &t.lines)
            .into_iter()
            .map(|r| r.cells.into_iter().map(|c| c.text).collect())
            .collect()
    }

    const PROSE: &str =
        "The company reports its results in the tables below, with the figures of the two years";

    /// A statement without rules: a title, column heads, rows with dot leaders and dollar
    /// signs, a group label, a wrapped row label; running text before and after.
    fn statement() -> Vec<TextLine> {
        let r = |y, label: &'static str, a: &'static str, b: &'static str| {
            row(y, &[(50.0, label), (300.0, a), (420.0, b)])
        };
        page(vec![
            row(760.0, &[(50.0, PROSE)]),
            row(746.0, &[(50.0, PROSE)]),
            row(716.0, &[(200.0, "CONSOLIDATED BALANCE SHEETS")]),
            row(700.0, &[(310.0, "2015"), (430.0, "2014")]),
            row(686.0, &[(50.0, "Current assets:")]),
            r(672.0, "Cash.........", "$ 876,560", "$ 1,117,400"),
            r(658.0, "Receivables...", "672,006", "591,800"),
            r(644.0, "Inventories ...", "124,331", "98,211"),
            row(630.0, &[(50.0, "Prepaid expenses and other")]),
            r(616.0, "current assets", "161,802", "176,595"),
            r(602.0, "Total current assets", "$ 1,834,699", "$ 1,984,006"),
            row(572.0, &[(50.0, PROSE)]),
            row(558.0, &[(50.0, PROSE)]),
        ])
    }

    #[test]
    fn a_statement_without_rules_is_one_table_of_rows_and_cells() {
        let lines = statement();
        let found = find_tables(&lines);
        assert_eq!(found.len(), 1, "{found:?}");
        let t = &found[0];
        assert_eq!(
            texts(&lines, t),
            [
                vec!["2015", "2014"],
                vec!["Current assets:"],
                vec!["Cash", "$ 876,560", "$ 1,117,400"],
                vec!["Receivables", "672,006", "591,800"],
                vec!["Inventories", "124,331", "98,211"],
                vec!["Prepaid expenses and other"],
                vec!["current assets", "161,802", "176,595"],
                vec!["Total current assets", "$ 1,834,699", "$ 1,984,006"],
            ]
        );
        // The box holds the rows, not the title or the running text around them.
        assert!(t.bbox.top < 716.0 && t.bbox.top > 700.0, "{:?}", t.bbox);
        assert!(
            t.bbox.bottom > 572.0 + 8.0 && t.bbox.bottom < 602.0,
            "{:?}",
            t.bbox
        );
        assert!(
            !t.lines.iter().any(|&i| lines[i].text.contains("company")),
            "running text is not in the table"
        );
    }

    #[test]
    fn running_text_between_rows_splits_tables() {
        let mut lines = statement();
        // Running text between "Receivables" and "Inventories": two tables.
        lines.extend(row(651.0, &[(50.0, PROSE)]));
        let found = find_tables(&lines);
        assert_eq!(found.len(), 2);
        let first = texts(&lines, &found[0]);
        assert_eq!(first.first().unwrap(), &["2015", "2014"]);
        assert_eq!(first.last().unwrap()[0], "Receivables");
        assert_eq!(texts(&lines, &found[1])[0][0], "Inventories");
    }

    #[test]
    fn contents_lists_indexes_code_and_text_columns_are_not_tables() {
        let contents = page(
            (0..8)
                .map(|i| {
                    let y = 700.0 - 14.0 * i as f32;
                    row(
                        y,
                        &[
                            (50.0, "Item 1."),
                            (100.0, "Business . . . . . . . ."),
                            (500.0, ["3", "9", "18", "30", "30", "32", "33", "35"][i]),
                        ],
                    )
                })
                .collect(),
        );
        assert!(find_tables(&contents).is_empty(), "a table of contents");

        let list = page(
            (0..6)
                .map(|i| {
                    row(
                        700.0 - 14.0 * i as f32,
                        &[(50.0, "•"), (70.0, "an item of a list")],
                    )
                })
                .collect(),
        );
        assert!(find_tables(&list).is_empty(), "a bulleted list");

        let index = page(
            (0..6)
                .map(|i| {
                    row(
                        700.0 - 14.0 * i as f32,
                        &[
                            (50.0, "anchor() (method), 12"),
                            (320.0, "zoom() (function), 40"),
                        ],
                    )
                })
                .collect(),
        );
        assert!(find_tables(&index).is_empty(), "an index");

        let code = page(
            (0..6)
                .map(|i| {
                    row(
                        700.0 - 14.0 * i as f32,
                        &[(50.0, "lr_config = dict("), (300.0, "# the schedule")],
                    )
                })
                .collect(),
        );
        assert!(find_tables(&code).is_empty(), "code with aligned comments");

        // Two columns of running text whose lines are short: each column is read alone.
        let columns = page(
            (0..12)
                .map(|i| {
                    row(
                        700.0 - 12.0 * i as f32,
                        &[
                            (50.0, "short words in a column of a paper"),
                            (320.0, "and more words in the next one"),
                        ],
                    )
                })
                .collect(),
        );
        assert!(find_tables(&columns).is_empty(), "two text columns");
    }

    #[test]
    fn two_rows_are_not_a_table() {
        let lines = page(vec![
            row(
                700.0,
                &[(50.0, "Revenue"), (300.0, "1,200"), (400.0, "1,100")],
            ),
            row(686.0, &[(50.0, "Cost"), (300.0, "700"), (400.0, "650")]),
        ]);
        assert!(find_tables(&lines).is_empty());
        let mut three = lines.clone();
        three.extend(row(
            672.0,
            &[(50.0, "Margin"), (300.0, "500"), (400.0, "450")],
        ));
        assert_eq!(find_tables(&three).len(), 1);
    }

    #[test]
    fn cells_split_at_wide_gaps_and_leaders() {
        let l = &row(
            700.0,
            &[
                (50.0, "Total assets......"),
                (150.0, "$ 3,706"),
                (205.0, "(12) %"),
            ],
        )[0];
        let cells: Vec<String> = line_cells(l).into_iter().map(|c| c.text).collect();
        assert_eq!(cells, ["Total assets", "$ 3,706", "(12) %"]);
        let spaced = &row(700.0, &[(50.0, "Fonts . . . . 42")])[0];
        let cells: Vec<String> = line_cells(spaced).into_iter().map(|c| c.text).collect();
        assert_eq!(cells, ["Fonts", "42"]);
    }
}
