//! Parameters (spec §5–§6): definitions, where a value comes from, the
//! conversion per type, constraints (the default is part of the schema),
//! the display form, pseudo parameters and `parameter_groups`.

use super::env::Environment;
use super::template::Template;
use super::{error, json_dumps, PARAMETER};
use crate::diag::{codes, Diagnostic};
use crate::value::{Map, Value};

/// How Heat shows a hidden parameter's value (its listing, its messages,
/// lowstate's text plan).
pub const HIDDEN: &str = "******";

/// A parameter's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    /// `string`.
    String,
    /// `number`.
    Number,
    /// `comma_delimited_list`.
    List,
    /// `json`.
    Json,
    /// `boolean`.
    Boolean,
}

impl Type {
    pub(crate) fn parse(s: &str) -> Option<Type> {
        Some(match s {
            "string" => Type::String,
            "number" => Type::Number,
            "comma_delimited_list" => Type::List,
            "json" => Type::Json,
            "boolean" => Type::Boolean,
            _ => return None,
        })
    }

    /// The name as written in templates.
    pub fn name(self) -> &'static str {
        match self {
            Type::String => "string",
            Type::Number => "number",
            Type::List => "comma_delimited_list",
            Type::Json => "json",
            Type::Boolean => "boolean",
        }
    }
}

/// One constraint.
#[derive(Debug, Clone)]
enum Rule {
    Length(Option<Value>, Option<Value>),
    Range(Option<Value>, Option<Value>),
    AllowedValues(Vec<Value>),
    AllowedPattern(String),
    Custom(String),
}

#[derive(Debug, Clone)]
struct Constraint {
    rule: Rule,
    description: Option<String>,
}

/// A declared parameter with its value.
#[derive(Debug, Clone)]
pub struct Param {
    /// The name.
    pub name: String,
    /// The type.
    pub ty: Type,
    /// The typed value functions see.
    pub value: Value,
    /// Heat's text form (§5.4).
    pub display: String,
    /// `parameters`, `parameter_defaults`, `default`, or `deferred` (a
    /// nested stack's parameter whose value is the parent's expression, or
    /// one without a value kept as its `get_param` under [`Unset::Deferred`]).
    pub source: &'static str,
    /// `hidden` (tested for truth).
    pub hidden: bool,
    /// `immutable`.
    pub immutable: bool,
    /// `label` (the name by default).
    pub label: Value,
    /// `description` (`""` by default).
    pub description: Value,
}

impl Param {
    /// The corpus' JSON object for this parameter (hidden values masked).
    pub fn to_value(&self) -> Value {
        let mut m = Map::with_capacity(8);
        m.insert("type".into(), self.ty.name().into());
        m.insert("value".into(), self.shown_value());
        let display = match self.masked() {
            true => Value::str(HIDDEN),
            false => Value::str(self.display.as_str()),
        };
        m.insert("display".into(), display);
        m.insert("source".into(), self.source.into());
        m.insert("hidden".into(), Value::Bool(self.hidden));
        m.insert("immutable".into(), Value::Bool(self.immutable));
        m.insert("label".into(), self.label.clone());
        m.insert("description".into(), self.description.clone());
        Value::Map(m)
    }
}

impl Param {
    /// Whether the value is shown masked: hidden, and not the parent's
    /// expression.
    fn masked(&self) -> bool {
        self.hidden && self.source != "deferred"
    }

    /// The value as the document shows it (masked when hidden).
    fn shown_value(&self) -> Value {
        match self.masked() {
            true => Value::str(HIDDEN),
            false => self.value.clone(),
        }
    }

    /// The parameter in a nested stack's view: `{type, value, source}`.
    pub fn nested_view(&self) -> Value {
        let mut m = Map::with_capacity(3);
        m.push_distinct("type".into(), self.ty.name().into());
        m.push_distinct("value".into(), self.shown_value());
        m.push_distinct("source".into(), self.source.into());
        Value::Map(m)
    }
}

/// The pseudo parameters a template can read.
pub const PSEUDO: &[&str] = &["OS::stack_id", "OS::stack_name", "OS::project_id"];

