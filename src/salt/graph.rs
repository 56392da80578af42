//! The requisite graph as Salt's output stages see it: chunks, Salt 3008's
//! extra prereq test nodes, typed edges (dependency → dependent) and the
//! execution order. `simulate` and the order report read a [`ChunkGraph`];
//! [`ChunkGraph::to_plan`] turns it into the core's neutral [`Plan`] for the
//! renderers.
//!
//! A `ChunkGraph` is built from the compiler's own requisite graph
//! ([`ChunkGraph::from_ordered`]), or from an ordered lowstate (the list
//! `state.show_lowstate` prints, prereq targets listed twice) by running the
//! same resolver (`order::requisite_graph`) over its chunks.

use crate::plan::{EdgeFamily, EdgeStyle, Plan, PlanEdge, PlanNode};
use crate::salt::order::{requisite_graph, Lowstate, RequisiteGraph};
pub use crate::salt::requisite::{gen_tag, EdgeBase, ReqKind};
use crate::value::{Map, Value};
use std::collections::HashMap;
use std::fmt;

impl ReqKind {
    /// Colour by family (require grey, watch blue, prereq purple, onfail
    /// red, onchanges green); `_any`/`_all` forms dashed.
    pub fn style(self) -> EdgeStyle {
        let color = self.base().family().color();
        let line = if self.is_any() || self.is_all() {
            "dashed"
        } else if self == ReqKind::Prereq {
            "dotted"
        } else if self.base() == EdgeBase::Watch {
            "bold"
        } else {
            "solid"
        };
        EdgeStyle { color, line }
    }
}

impl Edge {
    /// The style of this edge: the ordering `require` a prereq adds is drawn
    /// in the prereq colour, dotted.
    pub fn style(&self) -> EdgeStyle {
        if self.origin == EdgeOrigin::PrereqOrder {
            return EdgeStyle {
                color: ReqKind::Prereq.style().color,
                line: "dotted",
            };
        }
        self.kind.style()
    }

    /// The label drawn on the edge.
    pub fn label(&self) -> String {
        match self.origin {
            EdgeOrigin::PrereqOrder => format!("{} (prereq)", self.kind),
            _ => self.kind.to_string(),
        }
    }
}

impl ChunkGraph {
    /// Position of each node in the execution order (first occurrence).
    pub fn positions(&self) -> Vec<Option<usize>> {
        crate::plan::first_positions(&self.order, self.nodes.len())
    }

    /// A node's multi-line label: `state.fun`, ID, `(name)` when different,
    /// and `[prereq test]` for test nodes.
    pub fn node_label_lines(&self, node: usize) -> Vec<String> {
        let c = self.node_chunk(node);
        let mut lines = vec![c.state_fun(), c.id.clone()];
        let name = c.name_str();
        if name != c.id {
            lines.push(format!("({name})"));
        }
        if self.nodes[node].prereq_test {
            lines.push("[prereq test]".into());
        }
        lines
    }
}

/// One low chunk with the fields every consumer needs pulled out.
#[derive(Debug, Clone)]
pub struct GraphChunk {
    /// The chunk as in the lowstate (a map).
    pub chunk: Value,
    /// Salt's tag `state_|-id_|-name_|-fun`.
    pub tag: String,
    /// State module (`pkg`).
    pub state: String,
    /// State ID (`__id__`).
    pub id: String,
    /// `name` (any value).
    pub name: Value,
    /// Function (`installed`).
    pub fun: String,
    /// `__sls__`.
    pub sls: String,
    /// `__env__`.
    pub env: String,
}

impl GraphChunk {
    /// Read the identifying fields of a chunk; `None` if it is not a map or
    /// lacks `state`/`__id__`/`name`/`fun`.
    pub fn new(chunk: &Value) -> Option<GraphChunk> {
        let state = chunk.get("state")?.as_str()?.to_string();
        let id = chunk.get("__id__")?.py_str();
        let name = chunk.get("name")?.clone();
        let fun = chunk.get("fun")?.as_str()?.to_string();
        let sls = chunk.get("__sls__").map(Value::py_str).unwrap_or_default();
        let env = chunk.get("__env__").map(Value::py_str).unwrap_or_default();
        let tag = gen_tag(&state, &id, &name.py_str(), &fun);
        Some(GraphChunk {
            chunk: chunk.clone(),
            tag,
            state,
            id,
            name,
            fun,
            sls,
            env,
        })
    }

