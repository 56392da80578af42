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
    order_report_in(g, color, None)
}

/// [`order_report`] for a terminal `width` columns wide: each reason's
/// text wraps at spaces to stay within it, its further lines under the
/// `why` column (a word longer than the room left is cut). Columns
/// too wide to leave 20 for the reasons are not wrapped.
pub fn order_report_in(g: &Plan, color: bool, columns: Option<usize>) -> String {
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
    let room = columns
        .map(|w| w.saturating_sub(indent))
        .filter(|r| *r >= 20);
    let lines = |text: &str| -> Vec<String> {
        match room {
            Some(room) => wrap(text, room),
            None => vec![text.to_string()],
        }
    };
    let pad_why = " ".repeat(indent);
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
        if node.reasons.is_empty() {
            let _ = writeln!(out, "  {}", paint(color, DIM, "by order"));
        }
        for (i, reason) in node.reasons.iter().enumerate() {
            for (j, line) in lines(&esc(&reason.text)).iter().enumerate() {
                let lead = if i == 0 && j == 0 { "  " } else { &pad_why };
                let _ = writeln!(out, "{lead}{}", paint(color, tone(reason.family), line));
            }
        }
    }
    // Trim the spaces a plain row leaves before its newline; control
    // characters from the input never reach the terminal raw.
    out.lines()
        .map(|l| l.trim_end().to_string() + "\n")
        .collect()
}

/// `text` in lines of at most `room` characters, broken at spaces (a word
/// longer than a line, a long path, is cut across lines).
fn wrap(text: &str, room: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let need = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if !line.is_empty() && need > room {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        let mut word: Vec<char> = word.chars().collect();
        while word.len() > room {
            let rest = word.split_off(room);
            lines.push(word.into_iter().collect());
            word = rest;
        }
        line.extend(word);
    }
    lines.push(line);
    lines
}

/// The order report as data (`lowstate order --format json`): `version`,
/// and `states` in execution order, each with its position, order value,
/// group (under the plan's group name, `sls`), id, function, whether it is
/// a secondary run (`test`) and `why`: each reason's text and edge family.
pub fn order_document(g: &Plan) -> crate::value::Value {
    use crate::value::{Map, Value};
    let rows = g.order.iter().enumerate().map(|(i, &n)| {
        let node = &g.nodes[n];
        let mut m = Map::new();
        m.insert("position".into(), Value::Int(i as i64));
        let rank = match node.rank.parse::<i64>() {
            Ok(r) => Value::Int(r),
            Err(_) if node.rank == "-" => Value::Null,
            Err(_) => Value::str(node.rank.as_str()),
        };
        m.insert("order".into(), rank);
        m.insert(
            Value::str(g.group_name.as_str()),
            Value::str(node.group.as_str()),
        );
        m.insert("id".into(), Value::str(node.title.as_str()));
        m.insert("function".into(), Value::str(node.kind.as_str()));
        m.insert("test".into(), Value::Bool(node.secondary));
        let why = node.reasons.iter().map(|r| {
            let mut w = Map::new();
            w.insert("text".into(), Value::str(r.text.as_str()));
            w.insert(
                "family".into(),
                r.family
                    .map_or(Value::Null, |f| Value::str(format!("{f:?}").to_lowercase())),
            );
            Value::Map(w)
        });
        m.insert("why".into(), Value::List(why.collect()));
        Value::Map(m)
    });
    let mut doc = Map::new();
    doc.insert("version".into(), Value::Int(1));
    doc.insert("states".into(), Value::List(rows.collect()));
    Value::Map(doc)
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

    #[test]
    fn reasons_wrap_at_the_width_under_the_why_column() {
        let mut p = crate::plan::tests::small();
        p.nodes[0].reasons.push(Reason {
            family: None,
            text: "after b (require, written at a.sls:12): the longest chain".into(),
        });
        let text = order_report_in(&p, false, Some(62));
        assert!(text.lines().all(|l| l.chars().count() <= 62), "{text}");
        assert!(
            text.contains(
                "  after b (require, written\n                                     at a.sls:12): the longest\n"
            ),
            "{text}"
        );
        assert_eq!(order_report_in(&p, false, None), order_report(&p, false));
    }
}
