//! The schema file loader: YAML text → [`Schema`], refusing anything the
//! format does not define (unknown keys, upper-case operators, empty
//! operand lists or paths), so a bad schema fails the project's tests
//! rather than a user's run.

use super::*;
use crate::value::Map;

/// A schema file that does not follow the format.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaError {
    /// The file.
    pub file: String,
    /// Where inside it (`groups[2].rule`).
    pub at: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: {}", self.file, self.at, self.message)
    }
}

impl std::error::Error for SchemaError {}

type R<T> = Result<T, (String, String)>;

fn err<T>(at: &str, message: impl Into<String>) -> R<T> {
    Err((at.to_string(), message.into()))
}

/// Parse one schema file (`file` names it in errors).
pub fn parse_schema(file: &str, text: &str) -> Result<Schema, SchemaError> {
    let value =
        crate::yaml::load_value(text, crate::yaml::Dialect::Salt).map_err(|e| SchemaError {
            file: file.into(),
            at: format!("byte {}", e.span.start),
            message: e.message,
        })?;
    schema(&value).map_err(|(at, message)| SchemaError {
        file: file.into(),
        at,
        message,
    })
}

fn as_map<'v>(v: &'v Value, at: &str) -> R<&'v Map> {
    match v.as_map() {
        Some(m) => Ok(m),
        None => err(
            at,
            format!("expected a mapping, found {}", v.py_type_name()),
        ),
    }
}

fn as_str<'v>(v: &'v Value, at: &str) -> R<&'v str> {
    match v.as_str() {
        Some(s) => Ok(s),
        None => err(at, format!("expected a string, found {}", v.py_type_name())),
    }
}

fn as_bool(v: &Value, at: &str) -> R<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        _ => err(at, format!("expected true or false, found {}", v.py_repr())),
    }
}

fn entries<'v>(m: &'v Map, at: &str, known: &[&str]) -> R<Vec<(&'v str, &'v Value)>> {
    let mut out = Vec::new();
    for (k, v) in m.iter() {
        let Some(k) = k.as_str() else {
            return err(at, format!("key {} is not a string", k.py_repr()));
        };
        if !known.contains(&k) {
            return err(
                at,
                format!("unknown key `{k}` (known: {})", known.join(", ")),
            );
        }
        out.push((k, v));
    }
    Ok(out)
}

fn schema(v: &Value) -> R<Schema> {
    let m = as_map(v, "(top)")?;
    let keys = [
        "schema",
        "function",
        "resource",
        "salt",
        "heat",
        "loaded",
        "needs",
        "unknown_args",
        "unknown_args_override",
        "unknown_salt",
        "template_context",
        "arguments",
        "properties",
        "groups",
        "versions",
    ];
    let mut out = Schema {
        name: String::new(),
        noun: "argument",
        loaded: Loaded::Host,
        unknown_args: UnknownArgs::Ignore,
        unknown_engine_says: None,
        template_context: None,
        arguments: IndexMap::new(),
        groups: Vec::new(),
        versions: Vec::new(),
    };
    let mut needs = Vec::new();
    let mut stub = false;
    let mut format_seen = false;
    for (k, v) in entries(m, "(top)", &keys)? {
        match k {
            "schema" => {
                if as_str(v, k)? != "lowstate/state-args/1" {
                    return err(k, "expected `lowstate/state-args/1`");
                }
                format_seen = true;
            }
            "function" => out.name = as_str(v, k)?.to_string(),
            "resource" => {
                out.name = as_str(v, k)?.to_string();
                out.noun = "property";
                if !m.contains_key("unknown_args") {
                    out.unknown_args = UnknownArgs::Invalid;
                }
            }
            "salt" | "heat" => {
                as_str(v, k)?;
            }
            "loaded" => match as_str(v, k)? {
                "host" => {}
                "stub" => stub = true,
                other => return err(k, format!("expected host or stub, found `{other}`")),
            },
            "needs" => needs = strings(v, k)?,
            "unknown_args" | "unknown_args_override" => {
                if k == "unknown_args" && m.contains_key("unknown_args_override") {
                    continue;
                }
                out.unknown_args = match as_str(v, k)? {
                    "ignore" => UnknownArgs::Ignore,
                    "pass-through" => UnknownArgs::PassThrough,
                    "fail-state" => UnknownArgs::FailState,
                    "abort-run" => UnknownArgs::AbortRun,
                    "invalid" => UnknownArgs::Invalid,
                    other => return err(k, format!("unknown behaviour `{other}`")),
                }
            }
            "unknown_salt" => out.unknown_engine_says = Some(as_str(v, k)?.to_string()),
            "template_context" => out.template_context = Some(as_str(v, k)?.to_string()),
            "arguments" | "properties" => out.arguments = arguments(v, k)?,
            "groups" => {
                let Some(list) = v.as_list() else {
                    return err(k, "expected a list of groups");
                };
                for (i, g) in list.iter().enumerate() {
                    let at = format!("groups[{i}]");
                    let g = group(g, &at)?;
                    if out.groups.iter().any(|o| o.id == g.id) {
                        return err(&at, format!("duplicate group id `{}`", g.id));
                    }
                    out.groups.push(g);
                }
            }
            "versions" => {
                let Some(list) = v.as_list() else {
                    return err(k, "expected a list of version groups");
                };
                for (i, g) in list.iter().enumerate() {
                    out.versions.push(version(g, &format!("versions[{i}]"))?);
                }
            }
            _ => unreachable!("entries() checked the key"),
        }
    }
    if !format_seen {
        return err("(top)", "missing `schema: lowstate/state-args/1`");
    }
    if out.name.is_empty() {
        return err("(top)", "missing `function` or `resource`");
    }
    if stub {
        out.loaded = Loaded::Stub(needs);
    }
    Ok(out)
}

