//! The update preview (`lowstate hot NEW --diff-from OLD`, like `openstack
//! stack update --dry-run`): which resources Heat 27.0.1 would add, delete,
//! update in place or replace, and why, recursively into nested stacks.
//! Both sides are compiled with `--nested`; each resource present on both
//! is decided in the order of Heat's `Resource.preview_update`: a change of
//! plugin class, `needs_replace`, the definition and property comparison,
//! the template-diff rule, `immutable` properties, the plugin's
//! `needs_replace_with_prop_diff`, `update_allowed` (the property schemas
//! of Heat 27.0.1, `props.txt`). A stack resource that changes is updated
//! and its child stacks are compared again, as
//! `preview_update_stack(show_nested=True)` does.

use super::{compile, kind_of, Compiled, Input};
use crate::diag::{codes, Code, Diagnostic, Label, SourceFile};
use crate::value::{List, Map, Value};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Property facts per resource type: `update_allowed`, `immutable`, the
/// schema type and default (generated from Heat 27.0.1's schemas).
const PROPS: &str = include_str!("props.txt");

/// Why Heat's preview stops: the code (whose corpus kind the document
/// gives), Heat's message, and what it is about in the new stack.
struct Refusal {
    code: Code,
    message: String,
    about: About,
    /// About the old stack (else the new one).
    old: bool,
}

/// What a refusal is about, in the new stack.
enum About {
    /// The resource at `path` (names from the root joined by `.`), and
    /// the property when Heat names one.
    Resource {
        path: String,
        property: Option<String>,
    },
    /// Root parameters (the immutable ones changed).
    Parameters(Vec<String>),
}

/// One property's schema facts.
struct Prop<'a> {
    name: &'a str,
    update_allowed: bool,
    immutable: bool,
    /// Required without a default: Heat's `Properties.get` of it raises
    /// "Property X not assigned" when the definition does not hold it.
    required: bool,
    ty: &'a str,
    default: Option<Value>,
}

/// The types whose plugin in Heat 27.0.1 is `NoneResource` or a subclass
/// of it (`OS::Heat::None` and the retired services' types): its
/// `_needs_update` is always false, whatever changed.
const NONE_RESOURCES: &[&str] = &[
    "OS::Aodh::CombinationAlarm",
    "OS::Designate::Domain",
    "OS::Designate::Record",
    "OS::Glance::Image",
    "OS::Heat::HARestarter",
    "OS::Heat::None",
    "OS::Magnum::Bay",
    "OS::Monasca::AlarmDefinition",
    "OS::Monasca::Notification",
    "OS::Neutron::HealthMonitor",
    "OS::Neutron::LBaaS::HealthMonitor",
    "OS::Neutron::LBaaS::L7Policy",
    "OS::Neutron::LBaaS::L7Rule",
    "OS::Neutron::LBaaS::Listener",
    "OS::Neutron::LBaaS::LoadBalancer",
    "OS::Neutron::LBaaS::Pool",
    "OS::Neutron::LBaaS::PoolMember",
    "OS::Neutron::LoadBalancer",
    "OS::Neutron::Pool",
    "OS::Neutron::PoolMember",
    "OS::Sahara::Cluster",
    "OS::Sahara::ClusterTemplate",
    "OS::Sahara::DataSource",
    "OS::Sahara::ImageRegistry",
    "OS::Sahara::Job",
    "OS::Sahara::JobBinary",
    "OS::Sahara::NodeGroupTemplate",
    "OS::Senlin::Cluster",
    "OS::Senlin::Node",
    "OS::Senlin::Policy",
    "OS::Senlin::Profile",
    "OS::Senlin::Receiver",
    "OS::Vitrage::Template",
];

/// The member type of an `OS::Heat::InstanceGroup`.
const SCALED_RESOURCE: &str = "OS::Heat::ScaledResource";

/// The properties of type `t`, or `None` when lowstate has no schema for it.
fn schema(t: &str) -> Option<Vec<Prop<'static>>> {
    let mut lines = PROPS.lines().skip_while(|l| *l != t);
    lines.next()?;
    Some(
        lines
            .take_while(|l| l.starts_with("  "))
            .filter_map(|l| {
                let mut parts = l.trim_start().splitn(4, ' ');
                let name = parts.next()?;
                let flags = parts.next()?;
                let ty = parts.next()?;
                let default = parts
                    .next()
                    .and_then(|j| serde_json::from_str::<serde_json::Value>(j).ok())
                    .map(|j| Value::from_json(&j));
                Some(Prop {
                    name,
                    update_allowed: flags.contains('u'),
                    immutable: flags.contains('i'),
                    required: flags.contains('r'),
                    ty,
                    default,
                })
            })
            .collect(),
    )
}

/// The preview of updating the stack OLD into NEW.
pub fn preview(old: &Input, new: &Input) -> Compiled {
    preview_sides(old, new).preview
}

/// An update preview with the two stacks it compares.
pub struct Preview {
    /// The preview document and diagnostics (see [`preview`]).
    pub preview: Compiled,
    /// The old stack, compiled with nested stacks.
    pub old: Compiled,
    /// The new stack, compiled with nested stacks.
    pub new: Compiled,
}

