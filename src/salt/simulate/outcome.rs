//! What a simulated state call returns: the known results of Salt's
//! `test.*` state functions (3008.5 `salt/states/test.py`), and an
//! assumptions file for every other state module.

use crate::fnmatch::fnmatch;
use crate::salt::graph::GraphChunk;
use crate::value::{Map, Value};
use std::collections::HashMap;
use std::fmt;

/// The result of one state function call (before `__run_num__` etc.).
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// `True`, `False`, `None` (or, rarely, whatever a state returned).
    pub result: Value,
    /// Whether the changes dict is non-empty.
    pub changes: bool,
    /// Salt's comment.
    pub comment: Value,
}

impl Outcome {
    /// An outcome.
    pub fn new(result: Value, changes: bool, comment: impl Into<Value>) -> Outcome {
        Outcome {
            result,
            changes,
            comment: comment.into(),
        }
    }
}

/// A state function call failed before returning (Salt reports the Python
/// exception).
#[derive(Debug, Clone, PartialEq)]
pub struct CallError(pub String);

/// The `test` state functions 3008.5 provides.
pub const TEST_FUNCTIONS: &[&str] = &[
    "nop",
    "succeed_without_changes",
    "fail_without_changes",
    "succeed_with_changes",
    "fail_with_changes",
    "configurable_test_state",
    "show_notification",
    "mod_watch",
    "check_pillar",
];

/// Keyword arguments a state function receives: the chunk minus Salt's
/// internal keywords.
fn kwarg<'a>(chunk: &'a GraphChunk, key: &str) -> Option<&'a Value> {
    chunk.arg(key)
}

fn comment_or(chunk: &GraphChunk, default: &str) -> Value {
    kwarg(chunk, "comment")
        .cloned()
        .unwrap_or_else(|| Value::str(default))
}

/// `test.<fun>` called on `chunk`; `test_mode` is true for a prereq check.
/// `None` when the function does not exist (a verify error in Salt).
pub fn test_outcome(
    chunk: &GraphChunk,
    fun: &str,
    test_mode: bool,
) -> Option<Result<Outcome, CallError>> {
    let ok = |o: Outcome| Some(Ok(o));
    match fun {
        "nop" => ok(Outcome::new(Value::Bool(true), false, "Success!")),
        "succeed_without_changes" => ok(Outcome::new(
            Value::Bool(true),
            false,
            comment_or(chunk, "Success!"),
        )),
        "fail_without_changes" => {
            if test_mode {
                ok(Outcome::new(
                    Value::Bool(false),
                    false,
                    "If we weren't testing, this would be a failure!",
                ))
            } else {
                ok(Outcome::new(
                    Value::Bool(false),
                    false,
                    comment_or(chunk, "Failure!"),
                ))
            }
        }
        "succeed_with_changes" => {
            if test_mode {
                ok(Outcome::new(
                    Value::Null,
                    true,
                    "If we weren't testing, this would be successful with changes",
                ))
            } else {
                ok(Outcome::new(
                    Value::Bool(true),
                    true,
                    comment_or(chunk, "Success!"),
                ))
            }
        }
        "fail_with_changes" => {
            if test_mode {
                ok(Outcome::new(
                    Value::Null,
                    true,
                    "If we weren't testing, this would be failed with changes",
                ))
            } else {
                ok(Outcome::new(
                    Value::Bool(false),
                    true,
                    comment_or(chunk, "Failure!"),
                ))
            }
        }
        "configurable_test_state" => Some(configurable(chunk, test_mode)),
        "show_notification" => match kwarg(chunk, "text") {
            Some(t) if t.truthy() => ok(Outcome::new(Value::Bool(true), false, t.clone())),
            _ => Some(Err(CallError(
                "SaltInvocationError: Missing required argument text.".into(),
            ))),
        },
        "mod_watch" => ok(test_mod_watch(chunk)),
        // Needs the real pillar; the simulation cannot know it.
        "check_pillar" => ok(Outcome::new(Value::Bool(true), false, "")),
        _ => None,
    }
}

