//! Graphviz DOT output: one cluster per SLS, nodes in execution order,
//! edges coloured and styled by requisite type.

use super::Plan;
use std::fmt::Write;

/// A DOT string literal (quotes and backslashes escaped, newlines as `\n`).
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The requisite graph as DOT (`dot -Tsvg` renders it).
pub fn to_dot(g: &Plan) -> String {
    let pos = g.positions();
    let mut out = String::new();
    out.push_str("digraph lowstate {\n");
    out.push_str("  rankdir=LR;\n");
    out.push_str("  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"Helvetica\", fontsize=10];\n");
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=9];\n");
    for (ci, (sls, nodes)) in g.clusters().iter().enumerate() {
        let _ = writeln!(out, "  subgraph cluster_{ci} {{");
        let _ = writeln!(out, "    label={};", quote(sls));
        out.push_str("    style=\"rounded,filled\"; fillcolor=\"#f4f4f4\"; color=\"#bbbbbb\";\n");
        for &n in nodes {
            let mut lines = g.nodes[n].label.clone();
            if let Some(p) = pos[n] {
                lines[0] = format!("{p}: {}", lines[0]);
            }
            let extra = if g.nodes[n].secondary {
                ", style=\"rounded,dashed,filled\", fillcolor=\"#f3ecfa\""
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "    n{n} [label={}, tooltip={}{extra}];",
                quote(&lines.join("\n")),
                quote(&g.nodes[n].key)
            );
        }
        out.push_str("  }\n");
    }
    for e in &g.edges {
        let st = e.style;
        let _ = writeln!(
            out,
            "  n{} -> n{} [label={}, color=\"{}\", fontcolor=\"{}\", style={}];",
            e.from,
            e.to,
            quote(&e.label),
            st.color,
            st.color,
            st.line
        );
    }
    out.push_str("}\n");
    out
}
