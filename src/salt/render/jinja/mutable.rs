//! Python-like mutable containers for templates: `MutMap` (a dict) and
//! `MutList` (a list) are minijinja objects with interior mutability, so
//! `{% do d.update(x) %}`, `l.append(y)`, `setdefault`, `pop`... change the
//! one shared object, as in Jinja2. They iterate, compare, print and
//! serialise like engine maps and lists. Also the unknown-method callback:
//! Python string methods minijinja-contrib's pycompat lacks, then pycompat.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use indexmap::IndexMap;
use minijinja::value::{Enumerator, Kwargs, Object, ObjectRepr, Value, ValueKind};
use minijinja::{Error, ErrorKind, State};

use super::pyfmt;
use super::reads::{self, Source};

/// A mutable dict, insertion-ordered. The flag marks an `OrderedDict`
/// (made by `odict()`): it prints like a dict, but the `yaml` filter keeps
/// its key order where it sorts a plain dict's keys. The root maps of a
/// render's `grains`, `pillar` and `opts` carry their [`Source`]: reading
/// them by string key notes that key on the read log
/// ([`super::reads`]), every other access notes the whole source.
#[derive(Default)]
pub struct MutMap(Mutex<IndexMap<Value, Value>>, bool, Option<Box<Root>>);

/// What a render's root map (`grains`, `pillar`, `opts`) has beyond a
/// dict: the source its reads are noted against, and until the first
/// access, the function that makes its entries (most templates read
/// little of `opts` and nothing of many roots, so a root is only
/// converted once something looks at it).
pub struct Root {
    source: Source,
    fill: Mutex<Option<Fill>>,
}

/// Makes a lazily filled root map's entries.
pub type Fill = Box<dyn FnOnce() -> IndexMap<Value, Value> + Send>;

/// A mutable list.
#[derive(Default)]
pub struct MutList(Mutex<Vec<Value>>);

impl MutMap {
    /// The entries (a poisoned lock still yields the data). On a tracked
    /// root map this is a read of the whole source.
    pub fn lock(&self) -> MutexGuard<'_, IndexMap<Value, Value>> {
        if let Some(root) = &self.2 {
            reads::everything(root.source);
        }
        self.raw()
    }

    /// The entries, without noting a read (the caller notes what it reads);
    /// a lazy root's are made on the first call.
    fn raw(&self) -> MutexGuard<'_, IndexMap<Value, Value>> {
        let mut entries = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(root) = &self.2 {
            let fill = root.fill.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(fill) = fill {
                *entries = fill();
            }
        }
        entries
    }

    /// Note a read of `key` (a string key reads that key, anything else
    /// the whole source) on a tracked root map.
    fn note_key(&self, key: &Value) {
        if let Some(root) = &self.2 {
            match key.as_str() {
                Some(k) => reads::key(root.source, k),
                None => reads::everything(root.source),
            }
        }
    }

    /// Is this an `OrderedDict`?
    pub fn is_ordered(&self) -> bool {
        self.1
    }
}

impl MutList {
    /// The list, locked.
    pub fn lock(&self) -> MutexGuard<'_, Vec<Value>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl fmt::Debug for MutMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.lock().iter()).finish()
    }
}

impl fmt::Debug for MutList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.lock().iter()).finish()
    }
}

/// A new mutable dict holding `m`.
pub fn new_map(m: IndexMap<Value, Value>) -> Value {
    Value::from_object(MutMap(Mutex::new(m), false, None))
}

/// A new mutable `OrderedDict` holding `m`.
pub fn new_ordered_map(m: IndexMap<Value, Value>) -> Value {
    Value::from_object(MutMap(Mutex::new(m), true, None))
}

/// `v` as the root map of `source` in a render's context: the same dict,
/// whose reads go to the read log. `v` must be fresh (not shared yet): a
/// map's entries move into the tracked one. Anything else is returned as is.
pub fn track(v: Value, source: Source) -> Value {
    match v.downcast_object_ref::<MutMap>() {
        Some(m) => {
            let entries = std::mem::take(&mut *m.raw());
            Value::from_object(MutMap(
                Mutex::new(entries),
                m.1,
                Some(Box::new(Root {
                    source,
                    fill: Mutex::new(None),
                })),
            ))
        }
        None => v,
    }
}

