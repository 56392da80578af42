//! A swimlane layout for the HTML view, computed in Rust: one lane (column)
//! per SLS, one row per node in execution order, so the picture reads top to
//! bottom in the order Salt runs the states. Every dependency runs before
//! its dependent, so edges point downwards. Linear in nodes + edges.

use super::Plan;

pub(super) const CHAR_W: f64 = 6.6;
pub(super) const LINE_H: f64 = 14.0;
pub(super) const PAD_X: f64 = 10.0;
pub(super) const PAD_Y: f64 = 7.0;
pub(super) const ROW_GAP: f64 = 14.0;
pub(super) const LANE_GAP: f64 = 90.0;
pub(super) const MARGIN: f64 = 20.0;
pub(super) const HEADER_H: f64 = 34.0;
/// Longest label line drawn in full; longer ones are cut with `…`.
pub(super) const MAX_CHARS: usize = 48;

/// Where one node goes.
#[derive(Debug, Clone)]
pub(super) struct Placed {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    pub lane: usize,
    pub lines: Vec<String>,
}

/// One lane.
#[derive(Debug, Clone)]
pub(super) struct Lane {
    pub sls: String,
    pub x: f64,
    pub w: f64,
}

#[derive(Debug, Clone)]
pub(super) struct Layout {
    pub lanes: Vec<Lane>,
    pub nodes: Vec<Placed>,
    pub width: f64,
    pub height: f64,
}

/// Cut a label line to `MAX_CHARS` characters.
pub(super) fn clip(s: &str) -> String {
    if s.chars().count() <= MAX_CHARS {
        return s.to_string();
    }
    let mut t: String = s.chars().take(MAX_CHARS - 1).collect();
    t.push('…');
    t
}

pub(super) fn layout(g: &Plan) -> Layout {
    let clusters = g.clusters();
    let pos = g.positions();
    let mut lane_of = vec![0usize; g.nodes.len()];
    let mut lanes = Vec::with_capacity(clusters.len());
    let mut lines_of: Vec<Vec<String>> = vec![Vec::new(); g.nodes.len()];
    let mut x = MARGIN;
    for (li, (sls, nodes)) in clusters.iter().enumerate() {
        let mut chars = sls.chars().count().min(MAX_CHARS);
        for &n in nodes {
            lane_of[n] = li;
            let mut lines = g.nodes[n].label.clone();
            if let Some(p) = pos[n] {
                lines[0] = format!("{p}: {}", lines[0]);
            }
            let lines: Vec<String> = lines.iter().map(|l| clip(l)).collect();
            for l in &lines {
                chars = chars.max(l.chars().count());
            }
            lines_of[n] = lines;
        }
        let w = (chars as f64 * CHAR_W + 2.0 * PAD_X).max(120.0);
        lanes.push(Lane {
            sls: sls.clone(),
            x,
            w,
        });
        x += w + LANE_GAP;
    }
    // Keep a lane gap after the last lane: same-lane edges loop out to the right.
    let width = x + MARGIN;
    // Rows: execution order, then nodes that are not in it.
    let mut rows: Vec<usize> = Vec::with_capacity(g.nodes.len());
    let mut seen = vec![false; g.nodes.len()];
    for n in g.order.iter().copied().chain(0..g.nodes.len()) {
        if !seen[n] {
            seen[n] = true;
            rows.push(n);
        }
    }
    let mut placed: Vec<Option<Placed>> = vec![None; g.nodes.len()];
    let mut y = MARGIN + HEADER_H;
    for n in rows {
        let lane = &lanes[lane_of[n]];
        let lines = std::mem::take(&mut lines_of[n]);
        let h = lines.len() as f64 * LINE_H + 2.0 * PAD_Y;
        placed[n] = Some(Placed {
            x: lane.x,
            y,
            w: lane.w,
            h,
            lane: lane_of[n],
            lines,
        });
        y += h + ROW_GAP;
    }
    let nodes = placed
        .into_iter()
        .map(|p| {
            p.unwrap_or(Placed {
                x: 0.0,
                y: 0.0,
                w: 0.0,
                h: 0.0,
                lane: 0,
                lines: Vec::new(),
            })
        })
        .collect();
    Layout {
        lanes,
        nodes,
        width: width.max(2.0 * MARGIN + 120.0),
        height: y + MARGIN,
    }
}
