//! Pure Rust versions of the Salt execution functions templates call at
//! compile time (`pillar.get`, `grains.filter_by`, `config.get`,
//! `defaults.merge`, `slsutil.merge`, `file.join`, `log.debug`, ...), with
//! Salt 3008.5's signatures, defaults and error texts.

use super::data::{filter_by, traverse};
use super::{bind, from_mj, merge_in_place, py_error, to_mj, Bound};
use crate::salt::render::jinja::convert::{
    is_mutable, to_jinja_data, to_jinja_key, to_jinja_like, to_jinja_ordered, Shape,
};
use crate::salt::render::jinja::py::new_map;
use crate::salt::render::jinja::reads::Source;
use crate::salt::render::jinja::shared::RunObjects;
use crate::salt::render::jinja::{reads, RenderData, TemplateLoader};
use crate::value::{Map, Value};
use minijinja::value::Value as MjValue;
use minijinja::{Error, State};

mod config;
mod cp;
mod defaults;
mod file;
mod grains;
mod hashutil;
mod log;
mod matching;
mod pillar;
mod slsutil;
mod test;

pub(crate) use file::{posix_join, posix_normpath};

/// One call's environment.
pub(crate) struct Call<'a, 's, 'e> {
    /// The minion's data as the data functions see it now: in a render
    /// that shares the run's objects, what they hold.
    pub data: &'a RenderData,
    /// The minion's data as compiled (`pillar.items` compiles it afresh).
    pub original: &'a RenderData,
    /// The run's shared objects, when the render shares them.
    pub run: Option<&'a RunObjects>,
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
        pillar::pillar_get,
    ),
    ("pillar.items", "items", "*args, pillar=, pillar_enc=, pillarenv=, saltenv=, unmask=", pillar::pillar_items),
    ("pillar.data", "data", "*args, pillar=, pillar_enc=, pillarenv=, saltenv=, unmask=", pillar::pillar_items),
    ("pillar.ls", "ls", "*args, pillar=, pillar_enc=, pillarenv=, saltenv=, unmask=", pillar::pillar_ls),
    ("pillar.item", "item", "*args, default=, delimiter=, pillarenv=, saltenv=, unmask=", pillar::pillar_item),
    ("pillar.raw", "raw", "key=, unmask=", pillar::pillar_raw),
    ("pillar.keys", "keys", "key, delimiter=, unmask=", pillar::pillar_keys),
    ("pillar.filter_by", "filter_by", "lookup_dict, pillar, merge=, default=, base=", pillar::pillar_filter_by),
    ("grains.get", "get", "key, default=, delimiter=, ordered=", grains::grains_get),
    ("grains.item", "item", "*args, **kwargs", grains::grains_item),
    ("grains.items", "items", "sanitize=", grains::grains_items),
    ("grains.ls", "ls", "", grains::grains_ls),
    ("grains.has_value", "has_value", "key", grains::grains_has_value),
    ("grains.equals", "equals", "key, value", grains::grains_equals),
    ("grains.filter_by", "filter_by", "lookup_dict, grain=, merge=, default=, base=", grains::grains_filter_by),
    (
        "config.get",
        "get",
        "key, default=, delimiter=, merge=, omit_opts=, omit_pillar=, omit_master=, omit_grains=",
        config::config_get,
    ),
    (
        "config.option",
        "option",
        "value, default=, omit_opts=, omit_grains=, omit_pillar=, omit_master=, omit_all=, wildcard=",
        config::config_option,
    ),
    ("config.merge", "merge", "value, default=, omit_opts=, omit_master=, omit_pillar=", config::config_merge),
    ("config.items", "items", "", config::config_items),
    ("config.dot_vals", "dot_vals", "value", config::config_dot_vals),
    ("defaults.merge", "merge", "dest, src, merge_lists=, in_place=, convert_none=", defaults::defaults_merge),
    ("defaults.update", "update", "dest, defaults, merge_lists=, in_place=, convert_none=", defaults::defaults_update),
    ("defaults.deepcopy", "deepcopy", "source", defaults::defaults_deepcopy),
    ("slsutil.update", "update", "dest, upd, recursive_update=, merge_lists=", slsutil::slsutil_update),
    ("slsutil.merge", "merge", "obj_a, obj_b, strategy=, renderer=, merge_lists=", slsutil::slsutil_merge),
    ("slsutil.merge_all", "merge_all", "lst, strategy=, renderer=, merge_lists=", slsutil::slsutil_merge_all),
    ("slsutil.serialize", "serialize", "serializer, obj, **mod_kwargs", slsutil::slsutil_serialize),
    ("slsutil.deserialize", "deserialize", "serializer, stream_or_string, **mod_kwargs", slsutil::slsutil_deserialize),
    ("slsutil.boolstr", "boolstr", "value, true=, false=", slsutil::slsutil_boolstr),
    ("cp.list_states", "list_states", "saltenv=", cp::cp_list_states),
    ("cp.list_master", "list_master", "saltenv=, prefix=", cp::cp_list_master),
    ("cp.list_master_dirs", "list_master_dirs", "saltenv=, prefix=", cp::cp_list_master_dirs),
    ("slsutil.file_exists", "file_exists", "path, saltenv=", slsutil::slsutil_file_exists),
    ("slsutil.dir_exists", "dir_exists", "path, saltenv=", slsutil::slsutil_dir_exists),
    ("slsutil.path_exists", "path_exists", "path, saltenv=", slsutil::slsutil_path_exists),
    ("file.basename", "basename", "path", file::file_basename),
    ("file.dirname", "dirname", "path", file::file_dirname),
    ("file.join", "join", "*args", file::file_join),
    ("file.normpath", "normpath", "path", file::file_normpath),
    ("log.debug", "debug", "message", log::log_noop),
    ("log.info", "info", "message", log::log_noop),
    ("log.warning", "warning", "message", log::log_noop),
    ("log.error", "error", "message", log::log_noop),
    ("log.critical", "critical", "message", log::log_noop),
    ("log.exception", "exception", "message", log::log_noop),
    ("test.ping", "ping", "", test::ret_true),
    ("test.true", "true_", "", test::ret_true),
    ("test.false", "false_", "", test::ret_false),
    ("test.echo", "echo", "text", test::test_echo),
    ("test.outputter", "outputter", "data", test::test_outputter),
    ("test.kwarg", "kwarg", "**kwargs", test::test_kwarg),
    ("test.arg", "arg", "*args, **kwargs", test::test_arg),
    ("test.retcode", "retcode", "code=", test::ret_true),
    ("test.exception", "exception", "message=", test::test_exception),
    ("pillar.file_exists", "file_exists", "path, saltenv=", pillar::pillar_file_exists),
    ("match.compound", "compound", "tgt, minion_id=", matching::match_compound),
    ("match.glob", "glob", "tgt, minion_id=", matching::match_glob),
    ("match.pcre", "pcre", "tgt, minion_id=", matching::match_pcre),
    ("match.list", "list_", "tgt, minion_id=", matching::match_list),
    ("match.grain", "grain", "tgt, delimiter=", matching::match_grain),
    ("match.grain_pcre", "grain_pcre", "tgt, delimiter=", matching::match_grain_pcre),
    ("match.pillar", "pillar", "tgt, delimiter=", matching::match_pillar),
    ("match.pillar_pcre", "pillar_pcre", "tgt, delimiter=", matching::match_pillar_pcre),
    ("match.ipcidr", "ipcidr", "tgt", matching::match_ipcidr),
    ("match.data", "data", "tgt", matching::match_data),
    (
        "match.filter_by",
        "filter_by",
        "lookup, tgt_type=, minion_id=, merge=, merge_lists=, default=",
        matching::match_filter_by,
    ),
    ("match.search_by", "search_by", "lookup, tgt_type=, minion_id=", matching::match_search_by),
    ("hashutil.base64_b64encode", "base64_b64encode", "instr", hashutil::hash_b64encode),
    ("hashutil.base64_encodestring", "base64_encodestring", "instr", hashutil::hash_b64encode_lines),
    ("hashutil.base64_b64decode", "base64_b64decode", "instr", hashutil::hash_b64decode),
    ("hashutil.base64_decodestring", "base64_decodestring", "instr", hashutil::hash_b64decode),
    ("hashutil.base64_encodefile", "base64_encodefile", "fname", hashutil::hash_b64encodefile),
    ("hashutil.md5_digest", "md5_digest", "instr", hashutil::hash_md5),
    ("hashutil.sha256_digest", "sha256_digest", "instr", hashutil::hash_sha256),
    ("hashutil.sha512_digest", "sha512_digest", "instr", hashutil::hash_sha512),
    ("hashutil.digest", "digest", "instr, checksum=", hashutil::hash_digest),
    ("hashutil.hmac_signature", "hmac_signature", "string, shared_secret, challenge_hmac", hashutil::hash_hmac_signature),
    (
        "hashutil.hmac_compute",
        "hmac_compute",
        "string, shared_secret",
        hashutil::hash_hmac_compute,
    ),
    ("hashutil.github_signature", "github_signature", "string, shared_secret, challenge_hmac", hashutil::hash_github_signature),
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

