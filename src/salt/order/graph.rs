//! The requisite graph: one node per chunk (plus prereq test nodes), typed
//! edges dependency → dependent, built from the chunks' requisites with
//! Salt's target matching (IDs, names, globs, `sls:`), kept for the
//! ordering, the simulation and the drawings.

use super::{cmp_concat, order_bits, own_order, seen_order, SortKey};
use crate::fnmatch::fnmatch;
use crate::salt::high::extend::py_iter;
use crate::salt::low::Num;
use crate::salt::requisite::ReqKind;
use crate::salt::requisite::{self, edge_rank, PREREQ_SUFFIX, TAG_SEP};
use crate::value::{Map, Value};
use indexmap::IndexMap;
use petgraph::graph::{DiGraph, NodeIndex};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::BuildHasherDefault;
use std::sync::OnceLock;
use thin_vec::ThinVec;

mod sort;

/// Hash builder for the graph's internal tables: deterministic and much
/// cheaper than SipHash on tags and names (nothing here is attacker-facing
/// in a way that matters: a slow compile of a hostile tree at worst).
pub(super) type Fast = foldhash::fast::FixedState;

/// Node-keyed maps hash with a multiply (indices are small, dense integers).
pub(super) type NodeMap<V> = HashMap<NodeIndex, V, BuildHasherDefault<NodeHasher>>;

/// One node's neighbours in first-edge order, each with its edge kinds
/// (Salt's adjacency dict). A single neighbour is stored inline (most
/// nodes have one); longer lists are one pointer wide, grown 2, 4, 8, ...
/// and scanned; past `SCAN` neighbours, positions are looked up in an
/// index kept beside the lists (see [`Adj::entry`]) so adding edges stays
/// linear.
#[derive(Debug, Clone)]
pub(super) enum Adj {
    One(NodeIndex, Kinds),
    Many(ThinVec<(NodeIndex, Kinds)>),
}

impl Default for Adj {
    fn default() -> Adj {
        Adj::Many(ThinVec::new())
    }
}

impl Adj {
    /// Past this many neighbours, positions are looked up in an index.
    const SCAN: usize = 16;

    /// The kinds towards `n`, added (empty) if new. `indexes` holds the
    /// position indexes of the long lists of one direction, by node
    /// (`at` is this list's node).
    fn entry<'a>(
        &'a mut self,
        indexes: &mut NodeMap<NodeMap<usize>>,
        at: NodeIndex,
        n: NodeIndex,
    ) -> &'a mut Kinds {
        match *self {
            Adj::One(m, kinds) if m != n => {
                let mut list = ThinVec::with_capacity(2);
                list.push((m, kinds));
                *self = Adj::Many(list);
            }
            Adj::Many(ref list) if list.is_empty() => *self = Adj::One(n, Kinds::default()),
            _ => {}
        }
        let list = match self {
            Adj::One(_, kinds) => return kinds,
            Adj::Many(list) => list,
        };
        let len = list.len();
        let pos = match indexes.get_mut(&at) {
            Some(index) => *index.entry(n).or_insert(len),
            None => list.iter().position(|(m, _)| *m == n).unwrap_or(len),
        };
        if pos == len {
            crate::value::reserve_one(list);
            list.push((n, Kinds::default()));
            if list.len() == Self::SCAN + 1 {
                indexes.insert(
                    at,
                    list.iter().enumerate().map(|(i, (m, _))| (*m, i)).collect(),
                );
            }
        }
        &mut list[pos].1
    }

    fn iter(&self) -> impl Iterator<Item = (NodeIndex, Kinds)> + '_ {
        let (one, many): (_, &[(NodeIndex, Kinds)]) = match self {
            Adj::One(n, kinds) => (Some((*n, *kinds)), &[]),
            Adj::Many(list) => (None, list),
        };
        one.into_iter().chain(many.iter().copied())
    }
}

#[derive(Default)]
pub(super) struct NodeHasher(u64);

impl std::hash::Hasher for NodeHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        // Fibonacci hashing: good high bits, which hashbrown's tags use.
        self.0 = (self.0 ^ i).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

/// Distinct strings stored end to end in one buffer and found by hash: slot
/// `i` is the `i`-th string added. One allocation for all of them instead
/// of one per string (the names, IDs and other tag parts of tens of thousands
/// of chunks).
#[derive(Debug, Clone, Default)]
pub(crate) struct Interner {
    strings: Strings,
    index: hashbrown::HashTable<u32>,
}

/// The interned strings themselves, end to end.
#[derive(Debug, Clone, Default)]
pub(super) struct Strings {
    text: String,
    ends: Vec<usize>,
}

impl Strings {
    /// The string in slot `i`.
    fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.text.get(start..end)
    }
}

impl Interner {
    fn with_capacity(strings: usize, bytes: usize) -> Interner {
        Interner {
            strings: Strings {
                text: String::with_capacity(bytes),
                ends: Vec::with_capacity(strings),
            },
            index: hashbrown::HashTable::with_capacity(strings),
        }
    }

    fn hash(s: &str) -> u64 {
        use std::hash::BuildHasher;
        Fast::default().hash_one(s)
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.strings.ends.len()
    }

    /// The string in slot `i`.
    pub(crate) fn get(&self, i: usize) -> Option<&str> {
        self.strings.get(i)
    }

    /// Free the growth slack.
    fn shrink(&mut self) {
        self.strings.text.shrink_to_fit();
        self.strings.ends.shrink_to_fit();
    }

