//! Why each state sits where it does in Salt 3008's execution order — its
//! own `order` value, the requisites that hold it back or pull it forward,
//! the conditions under which it runs — pointing at the SLS line that
//! declared each requisite when a [`SourceMap`] is available. [`explain`]
//! puts these reasons into the neutral [`Plan`], which the core's order
//! report renders.

use crate::plan::{Plan, Reason as PlanReason};
use crate::salt::graph::{ChunkGraph, Edge, EdgeBase, EdgeOrigin, ReqKind};
use crate::salt::high::SourceMap;
use crate::value::Value;

/// `module: ID`, as Salt's requisites name a state (an ID and another
/// state's name can be the same word).
fn state_id(c: &crate::salt::graph::GraphChunk) -> String {
    format!("{}: {}", c.state, c.id)
}

/// An order number as the report's column prints it (`10009`, `10001.5`).
fn number(o: f64) -> String {
    Value::Float(o).py_str().trim_end_matches(".0").to_string()
}

/// `file:line` of the argument `key` of `id`'s `state` declaration, only
/// when that exact argument was written there.
fn exact_loc(sources: &SourceMap, id: &str, state: &str, key: &str) -> Option<String> {
    let spans = sources.id_spans(id)?;
    let st = spans.states.get(state)?;
    let (_, range) = st.args.iter().find(|(k, _)| k.as_deref() == Some(key))?;
    let (line, _) = spans.file.line_col(range.start);
    Some(format!("{}:{line}", spans.file.name))
}

/// Where the requisite behind `edge` was written: on the dependent (`kind`),
/// on the dependency (`kind_in`), or for a prereq ordering edge on the
/// prereq-ing state; else the best label the source map has.
fn edge_loc(g: &ChunkGraph, sources: Option<&SourceMap>, e: &Edge) -> Option<String> {
    let sources = sources?;
    let dep = g.node_chunk(e.from);
    let own = g.node_chunk(e.to);
    if e.origin == EdgeOrigin::PrereqOrder {
        return exact_loc(sources, &dep.id, &dep.state, "prereq")
            .or_else(|| exact_loc(sources, &own.id, &own.state, "prereq_in"));
    }
    let key = e.kind.as_str();
    exact_loc(sources, &own.id, &own.state, key)
        .or_else(|| exact_loc(sources, &dep.id, &dep.state, &format!("{key}_in")))
        .or_else(|| {
            let l = sources.arg(&own.id, &own.state, key)?;
            let (line, _) = l.file.line_col(l.range.start);
            Some(format!("{}:{line}", l.file.name))
        })
}

