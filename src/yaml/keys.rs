//! Python's dict-key equality for YAML keys (`1 == 1.0 == True`, a
//! collection is unhashable): repeated keys are found the way Salt's loader
//! finds them.

use super::resolve::Scalar;
use super::{Node, NodeValue};
use crate::value::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// A constructed scalar.
#[derive(Debug, Clone)]
pub(super) enum Cons {
    /// A string: the raw node's text, unchanged.
    Text,
    Value(Scalar),
}

/// A constructed key compared as Python compares dict keys (`1 == 1.0 == True`).
pub(super) enum PyKey<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Cow<'a, str>),
}

impl<'a> PyKey<'a> {
    /// The key a constructed scalar node (with raw text `text`) stands for.
    pub(super) fn new(text: &'a str, cons: &Option<Cons>) -> Self {
        match cons {
            Some(Cons::Text) => PyKey::Str(Cow::Borrowed(text)),
            None | Some(Cons::Value(Scalar::Null)) => PyKey::Null,
            Some(Cons::Value(Scalar::Bool(b))) => PyKey::Bool(*b),
            Some(Cons::Value(Scalar::Int(i))) => PyKey::Int(*i),
            Some(Cons::Value(Scalar::Float(f))) => PyKey::Float(*f),
            Some(Cons::Value(Scalar::Str(s))) => PyKey::Str(Cow::Owned(s.clone())),
        }
    }

    pub(super) fn number(&self) -> Option<f64> {
        match *self {
            PyKey::Bool(b) => Some(b as i64 as f64),
            PyKey::Int(i) => Some(i as f64),
            PyKey::Float(f) => Some(f),
            _ => None,
        }
    }

    pub(super) fn to_value(&self) -> crate::value::Value {
        use crate::value::Value;
        match self {
            PyKey::Null => Value::Null,
            PyKey::Bool(b) => Value::Bool(*b),
            PyKey::Int(i) => Value::Int(*i),
            PyKey::Float(f) => Value::Float(*f),
            PyKey::Str(s) => Value::Str((&**s).into()),
        }
    }
}

impl PartialEq for PyKey<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (PyKey::Null, PyKey::Null) => true,
            (PyKey::Str(a), PyKey::Str(b)) => a == b,
            (PyKey::Int(a), PyKey::Int(b)) => a == b,
            // Salt's loader returns the same NaN object every time, so two
            // `.nan` keys collide.
            (PyKey::Float(a), PyKey::Float(b)) if a.is_nan() && b.is_nan() => true,
            _ => match (self.number(), other.number()) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            },
        }
    }
}
impl Eq for PyKey<'_> {}

impl Hash for PyKey<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            PyKey::Null => 0u8.hash(state),
            PyKey::Str(s) => s.hash(state),
            _ => match self.number() {
                Some(f) if f.fract() == 0.0 && f.abs() < 9.0e18 => (f as i64).hash(state),
                Some(f) if f.is_nan() => 1u8.hash(state),
                Some(f) => f.to_bits().hash(state),
                None => {}
            },
        }
    }
}

/// The keys of one mapping seen so far: a short list scanned linearly, a
/// hash map once it grows.
pub(super) struct SeenKeys<'a> {
    pub(super) few: Vec<(PyKey<'a>, usize)>,
    pub(super) many: HashMap<PyKey<'a>, usize, foldhash::fast::FixedState>,
}

impl<'a> SeenKeys<'a> {
    const FEW: usize = 12;

    pub(super) fn new(len: usize) -> Self {
        if len <= Self::FEW {
            SeenKeys {
                few: Vec::with_capacity(len),
                many: HashMap::default(),
            }
        } else {
            SeenKeys {
                few: Vec::new(),
                many: HashMap::with_capacity_and_hasher(len, Default::default()),
            }
        }
    }

    /// Record `key` (node `id`), or return the node that already had it.
    pub(super) fn insert(&mut self, key: PyKey<'a>, id: usize, len: usize) -> Option<usize> {
        if len <= Self::FEW {
            if let Some(&(_, first)) = self.few.iter().find(|(k, _)| *k == key) {
                return Some(first);
            }
            self.few.push((key, id));
            None
        } else {
            match self.many.entry(key) {
                std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(id);
                    None
                }
            }
        }
    }
}
/// Whether a mapping's keys (as Python compares them) repeat, or one is a
/// collection.
pub(super) fn has_duplicate_or_collection_key(pairs: &[(Node, Node)]) -> bool {
    pub(super) fn key(n: &Node) -> Option<PyKey<'_>> {
        Some(match &n.value {
            NodeValue::Null => PyKey::Null,
            NodeValue::Bool(b) => PyKey::Bool(*b),
            NodeValue::Int(i) => PyKey::Int(*i),
            NodeValue::Float(f) => PyKey::Float(*f),
            NodeValue::Str(s) => PyKey::Str(Cow::Borrowed(s)),
            NodeValue::List(_) | NodeValue::Map(_) => return None,
        })
    }
    repeats(pairs.iter().map(|(k, _)| key(k)), pairs.len())
}

/// [`has_duplicate_or_collection_key`] for the `len` keys of a mapping
/// built as plain values.
pub(super) fn repeats_a_key<'a>(keys: impl Iterator<Item = &'a Value>, len: usize) -> bool {
    pub(super) fn key(v: &Value) -> Option<PyKey<'_>> {
        Some(match v {
            Value::Null => PyKey::Null,
            Value::Bool(b) => PyKey::Bool(*b),
            Value::Int(i) => PyKey::Int(*i),
            Value::Float(f) => PyKey::Float(*f),
            Value::Str(s) => PyKey::Str(Cow::Borrowed(s)),
            Value::List(_) | Value::Map(_) => return None,
        })
    }
    repeats(keys.map(key), len)
}

/// Whether one of `len` keys repeats (`None`: a collection, which counts).
pub(super) fn repeats<'a>(keys: impl Iterator<Item = Option<PyKey<'a>>>, len: usize) -> bool {
    let mut seen = SeenKeys::new(len);
    for (i, k) in keys.enumerate() {
        let Some(k) = k else { return true };
        if seen.insert(k, i, len).is_some() {
            return true;
        }
    }
    false
}
