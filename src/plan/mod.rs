//! The neutral, drawable plan: what any front end (Salt's lowstate, a Heat
//! stack) hands to the output stages. A [`Plan`] is nodes (a state, a
//! resource), typed edges (dependency → dependent, each with its family,
//! style and label), the execution order, and per node the reasons it sits
//! where it does. The renderers here read only a `Plan`: [`to_dot`],
//! [`to_mermaid`], [`to_json_document`], [`to_html`] / [`to_svg`] and the
//! order report ([`order_report`]). No dialect knowledge lives here; each
//! front end fills in its own words (labels, reasons, JSON fields).

mod dot;
mod html;
mod json;
mod layout;
mod mermaid;
mod report;
mod viewer_data;

pub use dot::to_dot;
pub use html::{esc, to_html, to_svg};
pub use json::{to_json_document, JSON_VERSION};
pub use mermaid::to_mermaid;
pub use report::{order_document, order_report, order_report_in};

use crate::value::Map;
use std::collections::HashMap;

/// What kind of dependency an edge is, across dialects: it decides the
/// colour of the edge and of the reasons it gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EdgeFamily {
    /// Plain ordering: the dependent runs after the dependency (Salt
    /// `require`, Heat `depends_on` and references).
    Requires,
    /// The dependent reacts to the dependency's changes (Salt `watch`).
    Watches,
    /// The dependency is tried first in test mode (Salt `prereq`).
    Precheck,
    /// The dependent runs only on the dependency's failure (Salt `onfail`).
    OnFailure,
    /// The dependent runs only on the dependency's changes (Salt `onchanges`).
    OnChange,
}

impl EdgeFamily {
    /// `#rrggbb` of the family (require grey, watch blue, prereq purple,
    /// onfail red, onchanges green).
    pub fn color(self) -> &'static str {
        match self {
            EdgeFamily::Requires => "#555555",
            EdgeFamily::Watches => "#1f77b4",
            EdgeFamily::Precheck => "#9467bd",
            EdgeFamily::OnFailure => "#d62728",
            EdgeFamily::OnChange => "#2ca02c",
        }
    }

    /// The ANSI colour of the family in terminal reports (`""` for none).
    pub fn ansi(self) -> &'static str {
        match self {
            EdgeFamily::Requires => "",
            EdgeFamily::Watches => "\x1b[34m",
            EdgeFamily::Precheck => "\x1b[35m",
            EdgeFamily::OnFailure => "\x1b[31m",
            EdgeFamily::OnChange => "\x1b[32m",
        }
    }

    /// Every family, for legends and marker definitions.
    pub const ALL: [EdgeFamily; 5] = [
        EdgeFamily::Requires,
        EdgeFamily::Watches,
        EdgeFamily::Precheck,
        EdgeFamily::OnFailure,
        EdgeFamily::OnChange,
    ];
}

/// How an edge is drawn (shared by every renderer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EdgeStyle {
    /// `#rrggbb`.
    pub color: &'static str,
    /// `solid`, `dashed`, `dotted` or `bold`.
    pub line: &'static str,
}

/// One node: a state, a resource, or a secondary run of one (Salt's prereq
/// test run), which renderers draw dashed.
#[derive(Debug, Clone, Default)]
pub struct PlanNode {
    /// A key unique in the plan (Salt's tag, a resource name).
    pub key: String,
    /// The lines drawn in the node's box, most telling first.
    pub label: Vec<String>,
    /// The group the node is drawn in (an SLS, a stack).
    pub group: String,
    /// A secondary node (drawn dashed; marked `[test]` in reports).
    pub secondary: bool,
    /// The report's `id` column (the state ID, the resource name).
    pub title: String,
    /// The report's `function` column (`pkg.installed`, `OS::Nova::Server`).
    pub kind: String,
    /// The report's `order` column (`-` when the dialect has none).
    pub rank: String,
    /// Why the node sits where it does, most important first (filled by
    /// the front end for the order report; may be empty).
    pub reasons: Vec<Reason>,
    /// The dialect's own fields for the JSON document, in order.
    pub fields: Map,
}

/// One line of "why here" for a node.
#[derive(Debug, Clone, PartialEq)]
pub struct Reason {
    /// The edge family the reason comes from (colours it), if any.
    pub family: Option<EdgeFamily>,
    /// The sentence, with `file:line` where the cause was written.
    pub text: String,
}