/// `test.mod_watch`: result/comment/changes from the chunk's own arguments,
/// by default `True`, "Watch statement fired." and a non-empty changes dict.
pub fn test_mod_watch(chunk: &GraphChunk) -> Outcome {
    Outcome {
        result: kwarg(chunk, "result").cloned().unwrap_or(Value::Bool(true)),
        changes: kwarg(chunk, "changes").is_none_or(Value::truthy),
        comment: comment_or(chunk, "Watch statement fired."),
    }
}

fn is_random(v: &Value) -> bool {
    v.py_str().to_lowercase() == "random"
}

fn configurable(chunk: &GraphChunk, test_mode: bool) -> Result<Outcome, CallError> {
    let changes_arg = kwarg(chunk, "changes")
        .cloned()
        .unwrap_or(Value::Bool(true));
    let result_arg = kwarg(chunk, "result").cloned().unwrap_or(Value::Bool(true));
    let comment = kwarg(chunk, "comment")
        .cloned()
        .unwrap_or_else(|| Value::str(""));
    let allow_fail = kwarg(chunk, "allow_test_mode_failure").is_some_and(Value::truthy);
    // "Random" is simulated as the first choice (changes / True).
    let changes = match &changes_arg {
        Value::Bool(b) => *b,
        v if is_random(v) => true,
        _ => {
            return Err(CallError(
                "SaltInvocationError: You have specified the state option 'changes' with invalid arguments. \
                 It must be either True, False, or 'Random'"
                    .into(),
            ))
        }
    };
    let result = match &result_arg {
        Value::Bool(b) => Value::Bool(*b),
        v if is_random(v) => Value::Bool(true),
        _ => {
            return Err(CallError(
                "SaltInvocationError: You have specified the state option 'result' with invalid arguments. \
                 It must be either True, False, or 'Random'"
                    .into(),
            ))
        }
    };
    if test_mode {
        let r = if allow_fail && result_arg == Value::Bool(false) {
            Value::Bool(false)
        } else if changes_arg == Value::Bool(false) {
            Value::Bool(true)
        } else {
            Value::Null
        };
        let c = if comment.truthy() {
            comment
        } else {
            Value::str("This is a test")
        };
        return Ok(Outcome::new(r, changes, c));
    }
    Ok(Outcome::new(result, changes, comment))
}

/// One assumption: which states it applies to and what they do.
#[derive(Debug, Clone, PartialEq)]
pub struct Assumption {
    /// ID, name or glob (fnmatch) over ID and name.
    pub pattern: String,
    /// Only states of this module (`pkg`), if given.
    pub state: Option<String>,
    /// `true`, `false` or `null`.
    pub result: Value,
    /// Whether the state reports changes.
    pub changes: bool,
    /// The comment to report.
    pub comment: Option<String>,
    /// What `mod_watch` returns when a watch or listen fires.
    pub mod_watch: Option<Outcome>,
}

impl Assumption {
    fn comment(&self) -> Value {
        match &self.comment {
            Some(c) => Value::str(c.clone()),
            None => Value::str(default_comment(&self.result, self.changes)),
        }
    }
}

fn default_comment(result: &Value, changes: bool) -> String {
    let what = match result {
        Value::Bool(true) => "succeeds",
        Value::Bool(false) => "fails",
        _ => "returns None",
    };
    let ch = if changes {
        "with changes"
    } else {
        "without changes"
    };
    format!("Assumed: {what} {ch}")
}

/// Invalid assumptions data.
#[derive(Debug, Clone, PartialEq)]
pub struct AssumeError(pub String);

impl fmt::Display for AssumeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AssumeError {}

