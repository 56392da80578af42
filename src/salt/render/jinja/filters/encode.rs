//! Salt's serializing filters: `yaml`, `json`, `tojson`, `python`,
//! `dict_to_sls_yaml_params`, and the `yamlencoding` ones (`yaml_dquote`,
//! `yaml_squote`, `yaml_encode`).

use super::*;

/// The filters of this file, by name.
pub(super) const FILTERS: &[(&str, Filter)] = &[
    ("yaml", f_yaml),
    ("json", f_json),
    ("python", f_python),
    ("dict_to_sls_yaml_params", f_dict_to_sls_yaml_params),
    ("tojson", f_tojson),
    ("yaml_dquote", f_yaml_dquote),
    ("yaml_squote", f_yaml_squote),
    ("yaml_encode", f_yaml_encode),
];

/// Template value → data for Salt's `safe_dump` (`SafeOrderedDumper`): plain
/// dicts' keys sorted, `OrderedDict`s (from `odict()`) kept in order.
pub(super) fn yaml_data(v: &MjValue) -> Result<Value, Error> {
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

pub(super) fn f_yaml(a: Args) -> Result<MjValue, Error> {
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

pub(super) fn f_json(a: Args) -> Result<MjValue, Error> {
    let v = a.req(0, "value")?;
    let o = JsonOptions {
        sort_keys: a.flag(1, "sort_keys", true),
        ensure_ascii: false,
        indent: a.value(2, "indent")?.and_then(|i| json_indent(&i)),
        separators: None,
    };
    Ok(MjValue::from_safe_string(dumps(&v, &o).trim().to_string()))
}

pub(super) fn f_tojson(a: Args) -> Result<MjValue, Error> {
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

pub(super) fn f_python(a: Args) -> Result<MjValue, Error> {
    let v = a.req(0, "value")?;
    let repr = v.py_repr();
    if repr.chars().count() > 80 && matches!(v, Value::List(_) | Value::Map(_)) {
        return Err(py_error("the python filter on values longer than 80 characters (pprint layout) is not supported"));
    }
    Ok(MjValue::from_safe_string(repr))
}

pub(super) fn f_dict_to_sls_yaml_params(a: Args) -> Result<MjValue, Error> {
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

/// PyYAML's `write_double_quoted` (no line folding, non-ASCII escaped).
pub(crate) fn yaml_dquote(text: &str) -> String {
    super::super::py::print::yaml_double_quoted(text, false)
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

pub(super) fn f_yaml_dquote(a: Args) -> Result<MjValue, Error> {
    Ok(MjValue::from(yaml_dquote(&a.text(0, "text")?)))
}

pub(super) fn f_yaml_squote(a: Args) -> Result<MjValue, Error> {
    Ok(MjValue::from(yaml_squote(&a.text(0, "text")?)))
}

/// PyYAML's `represent_float`.
pub(super) fn yaml_float(f: f64) -> String {
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

pub(super) fn f_yaml_encode(a: Args) -> Result<MjValue, Error> {
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
