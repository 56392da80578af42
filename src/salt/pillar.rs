//! Pillar: compiles `pillar_roots` into the pillar dict every template sees,
//! as Salt's `Pillar.compile_pillar` does for a masterless minion: the
//! pillar top files (merged the pillar way, targets sorted by `order`), each
//! matched SLS rendered through the same pipe as states (with includes,
//! `defaults` and `key`), merged by `pillar_source_merging_strategy`; the
//! `--pillar` data is merged last. The compiles of a fleet run share the
//! pillar fileserver and renders through a [`PillarShare`].

use crate::diag::codes;
use crate::diag::{Diagnostic, SourceFile};
use crate::fnmatch::fnmatch;
use crate::salt::config::Config;
use crate::salt::dictupdate;
use crate::salt::fileserver::FileServer;
use crate::salt::matcher::{confirm_top, Minion};
use crate::salt::render::jinja::{Environments, Jinja, RenderData, SlsContext, TemplateLoader};
use crate::salt::render::{render_file, RenderEnv};
use crate::salt::share::RenderShare;
use crate::salt::yamlex::{self, Aggr};
use crate::value::{Map, Value};
use crate::yaml::Loaded;
use indexmap::IndexMap;
use std::collections::HashMap;
use std::sync::Arc;

/// What a pillar compile takes besides the tree itself.
#[derive(Clone)]
pub struct PillarInputs<'a> {
    /// The minion's settings (roots, merge strategy, grains, `ext_pillar`).
    pub config: &'a Config,
    /// Answers for execution functions templates call.
    pub mocks: Value,
    /// `--pillar`: merged over everything, last.
    pub overlay: Option<&'a Value>,
    /// Resource limits for the renders.
    pub limits: crate::limits::Limits,
    /// How queries about the minion's own state are answered.
    pub queries: &'a crate::salt::render::jinja::MinionQueries,
    /// A `pillarenv=ENV` given to the call (as `salt-call pillar.items
    /// pillarenv=dev` or `state.show_lowstate pillarenv=dev` take it), not
    /// set in the config: Salt 3008 then merges the pillar of that env over
    /// the minion's start-up pillar (compiled with the config's
    /// `pillarenv`, every env when unset), so keys only other envs give
    /// remain.
    pub call_pillarenv: Option<&'a str>,
}

/// Compile the minion's pillar. Errors are returned as diagnostics beside
/// the (partial) pillar, as Salt keeps going and records `_errors`.
pub fn compile(inputs: PillarInputs<'_>) -> (Value, Vec<Diagnostic>) {
    compile_shared(inputs, None)
}

/// What the pillar compiles of a fleet run share (minions with the same
/// settings, see `Session::in_fleet`): the fileserver over `pillar_roots`,
/// its Jinja environments, and the renders of pillar top and SLS files,
/// reused by recorded reads ([`crate::salt::share`]).
pub struct PillarShare {
    fs: Arc<FileServer>,
    envs: Arc<Environments>,
    renders: RenderShare<Result<PillarRender, Diagnostic>>,
    verify: bool,
}

impl PillarShare {
    /// The share for minions configured as `config`; with `verify`, every
    /// reused render is rendered afresh too and compared.
    pub fn new(config: &Config, verify: bool) -> PillarShare {
        PillarShare {
            fs: Arc::new(FileServer::with_links(
                &config.pillar_roots,
                &config.link_policy(),
            )),
            envs: Arc::default(),
            renders: RenderShare::default(),
            verify,
        }
    }

    /// The render cache's counts.
    pub fn stats(&self) -> crate::salt::share::CacheStats {
        self.renders.stats()
    }

    /// Read `path` (absolute, under a pillar root) as `text` instead of
    /// the file on disk (`None`: the file again), and forget every pillar
    /// render: the editor's buffer of a pillar file feeds the compile.
    pub fn set_text(&self, path: &std::path::Path, text: Option<&str>) {
        let key = self
            .fs
            .locate(path)
            .map_or_else(|| path.to_path_buf(), |(_, _, p)| p);
        self.fs.set_text(&key, text);
        self.renders.retain(|_, _| false);
    }
}

/// What one pillar file rendered to: its data, and with the yamlex
/// renderer the same data with its aggregate marks.
#[derive(Debug, Clone, PartialEq)]
struct PillarRender {
    data: Option<Value>,
    aggregate: Option<Aggr>,
}

