//! Engine errors → `JinjaError` with Salt's wording: `Jinja variable ...
//! is undefined`, `Jinja syntax error: ...` (Jinja2's own texts and
//! lines, from [`super::jinja2`]), `Jinja error: ...` for `raise()` and
//! missing templates, followed by `; line N` and Salt's source excerpt
//! (or, for an error inside another template, that template's excerpt).

use minijinja::syntax::SyntaxConfig;
use minijinja::{Error, ErrorKind};

use super::{loader, JinjaError, JinjaErrorKind};

/// Salt's prefix for errors Python raises as plain exceptions.
pub const PREFIX_ERROR: &str = "Jinja error: ";
/// Salt's prefix for `UndefinedError`s.
pub(super) const PREFIX_UNDEFINED: &str = "Jinja variable ";
/// Salt's prefix for `TemplateRuntimeError`s (Salt files them with syntax errors).
pub const PREFIX_RUNTIME: &str = "Jinja syntax error: ";
/// Salt's prefix for `SaltInvocationError` / `CommandExecutionError`.
pub const PREFIX_SALT_FUNCTION: &str = "Problem running salt function in Jinja template: ";

/// A Salt-classified error carried through the engine as an error source.
#[derive(Debug)]
struct SaltTag {
    kind: JinjaErrorKind,
    prefix: &'static str,
    message: String,
}

impl std::fmt::Display for SaltTag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SaltTag {}

/// Text for users: without the loader's internal marker for paths that
/// leave the root (U+0001) and the pre-pass's import helpers.
fn public(text: &str) -> String {
    text.replace('\u{1}', "")
        .replace("__import_enter(", "import(")
        .replace("__import_leave()", "imported names")
}

/// An engine error that maps to `prefix + message` with `kind` (for
/// functions and filters: `raise()`, unmocked salt functions, ...).
pub fn template_error(
    kind: JinjaErrorKind,
    prefix: &'static str,
    message: impl Into<String>,
) -> Error {
    let message = message.into();
    Error::new(ErrorKind::InvalidOperation, message.clone()).with_source(SaltTag {
        kind,
        prefix,
        message,
    })
}

fn find_tag(err: &Error) -> Option<&SaltTag> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(err);
    while let Some(e) = cur {
        if let Some(tag) = e.downcast_ref::<SaltTag>() {
            return Some(tag);
        }
        cur = e.source();
    }
    None
}

/// The innermost engine error (includes wrap their template's error).
fn innermost(err: &Error) -> &Error {
    let mut cur = err;
    while let Some(next) = std::error::Error::source(cur).and_then(|e| e.downcast_ref::<Error>()) {
        cur = next;
    }
    cur
}

/// Where the top-level template came from, to build excerpts.
pub(super) struct TopLevel<'a> {
    pub name: &'a str,
    /// The text Salt renders (after `#jinja2:` header removal).
    pub source: &'a str,
    /// The file's text as given (with any header line).
    pub original: &'a str,
    /// Line removed by a `#jinja2:` header (shifts lines in the original file).
    pub header_line: Option<usize>,
    pub syntax: &'a SyntaxConfig,
    pub loader: &'a dyn super::TemplateLoader,
    pub saltenv: &'a str,
}

/// Map an engine error.
pub(super) fn map_error(err: &Error, top: &TopLevel) -> JinjaError {
    let inner = innermost(err);
    let (kind, mut headline) = classify(inner, top);
    let template = inner
        .name()
        .map(|n| loader::display_name(n).to_string())
        .unwrap_or_else(|| top.name.to_string());
    let mut line = inner.line();
    // A syntax error in Jinja2's words and at Jinja2's line, where Jinja2
    // finds one (minijinja words its own, and stops elsewhere at times).
    if inner.kind() == ErrorKind::SyntaxError {
        let source = match template == top.name {
            true => Some(top.source),
            false => inner.template_source(),
        };
        if let Some((msg, l)) = source.and_then(|s| super::jinja2::first_error(s, top.syntax)) {
            headline = format!("{PREFIX_RUNTIME}{msg}");
            line = Some(l);
        }
    }
    // A write failure (the `render-output` limit) comes without a line:
    // point at the template whose output it was.
    let at_start = inner.kind() == ErrorKind::WriteFailure;
    located(
        top,
        Raised {
            kind,
            headline,
            template,
            line,
            source: inner.template_source(),
            at_start,
        },
    )
}

