//! `--nested`: the tree of stacks. A resource that is a stack — a provider
//! template (a registry mapping to a template, or a type that is a template
//! path), `OS::Heat::ResourceGroup`, `OS::Heat::AutoScalingGroup`,
//! `OS::Heat::Stack` — is compiled as its own stack, built the way Heat
//! builds the child (`TemplateResource.child_params`,
//! `ResourceGroup._assemble_nested` with its name skiplist and generated
//! outputs, the scaling group's member template,
//! `get_child_environment`), to Heat's depth limit. A value the parent has
//! only once its resources exist (`get_resource`/`get_attr`, or a function
//! over them) is `deferred`: kept as the parent's expression.

use super::{run_stack, Output, Resource, Stack};
use crate::diag::{codes, Diagnostic, SourceFile};
use crate::hot::env::{Environment, ResolvedType};
use crate::hot::functions::{call, SYMBOLIC};
use crate::hot::params::Type;
use crate::hot::template::{self, Template, Version};
use crate::hot::Input;
use crate::value::{List, Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Heat's `max_nested_stack_depth`.
const MAX_DEPTH: usize = 5;

/// Where one stack sits in the tree of a `--nested` compile.
#[derive(Debug, Clone, Default)]
pub(super) struct Level {
    /// Parameters whose value is the parent's expression.
    pub(super) deferred: Map,
    /// 0 for the root.
    pub(super) depth: usize,
    /// The generated template of a group: `{from_parent: ...}` is opaque.
    pub(super) generated: bool,
    /// Resources the whole tree may still create (the `hot-resources`
    /// limit), shared by every level.
    budget: Option<Arc<AtomicUsize>>,
    /// Provider templates read and parsed so far, by path, shared by every
    /// level: a group of N members of one template reads it once.
    templates: Arc<Mutex<HashMap<String, Arc<Template>>>>,
    /// The errors of this stack's nested stacks after the first one (which
    /// is the stack's error): Heat stops at one, lowstate reports them all.
    errors: Arc<Mutex<Vec<Diagnostic>>>,
}

/// At most this many errors of nested stacks are kept beside the first.
const MORE_ERRORS: usize = 50;

impl Level {
    /// The root stack.
    pub(super) fn root() -> Level {
        Level::default()
    }

    /// The errors of nested stacks kept beside the stack's first one.
    pub(super) fn more_errors(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut *self.errors.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Keep `d` beside the first error, unless one at the same place (a
    /// group's members share their definition) is kept already.
    fn keep_error(&self, d: Diagnostic) {
        let mut kept = self.errors.lock().unwrap_or_else(|e| e.into_inner());
        let place = |d: &Diagnostic| {
            d.primary
                .as_ref()
                .map(|l| (l.file.name.clone(), l.range.clone()))
        };
        let seen = kept.iter().any(|k| {
            k.code == d.code
                && match (place(k), place(&d)) {
                    (Some(a), Some(b)) => a == b,
                    (None, None) => k.message == d.message,
                    _ => false,
                }
        });
        if !seen && kept.len() < MORE_ERRORS {
            kept.push(d);
        }
    }

    /// Keep template `t`, read at `path` before the expansion.
    pub(super) fn seed(&self, path: String, t: Arc<Template>) {
        self.templates
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(path)
            .or_insert(t);
    }

    /// The provider templates the tree read, by path.
    pub(super) fn templates_read(&self) -> HashMap<String, Arc<Template>> {
        self.templates
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// What makes a value deferred: a reference to a resource of an enclosing
/// stack (a `get_param` left symbolic is a deferred parameter).
const REFS: &[&str] = &[
    "get_resource",
    "get_attr",
    "get_param",
    "Ref",
    "Fn::GetAtt",
    "from_parent",
];

/// Whether [`Stack::expand`] makes `r` a nested stack.
fn is_stack(r: &Resource) -> bool {
    r.resolved.template.is_some() || is_group(r) || r.resolved.resolved == "OS::Heat::Stack"
}

/// Whether `r` is a group Heat expands into members (a type no registry
/// entry maps to a template).
pub(super) fn is_group(r: &Resource) -> bool {
    is_group_type(&r.resolved)
}

/// Whether resolved type `t` is a group (see [`is_group`]).
fn is_group_type(t: &ResolvedType) -> bool {
    t.template.is_none()
        && matches!(
            t.resolved.as_str(),
            "OS::Heat::ResourceGroup" | "OS::Heat::AutoScalingGroup"
        )
}

/// The properties Heat's own plugin validates, in the order it does, when
/// the stack is expanded: those of a provider template or a group (not of
/// `OS::Heat::Stack`, whose parameters reach the child as they are). A
/// property whose value fails to resolve is then Heat's `Property error:
/// resources.<name>.properties.<key>`, the first such key in this order:
/// a group's `properties_schema` order, then the others as written
/// (a provider template's as written: Heat's order is its parameters').
pub(super) fn validated_properties(t: &ResolvedType, props: &Map) -> Option<Vec<Value>> {
    if t.template.is_none() && !is_group_type(t) {
        return None;
    }
    let schema: &[&str] = match t.resolved.as_str() {
        _ if t.template.is_some() => &[],
        "OS::Heat::ResourceGroup" => &[
            "count",
            "index_var",
            "resource_def",
            "removal_policies",
            "removal_policies_mode",
        ],
        _ => &[
            "resource",
            "max_size",
            "min_size",
            "cooldown",
            "desired_capacity",
            "rolling_updates",
        ],
    };
    let in_schema = |k: &Value| k.as_str().is_some_and(|k| schema.contains(&k));
    let keys = schema
        .iter()
        .map(|&k| Value::str(k))
        .filter(|k| props.contains_key(k))
        .chain(props.keys().filter(|k| !in_schema(k)).cloned())
        .collect();
    Some(keys)
}

/// Whether a resolved value holds a reference (it is then deferred).
fn has_ref(v: &Value) -> bool {
    if let Some((name, arg)) = call(v) {
        if REFS.contains(&name) {
            return true;
        }
        if SYMBOLIC.contains(&name) {
            return has_ref(arg);
        }
    }
    match v {
        Value::Map(m) => m.iter().any(|(_, x)| has_ref(x)),
        Value::List(l) => l.iter().any(has_ref),
        _ => false,
    }
}

/// A group member's value: every function holding a reference becomes
/// `{from_parent: expr}`, nulls inside maps and lists are dropped (Heat's
/// `ignore_param_resolve`), `index_var` is replaced in every string.
fn member_value(v: &Value, var: &str, name: &str) -> Value {
    if let Some((f, _)) = call(v) {
        if SYMBOLIC.contains(&f) && has_ref(v) {
            let expr = if f == "from_parent" {
                v.clone()
            } else {
                return func("from_parent", replace_index(v, var, name));
            };
            return replace_index(&expr, var, name);
        }
    }
    match v {
        Value::Map(m) => {
            // Keys of a map: distinct.
            let mut out = Map::with_capacity(m.len());
            for (k, x) in m.iter().filter(|(_, x)| !x.is_null()) {
                out.push_distinct(k.clone(), member_value(x, var, name));
            }
            Value::Map(out)
        }
        Value::List(l) => Value::List(
            l.iter()
                .filter(|x| !x.is_null())
                .map(|x| member_value(x, var, name))
                .collect(),
        ),
        Value::Str(s) if !var.is_empty() => Value::str(s.replace(var, name)),
        other => other.clone(),
    }
}

/// `index_var` replaced in every string value (keys untouched).
fn replace_index(v: &Value, var: &str, name: &str) -> Value {
    match v {
        Value::Str(s) if !var.is_empty() => Value::str(s.replace(var, name)),
        Value::Map(m) => {
            let mut out = Map::with_capacity(m.len());
            for (k, x) in m {
                out.push_distinct(k.clone(), replace_index(x, var, name));
            }
            Value::Map(out)
        }
        Value::List(l) => Value::List(l.iter().map(|x| replace_index(x, var, name)).collect()),
        other => other.clone(),
    }
}

/// `{name: args}`.
fn func(name: &str, args: Value) -> Value {
    let mut m = Map::with_capacity(1);
    m.push_distinct(Value::str(name), args);
    Value::Map(m)
}

/// Python's `str()` of a removal-policy entry.
fn py_name(v: &Value) -> String {
    v.py_str()
}

/// A nested stack's view, its plan (when asked for), warnings and hidden
/// values.
pub(super) type Expanded = (
    Value,
    Option<crate::plan::Plan>,
    Vec<Diagnostic>,
    Vec<String>,
);

/// A child stack to compile: its template, the parameters the parent
/// passes, the deferred ones, and the label of its template.
struct Child {
    template: Arc<Template>,
    parameters: Map,
    deferred: Map,
    label: Option<String>,
    generated: bool,
}

/// A stack with this many nested stacks (a group's members) expands them
/// side by side; fewer are expanded one after the other.
const SIDE_BY_SIDE_AT: usize = 8;

impl Stack<'_> {
    /// The nested views of `resources` (see [`Stack::expand`]) in `order`,
    /// the first error in that order as the error. Many are expanded side
    /// by side; if any of them fails, all are expanded again one after the
    /// other, from the same resource budget, so that the error is the one
    /// the sequential order meets (the budget runs out at the same
    /// resource).
    pub(super) fn expand_all(
        &self,
        resources: &[Resource],
        order: &[usize],
        referenced: &[Vec<Value>],
    ) -> Result<Vec<Option<Expanded>>, Diagnostic> {
        if !self.input.nested {
            return Ok(order.iter().map(|_| None).collect());
        }
        let stacks = order.iter().filter(|&&i| is_stack(&resources[i])).count();
        if stacks >= SIDE_BY_SIDE_AT {
            use rayon::prelude::*;
            let before = self
                .level
                .budget
                .as_ref()
                .map(|b| b.load(Ordering::Relaxed));
            let side_by_side: Result<Vec<_>, _> = order
                .par_iter()
                .map(|&i| self.expand(&resources[i], referenced))
                .collect();
            if side_by_side.is_ok() {
                return side_by_side;
            }
            if let (Some(budget), Some(left)) = (&self.level.budget, before) {
                budget.store(left, Ordering::Relaxed);
            }
        }
        // The first error is the stack's; the ones after it are kept
        // beside it (Heat stops at one, which one depends on its Python
        // set order), unless the tree ran out of its resource budget.
        let mut out = Vec::with_capacity(order.len());
        let mut first: Option<Diagnostic> = None;
        for &i in order {
            match self.expand(&resources[i], referenced) {
                Ok(view) => out.push(view),
                Err(d) => {
                    let budget = d.code == codes::HOT_TOO_MANY_RESOURCES;
                    match first {
                        None => first = Some(d),
                        Some(_) => self.level.keep_error(d),
                    }
                    if budget {
                        break;
                    }
                }
            }
        }
        match first {
            Some(d) => Err(d),
            None => Ok(out),
        }
    }

    /// The `nested` view of `r`, if it is a stack: `{template, parameters,
    /// resources, waves, outputs}`; its warnings and hidden values join
    /// the parent's. `referenced` is every `get_attr` argument list of the
    /// parent stack (for a group's generated outputs).
    pub(super) fn expand(
        &self,
        r: &Resource,
        referenced: &[Vec<Value>],
    ) -> Result<Option<Expanded>, Diagnostic> {
        let mut child = if let Some(path) = &r.resolved.template {
            self.provider(r, path)?
        } else {
            match r.resolved.resolved.as_str() {
                "OS::Heat::ResourceGroup" => self.resource_group(r, referenced)?,
                "OS::Heat::AutoScalingGroup" => self.scaling_group(r, referenced)?,
                "OS::Heat::Stack" => self.remote_stack(r)?,
                _ => return Ok(None),
            }
        };
        let segment = format!(
            "resources.{}<{}>",
            r.name,
            child.label.as_deref().unwrap_or("nested_stack")
        );
        let depth = self.level.depth + 1;
        if depth > MAX_DEPTH {
            return Err(self.resource_error(codes::HOT_VALIDATION, format!(
                    "RequestLimitExceeded: {segment}: Request limit exceeded: Recursion depth exceeds {MAX_DEPTH}."
                ), &r.name));
        }
        let budget = self
            .level
            .budget
            .clone()
            .unwrap_or_else(|| Arc::new(AtomicUsize::new(self.input.limits.hot_resources)));
        let n = child
            .template
            .section("resources")
            .and_then(Value::as_map)
            .map_or(0, |m| m.len());
        self.spend(&budget, n, r)?;
        let environment = self.child_environment(r, &mut child);
        let level = Level {
            deferred: std::mem::take(&mut child.deferred),
            depth,
            generated: child.generated,
            budget: Some(budget),
            templates: self.level.templates.clone(),
            errors: Default::default(),
        };
        // Heat names a child stack after its parent and the resource; its
        // id exists only once it is created (Heat's offline stack: None).
        let context = crate::hot::Context {
            stack_name: format!("{}-{}", self.input.context.stack_name, r.name),
            stack_id: "None".into(),
            project_id: self.input.context.project_id.clone(),
        };
        let input = Input {
            template: Some(child.template.file.clone()),
            files_dir: self.files_dir.clone(),
            context,
            ..self.input.clone()
        };
        // A group's generated template has no text: its errors point at
        // the group's member definition.
        let def = match r.resolved.resolved.as_str() {
            "OS::Heat::ResourceGroup" => "resource_def",
            _ => "resource",
        };
        let at = self
            .at(&["resources", &r.name, "properties", def])
            .or_else(|| self.at(&["resources", &r.name]));
        let located = |d: Diagnostic| {
            wrap(d, &segment).or_primary(
                at.clone()
                    .map(|(f, range)| crate::diag::Label::new(f, range, "here")),
            )
        };
        let run = run_stack(&input, &child.template, &environment, &level);
        for d in level.more_errors() {
            self.level.keep_error(located(d));
        }
        let (doc, plan, warnings, secrets): Output = run.map_err(located)?;
        if let Some(path) = &r.resolved.template {
            self.check_facade(r, path)?;
        }
        let mut view = Map::with_capacity(5);
        view.push_distinct(
            "template".into(),
            child.label.map_or(Value::Null, Value::str),
        );
        // Moved, not copied: a deep tree would copy each subtree per level.
        let mut doc = match doc {
            Value::Map(m) => m,
            _ => Map::new(),
        };
        for key in ["parameters", "resources", "waves", "outputs"] {
            view.push_distinct(
                Value::str(key),
                doc.shift_remove(key).unwrap_or(Value::Null),
            );
        }
        Ok(Some((Value::Map(view), plan, warnings, secrets)))
    }

    /// The parsed provider templates (a poisoned lock still holds them).
    fn templates(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Template>>> {
        self.level
            .templates
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    fn spend(&self, budget: &AtomicUsize, n: usize, r: &Resource) -> Result<(), Diagnostic> {
        let left = budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
            left.checked_sub(n)
        });
        if left.is_err() {
            return Err(self.resource_error(codes::HOT_TOO_MANY_RESOURCES, format!(
                    "resources.{}: the nested stacks would hold more than {} resources in all (the hot-resources limit; raise it with --limit hot-resources=N)",
                    r.name, self.input.limits.hot_resources
                ), &r.name));
        }
        Ok(())
    }

    /// Heat's `get_child_environment`: the parent's registry without the
    /// mapping that led here, its `resources` section narrowed to this
    /// resource's entries; the root's `parameter_defaults`; the child's
    /// parameters.
    fn child_environment(&self, r: &Resource, child: &mut Child) -> Environment {
        let mut registry = self.env.registry.clone();
        if r.resolved.template.is_some() {
            let specific = registry
                .get("resources")
                .and_then(|x| x.get(r.name.as_str()))
                .and_then(|x| x.get(r.written_type.as_str()))
                .is_some();
            if specific {
                if let Some(Value::Map(res)) = registry.get_mut("resources") {
                    if let Some(Value::Map(mine)) = res.get_mut(r.name.as_str()) {
                        mine.shift_remove(r.written_type.as_str());
                    }
                }
            } else {
                registry.shift_remove(r.resolved.resolved.as_str());
            }
        }
        let mut narrowed = Map::new();
        if let Some(Value::Map(res)) = registry.get("resources") {
            for (k, v) in res {
                let key = k.py_str();
                if key != r.name && crate::fnmatch::fnmatch(&r.name, &key) {
                    if let Value::Map(m) = v {
                        narrowed.extend(m.iter().map(|(a, b)| (a.clone(), b.clone())));
                    }
                }
            }
            if let Some(Value::Map(m)) = res.get(r.name.as_str()) {
                narrowed.extend(m.iter().map(|(a, b)| (a.clone(), b.clone())));
            }
        }
        registry.insert("resources".into(), Value::Map(narrowed));
        Environment {
            parameters: std::mem::take(&mut child.parameters),
            parameter_defaults: self.env.parameter_defaults.clone(),
            registry,
            event_sinks: Vec::new(),
            notes: Vec::new(),
        }
    }

    fn properties<'r>(&self, r: &'r Resource) -> Option<&'r Map> {
        r.sections
            .iter()
            .find(|(k, _)| *k == "properties")
            .and_then(|(_, v)| v.as_map())
    }

    fn property_error(&self, r: &Resource, path: &str, message: String) -> Diagnostic {
        self.resource_error(
            codes::HOT_VALIDATION,
            format!(
                "Property error: resources.{}.properties{path}: {message}",
                r.name
            ),
            &r.name,
        )
    }

    /// A provider template: read inside the files directory, its
    /// parameters are the resource's properties (Heat's `child_params`).
    fn provider(&self, r: &Resource, path: &str) -> Result<Child, Diagnostic> {
        let t = self.provider_template(r, path)?;
        self.provider_child(r, path, t)
    }

    /// The provider template at `path`, read and parsed once per tree.
    fn provider_template(&self, r: &Resource, path: &str) -> Result<Arc<Template>, Diagnostic> {
        if let Some(t) = self.templates().get(path) {
            return Ok(t.clone());
        }
        let text = self.read_file(path).map_err(|why| {
            let heat = format!("Could not fetch remote template \"{path}\": Invalid URL scheme ");
            self.resource_error(
                codes::HOT_VALIDATION,
                match why {
                    Some(why) => format!("{heat}(lowstate refused it: {why})"),
                    None => heat,
                },
                &r.name,
            )
        })?;
        let file = SourceFile::new(path.to_string(), text);
        let t = Arc::new(self.parse_child(&file)?);
        // Members expanded side by side may both have parsed it: the
        // first one kept is the one every member uses.
        let kept = self
            .templates()
            .entry(path.to_string())
            .or_insert(t)
            .clone();
        Ok(kept)
    }

    /// (name, type, has a default): the property schema of provider
    /// template `t`, in its order. A `parameter_defaults` value of this
    /// stack's environment is the parameter's default there (Heat's
    /// `param_schemata(param_defaults)`), so such a property is not
    /// required.
    fn provider_schema(&self, t: &Template) -> Vec<(String, Option<Type>, bool)> {
        let pd = &self.env.parameter_defaults;
        t.section("parameters")
            .and_then(Value::as_map)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| {
                        let name = k.py_str();
                        let has_default = match pd.get(name.as_str()) {
                            Some(d) => !d.is_null(),
                            None => v.get("default").is_some_and(|d| !d.is_null()),
                        };
                        (
                            name,
                            v.get("type").and_then(Value::as_str).and_then(Type::parse),
                            has_default,
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Heat's check of a provider template against its facade (after the
    /// child stack validated): when the registry, without the entry that
    /// led to `path`, maps the resource's type to another template, that
    /// template's required properties must be the provider's, of the same
    /// types, the provider's required ones must be the facade's, and every
    /// attribute (output) of the facade must be the provider's. A facade
    /// that is a plugin is not checked (the offline engine's stand-in for
    /// it has no schema).
    fn check_facade(&self, r: &Resource, path: &str) -> Result<(), Diagnostic> {
        let Some(facade) =
            crate::hot::env::facade_template(&self.env.registry, &r.name, &r.written_type)
        else {
            return Ok(());
        };
        let (Ok(f), Ok(p)) = (
            self.provider_template(r, &facade),
            self.provider_template(r, path),
        ) else {
            return Ok(());
        };
        let ty = &r.written_type;
        let fail =
            |message: String| Err(self.resource_error(codes::HOT_VALIDATION, message, &r.name));
        let (fs, ps) = (self.provider_schema(&f), self.provider_schema(&p));
        // Heat's property type names.
        let word = |t: &Option<Type>| match t {
            Some(Type::Number) => "Number",
            Some(Type::List) => "List",
            Some(Type::Json) => "Map",
            Some(Type::Boolean) => "Boolean",
            _ => "String",
        };
        for (n, ft, f_default) in &fs {
            match ps.iter().find(|(m, _, _)| m == n) {
                None if !f_default => {
                    return fail(format!(
                        "Required property {n} for facade {ty} missing in provider"
                    ))
                }
                Some((_, pt, _)) if word(ft) != word(pt) => {
                    return fail(format!(
                        "Property {n} type mismatch between facade {ty} ({}) and provider ({})",
                        word(ft),
                        word(pt)
                    ))
                }
                _ => {}
            }
        }
        for (n, _, p_default) in &ps {
            if !p_default && !fs.iter().any(|(m, _, _)| m == n) {
                return fail(format!(
                    "Provider requires property {n} unknown in facade {ty}"
                ));
            }
        }
        let outputs = |t: &Template| -> Vec<String> {
            t.section("outputs")
                .and_then(Value::as_map)
                .map(|m| m.keys().map(Value::py_str).collect())
                .unwrap_or_default()
        };
        let provided = outputs(&p);
        for a in outputs(&f) {
            if !provided.contains(&a) {
                return fail(format!("Attribute {a} for facade {ty} missing in provider"));
            }
        }
        Ok(())
    }

    /// A provider template's child stack: its parameters are the
    /// resource's properties (Heat's `child_params`).
    fn provider_child(
        &self,
        r: &Resource,
        path: &str,
        t: Arc<Template>,
    ) -> Result<Child, Diagnostic> {
        let declared = self.provider_schema(&t);
        let empty = Map::new();
        let props = self.properties(r).unwrap_or(&empty);
        let names: std::collections::HashSet<&str> =
            declared.iter().map(|(n, _, _)| n.as_str()).collect();
        for (k, _) in props {
            let k = k.py_str();
            if !names.contains(k.as_str()) {
                return Err(self.property_error(r, "", format!("Unknown Property {k}")));
            }
        }
        for (name, ty, has_default) in &declared {
            let given = props.get(name.as_str()).filter(|v| !v.is_null());
            match given {
                None if !has_default => {
                    return Err(self.property_error(r, "", format!("Property {name} not assigned")))
                }
                // Heat's boolean property takes true/false only.
                Some(Value::Str(s))
                    if *ty == Some(Type::Boolean)
                        && !matches!(s.to_ascii_lowercase().as_str(), "true" | "false") =>
                {
                    return Err(self.property_error(
                        r,
                        &format!(".{name}"),
                        format!("\"{s}\" is not a valid boolean"),
                    ))
                }
                _ => {}
            }
        }
        let mut parameters = Map::new();
        let mut deferred = Map::new();
        for (name, ty, _) in &declared {
            let Some(v) = props.get(name.as_str()).filter(|v| !v.is_null()) else {
                continue;
            };
            if has_ref(v) {
                deferred.insert(Value::str(name.as_str()), v.clone());
                continue;
            }
            let v = match (ty, v) {
                (Some(Type::List), Value::List(items)) => Value::str(list_param(items)),
                _ => v.clone(),
            };
            parameters.insert(Value::str(name.as_str()), v);
        }
        Ok(Child {
            template: t,
            parameters,
            deferred,
            label: Some(path.to_string()),
            generated: false,
        })
    }

    fn parse_child(&self, file: &std::sync::Arc<SourceFile>) -> Result<Template, Diagnostic> {
        template::parse(file, self.input.max_template_size, &self.input.limits).map_err(|(d, _)| d)
    }

    /// An integer property of a group (Heat's INTEGER schema).
    fn integer(
        &self,
        r: &Resource,
        key: &str,
        default: Option<i64>,
    ) -> Result<Option<i64>, Diagnostic> {
        let v = self
            .properties(r)
            .and_then(|p| p.get(key))
            .filter(|v| !v.is_null());
        let Some(v) = v else {
            return Ok(default);
        };
        let n = match v {
            Value::Int(i) => Some(*i),
            Value::Bool(_) => None,
            Value::Str(s) => s.trim().parse::<i64>().ok(),
            Value::Float(f) if f.fract() == 0.0 => Some(*f as i64),
            _ => None,
        };
        match n {
            Some(n) => Ok(Some(n)),
            None if has_ref(v) => Ok(default),
            None => Err(self.property_error(
                r,
                &format!(".{key}"),
                format!("Value '{}' is not an integer", v.py_str()),
            )),
        }
    }

    /// `OS::Heat::ResourceGroup`: `count` members named `0`, `1`, ...
    /// (skipping removal_policies' names), `index_var` replaced, and the
    /// outputs Heat generates for the attributes the parent reads.
    fn resource_group(&self, r: &Resource, referenced: &[Vec<Value>]) -> Result<Child, Diagnostic> {
        let count = self.integer(r, "count", Some(1))?.unwrap_or(1);
        if count < 0 {
            return Err(self.property_error(
                r,
                ".count",
                format!("{count} is out of range (min: 0, max: None)"),
            ));
        }
        let none = Map::new();
        let props = self.properties(r).unwrap_or(&none);
        let var = match props.get("index_var").filter(|v| !v.is_null()) {
            None => "%index%".to_string(),
            Some(v) => v.py_str(),
        };
        if var.chars().count() < 3 {
            return Err(self.property_error(
                r,
                ".index_var",
                format!(
                    "length ({}) is out of range (min: 3, max: None)",
                    var.chars().count()
                ),
            ));
        }
        let Some(def) = props.get("resource_def").and_then(Value::as_map) else {
            return Err(self.property_error(r, "", "Property resource_def not assigned".into()));
        };
        let skip: Vec<String> = props
            .get("removal_policies")
            .and_then(Value::as_list)
            .into_iter()
            .flatten()
            .filter_map(|p| p.get("resource_list").and_then(Value::as_list))
            .flatten()
            .map(py_name)
            .collect();
        self.check_count(r, count)?;
        let skip: std::collections::HashSet<String> = skip.into_iter().collect();
        let names: Vec<String> = (0..)
            .map(|i: u64| i.to_string())
            .filter(|n| !skip.contains(n))
            .take(count as usize)
            .collect();
        // Heat's ResourceGroup.validate looks the member type up before
        // any member exists: its refusal carries no nested path.
        if let Some(first) = names.first() {
            let written = def.get("type").map(Value::py_str).unwrap_or_default();
            let t = crate::hot::env::resolve_type(&self.env.registry, first, &written);
            let at = ["resources", &r.name, "properties", "resource_def", "type"];
            if let Some(d) = self.unknown_type(&r.name, &t, &at) {
                return Err(d);
            }
        }
        // The names are distinct.
        let mut resources = Map::with_capacity(names.len());
        for name in &names {
            resources.push_distinct(Value::str(name.as_str()), self.member(def, &var, name));
        }
        let mut outputs = Map::new();
        for attr in referenced
            .iter()
            .filter(|a| a.first().and_then(Value::as_str) == Some(r.name.as_str()))
        {
            let key = attr.get(1).map(Value::py_str).unwrap_or_default();
            let path: Vec<Value> = attr.iter().skip(2).cloned().collect();
            let mut out_name = if key == "refs" {
                "refs".to_string()
            } else {
                std::iter::once(key.clone())
                    .chain(path.iter().map(Value::py_str))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let get_attr = |member: &str, rest: &[Value]| {
                let mut args = List::new();
                args.push(Value::str(member));
                args.extend(rest.iter().cloned());
                func("get_attr", Value::List(args))
            };
            let mut value = None;
            if let Some(rest) = key.strip_prefix("resource.") {
                let mut parts = rest.splitn(2, '.');
                let member = parts.next().unwrap_or_default();
                let mut attr_path: Vec<Value> = parts.map(Value::str).collect();
                attr_path.extend(path.iter().cloned());
                if attr_path.is_empty() {
                    out_name = "refs_map".into();
                } else if names.iter().any(|n| n == member) {
                    value = Some(get_attr(member, &attr_path));
                }
            } else if key == "attributes" && !path.is_empty() {
                value = Some(Value::Map(
                    names
                        .iter()
                        .map(|n| (Value::str(n.as_str()), get_attr(n, &path)))
                        .collect(),
                ));
            } else if !["refs", "refs_map", "attributes", "removed_rsrc_list"]
                .contains(&key.as_str())
            {
                let mut full = vec![Value::str(key.as_str())];
                full.extend(path.iter().cloned());
                value = Some(Value::List(
                    names.iter().map(|n| get_attr(n, &full)).collect(),
                ));
            }
            if key == "refs" {
                value = Some(Value::List(
                    names
                        .iter()
                        .map(|n| func("get_resource", Value::str(n.as_str())))
                        .collect(),
                ));
            }
            if let Some(v) = value {
                outputs.insert(Value::str(out_name), output(v));
            }
        }
        outputs.insert("refs_map".into(), output(refs_map(&names)));
        self.generated(r, resources, outputs)
    }

    /// `OS::Heat::AutoScalingGroup`: `desired_capacity` (else `min_size`)
    /// members `member-0`, `member-1`, ... (Heat: random short ids).
    fn scaling_group(&self, r: &Resource, referenced: &[Vec<Value>]) -> Result<Child, Diagnostic> {
        let min = self.integer(r, "min_size", None)?.unwrap_or(0);
        let count = self.integer(r, "desired_capacity", None)?.unwrap_or(min);
        if count < 0 {
            return Err(self.property_error(
                r,
                ".desired_capacity",
                format!("{count} is out of range (min: 0, max: None)"),
            ));
        }
        self.check_count(r, count)?;
        let none = Map::new();
        let props = self.properties(r).unwrap_or(&none);
        let Some(def) = props.get("resource").and_then(Value::as_map) else {
            return Err(self.property_error(r, "", "Property resource not assigned".into()));
        };
        let names: Vec<String> = (0..count).map(|i| format!("member-{i}")).collect();
        let mut resources = Map::with_capacity(names.len());
        for name in &names {
            resources.push_distinct(Value::str(name.as_str()), self.member(def, "", name));
        }
        let mut outputs = Map::new();
        for attr in referenced
            .iter()
            .filter(|a| a.first().and_then(Value::as_str) == Some(r.name.as_str()))
        {
            let mut key = attr.get(1).map(Value::py_str).unwrap_or_default();
            let mut path: Vec<Value> = attr.iter().skip(2).cloned().collect();
            if key == "outputs_list" {
                key = "outputs".into();
            }
            if let Some(rest) = key.clone().strip_prefix("resource.") {
                let mut parts = rest.splitn(2, '.');
                parts.next();
                let mut p: Vec<Value> = parts.map(Value::str).collect();
                p.extend(path);
                path = p;
                if !path.is_empty() {
                    key = "outputs".into();
                }
            }
            if key == "outputs" && !path.is_empty() {
                let name = std::iter::once(key.clone())
                    .chain(path.iter().map(Value::py_str))
                    .collect::<Vec<_>>()
                    .join(", ");
                let value = Value::Map(
                    names
                        .iter()
                        .map(|n| {
                            let mut args = List::new();
                            args.push(Value::str(n.as_str()));
                            args.extend(path.iter().cloned());
                            (Value::str(n.as_str()), func("get_attr", Value::List(args)))
                        })
                        .collect(),
                );
                outputs.insert(Value::str(name), output(value));
            }
        }
        outputs.insert("refs_map".into(), output(refs_map(&names)));
        self.generated(r, resources, outputs)
    }

    fn check_count(&self, r: &Resource, count: i64) -> Result<(), Diagnostic> {
        let limit = self.input.limits.hot_resources;
        if count as u64 > limit as u64 {
            return Err(self.resource_error(codes::HOT_TOO_MANY_RESOURCES, format!(
                    "resources.{}: a group of {count} members is more than the hot-resources limit ({limit}); raise it with --limit hot-resources=N",
                    r.name
                ), &r.name));
        }
        Ok(())
    }

    /// One member definition of a group.
    fn member(&self, def: &Map, var: &str, name: &str) -> Value {
        let mut m = Map::with_capacity(3);
        m.push_distinct(
            "type".into(),
            def.get("type").cloned().unwrap_or(Value::Null),
        );
        if let Some(p) = def.get("properties").filter(|v| !v.is_null()) {
            m.push_distinct("properties".into(), member_value(p, var, name));
        }
        if let Some(p) = def.get("metadata").filter(|v| !v.is_null()) {
            m.push_distinct("metadata".into(), p.clone());
        }
        Value::Map(m)
    }

    /// The template Heat generates for a group's members (2015-04-30).
    fn generated(&self, r: &Resource, resources: Map, outputs: Map) -> Result<Child, Diagnostic> {
        let mut data = Map::with_capacity(3);
        data.push_distinct("heat_template_version".into(), Value::str("2015-04-30"));
        data.push_distinct("resources".into(), Value::Map(resources));
        data.push_distinct("outputs".into(), Value::Map(outputs));
        let name = format!("{}<nested_stack>", r.name);
        let file = SourceFile::new(name, String::new());
        Ok(Child {
            template: Arc::new(Template {
                file,
                tree: None,
                data,
                version: Version::V20150430,
                version_text: "2015-04-30".into(),
                definitions: Default::default(),
            }),
            parameters: Map::new(),
            deferred: Map::new(),
            label: None,
            generated: true,
        })
    }

    /// `OS::Heat::Stack`: its `template` text and `parameters`, expanded
    /// like a nested stack (Heat creates it through the API).
    fn remote_stack(&self, r: &Resource) -> Result<Child, Diagnostic> {
        let none = Map::new();
        let props = self.properties(r).unwrap_or(&none);
        let text = match props.get("template") {
            Some(Value::Str(text)) => text,
            None | Some(Value::Null) => {
                return Err(self.property_error(r, "", "Property template not assigned".into()))
            }
            // Heat reads the property as a string when it builds the
            // child (a ValueError there, not a validation error).
            Some(other) => {
                let message = format!(
                    "resources.{}.properties.template: Value must be a string; got {}",
                    r.name,
                    other.py_repr()
                );
                let at = self.at(&["resources", &r.name, "properties", "template"]);
                return Err(crate::hot::error(codes::HOT_FUNCTION_RUNTIME, message, at)
                    .with_subject(crate::hot::RESOURCE, r.name.as_str()));
            }
        };
        let file = SourceFile::new(format!("{}.template", r.name), text.to_string());
        let t = self.parse_child(&file)?;
        let mut parameters = Map::new();
        let mut deferred = Map::new();
        if let Some(ps) = props.get("parameters").and_then(Value::as_map) {
            for (k, v) in ps {
                if has_ref(v) {
                    deferred.insert(k.clone(), v.clone());
                } else {
                    parameters.insert(k.clone(), v.clone());
                }
            }
        }
        Ok(Child {
            template: Arc::new(t),
            parameters,
            deferred,
            label: None,
            generated: false,
        })
    }
}

fn output(v: Value) -> Value {
    let mut m = Map::with_capacity(1);
    m.push_distinct("value".into(), v);
    Value::Map(m)
}

fn refs_map(names: &[String]) -> Value {
    Value::Map(
        names
            .iter()
            .map(|n| {
                (
                    Value::str(n.as_str()),
                    func("get_resource", Value::str(n.as_str())),
                )
            })
            .collect(),
    )
}

/// A list property passed to a `comma_delimited_list` parameter: Heat
/// joins it with commas (maps as `.member.N.key=value`).
fn list_param(items: &List) -> String {
    if items.first().is_some_and(|x| x.as_map().is_some()) {
        let mut parts = Vec::new();
        for (i, item) in items.iter().enumerate() {
            if let Some(m) = item.as_map() {
                for (k, v) in m {
                    parts.push(format!(".member.{i}.{}={}", k.py_str(), v.py_str()));
                }
            }
        }
        return parts.join(",");
    }
    items
        .iter()
        .map(|x| {
            if x.is_null() {
                String::new()
            } else {
                x.py_str()
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// A child's error seen from the parent: Heat's path gains this
/// resource's segment (`resources.web<files/server.yaml>`).
fn wrap(mut d: Diagnostic, segment: &str) -> Diagnostic {
    let msg = d.message.clone();
    d.message = match msg.split_once(": resources.") {
        Some((head, rest)) if !head.contains(' ') || head.ends_with("error") => {
            format!("{head}: {segment}.resources.{rest}")
        }
        _ => match msg.strip_prefix("resources.") {
            Some(rest) => format!("{segment}.resources.{rest}"),
            None => format!("{segment}: {msg}"),
        },
    };
    d
}

/// Every `get_attr` argument list in resolved values whose resource is
/// one of `targets`.
pub(super) fn get_attrs(v: &Value, targets: &[&str], out: &mut Vec<Vec<Value>>) {
    if let Some(("get_attr", Value::List(args))) = call(v) {
        if args
            .first()
            .and_then(Value::as_str)
            .is_some_and(|t| targets.contains(&t))
        {
            out.push(args.iter().cloned().collect());
        }
    }
    match v {
        Value::Map(m) => m.iter().for_each(|(_, x)| get_attrs(x, targets, out)),
        Value::List(l) => l.iter().for_each(|x| get_attrs(x, targets, out)),
        _ => {}
    }
}