/// Build every declared parameter, in template order, checking Heat's
/// step 6 (unknown values first, then each parameter's schema and value);
/// the error is the first Heat reports.
pub fn build(
    t: &Template,
    env: &Environment,
    deferred: &Map,
    unset: Unset,
    notes: &mut Vec<String>,
) -> Result<Vec<Param>, Diagnostic> {
    let (params, errors) = build_all(t, env, deferred, unset, notes)?;
    match errors.into_iter().next() {
        Some(first) => Err(first),
        None => Ok(params),
    }
}

/// Each parameter's declared type, by name (for the merge strategies).
pub fn declared_types(t: &Template) -> std::collections::HashMap<String, String> {
    t.section("parameters")
        .and_then(Value::as_map)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    (
                        k.py_str(),
                        v.get("type").map(Value::py_str).unwrap_or_default(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What becomes of a parameter that has no value: no user value, no
/// environment value, no default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unset {
    /// Heat's stack create: `The Parameter (NAME) was not provided.`
    #[default]
    Error,
    /// Heat's template validate, which needs no values: the parameter is
    /// kept as `{get_param: NAME}` (source `deferred`), so that what
    /// consumes it stays symbolic and the rest of the stack is compiled
    /// and checked.
    Deferred,
}

/// [`build`] past a bad value: the parameters whose values hold, and an
/// error for every value that is missing (unless `unset` defers it) or
/// invalid (and every invalid default), in template order. A malformed
/// definition or an unknown value still stops it (`Err`), as nothing after
/// it can be read.
pub fn build_all(
    t: &Template,
    env: &Environment,
    deferred: &Map,
    unset: Unset,
    notes: &mut Vec<String>,
) -> Result<(Vec<Param>, Vec<Diagnostic>), Diagnostic> {
    let none = Map::new();
    let defs = match t.section("parameters") {
        None => &none,
        Some(Value::Map(m)) => m,
        Some(_) => {
            return Err(error(
                codes::HOT_VALIDATION,
                "\"parameters\" must be a map of parameter definitions",
                t.span(&["parameters"]).map(|r| (&t.file, r)),
            ))
        }
    };
    let at = |name: &str| t.span(&["parameters", name]).map(|r| (&t.file, r));
    // Schemas first (malformed definitions are found while parsing).
    let mut schemas = Vec::with_capacity(defs.len());
    for (k, def) in defs {
        let name = k.py_str();
        let parsed = schema(&name, def, t).map_err(|d| d.with_subject(PARAMETER, name.as_str()))?;
        schemas.push((name, parsed));
    }
    for (k, _) in &env.parameters {
        let name = k.py_str();
        if !defs.contains_key(&name as &str) {
            return Err(error(
                codes::HOT_PARAMETER_UNKNOWN,
                format!("The Parameter ({name}) was not defined in template."),
                None,
            )
            .with_subject(PARAMETER, name));
        }
    }
    let mut out = Vec::with_capacity(defs.len());
    let mut errors = Vec::new();
    'each: for (def, (name, (ty, constraints))) in defs.values().zip(schemas) {
        let get = |key: &str| def.get(key).filter(|v| !v.is_null());
        // The parameter with its value, as the document shows it.
        let param = |display: String, value: Value, source: &'static str, hidden: bool| Param {
            display,
            name: name.clone(),
            ty,
            value,
            source,
            hidden,
            immutable: get("immutable").is_some_and(Value::truthy),
            label: get("label")
                .cloned()
                .unwrap_or_else(|| Value::str(name.as_str())),
            description: get("description")
                .cloned()
                .unwrap_or_else(|| Value::str("")),
        };
        let default = get("default");
        if let Some(d) = default {
            for c in &constraints {
                if matches!(c.rule, Rule::Custom(_)) {
                    continue;
                }
                if let Err(reason) = check(ty, c, d, true) {
                    errors.push(
                        error(
                            codes::HOT_PARAMETER_SCHEMA,
                            format!(
                                "Parameter '{name}' is invalid: Invalid default {} ({reason})",
                                display_raw(d)
                            ),
                            at(&name),
                        )
                        .with_subject(PARAMETER, name.as_str()),
                    );
                    continue 'each;
                }
            }
        }
        let hidden = get("hidden").is_some_and(Value::truthy);
        // A value known only later, kept as an expression and unchecked
        // (Heat leaves it out before create).
        let deferred_param = |expr: Value| param(String::new(), expr, "deferred", hidden);
        if let Some(expr) = deferred.get(&name as &str) {
            // The parent stack has it once its resources exist: the
            // parent's expression.
            out.push(deferred_param(expr.clone()));
            continue;
        }
        let (raw, source) = match (
            env.parameters.get(&name as &str).filter(|v| !v.is_null()),
            env.parameter_defaults
                .get(&name as &str)
                .filter(|v| !v.is_null()),
            default,
        ) {
            (Some(v), _, _) => (v.clone(), "parameters"),
            (None, Some(v), _) => (v.clone(), "parameter_defaults"),
            (None, None, Some(v)) => (v.clone(), "default"),
            (None, None, None) if unset == Unset::Deferred => {
                // Given at create time: its own `get_param`.
                let mut expr = Map::with_capacity(1);
                expr.insert("get_param".into(), Value::str(name.as_str()));
                out.push(deferred_param(Value::Map(expr)));
                continue;
            }
            (None, None, None) => {
                errors.push(
                    error(
                        codes::HOT_PARAMETER_MISSING,
                        format!("The Parameter ({name}) was not provided."),
                        at(&name),
                    )
                    .with_subject(PARAMETER, name.as_str()),
                );
                continue;
            }
        };
        if let Some(Value::Str(h)) = get("hidden") {
            if matches!(
                h.to_ascii_lowercase().as_str(),
                "false" | "no" | "off" | "0" | "n" | "f"
            ) {
                notes.push(format!(
                    "parameter {name}: hidden: \"{h}\" hides it (Heat tests the text for truth; write hidden: false)"
                ));
            }
        }
        if ty == Type::List
            && constraints
                .iter()
                .any(|c| matches!(c.rule, Rule::Custom(_)))
        {
            notes.push(format!(
                "parameter {name}: a custom constraint on a comma_delimited_list checks the whole list, not each item"
            ));
        }
        // A hidden value never reaches a message.
        let secret = raw.py_str();
        let invalid = |reason: String| {
            let reason = if hidden && !secret.is_empty() {
                reason.replace(secret.as_str(), HIDDEN)
            } else {
                reason
            };
            error(
                codes::HOT_VALIDATION,
                format!("Parameter '{name}' is invalid: {reason}"),
                at(&name),
            )
            .with_subject(PARAMETER, name.as_str())
        };
        let value = match convert(ty, &raw) {
            Ok(v) => v,
            Err(reason) => {
                errors.push(invalid(reason));
                continue;
            }
        };
        for c in &constraints {
            if let Err(reason) = check(ty, c, &value, false) {
                errors.push(invalid(reason));
                continue 'each;
            }
        }
        out.push(param(display(ty, &value), value, source, hidden));
    }
    Ok((out, errors))
}

