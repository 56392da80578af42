//! The driver: wires config → fileserver → pillar → top → render → high →
//! low → order for one compile, and exposes each intermediate result
//! (matches, highstate, lowstate) to the subcommands.

use crate::config::{Config, SaltVersion};
use crate::diag::{Diagnostic, Diagnostics, Label, SourceFile};
use crate::fileserver::FileServer;
use crate::high::build::{Builder, Highstate, RenderCache};
use crate::render::jinja::{Jinja, RenderData, SlsContext, TemplateLoader};
use crate::render::{render_file, RenderEnv};
use crate::value::{Map, Value};
use indexmap::IndexMap;
use std::sync::Arc;

/// What to compile, beyond the minion config.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Compile exactly these SLS (as `state.sls` does) instead of the top file.
    pub sls: Option<Vec<String>>,
    /// Force one saltenv (`saltenv=`).
    pub saltenv: Option<String>,
    pub version: SaltVersion,
    /// `--pillar JSON`: merged over the compiled pillar, last.
    pub pillar_override: Option<Value>,
    /// `--mocks FILE` contents: replaces the config's `mocks:`.
    pub mocks: Option<Value>,
}

/// One compile's shared state: config, fileserver, minion data, Jinja.
pub struct Session {
    pub config: Config,
    pub options: Options,
    pub fs: Arc<FileServer>,
    pub data: Arc<RenderData>,
    /// Warnings and errors met while compiling the pillar.
    pub pillar_diagnostics: Vec<Diagnostic>,
    jinja_sls: Jinja,
    jinja_top: Jinja,
}

impl Session {
    pub fn new(mut config: Config, options: Options) -> Session {
        if let Some(env) = &options.saltenv {
            config.saltenv = Some(env.clone());
        }
        let fs = Arc::new(FileServer::new(&config.file_roots));
        let mocks = options.mocks.clone().unwrap_or_else(|| config.mocks.clone());
        let (pillar, pillar_diagnostics) =
            crate::pillar::compile(&config, mocks.clone(), options.pillar_override.as_ref());
        let data = Arc::new(RenderData {
            grains: config.grains.clone(),
            pillar,
            opts: config.opts.clone(),
            mocks,
        });
        let loader: Arc<dyn TemplateLoader> = fs.clone();
        let jinja_sls = Jinja::new(config.jinja_sls_env.clone(), data.clone(), loader.clone());
        let jinja_top = Jinja::new(config.jinja_env.clone(), data.clone(), loader);
        Session {
            config,
            options,
            fs,
            data,
            pillar_diagnostics,
            jinja_sls,
            jinja_top,
        }
    }