    /// `name` as a string (Python `str()`).
    pub fn name_str(&self) -> String {
        self.name.py_str()
    }

    /// `state.fun`.
    pub fn state_fun(&self) -> String {
        format!("{}.{}", self.state, self.fun)
    }

    /// A chunk argument.
    pub fn arg(&self, key: &str) -> Option<&Value> {
        self.chunk.get(key)
    }
}

/// A graph node: a chunk, or the prereq test node Salt 3008 adds for a
/// prerequired chunk (sharing that chunk).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    /// Index of the chunk.
    pub chunk: usize,
    /// True for the test-mode run of a prerequired chunk.
    pub prereq_test: bool,
}

/// Why an edge exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeOrigin {
    /// The dependent's own requisite (including `*_in` and extend results).
    Declared,
    /// `A prereq B` adds `A →require B`: B's real run waits for A.
    PrereqOrder,
    /// An edge copied to a prereq test node from its chunk's own requisites.
    PrereqCopy,
}

/// A typed edge `from` (dependency) → `to` (dependent), over node indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// The dependency (node index).
    pub from: usize,
    /// The dependent (node index).
    pub to: usize,
    /// The requisite type.
    pub kind: ReqKind,
    /// Why the edge exists.
    pub origin: EdgeOrigin,
    /// Index of the requisite entry in the dependent's list for that key
    /// (for declared edges), to find its source line.
    pub entry: Option<usize>,
}

/// Chunks, nodes, edges and the execution order.
#[derive(Debug, Clone, Default)]
pub struct ChunkGraph {
    /// Each chunk once (prereq targets included once).
    pub chunks: Vec<GraphChunk>,
    /// Chunks' real nodes and prereq test nodes.
    pub nodes: Vec<Node>,
    /// In insertion order; `(from, to, kind)` is unique.
    pub edges: Vec<Edge>,
    /// Node indices in execution order (the lowstate order).
    pub order: Vec<usize>,
    real_node: Vec<usize>,
    test_node: Vec<Option<usize>>,
    in_edges: Vec<Vec<usize>>,
    out_edges: Vec<Vec<usize>>,
    edge_set: HashMap<(usize, usize, ReqKind), usize>,
    by_tag: HashMap<String, usize>,
}

/// A requisite that cannot be resolved, with Salt's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphError {
    /// Salt's message.
    pub message: String,
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for GraphError {}

impl ChunkGraph {
    /// An empty graph.
    pub fn new() -> ChunkGraph {
        ChunkGraph::default()
    }

    /// Add a chunk (once per tag) and its real node; returns the chunk index.
    pub fn add_chunk(&mut self, chunk: GraphChunk) -> usize {
        if let Some(&c) = self.by_tag.get(&chunk.tag) {
            return c;
        }
        let c = self.chunks.len();
        self.by_tag.insert(chunk.tag.clone(), c);
        self.chunks.push(chunk);
        let n = self.push_node(Node {
            chunk: c,
            prereq_test: false,
        });
        self.real_node.push(n);
        self.test_node.push(None);
        c
    }

    fn push_node(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.in_edges.push(Vec::new());
        self.out_edges.push(Vec::new());
        self.nodes.len() - 1
    }

    /// The prereq test node of a chunk, created on first use.
    pub fn ensure_test_node(&mut self, chunk: usize) -> usize {
        if let Some(n) = self.test_node[chunk] {
            return n;
        }
        let n = self.push_node(Node {
            chunk,
            prereq_test: true,
        });
        self.test_node[chunk] = Some(n);
        n
    }

