mod basic;
mod common;
mod crash;
mod filters;
mod fusion;
mod incremental;
mod matching;
mod scope;
