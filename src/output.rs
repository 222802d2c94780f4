//! Human-readable output: query results as text and as a Markdown evidence pack, notes,
//! stats and the ingest summary.

use indexer_engine::{
    IndexLocation, IndexView, IngestSummary, Note, NoteKind, PageResponse, Rewrite, SearchResponse,
};
use std::io::{Result, Write};
use std::path::Path;

fn location(n: &Note) -> String {
    match n.page {
        Some(p) => format!("{} p.{p}", n.doc),
        None if !n.section.is_empty() => format!("{} § {}", n.doc, n.section.join(" > ")),
        None => n.doc.clone(),
    }
}

/// Terminal styles (bold, highlight, dim, reset): ANSI codes with color, empty without.
fn styles(color: bool) -> (&'static str, &'static str, &'static str, &'static str) {
    if color {
        ("\x1b[1m", "\x1b[1;33m", "\x1b[2m", "\x1b[0m")
    } else {
        ("", "", "", "")
    }
}

/// Query results for a terminal: rank, location, kind, score, caption or snippet with the query
/// terms in bold, crop path.
pub fn text(out: &mut dyn Write, r: &SearchResponse, color: bool) -> Result<()> {
    let (b, u, dim, reset) = styles(color);
    writeln!(
        out,
        "{b}{}{reset} {dim}— {} of {} candidates, selector {}, {:.0} ms{reset}",
        r.query,
        r.hits.len(),
        r.candidates,
        r.selector,
        r.timings.total_ms
    )?;
    rewrite(out, r.rewrite.as_ref(), color)?;
    routing(out, r, color)?;
    if r.hits.is_empty() {
        writeln!(out, "no evidence found")?;
    }
    for h in &r.hits {
        let n = &h.note;
        writeln!(out)?;
        writeln!(
            out,
            "{b}{:>2}. {}{reset}  {}  {dim}score {:.4}  id {}{reset}",
            h.rank,
            location(n),
            n.kind,
            h.score,
            n.id
        )?;
        if let Some(c) = &n.caption {
            writeln!(out, "    {b}{}{reset}", one_line(c, 200))?;
        }
        if !h.snippet.text.is_empty() {
            writeln!(out, "    {}", h.snippet.marked(u, reset))?;
        }
        if let Some(p) = &h.image_path {
            writeln!(out, "    {dim}image: {}{reset}", p.display())?;
        }
    }
    Ok(())
}

/// A page search for a terminal: rank, page, score, then each best note's kind, caption or
/// snippet.
pub fn pages_text(out: &mut dyn Write, r: &PageResponse, color: bool) -> Result<()> {
    let (b, u, dim, reset) = styles(color);
    writeln!(
        out,
        "{b}{}{reset} {dim}— {} pages from {} candidate notes, {:.0} ms{reset}",
        r.query,
        r.pages.len(),
        r.candidates,
        r.timings.total_ms
    )?;
    rewrite(out, r.rewrite.as_ref(), color)?;
    if r.pages.is_empty() {
        writeln!(out, "no page found")?;
    }
    for p in &r.pages {
        writeln!(out)?;
        let place = match p.page {
            Some(n) => format!("{} p.{n}", p.doc),
            None => p.doc.clone(),
        };
        writeln!(
            out,
            "{b}{:>2}. {place}{reset}  {dim}score {:.4}{reset}",
            p.rank, p.score
        )?;
        for h in &p.notes {
            let n = &h.note;
            let text = match &n.caption {
                Some(c) => format!("{b}{}{reset}", one_line(c, 160)),
                None => h.snippet.marked(u, reset),
            };
            writeln!(out, "    {dim}{} {}{reset}  {text}", n.kind, n.id)?;
        }
    }
    Ok(())
}

/// What the search changed of the query, a line each, so that a person sees it: the text it
/// searched (and what it left out or added), the pages it put first (and the words that named them).
/// Nothing when it searched the query as typed (`--no-rewrite` always does).
fn rewrite(out: &mut dyn Write, r: Option<&Rewrite>, color: bool) -> Result<()> {
    let (_, _, dim, reset) = styles(color);
    let Some(r) = r else {
        return Ok(());
    };
    if let (Some(searched), Some(changed)) = (&r.searched, r.changed_words()) {
        writeln!(out, "{dim}searched as: {searched:?} ({changed}){reset}")?;
    }
    if !r.named_pages.is_empty() {
        let pages: Vec<String> = r.named_pages.iter().map(|p| p.to_string()).collect();
        writeln!(
            out,
            "{dim}pages named, put first: {}{reset}",
            pages.join(", ")
        )?;
    }
    for reason in &r.reasons {
        writeln!(out, "{dim}  {}: {}{reset}", reason.rule, reason.why)?;
    }
    Ok(())
}

