//! `requisite_in`: turns the reverse requisites (`require_in`, `watch_in`,
//! `onchanges_in`, `onfail_in`, `prereq_in`) and `use` / `use_in` into extends
//! of the states they name, then applies those extends strictly (Salt's
//! `requisite_in`). Salt's quirks are kept: targets of one `*_in` list
//! accumulate (so an earlier target gets the reference again for each later
//! item), a bare-string target not found is silently ignored, and the
//! reference added always points at the declaring state by ID.

use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::salt::config::SaltVersion;
use crate::salt::high::extend::{
    apply_extends, find_name, first_key, is_dunder, ExtendEntry, Strictness,
};
use crate::salt::high::source_map::SourceRef;
use crate::salt::high::SourceMap;
use crate::salt::requisite::REQUISITE_IN_KEYWORDS;
use crate::salt::{ID, SLS};
use crate::value::{Map, Value};
use indexmap::IndexMap;
use std::collections::{HashMap, HashSet};

/// Keys that `use` / `use_in` never copy besides the `requisite_in` keys
/// (Salt's `req_in_all`: `req_in` and these).
const USE_IGNORED: &[&str] = &[
    "require",
    "watch",
    "prereq",
    "onfail",
    "onfail_stop",
    "onchanges",
];

/// The state declarations of an ID's body: (module, argument list).
fn declarations(body: &Map) -> impl Iterator<Item = (&Value, &[Value])> {
    body.iter()
        .filter(|(state, _)| !is_dunder(state))
        .filter_map(|(state, run)| match run {
            Value::List(run) => Some((state, run.as_slice())),
            _ => None,
        })
}

/// An argument `{key: items}` whose key is one of `req_in` and not
/// `disabled`: the key and the items.
fn req_in_arg<'v>(
    arg: &'v Value,
    req_in: &[&str],
    disabled: &[String],
) -> Option<(&'v str, &'v Value)> {
    let (key, items) = arg.as_map()?.iter().next()?;
    let key = key.as_str().filter(|k| req_in.contains(k))?;
    (!disabled.iter().any(|d| d == key)).then_some((key, items))
}

/// `requisite_in` for the given release; `disabled` lists requisite keys
/// (`disabled_requisites` option) to ignore.
pub(crate) fn requisite_in_for(
    high: &mut Map,
    version: SaltVersion,
    disabled: &[String],
    sources: &SourceMap,
) -> Vec<Diagnostic> {
    let old = version < SaltVersion::V3008;
    let mut req_in: Vec<&str> = REQUISITE_IN_KEYWORDS.to_vec();
    if old {
        req_in.push("prereq");
    }
    let (extend, labels, mut errors) = {
        let mut b = Builder {
            high: &*high,
            extend: IndexMap::new(),
            labels: HashMap::new(),
            errors: Vec::new(),
            sources,
            names: None,
            sls_ids: None,
            by_value: None,
        };
        let h: &Map = b.high;
        let req_in_arg = |arg| req_in_arg(arg, &req_in, disabled);
        // Most IDs declare none: find the ones that do in parallel.
        let declaring: Vec<usize> = {
            use rayon::prelude::*;
            (0..h.len())
                .into_par_iter()
                .with_min_len(1024)
                .filter(|&i| {
                    h.get_index(i)
                        .and_then(|(_, body)| body.as_map())
                        .is_some_and(|body| {
                            declarations(body)
                                .any(|(_, run)| run.iter().any(|a| req_in_arg(a).is_some()))
                        })
                })
                .collect()
        };
        for (id, body) in declaring.into_iter().filter_map(|i| h.get_index(i)) {
            let Value::Map(body_map) = body else { continue };
            for (state, run) in declarations(body_map) {
                for arg in run {
                    let Some((key, items)) = req_in_arg(arg) else {
                        continue;
                    };
                    let decl = Decl {
                        id,
                        state,
                        body: body_map,
                        key,
                        rkey: key.split('_').next().unwrap_or(key),
                        label: SourceRef::Arg(id.py_str(), state.py_str(), key.to_string()),
                    };
                    match items {
                        Value::Map(items) => b.dict_form(&decl, items, old),
                        Value::List(items) => b.list_form(&decl, items, old),
                        _ => {}
                    }
                }
            }
        }
        (b.extend, b.labels, b.errors)
    };
    let entries = extend
        .into_iter()
        .map(|(name, body)| ExtendEntry {
            label: labels.get(&name).cloned(),
            name,
            body: Value::Map(body),
        })
        .collect();
    errors.extend(apply_extends(high, entries, Strictness::Strict, sources));
    errors
}

