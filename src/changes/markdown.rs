//! The Markdown form of a change report (`--format markdown`), fit for a
//! pull-request comment on GitHub or GitLab: a summary line and table, one
//! collapsible `<details>` section per group, value and file diffs in
//! ```` ```diff ```` blocks, under a first-line [`MARKER`]. The whole stays within a length limit
//! (GitHub's comment limit by default): groups that do not fit are shown
//! without their diffs, then left out, and a closing note says what was
//! cut and where the full report is.

use super::text::{file_states, inline, old_new, summary_line};
use super::{ChangeSet, Group, ItemChangeKind, Report, TextDiff};
use std::fmt::Write;

/// GitHub's limit on a comment's body, in characters.
pub const GITHUB_COMMENT_LIMIT: usize = 65_536;

/// The most groups the summary table lists.
pub const MAX_TABLE_ROWS: usize = 50;

/// The first line of the document, an HTML comment GitHub and GitLab do
/// not show: CI finds its earlier comment by it to update it in place.
pub const MARKER: &str = "<!-- lowstate:change-report -->";

/// Room kept for the closing note.
const NOTE_ROOM: usize = 1_000;

/// How the Markdown is bounded.
#[derive(Debug, Clone)]
pub struct Options {
    /// The most characters of the whole document.
    pub limit: usize,
    /// Where the full report is, named in the note when something is cut
    /// (a URL, or how to make it).
    pub full_report: String,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            limit: GITHUB_COMMENT_LIMIT,
            full_report: "run the same command with `--format html` or `--format json`".into(),
        }
    }
}

