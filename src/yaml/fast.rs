//! The fast path: a hand-written scanner for the plain block YAML that a
//! rendered SLS almost always is, building the [`Node`] tree without
//! saphyr-parser.
//!
//! It owns only this subset: block mappings and block sequences laid out
//! by indentation (compact `- key: v` mappings and `- - x` sequences in
//! sequence items, sequences at their key's indentation), single-line
//! plain scalars, single-line quoted scalars without escapes (`''` in
//! single quotes is fine), flow collections on one line as values (`[]`,
//! `{}`, and flat lists of plain words and quoted scalars, the `- pkgs:
//! [a, b]` of Salt), comments and blank lines, in printable ASCII with
//! `\n` or `\r\n` line breaks. Anything else gives `None` and the caller
//! takes the saphyr path (`load_direct` in [`super::direct`], then the full
//! loader in [`mod@super::load`]): other flow collections, anchors, aliases, tags, block scalars,
//! `?` keys, directives and document markers, tabs, any other byte,
//! multi-line scalars, indentation that is not one of the open
//! collections' own, merge and `=` keys, duplicate keys, scalars the
//! constructors refuse, and nesting deeper than [`MAX_LEVELS`].
//!
//! Proof obligation: whenever it gives `Some`, the tree is exactly the
//! direct path's, values, key order and every span included (spans feed
//! diagnostics and the source map). Spans follow saphyr's conventions,
//! quirks included: a quoted scalar's or a flow collection's span runs on
//! over the blanks (and a comment) after it up to the next token or the
//! line's end; an empty mapping value sits at its `:`; an empty sequence
//! item at the end of its `-` line; a sequence at its key's indentation
//! starts at its first item's token (the end of the first `-` line when
//! the item is below it). Checked by `tests/yaml_fastpath.rs` (every YAML
//! text of the test suite, the rendered corpora, a rendered bench tree,
//! PyYAML's inputs), the unit tests below, and the `yaml_fastpath` fuzz
//! target.
//!
//! One pass over the bytes for the character check, then one over the
//! lines: linear time, recursion bounded by [`MAX_LEVELS`].

use std::ops::Range;

use super::direct::{implicit_value, unusual_bytes};
use super::keys::{has_duplicate_or_collection_key, repeats_a_key};
use super::resolve::{self, ScalarTag};
use super::Bounds;
use super::{Node, NodeValue};
use crate::value::{Map, Value};

/// Deepest nesting served here (deeper documents take the saphyr path,
/// which applies the `yaml-depth` limit).
const MAX_LEVELS: usize = 128;

/// Longest simple key served here (libyaml refuses keys over 1024
/// characters; well short of that, the saphyr path decides).
const MAX_KEY: usize = 1000;

/// One line with content (not blank, not only a comment).
#[derive(Debug, Clone, Copy)]
struct Line {
    /// Offset of its first byte.
    start: usize,
    /// Columns of leading spaces.
    indent: usize,
    /// End of its content (before `\r\n` or `\n`).
    end: usize,
    /// Offset of the next line.
    next: usize,
}

/// What a scalar at a position turned out to be.
enum Inline {
    /// A mapping key, with the offset of its `:`.
    Key(usize),
    /// A scalar that ends its line (blanks and a comment may follow):
    /// its value and span.
    Scalar(NodeValue, Range<usize>),
}