    /// The slot of `s`, if it was added.
    pub(crate) fn find(&self, s: &str) -> Option<usize> {
        self.find_hashed(s, Self::hash(s))
    }

    fn find_hashed(&self, s: &str, hash: u64) -> Option<usize> {
        self.index
            .find(hash, |&i| self.get(i as usize) == Some(s))
            .map(|&i| i as usize)
    }

    /// The slot of `s`, added last if new (`s` is hashed once).
    pub(crate) fn insert(&mut self, s: &str) -> usize {
        let hash = Self::hash(s);
        if let Some(i) = self.find_hashed(s, hash) {
            return i;
        }
        let strings = &mut self.strings;
        let i = strings.ends.len();
        strings.text.push_str(s);
        strings.ends.push(strings.text.len());
        let strings = &self.strings;
        self.index.insert_unique(hash, i as u32, |&j| {
            Self::hash(strings.get(j as usize).unwrap_or(""))
        });
        i
    }
}

/// The kinds of the edges between one pair of nodes, in insertion order,
/// packed 4 bits each (at most 12 distinct kinds exist; no allocation).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Kinds(u64);

impl Kinds {
    pub(super) fn len(self) -> usize {
        (self.0 >> 60) as usize
    }
    pub(super) fn iter(self) -> impl Iterator<Item = ReqKind> {
        (0..self.len()).map(move |i| ReqKind::ALL[((self.0 >> (4 * i)) & 0xf) as usize])
    }
    pub(super) fn contains(self, k: ReqKind) -> bool {
        self.iter().any(|x| x == k)
    }
    pub(super) fn push(&mut self, k: ReqKind) {
        let n = self.len();
        debug_assert!(n < ReqKind::ALL.len());
        let low = (self.0 & ((1u64 << (4 * n)) - 1)) | ((k as u64) << (4 * n));
        self.0 = low | (((n + 1) as u64) << 60);
    }
}

/// A node: a chunk, or the test-mode run of a prerequired chunk.
#[derive(Debug, Clone)]
pub struct ReqNode {
    /// Index into the chunk list the graph was built from.
    pub chunk: usize,
    /// True for the `…_|-__prereq_test__` node of a prerequired chunk.
    pub prereq_test: bool,
}

/// The 3008 requisite graph. Edges go from dependency to dependent and carry
/// the requisite kind; a (from, to, kind) triple exists at most once.
#[derive(Debug, Clone, Default)]
pub struct RequisiteGraph {
    /// The nodes. The edges live in `out`/`inn` only (in Salt's order);
    /// petgraph's own edge list would be a second copy nobody reads.
    pub graph: DiGraph<ReqNode, ReqKind>,
    /// Per node: the `state`, `id`, `name` and `fun` of its chunk (slots in
    /// `names`). Salt's tag of a node is `state_|-id_|-name_|-fun`, plus
    /// `_|-__prereq_test__` for test nodes; it is spelled out only when
    /// needed (the parts are shared with the name index, and the sort
    /// label `state + name + fun` is made of them too).
    tag_parts: Vec<[u32; 4]>,
    /// Node indices, hashed by their tag.
    tag_index: hashbrown::HashTable<u32>,
    /// Per node: dependents in first-edge order, each with its kinds in
    /// insertion order (Salt's adjacency dict order).
    out: Vec<Adj>,
    inn: Vec<Adj>,
    /// Position indexes of the long lists in `out` and `inn`, by node.
    out_index: NodeMap<NodeMap<usize>>,
    inn_index: NodeMap<NodeMap<usize>>,
    /// Every name and ID, interned (the keys of `lookup` refer to them),
    /// and every other tag part.
    names: Interner,
    /// module (or `id`) → name or ID → nodes (emptied once every
    /// requisite is resolved, as is `sls`).
    lookup: HashMap<String, KeyIndex, Fast>,
    /// The node of each chunk (by chunk index).
    chunk_nodes: Vec<NodeIndex>,
    /// Per chunk: `__prereq__` is set (kept in step with the chunk).
    prereq_flags: Vec<bool>,
    /// SLS (own or including) → nodes.
    sls: IndexMap<String, Vec<NodeIndex>, Fast>,
    /// The slot of `sls` used last (chunks of one file come together).
    sls_last: usize,
    /// Per chunk whose requisites are not added yet: how many keys its
    /// ahead-of-time `reconcile_watch` appended (see `flag`).
    pub(super) watch_tail: Vec<u8>,
    /// How many chunks the graph was sized for.
    chunks: usize,
    /// Every node's `(effective, own)` sort rank, when the last sort worked
    /// them out ahead (one node per chunk): what [`RequisiteGraph::resort`]
    /// sorts by again after nodes' `fun` changed.
    ranks: Option<Vec<(Num, Num)>>,
}

/// The requisites of a run of consecutive chunks resolved against the
/// indexes: per chunk, the edges to add (kind, dependency) in Salt's order,
/// then its first problem, if any. One flat list per run, not per chunk:
/// these wait for every chunk until edges go in.
#[derive(Default)]
pub(super) struct Resolved {
    pub(super) edges: Vec<(ReqKind, NodeIndex)>,
    /// Per chunk: the end of its edges in `edges`.
    pub(super) ends: Vec<u32>,
    /// (chunk position in the run, its first problem), in chunk order.
    pub(super) errors: Vec<(usize, (ReqKind, String))>,
    /// Per chunk: how many keys its `reconcile_watch` appended.
    pub(super) tails: Vec<u8>,
}

impl Resolved {
    /// Chunks per run.
    pub(super) const RUN: usize = 256;
}

