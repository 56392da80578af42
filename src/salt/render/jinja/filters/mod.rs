//! Salt's Jinja filters and tests (Salt 3008.5, `salt/utils/jinja.py`,
//! `data.py`, `hashutils.py`, `stringutils.py`, `yamlencoding.py`, the
//! serializer extension), including Salt's overrides of Jinja builtins
//! (`tojson`, `unique`, `min`, `max`, `indent`). Values are converted to the
//! shared [`Value`] model, computed on, and returned as plain minijinja
//! values.
//!
//! Python `re` patterns run on `fancy-regex` (lookaround, backreferences);
//! replacement templates (`\1`, `\g<name>`) are expanded in `text`.
//!
//! Each file holds one group of filters and its `FILTERS` table (name,
//! function); `register` adds every table with the same argument handling
//! and undefined-value errors. A new group is a new file and one more
//! table in `register`.

use super::error::{template_error, PREFIX_UNDEFINED};
use super::py::print::py_type_name;
use super::py::MutMap;
use super::salt::{bind, from_mj, py_error, to_mj};
use super::serialize::{json_indent, json_options, yaml_dump_sorted};
use super::JinjaErrorKind;
use crate::value::{
    b64decode, b64encode, dumps, py_cmp, py_eq, py_float_repr, py_str_repr, pynum, sort_py_keys,
    sorted_keys_deep, JsonOptions, Map, Value,
};
use minijinja::value::{Kwargs, Rest, Value as MjValue, ValueKind};
use minijinja::{Environment, Error, ErrorKind, State};
use std::fmt::Write as _;

mod data;
mod encode;
mod number;
mod text;

pub(crate) use text::py_splitlines;
use text::t_match;

/// A filter of the tables: its arguments in, its value out.
type Filter = fn(Args) -> Result<MjValue, Error>;

/// Register Salt's extra filters and tests (and overrides of builtins).
pub fn register(env: &mut Environment<'static>) {
    // One table per file: a new file of filters adds its table here.
    let tables: [&[(&str, Filter)]; 4] = [
        encode::FILTERS,
        text::FILTERS,
        number::FILTERS,
        data::FILTERS,
    ];
    for &(name, f) in tables.into_iter().flatten() {
        env.add_filter(
            name,
            move |state: &State, args: Rest<MjValue>, kwargs: Kwargs| -> Result<MjValue, Error> {
                match f(Args::new(name, args.0.clone(), kw_pairs(&kwargs)?)) {
                    Err(e) if e.kind() == ErrorKind::UndefinedError => {
                        Err(name_undefined(state, &args.0).unwrap_or(e))
                    }
                    out => out,
                }
            },
        );
    }
    // load_yaml / load_json / load_text: the engine's (setup.rs), which
    // return mutable containers.
    // Jinja2's `random` picks any item; a compile must be reproducible, so
    // this one always picks the first (COMPATIBILITY.md). Formulas use it
    // for values nobody checks (an `altpriority`, even in YAML comments).
    env.add_filter("random", |value: MjValue| -> Result<MjValue, Error> {
        let mut items = value.try_iter()?;
        items.next().ok_or_else(|| {
            Error::new(
                ErrorKind::UndefinedError,
                "No random item, sequence was empty.",
            )
        })
    });
    // Fixed dates and epochs only; "now" stays refused (strftime.rs).
    env.add_filter("sum", data::f_sum);
    env.add_filter("strftime", super::strftime::filter);
    env.add_filter("date_format", super::strftime::filter);
    for name in [
        "random_hash",
        "rand_str",
        "random_str",
        "random_shuffle",
        "random_sample",
        "http_query",
        "dns_check",
        "file_hashsum",
        "which",
        "is_text_file",
        "is_bin_file",
        "is_empty",
        "list_files",
        "get_uid",
    ] {
        env.add_filter(name, move |_args: Rest<MjValue>, _kwargs: Kwargs| -> Result<MjValue, Error> {
            Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("filter '{name}' depends on the live minion, the time or randomness and is not supported at compile time"),
            ))
        });
    }

    env.add_test(
        "match",
        |args: Rest<MjValue>, kwargs: Kwargs| -> Result<bool, Error> {
            t_match(Args::new("match", args.0, kw_pairs(&kwargs)?))
        },
    );
    env.add_test(
        "equalto",
        |state: &State, value: MjValue, other: MjValue| -> Result<bool, Error> {
            fail_if_undefined(state, &[&value, &other])?;
            Ok(py_eq(&from_mj(&value)?, &from_mj(&other)?))
        },
    );
    env.add_test("list", |value: MjValue| -> bool { is_list_value(&value) });
}