/// A typed edge `from` (dependency) → `to` (dependent), over node indices.
#[derive(Debug, Clone)]
pub struct PlanEdge {
    /// The dependency.
    pub from: usize,
    /// The dependent.
    pub to: usize,
    /// The dialect's edge type (`require`, `depends_on`, `get_attr`).
    pub kind: String,
    /// What is drawn on the edge.
    pub label: String,
    /// How it is drawn.
    pub style: EdgeStyle,
    /// The family of the edge.
    pub family: EdgeFamily,
    /// The dialect's own fields for the JSON document (after `from`, `to`,
    /// `kind`).
    pub fields: Map,
}

/// Nodes, edges and the execution order.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The nodes.
    pub nodes: Vec<PlanNode>,
    /// The edges; `(from, to, kind)` is unique.
    pub edges: Vec<PlanEdge>,
    /// Node indices in execution order (a node may be missing from it).
    pub order: Vec<usize>,
    /// What the plan's groups are called in headings and in the JSON
    /// document (`sls`, `stack`).
    pub group_name: String,
    /// The edge types a legend lists, with their styles.
    pub legend: Vec<(String, EdgeStyle)>,
    /// What a secondary node is, for legends (`prereq test run`).
    pub secondary_name: String,
    /// The dialect's words for nodes and edges in the HTML view.
    pub words: Words,
    /// Groups that stand for a unit of their own (a nested stack): the
    /// HTML viewer starts them collapsed, and [`Plan::grouped_by_rank`]
    /// keeps them.
    pub folded: Vec<String>,
}

/// A dialect's words for what the drawing shows (Salt: a state and its
/// requisites; Heat: a resource and what it depends on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Words {
    /// One node (`state`, `resource`).
    pub node: String,
    /// Several nodes (`states`, `resources`).
    pub nodes: String,
    /// A node's edges, as a phrase (`requisites`, `dependencies`).
    pub edges: String,
    /// The heading of the edges a node needs (`Needs`, `Depends on`).
    pub needs: String,
    /// The heading of the edges that need it (`Needed by`, `Required by`).
    pub needed_by: String,
}

impl Default for Words {
    fn default() -> Words {
        Words {
            node: "node".into(),
            nodes: "nodes".into(),
            edges: "dependencies".into(),
            needs: "Needs".into(),
            needed_by: "Needed by".into(),
        }
    }
}

/// How an edge of a dependency cycle is drawn: red and bold, whatever its
/// kind.
pub const CYCLE_STYLE: EdgeStyle = EdgeStyle {
    color: "#d62728",
    line: "bold",
};

impl Plan {
    /// The plan with its nodes grouped by their order value (`wave 0`,
    /// `wave 1`, ... for `name` `wave`) instead of their groups: the HTML
    /// view then lays a stack out by creation wave, one lane per wave.
    pub fn grouped_by_rank(&self, name: &str) -> Plan {
        let mut p = self.clone();
        let keep: std::collections::HashSet<&str> =
            self.folded.iter().map(String::as_str).collect();
        for n in &mut p.nodes {
            if !keep.contains(n.group.as_str()) {
                n.group = format!("{name} {}", n.rank);
            }
        }
        p.group_name = name.to_string();
        p
    }

    /// Mark every edge that lies on a dependency cycle (both ends in one
    /// strongly connected group of nodes): drawn in [`CYCLE_STYLE`], its
    /// label prefixed `cycle:` (and `"cycle": true` in the JSON document),
    /// its nodes' labels ending with `in a cycle`. The number of edges
    /// marked.
    pub fn mark_cycles(&mut self) -> usize {
        let mut g =
            petgraph::graph::DiGraph::<(), ()>::with_capacity(self.nodes.len(), self.edges.len());
        for _ in &self.nodes {
            g.add_node(());
        }
        for e in &self.edges {
            g.add_edge(
                petgraph::graph::NodeIndex::new(e.from),
                petgraph::graph::NodeIndex::new(e.to),
                (),
            );
        }
        let mut group = vec![usize::MAX; self.nodes.len()];
        for (i, scc) in petgraph::algo::tarjan_scc(&g).into_iter().enumerate() {
            if scc.len() > 1 {
                for n in scc {
                    group[n.index()] = i;
                }
            }
        }
        let mut marked = 0;
        let mut in_cycle = vec![false; self.nodes.len()];
        for e in &mut self.edges {
            let (a, b) = (group[e.from], group[e.to]);
            if (a != usize::MAX && a == b) || e.from == e.to {
                e.style = CYCLE_STYLE;
                e.label = format!("cycle: {}", e.label);
                e.fields
                    .insert("cycle".into(), crate::value::Value::Bool(true));
                in_cycle[e.from] = true;
                in_cycle[e.to] = true;
                marked += 1;
            }
        }
        for (node, cyclic) in self.nodes.iter_mut().zip(in_cycle) {
            if cyclic {
                node.label.push("in a cycle".into());
            }
        }
        marked
    }

