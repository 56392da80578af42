//! Intrinsic functions (spec §10, §12): which exist in which version, their
//! argument shapes, and their evaluation at compile time. `get_resource`,
//! `get_attr` and a CFN `Ref` to a resource stay symbolic (in template
//! syntax), and so does any function whose arguments hold one; every
//! resource such a reference names is recorded as a dependency.

use super::params::Param;
use super::template::Version;
use super::{json_dumps_sorted, Context};
use crate::diag::{codes, Code};
use crate::value::{List, Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;

/// When a function error is found: while reading a template's shape
/// (Heat's step 9) or while evaluating (step 14).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Argument shapes and version gating.
    Parse,
    /// Values.
    Run,
}

/// A function error: its code, message and phase.
#[derive(Debug, Clone)]
pub struct FnError {
    /// The diagnostic code.
    pub code: Code,
    /// The message (without the path).
    pub message: String,
    /// When Heat finds it.
    pub phase: Phase,
}

fn parse_err(message: impl Into<String>) -> FnError {
    FnError {
        code: codes::HOT_VALIDATION,
        message: message.into(),
        phase: Phase::Parse,
    }
}

fn run_err(message: impl Into<String>) -> FnError {
    FnError {
        code: codes::HOT_FUNCTION_RUNTIME,
        message: message.into(),
        phase: Phase::Run,
    }
}

/// A resolved value, and whether a symbolic reference is inside it.
#[derive(Debug, Clone)]
pub struct Out {
    /// The value.
    pub value: Value,
    /// It holds a `get_resource`/`get_attr`/`Ref` that stays symbolic.
    pub symbolic: bool,
}

impl Out {
    fn plain(value: Value) -> Out {
        Out {
            value,
            symbolic: false,
        }
    }
}

/// A `get_file` read: the text, or why not (`Some(reason)` when the path
/// was refused, `None` when nothing is there).
pub type FileRead = Result<String, Option<String>>;

/// What functions can see.
pub struct Scope<'a> {
    /// The template version.
    pub version: Version,
    /// The parameters.
    pub params: &'a [Param],
    /// The pseudo parameters' context.
    pub context: &'a Context,
    /// Every resource name the template defines (enabled or not).
    pub resources: &'a [std::borrow::Cow<'a, str>],
    /// `get_file`: the content stored under a key.
    pub files: &'a dyn Fn(&str) -> FileRead,
    /// The parent's facade resource (`resource_facade`).
    pub parent: Option<&'a Value>,
    /// Evaluated conditions (2016-10-14).
    pub conditions: &'a HashMap<String, bool>,
    /// Resources referenced while resolving (in order of appearance).
    pub refs: RefCell<Vec<String>>,
    /// `get_attr` (resource, attribute) pairs met while resolving.
    pub attributes: RefCell<Vec<(String, String)>>,
    /// Warnings (e.g. `yaql` kept symbolic).
    pub warnings: RefCell<Vec<String>>,
    /// The `hot-repeat` and `hot-string` limits.
    pub limits: crate::limits::Limits,
    /// `{from_parent: expr}` is a value of the parent stack, kept as
    /// written (the generated template of a group's members).
    pub from_parent: bool,
    /// Values `repeat` created so far in this resolution (the `hot-repeat`
    /// limit counts them all: copies times the template's values).
    pub copies: std::cell::Cell<usize>,
}

/// What a one-key map is in this version.
enum Kind {
    Function,
    Removed,
    Data,
}

/// Whether `name` is a function in templates of version `v` (not data,
/// not removed).
pub(crate) fn is_function(v: Version, name: &str) -> bool {
    matches!(kind(v, name), Kind::Function)
}

fn kind(v: Version, name: &str) -> Kind {
    use Version::*;
    let since = |min: Version| {
        if v >= min {
            Kind::Function
        } else {
            Kind::Data
        }
    };
    match name {
        "get_param" | "get_resource" | "get_file" | "resource_facade" | "get_attr"
        | "str_replace" | "list_join" => Kind::Function,
        "repeat" | "digest" => since(V20150430),
        "str_split" => since(V20151015),
        "map_merge" => since(V20160408),
        "map_replace" | "if" | "yaql" => since(V20161014),
        "Fn::Select" => {
            if v <= V20150430 {
                Kind::Function
            } else {
                Kind::Removed
            }
        }
        "Ref"
        | "Fn::GetAZs"
        | "Fn::Join"
        | "Fn::Split"
        | "Fn::Replace"
        | "Fn::Base64"
        | "Fn::MemberListToMap"
        | "Fn::ResourceFacade" => {
            if v == V20130523 {
                Kind::Function
            } else {
                Kind::Removed
            }
        }
        _ => Kind::Data,
    }
}