/// A root dict of `source` (as [`track`] makes) whose entries `fill` makes
/// when the template first looks at it.
pub fn track_lazy(source: Source, fill: Fill) -> Value {
    Value::from_object(MutMap(
        Mutex::default(),
        false,
        Some(Box::new(Root {
            source,
            fill: Mutex::new(Some(fill)),
        })),
    ))
}

/// A new mutable list holding `v`.
pub fn new_list(v: Vec<Value>) -> Value {
    Value::from_object(MutList(Mutex::new(v)))
}

fn none() -> Value {
    Value::from(())
}

fn err(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, msg.into())
}

/// Is `v` an `OrderedDict` (a mutable dict made ordered)?
pub fn is_ordered_map(v: &Value) -> bool {
    v.downcast_object_ref::<MutMap>()
        .is_some_and(MutMap::is_ordered)
}

/// Is `v` one of our mutable containers?
pub fn is_mutable(v: &Value) -> bool {
    v.downcast_object_ref::<MutMap>().is_some() || v.downcast_object_ref::<MutList>().is_some()
}

/// The `(key, value)` pairs of a map-like value, or of a sequence of pairs
/// (what Python's `dict()` / `dict.update()` accept).
pub fn pairs_of(v: &Value) -> Result<Vec<(Value, Value)>, Error> {
    if let Some(m) = v.downcast_object_ref::<MutMap>() {
        return Ok(m
            .lock()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect());
    }
    match v.kind() {
        ValueKind::Map => {
            let mut out = Vec::new();
            for k in v.try_iter()? {
                let val = v.get_item(&k)?;
                out.push((k, val));
            }
            Ok(out)
        }
        // A string is an iterable of one-character strings: `''` updates
        // nothing (Salt's `pillar.get` default), any other fails.
        ValueKind::Seq | ValueKind::Iterable | ValueKind::String => {
            let mut out = Vec::new();
            for (n, item) in v.try_iter()?.enumerate() {
                let pair: Option<Vec<Value>> = match item.as_str() {
                    Some(s) => Some(s.chars().map(|c| Value::from(c.to_string())).collect()),
                    None if matches!(item.kind(), ValueKind::Seq | ValueKind::Map) => {
                        Some(item.try_iter()?.collect())
                    }
                    None => None,
                };
                match pair.as_deref() {
                    Some([k, v]) => out.push((k.clone(), v.clone())),
                    Some(other) => {
                        return Err(err(format!(
                            "dictionary update sequence element #{n} has length {}; 2 is required",
                            other.len()
                        )))
                    }
                    None => {
                        return Err(err(format!(
                            "cannot convert dictionary update sequence element #{n} to a sequence"
                        )))
                    }
                }
            }
            Ok(out)
        }
        // Python: `'NoneType' object is not iterable` (`d.update(None)`).
        ValueKind::Undefined => Ok(Vec::new()),
        _ => Err(err(format!(
            "'{}' object is not iterable",
            pyfmt::py_type_name(v)
        ))),
    }
}

/// Shallow conversion used for literals and `{% set %}` values: an engine
/// map, list or lazy sequence becomes mutable (children kept as they are);
/// everything else (our containers, tuples, namespaces, modules, macros,
/// undefined) passes through unchanged so identity is kept.
pub fn to_mut_shallow(v: Value) -> Value {
    if is_mutable(&v) || v.is_tuple() || v.is_undefined() {
        return v;
    }
    if let Some(m) = v.downcast_object_ref::<IndexMap<Value, Value>>() {
        return new_map(m.clone());
    }
    if let Some(l) = v.downcast_object_ref::<Vec<Value>>() {
        return new_list(l.clone());
    }
    if v.kind() == ValueKind::Iterable
        && v.as_object()
            .is_some_and(|o| o.repr() == ObjectRepr::Iterable)
    {
        if let Ok(it) = v.try_iter() {
            return new_list(it.collect());
        }
    }
    v
}

/// Python containers are mutable at every depth: an engine-native map or
/// list stored inside one of ours (the result of a filter or a `salt`
/// function) is made mutable in place the first time it is reached, so
/// `{% do d.conf.update(x) %}` changes `d`.
fn promote(v: &mut Value) {
    if matches!(v.kind(), ValueKind::Map | ValueKind::Seq) && !is_mutable(v) && !v.is_tuple() {
        *v = to_mut_shallow(v.clone());
    }
}

