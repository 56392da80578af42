//! The constructor of the full loader: the composed node graph constructed
//! as Salt's `SaltYamlSafeLoader` does (breadth first, merge keys
//! flattened, duplicate and unhashable keys rejected, Salt's and Heat's
//! dialect rules), then expanded into a [`Node`] tree within the node
//! budget.

use super::compose::{Id, Raw, RawKind};
use super::keys::{Cons, PyKey, SeenKeys};
use super::libyaml::*;
use super::resolve::{self, ConstructFail, Scalar, ScalarTag, CORE};
use super::{Bounds, Dialect, Node, NodeValue, YamlError, YamlErrorKind};
use crate::value::py_str_repr;
use std::collections::{HashSet, VecDeque};

/// The parts of the [`Constructor`] that visiting a node changes, apart
/// from the node graph (so keys can borrow the graph meanwhile).
pub(super) struct Visitor<'n, 't> {
    pub(super) nodes: &'n [Raw],
    pub(super) text: &'n Text<'t>,
    pub(super) scalars: &'n mut [Option<Cons>],
    pub(super) queued: &'n mut [bool],
}

impl Visitor<'_, '_> {
    /// `construct_object(node, deep=False)`: scalars now, collections later.
    pub(super) fn visit(&mut self, id: Id, queue: &mut VecDeque<Id>) -> Result<(), YamlError> {
        match &self.nodes[id].kind {
            RawKind::Scalar { text, tag, .. } => {
                if self.scalars[id].is_some() {
                    return Ok(());
                }
                let start = self.nodes[id].start;
                let value = match tag {
                    // Strings stay in the node: nothing to construct.
                    ScalarTag::Str | ScalarTag::Timestamp => {
                        self.scalars[id] = Some(Cons::Text);
                        return Ok(());
                    }
                    ScalarTag::Other(t) if t.strip_prefix(CORE) == Some("seq") => {
                        Err(ConstructFail::Constructor(
                            "expected a sequence node, but found scalar".into(),
                        ))
                    }
                    ScalarTag::Other(t)
                        if matches!(t.strip_prefix(CORE), Some("map" | "omap" | "set")) =>
                    {
                        Err(ConstructFail::Constructor(
                            "expected a mapping node, but found scalar".into(),
                        ))
                    }
                    _ => resolve::construct(tag, text),
                };
                match value {
                    Ok(v) => self.scalars[id] = Some(Cons::Value(v)),
                    Err(ConstructFail::Constructor(problem)) => {
                        return Err(constructor_error(
                            self.nodes, self.text, &problem, start, None,
                        ))
                    }
                    Err(ConstructFail::Python(message)) => {
                        let end = self.nodes[id].end.max(start + 1).min(self.text.src.len());
                        return Err(err(message, start..end, None));
                    }
                }
            }
            RawKind::Seq { .. } | RawKind::Map { .. } => {
                if !self.queued[id] {
                    self.queued[id] = true;
                    queue.push_back(id);
                }
            }
        }
        Ok(())
    }
}

/// A `ConstructorError` at `at` (with the mapping start `ctx`).
pub(super) fn constructor_error(
    nodes: &[Raw],
    text: &Text,
    problem: &str,
    at: usize,
    ctx: Option<usize>,
) -> YamlError {
    let context = ctx.map(|c| ("while constructing a mapping", Some(c)));
    let end = nodes
        .iter()
        .find(|n| n.start == at)
        .map_or(at + 1, |n| n.end.max(at + 1))
        .min(text.src.len().max(at));
    err(marked(text, context, problem, Some(at)), at..end, ctx)
}

/// What a collection node is constructed as.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Shape {
    Seq,
    Map,
}

/// Salt's constructors applied to the composed graph.
pub(super) struct Constructor<'a> {
    pub(super) text: &'a Text<'a>,
    /// The `yaml-depth` limit (merge keys).
    pub(super) max_depth: usize,
    pub(super) nodes: Vec<Raw>,
    pub(super) scalars: Vec<Option<Cons>>,
    pub(super) queued: Vec<bool>,
}

