//! The driver: wires config → fileserver → pillar → top → render → high →
//! low → order for one compile, and exposes each intermediate result
//! (matches, highstate, lowstate) to the subcommands.

use crate::diag::codes;
use crate::diag::{Diagnostic, Diagnostics, Label, SourceFile};
use crate::salt::config::{Config, SaltVersion};
use crate::salt::fileserver::FileServer;
use crate::salt::fleet::{Fleet, FleetShare};
use crate::salt::graph::ChunkGraph;
use crate::salt::high::build::{Builder, Highstate, RenderCache};
use crate::salt::high::exclude::apply_exclude;
use crate::salt::high::extend::reconcile_extend;
use crate::salt::high::prepare::SlsRender;
use crate::salt::high::requisite_in::requisite_in_for;
use crate::salt::high::verify::verify_high_for;
use crate::salt::high::SourceMap;
use crate::salt::low::LowOptions;
use crate::salt::matcher::Minion;
use crate::salt::order::{order_chunks, Lowstate};
use crate::salt::render::jinja::{Jinja, RenderData, SlsContext, TemplateLoader};
use crate::salt::render::{render_file, RenderEnv};
use crate::salt::share::{Dep, Twin};
use crate::salt::simulate::{simulate_with, Assumptions, RunResult, SimOptions};
use crate::salt::top::{self, TopLoader, TopMatches, TopOptions};
use crate::value::{Map, Value};
use std::collections::BTreeSet;
use std::sync::Arc;

/// What to compile, beyond the minion config: the call's own settings
/// (as `salt-call state.apply saltenv=... pillar=...` takes them) and
/// lowstate's flags, typed. A setting given here beats the config key it
/// stands for ([`Options::apply_to`]).
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Compile exactly these SLS (as `state.sls` does) instead of the top file.
    pub sls: Option<Vec<String>>,
    /// `--saltenv ENV`: compile only this saltenv (the `saltenv` key).
    pub saltenv: Option<String>,
    /// `--salt-version`: the Salt release to reproduce (the
    /// `lowstate_salt_version` key; 3008 when neither is given).
    pub version: Option<SaltVersion>,
    /// `--pillar JSON`: merged over the compiled pillar, last.
    pub pillar_override: Option<Value>,
    /// `--pillarenv ENV` (`pillarenv=` given to the call): that env's
    /// pillar merged over the start-up pillar, as Salt 3008 does.
    pub pillarenv: Option<String>,
    /// `--mocks FILE` contents: replaces the config's `mocks:`.
    pub mocks: Option<Value>,
    /// `--run-ext-pillar`: run the command `ext_pillar` entries (the
    /// `lowstate_ext_pillar_commands` key).
    pub ext_pillar_commands: bool,
    /// Resource limits (render fuel and output, YAML, states).
    pub limits: crate::limits::Limits,
    /// The run's secrets: the session adds the secret pillar values and
    /// the values of `no_log: True` states as soon as the tree has rendered
    /// (before later stages can fail), so whoever prints diagnostics can
    /// mask them.
    pub secrets: crate::redact::Secrets,
    /// Queries about the minion's state: fresh-minion answers (noted in
    /// the shared set) or, with `strict` (`--strict`, the `lowstate_strict`
    /// key), mocks only.
    pub queries: crate::salt::render::jinja::MinionQueries,
}

impl Options {
    /// The config keys these settings stand for, with their values: what
    /// `opts` shows for them (and `lowstate config --explain` attributes to
    /// their flags).
    pub fn config_keys(&self) -> Map {
        let mut keys = Map::new();
        if let Some(env) = &self.saltenv {
            keys.insert("saltenv".into(), Value::str(env.as_str()));
        }
        if let Some(m) = &self.mocks {
            keys.insert("mocks".into(), m.clone());
        }
        if self.ext_pillar_commands {
            keys.insert("lowstate_ext_pillar_commands".into(), Value::Bool(true));
        }
        if self.queries.strict {
            keys.insert("lowstate_strict".into(), Value::Bool(true));
        }
        if let Some(v) = self.version {
            keys.insert("lowstate_salt_version".into(), Value::Int(v.number()));
        }
        keys
    }