/// Deep conversion: every map and sequence (not strings) becomes mutable.
pub fn to_mut_deep(v: Value) -> Value {
    if v.is_tuple() {
        return v;
    }
    match v.kind() {
        ValueKind::Map => {
            let pairs = pairs_of(&v).unwrap_or_default();
            new_map(
                pairs
                    .into_iter()
                    .map(|(k, v)| (k, to_mut_deep(v)))
                    .collect(),
            )
        }
        ValueKind::Seq => {
            let items: Vec<Value> = v
                .try_iter()
                .map(|it| it.map(to_mut_deep).collect())
                .unwrap_or_default();
            new_list(items)
        }
        _ => v,
    }
}

/// Split `args` into positional arguments and keyword arguments.
fn split_kwargs(args: &[Value]) -> (&[Value], Option<Kwargs>) {
    match args.last() {
        Some(last) if last.is_kwargs() => {
            (&args[..args.len() - 1], Kwargs::try_from(last.clone()).ok())
        }
        _ => (args, None),
    }
}

fn arity(method: &str, args: &[Value], min: usize, max: usize) -> Result<(), Error> {
    if args.len() < min || args.len() > max {
        let what = if min == max {
            format!("exactly {min}")
        } else if args.len() < min {
            format!("at least {min}")
        } else {
            format!("at most {max}")
        };
        return Err(Error::new(
            if args.len() < min {
                ErrorKind::MissingArgument
            } else {
                ErrorKind::TooManyArguments
            },
            format!("{method}() takes {what} argument(s) ({} given)", args.len()),
        ));
    }
    Ok(())
}

fn no_kwargs(method: &str, kw: &Option<Kwargs>) -> Result<(), Error> {
    match kw {
        Some(k) if k.args().next().is_some() => Err(Error::new(
            ErrorKind::TooManyArguments,
            format!("{method}() takes no keyword arguments"),
        )),
        _ => Ok(()),
    }
}

/// The list of items of any iterable value (collected before any lock is taken).
fn items_of(v: &Value) -> Result<Vec<Value>, Error> {
    if let Some(l) = v.downcast_object_ref::<MutList>() {
        return Ok(l.lock().clone());
    }
    Ok(v.try_iter()?.collect())
}

impl Object for MutMap {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        self.note_key(key);
        let mut m = self.raw();
        let v = m.get_mut(key)?;
        promote(v);
        Some(v.clone())
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Values(self.lock().keys().cloned().collect())
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.lock().len())
    }

    fn call_method(
        self: &Arc<Self>,
        _state: &mut State<'_, '_>,
        method: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        let (args, kwargs) = split_kwargs(args);
        match method {
            "update" => {
                arity(method, args, 0, 1)?;
                let mut new = match args.first() {
                    Some(o) => pairs_of(o)?,
                    None => Vec::new(),
                };
                if let Some(kw) = &kwargs {
                    for k in kw.args() {
                        new.push((Value::from(k), kw.peek::<Value>(k)?));
                    }
                }
                let mut m = self.lock();
                for (k, v) in new {
                    m.insert(k, v);
                }
                Ok(none())
            }
            _ => {
                no_kwargs(method, &kwargs)?;
                self.plain_method(method, args)
            }
        }
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&pyfmt::py_repr(&Value::from_dyn_object(self.clone())))
    }
}