/// The syntax error Jinja2 raises on the top-level template, which
/// minijinja compiled (it takes some things Jinja2 refuses: `{{ 08 }}`,
/// `{{ 1. }}`, `f(**a, *b)`): Salt's render fails there.
pub(super) fn jinja2_syntax_error(top: &TopLevel) -> Option<JinjaError> {
    let (message, line) = super::jinja2::first_error(top.source, top.syntax)?;
    Some(located(
        top,
        Raised {
            kind: JinjaErrorKind::Syntax,
            headline: format!("{PREFIX_RUNTIME}{message}"),
            template: top.name.to_string(),
            line: Some(line),
            source: None,
            at_start: false,
        },
    ))
}

/// An error as raised, before Salt's excerpt and the line in the file.
struct Raised<'a> {
    kind: JinjaErrorKind,
    /// Salt's message without its `; line N` and excerpt.
    headline: String,
    /// The template it was raised in.
    template: String,
    line: Option<usize>,
    /// That template's text, when it is not the top-level one.
    source: Option<&'a str>,
    /// No line: point at the top-level template's first.
    at_start: bool,
}

/// `raised` with Salt's `; line N` and source excerpt, and its place in
/// the file as written.
fn located(top: &TopLevel, raised: Raised<'_>) -> JinjaError {
    let Raised {
        kind,
        headline: mut message,
        template,
        line,
        source,
        at_start,
    } = raised;
    let is_top = template == top.name;
    let text_of = |name: &str| -> Option<String> {
        if is_top {
            Some(top.source.to_string())
        } else {
            loader::resolve(name).and_then(|p| top.loader.read(top.saltenv, &p))
        }
    };
    let text = text_of(&template).map(|t| loader::normalize_newlines(&t).into_owned());
    if let (Some(l), Some(text)) = (line, &text) {
        if is_top {
            message.push_str(&format!("; line {l}\n\n{}", get_context(text, l)));
        } else {
            message.push_str(&format!("\n{template}({l}):\n{}", get_context(text, l)));
        }
    }
    // Report the line in the original file (before a header line was removed).
    let orig_line = match (line, top.header_line) {
        (Some(l), Some(h)) if is_top && l >= h => Some(l + 1),
        (l, _) => l,
    };
    let orig_line = match orig_line {
        None if at_start && is_top => Some(1),
        l => l,
    };
    let range = match (orig_line, is_top) {
        (Some(l), true) => line_range(top.original, l),
        (Some(l), false) => text.as_deref().and_then(|t| line_range(t, l)),
        _ => None,
    };
    let source = (!is_top).then(|| source.map(str::to_string)).flatten();
    JinjaError {
        kind,
        message: public(&message),
        template,
        source,
        line: orig_line,
        range,
    }
}

/// Byte range of a 1-based line (`None` past the text's last line).
fn line_range(text: &str, line: usize) -> Option<std::ops::Range<usize>> {
    let lines = crate::text::LineIndex::new(text);
    let start = lines.start_of_line(line.checked_sub(1)?);
    (start < text.len()).then(|| lines.line_range(text, line))
}

fn classify(err: &Error, top: &TopLevel) -> (JinjaErrorKind, String) {
    if let Some(tag) = find_tag(err) {
        return (tag.kind, format!("{}{}", tag.prefix, tag.message));
    }
    let detail = err.detail().unwrap_or("");
    // Any operation on an undefined value (attribute, method, operator,
    // length, iteration, ...) fails in Jinja2's StrictUndefined with the
    // undefined's own text; the engine says which expression it was.
    if err.kind() != ErrorKind::UndefinedError {
        if let Some(expr) = undefined_origin(detail) {
            return (
                JinjaErrorKind::Undefined,
                format!("{PREFIX_UNDEFINED}{}", undefined_text(&format!("`{expr}`"))),
            );
        }
    }
    match err.kind() {
        ErrorKind::UndefinedError => {
            let text = if detail.contains('`') {
                undefined_text(detail)
            } else {
                // No expression in the detail (e.g. inside a macro of an
                // imported template): take it from the failing line.
                match undefined_from_source(err) {
                    Some(expr) => undefined_text(&format!("`{expr}` is undefined")),
                    None => undefined_text(detail),
                }
            };
            (JinjaErrorKind::Undefined, format!("{PREFIX_UNDEFINED}{text}"))
        }
        ErrorKind::UnknownFunction => {
            let name = detail.split_whitespace().next().unwrap_or(detail);
            (
                JinjaErrorKind::Undefined,
                format!("{PREFIX_UNDEFINED}'{name}' is undefined"),
            )
        }
        ErrorKind::UnknownMethod => (
            JinjaErrorKind::Undefined,
            format!("{PREFIX_UNDEFINED}{detail}"),
        ),
        ErrorKind::TemplateNotFound => {
            let quoted = ['"', '\''].iter().find_map(|q| {
                let a = detail.find(*q)?;
                let b = detail.rfind(*q)?;
                (b > a).then(|| &detail[a + 1..b])
            });
            let name = loader::display_name(quoted.unwrap_or(detail));
            let _ = top;
            (
                JinjaErrorKind::TemplateNotFound,
                format!("{PREFIX_ERROR}{name}"),
            )
        }
        ErrorKind::UnknownFilter => (
            JinjaErrorKind::Syntax,
            format!(
                "{PREFIX_RUNTIME}No filter named '{}'.",
                detail.split_whitespace().nth(1).unwrap_or(detail)
            ),
        ),
        ErrorKind::UnknownTest => (
            JinjaErrorKind::Syntax,
            format!(
                "{PREFIX_RUNTIME}No test named '{}'.",
                detail.split_whitespace().nth(1).unwrap_or(detail)
            ),
        ),
        ErrorKind::OutOfFuel => (
            JinjaErrorKind::Other,
            format!("{PREFIX_ERROR}the template ran more instructions than the `render-fuel` limit allows (a runaway loop? raise it with `--limit render-fuel=N`)"),
        ),
        ErrorKind::WriteFailure => (
            JinjaErrorKind::Other,
            format!("{PREFIX_ERROR}the template's output passed the `render-output` limit (raise it with `--limit render-output=BYTES`)"),
        ),
        ErrorKind::SyntaxError | ErrorKind::BadEscape | ErrorKind::InvalidDelimiter => (
            JinjaErrorKind::Syntax,
            format!("{PREFIX_RUNTIME}{}", jinja2_wording(detail)),
        ),
        _ => (
            JinjaErrorKind::Other,
            format!(
                "{PREFIX_ERROR}{}",
                if detail.is_empty() {
                    err.kind().to_string()
                } else {
                    detail.to_string()
                }
            ),
        ),
    }
}