/// Keyword arguments as pairs (marking each as used).
pub(super) fn kw_pairs(kwargs: &Kwargs) -> Result<Vec<(String, MjValue)>, Error> {
    let names: Vec<String> = kwargs.args().map(str::to_string).collect();
    names
        .into_iter()
        .map(|n| {
            let v: MjValue = kwargs.get(&n)?;
            Ok((n, v))
        })
        .collect()
}

/// The filtered value first, then the filter's own arguments, keywords
/// last, as [`super::salt::bind`] takes them.
pub(super) fn with_value(
    v: MjValue,
    args: Rest<MjValue>,
    kwargs: Kwargs,
) -> Result<Vec<MjValue>, Error> {
    let pairs = kw_pairs(&kwargs)?;
    let mut all: Vec<MjValue> = std::iter::once(v).chain(args.0).collect();
    if !pairs.is_empty() {
        all.push(MjValue::from(Kwargs::from_iter(pairs)));
    }
    Ok(all)
}

/// A real list (not a tuple, string or mapping): Salt's `is_list`.
fn is_list_value(v: &MjValue) -> bool {
    matches!(v.kind(), ValueKind::Seq) && !v.is_tuple()
}

// ---------------------------------------------------------------------------
// argument handling
// ---------------------------------------------------------------------------

/// Filter arguments: the value, positional arguments, keyword arguments.
/// The error Salt's `StrictUndefined` gives for the first undefined value
/// inside `values` (in a list or a dict, at any depth), which names the
/// variable it came from (the conversions only know something was
/// undefined). One-shot iterators are not looked into.
fn name_undefined(state: &State, values: &[MjValue]) -> Option<Error> {
    fn first(v: &MjValue) -> Option<MjValue> {
        if v.is_undefined() {
            return Some(v.clone());
        }
        match v.kind() {
            ValueKind::Seq => v.try_iter().ok()?.find_map(|x| first(&x)),
            ValueKind::Map => v
                .try_iter()
                .ok()?
                .find_map(|k| v.get_item(&k).ok().and_then(|x| first(&x))),
            _ => None,
        }
    }
    let undefined = values.iter().find_map(first)?;
    minijinja::filters::string(state, &undefined).err()
}

/// The error Salt's `StrictUndefined` raises when a test or filter
/// operates on it (`x is odd` computes `x % 2`), naming the variable; `Ok`
/// when no value is undefined. Unlike [`name_undefined`], it does not look
/// inside containers (`[x] is iterable` holds in Salt).
pub(super) fn fail_if_undefined(state: &State, values: &[&MjValue]) -> Result<(), Error> {
    match values.iter().find(|v| v.is_undefined()) {
        Some(v) => minijinja::filters::string(state, v).map(|_| ()),
        None => Ok(()),
    }
}

struct Args {
    name: &'static str,
    pos: Vec<MjValue>,
    kw: Vec<(String, MjValue)>,
}

impl Args {
    fn new(name: &'static str, pos: Vec<MjValue>, kw: Vec<(String, MjValue)>) -> Args {
        Args { name, pos, kw }
    }

    /// Argument `i` (0 = the filtered value) or keyword `name`.
    fn raw(&self, i: usize, name: &str) -> Option<&MjValue> {
        self.pos
            .get(i)
            .or_else(|| self.kw.iter().find(|(k, _)| k == name).map(|(_, v)| v))
    }

