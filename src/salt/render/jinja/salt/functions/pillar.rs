//! The `pillar` execution module: `pillar.get`, `pillar.items`, `pillar.item`, `pillar.raw`,
//! `pillar.keys`, `pillar.filter_by`, `pillar.file_exists` over the compiled pillar.

use super::{items_of, key_error, map_of, opt_bool, run_filter_by, Call};
use crate::salt::dictupdate;
use crate::salt::render::jinja::convert::Shape;
use crate::salt::render::jinja::convert::{to_jinja_like, to_jinja_ordered, to_jinja_pillar};
use crate::salt::render::jinja::reads::Source;
use crate::salt::render::jinja::salt::data::traverse;
use crate::salt::render::jinja::salt::{from_mj, py_error, to_mj, Bound};
use crate::value::{py_eq, Map, Value};
use minijinja::value::Value as MjValue;
use minijinja::Error;

pub(super) fn pillar_get(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let key = a.string("key", "")?;
    let delimiter = a.string("delimiter", ":")?;
    if a.raw("pillarenv").is_some_and(|v| !v.is_none())
        || a.raw("saltenv").is_some_and(|v| !v.is_none())
    {
        // saltenv alone is ignored by Salt only when pillarenv_from_saltenv
        // is off, but it still triggers a fresh pillar compile.
        return Err(py_error(
            "pillar.get with pillarenv/saltenv compiles a fresh pillar, which is not supported at compile time",
        ));
    }
    let default = a.get("default")?;
    let raise_on_missing = opt_bool(c.data, "pillar_raise_on_missing");
    let merge_lists = match a.raw("merge_nested_lists") {
        Some(v) if !v.is_none() => v.is_true(),
        _ => opt_bool(c.data, "pillar_merge_lists"),
    };
    let pillar = &c.data.pillar;
    if a.flag("merge", false) {
        match &default {
            Some(d @ Value::Map(_)) => {
                if let Some(r @ Value::Map(_)) = traverse(pillar, &key, &delimiter) {
                    let mut merged = d.clone();
                    dictupdate::update(&mut merged, r, true, merge_lists)
                        .map_err(|e| py_error(e.message))?;
                    let hints = [
                        a.raw("default").cloned().unwrap_or_default(),
                        to_jinja_ordered(r),
                    ];
                    return Ok(to_jinja_like(&merged, &hints));
                }
            }
            Some(Value::List(d)) => {
                if let Some(Value::List(r)) = traverse(pillar, &key, &delimiter) {
                    let mut merged = d.clone();
                    merged.extend(r.iter().filter(|x| !d.iter().any(|y| py_eq(x, y))).cloned());
                    return Ok(to_mj(&Value::List(merged)));
                }
            }
            // Salt logs an error and carries on without merging.
            _ => {}
        }
    }
    match traverse(pillar, &key, &delimiter) {
        Some(v) => Ok(c.part(Source::Pillar, v, Shape::Ordered)),
        None => match (a.raw("default"), raise_on_missing) {
            (Some(d), _) => Ok(d.clone()),
            (None, false) => Ok(MjValue::from("")),
            (None, true) => Err(key_error(&format!("Pillar key not found: {key}"))),
        },
    }
}

pub(super) fn pillar_items(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    if !a.varargs.is_empty() {
        return pillar_item(c, a);
    }
    if a.raw("pillar").is_some_and(|v| !v.is_none())
        || a.raw("pillarenv").is_some_and(|v| !v.is_none())
    {
        return Err(py_error("pillar.items with pillar=/pillarenv= compiles a fresh pillar, which is not supported at compile time"));
    }
    // Salt compiles the pillar afresh: what templates changed is not there.
    Ok(to_jinja_pillar(&c.original.pillar))
}

pub(super) fn pillar_ls(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let items = from_mj(&pillar_items(c, a)?)?;
    Ok(to_mj(&Value::List(
        map_of(&items).keys().cloned().collect(),
    )))
}

pub(super) fn pillar_item(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let default = match a.get("default")? {
        None | Some(Value::Null) => Value::str(""),
        Some(d) => d,
    };
    let delimiter = a.string("delimiter", ":")?;
    items_of(c, Source::Pillar, &a, default, &delimiter)
}

pub(super) fn pillar_raw(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match a.get("key")? {
        Some(k) if k.truthy() => Ok(match c.data.pillar.as_map().and_then(|m| m.get(&k)) {
            Some(v) => c.part(Source::Pillar, v, Shape::Ordered),
            None => to_mj(&Value::Map(Map::new())),
        }),
        _ => Ok(c.part(Source::Pillar, &c.data.pillar, Shape::Pillar)),
    }
}

pub(super) fn pillar_keys(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let key = a.string("key", "")?;
    let delimiter = a.string("delimiter", ":")?;
    match traverse(&c.data.pillar, &key, &delimiter) {
        None => Err(key_error(&format!("Pillar key not found: {key}"))),
        Some(Value::Map(m)) => Ok(to_mj(&Value::List(m.keys().cloned().collect()))),
        Some(_) => Err(py_error(format!("Pillar value in key {key} is not a dict"))),
    }
}

pub(super) fn pillar_filter_by(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let pillar = c.data.pillar.clone();
    run_filter_by(c.state, &a, &pillar, "pillar", "")
}

/// `pillar.file_exists(path, saltenv=None)`: is `path` a file under one of
/// the pillar roots (of `saltenv` only, when given)? A path that climbs out
/// of the roots is never found.
pub(super) fn pillar_file_exists(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let path = a.string("path", "")?;
    let saltenv = a
        .get("saltenv")?
        .filter(|v| !v.is_null())
        .map(|v| v.py_str());
    let rel = std::path::Path::new(&path);
    let inside = !rel.is_absolute()
        && !rel
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir));
    if c.data.pillar_roots.is_empty() {
        return Err(py_error(
            "No pillar_roots found. Are you running this on the master?",
        ));
    }
    let found = inside
        && c.data
            .pillar_roots
            .iter()
            .filter(|(env, _)| saltenv.as_deref().is_none_or(|s| s == env.as_str()))
            .flat_map(|(_, dirs)| dirs.iter())
            .any(|dir| dir.join(rel).is_file());
    Ok(MjValue::from(found))
}
