//! Rendering: turns an SLS (or top / pillar) file's text into data through a
//! renderer pipe (`jinja|yaml` by default, or a `#!` shebang): `jinja` makes
//! text, `yaml` / `json` make data. Owns the pipe parsing and the mapping of
//! engine errors to diagnostics; the engines live in `jinja` and `yaml`.

pub mod jinja;

use crate::diag::codes;
use crate::diag::{Diagnostic, Label, SourceFile};
use crate::salt::SLS;
use crate::text::LineIndex;
use crate::value::Value;
use crate::yaml::{self, Loaded, Node, NodeValue, YamlErrorKind};
use jinja::{Jinja, JinjaErrorKind, SlsContext};
use std::sync::Arc;

/// One stage of a renderer pipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Jinja.
    Jinja,
    /// YAML.
    Yaml,
    /// JSON.
    Json,
    /// yamlex (YAML with `!aggregate` / `!reset`, see [`crate::salt::yamlex`]).
    Yamlex,
    /// gpg: decrypts the PGP messages in the values (or the text) it gets
    /// and passes everything else through. lowstate has no keys: data
    /// without a PGP message passes, a PGP message is an error.
    Gpg,
}

/// What the `#!` line (or the `renderer` option) asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pipe {
    /// The stages, in order.
    Stages(Vec<Stage>),
    /// A renderer Salt does not know: Salt drops the whole pipe and the file
    /// renders to nothing.
    Unknown(String),
    /// A renderer Salt has that needs Python or a secret store (`py`, `mako`,
    /// `nacl`, ...): we cannot run it offline.
    Unsupported(String),
}

/// Renderers that exist in Salt 3008 but need something we do not have.
const UNSUPPORTED: &[&str] = &[
    "py",
    "pyobjects",
    "pydsl",
    "mako",
    "wempy",
    "genshi",
    "cheetah",
    "nacl",
    "pass",
    "jsonnet",
    "hjson",
    "toml",
    "stateconf",
    "dson",
    "msgpack",
    "aws_kms",
    "json5",
    "cheetah",
    "text",
    "raw",
];

impl Pipe {
    /// Parse a pipe spec such as `jinja|yaml`, `yaml_jinja` or `jinja | json`.
    pub fn parse(spec: &str) -> Pipe {
        let spec = spec.trim();
        // Legacy aliases: `yaml_jinja` → `jinja|yaml`, `json_jinja` → `jinja|json`.
        if let Some((data, tmpl)) = spec.split_once('_') {
            if !spec.contains('|') && matches!(data, "yaml" | "json") {
                let data = if data == "yaml" {
                    Stage::Yaml
                } else {
                    Stage::Json
                };
                return match tmpl {
                    "jinja" => Pipe::Stages(vec![Stage::Jinja, data]),
                    "mako" | "wempy" | "genshi" | "cheetah" => Pipe::Unsupported(tmpl.into()),
                    other => Pipe::Unknown(other.into()),
                };
            }
        }
        let mut stages = Vec::new();
        for part in spec.split('|') {
            // Each renderer may carry arguments after a space.
            let name = part.split_whitespace().next().unwrap_or("");
            match name {
                "jinja" => stages.push(Stage::Jinja),
                "yaml" => stages.push(Stage::Yaml),
                "json" => stages.push(Stage::Json),
                "yamlex" => stages.push(Stage::Yamlex),
                "gpg" => stages.push(Stage::Gpg),
                n if UNSUPPORTED.contains(&n) => return Pipe::Unsupported(n.into()),
                n => return Pipe::Unknown(n.into()),
            }
        }
        Pipe::Stages(stages)
    }

    /// The pipe for a file: its `#!` line if it has one, else the default.
    pub fn for_text(text: &str, default: &str) -> Pipe {
        let first = text.lines().next().unwrap_or("");
        match first.strip_prefix("#!") {
            Some(rest) if !rest.starts_with('/') => Pipe::parse(rest),
            _ => Pipe::parse(default),
        }
    }
}

