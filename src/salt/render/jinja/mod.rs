//! Salt 3008.5's Jinja environment on minijinja: environment setup (strict
//! undefined, no auto-escape, whitespace options, `#jinja2:` headers),
//! the source pre-pass (with Jinja2's `varargs`/`kwargs` macros in
//! `macros`), Python-style printing, the render context, the
//! fileserver loader with Salt's relative-name quirk, Salt's data tags,
//! globals and tests, mapping engine errors to Salt's messages, and the
//! log of what a render read of the minion's data (`reads`).

pub(crate) mod convert;
mod encode;
mod error;
pub mod filters;
mod ipaddr;
mod itertools;
mod jinja2;
mod loader;
mod macros;
mod markup;
mod prepass;
mod query;
pub(crate) use jinja2::first_error as jinja2_first_error;
pub(crate) use prepass::check_one_pass as check_prepass;
pub(crate) mod py;
pub mod reads;
pub mod salt;
mod serialize;
mod setup;
pub mod shared;
mod strftime;
mod textnet;
mod textwrap;

use crate::salt::config::JinjaOptions;
use crate::value::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

pub use error::{template_error, PREFIX_ERROR, PREFIX_RUNTIME, PREFIX_SALT_FUNCTION};

/// Reads template files from the fileserver.
pub trait TemplateLoader: Send + Sync {
    /// The text of `path` (relative to the saltenv's roots, `/`-separated,
    /// already normalised: no `..`, no leading `/`) in `saltenv`.
    fn read(&self, saltenv: &str, path: &str) -> Option<String>;

    /// Every file and directory of `saltenv`, as Salt's fileserver lists
    /// them for `cp.list_master`, `cp.list_master_dirs` and `cp.list_states`;
    /// `None` when this loader cannot list (those functions then need mocks).
    fn listing(&self, _saltenv: &str) -> Option<Arc<FileListing>> {
        None
    }

    /// Why `path` is not readable although something is there: a symlink
    /// that leads outside the allowed directories (the message names the
    /// link, its target and the setting that allows it). `None` when the
    /// file is simply absent.
    fn refused(&self, _saltenv: &str, _path: &str) -> Option<String> {
        None
    }

    /// Why `path`, which exists, cannot be read as a template: not UTF-8
    /// (Salt's decode error, with the line) or an I/O error. `None` when
    /// it reads (or does not exist).
    fn unreadable(&self, _saltenv: &str, _path: &str) -> Option<String> {
        None
    }
}

pub use crate::salt::fileserver::FileListing;

/// The path of the roots a template name (as the loader is asked for it)
/// reads, or `None` when the loader refuses the name without reading.
pub fn template_path(name: &str) -> Option<String> {
    loader::resolve(name)
}

/// Minion data every render sees.
#[derive(Debug, Default)]
pub struct RenderData {
    /// `grains`.
    pub grains: Value,
    /// `pillar`.
    pub pillar: Value,
    /// `opts`.
    pub opts: Value,
    /// `mod.fun` → answer (or list of call-specific answers) for functions
    /// that would ask the live minion.
    pub mocks: Value,
    /// The pillar roots (`pillar.file_exists` looks in them).
    pub pillar_roots: indexmap::IndexMap<String, Vec<std::path::PathBuf>>,
    /// Resource limits (fuel, output, depth, YAML).
    pub limits: crate::limits::Limits,
    /// How queries about the minion's own state are answered.
    pub queries: MinionQueries,
}

impl RenderData {
    /// The root a template reads as `source` (`grains`, `pillar`, `opts`).
    pub fn source(&self, source: reads::Source) -> &Value {
        match source {
            reads::Source::Grains => &self.grains,
            reads::Source::Pillar => &self.pillar,
            reads::Source::Opts => &self.opts,
        }
    }
}

/// Queries about the minion's own state (`pkg.version`, `user.info`,
/// `mine.get`, ...): answered as a freshly installed minion would, each
/// function noted for one warning; with `strict`, they need a mock. The
/// set is shared (`Arc`) by every render of a run, pillar included, so
/// the caller reads it once at the end.
#[derive(Debug, Clone, Default)]
pub struct MinionQueries {
    /// `--strict`: no fresh-minion answers.
    pub strict: bool,
    /// The functions that got a fresh minion's answer.
    pub answered: std::sync::Arc<std::sync::Mutex<std::collections::BTreeSet<String>>>,
    /// The OS profile's base system the answers come from, when it has data.
    pub base: Option<&'static crate::salt::grains::BaseSystem>,
    /// The OS profile's name, for the warnings.
    pub profile: String,
    /// The profiles whose base system answered (shared like `answered`).
    pub answered_by: std::sync::Arc<std::sync::Mutex<std::collections::BTreeSet<String>>>,
}

