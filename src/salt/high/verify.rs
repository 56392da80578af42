//! `verify_high`: the structural checks Salt runs on high data after extend
//! (IDs are strings, state declarations are lists, one function each,
//! requisites well formed). Every problem is collected, worded as Salt words
//! it for the selected release.

use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::salt::config::SaltVersion;
use crate::salt::high::extend::is_dunder;
use crate::salt::high::SourceMap;
use crate::salt::requisite::REQUISITE_KEYWORDS;
use crate::salt::{ID, SLS};
use crate::value::{Map, Value};
use std::borrow::Cow;

/// Requisite keys 3006/3007 check (3008 checks all of `REQUISITE_KEYWORDS`).
const OLD_REQUISITE_KEYS: &[&str] = &["require", "watch", "prereq", "onchanges"];

/// Salt 3008's `verify_high`.
pub fn verify_high(high: &Map, sources: &SourceMap) -> Vec<Diagnostic> {
    verify_high_for(high, SaltVersion::V3008, sources)
}

/// `verify_high` as the given Salt release words and scopes it.
///
/// 3008 checks each ID on its own, so IDs are checked in parallel and their
/// errors gathered in high-data order. 3006/3007 build a cross-ID map of
/// requisites for their recursion check, so they run serially.
pub fn verify_high_for(high: &Map, version: SaltVersion, sources: &SourceMap) -> Vec<Diagnostic> {
    if version < SaltVersion::V3008 {
        // 3006/3007 only: ID → {"state": module, <required value>: <module>}.
        let mut reqs: Map = Map::new();
        let mut errors = Vec::new();
        for (id, body) in high {
            verify_id(id, body, Some(&mut reqs), sources, &mut errors);
        }
        return errors;
    }
    use rayon::prelude::*;
    (0..high.len())
        .into_par_iter()
        .with_min_len(256)
        .flat_map_iter(|i| {
            let mut errors = Vec::new();
            if let Some((id, body)) = high.get_index(i) {
                verify_id(id, body, None, sources, &mut errors);
            }
            errors
        })
        .collect()
}

/// `str(value)` without copying a string.
fn py_str_cow(v: &Value) -> Cow<'_, str> {
    match v {
        Value::Str(s) => Cow::Borrowed(s.as_str()),
        other => Cow::Owned(other.py_repr()),
    }
}

/// `str(body["__sls__"])`, `None` when absent.
fn sls_of(body: &Value) -> Cow<'_, str> {
    body.get("__sls__")
        .map_or(Cow::Borrowed("None"), py_str_cow)
}

/// The checks for one ID. `reqs` is given for 3006/3007 (whose wording and
/// requisite keys differ, and which check for mutual requires). A problem
/// with no more precise place points at the ID's declaration, else at its
/// SLS file.
fn verify_id(
    id: &Value,
    body: &Value,
    reqs: Option<&mut Map>,
    sources: &SourceMap,
    errors: &mut Vec<Diagnostic>,
) {
    let start = errors.len();
    check_id(id, body, reqs, sources, errors);
    if errors.len() == start {
        return;
    }
    let id_label = || sources.id(&py_str_cow(id));
    let file_label = || {
        let sls = sls_of(body);
        if sls.contains(':') {
            sources.file(&sls)
        } else {
            let env = body
                .get("__env__")
                .map_or("base".to_string(), Value::py_str);
            sources.file(&format!("{env}:{sls}"))
        }
    };
    for d in &mut errors[start..] {
        if d.primary.is_none() {
            d.primary = id_label().or_else(file_label);
        }
    }
}

