//! A self-contained HTML page with a plan drawn as inline SVG (laid out by
//! `layout`): no scripts, no network, no CDN.

use super::layout::{layout, Layout, LINE_H, PAD_X, PAD_Y};
use super::Plan;
use std::fmt::Write;

/// Escape text for XML/HTML.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn dash(line: &str) -> &'static str {
    match line {
        "dashed" => " stroke-dasharray=\"7 4\"",
        "dotted" => " stroke-dasharray=\"2 3\"",
        _ => "",
    }
}

fn width(line: &str) -> f64 {
    if line == "bold" {
        2.4
    } else {
        1.4
    }
}

fn marker_id(color: &str) -> String {
    format!("arrow-{}", color.trim_start_matches('#'))
}

/// The SVG picture alone.
pub fn to_svg(g: &Plan) -> String {
    let l: Layout = layout(g);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="Helvetica, Arial, sans-serif" font-size="11">"#,
        w = l.width,
        h = l.height
    );
    out.push_str("<defs>\n");
    let mut colors: Vec<&str> = g.legend.iter().map(|(_, st)| st.color).collect();
    colors.extend(g.edges.iter().map(|e| e.style.color));
    colors.dedup();
    colors.sort_unstable();
    colors.dedup();
    for c in colors {
        let _ = writeln!(
            out,
            r#"<marker id="{}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>"#,
            marker_id(c)
        );
    }
    out.push_str("</defs>\n");
    // Lanes.
    for lane in &l.lanes {
        let _ = writeln!(
            out,
            r##"<g class="lane"><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="8" fill="#f4f4f4" stroke="#cccccc"/><text x="{:.1}" y="{:.1}" font-weight="bold" font-size="12">{}</text></g>"##,
            lane.x - 8.0,
            super::layout::MARGIN - 6.0,
            lane.w + 16.0,
            l.height - 2.0 * super::layout::MARGIN + 12.0,
            lane.x,
            super::layout::MARGIN + 12.0,
            esc(&super::layout::clip(&lane.sls))
        );
    }
    // Edges under the nodes.
    for e in &g.edges {
        let (a, b) = (&l.nodes[e.from], &l.nodes[e.to]);
        let st = e.style;
        let (ay, by) = (a.y + a.h / 2.0, b.y + b.h / 2.0);
        let (x1, x2, c1, c2);
        if a.lane == b.lane {
            x1 = a.x + a.w;
            x2 = b.x + b.w;
            let bend = 24.0 + ((by - ay).abs() / 6.0).min(60.0);
            c1 = x1 + bend;
            c2 = x2 + bend;
        } else if a.x < b.x {
            x1 = a.x + a.w;
            x2 = b.x;
            c1 = x1 + 40.0;
            c2 = x2 - 40.0;
        } else {
            x1 = a.x;
            x2 = b.x + b.w;
            c1 = x1 - 40.0;
            c2 = x2 + 40.0;
        }
        let (mx, my) = (
            0.125 * x1 + 0.375 * c1 + 0.375 * c2 + 0.125 * x2,
            (ay + by) / 2.0,
        );
        let _ = writeln!(
            out,
            r#"<g class="edge"><title>{} → {}: {}</title><path d="M{x1:.1},{ay:.1} C{c1:.1},{ay:.1} {c2:.1},{by:.1} {x2:.1},{by:.1}" fill="none" stroke="{}" stroke-width="{}"{} marker-end="url(#{})"/><text x="{mx:.1}" y="{:.1}" fill="{}" font-size="9" text-anchor="middle">{}</text></g>"#,
            esc(&g.nodes[e.from].title),
            esc(&g.nodes[e.to].title),
            esc(&e.label),
            st.color,
            width(st.line),
            dash(st.line),
            marker_id(st.color),
            my - 3.0,
            st.color,
            esc(&e.label)
        );
    }
    // Nodes.
    for (n, p) in l.nodes.iter().enumerate() {
        if p.lines.is_empty() {
            continue;
        }
        let test = g.nodes[n].secondary;
        let (fill, stroke, dasharray) = if test {
            ("#f3ecfa", "#9467bd", r#" stroke-dasharray="5 3""#)
        } else {
            ("#ffffff", "#666666", "")
        };
        let _ = write!(
            out,
            r#"<g class="node"><title>{}</title><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="5" fill="{fill}" stroke="{stroke}"{dasharray}/>"#,
            esc(&g.nodes[n].key),
            p.x,
            p.y,
            p.w,
            p.h
        );
        for (i, line) in p.lines.iter().enumerate() {
            let weight = if i == 1 { r#" font-weight="bold""# } else { "" };
            let _ = write!(
                out,
                r#"<text x="{:.1}" y="{:.1}"{weight}>{}</text>"#,
                p.x + PAD_X,
                p.y + PAD_Y + LINE_H * (i as f64 + 1.0) - 3.0,
                esc(line)
            );
        }
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    out
}

/// The whole page: title, legend and the SVG.
pub fn to_html(g: &Plan) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<title>lowstate: requisite graph</title>\n<style>\n");
    out.push_str(
        "body{font-family:Helvetica,Arial,sans-serif;margin:16px;color:#222;background:#fff}\n\
         h1{font-size:18px;margin:0 0 6px}\n\
         p.note{font-size:12px;color:#555;margin:0 0 10px}\n\
         ul.legend{list-style:none;padding:0;margin:0 0 12px;display:flex;flex-wrap:wrap;gap:14px;font-size:12px}\n\
         ul.legend svg{vertical-align:middle;margin-right:4px}\n\
         .node:hover rect{stroke-width:2.5}\n\
         .edge:hover path{stroke-width:3.5}\n",
    );
    out.push_str("</style>\n</head>\n<body>\n<h1>Requisite graph</h1>\n");
    let _ = writeln!(
        out,
        "<p class=\"note\">{} states, {} nodes, {} edges. Lanes are SLS files; rows are the execution order (top first); arrows point from a dependency to its dependent. Hover for tags.</p>",
        g.nodes.iter().filter(|n| !n.secondary).count(),
        g.nodes.len(),
        g.edges.len()
    );
    out.push_str("<ul class=\"legend\">\n");
    for (k, st) in &g.legend {
        let _ = writeln!(
            out,
            r#"<li><svg width="34" height="10"><line x1="0" y1="5" x2="34" y2="5" stroke="{}" stroke-width="{}"{}/></svg>{}</li>"#,
            st.color,
            width(st.line),
            dash(st.line),
            k
        );
    }
    out.push_str(
        "<li><svg width=\"34\" height=\"12\"><rect x=\"1\" y=\"1\" width=\"32\" height=\"10\" rx=\"3\" fill=\"#f3ecfa\" stroke=\"#9467bd\" stroke-dasharray=\"5 3\"/></svg>",
    );
    out.push_str(&esc(&g.secondary_name));
    out.push_str("</li>\n");
    out.push_str("</ul>\n");
    out.push_str(&to_svg(g));
    out.push_str("</body>\n</html>\n");
    out
}
