//! Loading: saphyr-parser events composed into a node graph (anchors shared,
//! as PyYAML's composer does), then constructed the way Salt's
//! `SaltYamlSafeLoader` does (breadth first, merge keys flattened, duplicate
//! and unhashable keys rejected), then expanded into a [`Node`] tree.
//! Parser errors are reworded as libyaml (which Salt uses) words them.

use super::resolve::{self, ConstructFail, Scalar, ScalarTag, CORE};
use super::{Dialect, Node, NodeValue, YamlError, YamlErrorKind};
use crate::text::LineIndex;
use crate::value::{py_str_repr, Value};
use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span};
use std::borrow::Cow;
use std::cell::Cell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{Hash, Hasher};

type Id = usize;

#[derive(Debug, Clone)]
enum RawKind {
    Scalar {
        text: String,
        tag: ScalarTag,
    },
    Seq {
        tag: Option<String>,
        items: Vec<Id>,
    },
    Map {
        tag: Option<String>,
        pairs: Vec<(Id, Id)>,
    },
}

#[derive(Debug, Clone)]
struct Raw {
    kind: RawKind,
    start: usize,
    end: usize,
    /// Reachable from more than one place (an alias target, or an entry
    /// copied into another mapping by a merge key): the tree gets copies of
    /// its strings instead of taking them.
    shared: bool,
}

impl Raw {
    /// PyYAML's `node.id`.
    fn id_name(&self) -> &'static str {
        match self.kind {
            RawKind::Scalar { .. } => "scalar",
            RawKind::Seq { .. } => "sequence",
            RawKind::Map { .. } => "mapping",
        }
    }
}

/// Byte offsets and line/column marks of the text. saphyr reports char
/// indexes; events come in text order, so a cursor converts them to byte
/// offsets in amortised constant time. Line and column are only needed for
/// diagnostics and are computed on demand.
struct Text<'a> {
    src: &'a str,
    ascii: bool,
    /// Last conversion: (char index, byte offset).
    cursor: Cell<(usize, usize)>,
    /// When `src` is a padded copy (see [`Composer::flow_pad`]): the text
    /// as rendered and the padding, so messages give its lines and columns.
    original: Option<(&'a str, &'a Padding)>,
    lines: std::cell::OnceCell<LineIndex>,
    /// Whose rules apply (duplicate keys are an error for Salt only).
    dialect: Dialect,
    /// [`Dialect::Yamlex`]: where the `!aggregate` / `!reset` tags met go
    /// (offsets of this text).
    marks: Option<&'a std::cell::RefCell<Vec<super::TagMark>>>,
}

impl<'a> Text<'a> {
    fn new(src: &'a str) -> Self {
        Text {
            src,
            ascii: src.is_ascii(),
            cursor: Cell::new((0, 0)),
            original: None,
            lines: std::cell::OnceCell::new(),
            dialect: Dialect::Salt,
            marks: None,
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        if self.ascii {
            return char_index.min(self.src.len());
        }
        let bytes = self.src.as_bytes();
        let (mut c, mut b) = self.cursor.get();
        if char_index < c / 2 {
            (c, b) = (0, 0);
        }
        while c < char_index && b < bytes.len() {
            b += 1;
            while b < bytes.len() && (bytes[b] & 0xC0) == 0x80 {
                b += 1;
            }
            c += 1;
        }
        while c > char_index {
            b -= 1;
            while b > 0 && (bytes[b] & 0xC0) == 0x80 {
                b -= 1;
            }
            c -= 1;
        }
        self.cursor.set((c, b));
        b
    }

    /// `  in "<unicode string>", line L, column C` for a byte offset.
    fn mark(&self, byte: usize) -> String {
        let (line, col) = match self.original {
            Some((src, pads)) => Text::new(src).line_col(pads.offset(byte)),
            None => self.line_col(byte),
        };
        format!("  in \"<unicode string>\", line {line}, column {col}")
    }

    /// The text's line index (built on first use: only errors and padded
    /// flow lines need it).
    fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(self.src))
    }

    /// 1-based line and column (columns count characters, as libyaml does).
    fn line_col(&self, byte: usize) -> (usize, usize) {
        self.lines().line_col(self.src, byte)
    }

    /// The start of the line holding byte offset `byte`.
    fn line_start(&self, byte: usize) -> usize {
        self.lines().line_start(byte)
    }

    /// 1-based column (in characters) of a byte offset.
    fn column(&self, byte: usize) -> usize {
        self.line_col(byte).1
    }
}

/// A PyYAML `MarkedYAMLError` rendered as `str()` does: the context mark is
/// left out when it equals the problem mark.
fn marked(
    text: &Text,
    context: Option<(&str, Option<usize>)>,
    problem: &str,
    problem_at: Option<usize>,
) -> String {
    let mut lines = Vec::new();
    let mut context_mark = None;
    if let Some((ctx, at)) = context {
        lines.push(ctx.to_string());
        context_mark = at.map(|b| text.mark(b));
    }
    let problem_mark = problem_at.map(|b| text.mark(b));
    if let Some(cm) = context_mark {
        if problem_mark.as_ref() != Some(&cm) {
            lines.push(cm);
        }
    }
    lines.push(problem.to_string());
    if let Some(pm) = problem_mark {
        lines.push(pm);
    }
    lines.join("\n")
}

fn err(message: String, span: std::ops::Range<usize>, context: Option<usize>) -> YamlError {
    YamlError {
        message,
        span,
        context: context.map(|c| c..c),
        kind: YamlErrorKind::Syntax,
    }
}

/// An open collection while composing.
struct Open {
    id: Id,
    /// In flow context (an explicit `[`/`{`, or inside one).
    flow: bool,
    /// A single-pair mapping inside a flow sequence (`[a: 1]`): no token of its own.
    implicit: bool,
    is_map: bool,
    /// Byte offset of the collection's start token (libyaml's context mark).
    token: usize,
    pending_key: Option<Id>,
    /// Where the pending key's own token starts and ends (an alias key's
    /// target is elsewhere).
    key_at: (usize, usize),
    /// The 0-based column of `token`, once computed.
    indent: Option<isize>,
}

/// Parse and compose one document into the node arena.
struct Composer<'a> {
    text: Text<'a>,
    /// The `yaml-depth` limit.
    max_depth: usize,
    nodes: Vec<Raw>,
    stack: Vec<Open>,
    anchors: HashMap<usize, Id>,
    /// Anchor names seen, with the byte offset of their node (duplicates
    /// are a `ComposerError` in PyYAML).
    anchor_names: HashMap<String, usize>,
    root: Option<Id>,
    /// Quoted and block scalars, flow collections: tabs follow other rules there.
    exempt: Vec<(usize, usize)>,
    /// Plain scalars in block context, with their indentation column.
    plains: Vec<(usize, usize, isize)>,
    /// Block scalars (`|`, `>`).
    blocks: Vec<(usize, usize)>,
    /// Whether the text has a tab at all (else the three lists above are
    /// not needed and not recorded).
    has_tab: bool,
}

impl<'a> Composer<'a> {
    fn span(&self, span: &Span) -> (usize, usize) {
        (
            self.text.byte(span.start.index()),
            self.text.byte(span.end.index()),
        )
    }

    fn attach(&mut self, id: Id, (at, end): (usize, usize)) -> Result<(), YamlError> {
        self.flow_key_check(at)?;
        match self.stack.last_mut() {
            None => self.root = Some(id),
            Some(open) => {
                let parent = open.id;
                let key = open.pending_key.take();
                match &mut self.nodes[parent].kind {
                    RawKind::Seq { items, .. } => items.push(id),
                    RawKind::Map { pairs, .. } => match key {
                        None => {
                            if let Some(open) = self.stack.last_mut() {
                                open.pending_key = Some(id);
                                open.key_at = (at, end);
                            }
                        }
                        Some(k) => pairs.push((k, id)),
                    },
                    RawKind::Scalar { .. } => {}
                }
            }
        }
        Ok(())
    }

    /// libyaml takes a `:` for a key's value indicator only on the line its
    /// key started on and at most 1024 characters after it (a "simple
    /// key"); in a flow collection a `:` further on follows a complete
    /// entry, so "did not find expected ',' or '}'" (or `]`). saphyr lets a
    /// quoted or flow key span lines. Checked as the value (starting at
    /// `value_at`) arrives.
    fn flow_key_check(&self, value_at: usize) -> Result<(), YamlError> {
        let Some(open) = self.stack.last() else {
            return Ok(());
        };
        let Some(k) = open.pending_key.filter(|_| open.flow && open.is_map) else {
            return Ok(());
        };
        let (key_at, mut key_end) = open.key_at;
        if !matches!(self.nodes[k].kind, RawKind::Scalar { .. }) {
            key_end = key_end.max(self.nodes[k].end);
        }
        let Some(p) = far_flow_key(self.text.src, key_at, key_end, value_at) else {
            return Ok(());
        };
        let Some(outer) = self.stack.iter().rev().find(|o| o.flow && !o.implicit) else {
            return Ok(());
        };
        let (ctx, problem) = if outer.is_map {
            (
                "while parsing a flow mapping",
                "did not find expected ',' or '}'",
            )
        } else {
            (
                "while parsing a flow sequence",
                "did not find expected ',' or ']'",
            )
        };
        Err(err(
            marked(&self.text, Some((ctx, Some(outer.token))), problem, Some(p)),
            p..p + 1,
            Some(outer.token),
        ))
    }

    /// Check an anchor or alias name as libyaml does (`[0-9A-Za-z_-]+`), and
    /// remember anchors to reject duplicates.
    fn check_anchor(&mut self, start: usize, end: usize, anchor: bool) -> Result<(), YamlError> {
        let src = &self.text.src[start..end.max(start)];
        let pos = if anchor {
            // Properties: an optional tag before the anchor.
            let mut rest = src;
            if rest.starts_with('!') {
                let tag_len = rest.find(char::is_whitespace).unwrap_or(rest.len());
                rest = rest[tag_len..].trim_start();
            }
            match rest.strip_prefix('&') {
                Some(_) => start + (src.len() - rest.len()),
                None => return Ok(()),
            }
        } else {
            start
        };
        if let Some(e) = self.check_name(pos, anchor) {
            return Err(e);
        }
        let name = self.name_at(pos);
        if anchor {
            if let Some(&first) = self.anchor_names.get(name) {
                return Err(err(
                    marked(
                        &self.text,
                        Some(("found duplicate anchor; first occurrence", Some(first))),
                        "second occurrence",
                        Some(start),
                    ),
                    start..end,
                    Some(first),
                ));
            }
            self.anchor_names.insert(name.to_string(), start);
        }
        Ok(())
    }

