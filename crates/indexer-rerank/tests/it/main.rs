//! Integration tests of indexer-rerank: properties of the CDS solvers, each baseline against a
//! plain dense reference, and the documented edge cases.

mod baselines;
mod cds;
mod edge;
mod hybrid;
mod reference;
