//! The `match` execution module (`match.compound`, `glob`, `pcre`, `grain`, ...,
//! `filter_by`, `search_by`) on the front end's target matchers.

use super::Call;
use crate::salt::dictupdate;
use crate::salt::render::jinja::salt::{py_error, to_mj, Bound};
use crate::value::Value;
use minijinja::value::Value as MjValue;
use minijinja::Error;

/// The minion a `match.*` call asks about: this one, or `minion_id`.
pub(super) fn match_with<R>(
    c: &Call,
    a: &Bound,
    f: impl FnOnce(&crate::salt::matcher::Minion<'_>) -> R,
) -> Result<R, Error> {
    let own = c
        .data
        .opts
        .get("id")
        .or_else(|| c.data.grains.get("id"))
        .map(Value::py_str)
        .unwrap_or_default();
    let id = match a.get("minion_id")? {
        Some(v) if !v.is_null() => v.py_str(),
        _ => own,
    };
    let minion = crate::salt::matcher::Minion {
        id: &id,
        grains: &c.data.grains,
        pillar: &c.data.pillar,
        opts: &c.data.opts,
    };
    Ok(f(&minion))
}

/// A target matched by the named matcher (as `match.<kind>` does).
pub(super) fn target_matches(
    kind: &str,
    tgt: &Value,
    delim: &str,
    minion: &crate::salt::matcher::Minion<'_>,
) -> Result<bool, Error> {
    use crate::salt::matcher as m;
    let text = tgt.py_str();
    let r = match kind {
        "compound" => m::compound_match(tgt, minion),
        "glob" => Ok(m::glob_match(&text, minion.id)),
        "pcre" => m::pcre_match(&text, minion.id),
        "list" => Ok(m::list_match(tgt, minion.id)),
        "grain" => Ok(m::grain_match(&text, delim, minion)),
        "grain_pcre" => Ok(m::grain_pcre_match(&text, delim, minion)),
        "pillar" => Ok(m::pillar_match(&text, delim, minion)),
        "pillar_pcre" => Ok(m::pillar_pcre_match(&text, delim, minion)),
        "ipcidr" => Ok(m::ipcidr_match(&text, minion)),
        "data" => Ok(m::data_match(&text)),
        other => {
            return Err(py_error(format!(
                "KeyError: '{other}' is not a matcher of the match module"
            )))
        }
    };
    r.map_err(|e| py_error(e.to_string()))
}

pub(super) fn match_kind(c: &mut Call, a: Bound, kind: &str) -> Result<MjValue, Error> {
    let tgt = a.get_or("tgt", Value::Null)?;
    let delim = a.string("delimiter", crate::salt::matcher::DEFAULT_DELIM)?;
    let r = match_with(c, &a, |minion| target_matches(kind, &tgt, &delim, minion))?;
    // match.compound logs any exception and answers False.
    let r = if kind == "compound" {
        r.unwrap_or(false)
    } else {
        r?
    };
    Ok(MjValue::from(r))
}

/// What `match.filter_by`/`search_by` call for one target: the module's
/// function named `tgt_type`, with `minion_id` only when given (a matcher
/// that takes none fails as Python's TypeError does).
pub(super) fn match_by(c: &Call, a: &Bound, kind: &str, tgt: &Value) -> Result<bool, Error> {
    let with_id = a.get("minion_id")?.is_some_and(|v| v.truthy());
    let takes_id = matches!(kind, "compound" | "glob" | "pcre" | "list");
    if with_id && !takes_id {
        return Err(py_error(format!(
            "TypeError: {kind}() takes from 1 to 2 positional arguments but 2 were given"
        )));
    }
    let delim = crate::salt::matcher::DEFAULT_DELIM;
    let r = match_with(c, a, |minion| target_matches(kind, tgt, delim, minion))?;
    Ok(if kind == "compound" {
        r.unwrap_or(false)
    } else {
        r?
    })
}

pub(super) fn match_compound(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "compound")
}

pub(super) fn match_glob(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "glob")
}

pub(super) fn match_pcre(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "pcre")
}

pub(super) fn match_list(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "list")
}

pub(super) fn match_grain(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "grain")
}

pub(super) fn match_grain_pcre(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "grain_pcre")
}

pub(super) fn match_pillar(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "pillar")
}

pub(super) fn match_pillar_pcre(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "pillar_pcre")
}

pub(super) fn match_ipcidr(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "ipcidr")
}

pub(super) fn match_data(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "data")
}

/// `match.filter_by(lookup, tgt_type='compound', minion_id=None,
/// merge=None, merge_lists=False, default='default')`: the value of the
/// first key of `lookup` that matches this minion.
pub(super) fn match_filter_by(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let lookup = a.get_or("lookup", Value::Null)?;
    let kind = a.string("tgt_type", "compound")?;
    let default = a.string("default", "default")?;
    let Some(map) = lookup.as_map() else {
        return Err(py_error("AttributeError: lookup must be a dict"));
    };
    for (k, v) in map {
        if match_by(c, &a, &kind, k)? {
            let mut out = v.clone();
            if let Some(merge) = a.get("merge")?.filter(|m| m.truthy()) {
                if merge.as_map().is_none() {
                    return Err(py_error("filter_by merge argument must be a dictionary."));
                }
                if out.is_null() {
                    return Ok(to_mj(&merge));
                }
                let lists = a.flag("merge_lists", false);
                dictupdate::update(&mut out, &merge, true, lists)
                    .map_err(|e| py_error(e.to_string()))?;
            }
            return Ok(to_mj(&out));
        }
    }
    Ok(to_mj(
        &map.get(default.as_str()).cloned().unwrap_or(Value::Null),
    ))
}

/// `match.search_by(lookup, tgt_type='compound', minion_id=None)`: the keys
/// of `lookup` whose list holds a target that matches, or None.
pub(super) fn match_search_by(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let lookup = a.get_or("lookup", Value::Null)?;
    let kind = a.string("tgt_type", "compound")?;
    let Some(map) = lookup.as_map() else {
        return Err(py_error("AttributeError: lookup must be a dict"));
    };
    let mut keys = Vec::new();
    for (k, targets) in map {
        // Python iterates the value: a list's items, a string's characters.
        let targets: Vec<Value> = match targets {
            Value::List(l) => l.iter().cloned().collect(),
            Value::Str(s) => s.chars().map(|ch| Value::str(ch.to_string())).collect(),
            Value::Map(m) => m.keys().cloned().collect(),
            other => {
                return Err(py_error(format!(
                    "TypeError: '{}' object is not iterable",
                    other.py_type_name()
                )))
            }
        };
        for t in &targets {
            if match_by(c, &a, &kind, t)? {
                keys.push(k.clone());
            }
        }
    }
    Ok(if keys.is_empty() {
        MjValue::from(())
    } else {
        to_mj(&Value::List(keys.into_iter().collect()))
    })
}