    /// `config` with these settings over its own: the typed fields, and
    /// the keys in `opts` (what templates and `lowstate config` see).
    pub fn apply_to(&self, config: &mut Config) {
        if let Some(env) = &self.saltenv {
            config.saltenv = Some(env.clone());
        }
        if let Some(m) = &self.mocks {
            config.mocks = m.clone();
        }
        config.ext_pillar_commands |= self.ext_pillar_commands;
        config.strict |= self.queries.strict;
        if let Some(v) = self.version {
            if config.salt_version.unwrap_or_default() != v {
                config.salt_version = Some(v);
                // Salt's own grains are that release's.
                config.recompute_grains();
            }
            config.salt_version = Some(v);
        }
        if let Value::Map(opts) = &mut config.opts {
            for (k, v) in self.config_keys() {
                opts.insert(k, v);
            }
        }
    }
}

/// One compile's shared state: config, fileserver, minion data, Jinja.
pub struct Session {
    /// The minion config.
    pub config: Config,
    /// What to compile.
    pub options: Options,
    /// The Salt release reproduced: `--salt-version`, else the config's
    /// `lowstate_salt_version`, else 3008.
    pub version: SaltVersion,
    /// The fileserver over `file_roots`.
    pub fs: Arc<FileServer>,
    /// Grains, pillar, opts and mocks for templates.
    pub data: Arc<RenderData>,
    /// Warnings and errors met while compiling the pillar.
    pub pillar_diagnostics: Vec<Diagnostic>,
    jinja_sls: Jinja,
    jinja_top: Jinja,
    /// What this compile shares with the others of a fleet run.
    share: Option<Arc<FleetShare>>,
}

impl Session {
    /// Read the pillar and set up Jinja for one compile.
    pub fn new(config: Config, options: Options) -> Session {
        Session::build(config, options, None)
    }

    /// A session of a fleet run: the fileserver, Jinja environments and
    /// renders come from (and go to) `fleet`'s share for these settings.
    pub fn in_fleet(mut config: Config, options: Options, fleet: &Fleet) -> Session {
        options.apply_to(&mut config);
        let settings = fleet_settings(&config, &options);
        let portable = portable_settings(&settings, &config);
        let share = fleet.share_for(settings, portable, &config);
        Session::build(config, options, Some(share))
    }

    /// A session whose fileserver, Jinja environments and renders come
    /// from (and go to) `share`, which the caller keeps for compiles with
    /// the same settings (an editor's compile after each edit).
    pub fn in_share(config: Config, options: Options, share: Arc<FleetShare>) -> Session {
        Session::build(config, options, Some(share))
    }

    fn build(mut config: Config, mut options: Options, share: Option<Arc<FleetShare>>) -> Session {
        options.apply_to(&mut config);
        // Settings that may come from the config files as well as flags.
        let version = config.salt_version.unwrap_or_default();
        options.queries.strict |= config.strict;
        options.queries.base = crate::salt::grains::base_system(&config.grains_model.profile.name);
        options.queries.profile = config.grains_model.profile.name.clone();
        let fs = match &share {
            Some(s) => s.fs.clone(),
            None => Arc::new(FileServer::with_links(
                &config.file_roots,
                &config.link_policy(),
            )),
        };
        let mocks = config.mocks.clone();
        let (pillar, pillar_diagnostics) = crate::salt::pillar::compile_shared(
            crate::salt::pillar::PillarInputs {
                config: &config,
                mocks: mocks.clone(),
                overlay: options.pillar_override.as_ref(),
                limits: options.limits,
                queries: &options.queries,
                call_pillarenv: options.pillarenv.as_deref(),
            },
            share.as_ref().map(|s| &s.pillar),
        );
        // Salt's state compiler puts the minion's pillar in its opts.
        let mut opts = config.opts.clone();
        if let Value::Map(m) = &mut opts {
            m.insert("pillar".into(), pillar.clone());
        }
        let data = Arc::new(RenderData {
            grains: config.grains.clone(),
            pillar,
            opts,
            mocks,
            pillar_roots: config.pillar_roots.clone(),
            limits: options.limits,
            queries: options.queries.clone(),
        });
        let loader: Arc<dyn TemplateLoader> = fs.clone();
        let envs = share.as_ref().map(|s| s.envs.clone()).unwrap_or_default();
        let jinja_sls = Jinja::with_environments(
            config.jinja_sls_env.clone(),
            data.clone(),
            loader.clone(),
            envs.clone(),
        );
        let jinja_top =
            Jinja::with_environments(config.jinja_env.clone(), data.clone(), loader, envs);
        options.secrets.add(crate::salt::secrets::secret_values(
            &data.pillar,
            &config.secret_pillar,
        ));
        Session {
            config,
            options,
            version,
            fs,
            data,
            pillar_diagnostics,
            jinja_sls,
            jinja_top,
            share,
        }
    }

