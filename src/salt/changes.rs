//! What a change of the tree does to one minion, as a
//! [`crate::changes::ChangeSet`]: the old and new lowstate compared state
//! by state (a state is its module, ID, `name` and function), the files
//! `file.managed` / `file.recurse` would write on each side (rendered by
//! [`crate::salt::files`]) compared by path, and the states that now run
//! before states they used to follow. `no_log` states show that a value
//! changed, never the value; secret pillar values are masked later by the
//! run's redactor ([`crate::changes::ChangeSet::redact`]).

use crate::changes::{
    diff_fields, file_change, masked, masked_change, order_changes, ChangeSet, Content, Failure,
    Item, ItemChange, ItemChangeKind, Side,
};
use crate::salt::files::{render_files, RenderedFile};
use crate::salt::pipeline::Session;
use crate::value::{Map, Value};
use crate::Diagnostics;
use indexmap::IndexMap;

/// One side of a minion's comparison: its lowstate and the files it
/// writes.
pub struct Compiled {
    /// The ordered lowstate.
    pub chunks: Vec<Map>,
    /// The managed files, in lowstate order.
    pub files: Vec<RenderedFile>,
}

impl Compiled {
    /// Compile `session`'s lowstate and render its managed files.
    pub fn of(session: &Session) -> Result<Compiled, Diagnostics> {
        let plan = session.located_lowstate()?;
        let chunks = plan.lowstate.into_list();
        let files = render_files(session, &chunks, &plan.sources);
        Ok(Compiled { chunks, files })
    }
}

/// A state's identity across two plans: state module, ID, name, function.
type Key = (String, String, String, String);

fn key(c: &Map) -> Key {
    let s = |k: &str| c.get(k).map(Value::py_str).unwrap_or_default();
    (s("state"), s("__id__"), s("name"), s("fun"))
}

/// Keys that say which state a chunk is, or that move whenever another
/// state is added (`order`): not compared as arguments.
const IDENTITY: [&str; 5] = ["state", "__id__", "name", "fun", "order"];

fn item(c: &Map) -> Item {
    let s = |k: &str| c.get(k).map(Value::py_str).unwrap_or_default();
    Item {
        section: s("__sls__"),
        id: s("__id__"),
        kind: format!("{}.{}", s("state"), s("fun")),
        name: s("name"),
    }
}

fn no_log(c: &Map) -> bool {
    c.get("no_log").is_some_and(Value::truthy)
}

/// A chunk's arguments as (key, value) pairs, identity keys left out
/// (and, with `bookkeeping`, `__sls__` / `__env__`, which the item shows).
fn fields(c: &Map, bookkeeping: bool) -> Vec<(String, Value)> {
    c.iter()
        .map(|(k, v)| (k.py_str(), v.clone()))
        .filter(|(k, _)| {
            !IDENTITY.contains(&k.as_str())
                && (!bookkeeping || !matches!(k.as_str(), "__sls__" | "__env__"))
        })
        .collect()
}

fn args_value(c: &Map) -> Value {
    let mut m = Map::new();
    for (k, v) in fields(c, true) {
        m.insert(Value::str(k), v);
    }
    let v = Value::Map(m);
    if no_log(c) {
        masked(&v)
    } else {
        v
    }
}

/// The change set of one minion between the `old` and `new` compiles.
pub fn minion_changes(
    old: &Result<Compiled, Diagnostics>,
    new: &Result<Compiled, Diagnostics>,
) -> ChangeSet {
    let (old, new) = match (old, new) {
        (Ok(o), Ok(n)) => (o, n),
        _ => {
            let mut failures = Vec::new();
            for (side, r) in [(Side::Old, old), (Side::New, new)] {
                if let Err(d) = r {
                    failures.push(Failure {
                        side,
                        messages: d.messages(),
                    });
                }
            }
            return ChangeSet {
                failures,
                ..ChangeSet::default()
            };
        }
    };
    let mut set = ChangeSet::default();
    let old_by_key: IndexMap<Key, &Map> = old.chunks.iter().map(|c| (key(c), c)).collect();
    let new_by_key: IndexMap<Key, &Map> = new.chunks.iter().map(|c| (key(c), c)).collect();
    for (k, c) in &new_by_key {
        match old_by_key.get(k) {
            None => set.items.push(ItemChange {
                item: item(c),
                change: ItemChangeKind::Added(args_value(c)),
            }),
            Some(o) => {
                let mut values = diff_fields(&fields(o, false), &fields(c, false));
                if values.is_empty() {
                    continue;
                }
                if no_log(c) || no_log(o) {
                    values = values.into_iter().map(masked_change).collect();
                }
                set.items.push(ItemChange {
                    item: item(c),
                    change: ItemChangeKind::Changed(values),
                });
            }
        }
    }
    for (k, c) in &old_by_key {
        if !new_by_key.contains_key(k) {
            set.items.push(ItemChange {
                item: item(c),
                change: ItemChangeKind::Removed(args_value(c)),
            });
        }
    }
    let old_keys: Vec<&Key> = old_by_key.keys().collect();
    let new_keys: Vec<&Key> = new_by_key.keys().collect();
    set.order = order_changes(&old_keys, &new_keys, |k| {
        new_by_key
            .get(*k)
            .or_else(|| old_by_key.get(*k))
            .map(|c| item(c))
            .unwrap_or_else(|| Item {
                section: String::new(),
                id: k.1.clone(),
                kind: format!("{}.{}", k.0, k.3),
                name: k.2.clone(),
            })
    });
    set.files = file_changes(old, new);
    set
}

