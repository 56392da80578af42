//! Argument schemas and property groups, dialect-neutral: the schema file
//! format (`lowstate/state-args/1`, one file per Salt state function or
//! Heat resource type; `docs/check.md` documents it), its loader, and the
//! evaluator that checks one argument mapping against a schema and returns
//! every finding at once (`spec/property-groups.md` §2: presence modes,
//! `and`/`or`/`xor`/`forbid`/`disjoint` groups, guards, version groups).
//!
//! The front ends own their catalogues (which schema a state or a resource
//! uses, the keywords every function accepts) and say where a finding's
//! arguments were written ([`Placement`]); nothing here knows Salt or Heat.
//! The schema file format was Salt's first, so its keys for what the
//! reference engine says are `salt:`, `salt_result:` and `unknown_salt:` in
//! either dialect's files; the types name them for what they are
//! ([`Verdict::engine_says`], [`ArgRule::engine_result`],
//! [`Schema::unknown_engine_says`]).

mod eval;
mod parse;

pub(crate) use eval::suggest;
pub use eval::{check, Context, Finding, FindingKind, Hints, Placement};
pub use parse::{parse_schema, SchemaError};

use crate::diag::Severity;
use crate::value::Value;
use indexmap::IndexMap;

/// When an argument counts as given (§2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// The key exists and the value is not null (the default).
    NotNull,
    /// The key exists, even with a null value.
    Given,
    /// The value is truthy in Python's terms.
    Truthy,
    /// The key exists and differs from the argument's default.
    NonDefault,
}

/// A value type after the dialect's YAML typing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    /// A string.
    String,
    /// An integer (not a boolean).
    Integer,
    /// A float.
    Float,
    /// An integer or a float (Heat's `number`).
    Number,
    /// `true`/`false`.
    Boolean,
    /// A list.
    List,
    /// A mapping (Heat's `map`).
    Mapping,
    /// Null.
    Null,
}

impl Type {
    /// The word used in schema files and messages.
    pub fn word(self) -> &'static str {
        match self {
            Type::String => "string",
            Type::Integer => "integer",
            Type::Float => "float",
            Type::Number => "number",
            Type::Boolean => "boolean",
            Type::List => "list",
            Type::Mapping => "mapping",
            Type::Null => "null",
        }
    }
}

/// What the reference engine does with an unknown argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownArgs {
    /// Accepted and ignored (Salt functions with `**kwargs`).
    Ignore,
    /// Passed on to another layer that may use it (an execution module);
    /// reported as info only.
    PassThrough,
    /// The state fails (result `False`), the run goes on.
    FailState,
    /// The whole run aborts (Salt functions without `**kwargs`).
    AbortRun,
    /// The template fails validation (Heat's `Unknown Property`).
    Invalid,
}

/// How the function or type loads where the data was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loaded {
    /// Always.
    Host,
    /// Only with the programs in `needs` installed.
    Stub(Vec<String>),
}

/// What the reference engine says, and how bad lowstate rates it.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// lowstate's severity.
    pub severity: Severity,
    /// The reference engine's own words, or a note like `accepted silently`
    /// (the schema file's `salt:` key, for either engine).
    pub engine_says: Option<String>,
    /// `run:<case>` or `src[:file:line]` items.
    pub evidence: Vec<String>,
}

/// A deprecated or aliased argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Deprecated {
    /// The argument to use instead.
    pub use_instead: Option<String>,
    /// Severity and the engine's words.
    pub verdict: Verdict,
}

/// The rules of one argument (or property).
#[derive(Debug, Clone, Default)]
pub struct ArgRule {
    /// Generated: no default in the argspec (Salt) / `required` (Heat).
    pub required: bool,
    /// Generated: the default, when there is one.
    pub default: Option<Value>,
    /// How presence is decided for groups (§2.1).
    pub presence: Option<Presence>,
    /// Accepted types (empty: any).
    pub types: Vec<Type>,
    /// Allowed values (empty: any).
    pub values: Vec<Value>,
    /// Compare string values case-insensitively.
    pub casefold: bool,
    /// Allowed members of a list value.
    pub item_values: Vec<Value>,
    /// Members of a list value of which at most one may appear.
    pub exclusive_items: Vec<Value>,
    /// A regular expression a string value (or each string item) must match.
    pub pattern: Option<regex::Regex>,
    /// A regular expression a string value must not match.
    pub not_pattern: Option<regex::Regex>,
    /// What `pattern` means, for messages (`must be an absolute path`).
    pub expect: Option<String>,
    /// What `not_pattern` means, for messages (`must not contain a comma`).
    pub reject: Option<String>,
    /// Inclusive numeric range.
    pub range: (Option<f64>, Option<f64>),
    /// Inclusive length range (strings, lists, mappings).
    pub length: (Option<f64>, Option<f64>),
    /// Read from `**kwargs`, not in the argspec.
    pub undeclared: bool,
    /// Deprecated or an alias.
    pub deprecated: Option<Deprecated>,
    /// Refused by the function.
    pub forbidden: Option<Verdict>,
    /// What a wrong type means (default: error).
    pub on_wrong_type: Option<Verdict>,
    /// What a bad value means (default: error).
    pub on_bad_value: Option<Verdict>,
    /// What a value matching `not_pattern` means (default: `on_bad_value`).
    pub on_not_pattern: Option<Verdict>,
    /// What a breach of `exclusive_items` means (default: `on_bad_value`).
    pub on_exclusive: Option<Verdict>,
    /// A mapping's known keys (Heat's nested `schema`).
    pub keys: Option<IndexMap<String, ArgRule>>,
    /// Every list item's rules (Heat's `"*"` schema).
    pub items: Option<Box<ArgRule>>,
    /// Skip value checks (a value only the cloud can check).
    pub opaque: bool,
}