/// A file rendered to data.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// `None` when the file rendered to nothing (empty text, unknown
    /// renderer). A plain value (no spans) only when [`RenderEnv::spans`]
    /// is off.
    pub data: Option<Loaded>,
    /// The file as written.
    pub template: Arc<SourceFile>,
    /// The text the data stage parsed (spans in `data` point into it).
    pub text: Arc<SourceFile>,
    /// With the yamlex renderer: the data with its aggregate marks (the
    /// pillar's `aggregate` strategy folds by them).
    pub aggregate: Option<crate::salt::yamlex::Aggr>,
    /// The pipe of a non-blank file ended in a text renderer (`#!jinja`
    /// alone): Salt gets a text stream, not data.
    pub text_only: bool,
}

/// Everything a render needs besides the file.
pub struct RenderEnv<'a> {
    /// The Jinja environment.
    pub jinja: &'a Jinja,
    /// The `renderer` option (used without a `#!` line).
    pub default_pipe: &'a str,
    /// Whether the caller reads the spans of the data (else YAML the fast
    /// path serves comes back as a plain value, which is cheaper).
    pub spans: bool,
}

/// Render one file through its pipe. `what` is how Salt names the file in
/// error messages (`base:web` for an SLS).
pub fn render_file(
    env: &RenderEnv<'_>,
    template: Arc<SourceFile>,
    ctx: &SlsContext,
    what: &str,
) -> Result<Rendered, Diagnostic> {
    let fail = |msg: &str| format!("Rendering SLS '{what}' failed: {msg}");
    let stages = match Pipe::for_text(&template.text, env.default_pipe) {
        Pipe::Stages(s) => s,
        Pipe::Unknown(_) => {
            return Ok(Rendered {
                data: None,
                text: template.clone(),
                template,
                aggregate: None,
                text_only: false,
            })
        }
        Pipe::Unsupported(r) => {
            return Err(Diagnostic::new(
                codes::UNSUPPORTED_RENDERER,
                fail(&format!(
                    "the '{r}' renderer needs Python or a secret store; lowstate cannot run it"
                )),
            )
            .with_primary(Label::line(&template, 1, "renderer chosen here"))
            .with_subject(SLS, what))
        }
    };
    let mut text = template.clone();
    let mut data: Option<Loaded> = None;
    let mut aggregate = None;
    for stage in stages {
        if data.is_some() && stage != Stage::Gpg {
            return Err(Diagnostic::new(
                codes::UNSUPPORTED_RENDERER,
                fail("a text renderer cannot follow a data renderer in the pipe"),
            )
            .with_primary(Label::line(&template, 1, "pipe given here"))
            .with_subject(SLS, what));
        }
        match stage {
            Stage::Jinja => {
                let out = env
                    .jinja
                    .render(&text.text, ctx)
                    .map_err(|e| jinja_diagnostic(e, &template, &fail, what))?;
                text = SourceFile::new(format!("{} (rendered)", template.name), out);
            }
            Stage::Yaml | Stage::Yamlex => {
                if text.text.trim().is_empty() {
                    return Ok(Rendered {
                        data: None,
                        template,
                        text,
                        aggregate: None,
                        text_only: false,
                    });
                }
                let options = yaml::LoadOptions::new(yaml::Dialect::Salt, env.jinja.limits());
                let loaded = if stage == Stage::Yamlex {
                    crate::salt::yamlex::load(&text.text, &options).map(|a| {
                        let node = a.clone().into_node();
                        aggregate = Some(a);
                        Loaded::Tree(node)
                    })
                } else if env.spans {
                    yaml::load_with(&text.text, &options).map(Loaded::Tree)
                } else {
                    yaml::load_plain(&text.text, &options)
                };
                let node = loaded.map_err(|e| {
                    let code = match e.kind {
                        YamlErrorKind::Syntax => codes::YAML_SYNTAX,
                        YamlErrorKind::DuplicateKey => codes::YAML_DUPLICATE_KEY,
                        YamlErrorKind::UnhashableKey => codes::YAML_UNHASHABLE_KEY,
                    };
                    yaml_diagnostic(
                        code,
                        &fail(&e.message),
                        &e.span,
                        e.context.as_ref(),
                        &template,
                        &text,
                    )
                    .with_subject(SLS, what)
                })?;
                data = Some(node);
            }
            Stage::Gpg => {
                let found = match &data {
                    Some(Loaded::Tree(node)) => ciphertext_in(node),
                    Some(Loaded::Plain(v)) => value_has_ciphertext(v).then_some(0..0),
                    None => ciphertext_at(&text.text),
                };
                if let Some(span) = found {
                    return Err(yaml_diagnostic(
                        codes::UNSUPPORTED_RENDERER,
                        &fail(
                            "Could not decrypt cipher: lowstate has no gpg keys, so it \
                             cannot decrypt this PGP message as Salt's gpg renderer would",
                        ),
                        &span,
                        None,
                        &template,
                        &text,
                    )
                    .with_subject(SLS, what));
                }
            }
            Stage::Json => {
                if text.text.trim().is_empty() {
                    return Ok(Rendered {
                        data: None,
                        template,
                        text,
                        aggregate: None,
                        text_only: false,
                    });
                }
                // Salt's json renderer drops a leading `#!` line.
                let body = match text.text.strip_prefix("#!") {
                    Some(rest) => rest.find('\n').map_or("", |i| &rest[i + 1..]),
                    None => &text.text,
                };
                let skipped = text.text.len() - body.len();
                let v: serde_json::Value = serde_json::from_str(body).map_err(|e| {
                    let line = e.line().max(1) + usize::from(skipped > 0);
                    let range = text.line_range(line);
                    let start = (range.start + e.column().saturating_sub(1)).min(range.end);
                    yaml_diagnostic(
                        codes::JSON_SYNTAX,
                        &fail(&e.to_string()),
                        &(start..start),
                        None,
                        &template,
                        &text,
                    )
                    .with_subject(SLS, what)
                })?;
                data = Some(Loaded::Tree(Node::from_value(&Value::from_json(&v), 0..0)));
            }
        }
    }
    let text_only = data.is_none() && !template.text.trim().is_empty();
    let data = data.filter(|d| !d.is_null());
    Ok(Rendered {
        data,
        template,
        text,
        aggregate,
        text_only,
    })
}

