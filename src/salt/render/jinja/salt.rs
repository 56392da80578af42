//! The `salt` object templates see: `salt['mod.fun'](...)`, `salt.mod.fun(...)`
//! and `'mod.fun' in salt`, backed by pure Rust versions of Salt's
//! compile-time execution functions ([`functions`]), by mocks for the ones
//! that would ask a live minion, and by the list of functions a Salt 3008.5
//! minion loads (so `salt['nosuch.fn'] is defined` is false, as in Salt).
//!
//! Names resolve in this order:
//! 1. hidden by the mocks' `__unavailable__` patterns → undefined;
//! 2. mocked → the mock's answer;
//! 3. implemented here → computed;
//! 4. loaded by a real minion (`salt/loaded_functions.txt`) → a callable that
//!    fails *when called*, naming the function and how to mock it;
//! 5. anything else → undefined.
//!
//! # Mocks
//!
//! `RenderData::mocks` (the minion config's `mocks:` key, or `--mocks FILE`)
//! maps `"mod.fun"` to an answer:
//!
//! ```yaml
//! mocks:
//!   pkg.version_cmp: 0                 # any other value: the answer to every call
//!   user.info: {return: {}}            # {return: X}: X for every call (use this form
//!                                      # when X itself is a list or has a `return` key)
//!   cmd.run:                           # a list of {args, kwargs, return}: the first
//!     - args: ["uname -s"]             # entry whose args (positional, compared like
//!       return: Linux                  # Python ==) and kwargs (a mapping, order
//!     - kwargs: {python_shell: true}   # ignored) equal the call's; an entry without
//!       return: ""                     # args/kwargs matches any call
//!     - return: fallback
//!   __unavailable__: [postgres.*]      # fnmatch patterns of functions to treat as
//!                                      # not loaded (`is defined` → false)
//! ```
//!
//! A mock also makes its function available (`'mod.fun' in salt`). As in
//! Salt's templates, `cmd.run` and `cmd.shell` answer for each other.
//! Mocks take precedence over the built-in implementations.

use crate::salt::render::jinja::{RenderData, TemplateLoader};
use crate::value::{py_eq, Map, Value};
use indexmap::IndexMap;
use minijinja::value::{Object, ObjectRepr, Value as MjValue, ValueKind};
use minijinja::{Error, ErrorKind, State};
use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, OnceLock};

pub(crate) mod data;
mod functions;

pub(crate) use functions::{posix_join, posix_normpath};

/// The `salt` object templates see (`salt['pillar.get'](...)`, `salt.grains.get(...)`).
pub fn salt_object(data: Arc<RenderData>) -> MjValue {
    salt_object_with_files(data, None)
}

/// The `salt` object, with the fileserver listing `cp.list_states`,
/// `cp.list_master` and `cp.list_master_dirs` answer from.
pub fn salt_object_with_files(
    data: Arc<RenderData>,
    files: Option<Arc<dyn TemplateLoader>>,
) -> MjValue {
    let mocks = Mocks::parse(&data.mocks);
    MjValue::from_object(SaltLoader(Arc::new(Inner { data, mocks, files })))
}

/// Attached (as the error source) to the minijinja error of a call to a
/// function that needs a live minion and has no mock; the engine maps it to
/// `JinjaErrorKind::Unmocked`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnmockedCall {
    /// `mod.fun`.
    pub function: String,
    /// The call as Python would print it: `cmd.run('ls', python_shell=True)`.
    pub call: String,
}

impl fmt::Display for UnmockedCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "salt function '{}' needs a live minion and is not mocked (call: {}); \
             add `{}: <answer>` under `mocks:` in the minion config or pass --mocks FILE",
            self.function, self.call, self.function
        )
    }
}

impl std::error::Error for UnmockedCall {}

// ---------------------------------------------------------------------------
// Value conversion (minijinja ⇄ crate::value)
// ---------------------------------------------------------------------------

