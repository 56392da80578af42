//! The JSON document of one compiled stack (spec `hot.md` §14) and the
//! core `Plan` for the drawings.

use super::waves::{positions, Waves};
use super::{Built, Output, Resource, Stack};
use crate::diag::Diagnostic;
use crate::plan::{EdgeFamily, EdgeStyle, Plan, PlanEdge, PlanNode};
use crate::value::{List, Map, Value};
// Lookup tables hashed with foldhash: SipHash was 4% of a tree of stacks.
use foldhash::HashMap;

impl Stack<'_> {
    pub(super) fn document(
        &self,
        resources: Vec<Resource>,
        waves: Waves,
        outputs: Vec<(String, Built<Map>)>,
        mut warnings: Vec<Diagnostic>,
    ) -> Result<Output, Diagnostic> {
        let mut resources = resources;
        let mut child_secrets = Vec::new();
        // Every get_attr on a group the stack holds (the group generates
        // outputs for them).
        let mut referenced = Vec::new();
        let groups: Vec<&str> = if self.input.nested {
            resources
                .iter()
                .filter(|r| super::nested::is_group(r))
                .map(|r| r.name.as_str())
                .collect()
        } else {
            Vec::new()
        };
        if !groups.is_empty() {
            for r in &resources {
                for (k, v) in &r.sections {
                    if *k != "update_policy" {
                        super::nested::get_attrs(v, &groups, &mut referenced);
                    }
                }
            }
            for (_, o) in outputs.iter() {
                if let Ok(m) = o {
                    if let Some(v) = m.get("value") {
                        super::nested::get_attrs(v, &groups, &mut referenced);
                    }
                }
            }
        }
        let t = self.t;
        let mut doc = Map::new();
        // A nested stack's document is read for its `nested` view only
        // (parameters, resources, waves, outputs): the rest is not built.
        let child = self.level.depth > 0;
        if !child {
            doc.insert("ok".into(), Value::Bool(true));
            doc.insert(
                "template_version".into(),
                Value::str(t.version_text.as_str()),
            );
            doc.insert("errors".into(), Value::List(List::new()));
        }
        let mut ps = Map::with_capacity(self.params.len());
        for p in self.params {
            let v = if child { p.nested_view() } else { p.to_value() };
            ps.insert(Value::str(p.name.as_str()), v);
        }
        doc.insert("parameters".into(), Value::Map(ps));
        if !child {
            let ctx = &self.input.context;
            let mut pseudo = Map::new();
            pseudo.insert("OS::stack_id".into(), Value::str(ctx.stack_id.as_str()));
            pseudo.insert("OS::project_id".into(), Value::str(ctx.project_id.as_str()));
            pseudo.insert("OS::stack_name".into(), Value::str(ctx.stack_name.as_str()));
            doc.insert("pseudo_parameters".into(), Value::Map(pseudo));
            if let Some(g) = t.section("parameter_groups") {
                doc.insert("parameter_groups".into(), g.clone());
            }
            let mut env = Map::new();
            env.insert(
                "resource_registry".into(),
                Value::Map(self.env.registry.clone()),
            );
            env.insert("parameters".into(), Value::Map(self.env.parameters.clone()));
            env.insert(
                "parameter_defaults".into(),
                Value::Map(self.env.parameter_defaults.clone()),
            );
            env.insert(
                "event_sinks".into(),
                Value::List(self.env.event_sinks.iter().cloned().collect()),
            );
            doc.insert("environment".into(), Value::Map(env));
        }
        let mut list = List::with_capacity(resources.len());
        // The plan is built for the drawings only ([`crate::hot::Input::plan`]).
        let mut plan = self.input.plan.then(|| Plan {
            group_name: "stack".into(),
            secondary_name: "—".into(),
            words: crate::plan::Words {
                node: "resource".into(),
                nodes: "resources".into(),
                edges: "dependencies (depends_on and references)".into(),
                needs: "Depends on".into(),
                needed_by: "Required by".into(),
            },
            legend: vec![
                ("depends_on".into(), edge_style("depends_on")),
                ("reference".into(), edge_style("reference")),
            ],
            ..Plan::default()
        });
        // Nested stacks' plans, merged once this stack's nodes are placed.
        let mut children: Vec<(usize, String, Plan)> = Vec::new();
        // Each resource's node in the plan, by its position.
        let mut node_of: Vec<Option<usize>> = match self.input.plan {
            true => vec![None; resources.len()],
            false => Vec::new(),
        };
        let order: Vec<usize> = waves.layers.iter().flatten().copied().collect();
        // The views of nested stacks read the resolved sections, which then
        // move into the document.
        let mut views = self
            .expand_all(&resources, &order, &referenced)?
            .into_iter();
        let mut sections: Vec<Vec<(&str, Value)>> = resources
            .iter_mut()
            .map(|r| std::mem::take(&mut r.sections))
            .collect();
        let resources = resources;
        // Names to positions, for the plan's reasons and edges.
        let index = if self.input.plan {
            positions(&resources)
        } else {
            HashMap::default()
        };
        for &i in &order {
            let nested = views.next().flatten();
            let r = &resources[i];
            // Sized to its keys: a tree of stacks holds thousands of these.
            let mut m = Map::with_capacity(
                6 + sections[i].len()
                    + usize::from(r.resolved.template.is_some())
                    + usize::from(r.depends_on.is_some())
                    + usize::from(r.description.is_some())
                    + usize::from(nested.is_some()),
            );
            m.push_distinct("name".into(), Value::str(r.name.as_str()));
            m.push_distinct("type".into(), Value::str(r.written_type.as_str()));
            m.push_distinct(
                "resolved_type".into(),
                Value::str(r.resolved.resolved.as_str()),
            );
            if let Some(p) = &r.resolved.template {
                m.push_distinct("provider_template".into(), Value::str(p.as_str()));
            }
            m.push_distinct("wave".into(), Value::Int(waves.of[i] as i64));
            m.push_distinct(
                "requires".into(),
                Value::List(r.requires.iter().map(|x| Value::str(x.as_str())).collect()),
            );
            if let Some(d) = &r.depends_on {
                m.push_distinct(
                    "depends_on".into(),
                    Value::List(d.iter().map(|x| Value::str(x.as_str())).collect()),
                );
            }
            for (k, v) in std::mem::take(&mut sections[i]) {
                m.push_distinct(Value::str(k), v);
            }
            m.push_distinct("deletion_policy".into(), Value::str(r.deletion_policy));
            if let Some(d) = &r.description {
                m.push_distinct("description".into(), d.clone());
            }
            if let Some((view, child, w, s)) = nested {
                m.push_distinct("nested".into(), view);
                if let (Some(plan), Some(child)) = (&plan, child) {
                    children.push((plan.nodes.len(), r.name.clone(), child));
                }
                warnings.extend(w);
                child_secrets.extend(s);
            }
            let Some(plan) = plan.as_mut() else {
                list.push(Value::Map(m));
                continue;
            };
            let reasons = self.reasons(r, &index, &waves.of);
            node_of[i] = Some(plan.nodes.len());
            plan.order.push(plan.nodes.len());
            plan.nodes.push(PlanNode {
                key: r.name.clone(),
                label: vec![r.resolved.resolved.clone(), r.name.clone()],
                group: OWN.into(),
                secondary: false,
                title: r.name.clone(),
                kind: r.written_type.clone(),
                rank: waves.of[i].to_string(),
                reasons,
                // Names and types only: resolved sections may hold
                // hidden parameter values, and drawings are for people.
                fields: m
                    .iter()
                    .filter(|(k, _)| {
                        matches!(
                            k.as_str(),
                            Some(
                                "name"
                                    | "type"
                                    | "resolved_type"
                                    | "provider_template"
                                    | "wave"
                                    | "requires"
                            )
                        )
                    })
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            });
            list.push(Value::Map(m));
        }
        if let Some(plan) = plan.as_mut() {
            for (i, r) in resources.iter().enumerate() {
                for req in &r.requires {
                    let kind = if r.explicit.contains(req) {
                        "depends_on"
                    } else {
                        "reference"
                    };
                    let from = index.get(req.as_str()).and_then(|&j| node_of[j]);
                    if let (Some(from), Some(to)) = (from, node_of[i]) {
                        plan.edges.push(PlanEdge {
                            from,
                            to,
                            kind: kind.into(),
                            label: kind.into(),
                            style: edge_style(kind),
                            family: EdgeFamily::Requires,
                            fields: Map::new(),
                        });
                    }
                }
            }
            for (parent, name, child) in children {
                merge_child(plan, parent, &name, child);
            }
        }
        doc.insert("resources".into(), Value::List(list));
        doc.insert(
            "waves".into(),
            Value::List(
                waves
                    .layers
                    .iter()
                    .map(|w| {
                        Value::List(
                            w.iter()
                                .map(|&i| Value::str(resources[i].name.as_str()))
                                .collect(),
                        )
                    })
                    .collect(),
            ),
        );
        let mut outs = Map::new();
        for (name, o) in outputs {
            if let Ok(m) = o {
                outs.insert(Value::str(name), Value::Map(m));
            }
        }
        doc.insert("outputs".into(), Value::Map(outs));
        let secrets = self
            .params
            .iter()
            .filter(|p| p.hidden)
            .map(|p| p.value.py_str())
            .filter(|s| !s.is_empty())
            .collect();
        let mut secrets: Vec<String> = secrets;
        secrets.extend(child_secrets);
        Ok((Value::Map(doc), plan, warnings, secrets))
    }
}

