//! The minion config: reads `DIR/minion` as a Salt user writes it, resolves
//! relative roots against DIR, and hands typed settings (plus the whole
//! `opts` dict templates see) to every later stage.

use crate::diag::codes;
use crate::diag::{Diagnostic, Label, SourceFile};
use crate::provenance::{Layer, LayerWrites};
use crate::text::normal_path;
use crate::value::{Map, Value};
use indexmap::IndexMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Which Salt release's behaviour to reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum SaltVersion {
    /// Salt 3006 (LTS).
    V3006,
    /// Salt 3007.
    V3007,
    #[default]
    /// Salt 3008 (the reference, the default).
    V3008,
}

impl SaltVersion {
    /// The release named by `3006`, `3007` or `3008` (a `.x` suffix is allowed).
    pub fn parse(s: &str) -> Option<SaltVersion> {
        let major = s.split('.').next().unwrap_or(s);
        match major {
            "3006" => Some(SaltVersion::V3006),
            "3007" => Some(SaltVersion::V3007),
            "3008" => Some(SaltVersion::V3008),
            _ => None,
        }
    }
    /// The release's number (`3008`), as the `lowstate_salt_version` key takes it.
    pub fn number(self) -> i64 {
        match self {
            SaltVersion::V3006 => 3006,
            SaltVersion::V3007 => 3007,
            SaltVersion::V3008 => 3008,
        }
    }
    /// 3008 orders through the requisite graph; older releases sort.
    pub fn uses_graph(self) -> bool {
        self >= SaltVersion::V3008
    }
}

/// Jinja environment options (`jinja_env` / `jinja_sls_env` and the legacy
/// `jinja_trim_blocks` / `jinja_lstrip_blocks`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JinjaOptions {
    /// `trim_blocks`: drop the first newline after a block tag.
    pub trim_blocks: bool,
    /// `lstrip_blocks`: strip spaces before a block tag.
    pub lstrip_blocks: bool,
    /// Every other key given, as written (`keep_trailing_newline`, ...).
    pub extra: Map,
}

/// Typed minion settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// The config directory; relative paths resolve against it.
    pub dir: PathBuf,
    /// The minion ID (`id`).
    pub id: String,
    /// The minion's grains: Salt's core grains (its own, the OS profile's,
    /// host facts) under the `grains` file and the config's `grains:`.
    pub grains: Value,
    /// How the grains were merged (layers, profile), for `lowstate grains`.
    pub grains_model: crate::salt::grains::Grains,
    /// `grains_blacklist`: globs (or regexes) of computed grains to drop.
    pub grains_blacklist: Vec<String>,
    /// `lowstate_os` (`--os`): the OS profile, when named.
    pub os: Option<String>,
    /// Warnings about the config itself (`assumed-os-profile`), for the
    /// caller to print once.
    pub diagnostics: Vec<Diagnostic>,
    /// saltenv → roots, in config order.
    pub file_roots: IndexMap<String, Vec<PathBuf>>,
    /// `pillar_roots`: saltenv → directories.
    pub pillar_roots: IndexMap<String, Vec<PathBuf>>,
    /// `state_top`: the top file's name.
    pub state_top: String,
    /// `top_file_merging_strategy` (`merge`, `same`, `merge_all`).
    pub top_file_merging_strategy: String,
    /// `env_order`: the order saltenvs are merged in.
    pub env_order: Vec<String>,
    /// `default_top`: the saltenv whose top file `same` falls back to.
    pub default_top: String,
    /// `state_top_saltenv`: read only this saltenv's top file.
    pub state_top_saltenv: Option<String>,
    /// `state_auto_order`: number states in file order.
    pub state_auto_order: bool,
    /// `renderer`: the default renderer pipe (`jinja|yaml`).
    pub renderer: String,
    /// Jinja options for top files and pillar (`jinja_env`).
    pub jinja_env: JinjaOptions,
    /// Jinja options for SLS files (`jinja_sls_env`).
    pub jinja_sls_env: JinjaOptions,
    /// `saltenv`: compile only this saltenv.
    pub saltenv: Option<String>,
    /// `pillarenv`: compile only this pillar env.
    pub pillarenv: Option<String>,
    /// `failhard`: stop the run at the first failure.
    pub failhard: bool,
    /// `fileserver_followsymlinks` (default true): follow symlinks in the
    /// roots — only into the checkout, a root or `lowstate_symlink_roots`.
    pub follow_symlinks: bool,
    /// `lowstate_symlink_roots`: more directories symlinks may lead into.
    pub symlink_roots: Vec<PathBuf>,
    /// `pillar_source_merging_strategy`.
    pub pillar_source_merging_strategy: String,
    /// `pillar_merge_lists`: append lists when merging pillar.
    pub pillar_merge_lists: bool,
    /// `pillar_includes_override_sls`: an included pillar SLS overrides the
    /// one that includes it (default: the including SLS wins).
    pub pillar_includes_override_sls: bool,
    /// Answers for execution functions that need a live minion.
    pub mocks: Value,
    /// Extra state modules that have `mod_watch` (`mod_watch:` option).
    pub mod_watch: Vec<String>,
    /// `lowstate_check_allow`: diagnostic codes `lowstate check` does not
    /// report for this tree.
    pub check_allow: Vec<String>,
    /// `lowstate_secret_pillar`: globs over colon-joined pillar paths
    /// (`*:password`, `secrets:*`) whose values no human output prints.
    pub secret_pillar: Vec<String>,
    /// `lowstate_strict` (`--strict`): queries about the minion's own state
    /// need a mock instead of a fresh minion's answer.
    pub strict: bool,
    /// `lowstate_salt_version` (`--salt-version`): the Salt release whose
    /// behaviour to reproduce (3006, 3007, 3008), when set.
    pub salt_version: Option<SaltVersion>,
    /// `lowstate_ext_pillar_commands` (`--run-ext-pillar`): run the
    /// `ext_pillar` entries that run a command (`cmd_json`, `cmd_yaml`,
    /// `cmd_yamlex`); off by default.
    pub ext_pillar_commands: bool,
    /// `pillar_mask_output` (default true): `pillar` masks values as
    /// Salt 3008's `pillar.items` does.
    pub pillar_mask_output: bool,
    /// The whole config with Salt's defaults filled in: what `opts` shows.
    pub opts: Value,
    /// Keys we read but do not act on, for `-v`.
    pub ignored_keys: Vec<String>,
    /// The config files as they were read and merged (`DIR/minion`, then
    /// each `minion.d/*.conf`): each layer's top-level keys with their
    /// places, recorded while reading, for `lowstate config --explain`.
    pub sources: Vec<(crate::provenance::Layer, crate::provenance::LayerWrites)>,
}

