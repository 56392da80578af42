//! Environment files (spec §9): their format, how several of them and the
//! `-P` values layer (server or client mode), and resolving a resource's
//! type through the merged `resource_registry`.

use super::template::read_mapping;
use super::{error, EnvMode};
use crate::diag::{codes, Diagnostic, SourceFile};
use crate::value::{Map, Value};
use std::sync::Arc;

/// The sections an environment file may have.
const SECTIONS: &[&str] = &[
    "parameters",
    "parameter_defaults",
    "resource_registry",
    "encrypted_param_names",
    "event_sinks",
    "parameter_merge_strategies",
];

/// Resource types with a plugin in Heat 27.0.1 (`hot-resource-types.txt`).
const PLUGINS: &str = include_str!("resource-types.txt");

/// Every resource type Heat 27.0.1 has a plugin for.
pub fn plugins() -> impl Iterator<Item = &'static str> {
    PLUGINS.lines().filter(|l| !l.is_empty())
}

/// Whether Heat has a plugin for `t` (a set built once: every resource of
/// a tree of stacks asks).
pub fn is_plugin(t: &str) -> bool {
    static SET: std::sync::OnceLock<foldhash::HashSet<&'static str>> = std::sync::OnceLock::new();
    SET.get_or_init(|| plugins().collect()).contains(t)
}

/// One environment file, read and checked.
#[derive(Debug, Clone)]
pub struct EnvFile {
    /// The file.
    pub file: Arc<SourceFile>,
    /// Its sections.
    pub data: Map,
    /// Its parse tree (for the spans of keys), when it is YAML.
    pub tree: Option<crate::yaml::Node>,
}

/// Read and check one environment file (step 2 of Heat's order).
pub fn read(file: &Arc<SourceFile>, limits: &crate::limits::Limits) -> Result<EnvFile, Diagnostic> {
    let (tree, data) = read_mapping(
        file,
        codes::HOT_ENV_FORMAT,
        "The environment is not a valid YAML mapping data type.",
        limits,
    )?;
    let Value::Map(data) = data else {
        unreachable!("read_mapping returns maps")
    };
    for (k, v) in &data {
        let name = k.py_str();
        let at = super::template::key_span(tree.as_ref(), &[&name]).map(|r| (file, r));
        if !SECTIONS.contains(&name.as_str()) {
            return Err(error(
                codes::HOT_ENV_FORMAT,
                format!("environment has wrong section \"{name}\""),
                at,
            ));
        }
        if v.is_null() {
            return Err(error(
                codes::HOT_ENV_FORMAT,
                format!("environment has empty section \"{name}\""),
                at,
            ));
        }
        if name == "event_sinks" {
            for sink in v.as_list().map(|l| l.as_slice()).unwrap_or_default() {
                let t = sink.get("type").map(Value::py_str).unwrap_or_default();
                if t != "zaqar-queue" {
                    return Err(error(
                        codes::HOT_ENV_FORMAT,
                        format!(
                            "unknown event sink type \"{t}\" (in {}); Heat knows zaqar-queue",
                            file.name
                        ),
                        at,
                    ));
                }
            }
        }
    }
    Ok(EnvFile {
        file: file.clone(),
        data,
        tree,
    })
}

/// The merged user environment.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    /// User parameter values (`-P` and env `parameters:`).
    pub parameters: Map,
    /// `parameter_defaults:`.
    pub parameter_defaults: Map,
    /// `resource_registry:` (with `resources` always present).
    pub registry: Map,
    /// `event_sinks:`.
    pub event_sinks: Vec<Value>,
    /// What the layering did silently that a user would want to know.
    pub notes: Vec<String>,
}

