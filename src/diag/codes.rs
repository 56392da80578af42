//! The closed registry of diagnostic codes: every [`Code`] a diagnostic can
//! carry is declared here, once, with its severity and a one-line meaning.
//! `docs/diagnostics.md` is generated from [`ALL`] (`lowstate codes`
//! prints it) and a test keeps the two equal, so the codes documented as
//! stable are exactly the codes the program can emit.

use super::Severity;

/// A diagnostic code: its stable name, its severity and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Code {
    /// The stable, machine-readable name (`missing-requisite`).
    pub name: &'static str,
    /// How bad a diagnostic with this code is.
    pub severity: Severity,
    /// Which part of lowstate emits it (`common`, `salt`, `hot`).
    pub area: &'static str,
    /// One line saying what it means.
    pub summary: &'static str,
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

macro_rules! registry {
    ($($ident:ident = ($name:literal, $sev:ident, $area:literal, $summary:literal);)*) => {
        $(
            #[doc = $summary]
            pub const $ident: Code = Code {
                name: $name,
                severity: Severity::$sev,
                area: $area,
                summary: $summary,
            };
        )*
        /// Every code, in the order `docs/diagnostics.md` lists them.
        pub const ALL: &[Code] = &[$($ident),*];
    };
}

registry! {
    // Reading inputs (any dialect).
    IO = ("io", Error, "common", "A file could not be read (missing, unreadable, not UTF-8).");
    CONFIG = ("config", Error, "common", "The configuration (minion file, settings) is invalid.");
    LAYER_TYPE_CHANGE = ("layer-type-change", Warning, "common", "`--explain`: a later layer replaced a value with one of another kind (a map by a scalar or the reverse), which Salt and Heat do silently; what was under it is gone.");
    INTERNAL = ("internal", Error, "common", "lowstate contradicted itself (a bug to report): with `LOWSTATE_FLEET_VERIFY=1`, a render `lowstate fleet` reused from its cache differs from a fresh render.");
    IGNORED_ENV_VAR = ("ignored-env-var", Warning, "common", "An environment variable Salt reads (`SALT_CONFIG_DIR`, `SALT_MINION_CONFIG`) is set; lowstate takes settings only from files and flags, and says which to use.");
    YAML_SYNTAX = ("yaml-syntax", Error, "common", "The YAML text does not parse (PyYAML's message and position).");
    YAML_DUPLICATE_KEY = ("yaml-duplicate-key", Error, "common", "A YAML mapping has the same key twice where the dialect refuses it.");
    YAML_UNHASHABLE_KEY = ("yaml-unhashable-key", Error, "common", "A YAML mapping key is a list or a mapping.");
    JSON_SYNTAX = ("json-syntax", Error, "common", "The JSON text does not parse.");
    GRAPH = ("graph", Error, "common", "The plan's dependency graph could not be built from the compiled result.");
    // Resource limits (docs/limits.md).
    TOO_MANY_STATES = ("too-many-states", Error, "common", "A compile produced more states than the `states` limit allows.");
    OUTPUT_TOO_LARGE = ("output-too-large", Error, "common", "The output passed the `output` limit; nothing was printed or written.");
    MEMORY_LIMIT = ("memory-limit", Error, "common", "The process passed the `memory` limit and stopped (printed as one line; nothing was written).");
    // Salt: rendering.
    UNSUPPORTED_RENDERER = ("unsupported-renderer", Error, "salt", "The renderer pipe names a renderer lowstate does not implement.");
    JINJA_SYNTAX = ("jinja-syntax", Error, "salt", "A Jinja template does not parse.");
    JINJA_UNDEFINED = ("jinja-undefined", Error, "salt", "A Jinja template uses an undefined variable or attribute.");
    JINJA_RAISE = ("jinja-raise", Error, "salt", "A Jinja template raised an error on purpose (`raise`, `test.exception`).");
    JINJA_TEMPLATE_NOT_FOUND = ("jinja-template-not-found", Error, "salt", "A Jinja `import`/`include`/`from` names a file the fileserver does not have.");
    JINJA_ERROR = ("jinja-error", Error, "salt", "A Jinja template failed while rendering (any other error).");
    UNMOCKED_CALL = ("unmocked-call", Error, "salt", "A template calls an execution function that needs a live minion and has no mock.");
    FRESH_MINION_ANSWER = ("fresh-minion-answer", Warning, "salt", "A template asked about the minion's own state (packages, users, the mine, files); lowstate answered as a freshly installed minion would. Pin the answer with a mock, or make it an error with `--strict`.");
    ASSUMED_OS_PROFILE = ("assumed-os-profile", Warning, "salt", "No OS was named (`--os`, `lowstate_os`) or implied by the configured grains: the OS grains are those of the default profile. Name the minion's OS to silence it.");
    // Salt: rendered files (`lowstate files`).
    FILE_SOURCE = ("file-source", Error, "salt", "A managed file's `source` cannot be read from the state tree: missing from the file roots, none of a list exists, a remote URL (never fetched) or a path on the minion.");
    FILE_RENDER = ("file-render", Error, "salt", "A managed file cannot be made as Salt would: Salt refuses its arguments, its `contents_pillar`/`contents_grains` data is missing, or it needs a template engine lowstate lacks (Jinja errors in its template carry the `jinja-*` codes).");
    // Salt: top files and pillar.
    TOP_RENDER = ("top-render", Error, "salt", "A top file does not render to a mapping of saltenvs.");
    TOP_RENDER_ERROR = ("top-render-error", Error, "salt", "A top file failed to render (Jinja or YAML error inside it).");
    TOP_MATCH = ("top-match", Error, "salt", "A top file target or match type is invalid.");
    TOP_MERGE = ("top-merge", Warning, "salt", "Top files of several saltenvs conflict; Salt's merge strategy decides.");
    TOP_MASTER_TOPS = ("top-master-tops", Warning, "salt", "`master_tops` is configured; lowstate does not run master tops.");
    TOP_VERIFY = ("top-verify", Error, "salt", "Salt's `verify_tops` refuses the merged top data.");
    UNKNOWN_SALTENV = ("unknown-saltenv", Error, "salt", "A top file or option names a saltenv with no file roots.");
    NO_TOP_MATCH = ("no-top-match", Error, "salt", "No target in the top file matches this minion (nothing to compile).");
    MISSING_SLS_IN_TOP = ("missing-sls-in-top", Error, "salt", "The top file names an SLS that no file root has.");
    PILLAR_TOP = ("pillar-top", Error, "salt", "The pillar top file is invalid.");
    PILLAR_RENDER = ("pillar-render", Error, "salt", "A pillar SLS failed to render.");
    PILLAR_NOT_DICT = ("pillar-not-dict", Error, "salt", "A pillar SLS does not render to a mapping.");
    PILLAR_MISSING_SLS = ("pillar-missing-sls", Error, "salt", "The pillar top file or an include names a pillar SLS that does not exist.");
    PILLAR_INCLUDE_NOT_LIST = ("pillar-include-not-list", Error, "salt", "A pillar SLS's `include` is not a list.");
    PILLAR_UNKNOWN_ENV = ("pillar-unknown-env", Error, "salt", "A pillar include names a saltenv with no pillar roots.");
    PILLAR_MERGE = ("pillar-merge", Error, "salt", "Two pillar layers cannot be merged (Salt's merge raises).");
    EXT_PILLAR_SKIPPED = ("ext-pillar-skipped", Warning, "salt", "An `ext_pillar` entry gave no data: a module lowstate does not have, a command not allowed to run (`--run-ext-pillar`), or a malformed entry.");
    EXT_PILLAR_FAILED = ("ext-pillar-failed", Warning, "salt", "An allowed `ext_pillar` command failed or printed data that does not parse; Salt logs this and merges nothing.");
    PILLAR_FAILED = ("pillar-failed", Error, "salt", "The pillar has errors, so no state compiles (`Pillar failed to render`).");
    // Salt: SLS files and high data.
    MISSING_SLS = ("missing-sls", Error, "salt", "An SLS named by the top file, `--sls` or an include is not available.");
    SLS_NOT_DICT = ("sls-not-dict", Error, "salt", "An SLS does not render to a mapping.");
    BAD_INCLUDE = ("bad-include", Error, "salt", "An `include` entry is malformed.");
    INCLUDE_NOT_LIST = ("include-not-list", Error, "salt", "An SLS's `include` is not a list.");
    INCLUDE_BEYOND_TOP = ("include-beyond-top", Error, "salt", "A relative include climbs above the top of the file tree.");
    INCLUDE_UNKNOWN_ENV = ("include-unknown-env", Error, "salt", "An include names a saltenv with no file roots.");
    EXCLUDE_NOT_LIST = ("exclude-not-list", Error, "salt", "An SLS's `exclude` is not a list.");
    BAD_EXTEND = ("bad-extend", Error, "salt", "An `extend` block is malformed or extends a state that does not exist.");
    DUPLICATE_ID = ("duplicate-id", Error, "salt", "Two SLS files declare the same state ID.");
    DUPLICATE_STATE_MODULE = ("duplicate-state-module", Error, "salt", "One ID declares the same state module twice.");
    BAD_STATE_DECLARATION = ("bad-state-declaration", Error, "salt", "A state declaration is not shaped as Salt requires.");
    ID_NOT_STRING = ("id-not-string", Error, "salt", "A state ID is not a string.");
    FUNCTION_WHITESPACE = ("function-whitespace", Error, "salt", "A state function name contains whitespace.");
    NAMES_NOT_LIST = ("names-not-list", Error, "salt", "A state's `names` is not a list.");
    NO_FUNCTION = ("no-function", Error, "salt", "A state declaration names no function.");
    MULTIPLE_FUNCTIONS = ("multiple-functions", Error, "salt", "A state declaration names more than one function.");
    // Salt: requisites and order.
    REQUISITE_NOT_LIST = ("requisite-not-list", Error, "salt", "A requisite's value is not a list.");
    REQUISITE_DOTTED = ("requisite-dotted", Error, "salt", "A `*_in` requisite names a dotted `module.function` Salt cannot attach.");
    BAD_REQUISITE = ("bad-requisite", Error, "salt", "A requisite entry is malformed (not a string or a one-key mapping of strings).");
    MISSING_REQUISITE = ("missing-requisite", Error, "salt", "A requisite references a state that does not exist.");
    REQUISITE_CYCLE = ("requisite-cycle", Error, "salt", "Requisites form a cycle (a state depends on itself).");
    // `lowstate check`: state arguments (Salt) and resource properties (HOT).
    UNKNOWN_FUNCTION = ("unknown-function", Error, "check", "A state names a function (or a resource a type) that the reference release does not have.");
    MODULE_NOT_LOADED = ("module-not-loaded", Warning, "check", "The state module exists but did not load where the argument data was made; the reason is Salt's.");
    NEEDS_BINARY = ("needs-binary", Info, "check", "The state module loads only where a program is installed on the minion (Salt checks this at run time).");
    NOT_VALIDATED = ("not-validated", Info, "check", "No schema knows this function or type (a custom `_states/` module, a provider template); its arguments are not checked.");
    UNKNOWN_ARGUMENT = ("unknown-argument", Warning, "check", "An argument the function does not take: ignored (warning), or a failed state or an aborted run (error).");
    MISSPELT_REQUISITE = ("misspelt-requisite", Error, "check", "An unknown argument close to a requisite keyword: the ordering it was meant to add is silently lost.");
    DEPRECATED_ARGUMENT = ("deprecated-argument", Warning, "check", "An argument that is deprecated or an alias; Salt ignores it or reads it as another.");
    FORBIDDEN_ARGUMENT = ("forbidden-argument", Error, "check", "An argument the function refuses (Salt fails the state).");
    MISSING_ARGUMENT = ("missing-argument", Error, "check", "A required argument (or property) is not given.");
    WRONG_TYPE = ("wrong-type", Error, "check", "An argument's value has a type the function does not take.");
    BAD_VALUE = ("bad-value", Error, "check", "An argument's value is outside what the function accepts.");
    ARGUMENT_GROUP = ("argument-group", Error, "check", "Arguments that must not be used together, or one of which is required (a property group).");
    ARGUMENT_VERSION = ("argument-version", Info, "check", "An argument that only some versions (of Salt, or of a tool on the minion) support.");
    // Heat (HOT) templates; the name after `hot-` is Heat's error kind.
    HOT_TEMPLATE_PARSE = ("hot-template-parse", Error, "hot", "The template is not JSON or YAML, not a mapping, or has no version key.");
    HOT_TEMPLATE_VERSION = ("hot-template-version", Error, "hot", "The template version is unknown, or a function is not available in it.");
    HOT_TEMPLATE_STRUCTURE = ("hot-template-structure", Error, "hot", "The template has a top-level section its version does not know.");
    HOT_ENV_FORMAT = ("hot-env-format", Error, "hot", "An environment file is not a mapping, or has an unknown or empty section.");
    HOT_PARAMETER_SCHEMA = ("hot-parameter-schema", Error, "hot", "A parameter definition is invalid (keys, type, constraints, or a default that breaks them).");
    HOT_PARAMETER_MISSING = ("hot-parameter-missing", Error, "hot", "A parameter has no value, or get_param names an undeclared parameter.");
    HOT_PARAMETER_UNKNOWN = ("hot-parameter-unknown", Error, "hot", "A value was given for a parameter the template does not declare.");
    HOT_VALIDATION = ("hot-validation", Error, "hot", "The stack does not validate (parameter values, groups, resource keys, function arguments).");
    HOT_INVALID_REFERENCE = ("hot-invalid-reference", Error, "hot", "A reference names a resource the template does not have.");
    HOT_INVALID_ATTRIBUTE = ("hot-invalid-attribute", Error, "hot", "get_attr names an attribute the resource's type does not have (Heat 27's schemas).");
    HOT_CIRCULAR_DEPENDENCY = ("hot-circular-dependency", Error, "hot", "Resources depend on each other in a cycle.");
    HOT_FUNCTION_RUNTIME = ("hot-function-runtime", Error, "hot", "An intrinsic function failed on the values it was given, or (`--diff-from`) the preview read a required property the new definition does not give.");
    HOT_TOO_MANY_RESOURCES = ("hot-too-many-resources", Error, "hot", "A `--nested` expansion would create more resources than the `hot-resources` limit allows.");
    HOT_UPDATE_NOT_SUPPORTED = ("hot-update-not-supported", Error, "hot", "`--diff-from`: the update changes an `immutable` property or parameter, which Heat refuses.");
    HOT_WARNING = ("hot-warning", Warning, "hot", "A template construct Heat accepts but that likely does not do what was meant.");
    HOT_UNKNOWN_TYPE = ("hot-unknown-type", Warning, "check", "A resource type that is neither one of Heat's, a resource_registry mapping nor a template: Heat refuses the stack (an error with `check --strict`).");
}

