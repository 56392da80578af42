//! Ordering: turns compiled chunks into the lowstate sequence. For Salt 3008
//! it builds the requisite graph (`RequisiteGraph`: one node per chunk plus
//! prereq test nodes, typed edges dependency → dependent), reports missing
//! requisites and cycles with Salt's messages, and sorts topologically with
//! Salt's heap key; for 3006/3007 it sorts by `(order, state+name+fun)`.
//! The graph is kept in the result so execution simulation and drawing can
//! reuse it.

use crate::diag::codes;
use crate::diag::{Diagnostic, Label};
use crate::fnmatch::fnmatch;
use crate::salt::high::extend::py_iter;
use crate::salt::high::SourceMap;
use crate::salt::low::{normalise_order, sort_chunks, symbolic_order, LowOptions, Num};
pub use crate::salt::requisite::ReqKind;
use crate::salt::requisite::{self, edge_rank, PREREQ_SUFFIX, TAG_SEP};
use crate::salt::{ID, SLS};
use crate::value::{Map, Value};
use indexmap::IndexMap;
use petgraph::graph::{DiGraph, NodeIndex};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::BuildHasherDefault;
use std::sync::OnceLock;
use thin_vec::ThinVec;

/// Hash builder for the graph's internal tables: deterministic and much
/// cheaper than SipHash on tags and names (nothing here is attacker-facing
/// in a way that matters: a slow compile of a hostile tree at worst).
type Fast = foldhash::fast::FixedState;

/// Node-keyed maps hash with a multiply (indices are small, dense integers).
type NodeMap<V> = HashMap<NodeIndex, V, BuildHasherDefault<NodeHasher>>;

/// One node's neighbours in first-edge order, each with its edge kinds
/// (Salt's adjacency dict). A single neighbour is stored inline (most
/// nodes have one); longer lists are one pointer wide, grown 2, 4, 8, ...
/// and scanned; past `SCAN` neighbours, positions are looked up in an
/// index kept beside the lists (see [`Adj::entry`]) so adding edges stays
/// linear.
#[derive(Debug, Clone)]
enum Adj {
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
struct NodeHasher(u64);

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
struct Strings {
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
struct Kinds(u64);

impl Kinds {
    fn len(self) -> usize {
        (self.0 >> 60) as usize
    }
    fn iter(self) -> impl Iterator<Item = ReqKind> {
        (0..self.len()).map(move |i| ReqKind::ALL[((self.0 >> (4 * i)) & 0xf) as usize])
    }
    fn contains(self, k: ReqKind) -> bool {
        self.iter().any(|x| x == k)
    }
    fn push(&mut self, k: ReqKind) {
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
    watch_tail: Vec<u8>,
    /// How many chunks the graph was sized for.
    chunks: usize,
}

/// The requisites of a run of consecutive chunks resolved against the
/// indexes: per chunk, the edges to add (kind, dependency) in Salt's order,
/// then its first problem, if any. One flat list per run, not per chunk:
/// these wait for every chunk until edges go in.
#[derive(Default)]
struct Resolved {
    edges: Vec<(ReqKind, NodeIndex)>,
    /// Per chunk: the end of its edges in `edges`.
    ends: Vec<u32>,
    /// (chunk position in the run, its first problem), in chunk order.
    errors: Vec<(usize, (ReqKind, String))>,
    /// Per chunk: how many keys its `reconcile_watch` appended.
    tails: Vec<u8>,
}

impl Resolved {
    /// Chunks per run.
    const RUN: usize = 256;
}

/// One chunk's fields the graph reads, found in a single pass over its keys
/// (the same values `chunk.get(key)` returns: keys are unique).
#[derive(Default)]
struct ChunkFields<'c> {
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
enum OrderCache {
    #[default]
    Missing,
    Num(Num),
    /// Not a number: read the map.
    Other,
}

/// What ordering needs of a chunk besides its graph node, read in the same
/// scan as its fields.
#[derive(Debug, Clone, Copy, Default)]
struct ChunkInfo {
    /// Bit `r` set: the chunk has a requisite key of rank `r` in
    /// `EDGE_KINDS` (keys are unique, so a rank appears at most once),
    /// truthy or not.
    reqs: u16,
    /// Has a `watch` or `watch_any` key (reconcile_watch may move it).
    has_watch: bool,
    /// The `OrderCache` variant (0 missing, 1 int, 2 float, 3 other) and
    /// the number's bits: packed, this is 16 bytes instead of 24.
    order_kind: u8,
    order_bits: u64,
    /// Has a `name_order` key.
    name_order: bool,
}

impl ChunkInfo {
    fn order(&self) -> OrderCache {
        match self.order_kind {
            1 => OrderCache::Num(Num::Int(self.order_bits as i64)),
            2 => OrderCache::Num(Num::Float(f64::from_bits(self.order_bits))),
            3 => OrderCache::Other,
            _ => OrderCache::Missing,
        }
    }