/// Convert a template value to the shared model (order, int/float/bool kept).
/// Undefined values and non-data objects (macros, functions) are errors.
pub(crate) fn from_mj(v: &MjValue) -> Result<Value, Error> {
    Ok(match v.kind() {
        ValueKind::Undefined => {
            return Err(Error::new(
                ErrorKind::UndefinedError,
                "undefined value passed to a salt function",
            ))
        }
        ValueKind::Seq | ValueKind::Iterable => {
            let mut out = Vec::with_capacity(v.len().unwrap_or(0));
            for item in v.try_iter()? {
                out.push(from_mj(&item)?);
            }
            Value::List(out.into())
        }
        ValueKind::Map => {
            let mut out = Map::with_capacity(v.len().unwrap_or(0));
            for key in v.try_iter()? {
                let val = v.get_item(&key)?;
                out.insert(from_mj(&key)?, from_mj(&val)?);
            }
            Value::Map(out)
        }
        _ => crate::salt::render::jinja::convert::scalar_from_jinja(v).ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidOperation,
                format!("cannot use {v} as data (a {} value)", v.kind()),
            )
        })?,
    })
}

/// Convert a shared-model value to a template value. Maps and lists become
/// mutable, as the Python dicts and lists Salt's functions return are
/// (`{% do salt['grains.filter_by'](...).pkg.update(...) %}` works in Salt).
pub(crate) fn to_mj(v: &Value) -> MjValue {
    crate::salt::render::jinja::convert::to_jinja(v)
}

/// `data` with the pillar and grains the data functions of `run` hold now.
fn shared_view(
    data: &RenderData,
    run: &crate::salt::render::jinja::shared::RunObjects,
) -> Result<RenderData, Error> {
    use crate::salt::render::jinja::reads::Source;
    let now = |s: Source| match run.function_root(s) {
        Some(root) => from_mj(root),
        None => Ok(data.source(s).clone()),
    };
    Ok(RenderData {
        grains: now(Source::Grains)?,
        pillar: now(Source::Pillar)?,
        opts: data.opts.clone(),
        mocks: data.mocks.clone(),
        pillar_roots: data.pillar_roots.clone(),
        limits: data.limits,
        queries: data.queries.clone(),
    })
}

/// Make the mutable map `target` equal to `merged` (its recursively updated
/// version, computed on a copy) in place, the way Salt's recursive
/// `dictupdate.update` changes it: nested dicts present in both are updated
/// in place (they keep their identity and `OrderedDict`-ness), everything
/// else is assigned. Other targets fall back to [`update_in_place`].
/// `source` is the template value merged in (`upd`): values taken from it
/// keep its maps' types (dict or `OrderedDict`).
pub(crate) fn merge_in_place(
    state: &mut State,
    target: &MjValue,
    merged: &Value,
    source: Option<&MjValue>,
) -> Result<bool, Error> {
    use crate::salt::render::jinja::convert::to_jinja_like;
    use crate::salt::render::jinja::py::MutMap;
    let (Some(m), Value::Map(new)) = (target.downcast_object_ref::<MutMap>(), merged) else {
        return update_in_place(state, target, merged);
    };
    for (k, v) in new {
        let key = to_mj(k);
        let existing = m.lock().get(&key).cloned();
        let from_source = source
            .filter(|s| s.kind() == ValueKind::Map)
            .and_then(|s| s.get_item(&key).ok())
            .filter(|x| !x.is_undefined());
        if let (Some(sub), Value::Map(_)) = (&existing, v) {
            if sub.downcast_object_ref::<MutMap>().is_some() {
                merge_in_place(state, sub, v, from_source.as_ref())?;
                continue;
            }
        }
        let hints: Vec<MjValue> = existing
            .filter(|_| matches!(v, Value::Map(_)))
            .into_iter()
            .chain(from_source)
            .collect();
        m.write().insert(key, to_jinja_like(v, &hints));
    }
    Ok(true)
}

/// Apply Python's `target.update(merged)` to a mutable map of the engine
/// (anything map-like that is not minijinja's native immutable map). Returns
/// false when `target` cannot be mutated (a native map or not a map).
pub(crate) fn update_in_place(
    state: &mut State,
    target: &MjValue,
    merged: &Value,
) -> Result<bool, Error> {
    if target.kind() != ValueKind::Map
        || target.is_kwargs()
        || target
            .downcast_object_ref::<IndexMap<MjValue, MjValue>>()
            .is_some()
    {
        return Ok(false);
    }
    match target.call_method(state, "update", &[to_mj(merged)]) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == ErrorKind::UnknownMethod => Ok(false),
        Err(e) => Err(e),
    }
}