/// What the scanner makes of what it reads: the [`Node`] tree with every
/// span ([`Tree`]), or plain [`Value`]s for a caller that needs no spans
/// ([`Plain`]). One scanner serves both, so they cannot read a text
/// differently.
pub(super) trait Build {
    /// A node.
    type Out;
    /// A sequence's items so far.
    type Items;
    /// A mapping's pairs so far.
    type Pairs;
    /// A scalar node (`value` is never a collection).
    fn scalar(&mut self, value: NodeValue, span: Range<usize>) -> Self::Out;
    /// An empty sequence to fill.
    fn items(&mut self) -> Self::Items;
    /// Append to a sequence.
    fn push(&mut self, items: &mut Self::Items, item: Self::Out);
    /// The sequence node from `start` to `end` (`None`: where its last
    /// item ends).
    fn list(&mut self, items: Self::Items, start: usize, end: Option<usize>) -> Self::Out;
    /// An empty mapping to fill.
    fn pairs(&mut self) -> Self::Pairs;
    /// Append to a mapping.
    fn pair(&mut self, pairs: &mut Self::Pairs, key: Self::Out, value: Self::Out);
    /// The mapping node from `start` to `end` (`None`: where its last
    /// value ends); `None` when a key repeats (as Python compares keys),
    /// which the full loader reports.
    fn map(&mut self, pairs: Self::Pairs, start: usize, end: Option<usize>) -> Option<Self::Out>;
}

/// Builds the [`Node`] tree.
pub(super) struct Tree;

impl Build for Tree {
    type Out = Node;
    type Items = Vec<Node>;
    type Pairs = Vec<(Node, Node)>;

    fn scalar(&mut self, value: NodeValue, span: Range<usize>) -> Node {
        Node { value, span }
    }

    fn items(&mut self) -> Vec<Node> {
        Vec::new()
    }

    fn push(&mut self, items: &mut Vec<Node>, item: Node) {
        items.push(item);
    }

    fn list(&mut self, items: Vec<Node>, start: usize, end: Option<usize>) -> Node {
        let end = end.unwrap_or_else(|| items.last().map_or(start, |n| n.span.end).max(start));
        Node {
            value: NodeValue::List(items),
            span: start..end,
        }
    }

    fn pairs(&mut self) -> Vec<(Node, Node)> {
        Vec::new()
    }

    fn pair(&mut self, pairs: &mut Vec<(Node, Node)>, key: Node, value: Node) {
        pairs.push((key, value));
    }

    fn map(&mut self, pairs: Vec<(Node, Node)>, start: usize, end: Option<usize>) -> Option<Node> {
        if pairs.len() > 1 && has_duplicate_or_collection_key(&pairs) {
            return None;
        }
        let end = end.unwrap_or_else(|| pairs.last().map_or(start, |(_, v)| v.span.end).max(start));
        Some(Node {
            value: NodeValue::Map(pairs),
            span: start..end,
        })
    }
}

/// Builds plain [`Value`]s, skipping the tree: the items of the
/// collections being read gather in reused buffers, and each collection
/// is allocated once, at its size.
#[derive(Default)]
pub(super) struct Plain {
    items: Vec<Vec<Value>>,
    pairs: Vec<Vec<(Value, Value)>>,
}

impl Build for Plain {
    type Out = Value;
    type Items = Vec<Value>;
    type Pairs = Vec<(Value, Value)>;

    fn scalar(&mut self, value: NodeValue, _: Range<usize>) -> Value {
        Node { value, span: 0..0 }.into_value()
    }

    fn items(&mut self) -> Vec<Value> {
        self.items.pop().unwrap_or_default()
    }

    fn push(&mut self, items: &mut Vec<Value>, item: Value) {
        items.push(item);
    }

    fn list(&mut self, mut items: Vec<Value>, _: usize, _: Option<usize>) -> Value {
        let mut list = crate::value::List::with_capacity(items.len());
        list.extend(items.drain(..));
        self.items.push(items);
        Value::List(list)
    }

    fn pairs(&mut self) -> Vec<(Value, Value)> {
        self.pairs.pop().unwrap_or_default()
    }

    fn pair(&mut self, pairs: &mut Vec<(Value, Value)>, key: Value, value: Value) {
        pairs.push((key, value));
    }

    fn map(&mut self, mut pairs: Vec<(Value, Value)>, _: usize, _: Option<usize>) -> Option<Value> {
        let repeats = pairs.len() > 1 && repeats_a_key(pairs.iter().map(|(k, _)| k), pairs.len());
        let map = (!repeats).then(|| Map::from_distinct(pairs.drain(..)));
        pairs.clear();
        self.pairs.push(pairs);
        map.map(Value::Map)
    }
}

