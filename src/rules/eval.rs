//! The evaluator: one argument mapping against one [`Schema`], in the order
//! of `spec/property-groups.md` §2.6 (names, required, values and types,
//! groups, versions), every finding reported, none stopping the others.

use super::*;
use crate::diag::{Diagnostic, Label};
use crate::value::Map;
use std::collections::BTreeMap;

/// What the evaluator needs to know about the run.
pub struct Context<'a> {
    /// The reference engine as notes name it (`Salt 3008.5`).
    pub engine: &'a str,
    /// Versions known offline: `salt` (the target) and any `--assume-version`.
    pub versions: &'a BTreeMap<String, Vec<u64>>,
    /// Heat's scalar coercions (a string property takes a number, an
    /// integer property takes `"3"`); Salt has none.
    pub lenient_scalars: bool,
    /// Values only known at run time (an unresolved intrinsic function):
    /// their type and value are not checked.
    pub unknown_value: &'a dyn Fn(&Value) -> bool,
}

/// Names the dialect allows in every function or type.
pub struct Hints<'a> {
    /// Requisites, runtime keywords: never unknown.
    pub always_allowed: &'a dyn Fn(&str) -> bool,
    /// Keywords an unknown name may be a misspelling of (requisites): such
    /// a name is an error, since what it meant is silently lost.
    pub near_misses: &'a [&'a str],
}

/// The kind of a finding (each maps to one diagnostic code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindingKind {
    /// An argument the function does not take.
    UnknownArgument,
    /// An unknown argument close to a requisite keyword.
    MisspeltRequisite,
    /// A deprecated argument or alias.
    Deprecated,
    /// A refused argument.
    Forbidden,
    /// A required argument not given.
    Missing,
    /// A value of the wrong type.
    WrongType,
    /// A value outside what is accepted.
    BadValue,
    /// A failing group.
    Group,
    /// An argument some versions do not support.
    Version,
}

impl FindingKind {
    /// The registered diagnostic code of this kind of finding.
    pub fn code(self) -> crate::diag::Code {
        use crate::diag::codes;
        match self {
            FindingKind::UnknownArgument => codes::UNKNOWN_ARGUMENT,
            FindingKind::MisspeltRequisite => codes::MISSPELT_REQUISITE,
            FindingKind::Deprecated => codes::DEPRECATED_ARGUMENT,
            FindingKind::Forbidden => codes::FORBIDDEN_ARGUMENT,
            FindingKind::Missing => codes::MISSING_ARGUMENT,
            FindingKind::WrongType => codes::WRONG_TYPE,
            FindingKind::BadValue => codes::BAD_VALUE,
            FindingKind::Group => codes::ARGUMENT_GROUP,
            FindingKind::Version => codes::ARGUMENT_VERSION,
        }
    }
}

/// One problem with one argument mapping.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// What kind of problem.
    pub kind: FindingKind,
    /// How bad.
    pub severity: Severity,
    /// The message (the engine's own wording where it has one).
    pub message: String,
    /// The top-level arguments involved (for labels), in order.
    pub args: Vec<String>,
    /// Notes: what the engine does, hints.
    pub notes: Vec<String>,
    /// The group id (for groups) or the argument rule.
    pub rule: Option<String>,
    /// The engine aborts the whole run (such findings lead a report).
    pub aborts_run: bool,
}

/// Where a finding's arguments and their owner (the state or resource they
/// belong to) were written, and how a front end shows them.
pub struct Placement<'a> {
    /// The label of a top-level argument, by name.
    pub arg: &'a dyn Fn(&str) -> Option<Label>,
    /// The owner's label: primary unless the finding names one located
    /// argument.
    pub owner: Option<Label>,
    /// Show the owner beside a single located argument too.
    pub owner_beside_arg: bool,
    /// The message of each label when the finding names several
    /// arguments (`None`: the labels' own).
    pub involved: Option<&'a str>,
}

impl Finding {
    /// This finding as a located diagnostic (its code, severity, message
    /// and notes): one located argument is the primary label, otherwise the
    /// owner is, with every located argument beside it.
    pub fn into_diagnostic(self, place: Placement<'_>) -> Diagnostic {
        let mut d = Diagnostic::new(self.kind.code(), self.message);
        d.severity = self.severity;
        let mut labels: Vec<Label> = self.args.iter().filter_map(|a| (place.arg)(a)).collect();
        if self.args.len() == 1 && labels.len() == 1 {
            d = d.with_primary(labels.remove(0));
            if place.owner_beside_arg {
                d = d.with_secondaries(place.owner);
            }
        } else {
            d = d.or_primary(place.owner);
            if let Some(message) = place.involved {
                for l in &mut labels {
                    l.message = message.into();
                }
            }
            d = d.with_secondaries(labels);
        }
        for n in self.notes {
            d = d.with_note(n);
        }
        d
    }
}