impl MutMap {
    fn plain_method(self: &Arc<Self>, method: &str, args: &[Value]) -> Result<Value, Error> {
        match method {
            "get" => {
                arity(method, args, 1, 2)?;
                self.note_key(&args[0]);
                Ok(self
                    .raw()
                    .get(&args[0])
                    .cloned()
                    .unwrap_or_else(|| args.get(1).cloned().unwrap_or_else(none)))
            }
            "setdefault" => {
                arity(method, args, 1, 2)?;
                let default = args.get(1).cloned().unwrap_or_else(none);
                Ok(self
                    .lock()
                    .entry(args[0].clone())
                    .or_insert(default)
                    .clone())
            }
            "pop" => {
                arity(method, args, 1, 2)?;
                let removed = self.lock().shift_remove(&args[0]);
                match (removed, args.get(1)) {
                    (Some(v), _) => Ok(v),
                    (None, Some(d)) => Ok(d.clone()),
                    (None, None) => Err(err(format!("KeyError: {}", pyfmt::py_repr(&args[0])))),
                }
            }
            "popitem" => {
                arity(method, args, 0, 0)?;
                match self.lock().pop() {
                    Some((k, v)) => Ok(Value::from(vec![k, v])),
                    None => Err(err("KeyError: 'popitem(): dictionary is empty'")),
                }
            }
            "keys" => {
                arity(method, args, 0, 0)?;
                Ok(new_list(self.lock().keys().cloned().collect()))
            }
            "values" => {
                arity(method, args, 0, 0)?;
                Ok(new_list(self.lock().values().cloned().collect()))
            }
            "items" => {
                arity(method, args, 0, 0)?;
                let items = self
                    .lock()
                    .iter()
                    .map(|(k, v)| {
                        Value::from(minijinja::value::Tuple::from([k.clone(), v.clone()]))
                    })
                    .collect();
                Ok(new_list(items))
            }
            "copy" => {
                arity(method, args, 0, 0)?;
                Ok(Value::from_object(MutMap(
                    Mutex::new(self.lock().clone()),
                    self.1,
                    None,
                )))
            }
            "clear" => {
                arity(method, args, 0, 0)?;
                self.lock().clear();
                Ok(none())
            }
            "has_key" => {
                arity(method, args, 1, 1)?;
                Ok(Value::from(self.lock().contains_key(&args[0])))
            }
            _ => Err(Error::from(ErrorKind::UnknownMethod)),
        }
    }
}

/// Python's index normalisation (`-1` is the last item).
fn norm_index(len: usize, idx: i64) -> Option<usize> {
    let i = if idx < 0 { len as i64 + idx } else { idx };
    (i >= 0 && (i as usize) < len).then_some(i as usize)
}

/// An integer argument of a Python method or filter (`TypeError`
/// otherwise).
pub(super) fn int_arg(v: &Value) -> Result<i64, Error> {
    i64::try_from(v.clone()).map_err(|_| err("TypeError: an integer is required"))
}

impl Object for MutList {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        let idx = key.as_i64()?;
        let mut v = self.lock();
        let i = norm_index(v.len(), idx)?;
        promote(&mut v[i]);
        Some(v[i].clone())
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        let mut v = self.lock();
        v.iter_mut().for_each(promote);
        Enumerator::Values(v.clone())
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.lock().len())
    }

    fn call_method(
        self: &Arc<Self>,
        state: &mut State<'_, '_>,
        method: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        let (args, kwargs) = split_kwargs(args);
        if method == "sort" {
            return self.sort(state, args, kwargs);
        }
        no_kwargs(method, &kwargs)?;
        match method {
            "append" => {
                arity(method, args, 1, 1)?;
                self.lock().push(args[0].clone());
                Ok(none())
            }
            "extend" => {
                arity(method, args, 1, 1)?;
                let items = items_of(&args[0])?;
                self.lock().extend(items);
                Ok(none())
            }
            "insert" => {
                arity(method, args, 2, 2)?;
                let idx = int_arg(&args[0])?;
                let mut v = self.lock();
                let len = v.len() as i64;
                let i = if idx < 0 {
                    (len + idx).max(0)
                } else {
                    idx.min(len)
                };
                v.insert(i as usize, args[1].clone());
                Ok(none())
            }
            "pop" => {
                arity(method, args, 0, 1)?;
                let idx = match args.first() {
                    Some(i) => int_arg(i)?,
                    None => -1,
                };
                let mut v = self.lock();
                if v.is_empty() {
                    return Err(err("IndexError: pop from empty list"));
                }
                let i = norm_index(v.len(), idx)
                    .ok_or_else(|| err("IndexError: pop index out of range"))?;
                Ok(v.remove(i))
            }
            "remove" => {
                arity(method, args, 1, 1)?;
                let mut v = self.lock();
                let i = v
                    .iter()
                    .position(|y| *y == args[0])
                    .ok_or_else(|| err("ValueError: list.remove(x): x not in list"))?;
                v.remove(i);
                Ok(none())
            }
            "index" => {
                arity(method, args, 1, 1)?;
                let v = self.lock();
                v.iter()
                    .position(|y| *y == args[0])
                    .map(Value::from)
                    .ok_or_else(|| {
                        err(format!(
                            "ValueError: {} is not in list",
                            pyfmt::py_repr(&args[0])
                        ))
                    })
            }
            "count" => {
                arity(method, args, 1, 1)?;
                Ok(Value::from(
                    self.lock().iter().filter(|y| **y == args[0]).count(),
                ))
            }
            "reverse" => {
                arity(method, args, 0, 0)?;
                self.lock().reverse();
                Ok(none())
            }
            "copy" => {
                arity(method, args, 0, 0)?;
                Ok(new_list(self.lock().clone()))
            }
            "clear" => {
                arity(method, args, 0, 0)?;
                self.lock().clear();
                Ok(none())
            }
            _ => Err(Error::from(ErrorKind::UnknownMethod)),
        }
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&pyfmt::py_repr(&Value::from_dyn_object(self.clone())))
    }
}