/// The preview of updating the stack OLD into NEW, with both compiled
/// sides (their resources' properties, for a change report).
pub fn preview_sides(old: &Input, new: &Input) -> Preview {
    let limit = new.limits.hot_resources;
    let old = compile(&Input {
        nested: true,
        ..old.clone()
    });
    let new = compile(&Input {
        nested: true,
        ..new.clone()
    });
    let preview = compare(&old, &new, limit);
    Preview { preview, old, new }
}

/// The preview document of two compiled stacks.
fn compare(old: &Compiled, new: &Compiled, limit: usize) -> Compiled {
    let mut doc = Map::new();
    let failed = !old.ok() || !new.ok();
    doc.insert("ok".into(), Value::Bool(!failed));
    if let Some(v) = new.document.get("template_version") {
        doc.insert("template_version".into(), v.clone());
    }
    let mut secrets = old.secrets.clone();
    secrets.extend(new.secrets.iter().cloned());
    if failed {
        let mut errors = List::new();
        let mut diagnostics = Vec::new();
        for (side, c) in [("old", old), ("new", new)] {
            for d in c.diagnostics.iter().filter(|d| d.is_error()) {
                let mut e = Map::new();
                e.insert("kind".into(), Value::str(kind_of(d.code)));
                e.insert("message".into(), Value::str(d.message.as_str()));
                e.insert("side".into(), Value::str(side));
                errors.push(Value::Map(e));
                diagnostics.push(d.clone().with_note(format!("in the {side} stack")));
            }
        }
        doc.insert("errors".into(), Value::List(errors));
        return Compiled {
            document: Value::Map(doc),
            diagnostics,
            plan: Default::default(),
            secrets,
            parameter_layers: Default::default(),
            sources: new.sources.clone(),
        };
    }
    let mut out = Actions {
        limit,
        ..Actions::default()
    };
    let empty = List::new();
    let list = |c: &Compiled| -> List {
        c.document
            .get("resources")
            .and_then(Value::as_list)
            .cloned()
            .unwrap_or_else(|| empty.clone())
    };
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    // Heat refuses an update that changes an `immutable` parameter, then
    // builds both stacks' resources (the new one's first), then compares.
    let changed_immutable: Vec<String> = immutable_params(&old.document, &new.document);
    let result = if changed_immutable.is_empty() {
        unknown_types(new, old)
            .and_then(|()| diff(&list(old), &list(new), "", &mut out).map_err(|r| vec![r]))
    } else {
        Err(vec![Refusal {
            code: codes::HOT_UPDATE_NOT_SUPPORTED,
            message: format!(
                "The following parameters are immutable and may not be updated: {}",
                changed_immutable.join(", ")
            ),
            about: About::Parameters(changed_immutable),
            old: false,
        }])
    };
    match result {
        Ok(()) => {
            doc.insert("errors".into(), Value::List(List::new()));
            for (k, mut v) in [
                ("added", out.added),
                ("deleted", out.deleted),
                ("updated", out.updated),
                ("replaced", out.replaced),
            ] {
                v.sort_by_key(|e| e.get("path").map(Value::py_str).unwrap_or_default());
                doc.insert(Value::str(k), Value::List(v.into_iter().collect()));
            }
            out.unchanged.sort();
            doc.insert(
                "unchanged".into(),
                Value::List(out.unchanged.into_iter().map(Value::str).collect()),
            );
        }
        Err(refusals) => {
            // Heat reports the first; the others are what it would meet
            // once that one is fixed.
            doc.insert("ok".into(), Value::Bool(false));
            let errors = refusals.iter().take(1).map(|r| {
                let mut e = Map::new();
                e.insert("kind".into(), Value::str(kind_of(r.code)));
                e.insert("message".into(), Value::str(r.message.as_str()));
                Value::Map(e)
            });
            doc.insert("errors".into(), Value::List(errors.collect()));
            diagnostics.extend(refusals.into_iter().map(|r| {
                let side = if r.old { old } else { new };
                located(r, side)
            }));
        }
    }
    diagnostics.extend(
        old.diagnostics
            .iter()
            .cloned()
            .map(|d| d.with_note("in the old stack")),
    );
    diagnostics.extend(new.diagnostics.iter().cloned());
    Compiled {
        document: Value::Map(doc),
        diagnostics,
        plan: Default::default(),
        secrets,
        parameter_layers: Default::default(),
        sources: new.sources.clone(),
    }
}

