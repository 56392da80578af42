//! Change reports: what a change of a tree does to each of its targets
//! (the minions of a fleet, the stacks of a template), the report a
//! reviewer reads before a merge. Dialect-free: a front end fills a
//! [`ChangeSet`] per target (items added, removed and changed with their
//! old and new values, managed files' content diffs, order changes,
//! failures); this module diffs values and texts (with `similar`), masks
//! secrets, groups targets with identical change sets and ranks the
//! groups. The renderers are [`json`], [`text`], [`markdown`] and [`html`].

pub mod html;
pub mod json;
pub mod markdown;
pub mod text;

use crate::redact::{Redactor, REDACTED};
use crate::value::Value;

/// What the targets of a report are called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Noun {
    /// One target (`minion`).
    pub one: &'static str,
    /// Several (`minions`).
    pub many: &'static str,
    /// What its items are called, capitalized, for table headers
    /// (`State`).
    pub item: &'static str,
    /// Several items (`States`).
    pub items: &'static str,
    /// Where an item is written, for table headers (`SLS`).
    pub section: &'static str,
}

impl Noun {
    /// Salt's targets.
    pub const MINION: Noun = Noun {
        one: "minion",
        many: "minions",
        item: "State",
        items: "States",
        section: "SLS",
    };
    /// Heat's targets.
    pub const STACK: Noun = Noun {
        one: "stack",
        many: "stacks",
        item: "Resource",
        items: "Resources",
        section: "Stack",
    };

    /// `n minion(s)`.
    pub fn count(&self, n: usize) -> String {
        format!("{n} {}", if n == 1 { self.one } else { self.many })
    }
}

/// The whole report: every target's change set between two versions of a
/// tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// What the targets are.
    pub noun: Noun,
    /// The old side as the user named it (a directory or a revision).
    pub old: String,
    /// The new side as the user named it.
    pub new: String,
    /// Every target, in the order given (grouping sorts them).
    pub targets: Vec<Target>,
}

/// One target's changes.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// Its id (minion id, stack name).
    pub id: String,
    /// What changes on it.
    pub changes: ChangeSet,
}

/// What changes on one target. Two targets with equal change sets share a
/// group.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChangeSet {
    /// The sides that do not compile for this target (a new failure comes
    /// first in the ranking).
    pub failures: Vec<Failure>,
    /// Items (states, resources) added, removed or changed.
    pub items: Vec<ItemChange>,
    /// Managed files whose content changes, appears, goes or fails.
    pub files: Vec<FileChange>,
    /// Items that now run before items they used to follow.
    pub order: Vec<OrderChange>,
}

/// Which side of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The old tree.
    Old,
    /// The new tree.
    New,
}

impl Side {
    /// `old` / `new`.
    pub fn name(self) -> &'static str {
        match self {
            Side::Old => "old",
            Side::New => "new",
        }
    }
}

/// A side that does not compile for a target: its error messages.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// Which tree fails.
    pub side: Side,
    /// The messages (secrets masked once [`ChangeSet::redact`] ran).
    pub messages: Vec<String>,
}

/// An item of a plan as a reviewer recognises it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Item {
    /// Where it is written (an SLS, a template).
    pub section: String,
    /// Its id (state ID, resource name).
    pub id: String,
    /// What it is (`file.managed`, `OS::Nova::Server`).
    pub kind: String,
    /// Its name, when it differs from the id (Salt's `name`).
    pub name: String,
}

impl Item {
    /// `id (kind name)` in one line.
    pub fn label(&self) -> String {
        if self.name.is_empty() || self.name == self.id {
            format!("{} ({})", self.id, self.kind)
        } else {
            format!("{} ({} {})", self.id, self.kind, self.name)
        }
    }
}

/// One item's change.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemChange {
    /// The item (the new one's identity; the old one's when removed).
    pub item: Item,
    /// What happened to it.
    pub change: ItemChangeKind,
}

/// What happened to an item.
#[derive(Debug, Clone, PartialEq)]
pub enum ItemChangeKind {
    /// Only the new plan has it: its arguments.
    Added(Value),
    /// Only the old plan has it: its arguments.
    Removed(Value),
    /// Both have it and these values differ.
    Changed(Vec<ValueChange>),
    /// Both have it but the new one replaces the old one (deleted and
    /// made again, as Heat does when a property cannot be updated in
    /// place): why, and the values that differ.
    Replaced {
        /// Why it is replaced, in a few words.
        reason: String,
        /// The values that differ.
        changes: Vec<ValueChange>,
    },
}