/// [`compile`], sharing work with the other compiles of a fleet through
/// `share` (which must be the share for this config's settings).
pub fn compile_shared(
    inputs: PillarInputs<'_>,
    share: Option<&PillarShare>,
) -> (Value, Vec<Diagnostic>) {
    let (pillar, errors, _) = compile_in(inputs, false, share);
    (pillar, errors)
}

/// What one pillar layer wrote: its leaves with `file:line:col`.
type Writes = crate::provenance::LayerWrites;

/// What Salt's `saltversion` says (`pillar_opts` puts it under `master`).
const SALT_VERSION: &str = "3008.5";

/// The layers logged for `--explain`: each layer and the leaves it wrote.
type LayerLog = Vec<(crate::provenance::Layer, Writes)>;

/// [`compile`], and with `trace` the provenance of every leaf (which SLS
/// file, at which line, won; what it overrode; what was dropped), for
/// `lowstate pillar --explain`.
pub fn compile_traced(
    inputs: PillarInputs<'_>,
    trace: bool,
) -> (
    Value,
    Vec<Diagnostic>,
    Option<crate::provenance::Provenance>,
) {
    compile_in(inputs, trace, None)
}

/// [`compile_traced`] with the provenance, reading the files of `share`
/// (an editor's unsaved texts among them) but rendering each afresh.
pub fn compile_traced_in(
    inputs: PillarInputs<'_>,
    share: &PillarShare,
) -> (
    Value,
    Vec<Diagnostic>,
    Option<crate::provenance::Provenance>,
) {
    compile_in(inputs, true, Some(share))
}

fn compile_in(
    inputs: PillarInputs<'_>,
    trace: bool,
    share: Option<&PillarShare>,
) -> (
    Value,
    Vec<Diagnostic>,
    Option<crate::provenance::Provenance>,
) {
    let config = inputs.config;
    let (pillar, errors, log) = match inputs.call_pillarenv {
        Some(env) if config.pillarenv.as_deref() != Some(env) => {
            let startup_inputs = PillarInputs {
                overlay: None,
                ..inputs.clone()
            };
            let (startup, mut errors, mut log) = compile_layers(startup_inputs, trace, share);
            let mut call = config.clone();
            call.pillarenv = Some(env.to_string());
            if let Value::Map(o) = &mut call.opts {
                o.insert("pillarenv".into(), Value::str(env));
                // The call's templates see the start-up pillar.
                o.insert("pillar".into(), startup.clone());
            }
            let call_inputs = PillarInputs {
                config: &call,
                ..inputs
            };
            let (own, more, call_log) = compile_layers(call_inputs, trace, share);
            for d in more {
                if !errors
                    .iter()
                    .any(|e| e.code == d.code && e.message == d.message)
                {
                    errors.push(d);
                }
            }
            log.extend(call_log);
            (merge_layer(config, startup, &own, &mut errors), errors, log)
        }
        _ => compile_layers(inputs, trace, share),
    };
    let provenance = trace.then(|| {
        let (layers, writes) = log.into_iter().unzip();
        crate::provenance::Provenance::build(layers, writes, &pillar, ":")
    });
    // Salt records the errors in the pillar itself (`pillar.items` shows them).
    let lines = salt_errors(&errors, &config.opts);
    let pillar = match pillar {
        Value::Map(mut m) if !lines.is_empty() => {
            m.insert(
                "_errors".into(),
                Value::List(lines.into_iter().map(Value::from).collect()),
            );
            Value::Map(m)
        }
        other => other,
    };
    (pillar, errors, provenance)
}

