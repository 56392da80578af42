//! Salt's `salt.utils.dictupdate` on [`Value`]: the recursive `update` and
//! the strategy-driven `merge` that pillar compilation
//! (`pillar_source_merging_strategy`, `pillar_merge_lists`), `slsutil.merge`,
//! `defaults.merge` and `config.get(merge=…)` share.
//!
//! Semantics follow Salt 3008.5:
//! * `update(dest, upd)`: when `dest` and `upd` share no key every item of
//!   `upd` is assigned; otherwise per key, two mappings merge recursively, two
//!   lists are concatenated without duplicates when `merge_lists` (items of
//!   `upd` already in `dest` are dropped; duplicates inside either stay), and
//!   anything else is replaced by `upd`'s value.
//! * `merge(a, b, strategy)`: `smart` is `aggregate` for a `yamlex` renderer,
//!   else `recurse`; `recurse` = `update(deepcopy(a), b)`; `overwrite`
//!   replaces the shared top-level keys of `a` by `b`'s values, then recurses
//!   (so nested values of `b` win whole); `aggregate` keeps `a`'s top-level
//!   keys and takes `b`'s value for every key of `b` (yamlex `!aggregate`
//!   markers are not representable in [`Value`], so nothing aggregates
//!   deeper); `list` keeps only `a`'s keys, shared ones becoming `[a, b]`;
//!   `none` and unknown strategies recurse (the latter with a warning, see
//!   [`Strategy::parse`]).

use crate::value::{py_eq, Map, Value};
use std::fmt;

/// Why an update or merge could not run (Salt raises `TypeError`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DictUpdateError {
    /// Salt's message text.
    pub message: String,
}

impl fmt::Display for DictUpdateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DictUpdateError {}

fn non_dict_error() -> DictUpdateError {
    DictUpdateError {
        message: "Cannot update using non-dict types in dictupdate.update()".into(),
    }
}

/// A merging strategy as `dictupdate.merge` understands it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// `smart`: `recurse` for dicts (the default).
    Smart,
    /// `recurse`: merge dicts key by key.
    Recurse,
    /// `aggregate`: merge values marked `!aggregate`.
    Aggregate,
    /// `overwrite`: later values replace earlier ones.
    Overwrite,
    /// `list`: concatenate lists.
    List,
    /// `none`: no merge, the first value stays.
    None,
}

impl Strategy {
    /// Parse a strategy name. Unknown names give `(Recurse, false)`: Salt
    /// logs "Unknown merging strategy '…', fallback to recurse" and recurses.
    pub fn parse(name: &str) -> (Strategy, bool) {
        match name {
            "smart" => (Strategy::Smart, true),
            "recurse" => (Strategy::Recurse, true),
            "aggregate" => (Strategy::Aggregate, true),
            "overwrite" => (Strategy::Overwrite, true),
            "list" => (Strategy::List, true),
            "none" => (Strategy::None, true),
            _ => (Strategy::Recurse, false),
        }
    }

    /// What `smart` means for a renderer pipe (`jinja|yamlex` → aggregate).
    pub fn resolve(self, renderer: &str) -> Strategy {
        if self != Strategy::Smart {
            return self;
        }
        let last = renderer.rsplit('|').next().unwrap_or(renderer);
        if last == "yamlex" || renderer.starts_with("yamlex_") {
            Strategy::Aggregate
        } else {
            Strategy::Recurse
        }
    }
}

fn py_contains(list: &[Value], item: &Value) -> bool {
    list.iter().any(|x| py_eq(x, item))
}

/// `dictupdate.update(dest, upd, recursive_update, merge_lists)` on maps:
/// merges `upd` into `dest` in place.
pub fn update_map(dest: &mut Map, upd: &Map, recursive_update: bool, merge_lists: bool) {
    let shares_a_key = upd.keys().any(|k| dest.contains_key(k));
    if !(recursive_update && shares_a_key) {
        for (k, v) in upd {
            dest.insert(k.clone(), v.clone());
        }
        return;
    }
    for (key, val) in upd {
        let merged = match (dest.get_mut(key), val) {
            (Some(Value::Map(sub)), Value::Map(val)) => {
                update_map(sub, val, true, merge_lists);
                continue;
            }
            (Some(Value::List(sub)), Value::List(val)) if merge_lists => {
                // Membership is tested against dest's list as it was, so
                // duplicates inside `upd` all survive.
                let mut merged = sub.clone();
                merged.extend(val.iter().filter(|x| !py_contains(sub, x)).cloned());
                Value::List(merged)
            }
            _ => val.clone(),
        };
        dest.insert(key.clone(), merged);
    }
}

