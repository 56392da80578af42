//! The `file` execution module's path functions (`basename`, `dirname`, `join`,
//! `normpath`), on Python's `posixpath`.

use super::Call;
use crate::salt::render::jinja::salt::{from_mj, py_error, Bound};
use crate::value::Value;
use minijinja::value::Value as MjValue;
use minijinja::Error;

pub(super) fn file_basename(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let p = str_arg(&a, "path")?;
    Ok(MjValue::from(posix_basename(&p)))
}

pub(super) fn file_dirname(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let p = str_arg(&a, "path")?;
    Ok(MjValue::from(posix_dirname(&p)))
}

pub(super) fn file_join(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let mut parts = Vec::new();
    for v in &a.varargs {
        match from_mj(v)? {
            Value::Str(s) => parts.push(s.to_string()),
            other => {
                return Err(py_error(format!(
                    "join() argument must be str, bytes, or os.PathLike object, not '{}'",
                    other.py_type_name()
                )))
            }
        }
    }
    if parts.is_empty() {
        return Err(py_error(
            "join() missing 1 required positional argument: 'a'",
        ));
    }
    Ok(MjValue::from(posix_join(&parts)))
}

pub(super) fn file_normpath(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let p = str_arg(&a, "path")?;
    Ok(MjValue::from(posix_normpath(&p)))
}

/// `posixpath.basename`.
pub(crate) fn posix_basename(p: &str) -> String {
    p.rsplit('/').next().unwrap_or("").to_string()
}

/// `posixpath.dirname`.
pub(crate) fn posix_dirname(p: &str) -> String {
    let i = p.rfind('/').map_or(0, |i| i + 1);
    let head = &p[..i];
    if !head.is_empty() && head != "/".repeat(head.len()) {
        head.trim_end_matches('/').to_string()
    } else {
        head.to_string()
    }
}

/// `posixpath.join`.
pub(crate) fn posix_join(parts: &[String]) -> String {
    let mut out = String::new();
    for (i, p) in parts.iter().enumerate() {
        if p.starts_with('/') {
            out = p.clone();
        } else if i == 0 || out.is_empty() || out.ends_with('/') {
            out.push_str(p);
        } else {
            out.push('/');
            out.push_str(p);
        }
    }
    out
}

/// `posixpath.normpath`.
pub(crate) fn posix_normpath(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let initial = if p.starts_with("//") && !p.starts_with("///") {
        2
    } else if p.starts_with('/') {
        1
    } else {
        0
    };
    let mut comps: Vec<&str> = Vec::new();
    for c in p.split('/') {
        if c.is_empty() || c == "." {
            continue;
        }
        if c != ".." || (initial == 0 && comps.is_empty()) || comps.last() == Some(&"..") {
            comps.push(c);
        } else {
            comps.pop();
        }
    }
    let mut out = "/".repeat(initial);
    out.push_str(&comps.join("/"));
    if out.is_empty() {
        ".".into()
    } else {
        out
    }
}

fn str_arg(a: &Bound, name: &str) -> Result<String, Error> {
    match a.get(name)? {
        Some(Value::Str(s)) => Ok(s.to_string()),
        Some(other) => Err(py_error(format!(
            "expected str, bytes or os.PathLike object, not {}",
            other.py_type_name()
        ))),
        None => Ok(String::new()),
    }
}