/// Check `args` (the arguments of one state or resource, without the
/// dialect's internal keys) against `schema`.
pub fn check(schema: &Schema, args: &Map, hints: &Hints<'_>, ctx: &Context<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let subject = &schema.name;
    // (2) names: unknown, deprecated, forbidden.
    let mut unknown = Vec::new();
    for (k, v) in args.iter() {
        let Some(name) = k.as_str() else { continue };
        match schema.arguments.get(name) {
            Some(rule) => {
                if let Some(d) = &rule.deprecated {
                    let mut f = finding(
                        FindingKind::Deprecated,
                        d.verdict.severity,
                        match &d.use_instead {
                            Some(u) => format!("{subject}: `{name}` is deprecated; use `{u}`"),
                            None => format!("{subject}: `{name}` is deprecated"),
                        },
                        vec![name.to_string()],
                    );
                    f.notes.extend(engine_note(ctx, &d.verdict, None));
                    out.push(f);
                }
                if let Some(v2) = &rule.forbidden {
                    if !v.is_null() || schema.noun == "argument" {
                        let mut f = finding(
                            FindingKind::Forbidden,
                            v2.severity,
                            format!("{subject}: `{name}` is not allowed"),
                            vec![name.to_string()],
                        );
                        f.notes.extend(engine_note(ctx, v2, None));
                        out.push(f);
                    }
                }
            }
            None if (hints.always_allowed)(name) => {}
            None => unknown.push(name.to_string()),
        }
    }
    let templated = schema
        .template_context
        .as_ref()
        .is_some_and(|t| args.get(t.as_str()).is_some_and(Value::truthy));
    if templated {
        // Template variables; only a misspelt requisite is still worth saying.
        unknown.retain(|n| near_miss(n, hints).is_some());
    }
    unknown_findings(schema, &unknown, hints, ctx, &mut out);
    // (3) required.
    for (name, rule) in &schema.arguments {
        if !rule.required {
            continue;
        }
        let missing = match args.get(name.as_str()) {
            None => true,
            Some(v) => schema.noun == "property" && v.is_null(),
        };
        if missing {
            let message = if schema.noun == "property" {
                format!("Property {name} not assigned")
            } else {
                format!("Missing parameter {name} for state {subject}")
            };
            out.push(finding(
                FindingKind::Missing,
                Severity::Error,
                message,
                vec![],
            ));
        }
    }
    // (4) single-argument value and type rules.
    for (name, rule) in &schema.arguments {
        if let Some(v) = args.get(name.as_str()) {
            value_rules(schema, name, name, rule, v, ctx, &mut out);
        }
    }
    // (5) groups, in file order.
    for g in &schema.groups {
        group_findings(schema, g, args, ctx, &mut out);
    }
    // (6) version groups.
    for vg in &schema.versions {
        version_findings(schema, vg, args, ctx, &mut out);
    }
    for f in &mut out {
        fill_placeholders(f, args);
    }
    out
}

/// The engine's messages in schema files say `{name}` (the state's name),
/// `{arg}` and `{value}` (the argument a finding is about, and its value)
/// where the engine prints the input; fill them in.
fn fill_placeholders(f: &mut Finding, args: &Map) {
    let name = args.get("name").map(Value::py_str).unwrap_or_default();
    let arg = f.args.first().cloned().unwrap_or_default();
    let value = args
        .get(arg.as_str())
        .map(Value::py_str)
        .unwrap_or_default();
    for n in &mut f.notes {
        if n.contains('{') {
            *n = n
                .replace("{name}", &name)
                .replace("{arg}", &arg)
                .replace("{value}", &value);
        }
    }
}

fn finding(kind: FindingKind, severity: Severity, message: String, args: Vec<String>) -> Finding {
    Finding {
        kind,
        severity,
        message,
        args,
        notes: Vec::new(),
        rule: None,
        aborts_run: false,
    }
}

/// The note saying what the engine does, from a verdict.
fn engine_note(ctx: &Context<'_>, v: &Verdict, result: Option<&str>) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(text) = &v.engine_says {
        // Prose about what the engine does (not its own words) is not quoted.
        let plain = [
            "accepted",
            "none",
            "result ",
            "sets result",
            "fails with",
            "ignores",
        ]
        .iter()
        .any(|p| text.starts_with(p));
        let note = if plain {
            format!("{} {text}", ctx.engine)
        } else {
            let verb = match result {
                Some("abort") => "aborts the whole run with",
                Some("none") => "returns result None (not a failure) with",
                Some("accepted") => "accepts this and says",
                Some("invalid") => "rejects the template with",
                Some("false") => "fails this state at run time with",
                _ if v.severity == Severity::Error => "fails this state at run time with",
                _ => "accepts this and says",
            };
            format!("{} {verb}: `{text}`", ctx.engine)
        };
        notes.push(note);
    }
    if !v.evidence.is_empty() && !v.evidence.iter().any(|e| e.starts_with("run:")) {
        notes.push("from reading the engine's source (not verified by a run)".to_string());
    }
    notes
}

