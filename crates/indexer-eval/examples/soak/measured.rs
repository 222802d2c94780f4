//! What a run measured: the report's data, which the run fills and `report` and `plot` show.

use crate::corpus::{CorpusPlan, IngestRecord};
use crate::sample::{CoresBusy, Sample};
use std::time::Duration;

/// What a run measured, for the report.
#[derive(Debug)]
pub(crate) struct Report {
    pub(crate) samples: Vec<Sample>,
    pub(crate) ingests: Vec<IngestRecord>,
    /// Every search's latency by 5-minute block.
    pub(crate) blocks: Vec<Vec<f64>>,
    pub(crate) requests_total: u64,
    pub(crate) searches_total: u64,
    pub(crate) errors_total: u64,
    pub(crate) first_errors: Vec<String>,
    pub(crate) seconds: f64,
    /// Why the run ended.
    pub(crate) end: String,
    pub(crate) corpus: CorpusPlan,
    pub(crate) other_cpu: Vec<(String, f64)>,
    pub(crate) busy: Option<CoresBusy>,
    pub(crate) sample_every: Duration,
    pub(crate) started_utc: String,
    pub(crate) indexer_version: String,
    pub(crate) cores: usize,
}

impl Report {
    pub(crate) fn failed_ingests(&self) -> usize {
        self.ingests.iter().filter(|i| !i.ok).count()
    }

    pub(crate) fn failed(&self) -> bool {
        self.errors_total > 0 || self.failed_ingests() > 0 || self.end != "completed"
    }
}
