//! Lowstate: builds the flat chunks Salt executes from high data
//! (`compile_high_data`: one chunk per ID × state module × `names` entry, keys
//! in Salt's order), normalises `order` values (cap, `first`/`last`,
//! negatives, `names` fractions). The passes before it live in `high`, the
//! ordering after it in `order`; `pipeline::high_to_low` runs them in
//! Salt's order of steps.

use crate::salt::config::{Config, SaltVersion};
use crate::salt::grains::modules::{host, mod_watch_states, MOD_WATCH_STATES};
use crate::salt::high::extend::{is_dunder, py_iter};
use crate::value::{Map, Value};
use indexmap::IndexSet;
use std::cmp::Ordering;
use std::collections::BTreeSet;

/// What the high → low stages need to know about the minion.
#[derive(Debug, Clone)]
pub struct LowOptions {
    /// The Salt release to reproduce.
    pub version: SaltVersion,
    /// State modules that have `mod_watch`.
    pub mod_watch: BTreeSet<String>,
    /// `disabled_requisites`: requisite keys to ignore.
    pub disabled_requisites: Vec<String>,
}

impl Default for LowOptions {
    fn default() -> Self {
        LowOptions::new(SaltVersion::default())
    }
}

impl LowOptions {
    /// Defaults for a release: every core state module with `mod_watch`
    /// loaded, nothing disabled.
    pub fn new(version: SaltVersion) -> LowOptions {
        LowOptions {
            version,
            mod_watch: MOD_WATCH_STATES
                .iter()
                .map(|(s, _)| s.to_string())
                .collect(),
            disabled_requisites: Vec::new(),
        }
    }

    /// Options from a minion config: the state modules with `mod_watch`
    /// that a minion of its OS loads (`grains::modules`), the `mod_watch`
    /// extras, `disabled_requisites`.
    pub fn from_config(config: &Config, version: SaltVersion) -> LowOptions {
        let mut o = LowOptions::new(version);
        let empty = Map::new();
        let grains = config.grains.as_map().unwrap_or(&empty);
        o.mod_watch = mod_watch_states(grains, &host(config.grains_model.profile));
        o.mod_watch.extend(config.mod_watch.iter().cloned());
        match config.opts.get("disabled_requisites") {
            Some(Value::List(l)) => o.disabled_requisites = l.iter().map(Value::py_str).collect(),
            Some(Value::Str(s)) => o.disabled_requisites = vec![s.to_string()],
            _ => {}
        }
        o
    }

    /// Whether `module` has `mod_watch`.
    pub fn has_mod_watch(&self, module: &str) -> bool {
        self.mod_watch.contains(module)
    }
}

/// Salt's `compile_high_data` without the ordering: chunks in high-data
/// order. Keys: `state`, `name`, `__sls__`, `__env__`,
/// [`__sls_included_from__`], `__id__`, the dict args in order (`names` and
/// `state` left out, a non-string `name` replaced by the ID), then
/// `name_order` for `names` entries, then `fun`. A state with no function
/// yields no chunk (verify_high reports it).
pub fn compile_high_data(high: &Map) -> Vec<Map> {
    compile_high_data_owned(high.clone())
}

/// [`compile_high_data`] consuming the high data: arguments move into the
/// chunks instead of being copied (only `names` expansions copy).
/// IDs are independent, so their chunks are built in parallel (collected
/// in high-data order).
pub fn compile_high_data_owned(high: Map) -> Vec<Map> {
    use rayon::prelude::*;
    // Each ID is taken out of its slot where it is: copying 26,000 entries
    // into a new vector first was a sequential step of its own.
    let mut states = high.into_entries();
    // Each task appends its run of IDs' chunks to one vector (not a vector
    // per ID); the runs come back in order.
    let runs: Vec<Vec<Map>> = states
        .par_iter_mut()
        .with_min_len(256)
        .fold(Vec::new, |mut chunks, (id, body)| {
            id_chunks(std::mem::take(id), std::mem::take(body), &mut chunks);
            chunks
        })
        .collect();
    // Moved, not cloned (`concat` would clone every chunk).
    let mut chunks = Vec::with_capacity(runs.iter().map(Vec::len).sum());
    for mut run in runs {
        chunks.append(&mut run);
    }
    chunks
}