/// A definition's type and constraints, or its `parameter_schema` error.
fn schema(name: &str, def: &Value, t: &Template) -> Result<(Type, Vec<Constraint>), Diagnostic> {
    let fail = |msg: String| {
        let at = t.span(&["parameters", name]).map(|r| (&t.file, r));
        error(codes::HOT_PARAMETER_SCHEMA, msg, at)
    };
    let Some(def) = def.as_map() else {
        return Err(fail(format!(
            "Invalid parameter ({name}), expected a mapping"
        )));
    };
    const KEYS: &[&str] = &[
        "type",
        "default",
        "description",
        "label",
        "hidden",
        "immutable",
        "constraints",
    ];
    for k in def.keys() {
        // Every known key is a string: others are written out only to fail.
        if !k.as_str().is_some_and(|k| KEYS.contains(&k)) {
            let k = k.py_str();
            return Err(fail(format!("Invalid key '{k}' for parameter ({name})")));
        }
    }
    let Some(ty) = def.get("type").filter(|v| !v.is_null()) else {
        return Err(fail(format!(
            "Missing parameter type for parameter: {name}"
        )));
    };
    let ty = ty
        .as_str()
        .and_then(Type::parse)
        .ok_or_else(|| fail(format!("Invalid type ({})", ty.py_str())))?;
    let mut constraints = Vec::new();
    match def.get("constraints").filter(|v| !v.is_null()) {
        None => {}
        Some(Value::List(items)) => {
            for item in items {
                constraints.push(constraint(name, ty, item).map_err(&fail)?);
            }
        }
        Some(_) => {
            return Err(fail(format!(
                "Invalid parameter constraints for parameter {name}, expected a list"
            )))
        }
    }
    Ok((ty, constraints))
}