fn unknown_findings(
    schema: &Schema,
    unknown: &[String],
    hints: &Hints<'_>,
    ctx: &Context<'_>,
    out: &mut Vec<Finding>,
) {
    let subject = &schema.name;
    let mut plain = Vec::new();
    for name in unknown {
        if let Some(req) = near_miss(name, hints) {
            let mut f = finding(
                FindingKind::MisspeltRequisite,
                Severity::Error,
                format!("{subject}: unknown argument `{name}` looks like the requisite `{req}`"),
                vec![name.clone()],
            );
            f.notes.push(match schema.unknown_args {
                UnknownArgs::AbortRun => format!("{} aborts the whole run on it", ctx.engine),
                _ => format!(
                    "{} accepts it silently: the ordering `{req}` would add is lost",
                    ctx.engine
                ),
            });
            out.push(f);
            continue;
        }
        plain.push(name.clone());
    }
    for name in &plain {
        let (severity, message, note) = match schema.unknown_args {
            UnknownArgs::Ignore => (
                Severity::Warning,
                format!("{subject}: unknown {} `{name}`", schema.noun),
                format!("{} accepts it silently and ignores it", ctx.engine),
            ),
            UnknownArgs::PassThrough => (
                Severity::Info,
                format!("{subject}: `{name}` is not a declared {}", schema.noun),
                format!(
                    "{} passes it on to the execution module, which may use it",
                    ctx.engine
                ),
            ),
            UnknownArgs::FailState => (
                Severity::Error,
                format!("{subject}: unknown {} `{name}`", schema.noun),
                format!(
                    "{} fails this state at run time with: `{}`",
                    ctx.engine,
                    schema
                        .unknown_engine_says
                        .as_deref()
                        .unwrap_or("invalid keyword arguments")
                ),
            ),
            UnknownArgs::AbortRun => {
                let quoted: Vec<String> = plain.iter().map(|n| format!("'{n}'")).collect();
                let words = if quoted.len() == 1 {
                    format!(
                        "Passed invalid arguments: {} is an invalid keyword argument for '{subject}'.",
                        quoted[0]
                    )
                } else {
                    let (last, rest) = quoted.split_last().unwrap_or((&quoted[0], &[]));
                    format!(
                        "Passed invalid arguments: {} and {last} are invalid keyword arguments for '{subject}'.",
                        rest.join(", ")
                    )
                };
                (
                    Severity::Error,
                    format!("{subject}: unknown {} `{name}`", schema.noun),
                    format!(
                        "{} aborts the whole run with: `{words}` (states ordered before this one have already run)",
                        ctx.engine
                    ),
                )
            }
            UnknownArgs::Invalid => (
                Severity::Error,
                format!("Unknown Property {name}"),
                format!("{} rejects the template", ctx.engine),
            ),
        };
        let mut f = finding(
            FindingKind::UnknownArgument,
            severity,
            message,
            vec![name.clone()],
        );
        f.aborts_run = schema.unknown_args == UnknownArgs::AbortRun;
        f.notes.push(note);
        if let Some(best) = suggest(name, schema.arguments.keys().map(String::as_str)) {
            f.notes.push(format!("did you mean `{best}`?"));
            // Passed on, but so close to a known name that it is most
            // likely a misspelling of it (which then does nothing).
            if f.severity == Severity::Info {
                f.severity = Severity::Warning;
            }
        }
        out.push(f);
    }
}

/// The requisite keyword `name` is probably a misspelling of: same first
/// letter, within edit distance 1 (2 for keywords longer than five).
fn near_miss<'h>(name: &str, hints: &Hints<'h>) -> Option<&'h str> {
    hints.near_misses.iter().copied().find(|r| {
        let allowed = if r.len() > 5 { 2 } else { 1 };
        name != *r && name.chars().next() == r.chars().next() && edit_distance(name, r) <= allowed
    })
}