struct Scanner<'a, B> {
    b: &'a [u8],
    src: &'a str,
    /// The line being read; `None` at the end of the text.
    cur: Option<Line>,
    max_level: usize,
    build: B,
}

/// Load `src` if it is in the fast path's subset (module doc); `None`
/// otherwise, for the caller to take the saphyr path.
pub(super) fn load_fast(src: &str, bounds: Bounds) -> Option<Node> {
    scan(src, bounds, Tree)
}

/// [`load_fast`] as a plain value (no tree, no spans).
pub(super) fn load_fast_value(src: &str, bounds: Bounds) -> Option<Value> {
    scan(src, bounds, Plain::default())
}

fn scan<B: Build>(src: &str, bounds: Bounds, build: B) -> Option<B::Out> {
    let b = src.as_bytes();
    // Printable ASCII and line breaks, then `\r` only before `\n`.
    if unusual_bytes(b) > 0 {
        return None;
    }
    let lone_cr = |(i, &c): (usize, &u8)| c == b'\r' && b.get(i + 1) != Some(&b'\n');
    if b.contains(&b'\r') && b.iter().enumerate().any(lone_cr) {
        return None;
    }
    let mut s = Scanner {
        b,
        src,
        cur: None,
        max_level: bounds.depth.min(MAX_LEVELS),
        build,
    };
    s.advance(0)?;
    let Some(line) = s.cur else {
        return Some(s.build.scalar(NodeValue::Null, 0..0));
    };
    let root = s.block(line, 0)?;
    // Anything left is indented less than the root: not a single node.
    s.cur.is_none().then_some(root)
}