/// Heat builds the new stack's resources, then the old one's, before it
/// compares them: a resource whose type has no plugin, registry mapping
/// or template fails there (`StackValidationFailed`), in either stack
/// (the nested stacks' ones failed their own validation already). Heat
/// builds a stack's resources in Python's set order, so which of several
/// it names is not fixed: lowstate names the first in template order and
/// reports every one.
fn unknown_types(new: &Compiled, old: &Compiled) -> Result<(), Vec<Refusal>> {
    let mut refusals = Vec::new();
    for (c, is_old) in [(new, false), (old, true)] {
        let resources = c.document.get("resources").and_then(Value::as_list);
        for r in resources.into_iter().flatten() {
            if r.get("provider_template").is_some() {
                continue;
            }
            let Some(t) = r.get("resolved_type").and_then(Value::as_str) else {
                continue;
            };
            if crate::hot::env::is_plugin(t) {
                continue;
            }
            refusals.push(Refusal {
                code: codes::HOT_VALIDATION,
                message: format!("The Resource Type ({t}) could not be found."),
                about: About::Resource {
                    path: r.get("name").map(Value::py_str).unwrap_or_default(),
                    property: Some("type".into()),
                },
                old: is_old,
            });
        }
    }
    if refusals.is_empty() {
        Ok(())
    } else {
        Err(refusals)
    }
}

/// A refusal as a diagnostic, located in the stack `side` it is about:
/// at the resource (its property, or its `type` for an unknown type) in
/// the file that defines it, nested templates included; at the
/// parameters for immutable ones.
fn located(r: Refusal, side: &Compiled) -> Diagnostic {
    let mut d = Diagnostic::new(r.code, r.message);
    match &r.about {
        About::Resource { path, property } => {
            // A nested resource is named by its path from the root.
            d = d.with_subject(crate::hot::RESOURCE, path.as_str());
            if let Some((file, range)) = locate(side, path, property.as_deref()) {
                d = d.with_primary(Label::new(&file, range, "here"));
            }
        }
        About::Parameters(names) => {
            let root = side.sources.root.as_ref();
            for (i, p) in names.iter().enumerate() {
                let Some((t, range)) = root.and_then(|t| Some((t, t.span(&["parameters", p])?)))
                else {
                    continue;
                };
                let label = Label::new(&t.file, range, "immutable, and its value changes");
                d = if i == 0 {
                    d.with_primary(label)
                } else {
                    d.with_secondary(label)
                };
            }
        }
    }
    if r.old {
        d = d.with_note("in the old stack");
    }
    d
}

/// The file and span that define the resource at `path` of a compiled
/// `--nested` tree (the key of `property` in its definition when there is
/// one): the root template, a provider template (its `nested.template`),
/// a group's member definition (`resource_def`, `resource`: every member
/// shares it) or an `OS::Heat::Stack`'s inline template.
fn locate(
    c: &Compiled,
    path: &str,
    property: Option<&str>,
) -> Option<(Arc<SourceFile>, std::ops::Range<usize>)> {
    let mut t = c.sources.root.clone()?;
    // The keys down to the map that holds the stack's `resources`.
    let mut prefix: Vec<String> = Vec::new();
    // A group's generated stack: the one definition of every member.
    let mut shared: Option<Vec<String>> = None;
    let mut resources = c.document.get("resources")?.as_list()?;
    let mut rest = path;
    loop {
        let (name, r) = by_name(resources).into_iter().find(|(n, _)| {
            rest == n
                || rest
                    .strip_prefix(n.as_str())
                    .is_some_and(|x| x.starts_with('.'))
        })?;
        let def = shared.take().unwrap_or_else(|| {
            let mut keys = prefix.clone();
            keys.extend(["resources".to_string(), name.clone()]);
            keys
        });
        rest = rest[name.len()..].trim_start_matches('.');
        if rest.is_empty() {
            let keys = |extra: &[&str]| -> Vec<String> {
                def.iter()
                    .cloned()
                    .chain(extra.iter().map(|s| s.to_string()))
                    .collect()
            };
            let found = match property {
                Some("type") => t.span(&as_strs(&keys(&["type"]))),
                Some(p) => t.span(&as_strs(&keys(&["properties", p]))),
                None => None,
            };
            let range = found.or_else(|| t.span(&as_strs(&def)))?;
            return Some((t.file.clone(), range));
        }
        let nested = r.get("nested")?;
        match nested.get("template").and_then(Value::as_str) {
            Some(label) => {
                t = c.sources.providers.get(label)?.clone();
                prefix.clear();
            }
            None => {
                let member = match class(r).as_str() {
                    "OS::Heat::ResourceGroup" => Some("resource_def"),
                    "OS::Heat::AutoScalingGroup" => Some("resource"),
                    _ => None,
                };
                let mut keys = def.clone();
                keys.push("properties".into());
                match member {
                    Some(m) => {
                        keys.push(m.into());
                        shared = Some(keys);
                    }
                    None => {
                        keys.push("template".into());
                        prefix = keys;
                    }
                }
            }
        }
        resources = nested.get("resources")?.as_list()?;
    }
}

fn as_strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Parameters declared `immutable` whose value differs.
fn immutable_params(old: &Value, new: &Value) -> Vec<String> {
    let (Some(o), Some(n)) = (
        old.get("parameters").and_then(Value::as_map),
        new.get("parameters").and_then(Value::as_map),
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, p) in n {
        if !p.get("immutable").is_some_and(Value::truthy) {
            continue;
        }
        if let Some(q) = o.get(k) {
            if q.get("value") != p.get("value") {
                out.push(k.py_str());
            }
        }
    }
    out
}

