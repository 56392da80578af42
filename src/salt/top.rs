//! The top file stage, as Salt 3008.5's `BaseHighState` runs it for a
//! masterless minion: which envs' top files are read and in what order
//! (`get_tops`, `_get_envs`), following a top file's `include:`, merging the
//! rendered top files (`merge_tops`: `merge`, `same`, `merge_all`),
//! checking them (`verify_tops`), matching targets against the minion
//! (`top_matches`) and turning the matches into the ordered list of SLS
//! renders `render_highstate` performs (`plan_highstate`, including Salt's
//! stale-list quirk for unknown envs).
//!
//! Rendering is not done here: the caller renders each top file to a
//! [`Value`] through a [`TopLoader`]. Problems Salt only logs (and then
//! carries on with an empty top) come back as diagnostics with code
//! `top-render`; callers decide whether they fail the run.

// `Diagnostic` is the project's error type by design; it is large but rare.
#![allow(clippy::result_large_err)]

use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::fnmatch::fnmatch;
use crate::salt::config::Config;
use crate::salt::matcher::{confirm_top, Minion};
use crate::salt::SLS;
use crate::value::{Map, Value};
use indexmap::IndexMap;
use std::collections::HashMap;

/// Rendered top files per env, in reading order: the env's own top file
/// first (`{}` when it has none), then the files its `include:` pulled in.
pub type Tops = IndexMap<String, Vec<Value>>;

/// The merged top: env → target → item list, in order of first appearance.
/// Keys stay `Value`s because a YAML top file may use non-string keys
/// (which `verify_tops` reports).
pub type MergedTop = IndexMap<Value, Map>;

/// Matched SLS per env (`{env: [sls or glob, ...]}`), in Salt's order:
/// an env sits where it was first appended; duplicates are kept.
pub type TopMatches = IndexMap<String, Vec<String>>;

/// What `state.apply` says when nothing matched (show_* functions say nothing).
pub const NO_TOP_MATCH: &str =
    "No Top file or master_tops data matches found. Please see master log for details.";

/// The settings the top stage reads, taken from the minion config.
#[derive(Debug, Clone, PartialEq)]
pub struct TopOptions {
    /// A forced saltenv (`saltenv` option/argument); empty counts as unset.
    pub saltenv: Option<String>,
    /// `state_top_saltenv`.
    pub state_top_saltenv: Option<String>,
    /// `file_roots` envs in config order.
    pub file_roots_envs: Vec<String>,
    /// `env_order`.
    pub env_order: Vec<String>,
    /// `top_file_merging_strategy`.
    pub top_file_merging_strategy: String,
    /// `default_top`.
    pub default_top: String,
    /// `master_tops` is configured (we cannot run master_tops modules).
    pub master_tops: bool,
}

impl Default for TopOptions {
    fn default() -> Self {
        TopOptions {
            saltenv: None,
            state_top_saltenv: None,
            file_roots_envs: vec!["base".into()],
            env_order: Vec::new(),
            top_file_merging_strategy: "merge".into(),
            default_top: "base".into(),
            master_tops: false,
        }
    }
}

impl TopOptions {
    /// The options of a minion config.
    pub fn from_config(config: &Config) -> TopOptions {
        TopOptions {
            saltenv: config.saltenv.clone(),
            state_top_saltenv: config.state_top_saltenv.clone(),
            file_roots_envs: config.file_roots.keys().cloned().collect(),
            env_order: config.env_order.clone(),
            top_file_merging_strategy: config.top_file_merging_strategy.clone(),
            default_top: config.default_top.clone(),
            master_tops: config.opts.get("master_tops").is_some_and(Value::truthy),
        }
    }

    /// The forced saltenv, if any (Salt tests it for truthiness).
    pub fn forced_saltenv(&self) -> Option<&str> {
        self.saltenv.as_deref().filter(|s| !s.is_empty())
    }
}

// ---------------------------------------------------------------------------
// Which envs

