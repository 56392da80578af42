//! The Salt front end: compiles a SaltStack state tree into Salt 3008.5's
//! lowstate (and 3006/3007's ordering on request), using the core's values,
//! YAML loader, diagnostics and plan model.
//!
//! Stages, in the order data flows: [`config`] → [`fileserver`] →
//! [`pillar`] (with [`top`], [`matcher`], [`render`], [`dictupdate`],
//! [`ext_pillar`], [`yamlex`]) →
//! [`top`] → [`render`] (Jinja, then the core YAML loader) → [`high`]
//! (include, extend, verify, requisite_in, exclude) → [`low`] (chunks and
//! order numbers) → [`order`] (the one resolver for requisite references,
//! and the execution order) → [`graph`] (the requisite graph as the output
//! stages read it); [`requisite`] is the vocabulary they share (kinds,
//! keywords, tags). [`simulate`] and [`report`] read the graph;
//! [`pipeline`] drives one compile; [`share`] holds what the compiles of
//! one fleet run share (the fileserver and a render cache); [`files`]
//! renders the files `file.managed` would write.

use crate::diag::SubjectKind;

/// The Salt release whose behaviour lowstate reproduces (`lowstate
/// --version` names it, for bug reports).
pub const REFERENCE_VERSION: &str = "3008.5";

/// The diagnostic subject kind of an SLS (`env:sls`, or `sls`).
pub const SLS: SubjectKind = SubjectKind {
    key: "sls",
    word: "SLS",
};
/// The diagnostic subject kind of a state ID.
pub const ID: SubjectKind = SubjectKind {
    key: "id",
    word: "ID",
};

pub mod changes;
pub mod check;
pub mod config;
pub mod dictupdate;
pub mod ext_pillar;
pub mod files;
pub mod fileserver;
pub mod fleet;
pub mod fuzzing;
pub mod grains;
pub mod graph;
pub mod high;
pub mod ide;
pub mod incremental;
pub mod low;
pub(crate) mod matcher;
pub mod order;
pub mod pillar;
pub mod pipeline;
pub mod render;
pub mod report;
pub mod requisite;
pub mod secrets;
pub mod share;
pub mod simulate;
pub mod top;
pub(crate) mod yamlex;
