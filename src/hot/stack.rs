//! One HOT compile in Heat's order of checks (spec §1): template, environment
//! files, version, layering, parameters, groups, conditions, resource
//! definitions, the dependency graph (references, cycles), resolution, and
//! the creation waves (spec §11.3); then the JSON document (spec §14) and
//! the neutral plan.

use super::env::{self, Environment};
use super::functions::{evaluate_condition, FileRead, FnError, Phase, Scope};
use super::params::{self, Param, PSEUDO};
use super::template::{self, Template, Version};
use super::{error, kind_of, Compiled, Input, RESOURCE};
use crate::diag::{codes, Diagnostic, SourceFile};
use crate::plan::{EdgeFamily, EdgeStyle, Plan, PlanEdge, PlanNode};
use crate::value::{List, Map, Value};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// A resolved part of the stack, or its error with the path it was at.
type Built<T> = Result<T, (FnError, String)>;

/// A resource after resolution.
struct Resource {
    name: String,
    written_type: String,
    resolved: env::ResolvedType,
    depends_on: Option<Vec<String>>,
    sections: Vec<(&'static str, Value)>,
    deletion_policy: String,
    description: Option<Value>,
    requires: BTreeSet<String>,
    explicit: BTreeSet<String>,
    /// `get_attr` (resource, attribute) pairs in its properties and metadata.
    attributes: Vec<(String, String)>,
}

/// Compile (see [`super::compile`]).
pub fn compile(input: &Input) -> Compiled {
    let mut version_text = None;
    match run(input, &mut version_text) {
        Ok((document, plan, warnings, secrets)) => Compiled {
            document,
            diagnostics: warnings,
            plan,
            secrets,
        },
        Err(d) => {
            let mut doc = Map::new();
            doc.insert("ok".into(), Value::Bool(false));
            if let Some(v) = version_text {
                doc.insert("template_version".into(), Value::str(v));
            }
            let mut e = Map::new();
            e.insert("kind".into(), Value::str(kind_of(d.code)));
            e.insert("message".into(), Value::str(d.message.as_str()));
            doc.insert(
                "errors".into(),
                Value::List(List::from_iter([Value::Map(e)])),
            );
            Compiled {
                document: Value::Map(doc),
                diagnostics: vec![d],
                plan: Plan::default(),
                secrets: Vec::new(),
            }
        }
    }
}

/// The document, the plan, the warnings and the hidden values.
type Output = (Value, Plan, Vec<Diagnostic>, Vec<String>);

fn run(input: &Input, version_text: &mut Option<String>) -> Result<Output, Diagnostic> {
    let Some(file) = &input.template else {
        return Err(error(codes::HOT_TEMPLATE_PARSE, "no template given", None));
    };
    let parsed = template::parse(file, input.max_template_size, &input.limits);
    if let Err((d, v)) = &parsed {
        if d.code == codes::HOT_TEMPLATE_PARSE {
            return Err(d.clone());
        }
        *version_text = v.clone();
    }
    let mut env_files = Vec::with_capacity(input.environments.len());
    for f in &input.environments {
        env_files.push(env::read(f, &input.limits)?);
    }
    let t = parsed.map_err(|(d, _)| d)?;
    *version_text = Some(t.version_text.clone());
    // Declared parameters and their types (for the merge strategies).
    let declared: HashMap<String, String> = t
        .section("parameters")
        .and_then(Value::as_map)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    (
                        k.py_str(),
                        v.get("type").map(Value::py_str).unwrap_or_default(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let environment = env::layer(
        &env_files,
        &input.parameters,
        &|n| declared.get(n).cloned(),
        input.env_mode,
    )?;
    let mut notes = environment.notes.clone();
    let params = params::build(&t, &environment, &mut notes)?;
    params::check_groups(&t, &params)?;
    let (doc, plan, mut warnings, secrets) =
        Stack::new(input, &t, &params, &environment)?.finish()?;
    warnings.extend(
        notes
            .into_iter()
            .map(|n| Diagnostic::new(codes::HOT_WARNING, n)),
    );
    Ok((doc, plan, warnings, secrets))
}

struct Stack<'a> {
    input: &'a Input,
    t: &'a Template,
    params: &'a [Param],
    env: &'a Environment,
    names: Vec<String>,
    conditions: HashMap<String, bool>,
    files_dir: Option<std::path::PathBuf>,
    /// Each resource's `file:line` (found once: a lookup per resource in
    /// the tree would be quadratic).
    lines: HashMap<String, String>,
}

impl<'a> Stack<'a> {
    fn new(
        input: &'a Input,
        t: &'a Template,
        params: &'a [Param],
        env: &'a Environment,
    ) -> Result<Stack<'a>, Diagnostic> {
        let files_dir = input.files_dir.clone().or_else(|| {
            std::path::Path::new(&t.file.name)
                .parent()
                .map(std::path::Path::to_path_buf)
        });
        let names = match t.section("resources") {
            None => Vec::new(),
            Some(Value::Map(m)) => m.keys().map(Value::py_str).collect(),
            Some(_) => {
                return Err(error(
                    codes::HOT_VALIDATION,
                    "\"resources\" must be a map of resource definitions",
                    t.span(&["resources"]).map(|r| (&t.file, r)),
                ))
            }
        };
        let mut lines = HashMap::new();
        if let Some(crate::yaml::NodeValue::Map(top)) = t.tree.as_ref().map(|n| &n.value) {
            let resources = top.iter().find(
                |(k, _)| matches!(&k.value, crate::yaml::NodeValue::Str(s) if s == "resources"),
            );
            if let Some((
                _,
                crate::yaml::Node {
                    value: crate::yaml::NodeValue::Map(rs),
                    ..
                },
            )) = resources
            {
                for (k, _) in rs {
                    if let crate::yaml::NodeValue::Str(name) = &k.value {
                        let line = t.file.line_col(k.span.start).0;
                        lines.insert(name.to_string(), format!("{}:{line}", t.file.name));
                    }
                }
            }
        }
        let mut s = Stack {
            input,
            t,
            params,
            env,
            names,
            conditions: HashMap::new(),
            files_dir,
            lines,
        };
        s.conditions = s.evaluate_conditions()?;
        Ok(s)
    }

    fn at(&self, path: &[&str]) -> Option<(&Arc<SourceFile>, std::ops::Range<usize>)> {
        self.t.span(path).map(|r| (&self.t.file, r))
    }

    /// `get_file`: a file of the files directory (the template's, or
    /// `--files`), resolved there. Absolute paths and URLs are refused, and
    /// so is a path (`..`, a symlink) that leads out of the files root
    /// (`--files-root`, else the files directory), with the reason.
    fn read_file(&self, key: &str) -> FileRead {
        let Some(dir) = self.files_dir.as_ref() else {
            return Err(None);
        };
        let rel = std::path::Path::new(key);
        if key.contains("://") || rel.is_absolute() {
            return Err(Some(
                "an absolute path or URL; lowstate reads get_file paths only inside the files directory (the template's, or --files DIR)".into(),
            ));
        }
        let climbs = rel
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir));
        let root = self.input.files_root.as_ref().unwrap_or(dir);
        let (Ok(real), Ok(root)) = (dir.join(rel).canonicalize(), root.canonicalize()) else {
            return Err(climbs.then(|| {
                "the path climbs out with `..`, and no file is there; lowstate reads get_file paths only inside the files root (--files-root DIR)".into()
            }));
        };
        if !real.starts_with(&root) {
            return Err(Some(if climbs {
                "the path climbs out of the files root with `..`; `--files-root DIR` lets paths climb up to DIR".into()
            } else {
                format!(
                    "a symlink leads to {}, outside the files root; lowstate does not follow it",
                    real.display()
                )
            }));
        }
        std::fs::read_to_string(real).map_err(|_| None)
    }

    fn scope<'s>(&'s self, files: &'s dyn Fn(&str) -> FileRead) -> Scope<'s> {
        Scope {
            version: self.t.version,
            params: self.params,
            context: &self.input.context,
            resources: &self.names,
            files,
            parent: self.input.parent.as_ref(),
            conditions: &self.conditions,
            refs: RefCell::new(Vec::new()),
            warnings: RefCell::new(Vec::new()),
            attributes: RefCell::new(Vec::new()),
            limits: self.input.limits,
            copies: std::cell::Cell::new(0),
        }
    }

    fn evaluate_conditions(&self) -> Result<HashMap<String, bool>, Diagnostic> {
        let mut out = HashMap::new();
        let Some(defs) = self.t.section("conditions") else {
            return Ok(out);
        };
        let Some(defs) = defs.as_map() else {
            return Err(error(
                codes::HOT_VALIDATION,
                "\"conditions\" must be a map",
                self.at(&["conditions"]),
            ));
        };
        let files = |k: &str| self.read_file(k);
        let scope = self.scope(&files);
        fn eval(
            name: &str,
            defs: &Map,
            scope: &Scope<'_>,
            done: &mut HashMap<String, bool>,
            stack: &mut Vec<String>,
        ) -> Result<bool, FnError> {
            if let Some(b) = done.get(name) {
                return Ok(*b);
            }
            if stack.iter().any(|s| s == name) {
                return Err(FnError {
                    code: codes::HOT_VALIDATION,
                    message: format!("Circular definition for condition \"{name}\""),
                    phase: Phase::Parse,
                });
            }
            let Some(def) = defs.get(name) else {
                return Err(FnError {
                    code: codes::HOT_VALIDATION,
                    message: format!("Invalid condition \"{name}\""),
                    phase: Phase::Parse,
                });
            };
            if def.as_str().is_some() {
                return Err(FnError {
                    code: codes::HOT_VALIDATION,
                    message: format!("The definition of condition \"{name}\" is invalid"),
                    phase: Phase::Parse,
                });
            }
            stack.push(name.to_string());
            let r = evaluate_condition(def, scope, &mut |n| eval(n, defs, scope, done, stack));
            stack.pop();
            let b = r?;
            done.insert(name.to_string(), b);
            Ok(b)
        }
        let mut stack = Vec::new();
        for k in defs.keys() {
            let name = k.py_str();
            eval(&name, defs, &scope, &mut out, &mut stack).map_err(|e| {
                error(
                    e.code,
                    format!("conditions.{name}: {}", e.message),
                    self.at(&["conditions", &name]),
                )
            })?;
        }
        Ok(out)
    }

    fn finish(self) -> Result<Output, Diagnostic> {
        let t = self.t;
        let resources = t
            .section("resources")
            .and_then(Value::as_map)
            .cloned()
            .unwrap_or_default();
        let newton = t.version >= Version::V20161014;
        // Definitions: keys, field types (Heat's step 9) and names (10).
        let mut defs: Vec<(String, Map)> = Vec::new();
        for (k, def) in &resources {
            let name = k.py_str();
            // Located only when it fails: finding the key is a scan.
            let fail = |msg: String| {
                error(codes::HOT_VALIDATION, msg, self.at(&["resources", &name]))
                    .with_subject(RESOURCE, name.as_str())
            };
            let Some(m) = def.as_map() else {
                return Err(fail(format!(
                    "\"resources\" must contain a map of resource maps. Found a [<class '{}'>] instead",
                    def.py_type_name()
                )));
            };
            let mut keys: Vec<&str> = vec![
                "type",
                "properties",
                "metadata",
                "depends_on",
                "update_policy",
                "deletion_policy",
                "description",
            ];
            if newton {
                keys.extend(["condition", "external_id"]);
            }
            for key in m.keys() {
                let key = key.py_str();
                if !keys.contains(&key.as_str()) {
                    return Err(fail(if key == "condition" {
                        "Invalid keyword(s) inside a resource definition: condition".into()
                    } else {
                        format!("\"{key}\" is not a valid keyword inside a resource definition")
                    }));
                }
            }
            match m.get("type") {
                None | Some(Value::Null) => {
                    return Err(fail("Each resource must contain a type key.".into()))
                }
                Some(Value::Str(_)) => {}
                Some(_) => return Err(fail(format!("Resource {name} type type must be string"))),
            }
            if let Some(d) = m.get("depends_on").filter(|v| !v.is_null()) {
                let ok = match d {
                    Value::Str(_) => true,
                    Value::List(l) => l.iter().all(|x| x.as_str().is_some()),
                    _ => false,
                };
                if !ok {
                    return Err(fail(format!(
                        "Resource {name} depends_on must be a list of strings"
                    )));
                }
            }
            for key in ["properties", "metadata", "update_policy"] {
                if let Some(v) = m.get(key).filter(|v| !v.is_null()) {
                    let function = v.as_map().is_some_and(|mm| {
                        mm.len() == 1
                            && mm.keys().all(|k| {
                                k.as_str().is_some_and(|s| {
                                    s.starts_with("get_")
                                        || s == "resource_facade"
                                        || s == "if"
                                        || s == "map_merge"
                                        || s == "map_replace"
                                        || s == "yaql"
                                })
                            })
                    });
                    if v.as_map().is_none() && !function {
                        return Err(fail(format!("Resource {name} {key} type must be object")));
                    }
                }
            }
            if let Some(v) = m.get("description").filter(|v| !v.is_null()) {
                if v.as_str().is_none() {
                    return Err(fail(format!(
                        "Resource {name} description type must be string"
                    )));
                }
            }
            defs.push((name, m.clone()));
        }
        for (name, _) in &defs {
            if name.contains('/') {
                return Err(error(
                    codes::HOT_VALIDATION,
                    format!("Resource name may not contain \"/\": {name}"),
                    self.at(&["resources", name]),
                ));
            }
            if self.params.iter().any(|p| &p.name == name) || PSEUDO.contains(&name.as_str()) {
                return Err(error(
                    codes::HOT_VALIDATION,
                    format!("Duplicate names {{'{name}'}}"),
                    self.at(&["resources", name]),
                )
                .with_subject(RESOURCE, name.as_str()));
            }
        }
        let files = |k: &str| self.read_file(k);
        // Conditions of resources.
        let mut enabled: Vec<bool> = Vec::with_capacity(defs.len());
        for (name, m) in &defs {
            let on = match m.get("condition").filter(|_| newton) {
                None | Some(Value::Null) => true,
                Some(c) => {
                    let scope = self.scope(&files);
                    scope.condition(c).map_err(|e| {
                        error(
                            e.code,
                            format!("resources.{name}.condition: {}", e.message),
                            self.at(&["resources", name]),
                        )
                    })?
                }
            };
            enabled.push(on);
        }
        // Resolve every enabled resource; keep errors by phase.
        let mut built: Vec<Built<Resource>> = Vec::new();
        let mut warnings = Vec::new();
        for ((name, m), on) in defs.iter().zip(&enabled) {
            if !*on {
                continue;
            }
            let r = self.resource(name, m, &files, &mut warnings);
            built.push(r);
        }
        // Outputs (validated and resolved like properties, no edges).
        let mut outputs: Vec<(String, Built<Map>)> = Vec::new();
        match t.section("outputs") {
            None => {}
            Some(Value::Map(m)) => {
                for (k, def) in m {
                    let name = k.py_str();
                    outputs.push((name.clone(), self.output(&name, def, &files)));
                }
            }
            Some(other) => {
                return Err(error(
                    codes::HOT_VALIDATION,
                    format!(
                        "Output definitions must be a map. Found a {} instead",
                        other.py_type_name()
                    ),
                    self.at(&["outputs"]),
                ))
            }
        }
        let located = |e: &FnError, path: &str| {
            let parts: Vec<&str> = path.split('.').take(2).collect();
            error(e.code, format!("{path}: {}", e.message), self.at(&parts))
        };
        // Step 9: shapes and version gating, template order.
        for r in &built {
            if let Err((e, path)) = r {
                if e.phase == Phase::Parse {
                    return Err(located(e, path));
                }
            }
        }
        for (_, o) in &outputs {
            if let Err((e, path)) = o {
                if e.phase == Phase::Parse {
                    return Err(located(e, path));
                }
            }
        }
        // Step 11: references and cycles.
        let all: BTreeSet<&str> = defs.iter().map(|(n, _)| n.as_str()).collect();
        let live: BTreeSet<&str> = defs
            .iter()
            .zip(&enabled)
            .filter(|(_, on)| **on)
            .map(|((n, _), _)| n.as_str())
            .collect();
        for r in built.iter().flatten() {
            for target in r.requires.iter().chain(r.explicit.iter()) {
                if !all.contains(target.as_str()) {
                    return Err(error(
                        codes::HOT_INVALID_REFERENCE,
                        format!(
                            "The specified reference \"{target}\" (in {}) is incorrect.",
                            r.name
                        ),
                        self.at(&["resources", &r.name]),
                    )
                    .with_subject(RESOURCE, r.name.as_str()));
                }
            }
        }
        let mut resolved: Vec<Resource> = Vec::new();
        let mut runtime: Option<Diagnostic> = None;
        for r in built {
            match r {
                Ok(mut r) => {
                    r.requires.retain(|x| live.contains(x.as_str()));
                    resolved.push(r);
                }
                Err((e, path)) => {
                    runtime.get_or_insert_with(|| located(&e, &path));
                }
            }
        }
        let waves = waves(&resolved).map_err(|left| {
            let parts: Vec<String> = left
                .iter()
                .map(|(n, reqs)| format!("{n}: {{{}}}", reqs.join(", ")))
                .collect();
            error(
                codes::HOT_CIRCULAR_DEPENDENCY,
                format!("Circular Dependency Found: {{{}}}", parts.join(", ")),
                self.at(&["resources"]),
            )
        })?;
        // Better than Heat offline: get_attr of an attribute the resolved
        // type does not have (Heat 27's schemas).
        let types: HashMap<&str, &env::ResolvedType> = resolved
            .iter()
            .map(|r| (r.name.as_str(), &r.resolved))
            .collect();
        for r in &resolved {
            for (target, attr) in &r.attributes {
                if let Some(t) = types.get(target.as_str()) {
                    if !has_attribute(t, attr) {
                        return Err(error(
                            codes::HOT_INVALID_ATTRIBUTE,
                            format!(
                                "The Referenced Attribute ({target} {attr}) is incorrect: {} has no attribute \"{attr}\"",
                                t.resolved
                            ),
                            self.at(&["resources", &r.name]),
                        )
                        .with_subject(RESOURCE, r.name.as_str()));
                    }
                }
            }
        }
        for (name, o) in &outputs {
            if let Ok(m) = o {
                let scope = self.scope(&files);
                let _ = scope.resolve(m.get("value").unwrap_or(&Value::Null));
                for (target, attr) in scope.attributes.borrow().iter() {
                    if let Some(t) = types.get(target.as_str()) {
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
                for target in scope.refs.borrow().iter() {
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
        if let Some(d) = runtime {
            return Err(d);
        }
        for (_, o) in &outputs {
            if let Err((e, path)) = o {
                return Err(located(e, path));
            }
        }
        Ok(self.document(resolved, waves, outputs, warnings))
    }

    fn resource(
        &self,
        name: &str,
        m: &Map,
        files: &dyn Fn(&str) -> FileRead,
        warnings: &mut Vec<Diagnostic>,
    ) -> Built<Resource> {
        let written_type = m.get("type").map(Value::py_str).unwrap_or_default();
        let depends_on: Option<Vec<String>> = match m.get("depends_on") {
            Some(Value::Str(s)) => Some(vec![s.to_string()]),
            // As written (repeats too); the edges collapse them.
            Some(Value::List(l)) => Some(l.iter().map(Value::py_str).collect()),
            _ => None,
        };
        let mut requires = BTreeSet::new();
        let mut attributes = Vec::new();
        let mut sections = Vec::new();
        for key in ["properties", "metadata", "update_policy"] {
            let Some(v) = m.get(key).filter(|v| !v.is_null()) else {
                continue;
            };
            let scope = self.scope(files);
            let out = scope
                .resolve(v)
                .map_err(|e| (e, format!("resources.{name}.{key}")))?;
            if key != "update_policy" {
                requires.extend(scope.refs.borrow().iter().cloned());
            }
            attributes.extend(scope.attributes.borrow().iter().cloned());
            for w in scope.warnings.borrow().iter() {
                warnings.push(
                    Diagnostic::new(codes::HOT_WARNING, format!("resources.{name}.{key}: {w}"))
                        .with_subject(RESOURCE, name),
                );
            }
            sections.push((key, out.value));
        }
        let deletion_policy = match m.get("deletion_policy").filter(|v| !v.is_null()) {
            None => "Delete".to_string(),
            Some(v) => {
                let scope = self.scope(files);
                let out = scope
                    .resolve(v)
                    .map_err(|e| (e, format!("resources.{name}.deletion_policy")))?;
                let text = out.value.py_str();
                let newton = self.t.version >= Version::V20161014;
                match text.as_str() {
                    "Delete" | "Retain" | "Snapshot" => text,
                    "delete" | "retain" | "snapshot" if newton => {
                        let mut c = text.chars();
                        let first = c.next().map(|f| f.to_ascii_uppercase()).unwrap_or_default();
                        format!("{first}{}", c.as_str())
                    }
                    _ => {
                        return Err((
                            FnError {
                                code: codes::HOT_VALIDATION,
                                message: format!("Invalid deletion policy \"{text}\""),
                                phase: Phase::Parse,
                            },
                            format!("resources.{name}.deletion_policy"),
                        ))
                    }
                }
            }
        };
        // Heat's ResourceDefinition: an adopted resource (`external_id`) is
        // always kept, whatever policy was written.
        let deletion_policy = match m.get("external_id").filter(|v| !v.is_null()) {
            Some(_) => "Retain".to_string(),
            None => deletion_policy,
        };
        let explicit: BTreeSet<String> = depends_on.iter().flatten().cloned().collect();
        requires.extend(explicit.iter().cloned());
        Ok(Resource {
            name: name.to_string(),
            resolved: env::resolve_type(&self.env.registry, name, &written_type),
            written_type,
            depends_on,
            sections,
            deletion_policy,
            description: m.get("description").filter(|v| !v.is_null()).cloned(),
            requires,
            explicit,
            attributes,
        })
    }

    /// Why `r` is in its wave: the requirement on the longest path first,
    /// then every other one, explicit (`depends_on`) or by reference, with
    /// the template line of the resource.
    fn reasons(&self, r: &Resource, wave_of: &HashMap<&str, usize>) -> Vec<crate::plan::Reason> {
        let at = self
            .lines
            .get(&r.name)
            .map(|l| format!(" ({l})"))
            .unwrap_or_default();
        let how = |q: &str| {
            if r.explicit.contains(q) {
                "depends_on"
            } else {
                "get_resource/get_attr"
            }
        };
        let mut reqs: Vec<&String> = r.requires.iter().collect();
        reqs.sort_by_key(|q| std::cmp::Reverse(wave_of.get(q.as_str()).copied().unwrap_or(0)));
        let mut out = Vec::new();
        let Some(first) = reqs.first() else {
            out.push(crate::plan::Reason {
                family: None,
                text: format!("requires nothing: created in the first wave{at}"),
            });
            return out;
        };
        let w = wave_of.get(first.as_str()).copied().unwrap_or(0);
        out.push(crate::plan::Reason {
            family: Some(EdgeFamily::Requires),
            text: format!(
                "after {first} ({}, wave {w}): the longest chain{at}",
                how(first)
            ),
        });
        for q in &reqs[1..] {
            let w = wave_of.get(q.as_str()).copied().unwrap_or(0);
            out.push(crate::plan::Reason {
                family: Some(EdgeFamily::Requires),
                text: format!("after {q} ({}, wave {w})", how(q)),
            });
        }
        out
    }

    fn output(&self, name: &str, def: &Value, files: &dyn Fn(&str) -> FileRead) -> Built<Map> {
        let path = format!("outputs.{name}");
        let Some(m) = def.as_map() else {
            return Err((
                FnError {
                    code: codes::HOT_VALIDATION,
                    message: format!(
                        "Output definitions must be a map. Found a {} instead",
                        def.py_type_name()
                    ),
                    phase: Phase::Parse,
                },
                path,
            ));
        };
        if !m.contains_key("value") {
            return Err((
                FnError {
                    code: codes::HOT_VALIDATION,
                    message: format!("Output validation error: outputs.{name}: Each output definition must contain a value key."),
                    phase: Phase::Parse,
                },
                path,
            ));
        }
        let mut out = Map::new();
        let on = match m
            .get("condition")
            .filter(|_| self.t.version >= Version::V20161014)
        {
            None | Some(Value::Null) => true,
            Some(c) => self
                .scope(files)
                .condition(c)
                .map_err(|e| (e, path.clone()))?,
        };
        let value = if on {
            self.scope(files)
                .resolve(m.get("value").unwrap_or(&Value::Null))
                .map_err(|e| (e, format!("{path}.value")))?
                .value
        } else {
            Value::Null
        };
        out.insert("value".into(), value);
        if let Some(d) = m.get("description").filter(|v| !v.is_null()) {
            out.insert("description".into(), d.clone());
        }
        Ok(out)
    }

    fn document(
        &self,
        resources: Vec<Resource>,
        waves: Vec<Vec<String>>,
        outputs: Vec<(String, Built<Map>)>,
        warnings: Vec<Diagnostic>,
    ) -> Output {
        let t = self.t;
        let mut doc = Map::new();
        doc.insert("ok".into(), Value::Bool(true));
        doc.insert(
            "template_version".into(),
            Value::str(t.version_text.as_str()),
        );
        doc.insert("errors".into(), Value::List(List::new()));
        let mut ps = Map::new();
        for p in self.params {
            ps.insert(Value::str(p.name.as_str()), p.to_value());
        }
        doc.insert("parameters".into(), Value::Map(ps));
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
        let wave_of: HashMap<&str, usize> = waves
            .iter()
            .enumerate()
            .flat_map(|(i, w)| w.iter().map(move |n| (n.as_str(), i)))
            .collect();
        let by_name: HashMap<&str, &Resource> =
            resources.iter().map(|r| (r.name.as_str(), r)).collect();
        let mut list = List::new();
        let mut plan = Plan {
            group_name: "stack".into(),
            secondary_name: "—".into(),
            legend: vec![
                ("depends_on".into(), edge_style("depends_on")),
                ("reference".into(), edge_style("reference")),
            ],
            ..Plan::default()
        };
        let mut index: HashMap<&str, usize> = HashMap::new();
        for w in &waves {
            for n in w {
                let r = by_name[n.as_str()];
                let mut m = Map::new();
                m.insert("name".into(), Value::str(r.name.as_str()));
                m.insert("type".into(), Value::str(r.written_type.as_str()));
                m.insert(
                    "resolved_type".into(),
                    Value::str(r.resolved.resolved.as_str()),
                );
                if let Some(p) = &r.resolved.template {
                    m.insert("provider_template".into(), Value::str(p.as_str()));
                }
                m.insert("wave".into(), Value::Int(wave_of[n.as_str()] as i64));
                m.insert(
                    "requires".into(),
                    Value::List(r.requires.iter().map(|x| Value::str(x.as_str())).collect()),
                );
                if let Some(d) = &r.depends_on {
                    m.insert(
                        "depends_on".into(),
                        Value::List(d.iter().map(|x| Value::str(x.as_str())).collect()),
                    );
                }
                for (k, v) in &r.sections {
                    m.insert(Value::str(*k), v.clone());
                }
                m.insert(
                    "deletion_policy".into(),
                    Value::str(r.deletion_policy.as_str()),
                );
                if let Some(d) = &r.description {
                    m.insert("description".into(), d.clone());
                }
                let reasons = self.reasons(r, &wave_of);
                index.insert(r.name.as_str(), plan.nodes.len());
                plan.order.push(plan.nodes.len());
                plan.nodes.push(PlanNode {
                    key: r.name.clone(),
                    label: vec![r.resolved.resolved.clone(), r.name.clone()],
                    group: "stack".into(),
                    secondary: false,
                    title: r.name.clone(),
                    kind: r.written_type.clone(),
                    rank: wave_of[n.as_str()].to_string(),
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
        }
        for r in &resources {
            for req in &r.requires {
                let kind = if r.explicit.contains(req) {
                    "depends_on"
                } else {
                    "reference"
                };
                if let (Some(&from), Some(&to)) =
                    (index.get(req.as_str()), index.get(r.name.as_str()))
                {
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
        doc.insert("resources".into(), Value::List(list));
        doc.insert(
            "waves".into(),
            Value::List(
                waves
                    .iter()
                    .map(|w| Value::List(w.iter().map(|n| Value::str(n.as_str())).collect()))
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
        (Value::Map(doc), plan, warnings, secrets)
    }
}

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

/// The attribute names of resource type `type_name` in Heat 27.0.1's
/// schemas (`show` included; empty for a type lowstate has no schema for).
pub fn attributes_of(type_name: &str) -> Vec<&'static str> {
    let mut out: Vec<&str> = ATTRIBUTES
        .lines()
        .find(|l| l.split(' ').next() == Some(type_name))
        .map(|l| l.split(' ').skip(1).collect())
        .unwrap_or_default();
    if !out.is_empty() || env::is_plugin(type_name) {
        out.push("show");
    }
    out
}

fn has_attribute(t: &env::ResolvedType, attr: &str) -> bool {
    if t.template.is_some() || attr == "show" || DYNAMIC_ATTRIBUTES.contains(&t.resolved.as_str()) {
        return true;
    }
    let Some(line) = ATTRIBUTES
        .lines()
        .find(|l| l.split(' ').next() == Some(t.resolved.as_str()))
    else {
        return true;
    };
    let group = t.resolved.contains("Group") || t.resolved.ends_with("::Stack");
    line.split(' ').skip(1).any(|a| a == attr) || (group && attr.starts_with("resource."))
}

fn edge_style(kind: &str) -> EdgeStyle {
    EdgeStyle {
        color: EdgeFamily::Requires.color(),
        line: if kind == "depends_on" {
            "solid"
        } else {
            "dashed"
        },
    }
}

/// The resources left in a cycle, each with what it still requires.
type Cycle = Vec<(String, Vec<String>)>;

/// Creation waves: wave(R) = 1 + max wave of its requirements (longest
/// path); names sorted by code point inside a wave. On a cycle, the nodes
/// left with what they still require.
fn waves(resources: &[Resource]) -> Result<Vec<Vec<String>>, Cycle> {
    // Kahn's algorithm over the requirement edges: O(resources + edges).
    let index: HashMap<&str, usize> = resources
        .iter()
        .enumerate()
        .map(|(i, r)| (r.name.as_str(), i))
        .collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); resources.len()];
    let mut waiting: Vec<usize> = vec![0; resources.len()];
    for (i, r) in resources.iter().enumerate() {
        for q in &r.requires {
            if let Some(&j) = index.get(q.as_str()) {
                dependents[j].push(i);
                waiting[i] += 1;
            }
        }
    }
    let mut wave: Vec<Option<usize>> = vec![None; resources.len()];
    let mut ready: Vec<usize> = (0..resources.len()).filter(|&i| waiting[i] == 0).collect();
    for &i in &ready {
        wave[i] = Some(0);
    }
    while let Some(i) = ready.pop() {
        let w = wave[i].unwrap_or(0);
        for &d in &dependents[i] {
            wave[d] = Some(wave[d].map_or(w + 1, |x| x.max(w + 1)));
            waiting[d] -= 1;
            if waiting[d] == 0 {
                ready.push(d);
            }
        }
    }
    if waiting.iter().any(|&n| n > 0) {
        return Err(resources
            .iter()
            .enumerate()
            .filter(|(i, _)| waiting[*i] > 0)
            .map(|(i, r)| {
                let left = r
                    .requires
                    .iter()
                    .filter(|q| {
                        index
                            .get(q.as_str())
                            .is_some_and(|&j| waiting[j] > 0 || j == i)
                    })
                    .cloned()
                    .collect();
                (r.name.clone(), left)
            })
            .collect());
    }
    let n = wave.iter().flatten().max().map_or(0, |m| m + 1);
    let mut out: Vec<Vec<String>> = vec![Vec::new(); n];
    for (i, w) in wave.iter().enumerate() {
        if let Some(w) = w {
            out[*w].push(resources[i].name.clone());
        }
    }
    for w in &mut out {
        w.sort();
    }
    Ok(out)
}
