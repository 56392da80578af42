//! The `test` execution module: `ping`, `true`, `false`, `echo`, `outputter`,
//! `kwarg`, `arg`, `retcode`, `exception`.

use super::Call;
use crate::salt::render::jinja::salt::{from_mj, to_mj, Bound};
use crate::value::{Map, Value};
use minijinja::value::Value as MjValue;
use minijinja::Error;

pub(super) fn ret_true(_c: &mut Call, _a: Bound) -> Result<MjValue, Error> {
    Ok(MjValue::from(true))
}

pub(super) fn ret_false(_c: &mut Call, _a: Bound) -> Result<MjValue, Error> {
    Ok(MjValue::from(false))
}

pub(super) fn test_echo(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(a.raw("text").cloned().unwrap_or_default())
}

/// Raises, as formulas use it to stop on a missing pillar value: Salt
/// reports `Jinja error: MESSAGE`.
pub(super) fn test_exception(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let message = a.raw("message").map_or_else(
        || "Test Exception".to_string(),
        crate::salt::render::jinja::py::print::py_str,
    );
    Err(crate::salt::render::jinja::template_error(
        crate::salt::render::jinja::JinjaErrorKind::Raise,
        crate::salt::render::jinja::PREFIX_ERROR,
        message,
    ))
}

pub(super) fn test_outputter(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(a.raw("data").cloned().unwrap_or_default())
}

pub(super) fn test_kwarg(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(to_mj(&Value::Map(kwargs_map(&a)?)))
}

pub(super) fn test_arg(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let args = MjValue::from_object(minijinja::value::Tuple::from(a.varargs.clone()));
    Ok(MjValue::from_pairs([
        (MjValue::from("args"), args),
        (MjValue::from("kwargs"), to_mj(&Value::Map(kwargs_map(&a)?))),
    ]))
}

fn kwargs_map(a: &Bound) -> Result<Map, Error> {
    let mut m = Map::new();
    for (k, v) in &a.varkw {
        m.insert(Value::str(k.as_str()), from_mj(v)?);
    }
    Ok(m)
}
