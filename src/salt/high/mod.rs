//! High data: renders SLS files (with their includes) into Salt's high data
//! dict, then applies extend, verify_high, requisite_in and exclude, the
//! steps Salt runs before building chunks.

pub mod build;
pub(crate) mod exclude;
pub mod extend;
pub mod prepare;
pub(crate) mod requisite_in;
pub(crate) mod source_map;
pub mod verify;

pub use source_map::SourceMap;
