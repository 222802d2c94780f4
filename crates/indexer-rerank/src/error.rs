/// Errors of selection. Every variant is a user error (bad input or a bad option): the numeric
/// solvers never fail, they report in their diagnostics whether they converged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    #[error("vector dimension is zero")]
    ZeroDim,
    #[error("query vector has {got} values, expected the dimension {dim}")]
    QueryDim { got: usize, dim: usize },
    #[error("note matrix has {len} values, which is not a multiple of the dimension {dim}")]
    NotesShape { len: usize, dim: usize },
    #[error("{what} has a non-finite value (NaN or infinity) at component {component}")]
    NonFinite { what: String, component: usize },
    #[error("{what} has norm {norm}, expected a unit vector (or an all-zero vector)")]
    NotUnit { what: String, norm: f64 },
    #[error("link {index} ({from}, {to}) names a note outside 0..{n}")]
    LinkOutOfRange {
        index: usize,
        from: usize,
        to: usize,
        n: usize,
    },
    #[error("{got} fused scores for {n} candidates (give one per candidate, or none)")]
    FusedLen { got: usize, n: usize },
    #[error("{got} note infos for {n} candidates (give one per candidate, or none)")]
    InfoLen { got: usize, n: usize },
    #[error("invalid option {name}: {reason}")]
    InvalidOption { name: &'static str, reason: String },
    #[error("unknown selector {0:?}, expected one of {names}", names = crate::SelectorKind::names())]
    UnknownSelector(String),
    /// An option the selector does not have; `valid` lists the ones it has.
    #[error("{selector} has no option {option:?}; {}", if valid.is_empty() { "it takes none".to_string() } else { format!("its options: {}", valid.join(", ")) })]
    UnknownOption {
        selector: &'static str,
        option: String,
        valid: &'static [&'static str],
    },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn invalid(name: &'static str, reason: impl Into<String>) -> Error {
    Error::InvalidOption {
        name,
        reason: reason.into(),
    }
}
