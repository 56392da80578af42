//! `lowstate check --hot`: every resource's properties against the
//! properties Heat 27.0.1 declares for its type. This module owns the HOT
//! schema catalogue (`schemas/*.yaml`, one file per resource type,
//! generated from Heat's own schema dump by `tests/check_hot_schemas.rs`,
//! with hand-written property groups below each file's marker line) and
//! turns the dialect-neutral [`crate::rules`] findings into located
//! diagnostics.
//!
//! Properties are checked after the stack compiles, on their resolved
//! values (parameters substituted, functions evaluated); a value that stays
//! a function until the stack runs (`get_resource`, `get_attr`, anything
//! built from them) counts as given but its type and value are not checked.
//! Values follow Heat's coercions (a string property takes `3`, an integer
//! property takes `"3"`), and after Heat's property renames (`network_id`
//! given for `network`: checked as `network`; both given: refused).
//! Constraints that need a cloud (Heat's custom
//! constraints: `nova.flavor`, `neutron.network`, ...) are not checked. A
//! type without a schema (a provider template, a custom type) gets one
//! `not-validated` info diagnostic. An `OS::Heat::ResourceGroup`'s
//! `resource_def` is checked against its member type too, as Heat
//! validates it as a resource of a nested stack. One relation between
//! resources is checked as Heat's `SoftwareDeployment.validate()` does: a
//! server of the template that a software (or structured) deployment
//! targets must take `user_data_format: SOFTWARE_CONFIG`; and an
//! autoscaling group's sizes are compared as its `validate()` does.

mod catalogue;

use super::{template, Compiled, Input, RESOURCE};
use crate::diag::{codes, Diagnostic, Label};
use crate::rules::{self, Finding, Hints, Schema};
use crate::value::{Map, Value};
use std::collections::{BTreeMap, HashMap};

/// The engine the schemas come from, as notes name it.
pub const ENGINE: &str = "Heat 27.0.1";

/// Every resource type with a schema, sorted by name.
pub fn types() -> impl Iterator<Item = &'static str> {
    catalogue::CATALOGUE.iter().map(|(name, _)| *name)
}

/// The text of a resource type's schema file (`lowstate/state-args/1`).
pub fn schema_text(type_name: &str) -> Option<&'static str> {
    catalogue::CATALOGUE
        .binary_search_by(|(name, _)| (*name).cmp(type_name))
        .ok()
        .map(|i| catalogue::CATALOGUE[i].1)
}

/// The parsed schema of a resource type (`None`: no schema; `Err`: the
/// schema file does not parse, which the project's tests rule out).
pub fn schema(type_name: &str) -> Option<Result<Schema, rules::SchemaError>> {
    schema_text(type_name).map(|text| rules::parse_schema(type_name, text))
}

/// Compile the stack and check every resource's properties. When the
/// stack does not compile, its compile diagnostics are returned instead
/// (the check needs resolved properties); otherwise only the check's own
/// diagnostics (the compile's warnings are not repeated). See
/// [`check_compiled`].
pub fn check(input: &Input) -> Vec<Diagnostic> {
    let compiled = super::compile(input);
    if !compiled.ok() {
        return compiled.diagnostics;
    }
    check_compiled(input, &compiled)
}

/// Every parameter value that is missing or invalid, in template order,
/// not only the first (the compile's error, which is the one Heat
/// reports): what `check --hot` lists when a stack stops at its
/// parameters. Empty when the template or environments do not read, or a
/// parameter definition is malformed (the compile's error says so).
pub fn parameter_errors(input: &Input) -> Vec<Diagnostic> {
    let Some(file) = &input.template else {
        return Vec::new();
    };
    let Ok(t) = template::parse(file, input.max_template_size, &input.limits) else {
        return Vec::new();
    };
    let mut env_files = Vec::new();
    for f in &input.environments {
        match super::env::read(f, &input.limits) {
            Ok(e) => env_files.push(e),
            Err(_) => return Vec::new(),
        }
    }
    let declared = super::params::declared_types(&t);
    let Ok(env) = super::env::layer(
        &env_files,
        &input.parameters,
        &|n| declared.get(n).cloned(),
        input.env_mode,
    ) else {
        return Vec::new();
    };
    match super::params::build_all(&t, &env, &Map::new(), input.unset, &mut Vec::new()) {
        Ok((_, errors)) => errors,
        Err(_) => Vec::new(),
    }
}

