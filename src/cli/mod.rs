//! The command line: its arguments ([`args`]), the settings they give with the environment
//! and `indexer.toml` ([`settings`], [`config`]), and the commands ([`commands`]).

pub mod args;
pub mod commands;
pub mod config;
pub mod settings;
