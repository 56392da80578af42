//! The `defaults` execution module: `defaults.merge`, `update`, `deepcopy`.

use super::Call;
use crate::salt::dictupdate;
use crate::salt::render::jinja::convert::to_jinja_like;
use crate::salt::render::jinja::salt::{merge_in_place, py_error, to_mj, update_in_place, Bound};
use crate::value::{Map, Value};
use minijinja::value::Value as MjValue;
use minijinja::Error;

pub(super) fn defaults_merge(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let convert_none = a.flag("convert_none", true);
    let in_place = a.flag("in_place", true);
    let merge_lists = a.flag("merge_lists", false);
    let mut src = a.get_or("src", Value::Null)?;
    if src.is_null() && convert_none {
        src = Value::Map(Map::new());
    }
    let mut dest = a.get_or("dest", Value::Null)?;
    if dest.is_null() && convert_none {
        if in_place {
            return Err(py_error("Can't perform in-place merge into NoneType"));
        }
        dest = Value::Map(Map::new());
    }
    dictupdate::update(&mut dest, &src, true, merge_lists).map_err(|e| py_error(e.message))?;
    if in_place {
        if let Some(target) = a.raw("dest") {
            // Salt returns `dest` itself.
            if merge_in_place(c.state, target, &dest, a.raw("src"))? {
                return Ok(target.clone());
            }
        }
    }
    let hints: Vec<MjValue> = [a.raw("dest"), a.raw("src")]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    Ok(to_jinja_like(&dest, &hints))
}

pub(super) fn defaults_update(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let convert_none = a.flag("convert_none", true);
    let in_place = a.flag("in_place", true);
    let merge_lists = a.flag("merge_lists", true);
    let mut nodes = a.get_or("dest", Value::Null)?;
    if in_place && nodes.is_null() {
        return Err(py_error("Can't perform in-place update into NoneType"));
    }
    if nodes.is_null() && convert_none {
        nodes = Value::Map(Map::new());
    }
    let mut defaults = a.get_or("defaults", Value::Null)?;
    if defaults.is_null() && convert_none {
        defaults = Value::Map(Map::new());
    }
    let Value::Map(node_map) = &mut nodes else {
        return Err(py_error(format!(
            "'{}' object has no attribute 'items'",
            nodes.py_type_name()
        )));
    };
    for (_, node_vars) in node_map.iter_mut() {
        let mut merged = defaults.clone();
        let mut src = std::mem::take(node_vars);
        if src.is_null() && convert_none {
            src = Value::Map(Map::new());
        }
        dictupdate::update(&mut merged, &src, true, merge_lists)
            .map_err(|e| py_error(e.message))?;
        *node_vars = merged;
    }
    if in_place {
        if let Some(target) = a.raw("dest") {
            if update_in_place(c.state, target, &nodes)? {
                return Ok(target.clone());
            }
        }
    }
    Ok(to_mj(&nodes))
}

pub(super) fn defaults_deepcopy(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(to_mj(&a.get_or("source", Value::Null)?))
}