impl<'a> Constructor<'a> {
    pub(super) fn constructor_error(
        &self,
        problem: &str,
        at: usize,
        ctx: Option<usize>,
    ) -> YamlError {
        constructor_error(&self.nodes, self.text, problem, at, ctx)
    }

    /// How a collection node's tag constructs it, or the error it raises.
    pub(super) fn shape(&self, id: Id) -> Result<Shape, YamlError> {
        let node = &self.nodes[id];
        let tag = match &node.kind {
            RawKind::Seq { tag, .. } | RawKind::Map { tag, .. } => tag.as_deref(),
            RawKind::Scalar { .. } => None,
        };
        let found = node.id_name();
        let default = if matches!(node.kind, RawKind::Map { .. }) {
            Shape::Map
        } else {
            Shape::Seq
        };
        let Some(tag) = tag else { return Ok(default) };
        let wanted = match tag.strip_prefix(CORE) {
            Some("seq") => Shape::Seq,
            Some("map") | Some("omap") | Some("set") => Shape::Map,
            Some("str")
            | Some("python/unicode")
            | Some("int")
            | Some("float")
            | Some("bool")
            | Some("null")
            | Some("timestamp")
            | Some("binary") => {
                return Err(self.constructor_error(
                    &format!("expected a scalar node, but found {found}"),
                    node.start,
                    None,
                ));
            }
            _ => {
                return Err(self.constructor_error(
                    &format!(
                        "could not determine a constructor for the tag {}",
                        py_str_repr(tag)
                    ),
                    node.start,
                    None,
                ));
            }
        };
        if wanted != default {
            let what = if wanted == Shape::Map {
                "mapping"
            } else {
                "sequence"
            };
            return Err(self.constructor_error(
                &format!("expected a {what} node, but found {found}"),
                node.start,
                None,
            ));
        }
        Ok(wanted)
    }

    /// `construct_object(node, deep=False)`: scalars now, collections later.
    pub(super) fn visit(&mut self, id: Id, queue: &mut VecDeque<Id>) -> Result<(), YamlError> {
        let mut v = Visitor {
            nodes: &self.nodes,
            text: self.text,
            scalars: &mut self.scalars,
            queued: &mut self.queued,
        };
        v.visit(id, queue)
    }

    pub(super) fn pairs(&self, id: Id) -> Vec<(Id, Id)> {
        match &self.nodes[id].kind {
            RawKind::Map { pairs, .. } => pairs.clone(),
            _ => Vec::new(),
        }
    }

    pub(super) fn is_merge_key(&self, id: Id) -> bool {
        matches!(
            &self.nodes[id].kind,
            RawKind::Scalar {
                tag: ScalarTag::Merge,
                ..
            }
        )
    }