impl ItemChangeKind {
    /// `added` / `removed` / `changed`.
    pub fn name(&self) -> &'static str {
        match self {
            ItemChangeKind::Added(_) => "added",
            ItemChangeKind::Removed(_) => "removed",
            ItemChangeKind::Changed(_) => "changed",
            ItemChangeKind::Replaced { .. } => "replaced",
        }
    }
}

/// One value that differs, at a path inside an item's arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueChange {
    /// Keys from the item down (`["mode"]`, `["context", "port"]`).
    pub path: Vec<String>,
    /// The old value (absent: the key is new).
    pub old: Option<Value>,
    /// The new value (absent: the key went).
    pub new: Option<Value>,
    /// For long or multi-line strings, and long lists (one element a
    /// line): a unified diff of old and new.
    pub diff: Option<TextDiff>,
    /// The value is secret: old and new are masked; it changed.
    pub masked: bool,
}

/// A unified diff of two texts, bounded.
#[derive(Debug, Clone, PartialEq)]
pub struct TextDiff {
    /// The hunks (`@@ … @@` headers, ` `/`-`/`+` lines), without file
    /// headers.
    pub unified: String,
    /// Diff lines left out to stay within [`MAX_DIFF_LINES`].
    pub cut_lines: usize,
}

/// The most lines a single text diff keeps.
pub const MAX_DIFF_LINES: usize = 400;

/// Strings longer than this (or with a newline) get a unified diff.
pub const LONG_STRING: usize = 80;

/// A managed file whose content differs between the sides.
#[derive(Debug, Clone, PartialEq)]
pub struct FileChange {
    /// Its path on the target.
    pub path: String,
    /// The item that manages it (new side's; old side's when removed).
    pub item: Item,
    /// What the old tree writes.
    pub old: FileState,
    /// What the new tree writes.
    pub new: FileState,
    /// For two texts: their unified diff.
    pub diff: Option<TextDiff>,
}

impl FileChange {
    /// `new file`, `removed`, `changed`, `error`, `fixed` (an error that
    /// the new tree mends).
    pub fn kind(&self) -> &'static str {
        match (&self.old, &self.new) {
            (_, FileState::Error(_)) => "error",
            (FileState::Absent, _) => "new file",
            (_, FileState::Absent) => "removed",
            (FileState::Error(_), _) => "fixed",
            _ => "changed",
        }
    }
}

/// A file's content on one side.
#[derive(Debug, Clone, PartialEq)]
pub enum FileState {
    /// Not managed on that side.
    Absent,
    /// UTF-8 text.
    Text {
        /// Its size.
        bytes: usize,
        /// Its SHA-256, hex.
        sha256: String,
    },
    /// Anything else: no diff text, only size and hash.
    Binary {
        /// Its size.
        bytes: usize,
        /// Its SHA-256, hex.
        sha256: String,
    },
    /// The tree cannot make it: why.
    Error(String),
}

impl FileState {
    /// One line: `text, N bytes`, `binary, N bytes, sha256 …`, `error: …`.
    pub fn describe(&self) -> String {
        match self {
            FileState::Absent => "absent".into(),
            FileState::Text { bytes, .. } => format!("text, {bytes} bytes"),
            FileState::Binary { bytes, sha256 } => {
                format!("binary, {bytes} bytes, sha256 {sha256}")
            }
            FileState::Error(e) => format!("error: {e}"),
        }
    }
}

/// An item that now runs before items it used to follow.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderChange {
    /// The item that moved.
    pub item: Item,
    /// Labels of the items it now runs before (it used to follow them),
    /// the first few.
    pub now_before: Vec<String>,
    /// How many more such items there are.
    pub more: usize,
}

/// The most items an [`OrderChange`] names.
pub const MAX_ORDER_NAMES: usize = 5;

impl ChangeSet {
    /// Whether nothing changes (and nothing fails).
    pub fn is_empty(&self) -> bool {
        self.failures.is_empty()
            && self.items.is_empty()
            && self.files.is_empty()
            && self.order.is_empty()
    }

    /// Whether a side fails to compile or a file cannot be made: the run
    /// exits 1.
    pub fn failed(&self) -> bool {
        !self.failures.is_empty()
            || self.files.iter().any(|f| {
                matches!(f.old, FileState::Error(_)) || matches!(f.new, FileState::Error(_))
            })
    }

