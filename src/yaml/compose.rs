//! The composer of the full loader: saphyr-parser events into a node graph
//! (anchors shared, as PyYAML's composer does), with libyaml's errors:
//! tabs, indentation of flow lines, duplicate anchors, more than one
//! document, the depth limit.

use super::libyaml::*;
use super::resolve::{self, ScalarTag};
use super::{Bounds, YamlError};
use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span};
use std::collections::HashMap;

pub(super) type Id = usize;

#[derive(Debug, Clone)]
pub(super) enum RawKind {
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
pub(super) struct Raw {
    pub(super) kind: RawKind,
    pub(super) start: usize,
    pub(super) end: usize,
    /// Reachable from more than one place (an alias target, or an entry
    /// copied into another mapping by a merge key): the tree gets copies of
    /// its strings instead of taking them.
    pub(super) shared: bool,
}

impl Raw {
    /// PyYAML's `node.id`.
    pub(super) fn id_name(&self) -> &'static str {
        match self.kind {
            RawKind::Scalar { .. } => "scalar",
            RawKind::Seq { .. } => "sequence",
            RawKind::Map { .. } => "mapping",
        }
    }
}
/// An open collection while composing.
pub(super) struct Open {
    pub(super) id: Id,
    /// In flow context (an explicit `[`/`{`, or inside one).
    pub(super) flow: bool,
    /// A single-pair mapping inside a flow sequence (`[a: 1]`): no token of its own.
    pub(super) implicit: bool,
    pub(super) is_map: bool,
    /// Byte offset of the collection's start token (libyaml's context mark).
    pub(super) token: usize,
    pub(super) pending_key: Option<Id>,
    /// Where the pending key's own token starts and ends (an alias key's
    /// target is elsewhere).
    pub(super) key_at: (usize, usize),
    /// The 0-based column of `token`, once computed.
    pub(super) indent: Option<isize>,
}

/// Parse and compose one document into the node arena.
pub(super) struct Composer<'a> {
    pub(super) text: Text<'a>,
    /// The `yaml-depth` limit.
    pub(super) max_depth: usize,
    pub(super) nodes: Vec<Raw>,
    pub(super) stack: Vec<Open>,
    pub(super) anchors: HashMap<usize, Id>,
    /// Anchor names seen, with the byte offset of their node (duplicates
    /// are a `ComposerError` in PyYAML).
    pub(super) anchor_names: HashMap<String, usize>,
    pub(super) root: Option<Id>,
    /// Quoted and block scalars, flow collections: tabs follow other rules there.
    pub(super) exempt: Vec<(usize, usize)>,
    /// Plain scalars in block context, with their indentation column.
    pub(super) plains: Vec<(usize, usize, isize)>,
    /// Block scalars (`|`, `>`).
    pub(super) blocks: Vec<(usize, usize)>,
    /// Whether the text has a tab at all (else the three lists above are
    /// not needed and not recorded).
    pub(super) has_tab: bool,
}

impl<'a> Composer<'a> {
    pub(super) fn span(&self, span: &Span) -> (usize, usize) {
        (
            self.text.byte(span.start.index()),
            self.text.byte(span.end.index()),
        )
    }