/// The declaring side of one `*_in` / `use` argument.
struct Decl<'a> {
    id: &'a Value,
    state: &'a Value,
    body: &'a Map,
    key: &'a str,
    rkey: &'a str,
    label: SourceRef,
}

impl Decl<'_> {
    /// `{<own module>: <own ID>}`: the reference added to targets.
    fn reference(&self) -> Value {
        let mut m = Map::new();
        m.insert(self.state.clone(), self.id.clone());
        Value::Map(m)
    }
    fn sls(&self) -> String {
        self.body
            .get("__sls__")
            .map_or("None".to_string(), Value::py_str)
    }
}

/// Collects the synthetic extend (target name → body) Salt builds.
struct Builder<'a> {
    high: &'a Map,
    extend: IndexMap<Value, Map>,
    labels: HashMap<Value, SourceRef>,
    errors: Vec<Diagnostic>,
    sources: &'a SourceMap,
    /// `name:` value → first (ID, module) declaring it (bare-string targets).
    names: Option<HashMap<Value, (Value, Value)>>,
    /// `__sls__` → every (ID, module) of that SLS, in high-data order.
    sls_ids: Option<HashMap<Value, Vec<(Value, Value)>>>,
    /// (module, single-key arg value) → IDs, one per matching arg (`find_name`).
    by_value: Option<HashMap<(String, Value), Vec<Value>>>,
}

impl<'a> Builder<'a> {
    fn dict_form(&mut self, decl: &Decl, items: &Map, old: bool) {
        for (target_state, name) in items {
            self.extend.entry(name.clone()).or_default();
            let mut target_state = target_state.py_str();
            if let Some(dot) = target_state.find('.') {
                let comma = if old { "," } else { "" };
                self.errors.push(self.dotted_error(
                    decl,
                    format!(
                        "Invalid requisite in {}: {target_state} for {}{comma} in SLS '{}'. Requisites must not contain dots, did you mean '{}'?",
                        decl.rkey,
                        name.py_str(),
                        decl.sls(),
                        &target_state[..dot]
                    ),
                ));
                target_state.truncate(dot);
            }
            self.add_requisite(decl, name, Value::Str(target_state.into()));
        }
    }