    /// Python's checks of a call to `pyname(params...)` (no defaults
    /// beyond what the caller reads): too many positional arguments, or a
    /// keyword the signature lacks, fail with Python's `TypeError` text.
    fn signature(&self, pyname: &str, params: &[&str]) -> Result<(), Error> {
        let (n, m) = (params.len(), self.pos.len());
        if m > n {
            return Err(type_error(format!(
                "{pyname}() takes {n} positional argument{} but {m} {} given",
                if n == 1 { "" } else { "s" },
                if m == 1 { "was" } else { "were" },
            )));
        }
        if let Some((k, _)) = self.kw.iter().find(|(k, _)| !params.contains(&k.as_str())) {
            return Err(type_error(format!(
                "{pyname}() got an unexpected keyword argument '{k}'"
            )));
        }
        Ok(())
    }

    fn value(&self, i: usize, name: &str) -> Result<Option<Value>, Error> {
        self.raw(i, name).map(from_mj).transpose()
    }

    fn req(&self, i: usize, name: &str) -> Result<Value, Error> {
        self.value(i, name)?.ok_or_else(|| {
            py_error(format!(
                "{}() missing 1 required positional argument: '{name}'",
                self.name
            ))
        })
    }

    fn flag(&self, i: usize, name: &str, default: bool) -> bool {
        self.raw(i, name).map_or(default, MjValue::is_true)
    }

    fn text(&self, i: usize, name: &str) -> Result<String, Error> {
        Ok(self.req(i, name)?.py_str())
    }

    fn digest<D: sha2::Digest>(&self) -> Result<MjValue, Error> {
        let bytes = to_bytes(&self.req(0, "instr")?)?;
        let out = D::digest(&bytes);
        let mut hex = String::with_capacity(out.len() * 2);
        for b in out.iter() {
            let _ = write!(hex, "{b:02x}");
        }
        Ok(MjValue::from(hex))
    }
}

fn ret(v: Value) -> Result<MjValue, Error> {
    Ok(to_mj(&v))
}

fn type_error(msg: impl Into<String>) -> Error {
    py_error(msg)
}

/// Iterate a value as Python would (`list(x)`): lists, map keys, characters.
fn py_iter(v: &Value) -> Result<Vec<Value>, Error> {
    match v {
        Value::List(l) => Ok(l.to_vec()),
        Value::Map(m) => Ok(m.keys().cloned().collect()),
        Value::Str(s) => Ok(s.chars().map(Value::from).collect()),
        other => Err(type_error(format!(
            "'{}' object is not iterable",
            other.py_type_name()
        ))),
    }
}

fn unique_list(items: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::with_capacity(items.len());
    for x in items {
        if !out.iter().any(|y| py_eq(y, &x)) {
            out.push(x);
        }
    }
    out
}

/// `salt.utils.stringutils.to_bytes` of a filter argument (str only).
fn to_bytes(v: &Value) -> Result<Vec<u8>, Error> {
    match v {
        Value::Str(s) => Ok(s.as_bytes().to_vec()),
        other => Err(type_error(format!(
            "expected str, bytes, or bytearray not <class '{}'>",
            other.py_type_name()
        ))),
    }
}

// ---------------------------------------------------------------------------
// JSON (Python's json.dumps)
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// salt/utils/jinja.py
// ---------------------------------------------------------------------------

/// [`with_value`] behind a stand-in for the context Jinja2 passes its
/// filter first (`environment`, `eval_ctx`): it counts in Python's
/// TypeError texts ("takes from 2 to 6 positional arguments").
pub(super) fn with_context_and_value(
    v: MjValue,
    args: Rest<MjValue>,
    kwargs: Kwargs,
) -> Result<Vec<MjValue>, Error> {
    let mut all = vec![MjValue::UNDEFINED];
    all.extend(with_value(v, args, kwargs)?);
    Ok(all)
}

// ---------------------------------------------------------------------------
// salt/utils/data.py
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// salt/utils/dictupdate.py filters (they return the updated dict)
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// hashutils / stringutils / path / yamlencoding
// ---------------------------------------------------------------------------