    /// Groups in first-appearance order of the execution order (then any
    /// node not in the order), with the nodes of each in execution order.
    pub fn clusters(&self) -> Vec<(String, Vec<usize>)> {
        let mut out: Vec<(String, Vec<usize>)> = Vec::new();
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut placed = vec![false; self.nodes.len()];
        for n in self.order.iter().copied().chain(0..self.nodes.len()) {
            if placed[n] {
                continue;
            }
            placed[n] = true;
            let group = self.nodes[n].group.as_str();
            let i = *index.entry(group).or_insert_with(|| {
                out.push((group.to_string(), Vec::new()));
                out.len() - 1
            });
            out[i].1.push(n);
        }
        out
    }

    /// Position of each node in the execution order (first occurrence).
    pub fn positions(&self) -> Vec<Option<usize>> {
        first_positions(&self.order, self.nodes.len())
    }
}

/// Position of each of `count` nodes in `order` (first occurrence), `None`
/// for a node that never runs.
pub fn first_positions(order: &[usize], count: usize) -> Vec<Option<usize>> {
    let mut pos = vec![None; count];
    for (i, &n) in order.iter().enumerate() {
        if pos[n].is_none() {
            pos[n] = Some(i);
        }
    }
    pos
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A three-node plan in two groups with two kinds of edge.
    pub(crate) fn small() -> Plan {
        let node = |key: &str, group: &str, secondary: bool| PlanNode {
            key: key.into(),
            label: vec![format!("kind.{key}"), key.into()],
            group: group.into(),
            secondary,
            title: key.into(),
            kind: "kind.fun".into(),
            rank: "-".into(),
            ..PlanNode::default()
        };
        let edge = |from, to, family: EdgeFamily| PlanEdge {
            from,
            to,
            kind: "k".into(),
            label: "k".into(),
            style: EdgeStyle {
                color: family.color(),
                line: "solid",
            },
            family,
            fields: Map::new(),
        };
        Plan {
            nodes: vec![
                node("a", "g1", false),
                node("b", "g2", false),
                node("c", "g1", true),
            ],
            edges: vec![
                edge(0, 1, EdgeFamily::Requires),
                edge(1, 2, EdgeFamily::Watches),
            ],
            order: vec![1, 0, 2],
            folded: Vec::new(),
            group_name: "group".into(),
            legend: Vec::new(),
            secondary_name: "secondary".into(),
            words: Words::default(),
        }
    }

    #[test]
    fn clusters_follow_the_order() {
        let p = small();
        assert_eq!(
            p.clusters(),
            vec![("g2".to_string(), vec![1]), ("g1".to_string(), vec![0, 2])]
        );
        assert_eq!(p.positions(), vec![Some(1), Some(0), Some(2)]);
    }

    #[test]
    fn cycles_are_marked_and_nothing_else() {
        let mut p = small();
        assert_eq!(p.mark_cycles(), 0);
        let back = PlanEdge {
            from: 2,
            to: 1,
            ..p.edges[0].clone()
        };
        p.edges.push(back);
        assert_eq!(p.mark_cycles(), 2);
        assert_eq!(
            p.edges[0].style,
            EdgeStyle {
                color: EdgeFamily::Requires.color(),
                line: "solid"
            }
        );
        assert_eq!(p.edges[1].style, CYCLE_STYLE);
        assert_eq!(p.edges[2].label, "cycle: k");
        assert_eq!(p.nodes[0].label.last().map(String::as_str), Some("a"));
        assert_eq!(
            p.nodes[1].label.last().map(String::as_str),
            Some("in a cycle")
        );
    }
}