    /// The Jinja of file templates (`file.managed`'s `template: jinja`):
    /// `jinja_sls_env`'s settings when the template's context names an
    /// `sls`, else `jinja_env`'s, as Salt chooses.
    pub fn file_jinja(&self, sls: bool) -> &Jinja {
        if sls {
            &self.jinja_sls
        } else {
            &self.jinja_top
        }
    }

    fn sls_env(&self) -> RenderEnv<'_> {
        RenderEnv {
            jinja: &self.jinja_sls,
            default_pipe: &self.config.renderer,
            spans: false,
        }
    }

    /// Read, render and merge the top files, then match this minion:
    /// saltenv → SLS names/globs in Salt's order. `verify` adds Salt's
    /// `verify_tops` errors (as `show_highstate` does).
    pub fn matches(&self, verify: bool) -> Result<TopMatches, Diagnostics> {
        if let Some(d) = crate::salt::pillar::failure(&self.data.pillar) {
            return Err(d.into());
        }
        if let Some(list) = &self.options.sls {
            let saltenv = self.config.saltenv.clone().unwrap_or_else(|| "base".into());
            let mut m = TopMatches::new();
            m.insert(saltenv, list.clone());
            return Ok(m);
        }
        let opts = TopOptions::from_config(&self.config);
        let avail: Vec<String> = self.fs.envs().map(str::to_string).collect();
        let mut loader = TopFiles {
            session: self,
            env: RenderEnv {
                jinja: &self.jinja_top,
                default_pipe: &self.config.renderer,
                spans: false,
            },
        };
        let (merged, diags) = top::get_top(&opts, &avail, &mut loader);
        let mut errors: Vec<Diagnostic> = diags.into_iter().filter(Diagnostic::is_error).collect();
        if !errors.is_empty() {
            for d in &mut errors {
                d.notes.push(
                    "Salt only logs a broken top file and compiles nothing; lowstate fails instead"
                        .into(),
                );
            }
            return Err(errors.into());
        }
        if verify {
            errors.extend(top::verify_tops(&merged));
        }
        let minion = Minion::new(&self.config, &self.data.pillar);
        let known = top::known_envs(&opts, &avail);
        let (matches, diags) = top::top_matches(&merged, &minion, &opts, &known);
        errors.extend(diags.into_iter().filter(Diagnostic::is_error));
        if !errors.is_empty() {
            return Err(errors.into());
        }
        if matches.values().all(Vec::is_empty) {
            return Err(Diagnostic::new(codes::NO_TOP_MATCH, top::NO_TOP_MATCH)
                .or_primary(self.top_label(""))
                .with_note(self.why_nothing_matches())
                .into());
        }
        Ok(matches)
    }

    /// One SLS file's render, as this compile's walk would take it from the
    /// render cache (rendered now if the cache has none).
    pub fn sls_render(&self, saltenv: &str, sls: &str) -> Arc<SlsRender> {
        RenderCache::new(&self.fs, self.sls_env(), self.config.state_auto_order)
            .with_share(self.share.as_deref().map(|s| (&s.sls, s.verify)))
            .get(saltenv, sls)
    }

    /// The high data (`state.show_highstate`), with render/merge errors.
    pub fn highstate(&self) -> Result<Highstate, Diagnostics> {
        self.highstate_with(true)
    }

    fn highstate_with(&self, verify_tops: bool) -> Result<Highstate, Diagnostics> {
        let matches = self.matches(verify_tops)?;
        let opts = TopOptions::from_config(&self.config);
        let avail: Vec<String> = self.fs.envs().map(str::to_string).collect();
        let known = top::known_envs(&opts, &avail);
        let steps =
            top::plan_highstate(&matches, &known, &mut |env| self.fs.list_sls(env).to_vec());
        let same = |dep: Dep<'_>| self.share.as_ref().is_some_and(|s| s.same_in_twin(dep));
        let twin = self
            .share
            .as_ref()
            .and_then(|s| s.twin.as_ref())
            .map(|t| (&t.share.sls, &same as &(dyn Fn(Dep) -> bool + Sync)));
        let cache = RenderCache::new(&self.fs, self.sls_env(), self.config.state_auto_order)
            .with_share(self.share.as_deref().map(|s| (&s.sls, s.verify)))
            .with_twin(twin);
        let top_line = |needle: &str| self.top_label(needle);
        let hs = Builder::new(&self.fs, &cache)
            .for_version(self.version)
            .with_top_lines(&top_line)
            .render_highstate(&matches, steps);
        self.options
            .secrets
            .add(crate::salt::secrets::no_log_values_high(&hs.high));
        self.check_states(hs.high.len(), || {
            hs.high
                .values()
                .filter_map(|body| body.as_map()?.get("__sls__"))
        })?;
        Ok(hs)
    }

    /// The `states` limit: `count` states (IDs or chunks) is too many. The
    /// error names the SLS that contributed most (from `sls_of`, one
    /// `__sls__` per state).
    fn check_states<'v, I: Iterator<Item = &'v Value>>(
        &self,
        count: usize,
        sls_of: impl FnOnce() -> I,
    ) -> Result<(), Diagnostics> {
        let limit = self.options.limits.states;
        if count <= limit {
            return Ok(());
        }
        let mut by_sls: indexmap::IndexMap<String, usize> = indexmap::IndexMap::new();
        for sls in sls_of() {
            *by_sls.entry(sls.py_str()).or_default() += 1;
        }
        let top = by_sls.iter().max_by_key(|(_, n)| **n);
        let mut d = Diagnostic::new(
            codes::TOO_MANY_STATES,
            format!("the compile makes more than {limit} states (the `states` limit; raise it with `--limit states=N`)"),
        );
        if let Some((sls, n)) = top {
            d = d.with_note(format!("SLS '{sls}' declares {n} of them"));
        }
        Err(d.into())
    }

    /// The lowstate (`state.show_lowstate`): ordered chunks, or errors.
    pub fn lowstate(&self) -> Result<Vec<Map>, Diagnostics> {
        self.located_lowstate().map(|p| p.lowstate.into_list())
    }

    /// The lowstate with its requisite graph and the source map, as
    /// `show_lowstate` computes it (render errors are reported together
    /// with extend, verify and requisite_in errors, as Salt does).
    pub fn located_lowstate(&self) -> Result<LocatedLowstate, Diagnostics> {
        self.located_from(self.highstate_with(false)?)
    }

    /// [`Session::located_lowstate`], noting in `reached` the `env:sls` of
    /// every file the high data holds states of once it is rendered (what
    /// an editor needs of a compile that fails later, without rendering
    /// it again), and showing `see` the high data before it is compiled.
    pub fn located_lowstate_noting(
        &self,
        reached: &mut BTreeSet<String>,
        see: &mut dyn FnMut(&Highstate),
    ) -> Result<LocatedLowstate, Diagnostics> {
        let hs = self.highstate_with(false)?;
        see(&hs);
        let mut last: Option<(&Value, Option<&Value>)> = None;
        for body in hs.high.values().filter_map(Value::as_map) {
            let Some(sls) = body.get("__sls__") else {
                continue;
            };
            let here = (sls, body.get("__env__"));
            if last != Some(here) {
                last = Some(here);
                let env = here.1.map_or("base".into(), Value::py_str);
                reached.insert(format!("{env}:{}", sls.py_str()));
            }
        }
        self.located_from(hs)
    }

    /// The plan for an already built highstate.
    fn located_from(&self, hs: Highstate) -> Result<LocatedLowstate, Diagnostics> {
        let opts = crate::salt::low::LowOptions::from_config(&self.config, self.version);
        let mut errors = hs.errors;
        let low = match prepare_high(hs.high, &opts, &hs.sources) {
            // Salt returns render errors with these, before compiling chunks.
            Ok(_) if !errors.is_empty() => return Err(errors.into()),
            Ok(high) => compile_and_order(high, &opts, &hs.sources),
            Err(e) => Err(e),
        };
        if let Ok(low) = &low {
            self.check_states(low.chunks.len(), || {
                low.chunks.iter().filter_map(|c| c.get("__sls__"))
            })?;
        }
        match low {
            Ok(lowstate) if errors.is_empty() => Ok(LocatedLowstate {
                lowstate,
                sources: hs.sources,
            }),
            Ok(_) => Err(errors.into()),
            Err(e) => {
                errors.extend(e);
                Err(errors.into())
            }
        }
    }

    /// The requisite graph of the plan (for `simulate`, `order`, `graph`).
    pub fn graph(&self) -> Result<(ChunkGraph, crate::salt::high::SourceMap), Diagnostics> {
        Self::graph_of(self.located_lowstate()?)
    }

    /// The requisite graph of the chunks as compiled, in compile order,
    /// without ordering them: what can be drawn of a tree whose ordering
    /// fails on a requisite cycle (`lowstate graph` shows the cycle).
    /// Errors before the chunks exist, or a requisite that does not
    /// resolve, are returned as they are.
    pub fn unordered_graph(
        &self,
    ) -> Result<(ChunkGraph, crate::salt::high::SourceMap), Diagnostics> {
        let hs = self.highstate_with(false)?;
        if !hs.errors.is_empty() {
            return Err(hs.errors.into());
        }
        let opts = crate::salt::low::LowOptions::from_config(&self.config, self.version);
        let high = prepare_high(hs.high, &opts, &hs.sources)?;
        let list: Vec<Value> = crate::salt::low::compile_high_data_owned(high)
            .into_iter()
            .map(Value::Map)
            .collect();
        let g = ChunkGraph::from_lowstate(&list)
            .map_err(|e| Diagnostics::from(Diagnostic::new(codes::GRAPH, e.to_string())))?;
        Ok((g, hs.sources))
    }

    fn graph_of(
        plan: LocatedLowstate,
    ) -> Result<(ChunkGraph, crate::salt::high::SourceMap), Diagnostics> {
        let g = ChunkGraph::from_ordered(&plan.lowstate)
            .map_err(|e| Diagnostics::from(Diagnostic::new(codes::GRAPH, e.to_string())))?;
        Ok((g, plan.sources))
    }

    /// Simulate `state.apply`: like Salt's `call_high`, render errors stop
    /// the run before extend/verify; then the plan runs.
    pub fn simulate(&self, assume: &Assumptions) -> Result<RunResult, Diagnostics> {
        let hs = self.highstate_with(false)?;
        if !hs.errors.is_empty() {
            return Err(hs.errors.into());
        }
        // The tree is rendered once: the plan is built from this highstate.
        let (g, _) = Self::graph_of(self.located_from(hs)?)?;
        let opts = SimOptions {
            failhard: self.config.failhard,
            mod_watch: Some(
                crate::salt::low::LowOptions::from_config(&self.config, self.version).mod_watch,
            ),
        };
        Ok(simulate_with(&g, assume, &opts))
    }
}

