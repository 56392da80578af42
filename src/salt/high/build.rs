//! Building the highstate: renders every SLS the top file matched, follows
//! `include` (relative, saltenv dicts, globs) exactly in Salt's order, pops
//! `extend` / `exclude`, normalises state declarations, stamps `__sls__`,
//! `__env__`, `__sls_included_from__` and auto-order numbers, and merges the
//! files into one high data dict, collecting every error on the way.
//!
//! Files are rendered ahead of the (order-sensitive) walk, in parallel waves:
//! what a file includes is known once it is rendered, so each wave renders
//! the includes discovered by the previous one.
//!
//! Each of those renders has its own copy of the minion's data, which is
//! what Salt's one shared pillar and grains give until a file changes them
//! in place: from such a file on, the walk renders again, in Salt's order
//! and sharing one set of objects (`render::jinja::shared`).

use super::prepare::{
    drop_order_slots, prepare, share_bodies, wants_order, Body, Prepared, SlsRender,
};
use super::source_map::SourceMap;
use crate::diag::codes;
use crate::diag::{Diagnostic, Label, SourceFile};
use crate::fnmatch::fnmatch;
use crate::salt::fileserver::{FileServer, SlsFile};
use crate::salt::render::jinja::shared::{self, RunObjects};
use crate::salt::render::jinja::SlsContext;
use crate::salt::render::{render_file, RenderEnv};
use crate::salt::share::{Dep, RenderShare, Twin};
use crate::salt::top::{missing_sls_message, RenderStep};
use crate::salt::{ID, SLS};
use crate::value::{Map, Value};
use indexmap::IndexMap;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// Rendered SLS files by (saltenv, sls), shared by the prefetch waves and
/// the walk of one minion's compile; renders come from the fleet-wide
/// cache when the compile has one ([`RenderCache::with_share`]).
pub struct RenderCache<'a> {
    fs: &'a FileServer,
    env: RenderEnv<'a>,
    /// `state_auto_order`: number declarations without an `order`.
    auto_order: bool,
    done: Mutex<HashMap<(String, String), Arc<SlsRender>>>,
    /// The fleet's cache of SLS renders, and whether to verify its hits.
    share: Option<(&'a RenderShare<SlsRender>, bool)>,
    /// The other tree's cache, and whether a file reads the same in both.
    twin: Option<TwinRenders<'a>>,
}

/// The other tree's SLS renders, and whether a file reads the same in both
/// trees (see [`crate::salt::share::Twin`]).
pub type TwinRenders<'a> = (&'a RenderShare<SlsRender>, &'a (dyn Fn(Dep) -> bool + Sync));

impl<'a> RenderCache<'a> {
    /// A cache rendering with `env`; `auto_order` numbers declarations.
    pub fn new(fs: &'a FileServer, env: RenderEnv<'a>, auto_order: bool) -> Self {
        RenderCache {
            fs,
            env,
            auto_order,
            done: Mutex::new(HashMap::new()),
            share: None,
            twin: None,
        }
    }