/// Where the gpg renderer finds a PGP message in `text` (Salt's
/// `GPG_CIPHERTEXT`: a BEGIN marker with an END marker after it).
fn ciphertext_at(text: &str) -> Option<std::ops::Range<usize>> {
    const BEGIN: &str = "-----BEGIN PGP MESSAGE-----";
    const END: &str = "-----END PGP MESSAGE-----";
    let start = text.find(BEGIN)?;
    let end = text[start..].find(END)? + start + END.len();
    Some(start..end)
}

/// The span of the first value (not key) holding a PGP message: the gpg
/// renderer decrypts the values of mappings and the items of lists.
fn ciphertext_in(node: &Node) -> Option<std::ops::Range<usize>> {
    match &node.value {
        NodeValue::Str(s) => ciphertext_at(s).map(|_| node.span.clone()),
        NodeValue::List(items) => items.iter().find_map(ciphertext_in),
        NodeValue::Map(entries) => entries.iter().find_map(|(_, v)| ciphertext_in(v)),
        _ => None,
    }
}

/// Whether a value (not a key) holds a PGP message.
fn value_has_ciphertext(v: &Value) -> bool {
    match v {
        Value::Str(s) => ciphertext_at(s).is_some(),
        Value::List(items) => items.iter().any(value_has_ciphertext),
        Value::Map(entries) => entries.iter().any(|(_, x)| value_has_ciphertext(x)),
        _ => false,
    }
}