/// Jinja2's wording for the parser messages that differ most visibly.
fn jinja2_wording(detail: &str) -> String {
    if detail.starts_with("unexpected end of variable block") {
        return "unexpected 'end of print statement'".into();
    }
    if detail.starts_with("unexpected end of block") {
        return "unexpected 'end of statement block'".into();
    }
    capitalize(detail)
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The expression of the first `{{ ... }}` on the error's line, when it is
/// a plain name or attribute path (what an undefined error is about).
fn undefined_from_source(err: &Error) -> Option<String> {
    let src = err.template_source()?;
    let line = src.lines().nth(err.line()?.checked_sub(1)?)?;
    let start = line.find("{{")? + 2;
    let end = start + line[start..].find("}}")?;
    let expr = line[start..end].trim_matches(|c: char| c == '-' || c.is_whitespace());
    let expr = expr.split('|').next()?.trim();
    let path = |c: char| c == '_' || c == '.' || c.is_alphanumeric();
    (!expr.is_empty() && expr.chars().all(path)).then(|| expr.to_string())
}

/// The expression named by the engine's "... (`expr` is undefined)" suffix.
fn undefined_origin(detail: &str) -> Option<&str> {
    let start = detail.rfind(" (`")? + 3;
    let rest = &detail[start..];
    let end = rest.find("` is undefined")?;
    Some(&rest[..end])
}

thread_local! {
    /// The last key a dict lookup of this thread missed, and whether that
    /// dict was an `OrderedDict`: the owner Salt's undefined-attribute
    /// message names (`'collections.OrderedDict object' has no attribute
    /// 'k'`), whatever expression reached the dict (`.items()`,
    /// `pillar.get`, a merge).
    static MISSING_KEY: std::cell::RefCell<Option<(bool, String)>> =
        const { std::cell::RefCell::new(None) };
}

/// Keeps the noted miss (`MISSING_KEY`) to one top-level render: it
/// starts with none, and the render it interrupted (a render run inside
/// another one, by a function) gets its own back when it ends. The
/// message of a failed render is then a function of that render alone,
/// whatever ran on the thread before it: the files of a compile, and the
/// minions of a fleet, render on threads in an order scheduling decides.
pub(super) struct MissScope(Option<(bool, String)>);

impl Drop for MissScope {
    fn drop(&mut self) {
        let outer = self.0.take();
        MISSING_KEY.with(|m| *m.borrow_mut() = outer);
    }
}

/// Start a render's own noted miss (see [`MissScope`]); the scope must
/// outlive the mapping of the render's errors.
pub(super) fn miss_scope() -> MissScope {
    MissScope(MISSING_KEY.with(|m| m.borrow_mut().take()))
}

/// Record a dict lookup of `key` that missed (see `MISSING_KEY`).
pub(crate) fn note_missing_key(ordered: bool, key: String) {
    MISSING_KEY.with(|m| *m.borrow_mut() = Some((ordered, key)));
}

/// Whether the dict whose lookup of `key` was this thread's last miss
/// is an `OrderedDict` (`None`: the last miss was another key).
pub(crate) fn missed_in_ordered_dict(key: &str) -> Option<bool> {
    MISSING_KEY.with(|m| match &*m.borrow() {
        Some((ordered, k)) if k == key => Some(*ordered),
        _ => None,
    })
}

/// Jinja2's `StrictUndefined` text from minijinja's "`expr` is undefined".
fn undefined_text(detail: &str) -> String {
    let expr = detail.split('`').nth(1).unwrap_or("");
    let expr = expr.trim();
    if expr.is_empty() {
        return "is undefined".into();
    }
    let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c == '_' || c.is_alphanumeric());
    if ident(expr) {
        return format!("'{expr}' is undefined");
    }
    // `a.b` or `a['b']` / `a[0]`: Jinja2 names the missing attribute and the
    // parent's type (Salt's grains/pillar/opts are proxy objects).
    let (parent, key) = if let Some(stripped) = expr.strip_suffix(']') {
        match stripped.rfind('[') {
            Some(open) => (&stripped[..open], &stripped[open + 1..]),
            None => return format!("'{expr}' is undefined"),
        }
    } else if let Some((parent, attr)) = expr.rsplit_once('.') {
        (parent, attr)
    } else {
        return format!("'{expr}' is undefined");
    };
    if let Ok(i) = key.parse::<i64>() {
        return format!("list object has no element {i}");
    }
    // Jinja2's loop gives these undefined values a hint of their own.
    match (parent, key) {
        ("loop", "previtem") => return "there is no previous item".into(),
        ("loop", "nextitem") => return "there is no next item".into(),
        _ => {}
    }
    let key = key.trim_matches(|c| c == '\'' || c == '"');
    let owner = match parent {
        "grains" | "pillar" => "salt.utils.optsdict.DictProxy object",
        "opts" => "salt.utils.optsdict.OptsDict object",
        "loop" => "jinja2.runtime.LoopContext object",
        // A module the minion has not loaded (`salt.mysql` without MySQLdb).
        "salt" => "salt.utils.templates.AliasedLoader object",
        // Any other dict: its type as the lookup that missed found it (a
        // map a template put into the pillar is a plain dict).
        p => match missed_in_ordered_dict(key) {
            Some(true) => "collections.OrderedDict object",
            Some(false) => "dict object",
            // The pillar's own maps came from its YAML: OrderedDicts in Salt.
            None if p.starts_with("pillar.") || p.starts_with("pillar[") => {
                "collections.OrderedDict object"
            }
            None => "dict object",
        },
    };
    format!("'{owner}' has no attribute '{key}'")
}