    /// Reuse renders from (and add them to) a fleet's render cache.
    /// With `verify`, a hit is also rendered afresh and compared.
    pub fn with_share(mut self, share: Option<(&'a RenderShare<SlsRender>, bool)>) -> Self {
        self.share = share;
        self
    }

    /// Take renders the fleet's cache lacks from the other tree's cache
    /// when every file they read is the same in both trees.
    pub fn with_twin(mut self, twin: Option<TwinRenders<'a>>) -> Self {
        self.twin = twin;
        self
    }

    fn cached(&self, saltenv: &str, sls: &str) -> Option<Arc<SlsRender>> {
        let done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        done.get(&(saltenv.to_string(), sls.to_string())).cloned()
    }

    /// Render (or fetch from the cache) one SLS.
    pub fn get(&self, saltenv: &str, sls: &str) -> Arc<SlsRender> {
        if let Some(r) = self.cached(saltenv, sls) {
            return r;
        }
        let r = self.render(saltenv, sls);
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        done.entry((saltenv.to_string(), sls.to_string()))
            .or_insert(r)
            .clone()
    }

    /// Render one SLS, or reuse a render from the fleet's cache that read
    /// what this minion's data gives.
    fn render(&self, saltenv: &str, sls: &str) -> Arc<SlsRender> {
        let relocate = |r: &SlsRender| self.relocated(r, saltenv, sls);
        let twin = self.twin.map(|(other, same)| Twin {
            share: other,
            same,
            relocate: &relocate,
        });
        match self.share {
            None => Arc::new(self.render_fresh(saltenv, sls)),
            Some((share, verify)) => unshared(crate::salt::share::cached_twin(
                share,
                twin.as_ref().map(|t| (t, Dep::Sls(saltenv, sls))),
                verify,
                (saltenv, sls),
                self.env.jinja.data(),
                &format!("{saltenv}:{sls}"),
                SlsRender::failed,
                || self.render_fresh(saltenv, sls),
            )),
        }
    }

    /// The other tree's render of `saltenv:sls`, as a render of this
    /// tree's file: the file and the names of its sources moved. `None`
    /// for a render with errors (their labels may point anywhere) or
    /// anything but a rendered file.
    fn relocated(&self, r: &SlsRender, saltenv: &str, sls: &str) -> Option<SlsRender> {
        let SlsRender::Ok(p) = r else {
            return None;
        };
        let file = self.fs.find_sls(saltenv, sls)?;
        let body = match &p.body {
            None => None,
            Some(b) if !b.errors.is_empty() => return None,
            Some(b) => {
                let old = b.template.name.as_str();
                let template = SourceFile::new(display_path(&file), b.template.text.clone());
                let text = if Arc::ptr_eq(&b.text, &b.template) {
                    template.clone()
                } else if let Some(rest) = b.text.name.strip_prefix(old) {
                    // `PATH (rendered)`.
                    SourceFile::new(format!("{}{rest}", template.name), b.text.text.clone())
                } else {
                    b.text.clone()
                };
                // The span memo points into the other tree's files.
                Some(Body {
                    template,
                    text,
                    spans: Arc::default(),
                    ..b.clone()
                })
            }
        };
        Some(SlsRender::Ok(Box::new(Prepared {
            file,
            body,
            mutated: p.mutated,
        })))
    }

    fn render_fresh(&self, saltenv: &str, sls: &str) -> SlsRender {
        let Some(file) = self.fs.find_sls(saltenv, sls) else {
            return SlsRender::Missing;
        };
        let text = match self
            .fs
            .read_sls(&file)
            .map(crate::salt::fileserver::decode_utf8)
        {
            Ok(Ok(text)) => text,
            // Salt reads SLS files as UTF-8 and fails on anything else.
            Ok(Err((at, why))) => {
                let bytes = self.fs.read_sls(&file).unwrap_or_default();
                let shown = SourceFile::new(
                    file.path.display().to_string(),
                    String::from_utf8_lossy(&bytes).into_owned(),
                );
                let at = String::from_utf8_lossy(&bytes[..at.min(bytes.len())]).len();
                return SlsRender::failed(
                    Diagnostic::new(
                        codes::IO,
                        format!("Rendering SLS {sls} failed, render error: {why}"),
                    )
                    .with_subject(SLS, format!("{saltenv}:{sls}"))
                    .with_primary(Label::new(
                        &shown,
                        at..at + '\u{fffd}'.len_utf8(),
                        "not UTF-8",
                    )),
                );
            }
            Err(e) => {
                return SlsRender::failed(
                    Diagnostic::new(
                        codes::IO,
                        format!("Rendering SLS '{saltenv}:{sls}' failed: {e}"),
                    )
                    .with_subject(SLS, format!("{saltenv}:{sls}")),
                )
            }
        };
        let template = SourceFile::new(display_path(&file), text);
        let ctx = SlsContext {
            saltenv: saltenv.to_string(),
            sls: sls.to_string(),
            tplfile: file.rel.clone(),
            tplpath: crate::salt::config::cached_file_path(
                &self.env.jinja.data().opts,
                saltenv,
                &file.rel,
            ),
            extra_vars: Vec::new(),
        };
        let what = format!("{saltenv}:{sls}");
        let (rendered, mutated) = shared::watch(|| render_file(&self.env, template, &ctx, &what));
        match rendered {
            Ok(rendered) => {
                let mut p = prepare(file, rendered, sls, saltenv, &what, self.auto_order);
                p.mutated = mutated;
                SlsRender::Ok(Box::new(p))
            }
            Err(error) => SlsRender::Failed {
                error: Box::new(error),
                mutated,
            },
        }
    }

    /// Render one SLS afresh with the run's shared objects (never cached:
    /// what it sees depends on the files rendered before it).
    fn render_sharing(&self, saltenv: &str, sls: &str, run: &Arc<RunObjects>) -> SlsRender {
        shared::with_run(run, || self.render_fresh(saltenv, sls))
    }

    /// Like [`RenderCache::get`], but removes the result from the cache: the
    /// walk consumes each file once, so its data need not outlive it.
    pub fn take(&self, saltenv: &str, sls: &str) -> Arc<SlsRender> {
        let taken = {
            let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
            done.remove(&(saltenv.to_string(), sls.to_string()))
        };
        taken.unwrap_or_else(|| self.render(saltenv, sls))
    }

    /// How many IDs the files rendered so far declare together (the room
    /// the high data needs, give or take IDs declared twice).
    fn declared_ids(&self) -> usize {
        let done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        done.values()
            .map(|r| match &**r {
                SlsRender::Ok(p) => p
                    .body
                    .as_ref()
                    .and_then(|b| b.state.as_ref().ok())
                    .map_or(0, Map::len),
                _ => 0,
            })
            .sum()
    }

    /// Render `roots` and everything they include, wave by wave, in parallel.
    pub fn prefetch(&self, roots: Vec<(String, String)>) {
        let mut seen: HashSet<(String, String)> = HashSet::new();
        let mut wave: Vec<(String, String)> = roots
            .into_iter()
            .filter(|k| seen.insert(k.clone()))
            .collect();
        while !wave.is_empty() {
            let next: Vec<Vec<(String, String)>> = wave
                .par_iter()
                .map(|(env, sls)| {
                    let r = self.get(env, sls);
                    match &*r {
                        SlsRender::Ok(p) => likely_includes(self.fs, env, sls, p),
                        _ => Vec::new(),
                    }
                })
                .collect();
            wave = next
                .into_iter()
                .flatten()
                .filter(|k| seen.insert(k.clone()))
                .collect();
        }
    }
}

/// A render of the shared cache as this compile's own copy, for the walk
/// to consume ([`owned`]). Made here, where the prefetch waves render in
/// parallel, rather than by the walk, one file after the other: copying
/// the high data of every file is most of a compile from cached renders.
fn unshared(r: Arc<SlsRender>) -> Arc<SlsRender> {
    if Arc::strong_count(&r) == 1 {
        return r;
    }
    Arc::new((*r).clone())
}

/// The render result itself: the walk holds the only reference once the
/// cache gave it up (a copy is made otherwise).
fn owned(r: Arc<SlsRender>) -> SlsRender {
    Arc::try_unwrap(r).unwrap_or_else(|shared| (*shared).clone())
}

fn display_path(file: &SlsFile) -> String {
    file.path.display().to_string()
}

/// A cheap guess at what a rendered file includes (same-env and explicit-env
/// entries, relative names, globs), used only to render ahead of the walk.
fn likely_includes(fs: &FileServer, env: &str, sls: &str, p: &Prepared) -> Vec<(String, String)> {
    let Some(body) = &p.body else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in &body.include {
        let (ienv, name) = match item {
            Value::Str(s) => (env, s),
            Value::Map(m) => match m.last() {
                Some((Value::Str(e), Value::Str(s))) if fs.has_env(e) => (e.as_str(), s),
                _ => continue,
            },
            _ => continue,
        };
        let Ok(name) = resolve_relative(name, sls, p.file.is_init()) else {
            continue;
        };
        for target in expand_glob(|| fs.list_sls(env), &name) {
            out.push((ienv.to_string(), target));
        }
    }
    out
}

/// `fnmatch.filter(listing, pattern) or [pattern]`; the listing is only
/// asked for when `pattern` is a glob.
pub fn expand_glob<'l>(listing: impl FnOnce() -> &'l [String], pattern: &str) -> Vec<String> {
    if !crate::fnmatch::is_glob(pattern) {
        // A plain name matches itself or nothing; either way the result is it.
        return vec![pattern.to_string()];
    }
    let hits: Vec<String> = listing()
        .iter()
        .filter(|s| fnmatch(s, pattern))
        .cloned()
        .collect();
    if hits.is_empty() {
        vec![pattern.to_string()]
    } else {
        hits
    }
}