/// The settings of a compile apart from the minion's own data (its id and
/// grains, and the pillar override): everything a render depends on that
/// the read log does not record. Minions with equal settings render every
/// file the same way given the same reads.
fn fleet_settings(config: &Config, options: &Options) -> String {
    // Renders record what they read of `opts`, but Jinja's own setup reads
    // it too (`allow_undefined`): every option counts but the minion's own
    // and those at Salt's default (the same for every minion; leaving them
    // out keeps this key short).
    let mut opts = Map::new();
    if let Value::Map(m) = &config.opts {
        for (k, v) in m.iter() {
            let key = k.as_str().unwrap_or_default();
            if !matches!(key, "id" | "grains") && !crate::salt::config::is_default_opt(key, v) {
                opts.insert(k.clone(), v.clone());
            }
        }
    }
    let mut c = Config {
        opts: Value::Null,
        grains: Value::Null,
        grains_model: config.grains_model.settings_only(),
        diagnostics: Vec::new(),
        ..config.clone()
    };
    c.id.clear();
    c.opts = Value::Map(opts);
    format!(
        "{c:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
        options.sls,
        options.saltenv,
        options.pillarenv,
        options.version,
        options.mocks,
        options.ext_pillar_commands,
        options.limits,
        options.queries.strict
    )
}