fn strings(v: &Value, at: &str) -> R<Vec<String>> {
    match v {
        Value::Str(s) => Ok(vec![s.to_string()]),
        Value::List(l) => l
            .iter()
            .map(|x| as_str(x, at).map(str::to_string))
            .collect(),
        _ => err(at, "expected a string or a list of strings"),
    }
}

fn values(v: &Value) -> Vec<Value> {
    match v {
        Value::List(l) => l.to_vec(),
        other => vec![other.clone()],
    }
}

fn severity(v: &Value, at: &str) -> R<Severity> {
    match as_str(v, at)? {
        "error" => Ok(Severity::Error),
        "warning" => Ok(Severity::Warning),
        "info" => Ok(Severity::Info),
        other => err(at, format!("unknown severity `{other}`")),
    }
}

fn verdict(v: &Value, at: &str, extra: &[&str]) -> R<(Verdict, Map)> {
    let m = as_map(v, at)?;
    let mut known = vec!["severity", "salt", "evidence"];
    known.extend_from_slice(extra);
    let mut out = Verdict {
        severity: Severity::Error,
        engine_says: None,
        evidence: Vec::new(),
    };
    let mut rest = Map::new();
    for (k, x) in entries(m, at, &known)? {
        match k {
            "severity" => out.severity = severity(x, at)?,
            "salt" => out.engine_says = Some(as_str(x, at)?.to_string()),
            "evidence" => out.evidence = strings(x, at)?,
            _ => {
                rest.insert(k.into(), x.clone());
            }
        }
    }
    Ok((out, rest))
}

fn presence(v: &Value, at: &str) -> R<Presence> {
    match as_str(v, at)? {
        "not_null" => Ok(Presence::NotNull),
        "given" => Ok(Presence::Given),
        "truthy" => Ok(Presence::Truthy),
        "non_default" => Ok(Presence::NonDefault),
        other => err(at, format!("unknown presence mode `{other}`")),
    }
}

fn ty(word: &str, at: &str) -> R<Type> {
    Ok(match word {
        "string" => Type::String,
        "integer" => Type::Integer,
        "float" => Type::Float,
        "number" => Type::Number,
        "boolean" => Type::Boolean,
        "list" => Type::List,
        "mapping" | "map" => Type::Mapping,
        "null" => Type::Null,
        other => return err(at, format!("unknown type `{other}`")),
    })
}

