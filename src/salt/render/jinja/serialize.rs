//! Python's `json.dumps` and PyYAML's sorted `safe_dump` as Salt's Jinja
//! filters and execution functions print them (`tojson`, `json`, `yaml`,
//! `json.dumps`, `yaml.dump`). Shared by `filters` and `salt::functions`,
//! so neither has to reach into the other.

use crate::value::{py_float_repr, sort_py_keys, sorted_keys_deep, write_json_str, Map, Value};
use std::fmt::Write as _;

/// Options of Python's `json.dumps` that Salt's filters use.
#[derive(Debug, Clone, Default)]
pub(crate) struct JsonOptions {
    pub sort_keys: bool,
    pub ensure_ascii: bool,
    /// `None`: one line; `Some(s)`: newline + `s` per level.
    pub indent: Option<String>,
    pub separators: Option<(String, String)>,
}

impl JsonOptions {
    /// From `json.dumps` keywords (Salt's default: `ensure_ascii=False`).
    pub(crate) fn from_kwargs(kw: &Map) -> Result<JsonOptions, String> {
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
}

pub(crate) fn json_indent(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::Int(n) => Some(" ".repeat((*n).max(0) as usize)),
        Value::Str(s) => Some(s.to_string()),
        other => Some(other.py_str()),
    }
}

/// Python's `json.dumps(obj, **opts)`.
pub(crate) fn py_json_dumps(v: &Value, o: &JsonOptions) -> String {
    let mut out = String::new();
    let (item_sep, key_sep) = match (&o.separators, &o.indent) {
        (Some((a, b)), _) => (a.clone(), b.clone()),
        (None, Some(_)) => (",".to_string(), ": ".to_string()),
        (None, None) => (", ".to_string(), ": ".to_string()),
    };
    write_json(&mut out, v, o, &item_sep, &key_sep, 0);
    out
}

fn json_key(k: &Value) -> String {
    match k {
        Value::Str(s) => s.to_string(),
        Value::Null => "null".into(),
        Value::Bool(b) => if *b { "true" } else { "false" }.into(),
        Value::Float(f) => json_float(*f),
        other => other.py_str(),
    }
}

fn json_float(f: f64) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        py_float_repr(f)
    }
}

fn write_json(out: &mut String, v: &Value, o: &JsonOptions, isep: &str, ksep: &str, level: usize) {
    let newline = |out: &mut String, level: usize| {
        if let Some(ind) = &o.indent {
            out.push('\n');
            for _ in 0..level {
                out.push_str(ind);
            }
        }
    };
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => out.push_str(&json_float(*f)),
        Value::Str(s) => write_json_str(out, s, o.ensure_ascii),
        Value::List(l) => {
            if l.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, x) in l.iter().enumerate() {
                if i > 0 {
                    out.push_str(isep);
                }
                newline(out, level + 1);
                write_json(out, x, o, isep, ksep, level + 1);
            }
            newline(out, level);
            out.push(']');
        }
        Value::Map(m) => {
            if m.is_empty() {
                out.push_str("{}");
                return;
            }
            let mut entries: Vec<(&Value, &Value)> = m.iter().collect();
            if o.sort_keys {
                sort_py_keys(&mut entries);
            }
            out.push('{');
            for (i, (k, x)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(isep);
                }
                newline(out, level + 1);
                write_json_str(out, &json_key(k), o.ensure_ascii);
                out.push_str(ksep);
                write_json(out, x, o, isep, ksep, level + 1);
            }
            newline(out, level);
            out.push('}');
        }
    }
}

/// PyYAML `safe_dump(v, default_flow_style=flow)` with plain dicts' keys sorted.
pub(crate) fn yaml_dump_sorted(v: &Value, flow: Option<bool>) -> String {
    crate::yaml::dump(&sorted_keys_deep(v), crate::yaml::DumpOptions { flow })
}

// ---------------------------------------------------------------------------
// serializer filters
// ---------------------------------------------------------------------------
