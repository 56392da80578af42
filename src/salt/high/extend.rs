//! `extend`: applies the `__extend__` entries of high data to the states they
//! name (Salt's `reconcile_extend`), in the plain mode used for user `extend:`
//! blocks and the strict mode used for the extends built by `requisite_in`.
//! Also holds the small Python-dict helpers the other high-data passes share.

use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::salt::high::source_map::SourceRef;
use crate::salt::high::SourceMap;
use crate::salt::{ID, SLS};
use crate::value::{Map, Value};

use crate::salt::requisite::REQUISITE_KEYWORDS;

/// How a failed target lookup is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strictness {
    /// User `extend:`: an existing ID lacking the state module is accepted
    /// (the module is added to it).
    Plain,
    /// Extends built by `requisite_in`: the ID must already have the module.
    Strict,
}

/// One `{ID: body}` entry of `__extend__`, with where to point an error.
#[derive(Debug, Clone)]
pub struct ExtendEntry {
    /// The extended ID (or name).
    pub name: Value,
    /// The extension body.
    pub body: Value,
    /// Where the extension was written.
    pub label: Option<SourceRef>,
}

/// Pop `__extend__` from `high` and apply every entry (plain mode). Returns
/// Salt's `Cannot extend ID ...` errors, in entry order.
pub fn reconcile_extend(high: &mut Map, sources: &SourceMap) -> Vec<Diagnostic> {
    let Some(ext) = high.shift_remove("__extend__") else {
        return Vec::new();
    };
    let mut entries = Vec::new();
    for chunk in py_iter(&ext) {
        if let Value::Map(m) = chunk {
            for (name, body) in m {
                let label = name.as_str().map(|n| SourceRef::Extend(n.to_string()));
                entries.push(ExtendEntry { name, body, label });
            }
        }
    }
    apply_extends(high, entries, Strictness::Plain, sources)
}

/// Apply extend entries to `high` in order (the body of Salt's
/// `reconcile_extend`). Entries from an SLS listed (by exact name) in
/// `__exclude__` are skipped silently.
pub fn apply_extends(
    high: &mut Map,
    entries: Vec<ExtendEntry>,
    strict: Strictness,
    sources: &SourceMap,
) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    let excluded: Vec<Value> = excluded_sls(high).into_iter().cloned().collect();
    for ExtendEntry {
        mut name,
        body,
        label,
    } in entries
    {
        let Value::Map(body) = body else { continue };
        // The first non-dunder key is the state module used for lookups.
        let Some(state_type) = body.keys().find(|k| !is_dunder(k)).map(Value::py_str) else {
            continue;
        };
        let has_state = high
            .get(&name)
            .and_then(Value::as_map)
            .is_some_and(|m| m.contains_key(state_type.as_str()));
        if !has_state {
            let ids = find_name(&name, &state_type, high, strict);
            if ids.len() != 1 {
                let env = body
                    .get("__env__")
                    .map_or("base".to_string(), Value::py_str);
                let sls = body
                    .get("__sls__")
                    .map_or("base".to_string(), Value::py_str);
                let n = name.py_str();
                let message = format!(
                    "Cannot extend ID '{n}' in '{env}:{sls}'. It is not part of the high state.\n\
                     This is likely due to a missing include statement or an incorrectly typed ID.\n\
                     Ensure that a state with an ID of '{n}' is available\n\
                     in environment '{env}' and to SLS '{sls}'"
                );
                errors.push(
                    Diagnostic::new(codes::BAD_EXTEND, message)
                        .with_subject(SLS, format!("{env}:{sls}"))
                        .with_subject(ID, n)
                        .or_primary(label.and_then(|l| l.resolve(sources)))
                        .or_primary(sources.file(&format!("{env}:{sls}"))),
                );
                continue;
            }
            name = ids[0].0.clone();
        }
        if body
            .get("__sls__")
            .is_some_and(|sls| excluded.contains(sls))
        {
            continue;
        }
        let Some(Value::Map(target)) = high.get_mut(&name) else {
            continue;
        };
        for (state, run) in body {
            if is_dunder(&state) {
                continue;
            }
            match target.get_mut(&state) {
                None => {
                    target.insert(state, run);
                }
                Some(Value::List(existing)) => merge_args(existing, &run),
                // Not a list: Salt would fail here; verify_high reports it.
                Some(_) => {}
            }
        }
    }
    errors
}

