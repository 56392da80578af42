//! Salt's Jinja filters and tests (Salt 3008.5, `salt/utils/jinja.py`,
//! `data.py`, `hashutils.py`, `stringutils.py`, `yamlencoding.py`, the
//! serializer extension), including Salt's overrides of Jinja builtins
//! (`tojson`, `unique`, `min`, `max`, `indent`). Values are converted to the
//! shared [`Value`] model, computed on, and returned as plain minijinja
//! values.
//!
//! Python `re` patterns run on `fancy-regex` (lookaround, backreferences);
//! replacement templates (`\1`, `\g<name>`) are expanded here.

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

/// Register Salt's extra filters and tests (and overrides of builtins).
pub fn register(env: &mut Environment<'static>) {
    macro_rules! filter {
        ($name:expr, $f:expr) => {
            env.add_filter(
                $name,
                |state: &State, args: Rest<MjValue>, kwargs: Kwargs| -> Result<MjValue, Error> {
                    match $f(Args::new($name, args.0.clone(), kw_pairs(&kwargs)?)) {
                        Err(e) if e.kind() == ErrorKind::UndefinedError => {
                            Err(name_undefined(state, &args.0).unwrap_or(e))
                        }
                        out => out,
                    }
                },
            );
        };
    }
    // Serializer extension.
    filter!("yaml", f_yaml);
    filter!("json", f_json);
    filter!("python", f_python);
    // load_yaml / load_json / load_text: the engine's (setup.rs), which
    // return mutable containers.
    filter!("dict_to_sls_yaml_params", f_dict_to_sls_yaml_params);
    // salt/utils/jinja.py (including builtin overrides).
    filter!("tojson", f_tojson);
    filter!("indent", f_indent);
    filter!("unique", f_unique);
    filter!("min", f_min);
    filter!("max", f_max);
    filter!("avg", f_avg);
    filter!("union", f_union);
    filter!("intersect", f_intersect);
    filter!("difference", f_difference);
    filter!("symmetric_difference", f_symmetric_difference);
    filter!("sequence", f_sequence);
    filter!("to_bool", f_to_bool);
    filter!("quote", f_quote);
    filter!("regex_escape", f_regex_escape);
    filter!("regex_search", f_regex_search);
    filter!("regex_match", f_regex_match);
    filter!("regex_replace", f_regex_replace);
    filter!("skip", f_skip);
    filter!("uuid", f_uuid);
    // salt/utils/data.py
    filter!("traverse", f_traverse);
    filter!("flatten", f_flatten);
    filter!("is_list", f_is_list);
    filter!("is_iter", f_is_iter);
    filter!("compare_lists", f_compare_lists);
    filter!("compare_dicts", f_compare_dicts);
    filter!("exactly_n_true", f_exactly_n_true);
    filter!("exactly_one_true", f_exactly_one_true);
    filter!("sorted_ignorecase", f_sorted_ignorecase);
    filter!("substring_in_list", f_substring_in_list);
    filter!("to_entries", f_to_entries);
    filter!("from_entries", f_from_entries);
    // salt/utils/dictupdate.py
    filter!("set_dict_key_value", f_set_dict_key_value);
    filter!("update_dict_key_value", f_update_dict_key_value);
    filter!("append_dict_key_value", f_append_dict_key_value);
    filter!("extend_dict_key_value", f_extend_dict_key_value);
    // hashutils / stringutils / path / yamlencoding
    filter!("md5", |a: Args| a.digest::<md5::Md5>());
    filter!("sha1", |a: Args| a.digest::<sha1::Sha1>());
    filter!("sha256", |a: Args| a.digest::<sha2::Sha256>());
    filter!("sha512", |a: Args| a.digest::<sha2::Sha512>());
    filter!("base64_encode", f_base64_encode);
    filter!("base64_decode", f_base64_decode);
    filter!("to_num", f_to_num);
    // Jinja2's own `int` and `float`: a value Python cannot convert gives
    // the default instead of an error.
    filter!("int", f_int);
    filter!("float", f_float);
    filter!("str_to_num", f_to_num);
    filter!("to_snake_case", f_to_snake_case);
    filter!("to_camelcase", f_to_camelcase);
    filter!("is_hex", f_is_hex);
    filter!("contains_whitespace", f_contains_whitespace);
    filter!("human_to_bytes", f_human_to_bytes);
    filter!("path_join", f_path_join);
    filter!("yaml_dquote", f_yaml_dquote);
    filter!("yaml_squote", f_yaml_squote);
    filter!("yaml_encode", f_yaml_encode);
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
    env.add_filter("sum", f_sum);
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

/// Template value → data for Salt's `safe_dump` (`SafeOrderedDumper`): plain
/// dicts' keys sorted, `OrderedDict`s (from `odict()`) kept in order.
fn yaml_data(v: &MjValue) -> Result<Value, Error> {
    if let Some(m) = v.downcast_object_ref::<MutMap>() {
        let pairs: Vec<(MjValue, MjValue)> = m
            .lock()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut entries = Vec::with_capacity(pairs.len());
        for (k, v) in &pairs {
            entries.push((from_mj(k)?, yaml_data(v)?));
        }
        if !m.is_ordered() {
            let mut refs: Vec<(&Value, &Value)> = entries.iter().map(|(k, v)| (k, v)).collect();
            sort_py_keys(&mut refs);
            return Ok(Value::Map(
                refs.into_iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            ));
        }
        return Ok(Value::Map(entries.into_iter().collect()));
    }
    match v.kind() {
        ValueKind::Seq if v.as_str().is_none() => {
            let mut out = Vec::new();
            for item in v.try_iter()? {
                out.push(yaml_data(&item)?);
            }
            Ok(Value::List(out.into()))
        }
        _ => Ok(sorted_keys_deep(&from_mj(v)?)),
    }
}

fn f_yaml(a: Args) -> Result<MjValue, Error> {
    let v = match a.raw(0, "value") {
        Some(v) if !v.is_undefined() => yaml_data(v)?,
        _ => a.req(0, "value")?,
    };
    let flow = match a.value(1, "flow_style")? {
        None => Some(true),
        Some(Value::Null) => None,
        Some(f) => Some(f.truthy()),
    };
    let text = crate::yaml::dump(&v, crate::yaml::DumpOptions { flow });
    let text = text.trim();
    let text = text.strip_suffix("\n...").unwrap_or(text);
    Ok(MjValue::from_safe_string(text.to_string()))
}

fn f_json(a: Args) -> Result<MjValue, Error> {
    let v = a.req(0, "value")?;
    let o = JsonOptions {
        sort_keys: a.flag(1, "sort_keys", true),
        ensure_ascii: false,
        indent: a.value(2, "indent")?.and_then(|i| json_indent(&i)),
        separators: None,
    };
    Ok(MjValue::from_safe_string(dumps(&v, &o).trim().to_string()))
}

fn f_tojson(a: Args) -> Result<MjValue, Error> {
    let v = a.req(0, "val")?;
    let mut kw = Map::new();
    kw.insert(Value::str("ensure_ascii"), Value::Bool(true));
    for (k, x) in &a.kw {
        kw.insert(Value::str(k.as_str()), from_mj(x)?);
    }
    if let Some(i) = a.pos.get(1) {
        kw.insert(Value::str("indent"), from_mj(i)?);
    }
    let o = json_options(&kw).map_err(py_error)?;
    let text = dumps(&v, &o)
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\'', "\\u0027");
    // Salt's `tojson` returns a plain `str` (its repr has no `Markup(`).
    Ok(MjValue::from(text))
}