/// `dictupdate.update(dest, upd, recursive_update, merge_lists)`: both must
/// be mappings (else Salt's `TypeError`).
pub fn update(
    dest: &mut Value,
    upd: &Value,
    recursive_update: bool,
    merge_lists: bool,
) -> Result<(), DictUpdateError> {
    match (dest, upd) {
        (Value::Map(d), Value::Map(u)) => {
            update_map(d, u, recursive_update, merge_lists);
            Ok(())
        }
        _ => Err(non_dict_error()),
    }
}

/// `merge_recurse`: `update(deepcopy(a), b)`.
fn merge_recurse(a: &Value, b: &Value, merge_lists: bool) -> Result<Value, DictUpdateError> {
    let mut copied = a.clone();
    update(&mut copied, b, true, merge_lists)?;
    Ok(copied)
}

/// yamlex `merge_recursive(a, b, level=1)` without aggregation markers: the
/// top level is merged key by key (a's order, b's values win), below that
/// `b`'s value is taken whole.
fn merge_aggregate(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Map(a), Value::Map(b)) => {
            let mut out = a.clone();
            for (k, v) in b {
                out.insert(k.clone(), v.clone());
            }
            Value::Map(out)
        }
        // yamlex marks both roots as aggregates: scalars become one-item
        // sequences, two sequences concatenate without duplicates, and a
        // mapping against anything else yields `b` (marked).
        _ => {
            let wrap = |v: &Value| match v {
                Value::List(l) => l.clone(),
                other => crate::value::list![other.clone()],
            };
            match (a, b) {
                (_, Value::Map(_)) => b.clone(),
                (Value::Map(_), _) => Value::List(wrap(b)),
                _ => {
                    let first = wrap(a);
                    let mut out = first.clone();
                    out.extend(wrap(b).into_iter().filter(|x| !py_contains(&first, x)));
                    Value::List(out)
                }
            }
        }
    }
}

/// `merge_list`: only `a`'s keys; shared ones become `[a_value, b_value]`.
fn merge_list(a: &Value, b: &Value) -> Result<Value, DictUpdateError> {
    let a = a.as_map().ok_or_else(non_dict_error)?;
    let b = b.as_map().ok_or_else(non_dict_error)?;
    let mut out = Map::with_capacity(a.len());
    for (k, v) in a {
        let nv = match b.get(k) {
            Some(bv) => Value::List(crate::value::list![v.clone(), bv.clone()]),
            None => v.clone(),
        };
        out.insert(k.clone(), nv);
    }
    Ok(Value::Map(out))
}

/// `dictupdate.merge(obj_a, obj_b, strategy, renderer, merge_lists)` with a
/// parsed strategy. Returns the merged value; `obj_a` is not modified (Salt's
/// `overwrite` also replaces the shared top-level keys of `obj_a` in place:
/// callers that need that side effect apply [`overwrite_in_place`]).
pub fn merge_with(
    obj_a: &Value,
    obj_b: &Value,
    strategy: Strategy,
    renderer: &str,
    merge_lists: bool,
) -> Result<Value, DictUpdateError> {
    match strategy.resolve(renderer) {
        Strategy::List => merge_list(obj_a, obj_b),
        Strategy::Recurse => merge_recurse(obj_a, obj_b, merge_lists),
        Strategy::Aggregate => Ok(merge_aggregate(obj_a, obj_b)),
        Strategy::Overwrite => {
            let mut a = obj_a.clone();
            overwrite_in_place(&mut a, obj_b);
            merge_recurse(&a, obj_b, merge_lists)
        }
        // `none` recurses without list merging; `smart` is resolved above.
        Strategy::None | Strategy::Smart => merge_recurse(obj_a, obj_b, false),
    }
}

/// `dictupdate.merge` by strategy name. Unknown names recurse (without
/// `merge_lists`, as Salt does).
pub fn merge(
    obj_a: &Value,
    obj_b: &Value,
    strategy: &str,
    renderer: &str,
    merge_lists: bool,
) -> Result<Value, DictUpdateError> {
    match Strategy::parse(strategy) {
        (s, true) => merge_with(obj_a, obj_b, s, renderer, merge_lists),
        (_, false) => merge_recurse(obj_a, obj_b, false),
    }
}