    /// Add an edge unless the same `(from, to, kind)` exists.
    pub fn add_edge(
        &mut self,
        from: usize,
        to: usize,
        kind: ReqKind,
        origin: EdgeOrigin,
        entry: Option<usize>,
    ) {
        if self.edge_set.contains_key(&(from, to, kind)) {
            return;
        }
        let e = self.edges.len();
        self.edges.push(Edge {
            from,
            to,
            kind,
            origin,
            entry,
        });
        self.edge_set.insert((from, to, kind), e);
        self.in_edges[to].push(e);
        self.out_edges[from].push(e);
    }

    /// The chunk with Salt's tag `tag`.
    pub fn chunk_by_tag(&self, tag: &str) -> Option<usize> {
        self.by_tag.get(tag).copied()
    }

    /// The real (non-test) node of a chunk.
    pub fn real_node(&self, chunk: usize) -> usize {
        self.real_node[chunk]
    }

    /// The prereq test node of a chunk, if it has one.
    pub fn test_node(&self, chunk: usize) -> Option<usize> {
        self.test_node[chunk]
    }

    /// Edges into a node (its dependencies), in insertion order.
    pub fn in_edges(&self, node: usize) -> impl Iterator<Item = &Edge> + '_ {
        self.in_edges[node].iter().map(move |&e| &self.edges[e])
    }

    /// Edges out of a node (its dependents), in insertion order.
    pub fn out_edges(&self, node: usize) -> impl Iterator<Item = &Edge> + '_ {
        self.out_edges[node].iter().map(move |&e| &self.edges[e])
    }

    /// The chunk behind a node.
    pub fn node_chunk(&self, node: usize) -> &GraphChunk {
        &self.chunks[self.nodes[node].chunk]
    }

    /// A node's display id: the tag, plus `_|-__prereq_test__` for test nodes.
    pub fn node_tag(&self, node: usize) -> String {
        let n = self.nodes[node];
        let tag = &self.chunks[n.chunk].tag;
        if n.prereq_test {
            format!("{tag}_|-__prereq_test__")
        } else {
            tag.clone()
        }
    }

    /// Build from an ordered lowstate (as `state.show_lowstate` prints it in
    /// 3008: a prerequired chunk appears twice, first at its test node's
    /// position). Requisites are resolved by the compiler's own resolver
    /// (`order::requisite_graph`: module + ID/name, `id`, `sls` including
    /// included-from, globs), so a drawn graph and the ordering never
    /// disagree.
    pub fn from_lowstate(lowstate: &[Value]) -> Result<ChunkGraph, GraphError> {
        let mut by_tag: HashMap<String, usize> = HashMap::new();
        let mut chunks: Vec<crate::value::Map> = Vec::new();
        let mut sequence = Vec::with_capacity(lowstate.len());
        for (i, v) in lowstate.iter().enumerate() {
            let gc = GraphChunk::new(v).ok_or_else(|| GraphError {
                message: format!(
                    "lowstate entry {i} is not a chunk with state, __id__, name and fun"
                ),
            })?;
            let next = chunks.len();
            let c = *by_tag.entry(gc.tag).or_insert(next);
            if c == next {
                chunks.push(v.as_map().cloned().unwrap_or_default());
            }
            sequence.push(c);
        }
        let rg = requisite_graph(&mut chunks).map_err(|problems| GraphError {
            message: problems
                .into_iter()
                .next()
                .map(|(_, m)| m)
                .unwrap_or_default(),
        })?;
        // A chunk listed twice is first its test node, then its real node.
        let mut count = vec![0usize; chunks.len()];
        for &c in &sequence {
            count[c] += 1;
        }
        let mut seen = vec![false; chunks.len()];
        let mut nodes = Vec::with_capacity(sequence.len());
        for &c in &sequence {
            let Some(real) = rg.chunk_node(c) else {
                continue;
            };
            let test = count[c] > 1 && !std::mem::replace(&mut seen[c], true);
            nodes.push(match rg.prereq_node(real) {
                Some(t) if test => t,
                _ => real,
            });
        }
        ChunkGraph::from_graph(&chunks, &rg, &nodes)
    }

    /// Build from the compiler's ordered result. Without a requisite graph
    /// (3006/3007 ordering) the edges are resolved from the chunks as in
    /// [`ChunkGraph::from_lowstate`].
    pub fn from_ordered(low: &Lowstate) -> Result<ChunkGraph, GraphError> {
        match &low.graph {
            Some(rg) => ChunkGraph::from_graph(&low.chunks, rg, &low.nodes),
            None => {
                let list: Vec<Value> = low.to_list().into_iter().map(Value::Map).collect();
                ChunkGraph::from_lowstate(&list)
            }
        }
    }

    /// Our view of a requisite graph over `chunks`, with the nodes of
    /// `sequence` as the execution order.
    fn from_graph(
        chunks: &[crate::value::Map],
        rg: &RequisiteGraph,
        sequence: &[petgraph::graph::NodeIndex],
    ) -> Result<ChunkGraph, GraphError> {
        let mut g = ChunkGraph::new();
        let mut chunk_index: Vec<Option<usize>> = vec![None; chunks.len()];
        for (i, c) in chunks.iter().enumerate() {
            if let Some(gc) = GraphChunk::new(&Value::Map(c.clone())) {
                chunk_index[i] = Some(g.add_chunk(gc));
            }
        }
        let bad = |what: &str| GraphError {
            message: format!("requisite graph refers to {what}"),
        };
        // Map every node of the compiler's graph onto ours.
        let mut node_map: Vec<Option<usize>> = vec![None; rg.graph.node_count()];
        for ni in rg.graph.node_indices() {
            let rn = &rg.graph[ni];
            let c = chunk_index
                .get(rn.chunk)
                .copied()
                .flatten()
                .ok_or_else(|| bad("a missing chunk"))?;
            node_map[ni.index()] = Some(if rn.prereq_test {
                g.ensure_test_node(c)
            } else {
                g.real_node(c)
            });
        }
        let map = |ni: petgraph::graph::NodeIndex| node_map.get(ni.index()).copied().flatten();
        for ni in rg.graph.node_indices() {
            let to = map(ni).ok_or_else(|| bad("an unknown node"))?;
            for (from, kind) in rg.dependencies(ni) {
                if !kind.is_edge() {
                    continue;
                }
                let from = map(from).ok_or_else(|| bad("an unknown node"))?;
                let origin = g.infer_origin(from, to, kind);
                g.add_edge(from, to, kind, origin, None);
            }
        }
        for &ni in sequence {
            g.order.push(map(ni).ok_or_else(|| bad("an unknown node"))?);
        }
        Ok(g)
    }

    /// The neutral plan of this graph: one plan node per graph node (label
    /// lines `state.fun`, ID, `(name)`, `[prereq test]`), grouped by SLS,
    /// edges styled by requisite family, and the JSON fields of
    /// `docs/output-format.md`. Reasons are left empty: `report::explain`
    /// fills them for the order report.
    pub fn to_plan(&self) -> Plan {
        let pos = self.positions();
        let nodes = (0..self.nodes.len())
            .map(|n| {
                let node = self.nodes[n];
                let c = self.node_chunk(n);
                let mut f = Map::new();
                f.insert("tag".into(), Value::str(self.node_tag(n)));
                f.insert("sls".into(), Value::str(c.sls.clone()));
                f.insert("env".into(), Value::str(c.env.clone()));
                f.insert("state_id".into(), Value::str(c.id.clone()));
                f.insert("name".into(), c.name.clone());
                f.insert("state".into(), Value::str(c.state.clone()));
                f.insert("fun".into(), Value::str(c.fun.clone()));
                f.insert(
                    "order".into(),
                    c.arg("order").cloned().unwrap_or(Value::Null),
                );
                f.insert(
                    "position".into(),
                    pos[n].map_or(Value::Null, |p| Value::Int(p as i64)),
                );
                f.insert("prereq_test".into(), Value::Bool(node.prereq_test));
                PlanNode {
                    key: self.node_tag(n),
                    label: self.node_label_lines(n),
                    group: c.sls.clone(),
                    secondary: node.prereq_test,
                    title: c.id.clone(),
                    kind: c.state_fun(),
                    rank: c.arg("order").map_or_else(|| "-".into(), Value::py_str),
                    reasons: Vec::new(),
                    fields: f,
                }
            })
            .collect();
        let edges = self
            .edges
            .iter()
            .map(|e| {
                let origin = match e.origin {
                    EdgeOrigin::Declared => "declared",
                    EdgeOrigin::PrereqOrder => "prereq_order",
                    EdgeOrigin::PrereqCopy => "prereq_copy",
                };
                let mut fields = Map::new();
                fields.insert("origin".into(), Value::str(origin));
                PlanEdge {
                    from: e.from,
                    to: e.to,
                    kind: e.kind.as_str().to_string(),
                    label: e.label(),
                    style: e.style(),
                    family: match e.origin {
                        EdgeOrigin::PrereqOrder => EdgeFamily::Precheck,
                        _ => e.kind.base().family(),
                    },
                    fields,
                }
            })
            .collect();
        Plan {
            nodes,
            edges,
            order: self.order.clone(),
            folded: Vec::new(),
            group_name: "sls".into(),
            legend: ReqKind::EDGE_KINDS
                .iter()
                .map(|k| (k.as_str().to_string(), k.style()))
                .collect(),
            secondary_name: "prereq test run".into(),
            words: crate::plan::Words {
                node: "state".into(),
                nodes: "states".into(),
                edges: "requisites".into(),
                needs: "Needs".into(),
                needed_by: "Needed by".into(),
            },
        }
    }

    /// Why an edge of a graph built elsewhere exists.
    fn infer_origin(&self, from: usize, to: usize, kind: ReqKind) -> EdgeOrigin {
        let (f, t) = (self.nodes[from], self.nodes[to]);
        if t.prereq_test && kind != ReqKind::Prereq {
            return EdgeOrigin::PrereqCopy;
        }
        if f.prereq_test && t.prereq_test {
            return EdgeOrigin::PrereqOrder;
        }
        let fc = &self.chunks[f.chunk];
        let tc = &self.chunks[t.chunk];
        if kind == ReqKind::Require
            && fc.arg("__prerequiring__").is_some_and(Value::truthy)
            && tc.arg("__prereq__").is_some_and(Value::truthy)
            && fc.arg("prereq").is_some()
        {
            return EdgeOrigin::PrereqOrder;
        }
        EdgeOrigin::Declared
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Parse a JSON lowstate written in a test.
    pub(crate) fn low(json: &str) -> Vec<Value> {
        let j: serde_json::Value = serde_json::from_str(json).expect("test JSON");
        match Value::from_json(&j) {
            Value::List(l) => l.into_iter().collect(),
            _ => panic!("test lowstate must be a list"),
        }
    }

    /// A small two-SLS example with every kind of edge, in 3008 order.
    pub(crate) fn example() -> ChunkGraph {
        let l = low(r#"[
            {"state":"pkg","name":"nginx","__sls__":"web.install","__env__":"base","__id__":"nginx","order":10000,"fun":"installed"},
            {"state":"file","name":"/etc/nginx/nginx.conf","__sls__":"web.config","__env__":"base","__id__":"nginx-conf","require":[{"pkg":"nginx"}],"order":10001,"fun":"managed"},
            {"state":"cmd","name":"nginx -t","__sls__":"web.config","__env__":"base","__id__":"check-conf","__prereq__":true,"onchanges":[{"file":"nginx-conf"}],"order":10002,"fun":"run"},
            {"state":"service","name":"nginx","__sls__":"web.service","__env__":"base","__id__":"nginx-svc","watch":[{"file":"nginx-conf"}],"prereq":[{"cmd":"check-conf"}],"__prerequiring__":true,"order":10003,"fun":"running"},
            {"state":"cmd","name":"nginx -t","__sls__":"web.config","__env__":"base","__id__":"check-conf","__prereq__":true,"onchanges":[{"file":"nginx-conf"}],"order":10002,"fun":"run"},
            {"state":"test","name":"alert","__sls__":"web.service","__env__":"base","__id__":"alert","onfail_any":[{"service":"nginx-svc"}, "check-conf"],"order":10004,"fun":"nop"}
        ]"#);
        ChunkGraph::from_lowstate(&l).expect("example graph")
    }

    #[test]
    fn dot_snapshot() {
        insta::assert_snapshot!(crate::plan::to_dot(&example().to_plan()));
    }

    #[test]
    fn mermaid_snapshot() {
        insta::assert_snapshot!(crate::plan::to_mermaid(&example().to_plan()));
    }

    #[test]
    fn json_has_version_and_all_edges() {
        let g = example();
        let doc = crate::plan::to_json_document(&g.to_plan());
        assert_eq!(doc.get("version"), Some(&Value::Int(1)));
        assert_eq!(
            doc.get("edges").and_then(Value::as_list).map(|l| l.len()),
            Some(g.edges.len())
        );
        assert_eq!(
            doc.get("order").and_then(Value::as_list).map(|l| l.len()),
            Some(6)
        );
    }

    #[test]
    fn html_is_self_contained() {
        let plan = example().to_plan();
        let h = crate::plan::to_html(&plan);
        assert!(h.starts_with("<!DOCTYPE html>"));
        // Nothing is loaded from the network: no external scripts, styles
        // or requests.
        for bad in [
            "src=\"http",
            "href=\"http",
            "<link",
            "fetch(",
            "XMLHttpRequest",
            "import(",
        ] {
            assert!(!h.contains(bad), "{bad}");
        }
        // The plan is embedded: every node and every edge.
        let start = h.find("id=\"plan-data\">").unwrap() + "id=\"plan-data\">".len();
        let end = start + h[start..].find("</script>").unwrap();
        let data: serde_json::Value = serde_json::from_str(&h[start..end]).unwrap();
        assert_eq!(data["nodes"].as_array().unwrap().len(), plan.nodes.len());
        assert_eq!(data["edges"].as_array().unwrap().len(), plan.edges.len());
        assert_eq!(data["groups"].as_array().unwrap().len(), 3);
        assert!(
            h.contains("Cytoscape Consortium"),
            "the vendored library's licence"
        );
    }

    #[test]
    fn resolves_requisites_and_prereq_nodes() {
        let l = low(r#"[
            {"state":"test","name":"b","__sls__":"m","__env__":"base","__id__":"b","__prereq__":true,"order":10001,"fun":"nop"},
            {"state":"test","name":"a","__sls__":"m","__env__":"base","__id__":"a","prereq":[{"test":"b"}],"__prerequiring__":true,"order":10000,"fun":"nop"},
            {"state":"test","name":"b","__sls__":"m","__env__":"base","__id__":"b","__prereq__":true,"order":10001,"fun":"nop"},
            {"state":"test","name":"c","__sls__":"m","__env__":"base","__id__":"c","require":["a", {"sls":"m"}],"order":10002,"fun":"nop"}
        ]"#);
        let g = ChunkGraph::from_lowstate(&l).unwrap();
        assert_eq!(g.chunks.len(), 3);
        assert_eq!(g.nodes.len(), 4);
        let b = g.chunk_by_tag("test_|-b_|-b_|-nop").unwrap();
        let tb = g.test_node(b).unwrap();
        assert_eq!(
            g.order,
            vec![tb, g.real_node(1), g.real_node(0), g.real_node(2)]
        );
        let kinds: Vec<(usize, usize, ReqKind)> =
            g.edges.iter().map(|e| (e.from, e.to, e.kind)).collect();
        assert!(kinds.contains(&(tb, g.real_node(1), ReqKind::Prereq)));
        assert!(kinds.contains(&(g.real_node(1), g.real_node(0), ReqKind::Require)));
        // c requires a (once, dedup) and every chunk of sls m (a, b, c itself).
        let into_c: Vec<usize> = g.in_edges(g.real_node(2)).map(|e| e.from).collect();
        assert_eq!(into_c, vec![g.real_node(1), g.real_node(0), g.real_node(2)]);
    }

    #[test]
    fn missing_reference_is_salts_error() {
        let l = low(
            r#"[{"state":"test","name":"a","__sls__":"m","__id__":"a","require":[{"test":"nope"}],"fun":"nop"}]"#,
        );
        let e = ChunkGraph::from_lowstate(&l).unwrap_err();
        assert_eq!(
            e.message,
            "Referenced state does not exist for requisite [require: (test: nope)] in state [a] in SLS [m]"
        );
    }
}