fn edge_style(kind: &str) -> EdgeStyle {
    EdgeStyle {
        color: EdgeFamily::Requires.color(),
        line: match kind {
            "depends_on" => "solid",
            NESTED => "dotted",
            _ => "dashed",
        },
    }
}

/// The group of a stack's own resources in its plan.
const OWN: &str = "stack";

/// Adds a nested stack's plan (of resource `name`, node `parent`) to its
/// parent's: its nodes keyed and titled by their path (`group.0.server`),
/// grouped by the nested stack they belong to (`group.0`), such groups
/// drawn collapsed; a `nested` edge from the stack resource to each
/// resource its child creates first.
fn merge_child(plan: &mut Plan, parent: usize, name: &str, child: Plan) {
    let base = plan.nodes.len();
    let path = |rel: &str| {
        if rel == OWN {
            name.to_string()
        } else {
            format!("{name}.{rel}")
        }
    };
    for (i, mut n) in child.nodes.into_iter().enumerate() {
        let first = n.group == OWN && n.rank == "0";
        n.key = format!("{name}.{}", n.key);
        n.title = n.key.clone();
        if let Some(last) = n.label.last_mut() {
            *last = format!("{name}.{last}");
        }
        n.group = path(&n.group);
        if first {
            plan.edges.push(PlanEdge {
                from: parent,
                to: base + i,
                kind: NESTED.into(),
                label: NESTED.into(),
                style: edge_style(NESTED),
                family: EdgeFamily::Requires,
                fields: Map::new(),
            });
        }
        plan.nodes.push(n);
    }
    plan.folded.push(name.to_string());
    plan.folded
        .extend(child.folded.iter().map(|g| format!("{name}.{g}")));
    plan.order.extend(child.order.iter().map(|i| base + i));
    plan.edges.extend(child.edges.into_iter().map(|e| PlanEdge {
        from: base + e.from,
        to: base + e.to,
        ..e
    }));
    if !plan.legend.iter().any(|(k, _)| k == NESTED) {
        plan.legend.push((NESTED.into(), edge_style(NESTED)));
    }
}

/// The edge kind from a stack resource to what its nested stack creates.
const NESTED: &str = "nested";
