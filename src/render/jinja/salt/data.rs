//! Salt's `salt.utils.data` helpers on [`Value`]: `traverse_dict_and_list`
//! (the `a:b:0` lookups of `pillar.get`, `grains.get`, `config.get` and the
//! `traverse` filter) and `filter_by` (`grains.filter_by`,
//! `pillar.filter_by`).

use crate::dictupdate;
use crate::value::Value;

/// `traverse_dict_and_list(data, key, default, delimiter)`: `None` means
/// "not found" (the caller substitutes its default).
///
/// At a list, a non-integer part selects the first dict element holding it;
/// an integer part first tries dict elements keyed by that integer, then
/// indexes the list. At a dict, a missing part is retried as the YAML scalar
/// it spells (`'1'` → `1`, `'true'` → `True`) when that differs.
pub(crate) fn traverse<'a>(data: &'a Value, key: &str, delimiter: &str) -> Option<&'a Value> {
    let parts: Vec<&str> = if delimiter.is_empty() {
        vec![key]
    } else {
        key.split(delimiter).collect()
    };
    traverse_parts(data, &parts)
}

pub(crate) fn traverse_parts<'a>(data: &'a Value, parts: &[&str]) -> Option<&'a Value> {
    let mut ptr = data;
    for each in parts {
        ptr = match ptr {
            Value::List(list) => match py_int(each) {
                None => list
                    .iter()
                    .filter_map(Value::as_map)
                    .find_map(|m| m.get(*each))?,
                Some(idx) => {
                    let key = Value::Int(idx);
                    match list
                        .iter()
                        .filter_map(Value::as_map)
                        .find_map(|m| m.get(&key))
                    {
                        Some(v) => v,
                        None => py_index(list, idx)?,
                    }
                }
            },
            Value::Map(map) => match map.get(*each) {
                Some(v) => v,
                None => {
                    let loaded = yamlify_scalar(each)?;
                    map.get(&loaded)?
                }
            },
            _ => return None,
        };
    }
    Some(ptr)
}

/// Python's `int(s)` for a traversal key part (surrounding whitespace and
/// `_` digit separators allowed, as `int()` does).
fn py_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
        || !digits.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    let n: i64 = digits.replace('_', "").parse().ok()?;
    Some(if neg { -n } else { n })
}

fn py_index(list: &[Value], idx: i64) -> Option<&Value> {
    let len = list.len() as i64;
    let i = if idx < 0 { idx + len } else { idx };
    if (0..len).contains(&i) {
        list.get(i as usize)
    } else {
        None
    }
}

/// What `salt.utils.args.yamlify_arg` turns a key part into, when that is a
/// hashable scalar different from the string itself (int, float, bool,
/// None); `None` when the retry cannot find anything new.
fn yamlify_scalar(s: &str) -> Option<Value> {
    let t = s.trim();
    if t.is_empty() || t == "---" || t == "..." {
        return None;
    }
    if s.contains('_') && t.chars().all(|c| c.is_ascii_digit() || c == '_') {
        return None;
    }
    if s.contains(['\t', '\r', '\n']) || s.contains('#') {
        return None;
    }
    if s == "None" {
        return Some(Value::Null);
    }
    let v = yaml_plain_scalar(t)?;
    match &v {
        Value::Str(x) if x == s => None,
        _ => Some(v),
    }
}