/// A Python exception raised inside a Salt function (`TypeError: ...`):
/// Salt prints its text after `Jinja error: `.
pub(crate) fn py_error(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, message.into())
}

/// Python's AttributeError for a method a template value lacks
/// (`'int' object has no attribute 'splitlines'`).
pub(crate) fn py_no_attribute(v: &MjValue, attr: &str) -> Error {
    py_error(format!(
        "'{}' object has no attribute '{attr}'",
        super::py::print::py_type_name(v)
    ))
}

// ---------------------------------------------------------------------------
// Python-style argument binding
// ---------------------------------------------------------------------------

/// Bound arguments of one call, by parameter position.
pub(crate) struct Bound {
    names: Vec<&'static str>,
    vals: Vec<Option<MjValue>>,
    /// Extra positional arguments (`*args`).
    pub varargs: Vec<MjValue>,
    /// Extra keyword arguments (`**kwargs`), in call order.
    pub varkw: Vec<(String, MjValue)>,
}

impl Bound {
    /// The raw template value of a parameter, if given.
    pub(crate) fn raw(&self, name: &str) -> Option<&MjValue> {
        let i = self.names.iter().position(|n| *n == name)?;
        self.vals[i].as_ref()
    }
    /// A parameter as a shared-model value, if given.
    pub(crate) fn get(&self, name: &str) -> Result<Option<Value>, Error> {
        self.raw(name).map(from_mj).transpose()
    }
    /// A parameter or its default.
    pub(crate) fn get_or(&self, name: &str, default: Value) -> Result<Value, Error> {
        Ok(self.get(name)?.unwrap_or(default))
    }
    /// A parameter's Python truthiness (`default` when not given).
    pub(crate) fn flag(&self, name: &str, default: bool) -> bool {
        self.raw(name).map_or(default, |v| v.is_true())
    }
    /// A parameter as `str(value)` (`default` when not given or None).
    pub(crate) fn string(&self, name: &str, default: &str) -> Result<String, Error> {
        Ok(match self.get(name)? {
            None | Some(Value::Null) => default.to_string(),
            Some(v) => v.py_str(),
        })
    }
}

struct Param {
    name: &'static str,
    required: bool,
    kwonly: bool,
}

struct Sig {
    params: Vec<Param>,
    varargs: bool,
    varkw: bool,
}