/// The known name closest to `name`, within edit distance 2.
pub(crate) fn suggest<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    known
        .map(|k| (edit_distance(name, k), k))
        .filter(|(d, k)| *d <= 2.min(k.len() / 2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance (characters).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Whether `v` has type `t`. `lenient` is Heat's coercion when it reads a
/// property (heat/engine/properties.py, `Property._get_*`): a string
/// takes an integer or a boolean (`str(value)`) but not a float; an
/// integer takes what Python's `int()` takes (a boolean, a finite float, a
/// string of digits); a number takes any number or boolean and a string
/// `int()` or `float()` reads; a boolean takes only `true`/`false` in any
/// case as a string; lists and maps are never converted.
fn type_ok(t: Type, v: &Value, lenient: bool) -> bool {
    match (t, v) {
        (Type::String, Value::Str(_)) => true,
        (Type::String, Value::Int(_) | Value::Bool(_)) => lenient,
        (Type::Integer, Value::Int(_)) => true,
        (Type::Integer, Value::Bool(_)) => lenient,
        (Type::Integer, Value::Float(f)) => lenient && f.is_finite(),
        (Type::Integer, Value::Str(s)) => lenient && py_int(s),
        (Type::Float, Value::Float(_)) => true,
        (Type::Number, Value::Int(_) | Value::Float(_)) => true,
        (Type::Number, Value::Bool(_)) => lenient,
        (Type::Number, Value::Str(s)) => lenient && (py_int(s) || py_float(s).is_some()),
        (Type::Boolean, Value::Bool(_)) => true,
        (Type::Boolean, Value::Str(s)) => {
            lenient && (s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("false"))
        }
        (Type::List, Value::List(_)) => true,
        (Type::Mapping, Value::Map(_)) => true,
        (Type::Null, Value::Null) => true,
        _ => false,
    }
}

/// What Python's `int(str)` reads: surrounding whitespace, a sign, digits.
fn py_int(s: &str) -> bool {
    crate::value::pynum::parse_int(s, 10).is_some()
}

/// What Python's `float(str)` reads, as a number.
fn py_float(s: &str) -> Option<f64> {
    crate::value::pynum::parse_float(s)
}

fn type_word(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Int(_) => "integer",
        Value::Float(_) => "float",
        Value::Str(_) => "string",
        Value::List(_) => "list",
        Value::Map(_) => "mapping",
    }
}

/// `a` or `an` before a word.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

fn words(types: &[Type]) -> String {
    let w: Vec<&str> = types.iter().map(|t| t.word()).collect();
    match w.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => w.join(""),
    }
}

fn same_value(a: &Value, b: &Value, casefold: bool, lenient: bool) -> bool {
    if a == b {
        return true;
    }
    match (a, b) {
        (Value::Str(x), Value::Str(y)) if casefold => x.to_lowercase() == y.to_lowercase(),
        (Value::Bool(_), _) | (_, Value::Bool(_)) => false,
        (
            Value::Str(_) | Value::Int(_) | Value::Float(_),
            Value::Str(_) | Value::Int(_) | Value::Float(_),
        ) if lenient => a.py_str() == b.py_str(),
        _ => false,
    }
}

fn show(v: &Value) -> String {
    let s = v.py_repr();
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s
    }
}

fn list_of(values: &[Value]) -> String {
    values
        .iter()
        .map(Value::py_str)
        .collect::<Vec<_>>()
        .join(", ")
}

fn number(v: &Value, lenient: bool) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        Value::Bool(b) if lenient => Some(f64::from(u8::from(*b))),
        Value::Str(s) if lenient => py_float(s),
        _ => None,
    }
}

fn out_of(bounds: (Option<f64>, Option<f64>), n: f64) -> bool {
    bounds.0.is_some_and(|lo| n < lo) || bounds.1.is_some_and(|hi| n > hi)
}

fn bounds_text(b: (Option<f64>, Option<f64>)) -> String {
    let f = |x: f64| {
        if x.fract() == 0.0 && x.abs() < 1e15 {
            format!("{}", x as i64)
        } else {
            format!("{x}")
        }
    };
    match b {
        (Some(lo), Some(hi)) => format!("between {} and {}", f(lo), f(hi)),
        (Some(lo), None) => format!("at least {}", f(lo)),
        (None, Some(hi)) => format!("at most {}", f(hi)),
        (None, None) => String::new(),
    }
}

/// A finding of one argument's rule: its verdict (default: an error with
/// no word from the engine), the engine's note, the rule's path.
fn rule_finding(
    kind: FindingKind,
    verdict: Option<&Verdict>,
    message: String,
    top: &str,
    path: &str,
    ctx: &Context<'_>,
) -> Finding {
    let verdict = verdict.cloned().unwrap_or(Verdict {
        severity: Severity::Error,
        engine_says: None,
        evidence: Vec::new(),
    });
    let mut f = finding(kind, verdict.severity, message, vec![top.to_string()]);
    f.notes.extend(engine_note(ctx, &verdict, None));
    f.rule = Some(path.to_string());
    f
}

