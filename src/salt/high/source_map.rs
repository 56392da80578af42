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
use std::sync::Arc;

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
/// first time a diagnostic asks for one. Each file's spans are kept apart
/// (in the render's [`SpanMemo`], so an editor's compile after an edit
/// works out only the edited file's again); a query finds the files that
/// declare a name through a small table of name hashes, made once per map.
#[derive(Default)]
pub struct SourceMap {
    /// Files and directly recorded spans, in walk order.
    layers: Vec<Layer>,
    /// Which layers hold which names, made on the first query.
    lookup: std::sync::OnceLock<Lookup>,
}

/// One file's spans, or spans recorded directly (in order with the files).
#[derive(Debug, Clone)]
enum Layer {
    File(Pending),
    Own(Arc<Index>),
}

impl Layer {
    /// The layer's spans, working a file's out on first use.
    fn index(&self) -> &Index {
        match self {
            Layer::File(p) => p.memo.0.get_or_init(|| {
                let mut own = Index::default();
                index_file_afresh(&mut own, p);
                own
            }),
            Layer::Own(ix) => ix,
        }
    }
}

/// For each kind of name (ID, extended ID, SLS file), the layers holding a
/// name of that hash, in walk order (a hash two names share lists the
/// layers of both: each layer is asked for the name itself).
#[derive(Default, Clone)]
struct Lookup {
    ids: Layers,
    extends: Layers,
    files: Layers,
}

/// Name hash → layers: the first in `first`, any others in `more`.
#[derive(Default, Clone)]
struct Layers {
    first: HashMap<u64, u32, foldhash::fast::FixedState>,
    more: HashMap<u64, Vec<u32>, foldhash::fast::FixedState>,
}

fn name_hash(name: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::default().hash_one(name)
}

impl Layers {
    fn add(&mut self, name: &str, layer: u32) {
        let h = name_hash(name);
        match self.first.entry(h) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(layer);
            }
            std::collections::hash_map::Entry::Occupied(e) => {
                let more = self.more.entry(h).or_default();
                if *e.get() != layer && more.last() != Some(&layer) {
                    more.push(layer);
                }
            }
        }
    }
    /// The layers that may hold `name`, in walk order.
    fn of(&self, name: &str) -> impl Iterator<Item = usize> + '_ {
        let h = name_hash(name);
        self.first
            .get(&h)
            .into_iter()
            .chain(self.more.get(&h).into_iter().flatten())
            .map(|&l| l as usize)
    }
}

