//! The full loader: compose the node graph (`compose`), construct and
//! expand it (`construct`), every libyaml and Salt error reproduced; and
//! the repairs for texts libyaml reads and saphyr-parser does not
//! (under-indented flow lines, tabs after `:` or in quoted scalars, lone
//! `-` scalars in flow collections, anchors and comments without a blank),
//! each a re-parse within a budget.

use super::compose::{compose, RawKind};
use super::construct::construct;
use super::libyaml::*;
use super::{Bounds, Dialect, Node, NodeValue, YamlError};

/// What a lone `-` of a flow collection is read as while parsing: one
/// byte, so no span moves, and a plain scalar wherever `-` was one.
pub(super) const LONE_DASH_STAND_IN: &str = "x";

/// libyaml and PyYAML start a plain scalar at a `-` whenever the next
/// character is not a blank, so in a flow collection `[-, x]` and `{k: -}`
/// hold the string "-" (the scalar ends at the flow indicator). saphyr
/// follows YAML 1.2 and refuses a `-` followed by `,` `[` `]` `{` `}`: the
/// offset of that `-`, for the repair loop to stand in for.
pub(super) fn lone_dash(text: &str, e: &YamlError) -> Option<usize> {
    let at = e.span.start;
    (e.message == "plain scalar cannot start with '-' followed by ,[]{}"
        && text.as_bytes().get(at) == Some(&b'-'))
    .then_some(at)
}

/// Put the `-`s back in the scalars [`lone_dash`] stood in for: `dashes`
/// are their offsets (sorted) in `src`, the text the spans are told in, and
/// `done` marks those restored. A scalar whose value is its text with the
/// stand-ins (`[-, x]`, `[a -]`), or that text folded over lines, gets its
/// text back; any other is left unmarked.
pub(super) fn restore_lone_dashes(node: &mut Node, dashes: &[usize], src: &str, done: &mut [bool]) {
    match &mut node.value {
        NodeValue::Str(s) => {
            let from = dashes.partition_point(|&d| d < node.span.start);
            let to = dashes.partition_point(|&d| d < node.span.end);
            if from == to {
                return;
            }
            let Some(written) = src.get(node.span.clone()) else {
                return;
            };
            let mut stood = written.to_string();
            for &d in &dashes[from..to] {
                let at = d - node.span.start;
                stood.replace_range(at..at + 1, LONE_DASH_STAND_IN);
            }
            if s.as_str() == stood {
                *s = written.into();
                done[from..to].fill(true);
            } else if s.as_str() == fold_plain(&stood) {
                *s = fold_plain(written).into();
                done[from..to].fill(true);
            }
        }
        NodeValue::List(items) => items
            .iter_mut()
            .for_each(|n| restore_lone_dashes(n, dashes, src, done)),
        NodeValue::Map(pairs) => pairs.iter_mut().for_each(|(k, v)| {
            restore_lone_dashes(k, dashes, src, done);
            restore_lone_dashes(v, dashes, src, done);
        }),
        _ => {}
    }
}

/// A plain scalar's text folded as YAML reads it over lines: each line
/// trimmed, one line break a space, each further (empty) line a newline.
pub(super) fn fold_plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut breaks = 0;
    for (i, line) in text.split('\n').enumerate() {
        let line = line.trim_matches([' ', '\t', '\r']);
        if i > 0 && line.is_empty() {
            breaks += 1;
            continue;
        }
        if i > 0 {
            match breaks {
                0 => out.push(' '),
                n => out.extend(std::iter::repeat_n('\n', n)),
            }
        }
        breaks = 0;
        out.push_str(line);
    }
    out
}

/// [`restore_lone_dashes`] on the whole tree: the first stand-in's error
/// when one could not be read back.
pub(super) fn restore_all_dashes(
    node: &mut Node,
    dashes: &[usize],
    src: &str,
    first: Option<YamlError>,
) -> Result<(), YamlError> {
    let mut done = vec![false; dashes.len()];
    restore_lone_dashes(node, dashes, src, &mut done);
    match first {
        Some(e) if done.contains(&false) => Err(e),
        _ => Ok(()),
    }
}