fn f_python(a: Args) -> Result<MjValue, Error> {
    let v = a.req(0, "value")?;
    let repr = v.py_repr();
    if repr.chars().count() > 80 && matches!(v, Value::List(_) | Value::Map(_)) {
        return Err(py_error("the python filter on values longer than 80 characters (pprint layout) is not supported"));
    }
    Ok(MjValue::from_safe_string(repr))
}

fn f_dict_to_sls_yaml_params(a: Args) -> Result<MjValue, Error> {
    let v = a.req(0, "value")?;
    let flow = a.flag(1, "flow_style", false);
    let list: Vec<Value> = v
        .as_map()
        .map(|m| {
            m.iter()
                .map(|(k, v)| Value::Map(std::iter::once((k.clone(), v.clone())).collect()))
                .collect()
        })
        .unwrap_or_default();
    let text = yaml_dump_sorted(&Value::List(list.into()), Some(flow));
    let text = text.trim();
    Ok(MjValue::from_safe_string(
        text.strip_suffix("\n...").unwrap_or(text).to_string(),
    ))
}

// ---------------------------------------------------------------------------
// salt/utils/jinja.py
// ---------------------------------------------------------------------------

fn f_indent(a: Args) -> Result<MjValue, Error> {
    let s = a.raw(0, "s").cloned().unwrap_or_default();
    // Jinja2's do_indent starts with `s += "\n"`: anything but a string
    // fails there (a list a step later, at `s.splitlines()`).
    if s.as_str().is_none() && !s.is_undefined() {
        return Err(type_error(if s.is_tuple() {
            "can only concatenate tuple (not \"str\") to tuple".to_string()
        } else {
            match from_mj(&s)? {
                Value::List(_) => "'list' object has no attribute 'splitlines'".to_string(),
                other => format!(
                    "unsupported operand type(s) for +=: '{}' and 'str'",
                    other.py_type_name()
                ),
            }
        }));
    }
    let safe = s.is_safe();
    let s = s
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| s.to_string());
    let width = match a.value(1, "width")? {
        Some(Value::Int(n)) => " ".repeat(n.max(0) as usize),
        Some(Value::Str(w)) => w.to_string(),
        None => "    ".into(),
        Some(other) => {
            return Err(type_error(format!(
                "can't multiply sequence by non-int of type '{}'",
                other.py_type_name()
            )))
        }
    };
    let mut first = a.flag(2, "first", false);
    let blank = a.flag(3, "blank", false);
    if let Some(f) = a.raw(4, "indentfirst") {
        if !f.is_none() {
            first = f.is_true();
        }
    }
    let s = format!("{s}\n");
    let lines = py_splitlines(&s);
    let mut rv = if blank {
        lines.join(&format!("\n{width}"))
    } else {
        let mut it = lines.into_iter();
        let mut rv = it.next().unwrap_or_default().to_string();
        for line in it {
            rv.push('\n');
            if !line.is_empty() {
                rv.push_str(&width);
            }
            rv.push_str(line);
        }
        rv
    };
    if first {
        rv = format!("{width}{rv}");
    }
    Ok(if safe {
        MjValue::from_safe_string(rv)
    } else {
        MjValue::from(rv)
    })
}

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

/// Jinja2's `do_sum(environment, iterable, attribute=None, start=0)`:
/// Python's `sum(iterable, start)`, so its `+` (numbers, bools as ints,
/// list concatenation) and its errors; an undefined item fails naming the
/// variable, and an item without the attribute fails as Jinja2's
/// `Undefined` for it does (minijinja's own `sum` skips both).
fn f_sum(state: &State, v: MjValue, args: Rest<MjValue>, kwargs: Kwargs) -> Result<MjValue, Error> {
    let all = with_context_and_value(v, args, kwargs)?;
    let a = bind(
        "sync_do_sum",
        "environment, iterable, attribute=, start=",
        &all,
    )?;
    let iterable = a.raw("iterable").cloned().unwrap_or_default();
    let start = a.raw("start").cloned().unwrap_or(MjValue::from(0));
    match start.kind() {
        ValueKind::String => {
            return Err(py_error(
                "sum() can't sum strings [use ''.join(seq) instead]",
            ))
        }
        ValueKind::Bytes => {
            return Err(py_error(
                "sum() can't sum bytes [use b''.join(seq) instead]",
            ))
        }
        _ => {}
    }
    if iterable.is_undefined() {
        return Err(name_undefined(state, &[iterable]).unwrap_or_else(undefined_error));
    }
    if !matches!(
        iterable.kind(),
        ValueKind::Seq | ValueKind::Map | ValueKind::String | ValueKind::Iterable
    ) {
        return Err(py_error(format!(
            "'{}' object is not iterable",
            py_type_name(&iterable)
        )));
    }
    // `_prepare_attribute_parts`: dotted, digit parts are indexes.
    let parts: Vec<MjValue> = match a.raw("attribute") {
        None => Vec::new(),
        Some(attr) if attr.is_none() => Vec::new(),
        Some(attr) => match attr.as_str().filter(|_| attr.kind() == ValueKind::String) {
            Some(text) => text
                .split('.')
                .map(|p| match p.parse::<i64>() {
                    Ok(i) if p.bytes().all(|b| b.is_ascii_digit()) => MjValue::from(i),
                    _ => MjValue::from(p),
                })
                .collect(),
            None => vec![attr.clone()],
        },
    };
    let mut total = start;
    for item in iterable.try_iter()? {
        let item = attribute_of(item, &parts)?;
        if total.is_undefined() || item.is_undefined() {
            return Err(name_undefined(state, &[total, item]).unwrap_or_else(undefined_error));
        }
        total = py_add(&total, &item)?;
    }
    Ok(total)
}