impl std::fmt::Debug for SourceMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceMap")
            .field("layers", &self.layers)
            .finish()
    }
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
        SourceMap {
            layers: self.layers.clone(),
            lookup: self.lookup.clone(),
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
        self.lookup = std::sync::OnceLock::new();
        self.layers.push(Layer::File(Pending {
            memo,
            sls,
            template,
            text,
            node: spanless,
        }));
    }
    /// Put a file's new render in place of its old one (an edit of the
    /// file `sls`, as [`SourceMap::defer_file`] took it): `false`, with
    /// nothing changed, unless exactly one layer is that file's.
    pub fn replace_file(
        &mut self,
        sls: &str,
        template: Arc<SourceFile>,
        text: Arc<SourceFile>,
        spanless: Option<Node>,
        memo: Arc<SpanMemo>,
    ) -> bool {
        let mut of_file = self
            .layers
            .iter()
            .enumerate()
            .filter(|(_, l)| matches!(l, Layer::File(p) if p.sls == sls));
        let (Some((at, _)), None) = (of_file.next(), of_file.next()) else {
            return false;
        };
        let new = Layer::File(Pending {
            memo,
            sls: sls.to_string(),
            template,
            text,
            node: spanless,
        });
        // The table of which layers hold which names stays right while the
        // file declares the same names (an edit of arguments): working out
        // the one file's spans spares working it out again for every file.
        if self.lookup.get().is_some() && names(self.layers[at].index()) != names(new.index()) {
            self.lookup = std::sync::OnceLock::new();
        }
        self.layers[at] = new;
        true
    }
    /// The last layer, when it holds directly recorded spans (else a new
    /// one).
    fn own_mut(&mut self) -> &mut Index {
        self.lookup = std::sync::OnceLock::new();
        if !matches!(self.layers.last(), Some(Layer::Own(_))) {
            self.layers.push(Layer::Own(Arc::default()));
        }
        match self.layers.last_mut() {
            Some(Layer::Own(ix)) => Arc::make_mut(ix),
            _ => unreachable!("an own layer was just pushed"),
        }
    }
    /// Which layers hold which names (working out every file's spans not
    /// worked out yet).
    fn lookup(&self) -> &Lookup {
        self.lookup.get_or_init(|| {
            let mut out = Lookup::default();
            for (i, l) in self.layers.iter().enumerate() {
                let ix = l.index();
                let i = i as u32;
                ix.ids.keys().for_each(|k| out.ids.add(k, i));
                ix.extends.keys().for_each(|k| out.extends.add(k, i));
                ix.files.keys().for_each(|k| out.files.add(k, i));
            }
            out
        })
    }
    /// The declarations of `id` in walk order: the first is the one kept,
    /// the others its duplicates.
    fn declarations<'s>(&'s self, id: &'s str) -> impl Iterator<Item = &'s IdSpans> + 's {
        self.lookup().ids.of(id).flat_map(move |l| {
            let ix = self.layers[l].index();
            ix.ids
                .get(id)
                .into_iter()
                .chain(ix.duplicates.get(id).into_iter().flatten())
        })
    }
    /// Work out the spans of every file not worked out yet, keeping them
    /// with their renders (queries then only look them up): work that can
    /// be done ahead, off the path of a compile.
    pub fn work_out(&self) {
        for l in &self.layers {
            l.index();
        }
    }
    /// Record where `id` was declared.
    pub fn insert_id(&mut self, id: String, spans: IdSpans) {
        self.own_mut().insert_id(id, spans);
    }
    /// Remember which file an SLS was read from.
    pub fn insert_file(&mut self, sls: String, file: Arc<SourceFile>, doc: Range<usize>) {
        self.own_mut().insert_file(sls, file, doc);
    }
    /// Record where an `extend` of `id` was written.
    pub fn insert_extend(&mut self, id: String, spans: IdSpans) {
        self.own_mut().insert_extend(id, spans);
    }
    /// Take in another map's entries (a later file's).
    pub fn merge(&mut self, other: SourceMap) {
        self.lookup = std::sync::OnceLock::new();
        self.layers.extend(other.layers);
    }
    /// Every declared ID with where it was declared (copies), in no
    /// particular order.
    pub fn ids(&self) -> Vec<(String, IdSpans)> {
        let lookup = self.lookup();
        let mut out = Vec::new();
        for (i, l) in self.layers.iter().enumerate() {
            for (k, v) in &l.index().ids {
                // The first layer declaring it (layers holding a name of
                // the same hash may come before).
                let first = lookup
                    .ids
                    .of(k)
                    .find(|&j| self.layers[j].index().ids.contains_key(k));
                if first == Some(i) {
                    out.push((k.clone(), v.clone()));
                }
            }
        }
        out
    }
    /// Every `extend` entry of `id`.
    pub fn extends(&self, id: &str) -> Vec<IdSpans> {
        self.lookup()
            .extends
            .of(id)
            .flat_map(|l| self.layers[l].index().extends.get(id).into_iter().flatten())
            .cloned()
            .collect()
    }
    /// Where `id` was declared (a copy).
    pub fn id_spans(&self, id: &str) -> Option<IdSpans> {
        self.declarations(id).next().cloned()
    }
    /// The start of an SLS file (`env:sls`), for errors about the whole file.
    pub fn file(&self, sls: &str) -> Option<Label> {
        let (f, r) = self
            .lookup()
            .files
            .of(sls)
            .find_map(|l| self.layers[l].index().files.get(sls))?;
        Some(Label::new(f, r.start..r.start, format!("in SLS {sls}")))
    }
    /// Every later declaration of a duplicated ID.
    pub fn duplicates(&self, id: &str) -> Vec<Label> {
        self.declarations(id)
            .skip(1)
            .map(|s| {
                Label::new(
                    &s.file,
                    s.key.clone(),
                    format!("`{id}` declared again in {}", s.sls),
                )
            })
            .collect()
    }
    /// The ID's key.
    pub fn id(&self, id: &str) -> Option<Label> {
        let s = self.declarations(id).next()?;
        Some(Label::new(&s.file, s.key.clone(), format!("state `{id}`")))
    }
    /// The state module key under an ID (falls back to the ID).
    pub fn state(&self, id: &str, module: &str) -> Option<Label> {
        let s = self.declarations(id).next()?;
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
    pub fn arg(&self, id: &str, module: &str, key: &str) -> Option<Label> {
        let s = self.declarations(id).next()?;
        if let Some(st) = s.states.get(module) {
            if let Some((_, r)) = st.args.iter().find(|(k, _)| k.as_deref() == Some(key)) {
                return Some(Label::new(&s.file, r.clone(), format!("`{key}` of `{id}`")));
            }
        }
        // An argument added by extend: point at the extend entry.
        for e in self.extends(id) {
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
        self.state(id, module)
    }
    /// The extend entries for an ID.
    pub fn extend(&self, id: &str) -> Option<Label> {
        let e = self
            .lookup()
            .extends
            .of(id)
            .find_map(|l| self.layers[l].index().extends.get(id)?.first())?;
        Some(Label::new(
            &e.file,
            e.key.clone(),
            format!("extend of `{id}`"),
        ))
    }
}

/// The names an index holds (IDs, extends, files), each kind sorted.
fn names(ix: &Index) -> [Vec<&str>; 3] {
    fn sorted<V>(m: &HashMap<String, V>) -> Vec<&str> {
        let mut k: Vec<&str> = m.keys().map(String::as_str).collect();
        k.sort_unstable();
        k
    }
    [sorted(&ix.ids), sorted(&ix.extends), sorted(&ix.files)]
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

    #[test]
    fn names_across_files_answer_as_one_index_would() {
        let mut map = SourceMap::default();
        defer(&mut map, "base:a", "a: {}\nx: {}\n", "a: {}\nx: {}\n");
        defer(
            &mut map,
            "base:b",
            "x: {}\nextend:\n  a:\n    pkg:\n      - require: []\n",
            "x: {}\nextend:\n  a:\n    pkg:\n      - require: []\n",
        );
        defer(
            &mut map,
            "base:c",
            "extend:\n  a:\n    file:\n      - watch: []\n",
            "extend:\n  a:\n    file:\n      - watch: []\n",
        );
        // Recorded directly, after the files.
        let first = map.id_spans("x").expect("x");
        map.insert_id("x".into(), first.clone());
        map.insert_id("z".into(), first);
        // The first declaration wins; the later ones are duplicates, in
        // walk order.
        assert_eq!(map.id_spans("x").expect("x").sls, "base:a");
        let dups: Vec<String> = map
            .duplicates("x")
            .iter()
            .map(|l| l.message.clone())
            .collect();
        assert_eq!(
            dups,
            [
                "`x` declared again in base:b",
                "`x` declared again in base:a"
            ]
        );
        // Every extend, in walk order; an argument added by one.
        assert_eq!(map.extends("a").len(), 2);
        assert_eq!(map.extend("a").expect("extend").file.name, "base:b.sls");
        let w = map.arg("a", "file", "watch").expect("watch");
        assert_eq!(w.file.name, "base:c.sls");
        assert_eq!(map.file("base:c").expect("c").file.name, "base:c.sls");
        let mut ids: Vec<(String, String)> =
            map.ids().into_iter().map(|(k, v)| (k, v.sls)).collect();
        ids.sort();
        assert_eq!(
            ids,
            [
                ("a".to_string(), "base:a".to_string()),
                ("extend@base:b".to_string(), "base:b".to_string()),
                ("extend@base:c".to_string(), "base:c".to_string()),
                ("x".to_string(), "base:a".to_string()),
                ("z".to_string(), "base:a".to_string()),
            ]
        );
        assert!(map.id("missing").is_none() && map.duplicates("missing").is_empty());
    }
}