fn regex(v: &Value, at: &str) -> R<regex::Regex> {
    let text = as_str(v, at)?;
    regex::Regex::new(text).or_else(|e| err(at, format!("bad regular expression: {e}")))
}

fn bounds(v: &Value, at: &str) -> R<(Option<f64>, Option<f64>)> {
    let m = as_map(v, at)?;
    let mut out = (None, None);
    for (k, x) in entries(m, at, &["min", "max"])? {
        let n = match x {
            Value::Int(i) => *i as f64,
            Value::Float(f) => *f,
            _ => return err(at, format!("`{k}` must be a number")),
        };
        if k == "min" {
            out.0 = Some(n);
        } else {
            out.1 = Some(n);
        }
    }
    Ok(out)
}

fn arguments(v: &Value, at: &str) -> R<IndexMap<String, ArgRule>> {
    let m = as_map(v, at)?;
    let mut out = IndexMap::new();
    for (k, x) in m.iter() {
        let name = as_str(k, at)?.to_string();
        let sub = format!("{at}.{name}");
        out.insert(name, arg_rule(x, &sub)?);
    }
    Ok(out)
}

fn arg_rule(v: &Value, at: &str) -> R<ArgRule> {
    let mut out = ArgRule::default();
    if v.is_null() {
        return Ok(out);
    }
    let m = as_map(v, at)?;
    let known = [
        "required",
        "default",
        "presence",
        "type",
        "values",
        "casefold",
        "item_values",
        "exclusive_items",
        "pattern",
        "not_pattern",
        "expect",
        "reject",
        "range",
        "length",
        "undeclared",
        "deprecated",
        "forbidden",
        "on_wrong_type",
        "on_bad_value",
        "on_not_pattern",
        "on_exclusive",
        "schema",
        "items",
        "opaque",
        "description",
    ];
    for (k, x) in entries(m, at, &known)? {
        let at = &format!("{at}.{k}");
        match k {
            "required" => out.required = as_bool(x, at)?,
            "default" => out.default = Some(x.clone()),
            "presence" => out.presence = Some(presence(x, at)?),
            "type" => {
                out.types = strings(x, at)?
                    .iter()
                    .map(|w| ty(w, at))
                    .collect::<R<_>>()?
            }
            "values" => out.values = values(x),
            "casefold" => out.casefold = as_bool(x, at)?,
            "item_values" => out.item_values = values(x),
            "exclusive_items" => out.exclusive_items = values(x),
            "pattern" => out.pattern = Some(regex(x, at)?),
            "not_pattern" => out.not_pattern = Some(regex(x, at)?),
            "expect" => out.expect = Some(as_str(x, at)?.to_string()),
            "reject" => out.reject = Some(as_str(x, at)?.to_string()),
            "range" => out.range = bounds(x, at)?,
            "length" => out.length = bounds(x, at)?,
            "undeclared" => out.undeclared = as_bool(x, at)?,
            "deprecated" => {
                let (verdict, rest) = verdict(x, at, &["use"])?;
                let use_instead = match rest.get("use") {
                    Some(u) => Some(as_str(u, at)?.to_string()),
                    None => None,
                };
                out.deprecated = Some(Deprecated {
                    use_instead,
                    verdict,
                });
            }
            "forbidden" => out.forbidden = Some(verdict(x, at, &[])?.0),
            "on_wrong_type" => out.on_wrong_type = Some(verdict(x, at, &[])?.0),
            "on_bad_value" => out.on_bad_value = Some(verdict(x, at, &[])?.0),
            "on_not_pattern" => out.on_not_pattern = Some(verdict(x, at, &[])?.0),
            "on_exclusive" => out.on_exclusive = Some(verdict(x, at, &[])?.0),
            "schema" => out.keys = Some(arguments(x, at)?),
            "items" => out.items = Some(Box::new(arg_rule(x, at)?)),
            "opaque" => out.opaque = as_bool(x, at)?,
            "description" => {}
            _ => unreachable!("entries() checked the key"),
        }
    }
    Ok(out)
}