fn undefined_error() -> Error {
    Error::new(ErrorKind::UndefinedError, "is undefined")
}

/// Jinja2's `environment.getitem` along `parts`; a missing step is the
/// error its `Undefined` raises when used ("'dict object' has no attribute
/// 'a'", "list object has no element 3").
fn attribute_of(mut item: MjValue, parts: &[MjValue]) -> Result<MjValue, Error> {
    for part in parts {
        if item.is_undefined() {
            return Ok(item);
        }
        // The object's own answer: `None` when the key is missing, an
        // undefined value stored under it is found (and named later).
        let found = matches!(item.kind(), ValueKind::Seq | ValueKind::Map)
            .then(|| item.as_object().and_then(|o| o.get_value(part)))
            .flatten();
        item = match found {
            Some(next) => next,
            None => {
                let owner = match item.kind() {
                    ValueKind::None => "None".to_string(),
                    _ => format!("{} object", py_type_name(&item)),
                };
                let text = match part.as_str() {
                    Some(name) => format!("'{owner}' has no attribute '{name}'"),
                    None => format!("{owner} has no element {part}"),
                };
                return Err(template_error(
                    JinjaErrorKind::Undefined,
                    PREFIX_UNDEFINED,
                    text,
                ));
            }
        };
    }
    Ok(item)
}

/// Python's `a + b` for what `sum` adds: numbers (a bool counts as an
/// int), lists; anything else is Python's TypeError.
fn py_add(a: &MjValue, b: &MjValue) -> Result<MjValue, Error> {
    let num = |v: &MjValue| match v.kind() {
        ValueKind::Bool => Some(MjValue::from(v.is_true() as i64)),
        ValueKind::Number => Some(v.clone()),
        _ => None,
    };
    if let (Some(x), Some(y)) = (num(a), num(b)) {
        if x.is_integer() && y.is_integer() {
            let (Ok(x), Ok(y)) = (i128::try_from(x.clone()), i128::try_from(y.clone())) else {
                return Err(py_error("integer out of range"));
            };
            return match x.checked_add(y) {
                Some(n) => Ok(i64::try_from(n).map_or(MjValue::from(n), MjValue::from)),
                None => Err(py_error("integer out of range")),
            };
        }
        let (Ok(x), Ok(y)) = (f64::try_from(x), f64::try_from(y)) else {
            return Err(py_error("float out of range"));
        };
        return Ok(MjValue::from(x + y));
    }
    let (ta, tb) = (py_type_name(a), py_type_name(b));
    if ta == "list" || ta == "tuple" {
        if tb != ta {
            return Err(py_error(format!(
                "can only concatenate {ta} (not \"{tb}\") to {ta}"
            )));
        }
        let items: Vec<MjValue> = a.try_iter()?.chain(b.try_iter()?).collect();
        return Ok(MjValue::from(items));
    }
    Err(py_error(format!(
        "unsupported operand type(s) for +: '{ta}' and '{tb}'"
    )))
}

/// Python's `str.splitlines()`.
pub(crate) fn py_splitlines(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes: Vec<(usize, char)> = s.char_indices().collect();
    let mut i = 0;
    while i < bytes.len() {
        let (pos, c) = bytes[i];
        let is_break = matches!(
            c,
            '\n' | '\r'
                | '\u{b}'
                | '\u{c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if is_break {
            out.push(&s[start..pos]);
            let mut next = pos + c.len_utf8();
            if c == '\r' && bytes.get(i + 1).is_some_and(|(_, n)| *n == '\n') {
                next += 1;
                i += 1;
            }
            start = next;
        }
        i += 1;
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// Salt's `unique(values)` replaces Jinja2's: no options
/// (`case_sensitive`, `attribute`) are accepted.
fn f_unique(a: Args) -> Result<MjValue, Error> {
    a.signature("unique", &["values"])?;
    let v = a.req(0, "values")?;
    ret(Value::List(unique_list(py_iter(&v)?).into()))
}

/// Salt's `lst_min(obj)` / `lst_max(obj)` replace Jinja2's `min`/`max`:
/// no options (`case_sensitive`, `attribute`) are accepted.
fn min_max(a: Args, want: std::cmp::Ordering) -> Result<MjValue, Error> {
    let pyname = if want == std::cmp::Ordering::Less {
        "lst_min"
    } else {
        "lst_max"
    };
    a.signature(pyname, &["obj"])?;
    let items = py_iter(&a.req(0, "obj")?)?;
    let mut best: Option<Value> = None;
    for x in items {
        best = Some(match best {
            None => x,
            Some(b) => match py_cmp(&x, &b) {
                Some(o) if o == want => x,
                Some(_) => b,
                None => {
                    return Err(type_error(format!(
                        "'{}' not supported between instances of '{}' and '{}'",
                        if want == std::cmp::Ordering::Less {
                            "<"
                        } else {
                            ">"
                        },
                        x.py_type_name(),
                        b.py_type_name()
                    )))
                }
            },
        });
    }
    match best {
        Some(b) => ret(b),
        None => Err(py_error(format!(
            "{}() arg is an empty sequence",
            if want == std::cmp::Ordering::Less {
                "min"
            } else {
                "max"
            }
        ))),
    }
}

fn f_min(a: Args) -> Result<MjValue, Error> {
    min_max(a, std::cmp::Ordering::Less)
}

fn f_max(a: Args) -> Result<MjValue, Error> {
    min_max(a, std::cmp::Ordering::Greater)
}

fn f_avg(a: Args) -> Result<MjValue, Error> {
    let v = a.req(0, "lst")?;
    let items = match &v {
        Value::List(l) => l.clone(),
        Value::Map(m) => m.keys().cloned().collect(),
        Value::Int(i) => return ret(Value::Float(*i as f64)),
        Value::Float(f) => return ret(Value::Float(*f)),
        Value::Bool(b) => return ret(Value::Float(*b as i64 as f64)),
        Value::Str(s) => {
            return s
                .trim()
                .parse::<f64>()
                .map(|f| to_mj(&Value::Float(f)))
                .map_err(|_| {
                    py_error(format!(
                        "could not convert string to float: {}",
                        py_str_repr(s)
                    ))
                })
        }
        Value::Null => {
            return Err(type_error(
                "float() argument must be a string or a real number, not 'NoneType'",
            ))
        }
    };
    if items.is_empty() {
        return Err(py_error("division by zero"));
    }
    let mut sum = 0.0;
    for x in &items {
        sum += match x {
            Value::Int(i) => *i as f64,
            Value::Float(f) => *f,
            Value::Bool(b) => *b as i64 as f64,
            other => {
                return Err(type_error(format!(
                    "unsupported operand type(s) for +: 'int' and '{}'",
                    other.py_type_name()
                )))
            }
        };
    }
    ret(Value::Float(sum / items.len() as f64))
}

/// `lst1 + lst2` for the list paths of the set filters.
fn two_lists(a: &Args) -> Result<(Vec<Value>, Vec<Value>), Error> {
    let x = a.req(0, "lst1")?;
    let y = a.req(1, "lst2")?;
    match (&x, &y) {
        (Value::List(p), Value::List(q)) => Ok((p.to_vec(), q.to_vec())),
        _ => Ok((py_iter(&x)?, py_iter(&y)?)),
    }
}

fn contains(list: &[Value], x: &Value) -> bool {
    list.iter().any(|y| py_eq(x, y))
}

fn f_union(a: Args) -> Result<MjValue, Error> {
    let (mut x, y) = two_lists(&a)?;
    x.extend(y);
    ret(Value::List(unique_list(x).into()))
}

fn f_intersect(a: Args) -> Result<MjValue, Error> {
    let (x, y) = two_lists(&a)?;
    ret(Value::List(
        unique_list(x.into_iter().filter(|e| contains(&y, e)).collect()).into(),
    ))
}

fn f_difference(a: Args) -> Result<MjValue, Error> {
    let (x, y) = two_lists(&a)?;
    ret(Value::List(
        unique_list(x.into_iter().filter(|e| !contains(&y, e)).collect()).into(),
    ))
}

fn f_symmetric_difference(a: Args) -> Result<MjValue, Error> {
    let (x, y) = two_lists(&a)?;
    let both: Vec<Value> = unique_list(x.iter().filter(|e| contains(&y, e)).cloned().collect());
    let mut all = x;
    all.extend(y);
    let all = unique_list(all);
    ret(Value::List(
        unique_list(all.into_iter().filter(|e| !contains(&both, e)).collect()).into(),
    ))
}

fn f_sequence(a: Args) -> Result<MjValue, Error> {
    let v = a.raw(0, "data").cloned().unwrap_or_default();
    Ok(match v.kind() {
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable => v,
        _ => MjValue::from(vec![v]),
    })
}

fn f_to_bool(a: Args) -> Result<MjValue, Error> {
    let v = a.req(0, "val")?;
    let b = match &v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Str(s) => matches!(s.to_lowercase().as_str(), "yes" | "1" | "true"),
        Value::Int(i) => *i > 0,
        Value::Float(_) => false,
        Value::List(l) => !l.is_empty(),
        Value::Map(m) => !m.is_empty(),
    };
    Ok(MjValue::from(b))
}

/// `shlex.quote`.
pub(crate) fn shlex_quote(s: &str) -> String {
    if s.is_empty() {
        return "''".into();
    }
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\"'\"'"))
}