/// Salt's `_get_envs`: `base`, then `file_roots` envs in config order, then
/// any other fileserver env; or, when `env_order` is set, exactly the
/// (deduplicated) `env_order` envs that the fileserver knows, in that order.
/// `fileserver_envs` is what the fileserver reports (empty = unknown).
pub fn get_envs(opts: &TopOptions, fileserver_envs: &[String]) -> Vec<String> {
    let mut envs = vec!["base".to_string()];
    for e in &opts.file_roots_envs {
        if !envs.contains(e) {
            envs.push(e.clone());
        }
    }
    let mut env_order: Vec<String> = Vec::new();
    for e in &opts.env_order {
        if !env_order.contains(e) {
            env_order.push(e.clone());
        }
    }
    if !env_order.is_empty() {
        if fileserver_envs.is_empty() {
            return env_order;
        }
        return env_order
            .into_iter()
            .filter(|e| fileserver_envs.contains(e))
            .collect();
    }
    for e in fileserver_envs {
        if !envs.contains(e) {
            envs.push(e.clone());
        }
    }
    envs
}

/// Whose top files are read, in order: the forced saltenv alone, else
/// `state_top_saltenv` alone, else [`get_envs`].
pub fn envs_to_read(opts: &TopOptions, fileserver_envs: &[String]) -> Vec<String> {
    if let Some(env) = opts.forced_saltenv() {
        return vec![env.to_string()];
    }
    if let Some(env) = opts.state_top_saltenv.as_deref().filter(|s| !s.is_empty()) {
        return vec![env.to_string()];
    }
    get_envs(opts, fileserver_envs)
}

