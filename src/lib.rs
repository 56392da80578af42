//! lowstate: compile declarative configuration state into an ordered plan,
//! offline.
//!
//! The crate is layered. The **core** knows no dialect: [`value`] (the
//! Python-like data model), [`text`] (source texts, one line index each,
//! spans), [`yaml`] (the YAML loader and dumper; its options carry the
//! dialect), [`diag`] (diagnostics as data, the closed code registry and
//! renderers), [`plan`] (the drawable plan: nodes, typed edges, order, and
//! its renderers), [`rules`] (argument schemas and property groups),
//! [`provenance`] (where merged values came from), [`redact`] (secrets out
//! of human output), [`limits`] (resource limits), [`editor`] (what an editor asks:
//! located issues, symbols, completions), [`fnmatch`], [`pyre`]
//! (Python `re` patterns) and [`emit`]. The **front ends** use the core and never each other: [`salt`]
//! compiles a SaltStack state tree into Salt's lowstate, [`hot`] a Heat
//! template into the plan Heat would create. The binary's `cli` module sits on top and is imported by
//! nothing but `main`. `tests/layers.rs` keeps these rules.

// `Diagnostic` is large on purpose (labels, notes); errors are rare and
// returning it by value keeps every stage's signature plain.
#![allow(clippy::result_large_err)]
#![warn(missing_docs, unreachable_pub)]

pub mod changes;
pub mod diag;
pub mod editor;
pub mod emit;
pub mod fnmatch;
pub mod hot;
pub mod limits;
pub mod plan;
pub mod provenance;
pub mod pyre;
pub mod redact;
pub mod rules;
pub mod salt;
pub mod text;
pub mod value;
pub mod yaml;

pub use diag::{Diagnostic, Diagnostics};
pub use value::{Map, Value};
