//! JSON output.
use super::ChunkGraph;
use crate::value::Value;
pub const JSON_VERSION: i64 = 1;
pub fn to_json_document(_g: &ChunkGraph) -> Value {
    Value::Null
}