/// Layer the files and the `-P` values; `declared` gives the type of each
/// parameter the template declares (server mode drops undeclared names once
/// a section has entries, and applies `parameter_merge_strategies` by type).
/// A strategy conflict or a value a strategy cannot merge fails, as in Heat.
pub fn layer(
    files: &[EnvFile],
    cli: &[(String, Value)],
    declared: &dyn Fn(&str) -> Option<String>,
    mode: EnvMode,
) -> Result<Environment, Diagnostic> {
    let mut env = Environment::default();
    let cli_map: Map = cli
        .iter()
        .map(|(k, v)| (Value::str(k.as_str()), v.clone()))
        .collect();
    match mode {
        EnvMode::Client => {
            let mut merged = Map::new();
            for f in files {
                deep_update(&mut merged, &f.data);
            }
            let section = |m: &Map, k: &str| m.get(k).and_then(Value::as_map).cloned();
            env.parameters = section(&merged, "parameters").unwrap_or_default();
            for (k, v) in &cli_map {
                env.parameters.insert(k.clone(), v.clone());
            }
            env.parameter_defaults = section(&merged, "parameter_defaults").unwrap_or_default();
            env.registry = section(&merged, "resource_registry").unwrap_or_default();
            env.event_sinks = sinks(merged.get("event_sinks"));
        }
        EnvMode::Server => {
            env.parameters = cli_map;
            // One record for both sections, as heat-engine keeps it.
            let mut available: std::collections::HashMap<String, String> = Default::default();
            for f in files {
                let strategies = f
                    .data
                    .get("parameter_merge_strategies")
                    .and_then(Value::as_map);
                let mut merge = Merge {
                    declared,
                    strategies,
                    available: &mut available,
                    file: f,
                    section: "",
                };
                for (k, v) in &f.data {
                    match k.as_str() {
                        Some("parameters") => {
                            for (name, _) in v.as_map().into_iter().flatten() {
                                if cli.iter().any(|(c, _)| Value::str(c.as_str()) == *name) {
                                    env.notes.push(format!(
                                        "-P {} is overridden by `parameters:` of {} (server mode: environment files win)",
                                        name.py_str(),
                                        f.file.name
                                    ));
                                }
                            }
                            let dropped = merge.section("parameters", &mut env.parameters, v)?;
                            note_dropped(&mut env.notes, &dropped, "parameters", &f.file.name);
                        }
                        Some("parameter_defaults") => {
                            let dropped = merge.section(
                                "parameter_defaults",
                                &mut env.parameter_defaults,
                                v,
                            )?;
                            note_dropped(
                                &mut env.notes,
                                &dropped,
                                "parameter_defaults",
                                &f.file.name,
                            );
                        }
                        Some("resource_registry") => {
                            for (rk, rv) in v.as_map().into_iter().flatten() {
                                if !rv.is_null() {
                                    env.registry.insert(rk.clone(), rv.clone());
                                }
                            }
                        }
                        Some("event_sinks") => env.event_sinks = sinks(Some(v)),
                        _ => {}
                    }
                }
            }
        }
    }
    for (k, v) in &env.registry {
        if let (Some(k), Some(v)) = (k.as_str(), v.as_str()) {
            if k.ends_with('*') && is_template(v) {
                env.notes.push(format!(
                    "resource_registry: \"{k}\" maps to a template, so it is the literal type {k}, not a glob"
                ));
            }
        }
    }
    if !env.registry.contains_key("resources") {
        env.registry
            .insert("resources".into(), Value::Map(Map::new()));
    }
    Ok(env)
}

fn sinks(v: Option<&Value>) -> Vec<Value> {
    v.and_then(Value::as_list)
        .map(|l| l.iter().cloned().collect())
        .unwrap_or_default()
}

/// heat-engine's merge of one file's `parameters` or `parameter_defaults`
/// into what earlier layers gave (`environment_util.merge_parameters`).
struct Merge<'a> {
    declared: &'a dyn Fn(&str) -> Option<String>,
    strategies: Option<&'a Map>,
    /// Parameter → the strategy it got first (shared by both sections).
    available: &'a mut std::collections::HashMap<String, String>,
    file: &'a EnvFile,
    /// The section being merged (`parameters`, `parameter_defaults`).
    section: &'static str,
}

const STRATEGIES: [&str; 3] = ["overwrite", "merge", "deep_merge"];

