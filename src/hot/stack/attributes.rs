//! Which attributes a resource type has (Heat 27.0.1's schemas): the
//! offline check of `get_attr` names.

use super::waves::Positions;
use super::{Built, OutputRefs, Resource, Stack};
use crate::diag::{codes, Diagnostic};
use crate::hot::{env, error};
use crate::value::Map;
use foldhash::{HashMap, HashMapExt};
use std::collections::BTreeSet;

/// Attribute names per resource type (Heat 27.0.1's schemas).
const ATTRIBUTES: &str = include_str!("attributes.txt");

/// Whether a resource of type `t` has attribute `attr`: every resource has
/// `show`; group types also answer `resource.N...`; a type lowstate has no
/// schema for (a provider template, an unknown type) is not checked.
/// The types whose plugin class overrides `get_attribute`/`FnGetAtt` in
/// Heat 27: its validation then takes any attribute name (a group or chain
/// gathers an unknown one from every member, a deployment reads its
/// config's outputs, `OS::Heat::None` answers anything).
const DYNAMIC_ATTRIBUTES: &[&str] = &[
    "AWS::CloudFormation::Stack",
    "OS::Heat::AutoScalingGroup",
    "OS::Heat::None",
    "OS::Heat::ResourceChain",
    "OS::Heat::ResourceGroup",
    "OS::Heat::SoftwareDeployment",
    "OS::Heat::SoftwareDeploymentGroup",
    "OS::Heat::StructuredDeployment",
    "OS::Heat::StructuredDeploymentGroup",
];

/// The attribute names of each type of [`ATTRIBUTES`], a table built once
/// (every `get_attr` of a tree of stacks asks).
fn table() -> &'static HashMap<&'static str, Vec<&'static str>> {
    static TABLE: std::sync::OnceLock<HashMap<&'static str, Vec<&'static str>>> =
        std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = HashMap::new();
        for line in ATTRIBUTES.lines() {
            let mut words = line.split(' ');
            if let Some(ty) = words.next() {
                // The first line of a type wins, as a scan would find it.
                t.entry(ty).or_insert_with(|| words.collect());
            }
        }
        t
    })
}

/// The attribute names of resource type `type_name` in Heat 27.0.1's
/// schemas (`show` included; empty for a type lowstate has no schema for).
pub fn attributes_of(type_name: &str) -> Vec<&'static str> {
    let mut out: Vec<&str> = table().get(type_name).cloned().unwrap_or_default();
    if !out.is_empty() || env::is_plugin(type_name) {
        out.push("show");
    }
    out
}

fn has_attribute(t: &env::ResolvedType, attr: &str) -> bool {
    if t.template.is_some() || attr == "show" || DYNAMIC_ATTRIBUTES.contains(&t.resolved.as_str()) {
        return true;
    }
    let Some(attrs) = table().get(t.resolved.as_str()) else {
        return true;
    };
    let group = t.resolved.contains("Group") || t.resolved.ends_with("::Stack");
    attrs.contains(&attr) || (group && attr.starts_with("resource."))
}

impl Stack<'_> {
    /// Better than Heat offline: every `get_attr` of the resources and
    /// outputs names an attribute its target's type has, and outputs
    /// reference only resources of the template.
    pub(super) fn check_attributes(
        &self,
        resolved: &[Resource],
        index: &Positions<'_>,
        outputs: &[(String, Built<Map>)],
        output_refs: &[OutputRefs],
        all: &BTreeSet<&str>,
    ) -> Result<(), Diagnostic> {
        let types = |target: &str| index.get(target).map(|&i| &resolved[i].resolved);
        for r in resolved {
            for (target, attr) in &r.attributes {
                if let Some(t) = types(target) {
                    if !has_attribute(t, attr) {
                        return Err(self.resource_error(codes::HOT_INVALID_ATTRIBUTE, format!(
                                "The Referenced Attribute ({target} {attr}) is incorrect: {} has no attribute \"{attr}\"",
                                t.resolved
                            ), &r.name));
                    }
                }
            }
        }
        for ((name, o), met) in outputs.iter().zip(output_refs) {
            if o.is_ok() {
                for (target, attr) in &met.attributes {
                    if let Some(t) = types(target) {
                        if !has_attribute(t, attr) {
                            return Err(error(
                                codes::HOT_INVALID_ATTRIBUTE,
                                format!(
                                    "outputs.{name}.value: The Referenced Attribute ({target} {attr}) is incorrect: {} has no attribute \"{attr}\"",
                                    t.resolved
                                ),
                                self.at(&["outputs", name]),
                            ));
                        }
                    }
                }
                for target in &met.refs {
                    if !all.contains(target.as_str()) {
                        return Err(error(
                            codes::HOT_INVALID_REFERENCE,
                            format!("outputs.{name}.value: The specified reference \"{target}\" (in unknown) is incorrect."),
                            self.at(&["outputs", name]),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}
