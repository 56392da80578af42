//! Unit tests of the requisite graph and the ordering.

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
        assert_eq!(crate::salt::requisite::edge_rank(k.as_str()), Some(i as u8));
    }
    assert_eq!(crate::salt::requisite::edge_rank("listen"), None);
    assert_eq!(crate::salt::requisite::edge_rank("require_in"), None);
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
    let low =
        crate::salt::pipeline::high_to_lowstate(h, &LowOptions::default(), &SourceMap::default())
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