impl<B: Build> Scanner<'_, B> {
    /// Move to the first line with content at or after offset `from` (a
    /// line start). `None` for a document marker (`---`, `...`).
    fn advance(&mut self, mut from: usize) -> Option<()> {
        let b = self.b;
        while from < b.len() {
            let nl = b[from..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |i| from + i);
            let next = (nl + 1).min(b.len());
            let end = if nl > from && b[nl - 1] == b'\r' {
                nl - 1
            } else {
                nl
            };
            let indent = b[from..end].iter().take_while(|&&c| c == b' ').count();
            let first = from + indent;
            if first == end || b[first] == b'#' {
                from = next;
                continue;
            }
            if indent == 0 && (b[from..end].starts_with(b"---") || b[from..end].starts_with(b"..."))
            {
                return None;
            }
            self.cur = Some(Line {
                start: from,
                indent,
                end,
                next,
            });
            return Some(());
        }
        self.cur = None;
        Some(())
    }

    /// A `-` that starts a sequence entry at `p`.
    fn is_dash(&self, p: usize, end: usize) -> bool {
        self.b[p] == b'-' && (p + 1 == end || self.b[p + 1] == b' ')
    }

    /// Past the spaces from `p` on the current line.
    fn skip_spaces(&self, mut p: usize, end: usize) -> usize {
        while p < end && self.b[p] == b' ' {
            p += 1;
        }
        p
    }

    /// The collection whose first line is `line` (a mapping or a sequence
    /// at its indentation).
    fn block(&mut self, line: Line, level: usize) -> Option<B::Out> {
        let p = line.start + line.indent;
        if self.is_dash(p, line.end) {
            self.seq(line.indent, p, level, false)
        } else {
            self.map(line.indent, p, level)
        }
    }

    /// A block sequence whose entries are at column `col`, the first
    /// entry's `-` at `p` on the current line. `indentless`: it is a
    /// mapping value at the mapping's own indentation (then a line at
    /// `col` that is not an entry ends it, and its span starts where its
    /// first item's token does, as saphyr has it).
    fn seq(&mut self, col: usize, mut p: usize, level: usize, indentless: bool) -> Option<B::Out> {
        if level >= self.max_level {
            return None;
        }
        // Where saphyr starts an indentless sequence: at its first item's
        // token, the end of the `-` line when that item is below it.
        let mut start = if indentless { None } else { Some(p) };
        let mut items = self.build.items();
        loop {
            let line = self.cur?;
            let end = line.end;
            let q = self.skip_spaces(p + 1, end);
            let empty_line = q == end || self.b[q] == b'#';
            start.get_or_insert(if empty_line { end } else { q });
            let item = if empty_line {
                // Nothing on the `-` line: the item is below, or empty.
                self.advance(line.next)?;
                match self.cur {
                    Some(l) if l.indent > col => self.block(l, level + 1)?,
                    _ => self.build.scalar(NodeValue::Null, end..end),
                }
            } else if self.is_dash(q, end) {
                self.seq(q - line.start, q, level + 1, false)?
            } else if matches!(self.b[q], b'[' | b'{') {
                let node = self.flow(q, end, level + 1)?;
                self.advance(line.next)?;
                node
            } else {
                match self.scalar_at(q, end)? {
                    Inline::Key(_) => self.map(q - line.start, q, level + 1)?,
                    Inline::Scalar(value, span) => {
                        self.advance(line.next)?;
                        self.build.scalar(value, span)
                    }
                }
            };
            self.build.push(&mut items, item);
            match self.cur {
                None => break,
                Some(l) if l.indent == col && self.is_dash(l.start + col, l.end) => {
                    p = l.start + col;
                }
                Some(l) if l.indent < col || (indentless && l.indent == col) => break,
                Some(_) => return None,
            }
        }
        let start = start?;
        Some(self.build.list(items, start, None))
    }

    /// A block mapping whose keys are at column `col`, the first key at
    /// `p` on the current line.
    fn map(&mut self, col: usize, mut p: usize, level: usize) -> Option<B::Out> {
        if level >= self.max_level {
            return None;
        }
        let start = p;
        let mut pairs = self.build.pairs();
        loop {
            let line = self.cur?;
            let end = line.end;
            let Inline::Key(colon) = self.scalar_at(p, end)? else {
                return None;
            };
            let key = self.key(p, colon)?;
            let q = self.skip_spaces(colon + 1, end);
            let value = if q == end || self.b[q] == b'#' {
                // Nothing after the `:`: the value is below, or empty.
                self.advance(line.next)?;
                match self.cur {
                    Some(l) if l.indent > col => self.block(l, level + 1)?,
                    Some(l) if l.indent == col && self.is_dash(l.start + col, l.end) => {
                        self.seq(col, l.start + col, level + 1, true)?
                    }
                    _ => self.build.scalar(NodeValue::Null, colon..colon),
                }
            } else if matches!(self.b[q], b'[' | b'{') {
                let node = self.flow(q, end, level + 1)?;
                self.advance(line.next)?;
                node
            } else {
                let Inline::Scalar(value, span) = self.scalar_at(q, end)? else {
                    return None;
                };
                self.advance(line.next)?;
                self.build.scalar(value, span)
            };
            self.build.pair(&mut pairs, key, value);
            match self.cur {
                None => break,
                Some(l) if l.indent == col => p = l.start + col,
                Some(l) if l.indent < col => break,
                Some(_) => return None,
            }
        }
        // Keys here are scalars; one key cannot repeat.
        self.build.map(pairs, start, None)
    }

    /// A flow collection at `p` that ends its line: `{}`, or a flow
    /// sequence of plain words and quoted scalars (no nesting, no
    /// trailing comma). Its span runs on to the line's end, as a quoted
    /// scalar's does.
    fn flow(&mut self, p: usize, end: usize, level: usize) -> Option<B::Out> {
        if level >= self.max_level {
            return None;
        }
        let b = self.b;
        let mut i = self.skip_spaces(p + 1, end);
        let mut items = self.build.items();
        let close = if b[p] == b'{' {
            (i < end && b[i] == b'}').then_some(i)?
        } else if i < end && b[i] == b']' {
            i
        } else {
            loop {
                if i >= end {
                    return None;
                }
                let (item, after) = match b[i] {
                    q @ (b'\'' | b'"') => {
                        let (value, close) = self.quoted(q, i, end)?;
                        let after = self.skip_spaces(close, end);
                        (
                            self.build.scalar(NodeValue::Str(value.into()), i..after),
                            after,
                        )
                    }
                    c if flow_word_start(c, b.get(i + 1).copied()) => {
                        let mut j = i + 1;
                        while j < end && flow_word(b[j]) {
                            j += 1;
                        }
                        let node = self.build.scalar(typed(&self.src[i..j])?, i..j);
                        (node, self.skip_spaces(j, end))
                    }
                    _ => return None,
                };
                self.build.push(&mut items, item);
                match b.get(after) {
                    Some(b']') if after < end => break after,
                    Some(b',') if after < end => {
                        i = self.skip_spaces(after + 1, end);
                        if i < end && b[i] == b']' {
                            return None;
                        }
                    }
                    _ => return None,
                }
            }
        };
        let after = self.skip_spaces(close + 1, end);
        if after < end && !(b[after] == b'#' && after > close + 1) {
            return None;
        }
        if b[p] == b'{' {
            let pairs = self.build.pairs();
            self.build.map(pairs, p, Some(end))
        } else {
            Some(self.build.list(items, p, Some(end)))
        }
    }

    /// The key node from `p` to its `:` at `colon` (already known to be
    /// a plain or quoted scalar followed by `:`).
    fn key(&mut self, p: usize, colon: usize) -> Option<B::Out> {
        if colon - p > MAX_KEY {
            return None;
        }
        match self.b[p] {
            q @ (b'\'' | b'"') => {
                let (value, _) = self.quoted(q, p, colon)?;
                Some(self.build.scalar(NodeValue::Str(value.into()), p..colon))
            }
            _ => {
                let mut e = colon;
                while self.b[e - 1] == b' ' {
                    e -= 1;
                }
                let value = typed(&self.src[p..e])?;
                Some(self.build.scalar(value, p..e))
            }
        }
    }

    /// Read the scalar at `p` on the current line (content ends at `end`):
    /// a key (followed by `:` and a blank or the line's end) or a scalar
    /// ending the line. `None` for anything else.
    fn scalar_at(&self, p: usize, end: usize) -> Option<Inline> {
        let b = self.b;
        match b[p] {
            q @ (b'\'' | b'"') => {
                let (value, close) = self.quoted(q, p, end)?;
                let after = self.skip_spaces(close, end);
                if after == end || (b[after] == b'#' && after > close) {
                    Some(Inline::Scalar(NodeValue::Str(value.into()), p..end))
                } else if b[after] == b':' && (after + 1 == end || b[after + 1] == b' ') {
                    Some(Inline::Key(after))
                } else {
                    None
                }
            }
            b'-' if p + 1 < end && b[p + 1] != b' ' => self.plain(p, end),
            b'-' | b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!'
            | b'|' | b'>' | b'%' | b'@' | b'`' => None,
            _ => self.plain(p, end),
        }
    }

    /// A plain scalar from `p`: it stops at `: ` (a key), ` #` or the
    /// line's end; trailing blanks are not part of it.
    fn plain(&self, p: usize, end: usize) -> Option<Inline> {
        let b = self.b;
        let mut last = p;
        let mut i = p;
        while i < end {
            match b[i] {
                b':' if i + 1 == end || b[i + 1] == b' ' => return Some(Inline::Key(i)),
                b'#' if b[i - 1] == b' ' => break,
                b' ' => {}
                _ => last = i + 1,
            }
            i += 1;
        }
        Some(Inline::Scalar(typed(&self.src[p..last])?, p..last))
    }

    /// The single-line quoted scalar opening with `q` at `p`: its value and
    /// the offset after its closing quote. `None` if it does not close
    /// before `end` or (double quotes) holds an escape.
    fn quoted(&self, q: u8, p: usize, end: usize) -> Option<(String, usize)> {
        let b = self.b;
        let mut value = String::new();
        let mut from = p + 1;
        let mut i = p + 1;
        loop {
            if i >= end {
                return None;
            }
            match b[i] {
                b'\\' if q == b'"' => return None,
                c if c == q => {
                    value.push_str(&self.src[from..i]);
                    if q == b'\'' && i + 1 < end && b[i + 1] == b'\'' {
                        // `''` is one quote.
                        value.push('\'');
                        i += 2;
                        from = i;
                        continue;
                    }
                    return Some((value, i + 1));
                }
                _ => i += 1,
            }
        }
    }
}

