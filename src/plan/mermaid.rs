//! Mermaid flowchart output: one subgraph per SLS, edges labelled with the
//! requisite type and coloured through `linkStyle`.

use super::Plan;
use std::fmt::Write;

/// Text safe inside a Mermaid `["..."]` label.
fn label(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '\n' => out.push_str("<br/>"),
            c => out.push(c),
        }
    }
    out
}

/// The requisite graph as a Mermaid flowchart.
pub fn to_mermaid(g: &Plan) -> String {
    let pos = g.positions();
    let mut out = String::from("flowchart LR\n");
    for (ci, (sls, nodes)) in g.clusters().iter().enumerate() {
        let _ = writeln!(out, "  subgraph sls{ci}[\"{}\"]", label(sls));
        for &n in nodes {
            let mut lines = g.nodes[n].label.clone();
            if let Some(p) = pos[n] {
                lines[0] = format!("{p}: {}", lines[0]);
            }
            let _ = writeln!(out, "    n{n}[\"{}\"]", label(&lines.join("\n")));
        }
        out.push_str("  end\n");
    }
    for e in &g.edges {
        let arrow = match e.style.line {
            "dashed" | "dotted" => "-.->",
            "bold" => "==>",
            _ => "-->",
        };
        let _ = writeln!(
            out,
            "  n{} {arrow}|\"{}\"| n{}",
            e.from,
            label(&e.label),
            e.to
        );
    }
    for (i, e) in g.edges.iter().enumerate() {
        let st = e.style;
        let _ = writeln!(
            out,
            "  linkStyle {i} stroke:{},color:{}",
            st.color, st.color
        );
    }
    let tests: Vec<String> = (0..g.nodes.len())
        .filter(|&n| g.nodes[n].secondary)
        .map(|n| format!("n{n}"))
        .collect();
    if !tests.is_empty() {
        out.push_str("  classDef prereqTest stroke-dasharray: 4 3,fill:#f3ecfa\n");
        let _ = writeln!(out, "  class {} prereqTest", tests.join(","));
    }
    out
}