/// A diagnostic for an error in rendered text: the primary label is in the
/// rendered text; when Jinja changed the text, the template line that
/// produced it (found by content) is a secondary label.
fn yaml_diagnostic(
    code: codes::Code,
    message: &str,
    span: &std::ops::Range<usize>,
    context: Option<&std::ops::Range<usize>>,
    template: &Arc<SourceFile>,
    text: &Arc<SourceFile>,
) -> Diagnostic {
    let mut d = Diagnostic::new(code, message);
    if Arc::ptr_eq(template, text) || template.text.trim_end() == text.text.trim_end() {
        d = d.with_primary(Label::new(template, span.clone(), "here"));
        if let Some(c) = context {
            d = d.with_secondary(Label::new(template, c.clone(), "related"));
        }
        return d;
    }
    d = d.with_primary(Label::new(text, span.clone(), "in the rendered text"));
    if let Some(c) = context {
        d = d.with_secondary(Label::new(text, c.clone(), "related"));
    }
    if let Some(line) = template_line_for(template, text, span.start) {
        d = d.with_secondary(Label::line(
            template,
            line,
            "produced by this template line",
        ));
    }
    d
}

/// Maps byte ranges in rendered text back to the template line that most
/// likely produced them (matched by content, preferring lines in order), so
/// that late diagnostics point at what the user wrote.
pub struct LineMap {
    /// For each rendered line (0-based): the template line (0-based).
    lines: Vec<usize>,
    rendered: LineIndex,
    template: LineIndex,
}

/// The literal pieces of a template line around its `{{ ... }}`
/// expressions (`{{ u }}-home:` → `["", "-home:"]`).
fn literal_parts(line: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find("{{") {
        parts.push(&rest[..open]);
        rest = match rest[open..].find("}}") {
            Some(close) => &rest[open + close + 2..],
            None => "",
        };
    }
    parts.push(rest);
    parts
}

/// Whether `rendered` starts with the first piece, ends with the last and
/// has the others in between, in order; a line of expressions only (no
/// literal text: it would fit anything) fits nothing.
fn has_parts(rendered: &str, parts: &[&str]) -> bool {
    if parts.iter().all(|p| p.trim().is_empty()) {
        return false;
    }
    let (Some(first), Some(last)) = (parts.first(), parts.last()) else {
        return false;
    };
    let Some(mut rest) = rendered.strip_prefix(first.trim_start()) else {
        return false;
    };
    let Some(body) = rest.strip_suffix(last.trim_end()) else {
        return false;
    };
    rest = body;
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(at) => rest = &rest[at + p.len()..],
            None => return false,
        }
    }
    true
}

impl LineMap {
    /// Map rendered lines back to template lines.
    pub fn new(template: &str, rendered: &str) -> LineMap {
        let tlines: Vec<&str> = template.lines().map(str::trim).collect();
        let mut by_text: std::collections::HashMap<&str, Vec<usize>> = Default::default();
        for (i, l) in tlines.iter().enumerate() {
            if !l.is_empty() {
                by_text.entry(l).or_default().push(i);
            }
        }
        // For each template line, the nearest line at or before it with an
        // expression (`{{`), found once (no backward scan per line).
        let mut last_expr: Vec<Option<usize>> = Vec::with_capacity(tlines.len());
        for (i, l) in tlines.iter().enumerate() {
            let prev = if i == 0 { None } else { last_expr[i - 1] };
            last_expr.push(if l.contains("{{") { Some(i) } else { prev });
        }
        // The literal text around each expression line's `{{ ... }}`s: a
        // rendered line that has it, in order, is one that line can make
        // (`{{ u }}-home:` makes `bob-home:`).
        let shapes: Vec<(usize, Vec<&str>)> = tlines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.contains("{{"))
            .map(|(i, l)| (i, literal_parts(l)))
            .collect();
        let mut lines = Vec::new();
        // The last line matched by its text: rendered index → template index.
        let (mut anchor_r, mut anchor_t) = (0usize, 0usize);
        let last_line = tlines.len().saturating_sub(1);
        for (i, r) in rendered.lines().map(str::trim).enumerate() {
            let matched = if tlines.get(i) == Some(&r) && !r.is_empty() {
                Some(i)
            } else if r.is_empty() {
                None
            } else {
                by_text
                    .get(r)
                    .map(|c| c.iter().copied().find(|&t| t >= anchor_t).unwrap_or(c[0]))
                    .or_else(|| {
                        // An expression line that can make it: the first at or
                        // after the last match, else the first (a loop's
                        // next round starts over).
                        let fit = || shapes.iter().filter(|(_, parts)| has_parts(r, parts));
                        fit()
                            .find(|(t, _)| *t >= anchor_t)
                            .or_else(|| fit().next())
                            .map(|(t, _)| *t)
                    })
            };
            let t = match matched {
                Some(t) => {
                    (anchor_r, anchor_t) = (i, t);
                    t
                }
                // A line the template does not have as text (an expression
                // rendered, a blank line): step on from the last match, back
                // to the nearest line with an expression that can make it.
                None => {
                    let c = (anchor_t + (i - anchor_r)).min(last_line);
                    if r.is_empty() {
                        c
                    } else {
                        last_expr.get(c).copied().flatten().unwrap_or(c)
                    }
                }
            };
            lines.push(t);
        }
        LineMap {
            lines,
            rendered: LineIndex::new(rendered),
            template: LineIndex::new(template),
        }
    }

    /// The template range for a rendered range: same column on the mapped
    /// line, clipped to that line.
    pub fn map(&self, r: std::ops::Range<usize>) -> std::ops::Range<usize> {
        let line = self.rendered.line_of(r.start);
        let col = r.start - self.rendered.start_of_line(line);
        let t = self.lines.get(line).copied().unwrap_or(0);
        let t_start = self.template.start_of_line(t);
        let t_end = match self.template.start_of_line(t + 1) {
            next if t + 1 < self.template.line_count() => next.saturating_sub(1),
            end => end,
        };
        let start = (t_start + col).min(t_end);
        let end = (start + r.len()).min(t_end).max(start);
        start..end
    }
}

