//! One HOT compile in Heat's order of checks (spec §1): template, environment
//! files, version, layering, parameters, groups, conditions, resource
//! definitions, the dependency graph (references, cycles), resolution, and
//! the creation waves (spec §11.3); then the JSON document (spec §14) and
//! the neutral plan.

use super::env::{self, Environment};
use super::functions::{evaluate_condition, FileRead, FnError, Phase, Scope};
use super::params::{self, Param, PSEUDO};
use super::template::{self, Template, Version};
use super::{error, kind_of, Compiled, Input, Sources, RESOURCE};
use crate::diag::{codes, Diagnostic, SourceFile};
use crate::plan::Plan;
use crate::value::{List, Map, Value};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

mod attributes;
pub use attributes::attributes_of;
mod document;
mod nested;
mod waves;

use nested::Level;

use waves::waves;

/// A resolved part of the stack, or its error with the path it was at.
type Built<T> = Result<T, (FnError, String)>;

/// A resource built, or its error with the resources its definition names
/// (Heat builds the dependency graph, and refuses a reference to a missing
/// resource, before it resolves any property).
type BuiltResource = Result<Resource, Unbuilt>;

/// A resource whose definition failed: the error, where, and the resources
/// the definition names (`depends_on` included).
struct Unbuilt {
    error: FnError,
    path: String,
    name: String,
    refs: BTreeSet<String>,
    /// The property whose value failed, when Heat's own plugin validates
    /// the resource's properties (see [`nested::validated_properties`]).
    property: Option<String>,
}

impl From<(FnError, String)> for Unbuilt {
    fn from((error, path): (FnError, String)) -> Self {
        Unbuilt {
            error,
            path,
            name: String::new(),
            refs: BTreeSet::new(),
            property: None,
        }
    }
}

/// What resolving an output's value met: its `get_attr` (resource,
/// attribute) pairs and the resources it references, for the attribute
/// and reference checks (kept from the one resolution).
#[derive(Default)]
struct OutputRefs {
    attributes: Vec<(String, String)>,
    refs: Vec<String>,
}

/// The keys of a resource definition, the last two since 2016-10-14
/// (Newton).
const DEFINITION_KEYS: [&str; 9] = [
    "type",
    "properties",
    "metadata",
    "depends_on",
    "update_policy",
    "deletion_policy",
    "description",
    "condition",
    "external_id",
];

/// A checked resource definition and the values of its keys, found in one
/// pass over them ([`Map::pick`]: a lookup per key scanned the definition
/// nine times).
struct Definition<'m> {
    ty: Option<&'m Value>,
    properties: Option<&'m Value>,
    metadata: Option<&'m Value>,
    depends_on: Option<&'m Value>,
    update_policy: Option<&'m Value>,
    deletion_policy: Option<&'m Value>,
    description: Option<&'m Value>,
    condition: Option<&'m Value>,
    external_id: Option<&'m Value>,
}

