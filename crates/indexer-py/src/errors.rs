//! Failures as the Python exceptions of `indexer.errors`, with the HTTP API's code and hint
//! (`indexer_mcp::Failure` maps the engine's errors as the server does).

use indexer_mcp::{Failure, FailureClass};
use pyo3::prelude::*;

/// A failure as the exception of its class: `InvalidRequestError`, `NotFoundError`,
/// `ModelServerError` or `IndexerError` itself.
pub fn to_py(f: Failure) -> PyErr {
    Python::attach(|py| {
        let class = match f.class {
            FailureClass::InvalidRequest => "InvalidRequestError",
            FailureClass::NotFound => "NotFoundError",
            FailureClass::Upstream | FailureClass::Timeout => "ModelServerError",
            FailureClass::Internal => "IndexerError",
        };
        let made = py
            .import("indexer.errors")
            .and_then(|m| m.getattr(class))
            .and_then(|c| c.call1((f.message.as_str(), f.code, f.hint.as_deref())));
        match made {
            Ok(e) => PyErr::from_value(e),
            // The package's own module is missing (the extension imported on its own): the
            // error still says what happened.
            Err(e) => e,
        }
    })
}

/// The engine's errors, as the API names them.
pub fn engine(e: indexer_engine::Error) -> PyErr {
    to_py(Failure::from(e))
}

/// `?` on results of the engine and of argument checks.
pub trait Raise<T> {
    fn or_raise(self) -> PyResult<T>;
}

impl<T> Raise<T> for Result<T, Failure> {
    fn or_raise(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

impl<T> Raise<T> for Result<T, indexer_engine::Error> {
    fn or_raise(self) -> PyResult<T> {
        self.map_err(engine)
    }
}