    fn sls_env(&self) -> RenderEnv<'_> {
        RenderEnv {
            jinja: &self.jinja_sls,
            default_pipe: &self.config.renderer,
        }
    }

    /// Read and render the top files; merge them; match this minion.
    /// `Ok(matches)` maps saltenv → SLS names/globs in Salt's order.
    pub fn matches(&self) -> Result<IndexMap<String, Vec<String>>, Diagnostics> {
        let saltenv = self.config.saltenv.clone().unwrap_or_else(|| "base".into());
        if let Some(list) = &self.options.sls {
            let mut m = IndexMap::new();
            m.insert(saltenv, list.clone());
            return Ok(m);
        }
        let avail: Vec<String> = self.fs.envs().map(str::to_string).collect();
        let top_path = self
            .config
            .state_top
            .strip_prefix("salt://")
            .unwrap_or(&self.config.state_top)
            .to_string();
        let top_env = RenderEnv {
            jinja: &self.jinja_top,
            default_pipe: &self.config.renderer,
        };
        let mut tops: IndexMap<String, Vec<Value>> = IndexMap::new();
        let mut errors = Vec::new();
        for env in crate::top::envs_to_read(&self.config, &avail) {
            let rendered = match self.fs.find_file(&env, &top_path) {
                None => Value::Map(Map::new()),
                Some(path) => {
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    let file = SourceFile::new(path.display().to_string(), text);
                    let ctx = SlsContext {
                        saltenv: env.clone(),
                        sls: String::new(),
                        tplfile: top_path.clone(),
                        tplpath: path.display().to_string(),
                    };
                    match render_file(&top_env, file, &ctx, &format!("{env}:top")) {
                        Ok(r) => r.data.map(|n| n.to_value()).unwrap_or(Value::Map(Map::new())),
                        Err(mut d) => {
                            d.code = "top-render-error";
                            d.message = format!(
                                "The top file of saltenv '{env}' failed to render; Salt logs this and compiles nothing: {}",
                                d.message
                            );
                            errors.push(d);
                            Value::Map(Map::new())
                        }
                    }
                }
            };
            tops.entry(env).or_default().push(rendered);
        }
        // Top files may include further top files.
        self.render_top_includes(&mut tops, &top_env, &mut errors);
        if !errors.is_empty() {
            return Err(errors.into());
        }
        let (merged, diags) = crate::top::merge_tops(&tops, &self.config);
        errors.extend(diags.into_iter().filter(Diagnostic::is_error));
        if !errors.is_empty() {
            return Err(errors.into());
        }
        let minion = crate::matcher::Minion {
            id: &self.config.id,
            grains: &self.data.grains,
            pillar: &self.data.pillar,
            opts: &self.config.opts,
        };
        let matches = crate::top::top_matches(&merged, &minion, &avail);
        if matches.values().all(Vec::is_empty) {
            return Err(Diagnostic::error(
                "no-top-match",
                "No Top file or master_tops data matches found. Please see master log for details.",
            )
            .with_note(format!("minion id is '{}'", self.config.id))
            .into());
        }
        Ok(matches)
    }

    fn render_top_includes(
        &self,
        tops: &mut IndexMap<String, Vec<Value>>,
        env: &RenderEnv<'_>,
        errors: &mut Vec<Diagnostic>,
    ) {
        let mut pending: Vec<(String, String)> = Vec::new();
        for (saltenv, list) in tops.iter_mut() {
            for top in list.iter_mut() {
                if let Some(m) = top.as_map_mut() {
                    if let Some(Value::List(inc)) = m.shift_remove("include") {
                        for i in inc {
                            pending.push((saltenv.clone(), i.py_str()));
                        }
                    }
                }
            }
        }
        let mut done = std::collections::HashSet::new();
        while let Some((saltenv, pat)) = pending.pop() {
            for sls in crate::high::build::expand_glob(self.fs.list_sls(&saltenv), &pat) {
                if !done.insert((saltenv.clone(), sls.clone())) {
                    continue;
                }
                let Some(file) = self.fs.find_sls(&saltenv, &sls) else { continue };
                let text = std::fs::read_to_string(&file.path).unwrap_or_default();
                let src = SourceFile::new(file.path.display().to_string(), text);
                let ctx = SlsContext {
                    saltenv: saltenv.clone(),
                    sls: String::new(),
                    tplfile: file.rel.clone(),
                    tplpath: file.path.display().to_string(),
                };
                match render_file(env, src, &ctx, &format!("{saltenv}:{sls}")) {
                    Ok(r) => {
                        let mut v = r.data.map(|n| n.to_value()).unwrap_or_default();
                        if let Some(Value::List(inc)) =
                            v.as_map_mut().and_then(|m| m.shift_remove("include"))
                        {
                            for i in inc {
                                pending.push((saltenv.clone(), i.py_str()));
                            }
                        }
                        tops.entry(saltenv.clone()).or_default().push(v);
                    }
                    Err(d) => errors.push(d),
                }
            }
        }
    }

    /// The high data (`state.show_highstate`), with render/merge errors.
    pub fn highstate(&self) -> Result<Highstate, Diagnostics> {
        let matches = self.matches()?;
        let cache = RenderCache::new(&self.fs, self.sls_env());
        let hs = Builder::new(&self.fs, &cache, self.config.state_auto_order)
            .render_highstate(&matches);
        Ok(hs)
    }

    /// The lowstate (`state.show_lowstate`): ordered chunks, or errors.
    pub fn lowstate(&self) -> Result<Vec<Map>, Diagnostics> {
        let hs = self.highstate()?;
        if !hs.errors.is_empty() {
            return Err(hs.errors.into());
        }
        let opts = crate::low::LowOptions::from_config(&self.config, self.options.version);
        crate::low::high_to_low(hs.high, &opts, &hs.sources).map_err(Diagnostics::from)
    }
}

impl Session {
    /// The text an SLS renders to before its data stage (Jinja output).
    pub fn render_text(&self, sls: &str) -> Result<String, Diagnostics> {
        let saltenv = self.config.saltenv.clone().unwrap_or_else(|| "base".into());
        let what = format!("{saltenv}:{sls}");
        let file = self.fs.find_sls(&saltenv, sls).ok_or_else(|| {
            Diagnostic::error(
                "missing-sls",
                format!("Specified SLS {sls} in saltenv {saltenv} is not available on the salt master or through a configured fileserver"),
            )
        })?;
        let text = std::fs::read_to_string(&file.path)
            .map_err(|e| Diagnostic::error("io", format!("{}: {e}", file.path.display())))?;
        let ctx = SlsContext {
            saltenv: saltenv.clone(),
            sls: sls.to_string(),
            tplfile: file.rel.clone(),
            tplpath: file.path.display().to_string(),
        };
        match crate::render::Pipe::for_text(&text, &self.config.renderer) {
            crate::render::Pipe::Stages(stages) if stages.contains(&crate::render::Stage::Jinja) => {
                self.jinja_sls.render(&text, &ctx).map_err(|e| {
                    let file = SourceFile::new(file.path.display().to_string(), text.clone());
                    let mut d = Diagnostic::error("jinja-error", format!("Rendering SLS '{what}' failed: {}", e.message)).with_sls(what.clone());
                    if let Some(l) = e.line {
                        d = d.with_primary(Label::line(&file, l, "here"));
                    }
                    d.into()
                })
            }
            _ => Ok(text),
        }
    }
}

/// Label for a config problem at the top of the minion file.
pub fn config_label(file: &Arc<SourceFile>) -> Label {
    Label::line(file, 1, "in this config")
}
