//! The `slsutil` execution module: merges (`update`, `merge`, `merge_all`),
//! `serialize`/`deserialize`, `boolstr`, and the fileserver checks (`file_exists`,
//! `dir_exists`, `path_exists`).

use super::cp::listing_of;
use super::Call;
use crate::salt::dictupdate;
use crate::salt::render::jinja::convert::to_jinja_like;
use crate::salt::render::jinja::salt::{
    from_mj, merge_in_place, py_error, to_mj, update_in_place, Bound,
};
use crate::value::{Map, Value};
use minijinja::value::Value as MjValue;
use minijinja::Error;

/// `slsutil.file_exists` / `dir_exists`: is `path` (exactly as written)
/// one of the files (directories) `cp.list_master` lists for `saltenv`
/// (default `base`, not the minion's saltenv)?
pub(super) fn slsutil_listed(c: &Call, a: &Bound, dirs: bool) -> Result<bool, Error> {
    let path = a.string("path", "")?;
    let saltenv = match a.get("saltenv")? {
        Some(v) if !v.is_null() => v.py_str(),
        _ => "base".to_string(),
    };
    let listing = listing_of(c, &saltenv, "slsutil.*_exists")?;
    let paths = if dirs { &listing.dirs } else { &listing.files };
    Ok(paths.contains(&path))
}

pub(super) fn slsutil_file_exists(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    slsutil_listed(c, &a, false).map(MjValue::from)
}

pub(super) fn slsutil_dir_exists(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    slsutil_listed(c, &a, true).map(MjValue::from)
}

pub(super) fn slsutil_path_exists(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(MjValue::from(
        slsutil_listed(c, &a, false)? || slsutil_listed(c, &a, true)?,
    ))
}

pub(super) fn slsutil_update(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let mut dest = a.get_or("dest", Value::Null)?;
    let upd = a.get_or("upd", Value::Null)?;
    let recursive = a.flag("recursive_update", true);
    dictupdate::update(&mut dest, &upd, recursive, a.flag("merge_lists", false))
        .map_err(|e| py_error(e.message))?;
    if let Some(target) = a.raw("dest") {
        let done = if recursive {
            merge_in_place(c.state, target, &dest, a.raw("upd"))?
        } else {
            update_in_place(c.state, target, &dest)?
        };
        if done {
            return Ok(target.clone());
        }
    }
    Ok(to_mj(&dest))
}

pub(super) fn slsutil_merge(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let obj_a = a.get_or("obj_a", Value::Null)?;
    let obj_b = a.get_or("obj_b", Value::Null)?;
    let strategy = a.string("strategy", "smart")?;
    let renderer = a.string("renderer", "yaml")?;
    let merged = dictupdate::merge(
        &obj_a,
        &obj_b,
        &strategy,
        &renderer,
        a.flag("merge_lists", false),
    )
    .map_err(|e| py_error(e.message))?;
    if dictupdate::Strategy::parse(&strategy) == (dictupdate::Strategy::Overwrite, true) {
        // merge_overwrite assigns b's shared top-level keys into a first.
        let mut a_now = obj_a.clone();
        dictupdate::overwrite_in_place(&mut a_now, &obj_b);
        if let Some(target) = a.raw("obj_a") {
            update_in_place(c.state, target, &a_now)?;
        }
    }
    let hints: Vec<MjValue> = [a.raw("obj_a"), a.raw("obj_b")]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    Ok(to_jinja_like(&merged, &hints))
}

pub(super) fn slsutil_merge_all(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let lst = a.get_or("lst", Value::Null)?;
    let strategy = a.string("strategy", "smart")?;
    let renderer = a.string("renderer", "yaml")?;
    let merge_lists = a.flag("merge_lists", false);
    let mut ret = Value::Map(Map::new());
    let items: Vec<Value> = match lst {
        Value::List(l) => l.to_vec(),
        Value::Map(m) => m.into_keys().collect(),
        Value::Str(s) => s.chars().map(Value::from).collect(),
        other => {
            return Err(py_error(format!(
                "'{}' object is not iterable",
                other.py_type_name()
            )))
        }
    };
    for obj in items {
        ret = dictupdate::merge(&ret, &obj, &strategy, &renderer, merge_lists)
            .map_err(|e| py_error(e.message))?;
    }
    Ok(to_mj(&ret))
}

pub(super) fn slsutil_serialize(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let serializer = a.string("serializer", "")?;
    let obj = a.get_or("obj", Value::Null)?;
    let mut kwargs = Map::new();
    for (k, v) in &a.varkw {
        if !k.starts_with("__") {
            kwargs.insert(Value::str(k.as_str()), from_mj(v)?);
        }
    }
    match serializer.as_str() {
        "json" => {
            let opts =
                crate::salt::render::jinja::serialize::json_options(&kwargs).map_err(py_error)?;
            Ok(MjValue::from(crate::value::dumps(&obj, &opts)))
        }
        "yaml" => {
            let flow = match kwargs.get("default_flow_style") {
                None | Some(Value::Null) => None,
                Some(v) => Some(v.truthy()),
            };
            if let Some(k) = kwargs
                .keys()
                .find(|k| k.as_str() != Some("default_flow_style"))
            {
                return Err(py_error(format!(
                    "slsutil.serialize('yaml', ..., {}=...) is not supported at compile time",
                    k.py_str()
                )));
            }
            let text = crate::salt::render::jinja::serialize::yaml_dump_sorted(&obj, flow);
            let text = match text.strip_suffix("\n...\n") {
                Some(t) => t.to_string(),
                None => text.strip_suffix('\n').unwrap_or(&text).to_string(),
            };
            Ok(MjValue::from(text))
        }
        other => Err(py_error(format!(
            "Serializer '{other}' not found or not supported at compile time."
        ))),
    }
}

pub(super) fn slsutil_deserialize(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let serializer = a.string("serializer", "")?;
    let text = a.string("stream_or_string", "")?;
    match serializer.as_str() {
        "json" => serde_json::from_str::<serde_json::Value>(&text)
            .map(|j| to_mj(&Value::from_json(&j)))
            .map_err(|e| py_error(e.to_string())),
        "yaml" => crate::yaml::load_value(&text, crate::yaml::Dialect::Salt)
            .map(|v| to_mj(&v))
            .map_err(|e| py_error(e.message)),
        other => Err(py_error(format!(
            "Serializer '{other}' not found or not supported at compile time."
        ))),
    }
}

pub(super) fn slsutil_boolstr(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let value = a.flag("value", false);
    let key = if value { "true" } else { "false" };
    Ok(a.raw(key).cloned().unwrap_or_else(|| MjValue::from(key)))
}