/// One chunk's fields the graph reads, found in a single pass over its keys
/// (the same values `chunk.get(key)` returns: keys are unique).
#[derive(Default)]
pub(super) struct ChunkFields<'c> {
    state: Option<&'c Value>,
    id: Option<&'c Value>,
    name: Option<&'c Value>,
    fun: Option<&'c Value>,
    sls: Option<&'c Value>,
    included_from: Option<&'c Value>,
    prereq: Option<&'c Value>,
}

impl<'c> ChunkFields<'c> {
    /// The fields and the chunk's [`ChunkInfo`], in one pass.
    fn scan(chunk: &'c Map) -> (ChunkFields<'c>, ChunkInfo) {
        let mut f = ChunkFields::default();
        let mut info = ChunkInfo::default();
        for (k, v) in chunk.iter() {
            let Value::Str(k) = k else { continue };
            if let Some(rank) = edge_rank(k) {
                info.add_req(rank);
                info.has_watch |= rank == 2 || rank == 3;
                continue;
            }
            let slot = match k.as_str() {
                "order" => {
                    info.set_order(match Num::of(v) {
                        Some(o) => OrderCache::Num(o),
                        None => OrderCache::Other,
                    });
                    continue;
                }
                "name_order" => {
                    info.name_order = true;
                    continue;
                }
                "state" => &mut f.state,
                "__id__" => &mut f.id,
                "name" => &mut f.name,
                "fun" => &mut f.fun,
                "__sls__" => &mut f.sls,
                "__sls_included_from__" => &mut f.included_from,
                "__prereq__" => &mut f.prereq,
                _ => continue,
            };
            *slot = Some(v);
        }
        (f, info)
    }
}

/// A chunk's `order` as the sort last saw it (the map stays the truth;
/// this spares reading it).
#[derive(Debug, Clone, Copy, Default)]
pub(super) enum OrderCache {
    #[default]
    Missing,
    Num(Num),
    /// Not a number: read the map.
    Other,
}

/// What ordering needs of a chunk besides its graph node, read in the same
/// scan as its fields.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ChunkInfo {
    /// Bit `r` set: the chunk has a requisite key of rank `r` in
    /// `EDGE_KINDS` (keys are unique, so a rank appears at most once),
    /// truthy or not.
    reqs: u16,
    /// Has a `watch` or `watch_any` key (reconcile_watch may move it).
    pub(super) has_watch: bool,
    /// The `OrderCache` variant (0 missing, 1 int, 2 float, 3 other) and
    /// the number's bits: packed, this is 16 bytes instead of 24.
    order_kind: u8,
    order_bits: u64,
    /// Has a `name_order` key.
    pub(super) name_order: bool,
}

impl ChunkInfo {
    pub(super) fn order(&self) -> OrderCache {
        match self.order_kind {
            1 => OrderCache::Num(Num::Int(self.order_bits as i64)),
            2 => OrderCache::Num(Num::Float(f64::from_bits(self.order_bits))),
            3 => OrderCache::Other,
            _ => OrderCache::Missing,
        }
    }

    pub(super) fn set_order(&mut self, order: OrderCache) {
        (self.order_kind, self.order_bits) = match order {
            OrderCache::Missing => (0, 0),
            OrderCache::Num(Num::Int(i)) => (1, i as u64),
            OrderCache::Num(Num::Float(f)) => (2, f.to_bits()),
            OrderCache::Other => (3, 0),
        };
    }

    /// Note a requisite key of rank `rank`. Whether its value is truthy is
    /// left to [`RequisiteGraph::resolve`]: reading the value here, on the
    /// sequential indexing pass, was 15% of that pass.
    fn add_req(&mut self, rank: u8) {
        self.reqs |= 1 << rank;
    }

    /// Find the requisite keys again (after reconcile_watch moved some).
    pub(super) fn rescan_reqs(&mut self, chunk: &Map) {
        self.reqs = 0;
        for k in chunk.keys() {
            if let Some(rank) = k.as_str().and_then(edge_rank) {
                self.add_req(rank);
            }
        }
    }

    /// The requisite kinds the chunk has, in Salt's order.
    fn reqs(&self) -> impl Iterator<Item = ReqKind> + '_ {
        ReqKind::EDGE_KINDS
            .iter()
            .enumerate()
            .filter(|(r, _)| self.reqs & (1 << r) != 0)
            .map(|(_, k)| *k)
    }

    /// `order` as an int, as Salt's cap counts it.
    pub(super) fn int_order(&self) -> Option<i64> {
        match self.order() {
            OrderCache::Num(Num::Int(i)) => Some(i),
            _ => None,
        }
    }
}

/// Names/IDs of one module: insertion order (Salt's dict order) plus, built
/// on the first glob lookup, a sorted view so a glob with a literal prefix
/// scans only that range.
#[derive(Debug, Clone, Default)]
pub(super) struct KeyIndex {
    /// (interned name: slot in `RequisiteGraph::names`, its node), in
    /// insertion order. Nearly every key has exactly one node, stored here;
    /// a node with the `MANY` bit set is instead the position in `more` of
    /// the key's full node list.
    keys: Vec<(u32, NodeIndex)>,
    /// The node lists of keys indexed with more than one node.
    more: Vec<Vec<NodeIndex>>,
    /// Positions in `keys`, hashed by name slot.
    index: hashbrown::HashTable<u32>,
    /// Slots of `keys` sorted by key; empty until a glob needs it (and
    /// again after any insertion). Globs run on several threads at once.
    sorted: OnceLock<Vec<usize>>,
}