/// Keys that change what we compute; everything else is only visible via `opts`.
const KNOWN_KEYS: &[&str] = &[
    "id",
    "fileserver_followsymlinks",
    "lowstate_symlink_roots",
    "grains",
    "file_roots",
    "pillar_roots",
    "state_top",
    "top_file_merging_strategy",
    "env_order",
    "default_top",
    "state_top_saltenv",
    "state_auto_order",
    "renderer",
    "jinja_env",
    "jinja_sls_env",
    "jinja_trim_blocks",
    "jinja_lstrip_blocks",
    "saltenv",
    "pillarenv",
    "failhard",
    "pillar_source_merging_strategy",
    "pillar_merge_lists",
    "pillar_includes_override_sls",
    "mocks",
    "mod_watch",
    "lowstate_check_allow",
    "lowstate_secret_pillar",
    "pillar_mask_output",
    "lowstate_ext_pillar_commands",
    "lowstate_strict",
    "lowstate_salt_version",
    "ext_pillar",
    "ext_pillar_first",
    "pillar",
    "file_client",
    "lowstate_os",
    "grains_blacklist",
];

impl Config {
    /// The grains this config's minion has with the configured grains
    /// given as `configured` layers (`(kind, origin, mapping)`, later ones
    /// winning key by key) instead of the config's one `grains:` layer.
    pub fn grains_with(
        &self,
        configured: Vec<(String, String, Map)>,
    ) -> Result<crate::salt::grains::Grains, Diagnostic> {
        let master = self
            .opts
            .get("master")
            .map(Value::py_str)
            .unwrap_or_else(|| "salt".into());
        crate::salt::grains::compute(&crate::salt::grains::GrainInputs {
            id: &self.id,
            version: self.salt_version.unwrap_or_default().number(),
            master: &master,
            os: self.os.as_deref(),
            blacklist: &self.grains_blacklist,
            grains_file: grains_file(&self.dir)?,
            configured,
        })
    }

    /// Merge the grains again from the same configured layers (after a
    /// setting they depend on changed: `--salt-version`).
    pub fn recompute_grains(&mut self) {
        if let Ok(model) = self.grains_with(self.grains_model.configured_layers().to_vec()) {
            self.grains = Value::Map(model.value.clone());
            if let Value::Map(opts) = &mut self.opts {
                opts.insert("grains".into(), self.grains.clone());
            }
            self.grains_model = model;
        }
    }