/// One pillar compile: the pillar SLS files of the top file, the external
/// pillars (before them with `ext_pillar_first`), `pillar_opts`, then
/// `overlay` (`--pillar`); with the diagnostics and, with `trace`, the
/// layer log.
fn compile_layers(
    inputs: PillarInputs<'_>,
    trace: bool,
    share: Option<&PillarShare>,
) -> (Value, Vec<Diagnostic>, LayerLog) {
    let PillarInputs {
        config,
        mocks,
        overlay,
        limits,
        queries,
        ..
    } = inputs;
    // A traced compile renders everything itself (the trace needs the parse
    // trees), reading the share's files (an editor's texts among them).
    let files = share.map(|s| s.fs.clone());
    let share = share.filter(|_| !trace);
    let trace_log: std::cell::RefCell<LayerLog> = Default::default();
    let mut errors = Vec::new();
    let merge =
        |a: Value, b: &Value, errors: &mut Vec<Diagnostic>| merge_layer(config, a, b, errors);
    // External pillars, merged in order over `start` (their layers logged).
    let ext_entries = match crate::salt::ext_pillar::entries(&config.opts) {
        Ok(e) => e,
        Err(d) => {
            errors.push(d.or_primary(crate::salt::config::locate(config, "ext_pillar", None)));
            Vec::new()
        }
    };
    let ext_first = config
        .opts
        .get("ext_pillar_first")
        .is_some_and(Value::truthy);
    let run_ext = |start: Value, errors: &mut Vec<Diagnostic>| -> Value {
        let mut pillar = start;
        for entry in &ext_entries {
            match crate::salt::ext_pillar::run(entry, &config.id, config.ext_pillar_commands) {
                Ok(data) => {
                    if trace {
                        trace_log.borrow_mut().push((
                            crate::provenance::Layer {
                                kind: "ext-pillar".into(),
                                origin: format!("ext_pillar:{}", entry.module),
                                rule: rule_name(config),
                            },
                            crate::provenance::leaves(&data)
                                .into_iter()
                                .map(|(p, v)| (p, None, v))
                                .collect(),
                        ));
                    }
                    pillar = merge(pillar, &data, errors);
                }
                Err(d) => errors.push(d.or_primary(crate::salt::config::locate(
                    config,
                    "ext_pillar",
                    Some(entry.index),
                ))),
            }
        }
        pillar
    };
    // What templates see as `pillar` while the pillar itself is compiled:
    // with `ext_pillar_first`, the external pillars (over `--pillar`).
    let mut initial = config
        .opts
        .get("pillar")
        .cloned()
        .filter(|v| matches!(v, Value::Map(_)))
        .unwrap_or(Value::Map(Map::new()));
    if ext_first && !ext_entries.is_empty() {
        let start = overlay.cloned().unwrap_or(Value::Map(Map::new()));
        initial = run_ext(start, &mut errors);
    }
    let pillar = if config.pillar_roots.is_empty() {
        initial.clone()
    } else {
        let fs = match files {
            Some(fs) => fs,
            None => Arc::new(FileServer::with_links(
                &config.pillar_roots,
                &config.link_policy(),
            )),
        };
        let envs = share.map(|s| s.envs.clone()).unwrap_or_default();
        let data = Arc::new(RenderData {
            grains: config.grains.clone(),
            pillar: initial.clone(),
            opts: config.opts.clone(),
            mocks,
            pillar_roots: config.pillar_roots.clone(),
            limits,
            queries: queries.clone(),
        });
        let loader: Arc<dyn TemplateLoader> = fs.clone();
        let compiler = Compiler {
            config,
            fs: &fs,
            jinja_sls: Jinja::with_environments(
                config.jinja_sls_env.clone(),
                data.clone(),
                loader.clone(),
                envs.clone(),
            ),
            jinja_top: Jinja::with_environments(config.jinja_env.clone(), data, loader, envs),
            trace: trace.then_some(&trace_log),
            yamlex: Default::default(),
            ignored: Default::default(),
            share,
        };
        let sls = compiler.compile(&initial, &mut errors);
        if ext_first && !ext_entries.is_empty() {
            merge(initial.clone(), &sls, &mut errors)
        } else {
            sls
        }
    };
    let pillar = if ext_first || ext_entries.is_empty() {
        pillar
    } else {
        run_ext(pillar, &mut errors)
    };
    // `pillar_opts`: the settings, under `master` (as the minion has them).
    let pillar = match pillar {
        Value::Map(mut m) if config.opts.get("pillar_opts").is_some_and(Value::truthy) => {
            let mut settings = match &config.opts {
                Value::Map(o) => o.clone(),
                _ => Map::new(),
            };
            settings.shift_remove("pillar");
            settings.insert("saltversion".into(), Value::str(SALT_VERSION));
            m.insert("master".into(), Value::Map(settings));
            Value::Map(m)
        }
        other => other,
    };
    let pillar = match overlay {
        Some(o) => merge(pillar, o, &mut errors),
        None => pillar,
    };
    let mut log = trace_log.into_inner();
    if let (Some(o), true) = (overlay, trace) {
        log.push((
            crate::provenance::Layer {
                kind: "pillar-override".into(),
                origin: "cli:--pillar".into(),
                rule: rule_name(config),
            },
            crate::provenance::leaves(o)
                .into_iter()
                .map(|(p, v)| (p, None, v))
                .collect(),
        ));
    }
    (pillar, errors, log)
}