impl MutList {
    /// `list.sort(key=None, reverse=False)`; `key` may be any callable.
    fn sort(
        self: &Arc<Self>,
        state: &mut State<'_, '_>,
        args: &[Value],
        kwargs: Option<Kwargs>,
    ) -> Result<Value, Error> {
        arity("sort", args, 0, 0)?;
        let (key, reverse) = match &kwargs {
            Some(kw) => (
                kw.get::<Option<Value>>("key")?,
                kw.get::<Option<bool>>("reverse")?.unwrap_or(false),
            ),
            None => (None, false),
        };
        if let Some(kw) = &kwargs {
            kw.assert_all_used()?;
        }
        let items = self.lock().clone();
        let mut keyed = Vec::with_capacity(items.len());
        for item in items {
            let k = match &key {
                Some(f) if !f.is_none() => f.call(state, std::slice::from_ref(&item))?,
                _ => item.clone(),
            };
            keyed.push((k, item));
        }
        // Python's order (stable, also reversed), or its TypeError for
        // values of different types.
        *self.lock() = super::pyorder::sort_keyed(keyed, reverse)?;
        Ok(none())
    }
}

const MUTATORS: &[&str] = &[
    "update",
    "setdefault",
    "pop",
    "popitem",
    "clear",
    "append",
    "extend",
    "insert",
    "remove",
    "reverse",
    "sort",
];

/// The unknown-method callback: Python string methods pycompat lacks, then
/// pycompat (with container results made mutable), then a clear error for
/// mutators called on an immutable engine value.
pub fn unknown_method(
    state: &mut State,
    value: &Value,
    method: &str,
    args: &[Value],
) -> Result<Value, Error> {
    if let (Some(b), "decode") = (value.as_bytes(), method) {
        return py_decode(b, str_arg(args, 0)?.unwrap_or("utf-8"));
    }
    if let Some(s) = value.as_str().filter(|_| value.kind() == ValueKind::String) {
        if let Some(rv) = string_method(s, method, args)? {
            return Ok(rv);
        }
    }
    if matches!(value.kind(), ValueKind::Map | ValueKind::Seq)
        && method == "copy"
        && args.is_empty()
    {
        return Ok(to_mut_shallow_copy(value));
    }
    match minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args) {
        Ok(rv) => Ok(to_mut_shallow(rv)),
        Err(e) if e.kind() == ErrorKind::UnknownMethod => {
            if MUTATORS.contains(&method) && matches!(value.kind(), ValueKind::Map | ValueKind::Seq)
            {
                Err(err(format!(
                    "cannot call .{method}() on an immutable {} (the result of a filter or operator); \
                     assign it with {{% set %}} first",
                    if value.kind() == ValueKind::Map { "dict" } else { "list" }
                )))
            } else {
                // Jinja2's `object_type_repr`: `None` is named as such.
                let owner = if value.is_none() {
                    "None".to_string()
                } else {
                    format!("{} object", pyfmt::py_type_name(value))
                };
                Err(Error::new(
                    ErrorKind::UnknownMethod,
                    format!("'{owner}' has no attribute '{method}'"),
                ))
            }
        }
        Err(e) => Err(e),
    }
}

fn to_mut_shallow_copy(v: &Value) -> Value {
    if v.kind() == ValueKind::Map {
        new_map(pairs_of(v).unwrap_or_default().into_iter().collect())
    } else {
        new_list(v.try_iter().map(|i| i.collect()).unwrap_or_default())
    }
}