fn constraint(_name: &str, ty: Type, item: &Value) -> Result<Constraint, String> {
    let Some(m) = item.as_map() else {
        return Err("Invalid parameter constraints, expected a mapping".into());
    };
    const KEYS: &[&str] = &[
        "range",
        "length",
        "allowed_values",
        "allowed_pattern",
        "custom_constraint",
        "description",
        "modulo",
    ];
    for k in m.keys() {
        let k = k.py_str();
        if !KEYS.contains(&k.as_str()) {
            return Err(format!("Invalid key '{k}' for parameter constraints"));
        }
    }
    let description = m.get("description").map(Value::py_str);
    let bounds = |v: &Value| -> Result<(Option<Value>, Option<Value>), String> {
        let b = v
            .as_map()
            .ok_or("Invalid constraint bounds, expected a mapping")?;
        let min = b.get("min").filter(|x| !x.is_null()).cloned();
        let max = b.get("max").filter(|x| !x.is_null()).cloned();
        if min.is_none() && max.is_none() {
            return Err("No minimum or maximum value specified".into());
        }
        Ok((min, max))
    };
    let (kind, rule) = if let Some(v) = m.get("range") {
        let (a, b) = bounds(v)?;
        let num = |x: Option<Value>| -> Result<Option<Value>, String> {
            x.map(|x| to_number(&x)).transpose()
        };
        ("Range", Rule::Range(num(a)?, num(b)?))
    } else if let Some(v) = m.get("length") {
        let (a, b) = bounds(v)?;
        for x in [&a, &b].into_iter().flatten() {
            if !matches!(x, Value::Int(_)) {
                return Err(format!("Invalid length bound: {}", x.py_str()));
            }
        }
        ("Length", Rule::Length(a, b))
    } else if let Some(v) = m.get("allowed_values") {
        let list = v
            .as_list()
            .ok_or("\"allowed_values\" must be a list")?
            .iter()
            .cloned()
            .collect();
        ("AllowedValues", Rule::AllowedValues(list))
    } else if let Some(v) = m.get("allowed_pattern") {
        let p = v.as_str().ok_or("\"allowed_pattern\" must be a string")?;
        if crate::pyre::compile(p).is_err() {
            return Err(format!("Invalid allowed_pattern \"{p}\""));
        }
        ("AllowedPattern", Rule::AllowedPattern(p.to_string()))
    } else if let Some(v) = m.get("custom_constraint") {
        ("CustomConstraint", Rule::Custom(v.py_str()))
    } else {
        return Err("No constraint expressed".into());
    };
    let valid = match rule {
        Rule::Length(..) => matches!(ty, Type::String | Type::List | Type::Json),
        Rule::Range(..) => ty == Type::Number,
        Rule::AllowedValues(_) | Rule::Custom(_) => ty != Type::Json,
        Rule::AllowedPattern(_) => ty == Type::String,
    };
    if !valid {
        return Err(format!("{kind} constraint invalid for {}", ty.name()));
    }
    Ok(Constraint { rule, description })
}

/// Python's `int(text)`, else `float(text)` (spec §5.3), or a number kept.
pub fn to_number(v: &Value) -> Result<Value, String> {
    match v {
        Value::Int(_) | Value::Float(_) => Ok(v.clone()),
        Value::Bool(b) => Ok(Value::Bool(*b)),
        other => {
            let text = other.py_str();
            let t = text.trim();
            let clean: String = t.chars().filter(|&c| c != '_').collect();
            let underscores_ok = !t.starts_with('_') && !t.ends_with('_') && !t.contains("__");
            if underscores_ok {
                if let Ok(i) = clean.parse::<i64>() {
                    return Ok(Value::Int(i));
                }
                let lower = clean.to_ascii_lowercase();
                let floaty = !lower.is_empty()
                    && lower
                        .chars()
                        .all(|c| c.is_ascii_digit() || "+-.e".contains(c) || c.is_alphabetic())
                    && !lower.contains("0x");
                if floaty {
                    if let Ok(f) = lower.parse::<f64>() {
                        return Ok(Value::Float(f));
                    }
                }
            }
            Err(format!("could not convert string to float: '{text}'"))
        }
    }
}

