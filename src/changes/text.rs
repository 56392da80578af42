//! The plain-text form of a change report (`--format text`, the default
//! on a terminal): a summary line, then each group in rank order with its
//! failures, item changes (`+` added, `-` removed, `~` changed, with old
//! → new values), file diffs and order changes, then the unchanged
//! targets.

use super::{ChangeSet, FileChange, Group, ItemChangeKind, Report, TextDiff, ValueChange};
use crate::value::Value;
use std::fmt::Write;

/// The longest value shown inline; longer ones are cut with `…`.
pub const MAX_INLINE: usize = 200;

/// A value in one line: compact JSON, cut at [`MAX_INLINE`] characters.
pub fn inline(v: &Value) -> String {
    let s = v.to_json().to_string();
    if s.chars().count() <= MAX_INLINE {
        return s;
    }
    let mut cut: String = s.chars().take(MAX_INLINE).collect();
    cut.push('…');
    cut
}

/// `old → new` of one value change (`(absent)` for a missing side,
/// `(masked)` for a secret).
pub fn old_new(v: &ValueChange) -> String {
    let side = |x: &Option<Value>| match x {
        None => "(absent)".to_string(),
        Some(x) => inline(x),
    };
    let masked = if v.masked { " (masked)" } else { "" };
    format!("{} → {}{masked}", side(&v.old), side(&v.new))
}

/// The one-line summary of a report.
pub fn summary_line(r: &Report, groups: &[Group]) -> String {
    let s = r.summary(groups);
    let mut line = format!(
        "{} → {}: {}, {} with changes",
        r.old,
        r.new,
        r.noun.count(s.targets),
        s.changed
    );
    if s.groups > 0 {
        let _ = write!(
            line,
            " in {} group{}",
            s.groups,
            if s.groups == 1 { "" } else { "s" }
        );
    }
    let _ = write!(line, ", {} failing", s.failed);
    line
}

/// The report as text.
pub fn render(r: &Report) -> String {
    let groups = r.groups();
    let mut out = summary_line(r, &groups);
    out.push('\n');
    for g in &groups {
        let fails = if g.changes.failed() { " — FAILS" } else { "" };
        let _ = writeln!(out, "\n== {}{fails} ==", g.label(r.noun));
        if g.targets.len() > 2 {
            let _ = writeln!(out, "   {}", g.targets.join(" "));
        }
        change_set(&mut out, &g.changes);
    }
    let unchanged = r.unchanged();
    if !unchanged.is_empty() {
        let _ = writeln!(
            out,
            "\nunchanged ({}): {}",
            unchanged.len(),
            unchanged.join(" ")
        );
    }
    out
}

fn indent(out: &mut String, text: &str, pad: &str) {
    for line in text.lines() {
        let _ = writeln!(out, "{pad}{line}");
    }
}

fn diff(out: &mut String, d: &TextDiff, pad: &str) {
    indent(out, &d.unified, pad);
    if d.cut_lines > 0 {
        let _ = writeln!(out, "{pad}… {} more diff lines not shown", d.cut_lines);
    }
}

fn change_set(out: &mut String, c: &ChangeSet) {
    for f in &c.failures {
        let _ = writeln!(out, "  the {} tree fails:", f.side.name());
        for m in &f.messages {
            indent(out, m, "    ");
        }
    }
    for i in &c.items {
        let sign = match &i.change {
            ItemChangeKind::Added(_) => '+',
            ItemChangeKind::Removed(_) => '-',
            ItemChangeKind::Changed(_) => '~',
            ItemChangeKind::Replaced { .. } => '!',
        };
        let _ = writeln!(out, "  {sign} {}  [{}]", i.item.label(), i.item.section);
        match &i.change {
            ItemChangeKind::Added(v) | ItemChangeKind::Removed(v) => {
                let _ = writeln!(out, "      {}", inline(v));
            }
            ItemChangeKind::Changed(vs) | ItemChangeKind::Replaced { changes: vs, .. } => {
                if let ItemChangeKind::Replaced { reason, .. } = &i.change {
                    let _ = writeln!(out, "      replaced: {reason}");
                }
                for v in vs {
                    match &v.diff {
                        None => {
                            let _ = writeln!(out, "      {}: {}", v.path.join(":"), old_new(v));
                        }
                        Some(d) => {
                            let masked = if v.masked { " (masked)" } else { "" };
                            let _ = writeln!(out, "      {}:{masked}", v.path.join(":"));
                            diff(out, d, "        ");
                        }
                    }
                }
            }
        }
    }
    for f in &c.files {
        file(out, f);
    }
    for o in &c.order {
        let more = if o.more > 0 {
            format!(" and {} more", o.more)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  order: {} now runs before {}{more} (it used to follow them)",
            o.item.label(),
            o.now_before.join(", ")
        );
    }
}

/// `old → new` of a file's two states.
pub fn file_states(f: &FileChange) -> String {
    format!("{} → {}", f.old.describe(), f.new.describe())
}

fn file(out: &mut String, f: &FileChange) {
    let _ = writeln!(
        out,
        "  file {}: {} ({}; {})",
        f.path,
        f.kind(),
        f.item.label(),
        file_states(f)
    );
    if let Some(d) = &f.diff {
        diff(out, d, "    ");
    }
}
