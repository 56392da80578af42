//! Recorded reads: what one render read of the minion's data. While a
//! [`record`] call runs, every access a template makes to `grains`,
//! `pillar` and `opts` (through the root maps of its context, or through
//! `salt['grains.get']` and the other data functions) is noted on a log
//! local to the thread: a render runs on one thread, imports and includes
//! inside it too, so they all land in the same log. A source read by key
//! records the key (reading an absent key is a read: presence counts);
//! anything else (iteration, `items()`, length, printing, a filter that
//! walks the map, a mutation, a function not known to read by key) records
//! the whole source. Functions answered as a fresh minion are noted too,
//! so a render reused from a cache can replay them.
//!
//! The log is what `lowstate fleet` keys its render cache by: two minions
//! whose data agree on every read give the same render.

use crate::value::{Map, Value};
use std::cell::RefCell;
use std::hash::{Hash, Hasher};

/// One source of minion data a template can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// `grains`.
    Grains,
    /// `pillar`.
    Pillar,
    /// `opts`.
    Opts,
}

impl Source {
    /// Every source, in log order.
    pub const ALL: [Source; 3] = [Source::Grains, Source::Pillar, Source::Opts];

    fn index(self) -> usize {
        match self {
            Source::Grains => 0,
            Source::Pillar => 1,
            Source::Opts => 2,
        }
    }

    /// The source's name (`grains`, `pillar`, `opts`).
    pub fn name(self) -> &'static str {
        match self {
            Source::Grains => "grains",
            Source::Pillar => "pillar",
            Source::Opts => "opts",
        }
    }
}

/// What a render read of one source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceReads {
    /// These top-level keys (string keys, in first-read order), present or
    /// not.
    Keys(indexmap::IndexSet<String>),
    /// The whole source (its order, length and every value).
    Everything,
}

impl Default for SourceReads {
    fn default() -> Self {
        SourceReads::Keys(indexmap::IndexSet::new())
    }
}

/// Everything one render read, per source, and the functions it had
/// answered as a fresh minion.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadLog {
    sources: [SourceReads; 3],
    /// Functions answered as a fresh minion, in first-call order.
    pub answered: Vec<String>,
    /// Template names the render loaded (imports, includes, `extends`,
    /// `import_yaml` and friends), in first-load order: with the file
    /// itself, every file of the roots it read.
    pub templates: Vec<String>,
    /// Whether it listed the fileserver (`cp.list_*`): then the whole tree
    /// counts.
    pub listed: bool,
}

impl ReadLog {
    /// What was read of `source`.
    pub fn of(&self, source: Source) -> &SourceReads {
        &self.sources[source.index()]
    }

    fn key(&mut self, source: Source, key: &str) {
        if let SourceReads::Keys(keys) = &mut self.sources[source.index()] {
            if !keys.contains(key) {
                keys.insert(key.to_string());
            }
        }
    }

    fn everything(&mut self, source: Source) {
        self.sources[source.index()] = SourceReads::Everything;
    }

    fn absorb(&mut self, other: ReadLog) {
        for s in Source::ALL {
            match other.sources[s.index()].clone() {
                SourceReads::Everything => self.everything(s),
                SourceReads::Keys(keys) => keys.iter().for_each(|k| self.key(s, k)),
            }
        }
        for f in other.answered {
            if !self.answered.contains(&f) {
                self.answered.push(f);
            }
        }
        for t in other.templates {
            self.template(&t);
        }
        self.listed |= other.listed;
    }

    fn template(&mut self, name: &str) {
        if !self.templates.iter().any(|t| t == name) {
            self.templates.push(name.to_string());
        }
    }
}

thread_local! {
    static LOG: RefCell<Option<ReadLog>> = const { RefCell::new(None) };
}

/// Restores the log that was active before a [`record`] (and adds the
/// inner reads to it), even if the recorded code unwinds.
struct Restore(Option<ReadLog>);

impl Drop for Restore {
    fn drop(&mut self) {
        let outer = self.0.take();
        LOG.with(|l| {
            let mut l = l.borrow_mut();
            let inner = l.take();
            *l = match (outer, inner) {
                (Some(mut o), Some(i)) => {
                    o.absorb(i);
                    Some(o)
                }
                (o, _) => o,
            };
        });
    }
}

/// Run `f` (one render) with a fresh read log on this thread; return its
/// result and what it read. A `record` inside another one also counts its
/// reads in the outer log.
pub fn record<R>(f: impl FnOnce() -> R) -> (R, ReadLog) {
    let outer = LOG.with(|l| l.borrow_mut().replace(ReadLog::default()));
    let restore = Restore(outer);
    let r = f();
    let log = LOG.with(|l| l.borrow().clone()).unwrap_or_default();
    drop(restore);
    (r, log)
}

fn with_log(f: impl FnOnce(&mut ReadLog)) {
    LOG.with(|l| {
        if let Ok(mut l) = l.try_borrow_mut() {
            if let Some(log) = l.as_mut() {
                f(log);
            }
        }
    });
}

/// Note a read of top-level `key` of `source`.
pub(crate) fn key(source: Source, key: &str) {
    with_log(|l| l.key(source, key));
}

/// Note a read of the whole of `source`.
pub(crate) fn everything(source: Source) {
    with_log(|l| l.everything(source));
}

/// Note that a render reads all of the minion's data.
pub(crate) fn all() {
    with_log(|l| Source::ALL.iter().for_each(|s| l.everything(*s)));
}