/// Whether `c` (followed by `next`) starts a plain word in a flow
/// sequence: a letter, a digit, `_`, `.`, `/`, `~`, or a sign before a
/// digit, letter or `.`.
fn flow_word_start(c: u8, next: Option<u8>) -> bool {
    match c {
        b'-' | b'+' => next.is_some_and(|n| n.is_ascii_alphanumeric() || n == b'.'),
        _ => c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'/' | b'~'),
    }
}

/// Whether `c` may continue a plain word in a flow sequence (no blanks,
/// no indicators, no `:`).
fn flow_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-' | b'/' | b'+' | b'=' | b'~' | b'@')
}

/// A plain scalar's value, typed as the direct path types it (PyYAML 1.1
/// resolution, Salt's constructors); `None` where that path would not
/// serve it either (merge and `=` keys, constructor failures).
fn typed(text: &str) -> Option<NodeValue> {
    match resolve::resolve_plain(text) {
        ScalarTag::Str | ScalarTag::Timestamp => Some(NodeValue::Str(text.into())),
        tag => implicit_value(&tag, text),
    }
}

#[cfg(test)]
mod tests {
    use super::super::direct::load_direct;
    use super::*;

    const BOUNDS: Bounds = Bounds {
        depth: 1000,
        nodes: 2_000_000,
    };