    /// The anchor or alias name after the `&` / `*` at `pos`.
    fn name_at(&self, pos: usize) -> &str {
        let tail = &self.text.src[(pos + 1).min(self.text.src.len())..];
        let len = tail
            .find(|c: char| c.is_whitespace() || ",[]{}".contains(c))
            .unwrap_or(tail.len());
        &tail[..len]
    }

    /// libyaml allows only `[0-9A-Za-z_-]` in anchor and alias names.
    fn check_name(&self, pos: usize, _anchor: bool) -> Option<YamlError> {
        let name = self.name_at(pos);
        let bad = name.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))?;
        let at = pos + 1 + bad;
        Some(err(
            "did not find expected alphabetic or numeric character".into(),
            at..self.char_end(at),
            Some(pos),
        ))
    }

    fn tag_string(tag: Option<&saphyr_parser::Tag>) -> Option<String> {
        let t = tag?;
        let full = format!("{}{}", t.handle, t.suffix);
        // `!` alone is the non-specific tag: resolution as if untagged.
        (full != "!").then_some(full)
    }

    /// A yamlex tag (`!aggregate`, `!reset`) on the node starting at
    /// `start`: recorded, and `true` (the node then reads as untagged).
    fn yamlex_tag(&self, tag: &Option<String>, start: usize, collection: bool) -> bool {
        let (Some(marks), Some(t)) = (self.text.marks, tag) else {
            return false;
        };
        if t != "!aggregate" && t != "!reset" {
            return false;
        }
        marks.borrow_mut().push(super::TagMark {
            start,
            collection,
            tag: t.clone(),
        });
        true
    }

    fn open(
        &mut self,
        span: &Span,
        anchor: usize,
        tag: Option<&saphyr_parser::Tag>,
        is_map: bool,
    ) -> Result<(), YamlError> {
        let (start, end) = self.span(span);
        if anchor > 0 {
            self.check_anchor(start, end, true)?;
        }
        let explicit_flow = self.flow_token(start, end);
        // An open collection is in flow context when any enclosing one is.
        let in_flow = self.stack.last().is_some_and(|o| o.flow);
        let flow = explicit_flow.is_some() || in_flow;
        let mut tag = Self::tag_string(tag);
        if self.yamlex_tag(&tag, start, true) {
            tag = None;
        }
        let id = self.nodes.len();
        let kind = if is_map {
            RawKind::Map {
                tag,
                pairs: Vec::new(),
            }
        } else {
            RawKind::Seq {
                tag,
                items: Vec::new(),
            }
        };
        self.nodes.push(Raw {
            kind,
            start,
            end,
            shared: false,
        });
        if anchor > 0 {
            self.anchors.insert(anchor, id);
        }
        self.attach(id, (start, end))?;
        if self.stack.len() >= self.max_depth {
            return Err(err(
                format!(
                    "too deeply nested (more than {} levels; the `yaml-depth` limit)",
                    self.max_depth
                ),
                start..end.max(start + 1),
                None,
            ));
        }
        self.stack.push(Open {
            id,
            flow,
            implicit: flow && explicit_flow.is_none(),
            is_map,
            token: explicit_flow.unwrap_or(end),
            pending_key: None,
            key_at: (0, 0),
            indent: None,
        });
        Ok(())
    }

    /// Where the `[` / `{` of a collection start event is, if it is a flow
    /// collection (skipping the anchor and tag before it).
    fn flow_token(&self, start: usize, end: usize) -> Option<usize> {
        flow_token(self.text.src.as_bytes(), start, end)
    }

    fn close(&mut self, span: &Span) {
        let (start, end) = self.span(span);
        if let Some(open) = self.stack.pop() {
            let last_child = match &self.nodes[open.id].kind {
                RawKind::Seq { items, .. } => items.last().map(|&i| self.nodes[i].end),
                RawKind::Map { pairs, .. } => pairs.last().map(|&(_, v)| self.nodes[v].end),
                RawKind::Scalar { .. } => None,
            };
            let node = &mut self.nodes[open.id];
            node.end = if open.flow && !open.implicit && end > start {
                end
            } else {
                last_child.unwrap_or(node.end)
            }
            .max(node.start);
            if open.flow && !open.implicit && self.has_tab {
                self.exempt.push((node.start, node.end));
            }
        }
    }

    fn scalar(
        &mut self,
        span: &Span,
        mut value: String,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&saphyr_parser::Tag>,
    ) -> Result<(), YamlError> {
        let (start, mut end) = self.span(span);
        if anchor > 0 {
            self.check_anchor(start, end, true)?;
        }
        if self.stack.is_empty() && matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
            match top_block_cut(self.text.src.as_bytes(), start, end) {
                None => {}
                Some(TopBlock::Empty { at, value: empty }) => {
                    value = empty;
                    end = at.max(start);
                }
                Some(TopBlock::AnotherDocument { first, at }) => {
                    return Err(err(
                        marked(
                            &self.text,
                            Some(("expected a single document in the stream", Some(first))),
                            "but found another document",
                            Some(at),
                        ),
                        at..self.char_end(at),
                        Some(first),
                    ));
                }
                Some(TopBlock::DocumentStart(at)) => {
                    return Err(err(
                        marked(
                            &self.text,
                            None,
                            "did not find expected <document start>",
                            Some(at),
                        ),
                        at..self.char_end(at),
                        None,
                    ));
                }
            }
        }
        let full = Self::tag_string(tag);
        let tag = match full {
            // yamlex resolves a tagged scalar as if it were plain.
            _ if self.yamlex_tag(&full, start, false) => resolve::resolve_plain(&value),
            Some(full) => ScalarTag::from_full(&full),
            // libyaml: `!` resolves like a plain scalar, but a `!` with no
            // scalar after it is not implicit at all, so a string.
            None if tag.is_some() && value.is_empty() && style == ScalarStyle::Plain => {
                ScalarTag::Str
            }
            None if tag.is_some() => resolve::resolve_plain(&value),
            None if style == ScalarStyle::Plain => resolve::resolve_plain(&value),
            None => ScalarTag::Str,
        };
        let in_flow = self.stack.last().is_some_and(|o| o.flow);
        if in_flow && style == ScalarStyle::Plain {
            self.flow_plain_check(start, end, &value)?;
        }
        if !self.has_tab {
            // Only the tab checks use what follows.
        } else if style == ScalarStyle::Plain {
            if !in_flow {
                let indent = match self.stack.last_mut() {
                    None => -1,
                    Some(o) => match o.indent {
                        Some(i) => i,
                        None => {
                            let i = self.text.column(o.token) as isize - 1;
                            o.indent = Some(i);
                            i
                        }
                    },
                };
                self.plains.push((start, end, indent));
            }
        } else {
            self.exempt.push((start, end));
            if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
                self.blocks.push((start, end));
            }
        }
        if let Some(open) = self.stack.last() {
            let is_key = open.is_map && open.pending_key.is_none();
            if is_key && !open.flow && start == end && value.is_empty() && tag == ScalarTag::Null {
                // libyaml needs a key token in a block mapping: `: x` is an error.
                if !after_key_indicator(self.text.src.as_bytes(), start) {
                    return Err(err(
                        marked(
                            &self.text,
                            Some(("while parsing a block mapping", Some(open.token))),
                            "did not find expected key",
                            Some(start),
                        ),
                        start..self.char_end(start),
                        Some(open.token),
                    ));
                }
            }
        }
        let id = self.nodes.len();
        self.nodes.push(Raw {
            kind: RawKind::Scalar { text: value, tag },
            start,
            end,
            shared: false,
        });
        if anchor > 0 {
            self.anchors.insert(anchor, id);
        }
        self.attach(id, (start, end))?;
        Ok(())
    }

    /// [`flow_plain_problem`] as libyaml words it.
    fn flow_plain_check(&self, start: usize, end: usize, value: &str) -> Result<(), YamlError> {
        let empty_key = self
            .stack
            .last()
            .is_some_and(|o| o.is_map && o.pending_key.is_none());
        match flow_plain_problem(self.text.src.as_bytes(), start, end, value, empty_key) {
            None => Ok(()),
            Some(FlowPlain::CannotStart(at)) => Err(err(
                "found character that cannot start any token".into(),
                at..at + 1,
                None,
            )),
            Some(FlowPlain::NoNode(at)) => Err(self.node_content(at, true)),
            Some(FlowPlain::Colon(at)) => Err(err("found unexpected ':'".into(), at..at + 1, None)),
        }
    }

    fn alias(&mut self, span: &Span, anchor: usize) -> Result<(), YamlError> {
        let (start, end) = self.span(span);
        self.check_anchor(start, end, false)?;
        match self.anchors.get(&anchor) {
            Some(&id) => {
                self.nodes[id].shared = true;
                self.attach(id, (start, end))?;
                Ok(())
            }
            None => Err(self.undefined_alias(start)),
        }
    }

    fn undefined_alias(&self, at: usize) -> YamlError {
        err(
            marked(&self.text, None, "found undefined alias", Some(at)),
            at..self.char_end(at),
            None,
        )
    }

    /// End of the character at `at` (for one-character error spans).
    fn char_end(&self, at: usize) -> usize {
        self.text.src[at.min(self.text.src.len())..]
            .chars()
            .next()
            .map_or(at, |c| at + c.len_utf8())
    }

    /// saphyr wants the lines of a flow collection or a quoted scalar
    /// indented deeper than the block around them; PyYAML and libyaml do
    /// not (`{{ x | yaml }}` under a key wraps long lists onto lines
    /// indented less than the key). For such an error: where the offending
    /// line starts and how many spaces put it one column past the outermost
    /// open `[` or `{`, or past the opening quote of a quoted scalar. That
    /// never changes a value: line breaks there fold together with the
    /// spaces after them.
    fn flow_pad(&self, info: &str, at: usize, last_end: usize) -> Vec<(usize, usize)> {
        self.flow_pads(info, at, last_end).unwrap_or_default()
    }

    /// [`Composer::flow_pad`]'s pads: for a flow collection, every line of
    /// it from the offending one on that is not deep enough (one parse for
    /// them all, not one each), in text order.
    fn flow_pads(&self, info: &str, at: usize, last_end: usize) -> Option<Vec<(usize, usize)>> {
        let bytes = self.text.src.as_bytes();
        let at = at.min(bytes.len());
        let line_of = |p: usize| self.text.line_start(p);
        let lead = |line: usize| bytes[line..].iter().take_while(|&&b| b == b' ').count();
        // The outermost open flow collection, if `line` is still inside it
        // (the scanner may be past its end while the events lag behind),
        // else one the scanner opened after the last event.
        let flow_token = || match self.stack.iter().find(|o| o.flow && !o.implicit) {
            Some(o) => Some(o.token),
            None => next_flow_start(bytes, last_end),
        };
        let flow_want = |line: usize| {
            let token = flow_token()?;
            flow_open(bytes, token, line).then(|| self.text.column(token))
        };
        match info {
            "invalid indentation" | "invalid indentation in flow construct" => {
                let first = line_of(at);
                let token = flow_token()?;
                let close = flow_close(bytes, token);
                if first <= token || first > close {
                    return None;
                }
                let want = self.text.column(token);
                let mut pads = Vec::new();
                let mut line = first;
                while line <= close && line < bytes.len() {
                    let have = lead(line);
                    let blank = matches!(bytes.get(line + have), Some(b'\n' | b'\r') | None);
                    if have < want && (line == first || !blank) {
                        pads.push((line, want - have));
                    }
                    match bytes[line..].iter().position(|&b| b == b'\n') {
                        Some(p) => line += p + 1,
                        None => break,
                    }
                }
                (!pads.is_empty() && pads[0].0 == first).then_some(pads)
            }
            // Reported at the opening quote: the culprit is the first
            // non-blank line after it that is not deep enough.
            "invalid indentation in quoted scalar" => {
                let first = line_of(at);
                let want = flow_want(first).unwrap_or(0).max(self.text.column(at));
                let end = quoted_end(bytes, at)?;
                let mut line = first;
                loop {
                    line += bytes[line..end].iter().position(|&b| b == b'\n')? + 1;
                    let have = lead(line);
                    let blank = matches!(bytes.get(line + have), Some(b'\n' | b'\r'));
                    if !blank && have < want {
                        return Some(vec![(line, want - have)]);
                    }
                }
            }
            _ => None,
        }
    }

    /// Reword a saphyr error as libyaml would have reported it.
    fn scan_error(&self, e: &ScanError) -> YamlError {
        let at = self.text.byte(e.marker().index());
        let src = self.text.src;
        let span = at..self.char_end(at);
        let info = e.info();
        // Salt prints only the problem of a ScannerError.
        let scanner_at =
            |problem: &str, at: usize| err(problem.to_string(), at..self.char_end(at), None);
        let scanner = |problem: &str| scanner_at(problem, at);
        let next_tab = || src[at.min(src.len())..].find('\t').map_or(at, |p| at + p);
        let open_flow = self.stack.iter().rev().find(|o| o.flow && !o.implicit);
        match info {
            "tabs disallowed within this context (block indentation)"
            | "tabs disallowed in this context"
            | "tab cannot be used as indentation" => {
                scanner("found character that cannot start any token")
            }
            s if s.starts_with("unexpected character:") => {
                scanner("found character that cannot start any token")
            }
            // saphyr-parser counts flow levels in a byte; PyYAML goes on to
            // about 500 (docs/COMPATIBILITY.md, "YAML").
            "recursion limit exceeded" => scanner(
                "flow collections ([...] and {...}) nested more than 255 deep: lowstate's YAML parser stops there",
            ),
            "mapping values are not allowed in this context"
            | "block sequence entries are not allowed in this context"
            | "mapping keys are not allowed in this context" => scanner(info),
            "a block scalar content cannot start with a tab" => scanner_at(
                "found a tab character where an indentation space is expected",
                next_tab(),
            ),
            "while scanning a plain scalar, found a tab" => {
                scanner_at("found a tab character that violates indentation", next_tab())
            }
            "simple key expect ':'" | "simple key expected" => {
                scanner("could not find expected ':'")
            }
            "while scanning an anchor or alias, did not find expected alphabetic or numeric character" => {
                scanner_at(
                    "did not find expected alphabetic or numeric character",
                    self.char_end(at),
                )
            }
            "while parsing node, found unknown anchor" => match self.check_name(at, false) {
                Some(e) => e,
                None => self.undefined_alias(at),
            },
            "while parsing a quoted scalar, did not find expected hexadecimal number" => {
                scanner("did not find expected hexdecimal number")
            }
            "invalid trailing content after double-quoted scalar" if open_flow.is_none() => {
                scanner("could not find expected ':'")
            }
            "did not find expected <document start>" | "did not find expected <document-start>" => {
                err(
                    marked(&self.text, None, "did not find expected <document start>", Some(at)),
                    span,
                    None,
                )
            }
            s if s.starts_with("while scanning ")
                || s.starts_with("while parsing a tag")
                || s.starts_with("while parsing a quoted scalar") =>
            {
                scanner(s.split_once(", ").map_or(s, |(_, p)| p))
            }
            "while parsing a node, did not find expected node content" => self.node_content(at, open_flow.is_some()),
            "misplaced bracket"
                if open_flow.is_none()
                    && self.stack.last().is_none_or(|o| o.pending_key.is_some()) =>
            {
                self.node_content(at, false)
            }
            "while parsing a block mapping, did not find expected key"
            | "while parsing a block collection, did not find expected '-' indicator"
            | "while parsing a flow sequence, expected ',' or ']'"
            | "while parsing a flow mapping, did not find expected ',' or '}'"
            | "invalid indentation"
            | "invalid indentation in flow construct"
            | "illegal placement of ':' indicator"
            | "misplaced bracket"
            | "invalid trailing content after double-quoted scalar" => {
                let open = match open_flow {
                    Some(o) => Some(o),
                    None => self.stack.last(),
                };
                match open {
                    Some(open) => {
                        let (ctx, problem) = match (open.flow, open.is_map) {
                            (true, false) => ("while parsing a flow sequence", "did not find expected ',' or ']'"),
                            (true, true) => ("while parsing a flow mapping", "did not find expected ',' or '}'"),
                            (false, true) => ("while parsing a block mapping", "did not find expected key"),
                            (false, false) => ("while parsing a block collection", "did not find expected '-' indicator"),
                        };
                        err(
                            marked(&self.text, Some((ctx, Some(open.token))), problem, Some(at)),
                            span,
                            Some(open.token),
                        )
                    }
                    None => scanner(info),
                }
            }
            _ => scanner(info),
        }
    }

    fn node_content(&self, at: usize, flow: bool) -> YamlError {
        let ctx = if flow {
            "while parsing a flow node"
        } else {
            "while parsing a block node"
        };
        err(
            marked(
                &self.text,
                Some((ctx, Some(at))),
                "did not find expected node content",
                Some(at),
            ),
            at..self.char_end(at),
            None,
        )
    }

    /// libyaml rejects tabs that saphyr accepts: a tab where a token may
    /// start at the beginning of a line in block context ("found character
    /// that cannot start any token"), and a tab in the leading blanks of a
    /// line that continues (or follows) a plain scalar left of its
    /// indentation. Returns the first violation before `limit`.
    fn tab_violation(&self, limit: usize) -> Option<YamlError> {
        let src = self.text.src.as_bytes();
        if !src.contains(&b'\t') {
            return None;
        }
        let inside =
            |ranges: &[(usize, usize)], p: usize| ranges.iter().any(|&(s, e)| s < p && p < e);
        let blank_run_end = |mut end: usize| {
            while end < src.len() && matches!(src[end], b' ' | b'\t' | b'\n' | b'\r') {
                end += 1;
            }
            end
        };
        // Plain and block scalars with the whitespace run that follows them.
        let plains: Vec<(usize, usize, isize)> = self
            .plains
            .iter()
            .map(|&(s, e, indent)| (s, blank_run_end(e), indent))
            .collect();
        let blocks: Vec<(usize, usize)> = self
            .blocks
            .iter()
            .map(|&(s, e)| (s, blank_run_end(e.saturating_sub(1))))
            .collect();
        let violation = |msg: &str, at: usize| Some(err(msg.into(), at..at + 1, None));
        let mut line_start = 0;
        while line_start < src.len() && line_start <= limit {
            let mut p = line_start;
            while p < src.len() && src[p] == b' ' {
                p += 1;
            }
            if p < src.len() && p <= limit && !inside(&self.exempt, p) {
                if let Some(&(_, _, indent)) = plains.iter().find(|&&(s, e, _)| s < p && p < e) {
                    // Leading blanks of a plain scalar's continuation line.
                    let mut q = p;
                    while q < src.len() && matches!(src[q], b' ' | b'\t') {
                        if src[q] == b'\t' && ((q - line_start) as isize) < indent + 1 {
                            return violation("found a tab character that violates indentation", q);
                        }
                        q += 1;
                    }
                } else if src[p] == b'\t' {
                    if inside(&blocks, p) {
                        return violation(
                            "found a tab character where an indentation space is expected",
                            p,
                        );
                    }
                    return violation("found character that cannot start any token", p);
                } else {
                    // After `- ` or `? ` indicators a token may start: no tabs.
                    while p + 1 < src.len()
                        && matches!(src[p], b'-' | b'?')
                        && matches!(src[p + 1], b' ' | b'\t')
                    {
                        p += 1;
                        while p < src.len() && matches!(src[p], b' ' | b'\t') {
                            if src[p] == b'\t' && p <= limit {
                                return violation("found character that cannot start any token", p);
                            }
                            p += 1;
                        }
                    }
                }
            }
            match src[line_start..].iter().position(|&b| b == b'\n') {
                Some(n) => line_start += n + 1,
                None => break,
            }
        }
        None
    }
}