/// `settings` with the config directory left out, so that two trees of
/// `fleet --diff` set up alike compare equal (the cache directory, which a
/// file template sees as `tplpath`, still counts as written).
fn portable_settings(settings: &str, config: &Config) -> String {
    let mut dirs = vec![config.dir.display().to_string()];
    if let Ok(abs) = std::path::absolute(&config.dir) {
        dirs.push(abs.display().to_string());
    }
    dirs.sort_by_key(|d| std::cmp::Reverse(d.len()));
    let mut out = settings.to_string();
    // As Debug quotes them: the directory itself and paths under it.
    for d in dirs.iter().filter(|d| !d.is_empty()) {
        out = out
            .replace(&format!("{d:?}"), "\"\u{0}tree\"")
            .replace(&format!("\"{}/", d.escape_debug()), "\"\u{0}tree/");
    }
    let opt = |k: &str| config.opts.get(k).map(Value::py_str);
    format!("{out}\n{:?}\n{:?}", opt("root_dir"), opt("cachedir"))
}

/// A compiled tree: the ordered lowstate (with its graph) and where every
/// state was written. (Not the core's drawable [`crate::plan::Plan`], which
/// [`ChunkGraph::to_plan`] makes from it.)
pub struct LocatedLowstate {
    /// The ordered lowstate (with its graph for 3008).
    pub lowstate: crate::salt::order::Lowstate,
    /// Where every state was written.
    pub sources: crate::salt::high::SourceMap,
}