    pub(super) fn attach(&mut self, id: Id, (at, end): (usize, usize)) -> Result<(), YamlError> {
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
    pub(super) fn flow_key_check(&self, value_at: usize) -> Result<(), YamlError> {
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
    pub(super) fn check_anchor(
        &mut self,
        start: usize,
        end: usize,
        anchor: bool,
    ) -> Result<(), YamlError> {
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
    pub(super) fn name_at(&self, pos: usize) -> &str {
        let tail = &self.text.src[(pos + 1).min(self.text.src.len())..];
        let len = tail
            .find(|c: char| c.is_whitespace() || ",[]{}".contains(c))
            .unwrap_or(tail.len());
        &tail[..len]
    }

    /// libyaml allows only `[0-9A-Za-z_-]` in anchor and alias names.
    pub(super) fn check_name(&self, pos: usize, _anchor: bool) -> Option<YamlError> {
        let name = self.name_at(pos);
        let bad = name.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))?;
        let at = pos + 1 + bad;
        Some(err(
            "did not find expected alphabetic or numeric character".into(),
            at..self.char_end(at),
            Some(pos),
        ))
    }

    pub(super) fn tag_string(tag: Option<&saphyr_parser::Tag>) -> Option<String> {
        let t = tag?;
        let full = format!("{}{}", t.handle, t.suffix);
        // `!` alone is the non-specific tag: resolution as if untagged.
        (full != "!").then_some(full)
    }

    /// A yamlex tag (`!aggregate`, `!reset`) on the node starting at
    /// `start`: recorded, and `true` (the node then reads as untagged).
    pub(super) fn yamlex_tag(&self, tag: &Option<String>, start: usize, collection: bool) -> bool {
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

    pub(super) fn open(
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
    pub(super) fn flow_token(&self, start: usize, end: usize) -> Option<usize> {
        flow_token(self.text.src.as_bytes(), start, end)
    }

    pub(super) fn close(&mut self, span: &Span) {
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

    pub(super) fn scalar(
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
                    return Err(self.another_document(first, at));
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
    pub(super) fn flow_plain_check(
        &self,
        start: usize,
        end: usize,
        value: &str,
    ) -> Result<(), YamlError> {
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

    pub(super) fn alias(&mut self, span: &Span, anchor: usize) -> Result<(), YamlError> {
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

    pub(super) fn undefined_alias(&self, at: usize) -> YamlError {
        err(
            marked(&self.text, None, "found undefined alias", Some(at)),
            at..self.char_end(at),
            None,
        )
    }

    /// libyaml's error for a second document where the stream must hold
    /// one: marked at the first document's start and the second's.
    fn another_document(&self, first: usize, at: usize) -> YamlError {
        err(
            marked(
                &self.text,
                Some(("expected a single document in the stream", Some(first))),
                "but found another document",
                Some(at),
            ),
            at..self.char_end(at),
            Some(first),
        )
    }

    /// End of the character at `at` (for one-character error spans).
    pub(super) fn char_end(&self, at: usize) -> usize {
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
    pub(super) fn flow_pad(&self, info: &str, at: usize, last_end: usize) -> Vec<(usize, usize)> {
        self.flow_pads(info, at, last_end).unwrap_or_default()
    }

    /// [`Composer::flow_pad`]'s pads: for a flow collection, every line of
    /// it from the offending one on that is not deep enough (one parse for
    /// them all, not one each), in text order.
    pub(super) fn flow_pads(
        &self,
        info: &str,
        at: usize,
        last_end: usize,
    ) -> Option<Vec<(usize, usize)>> {
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
    pub(super) fn scan_error(&self, e: &ScanError) -> YamlError {
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
                        // libyaml stops at the offending token: for a block
                        // entry in a mapping that is its `-`, not what follows.
                        let (at, span) = match (open.flow, open.is_map) {
                            (false, true) => {
                                let dash = block_entry_start(src, at);
                                (dash, dash..self.char_end(dash))
                            }
                            _ => (at, span),
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

    pub(super) fn node_content(&self, at: usize, flow: bool) -> YamlError {
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
    pub(super) fn tab_violation(&self, limit: usize) -> Option<YamlError> {
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
/// Parse and compose the single document of `src`.
/// Compose `src`. When it fails on a line of a flow collection indented
/// less than saphyr wants, `pad` says how to indent that line (see
/// [`Composer::flow_pad`]).
pub(super) fn compose(
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
                    // Inside a quoted scalar (see `quoted_tab_fix` in the full loader).
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
                    return Err(c.another_document(first, at));
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

/// The `-` of the block entry whose content starts at `at` (the first of
/// `- - x`), or `at` itself when no block entry leads to it.
fn block_entry_start(src: &str, at: usize) -> usize {
    let b = src.as_bytes();
    let mut start = at.min(b.len());
    loop {
        let mut i = start;
        while i > 0 && matches!(b[i - 1], b' ' | b'\t') {
            i -= 1;
        }
        // A `-` right before the spaces, itself at a line start or after
        // blanks, is a block entry indicator.
        if i == start || i == 0 || b[i - 1] != b'-' {
            return start;
        }
        let dash = i - 1;
        if dash > 0 && !matches!(b[dash - 1], b' ' | b'\t' | b'\n' | b'\r') {
            return start;
        }
        start = dash;
    }
}