/// Resolve a relative include (`.x`, `..x`) against the including SLS.
/// `Err(())` means it goes beyond the top level package.
fn resolve_relative(inc: &str, sls: &str, is_init: bool) -> Result<String, ()> {
    let rest = inc.trim_start_matches('.');
    let levels = inc.len() - rest.len();
    if levels == 0 {
        return Ok(inc.to_string());
    }
    let mut comps: Vec<&str> = sls.split('.').collect();
    if is_init {
        comps.push("init");
    }
    if levels > comps.len() {
        return Err(());
    }
    comps.truncate(comps.len() - levels);
    comps.push(rest);
    Ok(comps.join("."))
}

/// The highstate and what it took to build it.
#[derive(Debug, Default)]
pub struct Highstate {
    /// Salt's high data: ID → body, plus `__extend__` / `__exclude__`.
    pub high: Map,
    /// Render and merge errors, in Salt's order.
    pub errors: Vec<Diagnostic>,
    /// Where every ID, state and argument was written.
    pub sources: SourceMap,
    /// Whether a render changed the minion's data in place, so that the
    /// files after it were rendered again in turn (not from the cache).
    pub in_turn: bool,
}

/// Walks SLS files the way Salt's `render_state` / `render_highstate` do.
/// Finds the top file line ending with a needle (`base:`, `- web`).
pub type TopLines<'a> = dyn Fn(&str) -> Option<Label> + 'a;

