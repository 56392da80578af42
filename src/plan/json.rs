//! The requisite graph as our versioned JSON document (see
//! `docs/output-format.md`): nodes, typed edges, execution order, clusters.

use super::{ChunkGraph, EdgeOrigin};
use crate::value::{Map, Value};

/// Version of the graph JSON document.
pub const JSON_VERSION: i64 = 1;

fn node_id(n: usize) -> Value {
    Value::str(format!("n{n}"))
}

/// `{"version": 1, "nodes": [...], "edges": [...], "order": [...], "clusters": [...]}`.
pub fn to_json_document(g: &ChunkGraph) -> Value {
    let pos = g.positions();
    let mut nodes = Vec::with_capacity(g.nodes.len());
    for (n, node) in g.nodes.iter().enumerate() {
        let c = &g.chunks[node.chunk];
        let mut m = Map::new();
        m.insert("id".into(), node_id(n));
        m.insert("tag".into(), Value::str(g.node_tag(n)));
        m.insert("sls".into(), Value::str(c.sls.clone()));
        m.insert("env".into(), Value::str(c.env.clone()));
        m.insert("state_id".into(), Value::str(c.id.clone()));
        m.insert("name".into(), c.name.clone());
        m.insert("state".into(), Value::str(c.state.clone()));
        m.insert("fun".into(), Value::str(c.fun.clone()));
        m.insert(
            "order".into(),
            c.arg("order").cloned().unwrap_or(Value::Null),
        );
        m.insert(
            "position".into(),
            pos[n].map_or(Value::Null, |p| Value::Int(p as i64)),
        );
        m.insert("prereq_test".into(), Value::Bool(node.prereq_test));
        nodes.push(Value::Map(m));
    }
    let mut edges = Vec::with_capacity(g.edges.len());
    for e in &g.edges {
        let mut m = Map::new();
        m.insert("from".into(), node_id(e.from));
        m.insert("to".into(), node_id(e.to));
        m.insert("kind".into(), Value::str(e.kind.as_str()));
        let origin = match e.origin {
            EdgeOrigin::Declared => "declared",
            EdgeOrigin::PrereqOrder => "prereq_order",
            EdgeOrigin::PrereqCopy => "prereq_copy",
        };
        m.insert("origin".into(), Value::str(origin));
        edges.push(Value::Map(m));
    }
    let clusters = g
        .clusters()
        .into_iter()
        .map(|(sls, ns)| {
            let mut m = Map::new();
            m.insert("sls".into(), Value::str(sls));
            m.insert(
                "nodes".into(),
                Value::List(ns.into_iter().map(node_id).collect()),
            );
            Value::Map(m)
        })
        .collect();
    let mut doc = Map::new();
    doc.insert("version".into(), Value::Int(JSON_VERSION));
    doc.insert("nodes".into(), Value::List(nodes.into()));
    doc.insert("edges".into(), Value::List(edges.into()));
    doc.insert(
        "order".into(),
        Value::List(g.order.iter().map(|&n| node_id(n)).collect()),
    );
    doc.insert("clusters".into(), Value::List(clusters));
    Value::Map(doc)
}
