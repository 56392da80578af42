//! How libyaml (the parser under Salt's and Heat's loaders) reads a text
//! where saphyr-parser's events need help, shared by the direct path and
//! the composer: byte offsets and PyYAML's marks of a text (`Text`, also
//! for a padded copy through `Padding`), PyYAML's `MarkedYAMLError`
//! wording, and the byte-level checks (flow tokens and their ends, document
//! markers, block indentation, plain scalars in flow context, reader
//! errors, a block scalar ending the text).

use super::{Dialect, Node, NodeValue, YamlError, YamlErrorKind};
use crate::text::LineIndex;
use saphyr_parser::ScalarStyle;
use std::borrow::Cow;
use std::cell::Cell;

/// Byte offsets and line/column marks of the text. saphyr reports char
/// indexes; events come in text order, so a cursor converts them to byte
/// offsets in amortised constant time. Line and column are only needed for
/// diagnostics and are computed on demand.
pub(super) struct Text<'a> {
    pub(super) src: &'a str,
    pub(super) ascii: bool,
    /// Last conversion: (char index, byte offset).
    pub(super) cursor: Cell<(usize, usize)>,
    /// When `src` is a padded copy (see `Composer::flow_pad`): the text
    /// as rendered and the padding, so messages give its lines and columns.
    pub(super) original: Option<(&'a str, &'a Padding)>,
    pub(super) lines: std::cell::OnceCell<LineIndex>,
    /// Whose rules apply (duplicate keys are an error for Salt only).
    pub(super) dialect: Dialect,
    /// [`Dialect::Yamlex`]: where the `!aggregate` / `!reset` tags met go
    /// (offsets of this text).
    pub(super) marks: Option<&'a std::cell::RefCell<Vec<super::TagMark>>>,
}

impl<'a> Text<'a> {
    pub(super) fn new(src: &'a str) -> Self {
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

    pub(super) fn byte(&self, char_index: usize) -> usize {
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
    pub(super) fn mark(&self, byte: usize) -> String {
        let (line, col) = match self.original {
            Some((src, pads)) => Text::new(src).line_col(pads.offset(byte)),
            None => self.line_col(byte),
        };
        format!("  in \"<unicode string>\", line {line}, column {col}")
    }

    /// The text's line index (built on first use: only errors and padded
    /// flow lines need it).
    pub(super) fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(self.src))
    }

    /// 1-based line and column (columns count characters, as libyaml does).
    pub(super) fn line_col(&self, byte: usize) -> (usize, usize) {
        self.lines().line_col(self.src, byte)
    }

    /// The start of the line holding byte offset `byte`.
    pub(super) fn line_start(&self, byte: usize) -> usize {
        self.lines().line_start(byte)
    }

    /// 1-based column (in characters) of a byte offset.
    pub(super) fn column(&self, byte: usize) -> usize {
        self.line_col(byte).1
    }
}