/// PyYAML ends an anchor or alias name at the first character that is not
/// alphanumeric, `_` or `-`, and lets an indicator follow (`&a: x` is an
/// anchored empty key, `&a:b` anchors the scalar `:b`); saphyr reads `a:`
/// as the name. For the error that leaves: one space before that indicator
/// makes saphyr read it as PyYAML does.
pub(super) fn anchor_end(text: &str, e: &YamlError) -> Option<(usize, usize)> {
    if e.message != "did not find expected alphabetic or numeric character" {
        return None;
    }
    let name_start = e.context.as_ref()?.start + 1;
    let at = e.span.start;
    let indicator = matches!(text.as_bytes().get(at)?, b':' | b'?' | b'%' | b'@' | b'`');
    (indicator && at > name_start).then_some((at, 1))
}

/// libyaml starts a comment at any `#` where it looks for the next token,
/// so right after a quoted scalar, a flow indicator or a block scalar
/// header (`key: 'v'#note`, `[a]#note`, `|#note`) the rest of the line is a
/// comment; saphyr wants a blank before it. For that error: one space
/// before the `#`.
pub(super) fn comment_gap(text: &str, e: &YamlError) -> Option<(usize, usize)> {
    let at = e.span.start;
    (e.message == "comments must be separated from other tokens by whitespace"
        && text.as_bytes().get(at) == Some(&b'#'))
    .then_some((at, 1))
}

/// libyaml skips spaces and tabs alike at the start of a quoted scalar's
/// continuation line (they fold away); saphyr refuses a tab there left of
/// the block's indentation ("tab cannot be used as indentation", reported
/// at `at`). The text with that line's leading blanks all spaces: same
/// offsets, same value (an under-indented line is then padded as usual).
pub(super) fn quoted_tab_fix(text: &str, at: usize) -> Option<String> {
    let bytes = text.as_bytes();
    if bytes.get(at) != Some(&b'\t') {
        return None;
    }
    let line = line_start_before(bytes, at, Breaks::NewlineOrReturn);
    let mut out = bytes.to_vec();
    let mut q = line;
    while q < out.len() && matches!(out[q], b' ' | b'\t') {
        out[q] = b' ';
        q += 1;
    }
    String::from_utf8(out).ok()
}
/// The full loader: compose the node graph, construct it as Salt does,
/// expand it into a tree; every libyaml and Salt error reproduced.
pub(super) fn load_graph(src: &str, dialect: Dialect, bounds: Bounds) -> Result<Node, YamlError> {
    load_graph_marked(src, dialect, bounds, None)
}

/// [`Dialect::Yamlex`]: the tree and the yamlex tags on its nodes.
pub(super) fn load_tagged(
    src: &str,
    bounds: Bounds,
) -> Result<(Node, Vec<super::TagMark>), YamlError> {
    let marks = std::cell::RefCell::new(Vec::new());
    let node = load_graph_marked(src, Dialect::Yamlex, bounds, Some(&marks))?;
    Ok((node, marks.into_inner()))
}

