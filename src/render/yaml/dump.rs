//! Dumping values as PyYAML's `safe_dump` does.

use super::DumpOptions;
use crate::value::Value;

pub(super) fn dump(_value: &Value, _opts: DumpOptions) -> String {
    String::new()
}