impl Session {
    /// The text an SLS renders to before its data stage (Jinja output).
    pub fn render_text(&self, sls: &str) -> Result<String, Diagnostics> {
        let saltenv = self.config.saltenv.clone().unwrap_or_else(|| "base".into());
        let what = format!("{saltenv}:{sls}");
        let file = self.fs.find_sls(&saltenv, sls).ok_or_else(|| {
            Diagnostic::new(codes::MISSING_SLS,
                format!("Specified SLS {sls} in saltenv {saltenv} is not available on the salt master or through a configured fileserver"),
            )
        })?;
        let text = std::fs::read_to_string(&file.path)
            .map_err(|e| Diagnostic::new(codes::IO, format!("{}: {e}", file.path.display())))?;
        let ctx = SlsContext {
            saltenv: saltenv.clone(),
            sls: sls.to_string(),
            tplfile: file.rel.clone(),
            tplpath: crate::salt::config::cached_file_path(&self.data.opts, &saltenv, &file.rel),
            extra_vars: Vec::new(),
        };
        let rendered = match crate::salt::render::Pipe::for_text(&text, &self.config.renderer) {
            crate::salt::render::Pipe::Stages(stages)
                if stages.contains(&crate::salt::render::Stage::Jinja) =>
            {
                self.jinja_sls.render(&text, &ctx).map_err(|e| {
                    let file = SourceFile::new(file.path.display().to_string(), text.clone());
                    let fail = |msg: &str| format!("Rendering SLS '{what}' failed: {msg}");
                    Diagnostics::from(crate::salt::render::jinja_diagnostic(
                        e, &file, &fail, &what,
                    ))
                })?
            }
            _ => text,
        };
        // The text shows the arguments of its `no_log` states: say which.
        if let Ok(Value::Map(high)) = crate::yaml::load_value(&rendered, crate::yaml::Dialect::Salt)
        {
            self.options
                .secrets
                .add(crate::salt::secrets::no_log_values_high(&high));
        }
        Ok(rendered)
    }
}

