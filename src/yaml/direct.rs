//! The direct path for the common document: saphyr-parser events straight
//! into the [`Node`] tree, no node graph. It declines (`None`) anything
//! needing the full loader (`super::load`).

use super::keys::has_duplicate_or_collection_key;
use super::libyaml::*;
use super::resolve::{self, Scalar, ScalarTag};
use super::{Bounds, Dialect, Node, NodeValue};
use saphyr_parser::{Event, Parser, ScalarStyle};
use std::cell::Cell;

/// An open collection on the direct path.
pub(super) struct Frame {
    start: usize,
    /// End of the start event (the span when the collection stays empty).
    end: usize,
    flow: bool,
    implicit: bool,
    /// A mapping: its pending key, once read.
    key: Option<Option<Node>>,
    /// Where its children start on the shared item or pair stack.
    base: usize,
}

/// A plain scalar of an implicit non-string type (null, bool, int, float)
/// as Salt's constructors build it; `None` for any other tag (merge and
/// `=` keys) or a value that does not construct, which the direct and fast
/// paths leave to the full loader.
pub(super) fn implicit_value(tag: &ScalarTag, text: &str) -> Option<NodeValue> {
    if !matches!(
        tag,
        ScalarTag::Null | ScalarTag::Bool | ScalarTag::Int | ScalarTag::Float
    ) {
        return None;
    }
    Some(match resolve::construct(tag, text).ok()? {
        Scalar::Null => NodeValue::Null,
        Scalar::Bool(b) => NodeValue::Bool(b),
        Scalar::Int(i) => NodeValue::Int(i),
        Scalar::Float(f) => NodeValue::Float(f),
        Scalar::Str(s) => NodeValue::Str(s.into()),
    })
}

/// How many bytes of `b` are neither printable ASCII nor a line break (a
/// count without early exit: the compiler vectorises it).
pub(super) fn unusual_bytes(b: &[u8]) -> usize {
    b.iter()
        .filter(|&&c| !matches!(c, b'\n' | b'\r' | 0x20..=0x7E))
        .count()
}

/// The direct path for the common document: events straight into the
/// tree, no node graph. It gives up (`None`) on anything needing the full
/// machinery: tabs, control characters, anchors, aliases, tags, merge and
/// `=` keys, collection keys, duplicate keys, construction failures, parser
/// errors, more than one document. On every document it accepts it gives
/// what [`super::load::load_graph`] gives.
pub(super) fn load_direct(src: &str, bounds: Bounds) -> Option<Node> {
    let bytes = src.as_bytes();
    // One pass for the usual text: printable ASCII and line breaks only.
    let plain_ascii = unusual_bytes(bytes) == 0;
    if !plain_ascii && (bytes.contains(&b'\t') || reader_error(src).is_some()) {
        return None;
    }
    let text = Text {
        src,
        ascii: plain_ascii || src.is_ascii(),
        cursor: Cell::new((0, 0)),
        original: None,
        lines: std::cell::OnceCell::new(),
        dialect: Dialect::Salt,
        marks: None,
    };
    if leading_document_end(bytes).is_some() {
        return None;
    }
    let mut parser = Parser::new_from_str(src);
    let mut stack: Vec<Frame> = Vec::new();
    let mut items: Vec<Node> = Vec::new();
    let mut pairs: Vec<(Node, Node)> = Vec::new();
    let mut root: Option<Node> = None;
    let mut documents = 0;
    loop {
        let (ev, span) = match parser.next_event() {
            None => break,
            Some(x) => x.ok()?,
        };
        let start = text.byte(span.start.index());
        let end = text.byte(span.end.index());
        let node = match ev {
            Event::StreamEnd => break,
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return None;
                }
                continue;
            }
            Event::Nothing | Event::StreamStart | Event::DocumentEnd => continue,
            Event::Alias(_) => return None,
            Event::Scalar(value, style, anchor, tag) => {
                if anchor > 0 || tag.is_some() {
                    return None;
                }
                if stack.is_empty()
                    && matches!(style, ScalarStyle::Literal | ScalarStyle::Folded)
                    && top_block_cut(bytes, start, end).is_some()
                {
                    return None;
                }
                if let Some(f @ Frame { flow: true, .. }) = stack.last() {
                    let key = matches!(f.key, Some(None));
                    if style == ScalarStyle::Plain
                        && flow_plain_problem(bytes, start, end, &value, key).is_some()
                    {
                        return None;
                    }
                }
                let tag = if style == ScalarStyle::Plain {
                    resolve::resolve_plain(&value)
                } else {
                    ScalarTag::Str
                };
                if let Some(Frame {
                    flow: false,
                    key: Some(None),
                    ..
                }) = stack.last()
                {
                    // An empty block mapping key: libyaml may object.
                    if start == end && value.is_empty() && tag == ScalarTag::Null {
                        return None;
                    }
                }
                let value = match tag {
                    ScalarTag::Str | ScalarTag::Timestamp => {
                        let mut value = owned(value);
                        eof_block_scalar(src, (start, end), style, &mut value);
                        NodeValue::Str(value.into())
                    }
                    _ => implicit_value(&tag, &value)?,
                };
                Node {
                    value,
                    span: start..end,
                }
            }
            Event::SequenceStart(anchor, ref tag) | Event::MappingStart(anchor, ref tag) => {
                if anchor > 0 || tag.is_some() || stack.len() >= bounds.depth {
                    return None;
                }
                let is_map = matches!(ev, Event::MappingStart(..));
                let explicit_flow = flow_token(bytes, start, end);
                let flow = explicit_flow.is_some() || stack.last().is_some_and(|f| f.flow);
                stack.push(Frame {
                    start,
                    end,
                    flow,
                    implicit: flow && explicit_flow.is_none(),
                    key: is_map.then_some(None),
                    base: if is_map { pairs.len() } else { items.len() },
                });
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let f = stack.pop()?;
                let (value, last_end) = match f.key {
                    Some(None) => {
                        let own = pairs.split_off(f.base);
                        if has_duplicate_or_collection_key(&own) {
                            return None;
                        }
                        let last = own.last().map(|(_, v)| v.span.end);
                        (NodeValue::Map(own), last)
                    }
                    Some(Some(_)) => return None,
                    None => {
                        let own = items.split_off(f.base);
                        let last = own.last().map(|n| n.span.end);
                        (NodeValue::List(own), last)
                    }
                };
                let node_end = if f.flow && !f.implicit && end > start {
                    end
                } else {
                    last_end.unwrap_or(f.end)
                }
                .max(f.start);
                Node {
                    value,
                    span: f.start..node_end,
                }
            }
        };
        match stack.last_mut() {
            None => root = Some(node),
            Some(Frame { key: None, .. }) => items.push(node),
            Some(Frame {
                key: Some(k), flow, ..
            }) => match k.take() {
                None => *k = Some(node),
                Some(key) => {
                    if *flow
                        && far_flow_key(src, key.span.start, key.span.end, node.span.start)
                            .is_some()
                    {
                        return None;
                    }
                    pairs.push((key, node))
                }
            },
        }
    }
    if !stack.is_empty() {
        return None;
    }
    Some(root.unwrap_or(Node {
        value: NodeValue::Null,
        span: 0..0,
    }))
}