/// Where the evidence of a search without a document filter came from, a line: the document
/// the question names, or the evidence's documents with their notes and the candidates'
/// weight on the heaviest (how sure the search is of its document).
fn routing(out: &mut dyn Write, r: &SearchResponse, color: bool) -> Result<()> {
    let (_, _, dim, reset) = styles(color);
    let Some(routing) = &r.routing else {
        return Ok(());
    };
    if routing.by == "named" {
        if let Some(d) = routing.documents.first() {
            writeln!(
                out,
                "{dim}searched {} alone: the question names it{reset}",
                d.doc
            )?;
        }
        return Ok(());
    }
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for h in &r.hits {
        match counts.iter_mut().find(|(d, _)| *d == h.note.doc) {
            Some((_, n)) => *n += 1,
            None => counts.push((&h.note.doc, 1)),
        }
    }
    if counts.len() < 2 {
        if let (Some((doc, _)), Some(top)) = (counts.first(), routing.documents.first()) {
            writeln!(
                out,
                "{dim}evidence from {doc} ({:.0}% of the candidates' weight on {}){reset}",
                top.share * 100.0,
                top.doc
            )?;
        }
        return Ok(());
    }
    let listed: Vec<String> = counts.iter().map(|(d, n)| format!("{d} ({n})")).collect();
    let top = routing.documents.first().map_or(String::new(), |t| {
        format!(
            "; {:.0}% of the candidates' weight on {}",
            t.share * 100.0,
            t.doc
        )
    });
    writeln!(out, "{dim}evidence from {}{top}{reset}", listed.join(", "))?;
    Ok(())
}

fn one_line(s: &str, max: usize) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() <= max {
        s
    } else {
        format!("{} …", s.chars().take(max).collect::<String>())
    }
}

/// An evidence pack for a vision-language reader: the question, numbered evidence with page
/// references, full note text, and figure/table crops as image links.
pub fn markdown(out: &mut dyn Write, r: &SearchResponse) -> Result<()> {
    writeln!(out, "# Evidence for: {}", r.query)?;
    writeln!(out)?;
    writeln!(
        out,
        "{} notes selected by `{}` from {} candidates (index generation {}, model `{}`).",
        r.hits.len(),
        r.selector,
        r.candidates,
        r.generation,
        r.model
    )?;
    writeln!(out, "Cite evidence by its number, for example [1].")?;
    for h in &r.hits {
        let n = &h.note;
        writeln!(out)?;
        let kind = match n.kind {
            NoteKind::Text => "text",
            NoteKind::Figure => "figure",
            NoteKind::Table => "table",
        };
        writeln!(out, "## [{}] {} ({kind})", h.rank, location(n))?;
        writeln!(out)?;
        if let Some(c) = &n.caption {
            writeln!(out, "**{}**", one_line(c, 1000))?;
            writeln!(out)?;
        }
        if let Some(p) = &h.image_path {
            writeln!(out, "![{} {}]({})", kind, h.rank, p.display())?;
            writeln!(out)?;
        }
        // The caption is above; the body is what follows it (a page of numbers with its
        // amounts, `Note::reader_text`).
        let body = indexer_engine::snippet_source(n.reader_text(), n.caption.as_deref());
        for line in body.lines() {
            writeln!(out, "> {line}")?;
        }
    }
    Ok(())
}

pub fn show_note(out: &mut dyn Write, n: &Note, view: &IndexView) -> Result<()> {
    writeln!(out, "id:       {}", n.id)?;
    writeln!(out, "document: {}", n.doc)?;
    if let Some(p) = n.page {
        writeln!(out, "page:     {p}")?;
    }
    writeln!(out, "kind:     {}", n.kind)?;
    for b in &n.bbox {
        writeln!(
            out,
            "box:      {:.1} {:.1} {:.1} {:.1} (left bottom right top, pt)",
            b.left, b.bottom, b.right, b.top
        )?;
    }
    if !n.section.is_empty() {
        writeln!(out, "section:  {}", n.section.join(" > "))?;
    }
    if let Some(c) = &n.caption {
        writeln!(out, "caption:  {c}")?;
    }
    // A PDF note's crop is in the index; a Markdown or HTML image is the user's file.
    if let Some(path) = view
        .crop_path(n)
        .or_else(|| n.image.as_ref().map(std::path::PathBuf::from))
    {
        writeln!(out, "image:    {}", path.display())?;
    }
    if !n.summary.is_empty() {
        writeln!(out, "summary:  {}", n.summary)?;
    }
    if !n.keywords.is_empty() {
        writeln!(out, "keywords: {}", n.keywords.join(", "))?;
    }
    if !n.links.is_empty() {
        writeln!(out, "links:")?;
        for l in &n.links {
            writeln!(out, "  {:?} -> {}", l.kind, l.target)?;
        }
    }
    writeln!(out)?;
    writeln!(out, "{}", n.text.trim())?;
    if let Some(c) = &n.context {
        writeln!(out)?;
        writeln!(out, "context: {}", one_line(c, 600))?;
    }
    Ok(())
}