impl Session {
    /// What is really wrong when nothing matches (Salt says the same for
    /// all of these): no file_roots, a saltenv with none, no top file, or a
    /// top file with no target for this minion.
    fn why_nothing_matches(&self) -> String {
        let roots = &self.config.file_roots;
        if roots.values().all(Vec::is_empty) {
            return "no file_roots are configured (set file_roots in the minion config, or --file-root DIR)".into();
        }
        let envs: Vec<&str> = roots.keys().map(String::as_str).collect();
        if let Some(env) = &self.config.saltenv {
            if !roots.contains_key(env) {
                return format!(
                    "saltenv '{env}' has no file_roots (configured: {})",
                    envs.join(", ")
                );
            }
        }
        let top = self
            .config
            .state_top
            .strip_prefix("salt://")
            .unwrap_or(&self.config.state_top);
        if self
            .fs
            .envs()
            .all(|env| self.fs.find_file(env, top).is_none())
        {
            let dirs: Vec<String> = roots
                .iter()
                .map(|(env, ds)| {
                    let ds: Vec<String> = ds.iter().map(|d| d.display().to_string()).collect();
                    format!("{env}: {}", ds.join(", "))
                })
                .collect();
            return format!(
                "there is no top file ({top}) in the file_roots ({})",
                dirs.join("; ")
            );
        }
        format!(
            "no target in the top file matches minion id '{}'",
            self.config.id
        )
    }

    /// The first top file line containing `needle` (any env's top file).
    fn top_label(&self, needle: &str) -> Option<Label> {
        let cfg = &self.config.state_top;
        let rel = cfg.strip_prefix("salt://").unwrap_or(cfg);
        for env in self.fs.envs() {
            let Some(path) = self.fs.find_file(env, rel) else {
                continue;
            };
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let file = SourceFile::new(path.display().to_string(), text);
            let hit = file
                .text
                .lines()
                .position(|l| l.trim_end().ends_with(needle) || (needle.is_empty()));
            if let Some(i) = hit {
                return Some(Label::line(&file, i + 1, "named here"));
            }
        }
        None
    }
}

/// Renders top files for the top stage.
struct TopFiles<'s> {
    session: &'s Session,
    env: RenderEnv<'s>,
}

