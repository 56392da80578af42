//! The Python object model of template values, one unit: the mutable
//! containers here, `print` (Python's `repr()`/`str()` and Salt's
//! finalizer), `order` (Python 3's `<` and sorts) and `methods` (the
//! Python methods minijinja lacks), which use each other as Python's own
//! types do. `unpack` is Python's tuple unpacking.
//!
//! `MutMap` (a dict) and `MutList` (a list) are minijinja objects with
//! interior mutability, so `{% do d.update(x) %}`, `l.append(y)`,
//! `setdefault`, `pop`... change the one shared object, as in Jinja2. They
//! iterate, compare, print and serialise like engine maps and lists.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use indexmap::IndexMap;
use minijinja::value::{Enumerator, Kwargs, Object, ObjectRepr, Value, ValueKind};
use minijinja::{Error, ErrorKind, State};

pub(crate) mod methods;
pub(crate) mod order;
pub(crate) mod print;

use self::print as pyfmt;
use super::error::{template_error, PREFIX_ERROR};
use super::reads::{self, Source};
use super::JinjaErrorKind;

/// A mutable dict, insertion-ordered. The flag marks an `OrderedDict`
/// (made by `odict()`): it prints like a dict, but the `yaml` filter keeps
/// its key order where it sorts a plain dict's keys. The root maps of a
/// render's `grains`, `pillar` and `opts` carry their [`Source`]: reading
/// them by string key notes that key on the read log
/// ([`super::reads`]), every other access notes the whole source.
#[derive(Default)]
pub(crate) struct MutMap {
    entries: Mutex<IndexMap<Value, Value>>,
    /// An `OrderedDict`.
    ordered: bool,
    /// Set on the root map of `grains`, `pillar` or `opts`.
    root: Option<Box<Root>>,
    /// Made from the minion's pillar or grains: a write to it is noted
    /// ([`super::shared`]).
    marked: AtomicBool,
}

/// What a render's root map (`grains`, `pillar`, `opts`) has beyond a
/// dict: the source its reads are noted against, and until the first
/// access, the function that makes its entries (most templates read
/// little of `opts` and nothing of many roots, so a root is only
/// converted once something looks at it).
pub(crate) struct Root {
    source: Source,
    fill: Mutex<Option<Fill>>,
}

/// Makes a lazily filled root map's entries.
pub(crate) type Fill = Box<dyn FnOnce() -> IndexMap<Value, Value> + Send>;

/// A mutable list.
#[derive(Default)]
pub(crate) struct MutList {
    items: Mutex<Vec<Value>>,
    /// Made from the minion's data (see [`MutMap`]).
    marked: AtomicBool,
}

impl MutMap {
    /// The entries (a poisoned lock still yields the data). On a tracked
    /// root map this is a read of the whole source.
    pub(crate) fn lock(&self) -> MutexGuard<'_, IndexMap<Value, Value>> {
        if let Some(root) = &self.root {
            reads::everything(root.source);
        }
        self.raw()
    }

    /// The entries, without noting a read (the caller notes what it reads);
    /// a lazy root's are made on the first call.
    fn raw(&self) -> MutexGuard<'_, IndexMap<Value, Value>> {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(root) = &self.root {
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
        if let Some(root) = &self.root {
            match key.as_str() {
                Some(k) => reads::key(root.source, k),
                None => reads::everything(root.source),
            }
        }
    }

    /// The entries, to change them: a write to minion data is noted
    /// ([`super::shared`]), and what it puts there becomes minion data
    /// too; on a tracked root, a read of the whole source.
    pub(crate) fn write(&self) -> Write<'_, IndexMap<Value, Value>> {
        let marked = self.marked.load(Ordering::Relaxed);
        super::shared::note_write(marked);
        Write {
            guard: self.lock(),
            marked,
        }
    }

    /// Is this an `OrderedDict`?
    pub(crate) fn is_ordered(&self) -> bool {
        self.ordered
    }
}

impl MutList {
    /// The list, locked.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Vec<Value>> {
        self.items.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The list, to change it (see [`MutMap::write`]).
    pub(crate) fn write(&self) -> Write<'_, Vec<Value>> {
        let marked = self.marked.load(Ordering::Relaxed);
        super::shared::note_write(marked);
        Write {
            guard: self.lock(),
            marked,
        }
    }
}

/// A container's contents being changed. Once the change is done, the
/// containers a container made of minion data now holds are marked as
/// minion data too ([`mark`]): every container the data reaches is then
/// marked, so a write to the data is always noticed.
pub(crate) struct Write<'a, T: Holds> {
    guard: MutexGuard<'a, T>,
    marked: bool,
}

/// The contents of a container: what it holds.
pub(crate) trait Holds {
    /// The values held.
    fn held(&self) -> impl Iterator<Item = &Value>;
}

impl Holds for IndexMap<Value, Value> {
    fn held(&self) -> impl Iterator<Item = &Value> {
        self.values()
    }
}

impl Holds for Vec<Value> {
    fn held(&self) -> impl Iterator<Item = &Value> {
        self.iter()
    }
}