/// Where the `[` / `{` of a collection start event spanning `start..end`
/// is, if it is a flow collection (skipping the anchor and tag before it).
fn flow_token(src: &[u8], start: usize, end: usize) -> Option<usize> {
    let end = end.min(src.len());
    let mut p = start;
    while p < end {
        match src[p] {
            b'[' | b'{' => return Some(p),
            b'&' | b'!' => {
                while p < end && !matches!(src[p], b' ' | b'\t' | b'\n' | b'\r') {
                    p += 1;
                }
            }
            b' ' | b'\t' | b'\n' | b'\r' => p += 1,
            b'#' => {
                while p < end && src[p] != b'\n' {
                    p += 1;
                }
            }
            _ => return None,
        }
    }
    None
}

/// The `:` of a flow mapping entry whose key starts at `key_at` and ends
/// at `key_end` (its value starting at `value_at`), when libyaml cannot
/// take that key for a simple key: the `:` is on a later line or more
/// than 1024 characters on, and no `?` introduced the key.
fn far_flow_key(src: &str, key_at: usize, key_end: usize, value_at: usize) -> Option<usize> {
    let bytes = src.as_bytes();
    let mut p = key_end;
    while p < value_at.min(bytes.len()) {
        match bytes[p] {
            b' ' | b'\t' | b'\n' | b'\r' => p += 1,
            b'#' => {
                p += bytes[p..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .unwrap_or(bytes.len() - p)
            }
            _ => break,
        }
    }
    if bytes.get(p) != Some(&b':') || key_at >= p {
        return None;
    }
    let between = &src[key_at..p];
    let far = between.len() > 1024 && between.chars().count() > 1024;
    if !far && !between.contains(['\n', '\r']) {
        return None;
    }
    (!after_key_indicator(bytes, key_at)).then_some(p)
}

/// A block scalar that is the whole document, as libyaml reads it.
enum TopBlock {
    /// Its first line with content is not indented: libyaml wants at least
    /// one space of indentation there, so the scalar is empty, the value
    /// given, and comments alone follow from `at`.
    Empty { at: usize, value: String },
    /// As for `Empty`, but content follows at `at`: "did not find expected
    /// <document start>".
    DocumentStart(usize),
    /// As for `Empty`, but a `---` follows at `at`: "expected a single
    /// document in the stream" (the scalar's header at `first`).
    AnotherDocument { first: usize, at: usize },
}

/// For a block scalar that is the document's root (saphyr's span
/// `start..end`: from its tag or anchor if it has one, else from its first
/// content line): libyaml indents its content at least one column, saphyr
/// reads lines at column 0 too. `None` when the two agree (content
/// indented, or a document marker, or a tab, which both refuse).
fn top_block_cut(bytes: &[u8], start: usize, end: usize) -> Option<TopBlock> {
    let line_start = |p: usize| line_start_before(bytes, p, Breaks::Newline);
    let tok = node_token(bytes, start, end);
    // The header's line: from the indicator, or the last line before the
    // first content line that is not blank.
    let header = if matches!(bytes.get(tok), Some(b'|' | b'>')) {
        line_start(tok)
    } else {
        let mut line = line_start(start.min(bytes.len()));
        loop {
            if line == 0 {
                return None;
            }
            let prev = line_start(line - 1);
            if bytes[prev..line]
                .iter()
                .all(|b| matches!(b, b' ' | b'\n' | b'\r'))
            {
                line = prev;
            } else {
                break prev;
            }
        }
    };
    let header_end = header + bytes[header..].iter().position(|&b| b == b'\n')?;
    // The indicator: the header line's last word before any comment.
    let head = std::str::from_utf8(&bytes[header..header_end]).ok()?;
    let head = head.split(" #").next()?.trim_end();
    let word = head.rfind([' ', '\t']).map_or(0, |p| p + 1);
    if !head[word..].starts_with(['|', '>']) {
        return None;
    }
    let keep = head[word..].contains('+');
    // libyaml's mark for the node: its properties, else the indicator.
    let first = if tok == start { header + word } else { start };
    let mut line = header_end + 1;
    let mut breaks = 0;
    let content = loop {
        let spaces = bytes[line..].iter().take_while(|&&b| b == b' ').count();
        match bytes.get(line + spaces) {
            None => return None,
            Some(b'\n') if spaces == 0 => {
                breaks += 1;
                line += 1;
            }
            Some(b'\r') if spaces == 0 && bytes.get(line + 1) == Some(&b'\n') => {
                breaks += 1;
                line += 2;
            }
            _ if spaces > 0 => return None,
            _ => break line,
        }
    };
    if matches!(bytes[content], b'\t' | b'\r') {
        return None;
    }
    if document_marker(bytes, content) == Some(b'-') {
        return Some(TopBlock::AnotherDocument { first, at: content });
    }
    // Comments and blank lines only, to the end (or a document marker)?
    let mut p = content;
    while p < bytes.len() {
        let q = p + bytes[p..]
            .iter()
            .take_while(|&&b| matches!(b, b' ' | b'\t'))
            .count();
        match bytes.get(q) {
            None | Some(b'\n' | b'\r' | b'#') => {}
            _ if q == p && document_marker(bytes, p).is_some() => break,
            _ => return Some(TopBlock::DocumentStart(q)),
        }
        p = match bytes[q..].iter().position(|&b| b == b'\n') {
            Some(n) => q + n + 1,
            None => bytes.len(),
        };
    }
    let value = if keep {
        "\n".repeat(breaks)
    } else {
        String::new()
    };
    Some(TopBlock::Empty { at: content, value })
}

/// The `-` of a `---` or the `.` of a `...` document marker at byte `p`
/// (followed by a blank, a line break or the end).
fn document_marker(bytes: &[u8], p: usize) -> Option<u8> {
    let rest = bytes.get(p..)?;
    ((rest.starts_with(b"---") || rest.starts_with(b"..."))
        && matches!(rest.get(3), None | Some(b' ' | b'\t' | b'\n' | b'\r')))
    .then(|| rest[0])
}

/// A `...` document end marker before the stream's first document (only
/// blank and comment lines before it): libyaml starts an implicit
/// document there and finds no node in it ("did not find expected node
/// content"); saphyr skips the marker. Its offset.
fn leading_document_end(bytes: &[u8]) -> Option<usize> {
    let mut line = if bytes.starts_with("\u{feff}".as_bytes()) {
        3
    } else {
        0
    };
    while line < bytes.len() {
        if document_marker(bytes, line) == Some(b'.') {
            return Some(line);
        }
        let text = bytes[line..]
            .iter()
            .position(|&b| !matches!(b, b' ' | b'\t'));
        match text.map(|p| bytes[line + p]) {
            None => return None,
            Some(b'\n' | b'\r' | b'#') => {}
            Some(_) => return None,
        }
        line += bytes[line..].iter().position(|&b| b == b'\n')? + 1;
    }
    None
}

/// The indentation of the block scalar spanning `start..end` (saphyr's
/// span: from its tag or anchor if it has one, else from its first content
/// line): the leading spaces of its first line with content.
fn block_indent(bytes: &[u8], start: usize, end: usize) -> usize {
    let tok = node_token(bytes, start, end);
    let first = if matches!(bytes.get(tok), Some(b'|' | b'>')) {
        let mut line = match bytes[tok..].iter().position(|&b| b == b'\n') {
            Some(p) => tok + p + 1,
            None => return 0,
        };
        loop {
            let spaces = bytes[line..].iter().take_while(|&&b| b == b' ').count();
            match bytes.get(line + spaces) {
                Some(b'\n') => line += spaces + 1,
                Some(b'\r') if bytes.get(line + spaces + 1) == Some(&b'\n') => line += spaces + 2,
                _ => return spaces,
            }
        }
    } else {
        start.min(bytes.len())
    };
    first - line_start_before(bytes, first, Breaks::Newline)
}

/// Which bytes end a line for [`line_start_before`].
#[derive(Clone, Copy)]
enum Breaks {
    /// `\n` only (a `\r\n` pair ends at its `\n`).
    Newline,
    /// `\n` or a lone `\r` too, as libyaml reads line breaks.
    NewlineOrReturn,
}

/// Where the line holding byte `p` starts, found by scanning back from `p`
/// (these checks look at one line near a node, where building the text's
/// line index would cost more than the scan).
fn line_start_before(bytes: &[u8], p: usize, breaks: Breaks) -> usize {
    let p = p.min(bytes.len());
    let found = match breaks {
        Breaks::Newline => bytes[..p].iter().rposition(|&b| b == b'\n'),
        Breaks::NewlineOrReturn => bytes[..p].iter().rposition(|&b| b == b'\n' || b == b'\r'),
    };
    found.map_or(0, |n| n + 1)
}

/// Whether the last thing before `at` (blanks and comments skipped) is a
/// `?` key indicator. A `#` after a blank starts a comment unless a quote
/// comes before it on its line (then the line is taken whole, as before).
fn after_key_indicator(bytes: &[u8], at: usize) -> bool {
    let mut end = at.min(bytes.len());
    loop {
        let line = line_start_before(bytes, end, Breaks::NewlineOrReturn);
        let text = &bytes[line..end];
        let quoted = |upto: usize| text[..upto].iter().any(|&b| b == b'\'' || b == b'"');
        let comment = (0..text.len()).find(|&i| {
            text[i] == b'#' && (i == 0 || matches!(text[i - 1], b' ' | b'\t')) && !quoted(i)
        });
        let text = &text[..comment.unwrap_or(text.len())];
        if let Some(&last) = text.iter().rev().find(|&&b| !matches!(b, b' ' | b'\t')) {
            return last == b'?';
        }
        if line == 0 {
            return false;
        }
        end = line - 1;
    }
}

/// What libyaml objects to in a plain scalar of a flow collection.
enum FlowPlain {
    /// `|` or `>` starts it: "found character that cannot start any token".
    CannotStart(usize),
    /// A `:` with no node before it (an empty key, or a `:` starting the
    /// scalar): "did not find expected node content".
    NoNode(usize),
    /// A `:` after it followed by `,` `?` `[` `]` `{` `}`: "found
    /// unexpected ':'".
    Colon(usize),
}

/// Plain scalars of a flow collection that libyaml reads otherwise than
/// saphyr (YAML 1.2): `|` and `>` cannot start one; a `:` starting one is
/// a value indicator with no node before it, and so is the `:` of an empty
/// key not introduced by `?` (`[: x]`, `{a: :b}`); libyaml 0.2.5 refuses a
/// `:` followed by `,` `?` `[` `]` `{` `}` while it scans a plain scalar,
/// blanks and line breaks after the scalar included (`[a:]`, `[a :]`).
/// `key` says the scalar is in a mapping's key position.
fn flow_plain_problem(
    bytes: &[u8],
    start: usize,
    end: usize,
    value: &str,
    key: bool,
) -> Option<FlowPlain> {
    if start == end && value.is_empty() {
        return (key && !after_key_indicator(bytes, start) && bytes.get(start) == Some(&b':'))
            .then_some(FlowPlain::NoNode(start));
    }
    let at = node_token(bytes, start, end);
    match bytes.get(at) {
        Some(b'|' | b'>') if value.starts_with(['|', '>']) => {
            return Some(FlowPlain::CannotStart(at))
        }
        Some(b':') if value.starts_with(':') => return Some(FlowPlain::NoNode(at)),
        _ => {}
    }
    let mut p = end;
    while matches!(bytes.get(p), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        p += 1;
    }
    (bytes.get(p) == Some(&b':')
        && matches!(
            bytes.get(p + 1),
            Some(b',' | b'?' | b'[' | b']' | b'{' | b'}')
        ))
    .then_some(FlowPlain::Colon(p))
}

/// Where the node spanning `start..end` has its own token: past its
/// anchor and tag (and the blanks and comments after them).
fn node_token(src: &[u8], start: usize, end: usize) -> usize {
    let end = end.min(src.len());
    let mut p = start;
    while p < end {
        match src[p] {
            b'&' | b'!' => {
                while p < end && !matches!(src[p], b' ' | b'\t' | b'\n' | b'\r') {
                    p += 1;
                }
            }
            b' ' | b'\t' | b'\n' | b'\r' => p += 1,
            b'#' if p > start => {
                while p < end && src[p] != b'\n' {
                    p += 1;
                }
            }
            _ => return p,
        }
    }
    p
}

/// libyaml's reader refuses control characters (a `ReaderError`).
fn reader_error(src: &str) -> Option<YamlError> {
    // Fast path: printable ASCII, tabs and line breaks only.
    // (Counted without early exit, so the loop vectorises.)
    let bad = src
        .bytes()
        .filter(|&b| !matches!(b, b'\t' | b'\n' | b'\r' | 0x20..=0x7E))
        .count();
    if bad == 0 {
        return None;
    }
    let (pos, c) = src.char_indices().find(|&(_, c)| {
        let v = c as u32;
        !(v == 0x09
            || v == 0x0A
            || v == 0x0D
            || (0x20..=0x7E).contains(&v)
            || v == 0x85
            || (0xA0..=0xD7FF).contains(&v)
            || (0xE000..=0xFFFD).contains(&v)
            || v >= 0x10000)
    })?;
    Some(err(
        format!(
            "unacceptable character #x{:04x}: control characters are not allowed\n  in \"<unicode string>\", position {pos}",
            c as u32
        ),
        pos..pos + c.len_utf8(),
        None,
    ))
}

/// How far one document may go: nesting depth and nodes built (aliases
/// expanded: a guard against "billion laughs" documents, which PyYAML
/// shares instead of copying). From [`super::LoadOptions`], i.e. the
/// `yaml-depth` and `yaml-nodes` limits.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bounds {
    /// Nesting depth.
    pub(super) depth: usize,
    /// Nodes built, aliases expanded (at least four times the document's own).
    pub(super) nodes: usize,
}