/// [`load_graph`], recording yamlex tags in `marks` (offsets of `src`).
pub(super) fn load_graph_marked(
    src: &str,
    dialect: Dialect,
    bounds: Bounds,
    marks: Option<&std::cell::RefCell<Vec<super::TagMark>>>,
) -> Result<Node, YamlError> {
    let mut text = std::borrow::Cow::Borrowed(src);
    let mut fixes = 0;
    let mut pads = Padding::default();
    let mut batch_tried = false;
    let mut reparsed = 0usize;
    // Offsets (in `src`) of the lone `-` scalars of flow collections.
    let mut dashes: Vec<usize> = Vec::new();
    let mut first_dash: Option<YamlError> = None;
    let composed = loop {
        let mut pad = Vec::new();
        let mut untab = None;
        let mut t = pads.text(&text, src, dialect);
        t.marks = marks;
        match compose(t, &mut pad, &mut untab, bounds) {
            Ok(x) => break Ok(x),
            // Each repair costs a whole parse: stop repairing when they
            // have re-read 32 MiB (a few seconds), whatever the count.
            Err(e) if fixes < 10_000 && reparsed < REPAIR_BUDGET => {
                fixes += 1;
                reparsed += text.len();
                if let Some(fixed) = untab.and_then(|at| quoted_tab_fix(&text, at)) {
                    text = std::borrow::Cow::Owned(fixed);
                    continue;
                }
                if pad.is_empty() {
                    pad.extend(anchor_end(&text, &e));
                }
                if pad.is_empty() {
                    pad.extend(comment_gap(&text, &e));
                }
                if pad.is_empty()
                    && e.message == "expected whitespace"
                    && e.span.start == text.len()
                {
                    // An indicator (`?`) ending the text: libyaml takes the
                    // end for the blank after it; saphyr wants one.
                    pad.push((text.len(), 1));
                }
                if !pad.is_empty() {
                    // Pads in text order, each at an offset of the text
                    // before it: later ones move by what earlier ones added.
                    let added: usize = pad.iter().map(|&(_, n)| n).sum();
                    let mut fixed = String::with_capacity(text.len() + added);
                    let mut from = 0;
                    let mut shift = 0;
                    for &(line, n) in &pad {
                        fixed.push_str(&text[from..line]);
                        fixed.extend(std::iter::repeat_n(' ', n));
                        pads.0.push((line + shift, n));
                        shift += n;
                        from = line;
                    }
                    fixed.push_str(&text[from..]);
                    text = std::borrow::Cow::Owned(fixed);
                } else if let Some(fixed) = colon_tab_fix(&text, &e) {
                    // Many such tabs would cost a parse each (quadratic):
                    // try fixing them all at once, kept only when no tab
                    // changed lies inside a scalar.
                    if !batch_tried {
                        batch_tried = true;
                        if let Some(all) = colon_tabs_all(&text, src, dialect, &pads, bounds) {
                            text = std::borrow::Cow::Owned(all);
                            continue;
                        }
                    }
                    text = std::borrow::Cow::Owned(fixed);
                } else if let Some(at) = lone_dash(&text, &e) {
                    // Same length: every span stays. The placeholder is
                    // read back as "-" once the tree is built.
                    let mut fixed = std::mem::take(&mut text).into_owned();
                    fixed.replace_range(at..at + 1, LONE_DASH_STAND_IN);
                    dashes.push(pads.offset(at));
                    if first_dash.is_none() {
                        let mut e = e;
                        e.span = pads.range(&e.span);
                        e.context = e.context.map(|c| pads.range(&c));
                        first_dash = Some(e);
                    }
                    text = std::borrow::Cow::Owned(fixed);
                } else {
                    break Err(e);
                }
            }
            Err(mut e) => {
                if reparsed >= REPAIR_BUDGET {
                    e.message.push_str(&format!(
                        "\n(lowstate stopped repairing what libyaml reads and saphyr does not after {fixes} re-parses, its 32 MiB repair budget; libyaml may read this document)"
                    ));
                }
                break Err(e);
            }
        }
    };
    dashes.sort_unstable();
    let mut built = composed.and_then(|c| construct(pads.text(&text, src, dialect), c, bounds));
    if pads.0.is_empty() {
        if let Ok(node) = &mut built {
            restore_all_dashes(node, &dashes, src, first_dash)?;
        }
        return built;
    }
    if let Some(marks) = marks {
        for m in marks.borrow_mut().iter_mut() {
            m.start = pads.offset(m.start);
        }
    }
    // Spans of the padded text, told in the text as rendered.
    match built {
        Ok(mut node) => {
            pads.node(&mut node);
            restore_all_dashes(&mut node, &dashes, src, first_dash)?;
            Ok(node)
        }
        Err(mut e) => {
            e.span = pads.range(&e.span);
            e.context = e.context.map(|c| pads.range(&c));
            Err(e)
        }
    }
}
/// Bytes the loader may re-parse while repairing a document libyaml reads
/// and saphyr does not (under-indented flow lines, tabs after `:`).
pub(super) const REPAIR_BUDGET: usize = 32 << 20;

