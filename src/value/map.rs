//! [`Map`], the dict behind [`Value::Map`]: insertion-ordered like a Python
//! dict, stored as a plain vector of (key, value) pairs. Most maps in state
//! data are tiny (`{'require': [...]}`, `{'test': 'id'}`), so they are found
//! by a linear scan; a hash index over the positions is built only once a
//! map grows past [`INDEX_AT`] entries. Methods follow `IndexMap`'s names and
//! meanings (`insert` keeps an existing key's place, `shift_remove` keeps
//! the order of the rest).

use super::Value;
use hashbrown::HashTable;
use indexmap::Equivalent;
use std::hash::{BuildHasher, Hash};
use thin_vec::ThinVec;

/// Maps with more entries than this get a hash index (chunks, with their
/// ten-odd keys, stay below it).
const INDEX_AT: usize = 16;

/// An insertion-ordered map keyed by [`Value`], as Python dicts are. Two
/// pointers wide, so a `Value` stays 24 bytes: the entries sit behind one
/// pointer with their length and capacity (`ThinVec`: one allocation per
/// map, none while empty), the index behind the other.
#[derive(Default)]
pub struct Map(Inner);

#[derive(Default, Clone)]
struct Inner {
    entries: ThinVec<(Value, Value)>,
    /// Positions in `entries`, hashed by key; only for large maps.
    index: Option<Box<HashTable<usize>>>,
}

/// The hash a [`Map`] indexes its keys by (equal values hash equal), for
/// other tables of values that want the same.
pub(crate) fn hash_of<Q: Hash + ?Sized>(q: &Q) -> u64 {
    foldhash::fast::FixedState::default().hash_one(q)
}

impl Inner {
    fn find<Q: Hash + Equivalent<Value> + ?Sized>(&self, key: &Q) -> Option<usize> {
        match &self.index {
            Some(index) => index
                .find(hash_of(key), |&i| key.equivalent(&self.entries[i].0))
                .copied(),
            None => self.entries.iter().position(|(k, _)| key.equivalent(k)),
        }
    }

    fn rebuild_index(&mut self) {
        if self.entries.len() <= INDEX_AT {
            self.index = None;
            return;
        }
        let mut index = HashTable::with_capacity(self.entries.len());
        for (i, (k, _)) in self.entries.iter().enumerate() {
            let entries = &self.entries;
            index.insert_unique(hash_of(k), i, |&j| hash_of(&entries[j].0));
        }
        self.index = Some(Box::new(index));
    }

    /// Append a key known to be absent.
    fn push(&mut self, key: Value, value: Value) -> usize {
        let i = self.entries.len();
        if let Some(index) = &mut self.index {
            let entries = &self.entries;
            index.insert_unique(hash_of(&key), i, |&j| hash_of(&entries[j].0));
        }
        super::reserve_one(&mut self.entries);
        self.entries.push((key, value));
        if self.index.is_none() && self.entries.len() > INDEX_AT {
            self.rebuild_index();
        }
        i
    }

    fn remove_at(&mut self, i: usize) -> (Value, Value) {
        if let Some(index) = &mut self.index {
            let hash = hash_of(&self.entries[i].0);
            if let Ok(found) = index.find_entry(hash, |&j| j == i) {
                found.remove();
            }
            if i + 1 < self.entries.len() {
                for j in index.iter_mut() {
                    if *j > i {
                        *j -= 1;
                    }
                }
            }
        }
        self.entries.remove(i)
    }
}

impl Map {
    /// An empty map.
    pub fn new() -> Map {
        Map::default()
    }

    /// An empty map with room for `n` entries.
    pub fn with_capacity(n: usize) -> Map {
        let mut m = Inner {
            entries: ThinVec::with_capacity(n),
            index: None,
        };
        if n > INDEX_AT {
            m.index = Some(Box::new(HashTable::with_capacity(n)));
        }
        Map(m)
    }