impl TopFiles<'_> {
    fn render(
        &self,
        env: &str,
        rel: &str,
        path: &std::path::Path,
    ) -> Result<Option<Value>, Diagnostic> {
        let text = self
            .session
            .fs
            .read_text(path)
            .map_err(|e| Diagnostic::new(codes::IO, format!("{}: {e}", path.display())))?;
        let file = SourceFile::new(path.display().to_string(), text);
        let ctx = SlsContext {
            saltenv: env.to_string(),
            sls: String::new(),
            tplfile: rel.to_string(),
            tplpath: crate::salt::config::cached_file_path(&self.env.jinja.data().opts, env, rel),
            extra_vars: Vec::new(),
        };
        render_file(&self.env, file, &ctx, &format!("{env}:top"))
            .map(|r| r.data.map(crate::yaml::Loaded::into_value))
            .map_err(|mut d| {
                d.code = codes::TOP_RENDER_ERROR;
                d
            })
    }

    /// [`TopFiles::render`], through the fleet's render cache when there
    /// is one.
    fn render_shared(
        &self,
        env: &str,
        rel: &str,
        path: &std::path::Path,
    ) -> Result<Option<Value>, Diagnostic> {
        let Some(share) = &self.session.share else {
            return self.render(env, rel, path);
        };
        let same = |dep: Dep<'_>| share.same_in_twin(dep);
        let relocate =
            |r: &Result<Option<Value>, Diagnostic>| r.as_ref().ok().map(|v| Ok(v.clone()));
        let twin = share.twin.as_ref().map(|t| Twin {
            share: &t.share.tops,
            same: &same,
            relocate: &relocate,
        });
        let r = crate::salt::share::cached_twin(
            &share.tops,
            twin.as_ref().map(|t| (t, Dep::File(env, rel))),
            share.verify,
            (env, rel),
            &self.session.data,
            &format!("{env}:{rel}"),
            Err,
            || self.render(env, rel, path),
        );
        Arc::try_unwrap(r).unwrap_or_else(|r| (*r).clone())
    }
}

impl TopLoader for TopFiles<'_> {
    fn render_top(&mut self, env: &str) -> Result<Option<Value>, Diagnostic> {
        let cfg = &self.session.config.state_top;
        let rel = cfg.strip_prefix("salt://").unwrap_or(cfg).to_string();
        match self.session.fs.find_file(env, &rel) {
            None => Ok(None),
            Some(path) => self.render_shared(env, &rel, &path),
        }
    }
    fn list_sls(&mut self, env: &str) -> Vec<String> {
        self.session.fs.list_sls(env).to_vec()
    }
    fn render_include(&mut self, env: &str, sls: &str) -> Result<Option<Value>, Diagnostic> {
        match self.session.fs.find_sls(env, sls) {
            None => Ok(None),
            Some(f) => self.render_shared(env, &f.rel, &f.path),
        }
    }
}

/// The whole high → low pipeline, as `state.show_lowstate` runs it:
/// reconcile_extend → verify_high → requisite_in → apply_exclude → compile →
/// order. Errors come back in Salt's order (extend, verify, requisite_in;
/// or else compile/order errors).
pub fn high_to_low(
    high: Map,
    opts: &LowOptions,
    sources: &SourceMap,
) -> Result<Vec<Map>, Vec<Diagnostic>> {
    high_to_lowstate(high, opts, sources).map(Lowstate::into_list)
}

/// Like [`high_to_low`] but keeps the requisite graph (3008) and the node
/// sequence, for execution simulation and drawing.
pub fn high_to_lowstate(
    high: Map,
    opts: &LowOptions,
    sources: &SourceMap,
) -> Result<Lowstate, Vec<Diagnostic>> {
    compile_and_order(prepare_high(high, opts, sources)?, opts, sources)
}

/// `compile_high_data` on prepared high data: the chunks, ordered.
fn compile_and_order(
    high: Map,
    opts: &LowOptions,
    sources: &SourceMap,
) -> Result<Lowstate, Vec<Diagnostic>> {
    let chunks = crate::salt::low::compile_high_data_owned(high);
    order_chunks(chunks, opts, sources)
}

/// The steps `compile_low_chunks` runs on the high data before it compiles
/// chunks: reconcile_extend, verify_high, requisite_in, apply_exclude. Any
/// error stops it there (with render errors too: then the chunks are never
/// compiled, so no requisite is looked up).
pub fn prepare_high(
    mut high: Map,
    opts: &LowOptions,
    sources: &SourceMap,
) -> Result<Map, Vec<Diagnostic>> {
    let mut errors = reconcile_extend(&mut high, sources);
    errors.extend(verify_high_for(&high, opts.version, sources));
    // Salt's show_lowstate runs requisite_in even after verify errors.
    errors.extend(requisite_in_for(
        &mut high,
        opts.version,
        &opts.disabled_requisites,
        sources,
    ));
    apply_exclude(&mut high);
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(high)
}