impl MinionQueries {
    /// The functions answered so far, sorted.
    pub fn answered(&self) -> Vec<String> {
        self.answered
            .lock()
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// What is being rendered.
#[derive(Debug, Clone)]
pub struct SlsContext {
    /// The saltenv being rendered.
    pub saltenv: String,
    /// SLS name (`""` for a top file).
    pub sls: String,
    /// The file path relative to the saltenv root (`a/b/init.sls`).
    pub tplfile: String,
    /// Absolute path of the file (`tplpath`).
    pub tplpath: String,
    /// More template variables, set last: a pillar include's `defaults`.
    pub extra_vars: Vec<(String, crate::value::Value)>,
}

/// One variable of a file template's context: a value, or one of the
/// render's own objects (the minion's data roots, the `salt` functions).
#[derive(Debug, Clone)]
pub enum FileVar {
    /// A plain value.
    Value(Value),
    /// The minion's grains.
    Grains,
    /// The minion's pillar.
    Pillar,
    /// The minion's options.
    Opts,
    /// The execution functions (`salt['mod.fun']`).
    Salt,
}

/// A file template (`file.managed` with `template: jinja`, not an SLS):
/// rendered with exactly the variables given (later ones win), the
/// saltenv's roots for imports.
#[derive(Debug, Clone, Copy)]
pub struct FileTemplate<'a> {
    /// The saltenv imports read from.
    pub saltenv: &'a str,
    /// The template's name in error messages.
    pub name: &'a str,
    /// The context, in Salt's order.
    pub vars: &'a [(String, FileVar)],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
/// What kind of Jinja failure an error is.
pub enum JinjaErrorKind {
    /// The template does not parse.
    Syntax,
    /// An undefined name or attribute was used.
    Undefined,
    /// The template raised on purpose.
    Raise,
    /// An imported or included template does not exist.
    TemplateNotFound,
    /// An unmocked call to a function that needs a live minion.
    Unmocked,
    /// Any other failure.
    Other,
}

/// A render failure, located in the template that caused it.
#[derive(Debug, Clone)]
pub struct JinjaError {
    /// The kind.
    pub kind: JinjaErrorKind,
    /// Salt-like message (what follows `Rendering SLS 'env:sls' failed: `),
    /// including Salt's `; line N` and source excerpt.
    pub message: String,
    /// Template name (the SLS file, or an imported template's path).
    pub template: String,
    /// The text of `template` when it is not the file being rendered (an
    /// imported or included template), so diagnostics can show it.
    pub source: Option<String>,
    /// 1-based line in `template`'s original text.
    pub line: Option<usize>,
    /// Byte range of that line in `template`'s original text.
    pub range: Option<Range<usize>>,
}

impl JinjaError {
    /// The message without Salt's line number and source excerpt.
    pub fn headline(&self) -> &str {
        let end = self
            .message
            .find("; line ")
            .or_else(|| self.message.find("\n---"))
            .unwrap_or(self.message.len());
        self.message[..end].trim_end()
    }
}

impl std::fmt::Display for JinjaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for JinjaError {}

/// Environment settings derived from `jinja_env` / `jinja_sls_env` and a
/// file's `#jinja2:` header (Jinja2's keyword names).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
struct EnvOptions {
    trim_blocks: bool,
    lstrip_blocks: bool,
    keep_trailing_newline: bool,
    block: Option<(String, String)>,
    variable: Option<(String, String)>,
    comment: Option<(String, String)>,
    line_statement_prefix: Option<String>,
    line_comment_prefix: Option<String>,
    newline_sequence: Option<String>,
    allow_undefined: bool,
}

/// Built minijinja environments by (saltenv, options). They hold no
/// minion data (only the loader and the limits), so the sessions of a
/// fleet run with the same loader and limits can share one
/// ([`Jinja::with_environments`]), and with it the compiled imports.
#[derive(Default)]
pub struct Environments(Mutex<HashMap<(String, EnvOptions), Arc<minijinja::Environment<'static>>>>);

/// A configured Jinja environment for one compile (shared across threads).
pub struct Jinja {
    base: EnvOptions,
    data: Arc<RenderData>,
    loader: Arc<dyn TemplateLoader>,
    envs: Arc<Environments>,
}

impl Jinja {
    /// A Jinja environment with Salt's options, data and loader.
    pub fn new(
        options: JinjaOptions,
        data: Arc<RenderData>,
        loader: Arc<dyn TemplateLoader>,
    ) -> Jinja {
        Jinja::with_environments(options, data, loader, Arc::default())
    }

    /// As [`Jinja::new`], building environments into `envs`, which must
    /// only be shared by Jinjas with the same loader and limits.
    pub fn with_environments(
        options: JinjaOptions,
        data: Arc<RenderData>,
        loader: Arc<dyn TemplateLoader>,
        envs: Arc<Environments>,
    ) -> Jinja {
        let mut base = EnvOptions {
            trim_blocks: options.trim_blocks,
            lstrip_blocks: options.lstrip_blocks,
            allow_undefined: data.opts.get("allow_undefined").is_some_and(Value::truthy),
            ..EnvOptions::default()
        };
        for (k, v) in &options.extra {
            base.apply(&k.py_str(), v);
        }
        Jinja {
            base,
            data,
            loader,
            envs,
        }
    }

    /// The minion data renders see.
    pub fn data(&self) -> &RenderData {
        &self.data
    }

    /// Fresh objects for renders that share the minion's data as Salt's
    /// run does ([`shared::with_run`]), holding this compile's data.
    pub fn run_objects(&self) -> Arc<shared::RunObjects> {
        let root = |s| setup::root(&self.data, s);
        shared::RunObjects::new(
            root(reads::Source::Pillar),
            root(reads::Source::Grains),
            root(reads::Source::Pillar),
            root(reads::Source::Grains),
        )
    }

    /// The resource limits renders run under.
    pub fn limits(&self) -> &crate::limits::Limits {
        &self.data.limits
    }

    /// Render one file's text.
    pub fn render(&self, source: &str, ctx: &SlsContext) -> Result<String, JinjaError> {
        let original = loader::normalize_newlines(source);
        let (options, source, header_line) = self.file_options(&original);
        let env = self.environment(&ctx.saltenv, &options);
        let file = setup::FileText {
            source: &source,
            original: &original,
            header_line,
        };
        setup::render(&env, &options, &self.data, &file, ctx, &self.loader)
    }

    /// Render a file template's text (`#jinja2:` header, newline rules
    /// and errors as for an SLS; the context is only `t`'s variables).
    pub fn render_file(&self, source: &str, t: &FileTemplate<'_>) -> Result<String, JinjaError> {
        let original = loader::normalize_newlines(source);
        let (options, source, header_line) = self.file_options(&original);
        let env = self.environment(t.saltenv, &options);
        let file = setup::FileText {
            source: &source,
            original: &original,
            header_line,
        };
        setup::render_file_template(&env, &options, &self.data, &file, t, &self.loader)
    }

    /// Apply a `#jinja2: {json}` header (first line, or second after a
    /// renderer shebang): returns the options, the source without the
    /// header line, and the 1-based number of the removed line.
    fn file_options<'s>(&self, source: &'s str) -> (EnvOptions, Cow<'s, str>, Option<usize>) {
        let mut options = self.base.clone();
        let mut lines = source.split_inclusive('\n');
        let first = lines.next();
        let idx = usize::from(first.is_some_and(|l| l.starts_with("#!") && !l.starts_with("#!/")));
        // The candidate line and where it starts.
        let (line, start) = match (idx, first) {
            (0, l) => (l, 0),
            (_, f) => (lines.next(), f.map_or(0, str::len)),
        };
        let Some(line) = line else {
            return (options, source.into(), None);
        };
        let Some(payload) = line.strip_prefix("#jinja2:") else {
            return (options, source.into(), None);
        };
        if payload.trim().is_empty() {
            return (options, source.into(), None);
        }
        let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(payload)
        else {
            return (options, source.into(), None);
        };
        for (k, v) in &map {
            options.apply(k, &Value::from_json(v));
        }
        let mut out = String::with_capacity(source.len());
        out.push_str(&source[..start]);
        out.push_str(&source[start + line.len()..]);
        (options, out.into(), Some(idx + 1))
    }

    fn environment(
        &self,
        saltenv: &str,
        options: &EnvOptions,
    ) -> Arc<minijinja::Environment<'static>> {
        let key = (saltenv.to_string(), options.clone());
        let mut envs = self.envs.0.lock().unwrap_or_else(|e| e.into_inner());
        envs.entry(key)
            .or_insert_with(|| {
                Arc::new(setup::build_environment(
                    saltenv,
                    options,
                    self.data.clone(),
                    self.loader.clone(),
                ))
            })
            .clone()
    }
}

impl EnvOptions {
    /// One Jinja2 environment keyword (case-insensitive); unknown keys are
    /// ignored, as Salt does (with a warning).
    fn apply(&mut self, key: &str, v: &Value) {
        let s = || v.py_str();
        match key.to_ascii_lowercase().as_str() {
            "trim_blocks" => self.trim_blocks = v.truthy(),
            "lstrip_blocks" => self.lstrip_blocks = v.truthy(),
            "keep_trailing_newline" => self.keep_trailing_newline = v.truthy(),
            "block_start_string" => self.block.get_or_insert(("{%".into(), "%}".into())).0 = s(),
            "block_end_string" => self.block.get_or_insert(("{%".into(), "%}".into())).1 = s(),
            "variable_start_string" => {
                self.variable.get_or_insert(("{{".into(), "}}".into())).0 = s()
            }
            "variable_end_string" => {
                self.variable.get_or_insert(("{{".into(), "}}".into())).1 = s()
            }
            "comment_start_string" => {
                self.comment.get_or_insert(("{#".into(), "#}".into())).0 = s()
            }
            "comment_end_string" => self.comment.get_or_insert(("{#".into(), "#}".into())).1 = s(),
            "line_statement_prefix" => self.line_statement_prefix = (!v.is_null()).then(s),
            "line_comment_prefix" => self.line_comment_prefix = (!v.is_null()).then(s),
            "newline_sequence" => self.newline_sequence = (!v.is_null()).then(s),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
