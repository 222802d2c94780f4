//! A selector with options, written as text: `NAME` or `NAME:KEY=VALUE:KEY=VALUE...`, for
//! example `cds-hybrid:beta=0.3:page=0.5:fill=peel` or `fused-cap:cap=2`. The evaluation's
//! parameter grids are lists of these; a colon (not a comma) separates options so that a list
//! of specs can still be comma-separated.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result, invalid};
use crate::hybrid::{Cds, CdsHybrid, DppHybrid, FusedCap, HybridOptions, MmrHybrid};
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

/// The options each selector takes (the keys of `NAME:KEY=VALUE`).
pub fn option_names(kind: SelectorKind) -> &'static [&'static str] {
    match kind {
        SelectorKind::Cds | SelectorKind::CdsHybrid => &[
            "beta", "eps", "fill", "cap", "stop", "k", "page", "link", "adjacent",
        ],
        SelectorKind::FusedCap => &["cap", "k"],
        SelectorKind::MmrHybrid => &["lambda", "k", "page", "link", "adjacent"],
        SelectorKind::DppHybrid => &["theta", "k", "page", "link", "adjacent"],
        SelectorKind::Mmr => &["lambda"],
        SelectorKind::Dpp => &["theta"],
        SelectorKind::CdsPaper
        | SelectorKind::CdsExact
        | SelectorKind::Cosine
        | SelectorKind::Fused
        | SelectorKind::Ppr
        | SelectorKind::Random => &[],
    }
}

fn count(key: &str, v: &str) -> Result<usize> {
    v.parse()
        .map_err(|_| invalid("spec", format!("{key}={v}: not a count")))
}

/// `cds-hybrid`'s options over `s` (`cds` starts from its own defaults).
fn cds_hybrid(mut s: CdsHybrid, spec: &SelectorSpec) -> Result<CdsHybrid> {
    for (k, v) in &spec.options {
        let o = &mut s.options;
        match k.as_str() {
            "beta" => o.cds.beta = num(k, v)?,
            "eps" => o.cds.eps = num(k, v)?,
            "fill" => o.fill = v.parse()?,
            "cap" => o.cap = count(k, v)?,
            "stop" => {
                o.stop = num(k, v)?;
                if !(0.0..=1.0).contains(&o.stop) {
                    return Err(invalid("stop", format!("{v} is not in [0, 1]")));
                }
            }
            _ if hybrid_option(&mut o.hybrid, k, v)? => {}
            _ => return Err(spec.unknown(k)),
        }
    }
    s.options.cds.validate()?;
    s.options.hybrid.validate()?;
    Ok(s)
}

impl SelectorSpec {
    /// The error for an option `kind` does not take, with the ones it does.
    fn unknown(&self, option: &str) -> Error {
        Error::UnknownOption {
            selector: self.kind.as_str(),
            option: option.to_string(),
            valid: option_names(self.kind),
        }
    }

    /// The selector with these options, validated.
    pub fn build(&self) -> Result<Box<dyn Selector>> {
        let unknown = |k: &str| Err(self.unknown(k));
        let out: Box<dyn Selector> = match self.kind {
            SelectorKind::Cds => Box::new(Cds(cds_hybrid(Cds::default().0, self)?)),
            SelectorKind::CdsHybrid => Box::new(cds_hybrid(CdsHybrid::default(), self)?),
            SelectorKind::FusedCap => {
                let mut s = FusedCap::default();
                for (k, v) in &self.options {
                    match k.as_str() {
                        "cap" => s.cap = count(k, v)?,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BEST_CDS_CAP;

    fn value(key: &str) -> &'static str {
        match key {
            "eps" => "0.001",
            "fill" => "rank",
            "lambda" => "0.5",
            _ => "1",
        }
    }

    #[test]
    fn every_listed_option_is_taken_and_no_other() {
        for kind in SelectorKind::ALL {
            for key in option_names(kind) {
                let text = format!("{kind}:{key}={}", value(key));
                let spec: SelectorSpec = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
                assert_eq!(spec.to_string(), text);
            }
            let err = format!("{kind}:colour=1")
                .parse::<SelectorSpec>()
                .unwrap_err();
            let msg = err.to_string();
            assert!(msg.contains("\"colour\""), "{msg}");
            for key in option_names(kind) {
                assert!(msg.contains(key), "{kind}: {msg} does not list {key}");
            }
            if option_names(kind).is_empty() {
                assert!(msg.contains("takes none"), "{msg}");
            }
        }
    }

    #[test]
    fn cds_is_cds_hybrid_with_the_page_cap() {
        let cds: SelectorSpec = "cds".parse().unwrap();
        assert_eq!(cds.build().unwrap().name(), "cds");
        assert_eq!(Cds::default().0.options.cap, BEST_CDS_CAP);
        let mut best = Cds::default().0.options;
        best.cap = 0;
        let plain = CdsHybrid::default().options;
        assert_eq!(
            format!("{best:?}"),
            format!("{plain:?}"),
            "only the cap differs"
        );
        assert!("cds:cap=x".parse::<SelectorSpec>().is_err());
        assert!("cds-paper:beta=1".parse::<SelectorSpec>().is_err());
    }
}