fn order_num(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// One reason line: its family (for colour) and text.
type Reason = (Option<EdgeBase>, String);

fn with_loc(text: String, loc: Option<String>) -> String {
    match loc {
        Some(l) => format!("{text} ({l})"),
        None => text,
    }
}

fn reasons(g: &ChunkGraph, sources: Option<&SourceMap>, n: usize) -> Vec<Reason> {
    let mut out: Vec<Reason> = Vec::new();
    let node = g.nodes[n];
    let c = g.node_chunk(n);
    let name = c.name_str();
    if name != c.id {
        out.push((None, format!("name: {name}")));
    }
    if node.prereq_test {
        let waiting: Vec<String> = g
            .out_edges(n)
            .filter(|e| e.kind == ReqKind::Prereq && !g.nodes[e.to].prereq_test)
            .map(|e| state_id(g.node_chunk(e.to)))
            .collect();
        out.push((
            Some(EdgeBase::Prereq),
            format!(
                "prereq of {}: test run first (test mode, no run number)",
                if waiting.is_empty() {
                    "?".to_string()
                } else {
                    waiting.join(", ")
                }
            ),
        ));
    }
    // Pulled forward: a dependent with a smaller order value.
    let own = order_num(c.arg("order"));
    if let Some(own) = own {
        let mut best: Option<(f64, &Edge)> = None;
        for e in g.out_edges(n) {
            if g.nodes[e.to].prereq_test {
                continue;
            }
            if let Some(o) = order_num(g.node_chunk(e.to).arg("order")) {
                if o < own && best.is_none_or(|(b, _)| o < b) {
                    best = Some((o, e));
                }
            }
        }
        if let Some((o, e)) = best {
            let dependent = g.node_chunk(e.to);
            let who = format!("{}: {}", dependent.state, dependent.id);
            let by = if e.origin == EdgeOrigin::PrereqOrder {
                format!(
                    "{who} (order {}), which must run after this prereq",
                    number(o)
                )
            } else {
                format!("{who} (order {}), whose {} needs it", number(o), e.kind)
            };
            out.push((
                Some(e.kind.base()),
                with_loc(
                    format!("runs before its own order ({}): {by}", number(own)),
                    edge_loc(g, sources, e),
                ),
            ));
        }
    }
    // Dependencies grouped by kind (prereq ordering edges apart).
    let mut groups: Vec<(ReqKind, bool, Vec<&Edge>)> = Vec::new();
    for e in g.in_edges(n) {
        let prereq_order = e.origin == EdgeOrigin::PrereqOrder;
        match groups
            .iter_mut()
            .find(|(k, p, _)| *k == e.kind && *p == prereq_order)
        {
            Some((_, _, v)) => v.push(e),
            None => groups.push((e.kind, prereq_order, vec![e])),
        }
    }
    for (kind, prereq_order, edges) in groups {
        let ids: Vec<String> = edges
            .iter()
            .map(|e| state_id(g.node_chunk(e.from)))
            .collect();
        let list = ids.join(", ");
        let locs: Vec<String> = {
            let mut v: Vec<String> = Vec::new();
            for e in &edges {
                if let Some(l) = edge_loc(g, sources, e) {
                    if !v.contains(&l) {
                        v.push(l);
                    }
                }
            }
            v
        };
        let loc = if locs.is_empty() {
            None
        } else {
            Some(locs.join(", "))
        };
        let several = ids.len() > 1;
        let text = if prereq_order {
            format!(
                "runs after {list}, which prereq{} it",
                if several { "" } else { "s" }
            )
        } else {
            match kind {
                ReqKind::Require => format!("requires {list}"),
                ReqKind::RequireAny => format!("requires any of {list}"),
                ReqKind::Watch => format!(
                    "watches {list}: mod_watch if {}",
                    if several { "one changes" } else { "it changes" }
                ),
                ReqKind::WatchAny => format!("watches any of {list}: mod_watch if one changes"),
                ReqKind::Prereq => format!(
                    "runs only if {list} would change (prereq: {} test run first)",
                    if several { "their" } else { "its" }
                ),
                ReqKind::Onfail => {
                    if several {
                        format!("runs only if one of {list} fails")
                    } else {
                        format!("runs only if {list} fails")
                    }
                }
                ReqKind::OnfailAny => format!("runs only if one of {list} fails"),
                ReqKind::OnfailAll => format!("runs only if all of {list} fail"),
                ReqKind::Onchanges => {
                    if several {
                        format!("runs only if one of {list} changes")
                    } else {
                        format!("runs only if {list} changes")
                    }
                }
                ReqKind::OnchangesAny => format!("runs only if one of {list} changes"),
                // Never graph edges (listen is reported from the chunk below).
                ReqKind::Prerequired | ReqKind::Listen => format!("{kind} {list}"),
            }
        };
        out.push((Some(kind.base()), with_loc(text, loc)));
    }
    if !node.prereq_test {
        if let Some(Value::List(l)) = c.arg("listen") {
            let targets: Vec<String> = l.iter().map(ref_text).collect();
            out.push((
                Some(EdgeBase::Watch),
                with_loc(
                    format!(
                        "listens to {}: mod_watch at the end if changed",
                        targets.join(", ")
                    ),
                    sources.and_then(|s| exact_loc(s, &c.id, &c.state, "listen")),
                ),
            ));
        }
        if c.arg("failhard").is_some_and(Value::truthy) {
            out.push((
                Some(EdgeBase::Onfail),
                "failhard: the run stops if this fails".into(),
            ));
        }
    }
    out
}

/// `{pkg: nginx}` → `pkg:nginx`; a bare ID as is.
fn ref_text(v: &Value) -> String {
    match v {
        Value::Map(m) => m
            .iter()
            .map(|(k, v)| format!("{}:{}", k.py_str(), v.py_str()))
            .collect::<Vec<_>>()
            .join(","),
        other => other.py_str(),
    }
}

/// The plan of `g` with every node's reasons filled in.
pub fn explain(g: &ChunkGraph, sources: Option<&SourceMap>) -> Plan {
    let mut plan = g.to_plan();
    for (n, node) in plan.nodes.iter_mut().enumerate() {
        node.reasons = reasons(g, sources, n)
            .into_iter()
            .map(|(base, text)| PlanReason {
                family: base.map(EdgeBase::family),
                text,
            })
            .collect();
    }
    plan
}

/// The order report of `g` (see [`crate::plan::order_report`]).
pub fn order_report(g: &ChunkGraph, sources: Option<&SourceMap>, color: bool) -> String {
    crate::plan::order_report(&explain(g, sources), color)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::salt::graph::tests::low;

    #[test]
    fn explains_each_state() {
        let g = ChunkGraph::from_lowstate(&low(
            r#"[
            {"state":"test","name":"b","__sls__":"m","__id__":"b","order":10003,"fun":"nop"},
            {"state":"test","name":"a","__sls__":"m","__id__":"a","require":["b"],"order":10000,"fun":"nop"},
            {"state":"test","name":"c","__sls__":"m","__id__":"c","onchanges":["a"],"order":10001,"fun":"nop"}
        ]"#,
        ))
        .unwrap();
        let r = order_report(&g, None, false);
        assert!(
            r.contains(
                "runs before its own order (10003): test: a (order 10000), whose require needs it"
            ),
            "{r}"
        );
        assert!(r.contains("requires test: b"), "{r}");
        assert!(r.contains("runs only if test: a changes"), "{r}");
        assert!(!r.contains('\x1b'));
        let colored = order_report(&g, None, true);
        assert!(colored.contains('\x1b'));
    }

    #[test]
    fn report_snapshot() {
        insta::assert_snapshot!(order_report(
            &crate::salt::graph::tests::example(),
            None,
            false
        ));
    }

    #[test]
    fn points_at_the_declaring_line() {
        use crate::diag::SourceFile;
        use crate::salt::high::source_map::{IdSpans, StateSpans};
        let text = "b:\n  test.nop: []\na:\n  test.nop:\n    - require:\n      - b\n";
        let file = SourceFile::new("salt/m.sls", text);
        let mut sm = SourceMap::default();
        let at = |s: &str| text.find(s).unwrap_or(0);
        let mut states = indexmap::IndexMap::new();
        states.insert(
            "test".to_string(),
            StateSpans {
                key: at("test.nop:\n    -")..at("test.nop:\n    -") + 8,
                args: vec![(Some("require".into()), at("require")..at("require") + 7)],
            },
        );
        sm.insert_id(
            "a".into(),
            IdSpans {
                file: file.clone(),
                sls: "base:m".into(),
                key: at("a:")..at("a:") + 1,
                states,
            },
        );
        let g = ChunkGraph::from_lowstate(&low(
            r#"[
            {"state":"test","name":"b","__sls__":"m","__id__":"b","order":10000,"fun":"nop"},
            {"state":"test","name":"a","__sls__":"m","__id__":"a","require":["b"],"order":10001,"fun":"nop"}
        ]"#,
        ))
        .unwrap();
        let r = order_report(&g, Some(&sm), false);
        assert!(r.contains("requires test: b (salt/m.sls:5)"), "{r}");
    }
}