/// Type and value rules of one argument (`path` names it in messages;
/// `top` is the top-level argument it belongs to).
fn value_rules(
    schema: &Schema,
    top: &str,
    path: &str,
    rule: &ArgRule,
    v: &Value,
    ctx: &Context<'_>,
    out: &mut Vec<Finding>,
) {
    if v.is_null() || rule.opaque || (ctx.unknown_value)(v) {
        return;
    }
    let subject = &schema.name;
    let lenient = ctx.lenient_scalars;
    let bad_value_as = |out: &mut Vec<Finding>, message: String, special: Option<&Verdict>| {
        let verdict = special.or(rule.on_bad_value.as_ref());
        out.push(rule_finding(
            FindingKind::BadValue,
            verdict,
            message,
            top,
            path,
            ctx,
        ));
    };
    let bad_value = |out: &mut Vec<Finding>, message: String| bad_value_as(out, message, None);
    if !rule.types.is_empty() && !rule.types.iter().any(|t| type_ok(*t, v, lenient)) {
        let expected = format!(
            "{} {}, not {} {} ({})",
            article(rule.types[0].word()),
            words(&rule.types),
            article(type_word(v)),
            type_word(v),
            show(v)
        );
        let message = if schema.noun == "property" {
            format!("Property error: {path}: Value must be {expected}")
        } else {
            format!("{subject}: `{path}` must be {expected}")
        };
        out.push(rule_finding(
            FindingKind::WrongType,
            rule.on_wrong_type.as_ref(),
            message,
            top,
            path,
            ctx,
        ));
        return;
    }
    if !rule.values.is_empty()
        && !rule
            .values
            .iter()
            .any(|a| same_value(v, a, rule.casefold, lenient))
    {
        bad_value(
            out,
            format!(
                "{subject}: `{path}` must be one of {}, not {}",
                list_of(&rule.values),
                show(v)
            ),
        );
    }
    if let Value::List(items) = v {
        if !rule.item_values.is_empty() {
            let bad: Vec<String> = items
                .iter()
                .filter(|i| {
                    !rule
                        .item_values
                        .iter()
                        .any(|a| same_value(i, a, rule.casefold, lenient))
                })
                .map(show)
                .collect();
            if !bad.is_empty() {
                bad_value(
                    out,
                    format!(
                        "{subject}: items of `{path}` must be among {}, not {}",
                        list_of(&rule.item_values),
                        bad.join(", ")
                    ),
                );
            }
        }
        if !rule.exclusive_items.is_empty() {
            let found: Vec<&Value> = rule
                .exclusive_items
                .iter()
                .filter(|x| items.iter().any(|i| same_value(i, x, false, lenient)))
                .collect();
            if found.len() > 1 {
                let names: Vec<String> = found.iter().map(|x| x.py_str()).collect();
                bad_value_as(
                    out,
                    format!(
                        "{subject}: `{path}` must not hold {} together",
                        names.join(" and ")
                    ),
                    rule.on_exclusive.as_ref(),
                );
            }
        }
    }
    let strings: Vec<&str> = match v {
        Value::Str(s) => vec![s.as_str()],
        Value::List(items) if rule.items.is_none() => {
            items.iter().filter_map(Value::as_str).collect()
        }
        _ => Vec::new(),
    };
    if let Some(re) = &rule.pattern {
        if let Some(s) = strings.iter().find(|s| !re.is_match(s)) {
            bad_value(
                out,
                format!(
                    "{subject}: `{path}` value {} does not match `{}`",
                    show(&Value::str(*s)),
                    re.as_str()
                ),
            );
        }
    }
    if let Some(re) = &rule.not_pattern {
        if let Some(s) = strings.iter().find(|s| re.is_match(s)) {
            bad_value(
                out,
                format!(
                    "{subject}: `{path}` value {} is not accepted",
                    show(&Value::str(*s))
                ),
            );
        }
    }
    if rule.range != (None, None) {
        if let Some(n) = number(v, lenient) {
            if out_of(rule.range, n) {
                bad_value(
                    out,
                    format!(
                        "{subject}: `{path}` is {}, it must be {}",
                        v.py_str(),
                        bounds_text(rule.range)
                    ),
                );
            }
        }
    }
    if rule.length != (None, None) {
        let len = match v {
            Value::Str(s) => Some(s.chars().count()),
            Value::List(l) => Some(l.len()),
            Value::Map(m) => Some(m.len()),
            _ => None,
        };
        if let Some(n) = len {
            if out_of(rule.length, n as f64) {
                bad_value(
                    out,
                    format!(
                        "{subject}: `{path}` has length {n}, it must be {}",
                        bounds_text(rule.length)
                    ),
                );
            }
        }
    }
    if let (Some(keys), Value::Map(m)) = (&rule.keys, v) {
        nested_map(schema, top, path, keys, m, ctx, out);
    }
    if let (Some(item), Value::List(items)) = (&rule.items, v) {
        for (i, x) in items.iter().enumerate() {
            value_rules(schema, top, &format!("{path}[{i}]"), item, x, ctx, out);
        }
    }
}

