//! A selector with options, written as text: `NAME` or `NAME:KEY=VALUE:KEY=VALUE...`, for
//! example `cds-hybrid:beta=0.3:page=0.5:fill=peel` or `fused-cap:cap=2`. The evaluation's
//! parameter grids are lists of these; a colon (not a comma) separates options so that a list
//! of specs can still be comma-separated.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result, invalid};
use crate::hybrid::{CdsHybrid, DppHybrid, FusedCap, HybridOptions, MmrHybrid};
use crate::{Dpp, Mmr, Selector, SelectorKind, selector};

/// A selector kind with option overrides; `Display` gives back the text it was parsed from
/// (its name in evaluation rows).
#[derive(Debug, Clone, PartialEq)]
pub struct SelectorSpec {
    pub kind: SelectorKind,
    /// (key, value) in the order given.
    pub options: Vec<(String, String)>,
}

impl From<SelectorKind> for SelectorSpec {
    fn from(kind: SelectorKind) -> Self {
        SelectorSpec {
            kind,
            options: Vec::new(),
        }
    }
}

impl fmt::Display for SelectorSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.as_str())?;
        for (k, v) in &self.options {
            write!(f, ":{k}={v}")?;
        }
        Ok(())
    }
}

impl FromStr for SelectorSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let mut parts = s.trim().split(':');
        let kind: SelectorKind = parts.next().unwrap_or_default().parse()?;
        let mut options = Vec::new();
        for p in parts {
            let Some((k, v)) = p.split_once('=') else {
                return Err(invalid("spec", format!("{p:?} in {s:?} is not KEY=VALUE")));
            };
            options.push((k.trim().to_string(), v.trim().to_string()));
        }
        let spec = SelectorSpec { kind, options };
        spec.build()?;
        Ok(spec)
    }
}

fn num(key: &str, v: &str) -> Result<f64> {
    v.parse::<f64>()
        .map_err(|_| invalid("spec", format!("{key}={v}: not a number")))
}

fn hybrid_option(h: &mut HybridOptions, key: &str, v: &str) -> Result<bool> {
    match key {
        "k" => h.rrf_k = Some(num(key, v)?),
        "page" => h.page = num(key, v)?,
        "link" => h.link = num(key, v)?,
        "adjacent" => h.adjacent = num(key, v)?,
        _ => return Ok(false),
    }
    Ok(true)
}

impl SelectorSpec {
    /// The selector with these options, validated.
    pub fn build(&self) -> Result<Box<dyn Selector>> {
        let unknown = |k: &str| {
            Err(invalid(
                "spec",
                format!("{} has no option {k:?}", self.kind.as_str()),
            ))
        };
        let out: Box<dyn Selector> = match self.kind {
            SelectorKind::CdsHybrid => {
                let mut s = CdsHybrid::default();
                for (k, v) in &self.options {
                    let o = &mut s.options;
                    match k.as_str() {
                        "beta" => o.cds.beta = num(k, v)?,
                        "eps" => o.cds.eps = num(k, v)?,
                        "fill" => o.fill = v.parse()?,
                        "cap" => {
                            o.cap = v
                                .parse()
                                .map_err(|_| invalid("cap", format!("{v} is not a count")))?
                        }
                        _ if hybrid_option(&mut o.hybrid, k, v)? => {}
                        _ => return unknown(k),
                    }
                }
                s.options.cds.validate()?;
                s.options.hybrid.validate()?;
                Box::new(s)
            }
            SelectorKind::FusedCap => {
                let mut s = FusedCap::default();
                for (k, v) in &self.options {
                    match k.as_str() {
                        "cap" => {
                            s.cap = v
                                .parse()
                                .map_err(|_| invalid("cap", format!("{v} is not a count")))?
                        }
                        "k" => s.rrf_k = Some(num(k, v)?),
                        _ => return unknown(k),
                    }
                }
                if s.cap == 0 {
                    return Err(invalid("cap", "must be at least 1"));
                }
                Box::new(s)
            }
            SelectorKind::MmrHybrid => {
                let mut s = MmrHybrid::default();
                for (k, v) in &self.options {
                    match k.as_str() {
                        "lambda" => s.lambda = num(k, v)?,
                        _ if hybrid_option(&mut s.hybrid, k, v)? => {}
                        _ => return unknown(k),
                    }
                }
                s.hybrid.validate()?;
                Box::new(s)
            }
            SelectorKind::DppHybrid => {
                let mut s = DppHybrid::default();
                for (k, v) in &self.options {
                    match k.as_str() {
                        "theta" => s.theta = num(k, v)?,
                        _ if hybrid_option(&mut s.hybrid, k, v)? => {}
                        _ => return unknown(k),
                    }
                }
                s.hybrid.validate()?;
                Box::new(s)
            }
            SelectorKind::Mmr => {
                let mut s = Mmr::default();
                for (k, v) in &self.options {
                    match k.as_str() {
                        "lambda" => s.options.lambda = num(k, v)?,
                        _ => return unknown(k),
                    }
                }
                Box::new(s)
            }
            SelectorKind::Dpp => {
                let mut s = Dpp::default();
                for (k, v) in &self.options {
                    match k.as_str() {
                        "theta" => s.options.theta = num(k, v)?,
                        _ => return unknown(k),
                    }
                }
                Box::new(s)
            }
            kind => {
                if let Some((k, _)) = self.options.first() {
                    return unknown(k);
                }
                selector(kind)
            }
        };
        Ok(out)
    }
}
