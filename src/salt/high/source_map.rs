//! Where each piece of high data was written: for every state ID, the file
//! and span of its key, its state-module keys and their arguments. Later
//! stages (extend, verify, requisites, ordering) use it to point diagnostics
//! at the line that caused them.

use crate::diag::{Label, SourceFile};
use crate::value::Value;
use crate::yaml::{Node, NodeValue};
use indexmap::IndexMap;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// Spans of one state module declaration (`pkg.installed:` and its list).
#[derive(Debug, Clone, Default)]
pub struct StateSpans {
    /// The state module key.
    pub key: Range<usize>,
    /// One span per argument item, with the argument's key (`None` for a
    /// bare function string).
    pub args: Vec<(Option<String>, Range<usize>)>,
}

/// Spans of one ID declaration.
#[derive(Debug, Clone)]
pub struct IdSpans {
    /// The file the ID was written in (rendered text).
    pub file: Arc<SourceFile>,
    /// `env:sls` the ID was declared in.
    pub sls: String,
    /// The ID key.
    pub key: Range<usize>,
    /// State module (without `.fun`) → spans.
    pub states: IndexMap<String, StateSpans>,
}

/// ID → where it was declared. IDs are globally unique in valid high data;
/// for a duplicate ID the first declaration is kept.
///
/// Spans are only read for diagnostics, so files are recorded as their
/// rendered text ([`SourceMap::defer_file`]) and parsed again for spans the
/// first time a diagnostic asks for one.
#[derive(Debug, Default)]
pub struct SourceMap {
    /// Files in walk order; `index` covers the first `.0` of them.
    pending: Vec<Pending>,
    index: Mutex<(usize, Index)>,
}

/// A place in the source map, looked up only when a diagnostic needs it.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceRef {
    /// [`SourceMap::extend`] of an ID.
    Extend(String),
    /// [`SourceMap::arg`]: ID, state module, argument key.
    Arg(String, String, String),
}

impl SourceRef {
    /// The label this reference points at.
    pub fn resolve(&self, sources: &SourceMap) -> Option<Label> {
        match self {
            SourceRef::Extend(id) => sources.extend(id),
            SourceRef::Arg(id, module, key) => sources.arg(id, module, key),
        }
    }
}

/// A file whose spans are not indexed yet.
#[derive(Debug, Clone)]
struct Pending {
    /// Its spans once worked out, kept with the render they came from.
    memo: Arc<SpanMemo>,
    /// `env:sls`.
    sls: String,
    template: Arc<SourceFile>,
    text: Arc<SourceFile>,
    /// The parse tree, kept only when the text cannot be parsed again to
    /// the same spans (data not from YAML: every span is empty).
    node: Option<Node>,
}

impl Clone for SourceMap {
    fn clone(&self) -> Self {
        let index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        SourceMap {
            pending: self.pending.clone(),
            index: Mutex::new(index.clone()),
        }
    }
}

/// The spans of one rendered file, worked out once: a render kept in the
/// render cache (an editor's compiles after each edit, a fleet's minions)
/// parses its text for spans once, not once per compile.
#[derive(Default)]
pub struct SpanMemo(std::sync::OnceLock<Index>);

/// Always the same text: a memo is a cache of what the text already says,
/// and the fleet's verify mode compares renders by their Debug text (a
/// render reused after a compile indexed its spans equals a fresh one).
impl std::fmt::Debug for SpanMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SpanMemo")
    }
}

#[derive(Debug, Clone, Default)]
struct Index {
    ids: HashMap<String, IdSpans>,
    /// Spans of `extend:` entries, by extended ID (one per extending file).
    extends: HashMap<String, Vec<IdSpans>>,
    /// Later declarations of an ID already seen (duplicate IDs).
    duplicates: HashMap<String, Vec<IdSpans>>,
    /// `env:sls` → the file its spans point into, and the span of the
    /// whole rendered document.
    files: HashMap<String, (Arc<SourceFile>, Range<usize>)>,
}