    /// Whether the new tree fails (to compile, or to make a file): ranked
    /// first.
    pub fn new_fails(&self) -> bool {
        self.failures.iter().any(|f| f.side == Side::New)
            || self
                .files
                .iter()
                .any(|f| matches!(f.new, FileState::Error(_)))
    }

    /// Mask every secret text in messages, values, diffs and labels. A
    /// value or diff that held a secret stays visible as changed
    /// (`<redacted>` on its lines), never its text.
    pub fn redact(&mut self, r: &Redactor) {
        if r.is_empty() {
            return;
        }
        let item = |i: &mut Item| {
            i.id = r.text(&i.id);
            i.name = r.text(&i.name);
        };
        for f in &mut self.failures {
            for m in &mut f.messages {
                *m = r.text(m);
            }
        }
        for c in &mut self.items {
            item(&mut c.item);
            if let ItemChangeKind::Replaced { reason, .. } = &mut c.change {
                *reason = r.text(reason);
            }
            match &mut c.change {
                ItemChangeKind::Added(v) | ItemChangeKind::Removed(v) => *v = r.value(v),
                ItemChangeKind::Changed(vs) | ItemChangeKind::Replaced { changes: vs, .. } => {
                    for v in vs.iter_mut() {
                        let old = v.old.as_ref().map(|x| r.value(x));
                        let new = v.new.as_ref().map(|x| r.value(x));
                        if old != v.old || new != v.new {
                            v.masked = true;
                        }
                        v.old = old;
                        v.new = new;
                        if let Some(d) = &mut v.diff {
                            d.unified = r.text(&d.unified);
                        }
                    }
                }
            }
        }
        for f in &mut self.files {
            f.path = r.text(&f.path);
            item(&mut f.item);
            for s in [&mut f.old, &mut f.new] {
                if let FileState::Error(e) = s {
                    *e = r.text(e);
                }
            }
            if let Some(d) = &mut f.diff {
                d.unified = r.text(&d.unified);
            }
        }
        for o in &mut self.order {
            item(&mut o.item);
            for n in &mut o.now_before {
                *n = r.text(n);
            }
        }
    }
}

/// Targets that share one change set.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// Their ids, sorted.
    pub targets: Vec<String>,
    /// The change set they share.
    pub changes: ChangeSet,
}

impl Group {
    /// `web01`, `web01, web02 (2 minions)`, `web01 … web40 (40 minions)`.
    pub fn label(&self, noun: Noun) -> String {
        match self.targets.as_slice() {
            [] => String::new(),
            [one] => one.clone(),
            [a, b] => format!("{a}, {b} ({})", noun.count(2)),
            [first, .., last] => {
                format!("{first} … {last} ({})", noun.count(self.targets.len()))
            }
        }
    }
}

/// The counts of a report's summary line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Targets compared.
    pub targets: usize,
    /// Targets with changes (failures included).
    pub changed: usize,
    /// Targets where something fails.
    pub failed: usize,
    /// Groups of changed targets.
    pub groups: usize,
}

impl Report {
    /// The targets with changes grouped by identical change sets: groups
    /// where the new tree fails first, then by how many targets they
    /// touch (most first), then by their first target.
    pub fn groups(&self) -> Vec<Group> {
        let mut by_key: indexmap::IndexMap<String, Group> = indexmap::IndexMap::new();
        for t in &self.targets {
            if t.changes.is_empty() {
                continue;
            }
            let key = json::change_set(&t.changes).to_json().to_string();
            by_key
                .entry(key)
                .or_insert_with(|| Group {
                    targets: Vec::new(),
                    changes: t.changes.clone(),
                })
                .targets
                .push(t.id.clone());
        }
        let mut groups: Vec<Group> = by_key.into_values().collect();
        for g in &mut groups {
            g.targets.sort();
        }
        groups.sort_by(|a, b| {
            b.changes
                .new_fails()
                .cmp(&a.changes.new_fails())
                .then(b.changes.failed().cmp(&a.changes.failed()))
                .then(b.targets.len().cmp(&a.targets.len()))
                .then_with(|| a.targets.cmp(&b.targets))
        });
        groups
    }

    /// The ids of the targets without changes, sorted.
    pub fn unchanged(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .targets
            .iter()
            .filter(|t| t.changes.is_empty())
            .map(|t| t.id.clone())
            .collect();
        ids.sort();
        ids
    }