fn str_arg(args: &[Value], i: usize) -> Result<Option<&str>, Error> {
    match args.get(i) {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => v
            .as_str()
            .map(Some)
            .ok_or_else(|| err("TypeError: must be str")),
    }
}

/// Python's `str.split`/`rsplit` without a separator (runs of whitespace).
fn split_ws(s: &str, maxsplit: i64, from_right: bool) -> Vec<Value> {
    let words: Vec<&str> = s
        .split(pyfmt::is_py_space)
        .filter(|w| !w.is_empty())
        .collect();
    if maxsplit < 0 || words.len() as i64 <= maxsplit + 1 {
        return words.into_iter().map(Value::from).collect();
    }
    let n = maxsplit as usize;
    if from_right {
        // keep the leftmost remainder intact (without its trailing whitespace)
        let mut out = Vec::new();
        let mut rest = s.trim_end_matches(pyfmt::is_py_space);
        for _ in 0..n {
            let cut = rest.rfind(pyfmt::is_py_space).unwrap_or(0);
            out.push(Value::from(
                rest[cut..].trim_start_matches(pyfmt::is_py_space),
            ));
            rest = rest[..cut].trim_end_matches(pyfmt::is_py_space);
        }
        out.push(Value::from(rest));
        out.reverse();
        out
    } else {
        let mut out = Vec::new();
        let mut rest = s.trim_start_matches(pyfmt::is_py_space);
        for _ in 0..n {
            let cut = rest.find(pyfmt::is_py_space).unwrap_or(rest.len());
            out.push(Value::from(&rest[..cut]));
            rest = rest[cut..].trim_start_matches(pyfmt::is_py_space);
        }
        out.push(Value::from(rest));
        out
    }
}