fn check_id(
    id: &Value,
    body: &Value,
    mut reqs: Option<&mut Map>,
    sources: &SourceMap,
    errors: &mut Vec<Diagnostic>,
) {
    let old = reqs.is_some();
    let id_str = py_str_cow(id);
    let id_str: &str = &id_str;
    let err = |code: codes::Code, msg: String, sls: &str| {
        let d = Diagnostic::new(code, msg);
        let d = if sls.is_empty() {
            d
        } else {
            d.with_subject(SLS, sls)
        };
        d.with_subject(ID, id_str)
    };
    if id.as_str().is_none() {
        let sls = sls_of(body);
        let msg = if old {
            format!(
                "ID '{id_str}' in SLS '{sls}' is not formed as a string, but is a {}. It may need to be quoted.",
                id.py_type_name()
            )
        } else {
            format!(
                "ID '{id_str}' in SLS '{sls}' is not formed as a string, but is type {}. It may need to be quoted.",
                id.py_type_name()
            )
        };
        errors.push(err(codes::ID_NOT_STRING, msg, &sls));
    } else if is_dunder(id) {
        return;
    }
    let Value::Map(body_map) = body else {
        errors.push(
            err(
                codes::BAD_STATE_DECLARATION,
                format!(
                    "The type {id_str} in {} is not formatted as a dictionary",
                    body.py_str()
                ),
                "",
            )
            .or_primary(sources.id(id_str)),
        );
        return;
    };
    let sls = sls_of(body);
    let sls: &str = &sls;
    for (state, args) in body_map {
        if is_dunder(state) {
            continue;
        }
        let state_str = py_str_cow(state);
        let state_str: &str = &state_str;
        let module = state_str.split('.').next().unwrap_or_default();
        let at_state = || sources.state(id_str, module);
        let Value::List(args) = args else {
            if args.is_null() {
                errors.push(
                    err(codes::BAD_STATE_DECLARATION,
                        format!(
                            "ID '{id_str}' in SLS '{sls}' contains a short declaration ({state_str}) with a trailing colon. When not passing any arguments to a state, the colon must be omitted."
                        ),
                        sls,
                    )
                    .or_primary(at_state()),
                );
            } else {
                errors.push(
                    err(
                        codes::BAD_STATE_DECLARATION,
                        format!("State '{id_str}' in SLS '{sls}' is not formed as a list"),
                        sls,
                    )
                    .or_primary(at_state()),
                );
            }
            continue;
        };
        let mut fun_count = usize::from(state_str.contains('.'));
        for arg in args {
            match arg {
                Value::Str(f) => {
                    fun_count += 1;
                    if f.trim().contains(' ') {
                        errors.push(
                            err(codes::FUNCTION_WHITESPACE,
                                format!(
                                    "The function \"{f}\" in state \"{id_str}\" in SLS \"{sls}\" has whitespace, a function with whitespace is not supported, perhaps this is an argument that is missing a \":\""
                                ),
                                sls,
                            )
                            .or_primary(at_state()),
                        );
                    }
                }
                Value::Map(a) => {
                    let Some((argfirst, argval)) = a.iter().next() else {
                        continue;
                    };
                    let first = py_str_cow(argfirst);
                    let first: &str = &first;
                    let at_arg = || sources.arg(id_str, module, first);
                    if first == "names" && !matches!(argval, Value::List(_)) {
                        errors.push(
                            err(codes::NAMES_NOT_LIST,
                                format!(
                                    "The 'names' argument in state '{id_str}' in SLS '{sls}' needs to be formed as a list"
                                ),
                                sls,
                            )
                            .or_primary(at_arg()),
                        );
                    }
                    let is_req = argfirst.as_str().is_some_and(|k| {
                        if old {
                            OLD_REQUISITE_KEYS.contains(&k)
                        } else {
                            REQUISITE_KEYWORDS.contains(&k)
                        }
                    });
                    if !is_req {
                        continue;
                    }
                    match argval {
                        Value::List(items) => {
                            if let Some(reqs) = reqs.as_deref_mut() {
                                let mut entry = Map::new();
                                entry.insert("state".into(), state.clone());
                                reqs.insert(id.clone(), Value::Map(entry));
                            }
                            for req in items {
                                // A bare string stands for `{"id": <string>}`.
                                let (req_key, req_val): (Cow<'_, Value>, &Value) = match req {
                                    Value::Str(_) => (Cow::Owned(Value::from("id")), req),
                                    Value::Map(m) if old && !m.is_empty() || m.len() == 1 => {
                                        match m.iter().next() {
                                            Some((k, v)) => (Cow::Borrowed(k), v),
                                            None => continue,
                                        }
                                    }
                                    _ => {
                                        let msg = if old {
                                            format!(
                                                "Requisite declaration {} in SLS {sls} is not formed as a single key dictionary",
                                                req.py_str()
                                            )
                                        } else {
                                            format!(
                                                "Requisite declaration {} in state {id_str} in SLS {sls} is not formed as a single key dictionary",
                                                req.py_str()
                                            )
                                        };
                                        errors.push(
                                            err(codes::BAD_REQUISITE, msg, sls)
                                                .or_primary(at_arg()),
                                        );
                                        continue;
                                    }
                                };
                                let key = py_str_cow(&req_key);
                                if let Some(dot) = key.find('.') {
                                    errors.push(
                                        err(codes::REQUISITE_DOTTED,
                                            format!(
                                                "Invalid requisite type '{key}' in state '{id_str}', in SLS '{sls}'. Requisite types must not contain dots, did you mean '{}'?",
                                                &key[..dot]
                                            ),
                                            sls,
                                        )
                                        .or_primary(at_arg()),
                                    );
                                }
                                if matches!(req_val, Value::List(_) | Value::Map(_)) {
                                    let msg = if old {
                                        format!(
                                            "Illegal requisite \"{}\", please check your syntax.\n",
                                            req_val.py_str()
                                        )
                                    } else {
                                        format!(
                                            "Illegal requisite \"{}\" in SLS \"{sls}\", please check your syntax.\n",
                                            req_val.py_str()
                                        )
                                    };
                                    errors.push(
                                        err(codes::BAD_REQUISITE, msg, sls).or_primary(at_arg()),
                                    );
                                    continue;
                                }
                                if let Some(reqs) = reqs.as_deref_mut() {
                                    if let Some(e) =
                                        old_recursion_check(reqs, id, state, &req_key, req_val, sls)
                                    {
                                        errors.push(
                                            err(codes::REQUISITE_CYCLE, e, sls)
                                                .or_primary(at_arg()),
                                        );
                                    }
                                }
                            }
                        }
                        _ => {
                            errors.push(
                                err(codes::REQUISITE_NOT_LIST,
                                    format!(
                                        "The {first} statement in state '{id_str}' in SLS '{sls}' needs to be formed as a list"
                                    ),
                                    sls,
                                )
                                .or_primary(at_arg()),
                            );
                        }
                    }
                    if a.len() != 1 {
                        errors.push(
                            err(codes::BAD_REQUISITE,
                                format!(
                                    "Multiple dictionaries defined in argument of state '{id_str}' in SLS '{sls}'"
                                ),
                                sls,
                            )
                            .or_primary(at_arg()),
                        );
                    }
                }
                _ => {}
            }
        }
        if fun_count == 0 {
            if old && (state_str == "require" || state_str == "watch") {
                continue;
            }
            errors.push(
                err(
                    codes::NO_FUNCTION,
                    format!("No function declared in state '{id_str}' in SLS '{sls}'"),
                    sls,
                )
                .or_primary(at_state()),
            );
        } else if fun_count > 1 {
            let mut funs: Vec<&str> = state_str
                .split_once('.')
                .map(|(_, f)| vec![f])
                .unwrap_or_default();
            funs.extend(args.iter().filter_map(Value::as_str));
            errors.push(
                err(codes::MULTIPLE_FUNCTIONS,
                    format!(
                        "Too many functions declared in state '{id_str}' in SLS '{sls}'. Please choose one of the following: {}",
                        funs.join(", ")
                    ),
                    sls,
                )
                .or_primary(at_state()),
            );
        }
    }
}