/// YAML 1.1 resolution of a plain scalar as PyYAML's SafeLoader does it,
/// for the scalar kinds a dict key lookup can use. Anything else → `None`.
fn yaml_plain_scalar(t: &str) -> Option<Value> {
    match t {
        "~" | "null" | "Null" | "NULL" => return Some(Value::Null),
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Some(Value::Bool(true))
        }
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Some(Value::Bool(false))
        }
        _ => {}
    }
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let sign = if neg { -1 } else { 1 };
    let clean = body.replace('_', "");
    if !clean.is_empty() && clean.chars().all(|c| c.is_ascii_digit()) && !body.starts_with('_') {
        // PyYAML: a leading 0 means octal.
        if clean.len() > 1 && clean.starts_with('0') {
            return i64::from_str_radix(&clean[1..], 8)
                .ok()
                .map(|n| Value::Int(sign * n));
        }
        return clean.parse::<i64>().ok().map(|n| Value::Int(sign * n));
    }
    if let Some(hex) = clean.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16)
            .ok()
            .map(|n| Value::Int(sign * n));
    }
    if let Some(bin) = clean.strip_prefix("0b") {
        return i64::from_str_radix(bin, 2)
            .ok()
            .map(|n| Value::Int(sign * n));
    }
    let is_float = {
        let b = body.as_bytes();
        (b.first().is_some_and(|c| c.is_ascii_digit()) || (b.first() == Some(&b'.') && b.len() > 1))
            && body.contains('.')
            && body
                .chars()
                .all(|c| c.is_ascii_digit() || "._eE+-".contains(c))
    };
    if is_float {
        return clean
            .parse::<f64>()
            .ok()
            .map(|f| Value::Float(if neg { -f } else { f }));
    }
    match body {
        ".inf" | ".Inf" | ".INF" => Some(Value::Float(if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        })),
        ".nan" | ".NaN" | ".NAN" if !neg && !t.starts_with('+') => Some(Value::Float(f64::NAN)),
        _ => None,
    }
}

/// `str(x)` as `filter_by` compares keys and grain values.
fn key_str(v: &Value) -> String {
    v.py_str()
}

/// Outcome of [`filter_by`]: the entry found, and whether it came straight
/// from `lookup_dict` (so a `merge` mutates that entry in place in Salt).
pub(crate) struct FilterBy {
    pub value: Value,
    /// The `lookup_dict` key of the returned entry, when it *is* that entry.
    pub entry_key: Option<Value>,
}