fn f_quote(a: Args) -> Result<MjValue, Error> {
    match a.req(0, "txt")? {
        Value::Str(s) => Ok(MjValue::from(shlex_quote(&s))),
        other => Err(type_error(format!(
            "expected string or bytes-like object, got '{}'",
            other.py_type_name()
        ))),
    }
}

/// Python's `re.escape`.
fn py_re_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "()[]{}?*+-|^$\\.&~# \t\n\r\u{b}\u{c}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn f_regex_escape(a: Args) -> Result<MjValue, Error> {
    Ok(MjValue::from(py_re_escape(&a.text(0, "value")?)))
}

/// Compile a Python `re` pattern with Salt's flags.
pub(crate) fn compile(
    rgx: &str,
    ignorecase: bool,
    multiline: bool,
    anchored: bool,
) -> Result<fancy_regex::Regex, Error> {
    let flags = crate::pyre::Flags {
        ignorecase,
        multiline,
    };
    crate::pyre::compile_for(rgx, flags, anchored).map_err(|e| {
        py_error(format!(
            "invalid regular expression {}: {e}",
            py_str_repr(rgx)
        ))
    })
}

fn search_groups(a: Args, anchored: bool) -> Result<MjValue, Error> {
    let txt = a.text(0, "txt")?;
    let rgx = a.text(1, "rgx")?;
    let re = compile(
        &rgx,
        a.flag(2, "ignorecase", false),
        a.flag(3, "multiline", false),
        anchored,
    )?;
    let caps = re.captures(&txt).map_err(|e| py_error(e.to_string()))?;
    let Some(caps) = caps else {
        return Ok(MjValue::from(()));
    };
    let groups: Vec<MjValue> = if caps.len() <= 1 {
        vec![MjValue::from(caps.get(0).map_or("", |m| m.as_str()))]
    } else {
        (1..caps.len())
            .map(|i| {
                caps.get(i)
                    .map_or(MjValue::from(()), |m| MjValue::from(m.as_str()))
            })
            .collect()
    };
    Ok(MjValue::from_object(minijinja::value::Tuple::from(groups)))
}

fn f_regex_search(a: Args) -> Result<MjValue, Error> {
    search_groups(a, false)
}

fn f_regex_match(a: Args) -> Result<MjValue, Error> {
    search_groups(a, true)
}

/// Expand a Python `re.sub` replacement template for one match.
fn expand_py_template(
    tpl: &str,
    caps: &fancy_regex::Captures,
    re: &fancy_regex::Regex,
) -> Result<String, Error> {
    let mut out = String::new();
    let mut chars = tpl.chars().peekable();
    let group = |out: &mut String, idx: usize| -> Result<(), Error> {
        if idx >= caps.len() {
            return Err(py_error(format!("invalid group reference {idx}")));
        }
        out.push_str(caps.get(idx).map_or("", |m| m.as_str()));
        Ok(())
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            None => return Err(py_error("bad escape (end of pattern)")),
            Some(d) if d.is_ascii_digit() => {
                let mut num = d.to_string();
                if let Some(&e) = chars.peek() {
                    if e.is_ascii_digit() {
                        num.push(e);
                        chars.next();
                    }
                }
                group(&mut out, num.parse().unwrap_or(0))?;
            }
            Some('g') => {
                if chars.next() != Some('<') {
                    return Err(py_error("missing <"));
                }
                let name: String = chars.by_ref().take_while(|c| *c != '>').collect();
                match name.parse::<usize>() {
                    Ok(i) => group(&mut out, i)?,
                    Err(_) => {
                        let idx = re
                            .capture_names()
                            .position(|n| n == Some(name.as_str()))
                            .ok_or_else(|| py_error(format!("unknown group name '{name}'")))?;
                        group(&mut out, idx)?;
                    }
                }
            }
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\u{c}'),
            Some('v') => out.push('\u{b}'),
            Some('a') => out.push('\u{7}'),
            Some('b') => out.push('\u{8}'),
            Some('\\') => out.push('\\'),
            Some(d) if d.is_ascii_alphabetic() => {
                return Err(py_error(format!("bad escape \\{d}")))
            }
            Some(d) => {
                out.push('\\');
                out.push(d);
            }
        }
    }
    Ok(out)
}