impl KeyIndex {
    /// Marks a `keys` entry whose node list lives in `more`.
    const MANY: u32 = 1 << 31;

    fn with_capacity(n: usize) -> KeyIndex {
        KeyIndex {
            keys: Vec::with_capacity(n),
            index: hashbrown::HashTable::with_capacity(n),
            ..KeyIndex::default()
        }
    }

    fn hash(key: u32) -> u64 {
        // Fibonacci hashing: name slots are small dense integers.
        u64::from(key).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    fn position(&self, key: u32) -> Option<usize> {
        let keys = &self.keys;
        self.index
            .find(Self::hash(key), |&i| keys[i as usize].0 == key)
            .map(|&i| i as usize)
    }

    /// Move a node list into `more`; the entry to store in `keys`.
    fn spill(&mut self, nodes: Vec<NodeIndex>) -> NodeIndex {
        self.more.push(nodes);
        NodeIndex::new(((self.more.len() - 1) as u32 | Self::MANY) as usize)
    }

    /// Index `n` under `key`: appended unless it is the key's last node
    /// (the same chunk indexed under equal keys, e.g. name == ID). Rarer
    /// repeats are harmless: edges are deduplicated.
    pub(super) fn add(&mut self, key: u32, n: NodeIndex) {
        match self.position(key) {
            Some(i) => {
                let entry = self.keys[i].1.index() as u32;
                if entry & Self::MANY != 0 {
                    if let Some(nodes) = self.more.get_mut((entry & !Self::MANY) as usize) {
                        if nodes.last() != Some(&n) {
                            nodes.push(n);
                        }
                    }
                } else if entry as usize != n.index() {
                    let mut nodes = Vec::with_capacity(2);
                    nodes.extend([self.keys[i].1, n]);
                    self.keys[i].1 = self.spill(nodes);
                }
            }
            None => {
                let i = self.keys.len() as u32;
                let entry = if n.index() as u32 & Self::MANY != 0 {
                    self.spill(vec![n])
                } else {
                    n
                };
                self.keys.push((key, entry));
                let keys = &self.keys;
                self.index
                    .insert_unique(Self::hash(key), i, |&j| Self::hash(keys[j as usize].0));
                self.sorted.take();
            }
        }
    }

    /// The nodes of the key at position `i` of `keys`.
    fn nodes(&self, i: usize) -> &[NodeIndex] {
        let Some((_, entry)) = self.keys.get(i) else {
            return &[];
        };
        let e = entry.index() as u32;
        if e & Self::MANY == 0 {
            std::slice::from_ref(entry)
        } else {
            self.more
                .get((e & !Self::MANY) as usize)
                .map_or(&[], Vec::as_slice)
        }
    }

    fn get(&self, key: u32) -> Option<&[NodeIndex]> {
        self.position(key).map(|i| self.nodes(i))
    }

    /// Free the slack growth left (the index is complete).
    fn shrink(&mut self) {
        self.keys.shrink_to_fit();
        self.more.shrink_to_fit();
    }

    /// Node lists of every key matching a glob, in insertion order.
    pub(super) fn glob(&self, names: &Interner, pattern: &str) -> Vec<&[NodeIndex]> {
        let keys = &self.keys;
        let key = |slot: usize| {
            keys.get(slot)
                .and_then(|(k, _)| names.get(*k as usize))
                .unwrap_or("")
        };
        let sorted = self.sorted.get_or_init(|| {
            let mut slots: Vec<usize> = (0..keys.len()).collect();
            slots.sort_unstable_by(|&a, &b| key(a).cmp(key(b)));
            slots
        });
        let prefix = &pattern[..pattern.find(['*', '?', '[']).unwrap_or(pattern.len())];
        let first = sorted.partition_point(|&slot| key(slot) < prefix);
        let mut slots: Vec<usize> = sorted[first..]
            .iter()
            .copied()
            .take_while(|&slot| key(slot).starts_with(prefix))
            .filter(|&slot| fnmatch(key(slot), pattern))
            .collect();
        slots.sort_unstable();
        slots.iter().map(|&i| self.nodes(i)).collect()
    }
}

pub(super) fn push_tag(tag: &mut String, f: &ChunkFields<'_>) {
    requisite::push_tag(tag, [f.state, f.id, f.name, f.fun]);
}

/// Append unless it is the last entry (the same chunk indexed under equal
/// keys). Rarer repeats are harmless: edges are deduplicated.
pub(super) fn push_unique(v: &mut Vec<NodeIndex>, n: NodeIndex) {
    if v.last() != Some(&n) {
        v.push(n);
    }
}

/// A chunk's node and its interned name and ID (slots of
/// `RequisiteGraph::names`), as the lookups index them.
#[derive(Debug, Clone, Copy)]
pub(super) struct Named {
    node: NodeIndex,
    name: Option<u32>,
    id: Option<u32>,
}

/// The module lookups and the SLS index of a [`RequisiteGraph`], taken out
/// of it while chunks are indexed (they can then be filled on another
/// thread than the nodes).
pub(super) struct Lookups {
    by_module: HashMap<String, KeyIndex, Fast>,
    sls: IndexMap<String, Vec<NodeIndex>, Fast>,
    sls_last: usize,
    /// About how many chunks there are.
    room: usize,
}

impl Lookups {
    /// Index chunk `f` under its names and IDs and its SLS files (the
    /// lookup half of [`RequisiteGraph::index_chunks`]).
    fn add(&mut self, f: &ChunkFields<'_>, named: Named) {
        let Named { node: n, name, id } = named;
        let state = state_str(f);
        // Salt's order: (module, name), (module, ID), (id, ID), (id, name).
        for (kind, first, second) in [(&*state, name, id), ("id", id, name)] {
            if first.is_none() && second.is_none() {
                continue;
            }
            let index = match self.by_module.get_mut(kind) {
                Some(index) => index,
                None => {
                    // `id` indexes every chunk's ID and name: size it once.
                    let room = if kind == "id" { self.room * 2 } else { 0 };
                    self.by_module
                        .entry(kind.to_string())
                        .or_insert(KeyIndex::with_capacity(room))
                }
            };
            for key in [first, second].into_iter().flatten() {
                index.add(key, n);
            }
        }
        if let Some(sls) = f.sls.filter(|s| s.truthy()) {
            self.index_sls(sls, n);
        }
        match f.included_from.filter(|s| s.truthy()) {
            Some(Value::List(from)) => {
                for sls in from {
                    self.index_sls(sls, n);
                }
            }
            Some(from) => {
                for sls in py_iter(from) {
                    self.index_sls(&sls, n);
                }
            }
            None => {}
        }
    }