    /// The summary counts (`groups` from [`Report::groups`]).
    pub fn summary(&self, groups: &[Group]) -> Summary {
        Summary {
            targets: self.targets.len(),
            changed: self
                .targets
                .iter()
                .filter(|t| !t.changes.is_empty())
                .count(),
            failed: self.failed_count(),
            groups: groups.len(),
        }
    }

    /// How many targets fail somewhere.
    pub fn failed_count(&self) -> usize {
        self.targets.iter().filter(|t| t.changes.failed()).count()
    }

    /// Whether any target fails (the run exits 1).
    pub fn failed(&self) -> bool {
        self.failed_count() > 0
    }
}

/// The values that differ between `old` and `new`, by path: mappings are
/// compared key by key, anything else whole. Long or multi-line strings,
/// and long lists, carry a unified diff.
pub fn diff_values(old: &Value, new: &Value) -> Vec<ValueChange> {
    let mut out = Vec::new();
    walk(&mut Vec::new(), Some(old), Some(new), &mut out);
    out
}

/// Compare the arguments of two items given as (key, value) pairs (keys
/// of either side, in the new side's order, then the old side's extras).
pub fn diff_fields(old: &[(String, Value)], new: &[(String, Value)]) -> Vec<ValueChange> {
    let mut out = Vec::new();
    let find = |side: &[(String, Value)], k: &str| -> Option<Value> {
        side.iter().find(|(x, _)| x == k).map(|(_, v)| v.clone())
    };
    let mut keys: Vec<&String> = new.iter().map(|(k, _)| k).collect();
    for (k, _) in old {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    for k in keys {
        let (o, n) = (find(old, k), find(new, k));
        walk(&mut vec![k.clone()], o.as_ref(), n.as_ref(), &mut out);
    }
    out
}

/// `minions` → `Minions`: a noun at the head of a table column.
fn capitalized(word: &str) -> String {
    let mut s = word.to_string();
    if let Some(f) = s.get_mut(..1) {
        f.make_ascii_uppercase();
    }
    s
}

fn walk(
    path: &mut Vec<String>,
    old: Option<&Value>,
    new: Option<&Value>,
    out: &mut Vec<ValueChange>,
) {
    if old == new {
        return;
    }
    if let (Some(Value::Map(o)), Some(Value::Map(n))) = (old, new) {
        let mut keys: Vec<&Value> = n.keys().collect();
        for k in o.keys() {
            if !n.contains_key(k) {
                keys.push(k);
            }
        }
        for k in keys {
            path.push(k.py_str());
            walk(path, o.get(k), n.get(k), out);
            path.pop();
        }
        return;
    }
    let diff = match (old, new) {
        (Some(Value::Str(o)), Some(Value::Str(n))) if is_long(o) || is_long(n) => {
            Some(text_diff(o, n))
        }
        (Some(Value::List(o)), Some(Value::List(n))) => {
            let (o, n) = (element_lines(o), element_lines(n));
            (o.len() > LONG_STRING || n.len() > LONG_STRING).then(|| text_diff(&o, &n))
        }
        _ => None,
    };
    out.push(ValueChange {
        path: path.clone(),
        old: old.cloned(),
        new: new.cloned(),
        diff,
        masked: false,
    });
}

/// A list as lines, one element (compact JSON) per line: long lists are
/// diffed element by element.
fn element_lines(l: &[Value]) -> String {
    l.iter().map(|v| format!("{}\n", v.to_json())).collect()
}

fn is_long(s: &str) -> bool {
    s.len() > LONG_STRING || s.contains('\n')
}

/// A unified diff of two texts (3 lines of context), at most
/// [`MAX_DIFF_LINES`] lines.
pub fn text_diff(old: &str, new: &str) -> TextDiff {
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Patience)
        .diff_lines(old, new);
    let mut unified = diff.unified_diff();
    let full = unified
        .context_radius(3)
        .missing_newline_hint(true)
        .to_string();
    bound(full)
}

/// `text` cut to [`MAX_DIFF_LINES`] lines.
fn bound(full: String) -> TextDiff {
    let total = full.lines().count();
    if total <= MAX_DIFF_LINES {
        return TextDiff {
            unified: full,
            cut_lines: 0,
        };
    }
    let mut unified = String::new();
    for line in full.split_inclusive('\n').take(MAX_DIFF_LINES) {
        unified.push_str(line);
    }
    TextDiff {
        unified,
        cut_lines: total - MAX_DIFF_LINES,
    }
}