    /// Salt's `flatten_mapping`: merged entries first (minus keys written
    /// explicitly), then the mapping's own entries.
    pub(super) fn flatten(&mut self, id: Id, depth: usize) -> Result<(), YamlError> {
        if depth > self.max_depth {
            return Err(self.constructor_error(
                "merge keys nested too deeply",
                self.nodes[id].start,
                None,
            ));
        }
        let (len, has_merge) = match &self.nodes[id].kind {
            RawKind::Map { pairs, .. } => (
                pairs.len(),
                pairs.iter().any(|&(k, _)| self.is_merge_key(k)),
            ),
            _ => (0, false),
        };
        if !has_merge {
            // The common case: only the `=` keys to turn into strings.
            for i in 0..len {
                let k = match &self.nodes[id].kind {
                    RawKind::Map { pairs, .. } => pairs[i].0,
                    _ => break,
                };
                if let RawKind::Scalar { tag, .. } = &mut self.nodes[k].kind {
                    if *tag == ScalarTag::Value {
                        *tag = ScalarTag::Str;
                    }
                }
            }
            return Ok(());
        }
        let mut pairs = self.pairs(id);
        let mut merge: Vec<(Id, Id)> = Vec::new();
        let map_start = self.nodes[id].start;
        let mut index = 0;
        while index < pairs.len() {
            let (k, v) = pairs[index];
            if self.is_merge_key(k) {
                pairs.remove(index);
                // PyYAML deletes the merge key from the node itself before
                // it flattens the merged mapping, so a mapping that merges
                // itself (`<<: *o` inside `&o`) sees no merge key there
                // and stops; so must we (else each level doubles the work).
                if let RawKind::Map { pairs: p, .. } = &mut self.nodes[id].kind {
                    p.clone_from(&pairs);
                }
                match &self.nodes[v].kind {
                    RawKind::Map { .. } => {
                        self.flatten(v, depth + 1)?;
                        merge.extend(self.pairs(v));
                    }
                    RawKind::Seq { items, .. } => {
                        let items = items.clone();
                        let mut submerge = Vec::new();
                        for sub in items {
                            if !matches!(self.nodes[sub].kind, RawKind::Map { .. }) {
                                return Err(self.constructor_error(
                                    &format!(
                                        "expected a mapping for merging, but found {}",
                                        self.nodes[sub].id_name()
                                    ),
                                    self.nodes[sub].start,
                                    Some(map_start),
                                ));
                            }
                            self.flatten(sub, depth + 1)?;
                            submerge.push(self.pairs(sub));
                        }
                        for value in submerge.into_iter().rev() {
                            merge.extend(value);
                        }
                    }
                    RawKind::Scalar { .. } => {
                        return Err(self.constructor_error(
                            "expected a mapping or list of mappings for merging, but found scalar",
                            self.nodes[v].start,
                            Some(map_start),
                        ));
                    }
                }
            } else {
                if let RawKind::Scalar { tag, .. } = &mut self.nodes[k].kind {
                    if *tag == ScalarTag::Value {
                        *tag = ScalarTag::Str;
                    }
                }
                index += 1;
            }
        }
        if !merge.is_empty() {
            // Salt compares the keys' raw node values, not the constructed keys.
            let existing: HashSet<RawKey> = pairs.iter().map(|&(k, _)| self.raw_key(k)).collect();
            let mut merged: Vec<(Id, Id)> = merge
                .into_iter()
                .filter(|&(k, _)| !existing.contains(&self.raw_key(k)))
                .collect();
            // These entries now also belong to this mapping.
            for &(k, v) in &merged {
                self.nodes[k].shared = true;
                self.nodes[v].shared = true;
            }
            merged.extend(pairs);
            pairs = merged;
        }
        if let RawKind::Map { pairs: p, .. } = &mut self.nodes[id].kind {
            *p = pairs;
        }
        Ok(())
    }

    pub(super) fn raw_key(&self, id: Id) -> RawKey {
        match &self.nodes[id].kind {
            RawKind::Scalar { text, .. } => RawKey::Text(text.clone()),
            _ => RawKey::Node(id),
        }
    }

    /// Construct breadth first, as PyYAML runs its deferred generators, so
    /// the first error reported is the one Salt reports.
    pub(super) fn run(&mut self, root: Id) -> Result<(), YamlError> {
        let mut queue = VecDeque::new();
        self.visit(root, &mut queue)?;
        while let Some(id) = queue.pop_front() {
            match self.shape(id)? {
                Shape::Seq => {
                    let nodes = &self.nodes;
                    let mut v = Visitor {
                        nodes,
                        text: self.text,
                        scalars: &mut self.scalars,
                        queued: &mut self.queued,
                    };
                    if let RawKind::Seq { items, .. } = &nodes[id].kind {
                        for &item in items {
                            v.visit(item, &mut queue)?;
                        }
                    }
                }
                Shape::Map => self.construct_mapping(id, &mut queue)?,
            }
        }
        Ok(())
    }

