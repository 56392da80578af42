//! The HOT front end: compiles an OpenStack Heat (HOT) template, its
//! environment files and parameter values into the plan Heat 27.0.1 would
//! create — parameters with their values and sources, the merged
//! environment, every resource with its resolved sections, the creation
//! waves and the outputs — in the layout of `tests/corpus-hot/*/expected.json`
//! (spec `hot.md` §14). It uses the core's values, YAML loader (Heat
//! dialect), diagnostics and plan model, and nothing of the Salt front end.
//!
//! Stages: [`template`] (text → version and sections) → [`env`]
//! (environment files, layering, resource registry) → [`params`]
//! (parameter schemas, values, constraints) → [`functions`] (intrinsic
//! functions with symbolic resource references) → [`stack`] (resources,
//! dependency graph, waves, outputs, the JSON document and the plan).

pub mod check;
pub mod env;
pub mod explain;
pub mod functions;
pub mod fuzzing;
pub mod ide;
pub mod params;
pub mod stack;
pub mod template;
pub mod update;

use crate::diag::{Code, Diagnostic, Label, SourceFile, SubjectKind};
use crate::value::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// The Heat release whose behaviour lowstate reproduces (`lowstate
/// --version` names it, for bug reports).
pub const REFERENCE_VERSION: &str = "27.0.1";

/// The diagnostic subject kind of a resource.
pub const RESOURCE: SubjectKind = SubjectKind {
    key: "resource",
    word: "resource",
};
/// The diagnostic subject kind of a parameter.
pub const PARAMETER: SubjectKind = SubjectKind {
    key: "parameter",
    word: "parameter",
};

/// How several environment files and `-P` values layer (spec §9.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EnvMode {
    /// heat-engine merges (Newton and later): env `parameters` beat `-P`,
    /// the registry merges one level deep.
    #[default]
    Server,
    /// python-heatclient merges (the 2013–2016 era): deep update, `-P` wins.
    Client,
}

/// The stack context the pseudo parameters come from.
#[derive(Debug, Clone)]
pub struct Context {
    /// `OS::stack_name`.
    pub stack_name: String,
    /// `OS::stack_id`.
    pub stack_id: String,
    /// `OS::project_id`.
    pub project_id: String,
}

impl Default for Context {
    fn default() -> Context {
        Context {
            stack_name: "oracle_stack".into(),
            stack_id: "00000000-0000-4000-8000-000000000001".into(),
            project_id: "oracle-project".into(),
        }
    }
}

/// Everything one HOT compile reads.
#[derive(Debug, Clone, Default)]
pub struct Input {
    /// The template.
    pub template: Option<Arc<SourceFile>>,
    /// Environment files, in `-e` order.
    pub environments: Vec<Arc<SourceFile>>,
    /// User parameter values (`-P` strings or typed values), in order.
    pub parameters: Vec<(String, Value)>,
    /// The directory `get_file` and provider-template paths resolve in
    /// (the template's directory by default).
    pub files_dir: Option<PathBuf>,
    /// The directory reads never leave (default: `files_dir`): a path may
    /// climb with `..` up to it, as Heat's client reads `../x` beside a
    /// template.
    pub files_root: Option<PathBuf>,
    /// How environments layer.
    pub env_mode: EnvMode,
    /// The pseudo parameters' values.
    pub context: Context,
    /// The facade resource of the parent stack (`resource_facade`):
    /// a map with `metadata`, `deletion_policy`, `update_policy`.
    pub parent: Option<Value>,
    /// Heat's `max_template_size` (default 524288 bytes).
    pub max_template_size: Option<usize>,
    /// Resource limits (YAML depth and nodes, `repeat` and string sizes).
    pub limits: crate::limits::Limits,
    /// Expand nested stacks (`--nested`): provider templates,
    /// `OS::Heat::ResourceGroup`, `OS::Heat::AutoScalingGroup` and
    /// `OS::Heat::Stack` gain a `nested` view, recursively.
    pub nested: bool,
}

/// The result of a compile: the JSON document (also on failure: `ok:
/// false`, the version when known, the errors) and every diagnostic.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The document of spec §14.
    pub document: Value,
    /// Errors first (Heat's order: the first is the one Heat reports),
    /// then warnings.
    pub diagnostics: Vec<Diagnostic>,
    /// The plan for the graph renderers (empty on failure).
    pub plan: crate::plan::Plan,
    /// The text of every hidden parameter's value: what a human output
    /// must mask (spec §5.7).
    pub secrets: Vec<String>,
    /// The parameter layers as the compile merged them (for `--explain`;
    /// empty when the template or an environment file did not read).
    pub parameter_layers: explain::ParameterLayers,
}

impl Compiled {
    /// Whether the stack compiled.
    pub fn ok(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Compile a HOT stack.
pub fn compile(input: &Input) -> Compiled {
    stack::compile(input)
}

/// The corpus' error kind of a HOT code (`template_parse`, ...).
pub fn kind_of(code: Code) -> String {
    code.name.trim_start_matches("hot-").replace('-', "_")
}

/// A HOT error located in `file` at `span` (when known).
pub(crate) fn error(
    code: Code,
    message: impl Into<String>,
    at: Option<(&Arc<SourceFile>, std::ops::Range<usize>)>,
) -> Diagnostic {
    let d = Diagnostic::new(code, message);
    match at {
        Some((file, range)) => d.with_primary(Label::new(file, range, "here")),
        None => d,
    }
}

/// Python's `json.dumps(v, sort_keys=True)` (separators `", "`, `": "`,
/// non-ASCII escaped): what str_replace and list_join insert from
/// 2015-10-15 on (spec §10.15).
pub(crate) fn json_dumps_sorted(v: &Value) -> String {
    crate::value::dumps(v, &crate::value::JsonOptions::python().sorted())
}

/// Python's `json.dumps(v)` without sorting (parameter display, §5.4).
pub(crate) fn json_dumps(v: &Value) -> String {
    crate::value::dumps(v, &crate::value::JsonOptions::python())
}