/// What `indexer stats` prints, read from the index before printing (a Milvus index is asked
/// over the network, and can fail).
pub struct StatsReport {
    pub stats: indexer_engine::Stats,
    pub failures: Vec<indexer_engine::FailureInfo>,
    pub documents: Vec<indexer_engine::DocumentInfo>,
}

impl StatsReport {
    pub fn of(index: &IndexView) -> indexer_engine::Result<StatsReport> {
        Ok(StatsReport {
            stats: index.stats()?,
            failures: index.failures()?,
            documents: index.documents()?,
        })
    }
}

pub fn stats(out: &mut dyn Write, report: &StatsReport, dir: &Path, json: bool) -> Result<()> {
    let s = &report.stats;
    let failures = &report.failures;
    if json {
        let v = serde_json::json!({ "index": dir, "stats": s, "documents": report.documents, "failures": failures });
        serde_json::to_writer_pretty(&mut *out, &v)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "index:      {}", dir.display())?;
    writeln!(out, "generation: {}", s.generation)?;
    writeln!(out, "format:     {}", s.format_version)?;
    writeln!(out, "model:      {} ({}-d)", s.model, s.dim)?;
    writeln!(out, "documents:  {}", s.documents)?;
    writeln!(out, "pages:      {}", s.pages)?;
    let kinds: Vec<String> = s
        .notes_by_kind
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    writeln!(out, "notes:      {} ({})", s.notes, kinds.join(", "))?;
    match IndexLocation::of(dir) {
        Ok(IndexLocation::Milvus(_)) => writeln!(out, "size:       kept by the Milvus server")?,
        _ => writeln!(out, "size:       {:.1} MB", s.bytes as f64 / 1e6)?,
    }
    writeln!(out, "failed:     {}", s.failed_files)?;
    for f in failures {
        writeln!(out, "  {}: {}", f.doc, f.message)?;
    }
    Ok(())
}

pub fn ingest_summary(out: &mut dyn Write, s: &IngestSummary, dir: &Path) -> Result<()> {
    writeln!(
        out,
        "{} added, {} updated, {} unchanged, {} removed, {} failed, {} skipped; {} notes embedded, {} in the index (generation {}) in {:.1}s",
        s.added.len(),
        s.updated.len(),
        s.unchanged,
        s.removed.len(),
        s.failed.len(),
        s.skipped.len(),
        s.embedded,
        s.notes_total,
        s.generation,
        s.seconds
    )?;
    for f in &s.failed {
        writeln!(out, "failed: {}: {}", f.doc, f.error)?;
    }
    for f in &s.skipped {
        writeln!(out, "skipped: {}: {}", f.doc, f.error)?;
    }
    for w in &s.warnings {
        writeln!(out, "warning: {}: {}", w.doc, w.message)?;
    }
    // Pages without a text layer read by OCR have a warning of their own (OCR can misread);
    // pages whose text layer was unreadable are said here.
    for o in s.ocr.iter().filter(|o| !o.unreadable.is_empty()) {
        let mut pages: Vec<String> = o.unreadable.iter().take(20).map(u32::to_string).collect();
        if o.unreadable.len() > 20 {
            pages.push("...".into());
        }
        writeln!(
            out,
            "ocr: {}: {} pages with an unreadable text layer read by OCR (pages {})",
            o.doc,
            o.unreadable.len(),
            pages.join(", ")
        )?;
    }
    if s.truncated > 0 {
        writeln!(
            out,
            "note: {} texts were longer than the encoder reads and were truncated",
            s.truncated
        )?;
    }
    writeln!(out, "index: {}", dir.display())?;
    Ok(())
}
