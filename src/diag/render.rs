//! Renderers for diagnostics: `human` (message, location, framed source
//! snippets for every label), `json` (one object per diagnostic), `github`
//! (GitHub Actions workflow commands, shown as annotations on a pull
//! request), `sarif` (SARIF 2.1.0, for code-scanning UIs) and
//! `codeclimate` (GitLab's code quality report).

use super::{Diagnostic, Label, Severity};
use crate::value::{Map, Value};

/// Render for a person: `error[code]: message`, then each label as
/// `--> file:line:col` with the source line and a caret underline.
pub fn human(diags: &[Diagnostic], color: bool) -> String {
    let mut out = String::new();
    for d in diags {
        let (sev, paint) = match d.severity {
            Severity::Error => ("error", "\x1b[1;31m"),
            Severity::Warning => ("warning", "\x1b[1;33m"),
            Severity::Info => ("info", "\x1b[1;36m"),
        };
        let (on, off) = if color { (paint, "\x1b[0m") } else { ("", "") };
        let message = escape_controls(&d.message);
        let mut lines = message.lines();
        out.push_str(&format!(
            "{on}{sev}[{}]{off}: {}\n",
            d.code,
            lines.next().unwrap_or("")
        ));
        for l in lines {
            out.push_str(&format!("  {l}\n"));
        }
        if !d.subjects.is_empty() {
            let about: Vec<String> = d
                .subjects
                .iter()
                .map(|s| format!("{} {}", s.kind.word, s.name))
                .collect();
            out.push_str(&format!("  = in {}\n", about.join(", ")));
        }
        if let Some(p) = &d.primary {
            snippet(&mut out, p);
        }
        let same = |a: &Label, b: &Label| {
            std::sync::Arc::ptr_eq(&a.file, &b.file) && a.range == b.range && a.message == b.message
        };
        for (i, s) in d.secondary.iter().enumerate() {
            // A label already shown (as primary or earlier) adds nothing.
            let shown = d.primary.as_ref().is_some_and(|p| same(p, s))
                || d.secondary[..i].iter().any(|e| same(e, s));
            if !shown {
                snippet(&mut out, s);
            }
        }
        for n in &d.notes {
            out.push_str(&format!("  = note: {n}\n"));
        }
        out.push('\n');
    }
    out
}

/// The most characters of a source line a snippet shows; a longer line is
/// cut to a window around the label, with `…` where text was left out.
pub const SNIPPET_WIDTH: usize = 120;

/// A character as a terminal may safely show it: control characters and
/// escape sequences from the input are written as `\u{..}` escapes.
fn visible(c: char) -> String {
    if c == '\t' || c == '\n' || !c.is_control() {
        c.to_string()
    } else {
        c.escape_unicode().to_string()
    }
}

/// Text with every control character escaped (see [`visible`]).
pub fn escape_controls(text: &str) -> String {
    if !text
        .chars()
        .any(|c| c != '\t' && c != '\n' && c.is_control())
    {
        return text.to_string();
    }
    text.chars().map(visible).collect()
}

fn snippet(out: &mut String, label: &Label) {
    let f = &label.file;
    let (line, col) = f.line_col(label.range.start);
    out.push_str(&format!(
        "  --> {}:{}:{}\n",
        escape_controls(&f.name),
        line,
        col
    ));
    let lr = f.line_range(line);
    let chars: Vec<char> = f.text[lr.clone()].chars().collect();
    let start = (col - 1).min(chars.len());
    let end = label.range.end.clamp(label.range.start, lr.end);
    let width = f.text[label.range.start.min(lr.end)..end]
        .chars()
        .count()
        .max(1);
    // The window of the line shown: all of it, or SNIPPET_WIDTH characters
    // around the start of the label.
    let (from, to) = if chars.len() <= SNIPPET_WIDTH {
        (0, chars.len())
    } else {
        let from = start
            .saturating_sub(SNIPPET_WIDTH / 3)
            .min(chars.len() - SNIPPET_WIDTH);
        (from, from + SNIPPET_WIDTH)
    };
    let mut text = String::new();
    let mut caret_at = 0;
    if from > 0 {
        text.push('…');
    }
    for (i, c) in chars[from..to].iter().enumerate() {
        if from + i == start {
            caret_at = text.chars().count();
        }
        text.push_str(&visible(*c));
    }
    if start >= to {
        caret_at = text.chars().count();
    }
    if to < chars.len() {
        text.push('…');
    }
    let width = width.min(to.saturating_sub(start).max(1));
    let gutter = line.to_string();
    let pad = " ".repeat(gutter.len());
    out.push_str(&format!("  {pad} |\n"));
    out.push_str(&format!("  {gutter} | {text}\n"));
    out.push_str(&format!(
        "  {pad} | {}{} {}\n",
        " ".repeat(caret_at),
        "^".repeat(width),
        escape_controls(&label.message)
    ));
}

