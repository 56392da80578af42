//! Salt's `yamlex` renderer: YAML read with the core loader's
//! [`Dialect::Yamlex`](crate::yaml::Dialect::Yamlex) rules, then built as
//! Salt 3008's `salt.serializers.yamlex` builds it, and the `aggregate`
//! merge that pillar strategy uses.
//!
//! What yamlex adds to YAML: the whole document and every node tagged
//! `!aggregate` are *aggregates* (a mapping stays a mapping; a sequence,
//! or a scalar as a one-item sequence, becomes an aggregated sequence); a
//! key given twice in one mapping merges its values (aggregates fold
//! together, anything else takes the later value) unless the later key is
//! tagged `!reset`. Merging two aggregates (`merge_recursive`): mappings
//! that are both aggregates keep the first's keys and fold the second's in,
//! other mappings keep only the second's keys (folding shared ones), two
//! aggregated sequences concatenate without repeats, anything else takes
//! the second value. Nodes keep their spans so diagnostics and the source
//! map still point into the rendered text.

use crate::value::{py_eq, Value};
use crate::yaml::{LoadOptions, Node, NodeValue, TagMark, YamlError};
use indexmap::IndexMap;
use std::collections::HashMap;

/// A yamlex value: YAML nodes with the aggregate marks Salt's classes carry.
#[derive(Debug, Clone, PartialEq)]
pub enum Aggr {
    /// A scalar, or a sequence that is not an aggregate.
    Leaf(Node),
    /// An aggregated sequence (`AggregatedSequence`).
    Seq {
        /// Where the node was written (for a scalar made a sequence, the
        /// scalar's place).
        span: std::ops::Range<usize>,
        /// Its items.
        items: Vec<Node>,
    },
    /// A mapping: `marked` for an aggregate (`AggregatedMap`).
    Map {
        /// Where the mapping was written.
        span: std::ops::Range<usize>,
        /// Whether it is an aggregate.
        marked: bool,
        /// Its entries by key value: the key's node and the value.
        entries: IndexMap<Value, (Node, Aggr)>,
    },
}

impl Aggr {
    /// Data that did not come through yamlex: nothing is an aggregate.
    pub fn from_value(v: &Value) -> Aggr {
        match v {
            Value::Map(m) => Aggr::Map {
                span: 0..0,
                marked: false,
                entries: m
                    .iter()
                    .map(|(k, v)| (k.clone(), (Node::from_value(k, 0..0), Aggr::from_value(v))))
                    .collect(),
            },
            other => Aggr::Leaf(Node::from_value(other, 0..0)),
        }
    }

    /// The data as a YAML tree (aggregates become plain lists and maps).
    pub fn into_node(self) -> Node {
        match self {
            Aggr::Leaf(n) => n,
            Aggr::Seq { span, items } => Node {
                value: NodeValue::List(items),
                span,
            },
            Aggr::Map { span, entries, .. } => Node {
                value: NodeValue::Map(
                    entries
                        .into_values()
                        .map(|(k, v)| (k, v.into_node()))
                        .collect(),
                ),
                span,
            },
        }
    }

    /// The data as a plain value.
    pub fn into_value(self) -> Value {
        self.into_node().into_value()
    }

    /// `mark(obj)`: the value as an aggregate.
    fn mark(self) -> Aggr {
        match self {
            Aggr::Map { span, entries, .. } => Aggr::Map {
                span,
                marked: true,
                entries,
            },
            Aggr::Leaf(n) => match n.value {
                NodeValue::List(items) => Aggr::Seq {
                    span: n.span,
                    items,
                },
                _ => Aggr::Seq {
                    span: n.span.clone(),
                    items: vec![n],
                },
            },
            seq => seq,
        }
    }
}

/// Load `text` as the yamlex renderer does.
pub(crate) fn load(text: &str, options: &LoadOptions) -> Result<Aggr, YamlError> {
    let (node, marks) = crate::yaml::load_tagged(text, options)?;
    let tags: HashMap<(usize, bool), &str> = marks
        .iter()
        .map(
            |TagMark {
                 start,
                 collection,
                 tag,
             }| ((*start, *collection), tag.as_str()),
        )
        .collect();
    // The document itself is an aggregate.
    Ok(build(node, &tags, true))
}

fn tag_of<'t>(node: &Node, tags: &HashMap<(usize, bool), &'t str>) -> Option<&'t str> {
    let collection = matches!(node.value, NodeValue::List(_) | NodeValue::Map(_));
    tags.get(&(node.span.start, collection)).copied()
}

/// Build `node`; `aggregate` when it is tagged so (or is the document).
fn build(node: Node, tags: &HashMap<(usize, bool), &str>, aggregate: bool) -> Aggr {
    let aggregate = aggregate || tag_of(&node, tags) == Some("!aggregate");
    let span = node.span.clone();
    match node.value {
        NodeValue::Map(pairs) => {
            let mut entries: IndexMap<Value, (Node, Aggr)> = IndexMap::with_capacity(pairs.len());
            for (k, v) in pairs {
                let key_tag = tag_of(&k, tags);
                // `!aggregate` on a key applies to its value.
                let value = build(v, tags, key_tag == Some("!aggregate"));
                let key = k.to_value();
                let value = match entries.get(&key) {
                    Some((_, old)) if key_tag != Some("!reset") => {
                        merge_recursive(old.clone(), value, Level::Off)
                    }
                    _ => value,
                };
                put(&mut entries, key, k, value);
            }
            Aggr::Map {
                span,
                marked: aggregate,
                entries,
            }
        }
        NodeValue::List(items) if aggregate => Aggr::Seq { span, items },
        // `!aggregate` on nothing is an empty aggregated sequence.
        NodeValue::Null if aggregate => Aggr::Seq {
            span,
            items: Vec::new(),
        },
        value if aggregate => Aggr::Seq {
            span: span.clone(),
            items: vec![Node { value, span }],
        },
        value => Aggr::Leaf(Node { value, span }),
    }
}

