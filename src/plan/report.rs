//! The readable execution-order report (`lowstate order`): every node in
//! execution order with the reasons its front end gave for its place (the
//! node's own order value, the dependencies that hold it back or pull it
//! forward, the conditions under which it runs), in aligned columns.

use super::Plan;
use std::fmt::Write;

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const CYAN: &str = "\x1b[36m";
/// Secondary nodes (Salt's prereq test runs) stand out in magenta.
const SECONDARY: &str = "\x1b[1;35m";

fn paint(color: bool, code: &str, text: &str) -> String {
    if color && !code.is_empty() {
        format!("{code}{text}{RESET}")
    } else {
        text.to_string()
    }
}

/// The report: a header, then one block per node in execution order.
/// `color` adds ANSI colours; column alignment is the same either way.
pub fn order_report(g: &Plan, color: bool) -> String {
    struct Row {
        pos: String,
        rank: String,
        group: String,
        title: String,
        kind: String,
        node: usize,
    }
    // Text from the input: control characters never reach the terminal.
    let esc = crate::diag::render::escape_controls;
    let rows: Vec<Row> = g
        .order
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let node = &g.nodes[n];
            let mut title = esc(&node.title);
            if node.secondary {
                title.push_str(" [test]");
            }
            Row {
                pos: i.to_string(),
                rank: esc(&node.rank),
                group: esc(&node.group),
                title,
                kind: esc(&node.kind),
                node: n,
            }
        })
        .collect();
    let width = |f: &dyn Fn(&Row) -> usize, head: &str| {
        rows.iter()
            .map(f)
            .max()
            .unwrap_or(0)
            .max(head.chars().count())
    };
    let group_head = g.group_name.as_str();
    let wp = width(&|r| r.pos.chars().count(), "#");
    let wo = width(&|r| r.rank.chars().count(), "order");
    let ws = width(&|r| r.group.chars().count(), group_head);
    let wi = width(&|r| r.title.chars().count(), "id");
    let wf = width(&|r| r.kind.chars().count(), "function");
    let pad = |s: &str, width: usize| {
        let n = s.chars().count();
        format!("{s}{}", " ".repeat(width.saturating_sub(n)))
    };
    let lpad = |s: &str, width: usize| {
        let n = s.chars().count();
        format!("{}{s}", " ".repeat(width.saturating_sub(n)))
    };
    let mut out = String::new();
    let header = format!(
        "{}  {}  {}  {}  {}  why",
        lpad("#", wp),
        lpad("order", wo),
        pad(group_head, ws),
        pad("id", wi),
        pad("function", wf)
    );
    let _ = writeln!(out, "{}", paint(color, BOLD, &header));
    let indent = wp + wo + ws + wi + wf + 10;
    for r in &rows {
        let node = &g.nodes[r.node];
        let id_code = if node.secondary { SECONDARY } else { BOLD };
        let _ = write!(
            out,
            "{}  {}  {}  {}  {}",
            paint(color, DIM, &lpad(&r.pos, wp)),
            paint(color, DIM, &lpad(&r.rank, wo)),
            pad(&r.group, ws),
            paint(color, id_code, &pad(&r.title, wi)),
            paint(color, CYAN, &pad(&r.kind, wf)),
        );
        let tone = |f: Option<super::EdgeFamily>| f.map_or("", super::EdgeFamily::ansi);
        match node.reasons.first() {
            Some(reason) => {
                let _ = writeln!(
                    out,
                    "  {}",
                    paint(color, tone(reason.family), &esc(&reason.text))
                );
            }
            None => {
                let _ = writeln!(out, "  {}", paint(color, DIM, "by order"));
            }
        }
        for reason in node.reasons.iter().skip(1) {
            let _ = writeln!(
                out,
                "{}{}",
                " ".repeat(indent),
                paint(color, tone(reason.family), &esc(&reason.text))
            );
        }
    }
    // Trim the spaces a plain row leaves before its newline; control
    // characters from the input never reach the terminal raw.
    out.lines()
        .map(|l| l.trim_end().to_string() + "\n")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{EdgeFamily, Reason};

    #[test]
    fn columns_reasons_and_colour() {
        let mut p = crate::plan::tests::small();
        p.nodes[0].reasons.push(Reason {
            family: Some(EdgeFamily::Watches),
            text: "watches b".into(),
        });
        let plain = order_report(&p, false);
        assert_eq!(
            plain,
            "#  order  group  id        function  why\n\
             0      -  g2     b         kind.fun  by order\n\
             1      -  g1     a         kind.fun  watches b\n\
             2      -  g1     c [test]  kind.fun  by order\n"
        );
        let colored = order_report(&p, true);
        assert!(colored.contains("\x1b[34mwatches b\x1b[0m"), "{colored}");
    }
}