/// Outcomes for non-`test` states, matched by ID, name or glob.
///
/// Lookup: an exact ID entry wins, then an exact name entry, then the first
/// glob entry (file order) matching the ID or the name. With no match a
/// state succeeds with changes.
#[derive(Debug, Clone, Default)]
pub struct Assumptions {
    entries: Vec<Assumption>,
    exact: HashMap<String, Vec<usize>>,
    globs: Vec<usize>,
}

impl Assumptions {
    /// No assumptions: every non-`test` state succeeds with changes.
    pub fn new() -> Assumptions {
        Assumptions::default()
    }

    /// The assumptions, in order.
    pub fn entries(&self) -> &[Assumption] {
        &self.entries
    }

    /// Add an assumption (later ones win).
    pub fn push(&mut self, a: Assumption) {
        let i = self.entries.len();
        if crate::fnmatch::is_glob(&a.pattern) {
            self.globs.push(i);
        } else {
            self.exact.entry(a.pattern.clone()).or_default().push(i);
        }
        self.entries.push(a);
    }

    /// Parse JSON or YAML text (see `docs/output-format.md`).
    pub fn from_text(text: &str) -> Result<Assumptions, AssumeError> {
        let value = match serde_json::from_str::<serde_json::Value>(text) {
            Ok(j) => Value::from_json(&j),
            Err(_) => crate::yaml::load_value(text, crate::yaml::Dialect::Salt)
                .map_err(|e| AssumeError(format!("invalid assumptions file: {}", e.message)))?,
        };
        Assumptions::from_value(&value)
    }

    /// Read an assumptions file.
    pub fn load(path: &std::path::Path) -> Result<Assumptions, AssumeError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| AssumeError(format!("cannot read {}: {e}", path.display())))?;
        Assumptions::from_text(&text)
    }

    /// Accepted shapes: a map `{pattern: entry}` or a list of entries with a
    /// `match` key (or a one-key map `{pattern: entry}`); `null` is empty.
    /// An entry: `result` (true/false/null, default true), `changes` (bool,
    /// default true), `comment`, `state` (module), `mod_watch` (an entry).
    pub fn from_value(v: &Value) -> Result<Assumptions, AssumeError> {
        let mut out = Assumptions::new();
        match v {
            Value::Null => {}
            Value::Map(m) => {
                for (k, e) in m {
                    out.push(entry(Some(k.py_str()), e)?);
                }
            }
            Value::List(l) => {
                for e in l {
                    match e.as_map() {
                        Some(m) if m.get("match").is_some() => out.push(entry(None, e)?),
                        Some(m) if m.len() == 1 => {
                            if let Some((k, e)) = m.iter().next() {
                                out.push(entry(Some(k.py_str()), e)?)
                            }
                        }
                        _ => {
                            return Err(AssumeError(format!(
                                "assumption entry must be a map with `match`, got {}",
                                e.py_repr()
                            )))
                        }
                    }
                }
            }
            other => {
                return Err(AssumeError(format!(
                    "assumptions must be a map or a list, not {}",
                    other.py_type_name()
                )))
            }
        }
        Ok(out)
    }

    /// The assumption for a chunk, if any.
    pub fn lookup(&self, chunk: &GraphChunk) -> Option<&Assumption> {
        let fits = |i: &usize| {
            let a = &self.entries[*i];
            a.state.as_deref().is_none_or(|s| s == chunk.state)
        };
        let name = chunk.name_str();
        for key in [&chunk.id, &name] {
            if let Some(i) = self
                .exact
                .get(key.as_str())
                .and_then(|v| v.iter().find(|i| fits(i)))
            {
                return Some(&self.entries[*i]);
            }
        }
        self.globs
            .iter()
            .find(|i| {
                fits(i)
                    && (fnmatch(&chunk.id, &self.entries[**i].pattern)
                        || fnmatch(&name, &self.entries[**i].pattern))
            })
            .map(|i| &self.entries[*i])
    }

    /// The patterns that apply to none of `states` ((ID, name, module)
    /// triples): most likely typos, which would otherwise be ignored.
    pub fn unmatched<'s>(
        &self,
        states: impl Iterator<Item = (&'s str, String, &'s str)> + Clone,
    ) -> Vec<&str> {
        self.entries
            .iter()
            .filter(|a| {
                !states.clone().any(|(id, name, module)| {
                    a.state.as_deref().is_none_or(|s| s == module)
                        && (a.pattern == id
                            || a.pattern == name
                            || fnmatch(id, &a.pattern)
                            || fnmatch(&name, &a.pattern))
                })
            })
            .map(|a| a.pattern.as_str())
            .collect()
    }

    /// Outcome of a normal call (`test_mode` for a prereq check: pending
    /// changes give `None`, as Salt states do in test mode).
    pub fn outcome(&self, chunk: &GraphChunk, test_mode: bool) -> Outcome {
        let (result, changes, comment) = match self.lookup(chunk) {
            Some(a) => (a.result.clone(), a.changes, a.comment()),
            None => (
                Value::Bool(true),
                true,
                Value::str(default_comment(&Value::Bool(true), true)),
            ),
        };
        if test_mode {
            let r = match result {
                Value::Bool(false) => Value::Bool(false),
                _ if changes => Value::Null,
                r => r,
            };
            return Outcome::new(r, changes, comment);
        }
        Outcome::new(result, changes, comment)
    }

    /// Outcome of `mod_watch` (default: succeeds with changes).
    pub fn mod_watch_outcome(&self, chunk: &GraphChunk) -> Outcome {
        self.lookup(chunk)
            .and_then(|a| a.mod_watch.clone())
            .unwrap_or_else(|| Outcome::new(Value::Bool(true), true, "Assumed: mod_watch fired"))
    }
}