/// Whether function `name` reads the minion's pillar or grains (the
/// modules whose functions use `Call::data`'s).
pub(crate) fn reads_data(name: &str) -> bool {
    ["pillar.", "grains.", "config.", "match."]
        .iter()
        .any(|m| name.starts_with(m))
}

impl Call<'_, '_, '_> {
    /// `found`, a part of this call's data of `source`, as a function that
    /// answers with a part of Salt's `__pillar__` or `__grains__` itself
    /// (not a copy) returns it: in a render that shares the run's objects,
    /// that part of the run's object (a change to it is seen by later reads
    /// and files, as in Salt); else a new copy of it in `shape`, marked as
    /// minion data (`render::jinja::shared`).
    pub(super) fn part(&self, source: Source, found: &Value, shape: Shape) -> MjValue {
        self.run
            .and_then(|r| r.function_root(source))
            .and_then(|root| locate(self.data.source(source), found, root))
            .unwrap_or_else(|| to_jinja_data(found, shape))
    }
}

/// The part of `root` (a run's object) at the place where `found` sits in
/// `data` (what `root` held when `data` was made of it), or `None` when
/// `found` is not part of `data`.
fn locate(data: &Value, found: &Value, root: &MjValue) -> Option<MjValue> {
    let mut path = Vec::new();
    if !path_to(data, found, &mut path) {
        return None;
    }
    let mut at = root.clone();
    for i in path {
        at = crate::salt::render::jinja::py::child_at(&at, i)?;
    }
    Some(at)
}