/// [`colon_tab_fix`] for every `:` followed by a tab at once: the text
/// with each such tab run turned into spaces, if it then composes and no
/// changed byte lies inside a scalar (a quoted or block scalar keeps its
/// tabs; outside scalars a tab after `:` only separates, for PyYAML as for
/// a space). `None` sends the caller back to fixing one error at a time.
pub(super) fn colon_tabs_all(
    text: &str,
    src: &str,
    dialect: Dialect,
    pads: &Padding,
    bounds: Bounds,
) -> Option<String> {
    let mut out = text.as_bytes().to_vec();
    let mut changed = Vec::new();
    for i in 1..out.len() {
        if out[i] == b'\t' && matches!(out[i - 1], b':' | b'\t' | b' ') {
            // Only the run right after a ':' (spaces and tabs).
            let mut j = i;
            while j > 0 && matches!(out[j - 1], b'\t' | b' ') {
                j -= 1;
            }
            if j > 0 && out[j - 1] == b':' {
                out[i] = b' ';
                changed.push(i);
            }
        }
    }
    let fixed = String::from_utf8(out).ok()?;
    let mut pad = Vec::new();
    let (nodes, _) = compose(pads.text(&fixed, src, dialect), &mut pad, &mut None, bounds).ok()?;
    let inside_scalar = |at: usize| {
        nodes
            .iter()
            .any(|n| matches!(n.kind, RawKind::Scalar { .. }) && n.start < at && at < n.end)
    };
    if changed.iter().any(|&at| inside_scalar(at)) {
        return None;
    }
    Some(fixed)
}

/// libyaml accepts a tab right after a mapping's `:`; saphyr does not. When
/// that is the error, turn those tabs into spaces (same byte offsets, and
/// they separate tokens, so no scalar changes) and parse again.
pub(super) fn colon_tab_fix(text: &str, e: &YamlError) -> Option<String> {
    if e.message != "':' must be followed by a valid YAML whitespace" {
        return None;
    }
    let bytes = text.as_bytes();
    let mut p = e.span.start.min(bytes.len());
    // The marker is on or after the tab(s) following the ':'.
    while p > 0 && bytes[p - 1] != b':' {
        if !matches!(bytes[p - 1], b'\t' | b' ') {
            return None;
        }
        p -= 1;
    }
    let mut q = p;
    let mut changed = false;
    let mut out = text.as_bytes().to_vec();
    while q < out.len() && matches!(out[q], b'\t' | b' ') {
        if out[q] == b'\t' {
            out[q] = b' ';
            changed = true;
        }
        q += 1;
    }
    if !changed {
        // The marker may sit on the ':' itself.
        let mut q = e.span.start + 1;
        while q < out.len() && matches!(out[q], b'\t' | b' ') {
            if out[q] == b'\t' {
                out[q] = b' ';
                changed = true;
            }
            q += 1;
        }
    }
    if !changed {
        return None;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    pub(super) const BOUNDS: super::Bounds = super::Bounds {
        depth: 1000,
        nodes: 2_000_000,
    };
    use super::*;

    /// Every input the direct path accepts loads to the same tree (values
    /// and spans) as the full loader.
    #[test]
    fn direct_path_agrees_with_graph_path() {
        let data: Vec<serde_json::Value> =
            serde_json::from_str(include_str!("../../tests/data/yaml/load.json")).expect("json");
        let mut inputs: Vec<String> = data
            .iter()
            .filter_map(|c| c["input"].as_str().map(str::to_string))
            .collect();
        let mut dirs = vec![std::path::PathBuf::from("tests")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("readable dir").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "sls") {
                    inputs.push(std::fs::read_to_string(&path).unwrap_or_default());
                }
            }
        }
        inputs.push("a: &x {b: 1}\nc: *x\n".into());
        let mut direct = 0;
        for input in &inputs {
            let graph = load_graph(input, Dialect::Salt, BOUNDS);
            if let Some(node) = super::super::direct::load_direct(input, BOUNDS) {
                direct += 1;
                assert_eq!(
                    format!("{:?}", Ok::<_, YamlError>(node)),
                    format!("{graph:?}"),
                    "{input:?}"
                );
            }
        }
        assert!(direct > 300, "{direct} of {}", inputs.len());
    }
}

#[cfg(test)]
mod lone_dash_tests {
    use super::tests::BOUNDS;
    use super::*;
    use crate::value::Value;