/// The functions a resolved value can still hold: the compile leaves
/// `get_resource`, `get_attr`, `Ref` (and any function whose arguments hold
/// one) in template syntax, as does a nested stack's `get_param` of a
/// deferred parameter and a group member's `from_parent`.
pub(crate) const SYMBOLIC: &[&str] = &[
    "get_param",
    "get_resource",
    "get_attr",
    "get_file",
    "resource_facade",
    "str_replace",
    "list_join",
    "repeat",
    "digest",
    "str_split",
    "map_merge",
    "map_replace",
    "if",
    "yaql",
    "Ref",
    "Fn::GetAtt",
    "Fn::GetAZs",
    "Fn::Select",
    "Fn::Join",
    "Fn::Split",
    "Fn::Replace",
    "Fn::Base64",
    "Fn::MemberListToMap",
    "Fn::ResourceFacade",
    "from_parent",
];

/// Whether a resolved value stays a function until the stack runs: a
/// one-key map naming one of [`SYMBOLIC`].
pub(crate) fn is_symbolic(v: &Value) -> bool {
    call(v).is_some_and(|(k, _)| SYMBOLIC.contains(&k))
}

/// The intrinsic functions of template version `version` (as written in
/// `heat_template_version`), in Heat's spelling.
pub fn available(version: &str) -> Vec<&'static str> {
    let Some(v) = crate::hot::template::version_of(version) else {
        return Vec::new();
    };
    SYMBOLIC
        .iter()
        .copied()
        .filter(|n| is_function(v, n))
        .collect()
}

/// A function call in `v`: its name and argument.
pub(crate) fn call(v: &Value) -> Option<(&str, &Value)> {
    let m = v.as_map()?;
    if m.len() != 1 {
        return None;
    }
    let (k, a) = m.iter().next()?;
    Some((k.as_str()?, a))
}

