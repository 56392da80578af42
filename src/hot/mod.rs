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

pub mod changes;
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

/// The `OS::stack_id` of a stack nobody named: fixed (the plan is
/// deterministic) and shaped like the random UUID Heat would give.
pub const DEFAULT_STACK_ID: &str = "6c1f3b52-9d4e-4a7b-8e21-5f0a9c3d7b14";

/// The `OS::project_id` of a stack nobody placed.
pub const DEFAULT_PROJECT_ID: &str = "demo";

impl Context {
    /// The context of a stack called `stack_name`, in the default project
    /// with the default id.
    pub fn named(stack_name: &str) -> Context {
        Context {
            stack_name: stack_name.to_string(),
            stack_id: DEFAULT_STACK_ID.into(),
            project_id: DEFAULT_PROJECT_ID.into(),
        }
    }

    /// The stack name a user would give a stack made from the template
    /// file `stem` (its file name without extension): Heat takes names
    /// that start with a letter and go on with letters, digits, `_`, `-`
    /// and `.`; anything else becomes `_`, and a name that does not start
    /// with a letter gets a `stack-` prefix.
    pub fn stack_name_for(stem: &str) -> String {
        let name: String = stem
            .chars()
            .map(|c| match c {
                'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' | '.' => c,
                _ => '_',
            })
            .collect();
        if name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            name
        } else {
            format!("stack-{name}")
        }
    }
}

impl Default for Context {
    /// A stack called `stack`.
    fn default() -> Context {
        Context::named("stack")
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
    /// Build [`Compiled::plan`], the graph the drawings and the order
    /// report read; without it the plan stays empty (the JSON, YAML and
    /// text views, the checks and the update preview read the document
    /// only, and a tree of stacks would build its graph for nothing).
    pub plan: bool,
    /// What becomes of a top-level parameter without a value: Heat's
    /// stack-create error (the default), or kept symbolic as Heat's
    /// template validate would accept it (an editor's view of a template
    /// whose values come at create time).
    pub unset: params::Unset,
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
    /// The plan for the graph renderers (empty on failure, and unless
    /// [`Input::plan`] asked for it).
    pub plan: crate::plan::Plan,
    /// The text of every hidden parameter's value: what a human output
    /// must mask (spec §5.7).
    pub secrets: Vec<String>,
    /// The parameter layers as the compile merged them (for `--explain`;
    /// empty when the template or an environment file did not read).
    pub parameter_layers: explain::ParameterLayers,
    /// The parsed templates of the tree, where a later pass (the update
    /// preview) locates what it finds in the document.
    pub sources: Sources,
}

/// The templates one compile parsed: the root's, and every provider
/// template of a `--nested` tree by the path its `nested.template` names.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// The root template (`None` when it did not parse).
    pub root: Option<Arc<template::Template>>,
    /// The provider templates, by path.
    pub providers: std::collections::HashMap<String, Arc<template::Template>>,
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