/// Append the chunks of one ID declaration to `chunks`, in Salt's order.
fn id_chunks(id: Value, body: Value, chunks: &mut Vec<Map>) {
    const STAMPS: [&str; 3] = ["__sls__", "__env__", "__sls_included_from__"];
    if is_dunder(&id) {
        return;
    }
    let Value::Map(body) = body else {
        return;
    };
    let mut body = body.into_entries();
    // The stamps are taken out of the body (its dunder keys make no chunk):
    // the last state moves them into its chunk, the others copy them.
    let mut stamps = STAMPS.map(|k| {
        body.iter_mut()
            .find(|(key, _)| key.as_str() == Some(k))
            .map(|(_, v)| (k, std::mem::take(v)))
    });
    let mut states = body.iter().filter(|(state, _)| !is_dunder(state)).count();
    for (state, run) in body {
        if is_dunder(&state) {
            continue;
        }
        states -= 1;
        let args: crate::value::List = match run {
            Value::List(l) => l,
            other => py_iter(&other).into_iter().collect(),
        };
        let arg_keys: usize = args.iter().filter_map(Value::as_map).map(Map::len).sum();
        // state, name, stamps, __id__, the args, fun, and room for the
        // `order` the sort may add.
        let stamped = stamps.iter().flatten().count();
        let mut chunk = Map::with_capacity(arg_keys + stamped + 5);
        // These keys are distinct: no lookups.
        chunk.push_distinct("state".into(), state);
        chunk.push_distinct("name".into(), id.clone());
        for (k, v) in stamps.iter_mut().flatten() {
            let v = if states == 0 {
                std::mem::take(v)
            } else {
                v.clone()
            };
            chunk.push_distinct((*k).into(), v);
        }
        chunk.push_distinct("__id__".into(), id.clone());
        let mut fun: Option<Value> = None;
        let mut names: IndexSet<Value> = IndexSet::new();
        for arg in args {
            match arg {
                Value::Str(_) => {
                    fun.get_or_insert(arg);
                }
                Value::Map(m) => {
                    for (key, val) in m {
                        match key.as_str() {
                            Some("names") => names.extend(py_iter(&val)),
                            Some("state") => {}
                            Some("name") if val.as_str().is_none() => {
                                chunk.insert(key, id.clone());
                            }
                            _ => {
                                chunk.insert(key, val);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        let Some(fun) = fun else { continue };
        if names.is_empty() {
            chunk.insert("fun".into(), fun);
            chunks.push(chunk);
            continue;
        }
        let count = names.len();
        let mut base = Some(chunk);
        for (i, entry) in names.into_iter().enumerate() {
            // The last name takes the base chunk itself.
            let mut live = if i + 1 == count {
                base.take().unwrap_or_default()
            } else {
                base.clone().unwrap_or_default()
            };
            match entry {
                Value::Map(m) => {
                    if let Some((low_name, updates)) = m.into_iter().next() {
                        live.insert("name".into(), low_name);
                        for upd in py_iter(&updates) {
                            if let Value::Map(u) = upd {
                                live.extend(u);
                            }
                        }
                    }
                }
                other => {
                    live.insert("name".into(), other);
                }
            }
            live.insert("name_order".into(), Value::Int(i as i64 + 1));
            live.insert("fun".into(), fun.clone());
            chunks.push(live);
        }
    }
}

/// A Python number as Salt's ordering code sees it (`bool` counts as int).
#[derive(Debug, Clone, Copy)]
pub enum Num {
    /// An integer order.
    Int(i64),
    /// A float order (`names` fractions).
    Float(f64),
}

impl Num {
    /// The value as a number, if Python's `isinstance(v, (int, float))`.
    pub fn of(v: &Value) -> Option<Num> {
        match v {
            Value::Int(i) => Some(Num::Int(*i)),
            Value::Bool(b) => Some(Num::Int(i64::from(*b))),
            Value::Float(f) => Some(Num::Float(*f)),
            _ => None,
        }
    }
    /// Python's `isinstance(v, int)` (cap only counts these).
    pub fn int_of(v: &Value) -> Option<i64> {
        match v {
            Value::Int(i) => Some(*i),
            Value::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }
    /// As a value (`int` or `float`).
    pub fn to_value(self) -> Value {
        match self {
            Num::Int(i) => Value::Int(i),
            Num::Float(f) => Value::Float(f),
        }
    }
    /// As a float.
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
    /// The sum, as Python adds int and float.
    pub fn plus(self, other: Num) -> Num {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => a
                .checked_add(b)
                .map_or(Num::Float(a as f64 + b as f64), Num::Int),
            (a, b) => Num::Float(a.as_f64() + b.as_f64()),
        }
    }
    /// Whether it is below zero.
    pub fn is_negative(self) -> bool {
        self.as_f64() < 0.0
    }
}

impl PartialEq for Num {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Num {}
impl PartialOrd for Num {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Num {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => a.cmp(b),
            (a, b) => a.as_f64().total_cmp(&b.as_f64()),
        }
    }
}

/// Salt's `cap`: starts at 1 and, walking chunks in compile order, becomes
/// `order + 100` whenever an int `order` reaches `cap - 1` (and is positive).
/// It depends on iteration order, not only on the maximum.
pub fn compute_cap<'a>(chunks: impl IntoIterator<Item = &'a Map>) -> i64 {
    let mut cap: i64 = 1;
    for chunk in chunks {
        if let Some(o) = chunk.get("order").and_then(Num::int_of) {
            if o > cap - 1 && o > 0 {
                cap = o.saturating_add(100);
            }
        }
    }
    cap
}

/// The number a non-numeric `order` stands for: `last` → cap + 1000000,
/// `first` → 0, anything else (including a missing value) → cap.
pub fn symbolic_order(v: Option<&Value>, cap: i64) -> Num {
    match v.and_then(Value::as_str) {
        Some("last") => Num::Int(cap.saturating_add(1_000_000)),
        Some("first") => Num::Int(0),
        _ => Num::Int(cap),
    }
}

/// Normalise a chunk's `order` in place, as 3006/3007's `order_chunks` and
/// 3008's sort key do: symbolic/missing → number, `name_order` k → + k/10000
/// (key removed), negative → + cap + 1000000. Returns the new order.
pub fn normalise_order(chunk: &mut Map, cap: i64) -> Num {
    let mut order = match chunk.get("order").and_then(Num::of) {
        Some(n) => n,
        None => {
            let n = symbolic_order(chunk.get("order"), cap);
            chunk.insert("order".into(), n.to_value());
            n
        }
    };
    if let Some(name_order) = chunk.shift_remove("name_order") {
        if let Some(k) = Num::of(&name_order).filter(|k| k.as_f64() != 0.0) {
            order = order.plus(Num::Float(k.as_f64() / 10000.0));
            chunk.insert("order".into(), order.to_value());
        }
    }
    if order.is_negative() {
        order = order.plus(Num::Int(cap.saturating_add(1_000_000)));
        chunk.insert("order".into(), order.to_value());
    }
    order
}

/// `"{state}{name}{fun}"`: Salt's tie-breaking label.
pub fn chunk_label(chunk: &Map) -> String {
    let mut label = String::with_capacity(48);
    for key in ["state", "name", "fun"] {
        crate::value::push_py_str(&mut label, chunk.get(key));
    }
    label
}

/// 3006/3007 ordering: normalise every order, then a stable sort by
/// `(order, state + name + fun)`.
pub fn sort_chunks(mut chunks: Vec<Map>) -> Vec<Map> {
    let cap = compute_cap(&chunks);
    let mut keyed: Vec<(Num, String, Map)> = chunks
        .drain(..)
        .map(|mut c| {
            let o = if c.contains_key("order") {
                normalise_order(&mut c, cap)
            } else {
                c.insert("order".into(), Value::Int(cap));
                Num::Int(cap)
            };
            (o, chunk_label(&c), c)
        })
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    keyed.into_iter().map(|(_, _, c)| c).collect()
}

/// What Salt's `format_call` accepts in every state function besides its
/// own arguments (`STATE_INTERNAL_KEYWORDS` of Salt 3008.5): requisites,
/// their `_in` forms and the runtime keywords.
pub const INTERNAL_KEYWORDS: &[&str] = &[
    "check_cmd",
    "cmd_opts_exclude",
    "creates",
    "failhard",
    "fire_event",
    "fun",
    "listen",
    "listen_in",
    "no_log",
    "onchanges",
    "onchanges_any",
    "onchanges_in",
    "onfail",
    "onfail_all",
    "onfail_any",
    "onfail_in",
    "onfail_stop",
    "onlyif",
    "order",
    "parallel",
    "prereq",
    "prereq_in",
    "prerequired",
    "reload_grains",
    "reload_modules",
    "reload_pillar",
    "require",
    "require_any",
    "require_in",
    "retry",
    "runas",
    "runas_password",
    "saltenv",
    "state",
    "umask",
    "unless",
    "use",
    "use_in",
    "watch",
    "watch_any",
    "watch_in",
];

/// The arguments of a chunk: its keys minus `state`, `fun`, `__*__` keys
/// and the keywords every function takes.
pub fn chunk_args(chunk: &Map) -> Map {
    let mut out = Map::new();
    for (k, v) in chunk.iter() {
        let Some(name) = k.as_str() else { continue };
        if name.starts_with("__") || INTERNAL_KEYWORDS.contains(&name) {
            continue;
        }
        out.insert(k.clone(), v.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(j: serde_json::Value) -> Map {
        match Value::from_json(&j) {
            Value::Map(m) => m,
            _ => panic!(),
        }
    }

    #[test]
    fn chunks_keep_salt_key_order_and_expand_names() {
        let high = map(json!({
            "__exclude__": [],
            "subid": {"test": [{"names": ["n1", {"n2": [{"foo": "bar"}, {"order": 5}]}, "n1", 3]}, "nop", {"order": 10000}],
                      "__sls__": "a.b.sub", "__env__": "base", "__sls_included_from__": ["a.b"]},
            "intname": {"test": [{"name": 123}, "nop", {"state": "x"}], "__sls__": "a", "__env__": "base"}
        }));
        let chunks: Vec<serde_json::Value> = compile_high_data(&high)
            .into_iter()
            .map(|c| Value::Map(c).to_json())
            .collect();
        assert_eq!(chunks.len(), 4);
        let keys: Vec<&String> = chunks[1].as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "state",
                "name",
                "__sls__",
                "__env__",
                "__sls_included_from__",
                "__id__",
                "order",
                "foo",
                "name_order",
                "fun"
            ]
        );
        assert_eq!(chunks[1]["order"], json!(5));
        assert_eq!(chunks[2]["name"], json!(3));
        assert_eq!(chunks[2]["name_order"], json!(3));
        assert_eq!(chunks[3]["name"], json!("intname"));
        assert!(chunks[3].get("state").is_some_and(|s| s == "test"));
    }

    #[test]
    fn cap_depends_on_iteration_order() {
        let chunks: Vec<Map> = [10005, 10006, 10000]
            .iter()
            .map(|o| map(json!({"order": o})))
            .collect();
        assert_eq!(compute_cap(&chunks), 10105);
        let chunks: Vec<Map> = [10000, 10005, 10006, 50, 10200]
            .iter()
            .map(|o| map(json!({"order": o})))
            .collect();
        assert_eq!(compute_cap(&chunks), 10300);
        let chunks: Vec<Map> = [10000, 10100, 10200]
            .iter()
            .map(|o| map(json!({"order": o})))
            .collect();
        assert_eq!(compute_cap(&chunks), 10300);
    }

    #[test]
    fn order_normalisation() {
        let cap = 10100;
        let mut c = map(json!({"order": "last"}));
        assert_eq!(normalise_order(&mut c, cap), Num::Int(1010100));
        let mut c = map(json!({"order": -1}));
        assert_eq!(normalise_order(&mut c, cap), Num::Int(1010099));
        let mut c = map(json!({"order": "first", "name_order": 2}));
        assert_eq!(normalise_order(&mut c, cap), Num::Float(0.0002));
        assert!(!c.contains_key("name_order"));
        let mut c = map(json!({"order": 10000, "name_order": 1}));
        normalise_order(&mut c, cap);
        assert_eq!(
            Value::Map(c).to_json_pretty(),
            "{\n    \"order\": 10000.0001\n}"
        );
        let mut c = map(json!({"order": "soon"}));
        assert_eq!(normalise_order(&mut c, cap), Num::Int(cap));
    }

    #[test]
    fn old_sort_is_by_order_then_label() {
        let chunks = vec![
            map(json!({"state": "test", "name": "aaa", "fun": "nop"})),
            map(json!({"state": "file", "name": "/tmp/a", "fun": "managed"})),
            map(json!({"state": "test", "name": "z", "fun": "nop", "order": 1})),
        ];
        let names: Vec<String> = sort_chunks(chunks)
            .iter()
            .map(|c| c.get("name").unwrap().py_str())
            .collect();
        assert_eq!(names, ["z", "/tmp/a", "aaa"]);
    }
}
