//! Where each piece of high data was written: for every state ID, the file
//! and span of its key, its state-module keys and their arguments. Later
//! stages (extend, verify, requisites, ordering) use it to point diagnostics
//! at the line that caused them.

use crate::diag::{Label, SourceFile};
use indexmap::IndexMap;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

/// Spans of one state module declaration (`pkg.installed:` and its list).
#[derive(Debug, Clone, Default)]
pub struct StateSpans {
    pub key: Range<usize>,
    /// One span per argument item, with the argument's key (`None` for a
    /// bare function string).
    pub args: Vec<(Option<String>, Range<usize>)>,
}

/// Spans of one ID declaration.
#[derive(Debug, Clone)]
pub struct IdSpans {
    pub file: Arc<SourceFile>,
    /// `env:sls` the ID was declared in.
    pub sls: String,
    pub key: Range<usize>,
    /// State module (without `.fun`) → spans.
    pub states: IndexMap<String, StateSpans>,
}

/// ID → where it was declared. IDs are globally unique in valid high data;
/// for a duplicate ID the first declaration is kept.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    ids: HashMap<String, IdSpans>,
    /// Spans of `extend:` entries, by extended ID (one per extending file).
    extends: HashMap<String, Vec<IdSpans>>,
    /// Later declarations of an ID already seen (duplicate IDs).
    duplicates: HashMap<String, Vec<IdSpans>>,
    /// `env:sls` → the file its spans point into, and the span of the
    /// whole rendered document.
    files: HashMap<String, (Arc<SourceFile>, Range<usize>)>,
}

impl SourceMap {
    pub fn insert_id(&mut self, id: String, spans: IdSpans) {
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
    /// Remember which file an SLS was read from.
    pub fn insert_file(&mut self, sls: String, file: Arc<SourceFile>, doc: Range<usize>) {
        self.files.entry(sls).or_insert((file, doc));
    }
    /// The start of an SLS file (`env:sls`), for errors about the whole file.
    pub fn file(&self, sls: &str) -> Option<Label> {
        let (f, r) = self.files.get(sls)?;
        Some(Label::new(f, r.start..r.start, format!("in SLS {sls}")))
    }
    /// Every later declaration of a duplicated ID.
    pub fn duplicates(&self, id: &str) -> Vec<Label> {
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
    pub fn insert_extend(&mut self, id: String, spans: IdSpans) {
        self.extends.entry(id).or_default().push(spans);
    }
    pub fn merge(&mut self, other: SourceMap) {
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
    pub fn id_spans(&self, id: &str) -> Option<&IdSpans> {
        self.ids.get(id)
    }
    /// The ID's key.
    pub fn id(&self, id: &str) -> Option<Label> {
        self.ids
            .get(id)
            .map(|s| Label::new(&s.file, s.key.clone(), format!("state `{id}`")))
    }
    /// The state module key under an ID (falls back to the ID).
    pub fn state(&self, id: &str, module: &str) -> Option<Label> {
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
    pub fn arg(&self, id: &str, module: &str, key: &str) -> Option<Label> {
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
    pub fn extend(&self, id: &str) -> Option<Label> {
        let e = self.extends.get(id)?.first()?;
        Some(Label::new(
            &e.file,
            e.key.clone(),
            format!("extend of `{id}`"),
        ))
    }
}