    fn load(src: &str) -> Result<Value, String> {
        load_graph(src, Dialect::Salt, BOUNDS)
            .map(Node::into_value)
            .map_err(|e| e.message)
    }

    #[test]
    fn a_lone_dash_in_a_flow_collection_is_the_string_dash() {
        let v = load("a: [-, x, -]\nb: {k: -, j: -x}\nc: [[-], {-: -}]\nd: 'x'\ne: [x]\n");
        let want = Value::from_json(&serde_json::json!({
            "a": ["-", "x", "-"],
            "b": {"k": "-", "j": "-x"},
            "c": [["-"], {"-": "-"}],
            "d": "x",
            "e": ["x"],
        }));
        assert_eq!(v, Ok(want));
    }

    #[test]
    fn a_dash_ending_a_plain_scalar_in_a_flow_collection() {
        // saphyr applies its first-character rule after every space.
        let v = load("a: [b -, c x -]\nd: {k: v -}\n");
        let want = Value::from_json(&serde_json::json!({
            "a": ["b -", "c x -"],
            "d": {"k": "v -"},
        }));
        assert_eq!(v, Ok(want));
        // Folded over lines.
        let want = Value::from_json(&serde_json::json!({"a": ["b c -", "d\ne -"]}));
        assert_eq!(load("a: [b\n  c -, d\n\n  e -]\n"), Ok(want));
    }

    #[test]
    fn a_dash_inside_a_plain_scalar_before_a_flow_indicator_stays() {
        // libyaml: the scalar runs on over ` -` to the `}`.
        let v = load("a: {rs: $w -eb -}\nb: [x -, y]\nc: [x\n -, -]\n");
        let want = Value::from_json(&serde_json::json!({
            "a": {"rs": "$w -eb -"},
            "b": ["x -", "y"],
            "c": ["x -", "-"],
        }));
        assert_eq!(v, Ok(want));
    }

    #[test]
    fn a_dash_before_a_bracket_still_fails_as_in_libyaml() {
        // libyaml reads the scalar "-" and then finds `[` where `,` or `]`
        // must come.
        assert!(load("a: [-[b]]\n").is_err());
    }

    #[test]
    fn spans_and_padding_repairs_combine() {
        // A lone dash and an under-indented flow line in one document.
        // The dash after the padded line start is told in the text as
        // written.
        let src = "a: [-,\nb, -]\nc: {k: -}\n";
        let node = load_graph(src, Dialect::Salt, BOUNDS).expect("loads");
        let NodeValue::Map(pairs) = &node.value else {
            panic!("{node:?}")
        };
        let NodeValue::List(items) = &pairs[0].1.value else {
            panic!("{node:?}")
        };
        assert_eq!(items[0].value, NodeValue::Str("-".into()));
        assert_eq!(items[0].span, 4..5);
        assert_eq!(items[1].value, NodeValue::Str("b".into()));
        assert_eq!(items[2].value, NodeValue::Str("-".into()));
        assert_eq!(items[2].span, 10..11);
        assert_eq!(
            pairs[1].1.to_value(),
            Value::from_json(&serde_json::json!({"k": "-"}))
        );
    }
}

#[cfg(test)]
mod colon_tab_tests {
    use super::tests::BOUNDS;
    use super::*;

    fn json(src: &str) -> String {
        super::super::load_tree(src, Dialect::Salt, BOUNDS, true)
            .expect("loads")
            .into_value()
            .to_json()
            .to_string()
    }