/// A group rule (§2.2): a path, or an operator over operands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// A path into the arguments (`[a, b, c]`).
    Path(Vec<String>),
    /// An operator and its operands.
    Op(Op, Vec<Expr>),
}

/// A group operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Every operand holds.
    And,
    /// At least one operand holds.
    Or,
    /// Exactly one operand holds.
    Xor,
    /// No operand holds (lowstate's extension).
    Forbid,
    /// The list values of the operand paths share no item (lowstate's
    /// extension).
    Disjoint,
}

impl Op {
    /// The lower-case keyword.
    pub fn word(self) -> &'static str {
        match self {
            Op::And => "and",
            Op::Or => "or",
            Op::Xor => "xor",
            Op::Forbid => "forbid",
            Op::Disjoint => "disjoint",
        }
    }
}

/// A group's guard (§2.4).
#[derive(Debug, Clone)]
pub enum Cond {
    /// Always check.
    Always,
    /// Check when a path inside the rule is present.
    AnyPresent,
    /// Check when every listed path is present.
    Present(Vec<Vec<String>>),
    /// Check when the argument's effective value is (not) one of `values`.
    Equals {
        /// The argument.
        arg: String,
        /// The values.
        values: Vec<Value>,
        /// Compare strings case-insensitively.
        casefold: bool,
        /// `not_equals`.
        negate: bool,
    },
    /// Check when the argument's effective value, as a string, (does not)
    /// match a regular expression.
    Matches {
        /// The argument.
        arg: String,
        /// The expression (searched, not anchored).
        pattern: regex::Regex,
        /// `not_matches`.
        negate: bool,
    },
    /// Every condition holds.
    All(Vec<Cond>),
    /// At least one condition holds.
    AnyOf(Vec<Cond>),
}

/// One group of a schema.
#[derive(Debug, Clone)]
pub struct Group {
    /// Unique in its file.
    pub id: String,
    /// The rule.
    pub rule: Expr,
    /// The guard.
    pub when: Cond,
    /// A list-of-maps argument: the group runs once per item.
    pub scope: Option<Vec<String>>,
    /// Presence mode for every path of the rule (else each argument's).
    pub presence: Option<Presence>,
    /// Severity and the engine's words.
    pub verdict: Verdict,
    /// `false`, `none`, `abort`, `accepted`, `invalid` (Heat rejects the
    /// template): what the engine's result is (the file's `salt_result:`).
    pub engine_result: Option<String>,
    /// A message replacing the generated one.
    pub message: Option<String>,
}

/// A version group (§2.5): arguments only some versions support.
#[derive(Debug, Clone)]
pub struct VersionGroup {
    /// The versioned thing: `salt`, `pip`, a client plug-in.
    pub of: String,
    /// Allowed versions: ranges (each a list of `(op, version)`, all must
    /// hold) or exact versions.
    pub allowed: Vec<(String, Vec<u64>)>,
    /// The arguments concerned.
    pub args: Vec<Vec<String>>,
    /// Presence mode for them.
    pub presence: Option<Presence>,
    /// Severity when the version is known and outside (default error) and
    /// the engine's words.
    pub verdict: Verdict,
    /// The text of `allowed` as written.
    pub allowed_text: String,
}

/// The schema of one state function or resource type.
#[derive(Debug, Clone)]
pub struct Schema {
    /// `file.managed` or `OS::Nova::Server`.
    pub name: String,
    /// `argument` (Salt) or `property` (Heat), for messages.
    pub noun: &'static str,
    /// How it loads.
    pub loaded: Loaded,
    /// What an unknown argument does.
    pub unknown_args: UnknownArgs,
    /// The engine's words for an unknown argument, if it has its own (the
    /// file's `unknown_salt:`).
    pub unknown_engine_says: Option<String>,
    /// When this argument is given, unknown arguments are template
    /// variables (Salt's `file.managed` with `template`): not reported.
    pub template_context: Option<String>,
    /// Arguments, in the engine's order.
    pub arguments: IndexMap<String, ArgRule>,
    /// Groups, checked in file order.
    pub groups: Vec<Group>,
    /// Version groups.
    pub versions: Vec<VersionGroup>,
}

/// Parse a dotted version (`3008.5`, `9.0.3`) into numbers; text after the
/// numeric part (`rc1`) is ignored.
pub fn parse_version(text: &str) -> Option<Vec<u64>> {
    let mut out = Vec::new();
    for part in text.trim().split('.') {
        let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            break;
        }
        out.push(digits.parse().ok()?);
    }
    (!out.is_empty()).then_some(out)
}

/// Compare two versions numerically (missing parts count as 0).
pub fn cmp_version(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| {
            a.get(i)
                .copied()
                .unwrap_or(0)
                .cmp(&b.get(i).copied().unwrap_or(0))
        })
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

#[cfg(test)]
mod tests;