fn f_regex_replace(a: Args) -> Result<MjValue, Error> {
    let txt = a.text(0, "txt")?;
    let rgx = a.text(1, "rgx")?;
    let val = a.text(2, "val")?;
    let re = compile(
        &rgx,
        a.flag(3, "ignorecase", false),
        a.flag(4, "multiline", false),
        false,
    )?;
    let mut out = String::with_capacity(txt.len());
    let mut last = 0;
    for caps in re.captures_iter(&txt) {
        let caps = caps.map_err(|e| py_error(e.to_string()))?;
        let Some(m) = caps.get(0) else { continue };
        out.push_str(&txt[last..m.start()]);
        out.push_str(&expand_py_template(&val, &caps, &re)?);
        last = m.end();
    }
    out.push_str(&txt[last..]);
    Ok(MjValue::from(out))
}

fn f_skip(_a: Args) -> Result<MjValue, Error> {
    Ok(MjValue::from(""))
}

/// `uuid.uuid5(GLOBAL_UUID, str(val))`.
fn f_uuid(a: Args) -> Result<MjValue, Error> {
    use sha1::Digest;
    let name = a.text(0, "val")?;
    let ns: [u8; 16] = [
        0x91, 0x63, 0x3e, 0xbf, 0x1c, 0x86, 0x5e, 0x33, 0x93, 0x5a, 0x28, 0x06, 0x1f, 0x4b, 0x48,
        0x0e,
    ];
    let mut h = sha1::Sha1::new();
    h.update(ns);
    h.update(name.as_bytes());
    let d = h.finalize();
    let mut b = [0u8; 16];
    b.copy_from_slice(&d[..16]);
    b[6] = (b[6] & 0x0f) | 0x50;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Ok(MjValue::from(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )))
}

// ---------------------------------------------------------------------------
// salt/utils/data.py
// ---------------------------------------------------------------------------

fn f_traverse(a: Args) -> Result<MjValue, Error> {
    let data = a.req(0, "data")?;
    let key = a.req(1, "key")?;
    let delimiter = a
        .value(3, "delimiter")?
        .map_or(":".to_string(), |d| d.py_str());
    let found = match &key {
        Value::Str(k) => super::salt::data::traverse(&data, k, &delimiter).cloned(),
        Value::Int(i) => {
            super::salt::data::traverse_parts(&data, &[i.to_string().as_str()]).cloned()
        }
        Value::List(parts) => {
            let parts: Vec<String> = parts.iter().map(Value::py_str).collect();
            let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
            super::salt::data::traverse_parts(&data, &refs).cloned()
        }
        other => {
            return Err(type_error(format!(
                "'{}' object is not iterable",
                other.py_type_name()
            )))
        }
    };
    match found {
        Some(v) => ret(v),
        None => Ok(a
            .raw(2, "default")
            .cloned()
            .unwrap_or_else(|| MjValue::from(()))),
    }
}

fn flatten(items: &[Value], levels: Option<i64>, preserve_nulls: bool, out: &mut Vec<Value>) {
    for e in items {
        let is_null_like =
            matches!(e, Value::Null) || matches!(e, Value::Str(s) if s == "None" || s == "null");
        if !preserve_nulls && is_null_like {
            continue;
        }
        let inner = match e {
            Value::List(l) => Some(l.clone()),
            Value::Map(m) => Some(m.keys().cloned().collect()),
            _ => None,
        };
        match (inner, levels) {
            (Some(l), None) => flatten(&l, None, preserve_nulls, out),
            (Some(l), Some(n)) if n >= 1 => flatten(&l, Some(n - 1), preserve_nulls, out),
            _ => out.push(e.clone()),
        }
    }
}

fn f_flatten(a: Args) -> Result<MjValue, Error> {
    let data = py_iter(&a.req(0, "data")?)?;
    let levels = match a.value(1, "levels")? {
        None | Some(Value::Null) => None,
        Some(Value::Int(n)) => Some(n),
        Some(other) => Some(other.py_str().parse().unwrap_or(0)),
    };
    let mut out = Vec::new();
    flatten(&data, levels, a.flag(2, "preserve_nulls", false), &mut out);
    ret(Value::List(out.into()))
}

fn f_is_list(a: Args) -> Result<MjValue, Error> {
    Ok(MjValue::from(a.raw(0, "value").is_some_and(is_list_value)))
}

fn f_is_iter(a: Args) -> Result<MjValue, Error> {
    let v = a.raw(0, "thing").cloned().unwrap_or_default();
    Ok(MjValue::from(matches!(
        v.kind(),
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable
    )))
}

fn f_compare_lists(a: Args) -> Result<MjValue, Error> {
    let old = py_iter(&a.req(0, "old")?)?;
    let new = py_iter(&a.req(1, "new")?)?;
    let mut out = Map::new();
    let added: Vec<Value> = new.iter().filter(|x| !contains(&old, x)).cloned().collect();
    let removed: Vec<Value> = old.iter().filter(|x| !contains(&new, x)).cloned().collect();
    if !added.is_empty() {
        out.insert(Value::str("new"), Value::List(added.into()));
    }
    if !removed.is_empty() {
        out.insert(Value::str("old"), Value::List(removed.into()));
    }
    ret(Value::Map(out))
}