/// Salt's `render_highstate`: walks the top file's SLS (includes first) and merges them into the high data.
pub struct Builder<'a> {
    fs: &'a FileServer,
    cache: &'a RenderCache<'a>,
    auto_order: bool,
    iorder: i64,
    mods: HashSet<String>,
    sources: SourceMap,
    /// Salt 3007+ records `__sls_included_from__`; 3006 does not.
    included_from: bool,
    /// The first top file line ending with a text (see `with_top_lines`).
    top_line: Option<&'a TopLines<'a>>,
    /// The run's shared data objects, once a render changed the data.
    run: Option<Arc<RunObjects>>,
}

impl<'a> Builder<'a> {
    /// Reproduce a given Salt release (3006 has no `__sls_included_from__`).
    pub fn for_version(mut self, version: crate::salt::config::SaltVersion) -> Self {
        self.included_from = version >= crate::salt::config::SaltVersion::V3007;
        self
    }

    /// Top-file problems (an unknown saltenv, an SLS no root has) point at
    /// the top file line `find` returns for a needle (`base:`, `- web`).
    pub fn with_top_lines(mut self, find: &'a TopLines<'a>) -> Self {
        self.top_line = Some(find);
        self
    }

    /// The top file line for `needle`, when a finder was given.
    fn top_line(&self, needle: &str) -> Option<Label> {
        self.top_line.and_then(|f| f(needle))
    }

    /// Auto-order numbering follows the cache's `auto_order`.
    pub fn new(fs: &'a FileServer, cache: &'a RenderCache<'a>) -> Self {
        Builder {
            fs,
            cache,
            auto_order: cache.auto_order,
            iorder: 10000,
            mods: HashSet::new(),
            sources: SourceMap::default(),
            included_from: true,
            top_line: None,
            run: None,
        }
    }

    /// `render_highstate`: every (saltenv → SLS patterns) entry the top
    /// file matched, in order.
    pub fn render_highstate(
        mut self,
        matches: &IndexMap<String, Vec<String>>,
        steps: Vec<RenderStep>,
    ) -> Highstate {
        // Render everything reachable first, in parallel.
        let roots = steps
            .iter()
            .filter_map(|s| match s {
                RenderStep::Render { env, sls, .. } => Some((env.clone(), sls.clone())),
                RenderStep::Error(_) => None,
            })
            .collect();
        self.cache.prefetch(roots);

        // Growing a map of tens of thousands of IDs step by step rehashed
        // every key at each doubling.
        let mut high = Map::with_capacity(self.cache.declared_ids());
        let mut all_errors = Vec::new();
        for step in steps {
            let (env, sls, sls_match) = match step {
                RenderStep::Error(d) => {
                    // The top step's only error: a saltenv no root has.
                    let env = d
                        .subject(SLS)
                        .and_then(|s| s.split_once(':'))
                        .map(|(e, _)| e);
                    let at = env.and_then(|e| self.top_line(&format!("{e}:")));
                    all_errors.push(d.or_primary(at));
                    continue;
                }
                RenderStep::Render {
                    env,
                    sls,
                    sls_match,
                } => (env, sls, sls_match),
            };
            if self.mods.contains(&format!("{env}:{sls}")) {
                continue;
            }
            let mut errors = Vec::new();
            if let Some(state) = self.render_state(&sls, &env, matches, &mut errors) {
                merge_included_states(&mut high, state, &self.sources, &mut errors);
            }
            for e in errors.iter_mut() {
                if let Some(m) = missing_sls_message(&e.message, &sls_match, &env) {
                    e.message = m;
                    e.code = codes::MISSING_SLS_IN_TOP;
                    if e.primary.is_none() {
                        e.primary = self.top_line(&format!("- {sls}"));
                    }
                }
            }
            all_errors.extend(errors);
        }
        clean_duplicate_extends(&mut high);
        Highstate {
            high,
            errors: all_errors,
            sources: self.sources,
            in_turn: self.run.is_some(),
        }
    }