/// Check every resource's properties in a stack already compiled from
/// `input`, in template order: one diagnostic per finding (codes
/// `unknown-argument`, `missing-argument`, `wrong-type`, `bad-value`,
/// `argument-group`, `forbidden-argument`, `deprecated-argument`,
/// `argument-version`), each about its resource (subject `resource`) and
/// located at the property's key in the template (the resource's key when
/// no single property is involved). A resource type with no schema gets
/// one `not-validated` info diagnostic per type. Disabled resources (a
/// false `condition`) and external ones (an `external_id`) are not
/// checked. The member definition of an
/// `OS::Heat::ResourceGroup` is checked against its type as well (messages
/// start with `resource_def (TYPE): `, located in `resource_def`). The
/// checks Heat hand-codes that lowstate follows (renamed properties, a
/// deployment's server, autoscaling sizes) are described in the module
/// documentation. Returns nothing for a stack that did not compile.
pub fn check_compiled(input: &Input, compiled: &Compiled) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if !compiled.ok() {
        return out;
    }
    let Some(file) = &input.template else {
        return out;
    };
    let Ok(t) = template::parse(file, input.max_template_size, &input.limits) else {
        return out;
    };
    let resolved: HashMap<String, &Map> = compiled
        .document
        .get("resources")
        .and_then(Value::as_list)
        .into_iter()
        .flatten()
        .filter_map(Value::as_map)
        .filter_map(|m| Some((m.get("name")?.py_str(), m)))
        .collect();
    // Template order; a resource with an `external_id` is adopted, not
    // created, and Heat validates only that it exists (`validate_external`),
    // not its properties.
    let order: Vec<String> = t
        .section("resources")
        .and_then(Value::as_map)
        .map(|m| {
            m.iter()
                .filter(|(_, def)| def.get("external_id").is_none_or(Value::is_null))
                .map(|(k, _)| k.py_str())
                .collect()
        })
        .unwrap_or_default();
    let versions = BTreeMap::new();
    let ctx = rules::Context {
        engine: ENGINE,
        versions: &versions,
        lenient_scalars: true,
        unknown_value: &is_symbolic,
    };
    let hints = Hints {
        always_allowed: &|_| false,
        near_misses: &[],
    };
    let empty = Map::new();
    let registry = compiled
        .document
        .get("environment")
        .and_then(|e| e.get("resource_registry"))
        .and_then(Value::as_map)
        .unwrap_or(&empty);
    let mut schemas: HashMap<String, Option<Result<Schema, rules::SchemaError>>> = HashMap::new();
    let mut unvalidated: Vec<String> = Vec::new();
    let at = |path: &[&str]| -> Option<Label> { t.span(path).map(|r| Label::new(file, r, "here")) };
    for name in &order {
        let Some(r) = resolved.get(name) else {
            continue;
        };
        let written = r.get("type").map(Value::py_str).unwrap_or_default();
        let ty = r
            .get("resolved_type")
            .map(Value::py_str)
            .unwrap_or_else(|| written.clone());
        let resource_at = || at(&["resources", name]);
        let provider = r.get("provider_template").map(Value::py_str);
        let schema = match provider {
            Some(_) => None,
            None => schemas
                .entry(ty.clone())
                .or_insert_with(|| schema(&ty))
                .as_ref(),
        };
        let schema = match schema {
            Some(Ok(s)) => s,
            other => {
                if !unvalidated.contains(&written) {
                    unvalidated.push(written.clone());
                    out.push(not_validated(
                        name,
                        &written,
                        &ty,
                        provider.as_deref(),
                        other.and_then(|r| r.as_ref().err()),
                        resource_at(),
                    ));
                }
                continue;
            }
        };
        let props = match r.get("properties") {
            None | Some(Value::Null) => Map::new(),
            Some(v) if is_symbolic(v) => continue,
            Some(Value::Map(m)) => m.clone(),
            Some(_) => continue,
        };
        let mut props = props;
        let renamed = translate(&ty, &mut props);
        let base = ["resources", name.as_str(), "properties"];
        for r in renamed.iter().filter(|r| r.conflict) {
            out.push(renamed_conflict(name, &ty, r, &base, &at, resource_at()));
        }
        let key_at = |p: &[&str]| -> Option<Label> {
            // A property Heat renames is found under the name written.
            let written = match p {
                [.., last] => renamed
                    .iter()
                    .find(|r| !r.conflict && r.index.is_none() && r.new == *last)
                    .map(|r| r.old.as_str()),
                [] => None,
            };
            match written {
                Some(old) => {
                    let mut q = p.to_vec();
                    q.pop();
                    q.push(old);
                    at(&q)
                }
                None => at(p),
            }
        };
        for f in rules::check(schema, &props, &hints, &ctx) {
            out.push(diagnostic(name, f, &base, None, &key_at, resource_at()));
        }
        if let Some(d) = group_sizes(name, &ty, &props, &at) {
            out.push(d);
        }
        for (key, target) in deployment_servers(&ty, &props) {
            let server = resolved.get(target.as_str()).copied();
            if let Some(d) = software_config_server(name, &ty, key, &target, server, &at) {
                out.push(d);
            }
        }
        // Heat validates a ResourceGroup's member definition as a resource
        // of a nested stack: its properties are checked too.
        if ty != "OS::Heat::ResourceGroup" {
            continue;
        }
        let Some(Value::Map(def)) = props.get("resource_def") else {
            continue;
        };
        let Some(inner) = def.get("type").and_then(Value::as_str) else {
            continue;
        };
        let def_at = || at(&["resources", name, "properties", "resource_def"]).or(resource_at());
        let found = super::env::resolve_type(registry, "0", inner);
        let schema = match &found.template {
            Some(_) => None,
            None => schemas
                .entry(found.resolved.clone())
                .or_insert_with(|| self::schema(&found.resolved))
                .as_ref(),
        };
        let inner_schema = match schema {
            Some(Ok(s)) => s,
            other => {
                if !unvalidated.iter().any(|u| u == inner) {
                    unvalidated.push(inner.to_string());
                    out.push(not_validated(
                        name,
                        inner,
                        &found.resolved,
                        found.template.as_deref(),
                        other.and_then(|r| r.as_ref().err()),
                        def_at(),
                    ));
                }
                continue;
            }
        };
        let inner_props = match def.get("properties") {
            None | Some(Value::Null) => Map::new(),
            Some(v) if is_symbolic(v) => continue,
            Some(Value::Map(m)) => m.clone(),
            Some(_) => continue,
        };
        let base = [
            "resources",
            name.as_str(),
            "properties",
            "resource_def",
            "properties",
        ];
        let prefix = format!("resource_def ({inner}): ");
        let mut inner_props = inner_props;
        for r in translate(&found.resolved, &mut inner_props)
            .iter()
            .filter(|r| r.conflict)
        {
            let mut d = renamed_conflict(name, &found.resolved, r, &base, &at, def_at());
            d.message = format!("{prefix}{}", d.message);
            out.push(d);
        }
        for f in rules::check(inner_schema, &inner_props, &hints, &ctx) {
            out.push(diagnostic(name, f, &base, Some(&prefix), &at, def_at()));
        }
    }
    out
}

