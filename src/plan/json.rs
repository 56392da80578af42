//! A plan as our versioned JSON document (see `docs/output-format.md`):
//! nodes (an `id` plus the front end's own fields), typed edges, the
//! execution order and the groups.

use super::Plan;
use crate::value::{Map, Value};

/// Version of the graph JSON document.
pub const JSON_VERSION: i64 = 1;

fn node_id(n: usize) -> Value {
    Value::str(format!("n{n}"))
}

/// `{"version": 1, "nodes": [...], "edges": [...], "order": [...], "clusters": [...]}`.
pub fn to_json_document(g: &Plan) -> Value {
    let mut nodes = Vec::with_capacity(g.nodes.len());
    for (n, node) in g.nodes.iter().enumerate() {
        let mut m = Map::new();
        m.insert("id".into(), node_id(n));
        for (k, v) in &node.fields {
            m.insert(k.clone(), v.clone());
        }
        nodes.push(Value::Map(m));
    }
    let mut edges = Vec::with_capacity(g.edges.len());
    for e in &g.edges {
        let mut m = Map::new();
        m.insert("from".into(), node_id(e.from));
        m.insert("to".into(), node_id(e.to));
        m.insert("kind".into(), Value::str(e.kind.as_str()));
        for (k, v) in &e.fields {
            m.insert(k.clone(), v.clone());
        }
        edges.push(Value::Map(m));
    }
    let clusters = g
        .clusters()
        .into_iter()
        .map(|(group, ns)| {
            let mut m = Map::new();
            m.insert(Value::str(g.group_name.as_str()), Value::str(group));
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