fn entry(pattern: Option<String>, v: &Value) -> Result<Assumption, AssumeError> {
    let empty = Map::new();
    let m = match v {
        Value::Map(m) => m,
        Value::Null => &empty,
        other => {
            let which = match &pattern {
                Some(p) => format!("assumption {p}"),
                None => "an assumption list entry".to_string(),
            };
            return Err(AssumeError(format!(
                "{which} must be a map, not {}",
                other.py_type_name()
            )));
        }
    };
    let pattern = match pattern {
        Some(p) => p,
        None => m.get("match").map(Value::py_str).unwrap_or_default(),
    };
    let result = match m.get("result") {
        None => Value::Bool(true),
        Some(v @ (Value::Bool(_) | Value::Null)) => v.clone(),
        Some(other) => {
            return Err(AssumeError(format!(
                "assumption {pattern}: `result` must be true, false or null, not {}",
                other.py_repr()
            )))
        }
    };
    let changes = match m.get("changes") {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(AssumeError(format!(
                "assumption {pattern}: `changes` must be true or false, not {}",
                other.py_repr()
            )))
        }
    };
    let comment = m.get("comment").map(Value::py_str);
    let state = m.get("state").map(Value::py_str);
    let mod_watch = match m.get("mod_watch") {
        None => None,
        Some(w) => {
            let a = entry(Some(pattern.clone()), w)?;
            let comment = a
                .comment
                .clone()
                .map(Value::str)
                .unwrap_or_else(|| Value::str("Assumed: mod_watch fired"));
            Some(Outcome::new(a.result, a.changes, comment))
        }
    };
    for k in m.keys() {
        let k = k.py_str();
        if !matches!(
            k.as_str(),
            "match" | "result" | "changes" | "comment" | "state" | "mod_watch"
        ) {
            return Err(AssumeError(format!(
                "assumption {pattern}: unknown key `{k}`"
            )));
        }
    }
    Ok(Assumption {
        pattern,
        state,
        result,
        changes,
        comment,
        mod_watch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(json: &str) -> GraphChunk {
        let j: serde_json::Value = serde_json::from_str(json).unwrap();
        GraphChunk::new(&Value::from_json(&j)).unwrap()
    }

    #[test]
    fn test_functions_real_and_test_mode() {
        let c = chunk(r#"{"state":"test","__id__":"a","name":"a","fun":"succeed_with_changes"}"#);
        let o = test_outcome(&c, "succeed_with_changes", false)
            .unwrap()
            .unwrap();
        assert_eq!(o, Outcome::new(Value::Bool(true), true, "Success!"));
        let o = test_outcome(&c, "succeed_with_changes", true)
            .unwrap()
            .unwrap();
        assert_eq!(o.result, Value::Null);
        let o = test_outcome(&c, "fail_without_changes", true)
            .unwrap()
            .unwrap();
        assert_eq!(
            o.comment,
            Value::str("If we weren't testing, this would be a failure!")
        );
        assert!(test_outcome(&c, "no_such_fun", false).is_none());
    }

    #[test]
    fn nop_ignores_comment_but_succeed_uses_it() {
        let c = chunk(r#"{"state":"test","__id__":"a","name":"a","fun":"nop","comment":"x"}"#);
        assert_eq!(
            test_outcome(&c, "nop", false).unwrap().unwrap().comment,
            Value::str("Success!")
        );
        assert_eq!(
            test_outcome(&c, "succeed_without_changes", false)
                .unwrap()
                .unwrap()
                .comment,
            Value::str("x")
        );
    }

    #[test]
    fn configurable_state() {
        let c = chunk(
            r#"{"state":"test","__id__":"a","name":"a","fun":"configurable_test_state","changes":false}"#,
        );
        let o = test_outcome(&c, "configurable_test_state", false)
            .unwrap()
            .unwrap();
        assert_eq!(o, Outcome::new(Value::Bool(true), false, ""));
        let o = test_outcome(&c, "configurable_test_state", true)
            .unwrap()
            .unwrap();
        assert_eq!(o, Outcome::new(Value::Bool(true), false, "This is a test"));
        let c = chunk(
            r#"{"state":"test","__id__":"a","name":"a","fun":"configurable_test_state","changes":"yes"}"#,
        );
        assert!(test_outcome(&c, "configurable_test_state", false)
            .unwrap()
            .is_err());
    }

    #[test]
    fn show_notification_needs_text() {
        let c = chunk(r#"{"state":"test","__id__":"a","name":"a","fun":"show_notification"}"#);
        assert!(test_outcome(&c, "show_notification", false)
            .unwrap()
            .is_err());
    }

    #[test]
    fn mod_watch_uses_chunk_args() {
        let c = chunk(
            r#"{"state":"test","__id__":"a","name":"a","fun":"configurable_test_state","changes":false,"comment":"c"}"#,
        );
        assert_eq!(
            test_mod_watch(&c),
            Outcome::new(Value::Bool(true), false, "c")
        );
    }

    #[test]
    fn assumptions_lookup_precedence() {
        let a = Assumptions::from_text(
            r#"[{"match":"*","result":false,"changes":false},
                {"match":"nginx","state":"pkg","changes":false,"comment":"already installed"},
                {"match":"/etc/*","state":"file","result":null}]"#,
        )
        .unwrap();
        let pkg = chunk(r#"{"state":"pkg","__id__":"nginx","name":"nginx","fun":"installed"}"#);
        assert_eq!(
            a.outcome(&pkg, false),
            Outcome::new(Value::Bool(true), false, "already installed")
        );
        let f = chunk(r#"{"state":"file","__id__":"cfg","name":"/etc/x","fun":"managed"}"#);
        // The first glob in file order wins ("*" before "/etc/*").
        assert_eq!(a.outcome(&f, false).result, Value::Bool(false));
        let none = Assumptions::new();
        let o = none.outcome(&f, true);
        assert_eq!((o.result, o.changes), (Value::Null, true));
        assert!(Assumptions::from_text(r#"{"x":{"bogus":1}}"#).is_err());
        assert!(Assumptions::from_text(r#"{"x":{"result":"yes"}}"#).is_err());
    }
}
