//! Salt's `salt.utils.data` helpers on [`Value`]: `traverse_dict_and_list`
//! (the `a:b:0` lookups of `pillar.get`, `grains.get`, `config.get` and the
//! `traverse` filter) and `filter_by` (`grains.filter_by`,
//! `pillar.filter_by`).

use crate::salt::dictupdate;
use crate::value::Value;

/// `traverse_dict_and_list(data, key, default, delimiter)` (the one walk,
/// shared with the matchers): `None` means "not found".
pub(crate) use crate::salt::matcher::{traverse_dict_and_list as traverse, traverse_parts};

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
    let empty = Value::List(crate::value::List::new());
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