impl Index {
    fn insert_id(&mut self, id: String, spans: IdSpans) {
        match self.ids.entry(id) {
            std::collections::hash_map::Entry::Occupied(e) => {
                self.duplicates
                    .entry(e.key().clone())
                    .or_default()
                    .push(spans);
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(spans);
            }
        }
    }
    fn insert_file(&mut self, sls: String, file: Arc<SourceFile>, doc: Range<usize>) {
        self.files.entry(sls).or_insert((file, doc));
    }
    fn insert_extend(&mut self, id: String, spans: IdSpans) {
        self.extends.entry(id).or_default().push(spans);
    }
    fn merge(&mut self, other: Index) {
        for (k, v) in other.ids {
            self.insert_id(k, v);
        }
        for (k, v) in other.duplicates {
            self.duplicates.entry(k).or_default().extend(v);
        }
        for (k, v) in other.files {
            self.files.entry(k).or_insert(v);
        }
        for (k, v) in other.extends {
            self.extends.entry(k).or_default().extend(v);
        }
    }
}

impl SourceMap {
    /// Record a rendered file (`sls` is `env:sls`) whose parse tree has
    /// spans into `text`, which `template` rendered to. `spanless` is the
    /// parse tree when its spans are empty (data not from YAML): `text`
    /// cannot be parsed again to it then.
    /// `memo` keeps the file's spans once worked out (share it with the
    /// render).
    pub fn defer_file(
        &mut self,
        sls: String,
        template: Arc<SourceFile>,
        text: Arc<SourceFile>,
        spanless: Option<Node>,
        memo: Arc<SpanMemo>,
    ) {
        let node = spanless;
        self.pending.push(Pending {
            memo,
            sls,
            template,
            text,
            node,
        });
    }
    /// Run `f` on the index, first indexing any file not indexed yet.
    fn with<R>(&self, f: impl FnOnce(&Index) -> R) -> R {
        let mut guard = self.index.lock().unwrap_or_else(|e| e.into_inner());
        let (done, index) = &mut *guard;
        for p in self.pending.get(*done..).unwrap_or_default() {
            index_file(index, p);
        }
        *done = self.pending.len();
        f(index)
    }
    fn index_mut(&mut self) -> &mut Index {
        let mut guard = std::mem::take(self.index.get_mut().unwrap_or_else(|e| e.into_inner()));
        for p in self.pending.get(guard.0..).unwrap_or_default() {
            index_file(&mut guard.1, p);
        }
        guard.0 = self.pending.len();
        let slot = self.index.get_mut().unwrap_or_else(|e| e.into_inner());
        *slot = guard;
        &mut slot.1
    }
    /// Record where `id` was declared.
    pub fn insert_id(&mut self, id: String, spans: IdSpans) {
        self.index_mut().insert_id(id, spans);
    }
    /// Remember which file an SLS was read from.
    pub fn insert_file(&mut self, sls: String, file: Arc<SourceFile>, doc: Range<usize>) {
        self.index_mut().insert_file(sls, file, doc);
    }
    /// Record where an `extend` of `id` was written.
    pub fn insert_extend(&mut self, id: String, spans: IdSpans) {
        self.index_mut().insert_extend(id, spans);
    }
    /// Take in another map's entries (a later file's).
    pub fn merge(&mut self, mut other: SourceMap) {
        let other = std::mem::take(other.index_mut());
        self.index_mut().merge(other);
    }
    /// Every declared ID with where it was declared (copies), in no
    /// particular order.
    pub fn ids(&self) -> Vec<(String, IdSpans)> {
        self.with(|ix| ix.ids.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
    }
    /// Every `extend` entry of `id`.
    pub fn extends(&self, id: &str) -> Vec<IdSpans> {
        self.with(|ix| ix.extends.get(id).cloned().unwrap_or_default())
    }
    /// Where `id` was declared (a copy).
    pub fn id_spans(&self, id: &str) -> Option<IdSpans> {
        self.with(|ix| ix.ids.get(id).cloned())
    }
    /// The start of an SLS file (`env:sls`), for errors about the whole file.
    pub fn file(&self, sls: &str) -> Option<Label> {
        self.with(|ix| ix.file(sls))
    }
    /// Every later declaration of a duplicated ID.
    pub fn duplicates(&self, id: &str) -> Vec<Label> {
        self.with(|ix| ix.duplicates(id))
    }
    /// The ID's key.
    pub fn id(&self, id: &str) -> Option<Label> {
        self.with(|ix| ix.id(id))
    }
    /// The state module key under an ID (falls back to the ID).
    pub fn state(&self, id: &str, module: &str) -> Option<Label> {
        self.with(|ix| ix.state(id, module))
    }
    /// The first argument with key `key` (e.g. `require`) under ID/module,
    /// falling back to the module, then the ID.
    pub fn arg(&self, id: &str, module: &str, key: &str) -> Option<Label> {
        self.with(|ix| ix.arg(id, module, key))
    }
    /// The extend entries for an ID.
    pub fn extend(&self, id: &str) -> Option<Label> {
        self.with(|ix| ix.extend(id))
    }
}

impl Index {
    /// The start of an SLS file (`env:sls`), for errors about the whole file.
    fn file(&self, sls: &str) -> Option<Label> {
        let (f, r) = self.files.get(sls)?;
        Some(Label::new(f, r.start..r.start, format!("in SLS {sls}")))
    }
    /// Every later declaration of a duplicated ID.
    fn duplicates(&self, id: &str) -> Vec<Label> {
        self.duplicates
            .get(id)
            .map(|l| {
                l.iter()
                    .map(|s| {
                        Label::new(
                            &s.file,
                            s.key.clone(),
                            format!("`{id}` declared again in {}", s.sls),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
    /// The ID's key.
    fn id(&self, id: &str) -> Option<Label> {
        self.ids
            .get(id)
            .map(|s| Label::new(&s.file, s.key.clone(), format!("state `{id}`")))
    }
    /// The state module key under an ID (falls back to the ID).
    fn state(&self, id: &str, module: &str) -> Option<Label> {
        let s = self.ids.get(id)?;
        match s.states.get(module) {
            Some(st) => Some(Label::new(
                &s.file,
                st.key.clone(),
                format!("`{module}` state of `{id}`"),
            )),
            None => self.id(id),
        }
    }
    /// The first argument with key `key` (e.g. `require`) under ID/module,
    /// falling back to the module, then the ID.
    fn arg(&self, id: &str, module: &str, key: &str) -> Option<Label> {
        let s = self.ids.get(id)?;
        if let Some(st) = s.states.get(module) {
            if let Some((_, r)) = st.args.iter().find(|(k, _)| k.as_deref() == Some(key)) {
                return Some(Label::new(&s.file, r.clone(), format!("`{key}` of `{id}`")));
            }
        }
        // An argument added by extend: point at the extend entry.
        if let Some(list) = self.extends.get(id) {
            for e in list {
                for st in e.states.values() {
                    if let Some((_, r)) = st.args.iter().find(|(k, _)| k.as_deref() == Some(key)) {
                        return Some(Label::new(
                            &e.file,
                            r.clone(),
                            format!("`{key}` added to `{id}` by extend"),
                        ));
                    }
                }
            }
        }
        self.state(id, module)
    }
    /// The extend entries for an ID.
    fn extend(&self, id: &str) -> Option<Label> {
        let e = self.extends.get(id)?.first()?;
        Some(Label::new(
            &e.file,
            e.key.clone(),
            format!("extend of `{id}`"),
        ))
    }
}

/// Index one file's spans, parsing its rendered text again if needed.
fn index_file(index: &mut Index, p: &Pending) {
    let spans = p.memo.0.get_or_init(|| {
        let mut own = Index::default();
        index_file_afresh(&mut own, p);
        own
    });
    index.merge(spans.clone());
}

fn index_file_afresh(index: &mut Index, p: &Pending) {
    let parsed;
    let node = match &p.node {
        Some(n) => n,
        None => match crate::yaml::load(&p.text.text, crate::yaml::Dialect::Salt) {
            Ok(n) => {
                parsed = n;
                &parsed
            }
            Err(_) => return,
        },
    };
    // Spans point into the rendered text; map them to the template.
    let lines = (p.template.text.trim_end() != p.text.text.trim_end())
        .then(|| crate::salt::render::LineMap::new(&p.template.text, &p.text.text));
    record_spans(index, node, &p.template, &p.sls, lines.as_ref());
}

/// Record where each ID, state module and argument of a file was written.
fn record_spans(
    index: &mut Index,
    node: &Node,
    file: &Arc<SourceFile>,
    sls: &str,
    lines: Option<&crate::salt::render::LineMap>,
) {
    let map = |r: &std::ops::Range<usize>| match lines {
        Some(m) => m.map(r.clone()),
        None => r.clone(),
    };
    index.insert_file(sls.to_string(), file.clone(), map(&node.span));
    let NodeValue::Map(entries) = &node.value else {
        return;
    };
    for (k, v) in entries {
        let key = match &k.value {
            NodeValue::Str(s) => s.to_string(),
            NodeValue::Int(i) => i.to_string(),
            _ => continue,
        };
        if key == "include" || key == "exclude" || key == "extend" {
            // Per file: `include@env:sls`, one "argument" per entry.
            let args = match &v.value {
                NodeValue::List(items) => items
                    .iter()
                    .map(|it| {
                        let name = match it.to_value() {
                            Value::Map(m) => m.values().last().map(Value::py_str),
                            v => Some(v.py_str()),
                        };
                        (name, map(&it.span))
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let mut states = IndexMap::new();
            states.insert(
                key.clone(),
                StateSpans {
                    key: map(&k.span),
                    args,
                },
            );
            index.insert_id(
                format!("{key}@{sls}"),
                IdSpans {
                    file: file.clone(),
                    sls: sls.to_string(),
                    key: map(&k.span),
                    states,
                },
            );
            if key != "extend" {
                continue;
            }
        }
        if key == "extend" {
            if let NodeValue::Map(ext) = &v.value {
                for (ek, ev) in ext {
                    if let NodeValue::Str(eid) = &ek.value {
                        index.insert_extend(eid.to_string(), id_spans(file, sls, ek, ev, &map));
                    }
                }
            }
            continue;
        }
        index.insert_id(key, id_spans(file, sls, k, v, &map));
    }
}

fn id_spans(
    file: &Arc<SourceFile>,
    sls: &str,
    key: &Node,
    body: &Node,
    map: &dyn Fn(&std::ops::Range<usize>) -> std::ops::Range<usize>,
) -> IdSpans {
    let mut states = IndexMap::new();
    if let NodeValue::Map(decls) = &body.value {
        for (sk, sv) in decls {
            let NodeValue::Str(name) = &sk.value else {
                continue;
            };
            let module = name.split('.').next().unwrap_or(name).to_string();
            let mut args = Vec::new();
            if let NodeValue::List(items) = &sv.value {
                for it in items {
                    let k = match &it.value {
                        NodeValue::Map(m) => m.first().and_then(|(k, _)| match &k.value {
                            NodeValue::Str(s) => Some(s.to_string()),
                            _ => None,
                        }),
                        _ => None,
                    };
                    args.push((k, map(&it.span)));
                }
            }
            states.insert(
                module,
                StateSpans {
                    key: map(&sk.span),
                    args,
                },
            );
        }
    }
    IdSpans {
        file: file.clone(),
        sls: sls.to_string(),
        key: map(&key.span),
        states,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defer(map: &mut SourceMap, sls: &str, template: &str, text: &str) {
        let template = SourceFile::new(format!("{sls}.sls"), template);
        let text = SourceFile::new(format!("{sls} (rendered)"), text);
        let node = crate::yaml::load(&text.text, crate::yaml::Dialect::Salt).expect("yaml");
        map.defer_file(
            sls.into(),
            template,
            text,
            node.span.is_empty().then(|| node.clone()),
            Arc::default(),
        );
    }

    #[test]
    fn deferred_files_are_indexed_on_query_in_walk_order() {
        let mut map = SourceMap::default();
        defer(
            &mut map,
            "base:a",
            "a:\n  pkg.installed:\n    - require: []\n",
            "a:\n  pkg.installed:\n    - require: []\n",
        );
        let id = map.id("a").expect("a");
        assert_eq!(&id.file.text[id.range.clone()], "a");
        let arg = map.arg("a", "pkg", "require").expect("arg");
        assert_eq!(arg.file.name, "base:a.sls");
        assert_eq!(&arg.file.text[arg.range.clone()], "require: []");
        // A later file (added after a query) is indexed too; the first
        // declaration of a duplicate ID wins.
        defer(
            &mut map,
            "base:b",
            "{{ x }}\na: {}\nb: {}\n",
            "a: {}\nb: {}\n",
        );
        assert!(map.id("b").is_some());
        assert_eq!(map.id("a").expect("a").file.name, "base:a.sls");
        assert_eq!(map.duplicates("a").len(), 1);
        assert_eq!(map.id_spans("a").expect("spans").sls, "base:a");
    }
}