    /// How the fileservers treat symlinks: follow them (unless
    /// `fileserver_followsymlinks` is off) into the checkout that holds the
    /// config, any file or pillar root, or `lowstate_symlink_roots`.
    pub fn link_policy(&self) -> crate::salt::fileserver::LinkPolicy {
        let mut allowed = vec![self.dir.clone()];
        allowed.extend(self.symlink_roots.iter().cloned());
        allowed.extend(self.file_roots.values().flatten().cloned());
        allowed.extend(self.pillar_roots.values().flatten().cloned());
        crate::salt::fileserver::LinkPolicy {
            follow: self.follow_symlinks,
            allowed,
        }
    }

    /// Read `dir/minion`. A missing file is a config error.
    pub fn load(dir: &Path) -> Result<Config, Diagnostic> {
        Config::load_with(dir, &Map::new())
    }

    /// Load `dir/minion`, with `overrides` (top-level keys, as the CLI's
    /// `--id`, `--grains`, `--file-root`, ... set them) replacing the
    /// file's keys before anything is typed.
    pub fn load_with(dir: &Path, overrides: &Map) -> Result<Config, Diagnostic> {
        let (mut raw, sources) = Config::read_raw_traced(dir)?;
        for (k, v) in overrides {
            raw.insert(k.clone(), v.clone());
        }
        let mut config = Config::from_raw(dir, raw)?;
        config.sources = sources;
        Ok(config)
    }

    /// Parse a minion config from text; `dir` anchors relative roots.
    pub fn from_text(dir: &Path, file: &Arc<SourceFile>) -> Result<Config, Diagnostic> {
        Config::from_text_with(dir, file, &Map::new())
    }

    /// [`Config::from_text`] with top-level keys replaced by `overrides`.
    pub fn from_text_with(
        dir: &Path,
        file: &Arc<SourceFile>,
        overrides: &Map,
    ) -> Result<Config, Diagnostic> {
        let (mut raw, sources) = Config::raw_from_text(dir, file)?;
        for (k, v) in overrides {
            raw.insert(k.clone(), v.clone());
        }
        let mut config = Config::from_raw(dir, raw)?;
        config.sources = sources;
        Ok(config)
    }

    /// The settings of `dir/minion` as read, before anything is typed:
    /// the file with `minion.d/*.conf` merged over it. Many configs that
    /// differ only in a few keys (a fleet's minions: `id`, `grains`) are
    /// [`Config::from_raw`] of copies of one read.
    pub fn read_raw(dir: &Path) -> Result<Map, Diagnostic> {
        Config::read_raw_traced(dir).map(|(raw, _)| raw)
    }

    /// [`Config::read_raw`] with each file's layer as it was merged.
    fn read_raw_traced(dir: &Path) -> Result<(Map, Vec<(Layer, LayerWrites)>), Diagnostic> {
        if dir.is_file() {
            return Err(Diagnostic::new(
                codes::CONFIG,
                format!(
                    "{} is a file: -c takes the config directory, the one that holds `minion`",
                    dir.display()
                ),
            )
            .with_note(
                "pass the directory (`-c DIR`), or name the file `minion` and pass its path",
            ));
        }
        let path = dir.join("minion");
        let (name, text) = match std::fs::read_to_string(&path) {
            Ok(text) => (path.display().to_string(), text),
            Err(e) => match implied_minion(dir) {
                Some(text) if e.kind() == std::io::ErrorKind::NotFound => {
                    (format!("{} (implied: there is none)", path.display()), text)
                }
                _ => {
                    return Err(Diagnostic::new(
                        codes::CONFIG,
                        format!(
                            "cannot read minion config {}: {}",
                            path.display(),
                            crate::text::io_reason(&e)
                        ),
                    ))
                }
            },
        };
        let file = SourceFile::new(name, text);
        Config::raw_from_text(dir, &file)
    }

    fn raw_from_text(
        dir: &Path,
        file: &Arc<SourceFile>,
    ) -> Result<(Map, Vec<(Layer, LayerWrites)>), Diagnostic> {
        let (raw, writes) = parse_mapping(file).map_err(|e| {
            Diagnostic::new(
                codes::CONFIG,
                format!("invalid minion config: {}", e.message),
            )
            .with_primary(Label::new(file, e.span.clone(), "here"))
        })?;
        let mut raw = match raw {
            Value::Map(m) => m,
            Value::Null => Map::new(),
            other => {
                return Err(Diagnostic::new(
                    codes::CONFIG,
                    format!(
                        "minion config must be a mapping, not {}",
                        other.py_type_name()
                    ),
                ))
            }
        };
        let mut sources = vec![(
            Layer {
                kind: "config".into(),
                origin: file.name.clone(),
                rule: "replace".into(),
            },
            writes,
        )];
        // `minion.d/*.conf` (Salt's `default_include`), sorted by name, each
        // merged over what came before (recursively, lists appended).
        for (file, conf, writes) in include_files_traced(dir)? {
            crate::salt::dictupdate::update_map(&mut raw, &conf, true, true);
            sources.push((
                Layer {
                    kind: "config".into(),
                    origin: file.name.clone(),
                    rule: "recursive update, lists appended (default_include)".into(),
                },
                writes,
            ));
        }
        Ok((raw, sources))
    }