/// Python string methods missing from pycompat. `Ok(None)`: not ours.
fn string_method(s: &str, method: &str, all_args: &[Value]) -> Result<Option<Value>, Error> {
    let (args, kwargs) = split_kwargs(all_args);
    let kw = |name: &str| -> Result<Option<Value>, Error> {
        match &kwargs {
            Some(k) => k.get::<Option<Value>>(name),
            None => Ok(None),
        }
    };
    let rv = match method {
        "split" | "rsplit" => {
            let sep = match kw("sep")? {
                Some(v) if !v.is_none() => Some(v.to_string()),
                _ => str_arg(args, 0)?.map(str::to_string),
            };
            let maxsplit = match kw("maxsplit")? {
                Some(v) => int_arg(&v)?,
                None => args.get(1).map(int_arg).transpose()?.unwrap_or(-1),
            };
            let from_right = method == "rsplit";
            let parts: Vec<Value> = match sep {
                None => split_ws(s, maxsplit, from_right),
                Some(sep) if sep.is_empty() => return Err(err("ValueError: empty separator")),
                Some(sep) => {
                    let n = if maxsplit < 0 {
                        usize::MAX
                    } else {
                        maxsplit as usize + 1
                    };
                    if from_right {
                        let mut v: Vec<Value> =
                            s.rsplitn(n, sep.as_str()).map(Value::from).collect();
                        v.reverse();
                        v
                    } else {
                        s.splitn(n, sep.as_str()).map(Value::from).collect()
                    }
                }
            };
            new_list(parts)
        }
        // Conversion flags (`{!r}`): the converted fields become extra
        // positional arguments, the rest is minijinja's `str.format`.
        "format" => {
            let named = |n: &str| kwargs.as_ref().and_then(|k| k.peek::<Value>(n).ok());
            let Some((fmt, extra)) = pyfmt::str_format_conversions(s, args, &named).map_err(err)?
            else {
                return Ok(None);
            };
            let mut all: Vec<Value> = args.to_vec();
            all.extend(extra);
            all.extend(all_args.last().filter(|v| v.is_kwargs()).cloned());
            Value::from(minijinja::formatting::format(
                minijinja::formatting::FormatStyle::StrFormat,
                &fmt,
                &all,
            )?)
        }
        "partition" | "rpartition" => {
            let sep =
                str_arg(args, 0)?.ok_or_else(|| err("partition() takes exactly one argument"))?;
            if sep.is_empty() {
                return Err(err("ValueError: empty separator"));
            }
            let found = if method == "partition" {
                s.find(sep)
            } else {
                s.rfind(sep)
            };
            let parts: [Value; 3] = match found {
                Some(i) => [s[..i].into(), sep.into(), s[i + sep.len()..].into()],
                None if method == "partition" => [s.into(), "".into(), "".into()],
                None => ["".into(), "".into(), s.into()],
            };
            Value::from(minijinja::value::Tuple::from(parts))
        }
        // Python's `str.title()`: a letter after a cased letter is lowered,
        // any other is raised (digits and `_` start a word too, unlike the
        // `title` filter's).
        "title" if args.is_empty() => {
            let mut out = String::with_capacity(s.len());
            let mut after_cased = false;
            for c in s.chars() {
                let cased = c.is_lowercase() || c.is_uppercase();
                if after_cased {
                    out.extend(c.to_lowercase());
                } else {
                    out.extend(c.to_uppercase());
                }
                after_cased = cased;
            }
            Value::from(out)
        }
        "zfill" => {
            let width = args.first().map(int_arg).transpose()?.unwrap_or(0).max(0) as usize;
            let len = s.chars().count();
            if len >= width {
                Value::from(s)
            } else {
                let (sign, rest) = match s.chars().next() {
                    Some(c @ ('+' | '-')) => (c.to_string(), &s[1..]),
                    _ => (String::new(), s),
                };
                Value::from(format!("{sign}{}{rest}", "0".repeat(width - len)))
            }
        }
        "ljust" | "rjust" | "center" => {
            let width = args.first().map(int_arg).transpose()?.unwrap_or(0).max(0) as usize;
            let fill = str_arg(args, 1)?
                .and_then(|f| f.chars().next())
                .unwrap_or(' ');
            let len = s.chars().count();
            if len >= width {
                Value::from(s)
            } else {
                let pad = width - len;
                let (left, right) = match method {
                    "ljust" => (0, pad),
                    "rjust" => (pad, 0),
                    // Python puts the extra char on the right when width is odd... unless len is odd
                    _ => {
                        let left = pad / 2 + (pad & width & 1);
                        (left, pad - left)
                    }
                };
                let f = fill.to_string();
                Value::from(format!("{}{s}{}", f.repeat(left), f.repeat(right)))
            }
        }
        "index" | "rindex" => {
            let sub = str_arg(args, 0)?.unwrap_or("");
            let found = if method == "index" {
                s.find(sub)
            } else {
                s.rfind(sub)
            };
            match found {
                Some(i) => Value::from(s[..i].chars().count()),
                None => return Err(err("ValueError: substring not found")),
            }
        }
        "casefold" => Value::from(s.to_lowercase()),
        "swapcase" => Value::from(
            s.chars()
                .flat_map(|c| {
                    if c.is_uppercase() {
                        c.to_lowercase().collect::<Vec<_>>()
                    } else {
                        c.to_uppercase().collect::<Vec<_>>()
                    }
                })
                .collect::<String>(),
        ),
        "isidentifier" => Value::from(
            s.chars()
                .next()
                .is_some_and(|c| c == '_' || c.is_alphabetic())
                && s.chars().all(|c| c == '_' || c.is_alphanumeric()),
        ),
        "istitle" => {
            let mut prev_cased = false;
            let mut any = false;
            let mut ok = true;
            for c in s.chars() {
                if c.is_uppercase() {
                    ok &= !prev_cased;
                    prev_cased = true;
                    any = true;
                } else if c.is_lowercase() {
                    ok &= prev_cased;
                    prev_cased = true;
                    any = true;
                } else {
                    prev_cased = false;
                }
            }
            Value::from(ok && any)
        }
        "expandtabs" => {
            let size = args.first().map(int_arg).transpose()?.unwrap_or(8).max(0) as usize;
            let mut out = String::new();
            let mut col = 0;
            for c in s.chars() {
                match c {
                    '\t' => {
                        let n = if size == 0 { 0 } else { size - col % size };
                        out.push_str(&" ".repeat(n));
                        col += n;
                    }
                    '\n' | '\r' => {
                        out.push(c);
                        col = 0;
                    }
                    c => {
                        out.push(c);
                        col += 1;
                    }
                }
            }
            Value::from(out)
        }
        "removeprefix" => {
            let p = str_arg(args, 0)?.unwrap_or("");
            Value::from(s.strip_prefix(p).unwrap_or(s))
        }
        "removesuffix" => {
            let p = str_arg(args, 0)?.unwrap_or("");
            Value::from(s.strip_suffix(p).unwrap_or(s))
        }
        "encode" => Value::from_bytes(py_encode(s, str_arg(args, 0)?.unwrap_or("utf-8"))?),
        _ => return Ok(None),
    };
    Ok(Some(rv))
}