/// Salt refuses to compile states while the pillar has errors
/// (`state.show_lowstate`, `show_highstate`, `apply`... all check
/// `pillar['_errors']`): the one diagnostic that says so, listing those
/// errors, or `None` when the pillar has none.
pub fn failure(pillar: &Value) -> Option<Diagnostic> {
    let lines: Vec<String> = match pillar.get("_errors") {
        Some(Value::List(l)) => l.iter().map(Value::py_str).collect(),
        _ => Vec::new(),
    };
    if lines.is_empty() {
        return None;
    }
    let mut d = Diagnostic::new(
        codes::PILLAR_FAILED,
        format!(
            "Pillar failed to render. Additional info follows:\n\n{}",
            lines
                .iter()
                .map(|l| format!("- {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        ),
    );
    d.notes
        .push("the pillar errors above stop every state compile, as in Salt".into());
    Some(d)
}

/// `pillar['_errors']` as Salt fills it, from our diagnostics.
fn salt_errors(diagnostics: &[Diagnostic], opts: &Value) -> Vec<String> {
    let safe = opts
        .get("pillar_safe_render_error")
        .is_none_or(Value::truthy);
    diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| salt_error(d, safe))
        .collect()
}

/// The entry Salt puts in `pillar['_errors']` for one of our diagnostics:
/// a render failure names only the SLS unless `pillar_safe_render_error`
/// is off; every other message is already Salt's.
fn salt_error(d: &Diagnostic, safe: bool) -> String {
    if d.code != codes::PILLAR_RENDER {
        return d.message.clone();
    }
    let sls = d.subject(crate::salt::SLS).unwrap_or_default();
    let sls = sls.split_once(':').map_or(sls, |(_, s)| s);
    match d.message.split_once(" failed: ") {
        Some((_, detail)) if !safe => {
            format!("Rendering SLS '{sls}' failed, render error:\n{detail}")
        }
        _ => format!("Rendering SLS '{sls}' failed. Please see master log for details."),
    }
}

struct Compiler<'a> {
    config: &'a Config,
    fs: &'a FileServer,
    jinja_sls: Jinja,
    jinja_top: Jinja,
    /// With `--explain`: each pillar SLS's leaves, in merge order.
    trace: Option<&'a std::cell::RefCell<LayerLog>>,
    /// A fleet's shared renders (never with `trace`).
    share: Option<&'a PillarShare>,
    /// The SLS files the yamlex renderer read: their data with its marks.
    yamlex: std::cell::RefCell<HashMap<(String, String), Aggr>>,
    /// Per env, the SLS names of top file targets marked
    /// `ignore_missing: True` (whether or not they match this minion, as in
    /// Salt's `merge_tops`): a missing one is skipped without an error.
    ignored: std::cell::RefCell<HashMap<String, Vec<String>>>,
}

/// Merge pillar layer `b` over `a` by the config's strategy; on a merge
/// error (Salt raises) keep `a`.
fn merge_layer(config: &Config, a: Value, b: &Value, errors: &mut Vec<Diagnostic>) -> Value {
    match dictupdate::merge(
        &a,
        b,
        &config.pillar_source_merging_strategy,
        &config.renderer,
        config.pillar_merge_lists,
    ) {
        Ok(v) => v,
        Err(e) => {
            errors.push(Diagnostic::new(codes::PILLAR_MERGE, e.to_string()));
            a
        }
    }
}

impl Compiler<'_> {
    /// Merge `b` over `a`; on a merge error (Salt raises) keep `a`.
    fn merge(&self, a: Value, b: Value, errors: &mut Vec<Diagnostic>) -> Value {
        merge_layer(self.config, a, &b, errors)
    }

    fn compile(&self, initial: &Value, errors: &mut Vec<Diagnostic>) -> Value {
        let top = self.merged_top(errors);
        let minion = Minion::new(self.config, initial);
        let matches = self.top_matches(&top, &minion, errors);
        // env_order decides which env wins on conflicts.
        let mut envs: Vec<&String> = Vec::new();
        for e in &self.config.env_order {
            if let Some((k, _)) = matches.get_key_value(e) {
                envs.push(k);
            }
        }
        for k in matches.keys() {
            if !envs.contains(&k) {
                envs.push(k);
            }
        }
        // The `aggregate` strategy folds by yamlex marks, so it merges the
        // marked data (see `yamlex_of`).
        let aggregate = dictupdate::Strategy::parse(&self.config.pillar_source_merging_strategy)
            .0
            .resolve(&self.config.renderer)
            == dictupdate::Strategy::Aggregate;
        let mut marked = Aggr::from_value(&Value::Map(Map::new()));
        let mut pillar = Value::Map(Map::new());
        for env in envs {
            let mut files = Vec::new();
            for pat in &matches[env] {
                let hits: Vec<String> = self
                    .fs
                    .list_sls(env)
                    .iter()
                    .filter(|s| fnmatch(s, pat))
                    .cloned()
                    .collect();
                if !self.fs.has_env(env) {
                    errors.push(Diagnostic::new(
                        codes::PILLAR_UNKNOWN_ENV,
                        format!("No matching pillar environment for environment '{env}' found"),
                    ));
                }
                if hits.is_empty() {
                    files.push(pat.clone());
                } else {
                    files.extend(hits);
                }
            }
            let mut mods: HashMap<String, Option<Value>> = HashMap::new();
            for sls in files {
                if let Some(state) = self.render_pstate(&sls, env, &mut mods, &Map::new(), errors) {
                    if !matches!(state, Value::Map(_)) {
                        continue;
                    }
                    if aggregate {
                        let data = self.yamlex_of(env, &sls, &state);
                        marked = yamlex::merge_aggregate(marked, data);
                    } else {
                        pillar = self.merge(pillar, state, errors);
                    }
                }
            }
        }
        if aggregate {
            marked.into_value()
        } else {
            pillar
        }
    }

    /// The yamlex data (with its marks) an SLS rendered to, when it is
    /// `state` (includes did not change it); else `state` unmarked.
    fn yamlex_of(&self, env: &str, sls: &str, state: &Value) -> Aggr {
        let rendered = self
            .yamlex
            .borrow_mut()
            .remove(&(env.to_string(), sls.to_string()));
        match rendered {
            Some(a) if a.clone().into_value() == *state => a,
            _ => Aggr::from_value(state),
        }
    }

    /// Read and render the pillar top files of every env (base first, then
    /// pillar_roots order), follow their includes, and merge them.
    fn merged_top(
        &self,
        errors: &mut Vec<Diagnostic>,
    ) -> IndexMap<String, IndexMap<Value, Vec<Value>>> {
        let mut envs: Vec<String> = Vec::new();
        if let Some(p) = &self.config.pillarenv {
            if self.fs.has_env(p) {
                envs.push(p.clone());
            }
        } else {
            envs.push("base".into());
            envs.extend(self.fs.envs().filter(|e| *e != "base").map(str::to_string));
        }
        let top_path = self
            .config
            .state_top
            .strip_prefix("salt://")
            .unwrap_or(&self.config.state_top)
            .to_string();
        let mut tops: Vec<Value> = Vec::new();
        let mut includes: Vec<(String, String)> = Vec::new();
        for env in &envs {
            if let Some(path) = self.fs.find_file(env, &top_path) {
                if let Some(mut v) = self.render_path(
                    env,
                    &path,
                    &top_path,
                    "",
                    (&self.jinja_top, &Map::new()),
                    errors,
                ) {
                    take_includes(&mut v, env, &mut includes);
                    tops.push(v);
                }
            }
        }
        let mut done: Vec<(String, String)> = Vec::new();
        while let Some((env, sls)) = includes.pop() {
            if done.contains(&(env.clone(), sls.clone())) {
                continue;
            }
            done.push((env.clone(), sls.clone()));
            if let Some(file) = self.fs.find_sls(&env, &sls) {
                if let Some(mut v) = self.render_path(
                    &env,
                    &file.path,
                    &file.rel,
                    "",
                    (&self.jinja_top, &Map::new()),
                    errors,
                ) {
                    take_includes(&mut v, &env, &mut includes);
                    tops.push(v);
                }
            }
        }
        // merge_tops + sort_top_targets
        let mut top: IndexMap<String, IndexMap<Value, Vec<Value>>> = IndexMap::new();
        let mut orders: HashMap<(String, Value), i64> = HashMap::new();
        for ctop in &tops {
            let Some(m) = ctop.as_map() else { continue };
            for (env, targets) in m {
                let env = env.py_str();
                if env == "include" {
                    continue;
                }
                let Some(targets) = targets.as_map() else {
                    continue;
                };
                for (tgt, comps) in targets {
                    let mut matchers = Vec::new();
                    let mut states: Vec<Value> = Vec::new();
                    let mut order = 0;
                    let mut ignore_missing = false;
                    for comp in comps.as_list().map(|l| l.as_slice()).unwrap_or(&[]) {
                        match comp {
                            Value::Map(c) => {
                                if c.contains_key("match") {
                                    matchers.push(comp.clone());
                                }
                                ignore_missing |=
                                    c.get("ignore_missing").is_some_and(Value::truthy);
                                if let Some(o) = c.get("order") {
                                    order = match o {
                                        Value::Int(i) => *i,
                                        other => other.py_str().trim().parse().unwrap_or(0),
                                    };
                                }
                            }
                            Value::Str(_) if !states.contains(comp) => {
                                states.push(comp.clone());
                            }
                            _ => {}
                        }
                    }
                    if ignore_missing {
                        self.ignored
                            .borrow_mut()
                            .entry(env.clone())
                            .or_default()
                            .extend(states.iter().map(Value::py_str));
                    }
                    orders.insert((env.clone(), tgt.clone()), order);
                    matchers.extend(states);
                    top.entry(env.clone())
                        .or_default()
                        .insert(tgt.clone(), matchers);
                }
            }
        }
        for (env, targets) in top.iter_mut() {
            targets.sort_by_cached_key(|k, _| {
                orders.get(&(env.clone(), k.clone())).copied().unwrap_or(0)
            });
        }
        top
    }

    fn top_matches(
        &self,
        top: &IndexMap<String, IndexMap<Value, Vec<Value>>>,
        minion: &Minion,
        errors: &mut Vec<Diagnostic>,
    ) -> IndexMap<String, Vec<String>> {
        let mut matches: IndexMap<String, Vec<String>> = IndexMap::new();
        for (env, body) in top {
            if self.config.pillarenv.as_ref().is_some_and(|p| p != env) {
                continue;
            }
            for (tgt, data) in body {
                match confirm_top(tgt, data, minion) {
                    Ok(true) => {
                        let list = matches.entry(env.clone()).or_default();
                        for item in data {
                            if let Value::Str(s) = item {
                                if !list.iter().any(|x| x == s) {
                                    list.push(s.to_string());
                                }
                            }
                        }
                    }
                    Ok(false) => {}
                    Err(e) => errors.push(Diagnostic::new(codes::PILLAR_TOP, e.to_string())),
                }
            }
        }
        matches
    }

    /// Salt's `render_pstate`: one pillar SLS with its includes merged
    /// under it (the including file's own values win). `defaults` are more
    /// template variables: the `defaults` of the include that named it.
    fn render_pstate(
        &self,
        sls: &str,
        env: &str,
        mods: &mut HashMap<String, Option<Value>>,
        defaults: &Map,
        errors: &mut Vec<Diagnostic>,
    ) -> Option<Value> {
        let trace_start = self.trace.map(|t| t.borrow().len());
        let Some(file) = self.fs.find_sls(env, sls) else {
            // Salt skips it silently when the top marked it
            // `ignore_missing`, or when no pillar_roots serve the env.
            let ignored = self
                .ignored
                .borrow()
                .get(env)
                .is_some_and(|l| l.iter().any(|s| s == sls));
            let served = self
                .config
                .pillar_roots
                .get(env)
                .is_some_and(|r| !r.is_empty());
            if ignored || !served {
                return None;
            }
            errors.push(Diagnostic::new(codes::PILLAR_MISSING_SLS,
                format!("Specified SLS '{sls}' in environment '{env}' is not available on the salt master"),
            ));
            return None;
        };
        let state = self.render_path(
            env,
            &file.path,
            &file.rel,
            sls,
            (&self.jinja_sls, defaults),
            errors,
        );
        mods.insert(sls.to_string(), state.clone());
        let state = state?;
        let Value::Map(mut map) = state else {
            errors.push(Diagnostic::new(
                codes::PILLAR_NOT_DICT,
                format!("SLS '{sls}' does not render to a dictionary"),
            ));
            return Some(state);
        };
        let Some(inc) = map.get("include") else {
            return Some(Value::Map(map));
        };
        let Value::List(_) = inc else {
            errors.push(Diagnostic::new(
                codes::PILLAR_INCLUDE_NOT_LIST,
                format!("Include Declaration in SLS '{sls}' is not formed as a list"),
            ));
            return Some(Value::Map(map));
        };
        let Some(Value::List(include)) = map.shift_remove("include") else {
            return Some(Value::Map(map));
        };
        // Salt's `mods` holds the very dict it pops `include` from: a later
        // include of this SLS (a glob and a name matching it twice, or a
        // cycle) gets its own data, without the include list.
        mods.insert(sls.to_string(), Some(Value::Map(map.clone())));
        let mut include_states = Vec::new();
        // As in Salt, an include's `defaults` stay for the plain names
        // after it (and this SLS's own are the first).
        let mut defaults = defaults.clone();
        for sub in include {
            let (sub_sls, key) = match sub {
                Value::Map(m) => match m.into_iter().next() {
                    Some((k, v)) => {
                        defaults = match v.get("defaults") {
                            Some(Value::Map(d)) => d.clone(),
                            _ => Map::new(),
                        };
                        (k.py_str(), v.get("key").map(Value::py_str))
                    }
                    None => continue,
                },
                other => (other.py_str(), None),
            };
            let listing = self.fs.list_sls(env);
            let stripped = sub_sls.trim_start_matches('.').replace('/', ".");
            let mut matched: Vec<String> = listing
                .iter()
                .filter(|s| fnmatch(s, &stripped))
                .cloned()
                .collect();
            let mut target = sub_sls.clone();
            if let Some(rest) = sub_sls.strip_prefix('.') {
                let mut parts: Vec<&str> = sls.split('.').collect();
                if !file.is_init() {
                    parts.pop();
                }
                parts.push(rest);
                target = parts.join(".");
            }
            matched.extend(listing.iter().filter(|s| fnmatch(s, &target)).cloned());
            if matched.is_empty() {
                matched.push(target);
            }
            for m in matched {
                let nstate = match mods.get(&m) {
                    Some(v) => v.clone(),
                    None => self.render_pstate(&m, env, mods, &defaults, errors),
                };
                if let Some(mut nstate) = nstate.filter(Value::truthy) {
                    if let Some(key) = &key {
                        for frag in key.split(':').rev() {
                            let mut w = Map::new();
                            w.insert(frag.into(), nstate);
                            nstate = Value::Map(w);
                        }
                    }
                    include_states.push(nstate);
                }
            }
        }
        // The including SLS merges after its includes (unless they override
        // it): its layer moves behind theirs.
        if let (Some(t), Some(start)) = (self.trace, trace_start) {
            let mut t = t.borrow_mut();
            if !self.config.pillar_includes_override_sls && start < t.len() {
                let own = t.remove(start);
                t.push(own);
            }
        }
        if self.config.pillar_includes_override_sls {
            // Each included SLS is merged over the including one, in order.
            return Some(
                include_states
                    .into_iter()
                    .fold(Value::Map(map), |acc, s| self.merge(acc, s, errors)),
            );
        }
        include_states.push(Value::Map(map));
        let mut iter = include_states.into_iter();
        let first = iter.next()?;
        Some(iter.fold(first, |acc, s| self.merge(acc, s, errors)))
    }

    fn render_path(
        &self,
        env: &str,
        path: &std::path::Path,
        rel: &str,
        sls: &str,
        (jinja, vars): (&Jinja, &Map),
        errors: &mut Vec<Diagnostic>,
    ) -> Option<Value> {
        let fresh = || self.render_fresh(env, path, rel, sls, jinja, vars);
        let rendered = match self.share {
            None => fresh(),
            Some(share) => {
                // The top file (sls "") and an SLS can be the same file;
                // an include's variables are inputs too.
                let mut file = format!("{sls}\0{rel}");
                if !vars.is_empty() {
                    file.push_str(&format!("\0{vars:?}"));
                }
                let r = crate::salt::share::cached(
                    &share.renders,
                    share.verify,
                    (env, &file),
                    jinja.data(),
                    &format!("{env}:{sls}"),
                    Err,
                    fresh,
                );
                Arc::try_unwrap(r).unwrap_or_else(|r| (*r).clone())
            }
        };
        match rendered {
            Ok(r) => {
                if let (Some(a), false) = (r.aggregate, sls.is_empty()) {
                    self.yamlex
                        .borrow_mut()
                        .insert((env.to_string(), sls.to_string()), a);
                }
                r.data
            }
            Err(d) => {
                errors.push(d);
                None
            }
        }
    }

    /// Read and render one pillar file: its data, or the error that fails it.
    fn render_fresh(
        &self,
        env: &str,
        path: &std::path::Path,
        rel: &str,
        sls: &str,
        jinja: &Jinja,
        vars: &Map,
    ) -> Result<PillarRender, Diagnostic> {
        // An unreadable or non-UTF-8 pillar file fails the pillar, as in
        // Salt (it used to be dropped silently).
        let read = self
            .fs
            .read_path(path)
            .map_err(|e| e.to_string())
            .and_then(|b| crate::salt::fileserver::decode_utf8(b).map_err(|(_, why)| why));
        let text = match read {
            Ok(t) => t,
            Err(why) => {
                return Err(Diagnostic::new(
                    codes::PILLAR_RENDER,
                    format!("Rendering SLS '{env}:{sls}' failed: {why}"),
                )
                .with_subject(crate::salt::SLS, format!("{env}:{sls}"))
                .with_note(format!("in {}", path.display())));
            }
        };
        let file = SourceFile::new(path.display().to_string(), text);
        let ctx = SlsContext {
            saltenv: env.to_string(),
            sls: sls.to_string(),
            tplfile: rel.to_string(),
            tplpath: path.display().to_string(),
            extra_vars: vars.iter().map(|(k, v)| (k.py_str(), v.clone())).collect(),
        };
        let renv = RenderEnv {
            jinja,
            default_pipe: &self.config.renderer,
            // Provenance points at every leaf.
            spans: self.trace.is_some(),
        };
        match render_file(&renv, file, &ctx, &format!("{env}:{sls}")) {
            Ok(r) => {
                if let (Some(t), Some(Loaded::Tree(node)), false) =
                    (self.trace, &r.data, sls.is_empty())
                {
                    t.borrow_mut().push((
                        crate::provenance::Layer {
                            kind: "pillar-sls".into(),
                            origin: format!("{env}:{sls} ({})", r.template.name),
                            rule: rule_name(self.config),
                        },
                        traced_leaves(node, &r),
                    ));
                }
                // A text stream (`#!jinja` alone) is not a dict.
                let text = r.text_only.then(|| Value::str(r.text.text.as_str()));
                Ok(PillarRender {
                    data: r.data.map(Loaded::into_value).or(text),
                    aggregate: r.aggregate,
                })
            }
            Err(mut d) => {
                d.code = codes::PILLAR_RENDER;
                Err(d)
            }
        }
    }
}