    /// The config of settings `raw` (as [`Config::read_raw`] gives them,
    /// with any keys replaced); `dir` anchors relative roots.
    pub fn from_raw(dir: &Path, raw: Map) -> Result<Config, Diagnostic> {
        let bad = |key: &str, what: &str| {
            Diagnostic::new(
                codes::CONFIG,
                format!("minion config: `{key}` must be {what}"),
            )
        };
        let get = |k: &str| raw.get(k).filter(|v| !v.is_null());
        let string = |k: &str, default: &str| -> Result<String, Diagnostic> {
            match get(k) {
                None => Ok(default.to_string()),
                Some(Value::Str(s)) => Ok(s.to_string()),
                Some(v @ (Value::Int(_) | Value::Float(_) | Value::Bool(_))) => Ok(v.py_str()),
                Some(_) => Err(bad(k, "a string")),
            }
        };
        let opt_string = |k: &str| -> Result<Option<String>, Diagnostic> {
            get(k).map(|_| string(k, "")).transpose()
        };
        let boolean = |k: &str, default: bool| -> Result<bool, Diagnostic> {
            match get(k) {
                None => Ok(default),
                Some(Value::Bool(b)) => Ok(*b),
                Some(Value::Str(s)) if s.eq_ignore_ascii_case("true") => Ok(true),
                Some(Value::Str(s)) if s.eq_ignore_ascii_case("false") => Ok(false),
                Some(Value::Int(i)) => Ok(*i != 0),
                Some(_) => Err(bad(k, "a boolean")),
            }
        };
        let roots = |k: &str| -> Result<IndexMap<String, Vec<PathBuf>>, Diagnostic> {
            let mut out = IndexMap::new();
            match get(k) {
                None => {}
                Some(Value::Map(m)) => {
                    for (env, dirs) in m {
                        let env = env.py_str();
                        let list: Vec<PathBuf> = match dirs {
                            Value::List(l) => l
                                .iter()
                                .map(|d| normal_path(&dir.join(d.py_str())))
                                .collect(),
                            Value::Str(s) => vec![normal_path(&dir.join(s))],
                            Value::Null => vec![],
                            _ => {
                                return Err(bad(k, "a mapping of saltenv to a list of directories"))
                            }
                        };
                        out.insert(env, list);
                    }
                }
                Some(_) => return Err(bad(k, "a mapping of saltenv to a list of directories")),
            }
            Ok(out)
        };
        let jinja = |k: &str| -> Result<JinjaOptions, Diagnostic> {
            let mut o = JinjaOptions::default();
            match get(k) {
                None => {}
                Some(Value::Map(m)) => {
                    for (key, v) in m {
                        match key.as_str() {
                            Some("trim_blocks") => o.trim_blocks = v.truthy(),
                            Some("lstrip_blocks") => o.lstrip_blocks = v.truthy(),
                            _ => {
                                o.extra.insert(key.clone(), v.clone());
                            }
                        }
                    }
                }
                Some(_) => return Err(bad(k, "a mapping")),
            }
            Ok(o)
        };

        let id = string("id", "minion")?;
        let configured = match get("grains") {
            None => Map::new(),
            Some(Value::Map(m)) => m.clone(),
            Some(_) => return Err(bad("grains", "a mapping")),
        };
        let salt_version = match get("lowstate_salt_version") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                SaltVersion::parse(&v.py_str())
                    .ok_or_else(|| bad("lowstate_salt_version", "3006, 3007 or 3008"))?,
            ),
        };
        let blacklist: Vec<String> = match get("grains_blacklist") {
            None => Vec::new(),
            Some(Value::List(l)) => l.iter().map(Value::py_str).collect(),
            Some(Value::Str(s)) => vec![s.to_string()],
            Some(_) => return Err(bad("grains_blacklist", "a list of globs")),
        };
        let os = opt_string("lowstate_os")?;
        let master = string("master", "salt")?;
        let grains_model = crate::salt::grains::compute(&crate::salt::grains::GrainInputs {
            id: &id,
            version: salt_version.unwrap_or_default().number(),
            master: &master,
            os: os.as_deref(),
            blacklist: &blacklist,
            grains_file: grains_file(dir)?,
            configured: vec![(
                "config".into(),
                format!("{} `grains:`", dir.join("minion").display()),
                configured,
            )],
        })?;
        let grains = grains_model.value.clone();
        let diagnostics = grains_model.assumed_warning().into_iter().collect();

        let mut jinja_env = jinja("jinja_env")?;
        let mut jinja_sls_env = jinja("jinja_sls_env")?;
        // The legacy options apply to both environments unless a dict says otherwise.
        let legacy_trim = boolean("jinja_trim_blocks", false)?;
        let legacy_lstrip = boolean("jinja_lstrip_blocks", false)?;
        for (env, key) in [
            (&mut jinja_env, "jinja_env"),
            (&mut jinja_sls_env, "jinja_sls_env"),
        ] {
            let given = get(key).and_then(Value::as_map);
            if !given.is_some_and(|m| m.contains_key("trim_blocks")) {
                env.trim_blocks = legacy_trim;
            }
            if !given.is_some_and(|m| m.contains_key("lstrip_blocks")) {
                env.lstrip_blocks = legacy_lstrip;
            }
        }

        let env_order = match get("env_order") {
            None => vec![],
            Some(Value::List(l)) => l.iter().map(Value::py_str).collect(),
            Some(_) => return Err(bad("env_order", "a list")),
        };
        let mod_watch = match get("mod_watch") {
            None => vec![],
            Some(Value::List(l)) => l.iter().map(Value::py_str).collect(),
            Some(_) => return Err(bad("mod_watch", "a list of state module names")),
        };

        let mut opts = default_opts();
        for (k, v) in &raw {
            opts.insert(k.clone(), v.clone());
        }
        opts.insert("id".into(), id.as_str().into());
        opts.insert("grains".into(), Value::Map(grains.clone()));
        // Where Salt's `-c DIR` reads the config from.
        let config_dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        opts.insert(
            "conf_file".into(),
            config_dir.join("minion").display().to_string().into(),
        );
        opts.insert("config_dir".into(), config_dir.display().to_string().into());

        let ignored_keys = raw
            .keys()
            .map(Value::py_str)
            .filter(|k| !KNOWN_KEYS.contains(&k.as_str()))
            .collect();

        Ok(Config {
            dir: normal_path(dir),
            id,
            grains: Value::Map(grains),
            grains_model,
            diagnostics,
            grains_blacklist: blacklist,
            os,
            file_roots: roots("file_roots")?,
            pillar_roots: roots("pillar_roots")?,
            state_top: string("state_top", "top.sls")?,
            top_file_merging_strategy: string("top_file_merging_strategy", "merge")?,
            env_order,
            default_top: string("default_top", "base")?,
            state_top_saltenv: opt_string("state_top_saltenv")?,
            state_auto_order: boolean("state_auto_order", true)?,
            renderer: string("renderer", "jinja|yaml")?,
            jinja_env,
            jinja_sls_env,
            saltenv: opt_string("saltenv")?,
            pillarenv: opt_string("pillarenv")?,
            failhard: boolean("failhard", false)?,
            follow_symlinks: boolean("fileserver_followsymlinks", true)?,
            symlink_roots: match get("lowstate_symlink_roots") {
                Some(Value::List(l)) => l
                    .iter()
                    .map(|d| normal_path(&dir.join(d.py_str())))
                    .collect(),
                Some(Value::Str(d)) => vec![normal_path(&dir.join(d.as_str()))],
                _ => Vec::new(),
            },
            pillar_source_merging_strategy: string("pillar_source_merging_strategy", "smart")?,
            pillar_merge_lists: boolean("pillar_merge_lists", false)?,
            pillar_includes_override_sls: boolean("pillar_includes_override_sls", false)?,
            mocks: get("mocks").cloned().unwrap_or(Value::Map(Map::new())),
            mod_watch,
            secret_pillar: match get("lowstate_secret_pillar") {
                Some(Value::List(l)) => l.iter().map(Value::py_str).collect(),
                Some(Value::Str(s)) => vec![s.to_string()],
                _ => Vec::new(),
            },
            pillar_mask_output: boolean("pillar_mask_output", true)?,
            ext_pillar_commands: boolean("lowstate_ext_pillar_commands", false)?,
            strict: boolean("lowstate_strict", false)?,
            salt_version,
            check_allow: match get("lowstate_check_allow") {
                Some(Value::List(l)) => l.iter().map(Value::py_str).collect(),
                Some(Value::Str(s)) => s.split(',').map(|c| c.trim().to_string()).collect(),
                _ => Vec::new(),
            },
            opts: Value::Map(opts),
            ignored_keys,
            sources: Vec::new(),
        })
    }
}