/// Salt's `get_context`: up to 5 lines either side, a marker on the line.
pub(super) fn get_context(text: &str, line: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if line > lines.len() || line == 0 {
        return text.to_string();
    }
    let start = line.saturating_sub(6);
    let end = (line + 5).min(lines.len());
    let mut buf: Vec<String> = Vec::new();
    let mut at = line - start - 1;
    if start > 0 {
        buf.push("[...]".into());
        at += 1;
    }
    buf.extend(lines[start..end].iter().map(|s| s.to_string()));
    if end < lines.len() {
        buf.push("[...]".into());
    }
    buf[at].push_str("    <======================");
    format!("---\n{}\n---", buf.join("\n"))
}

#[cfg(test)]
mod public_text_tests {
    #[test]
    fn internal_markers_never_reach_a_message() {
        let m = super::public("template \u{1}../../x not found in set a = __import_enter('x')");
        assert!(!m.contains('\u{1}') && !m.contains("__import"), "{m}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn salt_context_excerpt() {
        let text = "a\nb\nc\n";
        assert_eq!(
            get_context(text, 2),
            "---\na\nb    <======================\nc\n---"
        );
        let long: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let c = get_context(&long, 10);
        assert!(c.starts_with("---\n[...]\nl5\n"));
        assert!(c.contains("l10    <===="));
        assert!(c.ends_with("l15\n[...]\n---"));
    }

    #[test]
    fn undefined_texts() {
        assert_eq!(undefined_text("`x` is undefined"), "'x' is undefined");
        assert_eq!(
            undefined_text("`loop.previtem` is undefined"),
            "there is no previous item"
        );
        assert_eq!(
            undefined_origin("cannot calculate length (`d.missing` is undefined)"),
            Some("d.missing")
        );
        assert_eq!(
            undefined_origin("x (`a['b']` is undefined, from t.sls:3)"),
            Some("a['b']")
        );
        assert_eq!(undefined_origin("no hint here"), None);
        assert_eq!(
            undefined_text("`a.b` is undefined"),
            "'dict object' has no attribute 'b'"
        );
        assert_eq!(
            undefined_text("`a['k']` is undefined"),
            "'dict object' has no attribute 'k'"
        );
    }
}
