//! The keywords of Python's `json.dumps` (for the core's
//! [`crate::value::dumps`]) and PyYAML's sorted `safe_dump` as Salt's Jinja
//! filters and execution functions call them (`tojson`, `json`, `yaml`,
//! `json.dumps`, `yaml.dump`). Shared by `filters` and `salt::functions`,
//! so neither has to reach into the other.

use crate::value::{sorted_keys_deep, JsonOptions, Map, Value};

/// `json.dumps` keywords as options (Salt's default: `ensure_ascii=False`).
pub(crate) fn json_options(kw: &Map) -> Result<JsonOptions, String> {
    let mut o = JsonOptions::default();
    for (k, v) in kw {
        match k.as_str().unwrap_or_default() {
            "sort_keys" => o.sort_keys = v.truthy(),
            "ensure_ascii" => o.ensure_ascii = v.truthy(),
            "indent" => o.indent = json_indent(v),
            "separators" => {
                if let Some([a, b]) = v.as_list().map(|l| l.as_slice()) {
                    o.separators = Some((a.py_str(), b.py_str()));
                }
            }
            "default" | "skipkeys" | "check_circular" | "allow_nan" | "cls" => {}
            other => {
                return Err(format!(
                    "__init__() got an unexpected keyword argument '{other}'"
                ))
            }
        }
    }
    Ok(o)
}

/// `json.dumps`'s `indent` argument: a width or the text of one level.
pub(crate) fn json_indent(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::Int(n) => Some(" ".repeat((*n).max(0) as usize)),
        Value::Str(s) => Some(s.to_string()),
        other => Some(other.py_str()),
    }
}

/// PyYAML `safe_dump(v, default_flow_style=flow)` with plain dicts' keys sorted.
pub(crate) fn yaml_dump_sorted(v: &Value, flow: Option<bool>) -> String {
    crate::yaml::dump(&sorted_keys_deep(v), crate::yaml::DumpOptions { flow })
}

// ---------------------------------------------------------------------------
// serializer filters
// ---------------------------------------------------------------------------
