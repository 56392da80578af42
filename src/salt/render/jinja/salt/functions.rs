//! Pure Rust versions of the Salt execution functions templates call at
//! compile time (`pillar.get`, `grains.filter_by`, `config.get`,
//! `defaults.merge`, `slsutil.merge`, `file.join`, `log.debug`, ...), with
//! Salt 3008.5's signatures, defaults and error texts.

use super::data::{filter_by, traverse};
use super::{bind, from_mj, merge_in_place, py_error, to_mj, update_in_place, Bound};
use crate::salt::dictupdate::{self, py_eq};
use crate::salt::render::jinja::convert::{
    is_mutable, to_jinja_like, to_jinja_ordered, to_jinja_pillar,
};
use crate::salt::render::jinja::{reads, RenderData, TemplateLoader};
use crate::value::{Map, Value};
use minijinja::value::Value as MjValue;
use minijinja::{Error, State};

/// One call's environment.
pub(crate) struct Call<'a, 's, 'e> {
    pub data: &'a RenderData,
    /// The fileserver, for the `cp.list_*` functions.
    pub files: Option<&'a dyn TemplateLoader>,
    pub state: &'a mut State<'s, 'e>,
}

type Impl = fn(&mut Call, Bound) -> Result<MjValue, Error>;

/// `(salt name, Python function name, signature, implementation)`.
const FUNCTIONS: &[(&str, &str, &str, Impl)] = &[
    (
        "pillar.get",
        "get",
        "key, default=, merge=, merge_nested_lists=, delimiter=, pillarenv=, saltenv=, unmask=",
        pillar_get,
    ),
    ("pillar.items", "items", "*args, pillar=, pillar_enc=, pillarenv=, saltenv=, unmask=", pillar_items),
    ("pillar.data", "data", "*args, pillar=, pillar_enc=, pillarenv=, saltenv=, unmask=", pillar_items),
    ("pillar.ls", "ls", "*args, pillar=, pillar_enc=, pillarenv=, saltenv=, unmask=", pillar_ls),
    ("pillar.item", "item", "*args, default=, delimiter=, pillarenv=, saltenv=, unmask=", pillar_item),
    ("pillar.raw", "raw", "key=, unmask=", pillar_raw),
    ("pillar.keys", "keys", "key, delimiter=, unmask=", pillar_keys),
    ("pillar.filter_by", "filter_by", "lookup_dict, pillar, merge=, default=, base=", pillar_filter_by),
    ("grains.get", "get", "key, default=, delimiter=, ordered=", grains_get),
    ("grains.item", "item", "*args, **kwargs", grains_item),
    ("grains.items", "items", "sanitize=", grains_items),
    ("grains.ls", "ls", "", grains_ls),
    ("grains.has_value", "has_value", "key", grains_has_value),
    ("grains.equals", "equals", "key, value", grains_equals),
    ("grains.filter_by", "filter_by", "lookup_dict, grain=, merge=, default=, base=", grains_filter_by),
    (
        "config.get",
        "get",
        "key, default=, delimiter=, merge=, omit_opts=, omit_pillar=, omit_master=, omit_grains=",
        config_get,
    ),
    (
        "config.option",
        "option",
        "value, default=, omit_opts=, omit_grains=, omit_pillar=, omit_master=, omit_all=, wildcard=",
        config_option,
    ),
    ("config.merge", "merge", "value, default=, omit_opts=, omit_master=, omit_pillar=", config_merge),
    ("config.items", "items", "", config_items),
    ("config.dot_vals", "dot_vals", "value", config_dot_vals),
    ("defaults.merge", "merge", "dest, src, merge_lists=, in_place=, convert_none=", defaults_merge),
    ("defaults.update", "update", "dest, defaults, merge_lists=, in_place=, convert_none=", defaults_update),
    ("defaults.deepcopy", "deepcopy", "source", defaults_deepcopy),
    ("slsutil.update", "update", "dest, upd, recursive_update=, merge_lists=", slsutil_update),
    ("slsutil.merge", "merge", "obj_a, obj_b, strategy=, renderer=, merge_lists=", slsutil_merge),
    ("slsutil.merge_all", "merge_all", "lst, strategy=, renderer=, merge_lists=", slsutil_merge_all),
    ("slsutil.serialize", "serialize", "serializer, obj, **mod_kwargs", slsutil_serialize),
    ("slsutil.deserialize", "deserialize", "serializer, stream_or_string, **mod_kwargs", slsutil_deserialize),
    ("slsutil.boolstr", "boolstr", "value, true=, false=", slsutil_boolstr),
    ("cp.list_states", "list_states", "saltenv=", cp_list_states),
    ("cp.list_master", "list_master", "saltenv=, prefix=", cp_list_master),
    ("cp.list_master_dirs", "list_master_dirs", "saltenv=, prefix=", cp_list_master_dirs),
    ("slsutil.file_exists", "file_exists", "path, saltenv=", slsutil_file_exists),
    ("slsutil.dir_exists", "dir_exists", "path, saltenv=", slsutil_dir_exists),
    ("slsutil.path_exists", "path_exists", "path, saltenv=", slsutil_path_exists),
    ("file.basename", "basename", "path", file_basename),
    ("file.dirname", "dirname", "path", file_dirname),
    ("file.join", "join", "*args", file_join),
    ("file.normpath", "normpath", "path", file_normpath),
    ("log.debug", "debug", "message", log_noop),
    ("log.info", "info", "message", log_noop),
    ("log.warning", "warning", "message", log_noop),
    ("log.error", "error", "message", log_noop),
    ("log.critical", "critical", "message", log_noop),
    ("log.exception", "exception", "message", log_noop),
    ("test.ping", "ping", "", ret_true),
    ("test.true", "true_", "", ret_true),
    ("test.false", "false_", "", ret_false),
    ("test.echo", "echo", "text", test_echo),
    ("test.outputter", "outputter", "data", test_outputter),
    ("test.kwarg", "kwarg", "**kwargs", test_kwarg),
    ("test.arg", "arg", "*args, **kwargs", test_arg),
    ("test.retcode", "retcode", "code=", ret_true),
    ("test.exception", "exception", "message=", test_exception),
    ("pillar.file_exists", "file_exists", "path, saltenv=", pillar_file_exists),
    ("match.compound", "compound", "tgt, minion_id=", match_compound),
    ("match.glob", "glob", "tgt, minion_id=", match_glob),
    ("match.pcre", "pcre", "tgt, minion_id=", match_pcre),
    ("match.list", "list_", "tgt, minion_id=", match_list),
    ("match.grain", "grain", "tgt, delimiter=", match_grain),
    ("match.grain_pcre", "grain_pcre", "tgt, delimiter=", match_grain_pcre),
    ("match.pillar", "pillar", "tgt, delimiter=", match_pillar),
    ("match.pillar_pcre", "pillar_pcre", "tgt, delimiter=", match_pillar_pcre),
    ("match.ipcidr", "ipcidr", "tgt", match_ipcidr),
    ("match.data", "data", "tgt", match_data),
    (
        "match.filter_by",
        "filter_by",
        "lookup, tgt_type=, minion_id=, merge=, merge_lists=, default=",
        match_filter_by,
    ),
    ("match.search_by", "search_by", "lookup, tgt_type=, minion_id=", match_search_by),
    ("hashutil.base64_b64encode", "base64_b64encode", "instr", hash_b64encode),
    ("hashutil.base64_encodestring", "base64_encodestring", "instr", hash_b64encode_lines),
    ("hashutil.base64_b64decode", "base64_b64decode", "instr", hash_b64decode),
    ("hashutil.base64_decodestring", "base64_decodestring", "instr", hash_b64decode),
    ("hashutil.base64_encodefile", "base64_encodefile", "fname", hash_b64encodefile),
    ("hashutil.md5_digest", "md5_digest", "instr", hash_md5),
    ("hashutil.sha256_digest", "sha256_digest", "instr", hash_sha256),
    ("hashutil.sha512_digest", "sha512_digest", "instr", hash_sha512),
    ("hashutil.digest", "digest", "instr, checksum=", hash_digest),
    ("hashutil.hmac_signature", "hmac_signature", "string, shared_secret, challenge_hmac", hash_hmac_signature),
    (
        "hashutil.hmac_compute",
        "hmac_compute",
        "string, shared_secret",
        hash_hmac_compute,
    ),
    ("hashutil.github_signature", "github_signature", "string, shared_secret, challenge_hmac", hash_github_signature),
];