/// Merge one extend argument list into an existing one (Salt's rules: a
/// function string replaces the function, a requisite list is appended to,
/// any other matching option is replaced, `name` replaces `names`, the rest
/// is appended).
fn merge_args(existing: &mut crate::value::List, run: &Value) {
    match run {
        // The usual case: borrow the items, copying only what is stored.
        Value::List(items) => {
            for arg in items {
                merge_arg(existing, arg);
            }
        }
        other => {
            for arg in py_iter(other) {
                merge_arg(existing, &arg);
            }
        }
    }
}

/// Merge one extend argument (see [`merge_args`]).
fn merge_arg(existing: &mut crate::value::List, arg: &Value) {
    let mut update = false;
    for slot in existing.iter_mut() {
        match (arg, &*slot) {
            (Value::Str(_), Value::Str(_)) => {
                *slot = arg.clone();
                update = true;
            }
            (Value::Map(a), Value::Map(_)) => {
                let Some(argfirst) = a.keys().next() else {
                    continue;
                };
                if first_key(slot) == Some(argfirst) {
                    let is_req = argfirst
                        .as_str()
                        .is_some_and(|k| REQUISITE_KEYWORDS.contains(&k));
                    if is_req {
                        let extra = a.get(argfirst).map(py_iter).unwrap_or_default();
                        if let Some(Value::List(list)) =
                            slot.as_map_mut().and_then(|m| m.get_mut(argfirst))
                        {
                            list.extend(extra);
                        }
                    } else {
                        *slot = arg.clone();
                    }
                    update = true;
                }
                // `name` overrides `names`; Salt still appends the arg too.
                if argfirst.as_str() == Some("name")
                    && first_key(slot).and_then(Value::as_str) == Some("names")
                {
                    *slot = arg.clone();
                }
            }
            _ => {}
        }
    }
    if !update {
        existing.push(arg.clone());
    }
}

/// SLS names excluded by `__exclude__` (bare strings and `sls:` dicts).
fn excluded_sls(high: &Map) -> Vec<&Value> {
    let mut out = Vec::new();
    for ex in high
        .get("__exclude__")
        .map(Value::as_list)
        .into_iter()
        .flatten()
        .flatten()
    {
        match ex {
            Value::Str(_) => out.push(ex),
            Value::Map(m) => {
                if let Some(s) = m.get("sls").filter(|s| s.truthy()) {
                    out.push(s)
                }
            }
            _ => {}
        }
    }
    out
}

/// Salt's `find_name`: the `(ID, state)` pairs an extend or `use` reference
/// `name` designates: the ID itself (in strict mode only when it has
/// `state`), for `state == "sls"` every ID of that SLS, else every state of
/// that module with a single-key argument whose value equals `name` (one
/// pair per matching argument).
pub fn find_name(
    name: &Value,
    state: &str,
    high: &Map,
    strict: Strictness,
) -> Vec<(Value, String)> {
    let mut out = Vec::new();
    let body = high.get(name);
    let check2 = match strict {
        Strictness::Plain => true,
        Strictness::Strict => body
            .and_then(Value::as_map)
            .is_some_and(|m| m.contains_key(state)),
    };
    if body.is_some() && check2 {
        out.push((name.clone(), state.to_string()));
    } else if state == "sls" {
        for (nid, item) in high {
            let Value::Map(item) = item else { continue };
            if item.get("__sls__") == Some(name) {
                if let Some(first) = item.keys().next() {
                    out.push((nid.clone(), first.py_str()));
                }
            }
        }
    } else {
        for (nid, item) in high {
            let Some(Value::List(args)) = item.as_map().and_then(|m| m.get(state)) else {
                continue;
            };
            for arg in args {
                if let Value::Map(a) = arg {
                    if a.len() == 1 && a.values().next() == Some(name) {
                        out.push((nid.clone(), state.to_string()));
                    }
                }
            }
        }
    }
    out
}

/// True for keys Salt skips as internal (`__sls__`, `__env__`, ...).
pub fn is_dunder(key: &Value) -> bool {
    key.as_str().is_some_and(|k| k.starts_with("__"))
}

/// The first key of a map value.
pub fn first_key(v: &Value) -> Option<&Value> {
    v.as_map().and_then(|m| m.keys().next())
}