fn path(v: &Value, at: &str) -> R<Vec<String>> {
    let Some(list) = v.as_list() else {
        return err(at, "a path is a list of names: `[prop, child]`");
    };
    if list.is_empty() {
        return err(at, "empty path");
    }
    list.iter()
        .map(|x| {
            x.as_str().map(str::to_string).ok_or_else(|| {
                (
                    at.to_string(),
                    "a path is a list of names: `[prop, child]`".to_string(),
                )
            })
        })
        .collect()
}

fn expr(v: &Value, at: &str) -> R<Expr> {
    if v.as_str().is_some() {
        return err(at, "a path is a list of names: `[prop, child]`");
    }
    if v.as_list().is_some() {
        return Ok(Expr::Path(path(v, at)?));
    }
    let m = as_map(v, at)?;
    if m.len() != 1 {
        return err(at, "a group is a one-key mapping: `{xor: [...]}`");
    }
    let Some((k, x)) = m.first() else {
        return err(at, "empty group");
    };
    let word = as_str(k, at)?;
    let op = match word {
        "and" => Op::And,
        "or" => Op::Or,
        "xor" => Op::Xor,
        "forbid" => Op::Forbid,
        "disjoint" => Op::Disjoint,
        "AND" | "OR" | "XOR" => {
            return err(
                at,
                format!("operators are lower case: write `{}`", word.to_lowercase()),
            )
        }
        other => return err(at, format!("unknown operator `{other}`")),
    };
    let Some(list) = x.as_list() else {
        return err(at, "an operator takes a list of operands");
    };
    if list.is_empty() {
        return err(at, "empty operand list");
    }
    let operands: Vec<Expr> = list
        .iter()
        .enumerate()
        .map(|(i, o)| expr(o, &format!("{at}.{word}[{i}]")))
        .collect::<R<_>>()?;
    if op == Op::Disjoint && operands.iter().any(|o| !matches!(o, Expr::Path(_))) {
        return err(at, "`disjoint` takes paths only");
    }
    Ok(Expr::Op(op, operands))
}

fn cond(v: &Value, at: &str) -> R<Cond> {
    match v {
        Value::Str(s) if s == "always" => return Ok(Cond::Always),
        Value::Str(s) if s == "any" => return Ok(Cond::AnyPresent),
        Value::Str(s) => return err(at, format!("unknown guard `{s}`")),
        _ => {}
    }
    let m = as_map(v, at)?;
    let casefold = match m.get("casefold") {
        Some(c) => as_bool(c, at)?,
        None => false,
    };
    let mut found = None;
    for (k, x) in entries(
        m,
        at,
        &[
            "present",
            "equals",
            "not_equals",
            "matches",
            "not_matches",
            "all",
            "any",
            "casefold",
        ],
    )? {
        if k == "casefold" {
            continue;
        }
        if found.is_some() {
            return err(at, "a guard has one condition (use `all:` to combine)");
        }
        let c = match k {
            "present" => {
                let Some(list) = x.as_list() else {
                    return err(at, "`present` takes a list of paths");
                };
                Cond::Present(list.iter().map(|p| path(p, at)).collect::<R<_>>()?)
            }
            "equals" | "not_equals" => {
                let m = as_map(x, at)?;
                if m.len() != 1 {
                    return err(at, format!("`{k}` takes one `arg: value` pair"));
                }
                let Some((a, vals)) = m.first() else {
                    return err(at, "empty condition");
                };
                Cond::Equals {
                    arg: as_str(a, at)?.to_string(),
                    values: values(vals),
                    casefold,
                    negate: k == "not_equals",
                }
            }
            "matches" | "not_matches" => {
                let m = as_map(x, at)?;
                let Some((a, re)) = m.first().filter(|_| m.len() == 1) else {
                    return err(at, format!("`{k}` takes one `arg: regex` pair"));
                };
                Cond::Matches {
                    arg: as_str(a, at)?.to_string(),
                    pattern: regex(re, at)?,
                    negate: k == "not_matches",
                }
            }
            "all" | "any" => {
                let Some(list) = x.as_list() else {
                    return err(at, format!("`{k}` takes a list of conditions"));
                };
                let cs = list.iter().map(|c| cond(c, at)).collect::<R<_>>()?;
                if k == "all" {
                    Cond::All(cs)
                } else {
                    Cond::AnyOf(cs)
                }
            }
            _ => unreachable!("entries() checked the key"),
        };
        found = Some(c);
    }
    found.ok_or_else(|| (at.to_string(), "empty guard".to_string()))
}