impl<T: Holds> std::ops::Deref for Write<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T: Holds> std::ops::DerefMut for Write<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

impl<T: Holds> Drop for Write<'_, T> {
    fn drop(&mut self) {
        if self.marked {
            self.guard.held().for_each(mark);
        }
    }
}

/// Mark `v` (one of our containers) and everything it holds as minion
/// data; a container already marked holds only marked ones.
pub(crate) fn mark(v: &Value) {
    if let Some(m) = v.downcast_object_ref::<MutMap>() {
        if !m.marked.swap(true, Ordering::Relaxed) {
            m.entries
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .values()
                .for_each(mark);
        }
    } else if let Some(l) = v.downcast_object_ref::<MutList>() {
        if !l.marked.swap(true, Ordering::Relaxed) {
            l.lock().iter().for_each(mark);
        }
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
pub(crate) fn new_map(m: IndexMap<Value, Value>) -> Value {
    new_map_as(m, false, false)
}

/// A new mutable `OrderedDict` holding `m`.
pub(crate) fn new_ordered_map(m: IndexMap<Value, Value>) -> Value {
    new_map_as(m, true, false)
}

/// A new mutable dict (an `OrderedDict` if `ordered`) holding `m`;
/// `marked`: made of the minion's data ([`super::shared`]).
pub(crate) fn new_map_as(m: IndexMap<Value, Value>, ordered: bool, marked: bool) -> Value {
    Value::from_object(MutMap {
        entries: Mutex::new(m),
        ordered,
        root: None,
        marked: AtomicBool::new(marked),
    })
}

/// `v` as the root map of `source` in a render's context: the same dict,
/// whose reads go to the read log. `v` must be fresh (not shared yet): a
/// map's entries move into the tracked one. Anything else is returned as is.
pub(crate) fn track(v: Value, source: Source) -> Value {
    match v.downcast_object_ref::<MutMap>() {
        Some(m) => {
            let entries = std::mem::take(&mut *m.raw());
            Value::from_object(MutMap {
                entries: Mutex::new(entries),
                ordered: m.ordered,
                root: Some(Box::new(Root {
                    source,
                    fill: Mutex::new(None),
                })),
                marked: AtomicBool::new(source != Source::Opts),
            })
        }
        None => v,
    }
}

/// A root dict of `source` (as [`track`] makes) whose entries `fill` makes
/// when the template first looks at it.
pub(crate) fn track_lazy(source: Source, fill: Fill) -> Value {
    Value::from_object(MutMap {
        entries: Mutex::default(),
        ordered: false,
        root: Some(Box::new(Root {
            source,
            fill: Mutex::new(Some(fill)),
        })),
        marked: AtomicBool::new(source != Source::Opts),
    })
}

/// The `i`-th value of a dict or list of ours, as the template reads it
/// (an engine value stored there is made mutable in place first).
pub(crate) fn child_at(v: &Value, i: usize) -> Option<Value> {
    let key = if let Some(m) = v.downcast_object_ref::<MutMap>() {
        m.raw().get_index(i)?.0.clone()
    } else if v.downcast_object_ref::<MutList>().is_some() {
        Value::from(i)
    } else {
        return None;
    };
    v.get_item(&key).ok().filter(|x| !x.is_undefined())
}

/// A new mutable list holding `v`.
pub(crate) fn new_list(v: Vec<Value>) -> Value {
    new_list_as(v, false)
}

/// A new mutable list holding `v`, `marked` as in [`new_map_as`].
pub(crate) fn new_list_as(v: Vec<Value>, marked: bool) -> Value {
    Value::from_object(MutList {
        items: Mutex::new(v),
        marked: AtomicBool::new(marked),
    })
}

fn none() -> Value {
    Value::from(())
}

fn err(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, msg.into())
}

/// Is `v` an `OrderedDict` (a mutable dict made ordered)?
pub(crate) fn is_ordered_map(v: &Value) -> bool {
    v.downcast_object_ref::<MutMap>()
        .is_some_and(MutMap::is_ordered)
}

/// Is `v` one of our mutable containers?
pub(crate) fn is_mutable(v: &Value) -> bool {
    v.downcast_object_ref::<MutMap>().is_some() || v.downcast_object_ref::<MutList>().is_some()
}

/// The `(key, value)` pairs of a map-like value, or of a sequence of pairs
/// (what Python's `dict()` / `dict.update()` accept).
pub(crate) fn pairs_of(v: &Value) -> Result<Vec<(Value, Value)>, Error> {
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
pub(crate) fn to_mut_shallow(v: Value) -> Value {
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
/// Returns whether `v` was made mutable.
fn promote(v: &mut Value) -> bool {
    let engine =
        matches!(v.kind(), ValueKind::Map | ValueKind::Seq) && !is_mutable(v) && !v.is_tuple();
    if engine {
        *v = to_mut_shallow(v.clone());
    }
    engine
}

/// Deep conversion: every map and sequence (not strings) becomes mutable.
pub(crate) fn to_mut_deep(v: Value) -> Value {
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

/// The methods of a Python dict, which a missing key of that name resolves
/// to (Jinja2's `getitem` / `getattr` fallback).
const DICT_METHODS: &[&str] = &[
    "clear",
    "copy",
    "fromkeys",
    "get",
    "items",
    "keys",
    "pop",
    "popitem",
    "setdefault",
    "update",
    "values",
];

/// A method looked up without calling it (`d['get']`, `d.items`): calling
/// it calls the method on its receiver.
#[derive(Debug)]
pub(crate) struct BoundMethod {
    receiver: Value,
    name: String,
}

impl Object for BoundMethod {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn call(self: &Arc<Self>, state: &mut State<'_, '_>, args: &[Value]) -> Result<Value, Error> {
        self.receiver.call_method(state, &self.name, args)
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<built-in method {} of dict object>", self.name)
    }
}

impl Object for MutMap {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        self.note_key(key);
        let mut m = self.raw();
        let Some(v) = m.get_mut(key) else {
            // Jinja2 falls back from a missing item to the attribute:
            // `d['get']` is the dict's `get` method.
            if let Some(name) = key.as_str().filter(|n| DICT_METHODS.contains(n)) {
                return Some(Value::from_object(BoundMethod {
                    receiver: Value::from_dyn_object(self.clone()),
                    name: name.to_string(),
                }));
            }
            let name = key.as_str().map_or_else(|| key.to_string(), str::to_string);
            super::error::note_missing_key(self.is_ordered(), name);
            return None;
        };
        if promote(v) && self.marked.load(Ordering::Relaxed) {
            mark(v);
        }
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
                let mut m = self.write();
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
                    .write()
                    .entry(args[0].clone())
                    .or_insert(default)
                    .clone())
            }
            "pop" => {
                arity(method, args, 1, 2)?;
                let removed = self.write().shift_remove(&args[0]);
                match (removed, args.get(1)) {
                    (Some(v), _) => Ok(v),
                    (None, Some(d)) => Ok(d.clone()),
                    (None, None) => Err(err(format!("KeyError: {}", pyfmt::py_repr(&args[0])))),
                }
            }
            "popitem" => {
                arity(method, args, 0, 0)?;
                match self.write().pop() {
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
                Ok(new_map_as(self.lock().clone(), self.ordered, false))
            }
            "clear" => {
                arity(method, args, 0, 0)?;
                self.write().clear();
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
pub(crate) fn int_arg(v: &Value) -> Result<i64, Error> {
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
        if promote(&mut v[i]) && self.marked.load(Ordering::Relaxed) {
            mark(&v[i]);
        }
        Some(v[i].clone())
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        let mut v = self.lock();
        let marked = self.marked.load(Ordering::Relaxed);
        for x in v.iter_mut() {
            if promote(x) && marked {
                mark(x);
            }
        }
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
                self.write().push(args[0].clone());
                Ok(none())
            }
            "extend" => {
                arity(method, args, 1, 1)?;
                let items = items_of(&args[0])?;
                self.write().extend(items);
                Ok(none())
            }
            "insert" => {
                arity(method, args, 2, 2)?;
                let idx = int_arg(&args[0])?;
                let mut v = self.write();
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
                let mut v = self.write();
                if v.is_empty() {
                    return Err(err("IndexError: pop from empty list"));
                }
                let i = norm_index(v.len(), idx)
                    .ok_or_else(|| err("IndexError: pop index out of range"))?;
                Ok(v.remove(i))
            }
            "remove" => {
                arity(method, args, 1, 1)?;
                let mut v = self.write();
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
                self.write().reverse();
                Ok(none())
            }
            "copy" => {
                arity(method, args, 0, 0)?;
                Ok(new_list(self.lock().clone()))
            }
            "clear" => {
                arity(method, args, 0, 0)?;
                self.write().clear();
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
        *self.write() = order::sort_keyed(keyed, reverse)?;
        Ok(none())
    }
}

/// `v` unpacked into `n` targets as Python does: a string into its
/// characters, a dict into its keys; Python's `ValueError` / `TypeError`
/// when the length differs or `v` is not iterable.
pub(crate) fn unpack(v: Value, n: usize) -> Result<Value, Error> {
    let fail = |msg: String| template_error(JinjaErrorKind::Other, PREFIX_ERROR, msg);
    let items: Vec<Value> = if let Some(s) = v.as_str() {
        s.chars().map(|c| Value::from(c.to_string())).collect()
    } else {
        match v.kind() {
            ValueKind::Seq | ValueKind::Map | ValueKind::Iterable => v.try_iter()?.collect(),
            _ => {
                return Err(fail(format!(
                    "cannot unpack non-iterable {} object",
                    print::py_type_name(&v)
                )))
            }
        }
    };
    match items.len() {
        k if k > n => Err(fail(format!("too many values to unpack (expected {n})"))),
        k if k < n => Err(fail(format!(
            "not enough values to unpack (expected {n}, got {k})"
        ))),
        _ if v.kind() == ValueKind::Seq => Ok(v),
        _ => Ok(Value::from(items)),
    }
}
