//! Salt's data filters (`salt/utils/data.py`, `dictupdate.py`, the
//! builtin overrides `unique`, `min`, `max`, `sum`): set operations,
//! `traverse`, `flatten`, comparisons, entries, the `*_dict_key_value`
//! family.

use super::*;

/// The filters of this file, by name.
pub(super) const FILTERS: &[(&str, Filter)] = &[
    ("unique", f_unique),
    ("min", f_min),
    ("max", f_max),
    ("avg", f_avg),
    ("union", f_union),
    ("intersect", f_intersect),
    ("difference", f_difference),
    ("symmetric_difference", f_symmetric_difference),
    ("sequence", f_sequence),
    ("skip", f_skip),
    ("traverse", f_traverse),
    ("flatten", f_flatten),
    ("is_list", f_is_list),
    ("is_iter", f_is_iter),
    ("compare_lists", f_compare_lists),
    ("compare_dicts", f_compare_dicts),
    ("exactly_n_true", f_exactly_n_true),
    ("exactly_one_true", f_exactly_one_true),
    ("sorted_ignorecase", f_sorted_ignorecase),
    ("substring_in_list", f_substring_in_list),
    ("to_entries", f_to_entries),
    ("from_entries", f_from_entries),
    ("set_dict_key_value", f_set_dict_key_value),
    ("update_dict_key_value", f_update_dict_key_value),
    ("append_dict_key_value", f_append_dict_key_value),
    ("extend_dict_key_value", f_extend_dict_key_value),
];