/// Parse and compose the single document of `src`.
/// Compose `src`. When it fails on a line of a flow collection indented
/// less than saphyr wants, `pad` says how to indent that line (see
/// [`Composer::flow_pad`]).
fn compose(
    text: Text,
    pad: &mut Vec<(usize, usize)>,
    untab: &mut Option<usize>,
    bounds: Bounds,
) -> Result<(Vec<Raw>, Option<Id>), YamlError> {
    let src = text.src;
    if let Some(e) = reader_error(src) {
        return Err(e);
    }
    if let Some(marks) = text.marks {
        marks.borrow_mut().clear();
    }
    let mut c = Composer {
        text,
        max_depth: bounds.depth,
        nodes: Vec::new(),
        stack: Vec::new(),
        anchors: HashMap::new(),
        anchor_names: HashMap::new(),
        root: None,
        exempt: Vec::new(),
        plains: Vec::new(),
        blocks: Vec::new(),
        has_tab: src.as_bytes().contains(&b'\t'),
    };
    if let Some(at) = leading_document_end(src.as_bytes()) {
        return Err(c.node_content(at, false));
    }
    let mut parser = Parser::new_from_str(src);
    let mut documents = 0;
    // Where the last event ended (the scanner may be further on).
    let mut last_end = 0;
    loop {
        let (ev, span) = match parser.next_event() {
            None => break,
            Some(Ok(x)) => {
                last_end = c.text.byte(x.1.end.index());
                x
            }
            Some(Err(e)) => {
                let at = c.text.byte(e.marker().index());
                if e.info() == "tab cannot be used as indentation" {
                    // Inside a quoted scalar (see [`quoted_tab_fix`]).
                    *untab = Some(at);
                }
                if let Some(tab) = c.tab_violation(at) {
                    return Err(tab);
                }
                *pad = c.flow_pad(e.info(), at, last_end);
                return Err(c.scan_error(&e));
            }
        };
        match ev {
            Event::StreamEnd => break,
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    let at = c.text.byte(span.start.index());
                    if let Some(tab) = c.tab_violation(at) {
                        return Err(tab);
                    }
                    let first = c.root.map_or(0, |r| c.nodes[r].start);
                    return Err(err(
                        marked(
                            &c.text,
                            Some(("expected a single document in the stream", Some(first))),
                            "but found another document",
                            Some(at),
                        ),
                        at..c.char_end(at),
                        Some(first),
                    ));
                }
            }
            Event::Scalar(value, style, anchor, tag) => {
                let mut value = owned(value);
                let at = (
                    c.text.byte(span.start.index()),
                    c.text.byte(span.end.index()),
                );
                eof_block_scalar(src, at, style, &mut value);
                c.scalar(&span, value, style, anchor, tag.as_deref())?
            }
            Event::SequenceStart(anchor, tag) => c.open(&span, anchor, tag.as_deref(), false)?,
            Event::MappingStart(anchor, tag) => c.open(&span, anchor, tag.as_deref(), true)?,
            Event::SequenceEnd | Event::MappingEnd => c.close(&span),
            Event::Alias(anchor) => c.alias(&span, anchor)?,
            Event::Nothing | Event::StreamStart | Event::DocumentEnd => {}
        }
    }
    if let Some(tab) = c.tab_violation(usize::MAX) {
        return Err(tab);
    }
    Ok((c.nodes, c.root))
}

