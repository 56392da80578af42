//! Conversions between the crate's data model (`crate::value::Value`) and
//! template values (`minijinja::Value`), keeping map order and the
//! int / float / bool distinction. Data handed to templates becomes
//! mutable (`MutMap` / `MutList`), as Python dicts and lists are.

use indexmap::IndexMap;
use minijinja::value::{Value as JValue, ValueKind};

#[cfg(test)]
use super::py::MutList;
use super::py::{new_list, new_list_as, new_map, new_map_as, new_ordered_map, MutMap};
use crate::value::{Map, Value};

pub(crate) use super::py::is_mutable;

/// Deep conversion to a template value; maps and lists become mutable.
pub(crate) fn to_jinja(v: &Value) -> JValue {
    convert_as::<false, false>(v)
}

/// Like [`to_jinja`], but every map becomes an `OrderedDict`: what Salt's
/// YAML renderer makes of pillar data below the top level.
pub(crate) fn to_jinja_ordered(v: &Value) -> JValue {
    convert_as::<true, false>(v)
}

/// The whole pillar as templates see it: a plain dict whose nested maps
/// are `OrderedDict`s.
pub(crate) fn to_jinja_pillar(v: &Value) -> JValue {
    convert(v, Shape::Pillar, false)
}

/// The Python types of a converted value's maps: [`to_jinja`]'s,
/// [`to_jinja_ordered`]'s or [`to_jinja_pillar`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Plain dicts.
    Plain,
    /// `OrderedDict`s.
    Ordered,
    /// A plain dict holding `OrderedDict`s.
    Pillar,
}

/// A part of the minion's pillar or grains as the template sees it, in
/// `shape`, with every container marked as minion data (a write to it
/// changes data Salt shares between files: `super::shared`).
pub(crate) fn to_jinja_data(v: &Value, shape: Shape) -> JValue {
    convert(v, shape, true)
}

fn convert(v: &Value, shape: Shape, marked: bool) -> JValue {
    match (shape, marked) {
        (Shape::Plain, false) => convert_as::<false, false>(v),
        (Shape::Plain, true) => convert_as::<false, true>(v),
        (Shape::Ordered, false) => convert_as::<true, false>(v),
        (Shape::Ordered, true) => convert_as::<true, true>(v),
        (Shape::Pillar, _) => match v {
            Value::Map(m) => new_map_as(
                m.iter()
                    .map(|(k, x)| (to_jinja_key(k), convert(x, Shape::Ordered, marked)))
                    .collect::<IndexMap<_, _>>(),
                false,
                marked,
            ),
            other => convert(other, Shape::Ordered, marked),
        },
    }
}

/// [`convert`] made for each kind (maps `ORDERED`, containers `MARKED`),
/// as the conversions run for every value a template is given.
fn convert_as<const ORDERED: bool, const MARKED: bool>(v: &Value) -> JValue {
    match v {
        Value::Null => JValue::from(()),
        Value::Bool(b) => JValue::from(*b),
        Value::Int(i) => JValue::from(*i),
        Value::Float(f) => JValue::from(*f),
        Value::Str(s) => JValue::from(s.as_str()),
        Value::List(l) => new_list_as(
            l.iter().map(convert_as::<ORDERED, MARKED>).collect(),
            MARKED,
        ),
        Value::Map(m) => new_map_as(
            m.iter()
                .map(|(k, x)| (to_jinja_key(k), convert_as::<ORDERED, MARKED>(x)))
                .collect::<IndexMap<_, _>>(),
            ORDERED,
            MARKED,
        ),
    }
}

/// The entries of the engine dict [`to_jinja`] makes of the map `m`, each
/// value converted by `value` (given its key): the fill of a lazy root
/// (`super::py::track_lazy`).
pub(crate) fn root_entries(
    m: &Map,
    value: impl Fn(&Value, &Value) -> JValue,
) -> IndexMap<JValue, JValue> {
    m.iter()
        .map(|(k, v)| (to_jinja_key(k), value(k, v)))
        .collect()
}

/// Convert the result of a merge computed on copies, giving each map the
/// Python type (dict or `OrderedDict`) it has in Salt: that of the first
/// hint holding a map at the same path (Salt's `dictupdate.update` keeps
/// `dest`'s containers and deep-copies the ones it takes from `upd`, so
/// pass the hints as `[dest, upd]`).
pub(crate) fn to_jinja_like(v: &Value, hints: &[JValue]) -> JValue {
    match v {
        Value::Map(m) => {
            let maps: Vec<&JValue> = hints
                .iter()
                .filter(|h| h.kind() == ValueKind::Map && !h.is_undefined())
                .collect();
            let ordered = maps
                .first()
                .and_then(|h| h.downcast_object_ref::<MutMap>())
                .is_some_and(MutMap::is_ordered);
            let entries = m
                .iter()
                .map(|(k, x)| {
                    let key = to_jinja_key(k);
                    let sub: Vec<JValue> = maps.iter().filter_map(|h| item(h, &key)).collect();
                    (key, to_jinja_like(x, &sub))
                })
                .collect::<IndexMap<_, _>>();
            if ordered {
                new_ordered_map(entries)
            } else {
                new_map(entries)
            }
        }
        Value::List(l) => new_list(
            l.iter()
                .enumerate()
                .map(|(i, x)| {
                    let sub: Vec<JValue> = hints
                        .iter()
                        .filter(|h| h.kind() == ValueKind::Seq)
                        .filter_map(|h| item(h, &JValue::from(i)))
                        .collect();
                    to_jinja_like(x, &sub)
                })
                .collect(),
        ),
        other => to_jinja(other),
    }
}