/// Note a `traverse_dict_and_list` walk of `source` along `path`: the
/// top-level key is its first part, unless the walk could also try that
/// part as a non-string key (then the whole source counts).
pub(crate) fn path(source: Source, path: &str, delimiter: &str) {
    let first = if delimiter.is_empty() {
        path
    } else {
        path.split(delimiter).next().unwrap_or(path)
    };
    if crate::salt::matcher::yamlify_key(first).is_some() {
        everything(source);
    } else {
        key(source, first);
    }
}

/// Note that the render loaded template `name` (as the loader is asked
/// for it: minijinja asks only once per environment, so this is noted
/// where the name is resolved, on every use).
pub(crate) fn template(name: &str) {
    with_log(|l| l.template(name));
}

/// Note that the render listed the fileserver.
pub(crate) fn listing() {
    with_log(|l| l.listed = true);
}

/// Note that `function` got a fresh minion's answer.
pub(crate) fn answered(function: &str) {
    with_log(|l| {
        if !l.answered.iter().any(|f| f == function) {
            l.answered.push(function.to_string());
        }
    });
}

/// The value a template sees for one read of a source: the whole source,
/// or one top-level key's value (`None`: absent).
pub fn seen<'d>(reads: &SourceReads, data: &'d Value) -> Vec<Option<&'d Value>> {
    match (reads, data) {
        (SourceReads::Keys(keys), Value::Map(m)) => {
            keys.iter().map(|k| m.get(k.as_str())).collect()
        }
        _ => vec![Some(data)],
    }
}

/// A read set is only key-wise when its source is a mapping; over anything
/// else the whole value counts.
pub fn normalise(reads: &SourceReads, data: &Value) -> SourceReads {
    match (reads, data) {
        (SourceReads::Keys(_), Value::Map(_)) => reads.clone(),
        _ => SourceReads::Everything,
    }
}

/// Exact equality: same types (an int never equals a float or a bool),
/// maps in the same order. What a template prints or iterates can tell
/// these apart, so the render cache compares with this, not `==`.
pub fn strict_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| strict_eq(p, q))
        }
        (Value::Map(x), Value::Map(y)) => strict_map_eq(x, y),
        _ => false,
    }
}

fn strict_map_eq(x: &Map, y: &Map) -> bool {
    x.len() == y.len()
        && x.iter()
            .zip(y.iter())
            .all(|((k1, v1), (k2, v2))| strict_eq(k1, k2) && strict_eq(v1, v2))
}

/// A hash consistent with [`strict_eq`].
pub fn strict_hash<H: Hasher>(v: &Value, h: &mut H) {
    match v {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, *b).hash(h),
        Value::Int(i) => (2u8, *i).hash(h),
        Value::Float(f) => (3u8, f.to_bits()).hash(h),
        Value::Str(s) => (4u8, s.as_str()).hash(h),
        Value::List(l) => {
            (5u8, l.len()).hash(h);
            l.iter().for_each(|x| strict_hash(x, h));
        }
        Value::Map(m) => {
            (6u8, m.len()).hash(h);
            for (k, x) in m.iter() {
                strict_hash(k, h);
                strict_hash(x, h);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_nests_and_restores() {
        let ((), outer) = record(|| {
            key(Source::Grains, "os");
            let ((), inner) = record(|| {
                key(Source::Pillar, "web");
                answered("pkg.version");
            });
            assert_eq!(
                inner.of(Source::Pillar),
                &SourceReads::Keys(["web".to_string()].into_iter().collect())
            );
            assert_eq!(inner.of(Source::Grains), &SourceReads::default());
        });
        assert_eq!(
            outer.of(Source::Grains),
            &SourceReads::Keys(["os".to_string()].into_iter().collect())
        );
        assert_eq!(
            outer.of(Source::Pillar),
            &SourceReads::Keys(["web".to_string()].into_iter().collect())
        );
        assert_eq!(outer.answered, vec!["pkg.version".to_string()]);
        // Outside a record nothing is logged (and nothing fails).
        key(Source::Opts, "id");
        let ((), fresh) = record(|| {});
        assert_eq!(fresh, ReadLog::default());
    }

    #[test]
    fn paths_read_their_first_part_and_numeric_parts_read_everything() {
        let ((), log) = record(|| {
            path(Source::Pillar, "nginx:lookup:pkg", ":");
            path(Source::Grains, "1", ":");
        });
        assert_eq!(
            log.of(Source::Pillar),
            &SourceReads::Keys(["nginx".to_string()].into_iter().collect())
        );
        assert_eq!(log.of(Source::Grains), &SourceReads::Everything);
    }

    #[test]
    fn strict_equality_tells_types_and_order_apart() {
        let j = |s: &str| Value::from_json(&serde_json::from_str(s).unwrap());
        assert!(strict_eq(
            &j(r#"{"a": [1, "x"]}"#),
            &j(r#"{"a": [1, "x"]}"#)
        ));
        assert!(!strict_eq(&j("1"), &j("1.0")));
        assert!(!strict_eq(&j("1"), &j("true")));
        assert!(!strict_eq(&j(r#"{"a":1,"b":2}"#), &j(r#"{"b":2,"a":1}"#)));
        let h = |v: &Value| {
            let mut s = std::collections::hash_map::DefaultHasher::new();
            strict_hash(v, &mut s);
            s.finish()
        };
        assert_eq!(h(&j(r#"{"a": [1]}"#)), h(&j(r#"{"a": [1]}"#)));
        assert_ne!(h(&j("1")), h(&j("1.0")));
    }
}
