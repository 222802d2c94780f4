//! Sampling `/proc`: the server's memory and CPU, the window's latency, and the CPU of
//! everything else on the machine.

use crate::http::Conn;
use crate::state::{Run, Window};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::process::Command;
use std::time::{Duration, Instant};

/// The latency blocks of the report.
pub(crate) const BLOCK: Duration = Duration::from_secs(300);

/// One sample: the server's memory and CPU, the window's requests and latency, the machine's
/// load and the generation served.
#[derive(Debug, Clone)]
pub(crate) struct Sample {
    pub(crate) seconds: f64,
    /// VmRSS of the server and of any process it started.
    pub(crate) rss_mib: f64,
    /// Its anonymous part (heap, stacks) and its file-backed part (the index's memory-mapped
    /// files, the program and its libraries): a leak grows the first, a larger or newer
    /// generation the second.
    pub(crate) anon_mib: f64,
    pub(crate) file_mib: f64,
    pub(crate) requests: u64,
    pub(crate) searches: usize,
    pub(crate) p50_ms: Option<f64>,
    pub(crate) p99_ms: Option<f64>,
    pub(crate) errors: u64,
    /// The 1-minute load average of the machine (2 cores: 2.0 is full).
    pub(crate) load1: f64,
    /// Cores the server used in the window.
    pub(crate) server_cpu: f64,
    pub(crate) threads: u64,
    pub(crate) fds: usize,
    pub(crate) generation: Option<u64>,
    pub(crate) notes: Option<u64>,
}

/// Reads the server's process (and its descendants) and the rest of the machine.
#[derive(Debug)]
pub(crate) struct Sampler {
    server: u32,
    ticks_per_s: f64,
    last_cpu: Option<(Instant, u64)>,
    pub(crate) other: OtherCpu,
}

impl Sampler {
    pub(crate) fn new(server: u32) -> Sampler {
        let mut s = Sampler {
            server,
            ticks_per_s: clock_ticks(),
            last_cpu: None,
            other: OtherCpu::default(),
        };
        let procs = scan_procs();
        s.other.update(&procs, s.ticks_per_s);
        s.last_cpu = Some((Instant::now(), s.tree_ticks(&procs)));
        s
    }

    /// CPU ticks of the server and its descendants.
    fn tree_ticks(&self, procs: &HashMap<u32, ProcInfo>) -> u64 {
        descendants(procs, self.server)
            .iter()
            .filter_map(|p| procs.get(p).map(|i| i.ticks))
            .sum()
    }

    pub(crate) fn sample(
        &mut self,
        run: &Run,
        window: Window,
        blocks: &mut Vec<Vec<f64>>,
    ) -> Sample {
        let procs = scan_procs();
        self.other.update(&procs, self.ticks_per_s);
        let tree = descendants(&procs, self.server);
        let kib = |key: &str| -> f64 {
            tree.iter()
                .filter_map(|p| status_field(*p, key))
                .sum::<u64>() as f64
                / 1024.0
        };
        let ticks = self.tree_ticks(&procs);
        let now = Instant::now();
        let server_cpu = match self.last_cpu.replace((now, ticks)) {
            Some((t, before)) => {
                ticks.saturating_sub(before) as f64
                    / self.ticks_per_s
                    / (now - t).as_secs_f64().max(1e-3)
            }
            None => 0.0,
        };
        let health = Conn::new(run.addr, false)
            .request("GET", "/health", None)
            .ok()
            .and_then(|r| serde_json::from_slice::<Value>(&r.body).ok());
        let seconds = run.seconds();
        let mut ms = window.search_ms;
        ms.sort_by(f64::total_cmp);
        // A window belongs to the block of its middle (the last one ends at the run's end).
        let middle = seconds - run.args.sample_every.as_secs_f64() / 2.0;
        let block = (middle.max(0.0) / BLOCK.as_secs_f64()) as usize;
        if blocks.len() <= block {
            blocks.resize(block + 1, Vec::new());
        }
        blocks[block].extend_from_slice(&ms);
        Sample {
            seconds,
            rss_mib: kib("VmRSS:"),
            anon_mib: kib("RssAnon:"),
            file_mib: kib("RssFile:") + kib("RssShmem:"),
            requests: window.requests,
            searches: ms.len(),
            p50_ms: percentile(&ms, 0.50),
            p99_ms: percentile(&ms, 0.99),
            errors: window.errors,
            load1: load1(),
            server_cpu,
            threads: status_field(self.server, "Threads:").unwrap_or(0),
            fds: count_fds(self.server),
            generation: health.as_ref().and_then(|h| h["generation"].as_u64()),
            notes: health.as_ref().and_then(|h| h["notes"].as_u64()),
        }
    }
}

/// Nearest-rank percentile of sorted values.
pub(crate) fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// A process as `/proc/PID/stat` shows it.
#[derive(Debug, Clone)]
struct ProcInfo {
    ppid: u32,
    name: String,
    /// User + system CPU time, in clock ticks.
    ticks: u64,
}

fn scan_procs() -> HashMap<u32, ProcInfo> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return HashMap::new();
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, proc_info(pid)?)))
        .collect()
}