/// `map[key] = value` as Python does it: a key already there keeps its
/// place (and its key node); a new one goes last.
fn put(map: &mut IndexMap<Value, (Node, Aggr)>, key: Value, knode: Node, value: Aggr) {
    match map.get_mut(&key) {
        Some(slot) => slot.1 = value,
        None => {
            map.insert(key, (knode, value));
        }
    }
}

/// `levelise(level)`: how deep values are marked before merging.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    /// `False`: nothing is marked.
    Off,
    /// An int: this many levels are marked.
    Depth(u32),
}

impl Level {
    fn split(self) -> (bool, Level) {
        match self {
            Level::Off | Level::Depth(0) => (false, Level::Off),
            Level::Depth(n) => (true, Level::Depth(n - 1)),
        }
    }
}

/// Salt's `yamlex.merge_recursive(a, b, level)` (`aggregation.aggregate`).
pub(crate) fn merge_recursive(a: Aggr, b: Aggr, level: Level) -> Aggr {
    let (deep, sub) = level.split();
    let (a, b) = if deep { (a.mark(), b.mark()) } else { (a, b) };
    match (a, b) {
        (
            Aggr::Map {
                span: sa,
                marked: ma,
                entries: ea,
            },
            Aggr::Map {
                span: sb,
                marked: mb,
                entries: eb,
            },
        ) => {
            let both = ma && mb;
            let (span, marked, mut out) = if both {
                (sa, true, ea.clone())
            } else {
                (sb, mb, eb.clone())
            };
            for (key, (knode, value)) in eb {
                let value = match ea.get(&key) {
                    Some((_, old)) => merge_recursive(old.clone(), value, sub),
                    None => value,
                };
                put(&mut out, key, knode, value);
            }
            Aggr::Map {
                span,
                marked,
                entries: out,
            }
        }
        (Aggr::Seq { span, items: ia }, Aggr::Seq { items: ib, .. }) => {
            let first: Vec<Value> = ia.iter().map(Node::to_value).collect();
            let mut items = ia;
            for n in ib {
                let v = n.to_value();
                if !first.iter().any(|x| py_eq(x, &v)) {
                    items.push(n);
                }
            }
            Aggr::Seq { span, items }
        }
        (_, b) => b,
    }
}

/// Salt's `aggregate` pillar strategy on data that came through yamlex
/// (`merge_recursive(a, b, level=1)`).
pub(crate) fn merge_aggregate(a: Aggr, b: Aggr) -> Aggr {
    merge_recursive(a, b, Level::Depth(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yx(text: &str) -> Aggr {
        load(
            text,
            &LoadOptions::new(
                crate::yaml::Dialect::Yamlex,
                &crate::limits::Limits::default(),
            ),
        )
        .unwrap()
    }

    fn json(a: Aggr) -> String {
        a.into_value().to_json().to_string()
    }

    #[test]
    fn aggregate_tags_mark_maps_sequences_and_scalars() {
        let a = yx("lst: !aggregate [1, 2]\nm: !aggregate {a: 1}\ns: !aggregate x\nn: !aggregate\nplain: {a: 1}\n");
        let Aggr::Map {
            marked, entries, ..
        } = &a
        else {
            panic!("{a:?}")
        };
        assert!(marked, "the document is an aggregate");
        assert!(matches!(entries[&Value::str("lst")].1, Aggr::Seq { .. }));
        assert!(matches!(
            entries[&Value::str("m")].1,
            Aggr::Map { marked: true, .. }
        ));
        assert!(matches!(
            entries[&Value::str("plain")].1,
            Aggr::Map { marked: false, .. }
        ));
        assert_eq!(
            json(a),
            r#"{"lst":[1,2],"m":{"a":1},"s":["x"],"n":[],"plain":{"a":1}}"#
        );
    }

    #[test]
    fn repeated_keys_fold_unless_reset() {
        assert_eq!(
            json(yx(
                "a: !aggregate [1]\na: !aggregate [2, 1]\nb: {x: 1}\nb: {y: 2}\n"
            )),
            r#"{"a":[1,2],"b":{"y":2}}"#
        );
        assert_eq!(
            json(yx("a: !aggregate {x: 1}\na: !aggregate {y: 2}\n")),
            r#"{"a":{"x":1,"y":2}}"#
        );
        assert_eq!(
            json(yx("a: !aggregate [1]\n!reset a: !aggregate [2]\n")),
            r#"{"a":[2]}"#
        );
    }

    #[test]
    fn the_aggregate_strategy_folds_marked_values_only() {
        let a = yx("lst: !aggregate [1, 2]\nm: !aggregate {a: 1}\nplain: {a: 1}\n");
        let b = yx("lst: !aggregate [3]\nm: !aggregate {b: 2}\nplain: {b: 2}\n");
        assert_eq!(
            json(merge_aggregate(a, b)),
            r#"{"lst":[1,2,3],"m":{"a":1,"b":2},"plain":{"b":2}}"#
        );
    }

    #[test]
    fn spans_point_into_the_text() {
        let text = "k: !aggregate [1]\n";
        let node = yx(text).into_node();
        let NodeValue::Map(pairs) = node.value else {
            panic!()
        };
        // A tagged node starts at its tag, as the loader reports it.
        assert_eq!(&text[pairs[0].1.span.clone()], "!aggregate [1]");
    }
}