/// The in-place half of Salt's `merge_overwrite`: every top-level key of `b`
/// already in `a` takes `b`'s value.
pub fn overwrite_in_place(a: &mut Value, b: &Value) {
    if let (Value::Map(a), Value::Map(b)) = (a, b) {
        for (k, v) in b {
            if let Some(slot) = a.get_mut(k) {
                *slot = v.clone();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmap;

    fn j(s: &str) -> Value {
        Value::from_json(&serde_json::from_str(s).expect("test JSON"))
    }

    #[test]
    fn update_recurses_into_shared_maps() {
        let mut d = j(r#"{"a": {"x": 1, "y": [1]}, "b": 1}"#);
        update(
            &mut d,
            &j(r#"{"a": {"y": [2], "z": 3}, "c": 4}"#),
            true,
            false,
        )
        .unwrap();
        assert_eq!(
            d.to_json().to_string(),
            r#"{"a":{"x":1,"y":[2],"z":3},"b":1,"c":4}"#
        );
    }

    #[test]
    fn update_merges_lists_dropping_items_already_in_dest() {
        let mut d = j(r#"{"k": [1, 1, 2]}"#);
        update(&mut d, &j(r#"{"k": [2, 3, 3]}"#), true, true).unwrap();
        assert_eq!(d, j(r#"{"k": [1, 1, 2, 3, 3]}"#));
        // Python equality: True == 1, 1.0 == 1
        let mut d = vmap! {"k" => vec![Value::Int(1)]};
        update(
            &mut d,
            &vmap! {"k" => vec![Value::Bool(true), Value::Float(1.0)]},
            true,
            true,
        )
        .unwrap();
        assert_eq!(d, vmap! {"k" => vec![Value::Int(1)]});
    }

    #[test]
    fn update_without_recursion_replaces_values() {
        let mut d = j(r#"{"a": {"x": 1}}"#);
        update(&mut d, &j(r#"{"a": {"y": 2}}"#), false, false).unwrap();
        assert_eq!(d, j(r#"{"a": {"y": 2}}"#));
    }

    #[test]
    fn update_rejects_non_dicts() {
        let mut d = j("[1]");
        let e = update(&mut d, &j("{}"), true, false).unwrap_err();
        assert_eq!(
            e.message,
            "Cannot update using non-dict types in dictupdate.update()"
        );
    }

    #[test]
    fn strategies() {
        let a = j(r#"{"c": {"x": 1, "n": {"k": "a", "o": "a"}}, "oa": 1}"#);
        let b = j(r#"{"c": {"y": 2, "n": {"o": "b"}}, "ob": 2}"#);
        let rec = j(r#"{"c": {"x": 1, "n": {"k": "a", "o": "b"}, "y": 2}, "oa": 1, "ob": 2}"#);
        let top = j(r#"{"c": {"y": 2, "n": {"o": "b"}}, "oa": 1, "ob": 2}"#);
        assert_eq!(merge(&a, &b, "smart", "yaml", false).unwrap(), rec);
        assert_eq!(merge(&a, &b, "recurse", "yaml", false).unwrap(), rec);
        assert_eq!(merge(&a, &b, "none", "yaml", false).unwrap(), rec);
        assert_eq!(merge(&a, &b, "bogus", "yaml", false).unwrap(), rec);
        assert_eq!(merge(&a, &b, "overwrite", "yaml", false).unwrap(), top);
        assert_eq!(merge(&a, &b, "aggregate", "yaml", false).unwrap(), top);
        assert_eq!(merge(&a, &b, "smart", "jinja|yamlex", false).unwrap(), top);
        assert_eq!(
            merge(&a, &b, "list", "yaml", false).unwrap(),
            j(
                r#"{"c": [{"x": 1, "n": {"k": "a", "o": "a"}}, {"y": 2, "n": {"o": "b"}}], "oa": 1}"#
            )
        );
        assert!(merge(&j("1"), &b, "recurse", "yaml", false).is_err());
    }

    #[test]
    fn strategy_resolution() {
        assert_eq!(Strategy::Smart.resolve("jinja|yaml"), Strategy::Recurse);
        assert_eq!(
            Strategy::Smart.resolve("yamlex_custom"),
            Strategy::Aggregate
        );
        assert_eq!(Strategy::Smart.resolve("yamlex"), Strategy::Aggregate);
        assert_eq!(Strategy::parse("nope"), (Strategy::Recurse, false));
    }

    /// Real Salt's pillar merges (`pillar.items` over two SLS files), from
    /// tests/data/saltlib/pillar-merge.json (see its README).
    #[test]
    fn pillar_merges_match_salt() {
        let text = include_str!("../../tests/data/saltlib/pillar-merge.json");
        let data: serde_json::Value = serde_json::from_str(text).unwrap();
        let cases = data["cases"].as_array().unwrap();
        assert!(cases.len() >= 10);
        for case in cases {
            let name = case["name"].as_str().unwrap();
            let strategy = case["strategy"].as_str().unwrap();
            let renderer = case["renderer"].as_str().unwrap();
            let merge_lists = case["merge_lists"].as_bool().unwrap();
            let mut acc = Value::Map(Map::new());
            for src in case["sources"].as_array().unwrap() {
                acc = merge(
                    &acc,
                    &Value::from_json(src),
                    strategy,
                    renderer,
                    merge_lists,
                )
                .unwrap();
            }
            let expected = Value::from_json(&case["expected"]);
            assert_eq!(
                acc.to_json_pretty(),
                expected.to_json_pretty(),
                "case {name}"
            );
        }
    }
}