    /// A map of `entries` whose keys are known to be distinct (no lookup
    /// per key), allocated once at their number.
    pub fn from_distinct(entries: impl ExactSizeIterator<Item = (Value, Value)>) -> Map {
        let mut m = Map::with_capacity(entries.len());
        for (k, v) in entries {
            m.0.push(k, v);
        }
        m
    }

    /// The entries themselves, in order (the index is dropped): for
    /// consumers that take them apart in place, in parallel.
    pub fn into_entries(self) -> ThinVec<(Value, Value)> {
        self.0.entries
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.0.entries.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.0.entries.is_empty()
    }

    /// Room for `n` more entries.
    pub fn reserve(&mut self, n: usize) {
        self.0.entries.reserve(n);
        if let Some(index) = &mut self.0.index {
            let entries = &self.0.entries;
            index.reserve(n, |&j| hash_of(&entries[j].0));
        }
    }

    /// The value of `key`.
    pub fn get<Q: Hash + Equivalent<Value> + ?Sized>(&self, key: &Q) -> Option<&Value> {
        self.0.find(key).map(|i| &self.0.entries[i].1)
    }

    /// The value of `key`, mutable.
    pub fn get_mut<Q: Hash + Equivalent<Value> + ?Sized>(&mut self, key: &Q) -> Option<&mut Value> {
        self.0.find(key).map(|i| &mut self.0.entries[i].1)
    }

    /// The stored key and value of `key`.
    pub fn get_key_value<Q: Hash + Equivalent<Value> + ?Sized>(
        &self,
        key: &Q,
    ) -> Option<(&Value, &Value)> {
        self.0.find(key).map(|i| {
            let (k, v) = &self.0.entries[i];
            (k, v)
        })
    }

    /// The values of the string keys `keys`, found in one pass over the
    /// entries (a lookup per key scans a small map once per key); `None`
    /// where a key is absent.
    pub fn pick<const N: usize>(&self, keys: [&str; N]) -> [Option<&Value>; N] {
        let mut found = [None; N];
        for (k, v) in self.iter() {
            if let Value::Str(k) = k {
                if let Some(i) = keys.iter().position(|key| *key == k.as_str()) {
                    found[i] = Some(v);
                }
            }
        }
        found
    }

    /// The position of `key`.
    pub fn get_index_of<Q: Hash + Equivalent<Value> + ?Sized>(&self, key: &Q) -> Option<usize> {
        self.0.find(key)
    }

    /// Whether `key` is present.
    pub fn contains_key<Q: Hash + Equivalent<Value> + ?Sized>(&self, key: &Q) -> bool {
        self.0.find(key).is_some()
    }

    /// The entry at position `i`.
    pub fn get_index(&self, i: usize) -> Option<(&Value, &Value)> {
        self.0.entries.get(i).map(|(k, v)| (k, v))
    }

    /// The entry at position `i`, value mutable.
    pub fn get_index_mut(&mut self, i: usize) -> Option<(&Value, &mut Value)> {
        self.0.entries.get_mut(i).map(|(k, v)| (&*k, v))
    }

    /// The first entry.
    pub fn first(&self) -> Option<(&Value, &Value)> {
        self.get_index(0)
    }

    /// The last entry.
    pub fn last(&self) -> Option<(&Value, &Value)> {
        self.0.entries.last().map(|(k, v)| (k, v))
    }

    /// Set `key` to `value`: an existing key keeps its place (and its key
    /// object), and the old value is returned; a new key goes last.
    pub fn insert(&mut self, key: Value, value: Value) -> Option<Value> {
        self.insert_full(key, value).1
    }

    /// Append `key`, known to be absent (no lookup): for maps built from
    /// keys that cannot repeat.
    pub fn push_distinct(&mut self, key: Value, value: Value) {
        debug_assert!(self.0.find(&key).is_none(), "{key:?} is in the map");
        self.0.push(key, value);
    }

    /// [`Map::insert`], also giving the entry's position.
    pub fn insert_full(&mut self, key: Value, value: Value) -> (usize, Option<Value>) {
        // A string key equals string keys only: compared as `str`, without
        // the other types' cases.
        let at = match &key {
            Value::Str(s) => self.0.find(s.as_str()),
            _ => self.0.find(&key),
        };
        match at {
            Some(i) => (i, Some(std::mem::replace(&mut self.0.entries[i].1, value))),
            None => (self.0.push(key, value), None),
        }
    }