    fn index_sls(&mut self, sls: &Value, n: NodeIndex) {
        let owned;
        let key = match sls {
            Value::Str(s) => s.as_str(),
            other => {
                owned = other.py_str();
                owned.as_str()
            }
        };
        if let Some((k, nodes)) = self.sls.get_index_mut(self.sls_last) {
            if k == key {
                push_unique(nodes, n);
                return;
            }
        }
        match self.sls.get_full_mut(key) {
            Some((slot, _, nodes)) => {
                push_unique(nodes, n);
                self.sls_last = slot;
            }
            None => {
                self.sls_last = self.sls.insert_full(key.to_string(), vec![n]).0;
            }
        }
    }
}

/// `str(chunk["state"])` as the indexes spell it (empty when missing).
pub(super) fn state_str<'c>(f: &ChunkFields<'c>) -> std::borrow::Cow<'c, str> {
    match f.state {
        Some(Value::Str(s)) => std::borrow::Cow::Borrowed(s.as_str()),
        Some(other) => std::borrow::Cow::Owned(other.py_str()),
        None => std::borrow::Cow::Borrowed(""),
    }
}

impl RequisiteGraph {
    /// An empty graph with room for `chunks` chunks.
    pub(super) fn with_capacity(chunks: usize) -> RequisiteGraph {
        RequisiteGraph {
            graph: DiGraph::with_capacity(chunks, 0),
            tag_parts: Vec::with_capacity(chunks),
            tag_index: hashbrown::HashTable::with_capacity(chunks),
            out: Vec::with_capacity(chunks),
            inn: Vec::with_capacity(chunks),
            names: Interner::with_capacity(chunks * 2, chunks * 24),
            chunk_nodes: Vec::with_capacity(chunks),
            prereq_flags: Vec::with_capacity(chunks),
            chunks,
            ..RequisiteGraph::default()
        }
    }

    /// The node with a tag.
    pub fn node(&self, tag: &str) -> Option<NodeIndex> {
        self.node_hashed(tag, Interner::hash(tag))
    }

    fn node_hashed(&self, tag: &str, hash: u64) -> Option<NodeIndex> {
        self.tag_index
            .find(hash, |&i| self.tag_is(i as usize, tag))
            .map(|&i| NodeIndex::new(i as usize))
    }

    /// Node `i`'s tag parts: state, ID, name, fun.
    fn tag_strs(&self, i: usize) -> [&str; 4] {
        let parts = self.tag_parts.get(i).copied().unwrap_or_default();
        parts.map(|slot| self.names.get(slot as usize).unwrap_or(""))
    }

    /// Node `i`'s tag in the pieces that spell it: the parts, the
    /// separators, and the test suffix (empty for a chunk's own node).
    fn tag_pieces(&self, i: usize) -> [&str; 8] {
        let [state, id, name, fun] = self.tag_strs(i);
        let suffix = match self.graph.node_weight(NodeIndex::new(i)) {
            Some(w) if w.prereq_test => PREREQ_SUFFIX,
            _ => "",
        };
        [state, TAG_SEP, id, TAG_SEP, name, TAG_SEP, fun, suffix]
    }

    /// Whether node `i`'s tag is `tag` (compared piece by piece).
    fn tag_is(&self, i: usize, tag: &str) -> bool {
        let mut rest = tag;
        for part in self.tag_pieces(i) {
            match rest.strip_prefix(part) {
                Some(r) => rest = r,
                None => return false,
            }
        }
        rest.is_empty()
    }

    /// Salt's tag of a node (`state_|-id_|-name_|-fun`, plus
    /// `_|-__prereq_test__` for a prereq test node).
    pub fn tag(&self, n: NodeIndex) -> String {
        self.tag_pieces(n.index()).concat()
    }