/// Parse a Python-like signature: `key, default=, *args, *, kw=, **kwargs`
/// (`=` marks a parameter with a default; the default itself lives in the
/// implementation).
fn parse_sig(sig: &'static str) -> Sig {
    let mut out = Sig {
        params: Vec::new(),
        varargs: false,
        varkw: false,
    };
    let mut kwonly = false;
    for part in sig.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if part == "*" {
            kwonly = true;
        } else if part.starts_with("**") {
            out.varkw = true;
        } else if part.starts_with('*') {
            out.varargs = true;
            kwonly = true;
        } else {
            let (name, required) = match part.strip_suffix('=') {
                Some(n) => (n, false),
                None => (part, true),
            };
            out.params.push(Param {
                name,
                required,
                kwonly,
            });
        }
    }
    out
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn name_list(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        2 => format!("{} and {}", q[0], q[1]),
        n => format!("{}, and {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// Positional values and keyword pairs of one call.
pub(crate) type SplitArgs = (Vec<MjValue>, Vec<(String, MjValue)>);

/// Split template call arguments into positional values and keyword pairs.
pub(crate) fn split_args(args: &[MjValue]) -> Result<SplitArgs, Error> {
    let (pos, kw) = match args.split_last() {
        Some((last, rest)) if last.is_kwargs() => (rest, Some(last)),
        _ => (args, None),
    };
    let mut kwargs = Vec::new();
    if let Some(kw) = kw {
        for key in kw.try_iter()? {
            let val = kw.get_item(&key)?;
            kwargs.push((key.as_str().unwrap_or_default().to_string(), val));
        }
    }
    Ok((pos.to_vec(), kwargs))
}

/// Bind call arguments to `sig` as Python would, with Python's TypeError
/// texts (`get() missing 1 required positional argument: 'key'`).
pub(crate) fn bind(pyname: &str, sig: &'static str, args: &[MjValue]) -> Result<Bound, Error> {
    let sig = parse_sig(sig);
    let (pos, kwargs) = split_args(args)?;
    let mut b = Bound {
        names: sig.params.iter().map(|p| p.name).collect(),
        vals: vec![None; sig.params.len()],
        varargs: Vec::new(),
        varkw: Vec::new(),
    };
    let n_positional = sig.params.iter().filter(|p| !p.kwonly).count();
    for (key, val) in kwargs {
        match sig.params.iter().position(|p| p.name == key) {
            Some(i) if i < pos.len().min(n_positional) => {
                return Err(py_error(format!(
                    "{pyname}() got multiple values for argument '{key}'"
                )))
            }
            Some(i) => b.vals[i] = Some(val),
            None if sig.varkw => b.varkw.push((key, val)),
            None => {
                return Err(py_error(format!(
                    "{pyname}() got an unexpected keyword argument '{key}'"
                )))
            }
        }
    }
    if pos.len() > n_positional && !sig.varargs {
        let required = sig
            .params
            .iter()
            .filter(|p| !p.kwonly && p.required)
            .count();
        let takes = if required == n_positional {
            plural(n_positional, "positional argument", "positional arguments")
        } else {
            format!("from {required} to {n_positional} positional arguments")
        };
        let given = pos.len();
        let verb = if given == 1 { "was" } else { "were" };
        return Err(py_error(format!(
            "{pyname}() takes {takes} but {given} {verb} given"
        )));
    }
    for (i, v) in pos.into_iter().enumerate() {
        if i < n_positional {
            b.vals[i] = Some(v);
        } else {
            b.varargs.push(v);
        }
    }
    for kwonly in [false, true] {
        let missing: Vec<&str> = sig
            .params
            .iter()
            .zip(&b.vals)
            .filter(|(p, v)| p.kwonly == kwonly && p.required && v.is_none())
            .map(|(p, _)| p.name)
            .collect();
        if !missing.is_empty() {
            let what = if kwonly { "keyword-only" } else { "positional" };
            return Err(py_error(format!(
                "{pyname}() missing {} required {what} {}: {}",
                missing.len(),
                if missing.len() == 1 {
                    "argument"
                } else {
                    "arguments"
                },
                name_list(&missing)
            )));
        }
    }
    Ok(b)
}

// ---------------------------------------------------------------------------
// Mocks
// ---------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct MockCall {
    args: Option<crate::value::List>,
    kwargs: Option<Map>,
    ret: Value,
}

#[derive(Debug, Clone)]
enum Mock {
    Always(Value),
    Calls(Vec<MockCall>),
}

#[derive(Debug, Clone, Default)]
struct Mocks {
    functions: IndexMap<String, Mock>,
    unavailable: Vec<String>,
}

impl Mocks {
    fn parse(v: &Value) -> Mocks {
        let mut out = Mocks::default();
        let Some(map) = v.as_map() else { return out };
        for (k, v) in map {
            let name = k.py_str();
            if name == "__unavailable__" {
                match v {
                    Value::List(l) => out.unavailable.extend(l.iter().map(Value::py_str)),
                    other => out.unavailable.push(other.py_str()),
                }
                continue;
            }
            out.functions.insert(name, Mock::from_value(v));
        }
        out
    }

    fn get(&self, name: &str) -> Option<&Mock> {
        self.functions.get(name).or_else(|| match name {
            "cmd.run" => self.functions.get("cmd.shell"),
            "cmd.shell" => self.functions.get("cmd.run"),
            _ => None,
        })
    }

    fn hidden(&self, name: &str) -> bool {
        self.unavailable
            .iter()
            .any(|p| crate::fnmatch::fnmatch(name, p))
    }
}

impl Mock {
    fn from_value(v: &Value) -> Mock {
        match v {
            Value::Map(m) if m.len() == 1 && m.contains_key("return") => {
                Mock::Always(m.get("return").cloned().unwrap_or_default())
            }
            Value::List(l)
                if !l.is_empty()
                    && l.iter()
                        .all(|e| e.as_map().is_some_and(|m| m.contains_key("return"))) =>
            {
                Mock::Calls(
                    l.iter()
                        .filter_map(Value::as_map)
                        .map(|m| MockCall {
                            args: m.get("args").map(|a| match a {
                                Value::List(l) => l.clone(),
                                other => crate::value::list![other.clone()],
                            }),
                            kwargs: m.get("kwargs").and_then(Value::as_map).cloned(),
                            ret: m.get("return").cloned().unwrap_or_default(),
                        })
                        .collect(),
                )
            }
            other => Mock::Always(other.clone()),
        }
    }

    fn answer(&self, args: &[Value], kwargs: &Map) -> Option<&Value> {
        match self {
            Mock::Always(v) => Some(v),
            Mock::Calls(calls) => calls
                .iter()
                .find(|c| {
                    c.args.as_ref().is_none_or(|a| {
                        a.len() == args.len() && a.iter().zip(args).all(|(x, y)| py_eq(x, y))
                    }) && c
                        .kwargs
                        .as_ref()
                        .is_none_or(|k| py_eq(&Value::Map(k.clone()), &Value::Map(kwargs.clone())))
                })
                .map(|c| &c.ret),
        }
    }
}

// ---------------------------------------------------------------------------
// The loader objects
// ---------------------------------------------------------------------------

struct Inner {
    data: Arc<RenderData>,
    mocks: Mocks,
    files: Option<Arc<dyn TemplateLoader>>,
}

/// Functions a Salt 3008.5 minion loads (generated, see the file's header).
fn loaded_functions() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| {
        include_str!("salt/loaded_functions.txt")
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Mocked,
    Implemented,
    LiveOnly,
}

impl Inner {
    fn resolve(&self, name: &str) -> Option<Kind> {
        if self.mocks.hidden(name) {
            None
        } else if self.mocks.get(name).is_some() {
            Some(Kind::Mocked)
        } else if functions::exists(name) && (self.files.is_some() || !functions::needs_files(name))
        {
            Some(Kind::Implemented)
        } else if loaded_functions().contains(name) {
            Some(Kind::LiveOnly)
        } else {
            None
        }
    }

    fn module_exists(&self, module: &str) -> bool {
        let prefix = format!("{module}.");
        self.mocks
            .functions
            .keys()
            .any(|k| k.starts_with(&prefix) && !self.mocks.hidden(k))
            || functions::module_exists(module)
            || loaded_functions()
                .iter()
                .any(|k| k.starts_with(&prefix) && !self.mocks.hidden(k))
    }

    fn call(&self, state: &mut State, name: &str, args: &[MjValue]) -> Result<MjValue, Error> {
        match self.resolve(name) {
            Some(Kind::Mocked) => {
                let (pos, kw) = split_args(args)?;
                let pos = pos.iter().map(from_mj).collect::<Result<Vec<_>, _>>()?;
                let mut kwargs = Map::new();
                for (k, v) in kw {
                    kwargs.insert(Value::Str(k.into()), from_mj(&v)?);
                }
                match self.mocks.get(name).and_then(|m| m.answer(&pos, &kwargs)) {
                    Some(v) => Ok(to_mj(v)),
                    None => Err(py_error(format!(
                        "no mock of salt function '{name}' matches the call {}; \
                         add an entry with these args (or one without args) to `mocks:`",
                        call_repr(name, &pos, &kwargs)
                    ))),
                }
            }
            Some(Kind::Implemented) => {
                // A render sharing the run's objects calls the functions
                // that read the minion's data on what those hold now.
                let run = crate::salt::render::jinja::shared::current();
                let now = match &run {
                    Some(r) if functions::reads_data(name) => {
                        Some(r.view(|| shared_view(&self.data, r))?)
                    }
                    _ => None,
                };
                let mut call = functions::Call {
                    data: now.as_deref().unwrap_or(&self.data),
                    original: &self.data,
                    run: run.as_deref(),
                    files: self.files.as_deref(),
                    state,
                };
                functions::call(&mut call, name, args)
            }
            Some(Kind::LiveOnly) | None => {
                let (pos, kw) = split_args(args)?;
                let pos: Vec<Value> = pos
                    .iter()
                    .map(|v| from_mj(v).unwrap_or(Value::Null))
                    .collect();
                let mut kwargs = Map::new();
                for (k, v) in kw {
                    kwargs.insert(Value::Str(k.into()), from_mj(&v).unwrap_or(Value::Null));
                }
                // Queries about the minion's state answer as a fresh minion
                // would (nothing installed, no users, no mine), with one
                // warning per function; --strict makes them errors.
                if !self.data.queries.strict {
                    // `status.time(format=...)`: the format by keyword.
                    let mut args = pos.clone();
                    if let (Some(f), true) = (kwargs.get("format"), args.is_empty()) {
                        args.push(f.clone());
                    }
                    if let Some(answer) = fresh_minion_answer(name, &args, self.data.queries.base) {
                        if let Ok(mut used) = self.data.queries.answered.lock() {
                            used.insert(name.to_string());
                        }
                        if let Ok(mut by) = self.data.queries.answered_by.lock() {
                            by.insert(self.data.queries.profile.clone());
                        }
                        crate::salt::render::jinja::reads::answered(name);
                        return Ok(to_mj(&answer));
                    }
                }
                let un = UnmockedCall {
                    function: name.to_string(),
                    call: call_repr(name, &pos, &kwargs),
                };
                Err(Error::new(ErrorKind::InvalidOperation, un.to_string()).with_source(un))
            }
        }
    }
}

/// What a freshly installed minion answers to a query about its own state:
/// the OS profile's base system when it has one (`base`: its packages,
/// executables, services, users, groups and files), else an empty system
/// (nothing installed or running, no users or groups); an empty mine, no
/// files outside the base system, a clock that reads the Unix epoch
/// (`status.time`). Only functions that exist in Salt 3008.5
/// and that real trees call at render time (`docs/COMPATIBILITY.md` lists
/// them); anything else still needs a mock.
pub fn fresh_minion_answer(
    name: &str,
    args: &[Value],
    base: Option<&crate::salt::grains::BaseSystem>,
) -> Option<Value> {
    let map = || Value::Map(Map::new());
    let arg = || args.first().map(Value::py_str).unwrap_or_default();
    let version = |n: &str| {
        base.and_then(|b| b.packages.get(n).cloned())
            .unwrap_or_else(|| Value::str(""))
    };
    Some(match name {
        "mine.get" => map(),
        "user.info" => base.map_or_else(map, |b| b.user_info(&arg())),
        "group.info" => base.map_or_else(map, |b| b.group_info(&arg())),
        "pkg.list_pkgs" => base.map_or_else(map, |b| Value::Map(b.packages.clone())),
        "cmd.which" => base
            .and_then(|b| b.which(&arg()))
            .map_or(Value::Null, Value::from),
        "cmd.has_exec" => Value::Bool(base.is_some_and(|b| b.which(&arg()).is_some())),
        "file.file_exists" => Value::Bool(base.is_some_and(|b| b.files.contains(&arg()))),
        "service.available" => Value::Bool(
            base.is_some_and(|b| b.services.contains(arg().trim_end_matches(".service"))),
        ),
        "file.directory_exists" | "file.is_link" | "service.enabled" | "service.status" => {
            Value::Bool(false)
        }
        // pkg.version('a') is '', pkg.version('a', 'b') is {'a': '', 'b': ''}.
        "pkg.version" if args.len() > 1 => Value::Map(
            args.iter()
                .map(|a| (Value::str(a.py_str()), version(&a.py_str())))
                .collect(),
        ),
        "pkg.version" => version(&arg()),
        // Salt formats `datetime.today()`; the clock is not known offline.
        "status.time" => Value::from(super::strftime::at_epoch(
            &args
                .first()
                .map_or_else(|| "%A, %d. %B %Y %I:%M%p".to_string(), Value::py_str),
        )?),
        _ => return None,
    })
}

/// The functions [`fresh_minion_answer`] answers, with the answer (for
/// warnings and docs).
pub const FRESH_MINION_ANSWERS: &[(&str, &str)] = &[
    (
        "cmd.has_exec",
        "`True` for the base system's executables, else `False`",
    ),
    (
        "cmd.which",
        "the base system's path of the executable, else `None`",
    ),
    ("file.directory_exists", "`False`"),
    (
        "file.file_exists",
        "`True` for the base system's files, else `False`",
    ),
    ("file.is_link", "`False`"),
    (
        "group.info",
        "the base system's group (Debian: base-passwd's), else `{}`",
    ),
    ("mine.get", "`{}`"),
    ("pkg.list_pkgs", "the base system's packages, else `{}`"),
    (
        "pkg.version",
        "the base package's version, else `''` (for several names, `{name: version}`)",
    ),
    (
        "service.available",
        "`True` for the base system's services, else `False`",
    ),
    ("service.enabled", "`False`"),
    ("service.status", "`False`"),
    (
        "status.time",
        "the Unix epoch (1970-01-01 00:00:00) in the format asked",
    ),
    (
        "user.info",
        "the base system's user (Debian: base-passwd's), else `{}`",
    ),
];

fn call_repr(name: &str, args: &[Value], kwargs: &Map) -> String {
    let mut parts: Vec<String> = args.iter().map(Value::py_repr).collect();
    parts.extend(
        kwargs
            .iter()
            .map(|(k, v)| format!("{}={}", k.py_str(), v.py_repr())),
    );
    format!("{name}({})", parts.join(", "))
}

#[derive(Clone)]
struct SaltLoader(Arc<Inner>);

impl fmt::Debug for SaltLoader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<salt loader>")
    }
}