fn lookup(name: &str) -> Option<&'static (&'static str, &'static str, &'static str, Impl)> {
    FUNCTIONS.iter().find(|f| f.0 == name)
}

/// Is `name` implemented here?
pub(crate) fn exists(name: &str) -> bool {
    lookup(name).is_some()
}

/// Does `name` answer from the fileserver listing (unavailable without one)?
pub(crate) fn needs_files(name: &str) -> bool {
    name.starts_with("cp.")
}

/// Does any implemented function live in `module`?
pub(crate) fn module_exists(module: &str) -> bool {
    FUNCTIONS
        .iter()
        .any(|f| f.0.split_once('.').is_some_and(|(m, _)| m == module))
}

/// Every implemented function name.
#[allow(dead_code)]
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    FUNCTIONS.iter().map(|f| f.0)
}

/// Call an implemented function (`exists(name)` must hold).
pub(crate) fn call(call: &mut Call, name: &str, args: &[MjValue]) -> Result<MjValue, Error> {
    let Some((_, pyname, sig, f)) = lookup(name) else {
        return Err(py_error(format!("'{name}' is not available.")));
    };
    let bound = bind(pyname, sig, args)?;
    note_reads(name, &bound);
    f(call, bound)
}

/// Note on the read log ([`reads`]) what `name` reads of the minion's
/// data. Functions that read by key note the top-level key their path
/// starts with; those that never look at grains, pillar or opts note
/// nothing; any other function (the `match.*` family, `config.*` with a
/// merge, `*.items`, ...) notes all three sources whole.
fn note_reads(name: &str, a: &Bound) {
    use reads::Source::{Grains, Opts, Pillar};
    let path =
        |source, key: &str, delim: &str| match (a.string(key, ""), a.string("delimiter", delim)) {
            (Ok(k), Ok(d)) => reads::path(source, &k, &d),
            _ => reads::all(),
        };
    let (module, _) = name.split_once('.').unwrap_or((name, ""));
    match name {
        "pillar.get" => {
            path(Pillar, "key", ":");
            reads::key(Opts, "pillar_raise_on_missing");
            reads::key(Opts, "pillar_merge_lists");
        }
        "pillar.keys" => path(Pillar, "key", ":"),
        "grains.get" => path(Grains, "key", ":"),
        "grains.has_value" | "grains.equals" => match a.string("key", "") {
            Ok(k) => reads::path(Grains, &k, ":"),
            Err(_) => reads::all(),
        },
        "grains.filter_by" => match a.string("grain", "os_family") {
            Ok(k) => reads::path(Grains, &k, ":"),
            Err(_) => reads::all(),
        },
        "pillar.filter_by" => match a.string("pillar", "") {
            Ok(k) => reads::path(Pillar, &k, ":"),
            Err(_) => reads::all(),
        },
        "config.get" if a.raw("merge").is_none_or(MjValue::is_none) => {
            path(Opts, "key", ":");
            path(Grains, "key", ":");
            path(Pillar, "key", ":");
            reads::key(Pillar, "master");
        }
        // Only the fileserver listing and the `saltenv` option.
        "cp.list_states" | "cp.list_master" | "cp.list_master_dirs" => reads::key(Opts, "saltenv"),
        // Only the pillar roots (config, the same for every minion).
        "pillar.file_exists" => {}
        _ if matches!(
            module,
            "defaults" | "slsutil" | "file" | "log" | "test" | "hashutil"
        ) => {}
        _ => reads::all(),
    }
}

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

