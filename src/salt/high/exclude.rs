//! `exclude`: removes the IDs named by `__exclude__` from high data (Salt's
//! `apply_exclude`), after extend, verify and requisite_in and before chunks
//! are built. `sls:` entries (and bare strings) are fnmatch patterns over each
//! ID's `__sls__`; `id:` entries are exact IDs.

use crate::fnmatch::fnmatch;
use crate::salt::high::extend::is_dunder;
use crate::value::{Map, Value};
use std::collections::HashSet;

/// Pop `__exclude__` and delete every excluded ID, keeping the order of the
/// rest. Linear in the size of `high` times the number of `sls` patterns.
pub(crate) fn apply_exclude(high: &mut Map) {
    let Some(exclude) = high.shift_remove("__exclude__") else {
        return;
    };
    let mut ex_sls: Vec<String> = Vec::new();
    let mut ex_id: HashSet<Value> = HashSet::new();
    for exc in exclude.as_list().into_iter().flatten() {
        match exc {
            Value::Str(s) => ex_sls.push(s.to_string()),
            Value::Map(m) if m.len() == 1 => {
                let Some((key, val)) = m.iter().next() else {
                    continue;
                };
                match key.as_str() {
                    Some("sls") => {
                        if let Some(s) = val.as_str() {
                            ex_sls.push(s.to_string());
                        }
                    }
                    Some("id") => {
                        ex_id.insert(val.clone());
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    ex_sls.dedup();
    high.retain(|id, body| {
        if ex_id.contains(id) {
            return false;
        }
        if is_dunder(id) {
            return true;
        }
        let Some(sls) = body.get("__sls__").and_then(Value::as_str) else {
            return true;
        };
        sls.is_empty() || !ex_sls.iter().any(|p| fnmatch(sls, p))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn excludes_by_sls_glob_bare_string_and_id() {
        let Value::Map(mut h) = Value::from_json(&json!({
            "__exclude__": [{"sls": "grp.*"}, {"id": "/etc/vimrc"}, "legacy", {"sls": "a", "id": "b"}],
            "keep": {"__sls__": "grp"},
            "g1": {"__sls__": "grp.one"},
            "/etc/vimrc": {"__sls__": "x"},
            "l": {"__sls__": "legacy"},
            "b": {"__sls__": "other"}
        })) else {
            panic!()
        };
        apply_exclude(&mut h);
        let keys: Vec<String> = h.keys().map(Value::py_str).collect();
        assert_eq!(keys, vec!["keep", "b"]);
    }
}