/// A constructed key compared as Python compares dict keys (`1 == 1.0 == True`).
enum PyKey<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Cow<'a, str>),
}

impl<'a> PyKey<'a> {
    /// The key a constructed scalar node (with raw text `text`) stands for.
    fn new(text: &'a str, cons: &Option<Cons>) -> Self {
        match cons {
            Some(Cons::Text) => PyKey::Str(Cow::Borrowed(text)),
            None | Some(Cons::Value(Scalar::Null)) => PyKey::Null,
            Some(Cons::Value(Scalar::Bool(b))) => PyKey::Bool(*b),
            Some(Cons::Value(Scalar::Int(i))) => PyKey::Int(*i),
            Some(Cons::Value(Scalar::Float(f))) => PyKey::Float(*f),
            Some(Cons::Value(Scalar::Str(s))) => PyKey::Str(Cow::Owned(s.clone())),
        }
    }

    fn number(&self) -> Option<f64> {
        match *self {
            PyKey::Bool(b) => Some(b as i64 as f64),
            PyKey::Int(i) => Some(i as f64),
            PyKey::Float(f) => Some(f),
            _ => None,
        }
    }

    fn to_value(&self) -> crate::value::Value {
        use crate::value::Value;
        match self {
            PyKey::Null => Value::Null,
            PyKey::Bool(b) => Value::Bool(*b),
            PyKey::Int(i) => Value::Int(*i),
            PyKey::Float(f) => Value::Float(*f),
            PyKey::Str(s) => Value::Str((&**s).into()),
        }
    }
}

impl PartialEq for PyKey<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (PyKey::Null, PyKey::Null) => true,
            (PyKey::Str(a), PyKey::Str(b)) => a == b,
            (PyKey::Int(a), PyKey::Int(b)) => a == b,
            // Salt's loader returns the same NaN object every time, so two
            // `.nan` keys collide.
            (PyKey::Float(a), PyKey::Float(b)) if a.is_nan() && b.is_nan() => true,
            _ => match (self.number(), other.number()) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            },
        }
    }
}
impl Eq for PyKey<'_> {}

impl Hash for PyKey<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            PyKey::Null => 0u8.hash(state),
            PyKey::Str(s) => s.hash(state),
            _ => match self.number() {
                Some(f) if f.fract() == 0.0 && f.abs() < 9.0e18 => (f as i64).hash(state),
                Some(f) if f.is_nan() => 1u8.hash(state),
                Some(f) => f.to_bits().hash(state),
                None => {}
            },
        }
    }
}

/// The keys of one mapping seen so far: a short list scanned linearly, a
/// hash map once it grows.
struct SeenKeys<'a> {
    few: Vec<(PyKey<'a>, Id)>,
    many: HashMap<PyKey<'a>, Id, foldhash::fast::FixedState>,
}

impl<'a> SeenKeys<'a> {
    const FEW: usize = 12;

    fn new(len: usize) -> Self {
        if len <= Self::FEW {
            SeenKeys {
                few: Vec::with_capacity(len),
                many: HashMap::default(),
            }
        } else {
            SeenKeys {
                few: Vec::new(),
                many: HashMap::with_capacity_and_hasher(len, Default::default()),
            }
        }
    }