    /// `saltenv:sls` rendered as Salt renders it at this point of the walk
    /// (this is Salt's render order: each file before what it includes).
    /// Renders made ahead, side by side, each had its own copy of the
    /// minion's data; that is what Salt's one shared pillar and grains give
    /// until a file changes them in place. From the first render that did,
    /// that file and every later one are rendered again, one after the
    /// other, sharing one set of objects ([`RunObjects`]).
    fn render_in_order(&mut self, saltenv: &str, sls: &str) -> SlsRender {
        if let Some(run) = &self.run {
            return self.cache.render_sharing(saltenv, sls, run);
        }
        let r = owned(self.cache.take(saltenv, sls));
        if !r.mutated() {
            return r;
        }
        let run = self.cache.env.jinja.run_objects();
        let r = self.cache.render_sharing(saltenv, sls, &run);
        self.run = Some(run);
        r
    }

    /// Salt's `render_state`: render `sls`, process its includes
    /// recursively, return its (merged) dict. `None` when it has no states.
    fn render_state(
        &mut self,
        sls: &str,
        saltenv: &str,
        matches: &IndexMap<String, Vec<String>>,
        errors: &mut Vec<Diagnostic>,
    ) -> Option<Value> {
        let what = format!("{saltenv}:{sls}");
        let prepared = match self.render_in_order(saltenv, sls) {
            SlsRender::Missing => {
                let mut d = Diagnostic::new(codes::MISSING_SLS,
                        format!(
                            "Specified SLS {sls} in saltenv {saltenv} is not available on the salt master or through a configured fileserver"
                        ),
                    )
                    .with_subject(SLS, what);
                // A symlink lowstate would not follow explains it.
                if let Some((link, target)) = self.fs.refused_link(saltenv, &sls.replace('.', "/"))
                {
                    d = d.with_note(format!(
                        "{} is a symlink to {}, outside the checkout and the file roots: lowstate does not follow it (Salt would: fileserver_followsymlinks). Allow that directory with `lowstate_symlink_roots: [{}]` in the minion config",
                        link.display(),
                        target.display(),
                        target.parent().unwrap_or(&target).display()
                    ));
                }
                errors.push(d);
                return None;
            }
            SlsRender::Failed { error: d, .. } => {
                errors.push(*d);
                self.mods.insert(what);
                return None;
            }
            SlsRender::Ok(p) => p,
        };
        let Prepared { file, body, .. } = *prepared;
        self.mods.insert(what.clone());
        let Body {
            template,
            text,
            spanless,
            spans,
            state,
            include,
            shared,
            slots,
            errors: found,
        } = body?;
        // Spans are worked out only if a diagnostic asks for one.
        let key = (!found.is_empty()).then(|| what.clone());
        self.sources
            .defer_file(what, template, text, spanless, spans);
        for (d, at) in found {
            // Where the problem was written; else the SLS file itself.
            let label = at
                .resolve(&self.sources)
                .or_else(|| key.as_deref().and_then(|k| self.sources.file(k)));
            errors.push(d.or_primary(label));
        }
        let mut state = match state {
            Ok(state) => state,
            Err(data) => return Some(data),
        };
        let mut own = Own {
            len: state.len(),
            slots,
            replaced: Vec::new(),
        };
        for inc in include {
            self.process_include(
                inc, &mut state, &mut own, sls, saltenv, &file, matches, errors,
            );
        }
        if self.auto_order {
            self.handle_iorder(&mut state, &shared, &own);
            share_bodies(&mut state, &shared);
        }
        Some(Value::Map(state))
    }

