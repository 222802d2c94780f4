//! The outputs: `soak.csv` row by row, and `soak.md` (with `soak.png`) at the end.

use crate::corpus::file_name;
use crate::error::Result;
use crate::measured::Report;
use crate::plot::plot;
use crate::sample::{BLOCK, Sample, percentile};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

pub(crate) fn write_outputs(out: &Path, r: &Report) -> Result<()> {
    let write = |name: &str, text: String| {
        let p = out.join(name);
        std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))
    };
    write("soak.md", markdown(r))?;
    plot(&out.join("soak.png"), r)
}

pub(crate) fn fmt_ms(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.1}"))
}

const CSV_HEADER: &str = "seconds,rss_mib,searches,p50_ms,p99_ms,errors,requests,load1,server_cpu,threads,fds,generation,notes,anon_mib,file_mib";

/// `OUT/soak.csv`, written a row at a time: a run that is killed keeps what it measured.
#[derive(Debug)]
pub(crate) struct CsvFile {
    file: std::fs::File,
    path: PathBuf,
}

impl CsvFile {
    pub(crate) fn create(path: PathBuf) -> Result<CsvFile> {
        let mut file = std::fs::File::create(&path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        writeln!(file, "{CSV_HEADER}").map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(CsvFile { file, path })
    }

    pub(crate) fn append(&mut self, x: &Sample) -> Result<()> {
        self.file
            .write_all(csv_row(x).as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

fn csv_row(x: &Sample) -> String {
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:.2}"));
    let opt_u = |x: Option<u64>| x.map_or(String::new(), |v| v.to_string());
    format!(
        "{:.1},{:.2},{},{},{},{},{},{:.2},{:.2},{},{},{},{},{:.2},{:.2}\n",
        x.seconds,
        x.rss_mib,
        x.searches,
        opt(x.p50_ms),
        opt(x.p99_ms),
        x.errors,
        x.requests,
        x.load1,
        x.server_cpu,
        x.threads,
        x.fds,
        opt_u(x.generation),
        opt_u(x.notes),
        x.anon_mib,
        x.file_mib
    )
}

/// How long the server warms up before its memory is compared: 2 minutes, or a quarter of a
/// shorter run (caches, the allocator's arenas and the first generations settle in that time).
fn warmup(r: &Report) -> f64 {
    120f64.min(r.seconds / 4.0)
}

/// Least-squares slope of RSS after the warm-up, in MiB an hour.
fn rss_slope(samples: &[Sample], after: f64) -> Option<f64> {
    let pts: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| s.seconds >= after)
        .map(|s| (s.seconds / 3600.0, s.rss_mib))
        .collect();
    if pts.len() < 3 {
        return None;
    }
    let n = pts.len() as f64;
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / n,
        pts.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

fn markdown(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# indexer serve soak\n");
    let _ = writeln!(
        s,
        "Started {}; {}; {} cores. Ended: {} after {:.0} s.\n",
        r.started_utc, r.indexer_version, r.cores, r.end, r.seconds
    );
    md_traffic(&mut s, r);
    md_memory(&mut s, r);
    md_blocks(&mut s, r);
    md_ingests(&mut s, r);
    md_machine(&mut s, r);
    if !r.first_errors.is_empty() {
        let _ = writeln!(s, "## First errors\n\n```");
        for e in &r.first_errors {
            let _ = writeln!(s, "{e}");
        }
        let _ = writeln!(s, "```\n");
    }
    let _ = writeln!(
        s,
        "Files: `soak.csv` (one row per sample), `soak.png`, `serve.log`, `ingest.log`."
    );
    s
}

fn all_search_ms(r: &Report) -> Vec<f64> {
    let mut all: Vec<f64> = r.blocks.iter().flatten().copied().collect();
    all.sort_by(f64::total_cmp);
    all
}

fn md_traffic(s: &mut String, r: &Report) {
    let all = all_search_ms(r);
    let _ = writeln!(
        s,
        "## Traffic\n\n- requests: {} ({:.0}/s), of which searches: {} ({:.0}/s)\n- errors: **{}** (status other than 200, invalid JSON, connection errors, a generation going back, a generation not served after its ingest)\n- search latency over the run: p50 {} ms, p99 {} ms, max {} ms\n",
        r.requests_total,
        r.requests_total as f64 / r.seconds.max(1.0),
        r.searches_total,
        r.searches_total as f64 / r.seconds.max(1.0),
        r.errors_total,
        fmt_ms(percentile(&all, 0.5)),
        fmt_ms(percentile(&all, 0.99)),
        fmt_ms(all.last().copied()),
    );
}

fn md_memory(s: &mut String, r: &Report) {
    let Some(first) = r.samples.first() else {
        return;
    };
    let w = warmup(r);
    let warm = r.samples.iter().find(|x| x.seconds >= w).unwrap_or(first);
    let last = r.samples.last().unwrap_or(first);
    let max = r
        .samples
        .iter()
        .max_by(|a, b| a.rss_mib.total_cmp(&b.rss_mib))
        .unwrap_or(first);
    let _ = writeln!(
        s,
        "## Memory of the server (VmRSS, with any child)\n\n| at | seconds | RSS MiB | anonymous | file-backed | notes served | threads | open fds |\n|---|---|---|---|---|---|---|---|"
    );
    for (label, x) in [
        ("start", first),
        ("after warm-up", warm),
        ("end", last),
        ("max", max),
    ] {
        let _ = writeln!(
            s,
            "| {label} | {:.0} | {:.1} | {:.1} | {:.1} | {} | {} | {} |",
            x.seconds,
            x.rss_mib,
            x.anon_mib,
            x.file_mib,
            x.notes.map_or("-".into(), |n| n.to_string()),
            x.threads,
            x.fds
        );
    }
    let _ = writeln!(
        s,
        "\nSlope of RSS after the warm-up ({w:.0} s), least squares: {} MiB an hour.",
        rss_slope(&r.samples, w).map_or("-".into(), |v| format!("{v:+.1}"))
    );
    let half = r.seconds / 2.0;
    let range = |f: fn(&Sample) -> f64| {
        let v: Vec<f64> = r
            .samples
            .iter()
            .filter(|x| x.seconds >= half)
            .map(f)
            .collect();
        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        format!("{min:.1} to {max:.1}")
    };
    let _ = writeln!(
        s,
        "Over the second half of the run (from {half:.0} s): RSS {} MiB, anonymous {} MiB, file-backed {} MiB.\n",
        range(|x| x.rss_mib),
        range(|x| x.anon_mib),
        range(|x| x.file_mib)
    );
}

fn md_blocks(s: &mut String, r: &Report) {
    let _ = writeln!(
        s,
        "## Search latency by {}-minute block\n\n| block | searches | p50 ms | p99 ms | max ms | server cores | searches per server CPU-s | load | RSS MiB at end | ingests started |\n|---|---|---|---|---|---|---|---|---|---|",
        BLOCK.as_secs() / 60
    );
    let window = r.sample_every.as_secs_f64();
    let len = BLOCK.as_secs_f64();
    for (i, b) in r.blocks.iter().enumerate() {
        let mut b = b.clone();
        b.sort_by(f64::total_cmp);
        let (from, to) = (i as f64 * len, ((i + 1) as f64 * len).min(r.seconds));
        let rss = r
            .samples
            .iter()
            .rev()
            .find(|x| x.seconds <= to + 0.5)
            .map_or("-".into(), |x| format!("{:.1}", x.rss_mib));
        let ingests = r
            .ingests
            .iter()
            .filter(|g| g.start_s >= from && g.start_s < to && g.change != "initial")
            .count();
        // The samples whose window lies in the block (a window belongs to its middle's block).
        let in_block: Vec<&Sample> = r
            .samples
            .iter()
            .filter(|x| ((x.seconds - window / 2.0).max(0.0) / len) as usize == i)
            .collect();
        let n = in_block.len().max(1) as f64;
        let cores = in_block.iter().map(|x| x.server_cpu).sum::<f64>() / n;
        let cpu_s = in_block.iter().map(|x| x.server_cpu * window).sum::<f64>();
        let load = in_block.iter().map(|x| x.load1).sum::<f64>() / n;
        let _ = writeln!(
            s,
            "| {:.0}-{:.0} min | {} | {} | {} | {} | {cores:.2} | {:.0} | {load:.1} | {rss} | {ingests} |",
            from / 60.0,
            to / 60.0,
            b.len(),
            fmt_ms(percentile(&b, 0.5)),
            fmt_ms(percentile(&b, 0.99)),
            fmt_ms(b.last().copied()),
            b.len() as f64 / cpu_s.max(1e-9),
        );
    }
    let _ = writeln!(
        s,
        "\nOn a shared machine the latency follows the CPU the server gets: searches per server CPU-second is the figure that shows whether the server itself slows down.\n"
    );
}

fn md_ingests(s: &mut String, r: &Report) {
    let _ = writeln!(
        s,
        "## Ingests\n\n| change | start s | end s | took s | result | generation | documents | notes | served after s | RSS MiB before, after |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    for (i, g) in r.ingests.iter().enumerate() {
        let next = r.ingests.get(i + 1).map_or(f64::INFINITY, |n| n.start_s);
        let _ = writeln!(
            s,
            "| {} | {:.0} | {:.0} | {:.1} | {} | {} | {} | {} | {} | {} |",
            g.change,
            g.start_s,
            g.end_s,
            g.end_s - g.start_s,
            g.status,
            g.generation.map_or("-".into(), |v| v.to_string()),
            if g.change == "initial" {
                r.corpus.initial.len()
            } else {
                g.documents
            },
            g.notes.map_or("-".into(), |v| v.to_string()),
            g.served_after_s.map_or("-".into(), |v| format!("{v:.1}")),
            rss_around(&r.samples, g.start_s, next),
        );
    }
    let names = |v: &[PathBuf]| {
        v.iter()
            .map(|p| file_name(p))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        s,
        "\nThe initial ingest ran before the server started (the clock starts with the clients). Corpus: at the start {}; to rotate in {}; left out for size: {}.\n",
        names(&r.corpus.initial),
        names(&r.corpus.spare),
        if r.corpus.too_large.is_empty() {
            "none".into()
        } else {
            names(&r.corpus.too_large)
        }
    );
}

/// RSS at the last sample before an ingest and at the last before the next one (settled).
fn rss_around(samples: &[Sample], start: f64, next: f64) -> String {
    let last_before = |t: f64| samples.iter().rev().find(|x| x.seconds <= t);
    let (before, after) = (last_before(start), last_before(next));
    let mib = |x: Option<&Sample>| x.map_or("-".into(), |x| format!("{:.1}", x.rss_mib));
    format!("{}, {}", mib(before), mib(after))
}

fn md_machine(s: &mut String, r: &Report) {
    let loads: Vec<f64> = r.samples.iter().map(|x| x.load1).collect();
    let mean = loads.iter().sum::<f64>() / loads.len().max(1) as f64;
    let max = loads.iter().copied().fold(0.0, f64::max);
    let cpu: Vec<f64> = r.samples.iter().map(|x| x.server_cpu).collect();
    let _ = writeln!(
        s,
        "## The machine\n\nLoad average (1 min): mean {mean:.2}, max {max:.2} on {} cores. The server used {:.2} cores on average.\n",
        r.cores,
        cpu.iter().sum::<f64>() / cpu.len().max(1) as f64
    );
    if let Some(b) = r.busy {
        let _ = writeln!(
            s,
            "Cores busy on average (of {}): {:.2} in all; the soak's own processes (server, clients, ingests) {:.2}; other programs {:.2}.\n",
            r.cores,
            b.machine,
            b.soak,
            (b.machine - b.soak).max(0.0)
        );
    }
    let _ = writeln!(
        s,
        "CPU-seconds of other programs by name (sampled every few seconds: programs shorter than that are missed, so this is a lower bound):\n\n| program | CPU s |\n|---|---|"
    );
    for (name, secs) in &r.other_cpu {
        let _ = writeln!(s, "| {name} | {secs:.0} |");
    }
    let _ = writeln!(s);
}