fn f_compare_dicts(a: Args) -> Result<MjValue, Error> {
    let old = a
        .value(0, "old")?
        .and_then(|v| v.as_map().cloned())
        .unwrap_or_default();
    let new = a
        .value(1, "new")?
        .and_then(|v| v.as_map().cloned())
        .unwrap_or_default();
    let mut out = Map::new();
    let entry = |o: Value, n: Value, old_first: bool| {
        let mut m = Map::new();
        if old_first {
            m.insert(Value::str("old"), o);
            m.insert(Value::str("new"), n);
        } else {
            m.insert(Value::str("new"), n);
            m.insert(Value::str("old"), o);
        }
        Value::Map(m)
    };
    // Salt iterates a set (arbitrary order); we use new's keys, then old's.
    let mut keys: Vec<Value> = new.keys().cloned().collect();
    keys.extend(old.keys().filter(|k| !new.contains_key(*k)).cloned());
    for k in keys {
        match (old.get(&k), new.get(&k)) {
            (None, Some(n)) => {
                out.insert(k, entry(Value::str(""), n.clone(), true));
            }
            (Some(o), None) => {
                out.insert(k, entry(o.clone(), Value::str(""), false));
            }
            (Some(o), Some(n)) if !py_eq(o, n) => {
                out.insert(k, entry(o.clone(), n.clone(), true));
            }
            _ => {}
        }
    }
    ret(Value::Map(out))
}

fn f_exactly_n_true(a: Args) -> Result<MjValue, Error> {
    let items = py_iter(&a.req(0, "iterable")?)?;
    let n = match a.value(1, "amount")? {
        Some(Value::Int(n)) => n,
        _ => 1,
    };
    let count = items.iter().filter(|x| x.truthy()).count() as i64;
    Ok(MjValue::from(count == n))
}

fn f_exactly_one_true(a: Args) -> Result<MjValue, Error> {
    let items = py_iter(&a.req(0, "iterable")?)?;
    Ok(MjValue::from(
        items.iter().filter(|x| x.truthy()).count() == 1,
    ))
}

fn f_sorted_ignorecase(a: Args) -> Result<MjValue, Error> {
    let mut items = py_iter(&a.req(0, "to_sort")?)?;
    if let Some(bad) = items.iter().find(|x| !matches!(x, Value::Str(_))) {
        return Err(py_error(format!(
            "'{}' object has no attribute 'lower'",
            bad.py_type_name()
        )));
    }
    items.sort_by_key(|x| x.py_str().to_lowercase());
    ret(Value::List(items.into()))
}

fn f_substring_in_list(a: Args) -> Result<MjValue, Error> {
    let needle = a.text(0, "substring")?;
    let list = py_iter(&a.req(1, "list")?)?;
    Ok(MjValue::from(
        list.iter().any(|x| x.py_str().contains(&needle)),
    ))
}

fn f_to_entries(a: Args) -> Result<MjValue, Error> {
    let data = a.req(0, "data")?;
    let entry = |k: Value, v: Value| {
        let mut m = Map::new();
        m.insert(Value::str("key"), k);
        m.insert(Value::str("value"), v);
        Value::Map(m)
    };
    let out: Vec<Value> = match data {
        Value::Map(m) => m.into_iter().map(|(k, v)| entry(k, v)).collect(),
        Value::List(l) => l
            .into_iter()
            .enumerate()
            .map(|(i, v)| entry(Value::Int(i as i64), v))
            .collect(),
        _ => return Err(py_error("Input data must be a dict or list")),
    };
    ret(Value::List(out.into()))
}

fn f_from_entries(a: Args) -> Result<MjValue, Error> {
    let mut out = Map::new();
    for e in py_iter(&a.req(0, "entries")?)? {
        let Value::Map(m) = e else { continue };
        let get = |name: &str| {
            m.iter()
                .find(|(k, _)| k.py_str().to_lowercase() == name)
                .map(|(_, v)| v.clone())
        };
        for key in ["key", "name"] {
            if let Some(kv) = get(key).filter(Value::truthy) {
                out.insert(kv, get("value").unwrap_or_default());
                break;
            }
        }
    }
    ret(Value::Map(out))
}

// ---------------------------------------------------------------------------
// salt/utils/dictupdate.py filters (they return the updated dict)
// ---------------------------------------------------------------------------

/// Walk `keys` (all but the last) creating dicts, then apply `f` to the
/// last key's slot.
fn dict_key_op(
    a: Args,
    f: impl FnOnce(&mut Map, Value, Value) -> Result<(), Error>,
) -> Result<MjValue, Error> {
    let mut in_dict = a.req(0, "in_dict")?;
    let keys = a.text(1, "keys")?;
    let value = a.req(2, "value")?;
    let delimiter = a
        .value(3, "delimiter")?
        .map_or(":".to_string(), |d| d.py_str());
    let parts: Vec<&str> = keys.split(delimiter.as_str()).collect();
    let (last, path) = parts.split_last().ok_or_else(|| py_error("empty key"))?;
    let mut ptr = match &mut in_dict {
        Value::Map(m) => m,
        other => {
            return Err(type_error(format!(
                "'{}' object is not subscriptable",
                other.py_type_name()
            )))
        }
    };
    for p in path {
        let k = Value::str(*p);
        if !matches!(ptr.get(&k), Some(Value::Map(_))) {
            ptr.insert(k.clone(), Value::Map(Map::new()));
        }
        ptr = match ptr.get_mut(&k) {
            Some(Value::Map(m)) => m,
            _ => return Err(py_error("internal: dict expected")),
        };
    }
    f(ptr, Value::str(*last), value)?;
    ret(in_dict)
}

fn f_set_dict_key_value(a: Args) -> Result<MjValue, Error> {
    dict_key_op(a, |m, k, v| {
        m.insert(k, v);
        Ok(())
    })
}

fn f_update_dict_key_value(a: Args) -> Result<MjValue, Error> {
    dict_key_op(a, |m, k, v| {
        let slot = m.entry(k).or_insert(Value::Null);
        if slot.is_null() {
            *slot = Value::Map(Map::new());
        }
        match (slot, v) {
            (Value::Map(d), Value::Map(u)) => {
                for (k, v) in u {
                    d.insert(k, v);
                }
                Ok(())
            }
            (Value::Map(_), v) => Err(py_error(format!(
                "Cannot update <class 'dict'> with a <class '{}'>.",
                v.py_type_name()
            ))),
            (s, _) => Err(py_error(format!(
                "The last key contains a <class '{}'>, which cannot update.",
                s.py_type_name()
            ))),
        }
    })
}

/// The list at `m[k]` (a new one when the key is missing or `None`), or
/// Salt's error naming `verb` when the key holds something else.
fn list_slot<'m>(
    m: &'m mut Map,
    k: Value,
    verb: &str,
) -> Result<&'m mut crate::value::List, Error> {
    let slot = m.entry(k).or_insert(Value::Null);
    if slot.is_null() {
        *slot = Value::List(crate::value::List::new());
    }
    match slot {
        Value::List(l) => Ok(l),
        s => Err(py_error(format!(
            "The last key contains a <class '{}'>, which cannot {verb}.",
            s.py_type_name()
        ))),
    }
}