impl<'m> Definition<'m> {
    fn of(m: &'m Map) -> Definition<'m> {
        let [ty, properties, metadata, depends_on, update_policy, deletion_policy, description, condition, external_id] =
            m.pick(DEFINITION_KEYS);
        Definition {
            ty,
            properties,
            metadata,
            depends_on,
            update_policy,
            deletion_policy,
            description,
            condition,
            external_id,
        }
    }
}

/// A resource after resolution.
struct Resource {
    name: String,
    written_type: String,
    resolved: env::ResolvedType,
    depends_on: Option<Vec<String>>,
    sections: Vec<(&'static str, Value)>,
    /// `Delete`, `Retain` or `Snapshot`.
    deletion_policy: &'static str,
    description: Option<Value>,
    requires: BTreeSet<String>,
    explicit: BTreeSet<String>,
    /// `get_attr` (resource, attribute) pairs in its properties and metadata.
    attributes: Vec<(String, String)>,
}

/// Compile (see [`super::compile`]).
pub fn compile(input: &Input) -> Compiled {
    let mut version_text = None;
    let mut parameter_layers = Default::default();
    let mut sources = Sources::default();
    let mut more_errors = Vec::new();
    match run(
        input,
        &mut version_text,
        &mut parameter_layers,
        &mut sources,
        &mut more_errors,
    ) {
        Ok((document, plan, warnings, secrets)) => Compiled {
            document,
            diagnostics: warnings,
            plan: plan.unwrap_or_default(),
            secrets,
            parameter_layers,
            sources,
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
            // The errors of nested stacks after the first: Heat reports one.
            let mut diagnostics = vec![d];
            diagnostics.extend(more_errors);
            Compiled {
                document: Value::Map(doc),
                diagnostics,
                plan: Plan::default(),
                secrets: Vec::new(),
                parameter_layers,
                sources,
            }
        }
    }
}

/// The document, the plan (when [`Input::plan`] asks for it), the warnings
/// and the hidden values.
type Output = (Value, Option<Plan>, Vec<Diagnostic>, Vec<String>);

fn run(
    input: &Input,
    version_text: &mut Option<String>,
    parameter_layers: &mut super::explain::ParameterLayers,
    sources: &mut Sources,
    more_errors: &mut Vec<Diagnostic>,
) -> Result<Output, Diagnostic> {
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
    let t = Arc::new(parsed.map_err(|(d, _)| d)?);
    sources.root = Some(t.clone());
    *version_text = Some(t.version_text.clone());
    *parameter_layers = super::explain::record(&t, &env_files, &input.parameters, input.env_mode);
    // Declared parameters and their types (for the merge strategies).
    let level = Level::root();
    let layers = env_files.len() + usize::from(!input.parameters.is_empty());
    let declared = if input.env_mode == super::EnvMode::Server && layers > 1 {
        merge_schemata(input, &t, &env_files, &level)
    } else {
        params::declared_types(&t)
    };
    let environment = env::layer(
        &env_files,
        &input.parameters,
        &|n| declared.get(n).cloned(),
        input.env_mode,
    )?;
    let out = run_stack(input, &t, &environment, &level);
    sources.providers = level.templates_read();
    *more_errors = level.more_errors();
    out
}

/// The parameter types heat-engine's merge of several environment files
/// reads (`all_param_schemata`, over the `files` the client sends with the
/// template): those of every template the client collects — a `type` or
/// `get_file` path of a template anywhere in the template, a template an
/// environment's registry names, and theirs, recursively — the root
/// template's winning. So a `parameter_defaults` entry of a later file is
/// kept when only a nested template declares it. The templates read are
/// kept for the nested expansion (`level`).
fn merge_schemata(
    input: &Input,
    t: &Template,
    env_files: &[env::EnvFile],
    level: &Level,
) -> HashMap<String, String> {
    fn refs(v: &Value, registry: bool, out: &mut Vec<String>) {
        let template = |x: &Value| {
            x.as_str()
                .filter(|s| s.ends_with(".yaml") || s.ends_with(".template"))
                .map(str::to_string)
        };
        match v {
            Value::Map(m) => {
                for (k, x) in m {
                    let named = registry || matches!(k.as_str(), Some("type" | "get_file"));
                    if let Some(path) = template(x).filter(|_| named) {
                        out.push(path);
                    }
                    refs(x, registry, out);
                }
            }
            Value::List(l) => l.iter().for_each(|x| refs(x, registry, out)),
            _ => {}
        }
    }
    let dir = files_dir(input, t);
    let mut queue = Vec::new();
    for (_, v) in t.data.iter() {
        refs(v, false, &mut queue);
    }
    for e in env_files {
        if let Some(r) = e.data.get("resource_registry") {
            refs(r, true, &mut queue);
        }
    }
    let mut types = HashMap::new();
    let mut seen = std::collections::HashSet::new();
    let mut next = 0;
    while next < queue.len() && seen.len() < input.limits.hot_resources {
        let path = queue[next].clone();
        next += 1;
        if !seen.insert(path.clone()) {
            continue;
        }
        let Ok(text) = read_in(dir.as_deref(), input.files_root.as_deref(), &path) else {
            continue;
        };
        let file = SourceFile::new(path.clone(), text);
        let Ok(child) = template::parse(&file, input.max_template_size, &input.limits) else {
            continue;
        };
        types.extend(params::declared_types(&child));
        for (_, v) in child.data.iter() {
            refs(v, false, &mut queue);
        }
        level.seed(path, Arc::new(child));
    }
    types.extend(params::declared_types(t));
    types
}

/// One stack of the tree from its parsed template and environment:
/// parameters, parameter groups, resources, the document.
fn run_stack(
    input: &Input,
    t: &Template,
    environment: &Environment,
    level: &Level,
) -> Result<Output, Diagnostic> {
    let mut notes = environment.notes.clone();
    // A nested stack's parameters come from its parent's properties.
    let unset = match level.depth {
        0 => input.unset,
        _ => params::Unset::Error,
    };
    let params = params::build(t, environment, &level.deferred, unset, &mut notes)?;
    params::check_groups(t, &params)?;
    let (doc, plan, mut warnings, secrets) =
        Stack::new(input, t, &params, environment, level)?.finish()?;
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
    /// Where this stack sits in a `--nested` tree.
    level: &'a Level,
    /// Every resource name of the template, for `Ref`.
    names: Vec<std::borrow::Cow<'a, str>>,
    conditions: HashMap<String, bool>,
    files_dir: Option<std::path::PathBuf>,
    /// Each resource's `file:line` for the plan's reasons (found once: a
    /// lookup per resource in the tree would be quadratic), when
    /// [`Input::plan`] asks for the plan.
    lines: HashMap<String, String>,
}

impl<'a> Stack<'a> {
    fn new(
        input: &'a Input,
        t: &'a Template,
        params: &'a [Param],
        env: &'a Environment,
        level: &'a Level,
    ) -> Result<Stack<'a>, Diagnostic> {
        let files_dir = files_dir(input, t);
        let names = match t.section("resources") {
            None => Vec::new(),
            Some(Value::Map(m)) => m.keys().map(Value::py_str_cow).collect(),
            Some(_) => {
                return Err(error(
                    codes::HOT_VALIDATION,
                    "\"resources\" must be a map of resource definitions",
                    t.span(&["resources"]).map(|r| (&t.file, r)),
                ))
            }
        };
        let mut lines = HashMap::new();
        let top = t.tree.as_ref().map(|n| &n.value).filter(|_| input.plan);
        if let Some(crate::yaml::NodeValue::Map(top)) = top {
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
            level,
            names,
            conditions: HashMap::new(),
            files_dir,
            lines,
        };
        s.conditions = s.evaluate_conditions()?;
        Ok(s)
    }

