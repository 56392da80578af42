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
        };
        let (on, off) = if color { (paint, "\x1b[0m") } else { ("", "") };
        let mut lines = d.message.lines();
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

fn snippet(out: &mut String, label: &Label) {
    let f = &label.file;
    let (line, col) = f.line_col(label.range.start);
    out.push_str(&format!("  --> {}:{}:{}\n", f.name, line, col));
    let lr = f.line_range(line);
    let text = &f.text[lr.clone()];
    let gutter = line.to_string();
    let pad = " ".repeat(gutter.len());
    out.push_str(&format!("  {pad} |\n"));
    out.push_str(&format!("  {gutter} | {text}\n"));
    let start_chars = col - 1;
    let end = label.range.end.clamp(label.range.start, lr.end);
    let width = f.text[label.range.start.min(lr.end)..end]
        .chars()
        .count()
        .max(1);
    out.push_str(&format!(
        "  {pad} | {}{} {}\n",
        " ".repeat(start_chars),
        "^".repeat(width),
        label.message
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
    let sev = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
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
