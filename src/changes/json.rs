//! The JSON form of a change report (`--format json`): the summary, the
//! groups in rank order with their change sets (values structured, diffs
//! as unified text), and the unchanged targets. The layout is documented
//! in `docs/diff.md`; the other renderers show the same data.

use super::{
    ChangeSet, FileChange, FileState, Group, Item, ItemChangeKind, OrderChange, Report, TextDiff,
    ValueChange,
};
use crate::value::{Map, Value};

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(Value::str(k), v);
    }
    Value::Map(m)
}

fn strs<'a>(xs: impl IntoIterator<Item = &'a String>) -> Value {
    Value::List(xs.into_iter().map(|s| Value::str(s.as_str())).collect())
}

fn opt(v: &Option<Value>) -> Value {
    v.clone().unwrap_or(Value::Null)
}

/// The report as a value: `{old, new, noun, summary, groups, unchanged}`.
pub fn report(r: &Report) -> Value {
    let groups = r.groups();
    let s = r.summary(&groups);
    obj(vec![
        ("old", Value::str(r.old.as_str())),
        ("new", Value::str(r.new.as_str())),
        ("noun", Value::str(r.noun.one)),
        (
            "summary",
            obj(vec![
                ("targets", Value::Int(s.targets as i64)),
                ("changed", Value::Int(s.changed as i64)),
                ("failed", Value::Int(s.failed as i64)),
                ("groups", Value::Int(s.groups as i64)),
            ]),
        ),
        (
            "groups",
            Value::List(groups.iter().map(|g| group(r, g)).collect()),
        ),
        ("unchanged", strs(&r.unchanged())),
    ])
}

/// The report as pretty-printed JSON text, with a final newline.
pub fn render(r: &Report) -> String {
    let mut text = serde_json::to_string_pretty(&report(r).to_json()).unwrap_or_default();
    text.push('\n');
    text
}

/// One group: `label`, `targets`, `failed`, and its change set's keys.
pub fn group(r: &Report, g: &Group) -> Value {
    let mut m = Map::new();
    m.insert(Value::str("label"), Value::str(g.label(r.noun)));
    m.insert(Value::str("targets"), strs(&g.targets));
    m.insert(Value::str("failed"), Value::Bool(g.changes.failed()));
    if let Value::Map(c) = change_set(&g.changes) {
        for (k, v) in c {
            m.insert(k, v);
        }
    }
    Value::Map(m)
}

/// A change set: `failures`, `items`, `files`, `order`.
pub fn change_set(c: &ChangeSet) -> Value {
    obj(vec![
        (
            "failures",
            Value::List(
                c.failures
                    .iter()
                    .map(|f| {
                        obj(vec![
                            ("side", Value::str(f.side.name())),
                            ("messages", strs(&f.messages)),
                        ])
                    })
                    .collect(),
            ),
        ),
        (
            "items",
            Value::List(
                c.items
                    .iter()
                    .map(|i| {
                        let mut v = item(&i.item);
                        if let Value::Map(m) = &mut v {
                            m.insert(Value::str("change"), Value::str(i.change.name()));
                            match &i.change {
                                ItemChangeKind::Added(x) | ItemChangeKind::Removed(x) => {
                                    m.insert(Value::str("value"), x.clone());
                                }
                                ItemChangeKind::Changed(vs) => {
                                    m.insert(
                                        Value::str("values"),
                                        Value::List(vs.iter().map(value_change).collect()),
                                    );
                                }
                                ItemChangeKind::Replaced { reason, changes } => {
                                    m.insert(Value::str("reason"), Value::str(reason.as_str()));
                                    m.insert(
                                        Value::str("values"),
                                        Value::List(changes.iter().map(value_change).collect()),
                                    );
                                }
                            }
                        }
                        v
                    })
                    .collect(),
            ),
        ),
        ("files", Value::List(c.files.iter().map(file).collect())),
        ("order", Value::List(c.order.iter().map(order).collect())),
    ])
}

fn item(i: &Item) -> Value {
    obj(vec![
        ("section", Value::str(i.section.as_str())),
        ("id", Value::str(i.id.as_str())),
        ("kind", Value::str(i.kind.as_str())),
        ("name", Value::str(i.name.as_str())),
    ])
}

fn diff(d: &Option<TextDiff>) -> Value {
    match d {
        None => Value::Null,
        Some(d) => obj(vec![
            ("unified", Value::str(d.unified.as_str())),
            ("cut_lines", Value::Int(d.cut_lines as i64)),
        ]),
    }
}

fn value_change(v: &ValueChange) -> Value {
    obj(vec![
        ("path", strs(&v.path)),
        ("old", opt(&v.old)),
        ("new", opt(&v.new)),
        ("diff", diff(&v.diff)),
        ("masked", Value::Bool(v.masked)),
    ])
}

fn file_state(s: &FileState) -> Value {
    match s {
        FileState::Absent => Value::Null,
        FileState::Text { bytes, sha256 } => obj(vec![
            ("kind", Value::str("text")),
            ("bytes", Value::Int(*bytes as i64)),
            ("sha256", Value::str(sha256.as_str())),
        ]),
        FileState::Binary { bytes, sha256 } => obj(vec![
            ("kind", Value::str("binary")),
            ("bytes", Value::Int(*bytes as i64)),
            ("sha256", Value::str(sha256.as_str())),
        ]),
        FileState::Error(e) => obj(vec![
            ("kind", Value::str("error")),
            ("error", Value::str(e.as_str())),
        ]),
    }
}

fn file(f: &FileChange) -> Value {
    obj(vec![
        ("path", Value::str(f.path.as_str())),
        ("change", Value::str(f.kind())),
        ("item", item(&f.item)),
        ("old", file_state(&f.old)),
        ("new", file_state(&f.new)),
        ("diff", diff(&f.diff)),
    ])
}

fn order(o: &OrderChange) -> Value {
    obj(vec![
        ("item", item(&o.item)),
        ("now_before", strs(&o.now_before)),
        ("more", Value::Int(o.more as i64)),
    ])
}