    /// Record `key` (node `id`), or return the node that already had it.
    fn insert(&mut self, key: PyKey<'a>, id: Id, len: usize) -> Option<Id> {
        if len <= Self::FEW {
            if let Some(&(_, first)) = self.few.iter().find(|(k, _)| *k == key) {
                return Some(first);
            }
            self.few.push((key, id));
            None
        } else {
            match self.many.entry(key) {
                std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(id);
                    None
                }
            }
        }
    }
}

/// A constructed scalar.
#[derive(Debug, Clone)]
enum Cons {
    /// A string: the raw node's text, unchanged.
    Text,
    Value(Scalar),
}

/// The parts of the [`Constructor`] that visiting a node changes, apart
/// from the node graph (so keys can borrow the graph meanwhile).
struct Visitor<'n, 't> {
    nodes: &'n [Raw],
    text: &'n Text<'t>,
    scalars: &'n mut [Option<Cons>],
    queued: &'n mut [bool],
}

impl Visitor<'_, '_> {
    /// `construct_object(node, deep=False)`: scalars now, collections later.
    fn visit(&mut self, id: Id, queue: &mut VecDeque<Id>) -> Result<(), YamlError> {
        match &self.nodes[id].kind {
            RawKind::Scalar { text, tag, .. } => {
                if self.scalars[id].is_some() {
                    return Ok(());
                }
                let start = self.nodes[id].start;
                let value = match tag {
                    // Strings stay in the node: nothing to construct.
                    ScalarTag::Str | ScalarTag::Timestamp => {
                        self.scalars[id] = Some(Cons::Text);
                        return Ok(());
                    }
                    ScalarTag::Other(t) if t.strip_prefix(CORE) == Some("seq") => {
                        Err(ConstructFail::Constructor(
                            "expected a sequence node, but found scalar".into(),
                        ))
                    }
                    ScalarTag::Other(t)
                        if matches!(t.strip_prefix(CORE), Some("map" | "omap" | "set")) =>
                    {
                        Err(ConstructFail::Constructor(
                            "expected a mapping node, but found scalar".into(),
                        ))
                    }
                    _ => resolve::construct(tag, text),
                };
                match value {
                    Ok(v) => self.scalars[id] = Some(Cons::Value(v)),
                    Err(ConstructFail::Constructor(problem)) => {
                        return Err(constructor_error(
                            self.nodes, self.text, &problem, start, None,
                        ))
                    }
                    Err(ConstructFail::Python(message)) => {
                        let end = self.nodes[id].end.max(start + 1).min(self.text.src.len());
                        return Err(err(message, start..end, None));
                    }
                }
            }
            RawKind::Seq { .. } | RawKind::Map { .. } => {
                if !self.queued[id] {
                    self.queued[id] = true;
                    queue.push_back(id);
                }
            }
        }
        Ok(())
    }
}

/// A `ConstructorError` at `at` (with the mapping start `ctx`).
fn constructor_error(
    nodes: &[Raw],
    text: &Text,
    problem: &str,
    at: usize,
    ctx: Option<usize>,
) -> YamlError {
    let context = ctx.map(|c| ("while constructing a mapping", Some(c)));
    let end = nodes
        .iter()
        .find(|n| n.start == at)
        .map_or(at + 1, |n| n.end.max(at + 1))
        .min(text.src.len().max(at));
    err(marked(text, context, problem, Some(at)), at..end, ctx)
}

/// What a collection node is constructed as.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    Seq,
    Map,
}

/// Salt's constructors applied to the composed graph.
struct Constructor<'a> {
    text: &'a Text<'a>,
    /// The `yaml-depth` limit (merge keys).
    max_depth: usize,
    nodes: Vec<Raw>,
    scalars: Vec<Option<Cons>>,
    queued: Vec<bool>,
}

impl<'a> Constructor<'a> {
    fn constructor_error(&self, problem: &str, at: usize, ctx: Option<usize>) -> YamlError {
        constructor_error(&self.nodes, self.text, problem, at, ctx)
    }

    /// How a collection node's tag constructs it, or the error it raises.
    fn shape(&self, id: Id) -> Result<Shape, YamlError> {
        let node = &self.nodes[id];
        let tag = match &node.kind {
            RawKind::Seq { tag, .. } | RawKind::Map { tag, .. } => tag.as_deref(),
            RawKind::Scalar { .. } => None,
        };
        let found = node.id_name();
        let default = if matches!(node.kind, RawKind::Map { .. }) {
            Shape::Map
        } else {
            Shape::Seq
        };
        let Some(tag) = tag else { return Ok(default) };
        let wanted = match tag.strip_prefix(CORE) {
            Some("seq") => Shape::Seq,
            Some("map") | Some("omap") | Some("set") => Shape::Map,
            Some("str")
            | Some("python/unicode")
            | Some("int")
            | Some("float")
            | Some("bool")
            | Some("null")
            | Some("timestamp")
            | Some("binary") => {
                return Err(self.constructor_error(
                    &format!("expected a scalar node, but found {found}"),
                    node.start,
                    None,
                ));
            }
            _ => {
                return Err(self.constructor_error(
                    &format!(
                        "could not determine a constructor for the tag {}",
                        py_str_repr(tag)
                    ),
                    node.start,
                    None,
                ));
            }
        };
        if wanted != default {
            let what = if wanted == Shape::Map {
                "mapping"
            } else {
                "sequence"
            };
            return Err(self.constructor_error(
                &format!("expected a {what} node, but found {found}"),
                node.start,
                None,
            ));
        }
        Ok(wanted)
    }

    /// `construct_object(node, deep=False)`: scalars now, collections later.
    fn visit(&mut self, id: Id, queue: &mut VecDeque<Id>) -> Result<(), YamlError> {
        let mut v = Visitor {
            nodes: &self.nodes,
            text: self.text,
            scalars: &mut self.scalars,
            queued: &mut self.queued,
        };
        v.visit(id, queue)
    }

    fn pairs(&self, id: Id) -> Vec<(Id, Id)> {
        match &self.nodes[id].kind {
            RawKind::Map { pairs, .. } => pairs.clone(),
            _ => Vec::new(),
        }
    }

    fn is_merge_key(&self, id: Id) -> bool {
        matches!(
            &self.nodes[id].kind,
            RawKind::Scalar {
                tag: ScalarTag::Merge,
                ..
            }
        )
    }

    /// Salt's `flatten_mapping`: merged entries first (minus keys written
    /// explicitly), then the mapping's own entries.
    fn flatten(&mut self, id: Id, depth: usize) -> Result<(), YamlError> {
        if depth > self.max_depth {
            return Err(self.constructor_error(
                "merge keys nested too deeply",
                self.nodes[id].start,
                None,
            ));
        }
        let (len, has_merge) = match &self.nodes[id].kind {
            RawKind::Map { pairs, .. } => (
                pairs.len(),
                pairs.iter().any(|&(k, _)| self.is_merge_key(k)),
            ),
            _ => (0, false),
        };
        if !has_merge {
            // The common case: only the `=` keys to turn into strings.
            for i in 0..len {
                let k = match &self.nodes[id].kind {
                    RawKind::Map { pairs, .. } => pairs[i].0,
                    _ => break,
                };
                if let RawKind::Scalar { tag, .. } = &mut self.nodes[k].kind {
                    if *tag == ScalarTag::Value {
                        *tag = ScalarTag::Str;
                    }
                }
            }
            return Ok(());
        }
        let mut pairs = self.pairs(id);
        let mut merge: Vec<(Id, Id)> = Vec::new();
        let map_start = self.nodes[id].start;
        let mut index = 0;
        while index < pairs.len() {
            let (k, v) = pairs[index];
            if self.is_merge_key(k) {
                pairs.remove(index);
                // PyYAML deletes the merge key from the node itself before
                // it flattens the merged mapping, so a mapping that merges
                // itself (`<<: *o` inside `&o`) sees no merge key there
                // and stops; so must we (else each level doubles the work).
                if let RawKind::Map { pairs: p, .. } = &mut self.nodes[id].kind {
                    p.clone_from(&pairs);
                }
                match &self.nodes[v].kind {
                    RawKind::Map { .. } => {
                        self.flatten(v, depth + 1)?;
                        merge.extend(self.pairs(v));
                    }
                    RawKind::Seq { items, .. } => {
                        let items = items.clone();
                        let mut submerge = Vec::new();
                        for sub in items {
                            if !matches!(self.nodes[sub].kind, RawKind::Map { .. }) {
                                return Err(self.constructor_error(
                                    &format!(
                                        "expected a mapping for merging, but found {}",
                                        self.nodes[sub].id_name()
                                    ),
                                    self.nodes[sub].start,
                                    Some(map_start),
                                ));
                            }
                            self.flatten(sub, depth + 1)?;
                            submerge.push(self.pairs(sub));
                        }
                        for value in submerge.into_iter().rev() {
                            merge.extend(value);
                        }
                    }
                    RawKind::Scalar { .. } => {
                        return Err(self.constructor_error(
                            "expected a mapping or list of mappings for merging, but found scalar",
                            self.nodes[v].start,
                            Some(map_start),
                        ));
                    }
                }
            } else {
                if let RawKind::Scalar { tag, .. } = &mut self.nodes[k].kind {
                    if *tag == ScalarTag::Value {
                        *tag = ScalarTag::Str;
                    }
                }
                index += 1;
            }
        }
        if !merge.is_empty() {
            // Salt compares the keys' raw node values, not the constructed keys.
            let existing: HashSet<RawKey> = pairs.iter().map(|&(k, _)| self.raw_key(k)).collect();
            let mut merged: Vec<(Id, Id)> = merge
                .into_iter()
                .filter(|&(k, _)| !existing.contains(&self.raw_key(k)))
                .collect();
            // These entries now also belong to this mapping.
            for &(k, v) in &merged {
                self.nodes[k].shared = true;
                self.nodes[v].shared = true;
            }
            merged.extend(pairs);
            pairs = merged;
        }
        if let RawKind::Map { pairs: p, .. } = &mut self.nodes[id].kind {
            *p = pairs;
        }
        Ok(())
    }