/// The envs Salt treats as existing (`LazyAvailStates`): `base` plus
/// [`get_envs`]. An `{env: sls}` top item naming another env is dropped, and
/// `render_highstate` reports `No matching salt environment ...`.
pub fn known_envs(opts: &TopOptions, fileserver_envs: &[String]) -> Vec<String> {
    let mut out = vec!["base".to_string()];
    for e in get_envs(opts, fileserver_envs) {
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Reading top files

/// How the top stage reaches files; implemented by the caller.
pub trait TopLoader {
    /// Render `env`'s top file (`state_top`). `Ok(None)`: the env has no top
    /// file. `Err`: rendering failed (Salt then logs it and uses an empty top).
    fn render_top(&mut self, env: &str) -> Result<Option<Value>, Diagnostic>;
    /// The env's SLS names, sorted (include globs are matched against it).
    fn list_sls(&mut self, env: &str) -> Vec<String>;
    /// Render SLS `sls` of `env` as a top file named by a top `include:`
    /// (Salt renders it with `sls = ""`). `Ok(None)`: no such file.
    fn render_include(&mut self, env: &str, sls: &str) -> Result<Option<Value>, Diagnostic>;
}

fn render_failed(message: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::new(
        codes::TOP_RENDER,
        format!("Unable to render top file: {message}"),
    )
}

/// A rendered top file as Salt sees it: `None` (empty output) is `{}`.
fn normalize_top(v: Option<Value>) -> Value {
    match v {
        None | Some(Value::Null) => Value::Map(Map::new()),
        Some(v) => v,
    }
}

/// Salt's `get_tops`: render the top file of every env in [`envs_to_read`]
/// order, then the files named by the top files' `include:` lists (one
/// level: includes of included files are not followed; each matched SLS is
/// rendered once per env). `Err` is what Salt raises as a render error: it
/// logs it and continues with an empty top (see [`get_top`]).
pub fn gather_tops(
    opts: &TopOptions,
    fileserver_envs: &[String],
    loader: &mut dyn TopLoader,
) -> Result<Tops, Diagnostic> {
    if opts.top_file_merging_strategy == "same"
        && opts.forced_saltenv().is_none()
        && opts.default_top.is_empty()
    {
        return Err(render_failed(
            "top_file_merging_strategy set to 'same', but no default_top configuration option was set",
        ));
    }
    let mut tops: Tops = IndexMap::new();
    for env in envs_to_read(opts, fileserver_envs) {
        let top = normalize_top(loader.render_top(&env)?);
        tops.entry(env).or_default().push(top);
    }

    // Pop the include lists of the initial top files.
    let mut include: IndexMap<String, Vec<Value>> = IndexMap::new();
    for (env, ctops) in tops.iter_mut() {
        for ctop in ctops.iter_mut() {
            let Some(map) = ctop.as_map_mut() else {
                continue;
            };
            let Some(list) = map.shift_remove("include") else {
                continue;
            };
            let entries = py_iter(&list).ok_or_else(|| {
                render_failed(format!(
                    "the include of the top file in saltenv '{env}' is not a list (got {})",
                    list.py_type_name()
                ))
            })?;
            include.entry(env.clone()).or_default().extend(entries);
        }
    }
    for (env, patterns) in include {
        let avail = loader.list_sls(&env);
        let mut done: Vec<String> = Vec::new();
        for pattern in patterns {
            let Some(pattern) = pattern.as_str() else {
                return Err(render_failed(format!(
                    "include entry {} of the top file in saltenv '{env}' is not a string",
                    pattern.py_repr()
                )));
            };
            for sls in avail.iter().filter(|s| fnmatch(s, pattern)) {
                if done.contains(sls) {
                    continue;
                }
                let top = normalize_top(loader.render_include(&env, sls)?);
                tops.entry(env.clone()).or_default().push(top);
                done.push(sls.clone());
            }
        }
    }
    Ok(tops)
}

/// Salt's `get_top`: gather and merge; a render or merge failure gives an
/// empty top plus the diagnostic (Salt only logs it).
pub fn get_top(
    opts: &TopOptions,
    fileserver_envs: &[String],
    loader: &mut dyn TopLoader,
) -> (MergedTop, Vec<Diagnostic>) {
    match gather_tops(opts, fileserver_envs, loader) {
        Ok(tops) => merge_tops(&tops, opts),
        Err(d) => (MergedTop::new(), vec![d]),
    }
}

/// Python iteration over a value: list items, dict keys, string characters;
/// `None` where Python raises `TypeError`.
fn py_iter(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::List(l) => Some(l.to_vec()),
        Value::Map(m) => Some(m.keys().cloned().collect()),
        Value::Str(s) => Some(s.chars().map(Value::from).collect()),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Merging

const NO_TARGETS: &str = "Unable to render top file. No targets found.";

/// The `(target, body)` pairs of one env section; `Err` where Salt's
/// `for tgt in targets: ... ctop[saltenv][tgt]` raises `TypeError`.
fn section_targets(section: &Value) -> Result<Vec<(Value, Value)>, Diagnostic> {
    match section {
        Value::Map(m) => Ok(m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
        Value::List(l) if l.is_empty() => Ok(Vec::new()),
        Value::Str(s) if s.is_empty() => Ok(Vec::new()),
        _ => Err(render_failed(NO_TARGETS)),
    }
}

/// The sections of one rendered top file; a top file that is not a dict is
/// an error (Salt crashes on it).
fn sections<'a>(env: &str, ctop: &'a Value) -> Result<&'a Map, Diagnostic> {
    ctop.as_map().ok_or_else(|| {
        Diagnostic::new(
            codes::TOP_RENDER,
            format!(
                "The top file in saltenv '{env}' did not render to a dictionary (got {})",
                ctop.py_type_name()
            ),
        )
    })
}

fn is_include(key: &Value) -> bool {
    key.as_str() == Some("include")
}

fn copy_section(top: &mut MergedTop, env: &Value, section: &Value) -> Result<(), Diagnostic> {
    for (tgt, body) in section_targets(section)? {
        top.entry(env.clone()).or_default().insert(tgt, body);
    }
    Ok(())
}

/// Salt's `merge_tops`: dispatch on `top_file_merging_strategy`; an unknown
/// strategy warns and merges with `merge`. A merge error gives an empty top
/// (Salt logs `Unable to render top file: ...`).
pub fn merge_tops(tops: &Tops, opts: &TopOptions) -> (MergedTop, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let result = match opts.top_file_merging_strategy.as_str() {
        "merge" => merge_tops_merge(tops),
        "same" => merge_tops_same(tops, &opts.default_top, &mut diags),
        "merge_all" => merge_tops_merge_all(tops),
        other => {
            diags.push(Diagnostic::new(
                codes::TOP_MERGE,
                format!("Invalid top_file_merging_strategy '{other}', falling back to 'merge'"),
            ));
            merge_tops_merge(tops)
        }
    };
    match result {
        Ok(top) => (top, diags),
        Err(d) => {
            diags.push(d);
            (MergedTop::new(), diags)
        }
    }
}

/// `merge`: every section of base's top files, then for each other env only
/// its own section from its own top files, unless base already defined it.
fn merge_tops_merge(tops: &Tops) -> Result<MergedTop, Diagnostic> {
    let mut top = MergedTop::new();
    if let Some(base) = tops.get("base") {
        for ctop in base {
            for (env, section) in sections("base", ctop)? {
                if is_include(env) {
                    continue;
                }
                copy_section(&mut top, env, section)?;
            }
        }
    }
    for (cenv, ctops) in tops {
        if cenv == "base" {
            continue;
        }
        for ctop in ctops {
            for (env, section) in sections(cenv, ctop)? {
                if is_include(env) || env.as_str() != Some(cenv.as_str()) || top.contains_key(env) {
                    continue;
                }
                copy_section(&mut top, env, section)?;
            }
        }
    }
    Ok(top)
}

/// `x == {}` for a rendered top file.
fn is_empty_top(v: &Value) -> bool {
    matches!(v, Value::Map(m) if m.is_empty())
}

/// `same`: each env uses only its own section from its own top files; an
/// env without a top file takes its section from the `default_top` env's.
fn merge_tops_same(
    tops: &Tops,
    default_top: &str,
    diags: &mut Vec<Diagnostic>,
) -> Result<MergedTop, Diagnostic> {
    let mut top = MergedTop::new();
    for (cenv, ctops) in tops {
        if ctops.iter().all(is_empty_top) {
            let fallback: &[Value] = tops.get(default_top).map_or(&[], Vec::as_slice);
            if fallback.iter().all(is_empty_top) {
                diags.push(Diagnostic::new(
                    codes::TOP_MERGE,
                    format!(
                        "The '{cenv}' saltenv has no top file, and the fallback saltenv \
                         specified by default_top ({default_top}) also has no top file"
                    ),
                ));
                continue;
            }
            for ctop in fallback {
                let found = sections(default_top, ctop)?
                    .iter()
                    .find(|(env, _)| env.as_str() == Some(cenv.as_str()));
                match found {
                    Some((env, section)) => copy_section(&mut top, env, section)?,
                    None => diags.push(Diagnostic::new(
                        codes::TOP_MERGE,
                        format!(
                            "The '{cenv}' saltenv has no top file, and no matches were found \
                             in the top file for the default_top saltenv ({default_top})"
                        ),
                    )),
                }
            }
            continue;
        }
        for ctop in ctops {
            for (env, section) in sections(cenv, ctop)? {
                if is_include(env) || env.as_str() != Some(cenv.as_str()) {
                    continue;
                }
                copy_section(&mut top, env, section)?;
            }
        }
    }
    Ok(top)
}

/// `merge_all`: every section of every top file, in env order. A target seen
/// again in the same env gets `[last dict] + first list's SLS + the second
/// list's SLS not already present` (Salt's `_read_tgt`: the last dict item
/// of the later list wins if truthy, else the earlier one's).
fn merge_tops_merge_all(tops: &Tops) -> Result<MergedTop, Diagnostic> {
    fn read_tgt(body: &Value) -> Result<(Option<Value>, Vec<Value>), Diagnostic> {
        let items = py_iter(body).ok_or_else(|| render_failed(NO_TARGETS))?;
        let mut match_type = None;
        let mut states = Vec::new();
        for item in items {
            match item {
                Value::Map(_) => match_type = Some(item),
                Value::Str(_) => states.push(item),
                _ => {}
            }
        }
        Ok((match_type, states))
    }

    let mut top = MergedTop::new();
    for (cenv, ctops) in tops {
        for ctop in ctops {
            for (env, section) in sections(cenv, ctop)? {
                if is_include(env) {
                    continue;
                }
                for (tgt, body) in section_targets(section)? {
                    let targets = top.entry(env.clone()).or_default();
                    let Some(existing) = targets.get(&tgt) else {
                        targets.insert(tgt, body);
                        continue;
                    };
                    let (m1, s1) = read_tgt(existing)?;
                    let (m2, s2) = read_tgt(&body)?;
                    // Python: `m_type2 or m_type1`.
                    let match_type = match m2 {
                        Some(m) if m.truthy() => Some(m),
                        _ => m1,
                    };
                    let mut merged = Vec::new();
                    if let Some(m) = match_type {
                        merged.push(m);
                    }
                    merged.extend(s1);
                    for s in s2 {
                        if !merged.contains(&s) {
                            merged.push(s);
                        }
                    }
                    targets.insert(tgt, Value::List(merged.into()));
                }
            }
        }
    }
    Ok(top)
}

// ---------------------------------------------------------------------------
// Verifying

/// Salt's `verify_tops` on the merged top, with its messages.
/// (`state.show_highstate` and `state.apply` run it; `show_lowstate` does not.)
pub fn verify_tops(top: &MergedTop) -> Vec<Diagnostic> {
    let err = |m: String| Diagnostic::new(codes::TOP_VERIFY, m);
    let mut errors = Vec::new();
    for (env, matches) in top {
        if is_include(env) {
            continue;
        }
        if env.as_str().is_none() {
            errors.push(err(format!(
                "Environment {} in top file is not formed as a string",
                env.py_str()
            )));
        }
        if env.as_str() == Some("") {
            errors.push(err("Empty saltenv statement in top file".into()));
        }
        for (tgt, slsmods) in matches {
            let Some(items) = slsmods.as_list() else {
                errors.push(err(format!(
                    "Malformed topfile: state declarations for matcher {} in saltenv {} are \
                     not formed as a list (got {})",
                    tgt.py_repr(),
                    env.py_repr(),
                    slsmods.py_type_name()
                )));
                continue;
            };
            for item in items {
                match item {
                    Value::Map(m) => {
                        for val in m.values() {
                            if !val.truthy() {
                                errors.push(err(format!(
                                    "Improperly formatted top file matcher in saltenv {}: {} file",
                                    item.py_str(),
                                    val.py_str()
                                )));
                            }
                        }
                    }
                    Value::Str(s) if s.is_empty() => errors.push(err(format!(
                        "Environment {} contains an empty sls index",
                        env.py_str()
                    ))),
                    _ => {}
                }
            }
        }
    }
    errors
}

// ---------------------------------------------------------------------------
// Matching

/// Salt's `top_matches`: for each env (only the forced saltenv, if any), for
/// each target that matches the minion, its items in order: a string goes to
/// this env; a dict's last `{env: sls}` pair goes to that env if it exists
/// (so the `match:` dict is dropped); `subfilter:` dicts hold nested targets
/// matched in turn. An env appears once a target of it matched, even if
/// nothing was appended. Matcher failures (Salt would raise) are reported
/// and count as no match.
pub fn top_matches(
    top: &MergedTop,
    minion: &Minion,
    opts: &TopOptions,
    known_envs: &[String],
) -> (TopMatches, Vec<Diagnostic>) {
    let mut cx = MatchCx {
        minion,
        known_envs,
        matches: TopMatches::new(),
        diags: Vec::new(),
    };
    let forced = opts.forced_saltenv();
    for (env, body) in top {
        if let Some(f) = forced {
            if env.as_str() != Some(f) {
                continue;
            }
        }
        let env = env.py_str();
        for (tgt, data) in body {
            cx.filter(&env, tgt, data);
        }
    }
    if opts.master_tops {
        cx.diags.push(Diagnostic::new(
            codes::TOP_MASTER_TOPS,
            "master_tops is configured but master_tops modules cannot run offline; ignored",
        ));
    }
    (cx.matches, cx.diags)
}

struct MatchCx<'a, 'm> {
    minion: &'a Minion<'m>,
    known_envs: &'a [String],
    matches: TopMatches,
    diags: Vec<Diagnostic>,
}

impl MatchCx<'_, '_> {
    fn filter(&mut self, env: &str, tgt: &Value, data: &Value) {
        let items = match data {
            Value::Str(_) => vec![data.clone()],
            other => match py_iter(other) {
                Some(items) => items,
                None => {
                    self.diags.push(Diagnostic::new(
                        codes::TOP_MATCH,
                        format!(
                            "Malformed topfile: state declarations for matcher {} in saltenv {} \
                             are not formed as a list (got {})",
                            tgt.py_repr(),
                            Value::from(env).py_repr(),
                            data.py_type_name()
                        ),
                    ));
                    return;
                }
            },
        };
        match confirm_top(tgt, &items, self.minion) {
            Ok(true) => {}
            Ok(false) => return,
            Err(e) => {
                self.diags.push(Diagnostic::new(
                    codes::TOP_MATCH,
                    format!("Top file target {} in saltenv '{env}': {e}", tgt.py_repr()),
                ));
                return;
            }
        }
        self.matches.entry(env.to_string()).or_default();
        for item in items {
            match item {
                Value::Str(s) => self.push(env, s.to_string()),
                Value::Map(mut m) => {
                    if let Some(sub) = m.shift_remove("subfilter") {
                        match sub.as_map() {
                            Some(sub) => {
                                for (t, d) in sub {
                                    self.filter(env, t, d);
                                }
                            }
                            None => self.diags.push(Diagnostic::new(
                                codes::TOP_MATCH,
                                format!(
                                    "subfilter of target {} in saltenv '{env}' is not a dict",
                                    tgt.py_repr()
                                ),
                            )),
                        }
                    }
                    // `item.popitem()`: the last pair.
                    let Some((env_key, sls)) = m.pop() else {
                        self.diags.push(Diagnostic::new(
                            codes::TOP_MATCH,
                            format!(
                                "An empty dict in the item list of target {} in saltenv '{env}'",
                                tgt.py_repr()
                            ),
                        ));
                        continue;
                    };
                    let Some(other_env) = env_key.as_str() else {
                        continue;
                    };
                    if !self.known_envs.iter().any(|e| e == other_env) {
                        continue;
                    }
                    match sls {
                        Value::Str(s) => self.push(other_env, s.to_string()),
                        other => self.diags.push(Diagnostic::new(
                            codes::TOP_MATCH,
                            format!(
                                "SLS {} for saltenv '{other_env}' in target {} is not a string",
                                other.py_repr(),
                                tgt.py_repr()
                            ),
                        )),
                    }
                }
                // Numbers, lists, null: ignored, as Salt does.
                _ => {}
            }
        }
    }

    fn push(&mut self, env: &str, sls: String) {
        self.matches.entry(env.to_string()).or_default().push(sls);
    }
}

/// Combine `master_tops` results with the top file's: appended (or first,
/// with `master_tops_first`), skipping SLS already listed.
pub fn merge_ext_tops(matches: &mut TopMatches, ext: &TopMatches, ext_first: bool) {
    for (env, ext_sls) in ext {
        let own = matches.get(env).cloned().unwrap_or_default();
        let (first, second) = if ext_first {
            (ext_sls.clone(), own)
        } else {
            (own, ext_sls.clone())
        };
        let mut merged = first.clone();
        merged.extend(second.into_iter().filter(|s| !first.contains(s)));
        matches.insert(env.clone(), merged);
    }
}

// ---------------------------------------------------------------------------
// From matches to SLS renders

/// One step of `render_highstate`, in order.
#[derive(Debug, Clone)]
pub enum RenderStep {
    /// An error to record at this point (`No matching salt environment for
    /// environment '<env>' found`).
    Error(Diagnostic),
    /// Render `env:sls` (skip it if `env:sls` was already rendered, as an
    /// include or earlier top entry). `sls_match` is the top file entry it
    /// came from: a top-level "is not available" error that mentions
    /// `SLS <sls_match> in saltenv` becomes [`missing_sls_message`].
    Render {
        /// The saltenv.
        env: String,
        /// The SLS to render.
        sls: String,
        /// The top file entry that produced it (a name or a glob).
        sls_match: String,
    },
}

/// Salt's `render_highstate` loop, without the rendering: each entry is
/// fnmatched against its env's sorted SLS list (`list_sls`; an env missing
/// from `known_envs` falls back to an `__env__` env if there is one); no hit
/// renders the literal name. For an unknown env Salt records the error and
/// then renders the *previous* entry's file list again under the unknown env
/// (a bug: the list is not reset) — or the literal name if that list was
/// empty. We reproduce that.
pub fn plan_highstate(
    matches: &TopMatches,
    known_envs: &[String],
    list_sls: &mut dyn FnMut(&str) -> Vec<String>,
) -> Vec<RenderStep> {
    let mut cache: HashMap<String, Vec<String>> = HashMap::new();
    let mut listing = |env: &str| -> Vec<String> {
        cache
            .entry(env.to_string())
            .or_insert_with(|| list_sls(env))
            .clone()
    };
    let known = |e: &str| known_envs.iter().any(|k| k == e);
    let mut steps = Vec::new();
    let mut statefiles: Vec<String> = Vec::new();
    for (env, states) in matches {
        for sls_match in states {
            let source = if known(env) {
                Some(env.as_str())
            } else if known("__env__") {
                Some("__env__")
            } else {
                None
            };
            match source {
                // A plain name: its hit, or (no hit) the literal name anyway.
                Some(_) if !crate::fnmatch::is_glob(sls_match) => {
                    statefiles = vec![sls_match.clone()];
                }
                Some(src) => {
                    statefiles = listing(src)
                        .into_iter()
                        .filter(|s| fnmatch(s, sls_match))
                        .collect();
                }
                None => steps.push(RenderStep::Error(
                    Diagnostic::new(
                        codes::UNKNOWN_SALTENV,
                        format!("No matching salt environment for environment '{env}' found"),
                    )
                    .with_subject(SLS, format!("{env}:{sls_match}")),
                )),
            }
            if statefiles.is_empty() {
                statefiles = vec![sls_match.clone()];
            }
            for sls in &statefiles {
                steps.push(RenderStep::Render {
                    env: env.clone(),
                    sls: sls.clone(),
                    sls_match: sls_match.clone(),
                });
            }
        }
    }
    steps
}

/// `No matching sls found for '<sls_match>' in env '<env>'`: what a top-level
/// "is not available" error is rewritten to when it names `SLS <sls_match> in
/// saltenv`. Returns `None` when the message is kept as is.
pub fn missing_sls_message(message: &str, sls_match: &str, env: &str) -> Option<String> {
    (message.contains("is not available")
        && message.contains(&format!("SLS {sls_match} in saltenv")))
    .then(|| format!("No matching sls found for '{sls_match}' in env '{env}'"))
}

#[cfg(test)]
mod tests;