/// The managed files by path (a later state managing the same path wins,
/// as on the minion), with whether their state is `no_log`.
fn files_by_path(c: &Compiled) -> IndexMap<String, (&RenderedFile, bool)> {
    let secret: std::collections::HashSet<String> = c
        .chunks
        .iter()
        .filter(|c| no_log(c))
        .map(|c| c.get("__id__").map(Value::py_str).unwrap_or_default())
        .collect();
    let mut out = IndexMap::new();
    for f in &c.files {
        let hidden = secret.contains(&f.state_id.py_str());
        out.insert(f.name.py_str(), (f, hidden));
    }
    out
}

fn file_item(f: &RenderedFile) -> Item {
    let (kind, name) = match &f.recurse {
        Some(r) => ("file.recurse", r.py_str()),
        None => ("file.managed", f.name.py_str()),
    };
    Item {
        section: f.sls.py_str(),
        id: f.state_id.py_str(),
        kind: kind.into(),
        name,
    }
}

fn content<'a>(f: Option<&(&'a RenderedFile, bool)>) -> Content<'a> {
    match f {
        None => Content::Absent,
        Some((f, _)) => match &f.content {
            Ok(b) => Content::Bytes(b),
            Err(e) => Content::Error(&e.message),
        },
    }
}

fn file_changes(old: &Compiled, new: &Compiled) -> Vec<crate::changes::FileChange> {
    let (o, n) = (files_by_path(old), files_by_path(new));
    let mut out = Vec::new();
    let paths = n.keys().chain(o.keys().filter(|p| !n.contains_key(*p)));
    for path in paths {
        let (of, nf) = (o.get(path), n.get(path));
        let Some(which) = nf.or(of) else { continue };
        if let Some(mut c) = file_change(path, file_item(which.0), content(of), content(nf)) {
            if of.is_some_and(|f| f.1) || nf.is_some_and(|f| f.1) {
                // A `no_log` state's file: that it changed, not how.
                c.diff = None;
            }
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(id: &str, extra: &[(&str, Value)]) -> Map {
        let mut m = Map::new();
        for (k, v) in [
            ("state", "test"),
            ("__id__", id),
            ("name", id),
            ("fun", "nop"),
            ("__sls__", "s"),
        ] {
            m.insert(k.into(), Value::str(v));
        }
        for (k, v) in extra {
            m.insert((*k).into(), v.clone());
        }
        m
    }

    fn compiled(chunks: Vec<Map>) -> Result<Compiled, Diagnostics> {
        Ok(Compiled {
            chunks,
            files: Vec::new(),
        })
    }

    #[test]
    fn states_added_removed_changed_and_no_log_masked() {
        let old = compiled(vec![
            chunk("a", &[("port", Value::Int(80)), ("order", Value::Int(1))]),
            chunk("b", &[]),
            chunk(
                "pw",
                &[
                    ("no_log", Value::Bool(true)),
                    ("password", Value::str("hunter22")),
                ],
            ),
        ]);
        let new = compiled(vec![
            chunk("c", &[]),
            chunk("a", &[("port", Value::Int(8080)), ("order", Value::Int(2))]),
            chunk(
                "pw",
                &[
                    ("no_log", Value::Bool(true)),
                    ("password", Value::str("swordfish")),
                ],
            ),
        ]);
        let set = minion_changes(&old, &new);
        let kinds: Vec<(&str, &str)> = set
            .items
            .iter()
            .map(|i| (i.item.id.as_str(), i.change.name()))
            .collect();
        assert_eq!(
            kinds,
            vec![
                ("c", "added"),
                ("a", "changed"),
                ("pw", "changed"),
                ("b", "removed")
            ]
        );
        let text = crate::changes::json::change_set(&set).to_json().to_string();
        assert!(text.contains("8080") && !text.contains("hunter22") && !text.contains("swordfish"));
        assert!(set.order.is_empty(), "{:?}", set.order);
        assert!(!set.failed());
    }

    #[test]
    fn a_state_that_now_runs_first_is_an_order_change() {
        let old = compiled(vec![chunk("a", &[]), chunk("b", &[]), chunk("c", &[])]);
        let new = compiled(vec![chunk("c", &[]), chunk("a", &[]), chunk("b", &[])]);
        let set = minion_changes(&old, &new);
        assert_eq!(set.order.len(), 1);
        assert_eq!(set.order[0].item.id, "c");
        assert_eq!(
            set.order[0].now_before,
            vec!["a (test.nop)", "b (test.nop)"]
        );
    }
}
