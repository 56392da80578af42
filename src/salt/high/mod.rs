//! High data: renders SLS files (with their includes) into Salt's high data
//! dict, then applies extend, verify_high, requisite_in and exclude, the
//! steps Salt runs before building chunks.

pub mod build;
pub mod exclude;
pub mod extend;
pub mod requisite_in;
pub mod source_map;
pub mod verify;

pub use source_map::SourceMap;