/// Heat's translation rules that rename a property (`TranslationRule.REPLACE`
/// in each plug-in's `translation_rules()`): the type, the list property
/// whose items hold it (empty: top level), the current name, the older one.
/// Heat moves a value given under the older name to the current one before
/// it validates, and refuses both at once.
const RENAMED: &[(&str, &str, &str, &str)] = &[
    ("OS::Cinder::Volume", "", "image", "imageRef"),
    ("OS::Designate::Zone", "", "masters", "primaries"),
    (
        "OS::Neutron::FloatingIP",
        "",
        "floating_network",
        "floating_network_id",
    ),
    (
        "OS::Neutron::NetworkGateway",
        "connections",
        "network",
        "network_id",
    ),
    ("OS::Neutron::Port", "", "network", "network_id"),
    ("OS::Neutron::Port", "fixed_ips", "subnet", "subnet_id"),
    ("OS::Neutron::RouterInterface", "", "port", "port_id"),
    ("OS::Neutron::RouterInterface", "", "router", "router_id"),
    ("OS::Neutron::RouterInterface", "", "subnet", "subnet_id"),
    ("OS::Neutron::Subnet", "", "network", "network_id"),
    ("OS::Neutron::VPNService", "", "router", "router_id"),
    ("OS::Neutron::VPNService", "", "subnet", "subnet_id"),
    (
        "OS::Nova::Server",
        "block_device_mapping_v2",
        "image",
        "image_id",
    ),
    ("OS::Nova::Server", "networks", "network", "uuid"),
];