    pub(super) fn construct_mapping(
        &mut self,
        id: Id,
        queue: &mut VecDeque<Id>,
    ) -> Result<(), YamlError> {
        self.flatten(id, 0)?;
        let map_start = self.nodes[id].start;
        let nodes = &self.nodes;
        let RawKind::Map { pairs, .. } = &nodes[id].kind else {
            return Ok(());
        };
        let mut v = Visitor {
            nodes,
            text: self.text,
            scalars: &mut self.scalars,
            queued: &mut self.queued,
        };
        let mut seen = SeenKeys::new(pairs.len());
        for &(k, val) in pairs {
            let RawKind::Scalar { text, .. } = &nodes[k].kind else {
                // A collection key: constructing it can fail first, else it is unhashable.
                self.shape(k)?;
                let problem = format!("found unacceptable key {}", self.node_value_repr(k, 0));
                let mut e = self.constructor_error(&problem, nodes[k].start, Some(map_start));
                e.kind = YamlErrorKind::UnhashableKey;
                return Err(e);
            };
            v.visit(k, queue)?;
            v.visit(val, queue)?;
            let duplicate = seen.insert(PyKey::new(text, &v.scalars[k]), k, pairs.len());
            if let Some(first) = duplicate.filter(|_| v.text.dialect == Dialect::Salt) {
                let shown = PyKey::new(text, &v.scalars[k]).to_value().py_str();
                let mut e = constructor_error(
                    nodes,
                    self.text,
                    &format!("found conflicting ID {}", quote_id(&shown)),
                    nodes[k].start,
                    Some(map_start),
                );
                e.kind = YamlErrorKind::DuplicateKey;
                e.context = Some(nodes[first].start..nodes[first].end);
                return Err(e);
            }
        }
        Ok(())
    }

    /// PyYAML's `repr(node.value)` (for "found unacceptable key"), cut
    /// short (`...`) after a few hundred nodes: a key may hold a structure
    /// that contains itself or fans out through aliases.
    pub(super) fn node_value_repr(&self, id: Id, depth: usize) -> String {
        let mut budget = 400usize;
        self.value_repr(id, depth, &mut budget)
    }

    pub(super) fn value_repr(&self, id: Id, depth: usize, budget: &mut usize) -> String {
        if depth > 50 {
            return "[...]".into();
        }
        if *budget == 0 {
            return "...".into();
        }
        *budget -= 1;
        match &self.nodes[id].kind {
            RawKind::Scalar { text, .. } => py_str_repr(text),
            RawKind::Seq { items, .. } => {
                let parts: Vec<String> = items
                    .iter()
                    .map(|&i| self.node_repr(i, depth + 1, budget))
                    .collect();
                format!("[{}]", parts.join(", "))
            }
            RawKind::Map { pairs, .. } => {
                let parts: Vec<String> = pairs
                    .iter()
                    .map(|&(k, v)| {
                        let k = self.node_repr(k, depth + 1, budget);
                        let v = self.node_repr(v, depth + 1, budget);
                        format!("({k}, {v})")
                    })
                    .collect();
                format!("[{}]", parts.join(", "))
            }
        }
    }

    pub(super) fn node_repr(&self, id: Id, depth: usize, budget: &mut usize) -> String {
        if *budget == 0 {
            return "...".into();
        }
        let (class, tag) = match &self.nodes[id].kind {
            RawKind::Scalar { tag, .. } => ("ScalarNode", tag.full()),
            RawKind::Seq { tag, .. } => (
                "SequenceNode",
                tag.clone().unwrap_or_else(|| format!("{CORE}seq")),
            ),
            RawKind::Map { tag, .. } => (
                "MappingNode",
                tag.clone().unwrap_or_else(|| format!("{CORE}map")),
            ),
        };
        format!(
            "{class}(tag={}, value={})",
            py_str_repr(&tag),
            self.value_repr(id, depth, budget)
        )
    }
}

/// Salt formats the key with `'{key}'`.
pub(super) fn quote_id(shown: &str) -> String {
    format!("'{shown}'")
}

