//! Compiling an edit of one SLS file into the last plan, without compiling
//! the other files again (what `lowstate lsp` does between keystrokes).
//!
//! The edited file's own states are compiled alone, before and after the
//! edit, and the new chunks go in place of the old ones only where that is
//! certain to give what a whole compile gives:
//! - the edit changed only what ordering does not read (a state's own
//!   arguments, changed, added or taken out: see [`order_reads`]), a
//!   state's function, and its ID and `name` where no requisite may name
//!   it by the old or the new one and no other state has the new ID, so
//!   that the requisite graph keeps its edges and the sort its ranks
//!   ([`replace_chunks`]);
//! - the file alone compiles to chunks that equal the plan's, but for what
//!   ordering wrote into them (so compiling it alone is compiling it in
//!   the tree);
//! - nothing else in the tree reaches into the file's states (`extend`,
//!   `exclude`, `use`), its reverse requisites name its own states only,
//!   its includes stay the same, and no render changed the minion's data
//!   in place.
//!
//! Anything else (a state added or removed, a requisite or `order`
//! changed, an include) is left to a whole compile: [`recompile_file`]
//! then says no and changes nothing. Values are compared exactly (`1`,
//! `1.0` and `true` differ, and maps in another order), as a printed
//! lowstate tells them apart.

use crate::salt::high::build::Highstate;
use crate::salt::high::prepare::{file_states, replace_source, FileStates, SlsRender};
use crate::salt::high::SourceMap;
use crate::salt::low::LowOptions;
use crate::salt::order::{
    order_reads, ordering_reads, replace_chunks, same_entries, same_value, RETAGGED,
};
use crate::salt::pipeline::{prepare_high, LocatedLowstate, Session};
use crate::salt::render::jinja::reads::strict_eq;
use crate::salt::requisite::REQUISITE_IN_KEYWORDS;
use crate::value::{Map, Value};
use std::collections::HashSet;
use std::sync::Arc;

/// What a whole compile's high data says about states that reach into
/// other files' states.
#[derive(Debug, Clone, Default)]
pub struct CrossRefs {
    /// The IDs some `extend` names.
    extended: HashSet<String>,
    /// An `exclude`, `use` or `use_in` somewhere, or renders made in turn
    /// (a render changed the minion's data): no edit is local.
    closed: bool,
}

impl CrossRefs {
    /// Read from a whole compile's high data, before the high → low steps.
    pub fn of(hs: &Highstate) -> CrossRefs {
        let high = &hs.high;
        let mut extended = HashSet::new();
        if let Some(Value::List(exts)) = high.get("__extend__") {
            for ext in exts.iter().filter_map(Value::as_map) {
                extended.extend(ext.keys().map(Value::py_str));
            }
        }
        let uses = |body: &Value| {
            body.as_map().is_some_and(|b| {
                b.values().filter_map(Value::as_list).any(|args| {
                    args.iter()
                        .filter_map(Value::as_map)
                        .flat_map(Map::keys)
                        .any(|k| matches!(k.as_str(), Some("use" | "use_in")))
                })
            })
        };
        let closed = hs.in_turn || high.contains_key("__exclude__") || high.values().any(uses);
        CrossRefs { extended, closed }
    }
}

/// An edit of one SLS file, waiting to be compiled.
#[derive(Debug, Clone)]
pub struct Edit {
    /// The saltenv the file was rendered in.
    pub env: String,
    /// Its SLS name.
    pub sls: String,
    /// Its render before the edit.
    pub before: Arc<SlsRender>,
}

/// Compile `edit`'s file again into `plan` (a whole compile's, with
/// `cross` read from its high data, or one this function updated since):
/// its chunks, their order, the file's spans. Returns the positions of
/// the chunks that changed; `None`, with nothing changed, when only a whole
/// compile gives the plan exactly (see the module doc).
pub fn recompile_file(
    session: &Session,
    plan: &mut LocatedLowstate,
    edit: &Edit,
    cross: &CrossRefs,
) -> Option<Vec<usize>> {
    if cross.closed {
        return None;
    }
    let after = session.sls_render(&edit.env, &edit.sls);
    let (Some(old), Some(new)) = (file_states(&edit.before), file_states(&after)) else {
        return None;
    };
    let reaches_out = |f: &FileStates| {
        f.state
            .keys()
            .any(|id| cross.extended.contains(&id.py_str()))
    };
    let same_includes = old.include.len() == new.include.len()
        && old
            .include
            .iter()
            .zip(new.include)
            .all(|(a, b)| strict_eq(a, b));
    if !same_includes || reaches_out(&old) || reaches_out(&new) {
        return None;
    }
    let opts = LowOptions::from_config(&session.config, session.version);
    let (Some(before), Some(after_chunks)) = (own_chunks(&old, &opts), own_chunks(&new, &opts))
    else {
        return None;
    };
    let at = file_chunks(&plan.lowstate.chunks, &edit.env, &edit.sls);
    if at.len() != before.len() || before.len() != after_chunks.len() {
        return None;
    }
    let mut changed = Vec::new();
    for ((&i, b), a) in at.iter().zip(&before).zip(&after_chunks) {
        if let Some(c) = transplant(&plan.lowstate.chunks[i], b, a)? {
            changed.push((i, c));
        }
    }
    let positions = changed.iter().map(|(i, _)| *i).collect();
    let what = format!("{}:{}", edit.env, edit.sls);
    if !replace_source(&after, &what, &mut plan.sources) {
        return None;
    }
    if !replace_chunks(&mut plan.lowstate, changed) {
        replace_source(&edit.before, &what, &mut plan.sources);
        return None;
    }
    Some(positions)
}