fn label_json(label: &Label) -> Value {
    let (line, col) = label.file.line_col(label.range.start);
    let (end_line, end_col) = label.file.line_col(label.range.end);
    crate::vmap! {
        "file" => label.file.name.as_str(),
        "start" => label.range.start as i64,
        "end" => label.range.end as i64,
        "line" => line as i64,
        "column" => col as i64,
        "end_line" => end_line as i64,
        "end_column" => end_col as i64,
        "message" => label.message.as_str(),
    }
}

/// One JSON object per diagnostic.
pub fn to_value(d: &Diagnostic) -> Value {
    let mut m = Map::new();
    let sev = d.severity.word();
    m.insert("severity".into(), sev.into());
    m.insert("code".into(), d.code.name.into());
    m.insert("message".into(), d.message.as_str().into());
    m.insert(
        "subjects".into(),
        Value::List(
            d.subjects
                .iter()
                .map(|s| crate::vmap! { "kind" => s.kind.key, "name" => s.name.as_str() })
                .collect(),
        ),
    );
    m.insert(
        "primary".into(),
        d.primary.as_ref().map(label_json).unwrap_or_default(),
    );
    m.insert(
        "secondary".into(),
        Value::List(d.secondary.iter().map(label_json).collect()),
    );
    m.insert(
        "notes".into(),
        Value::List(d.notes.iter().map(|n| n.as_str().into()).collect()),
    );
    Value::Map(m)
}

/// The whole list as a JSON document: `{"errors": [...]}`.
pub fn json(diags: &[Diagnostic]) -> String {
    let v = crate::vmap! {
        "version" => 2i64,
        "diagnostics" => Value::List(diags.iter().map(to_value).collect()),
    };
    v.to_json_pretty()
}

/// A file name as the user's tools want it: relative to `base` (the
/// working directory) when it lies under it.
fn relative(name: &str, base: Option<&std::path::Path>) -> String {
    let path = std::path::Path::new(name);
    match base {
        Some(b) if path.is_absolute() => path
            .strip_prefix(b)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| name.to_string()),
        _ => name.strip_prefix("./").unwrap_or(name).to_string(),
    }
}