#[derive(Default)]
struct Actions {
    /// The `hot-resources` limit: an `InstanceGroup` of more members
    /// is refused.
    limit: usize,
    added: Vec<Value>,
    deleted: Vec<Value>,
    updated: Vec<Value>,
    replaced: Vec<Value>,
    unchanged: Vec<String>,
}

fn entry(path: &str, ty: &Value, extra: Vec<(&str, Value)>) -> Value {
    let mut m = Map::new();
    m.insert("path".into(), Value::str(path));
    m.insert("type".into(), ty.clone());
    for (k, v) in extra {
        m.insert(Value::str(k), v);
    }
    Value::Map(m)
}

fn by_name(l: &List) -> Vec<(String, &Value)> {
    l.iter()
        .map(|r| (r.get("name").map(Value::py_str).unwrap_or_default(), r))
        .collect()
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// Every resource of `r`'s child stacks (`r` one of `siblings`),
/// recursively, into `sink`; an `InstanceGroup` among them over the
/// `hot-resources` limit is refused ([`over_limit`]: `old` says which
/// stack they are of).
fn members(
    r: &Value,
    siblings: &List,
    prefix: &str,
    limit: usize,
    old: bool,
    sink: &mut Vec<Value>,
) -> Result<(), Refusal> {
    let Some(rs) = r
        .get("nested")
        .and_then(|n| n.get("resources"))
        .and_then(Value::as_list)
        .cloned()
        .or_else(|| generated_members(r, siblings))
    else {
        return Ok(());
    };
    let mut sorted: Vec<(String, &Value)> = by_name(&rs);
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, c) in sorted {
        if let Some(refusal) = over_limit(&name, c, prefix, limit, old) {
            return Err(refusal);
        }
        let path = join(prefix, &name);
        sink.push(entry(&path, c.get("type").unwrap_or(&Value::Null), vec![]));
        members(c, &rs, &path, limit, old, sink)?;
    }
    Ok(())
}

/// An `OS::Heat::InstanceGroup`'s `Size` as Heat reads it (a number in
/// text too); `None` for another resource, or a size that is no integer.
fn instance_group_size(r: &Value) -> Option<i64> {
    if class(r) != "OS::Heat::InstanceGroup" {
        return None;
    }
    let size = section(r, "properties")?.get("Size")?;
    match crate::hot::params::to_number(&Value::str(size.py_str().trim())) {
        Ok(Value::Int(n)) => Some(n),
        _ => None,
    }
}

/// The refusal of resource `r` (`name` at `prefix`, of the old stack when
/// `old`) when it is an `InstanceGroup` of more members than the
/// `hot-resources` limit: the preview builds its members
/// ([`generated_members`]), the compile does not, so the limit is held
/// here.
fn over_limit(name: &str, r: &Value, prefix: &str, limit: usize, old: bool) -> Option<Refusal> {
    let n = instance_group_size(r)?;
    usize::try_from(n).is_ok_and(|n| n > limit).then(|| Refusal {
        code: codes::HOT_TOO_MANY_RESOURCES,
        message: format!(
            "resources.{name}: the InstanceGroup would hold {n} members, more than the hot-resources limit ({limit}; raise it with --limit hot-resources=N)"
        ),
        about: About::Resource {
            path: join(prefix, name),
            property: Some("Size".into()),
        },
        old,
    })
}

/// The members of a group `--nested` leaves whole (the offline engine
/// expands them only to update them), as Heat 27.0.1's plugin builds its
/// child stack: a deployment group's one deployment per key of `servers`
/// (`build_resource_definition`: the group's properties with `server`
/// for `servers`), an `OS::Heat::InstanceGroup`'s `Size` members
/// `member-0`, `member-1`, ... of `OS::Heat::ScaledResource`, whose
/// properties are those the launch configuration gives, with the group's
/// `Tags` and its metering tag (`_get_conf_properties`, `_tags`). `r` is
/// one of `siblings`, where the launch configuration is.
fn generated_members(r: &Value, siblings: &List) -> Option<List> {
    let props = section(r, "properties").and_then(Value::as_map);
    let member = |name: &str, ty: &str, properties: Map, metadata: Option<&Value>| {
        let mut m = Map::new();
        m.insert("name".into(), Value::str(name));
        m.insert("type".into(), Value::str(ty));
        m.insert("resolved_type".into(), Value::str(ty));
        m.insert("properties".into(), Value::Map(properties));
        if let Some(md) = metadata {
            m.insert("metadata".into(), md.clone());
        }
        m.insert("deletion_policy".into(), Value::str("Delete"));
        Value::Map(m)
    };
    let deployment = match class(r).as_str() {
        "OS::Heat::SoftwareDeploymentGroup" | "OS::Heat::SoftwareDeployments" => {
            "OS::Heat::SoftwareDeployment"
        }
        "OS::Heat::StructuredDeploymentGroup" | "OS::Heat::StructuredDeployments" => {
            "OS::Heat::StructuredDeployment"
        }
        "OS::Heat::InstanceGroup" => {
            // Within the limit: `over_limit` refused a larger group first.
            let size = usize::try_from(instance_group_size(r)?).ok()?;
            let lc_name = props?.get("LaunchConfigurationName")?;
            let lc_name = match crate::hot::functions::call(lc_name) {
                Some(("get_resource" | "Ref", arg)) => arg.py_str(),
                Some(_) => return None,
                None => lc_name.py_str(),
            };
            let (_, lc) = by_name(siblings).into_iter().find(|(n, _)| *n == lc_name)?;
            let mut properties = section(lc, "properties")
                .and_then(Value::as_map)
                .cloned()
                .unwrap_or_default();
            properties.shift_remove("InstanceId");
            let mut tags = match props?.get("Tags") {
                Some(Value::List(l)) => l.clone(),
                _ => List::new(),
            };
            let metered = tags.iter().any(|t| {
                t.get("Key")
                    .and_then(Value::as_str)
                    .is_some_and(|k| k.starts_with("metering."))
            });
            if !metered {
                let mut tag = Map::new();
                tag.insert("Key".into(), Value::str("metering.groupname"));
                tag.insert(
                    "Value".into(),
                    r.get("name").cloned().unwrap_or(Value::Null),
                );
                tags.push(Value::Map(tag));
            }
            properties.insert("Tags".into(), Value::List(tags));
            let metadata = section(lc, "metadata");
            return Some(
                (0..size)
                    .map(|i| {
                        member(
                            &format!("member-{i}"),
                            SCALED_RESOURCE,
                            properties.clone(),
                            metadata,
                        )
                    })
                    .collect(),
            );
        }
        _ => return None,
    };
    let servers = props?.get("servers")?.as_map()?;
    Some(
        servers
            .iter()
            .map(|(name, server)| {
                let mut properties = props.cloned().unwrap_or_default();
                properties.shift_remove("servers");
                properties.insert("server".into(), server.clone());
                member(&name.py_str(), deployment, properties, None)
            })
            .collect(),
    )
}