    /// The fast path serves `text`, exactly as the direct path does.
    fn served(text: &str) -> Node {
        let fast = load_fast(text, BOUNDS).unwrap_or_else(|| panic!("declined {text:?}"));
        let direct = load_direct(text, BOUNDS);
        assert_eq!(
            format!("{:?}", Some(&fast)),
            format!("{:?}", direct.as_ref()),
            "{text:?}"
        );
        // The plain build is the tree's value.
        assert_eq!(
            format!("{:?}", load_fast_value(text, BOUNDS)),
            format!("{:?}", Some(fast.to_value())),
            "{text:?}"
        );
        fast
    }

    fn declined(text: &str) {
        assert_eq!(load_fast(text, BOUNDS), None, "{text:?}");
        assert_eq!(load_fast_value(text, BOUNDS), None, "{text:?}");
    }

    /// The value of key `k` of a served top-level mapping, with its text.
    fn value_of<'a>(text: &'a str, k: &str) -> (NodeValue, &'a str) {
        let node = served(text);
        let NodeValue::Map(pairs) = node.value else {
            panic!("not a map: {text:?}")
        };
        let (_, v) = pairs
            .into_iter()
            .find(|(key, _)| key.value == NodeValue::Str(k.into()))
            .unwrap_or_else(|| panic!("no {k} in {text:?}"));
        (v.value, &text[v.span])
    }

    fn s(x: &str) -> NodeValue {
        NodeValue::Str(x.into())
    }

    #[test]
    fn colons_and_hashes_inside_plain_scalars() {
        assert_eq!(
            value_of("a: key:value\n", "a"),
            (s("key:value"), "key:value")
        );
        assert_eq!(value_of("http://x: 1\n", "http://x").0, NodeValue::Int(1));
        assert_eq!(value_of("a: b#c\n", "a"), (s("b#c"), "b#c"));
        assert_eq!(value_of("a: b #c\n", "a"), (s("b"), "b"));
        assert_eq!(value_of("a: b  \n", "a"), (s("b"), "b"));
        assert_eq!(value_of("a :  b\n", "a"), (s("b"), "b"));
        // `key:value` on its own line is a scalar, not a mapping.
        declined("key:value\n");
        declined("a: b: c\n");
        declined("a: 'x'#c\n");
    }

    #[test]
    fn empty_values_and_items() {
        assert_eq!(value_of("k:\n", "k"), (NodeValue::Null, ""));
        assert_eq!(served("k:\nj: 1\n").span, 0..7);
        assert_eq!(served("k: # c\n").span, 0..1);
        let list = served("- \n-\n- a\n-  # c\n");
        let NodeValue::List(items) = list.value else {
            panic!("list")
        };
        let spans: Vec<_> = items.iter().map(|n| n.span.clone()).collect();
        assert_eq!(spans, [2..2, 4..4, 7..8, 15..15]);
        served("- a:\n  b:\n-\n");
    }

    #[test]
    fn indentation() {
        served("a:\n  b:\n    c: 1\n  d: 2\ne: 3\n");
        served("- a: 1\n  b:\n  - x\n  -\n- - y\n  - z\n-\n  k: v\n");
        // (fuzz) an indentless sequence whose first item is below its `-`.
        assert_eq!(value_of("a::\n- \n - ac\n", "a:").1, "\n - ac");
        assert_eq!(value_of("k:\n-  # c\n  a: 1\n", "k").1, "\n  a: 1");
        // A sequence at its key's indentation starts at its first item.
        assert_eq!(value_of("k:\n- a\n- b\n", "k").1, "a\n- b");
        assert_eq!(value_of("k:\n  - a\n", "k").1, "- a");
        served("  a: 1\n  b: 2\n");
        // A key deeper or shallower than its siblings is an error.
        declined("a:\n  b: 1\n   c: 2\n");
        declined("a:\n  b: 1\n c: 2\n");
        declined("  a: 1\nb: 2\n");
        declined("- a\nb: 1\n");
        // Deeper lines after a scalar continue it.
        declined("a: x\n  y\n");
        declined("- a\n  - b\n");
        declined("a:\n  x\n");
    }

    #[test]
    fn comments_blank_lines_and_crlf() {
        let text = "# head\n\na: 1 # one\n   # deeper\n\n  \nb:\r\n  - 'x' # c\r\n";
        served(text);
        assert_eq!(value_of("a: 1\r\nb: x  \r\n", "b"), (s("x"), "x"));
        declined("a: 1\rb: 2\n");
        assert_eq!(served("# only\n\n").span, 0..0);
        assert_eq!(served("").value, NodeValue::Null);
    }

    #[test]
    fn quoted_scalars() {
        assert_eq!(value_of("a: 'x y'\n", "a"), (s("x y"), "'x y'"));
        // The span runs over blanks and a comment after the quote.
        assert_eq!(value_of("a: 'x'  # c\n", "a"), (s("x"), "'x'  # c"));
        assert_eq!(value_of("a: 'it''s'\n", "a").0, s("it's"));
        assert_eq!(value_of("a: \"yes\"\n", "a").0, s("yes"));
        assert_eq!(value_of("'1': x\n", "1").0, s("x"));
        served("'k'  : v\n\"\": ''\n");
        declined("a: \"x\\ty\"\n");
        declined("a: 'x\n  y'\n");
        declined("a: 'x' y\n");
    }

    #[test]
    fn pyyaml_resolution() {
        for (text, want) in [
            ("1", NodeValue::Int(1)),
            ("0755", NodeValue::Int(755)),
            ("0x1F", NodeValue::Int(31)),
            ("1:30", NodeValue::Int(90)),
            ("-7", NodeValue::Int(-7)),
            ("1.5", NodeValue::Float(1.5)),
            ("1e3", s("1e3")),
            ("yes", NodeValue::Bool(true)),
            ("No", NodeValue::Bool(false)),
            ("on", NodeValue::Bool(true)),
            ("OFF", NodeValue::Bool(false)),
            ("y", s("y")),
            ("~", NodeValue::Null),
            ("null", NodeValue::Null),
            ("2024-01-02", s("2024-01-02")),
            ("2024-01-02 10:00:00", s("2024-01-02 10:00:00")),
            ("1.10.2", s("1.10.2")),
        ] {
            assert_eq!(value_of(&format!("k: {text}\n"), "k").0, want, "{text}");
        }
        // Merge and `=` keys, and duplicates (as Python compares keys),
        // are the full loader's.
        declined("<<: {a: 1}\n");
        declined("a:\n  <<: 1\n");
        declined("a: =\n");
        declined("a: 1\na: 2\n");
        declined("1: a\n1.0: b\n");
        declined("true: a\n1: b\n");
    }

    #[test]
    fn flow_collections_on_one_line() {
        assert_eq!(value_of("a: []  # c\n", "a").1, "[]  # c");
        assert_eq!(value_of("a: {}\n", "a").0, NodeValue::Map(vec![]));
        served("- [a, -1, .5, ~, 'x''y' , \"z\"]\n- [ ]\n- {}\n");
        for text in [
            "a: [a, b,]\n",
            "a: [a b]\n",
            "a: [a: b]\n",
            "a: [[a]]\n",
            "a: {b: 1}\n",
            "a: [a]#c\n",
            "a: [a\n  , b]\n",
            "a: []x\n",
            "[a]: 1\n",
            "[a]\n",
        ] {
            declined(text);
        }
    }

    #[test]
    fn everything_else_is_declined() {
        for text in [
            "a: &x 1\n",
            "a: *x\n",
            "a: !!str 1\n",
            "a: |\n  x\n",
            "a: >\n  x\n",
            "? a\n: b\n",
            "%YAML 1.1\n---\na: 1\n",
            "---\na: 1\n",
            "a: 1\n...\n",
            "a:\tb\n",
            "a: \u{e9}\n",
            "a: -\n",
            "x\n",
            "a: @x\n",
            "a: 1\x7f\n",
        ] {
            declined(text);
        }
        // Long simple keys are the saphyr path's (libyaml's limit is 1024).
        served(&format!("{}: 1\n", "k".repeat(MAX_KEY)));
        declined(&format!("{}: 1\n", "k".repeat(MAX_KEY + 1)));
        declined(&format!("'{}': 1\n", "k".repeat(MAX_KEY)));
        // Nesting past MAX_LEVELS is left to the saphyr path and its limit.
        let deep = "- ".repeat(MAX_LEVELS + 1) + "x\n";
        declined(&deep);
        served(&("- ".repeat(MAX_LEVELS - 1) + "x\n"));
    }
}