/// A mapping value with known keys (Heat's nested schema): unknown and
/// missing keys, then each key's rules.
fn nested_map(
    schema: &Schema,
    top: &str,
    path: &str,
    keys: &IndexMap<String, ArgRule>,
    m: &Map,
    ctx: &Context<'_>,
    out: &mut Vec<Finding>,
) {
    for (k, _) in m.iter() {
        let Some(k) = k.as_str() else { continue };
        if !keys.contains_key(k) && !keys.contains_key("*") {
            let (severity, message) = match schema.unknown_args {
                UnknownArgs::Invalid => (
                    Severity::Error,
                    format!("Property error: {path}: Unknown Property {k}"),
                ),
                _ => (
                    Severity::Warning,
                    format!("{}: unknown key `{k}` in `{path}`", schema.name),
                ),
            };
            let mut f = finding(
                FindingKind::UnknownArgument,
                severity,
                message,
                vec![top.to_string()],
            );
            if let Some(best) = suggest(k, keys.keys().map(String::as_str)) {
                f.notes.push(format!("did you mean `{best}`?"));
            }
            out.push(f);
        }
    }
    for (k, r) in keys {
        if k == "*" {
            for (mk, mv) in m.iter() {
                value_rules(
                    schema,
                    top,
                    &format!("{path}.{}", mk.py_str()),
                    r,
                    mv,
                    ctx,
                    out,
                );
            }
            continue;
        }
        match m.get(k.as_str()) {
            Some(v) if !v.is_null() => {
                value_rules(schema, top, &format!("{path}.{k}"), r, v, ctx, out)
            }
            _ if r.required => out.push(finding(
                FindingKind::Missing,
                Severity::Error,
                if schema.noun == "property" {
                    format!("Property error: {path}: Property {k} not assigned")
                } else {
                    format!("{}: `{path}` needs the key `{k}`", schema.name)
                },
                vec![top.to_string()],
            )),
            _ => {}
        }
    }
}

/// The value at a path, if every step exists.
fn lookup<'v>(root: &'v Map, path: &[String]) -> Option<&'v Value> {
    let (first, rest) = path.split_first()?;
    let mut v = root.get(first.as_str())?;
    for step in rest {
        v = v.as_map()?.get(step.as_str())?;
    }
    Some(v)
}

struct Scope<'a> {
    schema: &'a Schema,
    root: &'a Map,
    presence: Option<Presence>,
    top: bool,
}

impl Scope<'_> {
    fn rule_of(&self, path: &[String]) -> Option<&ArgRule> {
        if !self.top || path.len() != 1 {
            return None;
        }
        self.schema.arguments.get(path[0].as_str())
    }
    fn present(&self, path: &[String]) -> bool {
        let rule = self.rule_of(path);
        let mode = self
            .presence
            .or(rule.and_then(|r| r.presence))
            .unwrap_or(Presence::NotNull);
        match lookup(self.root, path) {
            None => false,
            Some(v) => match mode {
                Presence::Given => true,
                Presence::NotNull => !v.is_null(),
                Presence::Truthy => v.truthy(),
                Presence::NonDefault => match rule.and_then(|r| r.default.as_ref()) {
                    Some(d) => v != d,
                    None => !v.is_null(),
                },
            },
        }
    }
    /// The given value, else the argspec default.
    fn effective(&self, arg: &str) -> Option<Value> {
        match self.root.get(arg) {
            Some(v) if !v.is_null() || self.rule_of(&[arg.to_string()]).is_none() => {
                Some(v.clone())
            }
            _ => self
                .rule_of(&[arg.to_string()])
                .and_then(|r| r.default.clone()),
        }
    }
    fn eval(&self, e: &Expr) -> bool {
        match e {
            Expr::Path(p) => self.present(p),
            Expr::Op(op, xs) => {
                let n = xs.iter().filter(|x| self.eval(x)).count();
                match op {
                    Op::And => n == xs.len(),
                    Op::Or => n >= 1,
                    Op::Xor => n == 1,
                    Op::Forbid => n == 0,
                    Op::Disjoint => self.shared(xs).is_empty(),
                }
            }
        }
    }
    /// Items the list values of the paths share.
    fn shared(&self, xs: &[Expr]) -> Vec<String> {
        let lists: Vec<Vec<String>> = xs
            .iter()
            .filter_map(|x| match x {
                Expr::Path(p) => lookup(self.root, p),
                Expr::Op(..) => None,
            })
            .map(|v| match v {
                Value::List(l) => l.iter().map(Value::py_str).collect(),
                Value::Null => Vec::new(),
                other => vec![other.py_str()],
            })
            .collect();
        let mut out = Vec::new();
        for (i, a) in lists.iter().enumerate() {
            for item in a {
                if lists[i + 1..].iter().any(|b| b.contains(item)) && !out.contains(item) {
                    out.push(item.clone());
                }
            }
        }
        out
    }
    fn cond(&self, c: &Cond, rule: &Expr) -> bool {
        match c {
            Cond::Always => true,
            Cond::AnyPresent => leaves(rule).iter().any(|p| self.present(p)),
            Cond::Present(ps) => ps.iter().all(|p| self.present(p)),
            Cond::Equals {
                arg,
                values,
                casefold,
                negate,
            } => {
                let v = self.effective(arg).unwrap_or(Value::Null);
                let hit = values.iter().any(|x| same_value(&v, x, *casefold, false));
                hit != *negate
            }
            Cond::Matches {
                arg,
                pattern,
                negate,
            } => {
                let v = self.effective(arg).unwrap_or(Value::Null);
                let hit = !v.is_null() && pattern.is_match(&v.py_str());
                hit != *negate
            }
            Cond::All(cs) => cs.iter().all(|c| self.cond(c, rule)),
            Cond::AnyOf(cs) => cs.iter().any(|c| self.cond(c, rule)),
        }
    }
}