fn map_of(v: &Value) -> Map {
    v.as_map().cloned().unwrap_or_default()
}

/// `KeyError(...)` as Jinja shows it: `str()` of a KeyError is the repr of its argument.
fn key_error(msg: &str) -> Error {
    py_error(crate::value::py_str_repr(msg))
}

/// `sdb://` values would be resolved by Salt's sdb modules.
fn sdb_check(v: Value) -> Result<MjValue, Error> {
    if let Value::Str(s) = &v {
        if s.starts_with("sdb://") {
            return Err(py_error(format!(
                "config.get returned the sdb URI '{s}'; sdb lookups need a live minion: mock config.get"
            )));
        }
    }
    Ok(to_mj(&v))
}

fn opt_bool(data: &RenderData, key: &str) -> bool {
    data.opts.get(key).is_some_and(Value::truthy)
}

// ---------------------------------------------------------------------------
// pillar
// ---------------------------------------------------------------------------

fn pillar_get(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
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
        Some(v) => Ok(to_jinja_ordered(v)),
        None => match (a.raw("default"), raise_on_missing) {
            (Some(d), _) => Ok(d.clone()),
            (None, false) => Ok(MjValue::from("")),
            (None, true) => Err(key_error(&format!("Pillar key not found: {key}"))),
        },
    }
}

fn pillar_items(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    if !a.varargs.is_empty() {
        return pillar_item(c, a);
    }
    if a.raw("pillar").is_some_and(|v| !v.is_none())
        || a.raw("pillarenv").is_some_and(|v| !v.is_none())
    {
        return Err(py_error("pillar.items with pillar=/pillarenv= compiles a fresh pillar, which is not supported at compile time"));
    }
    Ok(to_jinja_pillar(&c.data.pillar))
}

fn pillar_ls(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let items = from_mj(&pillar_items(c, a)?)?;
    Ok(to_mj(&Value::List(
        map_of(&items).keys().cloned().collect(),
    )))
}

/// `pillar.item` / `grains.item`: each key traversed, into one dict.
fn items_of(
    data: &Value,
    a: &Bound,
    default: Value,
    delimiter: &str,
    pillar: bool,
) -> Result<MjValue, Error> {
    let mut ret = Map::new();
    for arg in &a.varargs {
        let key = from_mj(arg)?;
        let found = traverse(data, &key.py_str(), delimiter)
            .cloned()
            .unwrap_or_else(|| default.clone());
        ret.insert(key, found);
    }
    let ret = Value::Map(ret);
    Ok(if pillar {
        to_jinja_pillar(&ret)
    } else {
        to_mj(&ret)
    })
}

fn pillar_item(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let default = match a.get("default")? {
        None | Some(Value::Null) => Value::str(""),
        Some(d) => d,
    };
    let delimiter = a.string("delimiter", ":")?;
    items_of(&c.data.pillar, &a, default, &delimiter, true)
}

fn pillar_raw(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match a.get("key")? {
        Some(k) if k.truthy() => Ok(match c.data.pillar.as_map().and_then(|m| m.get(&k)) {
            Some(v) => to_jinja_ordered(v),
            None => to_mj(&Value::Map(Map::new())),
        }),
        _ => Ok(to_jinja_pillar(&c.data.pillar)),
    }
}

