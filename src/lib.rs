//! lowstate: compile a SaltStack state tree into Salt's lowstate, offline.
//!
//! The pipeline, one module per stage, data flowing one way:
//! `config` → `fileserver` / `top` → `render` (`jinja`, `yaml`) → `high`
//! (include, extend, verify, requisite_in, exclude) → `low` (chunks, order
//! numbers) → `order` (requisite graph, execution order) → `emit`.
//! `pillar` reuses `top` and `render`; `simulate` and `graph` read the lowstate.
//! `compile` ties the stages together; `diag` carries problems as data.

// `Diagnostic` is large on purpose (labels, notes); errors are rare and
// returning it by value keeps every stage's signature plain.
#![allow(clippy::result_large_err)]

pub mod compile;
pub mod config;
pub mod diag;
pub mod dictupdate;
pub mod emit;
pub mod fileserver;
pub mod fnmatch;
pub mod graph;
pub mod high;
pub mod low;
pub mod matcher;
pub mod order;
pub mod pillar;
pub mod render;
pub mod report;
pub mod simulate;
pub mod top;
pub mod value;

pub use diag::{Diagnostic, Diagnostics};
pub use value::{Map, Value};