/// A PyYAML `MarkedYAMLError` rendered as `str()` does: the context mark is
/// left out when it equals the problem mark.
pub(super) fn marked(
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

pub(super) fn err(
    message: String,
    span: std::ops::Range<usize>,
    context: Option<usize>,
) -> YamlError {
    YamlError {
        message,
        span,
        context: context.map(|c| c..c),
        kind: YamlErrorKind::Syntax,
    }
}
/// Where the `[` / `{` of a collection start event spanning `start..end`
/// is, if it is a flow collection (skipping the anchor and tag before it).
pub(super) fn flow_token(src: &[u8], start: usize, end: usize) -> Option<usize> {
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
pub(super) fn far_flow_key(
    src: &str,
    key_at: usize,
    key_end: usize,
    value_at: usize,
) -> Option<usize> {
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
pub(super) enum TopBlock {
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
pub(super) fn top_block_cut(bytes: &[u8], start: usize, end: usize) -> Option<TopBlock> {
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
pub(super) fn document_marker(bytes: &[u8], p: usize) -> Option<u8> {
    let rest = bytes.get(p..)?;
    ((rest.starts_with(b"---") || rest.starts_with(b"..."))
        && matches!(rest.get(3), None | Some(b' ' | b'\t' | b'\n' | b'\r')))
    .then(|| rest[0])
}

/// A `...` document end marker before the stream's first document (only
/// blank and comment lines before it): libyaml starts an implicit
/// document there and finds no node in it ("did not find expected node
/// content"); saphyr skips the marker. Its offset.
pub(super) fn leading_document_end(bytes: &[u8]) -> Option<usize> {
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
pub(super) fn block_indent(bytes: &[u8], start: usize, end: usize) -> usize {
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
pub(super) enum Breaks {
    /// `\n` only (a `\r\n` pair ends at its `\n`).
    Newline,
    /// `\n` or a lone `\r` too, as libyaml reads line breaks.
    NewlineOrReturn,
}

/// Where the line holding byte `p` starts, found by scanning back from `p`
/// (these checks look at one line near a node, where building the text's
/// line index would cost more than the scan).
pub(super) fn line_start_before(bytes: &[u8], p: usize, breaks: Breaks) -> usize {
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
pub(super) fn after_key_indicator(bytes: &[u8], at: usize) -> bool {
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
pub(super) enum FlowPlain {
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
pub(super) fn flow_plain_problem(
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
pub(super) fn node_token(src: &[u8], start: usize, end: usize) -> usize {
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
pub(super) fn reader_error(src: &str) -> Option<YamlError> {
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
/// A scalar's text as a string of its own length: the parser's buffers
/// have spare room, and these strings end up in long-lived values.
/// A block scalar whose last line ends the text without a line break:
/// saphyr gives it one `\n` more than PyYAML does (YAML 1.2 rules; Jinja
/// drops a file's last newline, so `import_yaml` of a file ending in a
/// block scalar meets this).
pub(super) fn eof_block_scalar(
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

pub(super) fn owned(value: Cow<'_, str>) -> String {
    let mut s = value.into_owned();
    s.shrink_to_fit();
    s
}
/// The `[` or `{` that starts the next node after byte `from` (past
/// blanks, comments, `-`, `?`, `:` indicators, anchors and tags), if the
/// next node is a flow collection.
pub(super) fn next_flow_start(bytes: &[u8], from: usize) -> Option<usize> {
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
pub(super) fn flow_open(bytes: &[u8], token: usize, line: usize) -> bool {
    line > token && line <= flow_close(bytes, token)
}

/// Where the flow collection opening at `token` ends: its closing bracket,
/// an unterminated quote inside it, or the end of the text. A line start
/// after `token` is inside it when it is not past that offset.
pub(super) fn flow_close(bytes: &[u8], token: usize) -> usize {
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
/// Where the quoted scalar opening at `at` closes (its closing quote), if
/// it does: `''` is an escaped quote in single quotes, `\` escapes in double.
pub(super) fn quoted_end(bytes: &[u8], at: usize) -> Option<usize> {
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
/// Spaces inserted at line starts by `Composer::flow_pad` (the composer), in order: each
/// `(offset, count)` is an offset of the text as it was then.
#[derive(Default)]
pub(super) struct Padding(pub(super) Vec<(usize, usize)>);

impl Padding {
    /// An offset of the padded text in the original text.
    pub(super) fn offset(&self, mut at: usize) -> usize {
        for &(line, n) in self.0.iter().rev() {
            if at >= line + n {
                at -= n;
            } else if at > line {
                at = line;
            }
        }
        at
    }

    pub(super) fn range(&self, r: &std::ops::Range<usize>) -> std::ops::Range<usize> {
        self.offset(r.start)..self.offset(r.end)
    }

    /// The [`Text`] of `padded`, a padded copy of `original`.
    pub(super) fn text<'a>(
        &'a self,
        padded: &'a str,
        original: &'a str,
        dialect: Dialect,
    ) -> Text<'a> {
        let mut t = Text::new(padded);
        t.dialect = dialect;
        if !self.0.is_empty() {
            t.original = Some((original, self));
        }
        t
    }

    pub(super) fn node(&self, node: &mut Node) {
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