impl Merge<'_> {
    /// The strategy for `name` in this file: its own entry, else the one
    /// it got before, else the file's `default` (an unknown word falls back
    /// to the default).
    fn strategy(&self, name: &str) -> String {
        let get = |k: &str| self.strategies.and_then(|m| m.get(k)).map(Value::py_str);
        let default = get("default").unwrap_or_else(|| "overwrite".into());
        let s = get(name)
            .or_else(|| self.available.get(name).cloned())
            .unwrap_or_else(|| default.clone());
        if STRATEGIES.contains(&s.as_str()) {
            s
        } else {
            default
        }
    }

    /// Where a parameter is written in this file's section (for errors).
    fn at(&self, name: &str) -> Option<(&Arc<SourceFile>, std::ops::Range<usize>)> {
        let span = super::template::key_span(self.file.tree.as_ref(), &[self.section, name])?;
        Some((&self.file.file, span))
    }

    fn invalid(&self, name: &str, message: String) -> Diagnostic {
        error(codes::HOT_ENV_FORMAT, message, self.at(name))
    }

    /// Merge `v` (a section of this file) into `acc`. Returns the
    /// undeclared names dropped.
    fn section(
        &mut self,
        section: &'static str,
        acc: &mut Map,
        v: &Value,
    ) -> Result<Vec<String>, Diagnostic> {
        self.section = section;
        let Some(m) = v.as_map() else {
            return Ok(Vec::new());
        };
        for (k, x) in m {
            let name = k.py_str();
            if (self.declared)(&name).is_none() || x.is_null() {
                continue;
            }
            let s = self.strategy(&name);
            match self.available.get(&name) {
                None => {
                    self.available.insert(name, s);
                }
                Some(first) if *first != s => {
                    return Err(self.invalid(
                        &name,
                        format!(
                            "Conflicting merge strategy '{s}' for parameter '{name}' in file '{}'.",
                            self.file.file.name.rsplit('/').next().unwrap_or_default()
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
        // An empty section takes the file's whole, undeclared names too.
        if acc.is_empty() {
            *acc = m.clone();
            return Ok(Vec::new());
        }
        let mut dropped = Vec::new();
        for (k, x) in m {
            let name = k.py_str();
            let Some(ty) = (self.declared)(&name) else {
                dropped.push(name);
                continue;
            };
            if x.is_null() {
                continue;
            }
            match self.available.get(&name).map(String::as_str) {
                Some(s @ ("merge" | "deep_merge")) => {
                    let merged = self.param_merge(
                        &name,
                        &ty,
                        acc.get(k.as_str().unwrap_or("")),
                        x,
                        s == "deep_merge",
                    )?;
                    acc.insert(k.clone(), merged);
                }
                _ => {
                    acc.insert(k.clone(), x.clone());
                }
            }
        }
        Ok(dropped)
    }

    /// `param_merge`: by the parameter's type.
    fn param_merge(
        &self,
        name: &str,
        ty: &str,
        old: Option<&Value>,
        new: &Value,
        deep: bool,
    ) -> Result<Value, Diagnostic> {
        let invalid = || self.invalid(name, "Invalid parameter in environment .".to_string());
        let cannot = || {
            self.invalid(
                name,
                format!(
                    "parameter '{name}': cannot merge {} into {}",
                    new.py_type_name(),
                    old.map_or("nothing", Value::py_type_name)
                ),
            )
        };
        match ty {
            "json" => {
                let new = match new {
                    Value::Str(s) if s.is_empty() => return Ok(new.clone()),
                    Value::Str(s) => serde_json::from_str::<serde_json::Value>(s)
                        .map(|j| Value::from_json(&j))
                        .map_err(|e| {
                            self.invalid(name, format!("Invalid parameter in environment {e}."))
                        })?,
                    other => other.clone(),
                };
                let old = match old {
                    Some(Value::Str(s)) => serde_json::from_str::<serde_json::Value>(s)
                        .ok()
                        .map(|j| Value::from_json(&j)),
                    other => other.cloned(),
                };
                merge_map(old, new, deep).ok_or_else(cannot)
            }
            _ if !matches!(new, Value::Str(_) | Value::List(_)) => Err(invalid()),
            "comma_delimited_list" => merge_list(old.cloned(), new.clone()).ok_or_else(cannot),
            "string" => match (old, new) {
                (None, Value::Str(n)) => Ok(Value::str(n.as_str())),
                (Some(Value::Str(o)), Value::Str(n)) => Ok(Value::str(format!("{o}{n}"))),
                _ => Err(cannot()),
            },
            // `0 + value` with a string or list value: a TypeError in Heat.
            "number" => Err(cannot()),
            _ => Err(self.invalid(
                name,
                format!("Invalid merge strategy 'merge' for parameter '{name}'."),
            )),
        }
    }
}

/// Python truthiness of an optional value.
fn present(v: &Option<Value>) -> bool {
    v.as_ref().is_some_and(Value::truthy)
}

/// `merge_list`: lists extend, comma-delimited strings join with `,`.
fn merge_list(old: Option<Value>, new: Value) -> Option<Value> {
    if !present(&old) {
        return Some(new);
    }
    match (old?, new) {
        (Value::List(mut o), Value::List(n)) => {
            o.extend(n);
            Some(Value::List(o))
        }
        (Value::Str(o), Value::Str(n)) => Some(Value::str(format!("{o},{n}"))),
        _ => None,
    }
}

/// `merge_map`: keys updated (null values skipped); deep: maps recurse,
/// lists extend, strings concatenate.
fn merge_map(old: Option<Value>, new: Value, deep: bool) -> Option<Value> {
    if !present(&old) {
        return Some(new);
    }
    let (Some(Value::Map(mut o)), Value::Map(n)) = (old, new) else {
        return None;
    };
    for (k, v) in n {
        if v.is_null() {
            continue;
        }
        let merged = if !deep {
            v
        } else {
            let old_v = o.get(&k).cloned();
            match v {
                Value::Map(_) if present(&old_v) => merge_map(old_v, v, true)?,
                Value::List(_) if present(&old_v) => merge_list(old_v, v)?,
                Value::Str(s) => match old_v {
                    None => Value::Str(s),
                    Some(Value::Str(os)) => Value::str(format!("{os}{s}")),
                    Some(_) => return None,
                },
                other => other,
            }
        };
        o.insert(k, merged);
    }
    Some(Value::Map(o))
}

fn note_dropped(notes: &mut Vec<String>, dropped: &[String], section: &str, file: &str) {
    if !dropped.is_empty() {
        notes.push(format!(
            "`{section}:` of {file}: {} not declared by the template and silently dropped (server mode)",
            dropped.join(", ")
        ));
    }
}

/// python-heatclient's deep update.
fn deep_update(old: &mut Map, new: &Map) {
    for (k, v) in new {
        match (old.get_mut(k), v) {
            (Some(Value::Map(o)), Value::Map(n)) => deep_update(o, n),
            (Some(Value::Map(_)), Value::Null) => {}
            _ => {
                old.insert(k.clone(), v.clone());
            }
        }
    }
}

/// A resource's type after the registry: the type, and the provider
/// template it maps to, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedType {
    /// The type reached (the key a template entry is registered under).
    pub resolved: String,
    /// The provider template path.
    pub template: Option<String>,
}

fn is_template(s: &str) -> bool {
    s.ends_with(".yaml") || s.ends_with(".template")
}

/// Resolve type `t` of resource `name` through `registry` (spec §9.4).
pub fn resolve_type(registry: &Map, name: &str, t: &str) -> ResolvedType {
    find(registry, name, t, 0)
        .map(|(found, _)| found)
        .unwrap_or(ResolvedType {
            resolved: t.to_string(),
            template: None,
        })
}

/// The facade of resource `name`, whose type `t` the registry maps to a
/// template: the type the same lookup reaches without the entry that led
/// to that template (Heat's `TemplateResource.validate`, `ignore=`), when
/// it is another template. `None` when there is none, or it is a plugin.
pub fn facade_template(registry: &Map, name: &str, t: &str) -> Option<String> {
    let (_, used) = find(registry, name, t, 0)?;
    used.as_ref()?;
    for candidate in candidates(registry, name, t) {
        let Some((found, entry)) = follow(registry, name, t, &candidate, 0) else {
            continue;
        };
        if entry != used {
            return found.template;
        }
    }
    None
}

/// A registry entry: the resource it is specific to (`resources:`
/// section), and its key.
type Entry = Option<(Option<String>, String)>;

/// A registry key that may map type `t` of resource `name`: (key, value,
/// glob, specific to the resource).
type Candidate = (String, String, bool, bool);

/// The entries that may map type `t` of resource `name`, in Heat's order:
/// the resource's own, then globs and exact keys in key order.
fn candidates(registry: &Map, name: &str, t: &str) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    if let Some(x) = registry
        .get("resources")
        .and_then(|r| r.get(name))
        .and_then(|r| r.get(t))
        .and_then(Value::as_str)
    {
        out.push((t.to_string(), x.to_string(), false, true));
    }
    let mut top: Vec<Candidate> = Vec::new();
    for (k, v) in registry {
        let (Some(k), Some(v)) = (k.as_str(), v.as_str()) else {
            continue;
        };
        if k == "resources" {
            continue;
        }
        let glob = k.ends_with('*') && !is_template(v);
        if glob {
            let prefix = &k[..k.len() - 1];
            if t.starts_with(prefix) && v != t {
                top.push((k.to_string(), v.to_string(), true, false));
            }
        } else if k == t {
            top.push((k.to_string(), v.to_string(), false, false));
        }
    }
    top.sort_by(|a, b| a.0.cmp(&b.0));
    out.extend(top);
    out
}

/// Where `candidate` leads type `t`, with the entry that gave the
/// template (`None` for a plugin).
fn follow(
    registry: &Map,
    name: &str,
    t: &str,
    (key, value, glob, specific): &Candidate,
    depth: usize,
) -> Option<(ResolvedType, Entry)> {
    if is_template(value) {
        let entry = Some((specific.then(|| name.to_string()), key.clone()));
        return Some((
            ResolvedType {
                resolved: t.to_string(),
                template: Some(value.clone()),
            },
            entry,
        ));
    }
    let next = if *glob {
        let prefix = &key[..key.len() - 1];
        match value.strip_suffix('*') {
            Some(q) => format!("{q}{}", &t[prefix.len()..]),
            None => value.clone(),
        }
    } else {
        value.clone()
    };
    find(registry, name, &next, depth + 1)
}

fn find(registry: &Map, name: &str, t: &str, depth: usize) -> Option<(ResolvedType, Entry)> {
    if depth > 32 {
        return None;
    }
    if is_template(t) {
        return Some((
            ResolvedType {
                resolved: t.to_string(),
                template: Some(t.to_string()),
            },
            None,
        ));
    }
    for candidate in candidates(registry, name, t) {
        if let Some(found) = follow(registry, name, t, &candidate, depth) {
            return Some(found);
        }
    }
    // The type itself, when a plugin has it; at the top that is what
    // `resolve_type` answers anyway (no set lookup).
    (depth > 0 && is_plugin(t)).then(|| {
        (
            ResolvedType {
                resolved: t.to_string(),
                template: None,
            },
            None,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry(pairs: &[(&str, &str)]) -> Map {
        let mut m: Map = pairs
            .iter()
            .map(|(k, v)| (Value::str(*k), Value::str(*v)))
            .collect();
        m.insert("resources".into(), Value::Map(Map::new()));
        m
    }

    #[test]
    fn globs_sort_before_exact_keys_and_chains_follow() {
        let r = registry(&[
            ("OS::Nova::Server", "OS::Heat::RandomString"),
            ("OS::Nova::*", "OS::Heat::None"),
            ("Site::Cache", "Site::Store"),
            ("Site::Store", "OS::Heat::TestResource"),
            ("Legacy::Net::*", "OS::Neutron::*"),
        ]);
        let t = |name: &str| resolve_type(&r, "x", name).resolved;
        assert_eq!(t("OS::Nova::Server"), "OS::Heat::None");
        assert_eq!(t("Site::Cache"), "OS::Heat::TestResource");
        assert_eq!(t("Legacy::Net::Port"), "OS::Neutron::Port");
        assert_eq!(t("Unknown::Type"), "Unknown::Type");
    }

    #[test]
    fn a_facade_is_the_lookup_without_the_entry_used() {
        let mut r = registry(&[("App::DB", "db.yaml"), ("OS::Nova::Server", "server.yaml")]);
        let mut special = Map::new();
        special.insert("App::DB".into(), Value::str("special.yaml"));
        let mut resources = Map::new();
        resources.insert("special".into(), Value::Map(special));
        r.insert("resources".into(), Value::Map(resources));
        assert_eq!(
            facade_template(&r, "special", "App::DB").as_deref(),
            Some("db.yaml")
        );
        // The only mapping: no facade; a plugin's facade is not a template.
        assert_eq!(facade_template(&r, "db", "App::DB"), None);
        assert_eq!(facade_template(&r, "web", "OS::Nova::Server"), None);
        assert_eq!(facade_template(&r, "x", "files/x.yaml"), None);
    }
}