    fn list_form(&mut self, decl: &Decl, items: &[Value], old: bool) {
        let high = self.high;
        let mut hinges: Vec<(Value, Value)> = Vec::new();
        for ind in items {
            let ind: Map = match ind {
                Value::Map(m) => m.clone(),
                Value::List(_) => continue,
                other => {
                    if let Some(target) = high.get(other) {
                        // A bare ID: its first state module.
                        let Some(first) = target
                            .as_map()
                            .and_then(|m| m.keys().find(|k| !is_dunder(k)))
                        else {
                            continue;
                        };
                        let mut m = Map::new();
                        m.insert(first.clone(), other.clone());
                        m
                    } else {
                        // A bare name: the first state with that `name:`.
                        match self.name_index().get(other) {
                            Some((nid, st8)) => {
                                let mut m = Map::new();
                                m.insert(st8.clone(), nid.clone());
                                m
                            }
                            None => continue,
                        }
                    }
                }
            };
            let Some((pstate, pname)) = ind.iter().next() else {
                continue;
            };
            if pstate.as_str() == Some("sls") {
                hinges = self.sls_index().get(pname).cloned().unwrap_or_default();
            } else {
                hinges.push((pname.clone(), pstate.clone()));
            }
            let ps = pstate.py_str();
            if let Some(dot) = ps.find('.') {
                self.errors.push(self.dotted_error(
                    decl,
                    format!(
                        "Invalid requisite in {}: {ps} for {}, in SLS '{}'. Requisites must not contain dots, did you mean '{}'?",
                        decl.rkey,
                        pname.py_str(),
                        decl.sls(),
                        &ps[..dot]
                    ),
                ));
            }
            for (name, target_state) in hinges.clone() {
                if old && decl.key == "prereq_in" {
                    // 3006/3007: the declaring state learns it is prerequired.
                    let mut r = Map::new();
                    r.insert(target_state.clone(), name.clone());
                    self.push_arg(decl.id, decl.state, "prerequired", Value::Map(r));
                }
                if old && decl.key == "prereq" {
                    for (ext_id, req_state) in self.find_strict(&name, &target_state) {
                        self.push_arg(
                            &ext_id,
                            &Value::Str(req_state.into()),
                            "prerequired",
                            decl.reference(),
                        );
                    }
                    continue;
                }
                if decl.key == "use_in" {
                    for (ext_id, req_state) in self.find_strict(&name, &target_state) {
                        if !ext_id.truthy() {
                            continue;
                        }
                        let req_state = Value::Str(req_state.into());
                        let skip = state_args(high, &ext_id, &target_state);
                        let copied = usable_args(high, decl.id, decl.state, &skip);
                        self.extend_args(&ext_id, &req_state, copied);
                    }
                    continue;
                }
                if decl.key == "use" {
                    for (ext_id, req_state) in self.find_strict(&name, &target_state) {
                        if !ext_id.truthy() {
                            continue;
                        }
                        let skip = state_args(high, decl.id, decl.state);
                        let copied =
                            usable_args(high, &ext_id, &Value::Str(req_state.into()), &skip);
                        self.extend_args(decl.id, decl.state, copied);
                    }
                    continue;
                }
                self.add_requisite(decl, &name, target_state);
            }
        }
    }

    /// Add `{rkey: [<reference>]}` for `decl` to target `name` / module, or
    /// append the reference to an `rkey` entry already built for it.
    fn add_requisite(&mut self, decl: &Decl, name: &Value, target_state: Value) {
        let entry = self.extend.entry(name.clone()).or_default();
        if !entry.contains_key(&target_state) {
            entry.insert(target_state.clone(), Value::List(crate::value::List::new()));
        }
        for key in ["__env__", "__sls__"] {
            if let Some(v) = decl.body.get(key) {
                entry.insert(key.into(), v.clone());
            }
        }
        self.labels.insert(name.clone(), decl.label.clone());
        let Some(Value::List(list)) = entry.get_mut(&target_state) else {
            return;
        };
        let mut found = false;
        for item in list.iter_mut() {
            if first_key(item).and_then(Value::as_str) == Some(decl.rkey) {
                if let Some(Value::List(refs)) =
                    item.as_map_mut().and_then(|m| m.get_mut(decl.rkey))
                {
                    refs.push(decl.reference());
                }
                found = true;
            }
        }
        if !found {
            let mut m = Map::new();
            m.insert(
                decl.rkey.into(),
                Value::List(crate::value::list![decl.reference()]),
            );
            list.push(Value::Map(m));
        }
    }

    fn push_arg(&mut self, id: &Value, state: &Value, key: &str, reference: Value) {
        let mut m = Map::new();
        m.insert(key.into(), Value::List(crate::value::list![reference]));
        self.extend_args(id, state, vec![Value::Map(m)]);
    }

    fn extend_args(&mut self, id: &Value, state: &Value, args: Vec<Value>) {
        let entry = self.extend.entry(id.clone()).or_default();
        let list = entry
            .entry(state.clone())
            .or_insert_with(|| Value::List(crate::value::List::new()));
        if let Value::List(list) = list {
            list.extend(args);
        }
    }

    fn dotted_error(&self, decl: &Decl, message: String) -> Diagnostic {
        Diagnostic::new(codes::REQUISITE_DOTTED, message)
            .with_subject(SLS, decl.sls())
            .with_subject(ID, decl.id.py_str())
            .or_primary(decl.label.resolve(self.sources))
            .or_primary(self.sources.id(&decl.id.py_str()))
    }