    /// Remove `key`, keeping the order of the others.
    pub fn shift_remove<Q: Hash + Equivalent<Value> + ?Sized>(&mut self, key: &Q) -> Option<Value> {
        let i = self.0.find(key)?;
        Some(self.0.remove_at(i).1)
    }

    /// Remove the entry at position `i`, keeping the order of the rest.
    pub fn shift_remove_index(&mut self, i: usize) -> Option<(Value, Value)> {
        (i < self.len()).then(|| self.0.remove_at(i))
    }

    /// Remove the last entry.
    pub fn pop(&mut self) -> Option<(Value, Value)> {
        let last = self.len().checked_sub(1)?;
        Some(self.0.remove_at(last))
    }

    /// Keep the entries `keep` says yes to, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&Value, &mut Value) -> bool) {
        let before = self.len();
        self.0.entries.retain_mut(|(k, v)| keep(k, v));
        if self.len() != before {
            self.0.rebuild_index();
        }
    }

    /// Remove every entry.
    pub fn clear(&mut self) {
        self.0.entries.clear();
        self.0.index = None;
    }

    /// The entries in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.0.entries.iter())
    }

    /// The entries in order, values mutable.
    pub fn iter_mut(&mut self) -> IterMut<'_> {
        IterMut(self.0.entries.iter_mut())
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator + Clone + '_ {
        self.0.entries.iter().map(|(k, _)| k)
    }

    /// The values in order.
    pub fn values(
        &self,
    ) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator + Clone + '_ {
        self.0.entries.iter().map(|(_, v)| v)
    }

    /// The values in order, mutable.
    pub fn values_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = &mut Value> + ExactSizeIterator + '_ {
        self.0.entries.iter_mut().map(|(_, v)| v)
    }

    /// The keys in order, by value.
    pub fn into_keys(self) -> impl DoubleEndedIterator<Item = Value> + ExactSizeIterator {
        self.0.entries.into_iter().map(|(k, _)| k)
    }

    /// The values in order, by value.
    pub fn into_values(self) -> impl DoubleEndedIterator<Item = Value> + ExactSizeIterator {
        self.0.entries.into_iter().map(|(_, v)| v)
    }

    /// The slot for `key`, to fill in if it is empty.
    pub fn entry(&mut self, key: Value) -> Entry<'_> {
        match self.0.find(&key) {
            Some(i) => Entry {
                map: self,
                slot: Ok(i),
            },
            None => Entry {
                map: self,
                slot: Err(key),
            },
        }
    }
}

/// One key's slot in a [`Map`] (see [`Map::entry`]).
pub struct Entry<'a> {
    map: &'a mut Map,
    slot: Result<usize, Value>,
}

impl<'a> Entry<'a> {
    /// The value, inserted with `make()` if absent.
    pub fn or_insert_with(self, make: impl FnOnce() -> Value) -> &'a mut Value {
        let i = match self.slot {
            Ok(i) => i,
            Err(key) => self.map.0.push(key, make()),
        };
        &mut self.map.0.entries[i].1
    }

    /// The value, inserted as `value` if absent.
    pub fn or_insert(self, value: Value) -> &'a mut Value {
        self.or_insert_with(|| value)
    }

    /// The value, inserted as `None` if absent.
    pub fn or_default(self) -> &'a mut Value {
        self.or_insert_with(Value::default)
    }
}

impl Clone for Map {
    fn clone(&self) -> Map {
        Map(self.0.clone())
    }
}