/// `FASTPATH_SPEED_DIR=DIR cargo test --release --lib yaml::fast::speed --
/// --ignored --nocapture`: the fast and the direct path's time on every
/// text in DIR (e.g. `FASTPATH_DUMP`'s `served/`, see `tests/yaml_fastpath.rs`).
#[cfg(test)]
mod speed {
    use super::super::direct::load_direct;
    use super::*;
    use std::time::Instant;

    #[test]
    #[ignore]
    fn speed() {
        let Ok(dir) = std::env::var("FASTPATH_SPEED_DIR") else {
            return;
        };
        let texts: Vec<String> = std::fs::read_dir(dir)
            .expect("readable dir")
            .flatten()
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .collect();
        let bounds = Bounds {
            depth: 1000,
            nodes: 2_000_000,
        };
        let bytes: usize = texts.iter().map(String::len).sum();
        for round in 0..3 {
            let t = Instant::now();
            let fast = texts
                .iter()
                .filter(|t| load_fast(t, bounds).is_some())
                .count();
            let fast_time = t.elapsed();
            let t = Instant::now();
            let direct = texts
                .iter()
                .filter(|t| load_direct(t, bounds).is_some())
                .count();
            let direct_time = t.elapsed();
            println!(
                "round {round}: {} texts, {bytes} bytes: fast {fast} in {fast_time:?}, direct {direct} in {direct_time:?} ({:.1}x)",
                texts.len(),
                direct_time.as_secs_f64() / fast_time.as_secs_f64()
            );
        }
    }
}
