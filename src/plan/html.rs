//! The HTML outputs: a standalone SVG picture of a plan (laid out by
//! `layout`), and the self-contained interactive viewer page (the plan as
//! JSON from `viewer_data`, drawn by the vendored Cytoscape.js; no network).

use super::layout::{layout, Layout, LINE_H, PAD_X, PAD_Y};
use super::viewer_data::viewer_data;
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

/// The Cytoscape.js build embedded in every page (MIT licence, vendored
/// from the npm registry: cytoscape 3.34.4).
const CYTOSCAPE: &str = include_str!("vendor/cytoscape.min.js");
/// Cytoscape.js's licence, embedded with it.
const CYTOSCAPE_LICENSE: &str = include_str!("vendor/cytoscape.LICENSE");
/// The viewer's own script.
const VIEWER: &str = include_str!("viewer.js");

/// The whole page: a self-contained viewer (no network) with pan and zoom,
/// search, collapsible groups, per-node details (requisites in and out, the
/// reasons it sits where it does) and path highlighting. The plan's data and
/// the vendored Cytoscape.js are embedded in the page.
pub fn to_html(g: &Plan) -> String {
    let mut out = String::with_capacity(CYTOSCAPE.len() + 64 * g.nodes.len() + 8192);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<title>lowstate: plan</title>\n<style>\n");
    out.push_str(
        "html,body{margin:0;height:100%;font-family:Helvetica,Arial,sans-serif;color:#222}\n\
         #bar{position:absolute;top:0;left:0;right:360px;height:44px;display:flex;gap:8px;align-items:center;padding:0 10px;border-bottom:1px solid #ddd;background:#fafafa;z-index:2}\n\
         #bar h1{font-size:15px;margin:0 8px 0 0}\n\
         #bar input{width:260px;padding:5px}\n\
         #bar button{padding:4px 8px}\n\
         #count{font-size:12px;color:#555}\n\
         #legend{font-size:11px;display:flex;gap:10px;flex-wrap:wrap}\n\
         #cy{position:absolute;top:45px;left:0;right:360px;bottom:0}\n\
         #side{position:absolute;top:0;right:0;width:360px;bottom:0;overflow:auto;border-left:1px solid #ddd;padding:10px;box-sizing:border-box;font-size:13px}\n\
         #side h2{font-size:15px;margin:4px 0}\n#side h3{font-size:13px;margin:12px 0 4px}\n\
         #side ul,#side ol{margin:0;padding-left:18px}\n#side a{color:#1f5fa8;cursor:pointer;text-decoration:underline}\n\
         #results li{cursor:pointer}\n.meta{color:#555}.hint{color:#777;font-size:12px}.warn{color:#b00}\n\
         details.licence{font-size:11px;color:#777;margin-top:20px}\n",
    );
    out.push_str("</style>\n</head>\n<body>\n<div id=\"bar\"><h1>lowstate plan</h1>");
    out.push_str("<input id=\"q\" type=\"search\" placeholder=\"Search ID, name or group\">");
    out.push_str("<span id=\"count\"></span><button id=\"fit\">Fit</button><button id=\"collapse\">Collapse groups</button><button id=\"expand\">Expand groups</button><span id=\"legend\">");
    for (k, st) in &g.legend {
        let _ = write!(
            out,
            "<span style=\"color:{};border-bottom:2px {} {}\">{}</span>",
            st.color,
            if st.line == "dashed" || st.line == "dotted" {
                st.line
            } else {
                "solid"
            },
            st.color,
            esc(k)
        );
    }
    out.push_str("</span></div>\n<div id=\"cy\"></div>\n<div id=\"side\">");
    let clusters = g.clusters();
    let nested: std::collections::HashSet<&str> = g.folded.iter().map(String::as_str).collect();
    let folded = clusters
        .iter()
        .filter(|(name, _)| nested.contains(name.as_str()))
        .count();
    let _ = write!(
        out,
        "<p><b>{}</b> {}, <b>{}</b> edges in <b>{}</b> {} groups{}. Click a {} for its {} and why it sits where it does; shift-click another for the path between them; click a group's title to collapse it.{}</p>",
        g.nodes.len(),
        esc(&g.words.nodes),
        g.edges.len(),
        clusters.len() - folded,
        esc(&g.group_name),
        if folded > 0 {
            format!(" and <b>{folded}</b> nested ones, collapsed until you click them")
        } else {
            String::new()
        },
        esc(&g.words.node),
        esc(&g.words.edges),
        // Only dialects with secondary nodes (Salt's prereq test run) say
        // what a dashed box is.
        if g.secondary_name.is_empty() || g.secondary_name == "—" {
            String::new()
        } else {
            format!(" Dashed boxes: {}.", esc(&g.secondary_name))
        }
    );
    out.push_str("<ul id=\"results\"></ul><div id=\"details\"></div>");
    out.push_str("<details class=\"licence\"><summary>Cytoscape.js licence</summary><pre>");
    out.push_str(&esc(CYTOSCAPE_LICENSE));
    out.push_str("</pre></details></div>\n");
    out.push_str("<script type=\"application/json\" id=\"plan-data\">");
    out.push_str(&viewer_data(g));
    out.push_str("</script>\n<script>\n");
    out.push_str(CYTOSCAPE);
    out.push_str("\n</script>\n<script>\n");
    out.push_str(VIEWER);
    out.push_str("</script>\n</body>\n</html>\n");
    out
}