fn num(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        Value::Bool(b) => f64::from(u8::from(*b)),
        _ => f64::NAN,
    }
}

/// The boolean words Heat accepts.
fn to_bool(v: &Value) -> Result<bool, String> {
    if let Value::Bool(b) = v {
        return Ok(*b);
    }
    match v.py_str().trim().to_lowercase().as_str() {
        "1" | "t" | "true" | "on" | "y" | "yes" => Ok(true),
        "0" | "f" | "false" | "off" | "n" | "no" => Ok(false),
        _ => Err(format!(
            "Unrecognized value '{}', acceptable values are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'",
            v.py_str()
        )),
    }
}

/// The value functions see for a raw value of type `ty` (spec §5.3).
pub fn convert(ty: Type, raw: &Value) -> Result<Value, String> {
    match ty {
        Type::String => Ok(match raw {
            Value::Str(_) => raw.clone(),
            other => Value::str(other.py_str()),
        }),
        Type::Number => to_number(raw),
        Type::Boolean => to_bool(raw).map(Value::Bool),
        Type::List => match raw {
            Value::List(l) => Ok(Value::List(
                l.iter()
                    .map(|x| match x {
                        Value::Str(_) => x.clone(),
                        o => Value::str(o.py_str()),
                    })
                    .collect(),
            )),
            Value::Str(s) if s.is_empty() => Ok(Value::List(Default::default())),
            Value::Str(s) => Ok(Value::List(s.split(',').map(Value::str).collect())),
            other => Err(format!(
                "Value must be a comma-delimited list string: {}",
                other.py_str()
            )),
        },
        Type::Json => match raw {
            Value::Str(s) if s.is_empty() => Ok(raw.clone()),
            Value::Str(s) => serde_json::from_str::<serde_json::Value>(s)
                .map(|j| Value::from_json(&j))
                .map_err(|e| format!("Value must be valid JSON: {e}")),
            Value::Map(_) | Value::List(_) => Ok(raw.clone()),
            other => Err(format!("Value must be valid JSON: {}", other.py_str())),
        },
    }
}

/// Heat's display text of a typed value (§5.4).
pub fn display(ty: Type, v: &Value) -> String {
    match (ty, v) {
        (Type::List, Value::List(l)) => l.iter().map(Value::py_str).collect::<Vec<_>>().join(","),
        (Type::Json, _) => json_dumps(v),
        _ => v.py_str(),
    }
}

/// How a raw default prints in `Invalid default <d>`.
fn display_raw(v: &Value) -> String {
    v.py_str()
}