fn pillar_keys(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let key = a.string("key", "")?;
    let delimiter = a.string("delimiter", ":")?;
    match traverse(&c.data.pillar, &key, &delimiter) {
        None => Err(key_error(&format!("Pillar key not found: {key}"))),
        Some(Value::Map(m)) => Ok(to_mj(&Value::List(m.keys().cloned().collect()))),
        Some(_) => Err(py_error(format!("Pillar value in key {key} is not a dict"))),
    }
}

fn run_filter_by(
    state: &mut State,
    a: &Bound,
    traverse_data: &Value,
    lookup_param: &str,
    lookup_default: &str,
) -> Result<MjValue, Error> {
    let lookup_dict = a.get("lookup_dict")?.unwrap_or_default();
    let lookup = a.string(lookup_param, lookup_default)?;
    let merge = a.get("merge")?;
    let default = a.get_or("default", Value::str("default"))?;
    let base = a.get("base")?;
    let r = filter_by(
        &lookup_dict,
        &lookup,
        traverse_data,
        merge.as_ref(),
        &default,
        base.as_ref(),
    )
    .map_err(py_error)?;
    // Salt returns the looked-up entry of `lookup_dict` itself (a merge
    // changes it in place), so later changes to either show in both.
    if let Some(key) = &r.entry_key {
        if let Some(entry) = a
            .raw("lookup_dict")
            .and_then(|d| d.get_item(&to_mj(key)).ok())
        {
            if !merge.as_ref().is_some_and(Value::truthy) {
                if is_mutable(&entry) {
                    return Ok(entry);
                }
            } else if merge_in_place(state, &entry, &r.value, a.raw("merge"))? {
                return Ok(entry);
            }
        }
    }
    // A copy: its maps keep the types of those they came from.
    let raw_dict = a.raw("lookup_dict");
    let entry_of = |k: &Value| raw_dict.and_then(|d| d.get_item(&to_mj(k)).ok());
    let mut hints: Vec<MjValue> = Vec::new();
    if let Some(b) = base.as_ref().and_then(&entry_of) {
        hints.push(b);
    }
    if let Some(e) = r.entry_key.as_ref().and_then(&entry_of) {
        hints.push(e);
    }
    hints.extend(a.raw("merge").cloned());
    Ok(to_jinja_like(&r.value, &hints))
}

fn pillar_filter_by(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let pillar = c.data.pillar.clone();
    run_filter_by(c.state, &a, &pillar, "pillar", "")
}

// ---------------------------------------------------------------------------
// cp (the fileserver listing)
// ---------------------------------------------------------------------------