/// Python's name of a codec lookup (`UTF8`, `utf_8` and `u8` are
/// `utf-8`), for the three codecs templates use.
fn codec(name: &str) -> Result<&'static str, Error> {
    let norm = name.trim().to_ascii_lowercase().replace([' ', '-'], "_");
    match norm.as_str() {
        "utf_8" | "utf8" | "u8" | "utf" | "cp65001" => Ok("utf-8"),
        "ascii" | "us_ascii" | "646" => Ok("ascii"),
        "latin_1" | "latin1" | "latin" | "l1" | "iso8859_1" | "iso_8859_1" | "8859" | "cp819" => {
            Ok("latin-1")
        }
        _ => Err(err(format!("unknown encoding: {name}"))),
    }
}

/// Python's `str.encode(encoding)` (strict errors).
fn py_encode(s: &str, encoding: &str) -> Result<Vec<u8>, Error> {
    let limit = match codec(encoding)? {
        "utf-8" => return Ok(s.as_bytes().to_vec()),
        "ascii" => 0x80,
        _ => 0x100,
    };
    let name = if limit == 0x80 { "ascii" } else { "latin-1" };
    s.chars()
        .enumerate()
        .map(|(i, c)| {
            u8::try_from(c as u32).ok().filter(|b| u32::from(*b) < limit).ok_or_else(|| {
                err(format!(
                    "'{name}' codec can't encode character {} in position {i}: ordinal not in range({limit})",
                    crate::value::py_str_repr(&c.to_string())
                ))
            })
        })
        .collect()
}

/// Python's `bytes.decode(encoding)` (strict errors).
fn py_decode(b: &[u8], encoding: &str) -> Result<Value, Error> {
    match codec(encoding)? {
        "utf-8" => std::str::from_utf8(b).map(Value::from).map_err(|e| {
            err(format!(
                "'utf-8' codec can't decode byte 0x{:02x} in position {}: invalid start byte",
                b[e.valid_up_to()],
                e.valid_up_to()
            ))
        }),
        "ascii" => match b.iter().position(|c| *c >= 0x80) {
            Some(i) => Err(err(format!(
                "'ascii' codec can't decode byte 0x{:02x} in position {i}: ordinal not in range(128)",
                b[i]
            ))),
            None => Ok(Value::from(b.iter().map(|c| char::from(*c)).collect::<String>())),
        },
        _ => Ok(Value::from(b.iter().map(|c| char::from(*c)).collect::<String>())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_split_variants() {
        let call = |s: &str, m: &str, a: Vec<Value>| {
            pyfmt::py_repr(&string_method(s, m, &a).unwrap().unwrap())
        };
        assert_eq!(
            call("a/b/c", "rsplit", vec!["/".into(), 1.into()]),
            "['a/b', 'c']"
        );
        assert_eq!(
            call("a/b/c", "split", vec!["/".into(), 1.into()]),
            "['a', 'b/c']"
        );
        assert_eq!(
            call("  a  b c ", "rsplit", vec![Value::from(()), 1.into()]),
            "['  a  b', 'c']"
        );
        assert_eq!(call("  a  b c ", "split", vec![]), "['a', 'b', 'c']");
        assert_eq!(
            call("a.b.yaml", "rpartition", vec![".".into()]),
            "('a.b', '.', 'yaml')"
        );
        assert_eq!(call("ab", "partition", vec![".".into()]), "('ab', '', '')");
        assert_eq!(call("-42", "zfill", vec![5.into()]), "'-0042'");
        assert_eq!(call("ab", "center", vec![5.into(), "*".into()]), "'**ab*'");
        assert_eq!(call("abc", "center", vec![6.into()]), "' abc  '");
    }
}