/// Check one constraint; `raw` checks a template default before conversion.
fn check(ty: Type, c: &Constraint, v: &Value, raw: bool) -> Result<(), String> {
    let fail = |msg: String| Err(c.description.clone().unwrap_or(msg));
    let bound = |b: &Option<Value>| b.as_ref().map_or("None".to_string(), Value::py_str);
    match &c.rule {
        Rule::Length(min, max) => {
            let n = match v {
                Value::Str(s) if !raw || ty == Type::String => s.chars().count(),
                Value::Str(s) if ty == Type::List => {
                    if s.is_empty() {
                        0
                    } else {
                        s.split(',').count()
                    }
                }
                Value::List(l) => l.len(),
                Value::Map(m) => m.len(),
                Value::Str(s) => s.chars().count(),
                other => {
                    return Err(format!(
                        "object of type '{}' has no len()",
                        other.py_type_name()
                    ))
                }
            } as i64;
            let lo = min.as_ref().map(num).unwrap_or(f64::NEG_INFINITY);
            let hi = max.as_ref().map(num).unwrap_or(f64::INFINITY);
            if (n as f64) < lo || (n as f64) > hi {
                return fail(format!(
                    "length ({n}) is out of range (min: {}, max: {})",
                    bound(min),
                    bound(max)
                ));
            }
        }
        Rule::Range(min, max) => {
            let x = to_number(v).map(|x| num(&x)).unwrap_or(f64::NAN);
            let lo = min.as_ref().map(num).unwrap_or(f64::NEG_INFINITY);
            let hi = max.as_ref().map(num).unwrap_or(f64::INFINITY);
            if x.is_nan() || x < lo || x > hi {
                return fail(format!(
                    "{} is out of range (min: {}, max: {})",
                    v.py_str(),
                    bound(min),
                    bound(max)
                ));
            }
        }
        Rule::AllowedValues(allowed) => {
            let quoted: Vec<String> = allowed
                .iter()
                .map(|a| format!("\"{}\"", a.py_str()))
                .collect();
            let not_allowed = |x: &Value| {
                format!(
                    "\"{}\" is not an allowed value [{}]",
                    x.py_str(),
                    quoted.join(", ")
                )
            };
            match ty {
                Type::List => {
                    let items: Vec<Value> = match v {
                        Value::List(l) => l.iter().cloned().collect(),
                        Value::Str(s) if s.is_empty() => Vec::new(),
                        Value::Str(s) => s.split(',').map(Value::str).collect(),
                        other => vec![other.clone()],
                    };
                    for item in &items {
                        if !allowed.iter().any(|a| a == item) {
                            return fail(not_allowed(item));
                        }
                    }
                }
                _ => {
                    let mine = convert(ty, v);
                    let ok = allowed.iter().any(|a| match (&mine, convert(ty, a)) {
                        (Ok(x), Ok(y)) => match ty {
                            Type::Number => num(x) == num(&y),
                            _ => *x == y,
                        },
                        _ => false,
                    });
                    if !ok {
                        return fail(not_allowed(v));
                    }
                }
            }
        }
        Rule::AllowedPattern(p) => {
            let Some(s) = v.as_str() else {
                return Err(format!(
                    "expected string or bytes-like object, got '{}'",
                    v.py_type_name()
                ));
            };
            // Heat's `re.match(pattern, value)`, then `match.end() ==
            // len(value)`: the first match must reach the end (`a|ab` does
            // not take "ab"), not any match.
            let ok = crate::pyre::compile_for(p, Default::default(), true)
                .ok()
                .and_then(|r| r.find(s).ok().flatten())
                .is_some_and(|m| m.end() == s.len());
            if !ok {
                return fail(format!("\"{s}\" does not match pattern \"{p}\""));
            }
        }
        Rule::Custom(name) => {
            if let Err(reason) = custom(name, v) {
                return fail(reason);
            }
        }
    }
    Ok(())
}

/// The offline custom constraints (spec §5.6).
fn custom(name: &str, v: &Value) -> Result<(), String> {
    let text = match v {
        Value::Str(s) => Some(s.as_str()),
        _ => None,
    };
    let shown = v.py_repr();
    let bad = |reason: &str| Err(format!("Error validating value {shown}: {reason}"));
    let ip = |s: &str| {
        s.parse::<std::net::Ipv4Addr>().is_ok() && !has_leading_zero(s)
            || (s.contains(':') && !s.contains('%') && s.parse::<std::net::Ipv6Addr>().is_ok())
    };
    let cidr = |s: &str| {
        let Some((addr, prefix)) = s.split_once('/') else {
            return false;
        };
        let Ok(p) = prefix.parse::<u8>() else {
            return false;
        };
        if addr.contains(':') {
            addr.parse::<std::net::Ipv6Addr>().is_ok() && p <= 128
        } else {
            addr.parse::<std::net::Ipv4Addr>().is_ok() && p <= 32
        }
    };
    match name {
        "ip_addr" => match text {
            Some(s) if ip(s) => Ok(()),
            _ => bad("Invalid IP address"),
        },
        "net_cidr" => match text {
            Some(s) if cidr(s) => Ok(()),
            _ => bad("Invalid net cidr"),
        },
        "ip_or_cidr" => match text {
            Some(s) if (s.contains('/') && cidr(s)) || (!s.contains('/') && ip(s)) => Ok(()),
            _ => bad("Invalid IP address or CIDR"),
        },
        "mac_addr" => match text {
            Some(s) if is_mac(s) => Ok(()),
            _ => bad("Invalid MAC address."),
        },
        "dns_name" | "dns_domain" | "rel_dns_name" => match text {
            Some("") => Ok(()),
            Some(s)
                if is_dns(s)
                    && (name != "dns_domain" || s.ends_with('.'))
                    && (name != "rel_dns_name" || !s.ends_with('.')) =>
            {
                Ok(())
            }
            _ => bad("Invalid DNS name"),
        },
        "json_string" => match text {
            Some("") => Ok(()),
            Some(s) if serde_json::from_str::<serde_json::Value>(s).is_ok() => Ok(()),
            _ => bad("Invalid JSON string"),
        },
        "iso_8601" | "expiration" | "cron_expression" | "timezone" => Ok(()),
        _ if name.contains('.') => Ok(()),
        _ => Err(format!(
            "\"{}\" does not validate {name} (constraint not found)",
            v.py_str()
        )),
    }
}