fn group(v: &Value, at: &str) -> R<Group> {
    let m = as_map(v, at)?;
    let known = [
        "id",
        "rule",
        "when",
        "scope",
        "presence",
        "severity",
        "salt",
        "salt_result",
        "evidence",
        "message",
    ];
    let mut id = None;
    let mut rule = None;
    let mut out = Group {
        id: String::new(),
        rule: Expr::Path(Vec::new()),
        when: Cond::Always,
        scope: None,
        presence: None,
        verdict: Verdict {
            severity: Severity::Error,
            engine_says: None,
            evidence: Vec::new(),
        },
        engine_result: None,
        message: None,
    };
    for (k, x) in entries(m, at, &known)? {
        let at = &format!("{at}.{k}");
        match k {
            "id" => id = Some(as_str(x, at)?.to_string()),
            "rule" => rule = Some(expr(x, at)?),
            "when" => out.when = cond(x, at)?,
            "scope" => out.scope = Some(path(x, at)?),
            "presence" => out.presence = Some(presence(x, at)?),
            "severity" => out.verdict.severity = severity(x, at)?,
            "salt" => out.verdict.engine_says = Some(as_str(x, at)?.to_string()),
            "salt_result" => out.engine_result = Some(as_str(x, at)?.to_string()),
            "evidence" => out.verdict.evidence = strings(x, at)?,
            "message" => out.message = Some(as_str(x, at)?.to_string()),
            _ => unreachable!("entries() checked the key"),
        }
    }
    out.id = id.ok_or_else(|| (at.to_string(), "a group needs an `id`".to_string()))?;
    out.rule = rule.ok_or_else(|| (at.to_string(), "a group needs a `rule`".to_string()))?;
    Ok(out)
}

fn version(v: &Value, at: &str) -> R<VersionGroup> {
    let (verdict, rest) = verdict(v, at, &["of", "allowed", "args", "presence"])?;
    let of = as_str(
        rest.get("of")
            .ok_or_else(|| (at.to_string(), "missing `of`".to_string()))?,
        at,
    )?
    .to_string();
    let allowed_v = rest
        .get("allowed")
        .ok_or_else(|| (at.to_string(), "missing `allowed`".to_string()))?;
    let mut allowed = Vec::new();
    let allowed_text;
    match allowed_v {
        Value::Str(s) => {
            allowed_text = s.to_string();
            for part in s.split(',') {
                let part = part.trim();
                let op_len = part
                    .find(|c: char| c.is_ascii_digit())
                    .ok_or_else(|| (at.to_string(), format!("bad version range `{part}`")))?;
                let (op, ver) = part.split_at(op_len);
                let op = match op.trim() {
                    "" | "==" => "==",
                    o @ (">=" | "<=" | ">" | "<" | "!=") => o,
                    o => return err(at, format!("unknown comparison `{o}`")),
                };
                let ver = parse_version(ver)
                    .ok_or_else(|| (at.to_string(), format!("bad version `{ver}`")))?;
                allowed.push((op.to_string(), ver));
            }
        }
        Value::List(l) => {
            let mut words = Vec::new();
            for x in l.iter() {
                let text = x.py_str();
                let ver = parse_version(&text)
                    .ok_or_else(|| (at.to_string(), format!("bad version `{text}`")))?;
                allowed.push(("one-of".to_string(), ver));
                words.push(text);
            }
            allowed_text = words.join(", ");
        }
        _ => return err(at, "`allowed` is a range string or a list of versions"),
    }
    let args = match rest.get("args") {
        Some(Value::List(l)) => l.iter().map(|p| path(p, at)).collect::<R<_>>()?,
        _ => return err(at, "`args` is a list of paths"),
    };
    let presence = match rest.get("presence") {
        Some(p) => Some(presence(p, at)?),
        None => None,
    };
    Ok(VersionGroup {
        of,
        allowed,
        args,
        presence,
        verdict,
        allowed_text,
    })
}