fn f_append_dict_key_value(a: Args) -> Result<MjValue, Error> {
    dict_key_op(a, |m, k, v| {
        list_slot(m, k, "append")?.push(v);
        Ok(())
    })
}

fn f_extend_dict_key_value(a: Args) -> Result<MjValue, Error> {
    dict_key_op(a, |m, k, v| {
        let list = list_slot(m, k, "extend")?;
        list.extend(py_iter(&v).map_err(|_| {
            py_error(format!(
                "Cannot extend <class 'list'> with a <class '{}'>.",
                v.py_type_name()
            ))
        })?);
        Ok(())
    })
}

// ---------------------------------------------------------------------------
// hashutils / stringutils / path / yamlencoding
// ---------------------------------------------------------------------------

fn f_base64_encode(a: Args) -> Result<MjValue, Error> {
    let bytes = to_bytes(&a.req(0, "instr")?)?;
    Ok(MjValue::from(b64encode(&bytes)))
}

fn f_base64_decode(a: Args) -> Result<MjValue, Error> {
    let text = a.text(0, "instr")?;
    let bytes = b64decode(&text)
        .map_err(|e| py_error(format!("Incorrect padding or invalid base64 data: {e}")))?;
    match String::from_utf8(bytes) {
        Ok(s) => Ok(MjValue::from(s)),
        Err(e) => Ok(MjValue::from_bytes(e.into_bytes())),
    }
}

fn f_to_num(a: Args) -> Result<MjValue, Error> {
    let v = a.req(0, "text")?;
    let s = match &v {
        Value::Int(_) => return ret(v),
        Value::Float(f) => return ret(Value::Int(f.trunc() as i64)),
        Value::Bool(b) => return ret(Value::Int(*b as i64)),
        Value::Str(s) => s.clone(),
        other => {
            return Err(type_error(format!(
                "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                other.py_type_name()
            )))
        }
    };
    if let Some(i) = pynum::parse_int(&s, 10) {
        return Ok(int_value(i));
    }
    match pynum::parse_float(&s) {
        Some(f) => ret(Value::Float(f)),
        None => ret(v),
    }
}

/// A Python int as a Jinja value (`i64` when it fits).
fn int_value(i: i128) -> MjValue {
    i64::try_from(i).map_or_else(|_| MjValue::from(i), MjValue::from)
}

/// Python's `int(f)` for a float: `None` for NaN (`ValueError`), an
/// `OverflowError` for the infinities and for values past `i128`.
fn truncate_float(f: f64) -> Result<Option<MjValue>, Error> {
    if f.is_nan() {
        return Ok(None);
    }
    let t = f.trunc();
    if !t.is_finite() || t.abs() >= 1.7e38 {
        return Err(py_error(if t.is_finite() {
            "OverflowError: integer too large".to_string()
        } else {
            "OverflowError: cannot convert float infinity to integer".to_string()
        }));
    }
    Ok(Some(int_value(t as i128)))
}

/// The filtered value of `int`/`float`: undefined fails as in Jinja2
/// (`Undefined.__int__`), anything else is read as a scalar (or `None`
/// for containers and objects, which Python cannot convert).
fn number_input(a: &Args) -> Result<Option<Value>, Error> {
    let v = a.raw(0, "value").cloned().unwrap_or(MjValue::UNDEFINED);
    if v.is_undefined() {
        return Err(Error::new(
            ErrorKind::UndefinedError,
            "undefined value passed to a filter",
        ));
    }
    Ok(super::convert::scalar_from_jinja(&v))
}

/// Jinja2's `do_int(value, default=0, base=10)`: `int(value)` (a string
/// in `base`), else `int(float(value))` (so `"42.23"` gives 42), else the
/// default.
fn f_int(a: Args) -> Result<MjValue, Error> {
    let default = || a.raw(1, "default").cloned().unwrap_or(MjValue::from(0));
    let got = match number_input(&a)? {
        Some(Value::Int(i)) => Some(MjValue::from(i)),
        Some(Value::Bool(b)) => Some(MjValue::from(i64::from(b))),
        Some(Value::Float(f)) => truncate_float(f)?,
        Some(Value::Str(s)) => {
            let base = match a.raw(2, "base") {
                None => Some(10),
                Some(b) => i64::try_from(b.clone())
                    .ok()
                    .and_then(|b| u32::try_from(b).ok()),
            };
            match base.and_then(|b| pynum::parse_int(&s, b)) {
                Some(i) => Some(int_value(i)),
                None => match pynum::parse_float(&s) {
                    Some(f) => truncate_float(f)?,
                    None => None,
                },
            }
        }
        _ => None,
    };
    Ok(got.unwrap_or_else(default))
}

/// Jinja2's `do_float(value, default=0.0)`: `float(value)`, else the
/// default.
fn f_float(a: Args) -> Result<MjValue, Error> {
    let got = match number_input(&a)? {
        Some(Value::Int(i)) => Some(i as f64),
        Some(Value::Bool(b)) => Some(if b { 1.0 } else { 0.0 }),
        Some(Value::Float(f)) => Some(f),
        Some(Value::Str(s)) => pynum::parse_float(&s),
        _ => None,
    };
    Ok(match got {
        Some(f) => MjValue::from(f),
        None => a.raw(1, "default").cloned().unwrap_or(MjValue::from(0.0)),
    })
}

fn f_to_snake_case(a: Args) -> Result<MjValue, Error> {
    let s: Vec<char> = a.text(0, "camel_input")?.chars().collect();
    let Some(first) = s.first() else {
        return Err(py_error("string index out of range"));
    };
    let mut res: String = first.to_lowercase().collect();
    for i in 1..s.len() {
        let c = s[i];
        if c.is_uppercase()
            && (s[i - 1].is_lowercase() || (i != s.len() - 1 && s[i + 1].is_lowercase()))
        {
            res.push('_');
        }
        res.extend(c.to_lowercase());
    }
    Ok(MjValue::from(res))
}