    /// Dependents of a node with edge kinds, in Salt's iteration order.
    pub fn dependents(&self, n: NodeIndex) -> impl Iterator<Item = (NodeIndex, ReqKind)> + '_ {
        self.out[n.index()]
            .iter()
            .flat_map(|(t, ks)| ks.iter().map(move |k| (t, k)))
    }

    /// Dependencies of a node with edge kinds, in Salt's iteration order.
    pub fn dependencies(&self, n: NodeIndex) -> impl Iterator<Item = (NodeIndex, ReqKind)> + '_ {
        self.inn[n.index()]
            .iter()
            .flat_map(|(s, ks)| ks.iter().map(move |k| (s, k)))
    }

    /// The prereq test node of a node's chunk, if one exists.
    pub fn prereq_node(&self, n: NodeIndex) -> Option<NodeIndex> {
        self.node(&format!("{}{PREREQ_SUFFIX}", self.tag(n)))
    }

    /// Find node `n` by its tag (of hash `hash`) from now on.
    fn index_tag(&mut self, n: NodeIndex, hash: u64) {
        let mut tag_index = std::mem::take(&mut self.tag_index);
        // Rehashing (past the presized room) spells the tags out again.
        tag_index.insert_unique(hash, n.index() as u32, |&j| {
            Interner::hash(&self.tag(NodeIndex::new(j as usize)))
        });
        self.tag_index = tag_index;
    }

    /// Add a node with tag `tag`, made of `parts` (plus the test suffix
    /// for a prereq test node), unless one has that tag already.
    fn add_node(
        &mut self,
        tag: &str,
        parts: [u32; 4],
        chunk: usize,
        prereq_test: bool,
    ) -> NodeIndex {
        let hash = Interner::hash(tag);
        if let Some(n) = self.node_hashed(tag, hash) {
            // Salt's add_node on an existing tag replaces the chunk. The
            // new chunk's parts spell the same tag, but its sort label is
            // its own (it differs if a part contains the separator).
            self.graph[n].chunk = chunk;
            if !self.graph[n].prereq_test && !prereq_test {
                if let Some(p) = self.tag_parts.get_mut(n.index()) {
                    *p = parts;
                }
            }
            return n;
        }
        let n = self.graph.add_node(ReqNode { chunk, prereq_test });
        self.tag_parts.push(parts);
        self.index_tag(n, hash);
        self.out.push(Adj::default());
        self.inn.push(Adj::default());
        n
    }

    fn add_edge(&mut self, from: NodeIndex, to: NodeIndex, kind: ReqKind) {
        let kinds = self.out[from.index()].entry(&mut self.out_index, from, to);
        if kinds.contains(kind) {
            return;
        }
        kinds.push(kind);
        self.inn[to.index()]
            .entry(&mut self.inn_index, to, from)
            .push(kind);
    }

    /// Every chunk is indexed: free the growth slack of the indexes.
    pub(super) fn shrink_indexes(&mut self) {
        for index in self.lookup.values_mut() {
            index.shrink();
        }
        self.names.shrink();
    }

    /// Every requisite is resolved: free the lookup indexes (the graph
    /// outlives ordering, and nothing looks names or SLS up any more).
    pub(super) fn drop_lookups(&mut self) {
        self.lookup = HashMap::default();
        self.sls = IndexMap::default();
    }

    /// The interned slot of a name or ID.
    fn intern(&mut self, name: &str) -> u32 {
        self.names.insert(name) as u32
    }

    /// The interned slot of `str(v)` (empty for a missing value).
    fn intern_py_str(&mut self, v: Option<&Value>) -> u32 {
        match v {
            Some(Value::Str(s)) => self.intern(s),
            Some(other) => self.intern(&other.py_str()),
            None => self.intern(""),
        }
    }

    /// The node half of [`RequisiteGraph::index_chunks`]: chunk `i` (its
    /// fields and tag, scanned beforehand) becomes a node, or takes over the
    /// node of its tag. Returns the node and the chunk's interned name and
    /// ID, which [`Lookups::add`] needs.
    fn add_chunk_node(&mut self, i: usize, f: &ChunkFields<'_>, tag: &str) -> Named {
        let name = f.name.and_then(Value::as_str);
        let id = f.id.and_then(Value::as_str);
        let name = name.map(|s| (s, self.intern(s)));
        let id = match (id, name) {
            (Some(id), Some((name, slot))) if id == name => Some((id, slot)),
            (Some(id), _) => Some((id, self.intern(id))),
            (None, _) => None,
        };
        let name = name.map(|(_, slot)| slot);
        let id = id.map(|(_, slot)| slot);
        let parts = [
            self.intern(&state_str(f)),
            id.unwrap_or_else(|| self.intern_py_str(f.id)),
            name.unwrap_or_else(|| self.intern_py_str(f.name)),
            self.intern_py_str(f.fun),
        ];
        let node = self.add_node(tag, parts, i, false);
        self.chunk_nodes.push(node);
        self.prereq_flags.push(f.prereq.is_some_and(Value::truthy));
        Named { node, name, id }
    }

    /// Take the lookups out for indexing ([`RequisiteGraph::put_lookups`]
    /// puts them back).
    fn take_lookups(&mut self) -> Lookups {
        Lookups {
            by_module: std::mem::take(&mut self.lookup),
            sls: std::mem::take(&mut self.sls),
            sls_last: self.sls_last,
            room: self.chunks,
        }
    }

    /// Scan chunk `i` and add it as a node ([`RequisiteGraph::add_chunk_node`]);
    /// `tag` is scratch space.
    fn scan_and_add<'c>(
        &mut self,
        i: usize,
        chunk: &'c Map,
        tag: &mut String,
    ) -> (ChunkFields<'c>, ChunkInfo, Named) {
        let (f, ci) = ChunkFields::scan(chunk);
        tag.clear();
        push_tag(tag, &f);
        let named = self.add_chunk_node(i, &f, tag);
        (f, ci, named)
    }

    /// Put back the lookups taken out for indexing.
    fn put_lookups(&mut self, lookups: Lookups) {
        self.lookup = lookups.by_module;
        self.sls = lookups.sls;
        self.sls_last = lookups.sls_last;
    }

    /// Add every chunk, in order and before any requisite, as a node, and
    /// index it by (module, name), (module, ID), (`id`, ID), (`id`, name)
    /// and by its SLS and including SLS files; returns what the scan found
    /// of each chunk. A long list is indexed by two threads at once: this
    /// one adds the nodes, in chunk order, and a second follows it chunk by
    /// chunk, filling the lookups (which need only each chunk's node and
    /// interned name and ID).
    pub(super) fn index_chunks(&mut self, chunks: &[Map]) -> Vec<ChunkInfo> {
        /// Below this, a second thread costs more than it saves.
        const TWO_THREADS_FROM: usize = 2048;
        // Not inside the rayon pool (a fleet compiles minions there): its
        // threads are busy, and the second thread would wait on the first.
        let two = chunks.len() >= TWO_THREADS_FROM && rayon::current_thread_index().is_none();
        self.index_chunks_on(chunks, two)
    }

    /// [`RequisiteGraph::index_chunks`], on one thread or two.
    pub(super) fn index_chunks_on(&mut self, chunks: &[Map], two_threads: bool) -> Vec<ChunkInfo> {
        use std::sync::atomic::{AtomicBool, Ordering};
        let mut info: Vec<ChunkInfo> = Vec::with_capacity(chunks.len());
        let mut tag = String::new();
        let mut lookups = self.take_lookups();
        if !two_threads {
            for (i, c) in chunks.iter().enumerate() {
                let (f, ci, named) = self.scan_and_add(i, c, &mut tag);
                lookups.add(&f, named);
                info.push(ci);
            }
            self.put_lookups(lookups);
            return info;
        }
        /// Tells the follower to stop if the node thread unwinds.
        struct StopOnUnwind<'a>(&'a AtomicBool);
        impl Drop for StopOnUnwind<'_> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    self.0.store(true, Ordering::Release);
                }
            }
        }
        let named: Vec<OnceLock<Named>> = (0..chunks.len()).map(|_| OnceLock::new()).collect();
        let stopped = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let follower = scope.spawn(|| {
                for (c, slot) in chunks.iter().zip(&named) {
                    let mut spins = 0u32;
                    let n = loop {
                        if let Some(n) = slot.get() {
                            break *n;
                        }
                        if stopped.load(Ordering::Acquire) {
                            return;
                        }
                        // The node thread is usually a few chunks ahead;
                        // if it is not running, give the core back.
                        spins += 1;
                        if spins % 128 == 0 {
                            std::thread::yield_now();
                        } else {
                            std::hint::spin_loop();
                        }
                    };
                    // Scanning the chunk again here, off the node thread's
                    // path, was faster than handing its fields over (a
                    // larger slot per chunk for the node thread to fill).
                    let (f, _) = ChunkFields::scan(c);
                    lookups.add(&f, n);
                }
            });
            let _stop = StopOnUnwind(&stopped);
            for (i, (c, slot)) in chunks.iter().zip(&named).enumerate() {
                let (_, ci, n) = self.scan_and_add(i, c, &mut tag);
                let _ = slot.set(n);
                info.push(ci);
            }
            if let Err(panic) = follower.join() {
                std::panic::resume_unwind(panic);
            }
        });
        self.put_lookups(lookups);
        info
    }

    fn add_reqs(
        &mut self,
        chunks: &mut [Map],
        node: NodeIndex,
        has_prereq: bool,
        kind: ReqKind,
        reqs: &[NodeIndex],
    ) {
        for &req in reqs {
            if kind == ReqKind::Prereq {
                self.add_prereq(chunks, node, req);
            } else {
                if has_prereq {
                    if let Some(p) = self.prereq_node(node) {
                        self.add_edge(req, p, kind);
                    }
                }
                self.add_edge(req, node, kind);
            }
        }
    }

    /// `node` declares `prereq: req`.
    fn add_prereq(&mut self, chunks: &mut [Map], node: NodeIndex, req: NodeIndex) {
        let (node_chunk, req_chunk) = (self.graph[node].chunk, self.graph[req].chunk);
        self.flag(chunks, node_chunk, "__prerequiring__");
        self.flag(chunks, req_chunk, "__prereq__");
        if let Some(flag) = self.prereq_flags.get_mut(req_chunk) {
            *flag = true;
        }
        let check_tag = format!("{}{PREREQ_SUFFIX}", self.tag(req));
        let check = match self.node(&check_tag) {
            Some(c) => c,
            None => {
                // `req` is a chunk's node (the indexes hold only those), so
                // its parts plus the test suffix spell `check_tag`.
                let parts = self.tag_parts.get(req.index()).copied().unwrap_or_default();
                let c = self.add_node(&check_tag, parts, req_chunk, true);
                let inherited: Vec<(NodeIndex, ReqKind)> = self.dependencies(req).collect();
                for (dep, k) in inherited {
                    if k != ReqKind::Prereq {
                        self.add_edge(dep, c, k);
                    }
                }
                c
            }
        };
        self.add_edge(check, node, ReqKind::Prereq);
        self.add_edge(node, req, ReqKind::Require);
        if let Some(own_check) = self.prereq_node(node) {
            self.add_edge(check, own_check, ReqKind::Prereq);
        }
    }

    /// Set a flag key on chunk `c`. A chunk whose turn has not come yet
    /// already had its `watch` reconciled (ahead of time, in parallel):
    /// Salt sets the flag before that appends `require`/`require_any`, so a
    /// new flag goes in front of those keys.
    fn flag(&mut self, chunks: &mut [Map], c: usize, key: &str) {
        let behind = self.watch_tail.get(c).copied().unwrap_or(0);
        let chunk = &mut chunks[c];
        if chunk.insert(key.into(), Value::Bool(true)).is_some() || behind == 0 {
            return;
        }
        let Some(new) = chunk.pop() else { return };
        let mut tail: Vec<(Value, Value)> = Vec::with_capacity(usize::from(behind));
        for _ in 0..behind {
            tail.extend(chunk.pop());
        }
        chunk.insert(new.0, new.1);
        for (k, v) in tail.into_iter().rev() {
            chunk.insert(k, v);
        }
    }

    /// The node of chunk `c` (its real run).
    pub fn chunk_node(&self, c: usize) -> Option<NodeIndex> {
        self.chunk_nodes.get(c).copied()
    }

    /// Salt's `add_dependency`, lookup part: appends every match to
    /// `edges`; false when nothing matched. Read-only (runs in parallel).
    fn find(
        &self,
        kind: ReqKind,
        key: &str,
        val: &str,
        edges: &mut Vec<(ReqKind, NodeIndex)>,
    ) -> bool {
        let pattern = val.contains(['*', '?', '[', ']']);
        // Salt adds the matches group by group; the edges come out the same
        // when the groups are concatenated.
        let mut found = false;
        if key == "sls" {
            if pattern {
                found = true;
                for (sls, nodes) in &self.sls {
                    if fnmatch(sls, val) {
                        edges.extend(nodes.iter().map(|&n| (kind, n)));
                    }
                }
            } else if let Some(nodes) = self.sls.get(val).filter(|n| !n.is_empty()) {
                found = true;
                edges.extend(nodes.iter().map(|&n| (kind, n)));
            }
        } else if pattern {
            if let Some(by_key) = self.lookup.get(key) {
                for nodes in by_key.glob(&self.names, val) {
                    found = true;
                    edges.extend(nodes.iter().map(|&n| (kind, n)));
                }
            }
        } else if let Some(nodes) = self
            .names
            .find(val)
            .and_then(|slot| self.lookup.get(key).and_then(|m| m.get(slot as u32)))
        {
            found = true;
            edges.extend(nodes.iter().map(|&n| (kind, n)));
        }
        found
    }

    /// Salt's `add_requisites` for one chunk, lookup part: the edges to add
    /// and the first problem. Read-only (runs in parallel).
    pub(super) fn resolve(
        &self,
        chunk: &Map,
        info: &ChunkInfo,
        disabled: &[String],
        edges: &mut Vec<(ReqKind, NodeIndex)>,
    ) -> Result<(), (ReqKind, String)> {
        for kind in info.reqs() {
            if disabled.iter().any(|d| d == kind.as_str()) {
                continue;
            }
            // An empty (falsy) requisite adds nothing, as in Salt.
            let Some(reqs) = chunk.get(kind.as_str()).filter(|r| r.truthy()) else {
                continue;
            };
            self.resolve_kind(chunk, kind, reqs, edges)?;
        }
        Ok(())
    }

    /// The requisites of one kind of a chunk (`reqs`).
    fn resolve_kind(
        &self,
        chunk: &Map,
        kind: ReqKind,
        reqs: &Value,
        edges: &mut Vec<(ReqKind, NodeIndex)>,
    ) -> Result<(), (ReqKind, String)> {
        let owned;
        let items: &[Value] = match reqs {
            Value::List(l) => l,
            other => {
                owned = py_iter(other);
                &owned
            }
        };
        for req in items {
            let (key, val) = match req {
                Value::Str(_) => (std::borrow::Cow::Borrowed("id"), req),
                Value::Map(m) => match m.iter().next() {
                    Some((Value::Str(k), v)) => (std::borrow::Cow::Borrowed(k.as_str()), v),
                    Some((k, v)) => (std::borrow::Cow::Owned(k.py_str()), v),
                    None => continue,
                },
                _ => continue,
            };
            let key = key.split('.').next().unwrap_or_default();
            let val = match val {
                Value::Null => continue,
                Value::Str(s) => s.as_str(),
                _ => {
                    return Err((
                        kind,
                        format!(
                            "Requisite [{kind}: {key}] in state [{}] in SLS [{}] must have a string as the value",
                            chunk.get("name").map(Value::py_str).unwrap_or_default(),
                            chunk.get("__sls__").map_or("None".to_string(), Value::py_str),
                        ),
                    ))
                }
            };
            if !self.find(kind, key, val, edges) {
                return Err((
                    kind,
                    format!(
                        "Referenced state does not exist for requisite [{kind}: ({key}: {val})] in state [{}] in SLS [{}]",
                        chunk.get("name").map(Value::py_str).unwrap_or_default(),
                        chunk.get("__sls__").map_or("None".to_string(), Value::py_str),
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Add chunk `i`'s resolved edges, in order (prereqs flag chunks and
    /// add test nodes as they come).
    pub(super) fn add_edges(
        &mut self,
        chunks: &mut [Map],
        i: usize,
        edges: &[(ReqKind, NodeIndex)],
    ) {
        let Some(&node) = self.chunk_nodes.get(i) else {
            return;
        };
        for &(kind, req) in edges {
            let has_prereq = self.prereq_flags.get(i).copied().unwrap_or(false);
            self.add_reqs(chunks, node, has_prereq, kind, &[req]);
        }
    }
}