/// Best guess of the template line that produced the rendered line at
/// `offset`: the same line number if its text matches, else the first
/// template line with the same text, else the nearest line by number.
pub fn template_line_for(template: &SourceFile, text: &SourceFile, offset: usize) -> Option<usize> {
    let (line, _) = text.line_col(offset);
    let rendered = text.text[text.line_range(line)].trim();
    let tlines: Vec<&str> = template.text.lines().collect();
    if tlines.get(line - 1).is_some_and(|t| t.trim() == rendered) {
        return Some(line);
    }
    if !rendered.is_empty() {
        if let Some(i) = tlines.iter().position(|t| t.trim() == rendered) {
            return Some(i + 1);
        }
    }
    Some(line.min(tlines.len().max(1)))
}

/// A Jinja render failure as a diagnostic located in the template (or in
/// the imported template the engine names).
pub(crate) fn jinja_diagnostic(
    e: jinja::JinjaError,
    template: &Arc<SourceFile>,
    fail: &dyn Fn(&str) -> String,
    what: &str,
) -> Diagnostic {
    let code = match e.kind {
        JinjaErrorKind::Syntax => codes::JINJA_SYNTAX,
        JinjaErrorKind::Undefined => codes::JINJA_UNDEFINED,
        JinjaErrorKind::Raise => codes::JINJA_RAISE,
        JinjaErrorKind::TemplateNotFound => codes::JINJA_TEMPLATE_NOT_FOUND,
        JinjaErrorKind::Unmocked => codes::UNMOCKED_CALL,
        JinjaErrorKind::Other => codes::JINJA_ERROR,
    };
    let mut d = Diagnostic::new(code, fail(&e.message)).with_subject(SLS, what);
    // The error is in this file unless the engine names another template.
    let here =
        e.template.is_empty() || template.name.ends_with(&e.template) || e.template == "<template>";
    if here {
        if code == codes::JINJA_UNDEFINED {
            let line = e
                .range
                .as_ref()
                .map(|r| template.line_col(r.start).0)
                .or(e.line);
            let text = line
                .filter(|l| *l >= 1 && *l <= template.lines().line_count())
                .map(|l| &template.text[template.line_range(l)]);
            if let Some(note) = text.and_then(|t| missing_key_note(t, &e.message)) {
                d = d.with_note(note);
            }
        }
        if let Some(r) = e.range.clone() {
            d = d.with_primary(Label::new(template, r, "here"));
        } else if let Some(l) = e.line {
            d = d.with_primary(Label::line(template, l, "here"));
        }
    } else {
        match (&e.source, e.line) {
            (Some(text), Some(l)) => {
                let other = SourceFile::new(e.template.clone(), text.clone());
                d = d.with_primary(Label::line(&other, l, "here"));
                d = d.with_secondary(Label::line(template, 1, "while rendering this file"));
            }
            _ => {
                d = d.with_note(match e.line {
                    Some(l) => format!("in template {} line {l}", e.template),
                    None => format!("in template {}", e.template),
                })
            }
        }
    }
    d
}