#[derive(Hash, PartialEq, Eq)]
pub(super) enum RawKey {
    Text(String),
    Node(Id),
}

/// Expand the constructed graph into a tree (aliases copied). Strings
/// are moved out of the graph, copied only for nodes reachable twice.
pub(super) struct Builder {
    pub(super) nodes: Vec<Raw>,
    pub(super) scalars: Vec<Option<Cons>>,
    pub(super) budget: usize,
    pub(super) active: Vec<bool>,
}

impl Builder {
    /// Build node `id`; `shared` when an enclosing node is reachable twice.
    pub(super) fn build(&mut self, id: Id, shared: bool) -> Result<Node, YamlError> {
        let node = &mut self.nodes[id];
        let span = node.start..node.end;
        if self.budget == 0 {
            return Err(err(
                "document too large after expanding aliases".into(),
                span,
                None,
            ));
        }
        self.budget -= 1;
        let shared = shared || node.shared;
        let value = match &mut node.kind {
            RawKind::Scalar { text, .. } => match &mut self.scalars[id] {
                Some(Cons::Text) if shared => NodeValue::Str(text.as_str().into()),
                Some(Cons::Text) => NodeValue::Str(std::mem::take(text).into()),
                Some(Cons::Value(Scalar::Str(s))) if shared => NodeValue::Str(s.as_str().into()),
                Some(Cons::Value(Scalar::Str(s))) => NodeValue::Str(std::mem::take(s).into()),
                None | Some(Cons::Value(Scalar::Null)) => NodeValue::Null,
                Some(Cons::Value(Scalar::Bool(b))) => NodeValue::Bool(*b),
                Some(Cons::Value(Scalar::Int(i))) => NodeValue::Int(*i),
                Some(Cons::Value(Scalar::Float(f))) => NodeValue::Float(*f),
            },
            RawKind::Seq { items, .. } => {
                let len = items.len();
                self.enter(id, &span)?;
                let mut out = Vec::with_capacity(len);
                for i in 0..len {
                    let item = match &self.nodes[id].kind {
                        RawKind::Seq { items, .. } => items[i],
                        _ => break,
                    };
                    out.push(self.build(item, shared)?);
                }
                self.active[id] = false;
                NodeValue::List(out)
            }
            RawKind::Map { pairs, .. } => {
                let len = pairs.len();
                self.enter(id, &span)?;
                let mut out = Vec::with_capacity(len);
                for i in 0..len {
                    let (k, v) = match &self.nodes[id].kind {
                        RawKind::Map { pairs, .. } => pairs[i],
                        _ => break,
                    };
                    out.push((self.build(k, shared)?, self.build(v, shared)?));
                }
                self.active[id] = false;
                NodeValue::Map(out)
            }
        };
        Ok(Node { value, span })
    }

    pub(super) fn enter(&mut self, id: Id, span: &std::ops::Range<usize>) -> Result<(), YamlError> {
        if self.active[id] {
            return Err(err(
                "found a recursive alias (a collection containing itself)".into(),
                span.clone(),
                None,
            ));
        }
        self.active[id] = true;
        Ok(())
    }
}
/// Construct and build the composed graph of `t`.
pub(super) fn construct(
    t: Text,
    (nodes, root): (Vec<Raw>, Option<Id>),
    bounds: Bounds,
) -> Result<Node, YamlError> {
    let Some(root) = root else {
        return Ok(Node {
            value: NodeValue::Null,
            span: 0..0,
        });
    };
    let n = nodes.len();
    let mut c = Constructor {
        text: &t,
        max_depth: bounds.depth,
        nodes,
        scalars: vec![None; n],
        queued: vec![false; n],
    };
    c.run(root)?;
    let mut b = Builder {
        nodes: c.nodes,
        scalars: c.scalars,
        budget: bounds.nodes.max(n * 4),
        active: c.queued,
    };
    b.active.fill(false);
    b.build(root, false)
}