    #[allow(clippy::too_many_arguments)]
    fn process_include(
        &mut self,
        inc: Value,
        state: &mut Map,
        own: &mut Own,
        sls: &str,
        saltenv: &str,
        file: &SlsFile,
        matches: &IndexMap<String, Vec<String>>,
        errors: &mut Vec<Diagnostic>,
    ) {
        let what = format!("{saltenv}:{sls}");
        let written = match &inc {
            Value::Map(m) => m.values().last().map(Value::py_str).unwrap_or_default(),
            other => other.py_str(),
        };
        let (env_key, inc_sls) = match inc {
            Value::Map(m) => match m.last() {
                Some((k, v)) => (k.py_str(), v.py_str()),
                None => return,
            },
            other => (saltenv.to_string(), other.py_str()),
        };
        if !self.fs.has_env(&env_key) && env_key != "_xenv" {
            errors.push(
                Diagnostic::new(codes::INCLUDE_UNKNOWN_ENV,
                    format!(
                        "Nonexistent saltenv '{env_key}' found in include of '{inc_sls}' within SLS '{what}'"
                    ),
                )
                .with_subject(SLS, what.clone())
                .or_primary(self.include_label(&what, &inc_sls)),
            );
            return;
        }
        let inc_sls = if inc_sls.starts_with('.') {
            match resolve_relative(&inc_sls, sls, file.is_init()) {
                Ok(s) => s,
                Err(()) => {
                    errors.push(
                        Diagnostic::new(codes::INCLUDE_BEYOND_TOP,
                            format!(
                                "Attempted relative include of '{inc_sls}' within SLS '{what}' goes beyond top level package "
                            ),
                        )
                        .with_subject(SLS, what.clone())
                        .or_primary(self.include_label(&what, &written)),
                    );
                    return;
                }
            }
        } else {
            inc_sls
        };
        let listed = |env: &str| self.fs.list_sls(env).iter().any(|s| fnmatch(s, &inc_sls));
        let resolved: Vec<String> = if env_key != "_xenv" {
            if matches.contains_key(&env_key) || listed(&env_key) {
                vec![env_key.clone()]
            } else {
                vec![]
            }
        } else {
            matches.keys().filter(|e| listed(e)).cloned().collect()
        };
        if resolved.len() == 1 || resolved.iter().any(|e| e == saltenv) {
            let r_env = if resolved.len() == 1 {
                resolved[0].clone()
            } else {
                saltenv.to_string()
            };
            for target in expand_glob(|| self.fs.list_sls(saltenv), &inc_sls) {
                if self.mods.contains(&format!("{r_env}:{target}")) {
                    continue;
                }
                let mut errs = Vec::new();
                let nstate = self.render_state(&target, &r_env, matches, &mut errs);
                if let Some(Value::Map(mut nstate)) = nstate {
                    for (id, body) in nstate.iter_mut() {
                        if !self.included_from || id.as_str().is_some_and(|s| s.starts_with("__")) {
                            continue;
                        }
                        if let Value::Map(b) = body {
                            let list = b
                                .entry("__sls_included_from__".into())
                                .or_insert_with(|| Value::List(crate::value::List::new()));
                            if let Value::List(l) = list {
                                l.push(sls.into());
                            }
                        }
                    }
                    own.replaced_by(state, &nstate);
                    merge_included_states(state, Value::Map(nstate), &self.sources, errors);
                } else if let Some(other) = nstate {
                    merge_included_states(state, other, &self.sources, errors);
                }
                // A missing included file is best shown at the include line.
                for e in errs.iter_mut() {
                    if e.code == codes::MISSING_SLS && e.primary.is_none() {
                        e.primary = self.include_label(&what, &written);
                    }
                }
                errors.extend(errs);
            }
        } else {
            let msg = if resolved.is_empty() {
                let envs = if env_key == "_xenv" {
                    matches.keys().cloned().collect::<Vec<_>>().join(", ")
                } else {
                    env_key.clone()
                };
                format!(
                    "Unknown include: Specified SLS {env_key}: {inc_sls} is not available on the salt master in saltenv(s): {envs} "
                )
            } else {
                format!(
                    "Ambiguous include: Specified SLS {env_key}: {inc_sls} is available on the salt master in multiple available saltenvs: {}",
                    resolved.join(", ")
                )
            };
            let label = self.include_label(&what, &written);
            errors.push(
                Diagnostic::new(codes::BAD_INCLUDE, msg)
                    .with_subject(SLS, what)
                    .or_primary(label),
            );
        }
    }