    /// `find_name(name, state, high, strict=True)`, indexed.
    fn find_strict(&mut self, name: &Value, state: &Value) -> Vec<(Value, String)> {
        let high = self.high;
        let state_s = state.py_str();
        if high
            .get(name)
            .and_then(Value::as_map)
            .is_some_and(|m| m.contains_key(state_s.as_str()))
        {
            return vec![(name.clone(), state_s)];
        }
        if state_s == "sls" {
            return find_name(name, &state_s, high, Strictness::Strict);
        }
        let index = self.by_value.get_or_insert_with(|| {
            let mut idx: HashMap<(String, Value), Vec<Value>> = HashMap::new();
            for (nid, item) in high {
                let Value::Map(item) = item else { continue };
                for (st, args) in item {
                    let Value::List(args) = args else { continue };
                    for arg in args {
                        if let Value::Map(a) = arg {
                            if a.len() == 1 {
                                if let Some(v) = a.values().next() {
                                    idx.entry((st.py_str(), v.clone()))
                                        .or_default()
                                        .push(nid.clone());
                                }
                            }
                        }
                    }
                }
            }
            idx
        });
        index
            .get(&(state_s.clone(), name.clone()))
            .map(|ids| ids.iter().map(|i| (i.clone(), state_s.clone())).collect())
            .unwrap_or_default()
    }

    fn name_index(&mut self) -> &HashMap<Value, (Value, Value)> {
        let high = self.high;
        self.names.get_or_insert_with(|| {
            let mut idx = HashMap::new();
            for (nid, item) in high {
                let Value::Map(item) = item else { continue };
                for (st8, args) in item {
                    if is_dunder(st8) {
                        continue;
                    }
                    let Value::List(args) = args else { continue };
                    for j in args {
                        if let Some(n) = j.get("name") {
                            idx.entry(n.clone())
                                .or_insert_with(|| (nid.clone(), st8.clone()));
                        }
                    }
                }
            }
            idx
        })
    }

    fn sls_index(&mut self) -> &HashMap<Value, Vec<(Value, Value)>> {
        let high = self.high;
        self.sls_ids.get_or_insert_with(|| {
            let mut idx: HashMap<Value, Vec<(Value, Value)>> = HashMap::new();
            for (nid, item) in high {
                let Value::Map(item) = item else { continue };
                let Some(sls) = item.get("__sls__") else {
                    continue;
                };
                let list = idx.entry(sls.clone()).or_default();
                for st in item.keys().filter(|k| !is_dunder(k)) {
                    list.push((nid.clone(), st.clone()));
                }
            }
            idx
        })
    }
}

/// Salt's `state_args`: first keys of the single-key dict args of a state.
fn state_args(high: &Map, id: &Value, state: &Value) -> HashSet<Value> {
    let mut out = HashSet::new();
    let Some(Value::List(args)) = high
        .get(id)
        .and_then(Value::as_map)
        .and_then(|m| m.get(state))
    else {
        return out;
    };
    for a in args {
        if let Value::Map(m) = a {
            if m.len() == 1 {
                out.extend(m.keys().next().cloned());
            }
        }
    }
    out
}