/// The code called `name`, if the registry has it.
pub fn lookup(name: &str) -> Option<Code> {
    ALL.iter().copied().find(|c| c.name == name)
}

/// The registry as the Markdown page `docs/diagnostics.md`.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Diagnostic codes\n\n\
         Every diagnostic lowstate prints carries one of these codes (the `code`\n\
         field of `--error-format json`, the `error[code]` of the human form).\n\
         The list is closed and generated from the program's own registry\n\
         (`src/diag/codes.rs`; `lowstate codes` prints this page); a test keeps\n\
         the two equal. A code's name never changes once released.\n",
    );
    let mut area = "";
    for c in ALL {
        if c.area != area {
            area = c.area;
            let title = match area {
                "common" => "Any input",
                "salt" => "Salt state trees",
                "hot" => "Heat (HOT) templates",
                "check" => "`lowstate check` (arguments and properties)",
                other => other,
            };
            out.push_str(&format!(
                "\n## {title}\n\n| code | severity | meaning |\n|---|---|---|\n"
            ));
        }
        let sev = c.severity.word();
        out.push_str(&format!("| `{}` | {sev} | {} |\n", c.name, c.summary));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for c in ALL {
            assert!(seen.insert(c.name), "duplicate code {}", c.name);
            assert!(
                c.name
                    .chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-'),
                "{}",
                c.name
            );
            assert!(c.summary.ends_with('.'), "{}", c.name);
        }
        assert_eq!(lookup("missing-requisite"), Some(MISSING_REQUISITE));
        assert_eq!(lookup("nope"), None);
    }

    #[test]
    fn docs_page_matches_the_registry() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/diagnostics.md");
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == markdown(),
            "docs/diagnostics.md is out of date: run `cargo run -- codes > docs/diagnostics.md`"
        );
    }
}