impl Scope<'_> {
    /// Resolve `v` (spec §10.1).
    pub fn resolve(&self, v: &Value) -> Result<Out, FnError> {
        if let Some((name, arg)) = call(v) {
            if name == "from_parent" && self.from_parent {
                return Ok(symbolic(name, arg.clone()));
            }
            match kind(self.version, name) {
                Kind::Function => return self.function(name, arg),
                Kind::Removed => {
                    return Err(FnError {
                        code: codes::HOT_TEMPLATE_VERSION,
                        message: format!(
                            "The template version is invalid: The function {name} is not supported in this version of HOT."
                        ),
                        phase: Phase::Parse,
                    })
                }
                Kind::Data => {}
            }
        }
        match v {
            Value::Map(m) => {
                let mut out = Map::with_capacity(m.len());
                let mut symbolic = false;
                for (k, x) in m {
                    let r = self.resolve(x)?;
                    symbolic |= r.symbolic;
                    out.push_distinct(k.clone(), r.value);
                }
                Ok(Out {
                    value: Value::Map(out),
                    symbolic,
                })
            }
            Value::List(l) => {
                let mut out = List::with_capacity(l.len());
                let mut symbolic = false;
                for x in l {
                    let r = self.resolve(x)?;
                    symbolic |= r.symbolic;
                    out.push(r.value);
                }
                Ok(Out {
                    value: Value::List(out),
                    symbolic,
                })
            }
            other => Ok(Out::plain(other.clone())),
        }
    }

    fn function(&self, name: &str, arg: &Value) -> Result<Out, FnError> {
        // Shapes that are checked before anything is evaluated.
        match name {
            "if" => return self.fn_if(arg),
            "resource_facade" | "Fn::ResourceFacade" => return self.facade(name, arg),
            "get_file" => {
                let a = self.resolve(arg)?;
                let key = a.value.as_str().ok_or_else(|| {
                    run_err(format!(
                        "Argument to \"get_file\" must be a string, not {}",
                        a.value.py_repr()
                    ))
                })?;
                return (self.files)(key)
                    .map(|s| Out::plain(Value::str(s)))
                    .map_err(|why| {
                        let heat = format!(
                            "No content found in the \"files\" section for get_file path: {key}"
                        );
                        run_err(match why {
                            Some(why) => format!("{heat} (lowstate refused it: {why})"),
                            None => heat,
                        })
                    });
            }
            _ => {}
        }
        self.check_shape(name, arg)?;
        let a = self.resolve(arg)?;
        match name {
            "get_param" if self.deferred(&a.value) => return Ok(symbolic(name, a.value)),
            "get_resource" => {
                let target = a
                    .value
                    .as_str()
                    .ok_or_else(|| parse_err("Argument to \"get_resource\" must be a string"))?;
                self.refs.borrow_mut().push(target.to_string());
                return Ok(symbolic(name, a.value));
            }
            "get_attr" => {
                if let Some(first) = a
                    .value
                    .as_list()
                    .and_then(|l| l.first())
                    .and_then(Value::as_str)
                {
                    self.refs.borrow_mut().push(first.to_string());
                    if let Some(attr) = a
                        .value
                        .as_list()
                        .and_then(|l| l.get(1))
                        .and_then(Value::as_str)
                    {
                        self.attributes
                            .borrow_mut()
                            .push((first.to_string(), attr.to_string()));
                    }
                }
                return Ok(symbolic(name, a.value));
            }
            "Ref" => {
                let target = a.value.py_str();
                if self.resources.iter().any(|r| *r == target) {
                    self.refs.borrow_mut().push(target);
                    return Ok(symbolic(name, a.value));
                }
                return match self.param(&target) {
                    Some(v) => Ok(Out::plain(v)),
                    None => Err(FnError {
                        code: codes::HOT_INVALID_REFERENCE,
                        message: format!(
                            "The specified reference \"{target}\" (in unknown) is incorrect."
                        ),
                        phase: Phase::Run,
                    }),
                };
            }
            "yaql" => {
                self.warnings.borrow_mut().push(
                    "yaql is not evaluated by lowstate; the expression is kept as written".into(),
                );
                return Ok(symbolic(name, a.value));
            }
            "Fn::GetAZs" => return Ok(symbolic(name, a.value)),
            _ => {}
        }
        if a.symbolic {
            return Ok(symbolic(name, a.value));
        }
        let v = a.value;
        let value = match name {
            "get_param" => self.get_param(&v)?,
            "str_replace" => {
                let m = v
                    .as_map()
                    .ok_or_else(|| run_err("\"str_replace\" arguments must be a map"))?;
                self.str_replace(m.get("template"), m.get("params"))?
            }
            "Fn::Replace" => {
                let l = v.as_list().filter(|l| l.len() == 2).ok_or_else(|| {
                    run_err("Arguments to \"Fn::Replace\" should be: [{key: value}, template]")
                })?;
                self.str_replace(Some(&l[1]), Some(&l[0]))?
            }
            "list_join" | "Fn::Join" => self.list_join(name, &v)?,
            "repeat" => self.repeat(&v)?,
            "digest" => digest(&v)?,
            "str_split" | "Fn::Split" => str_split(name, &v)?,
            "map_merge" => map_merge(&v)?,
            "map_replace" => map_replace(&v)?,
            "Fn::Base64" => v,
            "Fn::Select" => select(&v)?,
            "Fn::MemberListToMap" => member_list_to_map(&v)?,
            other => return Err(parse_err(format!("Unknown function {other}"))),
        };
        Ok(Out::plain(value))
    }

    /// Argument shapes Heat checks when it parses the template.
    fn check_shape(&self, name: &str, arg: &Value) -> Result<(), FnError> {
        let is_fn = |v: &Value| call(v).is_some_and(|(n, _)| is_function(self.version, n));
        match name {
            "get_attr" => {
                if is_fn(arg) {
                    return Ok(());
                }
                let Some(l) = arg.as_list() else {
                    return Err(parse_err("Argument to \"get_attr\" must be a list"));
                };
                let min = if self.version >= Version::V20151015 {
                    1
                } else {
                    2
                };
                if l.len() < min {
                    return Err(parse_err(
                        "Arguments to \"get_attr\" must be of the form [resource_name, attribute, (path), ...]",
                    ));
                }
            }
            "str_replace" => {
                let ok = arg.as_map().is_some_and(|m| {
                    m.len() == 2 && m.contains_key("template") && m.contains_key("params")
                });
                if !ok {
                    return Err(parse_err(
                        "\"str_replace\" syntax should be str_replace:\n  template: <string>\n  params: <dict>",
                    ));
                }
                let params = arg.get("params").cloned().unwrap_or_default();
                if !(params.as_map().is_some() || is_fn(&params)) {
                    return Err(parse_err(
                        "\"str_replace\" params must be a map or a function",
                    ));
                }
            }
            "list_join" | "Fn::Join" => {
                let old = name == "Fn::Join" || self.version < Version::V20151015;
                let bad = match arg.as_list() {
                    None => !is_fn(arg),
                    Some(l) if old => l.len() != 2,
                    Some(l) => l.len() < 2,
                };
                if bad {
                    return Err(parse_err(if old {
                        format!("Incorrect arguments to \"{name}\" should be: {name}:\n- <delimiter>\n- <list>")
                    } else {
                        format!("Incorrect arguments to \"{name}\" should be: {name}:\n- <delimiter>\n- <list>\n- <list>\n...")
                    }));
                }
            }
            "repeat" => {
                let Some(m) = arg.as_map() else {
                    return Err(parse_err("\"repeat\" syntax should be repeat:\n  for_each: <dict>\n  template: <value>"));
                };
                if !m.contains_key("for_each") || !m.contains_key("template") {
                    return Err(parse_err("\"repeat\" syntax should be repeat:\n  for_each: <dict>\n  template: <value>"));
                }
                let fe = m.get("for_each").cloned().unwrap_or_default();
                if fe.as_map().is_none() && !is_fn(&fe) {
                    return Err(parse_err(
                        "The \"for_each\" argument to \"repeat\" must contain a map",
                    ));
                }
            }
            "str_split" if !(arg.as_list().is_some() || is_fn(arg)) => {
                return Err(parse_err(
                    "Incorrect arguments to \"str_split\" should be: str_split:\n- <delimiter>\n- <string>\n- <index> (optional)",
                ));
            }
            "map_merge" if !(arg.as_list().is_some() || is_fn(arg)) => {
                return Err(parse_err(
                    "Incorrect arguments to \"map_merge\" should be: map_merge:\n- <map>\n- <map>",
                ));
            }
            "map_replace" => {
                let ok = arg.as_list().is_some_and(|l| l.len() == 2) || is_fn(arg);
                if !ok {
                    return Err(parse_err("Incorrect arguments to \"map_replace\" should be: map_replace:\n- <map>\n- keys: <map>\n  values: <map>"));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether `get_param`'s argument names a deferred parameter (its
    /// value exists only once the parent's resources do).
    fn deferred(&self, arg: &Value) -> bool {
        let name = match arg {
            Value::List(l) => l.first(),
            other => Some(other),
        };
        name.and_then(Value::as_str).is_some_and(|n| {
            self.params
                .iter()
                .any(|p| p.name == n && p.source == "deferred")
        })
    }

    /// A parameter's typed value (pseudo parameters included).
    fn param(&self, name: &str) -> Option<Value> {
        match name {
            "OS::stack_id" => Some(Value::str(self.context.stack_id.as_str())),
            "OS::stack_name" => Some(Value::str(self.context.stack_name.as_str())),
            "OS::project_id" => Some(Value::str(self.context.project_id.as_str())),
            _ => self
                .params
                .iter()
                .find(|p| p.name == name)
                .map(|p| p.value.clone()),
        }
    }

    /// Heat's `GetParam.result`: its argument checks are made when the
    /// function is evaluated (`function_runtime`), not when it is parsed.
    fn get_param(&self, v: &Value) -> Result<Value, FnError> {
        // Python's `if not args`: null, "", [], {}, 0 and false alike.
        if !v.truthy() {
            return Err(run_err("Function \"get_param\" must have arguments"));
        }
        let (name, path): (&Value, &[Value]) = match v {
            Value::Str(_) => (v, &[]),
            Value::List(l) => (&l[0], &l[1..]),
            _ => return Err(run_err("Argument to \"get_param\" must be string or list")),
        };
        let Some(name) = name.as_str() else {
            return Err(run_err("Parameter name in \"get_param\" must be string"));
        };
        let Some(mut cur) = self.param(name) else {
            return Err(FnError {
                code: codes::HOT_PARAMETER_MISSING,
                message: format!("The Parameter ({name}) was not provided."),
                phase: Phase::Run,
            });
        };
        for step in path {
            let next = match (&cur, step) {
                (Value::Map(m), k) => m.get(k).cloned(),
                (Value::List(_) | Value::Str(_), k) => {
                    let items: Vec<Value> = match &cur {
                        Value::List(l) => l.iter().cloned().collect(),
                        Value::Str(s) => s.chars().map(|c| Value::str(c.to_string())).collect(),
                        _ => Vec::new(),
                    };
                    let i = match k {
                        Value::Int(i) => Some(*i),
                        Value::Str(s) => s.trim().parse::<i64>().ok(),
                        Value::Bool(b) => Some(i64::from(*b)),
                        _ => None,
                    };
                    i.and_then(|i| {
                        let i = if i < 0 { items.len() as i64 + i } else { i };
                        usize::try_from(i).ok().and_then(|i| items.get(i).cloned())
                    })
                }
                _ => None,
            };
            match next {
                Some(n) => cur = n,
                None => return Ok(Value::str("")),
            }
        }
        Ok(cur)
    }

    fn str_replace(
        &self,
        template: Option<&Value>,
        params: Option<&Value>,
    ) -> Result<Value, FnError> {
        let Some(template) = template.and_then(Value::as_str) else {
            return Err(run_err("\"str_replace\" template must be a string"));
        };
        let Some(params) = params.and_then(Value::as_map) else {
            return Err(run_err("\"str_replace\" params must be a map"));
        };
        let mut pairs: Vec<(String, String)> = Vec::with_capacity(params.len());
        for (k, v) in params {
            let Some(k) = k.as_str() else {
                return Err(run_err(format!(
                    "\"str_replace\" param keys must be strings, {} is not valid",
                    k.py_repr()
                )));
            };
            let v = match v {
                Value::Null => String::new(),
                Value::Str(s) => s.to_string(),
                Value::Int(_) | Value::Float(_) | Value::Bool(_) => v.py_str(),
                _ if self.version >= Version::V20151015 => json_dumps_sorted(v),
                _ => {
                    return Err(run_err(format!(
                        "\"str_replace\" params must be strings or numbers, param {k} is not valid"
                    )))
                }
            };
            pairs.push((k.to_string(), v));
        }
        pairs.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        let out = replace_once(template, &pairs, self.limits.hot_string)
            .ok_or_else(|| self.too_long("str_replace"))?;
        Ok(Value::str(out))
    }

    fn list_join(&self, name: &str, v: &Value) -> Result<Value, FnError> {
        let l = v.as_list().filter(|l| !l.is_empty()).ok_or_else(|| {
            run_err(format!(
                "Incorrect arguments to \"{name}\" should be: {name}:\n- <delimiter>\n- <list>"
            ))
        })?;
        let Some(delim) = l[0].as_str() else {
            return Err(run_err(format!("\"{name}\" delimiter must be a string")));
        };
        let new = name == "list_join" && self.version >= Version::V20151015;
        let mut items: Vec<String> = Vec::new();
        for list in &l[1..] {
            let list = match list {
                Value::Null => continue,
                Value::List(x) => x,
                other => {
                    return Err(run_err(format!(
                        "Incorrect arguments to \"{name}\" should be: {name}:\n- <delimiter>\n- <list>; {} is not a list",
                        other.py_repr()
                    )))
                }
            };
            for item in list {
                items.push(match item {
                    Value::Null => String::new(),
                    Value::Str(s) => s.to_string(),
                    Value::Map(_) | Value::List(_) if new => json_dumps_sorted(item),
                    other if new => {
                        return Err(run_err(format!(
                            "Items to join must be string, map or list not {}",
                            other.py_repr()
                        )))
                    }
                    other => {
                        return Err(run_err(format!(
                            "Items to join must be strings not {}",
                            other.py_repr()
                        )))
                    }
                });
            }
        }
        let len = items
            .iter()
            .map(String::len)
            .sum::<usize>()
            .saturating_add(delim.len().saturating_mul(items.len()));
        if len > self.limits.hot_string {
            return Err(self.too_long(name));
        }
        Ok(Value::str(items.join(delim)))
    }

    /// The `hot-string` limit's error for function `name`.
    fn too_long(&self, name: &str) -> FnError {
        run_err(format!(
            "\"{name}\" would make a string longer than {} (the `hot-string` limit; raise it with `--limit hot-string=BYTES`)",
            crate::limits::human_bytes(self.limits.hot_string)
        ))
    }

    fn repeat(&self, v: &Value) -> Result<Value, FnError> {
        let m = v
            .as_map()
            .ok_or_else(|| parse_err("\"repeat\" syntax should be a map"))?;
        let Some(fe) = m.get("for_each").and_then(Value::as_map) else {
            return Err(parse_err(
                "The \"for_each\" argument to \"repeat\" must contain a map",
            ));
        };
        let template = m.get("template").cloned().unwrap_or_default();
        let mut axes: Vec<(String, Vec<Value>)> = Vec::new();
        for (k, list) in fe {
            let values: Vec<Value> = match list {
                Value::Null => Vec::new(),
                Value::List(l) => l.iter().cloned().collect(),
                Value::Map(m) if self.version >= Version::V20161014 => m.keys().cloned().collect(),
                _ => {
                    return Err(run_err(
                        "The values of the \"for_each\" argument to \"repeat\" must be lists",
                    ))
                }
            };
            axes.push((k.py_str(), values));
        }
        if axes.iter().any(|(_, v)| v.is_empty()) {
            return Ok(Value::List(List::new()));
        }
        // The `hot-repeat` limit counts the values every repeat of this
        // resolution creates: copies times the template's values.
        let limit = self.limits.hot_repeat;
        let total = axes
            .iter()
            .try_fold(1usize, |n, (_, v)| n.checked_mul(v.len()));
        let made = total
            .and_then(|n| n.checked_mul(count_values(&template)))
            .and_then(|n| self.copies.get().checked_add(n))
            .filter(|&made| made <= limit);
        let (Some(total), Some(made)) = (total, made) else {
            return Err(run_err(format!(
                "\"repeat\" would create more than {limit} values (the `hot-repeat` limit: copies times the template's values, over all repeats of the resource; raise it with `--limit hot-repeat=N`)"
            )));
        };
        self.copies.set(made);
        let mut out = List::with_capacity(total);
        let mut idx = vec![0usize; axes.len()];
        for _ in 0..total {
            let subs: Vec<(&str, &Value)> = axes
                .iter()
                .zip(&idx)
                .map(|((k, vals), &i)| (k.as_str(), &vals[i]))
                .collect();
            out.push(substitute(&template, &subs, self.limits.hot_string)?);
            for d in (0..axes.len()).rev() {
                idx[d] += 1;
                if idx[d] < axes[d].1.len() {
                    break;
                }
                idx[d] = 0;
            }
        }
        Ok(Value::List(out))
    }

    fn fn_if(&self, arg: &Value) -> Result<Out, FnError> {
        let Some(l) = arg.as_list().filter(|l| l.len() == 3) else {
            return Err(parse_err(
                "Arguments to \"if\" must be of the form: [condition_name, value_if_true, value_if_false]",
            ));
        };
        let chosen = self.condition(&l[0])?;
        self.resolve(if chosen { &l[1] } else { &l[2] })
    }

    /// A condition reference (a name, a boolean or an expression).
    pub fn condition(&self, c: &Value) -> Result<bool, FnError> {
        evaluate_condition(c, self, &mut |name| {
            self.conditions
                .get(name)
                .copied()
                .ok_or_else(|| parse_err(format!("Invalid condition \"{name}\"")))
        })
    }

    fn facade(&self, name: &str, arg: &Value) -> Result<Out, FnError> {
        let cfn = name == "Fn::ResourceFacade";
        let key = match (arg.as_str(), cfn) {
            (Some("metadata"), false) | (Some("Metadata"), true) => "metadata",
            (Some("deletion_policy"), false) | (Some("DeletionPolicy"), true) => "deletion_policy",
            (Some("update_policy"), false) | (Some("UpdatePolicy"), true) => "update_policy",
            _ => {
                return Err(parse_err(if cfn {
                    "Incorrect arguments to \"Fn::ResourceFacade\" should be one of: Metadata, DeletionPolicy, UpdatePolicy"
                } else {
                    "Incorrect arguments to \"resource_facade\" should be one of: metadata, deletion_policy, update_policy"
                }))
            }
        };
        let Some(parent) = self.parent else {
            return Err(run_err(
                "resource_facade used outside a provider template (give the parent's facade resource with --parent)",
            ));
        };
        let v = parent.get(key).filter(|v| !v.is_null()).cloned();
        Ok(Out::plain(match (key, v) {
            (_, Some(v)) => v,
            ("deletion_policy", None) => Value::str("Delete"),
            _ => Value::Map(Map::new()),
        }))
    }
}

/// `{name: args}`: a function kept in template syntax.
fn symbolic(name: &str, args: Value) -> Out {
    let mut m = Map::with_capacity(1);
    m.push_distinct(Value::str(name), args);
    Out {
        value: Value::Map(m),
        symbolic: true,
    }
}

/// Evaluate a condition expression; `name` looks up a named condition.
pub fn evaluate_condition(
    c: &Value,
    scope: &Scope<'_>,
    name: &mut dyn FnMut(&str) -> Result<bool, FnError>,
) -> Result<bool, FnError> {
    match c {
        Value::Bool(b) => Ok(*b),
        Value::Str(s) => name(s),
        Value::Map(_) => {
            let Some((f, arg)) = call(c) else {
                return Err(parse_err(format!("Invalid condition {}", c.py_repr())));
            };
            match f {
                "equals" => {
                    let l = arg.as_list().filter(|l| l.len() == 2).ok_or_else(|| {
                        parse_err("Arguments to \"equals\" must be of the form: [value_1, value_2]")
                    })?;
                    let a = scope.resolve(&l[0])?.value;
                    let b = scope.resolve(&l[1])?.value;
                    Ok(a == b)
                }
                "not" => Ok(!evaluate_condition(arg, scope, name)?),
                "and" | "or" => {
                    let l = arg.as_list().filter(|l| l.len() >= 2).ok_or_else(|| {
                        parse_err(format!(
                            "Arguments to \"{f}\" must be of the form: [condition_1, condition_2, ...]"
                        ))
                    })?;
                    let mut acc = f == "and";
                    for x in l {
                        let b = evaluate_condition(x, scope, name)?;
                        if f == "and" {
                            acc &= b;
                        } else {
                            acc |= b;
                        }
                    }
                    Ok(acc)
                }
                "get_param" => Ok(scope.resolve(c)?.value.truthy()),
                other => Err(parse_err(format!(
                    "The function \"{other}\" is invalid in this context"
                ))),
            }
        }
        other => Err(parse_err(format!("Invalid condition {}", other.py_repr()))),
    }
}

/// str_replace's one pass: longest keys first; inserted text is never
/// scanned again.
fn replace_once(text: &str, pairs: &[(String, String)], limit: usize) -> Option<String> {
    // Each key in turn splits the text not yet replaced; what a key put in
    // is never looked at again. Iterative (a template may have thousands
    // of params), and the length is known before anything is built.
    enum Piece<'a> {
        Raw(&'a str),
        Put(&'a str),
    }
    let mut pieces = vec![Piece::Raw(text)];
    let mut len = text.len();
    for (key, value) in pairs.iter().filter(|(k, _)| !k.is_empty()) {
        let mut next = Vec::with_capacity(pieces.len());
        for piece in pieces {
            match piece {
                Piece::Raw(raw) if raw.contains(key.as_str()) => {
                    for (i, part) in raw.split(key.as_str()).enumerate() {
                        if i > 0 {
                            len = (len - key.len()).checked_add(value.len())?;
                            if len > limit {
                                return None;
                            }
                            next.push(Piece::Put(value));
                        }
                        next.push(Piece::Raw(part));
                    }
                }
                other => next.push(other),
            }
        }
        pieces = next;
    }
    (len <= limit).then(|| {
        let mut out = String::with_capacity(len);
        for p in pieces {
            out.push_str(match p {
                Piece::Raw(s) | Piece::Put(s) => s,
            });
        }
        out
    })
}

/// How many values `v` holds (itself included).
fn count_values(v: &Value) -> usize {
    match v {
        Value::List(l) => 1 + l.iter().map(count_values).sum::<usize>(),
        Value::Map(m) => {
            1 + m
                .iter()
                .map(|(k, v)| count_values(k) + count_values(v))
                .sum::<usize>()
        }
        _ => 1,
    }
}

/// repeat's substitution: each placeholder in turn, everywhere in strings
/// (map keys included).
fn substitute(v: &Value, subs: &[(&str, &Value)], limit: usize) -> Result<Value, FnError> {
    match v {
        Value::Str(s) => {
            let mut t = s.to_string();
            for (k, x) in subs {
                if !t.contains(k) {
                    continue;
                }
                let Some(r) = x.as_str() else {
                    return Err(run_err(format!(
                        "replace() argument 2 must be str, not {}",
                        x.py_type_name()
                    )));
                };
                let grown = t.matches(k).count().saturating_mul(r.len());
                if t.len().saturating_add(grown) > limit {
                    return Err(run_err(format!(
                        "\"repeat\" would make a string longer than {} (the `hot-string` limit; raise it with `--limit hot-string=BYTES`)",
                        crate::limits::human_bytes(limit)
                    )));
                }
                t = t.replace(k, r);
            }
            Ok(Value::str(t))
        }
        Value::List(l) => Ok(Value::List(
            l.iter()
                .map(|x| substitute(x, subs, limit))
                .collect::<Result<_, _>>()?,
        )),
        Value::Map(m) => {
            let mut out = Map::with_capacity(m.len());
            for (k, x) in m {
                out.insert(substitute(k, subs, limit)?, substitute(x, subs, limit)?);
            }
            Ok(Value::Map(out))
        }
        other => Ok(other.clone()),
    }
}

fn digest(v: &Value) -> Result<Value, FnError> {
    use sha2::Digest as _;
    let l = v
        .as_list()
        .ok_or_else(|| run_err("Argument to function \"digest\" must be a list of strings"))?;
    if l.len() != 2 {
        return Err(run_err(
            "Function \"digest\" usage: [\"<algorithm>\", \"<value>\"]",
        ));
    }
    let (Some(alg), Some(text)) = (l[0].as_str(), l[1].as_str()) else {
        return Err(run_err(
            "Argument to function \"digest\" must be a list of strings",
        ));
    };
    let mut bytes = Vec::with_capacity(text.len());
    for ch in text.chars() {
        let c = u32::from(ch);
        if c > 0xFF {
            return Err(run_err(format!(
                "'latin-1' codec can't encode character '\\u{c:04x}': ordinal not in range(256)"
            )));
        }
        bytes.push(c as u8);
    }
    fn hex(d: &[u8]) -> String {
        d.iter().map(|b| format!("{b:02x}")).collect()
    }
    let out = match alg.to_ascii_lowercase().as_str() {
        "md5" => hex(&md5::Md5::digest(&bytes)),
        "sha1" => hex(&sha1::Sha1::digest(&bytes)),
        "sha224" => hex(&sha2::Sha224::digest(&bytes)),
        "sha256" => hex(&sha2::Sha256::digest(&bytes)),
        "sha384" => hex(&sha2::Sha384::digest(&bytes)),
        "sha512" => hex(&sha2::Sha512::digest(&bytes)),
        _ => {
            return Err(run_err(format!(
                "Algorithm must be one of {{'md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512'}} (lowstate computes these; Heat also knows the sha3 and blake2 families), not {alg}"
            )))
        }
    };
    Ok(Value::str(out))
}

fn str_split(name: &str, v: &Value) -> Result<Value, FnError> {
    let usage = || {
        run_err(format!(
            "Incorrect arguments to \"{name}\" should be: {name}:\n- <delimiter>\n- <string>\n- <index> (optional)"
        ))
    };
    let l = v.as_list().filter(|l| l.len() >= 2).ok_or_else(usage)?;
    let Some(delim) = l[0].as_str().filter(|d| !d.is_empty()) else {
        return Err(usage());
    };
    let text = match &l[1] {
        Value::Null => return Ok(Value::Null),
        Value::Str(s) => s.to_string(),
        other => other.py_str(),
    };
    let parts: Vec<Value> = text.split(delim).map(Value::str).collect();
    match l.get(2) {
        None => Ok(Value::List(parts.into_iter().collect())),
        Some(i) => {
            let i = match i {
                Value::Int(i) => *i,
                other => other.py_str().trim().parse::<i64>().map_err(|_| {
                    run_err(format!(
                        "Incorrect index to \"{name}\" should be: {name}:\n- <delimiter>\n- <string>\n- <index> (optional)"
                    ))
                })?,
            };
            let n = parts.len() as i64;
            let j = if i < 0 { n + i } else { i };
            usize::try_from(j)
                .ok()
                .and_then(|j| parts.get(j).cloned())
                .ok_or_else(|| {
                    run_err(format!(
                        "Incorrect index to \"{name}\" should be between 0 and {}",
                        n - 1
                    ))
                })
        }
    }
}

fn map_merge(v: &Value) -> Result<Value, FnError> {
    let l = v.as_list().ok_or_else(|| {
        run_err("Incorrect arguments to \"map_merge\" should be: map_merge:\n- <map>\n- <map>")
    })?;
    let mut out = Map::new();
    for item in l {
        match item {
            Value::Null => {}
            Value::Map(m) => {
                for (k, x) in m {
                    out.insert(k.clone(), x.clone());
                }
            }
            other => {
                return Err(run_err(format!(
                    "Incorrect arguments: Items to merge must be maps. {} is type <class '{}'> instead of a dict",
                    other.py_repr(),
                    other.py_type_name()
                )))
            }
        }
    }
    Ok(Value::Map(out))
}

fn map_replace(v: &Value) -> Result<Value, FnError> {
    let l = v.as_list().filter(|l| l.len() == 2).ok_or_else(|| {
        run_err("Incorrect arguments to \"map_replace\" should be: map_replace:\n- <map>\n- keys: <map>\n  values: <map>")
    })?;
    let Some(m) = l[0].as_map() else {
        return Err(run_err(
            "Incorrect arguments to \"map_replace\": the first item must be a map",
        ));
    };
    let empty = Map::new();
    let keys = l[1].get("keys").and_then(Value::as_map).unwrap_or(&empty);
    let values = l[1].get("values").and_then(Value::as_map).unwrap_or(&empty);
    let mut out = Map::with_capacity(m.len());
    for (k, x) in m {
        let nk = keys.get(k).cloned().unwrap_or_else(|| k.clone());
        if out.contains_key(&nk) {
            return Err(run_err(format!(
                "key replacement {} collides with a key in the input map",
                nk.py_repr()
            )));
        }
        let nv = values.get(x).cloned().unwrap_or_else(|| x.clone());
        out.insert(nk, nv);
    }
    Ok(Value::Map(out))
}

fn select(v: &Value) -> Result<Value, FnError> {
    let l = v.as_list().filter(|l| l.len() == 2).ok_or_else(|| {
        run_err("Arguments to \"Fn::Select\" not fully resolved; should be: [index, collection]")
    })?;
    let index = &l[0];
    let collection = match &l[1] {
        Value::Str(s) if s.is_empty() => return Ok(Value::str("")),
        Value::Str(s) => serde_json::from_str::<serde_json::Value>(s)
            .map(|j| Value::from_json(&j))
            .map_err(|e| run_err(format!("Fn::Select collection is not valid JSON: {e}")))?,
        Value::Null => return Ok(Value::str("")),
        other => other.clone(),
    };
    match &collection {
        Value::Map(m) => {
            let Some(k) = index.as_str() else {
                return Err(run_err("Fn::Select: index into a map must be a string"));
            };
            Ok(m.get(k).cloned().unwrap_or_else(|| Value::str("")))
        }
        Value::List(items) => {
            let i = match index {
                Value::Int(i) => *i,
                other => other
                    .py_str()
                    .trim()
                    .parse::<i64>()
                    .map_err(|_| run_err("Fn::Select: index must be a number"))?,
            };
            let n = items.len() as i64;
            let j = if i < 0 { n + i } else { i };
            Ok(usize::try_from(j)
                .ok()
                .and_then(|j| items.get(j).cloned())
                .unwrap_or_else(|| Value::str("")))
        }
        other => Err(run_err(format!(
            "Fn::Select: collection must be a list or a map, not {}",
            other.py_repr()
        ))),
    }
}

fn member_list_to_map(v: &Value) -> Result<Value, FnError> {
    let usage = || {
        run_err("Wrong Arguments try: '{\"Fn::MemberListToMap\": [\"Name\", \"Value\", [\".member.0.Name=key\", \".member.0.Value=door\"]]}'")
    };
    let l = v.as_list().filter(|l| l.len() == 3).ok_or_else(usage)?;
    let (Some(kn), Some(vn), Some(items)) = (l[0].as_str(), l[1].as_str(), l[2].as_list()) else {
        return Err(usage());
    };
    let mut keys: Vec<(String, String)> = Vec::new();
    let mut vals: Vec<(String, String)> = Vec::new();
    for item in items {
        let s = item.py_str();
        let Some((path, value)) = s.split_once('=') else {
            continue;
        };
        let parts: Vec<&str> = path.split('.').collect();
        if parts.len() < 4 {
            continue;
        }
        let (idx, field) = (parts[2].to_string(), parts[3]);
        if field == kn {
            keys.push((idx, value.to_string()));
        } else if field == vn {
            vals.push((idx, value.to_string()));
        }
    }
    let mut out = Map::new();
    for (idx, k) in keys {
        let v = vals
            .iter()
            .find(|(i, _)| *i == idx)
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        out.insert(Value::str(k), Value::str(v));
    }
    Ok(Value::Map(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn str_replace_is_longest_first_and_single_pass() {
        let pairs = vec![
            ("%a%".to_string(), "%b%".to_string()),
            ("%b%".to_string(), "B".to_string()),
        ];
        assert_eq!(
            replace_once("%a% %b%", &pairs, usize::MAX).unwrap(),
            "%b% B"
        );
    }
}