/// The `minion` a directory without one implies when it holds a Salt state
/// tree (a states repository, a formula checkout): `file_roots` the first
/// of `DIR`, `DIR/salt`, `DIR/states` that has a `top.sls`, else `DIR`
/// when an SLS file lies in it or a directory below it (a formula's
/// `nginx/init.sls`); `pillar_roots` `DIR/pillar` when it has a `top.sls`,
/// else none (never the host's `/srv/pillar`). `None`: `DIR` has a
/// `minion`, or no state tree.
pub fn implied_minion(dir: &Path) -> Option<String> {
    if dir.join("minion").exists() {
        return None;
    }
    let has_sls = |d: &Path| {
        std::fs::read_dir(d)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "sls") && e.path().is_file())
    };
    // Relative, as roots in a minion are: they resolve against `dir`.
    let states = ["salt", "states"]
        .into_iter()
        .find(|sub| dir.join(sub).join("top.sls").is_file() && !dir.join("top.sls").is_file())
        .or_else(|| {
            let below = std::fs::read_dir(dir).into_iter().flatten().flatten();
            let mut dirs = below.map(|e| e.path()).filter(|p| {
                p.is_dir()
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            });
            let tree = dir.join("top.sls").is_file() || has_sls(dir) || dirs.any(|d| has_sls(&d));
            tree.then_some(".")
        })?;
    let pillar: Vec<&str> = Some("pillar")
        .filter(|p| dir.join(p).join("top.sls").is_file())
        .into_iter()
        .collect();
    let minion = serde_json::json!({
        "file_roots": {"base": [states]},
        "pillar_roots": {"base": pillar},
    });
    Some(minion.to_string())
}

