//! Ordering: turns compiled chunks into the lowstate sequence. For Salt 3008
//! it builds the requisite graph (`RequisiteGraph`: one node per chunk plus
//! prereq test nodes, typed edges dependency → dependent), reports missing
//! requisites and cycles with Salt's messages, and sorts topologically with
//! Salt's heap key; for 3006/3007 it sorts by `(order, state+name+fun)`.
//! The graph is kept in the result so execution simulation and drawing can
//! reuse it.

use crate::diag::codes;
use crate::diag::{Diagnostic, Label};
use crate::salt::high::extend::py_iter;
use crate::salt::high::SourceMap;
use crate::salt::low::{normalise_order, sort_chunks, symbolic_order, LowOptions, Num};
use crate::salt::render::jinja::reads::strict_eq;
pub use crate::salt::requisite::ReqKind;
use crate::salt::{ID, SLS};
use crate::value::{Map, Value};
use petgraph::graph::NodeIndex;
use rayon::prelude::*;

mod graph;
#[cfg(test)]
mod tests;

use graph::*;
pub use graph::{ReqNode, RequisiteGraph};

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

/// Whether ordering reads (or writes) a chunk's key `key`: its tag parts,
/// its orders, its requisites (and their `_in` and `use` forms, which
/// earlier steps read) and every `__dunder__` key. What ordering does to a
/// chunk depends on these alone; the other keys (a state's own
/// arguments) pass through it untouched, in their places.
pub fn order_reads(key: &str) -> bool {
    key.starts_with("__")
        || matches!(key, "state" | "name" | "fun" | "order" | "name_order")
        || crate::salt::requisite::is_requisite_key(key)
}

/// The keys of a chunk that name it ([`RETAGGED`]): a chunk may take new
/// values of these without ordering again (see [`replace_chunks`]).
pub const RETAGGED: [&str; 3] = ["__id__", "name", "fun"];

/// Put new versions of ordered chunks in place without ordering again:
/// each `(index, chunk)` must read the same as the old chunk to ordering
/// ([`ordering_reads`]), but for its ID, `name` and `fun`; the keys
/// ordering does not read may differ in any way. The graph keeps its
/// edges; nodes whose ID, name or function changed get their new tags,
/// and the sequence is sorted again with the ranks the last sort worked
/// out when one of them shares its rank (they are part of the
/// tie-break), which is what ordering the new chunks from scratch gives.
/// `false`, with nothing changed, when that is not certain: a chunk
/// ordering reads otherwise, an ID or name changed that a requisite
/// anywhere may name (one that named the state before and not after, or
/// the other way round, a glob), an ID another state has, a release
/// without the graph, a sort that kept no ranks, a new tag that is
/// another node's.
pub fn replace_chunks(low: &mut Lowstate, new: Vec<(usize, Map)>) -> bool {
    let Some(g) = low.graph.as_mut() else {
        return false;
    };
    let part = |c: &Map, key: &str| c.get(key).map(Value::py_str).unwrap_or_default();
    let (mut parts, mut before, mut renamed) = (Vec::new(), Vec::new(), Vec::new());
    let mut new_ids: std::collections::HashMap<String, String> = Default::default();
    for (i, chunk) in &new {
        let Some(old) = low.chunks.get(*i) else {
            return false;
        };
        if !same_entries(ordering_reads(old), ordering_reads(chunk)) {
            return false;
        }
        let was = RETAGGED.map(|k| part(old, k));
        let is = RETAGGED.map(|k| part(chunk, k));
        if RETAGGED
            .iter()
            .all(|k| same_value(old.get(*k), chunk.get(*k)))
        {
            continue;
        }
        if was[..2] != is[..2] || !same_value(old.get("name"), chunk.get("name")) {
            renamed.push([was[0].clone(), was[1].clone(), is[0].clone(), is[1].clone()]);
        }
        // Two states may not end up with one ID.
        if new_ids
            .insert(is[0].clone(), was[0].clone())
            .is_some_and(|o| o != was[0])
        {
            return false;
        }
        parts.push((*i, is));
        before.push((*i, was));
    }
    let changed: Vec<usize> = parts.iter().map(|(i, _)| *i).collect();
    let taken = |id: &str| {
        low.chunks.iter().enumerate().any(|(j, c)| {
            !changed.contains(&j) && c.get("__id__").and_then(Value::as_str) == Some(id)
        })
    };
    if before
        .iter()
        .zip(&parts)
        .any(|((_, was), (_, is))| was[0] != is[0] && taken(&is[0]))
    {
        return false;
    }
    if !renamed.is_empty() && may_name(&low.chunks, &renamed) {
        return false;
    }
    if !g.set_parts(&parts) {
        return false;
    }
    let sorted = match g.ties(&changed) {
        false => None,
        true => match g.resort() {
            Some(Ok(nodes)) => Some(nodes),
            // Not expected (the edges are the last sort's), but then the
            // old tags go back.
            _ => {
                g.set_parts(&before);
                return false;
            }
        },
    };
    for (i, chunk) in new {
        low.chunks[i] = chunk;
    }
    if let Some(nodes) = sorted {
        low.sequence = nodes.iter().map(|n| g.graph[*n].chunk).collect();
        low.nodes = nodes;
    }
    true
}