fn proc_info(pid: u32) -> Option<ProcInfo> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name is in parentheses and may hold spaces: the fields after it start at the last ')'.
    let (open, close) = (stat.find('(')?, stat.rfind(')')?);
    let name = stat.get(open + 1..close)?.to_string();
    let rest: Vec<&str> = stat.get(close + 2..)?.split(' ').collect();
    // After the name: state(3) ppid(4) ... utime(14) stime(15), numbered as in proc(5).
    let field = |n: usize| rest.get(n - 3)?.parse::<u64>().ok();
    Some(ProcInfo {
        ppid: field(4)? as u32,
        name,
        ticks: field(14)? + field(15)?,
    })
}

/// `root` and every process below it.
fn descendants(procs: &HashMap<u32, ProcInfo>, root: u32) -> Vec<u32> {
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        let parent = out[i];
        out.extend(
            procs
                .iter()
                .filter(|(_, p)| p.ppid == parent)
                .map(|(pid, _)| *pid),
        );
        i += 1;
    }
    out
}

/// A number field of `/proc/PID/status` (`VmRSS:` in kB, `Threads:`).
fn status_field(pid: u32, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse().ok()
}

fn count_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count())
}

fn load1() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0)
}

/// (busy, total) ticks of all cores since boot, from the first line of `/proc/stat`.
fn machine_ticks() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let v: Vec<u64> = text
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is inside user already).
    let busy = v.first()? + v.get(1)? + v.get(2)? + v.get(5)? + v.get(6)? + v.get(7)?;
    Some((busy, busy + v.get(3)? + v.get(4)?))
}

/// The harness's CPU time with that of its children it has waited for (ended ingests and, in
/// turn, their PDF workers): utime, stime, cutime, cstime of `/proc/self/stat`.
fn own_ticks() -> u64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0;
    };
    let Some(rest) = stat.rfind(')').and_then(|i| stat.get(i + 2..)) else {
        return 0;
    };
    let f: Vec<u64> = rest
        .split(' ')
        .skip(11)
        .take(4)
        .filter_map(|x| x.parse().ok())
        .collect();
    f.iter().sum()
}

/// Clock ticks a second of `/proc/PID/stat` (`getconf CLK_TCK`; 100 on every Linux we know).
fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(100.0)
}

/// What else the machine did during the run. Two measures: the CPU time of the whole machine
/// (`/proc/stat`) against the soak's own (the harness with its clients, the server, the
/// ingests and their PDF workers), which counts every other process however short; and, by
/// program name, the CPU time of the other processes seen at a sample, which names them but
/// misses those that start and end between two samples (a build's many short compiler runs).
#[derive(Debug, Default)]
pub(crate) struct OtherCpu {
    seen: HashMap<u32, u64>,
    started: bool,
    by_name: BTreeMap<String, f64>,
    /// (machine busy, machine total, the soak's own) ticks at the first and the last sample.
    first: Option<[u64; 3]>,
    last: Option<[u64; 3]>,
}

/// Cores busy on average between the first and the last sample: (the machine, the soak).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CoresBusy {
    pub(crate) machine: f64,
    pub(crate) soak: f64,
}

impl OtherCpu {
    pub(crate) fn cores_busy(&self, cores: usize) -> Option<CoresBusy> {
        let (a, b) = (self.first?, self.last?);
        let total = b[1].saturating_sub(a[1]) as f64;
        if total <= 0.0 {
            return None;
        }
        // /proc/stat counts every core: its total is the wall time times the cores.
        let per_core = total / cores as f64;
        Some(CoresBusy {
            machine: b[0].saturating_sub(a[0]) as f64 / per_core,
            soak: b[2].saturating_sub(a[2]) as f64 / per_core,
        })
    }

    fn update(&mut self, procs: &HashMap<u32, ProcInfo>, ticks_per_s: f64) {
        let ours = descendants(procs, std::process::id());
        if let Some((busy, total)) = machine_ticks() {
            let live: u64 = ours
                .iter()
                .filter(|p| **p != std::process::id())
                .filter_map(|p| procs.get(p).map(|i| i.ticks))
                .sum();
            let now = [busy, total, own_ticks() + live];
            self.first.get_or_insert(now);
            self.last = Some(now);
        }
        for (pid, p) in procs {
            if ours.contains(pid) {
                continue;
            }
            // A process first seen after the start began during the run: all its time counts.
            let before =
                self.seen
                    .insert(*pid, p.ticks)
                    .unwrap_or(if self.started { 0 } else { p.ticks });
            let used = p.ticks.saturating_sub(before) as f64 / ticks_per_s;
            if used > 0.0 {
                *self.by_name.entry(p.name.clone()).or_default() += used;
            }
        }
        self.started = true;
    }

    /// The `n` programs that used most CPU, in CPU-seconds.
    pub(crate) fn top(&self, n: usize) -> Vec<(String, f64)> {
        let mut v: Vec<(String, f64)> = self.by_name.iter().map(|(k, v)| (k.clone(), *v)).collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        v.truncate(n);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.5), Some(50.0));
        assert_eq!(percentile(&v, 0.99), Some(99.0));
        assert_eq!(percentile(&[], 0.5), None);
    }
}