/// The config directory's `grains` file (Salt's `/etc/salt/grains`): its
/// path and mapping, `None` when there is none; one that does not parse or
/// is not a mapping is a config error naming it.
pub fn grains_file(dir: &Path) -> Result<Option<(String, Map)>, Diagnostic> {
    let path = dir.join("grains");
    if !path.is_file() {
        return Ok(None);
    }
    let (file, map) = read_mapping_file(&path)?;
    Ok(Some((file.name.clone(), map)))
}

/// The files of `DIR/minion.d/*.conf` (Salt's `default_include`), sorted
/// by name, each parsed to a mapping; a file that does not parse is a
/// located config error naming it.
pub fn include_files(dir: &Path) -> Result<Vec<(Arc<SourceFile>, Map)>, Diagnostic> {
    Ok(include_files_traced(dir)?
        .into_iter()
        .map(|(f, m, _)| (f, m))
        .collect())
}

/// [`include_files`] with each file's writes (keys and places).
fn include_files_traced(
    dir: &Path,
) -> Result<Vec<(Arc<SourceFile>, Map, LayerWrites)>, Diagnostic> {
    let Ok(entries) = std::fs::read_dir(dir.join("minion.d")) else {
        return Ok(Vec::new());
    };
    let mut paths: Vec<std::path::PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "conf") && p.is_file())
        .collect();
    paths.sort();
    paths.iter().map(|p| read_mapping_file_traced(p)).collect()
}

/// A YAML text parsed once: its value and, for a mapping, each top-level
/// key's write (its place `file:line:col` and value) for provenance.
fn parse_mapping(file: &Arc<SourceFile>) -> Result<(Value, LayerWrites), crate::yaml::YamlError> {
    if file.text.trim().is_empty() {
        return Ok((Value::Map(Map::new()), Vec::new()));
    }
    let tree = crate::yaml::load(&file.text, crate::yaml::Dialect::Salt)?;
    let mut places: std::collections::HashMap<String, String> = Default::default();
    if let crate::yaml::NodeValue::Map(entries) = &tree.value {
        for (k, _) in entries {
            let (line, col) = file.line_col(k.span.start);
            places
                .entry(k.to_value().py_str())
                .or_insert_with(|| format!("{}:{line}:{col}", file.name));
        }
    }
    let value = tree.into_value();
    let writes = value
        .as_map()
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let key = k.py_str();
                    let place = places.get(&key).cloned();
                    (vec![key], place, v.clone())
                })
                .collect()
        })
        .unwrap_or_default();
    Ok((value, writes))
}