/// The positions leading from `data` to the very value `found`, pushed on
/// `path`; false when `found` is not inside `data`.
fn path_to(data: &Value, found: &Value, path: &mut Vec<usize>) -> bool {
    if std::ptr::eq(data, found) {
        return true;
    }
    let children: Box<dyn Iterator<Item = &Value>> = match data {
        Value::Map(m) => Box::new(m.values()),
        Value::List(l) => Box::new(l.iter()),
        _ => return false,
    };
    for (i, child) in children.enumerate() {
        path.push(i);
        if path_to(child, found, path) {
            return true;
        }
        path.pop();
    }
    false
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
// helpers shared by the modules
// ---------------------------------------------------------------------------

pub(super) fn map_of(v: &Value) -> Map {
    v.as_map().cloned().unwrap_or_default()
}

/// `KeyError(...)` as Jinja shows it: `str()` of a KeyError is the repr of its argument.
pub(super) fn key_error(msg: &str) -> Error {
    py_error(crate::value::py_str_repr(msg))
}

/// `sdb://` values would be resolved by Salt's sdb modules.
pub(super) fn sdb_check(v: Value) -> Result<MjValue, Error> {
    if let Value::Str(s) = &v {
        if s.starts_with("sdb://") {
            return Err(py_error(format!(
                "config.get returned the sdb URI '{s}'; sdb lookups need a live minion: mock config.get"
            )));
        }
    }
    Ok(to_mj(&v))
}

pub(super) fn opt_bool(data: &RenderData, key: &str) -> bool {
    data.opts.get(key).is_some_and(Value::truthy)
}

/// `pillar.item` / `grains.item`: each key traversed, into one dict.
pub(super) fn items_of(
    c: &Call,
    source: Source,
    a: &Bound,
    default: Value,
    delimiter: &str,
) -> Result<MjValue, Error> {
    // Pillar maps are OrderedDicts (from the YAML renderer).
    let (shape, fresh): (Shape, fn(&Value) -> MjValue) = match source {
        Source::Pillar => (Shape::Ordered, to_jinja_ordered),
        _ => (Shape::Plain, to_mj),
    };
    let data = c.data.source(source);
    let mut ret = indexmap::IndexMap::new();
    for arg in &a.varargs {
        let key = from_mj(arg)?;
        let found = match traverse(data, &key.py_str(), delimiter) {
            Some(v) => c.part(source, v, shape),
            None => fresh(&default),
        };
        ret.insert(to_jinja_key(&key), found);
    }
    Ok(new_map(ret))
}

pub(super) fn run_filter_by(
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