/// A file's own states compiled alone: prepared (`extend`, `verify`,
/// `requisite_in`) and turned into chunks, in the order the whole compile
/// makes them. `None` when that is not the whole compile's work on them:
/// a problem found, or a reverse requisite or `use` that names a state
/// outside the file.
fn own_chunks(f: &FileStates, opts: &LowOptions) -> Option<Vec<Map>> {
    if !reverse_requisites_stay_inside(f.state) {
        return None;
    }
    let high = prepare_high(f.state.clone(), opts, &SourceMap::default()).ok()?;
    Some(crate::salt::low::compile_high_data_owned(high))
}

/// Whether every reverse requisite (`require_in`, `watch_in`, ...) of
/// `high` names, as `{module: ID}`, a state of `high` itself, and no state
/// has `use`, `use_in` or `prereq_in`.
fn reverse_requisites_stay_inside(high: &Map) -> bool {
    let declares = |id: &str, module: &str| {
        high.get(id)
            .and_then(Value::as_map)
            .is_some_and(|b| b.contains_key(module))
    };
    let args = high
        .values()
        .filter_map(Value::as_map)
        .flat_map(Map::iter)
        .filter(|(k, _)| k.as_str().is_some_and(|k| !k.starts_with("__")))
        .filter_map(|(_, run)| run.as_list())
        .flat_map(|run| run.iter().filter_map(Value::as_map));
    for arg in args {
        for (key, items) in arg.iter() {
            let Some(key) = key.as_str().filter(|k| REQUISITE_IN_KEYWORDS.contains(k)) else {
                continue;
            };
            if matches!(key, "use" | "use_in" | "prereq_in") {
                return false;
            }
            let Some(items) = items.as_list() else {
                return false;
            };
            for item in items.iter() {
                let target = item.as_map().filter(|m| m.len() == 1).and_then(|m| {
                    let (module, id) = m.iter().next()?;
                    Some((module.as_str()?, id.as_str()?))
                });
                match target {
                    Some((module, id)) if module != "sls" && declares(id, module) => {}
                    _ => return false,
                }
            }
        }
    }
    true
}

/// The positions of the chunks of `env:sls`'s own states, in order.
fn file_chunks(chunks: &[Map], env: &str, sls: &str) -> Vec<usize> {
    let is = |c: &Map, key: &str, want: &str| c.get(key).and_then(Value::as_str) == Some(want);
    chunks
        .iter()
        .enumerate()
        .filter(|(_, c)| is(c, "__sls__", sls) && is(c, "__env__", env))
        .map(|(i, _)| i)
        .collect()
}

/// The plan's chunk `old` with the edit's changes: `before` and `after`
/// are the file's chunk compiled alone before and after the edit. `None`
/// when it cannot be done exactly: `before` is not `old` as it was before
/// ordering (the same state, the same arguments ordering does not read),
/// or the edit changed what ordering reads besides the ID, the name and
/// the function.
/// `Some(None)`: nothing changed.
///
/// The new chunk is `after`'s keys in order, those ordering reads with
/// the values ordering gave them (and without those it took out: a
/// `watch` moved into `require`), then the keys ordering added: what
/// ordering `after` from scratch makes of it, since ordering reads the same
/// in `before` and `after`.
fn transplant(old: &Map, before: &Map, after: &Map) -> Option<Option<Map>> {
    let same = |key: &str| same_value(old.get(key), before.get(key));
    if !["__id__", "state", "name", "fun"].into_iter().all(same)
        || !same_entries(ordering_reads(before), ordering_reads(after))
        || !same_entries(own_args(old), own_args(before))
    {
        return None;
    }
    if same_entries(before.iter(), after.iter()) {
        return Some(None);
    }
    let mut new = Map::with_capacity(old.len() + after.len());
    for (k, v) in after.iter() {
        let key = k.as_str()?;
        if RETAGGED.contains(&key) || !order_reads(key) {
            new.insert(k.clone(), v.clone());
        } else if let Some(ordered) = old.get(k) {
            new.insert(k.clone(), ordered.clone());
        }
    }
    for (k, v) in old.iter() {
        if !before.contains_key(k) {
            new.insert(k.clone(), v.clone());
        }
    }
    Some(Some(new))
}

/// A chunk's keys and values that ordering does not read, in order.
fn own_args(chunk: &Map) -> impl Iterator<Item = (&Value, &Value)> {
    chunk
        .iter()
        .filter(|(k, _)| k.as_str().is_some_and(|k| !order_reads(k)))
}
