//! The `grains` execution module: `grains.get`, `item`, `items`, `ls`, `has_value`,
//! `equals`, `filter_by` over the minion's grains.

use super::{items_of, map_of, run_filter_by, Call};
use crate::salt::render::jinja::convert::Shape;
use crate::salt::render::jinja::reads::Source;
use crate::salt::render::jinja::salt::data::traverse;
use crate::salt::render::jinja::salt::{from_mj, to_mj, Bound};
use crate::value::Value;
use minijinja::value::Value as MjValue;
use minijinja::Error;

pub(super) fn grains_get(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let key = a.string("key", "")?;
    let delimiter = a.string("delimiter", ":")?;
    match traverse(&c.data.grains, &key, &delimiter) {
        Some(v) => Ok(c.part(Source::Grains, v, Shape::Plain)),
        None => Ok(a
            .raw("default")
            .cloned()
            .unwrap_or_else(|| MjValue::from(""))),
    }
}

pub(super) fn grains_item(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let kw = |name: &str| {
        a.varkw
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let default = match kw("default") {
        Some(d) => from_mj(&d)?,
        None => Value::str(""),
    };
    let delimiter = match kw("delimiter") {
        Some(d) => from_mj(&d)?.py_str(),
        None => ":".into(),
    };
    items_of(c, Source::Grains, &a, default, &delimiter)
}

pub(super) fn grains_items(c: &mut Call, _a: Bound) -> Result<MjValue, Error> {
    Ok(c.part(Source::Grains, &c.data.grains, Shape::Plain))
}

pub(super) fn grains_ls(c: &mut Call, _a: Bound) -> Result<MjValue, Error> {
    let mut keys: Vec<Value> = map_of(&c.data.grains).keys().cloned().collect();
    keys.sort_by_key(Value::py_str);
    Ok(to_mj(&Value::List(keys.into())))
}

pub(super) fn grains_has_value(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let key = a.string("key", "")?;
    Ok(MjValue::from(traverse(&c.data.grains, &key, ":").is_some()))
}

pub(super) fn grains_equals(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let key = a.string("key", "")?;
    let value = a.get_or("value", Value::Null)?;
    let got = traverse(&c.data.grains, &key, ":")
        .cloned()
        .unwrap_or(Value::str(""));
    Ok(MjValue::from(value.py_str() == got.py_str()))
}

pub(super) fn grains_filter_by(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let grains = c.data.grains.clone();
    run_filter_by(c.state, &a, &grains, "grain", "os_family")
}