/// The plugin class Heat instantiates: provider templates are all
/// `TemplateResource`.
fn class(r: &Value) -> String {
    if r.get("provider_template").is_some() {
        return "TemplateResource".into();
    }
    r.get("resolved_type")
        .map(Value::py_str)
        .unwrap_or_default()
}

/// Stack resources: Heat updates them and lets the child stack decide.
fn is_stack_resource(r: &Value) -> bool {
    r.get("provider_template").is_some()
        || matches!(
            class(r).as_str(),
            "OS::Heat::ResourceGroup"
                | "OS::Heat::AutoScalingGroup"
                | "AWS::AutoScaling::AutoScalingGroup"
                | "AWS::CloudFormation::Stack"
                | "OS::Heat::ResourceChain"
                | "OS::Heat::SoftwareDeploymentGroup"
                | "OS::Heat::SoftwareDeployments"
                | "OS::Heat::StructuredDeploymentGroup"
                | "OS::Heat::StructuredDeployments"
                | "OS::Heat::InstanceGroup"
        )
}

fn section<'a>(r: &'a Value, key: &str) -> Option<&'a Value> {
    r.get(key).filter(|v| !v.is_null())
}

/// A property value as Heat's `Properties` reads it: the given value, else
/// the schema default; numbers and booleans compared by value.
fn prop_value(r: &Value, p: &Prop<'_>) -> Value {
    let v = section(r, "properties")
        .and_then(|ps| ps.get(p.name))
        .filter(|v| !v.is_null())
        .cloned()
        .or_else(|| p.default.clone())
        .unwrap_or(Value::Null);
    match (p.ty, &v) {
        ("integer" | "number", Value::Str(s)) => {
            crate::hot::params::to_number(&Value::str(s.trim())).unwrap_or(v)
        }
        ("boolean", Value::Str(s)) => match s.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" | "t" | "y" => Value::Bool(true),
            "false" | "no" | "off" | "0" | "f" | "n" => Value::Bool(false),
            _ => v,
        },
        ("string", Value::Int(_) | Value::Float(_)) => Value::str(v.py_str()),
        _ => v,
    }
}