/// For Salt's "has no attribute 'K'" on a `pillar[...]`/`grains[...]`
/// lookup written on `line`: a note naming the missing key as a
/// colon-separated path and the `.get` call that gives a default.
fn missing_key_note(line: &str, message: &str) -> Option<String> {
    let key = message
        .split("has no attribute '")
        .nth(1)?
        .split('\'')
        .next()?;
    let bytes = line.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    for root in ["pillar", "grains"] {
        let mut from = 0;
        while let Some(i) = line[from..].find(root).map(|i| i + from) {
            from = i + root.len();
            if i > 0 && (ident(bytes[i - 1]) || bytes[i - 1] == b'.') {
                continue;
            }
            // The chain of `['k']`, `["k"]` and `.k` after the root.
            let mut at = from;
            let mut segs: Vec<(&str, usize)> = Vec::new();
            loop {
                let rest = &line[at..];
                if let Some(r) = rest.strip_prefix('.') {
                    let n = r.bytes().take_while(|b| ident(*b)).count();
                    // `.get(` and friends are calls, not keys.
                    if n == 0 || r[n..].starts_with('(') {
                        break;
                    }
                    at += 1 + n;
                    segs.push((&r[..n], at));
                } else if let Some(r) = rest.strip_prefix('[') {
                    let Some(q) = r.chars().next().filter(|c| *c == '\'' || *c == '"') else {
                        break;
                    };
                    let Some(end) = r[1..].find(q) else { break };
                    if !r[1 + end + 1..].starts_with(']') {
                        break;
                    }
                    segs.push((&r[1..1 + end], at + 1 + 1 + end + 2));
                    at += 1 + 1 + end + 2;
                } else {
                    break;
                }
            }
            if let Some(pos) = segs.iter().position(|(k, _)| *k == key) {
                let path: Vec<&str> = segs[..=pos].iter().map(|(k, _)| *k).collect();
                let path = path.join(":");
                let expr = &line[i..segs[pos].1];
                let what = if root == "pillar" {
                    "the pillar has"
                } else {
                    "the grains have"
                };
                return Some(format!(
                    "`{expr}`: {what} no key `{path}`; `salt['{root}.get']('{path}', default)` gives a default when it may be missing"
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_pillar_and_grain_keys_get_a_note() {
        let n = |line: &str, key: &str| {
            missing_key_note(
                line,
                &format!("Jinja variable 'x object' has no attribute '{key}'; line 3"),
            )
        };
        assert_eq!(
            n("    - name: {{ pillar['nginx'][\"prot\"] }}", "prot").unwrap(),
            "`pillar['nginx'][\"prot\"]`: the pillar has no key `nginx:prot`; `salt['pillar.get']('nginx:prot', default)` gives a default when it may be missing"
        );
        assert!(n("{{ pillar.nosuch.x }}", "nosuch")
            .unwrap()
            .starts_with("`pillar.nosuch`: the pillar has no key `nosuch`;"));
        assert!(n("{{ grains['roles'] }}", "roles")
            .unwrap()
            .contains("salt['grains.get']('roles', default)"));
        assert_eq!(n("{{ mypillar['a'] }}", "a"), None);
        assert_eq!(n("{{ pillar.get('a') }}", "a"), None);
        assert_eq!(n("{{ pillar['a'] }}", "b"), None);
    }

    #[test]
    fn pipes_parse_like_salt() {
        assert_eq!(
            Pipe::parse("jinja|yaml"),
            Pipe::Stages(vec![Stage::Jinja, Stage::Yaml])
        );
        assert_eq!(
            Pipe::parse("yaml_jinja"),
            Pipe::Stages(vec![Stage::Jinja, Stage::Yaml])
        );
        assert_eq!(
            Pipe::parse(" jinja | json "),
            Pipe::Stages(vec![Stage::Jinja, Stage::Json])
        );
        assert_eq!(Pipe::parse("jinja|nosuch"), Pipe::Unknown("nosuch".into()));
        assert_eq!(Pipe::parse("py"), Pipe::Unsupported("py".into()));
        assert_eq!(
            Pipe::parse("jinja|yaml|gpg"),
            Pipe::Stages(vec![Stage::Jinja, Stage::Yaml, Stage::Gpg])
        );
        assert_eq!(
            Pipe::for_text("#!yaml\na: 1", "jinja|yaml"),
            Pipe::Stages(vec![Stage::Yaml])
        );
        assert_eq!(
            Pipe::for_text("#!/usr/bin/env x\na: 1", "jinja|yaml"),
            Pipe::Stages(vec![Stage::Jinja, Stage::Yaml])
        );
    }

    #[test]
    fn gpg_finds_pgp_messages_in_values_only() {
        let msg = "-----BEGIN PGP MESSAGE-----\n\nhQEMA\n-----END PGP MESSAGE-----\n";
        assert_eq!(ciphertext_at(msg), Some(0..msg.len() - 1));
        assert_eq!(
            ciphertext_at("-----END PGP MESSAGE----- -----BEGIN PGP MESSAGE-----"),
            None
        );
        let mut m = crate::value::Map::new();
        m.insert(msg.into(), Value::str("plain"));
        assert!(!value_has_ciphertext(&Value::Map(m.clone())));
        m.insert("k".into(), Value::List(vec![Value::str(msg)].into()));
        assert!(value_has_ciphertext(&Value::Map(m)));
        let node = Node::from_value(
            &Value::List(vec![Value::Int(1), Value::str(msg)].into()),
            3..9,
        );
        assert_eq!(ciphertext_in(&node), Some(3..9));
    }

    #[test]
    fn line_map_follows_content() {
        let t = "{% for i in [1, 2] %}\nx{{ i }}:\n  test.nop: []\n{% endfor %}\n";
        let r = "\nx1:\n  test.nop: []\n\nx2:\n  test.nop: []\n\n";
        let m = LineMap::new(t, r);
        let second = r.rfind("test.nop").unwrap();
        let mapped = m.map(second..second + 8);
        assert_eq!(&t[mapped], "test.nop");
    }

    #[test]
    fn a_loops_later_rounds_map_to_the_lines_that_made_them() {
        let t = "{% for u in ['alice', 'bob'] %}\n{{ u }}-home:\n  file.managed:\n    - name: /home/{{ u }}/.profile\n    - mode: 600\n{% endfor %}\n";
        let r = "\nalice-home:\n  file.managed:\n    - name: /home/alice/.profile\n    - mode: 600\n\nbob-home:\n  file.managed:\n    - name: /home/bob/.profile\n    - mode: 600\n\n";
        let map = LineMap::new(t, r);
        let line_of = |needle: &str| {
            let at = r.find(needle).unwrap();
            let start = map.map(at..at + 1).start;
            t[..start].matches('\n').count() + 1
        };
        assert_eq!(line_of("bob-home"), 2);
        assert_eq!(line_of("/home/bob"), 4);
        assert_eq!(literal_parts("{{ u }}-home:"), vec!["", "-home:"]);
        assert!(!has_parts("anything", &["", ""]));
    }

    #[test]
    fn template_line_found_by_content() {
        let t = SourceFile::new("t", "{% set x = 1 %}\na:\n  b: [\n");
        let r = SourceFile::new("r", "\na:\n  b: [\n");
        assert_eq!(
            template_line_for(&t, &r, r.text.find("b:").unwrap()),
            Some(3)
        );
    }
}