    /// libyaml's answers (Salt's CSafeLoader): a tab after a mapping's `:`
    /// separates; inside quoted and block scalars it is content.
    #[test]
    fn tabs_after_colons_separate_outside_scalars_only() {
        assert_eq!(json("a:\t1\nb: \"x:\ty\"\n"), r#"{"a":1,"b":"x:\ty"}"#);
        assert_eq!(json("a:\t|\n  x:\ty\n"), r#"{"a":"x:\ty\n"}"#);
        assert_eq!(json("a:\t1\nb:\t2\n# c:\td\n"), r#"{"a":1,"b":2}"#);
        assert_eq!(
            json("a:\t'p:\tq'\nb:\t[1,\t2]\n"),
            r#"{"a":"p:\tq","b":[1,2]}"#
        );
        assert_eq!(json("a: |\n  x:\ty\nb:\t1\n"), r#"{"a":"x:\ty\n","b":1}"#);
    }

    /// One long under-indented flow list is padded in one go (it used to
    /// take a parse per line, and fail past 10,000 lines).
    #[test]
    fn a_long_under_indented_flow_list_loads_at_once() {
        let mut text = String::from("a: [\n");
        for i in 0..20_000 {
            text.push_str(&format!("{i},\n"));
        }
        text.push_str("-1]\nb: 1\n");
        let v = super::super::load_tree(&text, Dialect::Salt, BOUNDS, true)
            .expect("loads")
            .into_value();
        let a = v
            .as_map()
            .and_then(|m| m.get("a"))
            .and_then(|a| a.as_list().map(|l| l.len()));
        assert_eq!(a, Some(20_001));
    }

    /// A mapping that merges itself loads as PyYAML loads it (its own
    /// keys, once) instead of doubling the work at every level.
    #[test]
    fn a_mapping_merging_itself_stops_like_pyyaml() {
        let v =
            super::super::load_tree("opts: &o\n  a: 1\n  <<: *o\n", Dialect::Salt, BOUNDS, true)
                .expect("loads")
                .into_value();
        assert_eq!(v.to_json().to_string(), r#"{"opts":{"a":1}}"#);
        // libyaml's answer for two self-merges around a plain key.
        let twice = "o: &o\n  a: 1\n  <<: *o\n  <<: *o\n  c: 2\n";
        let v = super::super::load_tree(twice, Dialect::Salt, BOUNDS, true)
            .expect("loads")
            .into_value();
        assert_eq!(v.to_json().to_string(), r#"{"o":{"a":1,"c":2}}"#);
    }

    /// Many separate ones stop at the repair budget with a message that
    /// says so, instead of re-parsing for minutes.
    #[test]
    fn repairs_stop_at_the_budget() {
        let text: String = (0..30_000).map(|i| format!("k{i}: [\nx]\n")).collect();
        let e = super::super::load_tree(&text, Dialect::Salt, BOUNDS, true).unwrap_err();
        assert!(e.message.contains("32 MiB repair budget"), "{}", e.message);
    }

    /// Thousands of them load in one batch, not one parse each (that took
    /// minutes for 20,000 lines).
    #[test]
    fn many_tabs_after_colons_load_at_once() {
        let text: String = (0..20_000).map(|i| format!("k{i}:\tv\n")).collect();
        let v = super::super::load_tree(&text, Dialect::Salt, BOUNDS, true)
            .expect("loads")
            .into_value();
        assert_eq!(v.as_map().map(|m| m.len()), Some(20_000));
    }
}

#[cfg(test)]
mod flow_indent_tests {
    use super::tests::BOUNDS;
    use super::*;

    fn data(src: &str) -> crate::value::Value {
        super::super::load_tree(src, Dialect::Salt, BOUNDS, true)
            .expect("loads")
            .into_value()
    }

    /// PyYAML ignores indentation inside flow collections; `| yaml` output
    /// wrapped under a key relies on it.
    #[test]
    fn flow_lines_may_be_indented_less_than_their_key() {
        let v =
            data("a:\n  b:\n    c: [[x, y], [z,\n  w]]\n    d: [1, 2\n  3]\n    e: {k: 'q\n r'}\n");
        let got: serde_json::Value = serde_json::from_str(&v.to_json_pretty()).unwrap();
        assert_eq!(
            got,
            serde_json::json!(
                {"a": {"b": {"c": [["x", "y"], ["z", "w"]], "d": [1, "2 3"], "e": {"k": "q r"}}}}
            )
        );
    }

    /// Spans still point into the text as rendered.
    #[test]
    fn padded_spans_point_into_the_original_text() {
        let src = "a:\n  c: [x,\n y]\n  d: z\n";
        let node = super::super::load_tree(src, Dialect::Salt, BOUNDS, true).expect("loads");
        let NodeValue::Map(top) = node.value else {
            panic!()
        };
        let NodeValue::Map(inner) = &top[0].1.value else {
            panic!()
        };
        let NodeValue::List(items) = &inner[0].1.value else {
            panic!()
        };
        assert_eq!(&src[items[1].span.clone()], "y");
        assert_eq!(&src[inner[1].1.span.clone()], "z");
    }

    /// A genuine error on a padded line is reported at its place in the
    /// text as rendered (libyaml's message: its column counts the text as
    /// it was, not as padded).
    #[test]
    fn errors_on_padded_lines_keep_their_columns() {
        let src = "a:\n  c: [x,\n y, @z]\n";
        let e = super::super::load_tree(src, Dialect::Salt, BOUNDS, true).unwrap_err();
        assert_eq!(e.message, "found character that cannot start any token");
        assert_eq!(&src[e.span.clone()], "@");
    }
}

/// Readings where libyaml (Salt's loader) and saphyr-parser part ways, found
/// by a differential run against Salt's `SaltYamlSafeLoader`; each expected
/// value or message is what Salt 3008.5 gives.
#[cfg(test)]
mod libyaml_reading_tests {
    use super::tests::BOUNDS;
    use super::*;

    /// Through the whole loader (fast and direct paths first), checked
    /// against the full loader alone.
    fn read(src: &str) -> Result<Node, YamlError> {
        let got = super::super::load_tree(src, Dialect::Salt, BOUNDS, true);
        let graph = load_graph(src, Dialect::Salt, BOUNDS);
        assert_eq!(format!("{got:?}"), format!("{graph:?}"), "{src:?}");
        got
    }

    fn repr(src: &str) -> String {
        match read(src) {
            Ok(n) => n.into_value().py_repr(),
            Err(e) => panic!("{src:?}: {e:?}"),
        }
    }

    fn message(src: &str) -> String {
        read(src).expect_err(src).message
    }

    #[test]
    fn a_comment_may_follow_a_token_without_a_blank() {
        let src = "a: 'x'#c\nb: [y]#d\nc: |#e\n  z\nd: {k: v}#f\n";
        assert_eq!(
            repr(src),
            "{'a': 'x', 'b': ['y'], 'c': 'z\\n', 'd': {'k': 'v'}}"
        );
        let node = read(src).unwrap();
        let NodeValue::Map(pairs) = &node.value else {
            panic!("{node:?}")
        };
        assert!(src[pairs[0].1.span.clone()].starts_with("'x'"));
        assert!(src[pairs[1].1.span.clone()].starts_with("[y]"));
        assert_eq!(&src[pairs[3].0.span.clone()], "d");
        // The comment takes the rest of the line, `: b` included.
        assert_eq!(repr("\"a\"#c: b\n"), "'a'");
        assert_eq!(repr("- \"x\"#c\n- y\n"), "['x', 'y']");
        // Inside a plain scalar `#` is a character.
        assert_eq!(repr("a: [x#c]\n"), "{'a': ['x#c']}");
    }

    #[test]
    fn tabs_may_indent_quoted_continuation_lines() {
        let src = "a: 'x\n\ty'\nb: \"p\n\t\tq\n\t  r\"\nc:\n  - 'm\n\t n'\n";
        assert_eq!(repr(src), "{'a': 'x y', 'b': 'p q r', 'c': ['m n']}");
        let node = read(src).unwrap();
        let NodeValue::Map(pairs) = &node.value else {
            panic!("{node:?}")
        };
        assert!(src[pairs[1].1.span.clone()].starts_with("\"p\n\t\tq"));
        assert_eq!(&src[pairs[2].0.span.clone()], "c");
    }

    #[test]
    fn flow_plain_scalars_libyaml_refuses() {
        for (src, want) in [
            ("[|]", "found character that cannot start any token"),
            ("a: [b, >, c]\n", "found character that cannot start any token"),
            ("[a:]", "found unexpected ':'"),
            ("{a:}", "found unexpected ':'"),
            ("[a:, b]", "found unexpected ':'"),
            ("[a :]", "found unexpected ':'"),
            ("{a: b:}", "found unexpected ':'"),
            (
                "[:x]",
                "while parsing a flow node\ndid not find expected node content\n  in \"<unicode string>\", line 1, column 2",
            ),
            (
                "{a: 1, : y}",
                "while parsing a flow node\ndid not find expected node content\n  in \"<unicode string>\", line 1, column 8",
            ),
        ] {
            assert_eq!(message(src), want, "{src:?}");
        }
        let e = read("x: [a, b :]\n").unwrap_err();
        assert_eq!(e.span, 9..10);
        // What libyaml does read.
        assert_eq!(repr("{? : y}"), "{None: 'y'}");
        assert_eq!(repr("{a:b}"), "{'a:b': None}");
        assert_eq!(repr("[a: b, c]"), "[{'a': 'b'}, 'c']");
        assert_eq!(repr("[a|b, c>]"), "['a|b', 'c>']");
    }

    #[test]
    fn a_flow_key_ends_its_line() {
        assert_eq!(
            message("{'a\n b': c}"),
            "while parsing a flow mapping\n  in \"<unicode string>\", line 1, column 1\ndid not find expected ',' or '}'\n  in \"<unicode string>\", line 2, column 4"
        );
        assert!(read("x: {\"a\n  b\": c}\n").is_err());
        assert!(read(&format!("{{'{}': c}}", "k".repeat(1030))).is_err());
        assert_eq!(repr("{'a\n b'}"), "{'a b': None}");
        assert_eq!(repr("{? 'a\n b': c}"), "{'a b': 'c'}");
        assert!(message("{'a': c,\n 'b'\n : d}").ends_with("line 3, column 2"));
    }

    #[test]
    fn a_question_mark_may_end_the_text() {
        assert_eq!(repr("?"), "{None: None}");
        assert_eq!(repr("- ?"), "[{None: None}]");
    }

    #[test]
    fn a_last_line_of_spaces_keeps_the_block_scalars_break() {
        assert_eq!(repr("base: |\n  x\n "), "{'base': 'x\\n'}");
        assert_eq!(repr("base: |+\n  x\n\n "), "{'base': 'x\\n\\n'}");
        assert_eq!(repr("- |\n  x\n "), "['x\\n']");
        assert_eq!(repr("a: |\n  x"), "{'a': 'x'}");
        assert_eq!(repr("a: |\n  x\n    "), "{'a': 'x\\n  '}");
    }

    #[test]
    fn a_document_end_marker_before_any_document_has_no_node() {
        for (src, line) in [("...\n", 1), ("# c\n\n...\n", 3), ("...\na: 1\n", 1)] {
            assert_eq!(
                message(src),
                format!("while parsing a block node\ndid not find expected node content\n  in \"<unicode string>\", line {line}, column 1"),
                "{src:?}"
            );
        }
        assert_eq!(repr("---\n...\n"), "None");
        assert_eq!(repr("a: 1\n...\n"), "{'a': 1}");
        assert_eq!(repr("....\n"), "'....'");
    }

    #[test]
    fn a_question_mark_in_a_comment_is_no_key_indicator() {
        assert!(message("# head?\n: 1e3\n").contains("did not find expected key"));
        assert_eq!(repr("? # c\n: x\n"), "{None: 'x'}");
    }

    #[test]
    fn a_root_block_scalar_wants_indented_content() {
        for src in [
            "--- |\nfoo\n",
            "|\nfoo\n",
            "--- !!str |\nfoo",
            "--- >-\n\n# c\nx\n",
        ] {
            assert!(
                message(src).starts_with("did not find expected <document start>\n"),
                "{src:?}"
            );
        }
        assert_eq!(
            message("--- |\n---\n"),
            "expected a single document in the stream\n  in \"<unicode string>\", line 1, column 5\nbut found another document\n  in \"<unicode string>\", line 2, column 1"
        );
        assert_eq!(repr("--- |\n# c\n"), "''");
        assert_eq!(repr("--- |+\n\n\n# c\n  # d\n"), "'\\n\\n'");
        assert_eq!(repr("--- |\n foo\n"), "'foo\\n'");
        assert_eq!(repr("a: |\n x\n"), "{'a': 'x\\n'}");
    }
}