fn py_capitalize(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f
            .to_uppercase()
            .chain(c.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

fn f_to_camelcase(a: Args) -> Result<MjValue, Error> {
    let s = a.text(0, "snake_input")?;
    let upper = a.flag(1, "uppercamel", false);
    let mut words: Vec<String> = s.split('_').map(str::to_string).collect();
    if upper {
        words[0] = py_capitalize(&words[0]);
    }
    let mut out = words[0].clone();
    for w in &words[1..] {
        out.push_str(&py_capitalize(w));
    }
    Ok(MjValue::from(out))
}

fn f_is_hex(a: Args) -> Result<MjValue, Error> {
    let ok = match a.req(0, "value")? {
        Value::Str(s) => {
            let t = s.trim().replace('_', "");
            let t = t.strip_prefix(['+', '-']).unwrap_or(&t);
            let t = t
                .strip_prefix("0x")
                .or_else(|| t.strip_prefix("0X"))
                .unwrap_or(t);
            !t.is_empty() && t.chars().all(|c| c.is_ascii_hexdigit())
        }
        _ => false,
    };
    Ok(MjValue::from(ok))
}

fn f_contains_whitespace(a: Args) -> Result<MjValue, Error> {
    Ok(MjValue::from(
        a.text(0, "text")?.chars().any(char::is_whitespace),
    ))
}

fn f_human_to_bytes(a: Args) -> Result<MjValue, Error> {
    let size = a.text(0, "size")?;
    let default_unit = a
        .value(1, "default_unit")?
        .map_or("B".to_string(), |v| v.py_str());
    let metric = a.flag(2, "handle_metric", false);
    let s = size.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = (&s[..split], s[split..].trim_start());
    let unit = if unit.is_empty() {
        default_unit.to_lowercase()
    } else {
        unit.to_lowercase()
    };
    let value = match num.parse::<i64>() {
        Ok(i) => Value::Int(i),
        Err(_) => match num.parse::<f64>() {
            Ok(f) => Value::Float(f),
            Err(_) => return Ok(MjValue::from(0)),
        },
    };
    const UNITS: &str = "bkmgtpezy";
    let first = unit.chars().next().unwrap_or('x');
    let p = match UNITS.find(first) {
        Some(p) => p as u32,
        None => return Ok(MjValue::from(0)),
    };
    let dec = if unit.len() == 2 && first != 'b' && unit.ends_with('b') {
        metric
    } else if unit == "b"
        || (first != 'b' && (unit.len() == 1 || (unit.len() == 3 && unit.ends_with("ib"))))
    {
        false
    } else {
        return Ok(MjValue::from(0));
    };
    let mult: f64 = if dec {
        10f64.powi((p * 3) as i32)
    } else {
        2f64.powi((p * 10) as i32)
    };
    let out = match value {
        Value::Int(i) => (i as f64 * mult) as i64,
        Value::Float(f) => (f * mult) as i64,
        _ => 0,
    };
    Ok(MjValue::from(out))
}

fn f_path_join(a: Args) -> Result<MjValue, Error> {
    let mut parts = Vec::new();
    for p in &a.pos {
        parts.push(from_mj(p)?.py_str());
    }
    for (k, _) in &a.kw {
        if k != "use_posixpath" && !k.starts_with("__") {
            return Err(py_error(format!(
                "The following keyword arguments are not valid: {k}"
            )));
        }
    }
    let parts: Vec<String> = parts
        .iter()
        .map(|p| super::salt::posix_normpath(p))
        .collect();
    let Some((root, rest)) = parts.split_first() else {
        return Ok(MjValue::from(""));
    };
    if rest.is_empty() {
        return Ok(MjValue::from(root.clone()));
    }
    let mut all = vec![root.clone()];
    all.extend(rest.iter().map(|p| p.trim_start_matches('/').to_string()));
    Ok(MjValue::from(super::salt::posix_normpath(
        &super::salt::posix_join(&all),
    )))
}

/// PyYAML's `write_double_quoted` (no line folding, non-ASCII escaped).
pub(crate) fn yaml_dquote(text: &str) -> String {
    super::py::print::yaml_double_quoted(text, false)
}

/// PyYAML's `write_single_quoted` at column 0 with no line folding: quotes
/// doubled, a line break written twice when it is `\n` (so it survives
/// folding), each following line indented by nothing.
pub(crate) fn yaml_squote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    let chars: Vec<char> = text.chars().collect();
    let is_break = |c: char| matches!(c, '\n' | '\u{85}' | '\u{2028}' | '\u{2029}');
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if is_break(c) {
            let start = i;
            while i < chars.len() && is_break(chars[i]) {
                i += 1;
            }
            if chars[start] == '\n' {
                out.push('\n');
            }
            for &b in &chars[start..i] {
                out.push(if b == '\n' { '\n' } else { b });
            }
            continue;
        }
        if c == '\'' {
            out.push_str("''");
        } else {
            out.push(c);
        }
        i += 1;
    }
    out.push('\'');
    out
}

fn f_yaml_dquote(a: Args) -> Result<MjValue, Error> {
    Ok(MjValue::from(yaml_dquote(&a.text(0, "text")?)))
}

fn f_yaml_squote(a: Args) -> Result<MjValue, Error> {
    Ok(MjValue::from(yaml_squote(&a.text(0, "text")?)))
}

/// PyYAML's `represent_float`.
fn yaml_float(f: f64) -> String {
    if f.is_nan() {
        ".nan".into()
    } else if f == f64::INFINITY {
        ".inf".into()
    } else if f == f64::NEG_INFINITY {
        "-.inf".into()
    } else {
        let v = py_float_repr(f).to_lowercase();
        if !v.contains('.') && v.contains('e') {
            v.replacen('e', ".0e", 1)
        } else {
            v
        }
    }
}

fn f_yaml_encode(a: Args) -> Result<MjValue, Error> {
    let out = match a.req(0, "data")? {
        Value::Str(s) => yaml_dquote(&s),
        Value::Null => "null".into(),
        Value::Bool(b) => if b { "true" } else { "false" }.into(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => yaml_float(f),
        other => {
            return Err(type_error(format!(
                "yaml_encode() only works with YAML scalar data; failed for <class '{}'>",
                other.py_type_name()
            )))
        }
    };
    Ok(MjValue::from(out))
}

fn t_match(a: Args) -> Result<bool, Error> {
    if a.pos.first().is_some_and(MjValue::is_undefined) {
        // Salt's `re.match` on a StrictUndefined.
        return Err(py_error(
            "expected string or bytes-like object, got 'StrictUndefined'",
        ));
    }
    let txt = a.text(0, "txt")?;
    let rgx = a.text(1, "rgx")?;
    let re = compile(
        &rgx,
        a.flag(2, "ignorecase", false),
        a.flag(3, "multiline", false),
        true,
    )?;
    re.is_match(&txt).map_err(|e| py_error(e.to_string()))
}