/// `text` as a code span (a fence longer than any backtick run inside).
fn code(text: &str) -> String {
    let text = text.replace('\n', " ");
    let run = longest_backtick_run(&text);
    let fence = "`".repeat(run + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') || text.is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

fn longest_backtick_run(text: &str) -> usize {
    let (mut best, mut run) = (0, 0);
    for c in text.chars() {
        if c == '`' {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

/// `text` safe inside HTML (a `<summary>`) and as Markdown text: Markdown's
/// punctuation backslash-escaped, then the HTML escapes of the core's one
/// escaper.
fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '_' | '[' | ']' | '\\' | '#' | '~' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    crate::plan::esc(&out)
}

/// Markdown text made safe in a table cell: GFM ends a cell at any
/// unescaped `|`, inside code spans too.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// A fenced `diff` block of `d`.
fn diff_block(out: &mut String, d: &TextDiff) {
    let fence = "`".repeat((longest_backtick_run(&d.unified) + 1).max(3));
    let _ = writeln!(out, "{fence}diff");
    out.push_str(&d.unified);
    if !d.unified.ends_with('\n') {
        out.push('\n');
    }
    let _ = writeln!(out, "{fence}");
    if d.cut_lines > 0 {
        let _ = writeln!(out, "\n… {} more diff lines not shown", d.cut_lines);
    }
    out.push('\n');
}

/// What a group's change set holds, in a few words per kind.
fn counts(c: &ChangeSet) -> (String, String, String) {
    let (mut added, mut removed, mut changed, mut replaced) = (0, 0, 0, 0);
    for i in &c.items {
        match i.change {
            ItemChangeKind::Added(_) => added += 1,
            ItemChangeKind::Removed(_) => removed += 1,
            ItemChangeKind::Changed(_) => changed += 1,
            ItemChangeKind::Replaced { .. } => replaced += 1,
        }
    }
    let mut items = Vec::new();
    for (n, what) in [
        (replaced, "replaced"),
        (added, "added"),
        (removed, "removed"),
        (changed, "changed"),
    ] {
        if n > 0 {
            items.push(format!("{n} {what}"));
        }
    }
    let files = if c.files.is_empty() {
        String::new()
    } else {
        format!("{}", c.files.len())
    };
    let order = if c.order.is_empty() {
        String::new()
    } else {
        format!("{}", c.order.len())
    };
    (items.join(", "), files, order)
}

/// The values that differ, one `path` `old → new` per line (long ones
/// point to their diff below when `diffs`).
fn values(vs: &[super::ValueChange], diffs: bool) -> String {
    vs.iter()
        .map(|v| {
            let text = if v.diff.is_some() && diffs {
                "see the diff below".to_string()
            } else {
                old_new(v)
            };
            format!("{} {}", code(&v.path.join(":")), code(&text))
        })
        .collect::<Vec<_>>()
        .join("<br>")
}

/// One group's `<details>` section; with `diffs` false, the lists only.
fn section(r: &Report, g: &Group, diffs: bool) -> String {
    let mut out = String::new();
    let mark = if g.changes.failed() { "❌ " } else { "" };
    let _ = writeln!(
        out,
        "<details><summary>{mark}<b>{}</b></summary>\n",
        html(&g.label(r.noun))
    );
    if g.targets.len() > 2 {
        let _ = writeln!(out, "{}: {}\n", r.noun.many, html(&g.targets.join(", ")));
    }
    let c = &g.changes;
    for f in &c.failures {
        let _ = writeln!(out, "**The {} tree fails:**\n", f.side.name());
        let block = TextDiff {
            unified: f.messages.join("\n"),
            cut_lines: 0,
        };
        let fence = "`".repeat((longest_backtick_run(&block.unified) + 1).max(3));
        let _ = writeln!(out, "{fence}text\n{}\n{fence}\n", block.unified);
    }
    if !c.items.is_empty() {
        let _ = writeln!(
            out,
            "| | {} | {} | Change |\n|---|---|---|---|",
            r.noun.item, r.noun.section
        );
        for i in &c.items {
            let (sign, what) = match &i.change {
                ItemChangeKind::Added(v) => ("➕", format!("added: {}", code(&inline(v)))),
                ItemChangeKind::Removed(v) => ("➖", format!("removed: {}", code(&inline(v)))),
                ItemChangeKind::Changed(vs) => ("✏️", values(vs, diffs)),
                ItemChangeKind::Replaced { reason, changes } => {
                    let mut what = format!("replaced: {}", html(reason));
                    if !changes.is_empty() {
                        what.push_str("<br>");
                        what.push_str(&values(changes, diffs));
                    }
                    ("🔁", what)
                }
            };
            let _ = writeln!(
                out,
                "| {sign} | {} | {} | {} |",
                cell(&code(&i.item.label())),
                cell(&code(&i.item.section)),
                cell(&what),
            );
        }
        out.push('\n');
        if diffs {
            for i in &c.items {
                if let ItemChangeKind::Changed(vs) | ItemChangeKind::Replaced { changes: vs, .. } =
                    &i.change
                {
                    for v in vs {
                        if let Some(d) = &v.diff {
                            let _ = writeln!(
                                out,
                                "{} {}:",
                                code(&i.item.label()),
                                code(&v.path.join(":"))
                            );
                            diff_block(&mut out, d);
                        }
                    }
                }
            }
        }
    }
    for f in &c.files {
        let _ = writeln!(
            out,
            "**{}** {}: {} ({})\n",
            html(f.kind()),
            code(&f.path),
            html(&file_states(f)),
            code(&f.item.label())
        );
        if let (true, Some(d)) = (diffs, &f.diff) {
            diff_block(&mut out, d);
        }
    }
    for o in &c.order {
        let more = if o.more > 0 {
            format!(" and {} more", o.more)
        } else {
            String::new()
        };
        let names: Vec<String> = o.now_before.iter().map(|n| code(n)).collect();
        let _ = writeln!(
            out,
            "**Order:** {} now runs before {}{more} (it used to follow them)\n",
            code(&o.item.label()),
            names.join(", ")
        );
    }
    out.push_str("</details>\n\n");
    out
}

/// The report as Markdown, within `opts.limit` characters.
pub fn render(r: &Report, opts: &Options) -> String {
    let groups = r.groups();
    let mut out = String::new();
    let _ = writeln!(out, "{MARKER}\n### lowstate: what this change does\n");
    let _ = writeln!(out, "{}\n", html(&summary_line(r, &groups)));
    if !groups.is_empty() {
        let _ = writeln!(
            out,
            "| | Group | {} | {} | Files | Order |\n|---|---|---:|---|---:|---:|",
            super::capitalized(r.noun.many),
            r.noun.items
        );
        for g in groups.iter().take(MAX_TABLE_ROWS) {
            let (items, files, order) = counts(&g.changes);
            let mark = if g.changes.failed() { "❌" } else { "" };
            let items = if g.changes.failures.is_empty() {
                items
            } else {
                "does not compile".into()
            };
            let _ = writeln!(
                out,
                "| {mark} | {} | {} | {items} | {files} | {order} |",
                cell(&html(&g.label(r.noun))),
                g.targets.len()
            );
        }
        if groups.len() > MAX_TABLE_ROWS {
            let rest = &groups[MAX_TABLE_ROWS..];
            let n: usize = rest.iter().map(|g| g.targets.len()).sum();
            let _ = writeln!(out, "| | … {} more groups | {n} | | | |", rest.len());
        }
        out.push('\n');
    }
    let (mut shortened, mut left_out, mut left_out_targets) = (0usize, 0usize, 0usize);
    let budget = opts.limit.saturating_sub(NOTE_ROOM);
    let mut used = out.chars().count();
    for g in &groups {
        let full = section(r, g, true);
        let n = full.chars().count();
        if used + n <= budget {
            out.push_str(&full);
            used += n;
            continue;
        }
        let short = section(r, g, false);
        let n = short.chars().count();
        if used + n <= budget {
            out.push_str(&short);
            used += n;
            shortened += 1;
        } else {
            left_out += 1;
            left_out_targets += g.targets.len();
        }
    }
    let unchanged = r.unchanged();
    if !unchanged.is_empty() {
        let line = format!(
            "Unchanged: {}.\n\n",
            if unchanged.len() <= 20 {
                html(&unchanged.join(", "))
            } else {
                r.noun.count(unchanged.len())
            }
        );
        if used + line.chars().count() <= budget {
            used += line.chars().count();
            out.push_str(&line);
        }
    }
    if shortened + left_out > 0 {
        let mut note = String::from("> **Cut to fit the comment limit:**");
        if shortened > 0 {
            let _ = write!(note, " {shortened} group(s) shown without their diffs;");
        }
        if left_out > 0 {
            let _ = write!(
                note,
                " {left_out} group(s) ({}) not shown;",
                r.noun.count(left_out_targets)
            );
        }
        let _ = writeln!(note, " for the full report, {}.", opts.full_report);
        // The note always fits: NOTE_ROOM is kept for it (a long
        // `full_report` is cut).
        let room = opts.limit.saturating_sub(used);
        let note: String = note.chars().take(room).collect();
        out.push_str(&note);
    }
    out
}