/// One rename applied (or refused) by [`translate`].
struct Renamed {
    /// The current name.
    new: String,
    /// The older name, as written.
    old: String,
    /// The list property and item index, for a rename inside list items.
    index: Option<(&'static str, usize)>,
    /// Both names were given (Heat refuses this).
    conflict: bool,
}

/// Apply Heat's renames to a resource's properties, as Heat does before it
/// validates them.
fn translate(ty: &str, props: &mut Map) -> Vec<Renamed> {
    fn one(m: &mut Map, new: &str, old: &str) -> Option<bool> {
        let given = |v: Option<&Value>| v.is_some_and(|v| !v.is_null());
        if !given(m.get(old)) {
            return None;
        }
        if given(m.get(new)) {
            // Heat: `if value and prop_value` (both truthy) is a conflict.
            let truthy = |k: &str| m.get(k).is_some_and(Value::truthy);
            return (truthy(new) && truthy(old)).then_some(true);
        }
        let v = m.shift_remove(old)?;
        m.insert(Value::str(new), v);
        Some(false)
    }
    let mut out = Vec::new();
    for (t, parent, new, old) in RENAMED {
        if *t != ty {
            continue;
        }
        let mut push = |conflict: bool, index| {
            out.push(Renamed {
                new: new.to_string(),
                old: old.to_string(),
                index,
                conflict,
            })
        };
        if parent.is_empty() {
            if let Some(conflict) = one(props, new, old) {
                push(conflict, None);
            }
            continue;
        }
        if let Some(Value::List(items)) = props.get_mut(*parent) {
            for (i, item) in items.iter_mut().enumerate() {
                if let Value::Map(m) = item {
                    if let Some(conflict) = one(m, new, old) {
                        push(conflict, Some((*parent, i)));
                    }
                }
            }
        }
    }
    out
}

/// Both names of a renamed property given: Heat refuses the template.
fn renamed_conflict(
    name: &str,
    ty: &str,
    r: &Renamed,
    base: &[&str],
    at: &dyn Fn(&[&str]) -> Option<Label>,
    fallback: Option<Label>,
) -> Diagnostic {
    let (new, old) = (r.new.as_str(), r.old.as_str());
    let (message, heat, label) = match r.index {
        None => (
            format!("{ty}: cannot use these properties together: {new}, {old}"),
            format!("{new}, {old}"),
            {
                let mut p = base.to_vec();
                p.push(old);
                at(&p)
            },
        ),
        Some((parent, i)) => (
            format!("{ty}: cannot use these properties together: {new}, {old} (in {parent}[{i}])"),
            format!("{parent}.{new}, {parent}.{old}"),
            {
                let mut p = base.to_vec();
                p.push(parent);
                at(&p)
            },
        ),
    };
    Diagnostic::new(codes::ARGUMENT_GROUP, message)
        .with_subject(RESOURCE, name)
        .or_primary(label.or(fallback))
        .with_note(format!(
            "{ENGINE} rejects the template with: `Cannot define the following properties at the same time: {heat}`"
        ))
        .with_note(format!("`{old}` is the older name of `{new}`"))
        .with_note("from reading the engine's source (not verified by a run)")
}

/// Heat's `AutoScalingGroup.validate()` (shared by the HOT and the AWS
/// type): the minimum size is at most the maximum, and a desired capacity
/// lies between them. Sizes read as Heat's integer properties do; a size
/// only known at run time is not compared.
fn group_sizes(
    name: &str,
    ty: &str,
    props: &Map,
    at: &dyn Fn(&[&str]) -> Option<Label>,
) -> Option<Diagnostic> {
    let (min, max, desired) = match ty {
        "OS::Heat::AutoScalingGroup" => ("min_size", "max_size", "desired_capacity"),
        "AWS::AutoScaling::AutoScalingGroup" => ("MinSize", "MaxSize", "DesiredCapacity"),
        _ => return None,
    };
    let size = |k: &str| -> Option<i64> {
        match props.get(k)? {
            Value::Int(i) => Some(*i),
            Value::Bool(b) => Some(i64::from(*b)),
            Value::Float(f) if f.is_finite() => Some(f.trunc() as i64),
            Value::Str(s) => s.trim().replace('_', "").parse().ok(),
            _ => None,
        }
    };
    let (lo, hi) = (size(min)?, size(max)?);
    let (message, heat, key) = if hi < lo {
        (
            format!("{ty}: {min} is {lo}, more than {max} ({hi})"),
            "MinSize can not be greater than MaxSize",
            min,
        )
    } else {
        let want = size(desired)?;
        if (lo..=hi).contains(&want) {
            return None;
        }
        (
            format!("{ty}: {desired} is {want}, outside {min} and {max} ({lo} to {hi})"),
            "DesiredCapacity must be between MinSize and MaxSize",
            desired,
        )
    };
    Some(
        Diagnostic::new(codes::BAD_VALUE, message)
            .with_subject(RESOURCE, name)
            .or_primary(
                at(&["resources", name, "properties", key]).or_else(|| at(&["resources", name])),
            )
            .with_note(format!("{ENGINE} rejects the template with: `{heat}`"))
            .with_note("from reading the engine's source (not verified by a run)"),
    )
}

/// The server a software deployment targets, by resource name:
/// `get_resource`, or a string naming a resource (Heat's
/// `Stack.resource_by_refid` matches either), with the property holding
/// it. (A deployment group's members are validated in a nested stack,
/// where the servers are not found, so Heat checks nothing there.)
fn deployment_servers(ty: &str, props: &Map) -> Vec<(&'static str, String)> {
    let target = |v: &Value| -> Option<String> {
        match v {
            Value::Str(s) => Some(s.to_string()),
            Value::Map(m) if m.len() == 1 => m
                .get("get_resource")
                .and_then(Value::as_str)
                .map(str::to_string),
            _ => None,
        }
    };
    match ty {
        "OS::Heat::SoftwareDeployment" | "OS::Heat::StructuredDeployment" => props
            .get("server")
            .and_then(target)
            .map(|t| ("server", t))
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

/// Heat's `SoftwareDeployment.validate()`: a server (of this template)
/// with deployments on it must take `user_data_format: SOFTWARE_CONFIG`
/// (its default is `HEAT_CFNTOOLS`).
fn software_config_server(
    name: &str,
    ty: &str,
    key: &str,
    target: &str,
    server: Option<&Map>,
    at: &dyn Fn(&[&str]) -> Option<Label>,
) -> Option<Diagnostic> {
    let server = server?;
    let server_type = server.get("resolved_type").and_then(Value::as_str);
    if server_type != Some("OS::Nova::Server") || server.contains_key("provider_template") {
        return None;
    }
    let given = match server.get("properties") {
        Some(Value::Map(m)) => m.get("user_data_format").filter(|v| !v.is_null()),
        None | Some(Value::Null) => None,
        Some(_) => return None,
    };
    let (format, how) = match given {
        None => ("HEAT_CFNTOOLS".to_string(), " (the default)"),
        Some(v) if is_symbolic(v) => return None,
        Some(v) => (v.py_str(), ""),
    };
    if format == "SOFTWARE_CONFIG" {
        return None;
    }
    let mut d = Diagnostic::new(
        codes::BAD_VALUE,
        format!(
            "{ty}: server {target} has user_data_format {format}{how}; a server with software deployments needs SOFTWARE_CONFIG"
        ),
    )
    .with_subject(RESOURCE, name)
    .or_primary(
        at(&["resources", name, "properties", key]).or_else(|| at(&["resources", name])),
    );
    let server_at = match given {
        Some(_) => at(&["resources", target, "properties", "user_data_format"]),
        None => at(&["resources", target]),
    };
    if let Some(l) = server_at {
        d = d.with_secondary(Label {
            message: "the server".into(),
            ..l
        });
    }
    Some(
        d.with_note(format!(
            "{ENGINE} rejects the template with: `Resource {target}'s property user_data_format should be set to SOFTWARE_CONFIG since there are software deployments on it.`"
        ))
        .with_note("from reading the engine's source (not verified by a run)"),
    )
}

/// The info diagnostic for a resource type no schema knows; for a type
/// Heat does not know either (no plug-in, no registry mapping to one, no
/// template), the `hot-unknown-type` warning with Heat's refusal and the
/// closest type's name.
fn not_validated(
    name: &str,
    written: &str,
    resolved: &str,
    provider: Option<&str>,
    broken: Option<&rules::SchemaError>,
    label: Option<Label>,
) -> Diagnostic {
    if provider.is_none() && !super::env::is_plugin(resolved) {
        let mut d = Diagnostic::new(
            codes::HOT_UNKNOWN_TYPE,
            format!("{written}: Heat has no resource type of this name, and no registry mapping or template provides it"),
        )
        .with_subject(RESOURCE, name)
        .with_note(format!(
            "{ENGINE} refuses the stack: The Resource Type ({resolved}) could not be found."
        ));
        if let Some(l) = label {
            d = d.with_primary(l);
        }
        if written != resolved {
            d = d.with_note(format!(
                "the environment's resource_registry maps it to {resolved}"
            ));
        }
        if let Some(near) = rules::suggest(resolved, super::env::plugins()) {
            d = d.with_note(format!("did you mean `{near}`?"));
        }
        return d;
    }
    let message = match provider {
        Some(p) => format!(
            "{written}: a provider template ({p}); the properties of resources of this type are not checked"
        ),
        None => format!(
            "{written}: no schema knows this resource type; the properties of resources of this type are not checked"
        ),
    };
    let mut d = Diagnostic::new(codes::NOT_VALIDATED, message).with_subject(RESOURCE, name);
    if let Some(l) = label {
        d = d.with_primary(l);
    }
    if written != resolved && provider.is_none() {
        d = d.with_note(format!(
            "the environment's resource_registry maps it to {resolved}"
        ));
    }
    if provider.is_none() && super::env::is_plugin(resolved) {
        d = d.with_note(format!(
            "{ENGINE} has a plug-in for {resolved} but does not list it (a hidden or retired type)"
        ));
    }
    if let Some(e) = broken {
        d = d.with_note(format!("its schema file does not load: {e}"));
    }
    d
}

/// One finding as a located diagnostic about resource `name`; `base` is
/// the template path of the checked properties mapping, `prefix` starts
/// the message (a ResourceGroup's member definition).
fn diagnostic(
    name: &str,
    mut f: Finding,
    base: &[&str],
    prefix: Option<&str>,
    at: &dyn Fn(&[&str]) -> Option<Label>,
    fallback: Option<Label>,
) -> Diagnostic {
    if let Some(prefix) = prefix {
        f.message.insert_str(0, prefix);
    }
    let prop = |p: &str| {
        let mut path = base.to_vec();
        path.push(p);
        at(&path)
    };
    f.into_diagnostic(rules::Placement {
        arg: &prop,
        owner: fallback,
        owner_beside_arg: false,
        involved: Some("involved"),
    })
    .with_subject(RESOURCE, name)
}

/// Whether a resolved value stays a function until the stack runs (a
/// one-key map naming a function, see [`crate::hot::functions::is_symbolic`]).
fn is_symbolic(v: &Value) -> bool {
    crate::hot::functions::is_symbolic(v)
}

#[cfg(test)]
mod tests;