    /// The `include:` entry `written` of SLS `what` (`env:sls`).
    fn include_label(&self, what: &str, written: &str) -> Option<crate::diag::Label> {
        self.sources
            .arg(&format!("include@{what}"), "include", written)
    }

    /// Append `{order: N}` to every state declaration without an order.
    /// The file's own declarations have their placeholder already (see
    /// [`order_slots`](super::prepare)): only IDs an include brought in are checked here.
    fn handle_iorder(&mut self, state: &mut Map, shared: &[(Value, Value)], own: &Own) {
        let mut next = 0;
        for (i, (id, body)) in state.iter_mut().enumerate() {
            let start = next;
            while own.slots.get(next).is_some_and(|&(si, _)| si == i) {
                next += 1;
            }
            if i < own.len && !own.replaced.get(i).copied().unwrap_or(false) {
                let Value::Map(body) = body else { continue };
                for &(_, j) in &own.slots[start..next] {
                    let slot = match body.get_index_mut(j) {
                        Some((_, Value::List(args))) => args.last_mut(),
                        _ => None,
                    };
                    if let Some(Value::Map(m)) = slot {
                        if let Some(n) = m.values_mut().next() {
                            *n = Value::Int(self.iorder);
                        }
                    }
                    self.iorder += 1;
                }
                continue;
            }
            // An alias body is its anchor's dict: numbered once, through it.
            if shared.iter().any(|(alias, _)| alias == id) {
                continue;
            }
            let Value::Map(body) = body else { continue };
            for (key, decl) in body.iter_mut() {
                if wants_order(key, decl) {
                    if let Value::List(args) = decl {
                        let mut m = Map::new();
                        m.insert("order".into(), Value::Int(self.iorder));
                        args.push(Value::Map(m));
                        self.iorder += 1;
                    }
                }
            }
        }
    }
}

/// A file's own IDs during its walk: the first `len` IDs of its state, the
/// auto-order placeholders in them, and which of them an included file's
/// body replaced.
struct Own {
    len: usize,
    slots: Vec<(usize, usize)>,
    replaced: Vec<bool>,
}

impl Own {
    /// `included` is about to be merged into `state`: an own body it
    /// replaces loses its placeholders first (Salt compares the included
    /// body with the unnumbered one) and is numbered like an included one.
    fn replaced_by(&mut self, state: &mut Map, included: &Map) {
        if self.slots.is_empty() {
            return;
        }
        for id in included.keys() {
            let Some(i) = state.get_index_of(id).filter(|&i| i < self.len) else {
                continue;
            };
            if self.replaced.is_empty() {
                self.replaced = vec![false; self.len];
            }
            if let Some(r) = self.replaced.get_mut(i).filter(|r| !**r) {
                *r = true;
                drop_order_slots(state, i, &self.slots);
            }
        }
    }
}