/// Heat's StackUpdate.preview on one level, with reasons, then into the
/// child stacks of updated stack resources.
fn diff(old: &List, new: &List, prefix: &str, out: &mut Actions) -> Result<(), Refusal> {
    for (side, list) in [(true, old), (false, new)] {
        for (name, r) in by_name(list) {
            if let Some(refusal) = over_limit(&name, r, prefix, out.limit, side) {
                return Err(refusal);
            }
        }
    }
    let o = by_name(old);
    let n = by_name(new);
    let old_names: BTreeSet<&str> = o.iter().map(|(k, _)| k.as_str()).collect();
    let new_names: BTreeSet<&str> = n.iter().map(|(k, _)| k.as_str()).collect();
    for (name, r) in &n {
        if !old_names.contains(name.as_str()) {
            let path = join(prefix, name);
            out.added
                .push(entry(&path, r.get("type").unwrap_or(&Value::Null), vec![]));
            members(r, new, &path, out.limit, false, &mut out.added)?;
        }
    }
    for (name, r) in &o {
        if !new_names.contains(name.as_str()) {
            let path = join(prefix, name);
            out.deleted
                .push(entry(&path, r.get("type").unwrap_or(&Value::Null), vec![]));
            members(r, old, &path, out.limit, true, &mut out.deleted)?;
        }
    }
    for (name, before) in &o {
        let Some((_, after)) = n.iter().find(|(k, _)| k == name) else {
            continue;
        };
        let path = join(prefix, name);
        let ty = after.get("type").cloned().unwrap_or(Value::Null);
        match decide(name, &path, before, after)? {
            Decision::Unchanged => out.unchanged.push(path),
            Decision::Replaced(reason) => {
                let mut extra = vec![("reason", Value::Map(reason.clone()))];
                if reason.get("kind").and_then(Value::as_str) == Some("type_changed") {
                    extra.push((
                        "old_type",
                        before.get("type").cloned().unwrap_or(Value::Null),
                    ));
                }
                out.replaced.push(entry(&path, &ty, extra));
                members(before, old, &path, out.limit, true, &mut out.deleted)?;
                members(after, new, &path, out.limit, false, &mut out.added)?;
            }
            Decision::Updated(reason) => {
                out.updated
                    .push(entry(&path, &ty, vec![("reason", Value::Map(reason))]));
                let children = |r: &Value, siblings: &List| {
                    r.get("nested")
                        .and_then(child_resources)
                        .or_else(|| generated_members(r, siblings))
                };
                if let (Some(a), Some(mut b)) = (children(before, old), children(after, new)) {
                    if class(after) == "OS::Heat::AutoScalingGroup" {
                        b = scaled_members(&a, b);
                    }
                    diff(&a, &b, &path, out)?;
                }
            }
        }
    }
    Ok(())
}

/// A child stack's resources as its update compares them: a `get_param`
/// of a deferred parameter (a parent's value that exists only once the
/// parent's resources do) carries that value, so that a change of it in
/// the parent is a change of the property here, as Heat, reading the
/// parameter, sees it.
fn child_resources(nested: &Value) -> Option<List> {
    let resources = nested.get("resources").and_then(Value::as_list)?;
    let deferred: Map = nested
        .get("parameters")
        .and_then(Value::as_map)
        .map(|ps| {
            ps.iter()
                .filter(|(_, p)| p.get("source").and_then(Value::as_str) == Some("deferred"))
                .map(|(k, p)| (k.clone(), p.get("value").cloned().unwrap_or(Value::Null)))
                .collect()
        })
        .unwrap_or_default();
    if deferred.is_empty() {
        return Some(resources.clone());
    }
    // `{get_param: P}` becomes P's value; `{get_param: [P, path...]}`
    // keeps its path with the value in P's place.
    let carry = |v: &Value| match crate::hot::functions::call(v)? {
        ("get_param", Value::List(l)) => {
            let value = l.first().and_then(|n| deferred.get(n))?;
            let mut with = l.clone();
            with[0] = value.clone();
            let mut m = Map::new();
            m.insert("get_param".into(), Value::List(with));
            Some(Value::Map(m))
        }
        ("get_param", name) => deferred.get(name).cloned(),
        _ => None,
    };
    Some(
        resources
            .iter()
            .map(|r| rewrite_sections(r, &["properties", "metadata"], &carry))
            .collect(),
    )
}

/// `v` with every part `f` rewrites (gives `Some` for) replaced, the rest
/// as it is.
fn rewrite(v: &Value, f: &impl Fn(&Value) -> Option<Value>) -> Value {
    if let Some(new) = f(v) {
        return new;
    }
    match v {
        Value::Map(m) => Value::Map(m.iter().map(|(k, x)| (k.clone(), rewrite(x, f))).collect()),
        Value::List(l) => Value::List(l.iter().map(|x| rewrite(x, f)).collect()),
        other => other.clone(),
    }
}