    fn set_order(&mut self, order: OrderCache) {
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
    fn rescan_reqs(&mut self, chunk: &Map) {
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
    fn int_order(&self) -> Option<i64> {
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
struct KeyIndex {
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
    fn add(&mut self, key: u32, n: NodeIndex) {
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
    fn glob(&self, names: &Interner, pattern: &str) -> Vec<&[NodeIndex]> {
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

fn push_tag(tag: &mut String, f: &ChunkFields<'_>) {
    requisite::push_tag(tag, [f.state, f.id, f.name, f.fun]);
}

/// Append unless it is the last entry (the same chunk indexed under equal
/// keys). Rarer repeats are harmless: edges are deduplicated.
fn push_unique(v: &mut Vec<NodeIndex>, n: NodeIndex) {
    if v.last() != Some(&n) {
        v.push(n);
    }
}

/// A chunk's node and its interned name and ID (slots of
/// `RequisiteGraph::names`), as the lookups index them.
#[derive(Debug, Clone, Copy)]
struct Named {
    node: NodeIndex,
    name: Option<u32>,
    id: Option<u32>,
}

/// The module lookups and the SLS index of a [`RequisiteGraph`], taken out
/// of it while chunks are indexed (they can then be filled on another
/// thread than the nodes).
struct Lookups {
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
fn state_str<'c>(f: &ChunkFields<'c>) -> std::borrow::Cow<'c, str> {
    match f.state {
        Some(Value::Str(s)) => std::borrow::Cow::Borrowed(s.as_str()),
        Some(other) => std::borrow::Cow::Owned(other.py_str()),
        None => std::borrow::Cow::Borrowed(""),
    }
}

impl RequisiteGraph {
    /// An empty graph with room for `chunks` chunks.
    fn with_capacity(chunks: usize) -> RequisiteGraph {
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
        let mut tag_index = std::mem::take(&mut self.tag_index);
        // Rehashing (past the presized room) spells the tags out again.
        tag_index.insert_unique(hash, n.index() as u32, |&j| {
            Interner::hash(&self.tag(NodeIndex::new(j as usize)))
        });
        self.tag_index = tag_index;
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
    fn shrink_indexes(&mut self) {
        for index in self.lookup.values_mut() {
            index.shrink();
        }
        self.names.shrink();
    }

    /// Every requisite is resolved: free the lookup indexes (the graph
    /// outlives ordering, and nothing looks names or SLS up any more).
    fn drop_lookups(&mut self) {
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
    fn index_chunks(&mut self, chunks: &[Map]) -> Vec<ChunkInfo> {
        /// Below this, a second thread costs more than it saves.
        const TWO_THREADS_FROM: usize = 2048;
        // Not inside the rayon pool (a fleet compiles minions there): its
        // threads are busy, and the second thread would wait on the first.
        let two = chunks.len() >= TWO_THREADS_FROM && rayon::current_thread_index().is_none();
        self.index_chunks_on(chunks, two)
    }

    /// [`RequisiteGraph::index_chunks`], on one thread or two.
    fn index_chunks_on(&mut self, chunks: &[Map], two_threads: bool) -> Vec<ChunkInfo> {
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
    fn resolve(
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
    fn add_edges(&mut self, chunks: &mut [Map], i: usize, edges: &[(ReqKind, NodeIndex)]) {
        let Some(&node) = self.chunk_nodes.get(i) else {
            return;
        };
        for &(kind, req) in edges {
            let has_prereq = self.prereq_flags.get(i).copied().unwrap_or(false);
            self.add_reqs(chunks, node, has_prereq, kind, &[req]);
        }
    }

    /// Salt's sort key of a node, computed when it becomes ready; normalises
    /// the node's own order (and symbolic orders of dependents) in place.
    /// `info` mirrors each chunk's `order`, so most chunks are not touched.
    fn key(
        &self,
        chunks: &mut [Map],
        info: &mut [ChunkInfo],
        n: NodeIndex,
        cap: i64,
    ) -> SortKey<'_, (Num, Num)> {
        let c = self.graph[n].chunk;
        let own = own_order(&mut chunks[c], &mut info[c], cap);
        let effective = self.effective_order(n, own, |cc| {
            let (seen, symbolic) = seen_order(&chunks[cc], &info[cc], cap);
            // Salt writes a symbolic order it reads back as the number.
            if symbolic {
                chunks[cc].insert("order".into(), seen.to_value());
                info[cc].set_order(OrderCache::Num(seen));
            }
            seen
        });
        SortKey {
            rank: (effective, own),
            node: n,
            graph: self,
        }
    }

    /// A node's effective order: its own, or the lowest order `seen` gives
    /// for the chunks of its dependents, of the heaviest edge kinds first
    /// met (Salt skips a dependent on a lighter kind than one before it).
    fn effective_order(&self, n: NodeIndex, own: Num, mut seen: impl FnMut(usize) -> Num) -> Num {
        let mut child_min = Num::Float(f64::INFINITY);
        let mut req_order: i16 = -1;
        for (child, kind) in self.dependents(n) {
            if req_order > i16::from(kind.weight()) {
                continue;
            }
            req_order = i16::from(kind.weight());
            let child_order = seen(self.graph[child].chunk);
            if child_order < child_min {
                child_min = child_order;
            }
        }
        if own > child_min {
            child_min
        } else {
            own
        }
    }

    /// Salt's order between two nodes whose orders are equal: by
    /// `state + name + fun`, then by the whole tag, then by node.
    fn tie_break(&self, a: NodeIndex, b: NodeIndex) -> std::cmp::Ordering {
        let label = |n: NodeIndex| {
            let [state, _, name, fun] = self.tag_strs(n.index());
            [state, name, fun]
        };
        cmp_concat(&label(a), &label(b))
            .then_with(|| cmp_concat(&self.tag_pieces(a.index()), &self.tag_pieces(b.index())))
            .then_with(|| a.cmp(&b))
    }

    /// Kahn's algorithm with Salt's min-heap key. `Err` when a cycle remains.
    ///
    /// When each chunk has exactly one node (no duplicate tags, no prereq
    /// test nodes), every key is known before the sort starts: a node's key
    /// is computed before any of its dependents' (they wait on it), so the
    /// dependents' orders it reads are always their orders before
    /// normalising. The keys are then worked out in parallel first, and
    /// every chunk's order normalised in place, with the same results as
    /// computing each key when its node becomes ready.
    fn sort(
        &self,
        chunks: &mut [Map],
        info: &mut [ChunkInfo],
        cap: i64,
    ) -> Result<Vec<NodeIndex>, ()> {
        #[cfg(test)]
        let ahead = !tests::LAZY_SORT.get();
        #[cfg(not(test))]
        let ahead = true;
        if ahead && self.one_node_per_chunk(chunks.len()) {
            let keys = self.keys_ahead(chunks, info, cap);
            // Both orders fold into one integer that sorts as they do,
            // unless an integer order is past 2^53 (compared exactly).
            let fast: Option<Vec<u128>> = keys
                .par_iter()
                .with_min_len(Resolved::RUN)
                .map(|&(effective, own)| {
                    Some((u128::from(order_bits(effective)?) << 64) | u128::from(order_bits(own)?))
                })
                .collect();
            if let Some(fast) = fast {
                return self.kahn(|n| SortKey {
                    rank: fast[n.index()],
                    node: n,
                    graph: self,
                });
            }
            return self.kahn(|n| SortKey {
                rank: keys[n.index()],
                node: n,
                graph: self,
            });
        }
        self.kahn(|n| self.key(chunks, info, n, cap))
    }

    /// Whether node `i` is chunk `i`'s own node, for every chunk.
    fn one_node_per_chunk(&self, chunks: usize) -> bool {
        self.graph.node_count() == chunks
            && self.chunk_nodes.len() == chunks
            && self.chunk_nodes.iter().enumerate().all(|(i, n)| {
                n.index() == i && self.graph[*n].chunk == i && !self.graph[*n].prereq_test
            })
    }

    /// Every node's `(effective, own)` sort rank, as [`RequisiteGraph::key`]
    /// gives it in a sort with one node per chunk (see [`RequisiteGraph::sort`]);
    /// normalises every chunk's order on the way.
    fn keys_ahead(&self, chunks: &mut [Map], info: &mut [ChunkInfo], cap: i64) -> Vec<(Num, Num)> {
        // What a node's key reads of each dependent (the order before
        // normalising, a symbolic one as a number), then the chunk's own
        // normalised order.
        let orders: Vec<(Num, Num)> = chunks
            .par_iter_mut()
            .zip(info.par_iter_mut())
            .with_min_len(Resolved::RUN)
            .map(|(chunk, ci)| (seen_order(chunk, ci, cap).0, own_order(chunk, ci, cap)))
            .collect();
        (0..orders.len())
            .into_par_iter()
            .with_min_len(Resolved::RUN)
            .map(|i| {
                let own = orders[i].1;
                let effective = self.effective_order(NodeIndex::new(i), own, |c| orders[c].0);
                (effective, own)
            })
            .collect()
    }

    /// Kahn's algorithm over the graph, a node's key taken when it becomes
    /// ready.
    fn kahn<'g, R: Ord>(
        &'g self,
        mut key: impl FnMut(NodeIndex) -> SortKey<'g, R>,
    ) -> Result<Vec<NodeIndex>, ()> {
        let count = self.graph.node_count();
        let mut indegree: Vec<u32> = self
            .inn
            .iter()
            .map(|m| {
                m.iter()
                    .map(|(_, k)| k.len() as u32)
                    .fold(0, u32::saturating_add)
            })
            .collect();
        let mut heap = BinaryHeap::new();
        for n in self.graph.node_indices() {
            if indegree[n.index()] == 0 {
                heap.push(Reverse(key(n)));
            }
        }
        let mut seq = Vec::with_capacity(count);
        while let Some(Reverse(k)) = heap.pop() {
            let node = k.node;
            seq.push(node);
            for (t, kinds) in self.out[node.index()].iter() {
                let d = &mut indegree[t.index()];
                *d = d.saturating_sub(kinds.len() as u32);
                if *d == 0 {
                    heap.push(Reverse(key(t)));
                }
            }
        }
        if seq.len() == count {
            Ok(seq)
        } else {
            Err(())
        }
    }

    /// The first cycle a DFS over nodes in insertion order finds, as
    /// (dependency, dependent, kind) edges.
    pub fn find_cycle(&self) -> Vec<(NodeIndex, NodeIndex, ReqKind)> {
        const WHITE: u8 = 0;
        const GRAY: u8 = 1;
        const BLACK: u8 = 2;
        let count = self.graph.node_count();
        let flat: Vec<Vec<(NodeIndex, ReqKind)>> = self
            .graph
            .node_indices()
            .map(|n| self.dependents(n).collect())
            .collect();
        let mut color = vec![WHITE; count];
        let mut parent: Vec<Option<(NodeIndex, ReqKind)>> = vec![None; count];
        for start in self.graph.node_indices() {
            if color[start.index()] != WHITE {
                continue;
            }
            color[start.index()] = GRAY;
            let mut stack: Vec<(NodeIndex, usize)> = vec![(start, 0)];
            while let Some(top) = stack.last_mut() {
                let (node, pos) = *top;
                let Some(&(target, kind)) = flat[node.index()].get(pos) else {
                    color[node.index()] = BLACK;
                    stack.pop();
                    continue;
                };
                top.1 += 1;
                match color[target.index()] {
                    GRAY => {
                        let mut cycle = vec![(node, target, kind)];
                        let mut current = node;
                        while current != target {
                            let Some((prev, k)) = parent[current.index()] else {
                                break;
                            };
                            cycle.push((prev, current, k));
                            current = prev;
                        }
                        cycle.reverse();
                        return cycle;
                    }
                    WHITE => {
                        parent[target.index()] = Some((node, kind));
                        color[target.index()] = GRAY;
                        stack.push((target, 0));
                    }
                    _ => {}
                }
            }
        }
        Vec::new()
    }
}

/// A chunk's own sort order: its `order`, normalised in place unless that
/// would change nothing (see [`normalise_order`]).
fn own_order(chunk: &mut Map, ci: &mut ChunkInfo, cap: i64) -> Num {
    match ci.order() {
        OrderCache::Num(o) if !ci.name_order && !o.is_negative() => o,
        _ => {
            let o = normalise_order(chunk, cap);
            ci.set_order(OrderCache::Num(o));
            ci.name_order = false;
            o
        }
    }
}

/// A chunk's order as the key of a node it depends on reads it: as it is
/// (not normalised), a symbolic one as its number, none as infinity; and
/// whether it was symbolic (Salt writes that number back).
fn seen_order(chunk: &Map, ci: &ChunkInfo, cap: i64) -> (Num, bool) {
    match ci.order() {
        OrderCache::Missing => (Num::Float(f64::INFINITY), false),
        OrderCache::Num(o) => (o, false),
        OrderCache::Other => match chunk.get("order") {
            None => (Num::Float(f64::INFINITY), false),
            Some(v) => match Num::of(v) {
                Some(o) => (o, false),
                None => (symbolic_order(Some(v), cap), true),
            },
        },
    }
}

/// Salt's sort key of a node: `rank`, then the `state + name + fun` label,
/// the tag and the node ([`RequisiteGraph::tie_break`], from the node's tag
/// parts, as if spelled out: most keys differ in their ranks). The rank is
/// (effective order, own order), or both folded into one integer
/// ([`order_bits`]).
#[derive(Debug, Clone)]
struct SortKey<'g, R> {
    rank: R,
    node: NodeIndex,
    graph: &'g RequisiteGraph,
}

impl<R: Ord> Ord for SortKey<'_, R> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank
            .cmp(&other.rank)
            .then_with(|| self.graph.tie_break(self.node, other.node))
    }
}

impl<R: Ord> PartialOrd for SortKey<'_, R> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<R: Ord> PartialEq for SortKey<'_, R> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl<R: Ord> Eq for SortKey<'_, R> {}

/// An order as bits that sort as [`Num`] compares: floats by `total_cmp`,
/// integers exactly, so only while no integer is past 2^53.
fn order_bits(n: Num) -> Option<u64> {
    let x = match n {
        Num::Int(i) if i.unsigned_abs() <= 1 << 53 => i as f64,
        Num::Int(_) => return None,
        Num::Float(f) => f,
    };
    // `f64::total_cmp`'s key, shifted to sort unsigned.
    let bits = x.to_bits() as i64;
    let key = bits ^ ((((bits >> 63) as u64) >> 1) as i64);
    Some((key as u64) ^ (1 << 63))
}

/// Compare the concatenations of two lists of strings (byte order, as
/// `str` compares) without building them.
fn cmp_concat(a: &[&str], b: &[&str]) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (mut a, mut b) = (
        a.iter().map(|s| s.as_bytes()),
        b.iter().map(|s| s.as_bytes()),
    );
    let (mut x, mut y): (&[u8], &[u8]) = (&[], &[]);
    loop {
        while x.is_empty() {
            match a.next() {
                Some(next) => x = next,
                None => break,
            }
        }
        while y.is_empty() {
            match b.next() {
                Some(next) => y = next,
                None => break,
            }
        }
        match (x.is_empty(), y.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            (false, false) => {}
        }
        let n = x.len().min(y.len());
        match x[..n].cmp(&y[..n]) {
            Ordering::Equal => (x, y) = (&x[n..], &y[n..]),
            unequal => return unequal,
        }
    }
}

/// The ordered result: the chunks and the sequence in which the lowstate
/// lists them (a prerequired chunk appears twice in 3008).
#[derive(Debug, Clone)]
pub struct Lowstate {
    /// The compiled chunks (each once).
    pub chunks: Vec<Map>,
    /// Indices into `chunks`, in lowstate order.
    pub sequence: Vec<usize>,
    /// 3008 only: the requisite graph.
    pub graph: Option<RequisiteGraph>,
    /// 3008 only: the graph's nodes in lowstate order (parallel to
    /// `sequence`; prereq test nodes included). Empty for 3006/3007.
    pub nodes: Vec<NodeIndex>,
}

impl Lowstate {
    /// The lowstate as `state.show_lowstate` prints it.
    pub fn to_list(&self) -> Vec<Map> {
        self.sequence
            .iter()
            .map(|&i| self.chunks[i].clone())
            .collect()
    }

    /// Like [`Lowstate::to_list`], moving chunks out (cloning only the
    /// ones listed twice).
    pub fn into_list(self) -> Vec<Map> {
        let mut uses = vec![0usize; self.chunks.len()];
        for &i in &self.sequence {
            uses[i] += 1;
        }
        let mut slots: Vec<Option<Map>> = self.chunks.into_iter().map(Some).collect();
        let mut out = Vec::with_capacity(self.sequence.len());
        for &i in &self.sequence {
            uses[i] -= 1;
            let chunk = if uses[i] == 0 {
                slots[i].take()
            } else {
                slots[i].clone()
            };
            out.extend(chunk);
        }
        out
    }
}

/// 3008: `watch` on a module without `mod_watch` becomes `require`
/// (`watch_any` → `require_any`), appended to any existing list.
pub fn reconcile_watch(chunk: &mut Map, opts: &LowOptions) {
    if !chunk.contains_key("watch") && !chunk.contains_key("watch_any") {
        return;
    }
    let state = chunk.get("state").map(Value::py_str).unwrap_or_default();
    if opts.has_mod_watch(&state) {
        return;
    }
    for (from, to) in [("watch", "require"), ("watch_any", "require_any")] {
        if !chunk.contains_key(from) {
            continue;
        }
        if !chunk.contains_key(to) {
            chunk.insert(to.into(), Value::List(crate::value::List::new()));
        }
        let moved = chunk
            .shift_remove(from)
            .map(|v| py_iter(&v))
            .unwrap_or_default();
        if let Some(Value::List(l)) = chunk.get_mut(to) {
            l.extend(moved);
        }
    }
}

/// Order compiled chunks into the lowstate (see the module doc). Errors:
/// 3008's missing-requisite messages (first per chunk) and the cycle message.
pub fn order_chunks(
    mut chunks: Vec<Map>,
    opts: &LowOptions,
    sources: &SourceMap,
) -> Result<Lowstate, Vec<Diagnostic>> {
    if !opts.version.uses_graph() {
        let chunks = sort_chunks(chunks);
        let sequence = (0..chunks.len()).collect();
        return Ok(Lowstate {
            chunks,
            sequence,
            graph: None,
            nodes: Vec::new(),
        });
    }
    let mut g = RequisiteGraph::with_capacity(chunks.len());
    // Indexing goes in chunk order (a parallel scan first was no faster:
    // the indexing is bound on its hash tables, and reads the chunks again).
    let mut info = g.index_chunks(&chunks);
    g.shrink_indexes();
    // With every chunk indexed, each chunk's requisites resolve on their
    // own: `reconcile_watch` touches only its chunk, and the lookups only
    // read the indexes. Edges then go in sequentially, in chunk order, so
    // nodes, edges and errors come out as with Salt's single pass.
    let disabled = &opts.disabled_requisites;
    let resolved: Vec<Resolved> = {
        let g = &g;
        chunks
            .par_chunks_mut(Resolved::RUN)
            .zip(info.par_chunks_mut(Resolved::RUN))
            .map(|(run, infos)| {
                let mut r = Resolved {
                    ends: Vec::with_capacity(run.len()),
                    tails: Vec::with_capacity(run.len()),
                    ..Resolved::default()
                };
                for (j, (chunk, ci)) in run.iter_mut().zip(infos).enumerate() {
                    r.tails.push(watch_ahead(chunk, ci, opts));
                    if let Err(e) = g.resolve(chunk, ci, disabled, &mut r.edges) {
                        r.errors.push((j, e));
                    }
                    r.ends
                        .push(u32::try_from(r.edges.len()).unwrap_or(u32::MAX));
                }
                r.edges.shrink_to_fit();
                r
            })
            .collect()
    };
    g.drop_lookups();
    g.watch_tail = resolved
        .iter()
        .flat_map(|r| r.tails.iter().copied())
        .collect();
    let mut errors = Vec::new();
    let mut cap: i64 = 1;
    // Each run's resolution is freed once its edges are in.
    for (run, r) in resolved.into_iter().enumerate() {
        let mut problems = r.errors.into_iter().peekable();
        let mut start = 0;
        for (j, &end) in r.ends.iter().enumerate() {
            let i = run * Resolved::RUN + j;
            let end = end as usize;
            // Salt reconciles this chunk now: flags set from here on append.
            g.watch_tail[i] = 0;
            g.add_edges(&mut chunks, i, r.edges.get(start..end).unwrap_or(&[]));
            start = end;
            match problems.next_if(|(at, _)| *at == j) {
                Some((_, (kind, message))) => {
                    let code = if message.starts_with("Referenced") {
                        codes::MISSING_REQUISITE
                    } else {
                        codes::BAD_REQUISITE
                    };
                    let (id, state) = id_state(&chunks[i]);
                    let near = near_target(&chunks, &message);
                    errors.push(
                        Diagnostic::new(code, message)
                            .with_subject(
                                SLS,
                                chunks[i]
                                    .get("__sls__")
                                    .map(Value::py_str)
                                    .unwrap_or_default(),
                            )
                            .with_subject(ID, id.clone())
                            .or_primary(sources.arg(&id, &state, kind.as_str()))
                            .or_primary(sources.id(&id))
                            .with_notes(near.map(|n| format!("did you mean `{n}`?"))),
                    );
                }
                None => cap = compute_cap_step(cap, info[i].int_order()),
            }
        }
    }
    g.watch_tail = Vec::new();
    match g.sort(&mut chunks, &mut info, cap) {
        Ok(nodes) => {
            if !errors.is_empty() {
                return Err(errors);
            }
            let sequence = nodes.iter().map(|n| g.graph[*n].chunk).collect();
            Ok(Lowstate {
                chunks,
                sequence,
                graph: Some(g),
                nodes,
            })
        }
        Err(()) => {
            errors.push(cycle_error(&g, &chunks, sources));
            Err(errors)
        }
    }
}

/// The 3008 requisite graph of chunks already compiled and ordered (a
/// lowstate as `state.show_lowstate` prints it, each chunk once): the same
/// indexes, resolver and edge rules as [`order_chunks`], without
/// reconciling `watch` or sorting. Chunks get the `__prereq__` /
/// `__prerequiring__` flags Salt sets. Errors: each failing chunk's first
/// problem, in chunk order.
pub fn requisite_graph(chunks: &mut [Map]) -> Result<RequisiteGraph, Vec<(usize, String)>> {
    let mut g = RequisiteGraph::with_capacity(chunks.len());
    let info = g.index_chunks(chunks);
    g.shrink_indexes();
    let mut errors = Vec::new();
    let mut edges = Vec::new();
    for (i, ci) in info.iter().enumerate() {
        edges.clear();
        if let Err((_, message)) = g.resolve(&chunks[i], ci, &[], &mut edges) {
            errors.push((i, message));
        }
        g.add_edges(chunks, i, &edges);
    }
    g.drop_lookups();
    if errors.is_empty() {
        Ok(g)
    } else {
        Err(errors)
    }
}

/// Chunk `ci`'s `reconcile_watch`, done ahead of its turn: how many keys it
/// appended (see `RequisiteGraph::flag`). Rescans the requisite keys.
fn watch_ahead(chunk: &mut Map, ci: &mut ChunkInfo, opts: &LowOptions) -> u8 {
    if !ci.has_watch {
        return 0;
    }
    let had = [
        chunk.contains_key("require"),
        chunk.contains_key("require_any"),
    ];
    reconcile_watch(chunk, opts);
    let has = [
        chunk.contains_key("require"),
        chunk.contains_key("require_any"),
    ];
    ci.rescan_reqs(chunk);
    had.iter().zip(has).filter(|(h, n)| !**h && *n).count() as u8
}

fn compute_cap_step(cap: i64, order: Option<i64>) -> i64 {
    match order {
        Some(o) if o > cap - 1 && o > 0 => o.saturating_add(100),
        _ => cap,
    }
}

fn id_state(chunk: &Map) -> (String, String) {
    (
        chunk.get("__id__").map(Value::py_str).unwrap_or_default(),
        chunk.get("state").map(Value::py_str).unwrap_or_default(),
    )
}

/// `{'SLS': ..., 'ID': ...[, 'NAME': ...]}` as Python prints it.
fn chunk_str(chunk: &Map) -> String {
    let mut m = Map::new();
    m.insert(
        "SLS".into(),
        chunk.get("__sls__").cloned().unwrap_or_default(),
    );
    let id = chunk.get("__id__").cloned().unwrap_or_default();
    let name = chunk.get("name").cloned().unwrap_or_default();
    m.insert("ID".into(), id.clone());
    if id != name {
        m.insert("NAME".into(), name);
    }
    Value::Map(m).py_repr()
}

/// For a requisite that names no state (`Referenced state does not exist
/// for requisite [require: (pkg: ngnix)] ...`): the closest ID or name of
/// a state of that module, written as the requisite would be
/// (`pkg: nginx`).
fn near_target(chunks: &[Map], message: &str) -> Option<String> {
    let target = message.strip_prefix("Referenced state does not exist for requisite [")?;
    let (_, target) = target.split_once(": (")?;
    let (module, rest) = target.split_once(": ")?;
    let (name, _) = rest.split_once(")] in state [")?;
    let known: std::collections::BTreeSet<String> = chunks
        .iter()
        .filter(|c| c.get("state").and_then(Value::as_str) == Some(module))
        .flat_map(|c| ["__id__", "name"].map(|k| c.get(k).map(Value::py_str)))
        .flatten()
        .collect();
    let near = crate::rules::suggest(name, known.iter().map(String::as_str))?;
    Some(format!("{module}: {near}"))
}

fn cycle_error(g: &RequisiteGraph, chunks: &[Map], sources: &SourceMap) -> Diagnostic {
    let mut parts = Vec::new();
    let mut labels: Vec<Label> = Vec::new();
    for (dependency, dependent, kind) in g.find_cycle() {
        let dep_chunk = &chunks[g.graph[dependency].chunk];
        let chunk = &chunks[g.graph[dependent].chunk];
        let shown = if kind == ReqKind::Require && !chunk.contains_key(kind.as_str()) {
            ReqKind::Prereq
        } else {
            kind
        };
        parts.push(format!(
            "({}, '{shown}', {})",
            chunk_str(chunk),
            chunk_str(dep_chunk)
        ));
        // Point at the declaration: on the dependent, or (for *_in / prereq)
        // on the dependency.
        let declaring = if chunk.contains_key(shown.as_str()) {
            chunk
        } else {
            dep_chunk
        };
        let (id, state) = id_state(declaring);
        if let Some(l) = sources.arg(&id, &state, shown.as_str()) {
            labels.push(l);
        }
    }
    let mut d = Diagnostic::new(
        codes::REQUISITE_CYCLE,
        format!("Recursive requisites were found: {}", parts.join(", ")),
    );
    if let Some(first) = labels.first().cloned() {
        d = d.with_primary(first);
    }
    for l in labels {
        d = d.with_secondary(l);
    }
    d
}

#[cfg(test)]
mod tests {
    use super::{KeyIndex, Kinds, ReqKind};
    use petgraph::graph::NodeIndex;

    #[test]
    fn indexing_on_two_threads_builds_the_same_graph_as_on_one() {
        use super::RequisiteGraph;
        use crate::value::{list, Map, Value};
        let s = |v: &str| Value::Str(v.into());
        // Varied chunks: names equal to or apart from IDs, repeated tags,
        // a non-string module, missing fields, SLS and includer lists,
        // prereq flags; more of them than one run of the follower.
        let chunks: Vec<Map> = (0..3000)
            .map(|i| {
                let mut m = Map::new();
                let module = match i % 7 {
                    0 => Value::Int(7),
                    1 => s("pkg"),
                    _ => s("test"),
                };
                m.insert("state".into(), module);
                let id = format!("id-{}", i / 3);
                if i % 5 != 4 {
                    let name = if i % 2 == 0 {
                        id.clone()
                    } else {
                        format!("name {i}")
                    };
                    m.insert("name".into(), s(&name));
                }
                m.insert("__id__".into(), s(&id));
                if i % 11 != 0 {
                    m.insert("__sls__".into(), s(&format!("sls{}", i / 40)));
                }
                match i % 13 {
                    0 => {
                        m.insert(
                            "__sls_included_from__".into(),
                            Value::List(list![s("top"), s(&format!("inc{}", i % 4))]),
                        );
                    }
                    1 => {
                        m.insert("__sls_included_from__".into(), s("one"));
                    }
                    _ => {}
                }
                if i % 17 == 0 {
                    m.insert("prereq".into(), Value::List(list![s("id-1")]));
                }
                if i % 19 != 0 {
                    m.insert(
                        "fun".into(),
                        s(if i % 3 == 0 { "installed" } else { "run" }),
                    );
                }
                m
            })
            .collect();
        let build = |two_threads: bool| {
            let mut g = RequisiteGraph::with_capacity(chunks.len());
            let info = g.index_chunks_on(&chunks, two_threads);
            format!("{g:?}\n{info:?}")
        };
        let one = build(false);
        assert!(one.contains("sls74") && one.contains("inc3") && one.contains("name 2997"));
        assert_eq!(one, build(true));
    }

    #[test]
    fn prereq_flag_on_a_later_watching_chunk_keeps_salts_key_order() {
        use crate::salt::low::LowOptions;
        use crate::value::{Map, Value};
        let chunk = |id: &str, extra: &[(&str, Value)]| {
            let mut m = Map::new();
            for (k, v) in [
                ("state", "nomodwatch"),
                ("__id__", id),
                ("name", id),
                ("fun", "run"),
                ("__sls__", "s"),
            ] {
                m.insert(k.into(), Value::Str(v.into()));
            }
            for (k, v) in extra {
                m.insert((*k).into(), v.clone());
            }
            m
        };
        let req = |id: &str| Value::List(crate::value::list![Value::Str(id.into())]);
        let chunks = vec![
            chunk("a", &[("prereq", req("b"))]),
            chunk("b", &[("watch", req("c"))]),
            chunk("c", &[]),
        ];
        let opts = LowOptions::default();
        let low = super::order_chunks(chunks, &opts, &Default::default()).expect("orders");
        let keys: Vec<String> = low.chunks[1].keys().map(|k| k.py_str()).collect();
        assert_eq!(
            keys,
            [
                "state",
                "__id__",
                "name",
                "fun",
                "__sls__",
                "__prereq__",
                "require",
                "order"
            ]
        );
    }

    #[test]
    fn interner_keeps_slots_in_insertion_order() {
        let mut i = super::Interner::default();
        let words = ["web", "", "db", "web-1", "w", "eb"];
        for (n, w) in words.iter().enumerate() {
            assert_eq!(i.insert(w), n);
        }
        assert_eq!(i.insert("db"), 2);
        assert_eq!(i.len(), words.len());
        for (n, w) in words.iter().enumerate() {
            assert_eq!(i.get(n), Some(*w));
            assert_eq!(i.find(w), Some(n));
        }
        assert_eq!(i.find("we"), None);
        assert_eq!(i.get(words.len()), None);
    }

    #[test]
    fn packed_kinds_keep_insertion_order() {
        let mut k = Kinds::default();
        assert_eq!(k.len(), 0);
        for kind in ReqKind::ALL.iter().rev() {
            assert!(!k.contains(*kind));
            k.push(*kind);
            assert!(k.contains(*kind));
        }
        let back: Vec<ReqKind> = k.iter().collect();
        let want: Vec<ReqKind> = ReqKind::ALL.iter().rev().copied().collect();
        assert_eq!(back, want);
    }

    #[test]
    fn edge_rank_matches_edge_kinds() {
        for (i, k) in ReqKind::EDGE_KINDS.iter().enumerate() {
            assert_eq!(super::edge_rank(k.as_str()), Some(i as u8));
        }
        assert_eq!(super::edge_rank("listen"), None);
        assert_eq!(super::edge_rank("require_in"), None);
    }

    #[test]
    fn key_index_globs_in_insertion_order_after_late_inserts() {
        let mut names = super::Interner::default();
        let mut slot = |s: &str| names.insert(s) as u32;
        let (wb, db, wa, w0) = (slot("web-b"), slot("db"), slot("web-a"), slot("web-0"));
        let mut idx = KeyIndex::default();
        for (i, key) in [wb, db, wa].into_iter().enumerate() {
            idx.add(key, NodeIndex::new(i));
        }
        let flat = |hits: Vec<&[NodeIndex]>| -> Vec<Vec<NodeIndex>> {
            hits.into_iter().map(<[NodeIndex]>::to_vec).collect()
        };
        let hits = flat(idx.glob(&names, "web-*"));
        assert_eq!(hits, [vec![NodeIndex::new(0)], vec![NodeIndex::new(2)]]);
        // A key added after the sorted view was built is still found.
        idx.add(w0, NodeIndex::new(3));
        idx.add(wa, NodeIndex::new(4));
        let hits = flat(idx.glob(&names, "web-?"));
        assert_eq!(
            hits,
            [
                vec![NodeIndex::new(0)],
                vec![NodeIndex::new(2), NodeIndex::new(4)],
                vec![NodeIndex::new(3)]
            ]
        );
        assert!(idx.glob(&names, "x*").is_empty());
    }

    use crate::salt::config::SaltVersion;
    use crate::salt::high::SourceMap;
    use crate::salt::low::LowOptions;
    use crate::salt::pipeline::high_to_low;
    use crate::value::Value;
    use serde_json::{json, Value as Json};

    /// Build high data from `(id, module, fun, order, extra args)` rows in SLS `main`.
    fn high(states: &[(&str, &str, Json, Vec<Json>)]) -> crate::value::Map {
        let mut m = serde_json::Map::new();
        for (id, module, order, extra) in states {
            let mut args = vec![json!("nop")];
            args.extend(extra.iter().cloned());
            if !order.is_null() {
                args.push(json!({ "order": order }));
            }
            m.insert(
                id.to_string(),
                json!({ *module: args, "__sls__": "main", "__env__": "base" }),
            );
        }
        match Value::from_json(&Json::Object(m)) {
            Value::Map(m) => m,
            _ => unreachable!(),
        }
    }

    fn run(h: crate::value::Map, version: SaltVersion) -> Result<Vec<Json>, Vec<String>> {
        high_to_low(h, &LowOptions::new(version), &SourceMap::default())
            .map(|l| l.into_iter().map(|c| Value::Map(c).to_json()).collect())
            .map_err(|e| e.into_iter().map(|d| d.message).collect())
    }

    fn ids(chunks: &[Json]) -> Vec<String> {
        chunks
            .iter()
            .map(|c| c["__id__"].as_str().unwrap_or("?").to_string())
            .collect()
    }

    fn req(kind: &str, target: &str) -> Json {
        json!({ kind: [{"test": target}] })
    }

    thread_local! {
        /// Makes [`super::RequisiteGraph::sort`] take each key when its
        /// node becomes ready, as Salt does, even with one node per chunk.
        pub(super) static LAZY_SORT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    #[test]
    fn order_bits_sort_as_nums_compare() {
        use super::{order_bits, Num};
        let big = 1i64 << 53;
        let nums = [
            Num::Float(-f64::NAN),
            Num::Float(f64::NEG_INFINITY),
            Num::Int(-big),
            Num::Float(-1.5),
            Num::Int(-1),
            Num::Float(-0.0),
            Num::Int(0),
            Num::Float(0.0),
            Num::Float(1e-300),
            Num::Float(0.0002),
            Num::Int(1),
            Num::Float(1.0),
            Num::Float(50.0002),
            Num::Int(10000),
            Num::Float(10000.5),
            Num::Int(big),
            Num::Float(f64::INFINITY),
            Num::Float(f64::NAN),
        ];
        for a in nums {
            for b in nums {
                let (x, y) = (order_bits(a).unwrap(), order_bits(b).unwrap());
                assert_eq!(x.cmp(&y), a.cmp(&b), "{a:?} vs {b:?}");
            }
        }
        assert_eq!(order_bits(Num::Int(big + 1)), None);
        assert_eq!(order_bits(Num::Int(i64::MIN)), None);
    }

    #[test]
    fn keys_worked_out_ahead_sort_as_keys_taken_when_ready() {
        // Random trees of states with every kind of order (numbers of both
        // types, symbolic, missing, negative, past 2^53, `names`) and
        // requisites, sorted with keys worked out ahead and with keys taken
        // when each node becomes ready: same chunks, same order.
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let kinds = [
            "require",
            "watch",
            "onchanges",
            "onfail",
            "use",
            "listen",
            "prereq",
        ];
        for round in 0..60 {
            let count = 2 + next(40) as usize;
            let mut rows = Vec::new();
            for i in 0..count {
                let order = match next(9) {
                    0 => json!("first"),
                    1 => json!("last"),
                    2 => Json::Null,
                    3 => json!(-(next(5) as i64) - 1),
                    4 => json!(next(4) as f64 + 0.5),
                    5 if round % 3 == 0 => json!((1i64 << 60) + next(3) as i64),
                    _ => json!(10000 + next(6)),
                };
                let mut extra = Vec::new();
                if next(4) == 0 {
                    extra.push(json!({"names": ["a", {"b": [{"order": next(3)}]}, "c"]}));
                }
                for _ in 0..next(3) {
                    // Mostly earlier states; a later one may close a cycle.
                    let target = if next(8) == 0 {
                        next(count as u64)
                    } else {
                        next(i as u64 + 1)
                    };
                    // prereq makes test nodes: the sort then takes keys when ready anyway.
                    let kind = kinds[next(if round % 5 == 0 { 7 } else { 6 }) as usize];
                    if target as usize != i {
                        extra.push(req(kind, &format!("s{target}")));
                    }
                }
                rows.push((format!("s{i}"), order, extra));
            }
            let rows: Vec<(&str, &str, Json, Vec<Json>)> = rows
                .iter()
                .map(|(id, order, extra)| (id.as_str(), "test", order.clone(), extra.clone()))
                .collect();
            let h = high(&rows);
            let ahead = run(h.clone(), SaltVersion::V3008);
            LAZY_SORT.set(true);
            let lazy = run(h, SaltVersion::V3008);
            LAZY_SORT.set(false);
            assert_eq!(ahead, lazy, "round {round}");
        }
    }

    #[test]
    fn pull_forward_is_one_level() {
        let h = high(&[
            ("X", "test", json!(10000), vec![req("require", "D")]),
            ("Y", "test", json!(10001), vec![]),
            ("P", "test", json!(10002), vec![]),
            ("D", "test", json!(10003), vec![req("require", "E")]),
            ("Q", "test", json!(10004), vec![]),
            ("E", "test", json!(10005), vec![]),
        ]);
        assert_eq!(
            ids(&run(h.clone(), SaltVersion::V3008).unwrap()),
            ["Y", "P", "E", "D", "X", "Q"]
        );
        assert_eq!(
            ids(&run(h, SaltVersion::V3006).unwrap()),
            ["X", "Y", "P", "D", "Q", "E"]
        );
    }

    #[test]
    fn weight_filter_ignores_lighter_later_edges() {
        let watched_first = high(&[
            ("X", "test", json!(20), vec![req("watch", "D")]),
            ("Y", "test", json!(10), vec![req("require", "D")]),
            ("Z", "test", json!(15), vec![]),
            ("D", "test", json!(25), vec![]),
        ]);
        assert_eq!(
            ids(&run(watched_first, SaltVersion::V3008).unwrap()),
            ["Z", "D", "Y", "X"]
        );
        let required_first = high(&[
            ("Y", "test", json!(10), vec![req("require", "D")]),
            ("X", "test", json!(20), vec![req("watch", "D")]),
            ("Z", "test", json!(15), vec![]),
            ("D", "test", json!(25), vec![]),
        ]);
        assert_eq!(
            ids(&run(required_first, SaltVersion::V3008).unwrap()),
            ["D", "Y", "Z", "X"]
        );
    }

    #[test]
    fn first_last_negative_and_cap() {
        let h = high(&[
            ("last", "test", json!("last"), vec![]),
            ("neg", "test", json!(-1), vec![]),
            ("plain", "test", json!(10000), vec![]),
            ("first", "test", json!("first"), vec![]),
            ("none", "test", Json::Null, vec![]),
        ]);
        let out = run(h, SaltVersion::V3008).unwrap();
        assert_eq!(ids(&out), ["first", "plain", "none", "neg", "last"]);
        let orders: Vec<&Json> = out.iter().map(|c| &c["order"]).collect();
        assert_eq!(
            orders,
            [
                &json!(0),
                &json!(10000),
                &json!(10100),
                &json!(1010099),
                &json!(1010100)
            ]
        );
        // A missing order is added at the end of the chunk, after `fun`.
        let keys: Vec<&String> = out[2].as_object().unwrap().keys().collect();
        assert_eq!(keys.last().map(|s| s.as_str()), Some("order"));
    }

    #[test]
    fn prereq_lists_the_target_twice() {
        let h = high(&[
            ("first", "test", json!(10000), vec![]),
            ("down", "test", json!(10001), vec![req("prereq", "deploy")]),
            ("deploy", "test", json!(10002), vec![]),
        ]);
        let out = run(h, SaltVersion::V3008).unwrap();
        assert_eq!(ids(&out), ["first", "deploy", "down", "deploy"]);
        assert_eq!(out[1], out[3]);
        assert_eq!(out[1]["__prereq__"], json!(true));
        assert_eq!(out[2]["__prerequiring__"], json!(true));
    }

    #[test]
    fn graph_exposes_prereq_nodes_and_typed_edges() {
        let h = high(&[
            ("down", "test", json!(10001), vec![req("prereq", "deploy")]),
            ("deploy", "test", json!(10002), vec![req("require", "base")]),
            ("base", "test", json!(10000), vec![]),
        ]);
        let low = crate::salt::pipeline::high_to_lowstate(
            h,
            &LowOptions::default(),
            &SourceMap::default(),
        )
        .unwrap();
        let g = low.graph.as_ref().unwrap();
        assert_eq!(g.graph.node_count(), 4);
        let deploy = g.node("test_|-deploy_|-deploy_|-nop").unwrap();
        let check = g.prereq_node(deploy).unwrap();
        assert!(g.graph[check].prereq_test);
        assert_eq!(g.graph[check].chunk, g.graph[deploy].chunk);
        let down = g.node("test_|-down_|-down_|-nop").unwrap();
        let base = g.node("test_|-base_|-base_|-nop").unwrap();
        assert_eq!(
            g.dependents(check).collect::<Vec<_>>(),
            [(down, super::ReqKind::Prereq)]
        );
        assert_eq!(
            g.dependents(down).collect::<Vec<_>>(),
            [(deploy, super::ReqKind::Require)]
        );
        // The test node inherits the target's dependencies (added later here).
        assert_eq!(
            g.dependencies(check).collect::<Vec<_>>(),
            [(base, super::ReqKind::Require)]
        );
        assert_eq!(low.nodes.len(), low.sequence.len());
        assert_eq!(
            ids(&low
                .to_list()
                .into_iter()
                .map(|c| Value::Map(c).to_json())
                .collect::<Vec<_>>()),
            ["base", "deploy", "down", "deploy"]
        );
    }

    #[test]
    fn watch_without_mod_watch_becomes_require() {
        let h = high(&[
            (
                "cfg",
                "file",
                json!(10000),
                vec![req("require", "a"), req("watch", "b")],
            ),
            ("a", "test", json!(10001), vec![]),
            ("b", "test", json!(10002), vec![]),
            ("svc", "test", json!(10003), vec![req("watch", "a")]),
        ]);
        let out = run(h, SaltVersion::V3008).unwrap();
        let cfg = out.iter().find(|c| c["__id__"] == "cfg").unwrap();
        assert_eq!(cfg["require"], json!([{"test": "a"}, {"test": "b"}]));
        assert!(cfg.get("watch").is_none());
        let svc = out.iter().find(|c| c["__id__"] == "svc").unwrap();
        assert_eq!(svc["watch"], json!([{"test": "a"}]));
    }

    #[test]
    fn missing_requisite_and_cycle_messages() {
        let h = high(&[
            (
                "a",
                "test",
                json!(1),
                vec![json!({"require": [{"test": "ghost"}, {"test": "b"}]})],
            ),
            ("b", "test", json!(2), vec![req("require", "c")]),
            ("c", "test", json!(3), vec![json!({"require": ["b"]})]),
        ]);
        assert_eq!(
            run(h, SaltVersion::V3008).unwrap_err(),
            [
                "Referenced state does not exist for requisite [require: (test: ghost)] in state [a] in SLS [main]",
                "Recursive requisites were found: ({'SLS': 'main', 'ID': 'c'}, 'require', {'SLS': 'main', 'ID': 'b'}), ({'SLS': 'main', 'ID': 'b'}, 'require', {'SLS': 'main', 'ID': 'c'})",
            ]
        );
    }

    #[test]
    fn references_by_name_glob_and_sls() {
        let mut h = high(&[
            (
                "needs",
                "test",
                json!(1),
                vec![json!({"require": [{"file": "/etc/*"}, {"sls": "lib"}, {"id": "x"}]})],
            ),
            ("x", "test", json!(2), vec![]),
        ]);
        let extra = json!({
            "conf": {"file": [{"name": "/etc/app.conf"}, "managed", {"order": 3}], "__sls__": "main", "__env__": "base"},
            "inner": {"test": ["nop", {"order": 4}], "__sls__": "lib.inner", "__env__": "base", "__sls_included_from__": ["lib"]}
        });
        if let Value::Map(m) = Value::from_json(&extra) {
            h.extend(m);
        }
        let out = run(h, SaltVersion::V3008).unwrap();
        assert_eq!(ids(&out), ["x", "conf", "inner", "needs"]);
    }
}
