//! Renderers for diagnostics: `human` (message, location, framed source
//! snippets for every label) and `json` (one object per diagnostic).

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