/// A config file that holds a YAML mapping of settings (`minion.d/*.conf`,
/// a `--settings` file): its text and keys. An unreadable file, one that
/// does not parse (located at `file:line:col`) or is not a mapping is a
/// config error naming it.
pub fn read_mapping_file(path: &Path) -> Result<(Arc<SourceFile>, Map), Diagnostic> {
    read_mapping_file_traced(path).map(|(f, m, _)| (f, m))
}

/// [`read_mapping_file`] with the file's writes (each top-level key, its
/// place and value), recorded from the one parse, for provenance.
pub fn read_mapping_file_traced(
    path: &Path,
) -> Result<(Arc<SourceFile>, Map, LayerWrites), Diagnostic> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Diagnostic::new(
            codes::CONFIG,
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    let file = SourceFile::new(path.display().to_string(), text);
    let (value, writes) = parse_mapping(&file).map_err(|e| {
        let (line, col) = file.line_col(e.span.start);
        Diagnostic::new(
            codes::CONFIG,
            format!(
                "invalid config file {}:{line}:{col}: {}",
                file.name, e.message
            ),
        )
        .with_primary(Label::new(&file, e.span.clone(), "here"))
    })?;
    match value {
        Value::Map(m) => Ok((file, m, writes)),
        Value::Null => Ok((file, Map::new(), writes)),
        other => Err(Diagnostic::new(
            codes::CONFIG,
            format!(
                "{} must be a mapping, not {}",
                file.name,
                other.py_type_name()
            ),
        )),
    }
}

/// Where each setting came from: Salt's defaults, `DIR/minion`, each
/// `minion.d/*.conf` (as [`Config::sources`] recorded them while reading),
/// the settings files (`(kind, origin, writes)`: the `--settings` files,
/// then `--user-env`, as [`read_mapping_file_traced`] recorded them), then
/// the flags (`overrides` keys no settings file gave, each named by its
/// flag in `flag_of`), replayed against the effective settings (`opts`).
pub fn explain(
    config: &Config,
    settings: &[(String, String, LayerWrites)],
    overrides: &Map,
    flag_of: &dyn Fn(&str) -> String,
) -> crate::provenance::Provenance {
    use crate::provenance::Provenance;
    let mut layers = vec![Layer {
        kind: "default".into(),
        origin: "Salt's defaults".into(),
        rule: "default".into(),
    }];
    let mut writes: Vec<LayerWrites> = vec![default_opts()
        .iter()
        .map(|(k, v)| (vec![k.py_str()], None, v.clone()))
        .collect()];
    for (layer, w) in &config.sources {
        layers.push(layer.clone());
        writes.push(w.clone());
    }
    for (kind, origin, w) in settings {
        layers.push(Layer {
            kind: kind.clone(),
            origin: origin.clone(),
            rule: "replace".into(),
        });
        writes.push(w.clone());
    }
    for (k, v) in overrides.iter() {
        let key = k.py_str();
        // A key only a settings file set is not a flag's.
        if settings
            .iter()
            .any(|(_, _, w)| w.iter().any(|(p, _, x)| p[0] == key && x == v))
        {
            continue;
        }
        layers.push(Layer {
            kind: "user-env".into(),
            origin: format!("cli:{}", flag_of(&key)),
            rule: "replace".into(),
        });
        writes.push(vec![(vec![key], None, v.clone())]);
    }
    // `grains` as set; the computed grains have `lowstate grains --explain`.
    let mut result = config.opts.clone();
    if let Value::Map(m) = &mut result {
        m.insert(
            "grains".into(),
            Value::Map(config.grains_model.configured()),
        );
    }
    Provenance::build_with(layers, writes, &result, ":", 1, &|a, b| a == b)
}

/// Where a setting is written: the label of `key` in the config files
/// (`minion.d/*.conf`, last first, then `DIR/minion`) — at its `item`-th
/// list entry when given and present — for diagnostics about a setting.
pub fn locate(config: &Config, key: &str, item: Option<usize>) -> Option<crate::diag::Label> {
    let mut files: Vec<Arc<SourceFile>> = include_files(&config.dir)
        .unwrap_or_default()
        .into_iter()
        .map(|(f, _)| f)
        .rev()
        .collect();
    if let Ok(text) = std::fs::read_to_string(config.dir.join("minion")) {
        files.push(SourceFile::new(
            config.dir.join("minion").display().to_string(),
            text,
        ));
    }
    files.iter().find_map(|f| {
        let tree = crate::yaml::load(&f.text, crate::yaml::Dialect::Salt).ok()?;
        let crate::yaml::NodeValue::Map(entries) = &tree.value else {
            return None;
        };
        let (k, v) = entries.iter().find(|(k, _)| k.to_value().py_str() == key)?;
        let at = match (&v.value, item) {
            (crate::yaml::NodeValue::List(items), Some(i)) if i < items.len() => {
                match &items[i].value {
                    // An entry `{module: argument}`: at its key.
                    crate::yaml::NodeValue::Map(pairs) if !pairs.is_empty() => {
                        pairs[0].0.span.clone()
                    }
                    _ => items[i].span.clone(),
                }
            }
            _ => k.span.clone(),
        };
        Some(crate::diag::Label::new(f, at, "set here"))
    })
}