/// Jinja2's `do_sum(environment, iterable, attribute=None, start=0)`:
/// Python's `sum(iterable, start)`, so its `+` (numbers, bools as ints,
/// list concatenation) and its errors; an undefined item fails naming the
/// variable, and an item without the attribute fails as Jinja2's
/// `Undefined` for it does (minijinja's own `sum` skips both).
pub(super) fn f_sum(
    state: &State,
    v: MjValue,
    args: Rest<MjValue>,
    kwargs: Kwargs,
) -> Result<MjValue, Error> {
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

pub(super) fn undefined_error() -> Error {
    Error::new(ErrorKind::UndefinedError, "is undefined")
}

/// Jinja2's `environment.getitem` along `parts`; a missing step is the
/// error its `Undefined` raises when used ("'dict object' has no attribute
/// 'a'", "list object has no element 3").
pub(super) fn attribute_of(mut item: MjValue, parts: &[MjValue]) -> Result<MjValue, Error> {
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
pub(super) fn py_add(a: &MjValue, b: &MjValue) -> Result<MjValue, Error> {
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

/// Salt's `unique(values)` replaces Jinja2's: no options
/// (`case_sensitive`, `attribute`) are accepted.
pub(super) fn f_unique(a: Args) -> Result<MjValue, Error> {
    a.signature("unique", &["values"])?;
    let v = a.req(0, "values")?;
    ret(Value::List(unique_list(py_iter(&v)?).into()))
}

/// Salt's `lst_min(obj)` / `lst_max(obj)` replace Jinja2's `min`/`max`:
/// no options (`case_sensitive`, `attribute`) are accepted.
pub(super) fn min_max(a: Args, want: std::cmp::Ordering) -> Result<MjValue, Error> {
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

pub(super) fn f_min(a: Args) -> Result<MjValue, Error> {
    min_max(a, std::cmp::Ordering::Less)
}

pub(super) fn f_max(a: Args) -> Result<MjValue, Error> {
    min_max(a, std::cmp::Ordering::Greater)
}

pub(super) fn f_avg(a: Args) -> Result<MjValue, Error> {
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
pub(super) fn two_lists(a: &Args) -> Result<(Vec<Value>, Vec<Value>), Error> {
    let x = a.req(0, "lst1")?;
    let y = a.req(1, "lst2")?;
    match (&x, &y) {
        (Value::List(p), Value::List(q)) => Ok((p.to_vec(), q.to_vec())),
        _ => Ok((py_iter(&x)?, py_iter(&y)?)),
    }
}

pub(super) fn contains(list: &[Value], x: &Value) -> bool {
    list.iter().any(|y| py_eq(x, y))
}

pub(super) fn f_union(a: Args) -> Result<MjValue, Error> {
    let (mut x, y) = two_lists(&a)?;
    x.extend(y);
    ret(Value::List(unique_list(x).into()))
}

pub(super) fn f_intersect(a: Args) -> Result<MjValue, Error> {
    let (x, y) = two_lists(&a)?;
    ret(Value::List(
        unique_list(x.into_iter().filter(|e| contains(&y, e)).collect()).into(),
    ))
}

pub(super) fn f_difference(a: Args) -> Result<MjValue, Error> {
    let (x, y) = two_lists(&a)?;
    ret(Value::List(
        unique_list(x.into_iter().filter(|e| !contains(&y, e)).collect()).into(),
    ))
}

pub(super) fn f_symmetric_difference(a: Args) -> Result<MjValue, Error> {
    let (x, y) = two_lists(&a)?;
    let both: Vec<Value> = unique_list(x.iter().filter(|e| contains(&y, e)).cloned().collect());
    let mut all = x;
    all.extend(y);
    let all = unique_list(all);
    ret(Value::List(
        unique_list(all.into_iter().filter(|e| !contains(&both, e)).collect()).into(),
    ))
}

pub(super) fn f_sequence(a: Args) -> Result<MjValue, Error> {
    let v = a.raw(0, "data").cloned().unwrap_or_default();
    Ok(match v.kind() {
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable => v,
        _ => MjValue::from(vec![v]),
    })
}

pub(super) fn f_skip(_a: Args) -> Result<MjValue, Error> {
    Ok(MjValue::from(""))
}

pub(super) fn f_traverse(a: Args) -> Result<MjValue, Error> {
    let data = a.req(0, "data")?;
    let key = a.req(1, "key")?;
    let delimiter = a
        .value(3, "delimiter")?
        .map_or(":".to_string(), |d| d.py_str());
    let found = match &key {
        Value::Str(k) => super::super::salt::data::traverse(&data, k, &delimiter).cloned(),
        Value::Int(i) => {
            super::super::salt::data::traverse_parts(&data, &[i.to_string().as_str()]).cloned()
        }
        Value::List(parts) => {
            let parts: Vec<String> = parts.iter().map(Value::py_str).collect();
            let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
            super::super::salt::data::traverse_parts(&data, &refs).cloned()
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

pub(super) fn flatten(
    items: &[Value],
    levels: Option<i64>,
    preserve_nulls: bool,
    out: &mut Vec<Value>,
) {
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

pub(super) fn f_flatten(a: Args) -> Result<MjValue, Error> {
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

pub(super) fn f_is_list(a: Args) -> Result<MjValue, Error> {
    Ok(MjValue::from(a.raw(0, "value").is_some_and(is_list_value)))
}

pub(super) fn f_is_iter(a: Args) -> Result<MjValue, Error> {
    let v = a.raw(0, "thing").cloned().unwrap_or_default();
    Ok(MjValue::from(matches!(
        v.kind(),
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable
    )))
}

pub(super) fn f_compare_lists(a: Args) -> Result<MjValue, Error> {
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

pub(super) fn f_compare_dicts(a: Args) -> Result<MjValue, Error> {
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

pub(super) fn f_exactly_n_true(a: Args) -> Result<MjValue, Error> {
    let items = py_iter(&a.req(0, "iterable")?)?;
    let n = match a.value(1, "amount")? {
        Some(Value::Int(n)) => n,
        _ => 1,
    };
    let count = items.iter().filter(|x| x.truthy()).count() as i64;
    Ok(MjValue::from(count == n))
}

pub(super) fn f_exactly_one_true(a: Args) -> Result<MjValue, Error> {
    let items = py_iter(&a.req(0, "iterable")?)?;
    Ok(MjValue::from(
        items.iter().filter(|x| x.truthy()).count() == 1,
    ))
}

pub(super) fn f_sorted_ignorecase(a: Args) -> Result<MjValue, Error> {
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

pub(super) fn f_substring_in_list(a: Args) -> Result<MjValue, Error> {
    let needle = a.text(0, "substring")?;
    let list = py_iter(&a.req(1, "list")?)?;
    Ok(MjValue::from(
        list.iter().any(|x| x.py_str().contains(&needle)),
    ))
}

pub(super) fn f_to_entries(a: Args) -> Result<MjValue, Error> {
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

pub(super) fn f_from_entries(a: Args) -> Result<MjValue, Error> {
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

/// Walk `keys` (all but the last) creating dicts, then apply `f` to the
/// last key's slot.
pub(super) fn dict_key_op(
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

pub(super) fn f_set_dict_key_value(a: Args) -> Result<MjValue, Error> {
    dict_key_op(a, |m, k, v| {
        m.insert(k, v);
        Ok(())
    })
}

pub(super) fn f_update_dict_key_value(a: Args) -> Result<MjValue, Error> {
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
pub(super) fn list_slot<'m>(
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

pub(super) fn f_append_dict_key_value(a: Args) -> Result<MjValue, Error> {
    dict_key_op(a, |m, k, v| {
        list_slot(m, k, "append")?.push(v);
        Ok(())
    })
}

pub(super) fn f_extend_dict_key_value(a: Args) -> Result<MjValue, Error> {
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
