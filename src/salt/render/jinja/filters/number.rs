//! Salt's and Jinja2's number filters: `to_num`/`str_to_num`, and Jinja2's
//! `int` and `float` (a value Python cannot convert gives the default).

use super::*;

/// The filters of this file, by name.
pub(super) const FILTERS: &[(&str, Filter)] = &[
    ("to_num", f_to_num),
    // Jinja2's own `int` and `float`: a value Python cannot convert gives
    // the default instead of an error.
    ("int", f_int),
    ("float", f_float),
    ("str_to_num", f_to_num),
];

pub(super) fn f_to_num(a: Args) -> Result<MjValue, Error> {
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
pub(super) fn int_value(i: i128) -> MjValue {
    i64::try_from(i).map_or_else(|_| MjValue::from(i), MjValue::from)
}

/// Python's `int(f)` for a float: `None` for NaN (`ValueError`), an
/// `OverflowError` for the infinities and for values past `i128`.
pub(super) fn truncate_float(f: f64) -> Result<Option<MjValue>, Error> {
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
pub(super) fn number_input(a: &Args) -> Result<Option<Value>, Error> {
    let v = a.raw(0, "value").cloned().unwrap_or(MjValue::UNDEFINED);
    if v.is_undefined() {
        return Err(Error::new(
            ErrorKind::UndefinedError,
            "undefined value passed to a filter",
        ));
    }
    Ok(super::super::convert::scalar_from_jinja(&v))
}

/// Jinja2's `do_int(value, default=0, base=10)`: `int(value)` (a string
/// in `base`), else `int(float(value))` (so `"42.23"` gives 42), else the
/// default.
pub(super) fn f_int(a: Args) -> Result<MjValue, Error> {
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
pub(super) fn f_float(a: Args) -> Result<MjValue, Error> {
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
