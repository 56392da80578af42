//! The `cp` execution module's listings (`cp.list_states`, `cp.list_master`,
//! `cp.list_master_dirs`), answered from the fileserver.

use super::Call;
use crate::salt::render::jinja::salt::{py_error, to_mj, Bound};
use crate::value::Value;
use minijinja::value::Value as MjValue;
use minijinja::Error;

/// The saltenv a `cp.list_*` call lists: its argument, else the `saltenv`
/// option, else `base` (not the saltenv being rendered).
pub(super) fn cp_listing(
    c: &Call,
    a: &Bound,
) -> Result<std::sync::Arc<crate::salt::render::jinja::FileListing>, Error> {
    let saltenv = match a.get("saltenv")? {
        Some(v) if v.truthy() => v.py_str(),
        _ => match c.data.opts.get("saltenv") {
            Some(v) if v.truthy() => v.py_str(),
            _ => "base".to_string(),
        },
    };
    listing_of(c, &saltenv, "cp.list_*")
}

/// The fileserver listing of `saltenv`, for function `who`.
pub(super) fn listing_of(
    c: &Call,
    saltenv: &str,
    who: &str,
) -> Result<std::sync::Arc<crate::salt::render::jinja::FileListing>, Error> {
    crate::salt::render::jinja::reads::listing();
    c.files
        .and_then(|f| f.listing(saltenv))
        .ok_or_else(|| py_error(format!("{who} needs the fileserver")))
}

/// Paths starting with `prefix` (stripped of `/`), as Salt filters them.
pub(super) fn with_prefix(paths: &[String], a: &Bound) -> Result<MjValue, Error> {
    let prefix = a.string("prefix", "")?;
    let prefix = prefix.trim_matches('/');
    Ok(to_mj(&Value::List(
        paths
            .iter()
            .filter(|p| p.starts_with(prefix))
            .map(|p| Value::str(p.as_str()))
            .collect(),
    )))
}

pub(super) fn cp_list_master(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    with_prefix(&cp_listing(c, &a)?.files, &a)
}

pub(super) fn cp_list_master_dirs(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    with_prefix(&cp_listing(c, &a)?.dirs, &a)
}

/// SLS names of every `.sls` file: `a/b.sls` → `a.b`, `a/init.sls` → `a`.
pub(super) fn cp_list_states(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let listing = cp_listing(c, &a)?;
    let mut states = std::collections::BTreeSet::new();
    for path in &listing.files {
        if let Some(stem) = path.strip_suffix("/init.sls") {
            states.insert(stem.replace('/', "."));
        } else if let Some(stem) = path.strip_suffix(".sls") {
            states.insert(stem.replace('/', "."));
        }
    }
    Ok(to_mj(&Value::List(
        states.into_iter().map(Value::from).collect(),
    )))
}