/// Escape a workflow command's message (`%`, CR, LF).
fn gh_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a workflow command's property (also `:` and `,`).
fn gh_property(text: &str) -> String {
    gh_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands, one line per diagnostic:
/// `::error file=F,line=L,col=C,endLine=..,endColumn=..,title=CODE::message`
/// (`::notice` for info). Notes follow the message on their own lines.
pub fn github(diags: &[Diagnostic], base: Option<&std::path::Path>) -> String {
    let mut out = String::new();
    for d in diags {
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut props = Vec::new();
        if let Some(p) = &d.primary {
            let (line, col) = p.file.line_col(p.range.start);
            let (end_line, end_col) = p.file.line_col(p.range.end);
            props.push(format!(
                "file={}",
                gh_property(&relative(&p.file.name, base))
            ));
            props.push(format!("line={line}"));
            props.push(format!("col={col}"));
            props.push(format!("endLine={end_line}"));
            if end_line == line {
                props.push(format!("endColumn={end_col}"));
            }
        }
        props.push(format!("title={}", gh_property(d.code.name)));
        let mut message = escape_controls(&d.message);
        for n in &d.notes {
            message.push_str("\nnote: ");
            message.push_str(&escape_controls(n));
        }
        out.push_str(&format!(
            "::{kind} {}::{}\n",
            props.join(","),
            gh_data(&message)
        ));
    }
    out
}

fn sarif_location(label: &Label, base: Option<&std::path::Path>) -> Value {
    let (line, col) = label.file.line_col(label.range.start);
    let (end_line, end_col) = label.file.line_col(label.range.end);
    let mut region = crate::vmap! {
        "startLine" => line as i64,
        "startColumn" => col as i64,
        "endLine" => end_line as i64,
        "endColumn" => end_col.max(if end_line == line { col + 1 } else { 1 }) as i64,
    };
    if let Some(r) = region.as_map_mut() {
        r.insert(
            "snippet".into(),
            crate::vmap! { "text" => label.file.text[label.file.line_range(line)].trim_end_matches('\n') },
        );
    }
    let mut loc = crate::vmap! {
        "physicalLocation" => crate::vmap! {
            "artifactLocation" => crate::vmap! { "uri" => relative(&label.file.name, base).replace('\\', "/") },
            "region" => region,
        },
    };
    if !label.message.is_empty() {
        if let Some(m) = loc.as_map_mut() {
            m.insert(
                "message".into(),
                crate::vmap! { "text" => label.message.as_str() },
            );
        }
    }
    loc
}

/// A SARIF 2.1.0 log with one run of `tool` (`name`, `version`): one
/// result per diagnostic, the rules of the codes used (with their
/// registry summary), file paths relative to `base`.
pub fn sarif(diags: &[Diagnostic], tool: (&str, &str), base: Option<&std::path::Path>) -> String {
    let mut rules: Vec<crate::diag::Code> = Vec::new();
    for d in diags {
        if !rules.contains(&d.code) {
            rules.push(d.code);
        }
    }
    let level = |s: Severity| match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    };
    let rule_values: Vec<Value> = rules
        .iter()
        .map(|c| {
            crate::vmap! {
                "id" => c.name,
                "shortDescription" => crate::vmap! { "text" => c.summary },
                "defaultConfiguration" => crate::vmap! { "level" => level(c.severity) },
            }
        })
        .collect();
    let results: Vec<Value> = diags
        .iter()
        .map(|d| {
            let mut text = escape_controls(&d.message);
            for n in &d.notes {
                text.push_str("\nnote: ");
                text.push_str(&escape_controls(n));
            }
            let mut r = crate::vmap! {
                "ruleId" => d.code.name,
                "ruleIndex" => rules.iter().position(|c| *c == d.code).unwrap_or(0) as i64,
                "level" => level(d.severity),
                "message" => crate::vmap! { "text" => text },
            };
            if let Some(m) = r.as_map_mut() {
                if let Some(p) = &d.primary {
                    m.insert(
                        "locations".into(),
                        Value::List([sarif_location(p, base)].into_iter().collect()),
                    );
                }
                if !d.secondary.is_empty() {
                    m.insert(
                        "relatedLocations".into(),
                        Value::List(
                            d.secondary
                                .iter()
                                .enumerate()
                                .map(|(i, l)| {
                                    let mut v = sarif_location(l, base);
                                    if let Some(m) = v.as_map_mut() {
                                        m.insert("id".into(), Value::Int(i as i64));
                                    }
                                    v
                                })
                                .collect(),
                        ),
                    );
                }
            }
            r
        })
        .collect();
    let log = crate::vmap! {
        "$schema" => "https://json.schemastore.org/sarif-2.1.0.json",
        "version" => "2.1.0",
        "runs" => Value::List([crate::vmap! {
            "tool" => crate::vmap! {
                "driver" => crate::vmap! {
                    "name" => tool.0,
                    "version" => tool.1,
                    "rules" => Value::List(rule_values.into_iter().collect()),
                },
            },
            "columnKind" => "unicodeCodePoints",
            "results" => Value::List(results.into_iter().collect()),
        }].into_iter().collect()),
    };
    let mut text = log.to_json_pretty();
    text.push('\n');
    text
}