/// Equal when they hold the same keys with equal values, in any order (as
/// Python dicts compare).
impl PartialEq for Map {
    fn eq(&self, other: &Map) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl Eq for Map {}

impl std::fmt::Debug for Map {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<Q: Hash + Equivalent<Value> + ?Sized> std::ops::Index<&Q> for Map {
    type Output = Value;
    /// Panics when the key is missing, as indexing a map does; library
    /// code uses [`Map::get`] on data it did not check.
    fn index(&self, key: &Q) -> &Value {
        self.get(key).expect("Map: key not found")
    }
}

/// Iterator over a map's entries by reference.
#[derive(Clone)]
pub struct Iter<'a>(std::slice::Iter<'a, (Value, Value)>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Value, &'a Value);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl ExactSizeIterator for Iter<'_> {}

/// Iterator over a map's entries with mutable values.
pub struct IterMut<'a>(std::slice::IterMut<'a, (Value, Value)>);

impl<'a> Iterator for IterMut<'a> {
    type Item = (&'a Value, &'a mut Value);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (&*k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for IterMut<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (&*k, v))
    }
}

impl ExactSizeIterator for IterMut<'_> {}

impl IntoIterator for Map {
    type Item = (Value, Value);
    type IntoIter = thin_vec::IntoIter<(Value, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.entries.into_iter()
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a Value, &'a Value);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Map {
    type Item = (&'a Value, &'a mut Value);
    type IntoIter = IterMut<'a>;
    fn into_iter(self) -> IterMut<'a> {
        self.iter_mut()
    }
}

impl Extend<(Value, Value)> for Map {
    fn extend<I: IntoIterator<Item = (Value, Value)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl FromIterator<(Value, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (Value, Value)>>(iter: I) -> Map {
        let iter = iter.into_iter();
        let mut m = Map::with_capacity(iter.size_hint().0);
        m.extend(iter);
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(n: usize) -> Map {
        (0..n as i64)
            .map(|i| (Value::str(format!("k{i}")), Value::Int(i)))
            .collect()
    }

    #[test]
    fn small_and_indexed_maps_behave_alike() {
        for n in [3, INDEX_AT, INDEX_AT + 1, 40] {
            let mut m = big(n);
            assert_eq!(m.len(), n);
            assert_eq!(m.get("k2"), Some(&Value::Int(2)));
            // Replacing keeps the place; a new key goes last.
            assert_eq!(m.insert("k1".into(), Value::Int(-1)), Some(Value::Int(1)));
            assert_eq!(m.get_index(1), Some((&Value::from("k1"), &Value::Int(-1))));
            m.insert("new".into(), Value::Null);
            assert_eq!(m.get_index_of("new"), Some(n));
            // Removing shifts the rest, and lookups still find them.
            assert_eq!(m.shift_remove("k0"), Some(Value::Int(0)));
            assert_eq!(m.get_index_of("k2"), Some(1));
            assert_eq!(m.get("new"), Some(&Value::Null));
            assert_eq!(m.pop().map(|(k, _)| k), Some(Value::from("new")));
            m.retain(|k, _| k.as_str() != Some("k2"));
            assert!(!m.contains_key("k2"));
            assert_eq!(m.get(&Value::from("k1")), Some(&Value::Int(-1)));
            *m.entry("e".into()).or_default() = Value::Int(7);
            *m.entry("e".into()).or_insert(Value::Int(8)) = Value::Int(9);
            assert_eq!(m.get("e"), Some(&Value::Int(9)));
            let keys: Vec<_> = m.keys().cloned().collect();
            assert_eq!(keys.last(), Some(&Value::from("e")));
            assert_eq!(
                m.pick(["e", "absent", "k1"]),
                [Some(&Value::Int(9)), None, Some(&Value::Int(-1))]
            );
            assert_eq!(keys.len(), m.len());
        }
    }

    #[test]
    fn equality_ignores_order_like_python() {
        let a: Map = [("x".into(), Value::Int(1)), ("y".into(), Value::Int(2))]
            .into_iter()
            .collect();
        let b: Map = [("y".into(), Value::Int(2)), ("x".into(), Value::Int(1))]
            .into_iter()
            .collect();
        assert_eq!(a, b);
        // Integer and float keys that compare equal are one key.
        let mut m = Map::new();
        m.insert(Value::Int(1), Value::Null);
        assert!(m.contains_key(&Value::Float(1.0)));
    }
}