/// Where Salt's minion caches a file of the fileserver before rendering
/// it (a state template's `tplpath`): `<cachedir>/files/<saltenv>/<rel>`,
/// the cachedir under `root_dir` as Salt prepends it.
pub fn cached_file_path(opts: &Value, saltenv: &str, rel: &str) -> String {
    let text = |key: &str, default: &str| {
        opts.get(key)
            .and_then(Value::as_str)
            .unwrap_or(default)
            .to_string()
    };
    let root = text("root_dir", "/");
    let mut cachedir = text("cachedir", "/var/cache/salt/minion");
    let root = root.trim_end_matches('/');
    if !root.is_empty() && !cachedir.starts_with(root) {
        cachedir = format!("{root}/{}", cachedir.trim_start_matches('/'));
    }
    format!("{}/files/{saltenv}/{rel}", cachedir.trim_end_matches('/'))
}

/// Salt 3008.5's minion options as a template sees them in `opts` (and
/// `config.get` reads them) when the config does not set them:
/// `minion_opts.json`, written by `docs/minion-opts.py` from what Salt
/// printed (paths as a packaged minion has them, under `/`).
fn default_opts() -> Map {
    defaults().clone()
}

/// [`default_opts`], read once.
fn defaults() -> &'static Map {
    static DEFAULTS: std::sync::OnceLock<Map> = std::sync::OnceLock::new();
    DEFAULTS.get_or_init(|| {
        match serde_json::from_str(include_str!("minion_opts.json")).map(|j| Value::from_json(&j)) {
            Ok(Value::Map(m)) => m,
            _ => Map::new(),
        }
    })
}

/// Is `value` Salt's default for the option `key`?
pub fn is_default_opt(key: &str, value: &Value) -> bool {
    defaults().get(key) == Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_without_a_minion_implies_one_from_its_state_tree() {
        let root = std::env::temp_dir().join(format!("lowstate-implied-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let write = |rel: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "a: {}\n").unwrap();
        };
        let roots = |dir: &Path| {
            let text = implied_minion(dir)?;
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            Some((
                v["file_roots"]["base"][0].clone(),
                v["pillar_roots"]["base"].clone(),
            ))
        };
        // Templates only: no state tree.
        write("hot/stack.yaml");
        assert_eq!(roots(&root), None);
        // A formula: an SLS one directory down.
        write("nginx/init.sls");
        let at = |rel: &str| serde_json::json!(rel);
        assert_eq!(roots(&root), Some((at("."), serde_json::json!([]))));
        // A repository with salt/ and pillar/ top files.
        write("salt/top.sls");
        write("pillar/top.sls");
        assert_eq!(
            roots(&root),
            Some((at("salt"), serde_json::json!([at("pillar")])))
        );
        // A top file at the root wins.
        write("top.sls");
        assert_eq!(roots(&root).unwrap().0, at("."));
        // A minion is read as it is.
        write("minion");
        assert_eq!(roots(&root), None);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn default_opts_are_salts() {
        let opts = default_opts();
        assert!(opts.len() > 300, "{} options", opts.len());
        assert_eq!(opts.get("master"), Some(&Value::str("salt")));
        assert_eq!(opts.get("master_port"), Some(&Value::Int(4506)));
        assert_eq!(
            opts.get("cachedir"),
            Some(&Value::str("/var/cache/salt/minion"))
        );
    }

    #[test]
    fn cached_file_path_is_under_the_cachedir_and_root_dir() {
        let opts = Value::Map(default_opts());
        assert_eq!(
            cached_file_path(&opts, "base", "a/init.sls"),
            "/var/cache/salt/minion/files/base/a/init.sls"
        );
        let mut m = default_opts();
        m.insert("root_dir".into(), "/tmp/r/".into());
        assert_eq!(
            cached_file_path(&Value::Map(m.clone()), "dev", "b.sls"),
            "/tmp/r/var/cache/salt/minion/files/dev/b.sls"
        );
        m.insert("cachedir".into(), "/tmp/r/cache".into());
        assert_eq!(
            cached_file_path(&Value::Map(m), "base", "b.sls"),
            "/tmp/r/cache/files/base/b.sls"
        );
    }
}