    fn raw_key(&self, id: Id) -> RawKey {
        match &self.nodes[id].kind {
            RawKind::Scalar { text, .. } => RawKey::Text(text.clone()),
            _ => RawKey::Node(id),
        }
    }

    /// Construct breadth first, as PyYAML runs its deferred generators, so
    /// the first error reported is the one Salt reports.
    fn run(&mut self, root: Id) -> Result<(), YamlError> {
        let mut queue = VecDeque::new();
        self.visit(root, &mut queue)?;
        while let Some(id) = queue.pop_front() {
            match self.shape(id)? {
                Shape::Seq => {
                    let nodes = &self.nodes;
                    let mut v = Visitor {
                        nodes,
                        text: self.text,
                        scalars: &mut self.scalars,
                        queued: &mut self.queued,
                    };
                    if let RawKind::Seq { items, .. } = &nodes[id].kind {
                        for &item in items {
                            v.visit(item, &mut queue)?;
                        }
                    }
                }
                Shape::Map => self.construct_mapping(id, &mut queue)?,
            }
        }
        Ok(())
    }

    fn construct_mapping(&mut self, id: Id, queue: &mut VecDeque<Id>) -> Result<(), YamlError> {
        self.flatten(id, 0)?;
        let map_start = self.nodes[id].start;
        let nodes = &self.nodes;
        let RawKind::Map { pairs, .. } = &nodes[id].kind else {
            return Ok(());
        };
        let mut v = Visitor {
            nodes,
            text: self.text,
            scalars: &mut self.scalars,
            queued: &mut self.queued,
        };
        let mut seen = SeenKeys::new(pairs.len());
        for &(k, val) in pairs {
            let RawKind::Scalar { text, .. } = &nodes[k].kind else {
                // A collection key: constructing it can fail first, else it is unhashable.
                self.shape(k)?;
                let problem = format!("found unacceptable key {}", self.node_value_repr(k, 0));
                let mut e = self.constructor_error(&problem, nodes[k].start, Some(map_start));
                e.kind = YamlErrorKind::UnhashableKey;
                return Err(e);
            };
            v.visit(k, queue)?;
            v.visit(val, queue)?;
            let duplicate = seen.insert(PyKey::new(text, &v.scalars[k]), k, pairs.len());
            if let Some(first) = duplicate.filter(|_| v.text.dialect == Dialect::Salt) {
                let shown = PyKey::new(text, &v.scalars[k]).to_value().py_str();
                let mut e = constructor_error(
                    nodes,
                    self.text,
                    &format!("found conflicting ID {}", quote_id(&shown)),
                    nodes[k].start,
                    Some(map_start),
                );
                e.kind = YamlErrorKind::DuplicateKey;
                e.context = Some(nodes[first].start..nodes[first].end);
                return Err(e);
            }
        }
        Ok(())
    }

    /// PyYAML's `repr(node.value)` (for "found unacceptable key"), cut
    /// short (`...`) after a few hundred nodes: a key may hold a structure
    /// that contains itself or fans out through aliases.
    fn node_value_repr(&self, id: Id, depth: usize) -> String {
        let mut budget = 400usize;
        self.value_repr(id, depth, &mut budget)
    }

    fn value_repr(&self, id: Id, depth: usize, budget: &mut usize) -> String {
        if depth > 50 {
            return "[...]".into();
        }
        if *budget == 0 {
            return "...".into();
        }
        *budget -= 1;
        match &self.nodes[id].kind {
            RawKind::Scalar { text, .. } => py_str_repr(text),
            RawKind::Seq { items, .. } => {
                let parts: Vec<String> = items
                    .iter()
                    .map(|&i| self.node_repr(i, depth + 1, budget))
                    .collect();
                format!("[{}]", parts.join(", "))
            }
            RawKind::Map { pairs, .. } => {
                let parts: Vec<String> = pairs
                    .iter()
                    .map(|&(k, v)| {
                        let k = self.node_repr(k, depth + 1, budget);
                        let v = self.node_repr(v, depth + 1, budget);
                        format!("({k}, {v})")
                    })
                    .collect();
                format!("[{}]", parts.join(", "))
            }
        }
    }

    fn node_repr(&self, id: Id, depth: usize, budget: &mut usize) -> String {
        if *budget == 0 {
            return "...".into();
        }
        let (class, tag) = match &self.nodes[id].kind {
            RawKind::Scalar { tag, .. } => ("ScalarNode", tag.full()),
            RawKind::Seq { tag, .. } => (
                "SequenceNode",
                tag.clone().unwrap_or_else(|| format!("{CORE}seq")),
            ),
            RawKind::Map { tag, .. } => (
                "MappingNode",
                tag.clone().unwrap_or_else(|| format!("{CORE}map")),
            ),
        };
        format!(
            "{class}(tag={}, value={})",
            py_str_repr(&tag),
            self.value_repr(id, depth, budget)
        )
    }
}

/// Salt formats the key with `'{key}'`.
fn quote_id(shown: &str) -> String {
    format!("'{shown}'")
}

#[derive(Hash, PartialEq, Eq)]
enum RawKey {
    Text(String),
    Node(Id),
}

/// Expand the constructed graph into a tree (aliases copied). Strings
/// are moved out of the graph, copied only for nodes reachable twice.
struct Builder {
    nodes: Vec<Raw>,
    scalars: Vec<Option<Cons>>,
    budget: usize,
    active: Vec<bool>,
}

impl Builder {
    /// Build node `id`; `shared` when an enclosing node is reachable twice.
    fn build(&mut self, id: Id, shared: bool) -> Result<Node, YamlError> {
        let node = &mut self.nodes[id];
        let span = node.start..node.end;
        if self.budget == 0 {
            return Err(err(
                "document too large after expanding aliases".into(),
                span,
                None,
            ));
        }
        self.budget -= 1;
        let shared = shared || node.shared;
        let value = match &mut node.kind {
            RawKind::Scalar { text, .. } => match &mut self.scalars[id] {
                Some(Cons::Text) if shared => NodeValue::Str(text.as_str().into()),
                Some(Cons::Text) => NodeValue::Str(std::mem::take(text).into()),
                Some(Cons::Value(Scalar::Str(s))) if shared => NodeValue::Str(s.as_str().into()),
                Some(Cons::Value(Scalar::Str(s))) => NodeValue::Str(std::mem::take(s).into()),
                None | Some(Cons::Value(Scalar::Null)) => NodeValue::Null,
                Some(Cons::Value(Scalar::Bool(b))) => NodeValue::Bool(*b),
                Some(Cons::Value(Scalar::Int(i))) => NodeValue::Int(*i),
                Some(Cons::Value(Scalar::Float(f))) => NodeValue::Float(*f),
            },
            RawKind::Seq { items, .. } => {
                let len = items.len();
                self.enter(id, &span)?;
                let mut out = Vec::with_capacity(len);
                for i in 0..len {
                    let item = match &self.nodes[id].kind {
                        RawKind::Seq { items, .. } => items[i],
                        _ => break,
                    };
                    out.push(self.build(item, shared)?);
                }
                self.active[id] = false;
                NodeValue::List(out)
            }
            RawKind::Map { pairs, .. } => {
                let len = pairs.len();
                self.enter(id, &span)?;
                let mut out = Vec::with_capacity(len);
                for i in 0..len {
                    let (k, v) = match &self.nodes[id].kind {
                        RawKind::Map { pairs, .. } => pairs[i],
                        _ => break,
                    };
                    out.push((self.build(k, shared)?, self.build(v, shared)?));
                }
                self.active[id] = false;
                NodeValue::Map(out)
            }
        };
        Ok(Node { value, span })
    }

    fn enter(&mut self, id: Id, span: &std::ops::Range<usize>) -> Result<(), YamlError> {
        if self.active[id] {
            return Err(err(
                "found a recursive alias (a collection containing itself)".into(),
                span.clone(),
                None,
            ));
        }
        self.active[id] = true;
        Ok(())
    }
}

/// A scalar's text as a string of its own length: the parser's buffers
/// have spare room, and these strings end up in long-lived values.
/// A block scalar whose last line ends the text without a line break:
/// saphyr gives it one `\n` more than PyYAML does (YAML 1.2 rules; Jinja
/// drops a file's last newline, so `import_yaml` of a file ending in a
/// block scalar meets this).
fn eof_block_scalar(
    src: &str,
    (start, end): (usize, usize),
    style: ScalarStyle,
    value: &mut String,
) {
    // A last line of fewer spaces than the indentation is no content line
    // for saphyr either: its `\n` is the line break before it, which stays.
    let short_blank_last_line = || {
        let last = &src[line_start_before(src.as_bytes(), src.len(), Breaks::NewlineOrReturn)..];
        last.bytes().all(|b| b == b' ') && last.len() < block_indent(src.as_bytes(), start, end)
    };
    if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded)
        && end >= src.len()
        && !src.ends_with(['\n', '\r'])
        && value.ends_with('\n')
        && !short_blank_last_line()
    {
        value.pop();
    }
}

fn owned(value: Cow<'_, str>) -> String {
    let mut s = value.into_owned();
    s.shrink_to_fit();
    s
}

/// An open collection on the direct path.
struct Frame {
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
/// what [`load_graph`] gives.
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

/// Whether a mapping's keys (as Python compares them) repeat, or one is a
/// collection.
pub(super) fn has_duplicate_or_collection_key(pairs: &[(Node, Node)]) -> bool {
    fn key(n: &Node) -> Option<PyKey<'_>> {
        Some(match &n.value {
            NodeValue::Null => PyKey::Null,
            NodeValue::Bool(b) => PyKey::Bool(*b),
            NodeValue::Int(i) => PyKey::Int(*i),
            NodeValue::Float(f) => PyKey::Float(*f),
            NodeValue::Str(s) => PyKey::Str(Cow::Borrowed(s)),
            NodeValue::List(_) | NodeValue::Map(_) => return None,
        })
    }
    repeats(pairs.iter().map(|(k, _)| key(k)), pairs.len())
}

