//! Salt's Jinja on minijinja: TODO (jinja helper).

use crate::config::JinjaOptions;
use crate::value::Value;
use std::ops::Range;
use std::sync::Arc;

/// Reads template files from the fileserver.
pub trait TemplateLoader: Send + Sync {
    /// The text of `path` (relative to the saltenv's roots, `/`-separated,
    /// already normalised: no `..`, no leading `/`) in `saltenv`.
    fn read(&self, saltenv: &str, path: &str) -> Option<String>;
}

/// Minion data every render sees.
#[derive(Debug, Clone, Default)]
pub struct RenderData {
    pub grains: Value,
    pub pillar: Value,
    pub opts: Value,
    /// `mod.fun` → answer (or list of call-specific answers) for functions
    /// that would ask the live minion.
    pub mocks: Value,
}

/// What is being rendered.
#[derive(Debug, Clone)]
pub struct SlsContext {
    pub saltenv: String,
    /// SLS name (`""` for a top file).
    pub sls: String,
    /// The file path relative to the saltenv root (`a/b/init.sls`).
    pub tplfile: String,
    /// Absolute path of the file (`tplpath`).
    pub tplpath: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JinjaErrorKind {
    Syntax,
    Undefined,
    Raise,
    TemplateNotFound,
    /// An unmocked call to a function that needs a live minion.
    Unmocked,
    Other,
}

/// A render failure, located in the template that caused it.
#[derive(Debug, Clone)]
pub struct JinjaError {
    pub kind: JinjaErrorKind,
    /// Salt-like message (what follows `Rendering SLS 'env:sls' failed: `).
    pub message: String,
    /// Template name (the SLS file, or an imported template's path).
    pub template: String,
    pub line: Option<usize>,
    pub range: Option<Range<usize>>,
}

/// A configured Jinja environment for one compile (shared across threads).
pub struct Jinja {}

impl Jinja {
    pub fn new(
        _options: JinjaOptions,
        _data: Arc<RenderData>,
        _loader: Arc<dyn TemplateLoader>,
    ) -> Jinja {
        Jinja {}
    }

    /// Render one file's text.
    pub fn render(&self, _source: &str, _ctx: &SlsContext) -> Result<String, JinjaError> {
        todo!("jinja helper")
    }
}

pub mod filters;
pub mod salt;