/// The merge rule of `config` as provenance names it: `smart` resolved the
/// way the merge itself resolves it ([`dictupdate::Strategy::resolve`]:
/// `aggregate` for yamlex, else `recurse`).
fn rule_name(config: &Config) -> String {
    let strategy = &config.pillar_source_merging_strategy;
    if strategy == "smart" {
        match dictupdate::Strategy::Smart.resolve(&config.renderer) {
            dictupdate::Strategy::Aggregate => "aggregate (smart)".into(),
            _ => "recurse (smart)".into(),
        }
    } else {
        strategy.to_string()
    }
}

/// Every leaf an SLS wrote, at `file:line:col` of the template (through
/// the rendered text's line map). The `include` key is not data.
fn traced_leaves(node: &crate::yaml::Node, r: &crate::salt::render::Rendered) -> Writes {
    use crate::yaml::NodeValue;
    let lines = (r.template.text.trim_end() != r.text.text.trim_end())
        .then(|| crate::salt::render::LineMap::new(&r.template.text, &r.text.text));
    let at = |span: &std::ops::Range<usize>| {
        let range = match &lines {
            Some(m) => m.map(span.clone()),
            None => span.clone(),
        };
        let (line, col) = r.template.line_col(range.start);
        format!("{}:{line}:{col}", r.template.name)
    };
    let mut out = Vec::new();
    fn walk(
        n: &crate::yaml::Node,
        path: &mut Vec<String>,
        out: &mut Writes,
        at: &dyn Fn(&std::ops::Range<usize>) -> String,
    ) {
        match &n.value {
            NodeValue::Map(entries) if !entries.is_empty() => {
                for (k, v) in entries {
                    let key = k.to_value().py_str();
                    if path.is_empty() && key == "include" {
                        continue;
                    }
                    path.push(key);
                    walk(v, path, out, at);
                    path.pop();
                }
            }
            _ => out.push((path.clone(), Some(at(&n.span)), n.to_value())),
        }
    }
    walk(node, &mut Vec::new(), &mut out, &at);
    out
}

fn take_includes(top: &mut Value, env: &str, out: &mut Vec<(String, String)>) {
    if let Some(Value::List(inc)) = top.as_map_mut().and_then(|m| m.shift_remove("include")) {
        for i in inc {
            out.push((env.to_string(), i.py_str()));
        }
    }
}
