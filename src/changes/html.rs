//! The HTML form of a change report (`--format html`): one self-contained
//! page (inline CSS and script, no network) with the summary, a table of
//! the groups and one expandable section per group (its minions, the
//! states added, removed and changed with old and new values, the managed
//! files' diffs, the order changes). Nothing is cut: the page is the full
//! report the Markdown form points to. `#open=N` in the URL opens group N
//! (`#open=all` every group); the page notes what it did in its `body`'s
//! `data-actions` (for the browser test).

use super::text::{file_states, inline, old_new, summary_line};
use super::{ChangeSet, Group, ItemChangeKind, Report, TextDiff};
use crate::plan::esc;
use std::fmt::Write;

const STYLE: &str = r#"
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1f2328;background:#fff}
header{padding:12px 20px;border-bottom:1px solid #d0d7de;background:#f6f8fa}
h1{font-size:18px;margin:0 0 4px}
main{padding:12px 20px}
table{border-collapse:collapse;margin:8px 0 16px}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}
td.n{text-align:right}
details{border:1px solid #d0d7de;border-radius:6px;margin:8px 0;padding:0 12px}
details[open]{padding-bottom:10px}
summary{cursor:pointer;padding:8px 0;font-weight:600}
details.fail{border-color:#cf222e}
details.fail>summary{color:#cf222e}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:4px;padding:6px 8px;overflow:auto;margin:4px 0 10px}
pre.diff span{display:block;white-space:pre}
pre.diff .add{background:#dafbe1}
pre.diff .del{background:#ffebe9}
pre.diff .hunk{color:#8250df}
.added{color:#1a7f37}.removed{color:#cf222e}.changed{color:#9a6700}
.muted{color:#59636e}
button{font:inherit;margin-right:6px}
"#;

const SCRIPT: &str = r#"
(function(){
  var groups = document.querySelectorAll('details.group');
  function setAll(open){ groups.forEach(function(d){ d.open = open; }); }
  document.getElementById('expand').onclick = function(){ setAll(true); };
  document.getElementById('collapse').onclick = function(){ setAll(false); };
  var actions = ['groups:' + groups.length];
  var m = /(?:^|&)open=([^&]*)/.exec(location.hash.slice(1));
  if (m) {
    if (m[1] === 'all') { setAll(true); }
    else {
      var d = document.getElementById('g' + m[1]);
      if (d) { d.open = true; d.scrollIntoView(); }
    }
    var open = document.querySelectorAll('details.group[open]');
    var diffs = 0;
    open.forEach(function(d){ diffs += d.querySelectorAll('pre.diff').length; });
    actions.push('open:' + open.length, 'diffs:' + diffs);
  }
  document.body.setAttribute('data-actions', actions.join(' '));
  requestAnimationFrame(function(){
    document.body.setAttribute('data-first-paint-ms', String(Math.round(performance.now())));
  });
})();
"#;

/// A unified diff as lines coloured by their first character.
fn diff_pre(out: &mut String, d: &TextDiff) {
    out.push_str("<pre class=\"diff\">");
    for line in d.unified.lines() {
        let class = match line.chars().next() {
            Some('+') => "add",
            Some('-') => "del",
            Some('@') => "hunk",
            _ => "ctx",
        };
        let _ = write!(out, "<span class=\"{class}\">{}</span>", esc(line));
    }
    out.push_str("</pre>\n");
    if d.cut_lines > 0 {
        let _ = writeln!(
            out,
            "<p class=\"muted\">… {} more diff lines not shown</p>",
            d.cut_lines
        );
    }
}

/// Counts of a change set for the table: states, files, order.
fn counts(c: &ChangeSet) -> (String, usize, usize) {
    let mut n = [0usize; 4];
    for i in &c.items {
        n[match i.change {
            ItemChangeKind::Replaced { .. } => 0,
            ItemChangeKind::Added(_) => 1,
            ItemChangeKind::Removed(_) => 2,
            ItemChangeKind::Changed(_) => 3,
        }] += 1;
    }
    let states: Vec<String> = n
        .iter()
        .zip(["replaced", "added", "removed", "changed"])
        .filter(|(k, _)| **k > 0)
        .map(|(k, w)| format!("{k} {w}"))
        .collect();
    let states = if c.failures.is_empty() {
        states.join(", ")
    } else {
        "does not compile".into()
    };
    (states, c.files.len(), c.order.len())
}

/// One group's section.
fn section(out: &mut String, r: &Report, index: usize, g: &Group) {
    let c = &g.changes;
    let fail = if c.failed() { " fail" } else { "" };
    let _ = writeln!(
        out,
        "<details class=\"group{fail}\" id=\"g{index}\"><summary>{}{}</summary>",
        if c.failed() { "✖ " } else { "" },
        esc(&g.label(r.noun))
    );
    let _ = writeln!(
        out,
        "<p class=\"muted\">{}: {}</p>",
        esc(r.noun.many),
        esc(&g.targets.join(", "))
    );
    for f in &c.failures {
        let _ = writeln!(
            out,
            "<p><b>The {} tree fails:</b></p><pre>{}</pre>",
            f.side.name(),
            esc(&f.messages.join("\n"))
        );
    }
    if !c.items.is_empty() {
        let _ = writeln!(
            out,
            "<table><tr><th></th><th>{}</th><th>{}</th><th>Change</th></tr>",
            r.noun.item, r.noun.section
        );
        for i in &c.items {
            let kind = i.change.name();
            let mut what = String::new();
            match &i.change {
                ItemChangeKind::Added(v) | ItemChangeKind::Removed(v) => {
                    let _ = write!(what, "<code>{}</code>", esc(&inline(v)));
                }
                ItemChangeKind::Changed(vs) | ItemChangeKind::Replaced { changes: vs, .. } => {
                    if let ItemChangeKind::Replaced { reason, .. } = &i.change {
                        let _ = write!(what, "<div>replaced: {}</div>", esc(reason));
                    }
                    for v in vs {
                        let _ = write!(what, "<div><code>{}</code> ", esc(&v.path.join(":")));
                        match &v.diff {
                            Some(d) => diff_pre(&mut what, d),
                            None => {
                                let _ = write!(what, "<code>{}</code>", esc(&old_new(v)));
                            }
                        }
                        what.push_str("</div>");
                    }
                }
            }
            let _ = writeln!(
                out,
                "<tr><td class=\"{kind}\">{kind}</td><td><code>{}</code></td><td><code>{}</code></td><td>{what}</td></tr>",
                esc(&i.item.label()),
                esc(&i.item.section)
            );
        }
        out.push_str("</table>\n");
    }
    for f in &c.files {
        let _ = writeln!(
            out,
            "<p><b>{}</b> <code>{}</code>: {} (<code>{}</code>)</p>",
            esc(f.kind()),
            esc(&f.path),
            esc(&file_states(f)),
            esc(&f.item.label())
        );
        if let Some(d) = &f.diff {
            diff_pre(out, d);
        }
    }
    for o in &c.order {
        let mut names: Vec<String> = o
            .now_before
            .iter()
            .map(|n| format!("<code>{}</code>", esc(n)))
            .collect();
        if o.more > 0 {
            names.push(format!("{} more", o.more));
        }
        let _ = writeln!(
            out,
            "<p><b>Order:</b> <code>{}</code> now runs before {} (it used to follow them)</p>",
            esc(&o.item.label()),
            names.join(", ")
        );
    }
    out.push_str("</details>\n");
}

/// The report as one self-contained HTML page.
pub fn render(r: &Report) -> String {
    let groups = r.groups();
    let mut out = String::new();
    let title = format!("lowstate: {} → {}", r.old, r.new);
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n<title>{}</title>\n<style>{STYLE}</style></head>\n<body>",
        esc(&title)
    );
    let _ = writeln!(
        out,
        "<header><h1>What this change does</h1><div>{}</div></header>\n<main>",
        esc(&summary_line(r, &groups))
    );
    if !groups.is_empty() {
        out.push_str("<p><button id=\"expand\">Expand all</button><button id=\"collapse\">Collapse all</button></p>\n");
        let _ = writeln!(
            out,
            "<table><tr><th>Group</th><th>{}</th><th>{}</th><th>Files</th><th>Order</th></tr>",
            esc(&super::capitalized(r.noun.many)),
            r.noun.items
        );
        for (i, g) in groups.iter().enumerate() {
            let (states, files, order) = counts(&g.changes);
            let _ = writeln!(
                out,
                "<tr><td><a href=\"#open={}\" onclick=\"document.getElementById('g{}').open=true\">{}{}</a></td><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                i + 1,
                i + 1,
                if g.changes.failed() { "✖ " } else { "" },
                esc(&g.label(r.noun)),
                g.targets.len(),
                esc(&states),
                files,
                order
            );
        }
        out.push_str("</table>\n");
        for (i, g) in groups.iter().enumerate() {
            section(&mut out, r, i + 1, g);
        }
    } else {
        out.push_str("<p><button id=\"expand\" hidden></button><button id=\"collapse\" hidden></button></p>\n");
    }
    let unchanged = r.unchanged();
    if !unchanged.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"muted\">Unchanged: {}.</p>",
            esc(&unchanged.join(", "))
        );
    }
    let _ = writeln!(out, "</main>\n<script>{SCRIPT}</script>\n</body></html>");
    out
}