/// Resource definition `r` with [`rewrite`] applied to its `sections`.
fn rewrite_sections(r: &Value, sections: &[&str], f: &impl Fn(&Value) -> Option<Value>) -> Value {
    match r {
        Value::Map(m) => Value::Map(
            m.iter()
                .map(|(k, x)| match k.as_str() {
                    Some(name) if sections.contains(&name) => (k.clone(), rewrite(x, f)),
                    _ => (k.clone(), x.clone()),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// An AutoScalingGroup's members after an update: scaling down removes
/// the oldest members (the lowest numbers), scaling up adds new ones after
/// the existing; the new definition applies to every member kept.
fn scaled_members(old: &List, new: List) -> List {
    let n = new.len();
    if n >= old.len() {
        return new;
    }
    let keep: Vec<String> = by_name(old)
        .into_iter()
        .map(|(k, _)| k)
        .skip(old.len() - n)
        .collect();
    new.iter()
        .zip(keep)
        .map(|(r, name)| {
            let mut r = r.clone();
            if let Value::Map(m) = &mut r {
                m.insert("name".into(), Value::str(name));
            }
            r
        })
        .collect()
}

enum Decision {
    Unchanged,
    Updated(Map),
    Replaced(Map),
}

fn reason(kind: &str, extra: Vec<(&str, Value)>) -> Map {
    let mut m = Map::new();
    m.insert("kind".into(), Value::str(kind));
    for (k, v) in extra {
        m.insert(Value::str(k), v);
    }
    m
}

fn names(v: &[String]) -> Value {
    Value::List(v.iter().map(|s| Value::str(s.as_str())).collect())
}

/// A resource definition as Heat freezes it before creation: every
/// `get_attr` in its properties, metadata and update policy is null.
fn frozen(r: &Value) -> Value {
    let null_attrs = |v: &Value| match crate::hot::functions::call(v) {
        Some(("get_attr" | "Fn::GetAtt", _)) => Some(Value::Null),
        _ => None,
    };
    rewrite_sections(r, &["properties", "metadata", "update_policy"], &null_attrs)
}

/// Whether property `p` is required, has no default, and definition `r`
/// does not give it: Heat's `Properties.get` of it raises "Property X not
/// assigned".
fn not_given(p: &Prop<'_>, r: &Value) -> bool {
    p.required
        && p.default.is_none()
        && section(r, "properties")
            .and_then(|ps| ps.get(p.name))
            .is_none()
}

/// Whether Heat's `Properties.get` fails on value `v` of a property of
/// type `ty` (a string that is a map, an integer that is not a number, a
/// boolean that is neither true nor false ...). A value still symbolic is
/// resolved by Heat to something else, and is taken as valid.
fn misfits(ty: &str, v: &Value) -> bool {
    if v.is_null() || crate::hot::functions::is_symbolic(v) {
        return false;
    }
    match ty {
        "string" => matches!(v, Value::Map(_) | Value::List(_) | Value::Float(_)),
        "integer" => match v {
            Value::Str(s) => crate::hot::params::to_number(&Value::str(s.trim()))
                .map_or(true, |n| !matches!(n, Value::Int(_))),
            Value::Map(_) | Value::List(_) => true,
            _ => false,
        },
        "number" => match v {
            Value::Str(s) => crate::hot::params::to_number(&Value::str(s.trim())).is_err(),
            Value::Map(_) | Value::List(_) => true,
            _ => false,
        },
        "map" => !matches!(v, Value::Map(_)),
        "list" => !matches!(v, Value::List(_)),
        "boolean" => match v {
            Value::Bool(_) => false,
            Value::Str(s) => !matches!(s.to_ascii_lowercase().as_str(), "true" | "false"),
            _ => true,
        },
        _ => false,
    }
}

/// One resource present on both sides, in preview_update's order.
fn decide(name: &str, path: &str, before: &Value, after: &Value) -> Result<Decision, Refusal> {
    let refusal = |code: Code, message: String, property: &str| Refusal {
        code,
        message,
        about: About::Resource {
            path: path.to_string(),
            property: Some(property.to_string()),
        },
        old: false,
    };
    let (before, after) = (&frozen(before), &frozen(after));
    let (cb, ca) = (class(before), class(after));
    if cb != ca {
        return Ok(Decision::Replaced(reason(
            "type_changed",
            vec![
                (
                    "old_type",
                    before.get("type").cloned().unwrap_or(Value::Null),
                ),
                (
                    "new_type",
                    after.get("type").cloned().unwrap_or(Value::Null),
                ),
            ],
        )));
    }
    // NoneResource (OS::Heat::None and the retired plugins Heat 27.0.1
    // keeps as its subclasses) never needs an update.
    if NONE_RESOURCES.contains(&ca.as_str()) {
        return Ok(Decision::Unchanged);
    }
    let props = if is_stack_resource(after) && after.get("provider_template").is_some() {
        None
    } else {
        schema(&ca)
    };
    let get_prop = |r: &Value, key: &str| -> Option<Value> {
        let p = props.as_ref()?.iter().find(|p| p.name == key)?;
        Some(prop_value(r, p))
    };
    // needs_replace: a port with replacement_policy REPLACE_ALWAYS.
    if ca == "OS::Neutron::Port"
        && get_prop(after, "replacement_policy").and_then(|v| v.as_str().map(str::to_owned))
            == Some("REPLACE_ALWAYS".into())
    {
        return Ok(Decision::Replaced(reason("plugin_needs_replace", vec![])));
    }
    let keys = [
        "type",
        "properties",
        "metadata",
        "update_policy",
        "deletion_policy",
        "depends_on",
        "description",
    ];
    let definition_changed = keys.iter().any(|k| section(before, k) != section(after, k));
    // The properties as Heat's Properties objects read them (defaults
    // filled); provider templates: every property given.
    // A required property that the old definition does not hold (only a
    // deprecated alias such as a port's `network_id`, which Heat's preview
    // does not translate) raises "not assigned" when Heat reads the old
    // value, and Heat counts it as changed.
    // So does an old value Heat cannot read as the property's type.
    let unassigned = |p: &Prop<'_>| {
        not_given(p, before)
            || section(before, "properties")
                .and_then(|ps| ps.get(p.name))
                .is_some_and(|v| misfits(p.ty, v))
    };
    let changed: Vec<String> = match &props {
        Some(ps) => ps
            .iter()
            .filter(|p| unassigned(p) || prop_value(before, p) != prop_value(after, p))
            .map(|p| p.name.to_string())
            .collect(),
        // A provider template, and the offline engine's stand-in for the
        // type it has no plugin for, an InstanceGroup's members (a live
        // Heat maps it to AWS::EC2::Instance in its global environment):
        // every property given.
        None if after.get("provider_template").is_some() || ca == SCALED_RESOURCE => {
            let mut keys: BTreeSet<String> = BTreeSet::new();
            for r in [before, after] {
                if let Some(m) = section(r, "properties").and_then(Value::as_map) {
                    keys.extend(m.keys().map(Value::py_str));
                }
            }
            keys.into_iter()
                .filter(|k| {
                    section(before, "properties").and_then(|p| p.get(k.as_str()))
                        != section(after, "properties").and_then(|p| p.get(k.as_str()))
                })
                .collect()
        }
        None => Vec::new(),
    };
    // A stack resource is always updated: the child stack decides
    // (StackResource._needs_update).
    if !definition_changed && changed.is_empty() && !is_stack_resource(after) {
        return Ok(Decision::Unchanged);
    }
    // The template diff (properties, metadata, update_policy); a changed
    // deletion_policy is named only beside one of those.
    let mut sections = Vec::new();
    for k in ["properties", "metadata", "update_policy"] {
        if section(before, k) != section(after, k) {
            sections.push(k.to_string());
        }
    }
    if !sections.is_empty()
        && section(before, "deletion_policy") != section(after, "deletion_policy")
    {
        sections.push("deletion_policy".into());
    }
    if ca == "AWS::AutoScaling::LaunchConfiguration" && sections.iter().any(|s| s == "metadata") {
        return Ok(Decision::Replaced(reason(
            "plugin_template_diff",
            vec![("sections", names(&sections))],
        )));
    }
    let mut changed = changed;
    changed.sort();
    if let Some(ps) = &props {
        let forbidden: Vec<&String> = changed
            .iter()
            .filter(|c| ps.iter().any(|p| p.name == c.as_str() && p.immutable))
            .collect();
        if !forbidden.is_empty() {
            let list: Vec<&str> = forbidden.iter().map(|s| s.as_str()).collect();
            return Err(refusal(
                codes::HOT_UPDATE_NOT_SUPPORTED,
                format!(
                    "Update to properties {} of {name} ({ca}) is not supported.",
                    list.join(", ")
                ),
                list[0],
            ));
        }
    }
    if !changed.is_empty() && prop_diff_replaces(&ca, &changed, &get_prop, before, after) {
        return Ok(Decision::Replaced(reason(
            "plugin_prop_diff",
            vec![("properties", names(&changed))],
        )));
    }
    if let Some(ps) = &props {
        let not_allowed: Vec<String> = changed
            .iter()
            .filter(|c| !ps.iter().any(|p| p.name == c.as_str() && p.update_allowed))
            .cloned()
            .collect();
        if !not_allowed.is_empty() {
            return Ok(Decision::Replaced(reason(
                "property_not_update_allowed",
                vec![("properties", names(&not_allowed))],
            )));
        }
    }
    // Updated in place: Heat's preview then reads the new value of every
    // changed property, and a required one the new definition does not
    // hold either raises "not assigned" (a definition that never gave it,
    // changed only because the old one could not be read).
    if let Some(ps) = &props {
        let unassigned = changed.iter().find(|c| {
            ps.iter()
                .any(|p| p.name == c.as_str() && not_given(p, after))
        });
        if let Some(c) = unassigned {
            return Err(refusal(
                codes::HOT_FUNCTION_RUNTIME,
                format!("Property {c} not assigned"),
                c,
            ));
        }
    }
    let kind = if is_stack_resource(after) {
        "nested_stack"
    } else {
        "in_place"
    };
    let mut r = reason(kind, vec![("properties", names(&changed))]);
    if !sections.is_empty() {
        r.insert("sections".into(), names(&sections));
    }
    Ok(Decision::Updated(r))
}

/// The plugins' `needs_replace_with_prop_diff` (Heat 27.0.1).
fn prop_diff_replaces(
    class: &str,
    changed: &[String],
    get: &dyn Fn(&Value, &str) -> Option<Value>,
    before: &Value,
    after: &Value,
) -> bool {
    let has = |p: &str| changed.iter().any(|c| c == p);
    // Heat reads `after_props.get(X) or before_props.get(X)`.
    let either = |key: &str| {
        get(after, key)
            .filter(Value::truthy)
            .or_else(|| get(before, key))
            .map(|v| v.py_str())
    };
    match class {
        "OS::Nova::Server" => {
            (has("flavor") && either("flavor_update_policy").as_deref() == Some("REPLACE"))
                || (has("image") && either("image_update_policy").as_deref() == Some("REPLACE"))
                || (has("user_data")
                    && either("user_data_update_policy").as_deref() == Some("REPLACE"))
        }
        "OS::Heat::Stack" => {
            has("context") && {
                let region =
                    |r: &Value| get(r, "context").and_then(|c| c.get("region_name").cloned());
                region(after) != region(before)
            }
        }
        "OS::Heat::TestResource" => {
            has("value") && get(after, "update_replace").is_some_and(|v| v.truthy())
        }
        _ => false,
    }
}
