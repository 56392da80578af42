//! The Heat producer of change reports: an update preview
//! ([`super::update`]) as a [`crate::changes::Report`] with one stack
//! target, so that `lowstate hot NEW --diff-from OLD --format markdown`
//! gives the same pull-request comment as `lowstate diff` does for Salt.
//! Replaced resources come first (with Heat's reason), then resources
//! updated in place (a stack resource only when its own definition
//! changes: its children are listed themselves), added and deleted, each with the old and new values of
//! its definition; hidden parameters' values are masked.

use super::update::Preview;
use crate::changes::{
    diff_values, ChangeSet, Failure, Item, ItemChange, ItemChangeKind, Noun, Report, Side, Target,
};
use crate::redact::Redactor;
use crate::value::{List, Map, Value};

/// The parts of a resource's definition a reviewer compares.
const FIELDS: [&str; 5] = [
    "type",
    "properties",
    "metadata",
    "update_policy",
    "deletion_policy",
];

/// The change report of an update preview: `old` and `new` name the two
/// templates as the user gave them. Secrets (hidden parameters of either
/// side) are masked.
pub fn report(p: &Preview, old: &str, new: &str) -> Report {
    let doc = &p.preview.document;
    let id = p
        .new
        .document
        .get("pseudo_parameters")
        .and_then(|m| m.get("OS::stack_name"))
        .map(Value::py_str)
        .unwrap_or_else(|| "stack".into());
    let mut changes = ChangeSet::default();
    if doc.get("ok") != Some(&Value::Bool(true)) {
        failures(doc, &mut changes);
    } else {
        let resources = |c: &super::Compiled| -> List {
            c.document
                .get("resources")
                .and_then(Value::as_list)
                .cloned()
                .unwrap_or_default()
        };
        let (old_rs, new_rs) = (resources(&p.old), resources(&p.new));
        for key in ["replaced", "updated", "added", "deleted"] {
            for e in doc.get(key).and_then(Value::as_list).into_iter().flatten() {
                let path = e.get("path").map(Value::py_str).unwrap_or_default();
                let before = find(&old_rs, &path).map(definition);
                let after = find(&new_rs, &path).map(definition);
                let values = match (&before, &after) {
                    (Some(b), Some(a)) => diff_values(b, a),
                    _ => Vec::new(),
                };
                // A stack resource updated only for its children: they
                // are listed themselves.
                let kind = e.get("reason").and_then(|r| r.get("kind"));
                if key == "updated"
                    && values.is_empty()
                    && kind.and_then(Value::as_str) == Some("nested_stack")
                {
                    continue;
                }
                let empty = || Value::Map(Map::new());
                let change = match key {
                    "replaced" => ItemChangeKind::Replaced {
                        reason: reason_text(e),
                        changes: values,
                    },
                    "updated" => ItemChangeKind::Changed(values),
                    "added" => ItemChangeKind::Added(after.unwrap_or_else(empty)),
                    _ => ItemChangeKind::Removed(before.unwrap_or_else(empty)),
                };
                let section = match path.rsplit_once('.') {
                    Some((parent, _)) => parent.to_string(),
                    None => id.clone(),
                };
                changes.items.push(ItemChange {
                    item: Item {
                        section,
                        id: path,
                        kind: e.get("type").map(Value::py_str).unwrap_or_default(),
                        name: String::new(),
                    },
                    change,
                });
            }
        }
    }
    let mut secrets = Redactor::new(p.old.secrets.iter().cloned());
    secrets.extend(p.new.secrets.iter().cloned());
    changes.redact(&secrets);
    Report {
        noun: Noun::STACK,
        old: old.to_string(),
        new: new.to_string(),
        targets: vec![Target { id, changes }],
    }
}

/// The preview's errors as failures of the side they belong to (an
/// update Heat refuses, such as a changed `immutable` parameter, is the
/// new side's).
fn failures(doc: &Value, changes: &mut ChangeSet) {
    for side in [Side::Old, Side::New] {
        let messages: Vec<String> = doc
            .get("errors")
            .and_then(Value::as_list)
            .into_iter()
            .flatten()
            .filter(|e| {
                let s = e.get("side").and_then(Value::as_str).unwrap_or("new");
                s == side.name()
            })
            .map(|e| e.get("message").map(Value::py_str).unwrap_or_default())
            .collect();
        if !messages.is_empty() {
            changes.failures.push(Failure { side, messages });
        }
    }
}

/// The resource at `path` (`group.2.server`) among `resources` and their
/// nested stacks.
fn find<'a>(resources: &'a List, path: &str) -> Option<&'a Value> {
    for r in resources {
        let Some(name) = r.get("name").and_then(Value::as_str) else {
            continue;
        };
        if path == name {
            return Some(r);
        }
        if let Some(rest) = path
            .strip_prefix(name)
            .and_then(|rest| rest.strip_prefix('.'))
        {
            let nested = r
                .get("nested")
                .and_then(|n| n.get("resources"))
                .and_then(Value::as_list);
            if let Some(found) = nested.and_then(|n| find(n, rest)) {
                return Some(found);
            }
        }
    }
    None
}

/// The compared parts of a resource's definition.
fn definition(r: &Value) -> Value {
    let mut m = Map::new();
    for k in FIELDS {
        if let Some(v) = r.get(k) {
            m.insert(Value::str(k), v.clone());
        }
    }
    Value::Map(m)
}

/// Why a resource of an update preview is replaced or updated, in a few
/// words (`flavor cannot be updated in place`, `type A -> B`); empty for
/// an added, deleted or unchanged one.
pub fn reason_text(e: &Value) -> String {
    let Some(r) = e.get("reason") else {
        return String::new();
    };
    let kind = r.get("kind").map(Value::py_str).unwrap_or_default();
    let list = |k: &str| -> Vec<String> {
        r.get(k)
            .and_then(Value::as_list)
            .map(|l| l.iter().map(Value::py_str).collect())
            .unwrap_or_default()
    };
    let props = list("properties");
    match kind.as_str() {
        "type_changed" => format!(
            "type {} -> {}",
            r.get("old_type").map(Value::py_str).unwrap_or_default(),
            r.get("new_type").map(Value::py_str).unwrap_or_default()
        ),
        "property_not_update_allowed" => {
            format!("{} cannot be updated in place", props.join(", "))
        }
        "plugin_prop_diff" => format!(
            "{} changed (the resource's update policy replaces it)",
            props.join(", ")
        ),
        "nested_stack" => "nested stack: its resources are compared below".into(),
        "in_place" if props.is_empty() => format!("{} changed", list("sections").join(", ")),
        "in_place" => format!("{} changed", props.join(", ")),
        other => other.replace('_', " "),
    }
}