fn leaves(e: &Expr) -> Vec<&Vec<String>> {
    match e {
        Expr::Path(p) => vec![p],
        Expr::Op(_, xs) => xs.iter().flat_map(leaves).collect(),
    }
}

/// `arguments`, `properties`.
fn plural(noun: &str) -> String {
    match noun.strip_suffix('y') {
        Some(stem) => format!("{stem}ies"),
        None => format!("{noun}s"),
    }
}

fn name_of(p: &[String], noun: &str) -> String {
    p.join(if noun == "property" { "." } else { ":" })
}

fn cond_text(c: &Cond, noun: &str) -> Option<String> {
    match c {
        Cond::Always | Cond::AnyPresent => None,
        Cond::Present(ps) => Some(format!(
            "with {}",
            ps.iter()
                .map(|p| name_of(p, noun))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        Cond::Equals {
            arg,
            values,
            negate,
            ..
        } => Some(format!(
            "when {arg} is {}{}",
            if *negate { "not " } else { "" },
            values
                .iter()
                .map(Value::py_str)
                .collect::<Vec<_>>()
                .join(" or ")
        )),
        Cond::Matches {
            arg,
            pattern,
            negate,
        } => Some(format!(
            "when {arg} {} `{}`",
            if *negate { "does not match" } else { "matches" },
            pattern.as_str()
        )),
        Cond::All(cs) => {
            let parts: Vec<String> = cs.iter().filter_map(|c| cond_text(c, noun)).collect();
            (!parts.is_empty()).then(|| parts.join(" and "))
        }
        Cond::AnyOf(cs) => {
            let parts: Vec<String> = cs.iter().filter_map(|c| cond_text(c, noun)).collect();
            (!parts.is_empty()).then(|| parts.join(" or "))
        }
    }
}

fn group_findings(
    schema: &Schema,
    g: &Group,
    args: &Map,
    ctx: &Context<'_>,
    out: &mut Vec<Finding>,
) {
    let roots: Vec<(&Map, Option<usize>)> = match &g.scope {
        None => vec![(args, None)],
        Some(p) => match lookup(args, p) {
            Some(Value::List(items)) => items
                .iter()
                .enumerate()
                .filter_map(|(i, x)| x.as_map().map(|m| (m, Some(i))))
                .collect(),
            Some(Value::Map(m)) => vec![(m, None)],
            _ => Vec::new(),
        },
    };
    for (root, index) in roots {
        let scope = Scope {
            schema,
            root,
            presence: g.presence,
            top: g.scope.is_none(),
        };
        if !scope.cond(&g.when, &g.rule) || scope.eval(&g.rule) {
            continue;
        }
        let noun = schema.noun;
        let all: Vec<String> = leaves(&g.rule).iter().map(|p| name_of(p, noun)).collect();
        let present: Vec<String> = leaves(&g.rule)
            .iter()
            .filter(|p| scope.present(p))
            .map(|p| name_of(p, noun))
            .collect();
        let absent: Vec<String> = leaves(&g.rule)
            .iter()
            .filter(|p| !scope.present(p))
            .map(|p| name_of(p, noun))
            .collect();
        let guard = cond_text(&g.when, noun);
        let text = match &g.rule {
            Expr::Path(_) => format!("{} is required", all.join(", ")),
            Expr::Op(op, xs) => {
                let n = xs.iter().filter(|x| scope.eval(x)).count();
                match op {
                    Op::Xor if n > 1 => {
                        format!(
                            "cannot use these {} together: {}",
                            plural(noun),
                            present.join(", ")
                        )
                    }
                    Op::Xor | Op::Or => format!(
                        "at least one of these {} is required: {}",
                        plural(noun),
                        all.join(", ")
                    ),
                    Op::And => match &g.when {
                        Cond::Present(ps) if g.verdict.severity == Severity::Error => format!(
                            "{} requires {}",
                            ps.iter()
                                .map(|p| name_of(p, noun))
                                .collect::<Vec<_>>()
                                .join(", "),
                            absent.join(", ")
                        ),
                        Cond::Present(ps) => format!(
                            "{} has no effect without {}",
                            ps.iter()
                                .map(|p| name_of(p, noun))
                                .collect::<Vec<_>>()
                                .join(", "),
                            absent.join(", ")
                        ),
                        _ => format!("{} is required", absent.join(", ")),
                    },
                    Op::Forbid => format!("{} cannot be used", present.join(", ")),
                    Op::Disjoint => format!(
                        "{} must not share items: {}",
                        all.join(" and "),
                        scope.shared(xs).join(", ")
                    ),
                }
            }
        };
        let text = match (&guard, &g.rule) {
            (Some(gt), Expr::Op(Op::And, _)) if !matches!(g.when, Cond::Present(_)) => {
                format!("{text} {gt}")
            }
            (Some(gt), Expr::Op(Op::Forbid | Op::Or | Op::Xor, _)) => format!("{text} {gt}"),
            _ => text,
        };
        let at = match (&g.scope, index) {
            (Some(p), Some(i)) => format!(" (in {}[{i}])", name_of(p, noun)),
            (Some(p), None) => format!(" (in {})", name_of(p, noun)),
            _ => String::new(),
        };
        let message = g
            .message
            .clone()
            .unwrap_or_else(|| format!("{}: {text}{at}", schema.name));
        let mut involved: Vec<String> = Vec::new();
        let mut add = |p: &Vec<String>| {
            let top = match &g.scope {
                Some(s) => s[0].clone(),
                None => p[0].clone(),
            };
            if !involved.contains(&top) {
                involved.push(top);
            }
        };
        for p in leaves(&g.rule) {
            if scope.present(p) {
                add(p);
            }
        }
        if let Cond::Present(ps) = &g.when {
            ps.iter().for_each(&mut add);
        }
        let mut f = finding(FindingKind::Group, g.verdict.severity, message, involved);
        f.notes
            .extend(engine_note(ctx, &g.verdict, g.engine_result.as_deref()));
        f.rule = Some(g.id.clone());
        f.aborts_run = g.engine_result.as_deref() == Some("abort");
        out.push(f);
    }
}

fn version_findings(
    schema: &Schema,
    vg: &VersionGroup,
    args: &Map,
    ctx: &Context<'_>,
    out: &mut Vec<Finding>,
) {
    let scope = Scope {
        schema,
        root: args,
        presence: vg.presence,
        top: true,
    };
    let used: Vec<String> = vg
        .args
        .iter()
        .filter(|p| scope.present(p))
        .map(|p| name_of(p, schema.noun))
        .collect();
    if used.is_empty() {
        return;
    }
    let names = used
        .iter()
        .map(|u| format!("`{u}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let tops: Vec<String> = vg
        .args
        .iter()
        .filter(|p| scope.present(p))
        .map(|p| p[0].clone())
        .collect();
    match ctx.versions.get(&vg.of) {
        Some(have) => {
            if allows(&vg.allowed, have) {
                return;
            }
            let have_text = have
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(".");
            let mut f = finding(
                FindingKind::Version,
                vg.verdict.severity,
                format!(
                    "{}: {names} needs {} {}, not {have_text}",
                    schema.name, vg.of, vg.allowed_text
                ),
                tops,
            );
            f.notes.extend(engine_note(ctx, &vg.verdict, None));
            out.push(f);
        }
        None => {
            let mut f = finding(
                FindingKind::Version,
                Severity::Info,
                format!(
                    "{}: {names} needs {} {}",
                    schema.name, vg.of, vg.allowed_text
                ),
                tops,
            );
            f.notes.push(format!(
                "{} checks this against the minion's {} at run time; state the version with `--assume-version {}=VERSION`",
                ctx.engine, vg.of, vg.of
            ));
            if let Some(s) = &vg.verdict.engine_says {
                f.notes.push(format!("there it says: `{s}`"));
            }
            out.push(f);
        }
    }
}

fn allows(allowed: &[(String, Vec<u64>)], have: &[u64]) -> bool {
    use std::cmp::Ordering::*;
    let exact: Vec<&Vec<u64>> = allowed
        .iter()
        .filter(|(op, _)| op == "one-of")
        .map(|(_, v)| v)
        .collect();
    if !exact.is_empty() {
        return exact.iter().any(|v| cmp_version(have, v) == Equal);
    }
    allowed.iter().all(|(op, v)| {
        let o = cmp_version(have, v);
        match op.as_str() {
            ">=" => o != Less,
            "<=" => o != Greater,
            ">" => o == Greater,
            "<" => o == Less,
            "!=" => o != Equal,
            _ => o == Equal,
        }
    })
}