impl Object for SaltLoader {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &MjValue) -> Option<MjValue> {
        let key = key.as_str()?;
        if key.contains('.') {
            self.0.resolve(key)?;
            Some(MjValue::from_object(SaltFunction {
                inner: self.0.clone(),
                name: key.to_string(),
            }))
        } else if self.0.module_exists(key) {
            Some(MjValue::from_object(SaltModule {
                inner: self.0.clone(),
                module: key.to_string(),
            }))
        } else {
            None
        }
    }

    fn enumerate(self: &Arc<Self>) -> minijinja::value::Enumerator {
        minijinja::value::Enumerator::Empty
    }

    fn is_true(self: &Arc<Self>) -> bool {
        true
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<LazyLoader>")
    }
}

struct SaltModule {
    inner: Arc<Inner>,
    module: String,
}

impl fmt::Debug for SaltModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<salt module {}>", self.module)
    }
}

impl Object for SaltModule {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn get_value(self: &Arc<Self>, key: &MjValue) -> Option<MjValue> {
        let name = format!("{}.{}", self.module, key.as_str()?);
        self.inner.resolve(&name)?;
        Some(MjValue::from_object(SaltFunction {
            inner: self.inner.clone(),
            name,
        }))
    }

    fn call_method(
        self: &Arc<Self>,
        state: &mut State<'_, '_>,
        method: &str,
        args: &[MjValue],
    ) -> Result<MjValue, Error> {
        let name = format!("{}.{}", self.module, method);
        if self.inner.resolve(&name).is_none() {
            return Err(Error::new(
                ErrorKind::UnknownMethod,
                format!("salt function '{name}' is not available"),
            ));
        }
        self.inner.call(state, &name, args)
    }
}

struct SaltFunction {
    inner: Arc<Inner>,
    name: String,
}

impl fmt::Debug for SaltFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<salt function {}>", self.name)
    }
}

impl Object for SaltFunction {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn call(
        self: &Arc<Self>,
        state: &mut State<'_, '_>,
        args: &[MjValue],
    ) -> Result<MjValue, Error> {
        self.inner.call(state, &self.name, args)
    }
}

#[cfg(test)]
mod tests;