/// 3006/3007's static check for two states requiring each other with an
/// explicit module reference.
fn old_recursion_check(
    reqs: &mut Map,
    id: &Value,
    state: &Value,
    req_key: &Value,
    req_val: &Value,
    sls: &str,
) -> Option<String> {
    if let Some(Value::Map(own)) = reqs.get_mut(id) {
        own.insert(req_val.clone(), req_key.clone());
    }
    let other = reqs.get(req_val)?.as_map()?;
    if other.get(id) != Some(state) {
        return None;
    }
    let own_ref = reqs.get(id)?.as_map()?.get(req_val)?;
    if other.get("state") == Some(own_ref) {
        return Some(format!(
            "A recursive requisite was found, SLS \"{sls}\" ID \"{}\" ID \"{}\"",
            id.py_str(),
            req_val.py_str()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(j: serde_json::Value, version: SaltVersion) -> Vec<String> {
        let Value::Map(h) = Value::from_json(&j) else {
            panic!()
        };
        verify_high_for(&h, version, &SourceMap::default())
            .into_iter()
            .map(|d| d.message)
            .collect()
    }

    #[test]
    fn salt_messages() {
        let errs = check(
            json!({
                "nofun": {"test": [{"a": 1}], "__sls__": "m", "__env__": "base"},
                "two": {"test": ["nop", "succeed_with_changes"], "__sls__": "m", "__env__": "base"},
                "ws": {"test": ["nop", "name foo"], "__sls__": "m", "__env__": "base"},
                "dict": {"test": {"a": 1}, "__sls__": "m", "__env__": "base"},
                "colon": {"test": null, "__sls__": "m", "__env__": "base"},
                "req": {"test": ["nop", {"require": {"test": "x"}}], "__sls__": "m", "__env__": "base"},
                "dot": {"test": ["nop", {"watch": [{"test.nop": "x"}, ["bad"]]}], "__sls__": "m", "__env__": "base"},
                "ill": {"test": ["nop", {"require": [{"test": ["x"]}]}], "__sls__": "m", "__env__": "base"},
                "names": {"test": ["nop", {"names": "a"}], "__sls__": "m", "__env__": "base"},
                "multi": {"test": ["nop", {"require": [], "b": 1}, {"x": 1, "y": 2}], "__sls__": "m", "__env__": "base"},
                "__exclude__": ["x"]
            }),
            SaltVersion::V3008,
        );
        assert_eq!(
            errs,
            vec![
                "No function declared in state 'nofun' in SLS 'm'",
                "Too many functions declared in state 'two' in SLS 'm'. Please choose one of the following: nop, succeed_with_changes",
                "The function \"name foo\" in state \"ws\" in SLS \"m\" has whitespace, a function with whitespace is not supported, perhaps this is an argument that is missing a \":\"",
                "Too many functions declared in state 'ws' in SLS 'm'. Please choose one of the following: nop, name foo",
                "State 'dict' in SLS 'm' is not formed as a list",
                "ID 'colon' in SLS 'm' contains a short declaration (test) with a trailing colon. When not passing any arguments to a state, the colon must be omitted.",
                "The require statement in state 'req' in SLS 'm' needs to be formed as a list",
                "Invalid requisite type 'test.nop' in state 'dot', in SLS 'm'. Requisite types must not contain dots, did you mean 'test'?",
                "Requisite declaration ['bad'] in state dot in SLS m is not formed as a single key dictionary",
                "Illegal requisite \"['x']\" in SLS \"m\", please check your syntax.\n",
                "The 'names' argument in state 'names' in SLS 'm' needs to be formed as a list",
                "Multiple dictionaries defined in argument of state 'multi' in SLS 'm'",
            ]
        );
    }

    #[test]
    fn old_releases_check_fewer_keys_and_mutual_requires() {
        let tree = json!({
            "b": {"test": ["nop", {"require": [{"test": "c"}]}, {"listen": "x"}], "__sls__": "main", "__env__": "base"},
            "c": {"test": ["nop", {"require": [{"test": "b"}]}], "__sls__": "main", "__env__": "base"}
        });
        assert_eq!(
            check(tree.clone(), SaltVersion::V3006),
            vec!["A recursive requisite was found, SLS \"main\" ID \"c\" ID \"b\""]
        );
        assert_eq!(
            check(tree, SaltVersion::V3008),
            vec!["The listen statement in state 'b' in SLS 'main' needs to be formed as a list"]
        );
    }
}