/// The saltenv a `cp.list_*` call lists: its argument, else the `saltenv`
/// option, else `base` (not the saltenv being rendered).
fn cp_listing(
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
fn listing_of(
    c: &Call,
    saltenv: &str,
    who: &str,
) -> Result<std::sync::Arc<crate::salt::render::jinja::FileListing>, Error> {
    c.files
        .and_then(|f| f.listing(saltenv))
        .ok_or_else(|| py_error(format!("{who} needs the fileserver")))
}

/// Paths starting with `prefix` (stripped of `/`), as Salt filters them.
fn with_prefix(paths: &[String], a: &Bound) -> Result<MjValue, Error> {
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

fn cp_list_master(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    with_prefix(&cp_listing(c, &a)?.files, &a)
}

fn cp_list_master_dirs(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    with_prefix(&cp_listing(c, &a)?.dirs, &a)
}

/// `slsutil.file_exists` / `dir_exists`: is `path` (exactly as written)
/// one of the files (directories) `cp.list_master` lists for `saltenv`
/// (default `base`, not the minion's saltenv)?
fn slsutil_listed(c: &Call, a: &Bound, dirs: bool) -> Result<bool, Error> {
    let path = a.string("path", "")?;
    let saltenv = match a.get("saltenv")? {
        Some(v) if !v.is_null() => v.py_str(),
        _ => "base".to_string(),
    };
    let listing = listing_of(c, &saltenv, "slsutil.*_exists")?;
    let paths = if dirs { &listing.dirs } else { &listing.files };
    Ok(paths.contains(&path))
}

fn slsutil_file_exists(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    slsutil_listed(c, &a, false).map(MjValue::from)
}

fn slsutil_dir_exists(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    slsutil_listed(c, &a, true).map(MjValue::from)
}

fn slsutil_path_exists(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(MjValue::from(
        slsutil_listed(c, &a, false)? || slsutil_listed(c, &a, true)?,
    ))
}

/// SLS names of every `.sls` file: `a/b.sls` → `a.b`, `a/init.sls` → `a`.
fn cp_list_states(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
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

// ---------------------------------------------------------------------------
// grains
// ---------------------------------------------------------------------------

fn grains_get(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let key = a.string("key", "")?;
    let delimiter = a.string("delimiter", ":")?;
    match traverse(&c.data.grains, &key, &delimiter) {
        Some(v) => Ok(to_mj(v)),
        None => Ok(a
            .raw("default")
            .cloned()
            .unwrap_or_else(|| MjValue::from(""))),
    }
}

fn grains_item(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
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
    items_of(&c.data.grains, &a, default, &delimiter, false)
}

fn grains_items(c: &mut Call, _a: Bound) -> Result<MjValue, Error> {
    Ok(to_mj(&c.data.grains))
}

fn grains_ls(c: &mut Call, _a: Bound) -> Result<MjValue, Error> {
    let mut keys: Vec<Value> = map_of(&c.data.grains).keys().cloned().collect();
    keys.sort_by_key(Value::py_str);
    Ok(to_mj(&Value::List(keys.into())))
}

fn grains_has_value(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let key = a.string("key", "")?;
    Ok(MjValue::from(traverse(&c.data.grains, &key, ":").is_some()))
}

fn grains_equals(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let key = a.string("key", "")?;
    let value = a.get_or("value", Value::Null)?;
    let got = traverse(&c.data.grains, &key, ":")
        .cloned()
        .unwrap_or(Value::str(""));
    Ok(MjValue::from(value.py_str() == got.py_str()))
}

fn grains_filter_by(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let grains = c.data.grains.clone();
    run_filter_by(c.state, &a, &grains, "grain", "os_family")
}

// ---------------------------------------------------------------------------
// config
// ---------------------------------------------------------------------------

/// `salt.modules.config.DEFAULTS` (paths as on a Linux minion).
fn config_defaults() -> Value {
    let text = r#"{
        "mongo.db": "salt", "mongo.password": "", "mongo.port": 27017, "mongo.user": "",
        "redis.db": "0", "redis.host": "salt", "redis.port": 6379,
        "test.foo": "unconfigured", "ca.cert_base_path": "/etc/pki",
        "solr.cores": [], "solr.host": "localhost", "solr.port": "8983",
        "solr.baseurl": "/solr", "solr.type": "master", "solr.request_timeout": null,
        "solr.init_script": "/etc/rc.d/solr",
        "solr.dih.import_options": {"clean": false, "optimize": true, "commit": true, "verbose": false},
        "solr.backup_path": null, "solr.num_backups": 1,
        "poudriere.config": "/usr/local/etc/poudriere.conf",
        "poudriere.config_dir": "/usr/local/etc/poudriere.d",
        "ldap.uri": "", "ldap.server": "localhost", "ldap.port": "389", "ldap.tls": false,
        "ldap.no_verify": false, "ldap.anonymous": true, "ldap.scope": 2, "ldap.attrs": null,
        "ldap.binddn": "", "ldap.bindpw": "", "hosts.file": "/etc/hosts",
        "aliases.file": "/etc/aliases",
        "virt": {"tunnel": false, "images": "/srv/salt-images"},
        "docker.exec_driver": "docker-exec",
        "docker.compare_container_networks": {
            "static": ["Aliases", "Links", "IPAMConfig"],
            "automatic": ["IPAddress", "Gateway", "GlobalIPv6Address", "IPv6Gateway"]
        }
    }"#;
    serde_json::from_str(text)
        .map(|j| Value::from_json(&j))
        .unwrap_or_default()
}

fn pillar_master(data: &RenderData) -> Value {
    data.pillar
        .get("master")
        .cloned()
        .unwrap_or(Value::Map(Map::new()))
}

fn config_get(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let key = a.string("key", "")?;
    let delimiter = a.string("delimiter", ":")?;
    let data = c.data;
    let defaults = config_defaults();
    let master = pillar_master(data);
    match a.get("merge")? {
        None | Some(Value::Null) => {
            let sources: [(&str, &Value); 5] = [
                ("omit_opts", &data.opts),
                ("omit_grains", &data.grains),
                ("omit_pillar", &data.pillar),
                ("omit_master", &master),
                ("", &defaults),
            ];
            for (omit, src) in sources {
                if !omit.is_empty() && a.flag(omit, false) {
                    continue;
                }
                if let Some(v) = traverse(src, &key, &delimiter) {
                    if v != &Value::str("_|-") {
                        let found = sdb_check(v.clone())?;
                        // Pillar maps are OrderedDicts (from the YAML renderer).
                        return Ok(if matches!(omit, "omit_pillar" | "omit_master") {
                            to_jinja_ordered(v)
                        } else {
                            found
                        });
                    }
                }
            }
        }
        Some(strategy) => {
            let strategy = match strategy.py_str().as_str() {
                s @ ("recurse" | "overwrite") => s.to_string(),
                _ => "recurse".to_string(),
            };
            let mut merged = defaults;
            for src in [&master, &data.pillar, &data.grains, &data.opts] {
                merged = dictupdate::merge(&merged, src, &strategy, "yaml", false)
                    .map_err(|e| py_error(e.message))?;
            }
            if let Some(v) = traverse(&merged, &key, &delimiter) {
                if v != &Value::str("_|-") {
                    return sdb_check(v.clone());
                }
            }
        }
    }
    Ok(a.raw("default")
        .cloned()
        .unwrap_or_else(|| MjValue::from("")))
}

fn config_option(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let value = a.get_or("value", Value::Null)?;
    let all = a.flag("omit_all", false);
    let omit = |n: &str| all || a.flag(n, false);
    let wildcard = a.flag("wildcard", false);
    let default = match a.get("default")? {
        None | Some(Value::Null) if wildcard => Value::Map(Map::new()),
        None | Some(Value::Null) => Value::str(""),
        Some(d) => d,
    };
    let data = c.data;
    let master = pillar_master(data);
    let defaults = config_defaults();
    if !wildcard {
        for (flag, src) in [
            ("omit_opts", &data.opts),
            ("omit_grains", &data.grains),
            ("omit_pillar", &data.pillar),
            ("omit_master", &master),
        ] {
            if !omit(flag) {
                if let Some(v) = src.as_map().and_then(|m| m.get(&value)) {
                    return Ok(to_mj(v));
                }
            }
        }
        return Ok(to_mj(
            defaults
                .as_map()
                .and_then(|m| m.get(&value))
                .unwrap_or(&default),
        ));
    }
    let pattern = value.py_str();
    let mut ret = Map::new();
    for (flag, src) in [
        ("omit_master", &master),
        ("omit_pillar", &data.pillar),
        ("omit_grains", &data.grains),
        ("omit_opts", &data.opts),
    ] {
        if !omit(flag) {
            for (k, v) in map_of(src) {
                if crate::fnmatch::fnmatch(&k.py_str(), &pattern) {
                    ret.insert(k, v);
                }
            }
        }
    }
    for (k, v) in map_of(&defaults) {
        if crate::fnmatch::fnmatch(&k.py_str(), &pattern) && !ret.contains_key(&k) {
            ret.insert(k, v);
        }
    }
    Ok(to_mj(&if ret.is_empty() {
        default
    } else {
        Value::Map(ret)
    }))
}

fn config_merge(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let value = a.get_or("value", Value::Null)?;
    let data = c.data;
    let master = pillar_master(data);
    let mut ret: Option<Value> = None;
    let mut sources: Vec<&Value> = Vec::new();
    if !a.flag("omit_opts", false) {
        sources.push(&data.opts);
    }
    if !a.flag("omit_master", false) {
        sources.push(&master);
    }
    if !a.flag("omit_pillar", false) {
        sources.push(&data.pillar);
    }
    for src in sources {
        let Some(tmp) = src.as_map().and_then(|m| m.get(&value)) else {
            continue;
        };
        ret = Some(match ret {
            None => {
                if let Value::Str(_) = tmp {
                    return Ok(to_mj(tmp));
                }
                tmp.clone()
            }
            Some(Value::Map(r)) if matches!(tmp, Value::Map(_)) => {
                let mut t = tmp.clone();
                if let Value::Map(t) = &mut t {
                    for (k, v) in r {
                        t.insert(k, v);
                    }
                }
                t
            }
            Some(Value::List(mut r)) if matches!(tmp, Value::List(_)) => {
                r.extend(tmp.as_list().cloned().unwrap_or_default());
                Value::List(r)
            }
            Some(r) => r,
        });
    }
    if let Some(r) = ret {
        return Ok(to_mj(&r));
    }
    if let Some(d) = config_defaults().as_map().and_then(|m| m.get(&value)) {
        return Ok(to_mj(d));
    }
    Ok(a.raw("default")
        .cloned()
        .unwrap_or_else(|| MjValue::from("")))
}

fn config_items(c: &mut Call, _a: Bound) -> Result<MjValue, Error> {
    Ok(to_mj(&c.data.opts))
}

fn config_dot_vals(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let prefix = format!("{}.", a.string("value", "")?);
    let mut ret = Map::new();
    for src in [&pillar_master(c.data), &c.data.opts] {
        for (k, v) in map_of(src) {
            if k.py_str().starts_with(&prefix) {
                ret.insert(k, v);
            }
        }
    }
    Ok(to_mj(&Value::Map(ret)))
}

// ---------------------------------------------------------------------------
// defaults / slsutil
// ---------------------------------------------------------------------------

fn defaults_merge(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
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

fn defaults_update(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
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

fn defaults_deepcopy(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(to_mj(&a.get_or("source", Value::Null)?))
}

fn slsutil_update(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
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

fn slsutil_merge(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
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

fn slsutil_merge_all(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
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

fn slsutil_serialize(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
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
            let opts = crate::salt::render::jinja::serialize::JsonOptions::from_kwargs(&kwargs)
                .map_err(py_error)?;
            Ok(MjValue::from(
                crate::salt::render::jinja::serialize::py_json_dumps(&obj, &opts),
            ))
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

fn slsutil_deserialize(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
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

fn slsutil_boolstr(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let value = a.flag("value", false);
    let key = if value { "true" } else { "false" };
    Ok(a.raw(key).cloned().unwrap_or_else(|| MjValue::from(key)))
}

// ---------------------------------------------------------------------------
// file (posix path functions)
// ---------------------------------------------------------------------------

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

fn file_basename(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let p = str_arg(&a, "path")?;
    Ok(MjValue::from(posix_basename(&p)))
}

fn file_dirname(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let p = str_arg(&a, "path")?;
    Ok(MjValue::from(posix_dirname(&p)))
}

fn file_join(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
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

fn file_normpath(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
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

// ---------------------------------------------------------------------------
// log / test
// ---------------------------------------------------------------------------

fn log_noop(_c: &mut Call, _a: Bound) -> Result<MjValue, Error> {
    Ok(MjValue::from(true))
}

fn ret_true(_c: &mut Call, _a: Bound) -> Result<MjValue, Error> {
    Ok(MjValue::from(true))
}

fn ret_false(_c: &mut Call, _a: Bound) -> Result<MjValue, Error> {
    Ok(MjValue::from(false))
}

fn test_echo(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(a.raw("text").cloned().unwrap_or_default())
}

/// Raises, as formulas use it to stop on a missing pillar value: Salt
/// reports `Jinja error: MESSAGE`.
fn test_exception(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
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

fn test_outputter(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(a.raw("data").cloned().unwrap_or_default())
}

fn kwargs_map(a: &Bound) -> Result<Map, Error> {
    let mut m = Map::new();
    for (k, v) in &a.varkw {
        m.insert(Value::str(k.as_str()), from_mj(v)?);
    }
    Ok(m)
}

fn test_kwarg(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(to_mj(&Value::Map(kwargs_map(&a)?)))
}

fn test_arg(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let args = MjValue::from_object(minijinja::value::Tuple::from(a.varargs.clone()));
    Ok(MjValue::from_pairs([
        (MjValue::from("args"), args),
        (MjValue::from("kwargs"), to_mj(&Value::Map(kwargs_map(&a)?))),
    ]))
}

// ---------------------------------------------------------------------------
// pillar.file_exists, match.*, hashutil.*
// ---------------------------------------------------------------------------

/// `pillar.file_exists(path, saltenv=None)`: is `path` a file under one of
/// the pillar roots (of `saltenv` only, when given)? A path that climbs out
/// of the roots is never found.
fn pillar_file_exists(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
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

/// The minion a `match.*` call asks about: this one, or `minion_id`.
fn match_with<R>(
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
fn target_matches(
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

fn match_kind(c: &mut Call, a: Bound, kind: &str) -> Result<MjValue, Error> {
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
fn match_by(c: &Call, a: &Bound, kind: &str, tgt: &Value) -> Result<bool, Error> {
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

fn match_compound(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "compound")
}
fn match_glob(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "glob")
}
fn match_pcre(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "pcre")
}
fn match_list(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "list")
}
fn match_grain(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "grain")
}
fn match_grain_pcre(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "grain_pcre")
}
fn match_pillar(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "pillar")
}
fn match_pillar_pcre(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "pillar_pcre")
}
fn match_ipcidr(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "ipcidr")
}
fn match_data(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    match_kind(c, a, "data")
}

/// `match.filter_by(lookup, tgt_type='compound', minion_id=None,
/// merge=None, merge_lists=False, default='default')`: the value of the
/// first key of `lookup` that matches this minion.
fn match_filter_by(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
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
fn match_search_by(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
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

/// The bytes of a `hashutil` argument (str as UTF-8, bytes as they are).
fn hash_input(a: &Bound, name: &str) -> Result<Vec<u8>, Error> {
    match a.raw(name) {
        Some(v) => match v.as_bytes() {
            Some(b) => Ok(b.to_vec()),
            None => Ok(from_mj(v)?.py_str().into_bytes()),
        },
        None => Err(py_error(format!(
            "TypeError: missing required argument: '{name}'"
        ))),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn hash_b64encode(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(MjValue::from(b64(&hash_input(&a, "instr")?)))
}

/// `base64.encodebytes`: 76-character lines, each ending in a newline.
fn hash_b64encode_lines(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let one = b64(&hash_input(&a, "instr")?);
    let mut out = String::with_capacity(one.len() + one.len() / 76 + 1);
    for chunk in one.as_bytes().chunks(76) {
        out.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        out.push('\n');
    }
    Ok(MjValue::from(out))
}

fn hash_b64decode(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    use base64::Engine;
    let text = String::from_utf8_lossy(&hash_input(&a, "instr")?).into_owned();
    let clean: String = text
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "+/=".contains(*c))
        .collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(clean.as_bytes())
        .map_err(|e| py_error(format!("binascii.Error: {e}")))?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => MjValue::from(s),
        Err(e) => MjValue::from_bytes(e.into_bytes()),
    })
}

/// `hashutil.base64_encodefile(fname)`: a `salt://` file read through the
/// fileserver; other paths are on the minion and not read offline.
fn hash_b64encodefile(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let fname = a.string("fname", "")?;
    let Some(rel) = fname.strip_prefix("salt://") else {
        return Err(py_error(format!(
            "hashutil.base64_encodefile reads {fname} on the minion, which lowstate does not do offline: use a salt:// path or mock hashutil.base64_encodefile"
        )));
    };
    let saltenv = c
        .state
        .lookup("saltenv")
        .map(|v| v.to_string())
        .unwrap_or_else(|| "base".into());
    let text = c
        .files
        .and_then(|f| f.read(&saltenv, rel.trim_start_matches('/')))
        .ok_or_else(|| py_error(format!("IOError: {fname} not found in saltenv {saltenv}")))?;
    let one = b64(text.as_bytes());
    let mut out = String::new();
    for chunk in one.as_bytes().chunks(76) {
        out.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        out.push('\n');
    }
    Ok(MjValue::from(out))
}

fn digest_of(name: &str, bytes: &[u8]) -> Option<String> {
    use sha2::Digest as _;
    Some(match name {
        "md5" => hex(&md5::Md5::digest(bytes)),
        "sha1" => hex(&sha1::Sha1::digest(bytes)),
        "sha224" => hex(&sha2::Sha224::digest(bytes)),
        "sha256" => hex(&sha2::Sha256::digest(bytes)),
        "sha384" => hex(&sha2::Sha384::digest(bytes)),
        "sha512" => hex(&sha2::Sha512::digest(bytes)),
        _ => return None,
    })
}

fn hash_md5(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(MjValue::from(digest_of("md5", &hash_input(&a, "instr")?)))
}
fn hash_sha256(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(MjValue::from(digest_of(
        "sha256",
        &hash_input(&a, "instr")?,
    )))
}
fn hash_sha512(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    Ok(MjValue::from(digest_of(
        "sha512",
        &hash_input(&a, "instr")?,
    )))
}

/// `hashutil.digest(instr, checksum='md5')`: md5, sha256 or sha512 only.
fn hash_digest(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let checksum = a.string("checksum", "md5")?;
    let bytes = hash_input(&a, "instr")?;
    match checksum.as_str() {
        "md5" | "sha256" | "sha512" => Ok(MjValue::from(digest_of(&checksum, &bytes))),
        _ => Err(crate::salt::render::jinja::template_error(
            crate::salt::render::jinja::JinjaErrorKind::Other,
            crate::salt::render::jinja::PREFIX_SALT_FUNCTION,
            format!("Hash func '{checksum}' is not supported."),
        )),
    }
}

/// HMAC (RFC 2104) over one of the SHA-2/SHA-1 digests.
fn hmac<D: sha2::Digest + sha2::digest::core_api::BlockSizeUser>(
    key: &[u8],
    msg: &[u8],
) -> Vec<u8> {
    use sha2::digest::typenum::Unsigned;
    let block = <D as sha2::digest::core_api::BlockSizeUser>::BlockSize::USIZE;
    let mut k = if key.len() > block {
        D::digest(key).to_vec()
    } else {
        key.to_vec()
    };
    k.resize(block, 0);
    let inner: Vec<u8> = k
        .iter()
        .map(|b| b ^ 0x36)
        .chain(msg.iter().copied())
        .collect();
    let inner = D::digest(&inner);
    let outer: Vec<u8> = k
        .iter()
        .map(|b| b ^ 0x5c)
        .chain(inner.iter().copied())
        .collect();
    D::digest(&outer).to_vec()
}

/// `hashutil.hmac_signature`: does base64(HMAC-SHA256(secret, string))
/// equal `challenge_hmac`?
fn hash_hmac_signature(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let msg = hash_input(&a, "string")?;
    let key = hash_input(&a, "shared_secret")?;
    let challenge = a.string("challenge_hmac", "")?;
    Ok(MjValue::from(
        b64(&hmac::<sha2::Sha256>(&key, &msg)) == challenge,
    ))
}

/// `hashutil.hmac_compute`: hex HMAC-SHA256 of `string` with `shared_secret`.
fn hash_hmac_compute(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let msg = hash_input(&a, "string")?;
    let key = hash_input(&a, "shared_secret")?;
    Ok(MjValue::from(hex(&hmac::<sha2::Sha256>(&key, &msg))))
}

/// `hashutil.github_signature`: `challenge_hmac` is `sha1=<hex>` (or
/// another algorithm); does the HMAC of `string` with `shared_secret` match?
fn hash_github_signature(_c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let msg = hash_input(&a, "string")?;
    let key = hash_input(&a, "shared_secret")?;
    let challenge = a.string("challenge_hmac", "")?;
    let (alg, want) = challenge.split_once('=').unwrap_or(("", ""));
    let got = match alg {
        "sha1" => hex(&hmac::<sha1::Sha1>(&key, &msg)),
        "sha256" => hex(&hmac::<sha2::Sha256>(&key, &msg)),
        "sha512" => hex(&hmac::<sha2::Sha512>(&key, &msg)),
        "md5" => hex(&hmac::<md5::Md5>(&key, &msg)),
        other => {
            return Err(py_error(format!(
                "AttributeError: module 'hashlib' has no attribute '{other}'"
            )))
        }
    };
    Ok(MjValue::from(got == want))
}
