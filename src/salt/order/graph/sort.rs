//! Ordering the requisite graph: Salt's heap key of each node, Kahn's
//! algorithm with it (the ranks worked out ahead when each chunk has one
//! node, and kept, so that the sequence can be sorted again after an edit
//! changed only nodes' tags), and the cycle a failed sort reports.

use super::*;

impl RequisiteGraph {
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
    pub(in crate::salt::order) fn tie_break(
        &self,
        a: NodeIndex,
        b: NodeIndex,
    ) -> std::cmp::Ordering {
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
    /// The ranks are kept for [`RequisiteGraph::resort`] when they were
    /// worked out ahead.
    pub(in crate::salt::order) fn sort(
        &mut self,
        chunks: &mut [Map],
        info: &mut [ChunkInfo],
        cap: i64,
    ) -> Result<Vec<NodeIndex>, ()> {
        #[cfg(test)]
        let ahead = !crate::salt::order::tests::LAZY_SORT.get();
        #[cfg(not(test))]
        let ahead = true;
        self.ranks = None;
        if ahead && self.one_node_per_chunk(chunks.len()) {
            let keys = self.keys_ahead(chunks, info, cap);
            let sorted = self.kahn_ranked(&keys);
            self.ranks = Some(keys);
            return sorted;
        }
        self.kahn(|n| self.key(chunks, info, n, cap))
    }

    /// Kahn's algorithm with every node's rank known.
    fn kahn_ranked(&self, keys: &[(Num, Num)]) -> Result<Vec<NodeIndex>, ()> {
        // Both orders fold into one integer that sorts as they do, unless
        // an integer order is past 2^53 (compared exactly).
        let fast: Option<Vec<u128>> = keys
            .par_iter()
            .with_min_len(Resolved::RUN)
            .map(|&(effective, own)| {
                Some((u128::from(order_bits(effective)?) << 64) | u128::from(order_bits(own)?))
            })
            .collect();
        match fast {
            Some(fast) => self.kahn(|n| SortKey {
                rank: fast[n.index()],
                node: n,
                graph: self,
            }),
            None => self.kahn(|n| SortKey {
                rank: keys[n.index()],
                node: n,
                graph: self,
            }),
        }
    }

    /// Sort again with the ranks of the last sort (`None` when it did not
    /// keep them): the sequence after the tie-breaks changed
    /// ([`RequisiteGraph::set_parts`]) and nothing a rank reads.
    pub(in crate::salt::order) fn resort(&self) -> Option<Result<Vec<NodeIndex>, ()>> {
        self.ranks.as_deref().map(|keys| self.kahn_ranked(keys))
    }

    /// Whether the tie-break can matter to the nodes of these chunks: some
    /// other node has the same rank (`true` too when no ranks were kept).
    /// A node whose rank is its own is placed by its rank alone.
    pub(in crate::salt::order) fn ties(&self, chunks: &[usize]) -> bool {
        let Some(keys) = self.ranks.as_deref() else {
            return true;
        };
        chunks.iter().any(|&c| {
            let Some(mine) = self.chunk_nodes.get(c).and_then(|n| keys.get(n.index())) else {
                return true;
            };
            keys.iter().filter(|k| *k == mine).nth(1).is_some()
        })
    }

    /// Give the nodes of chunks new ID, `name` and `fun` parts, and so new
    /// tags (the sort's tie-break reads them; no edge depends on them once
    /// requisites are resolved). Only when the last sort kept its ranks
    /// (one node per chunk). `false`, with nothing changed, when a new tag
    /// would be another node's.
    pub(in crate::salt::order) fn set_parts(&mut self, changes: &[(usize, [String; 3])]) -> bool {
        if self.ranks.is_none() {
            return false;
        }
        let mut tags = std::collections::HashSet::new();
        for (c, [id, name, fun]) in changes {
            let Some(&n) = self.chunk_nodes.get(*c) else {
                return false;
            };
            let [state, _, _, _] = self.tag_strs(n.index());
            let tag = requisite::gen_tag(state, id, name, fun);
            if self.node(&tag).is_some_and(|m| m != n) || !tags.insert(tag) {
                return false;
            }
        }
        for (c, [id, name, fun]) in changes {
            let n = self.chunk_nodes[*c];
            let old = Interner::hash(&self.tag(n));
            if let Ok(e) = self.tag_index.find_entry(old, |&j| j as usize == n.index()) {
                e.remove();
            }
            let parts = [self.intern(id), self.intern(name), self.intern(fun)];
            if let Some(p) = self.tag_parts.get_mut(n.index()) {
                [p[1], p[2], p[3]] = parts;
            }
            self.index_tag(n, Interner::hash(&self.tag(n)));
        }
        true
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