/// `salt.utils.data.filter_by(lookup_dict, lookup, traverse, merge, default, base)`.
/// Errors carry Salt's `SaltException` text.
pub(crate) fn filter_by(
    lookup_dict: &Value,
    lookup: &str,
    traverse_data: &Value,
    merge: Option<&Value>,
    default: &Value,
    base: Option<&Value>,
) -> Result<FilterBy, String> {
    let empty = Value::List(Vec::new());
    let val = traverse(traverse_data, lookup, ":").unwrap_or(&empty);
    let each_values: Vec<&Value> = match val {
        Value::List(l) => l.iter().collect(),
        other => vec![other],
    };
    let entries: Vec<(&Value, &Value)> = match lookup_dict {
        Value::Map(m) => m.iter().collect(),
        // Iterating a list gives its items as keys; `lookup_dict[key]` then fails.
        _ => Vec::new(),
    };
    let mut ret: Option<(Value, Option<Value>)> = None;
    'outer: for each in each_values {
        let test_each = key_str(each);
        for (k, v) in &entries {
            if crate::fnmatch::fnmatch(&test_each, &key_str(k)) {
                if !v.is_null() {
                    ret = Some(((*v).clone(), Some((*k).clone())));
                    break 'outer;
                }
                // `ret = None` found: Python keeps looking at further values.
                break;
            }
        }
    }
    if ret.is_none() {
        ret = lookup_dict
            .as_map()
            .and_then(|m| m.get_key_value(default))
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (v.clone(), Some(k.clone())));
    }
    if let Some(base) = base.filter(|b| b.truthy()) {
        if let Some(base_values) = lookup_dict.as_map().and_then(|m| m.get(base)) {
            match ret.take() {
                None => {
                    ret = Some((base_values.clone(), Some(base.clone())))
                        .filter(|(v, _)| !v.is_null())
                }
                Some((r, k)) => {
                    if let Value::Map(_) = base_values {
                        if !matches!(r, Value::Map(_)) {
                            return Err(
                                "filter_by default and look-up values must both be dictionaries."
                                    .into(),
                            );
                        }
                        let mut merged = base_values.clone();
                        dictupdate::update(&mut merged, &r, true, false).map_err(|e| e.message)?;
                        ret = Some((merged, None));
                    } else {
                        ret = Some((r, k));
                    }
                }
            }
        }
    }
    if let Some(merge) = merge.filter(|m| m.truthy()) {
        if !matches!(merge, Value::Map(_)) {
            return Err("filter_by merge argument must be a dictionary.".into());
        }
        match ret.take() {
            None => ret = Some((merge.clone(), None)),
            Some((mut r, k)) => {
                dictupdate::update(&mut r, merge, true, false).map_err(|e| e.message)?;
                ret = Some((r, k));
            }
        }
    }
    Ok(match ret {
        Some((value, entry_key)) => FilterBy { value, entry_key },
        None => FilterBy {
            value: Value::Null,
            entry_key: None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(s: &str) -> Value {
        Value::from_json(&serde_json::from_str(s).unwrap())
    }

    #[test]
    fn traverse_dicts_lists_and_yaml_keys() {
        let d = j(r#"{"a": {"b": [{"c": 1}, {"d": 2}], "l": [10, 20]}}"#);
        assert_eq!(traverse(&d, "a:b:d", ":"), Some(&Value::Int(2)));
        assert_eq!(traverse(&d, "a:l:1", ":"), Some(&Value::Int(20)));
        assert_eq!(traverse(&d, "a:l:-1", ":"), Some(&Value::Int(20)));
        assert_eq!(traverse(&d, "a:l:5", ":"), None);
        assert_eq!(traverse(&d, "a|l|0", "|"), Some(&Value::Int(10)));
        assert_eq!(traverse(&d, "a:b:c:x", ":"), None);
        let mut m = crate::value::Map::new();
        m.insert(Value::Int(1), Value::str("one"));
        m.insert(Value::Bool(true), Value::str("yes"));
        let d = Value::Map(m);
        assert_eq!(traverse(&d, "1", ":"), Some(&Value::str("one")));
        assert_eq!(traverse(&d, "on", ":"), Some(&Value::str("yes")));
        assert_eq!(traverse(&d, "1_0", ":"), None);
    }

    #[test]
    fn filter_by_globs_defaults_base_and_merge() {
        let grains = j(r#"{"os_family": "Debian", "roles": ["web", "db"]}"#);
        let lookup = j(
            r#"{"Deb*": {"pkg": "apache2"}, "RedHat": {"pkg": "httpd"}, "default": {"pkg": "x"}}"#,
        );
        let r = filter_by(
            &lookup,
            "os_family",
            &grains,
            None,
            &Value::str("default"),
            None,
        )
        .unwrap();
        assert_eq!(r.value, j(r#"{"pkg": "apache2"}"#));
        assert_eq!(r.entry_key, Some(Value::str("Deb*")));
        let r = filter_by(
            &lookup,
            "nosuch",
            &grains,
            None,
            &Value::str("default"),
            None,
        )
        .unwrap();
        assert_eq!(r.value, j(r#"{"pkg": "x"}"#));
        let r = filter_by(
            &j(r#"{"db": 1, "web": 2}"#),
            "roles",
            &grains,
            None,
            &Value::str("default"),
            None,
        )
        .unwrap();
        assert_eq!(r.value, Value::Int(2));
        let lookup = j(r#"{"Debian": {"a": 1}, "common": {"a": 0, "b": 0}}"#);
        let r = filter_by(
            &lookup,
            "os_family",
            &grains,
            Some(&j(r#"{"c": 3}"#)),
            &Value::str("default"),
            Some(&Value::str("common")),
        )
        .unwrap();
        assert_eq!(r.value, j(r#"{"a": 1, "b": 0, "c": 3}"#));
        assert_eq!(r.entry_key, None);
        let e = filter_by(
            &lookup,
            "os_family",
            &grains,
            Some(&j("[1]")),
            &Value::str("default"),
            None,
        );
        assert_eq!(
            e.err().as_deref(),
            Some("filter_by merge argument must be a dictionary.")
        );
    }
}