fn item(h: &JValue, key: &JValue) -> Option<JValue> {
    h.get_item(key).ok().filter(|v| !v.is_undefined())
}

/// Map keys are never containers in Python; convert them without wrapping.
pub(crate) fn to_jinja_key(k: &Value) -> JValue {
    match k {
        Value::List(l) => JValue::from(minijinja::value::Tuple::from(
            l.iter().map(to_jinja_key).collect::<Vec<_>>(),
        )),
        other => to_jinja(other),
    }
}

/// Deep conversion to an immutable engine value (the tests' round trip).
#[cfg(test)]
fn to_jinja_frozen(v: &Value) -> JValue {
    match v {
        Value::List(l) => JValue::from(l.iter().map(to_jinja_frozen).collect::<Vec<_>>()),
        Value::Map(m) => JValue::from_object(
            m.iter()
                .map(|(k, v)| (to_jinja_key(k), to_jinja_frozen(v)))
                .collect::<IndexMap<_, _>>(),
        ),
        other => to_jinja(other),
    }
}

/// Deep conversion back to crate data. Undefined becomes `Null`; integers
/// beyond `i64` become floats; callables and other opaque objects become
/// their printed text. The tests' round trip: renders hand data back as
/// text.
#[cfg(test)]
fn from_jinja(v: &JValue) -> Value {
    if let Some(m) = v.downcast_object_ref::<MutMap>() {
        let pairs: Vec<(JValue, JValue)> = m
            .lock()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        return Value::Map(
            pairs
                .iter()
                .map(|(k, v)| (from_jinja(k), from_jinja(v)))
                .collect(),
        );
    }
    if let Some(l) = v.downcast_object_ref::<MutList>() {
        let items = l.lock().clone();
        return Value::List(items.iter().map(from_jinja).collect());
    }
    if let Some(scalar) = scalar_from_jinja(v) {
        return scalar;
    }
    match v.kind() {
        ValueKind::Undefined => Value::Null,
        ValueKind::Seq | ValueKind::Iterable => match v.try_iter() {
            Ok(it) => Value::List(it.map(|x| from_jinja(&x)).collect()),
            Err(_) => Value::Str(v.to_string().into()),
        },
        ValueKind::Map => {
            let mut out = Map::new();
            if let Ok(it) = v.try_iter() {
                for k in it {
                    let val = v.get_item(&k).unwrap_or_default();
                    out.insert(from_jinja(&k), from_jinja(&val));
                }
            }
            Value::Map(out)
        }
        _ => Value::Str(v.to_string().into()),
    }
}

/// A none, bool, number, string or bytes value as crate data (integers
/// beyond `i64` become floats, bytes are decoded lossily); `None` for
/// anything else (undefined, containers, opaque objects).
pub(crate) fn scalar_from_jinja(v: &JValue) -> Option<Value> {
    Some(match v.kind() {
        ValueKind::None => Value::Null,
        ValueKind::Bool => Value::Bool(v.is_true()),
        ValueKind::Number => {
            if v.is_integer() {
                match i64::try_from(v.clone()) {
                    Ok(i) => Value::Int(i),
                    Err(_) => Value::Float(f64::try_from(v.clone()).unwrap_or(f64::NAN)),
                }
            } else {
                Value::Float(f64::try_from(v.clone()).unwrap_or(f64::NAN))
            }
        }
        ValueKind::String => Value::Str(v.as_str().unwrap_or_default().into()),
        ValueKind::Bytes => Value::Str(
            String::from_utf8_lossy(v.as_bytes().unwrap_or_default())
                .into_owned()
                .into(),
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmap;

    #[test]
    fn round_trip_keeps_order_and_types() {
        let v = vmap! {
            "z" => 1i64,
            "a" => 1.0f64,
            "b" => true,
            "n" => Value::Null,
            "l" => Value::List(crate::value::list![Value::Int(1), Value::str("x")]),
        };
        let j = to_jinja(&v);
        assert!(is_mutable(&j));
        let back = from_jinja(&j);
        let keys: Vec<String> = back.as_map().unwrap().keys().map(|k| k.py_str()).collect();
        assert_eq!(keys, ["z", "a", "b", "n", "l"]);
        assert!(matches!(back.get("z"), Some(Value::Int(1))));
        assert!(matches!(back.get("a"), Some(Value::Float(f)) if *f == 1.0));
        assert!(matches!(back.get("b"), Some(Value::Bool(true))));
        assert_eq!(back, v);
        assert_eq!(from_jinja(&to_jinja_frozen(&v)), v);
    }
}