fn has_leading_zero(s: &str) -> bool {
    s.split('.').any(|p| p.len() > 1 && p.starts_with('0'))
}

fn is_mac(s: &str) -> bool {
    let hex: String = s.chars().filter(char::is_ascii_hexdigit).collect();
    if hex.len() != 12 {
        return false;
    }
    let parts_ok = |sep: char, n: usize, w: usize| {
        let p: Vec<&str> = s.split(sep).collect();
        p.len() == n
            && p.iter()
                .all(|x| x.len() == w && x.chars().all(|c| c.is_ascii_hexdigit()))
    };
    parts_ok(':', 6, 2)
        || parts_ok('-', 6, 2)
        || parts_ok('.', 3, 4)
        || (s.len() == 12 && s.chars().all(|c| c.is_ascii_hexdigit()))
}

fn is_dns(s: &str) -> bool {
    if s.len() > 255 {
        return false;
    }
    let body = s.strip_suffix('.').unwrap_or(s);
    if body.is_empty() {
        return false;
    }
    let labels: Vec<&str> = body.split('.').collect();
    let ok = labels.iter().all(|l| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    });
    ok && !(s.ends_with('.')
        && labels
            .last()
            .is_some_and(|l| l.chars().all(|c| c.is_ascii_digit())))
}

/// Check `parameter_groups` (spec §6).
pub fn check_groups(t: &Template, params: &[Param]) -> Result<(), Diagnostic> {
    let Some(groups) = t.section("parameter_groups") else {
        return Ok(());
    };
    let at = t.span(&["parameter_groups"]).map(|r| (&t.file, r));
    let fail = |label: &str, msg: String| -> Diagnostic {
        error(
            codes::HOT_VALIDATION,
            format!("Parameter Groups error: parameter_groups.{label}: {msg}"),
            at.clone(),
        )
    };
    let Some(list) = groups.as_list() else {
        return Err(fail("", "The parameter_groups should be a list.".into()));
    };
    let mut seen: Vec<String> = Vec::new();
    for g in list {
        let label = g.get("label").map(Value::py_str).unwrap_or_default();
        let Some(gm) = g.as_map() else {
            return Err(fail(&label, "A parameter group must be a map.".into()));
        };
        let Some(ps) = gm.get("parameters").filter(|v| !v.is_null()) else {
            return Err(fail(
                &label,
                "The parameters must be provided for each parameter group.".into(),
            ));
        };
        let Some(ps) = ps.as_list() else {
            return Err(fail(
                &label,
                "The parameters of parameter group should be a list.".into(),
            ));
        };
        for p in ps {
            let name = p.py_str();
            let valid = params.iter().any(|x| x.name == name)
                || name == "OS::stack_id"
                || name == "OS::project_id";
            if !valid {
                return Err(fail(
                    &label,
                    format!("The grouped parameter {name} does not reference a valid parameter."),
                ));
            }
            if seen.contains(&name) {
                return Err(fail(
                    &label,
                    format!("The {name} parameter must be assigned to one parameter group only."),
                ));
            }
            seen.push(name);
        }
    }
    Ok(())
}