/// A file's content on one side, as a front end found it.
#[derive(Debug, Clone, Copy)]
pub enum Content<'a> {
    /// Not managed.
    Absent,
    /// The bytes written.
    Bytes(&'a [u8]),
    /// Why it cannot be made.
    Error(&'a str),
}

/// The change of one managed file, or `None` when both sides write the
/// same bytes (or fail the same way).
pub fn file_change(path: &str, item: Item, old: Content, new: Content) -> Option<FileChange> {
    let state = |c: Content| -> FileState {
        match c {
            Content::Absent => FileState::Absent,
            Content::Error(e) => FileState::Error(e.to_string()),
            Content::Bytes(b) => {
                let sha256 = sha256_hex(b);
                match std::str::from_utf8(b) {
                    Ok(_) => FileState::Text {
                        bytes: b.len(),
                        sha256,
                    },
                    Err(_) => FileState::Binary {
                        bytes: b.len(),
                        sha256,
                    },
                }
            }
        }
    };
    let (o, n) = (state(old), state(new));
    if o == n {
        return None;
    }
    let diff = match (&o, &n, content_text(old), content_text(new)) {
        (FileState::Binary { .. }, _, _, _) | (_, FileState::Binary { .. }, _, _) => None,
        (_, _, Some(a), Some(b)) => Some(text_diff(a, b)),
        _ => None,
    };
    Some(FileChange {
        path: path.to_string(),
        item,
        old: o,
        new: n,
        diff,
    })
}

/// A side's text for a diff: absent is empty, errors have none.
fn content_text(c: Content<'_>) -> Option<&str> {
    match c {
        Content::Bytes(b) => std::str::from_utf8(b).ok(),
        Content::Absent => Some(""),
        Content::Error(_) => None,
    }
}

fn sha256_hex(b: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

/// The order changes between two run orders of the same items: the items
/// that left the longest common order (the ones that moved), each with
/// the items it now runs before though it used to follow them. `labels`
/// names each key.
pub fn order_changes<K: Eq + std::hash::Hash + Clone + Ord>(
    old: &[K],
    new: &[K],
    item: impl Fn(&K) -> Item,
) -> Vec<OrderChange> {
    use std::collections::HashMap;
    let new_pos: HashMap<&K, usize> = new.iter().enumerate().map(|(i, k)| (k, i)).collect();
    let old_pos: HashMap<&K, usize> = old.iter().enumerate().map(|(i, k)| (k, i)).collect();
    let old_common: Vec<&K> = old.iter().filter(|k| new_pos.contains_key(k)).collect();
    let new_common: Vec<&K> = new.iter().filter(|k| old_pos.contains_key(k)).collect();
    let ops = similar::capture_diff_slices(similar::Algorithm::Patience, &old_common, &new_common);
    let mut moved: Vec<&K> = Vec::new();
    for op in ops {
        if let similar::DiffOp::Insert {
            new_index, new_len, ..
        } = op
        {
            moved.extend(new_common[new_index..new_index + new_len].iter().copied());
        }
        if let similar::DiffOp::Replace {
            new_index, new_len, ..
        } = op
        {
            moved.extend(new_common[new_index..new_index + new_len].iter().copied());
        }
    }
    let mut out = Vec::new();
    for k in moved {
        let (o, n) = (old_pos[k], new_pos[k]);
        // Items after it now that were before it then.
        let passed: Vec<&K> = new_common
            .iter()
            .copied()
            .filter(|x| new_pos[x] > n && old_pos[x] < o)
            .collect();
        if passed.is_empty() {
            continue;
        }
        out.push(OrderChange {
            item: item(k),
            now_before: passed
                .iter()
                .take(MAX_ORDER_NAMES)
                .map(|x| item(x).label())
                .collect(),
            more: passed.len().saturating_sub(MAX_ORDER_NAMES),
        });
    }
    out
}

/// `v` masked whole (a `no_log` item's values).
pub fn masked(v: &Value) -> Value {
    match v {
        Value::Null => Value::Null,
        _ => crate::redact::mask_leaves(v),
    }
}

/// A [`ValueChange`] of a secret value: both sides masked.
pub fn masked_change(mut c: ValueChange) -> ValueChange {
    c.old = c.old.map(|_| Value::str(REDACTED));
    c.new = c.new.map(|_| Value::str(REDACTED));
    c.diff = None;
    c.masked = true;
    c
}

#[cfg(test)]
mod tests;
