//! The data the HTML viewer reads: a [`Plan`] as one generic JSON document
//! (nodes with key, label lines, group, kind, order, position, reasons and
//! the box lowstate placed them in; edges with from, to, type, label and
//! style; groups with their boxes), escaped for a `<script>` element. Kept
//! apart from the page itself so any front end's plan feeds the same viewer.

use super::layout::clip;
use super::Plan;

/// Where the viewer draws each node: groups as lanes (each lane's nodes in
/// execution order), lanes in a grid of roughly square shape so that a plan
/// of thousands of nodes is not one very tall strip. Returns per node
/// (center x, center y, width, height, lane) and the lanes' node counts.
/// A group's lane: name, node count, and its box (center x, center y,
/// width, height).
type LaneBox = (String, usize, [f64; 4]);

/// Where one node is drawn: center x, center y, width, height, lane.
type NodeBox = (f64, f64, f64, f64, usize);

fn viewer_positions(g: &Plan) -> (Vec<NodeBox>, Vec<LaneBox>) {
    let clusters = g.clusters();
    let pos = g.positions();
    // Lanes are tall (one row per node): as many columns as make the whole
    // grid about 16:9.
    let avg_nodes = g.nodes.len() as f64 / clusters.len().max(1) as f64;
    let lane_aspect = (avg_nodes * 40.0 + 60.0) / 300.0;
    let columns = ((clusters.len() as f64 * lane_aspect * 1.8).sqrt().ceil() as usize)
        .clamp(1, clusters.len().max(1));
    let mut out = vec![(0.0, 0.0, 0.0, 0.0, 0); g.nodes.len()];
    let mut lanes = Vec::with_capacity(clusters.len());
    let (mut x, mut band_y, mut band_h) = (0.0f64, 0.0f64, 0.0f64);
    for (li, (name, nodes)) in clusters.iter().enumerate() {
        if li > 0 && li % columns == 0 {
            x = 0.0;
            band_y += band_h + 120.0;
            band_h = 0.0;
        }
        let lines = |n: usize| -> Vec<String> {
            let mut l = g.nodes[n].label.clone();
            if let (Some(p), Some(first)) = (pos[n], l.first_mut()) {
                *first = format!("{p}: {first}");
            }
            l
        };
        let chars = nodes
            .iter()
            .flat_map(|&n| lines(n))
            .map(|l| l.chars().count().min(40))
            .max()
            .unwrap_or(10)
            .max(name.chars().count().min(40));
        let w = (chars as f64 * 6.2 + 20.0).max(120.0);
        let mut y = band_y;
        for &n in nodes {
            let h = lines(n).len() as f64 * 13.0 + 12.0;
            out[n] = (x + w / 2.0, y + h / 2.0, w, h, li);
            y += h + 14.0;
        }
        band_h = band_h.max(y - band_y);
        let h = (y - band_y).max(40.0);
        lanes.push((
            name.clone(),
            nodes.len(),
            [x + w / 2.0, band_y + h / 2.0, w + 28.0, h + 28.0],
        ));
        x += w + 90.0;
    }
    (out, lanes)
}

/// The plan as the viewer's JSON (escaped for a `<script>` element).
pub(super) fn viewer_data(g: &Plan) -> String {
    use serde_json::json;
    let (placed, lanes) = viewer_positions(g);
    let pos = g.positions();
    let nodes: Vec<serde_json::Value> = g
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let (x, y, w, h, lane) = placed[i];
            let mut label: Vec<String> = n.label.iter().map(|l| clip(l)).collect();
            if let (Some(p), Some(first)) = (pos[i], label.first_mut()) {
                *first = format!("{p}: {first}");
            }
            json!({
                "key": n.key, "label": label, "group": n.group, "title": n.title, "kind": n.kind,
                "rank": n.rank, "pos": pos[i], "secondary": n.secondary, "lane": lane,
                "x": x, "y": y, "w": w, "h": h,
                "reasons": n.reasons.iter().map(|r| json!({
                    "text": r.text,
                    "color": r.family.map(|f| f.color()),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let edges: Vec<serde_json::Value> = g
        .edges
        .iter()
        .map(|e| json!({"from": e.from, "to": e.to, "kind": e.kind, "label": e.label, "color": e.style.color, "line": e.style.line}))
        .collect();
    let folded: std::collections::HashSet<&str> = g.folded.iter().map(String::as_str).collect();
    let groups: Vec<serde_json::Value> = lanes
        .iter()
        .map(|(name, count, b)| json!({"name": name, "count": count, "folded": folded.contains(name.as_str()), "x": b[0], "y": b[1], "w": b[2], "h": b[3]}))
        .collect();
    let w = &g.words;
    let words = json!({"node": w.node, "nodes": w.nodes, "edges": w.edges, "needs": w.needs, "neededBy": w.needed_by});
    let doc = json!({"groupName": g.group_name, "words": words, "nodes": nodes, "edges": edges, "groups": groups});
    // `</` would end the script element early.
    doc.to_string().replace("</", "<\\/")
}