/// GitLab's code quality report, the subset of Code Climate's issue format
/// that GitLab reads: a JSON array with one object per diagnostic holding
/// `description` (the message, then its notes), `check_name` (the code),
/// `fingerprint`, `severity` (`major` for an error, `minor` for a warning,
/// `info`) and `location` (`path` relative to `base`, `lines.begin` and
/// `lines.end`). A diagnostic without a primary label is placed at its
/// first secondary one, else at `.` line 1.
///
/// The fingerprint hashes the code, the path and the message, not the line,
/// so a finding keeps its identity when lines above it move (GitLab tells
/// new findings from fixed ones by it); equal findings in one file are told
/// apart by their order. Callers mask secrets in the messages first: a
/// hash of a short secret can be guessed.
pub fn codeclimate(diags: &[Diagnostic], base: Option<&std::path::Path>) -> String {
    use sha2::Digest as _;
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let issues: Vec<Value> = diags
        .iter()
        .map(|d| {
            let label = d.primary.as_ref().or(d.secondary.first());
            let (path, begin, end) = match label {
                Some(l) => (
                    relative(&l.file.name, base).replace('\\', "/"),
                    l.file.line_col(l.range.start).0,
                    l.file.line_col(l.range.end).0,
                ),
                None => (".".to_string(), 1, 1),
            };
            let mut description = escape_controls(&d.message);
            for n in &d.notes {
                description.push_str("\nnote: ");
                description.push_str(&escape_controls(n));
            }
            let key = format!("{}\0{}\0{}", d.code.name, path, d.message);
            let nth = seen.entry(key.clone()).or_default();
            let digest = sha2::Sha256::digest(format!("{key}\0{nth}").as_bytes());
            *nth += 1;
            let fingerprint: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
            crate::vmap! {
                "description" => description,
                "check_name" => d.code.name,
                "fingerprint" => fingerprint,
                "severity" => match d.severity {
                    Severity::Error => "major",
                    Severity::Warning => "minor",
                    Severity::Info => "info",
                },
                "location" => crate::vmap! {
                    "path" => path,
                    "lines" => crate::vmap! {
                        "begin" => begin as i64,
                        "end" => end.max(begin) as i64,
                    },
                },
            }
        })
        .collect();
    let mut text = Value::List(issues.into_iter().collect()).to_json_pretty();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceFile;

    #[test]
    fn long_lines_show_a_window_and_controls_are_escaped() {
        let line = format!("{}TARGET{}", "a".repeat(500), "b".repeat(500));
        let f = SourceFile::new("x.sls", format!("{line}\n"));
        let at = line.find("TARGET").unwrap();
        let d = Diagnostic::new(crate::diag::codes::IO, "bad \u{1b}[31mred")
            .with_primary(Label::new(&f, at..at + 6, "here"));
        let out = human(&[d], false);
        assert!(out.len() < 600, "{out}");
        assert!(out.contains("…aaaa"), "{out}");
        assert!(out.contains("bbbb…"), "{out}");
        assert!(!out.contains('\u{1b}'), "{out}");
        assert!(out.contains("\\u{1b}[31mred"), "{out}");
        // The caret stands under TARGET.
        let lines: Vec<&str> = out.lines().collect();
        let src = lines.iter().find(|l| l.contains("TARGET")).unwrap();
        let caret = lines.iter().find(|l| l.contains("^^^^^^")).unwrap();
        assert_eq!(
            src.chars().position(|c| c == 'T'),
            caret.chars().position(|c| c == '^')
        );
    }

    #[test]
    fn human_shows_snippet_with_caret() {
        let f = SourceFile::new("salt/web.sls", "a:\n  test.nop:\n    - x\n");
        let sls = crate::diag::SubjectKind {
            key: "sls",
            word: "SLS",
        };
        let id = crate::diag::SubjectKind {
            key: "id",
            word: "ID",
        };
        let d = Diagnostic::new(crate::diag::codes::IO, "something is off")
            .with_primary(Label::new(&f, 5..13, "here"))
            .with_subject(sls, "base:web")
            .with_subject(id, "a");
        let out = human(&[d], false);
        assert!(out.contains("error[io]: something is off"), "{out}");
        assert!(out.contains("--> salt/web.sls:2:3"), "{out}");
        assert!(out.contains("2 |   test.nop:"), "{out}");
        assert!(out.contains("|   ^^^^^^^^ here"), "{out}");
        assert!(out.contains("in SLS base:web, ID a"), "{out}");
    }
}