/// Whether a requisite of any chunk (in any form: `require`, `watch_in`,
/// `use`, ...) may name a renamed state differently now: a target it
/// matched before (its old ID or name) and not after (its new ones), or
/// the other way round; a glob; a target that is not a string. `renamed`:
/// per state, old ID, old name, new ID, new name.
fn may_name(chunks: &[Map], renamed: &[[String; 4]]) -> bool {
    let names_it = |target: &Value| match target.as_str() {
        Some(t) => {
            t.contains(['*', '?', '['])
                || renamed.iter().any(|[id, name, new_id, new_name]| {
                    (t == id || t == name) != (t == new_id || t == new_name)
                })
        }
        None => true,
    };
    chunks.iter().any(|c| {
        c.iter()
            .filter(|(k, _)| {
                k.as_str()
                    .is_some_and(crate::salt::requisite::is_requisite_key)
            })
            .flat_map(|(_, items)| py_iter(items))
            .any(|item| match &item {
                Value::Map(m) => m.values().any(names_it),
                other => names_it(other),
            })
    })
}

/// Whether two runs of keys and values are the same exactly: types told
/// apart (`1`, `1.0` and `true` differ), maps in the same order; what a
/// printed lowstate tells apart, unlike Python's `==`.
pub fn same_entries<'a>(
    a: impl Iterator<Item = (&'a Value, &'a Value)>,
    mut b: impl Iterator<Item = (&'a Value, &'a Value)>,
) -> bool {
    for (k, v) in a {
        match b.next() {
            Some((k2, v2)) if strict_eq(k, k2) && strict_eq(v, v2) => {}
            _ => return false,
        }
    }
    b.next().is_none()
}

/// [`same_entries`] for one value that may be missing.
pub fn same_value(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => strict_eq(a, b),
        (a, b) => a.is_none() && b.is_none(),
    }
}

/// A chunk's keys and values that ordering reads, but those that name it
/// ([`RETAGGED`]), in order: two chunks that give the same are ordered the
/// same way, and ordering does the same to them, as long as no requisite
/// names them differently (see [`replace_chunks`]).
pub fn ordering_reads(chunk: &Map) -> impl Iterator<Item = (&Value, &Value)> {
    chunk.iter().filter(|(k, _)| {
        k.as_str()
            .is_none_or(|k| !RETAGGED.contains(&k) && order_reads(k))
    })
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
    let mut near = NearTargets::default();
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
                    let near = near.suggest(&chunks, &message);
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

/// Did-you-mean for requisites that name no state: the IDs and names of
/// each state module's chunks, gathered once (at the first missing
/// target), and at most [`NearTargets::MAX`] suggestions a compile, so
/// that a tree whose every requisite misses stays linear.
#[derive(Default)]
struct NearTargets {
    by_module: Option<std::collections::HashMap<String, std::collections::BTreeSet<String>>>,
    made: usize,
}

impl NearTargets {
    /// Suggestions a compile makes at most.
    const MAX: usize = 64;

    /// For `Referenced state does not exist for requisite [require: (pkg:
    /// ngnix)] ...`: the closest ID or name of a state of that module,
    /// written as the requisite would be (`pkg: nginx`).
    fn suggest(&mut self, chunks: &[Map], message: &str) -> Option<String> {
        let target = message.strip_prefix("Referenced state does not exist for requisite [")?;
        let (_, target) = target.split_once(": (")?;
        let (module, rest) = target.split_once(": ")?;
        let (name, _) = rest.split_once(")] in state [")?;
        if self.made >= Self::MAX {
            return None;
        }
        self.made += 1;
        let index = self.by_module.get_or_insert_with(|| {
            let mut m: std::collections::HashMap<String, std::collections::BTreeSet<String>> =
                std::collections::HashMap::new();
            for c in chunks {
                let Some(state) = c.get("state").and_then(Value::as_str) else {
                    continue;
                };
                let known = m.entry(state.to_string()).or_default();
                for k in ["__id__", "name"] {
                    if let Some(v) = c.get(k) {
                        known.insert(v.py_str());
                    }
                }
            }
            m
        });
        let known = index.get(module)?;
        let near = crate::rules::suggest(name, known.iter().map(String::as_str))?;
        Some(format!("{module}: {near}"))
    }
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