/// Salt's `merge_included_states`: concatenate `__extend__` / `__exclude__`,
/// report conflicting IDs, then let `state` overwrite `high`.
pub fn merge_included_states(
    high: &mut Map,
    state: Value,
    sources: &SourceMap,
    errors: &mut Vec<Diagnostic>,
) {
    let mut state = match state {
        Value::Map(m) => m,
        other => {
            errors.push(Diagnostic::new(
                codes::SLS_NOT_DICT,
                format!(
                    "Error when rendering state with contents: {}",
                    other.py_str()
                ),
            ));
            return;
        }
    };
    for key in ["__extend__", "__exclude__"] {
        if let Some(Value::List(items)) = state.shift_remove(key) {
            let entry = high
                .entry(key.into())
                .or_insert_with(|| Value::List(crate::value::List::new()));
            if let Value::List(l) = entry {
                l.extend(items);
            }
        }
    }
    // One lookup per ID: an ID already present keeps its place and takes
    // the new body, the old one is compared afterwards (the IDs of `state`
    // are distinct, so errors come out in the same order).
    for (id, body) in state {
        // The message names the ID as `state` writes it: the same text for
        // a string; a number may differ from the equal key kept (1 vs 1.0).
        let name = match &id {
            Value::Str(_) => None,
            other => Some(other.py_str()),
        };
        let (i, old) = high.insert_full(id, body);
        let Some(existing) = old else { continue };
        let Some((key, body)) = high.get_index(i) else {
            continue;
        };
        if existing != *body {
            let id = name.unwrap_or_else(|| key.py_str());
            let loc = |b: &Value| {
                format!(
                    "{}:{}",
                    b.get("__env__").map(Value::py_str).unwrap_or_default(),
                    b.get("__sls__").map(Value::py_str).unwrap_or_default()
                )
            };
            errors.push(
                Diagnostic::new(codes::DUPLICATE_ID,
                    format!(
                        "Detected conflicting IDs, SLS IDs need to be globally unique.\n    The conflicting ID is '{}' and is found in SLS '{}' and SLS '{}'",
                        id,
                        loc(&existing),
                        loc(body)
                    ),
                )
                .or_primary(sources.id(&id))
                .with_secondaries(sources.duplicates(&id))
                .with_subject(ID, id),
            );
        }
    }
}

/// Split `__extend__` into single-ID dicts and drop exact duplicates.
fn clean_duplicate_extends(high: &mut Map) {
    let Some(Value::List(exts)) = high.get_mut("__extend__") else {
        return;
    };
    // The pairs kept, and where each is, bucketed by ID: a tree with
    // thousands of extends is not compared pair against pair.
    let mut seen: Vec<(Value, Value)> = Vec::new();
    let mut by_id: hashbrown::HashTable<usize> = hashbrown::HashTable::new();
    for ext in exts.drain(..) {
        if let Value::Map(m) = ext {
            for (k, v) in m {
                let h = crate::value::hash_of(&k);
                if by_id
                    .find(h, |&j| seen[j].0 == k && seen[j].1 == v)
                    .is_none()
                {
                    by_id.insert_unique(h, seen.len(), |&j| crate::value::hash_of(&seen[j].0));
                    seen.push((k, v));
                }
            }
        }
    }
    *exts = seen
        .into_iter()
        .map(|(k, v)| {
            let mut m = Map::new();
            m.insert(k, v);
            Value::Map(m)
        })
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_extends_are_dropped_in_place_and_distinct_ones_kept() {
        let ext = |id: &str, name: &str| {
            let mut args = Map::new();
            args.insert("name".into(), name.into());
            let mut body = Map::new();
            body.insert(
                "file".into(),
                Value::List([Value::Map(args)].into_iter().collect()),
            );
            let mut m = Map::new();
            m.insert(id.into(), Value::Map(body));
            m
        };
        // One dict may carry several IDs; it comes out split, one per dict.
        let mut two = ext("a", "x");
        two.insert("b".into(), ext("b", "y").get("b").unwrap().clone());
        let exts = vec![
            Value::Map(two),
            Value::Map(ext("a", "x")),
            Value::Map(ext("a", "z")),
            Value::Map(ext("b", "y")),
            Value::Map(ext("c", "x")),
        ];
        let mut high = Map::new();
        high.insert("__extend__".into(), Value::List(exts.into_iter().collect()));
        clean_duplicate_extends(&mut high);
        let Some(Value::List(out)) = high.get("__extend__") else {
            panic!("no __extend__");
        };
        let want = [ext("a", "x"), ext("b", "y"), ext("a", "z"), ext("c", "x")];
        assert_eq!(out.len(), want.len(), "{out:?}");
        for (got, want) in out.iter().zip(want) {
            assert_eq!(got, &Value::Map(want));
        }
    }

    #[test]
    fn relative_includes_follow_salt() {
        assert_eq!(resolve_relative(".sib", "p.q", true).unwrap(), "p.q.sib");
        assert_eq!(resolve_relative("..up", "p.q", true).unwrap(), "p.up");
        assert_eq!(resolve_relative("...top", "p.q", true).unwrap(), "top");
        assert!(resolve_relative("....x", "p.q", true).is_err());
        assert_eq!(resolve_relative(".sib", "p.q", false).unwrap(), "p.sib");
        assert_eq!(resolve_relative("plain", "p.q", false).unwrap(), "plain");
    }
}