/// What Python's `for x in value` yields: list items, dict keys, the
/// characters of a string; nothing for scalars (where Python would fail).
pub fn py_iter(v: &Value) -> Vec<Value> {
    match v {
        Value::List(l) => l.to_vec(),
        Value::Map(m) => m.keys().cloned().collect(),
        Value::Str(s) => s.chars().map(Value::from).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn high(j: serde_json::Value) -> Map {
        match Value::from_json(&j) {
            Value::Map(m) => m,
            _ => panic!("not a map"),
        }
    }

    #[test]
    fn extend_replaces_options_and_appends_requisites() {
        let mut h = high(json!({
            "__extend__": [{"svc": {"service": [{"enable": false}, {"watch": [{"file": "b"}]}, "restarted", {"new": 1}],
                                    "__sls__": "x", "__env__": "base"}}],
            "svc": {"service": ["running", {"enable": true}, {"watch": [{"file": "a"}]}, {"order": 10000}],
                    "__sls__": "lib", "__env__": "base"}
        }));
        let errs = reconcile_extend(&mut h, &SourceMap::default());
        assert!(errs.is_empty());
        assert_eq!(
            Value::Map(h).to_json(),
            json!({"svc": {"service": ["restarted", {"enable": false}, {"watch": [{"file": "a"}, {"file": "b"}]},
                                       {"order": 10000}, {"new": 1}],
                           "__sls__": "lib", "__env__": "base"}})
        );
    }

    #[test]
    fn extend_by_name_and_missing_target() {
        let mut h = high(json!({
            "__extend__": [{"/etc/x": {"file": [{"mode": 600}], "__sls__": "a", "__env__": "base"}},
                           {"nothere": {"test": [{"a": 1}], "__sls__": "a", "__env__": "base"}}],
            "cfg": {"file": [{"name": "/etc/x"}, "managed"], "__sls__": "lib", "__env__": "base"}
        }));
        let errs = reconcile_extend(&mut h, &SourceMap::default());
        assert_eq!(errs.len(), 1);
        assert!(errs[0]
            .message
            .starts_with("Cannot extend ID 'nothere' in 'base:a'."));
        assert_eq!(
            h["cfg"].to_json(),
            json!({"file": [{"name": "/etc/x"}, "managed", {"mode": 600}], "__sls__": "lib", "__env__": "base"})
        );
    }

    #[test]
    fn strict_mode_rejects_missing_module() {
        let mut h = high(json!({"a": {"test": ["nop"], "__sls__": "m", "__env__": "base"}}));
        let entries = vec![ExtendEntry {
            name: "a".into(),
            body: Value::from_json(&json!({"file": [{"require": []}], "__sls__": "m"})),
            label: None,
        }];
        assert_eq!(
            apply_extends(
                &mut h.clone(),
                entries.clone(),
                Strictness::Strict,
                &SourceMap::default()
            )
            .len(),
            1
        );
        assert!(
            apply_extends(&mut h, entries, Strictness::Plain, &SourceMap::default()).is_empty()
        );
        assert!(h["a"].get("file").is_some());
    }

    #[test]
    fn excluded_sls_extends_are_skipped() {
        let mut h = high(json!({
            "__extend__": [{"t": {"test": [{"foo": "new"}], "__sls__": "tweak", "__env__": "base"}}],
            "__exclude__": [{"sls": "tweak"}],
            "t": {"test": [{"foo": "old"}, "nop"], "__sls__": "lib", "__env__": "base"}
        }));
        assert!(reconcile_extend(&mut h, &SourceMap::default()).is_empty());
        assert_eq!(
            h["t"].get("test").unwrap().to_json(),
            json!([{"foo": "old"}, "nop"])
        );
    }

    #[test]
    fn name_replaces_names_and_is_appended() {
        let mut h = high(json!({
            "__extend__": [{"p": {"test": [{"name": "one"}], "__sls__": "a", "__env__": "base"}}],
            "p": {"test": [{"names": ["x", "y"]}, "nop"], "__sls__": "a", "__env__": "base"}
        }));
        reconcile_extend(&mut h, &SourceMap::default());
        assert_eq!(
            h["p"].get("test").unwrap().to_json(),
            json!([{"name": "one"}, "nop", {"name": "one"}])
        );
    }
}