/// [`has_duplicate_or_collection_key`] for the `len` keys of a mapping
/// built as plain values.
pub(super) fn repeats_a_key<'a>(keys: impl Iterator<Item = &'a Value>, len: usize) -> bool {
    fn key(v: &Value) -> Option<PyKey<'_>> {
        Some(match v {
            Value::Null => PyKey::Null,
            Value::Bool(b) => PyKey::Bool(*b),
            Value::Int(i) => PyKey::Int(*i),
            Value::Float(f) => PyKey::Float(*f),
            Value::Str(s) => PyKey::Str(Cow::Borrowed(s)),
            Value::List(_) | Value::Map(_) => return None,
        })
    }
    repeats(keys.map(key), len)
}

/// Whether one of `len` keys repeats (`None`: a collection, which counts).
fn repeats<'a>(keys: impl Iterator<Item = Option<PyKey<'a>>>, len: usize) -> bool {
    let mut seen = SeenKeys::new(len);
    for (i, k) in keys.enumerate() {
        let Some(k) = k else { return true };
        if seen.insert(k, i, len).is_some() {
            return true;
        }
    }
    false
}

/// Load one document with `dialect`'s rules: the fast path
/// ([`super::fast`]) for plain block YAML, else the direct path, else the
/// full loader. The first two serve only documents that need no dialect
/// decision: they leave any duplicate key to the full loader.
pub(super) fn load(src: &str, dialect: Dialect, bounds: Bounds) -> Result<Node, YamlError> {
    if let Some(node) = super::fast::load_fast(src, bounds) {
        return Ok(node);
    }
    load_saphyr(src, dialect, bounds)
}

/// [`load`] past the fast path: the direct path, else the full loader.
pub(super) fn load_saphyr(src: &str, dialect: Dialect, bounds: Bounds) -> Result<Node, YamlError> {
    match load_direct(src, bounds) {
        Some(node) => Ok(node),
        None => load_graph(src, dialect, bounds),
    }
}

/// The `[` or `{` that starts the next node after byte `from` (past
/// blanks, comments, `-`, `?`, `:` indicators, anchors and tags), if the
/// next node is a flow collection.
fn next_flow_start(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    loop {
        match *bytes.get(i)? {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'#' => i += bytes[i..].iter().position(|&b| b == b'\n')?,
            b'-' | b'?' | b':' if matches!(bytes.get(i + 1), Some(b' ' | b'\n')) => i += 1,
            b'&' | b'!' => i += bytes[i..].iter().position(|&b| b == b' ')?,
            b'[' | b'{' => return Some(i),
            _ => return None,
        }
    }
}

/// Is the flow collection opening at `token` (a `[` or `{`) still open at
/// byte `line`, a later line start? Brackets are counted outside quoted
/// scalars and comments.
fn flow_open(bytes: &[u8], token: usize, line: usize) -> bool {
    line > token && line <= flow_close(bytes, token)
}

/// Where the flow collection opening at `token` ends: its closing bracket,
/// an unterminated quote inside it, or the end of the text. A line start
/// after `token` is inside it when it is not past that offset.
fn flow_close(bytes: &[u8], token: usize) -> usize {
    let line = bytes.len();
    let mut depth = 0usize;
    // A quote opens a quoted scalar only where a node may start (after
    // `[`, `{`, `,`, `:`, `?`); elsewhere it is part of a plain scalar.
    let mut node_start = true;
    let mut i = token;
    while i < line {
        match bytes[i] {
            b'[' | b'{' => {
                depth += 1;
                node_start = true;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i;
                }
            }
            b',' | b':' | b'?' => node_start = true,
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b'\'' | b'"' if node_start => match quoted_end(bytes, i) {
                Some(end) => {
                    i = end;
                    node_start = false;
                }
                None => return i,
            },
            b'#' if i > 0 && matches!(bytes[i - 1], b' ' | b'\t' | b'\n') => {
                match bytes[i..line].iter().position(|&b| b == b'\n') {
                    Some(p) => i += p,
                    None => return line,
                }
            }
            _ => node_start = false,
        }
        i += 1;
    }
    line
}

/// What a lone `-` of a flow collection is read as while parsing: one
/// byte, so no span moves, and a plain scalar wherever `-` was one.
const LONE_DASH_STAND_IN: &str = "x";

/// libyaml and PyYAML start a plain scalar at a `-` whenever the next
/// character is not a blank, so in a flow collection `[-, x]` and `{k: -}`
/// hold the string "-" (the scalar ends at the flow indicator). saphyr
/// follows YAML 1.2 and refuses a `-` followed by `,` `[` `]` `{` `}`: the
/// offset of that `-`, for the repair loop to stand in for.
fn lone_dash(text: &str, e: &YamlError) -> Option<usize> {
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
fn restore_lone_dashes(node: &mut Node, dashes: &[usize], src: &str, done: &mut [bool]) {
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
fn fold_plain(text: &str) -> String {
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
fn restore_all_dashes(
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
fn anchor_end(text: &str, e: &YamlError) -> Option<(usize, usize)> {
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
fn comment_gap(text: &str, e: &YamlError) -> Option<(usize, usize)> {
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
fn quoted_tab_fix(text: &str, at: usize) -> Option<String> {
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

/// Where the quoted scalar opening at `at` closes (its closing quote), if
/// it does: `''` is an escaped quote in single quotes, `\` escapes in double.
fn quoted_end(bytes: &[u8], at: usize) -> Option<usize> {
    let quote = *bytes.get(at)?;
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'"' => i += 2,
            b'\'' if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            b if b == quote => return Some(i),
            _ => i += 1,
        }
    }
    None
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
fn load_graph_marked(
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

/// Spaces inserted at line starts by [`Composer::flow_pad`], in order: each
/// `(offset, count)` is an offset of the text as it was then.
#[derive(Default)]
struct Padding(Vec<(usize, usize)>);

impl Padding {
    /// An offset of the padded text in the original text.
    fn offset(&self, mut at: usize) -> usize {
        for &(line, n) in self.0.iter().rev() {
            if at >= line + n {
                at -= n;
            } else if at > line {
                at = line;
            }
        }
        at
    }

    fn range(&self, r: &std::ops::Range<usize>) -> std::ops::Range<usize> {
        self.offset(r.start)..self.offset(r.end)
    }

    /// The [`Text`] of `padded`, a padded copy of `original`.
    fn text<'a>(&'a self, padded: &'a str, original: &'a str, dialect: Dialect) -> Text<'a> {
        let mut t = Text::new(padded);
        t.dialect = dialect;
        if !self.0.is_empty() {
            t.original = Some((original, self));
        }
        t
    }

    fn node(&self, node: &mut Node) {
        node.span = self.range(&node.span);
        match &mut node.value {
            NodeValue::List(items) => items.iter_mut().for_each(|n| self.node(n)),
            NodeValue::Map(pairs) => pairs.iter_mut().for_each(|(k, v)| {
                self.node(k);
                self.node(v);
            }),
            _ => {}
        }
    }
}

/// Construct and build the composed graph of `t`.
fn construct(
    t: Text,
    (nodes, root): (Vec<Raw>, Option<Id>),
    bounds: Bounds,
) -> Result<Node, YamlError> {
    let Some(root) = root else {
        return Ok(Node {
            value: NodeValue::Null,
            span: 0..0,
        });
    };
    let n = nodes.len();
    let mut c = Constructor {
        text: &t,
        max_depth: bounds.depth,
        nodes,
        scalars: vec![None; n],
        queued: vec![false; n],
    };
    c.run(root)?;
    let mut b = Builder {
        nodes: c.nodes,
        scalars: c.scalars,
        budget: bounds.nodes.max(n * 4),
        active: c.queued,
    };
    b.active.fill(false);
    b.build(root, false)
}

/// libyaml accepts a tab right after a mapping's `:`; saphyr does not. When
/// that is the error, turn those tabs into spaces (same byte offsets, and
/// they separate tokens, so no scalar changes) and parse again.
/// Bytes the loader may re-parse while repairing a document libyaml reads
/// and saphyr does not (under-indented flow lines, tabs after `:`).
const REPAIR_BUDGET: usize = 32 << 20;

/// [`colon_tab_fix`] for every `:` followed by a tab at once: the text
/// with each such tab run turned into spaces, if it then composes and no
/// changed byte lies inside a scalar (a quoted or block scalar keeps its
/// tabs; outside scalars a tab after `:` only separates, for PyYAML as for
/// a space). `None` sends the caller back to fixing one error at a time.
fn colon_tabs_all(
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

fn colon_tab_fix(text: &str, e: &YamlError) -> Option<String> {
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
            if let Some(node) = load_direct(input, BOUNDS) {
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
        load(src, Dialect::Salt, BOUNDS)
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
        let v = load(&text, Dialect::Salt, BOUNDS)
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
        let v = load("opts: &o\n  a: 1\n  <<: *o\n", Dialect::Salt, BOUNDS)
            .expect("loads")
            .into_value();
        assert_eq!(v.to_json().to_string(), r#"{"opts":{"a":1}}"#);
        // libyaml's answer for two self-merges around a plain key.
        let twice = "o: &o\n  a: 1\n  <<: *o\n  <<: *o\n  c: 2\n";
        let v = load(twice, Dialect::Salt, BOUNDS)
            .expect("loads")
            .into_value();
        assert_eq!(v.to_json().to_string(), r#"{"o":{"a":1,"c":2}}"#);
    }

    /// Many separate ones stop at the repair budget with a message that
    /// says so, instead of re-parsing for minutes.
    #[test]
    fn repairs_stop_at_the_budget() {
        let text: String = (0..30_000).map(|i| format!("k{i}: [\nx]\n")).collect();
        let e = load(&text, Dialect::Salt, BOUNDS).unwrap_err();
        assert!(e.message.contains("32 MiB repair budget"), "{}", e.message);
    }

    /// Thousands of them load in one batch, not one parse each (that took
    /// minutes for 20,000 lines).
    #[test]
    fn many_tabs_after_colons_load_at_once() {
        let text: String = (0..20_000).map(|i| format!("k{i}:\tv\n")).collect();
        let v = load(&text, Dialect::Salt, BOUNDS)
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
        load(src, Dialect::Salt, BOUNDS)
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
        let node = load(src, Dialect::Salt, BOUNDS).expect("loads");
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
        let e = load(src, Dialect::Salt, BOUNDS).unwrap_err();
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
        let got = load(src, Dialect::Salt, BOUNDS);
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