/// The args `use` copies from `high[id][state]`: single-key dicts whose key
/// is not in `skip`, not a requisite and not `name` / `names`.
fn usable_args(high: &Map, id: &Value, state: &Value, skip: &HashSet<Value>) -> Vec<Value> {
    let Some(Value::List(args)) = high
        .get(id)
        .and_then(Value::as_map)
        .and_then(|m| m.get(state))
    else {
        return Vec::new();
    };
    args.iter()
        .filter(|a| {
            let Some(m) = a.as_map().filter(|m| m.len() == 1) else {
                return false;
            };
            let Some(k) = m.keys().next() else {
                return false;
            };
            let ks = k.as_str();
            !skip.contains(k)
                && !ks.is_some_and(|k| {
                    REQUISITE_IN_KEYWORDS.contains(&k)
                        || USE_IGNORED.contains(&k)
                        || k == "name"
                        || k == "names"
                })
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(j: serde_json::Value, version: SaltVersion) -> (Map, Vec<String>) {
        let Value::Map(mut h) = Value::from_json(&j) else {
            panic!()
        };
        let errs = requisite_in_for(&mut h, version, &[], &SourceMap::default());
        (h, errs.into_iter().map(|d| d.message).collect())
    }

    fn st(h: &Map, id: &str, state: &str) -> serde_json::Value {
        h.get(id)
            .and_then(|b| b.get(state))
            .map(Value::to_json)
            .unwrap_or_default()
    }

    #[test]
    fn require_in_list_duplicates_earlier_targets() {
        let (h, errs) = run(
            json!({
                "src": {"test": ["nop", {"require_in": [{"test": "t1"}, {"test": "t2"}]}], "__sls__": "m", "__env__": "base"},
                "t1": {"test": ["nop", {"require": [{"test": "t0"}]}], "__sls__": "m", "__env__": "base"},
                "t2": {"test": ["nop"], "__sls__": "m", "__env__": "base"}
            }),
            SaltVersion::V3008,
        );
        assert!(errs.is_empty());
        assert_eq!(
            st(&h, "t1", "test"),
            json!(["nop", {"require": [{"test": "t0"}, {"test": "src"}, {"test": "src"}]}])
        );
        assert_eq!(
            st(&h, "t2", "test"),
            json!(["nop", {"require": [{"test": "src"}]}])
        );
    }

    #[test]
    fn bare_targets_dict_form_and_missing() {
        let (h, errs) = run(
            json!({
                "a": {"test": ["nop", {"watch_in": ["b", "named", "nowhere"]}], "__sls__": "m", "__env__": "base"},
                "b": {"test": ["nop"], "__sls__": "m", "__env__": "base"},
                "c": {"file": ["managed", {"name": "named"}], "__sls__": "m", "__env__": "base"},
                "d": {"test": ["nop", {"onchanges_in": {"test": "ghost"}}], "__sls__": "x", "__env__": "base"}
            }),
            SaltVersion::V3008,
        );
        assert_eq!(
            st(&h, "b", "test"),
            json!(["nop", {"watch": [{"test": "a"}, {"test": "a"}]}])
        );
        assert_eq!(
            st(&h, "c", "file"),
            json!(["managed", {"name": "named"}, {"watch": [{"test": "a"}]}])
        );
        assert_eq!(errs.len(), 1);
        assert!(errs[0].starts_with("Cannot extend ID 'ghost' in 'base:x'."));
    }

    #[test]
    fn use_copies_plain_args_only() {
        let (h, _) = run(
            json!({
                "base-cfg": {"file": ["managed", {"user": "root"}, {"name": "/x"}, {"require": []}, {"foo": "theirs"}, {"order": 1}],
                             "__sls__": "m", "__env__": "base"},
                "mine": {"file": ["managed", {"foo": "mine"}, {"use": [{"file": "base-cfg"}]}, {"order": 2}], "__sls__": "m", "__env__": "base"}
            }),
            SaltVersion::V3008,
        );
        assert_eq!(
            st(&h, "mine", "file"),
            json!(["managed", {"foo": "mine"}, {"use": [{"file": "base-cfg"}]}, {"order": 2}, {"user": "root"}])
        );
    }

    #[test]
    fn sls_target_and_old_prerequired() {
        let (h, _) = run(
            json!({
                "a": {"test": ["nop", {"prereq": [{"test": "b"}]}], "__sls__": "m", "__env__": "base"},
                "b": {"test": ["nop"], "__sls__": "lib", "__env__": "base"},
                "c": {"test": ["nop", {"require_in": [{"sls": "lib"}]}], "__sls__": "m", "__env__": "base"}
            }),
            SaltVersion::V3006,
        );
        assert_eq!(
            st(&h, "b", "test"),
            json!(["nop", {"prerequired": [{"test": "a"}]}, {"require": [{"test": "c"}]}])
        );
    }
}