    /// Heat's refusal of a type it has no plugin, registry mapping or
    /// template for (`The Resource Type (X) could not be found.`), about
    /// resource `name`, located at `path` of this template.
    fn unknown_type(&self, name: &str, t: &env::ResolvedType, path: &[&str]) -> Option<Diagnostic> {
        if t.template.is_some() || env::is_plugin(&t.resolved) {
            return None;
        }
        Some(
            error(
                codes::HOT_VALIDATION,
                format!("The Resource Type ({}) could not be found.", t.resolved),
                self.at(path).or_else(|| self.at(&["resources", name])),
            )
            .with_subject(RESOURCE, name),
        )
    }

    /// An error located at resource `name`'s definition, about it.
    fn resource_error(&self, code: crate::diag::Code, message: String, name: &str) -> Diagnostic {
        error(code, message, self.at(&["resources", name])).with_subject(RESOURCE, name)
    }

    fn at(&self, path: &[&str]) -> Option<(&Arc<SourceFile>, std::ops::Range<usize>)> {
        self.t.span(path).map(|r| (&self.t.file, r))
    }

    /// `get_file`: a file of the files directory (the template's, or
    /// `--files`), resolved there. Absolute paths and URLs are refused, and
    /// so is a path (`..`, a symlink) that leads out of the files root
    /// (`--files-root`, else the files directory), with the reason.
    fn read_file(&self, key: &str) -> FileRead {
        read_in(
            self.files_dir.as_deref(),
            self.input.files_root.as_deref(),
            key,
        )
    }
}

/// The directory `get_file` and provider-template paths of template `t`
/// resolve in: `--files`, else the template's own.
fn files_dir(input: &Input, t: &Template) -> Option<std::path::PathBuf> {
    input.files_dir.clone().or_else(|| {
        std::path::Path::new(&t.file.name)
            .parent()
            .map(std::path::Path::to_path_buf)
    })
}

/// Read `key` in files directory `dir`, never out of `root` (default:
/// `dir`); see [`Stack::read_file`].
fn read_in(dir: Option<&std::path::Path>, root: Option<&std::path::Path>, key: &str) -> FileRead {
    let Some(dir) = dir else {
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
    let root = root.unwrap_or(dir);
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

impl<'a> Stack<'a> {
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
            from_parent: self.level.generated,
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

    /// The resource definitions in template order, checked once per
    /// template ([`Template::definitions`]).
    fn definitions(&self) -> Result<Vec<(&'a str, Definition<'a>)>, Diagnostic> {
        let checked = self.t.definitions.get_or_init(|| {
            let defs = self.check_definitions()?;
            Ok(defs.into_iter().map(|(name, _)| name).collect())
        });
        let names = checked.as_ref().map_err(Diagnostic::clone)?;
        let Some(resources) = self.t.section("resources").and_then(Value::as_map) else {
            return Ok(Vec::new());
        };
        // Checked: every definition is a map.
        Ok(names
            .iter()
            .map(String::as_str)
            .zip(
                resources
                    .values()
                    .filter_map(Value::as_map)
                    .map(Definition::of),
            )
            .collect())
    }

    /// The resource definitions in template order: keys, field types
    /// (Heat's step 9) and names (10). They depend on the template alone
    /// (its parameters' names are the declared ones).
    fn check_definitions(&self) -> Result<Vec<(String, &'a Map)>, Diagnostic> {
        let t = self.t;
        let Some(resources) = t.section("resources").and_then(Value::as_map) else {
            return Ok(Vec::new());
        };
        let newton = t.version >= Version::V20161014;
        let mut defs: Vec<(String, &'a Map)> = Vec::with_capacity(resources.len());
        for (k, def) in resources {
            let name = k.py_str();
            // Located only when it fails: finding the key is a scan.
            let fail = |msg: String| {
                error(codes::HOT_VALIDATION, msg, self.at(&["resources", &name]))
                    .with_subject(RESOURCE, name.as_str())
            };
            // An empty body (`name:` alone is null) has no type key, as
            // Heat says before it looks at the body's shape.
            if !def.truthy() {
                return Err(fail("Each resource must contain a type key.".into()));
            }
            let Some(m) = def.as_map() else {
                return Err(fail(format!(
                    "\"resources\" must contain a map of resource maps. Found a [<class '{}'>] instead",
                    def.py_type_name()
                )));
            };
            let (keys, newton_keys) = DEFINITION_KEYS.split_at(7);
            let known = |k: &str| keys.contains(&k) || (newton && newton_keys.contains(&k));
            for key in m.keys() {
                // Every known key is a string: others are written out only
                // to fail.
                if !key.as_str().is_some_and(known) {
                    let key = key.py_str();
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
            defs.push((name, m));
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
        Ok(defs)
    }

    fn finish(self) -> Result<Output, Diagnostic> {
        let defs = self.definitions()?;
        let newton = self.t.version >= Version::V20161014;
        let t = self.t;
        let files = |k: &str| self.read_file(k);
        // Conditions of resources.
        let mut enabled: Vec<bool> = Vec::with_capacity(defs.len());
        for (name, d) in &defs {
            let on = match d.condition.filter(|_| newton) {
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
        let mut built: Vec<BuiltResource> = Vec::with_capacity(defs.len());
        let mut warnings = Vec::new();
        for ((name, d), on) in defs.iter().zip(&enabled) {
            if !*on {
                continue;
            }
            let r = self.resource(name, d, &files, &mut warnings);
            built.push(r);
        }
        // Outputs (validated and resolved like properties, no edges).
        let mut outputs: Vec<(String, Built<Map>)> = Vec::new();
        let mut output_refs: Vec<OutputRefs> = Vec::new();
        match t.section("outputs") {
            None => {}
            Some(Value::Map(m)) => {
                outputs.reserve(m.len());
                output_refs.reserve(m.len());
                for (k, def) in m {
                    let name = k.py_str();
                    let mut met = OutputRefs::default();
                    outputs.push((name.clone(), self.output(&name, def, &files, &mut met)));
                    output_refs.push(met);
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
            if let Err(u) = r {
                if u.error.phase == Phase::Parse {
                    return Err(located(&u.error, &u.path));
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
        // A nested stack's resources are built for real: a type Heat has
        // no plugin, mapping or template for stops it (the root keeps the
        // single-stack behaviour: `check` reports it, `hot-unknown-type`).
        if self.level.depth > 0 {
            for r in built.iter().flatten() {
                if let Some(d) =
                    self.unknown_type(&r.name, &r.resolved, &["resources", &r.name, "type"])
                {
                    return Err(d);
                }
            }
        }
        // Step 11: references and cycles.
        let all: BTreeSet<&str> = defs.iter().map(|(n, _)| *n).collect();
        // The enabled resources, when some are not.
        let live: Option<BTreeSet<&str>> = enabled.contains(&false).then(|| {
            defs.iter()
                .zip(&enabled)
                .filter(|(_, on)| **on)
                .map(|((n, _), _)| *n)
                .collect()
        });
        let missing = |t: &&String| !all.contains(t.as_str());
        let live_defs = defs.iter().zip(&enabled).filter(|(_, on)| **on);
        for (r, ((_, d), _)) in built.iter().zip(live_defs) {
            let (name, target) = match r {
                Ok(r) => (&r.name, r.requires.iter().chain(&r.explicit).find(missing)),
                Err(u) => (&u.name, u.refs.iter().find(missing)),
            };
            let Some(target) = target else {
                continue;
            };
            // Heat meets the references of the properties, then of the
            // metadata, in the order written (its implicit dependencies),
            // and names where; then those of depends_on.
            let exists = |n: &str| all.contains(n);
            let refs = MissingRefs {
                version: t.version,
                exists: &exists,
            };
            let written = [("Properties", d.properties), ("Metadata", d.metadata)]
                .into_iter()
                .find_map(|(section, v)| refs.first(v?, &format!("{name}.{section}")));
            let (target, at) = written.unwrap_or_else(|| (target.clone(), name.clone()));
            return Err(self.resource_error(
                codes::HOT_INVALID_REFERENCE,
                format!("The specified reference \"{target}\" (in {at}) is incorrect."),
                name,
            ));
        }
        let mut resolved: Vec<Resource> = Vec::with_capacity(built.len());
        let mut runtime: Option<Diagnostic> = None;
        for r in built {
            match r {
                Ok(mut r) => {
                    // With every resource enabled, every requirement is live.
                    if let Some(live) = &live {
                        r.requires.retain(|x| live.contains(x.as_str()));
                    }
                    resolved.push(r);
                }
                Err(u) => {
                    runtime.get_or_insert_with(|| match &u.property {
                        // Heat's plugin met it validating its properties.
                        Some(key) => error(
                            match u.error.code {
                                c if c == codes::HOT_PARAMETER_MISSING => c,
                                _ => codes::HOT_VALIDATION,
                            },
                            format!(
                                "Property error: resources.{}.properties.{key}: {}",
                                u.name, u.error.message
                            ),
                            self.at(&["resources", &u.name, "properties", key]),
                        ),
                        None => located(&u.error, &u.path),
                    });
                }
            }
        }
        let index = waves::positions(&resolved);
        let waves = waves(&resolved, &index).map_err(|left| {
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
        self.check_attributes(&resolved, &index, &outputs, &output_refs, &all)?;
        drop(index);
        if let Some(d) = runtime {
            return Err(d);
        }
        for (_, o) in &outputs {
            if let Err((e, path)) = o {
                return Err(located(e, path));
            }
        }
        self.document(resolved, waves, outputs, warnings)
    }

    fn resource(
        &self,
        name: &str,
        d: &Definition<'_>,
        files: &dyn Fn(&str) -> FileRead,
        warnings: &mut Vec<Diagnostic>,
    ) -> BuiltResource {
        let written_type = d.ty.map(Value::py_str).unwrap_or_default();
        let depends_on: Option<Vec<String>> = match d.depends_on {
            Some(Value::Str(s)) => Some(vec![s.to_string()]),
            // As written (repeats too); the edges collapse them.
            Some(Value::List(l)) => Some(l.iter().map(Value::py_str).collect()),
            _ => None,
        };
        let mut requires = BTreeSet::new();
        let mut attributes = Vec::new();
        let mut sections = Vec::new();
        for (key, v) in [
            ("properties", d.properties),
            ("metadata", d.metadata),
            ("update_policy", d.update_policy),
        ] {
            let Some(v) = v.filter(|v| !v.is_null()) else {
                continue;
            };
            let scope = self.scope(files);
            let out = scope.resolve(v).map_err(|e| {
                let mut refs: BTreeSet<String> = scope.refs.borrow().iter().cloned().collect();
                refs.extend(depends_on.iter().flatten().cloned());
                for v in [d.properties, d.metadata].into_iter().flatten() {
                    named_resources(v, &mut refs);
                }
                let validated = match (key, e.phase) {
                    ("properties", Phase::Run) => {
                        self.failed_property(name, &written_type, v, files)
                    }
                    _ => None,
                };
                let (error, property) = match validated {
                    Some((property, error)) => (error, Some(property)),
                    None => (e, None),
                };
                Unbuilt {
                    error,
                    path: format!("resources.{name}.{key}"),
                    name: name.to_string(),
                    refs,
                    property,
                }
            })?;
            if key != "update_policy" {
                requires.extend(scope.refs.take());
            }
            attributes.append(&mut scope.attributes.borrow_mut());
            for w in scope.warnings.borrow().iter() {
                warnings.push(
                    Diagnostic::new(codes::HOT_WARNING, format!("resources.{name}.{key}: {w}"))
                        .with_subject(RESOURCE, name),
                );
            }
            sections.push((key, out.value));
        }
        let deletion_policy = match d.deletion_policy.filter(|v| !v.is_null()) {
            None => "Delete",
            Some(v) => {
                let scope = self.scope(files);
                let out = scope
                    .resolve(v)
                    .map_err(|e| Unbuilt::from((e, format!("resources.{name}.deletion_policy"))))?;
                let text = out.value.py_str();
                let newton = self.t.version >= Version::V20161014;
                match text.as_str() {
                    "Delete" => "Delete",
                    "Retain" => "Retain",
                    "Snapshot" => "Snapshot",
                    "delete" if newton => "Delete",
                    "retain" if newton => "Retain",
                    "snapshot" if newton => "Snapshot",
                    _ => {
                        return Err(Unbuilt::from((
                            FnError {
                                code: codes::HOT_VALIDATION,
                                message: format!("Invalid deletion policy \"{text}\""),
                                phase: Phase::Parse,
                            },
                            format!("resources.{name}.deletion_policy"),
                        )))
                    }
                }
            }
        };
        // Heat's ResourceDefinition: an adopted resource (`external_id`) is
        // always kept, whatever policy was written.
        let deletion_policy = match d.external_id.filter(|v| !v.is_null()) {
            Some(_) => "Retain",
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
            description: d.description.filter(|v| !v.is_null()).cloned(),
            requires,
            explicit,
            attributes,
        })
    }

    /// With `--nested`, for a resource whose properties Heat's own plugin
    /// validates (a provider template or a group): the first property, in
    /// Heat's order, whose value fails to resolve at run time, and its
    /// error.
    fn failed_property(
        &self,
        name: &str,
        written_type: &str,
        props: &Value,
        files: &dyn Fn(&str) -> FileRead,
    ) -> Option<(String, FnError)> {
        if !self.input.nested {
            return None;
        }
        let props = props.as_map()?;
        let t = env::resolve_type(&self.env.registry, name, written_type);
        let keys = nested::validated_properties(&t, props)?;
        keys.iter().find_map(|k| {
            let e = self.scope(files).resolve(props.get(k)?).err()?;
            (e.phase == Phase::Run).then(|| (k.py_str(), e))
        })
    }

    /// Output `name` resolved; what its value references goes to `met`.
    fn output(
        &self,
        name: &str,
        def: &Value,
        files: &dyn Fn(&str) -> FileRead,
        met: &mut OutputRefs,
    ) -> Built<Map> {
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
            let scope = self.scope(files);
            let value = scope
                .resolve(m.get("value").unwrap_or(&Value::Null))
                .map_err(|e| (e, format!("{path}.value")))?
                .value;
            met.attributes = scope.attributes.take();
            met.refs = scope.refs.take();
            value
        } else {
            Value::Null
        };
        out.insert("value".into(), value);
        if let Some(d) = m.get("description").filter(|v| !v.is_null()) {
            out.insert("description".into(), d.clone());
        }
        Ok(out)
    }
}

/// Finds the first reference to a resource `exists` does not know, as
/// Heat's implicit dependencies meet it (see [`MissingRefs::first`]).
struct MissingRefs<'e> {
    version: Version,
    exists: &'e dyn Fn(&str) -> bool,
}

impl MissingRefs<'_> {
    /// The first unknown resource referred to in `v` (at `path`), and
    /// where: map values and list items in order; a function's own
    /// resource first (Heat looks `get_resource` and `get_attr` up before
    /// their arguments, and a `get_resource` given as `get_attr`'s resource
    /// fails "in unknown"), then its arguments under `<path>.<function>`.
    /// The path as Heat writes it (`server.Properties.networks[0].port`).
    /// `if` is not followed (which branch Heat reads depends on its
    /// condition): its references are named without a path.
    fn first(&self, v: &Value, path: &str) -> Option<(String, String)> {
        let call = super::functions::call(v)
            .filter(|(f, _)| super::functions::is_function(self.version, f));
        let Some((f, args)) = call else {
            return self.first_inside(v, path);
        };
        let own = match f {
            "if" => return None,
            "get_resource" => Some(args),
            "get_attr" => args.as_list().and_then(|l| l.first()),
            _ => None,
        };
        let missing = |t: &Value| t.as_str().filter(|n| !(self.exists)(n)).map(str::to_string);
        if let Some(t) = own {
            if let Some(n) = missing(t) {
                return Some((n, path.to_string()));
            }
            if let Some(("get_resource", inner)) = super::functions::call(t) {
                if let Some(n) = missing(inner) {
                    return Some((n, "unknown".to_string()));
                }
            }
        }
        self.first_inside(args, &format!("{path}.{f}"))
    }

    /// [`MissingRefs::first`] over the items of a map (`.key`) or list (`[i]`).
    fn first_inside(&self, v: &Value, path: &str) -> Option<(String, String)> {
        match v {
            Value::Map(m) => m
                .iter()
                .find_map(|(k, x)| self.first(x, &format!("{path}.{}", k.py_str()))),
            Value::List(l) => l
                .iter()
                .enumerate()
                .find_map(|(i, x)| self.first(x, &format!("{path}[{i}]"))),
            _ => None,
        }
    }
}

/// The resources `v` names with `get_resource` or `get_attr` (a literal
/// name), as Heat's dependency walk finds them without resolving anything;
/// the branches of `if` are left to the resolver, which picks one.
fn named_resources(v: &Value, out: &mut BTreeSet<String>) {
    if let Some((f, args)) = super::functions::call(v) {
        match f {
            "if" => return,
            "get_resource" => {
                if let Some(n) = args.as_str() {
                    out.insert(n.to_string());
                }
            }
            "get_attr" | "Fn::GetAtt" => {
                if let Some(n) = args
                    .as_list()
                    .and_then(|l| l.first())
                    .and_then(Value::as_str)
                {
                    out.insert(n.to_string());
                }
            }
            _ => {}
        }
    }
    match v {
        Value::Map(m) => m.values().for_each(|x| named_resources(x, out)),
        Value::List(l) => l.iter().for_each(|x| named_resources(x, out)),
        _ => {}
    }
}
