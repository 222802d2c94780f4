//! The soak's errors: every failure is a message for its user, so a `Result`'s error is a
//! `String`.

pub(crate) type Result<T, E = String> = std::result::Result<T, E>;
