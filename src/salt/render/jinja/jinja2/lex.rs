//! Jinja2 3.1's lexer, for [`super`]: the tokens it yields for a template
//! (their types, values and lines, whitespace and comments left out),
//! ending with the error it raises, if any; and the token descriptions
//! Jinja2's messages use.

use minijinja::syntax::SyntaxConfig;

/// A syntax error: Jinja2's message and its 1-based line.
pub(crate) type SyntaxError = (String, usize);

pub(super) type Result<T> = std::result::Result<T, SyntaxError>;

/// One token: Jinja2's token type (`name`, `integer`, `add`, `block_end`,
/// ...), its value (names, strings, operators) and line.
#[derive(Debug, Clone, Copy)]
pub(super) struct Token<'a> {
    pub(super) line: usize,
    pub(super) kind: &'static str,
    pub(super) value: &'a str,
}

impl Token<'_> {
    /// Jinja2's `Token.test`: `kind`, or `name:value` (the only value
    /// test the grammar makes).
    pub(super) fn test(&self, expr: &str) -> bool {
        match expr.strip_prefix("name:") {
            Some(value) => self.is_name(value),
            None => self.kind == expr,
        }
    }

    pub(super) fn test_any(&self, exprs: &[&str]) -> bool {
        exprs.iter().any(|e| self.test(e))
    }

    pub(super) fn is_name(&self, value: &str) -> bool {
        self.kind == "name" && self.value == value
    }
}

/// Jinja2's operators and their token types, longest first (as its
/// operator pattern tries them).
const OPERATORS: &[(&str, &str)] = &[
    ("//", "floordiv"),
    ("**", "pow"),
    ("==", "eq"),
    ("!=", "ne"),
    (">=", "gteq"),
    ("<=", "lteq"),
    ("+", "add"),
    ("-", "sub"),
    ("/", "div"),
    ("*", "mul"),
    ("%", "mod"),
    ("~", "tilde"),
    ("[", "lbracket"),
    ("]", "rbracket"),
    ("(", "lparen"),
    (")", "rparen"),
    ("{", "lbrace"),
    ("}", "rbrace"),
    (">", "gt"),
    ("<", "lt"),
    ("=", "assign"),
    (".", "dot"),
    (":", "colon"),
    ("|", "pipe"),
    (",", "comma"),
    (";", "semicolon"),
];

/// The operator `rest` starts with (the longest).
fn operator_at(rest: &str) -> Option<(&'static str, &'static str)> {
    let first = *rest.as_bytes().first()?;
    if !b"/*=!><+-%~[](){}.:|,;".contains(&first) {
        return None;
    }
    OPERATORS
        .iter()
        .find(|(op, _)| rest.starts_with(op))
        .map(|&(op, kind)| (op, kind))
}

/// Jinja2's `_describe_token_type`.
fn describe_kind(kind: &str) -> String {
    if let Some((op, _)) = OPERATORS.iter().find(|(_, k)| *k == kind) {
        return (*op).to_string();
    }
    match kind {
        "block_begin" => "begin of statement block",
        "block_end" => "end of statement block",
        "variable_begin" => "begin of print statement",
        "variable_end" => "end of print statement",
        "data" => "template data / text",
        "eof" => "end of template",
        other => other,
    }
    .to_string()
}

/// Jinja2's `describe_token`: a name is its value.
pub(super) fn describe(t: &Token) -> String {
    match t.kind {
        "name" => t.value.to_string(),
        kind => describe_kind(kind),
    }
}

/// Jinja2's `describe_token_expr` (of `kind` or `name:value`).
pub(super) fn describe_expr(expr: &str) -> String {
    match expr.strip_prefix("name:") {
        Some(value) => value.to_string(),
        None => describe_kind(expr),
    }
}

/// Python's `repr()` of a string.
pub(super) fn repr(s: &str) -> String {
    crate::value::Value::str(s).py_repr()
}

/// The tokens Jinja2's lexer yields for `text` (newlines normalised;
/// whitespace and comments left out), ending with the lexer's error if it
/// raises one.
pub(super) fn lex<'a>(text: &'a str, syntax: &'a SyntaxConfig) -> Vec<Result<Token<'a>>> {
    Lexer {
        src: text,
        syntax,
        pos: 0,
        line: 1,
        line_pos: 0,
        out: Vec::new(),
        balance: Vec::new(),
    }
    .run()
}

struct Lexer<'a> {
    src: &'a str,
    syntax: &'a SyntaxConfig,
    /// Byte offset.
    pos: usize,
    /// The line at `line_pos` (positions asked for only grow).
    line: usize,
    line_pos: usize,
    out: Vec<Result<Token<'a>>>,
    /// The closing brackets the open ones wait for.
    balance: Vec<char>,
}

/// Where a tag's contents end.
#[derive(Clone, Copy, PartialEq)]
enum State {
    Block,
    Variable,
}

impl<'a> Lexer<'a> {
    fn line_at(&mut self, pos: usize) -> usize {
        if pos >= self.line_pos {
            let newlines = self.src.as_bytes()[self.line_pos..pos]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            self.line += newlines;
            self.line_pos = pos;
        }
        self.line
    }

    fn push(&mut self, at: usize, kind: &'static str, value: &'a str) {
        let line = self.line_at(at);
        self.out.push(Ok(Token { line, kind, value }));
    }

    fn fail(mut self, at: usize, message: String) -> Vec<Result<Token<'a>>> {
        let line = self.line_at(at);
        self.out.push(Err((message, line)));
        self.out
    }

    fn run(mut self) -> Vec<Result<Token<'a>>> {
        let syntax = self.syntax;
        let (block_start, block_end) = syntax.block_delimiters();
        let (var_start, _) = syntax.variable_delimiters();
        let (comment_start, comment_end) = syntax.comment_delimiters();
        // The root state's openers, longest first (Jinja2 sorts its rules
        // by length, then by name, descending).
        let mut openers = [
            (comment_start, "comment"),
            (block_start, "block"),
            (var_start, "variable"),
        ];
        openers.sort_by(|a, b| (b.0.len(), b.1).cmp(&(a.0.len(), a.1)));
        // The first bytes of the openers, to look for (usually one: `{`).
        let mut firsts: Vec<u8> = openers
            .iter()
            .filter_map(|(o, _)| o.bytes().next())
            .collect();
        firsts.sort_unstable();
        firsts.dedup();
        let next_opener = |from: usize| -> Option<usize> {
            let rest = &self.src.as_bytes()[from..];
            match firsts.as_slice() {
                // An ASCII byte: `str::find` searches for it word by word.
                [one] if one.is_ascii() => self.src[from..].find(char::from(*one)),
                many => rest.iter().position(|b| many.contains(b)),
            }
        };
        loop {
            if self.pos >= self.src.len() {
                return self.out;
            }
            // The next opener (a raw block first where one starts).
            let mut found = None;
            let mut from = self.pos;
            while let Some(i) = next_opener(from) {
                let at = from + i;
                from = at + self.src[at..].chars().next().map_or(1, char::len_utf8);
                if let Some(end) = self.raw_begin(at, block_start, block_end) {
                    found = Some((at, "raw", end));
                    break;
                }
                if let Some((open, kind)) = openers
                    .iter()
                    .find(|(open, _)| !open.is_empty() && self.src[at..].starts_with(open))
                {
                    let mut end = at + open.len();
                    if matches!(self.src[end..].chars().next(), Some('-' | '+')) {
                        end += 1;
                    }
                    found = Some((at, kind, end));
                    break;
                }
            }
            let Some((at, kind, end)) = found else {
                let pos = self.pos;
                self.push(pos, "data", &self.src[pos..]);
                return self.out;
            };
            // The text before the tag, as Jinja2 strips it (`{%-`, and
            // `lstrip_blocks` before a statement or comment): a text left
            // empty is no token.
            let sign = match kind {
                "raw" => self.src[at + block_start.len()..].chars().next(),
                _ => self.src[..end].chars().next_back(),
            };
            let mut data = &self.src[self.pos..at];
            if sign == Some('-') {
                data = data.trim_end();
            } else if sign != Some('+') && self.syntax.lstrip_blocks() && kind != "variable" {
                let l_pos = data.rfind('\n').map_or(0, |i| i + 1);
                let line_starting = self.pos == 0 || self.src[..self.pos].ends_with('\n');
                let tail = &data[l_pos..];
                if (l_pos > 0 || line_starting)
                    && !tail.is_empty()
                    && tail.chars().all(char::is_whitespace)
                {
                    data = &data[..l_pos];
                }
            }
            if !data.is_empty() {
                self.push(self.pos, "data", data);
            }
            self.pos = end;
            match kind {
                "raw" => {
                    // Data up to `{% endraw %}`.
                    match self.find_endraw(block_start, block_end) {
                        Some((data_end, after)) => {
                            if data_end > self.pos {
                                self.push(self.pos, "data", &self.src[self.pos..data_end]);
                            }
                            self.pos = after;
                        }
                        // Jinja2's failure rule needs a character after the
                        // opener: at the very end the text just stops.
                        None if self.pos >= self.src.len() => return self.out,
                        None => {
                            let at = self.pos;
                            return self.fail(at, "Missing end of raw directive".into());
                        }
                    }
                }
                "comment" => {
                    match self.src[self.pos..].find(comment_end) {
                        Some(i) => self.pos += i + comment_end.len(),
                        None if self.pos >= self.src.len() => return self.out,
                        None => {
                            let at = self.pos;
                            return self.fail(at, "Missing end of comment tag".into());
                        }
                    };
                    if self.syntax.trim_blocks() && self.src[self.pos..].starts_with('\n') {
                        self.pos += 1;
                    }
                }
                "block" => {
                    self.push(at, "block_begin", "");
                    if let Err(e) = self.tag(State::Block) {
                        self.out.push(Err(e));
                        return self.out;
                    }
                }
                _ => {
                    self.push(at, "variable_begin", "");
                    if let Err(e) = self.tag(State::Variable) {
                        self.out.push(Err(e));
                        return self.out;
                    }
                }
            }
        }
    }

    /// The length of the closing delimiter `end` at the start of `rest`,
    /// as Jinja2's rules match it: `-END` takes the whitespace after it;
    /// where `block` (a statement's end), `+END` closes too and `END` takes
    /// one newline under `trim_blocks`.
    fn close_len(&self, rest: &str, end: &str, block: bool) -> Option<usize> {
        if block && rest.strip_prefix('+').is_some_and(|r| r.starts_with(end)) {
            return Some(1 + end.len());
        }
        if let Some(after) = rest.strip_prefix('-').and_then(|r| r.strip_prefix(end)) {
            return Some(rest.len() - after.trim_start().len());
        }
        let after = rest.strip_prefix(end)?;
        let newline = block && self.syntax.trim_blocks() && after.starts_with('\n');
        Some(end.len() + usize::from(newline))
    }

    /// Where the tag `{% word %}` starting at `at` ends (its strip signs
    /// and spaces allowed; `block`: its end as a statement's, see
    /// [`Lexer::close_len`]).
    fn word_tag_end(
        &self,
        at: usize,
        word: &str,
        (block_start, block_end): (&str, &str),
        block: bool,
    ) -> Option<usize> {
        let rest = self.src[at..].strip_prefix(block_start)?;
        let rest = rest.strip_prefix(['-', '+']).unwrap_or(rest);
        let rest = rest.trim_start().strip_prefix(word)?.trim_start();
        let n = self.close_len(rest, block_end, block)?;
        Some(self.src.len() - rest.len() + n)
    }

    /// The end of `{% raw %}` starting at `at` (Jinja2's raw opener takes
    /// neither `+%}` nor a newline under `trim_blocks`).
    fn raw_begin(&self, at: usize, block_start: &str, block_end: &str) -> Option<usize> {
        self.word_tag_end(at, "raw", (block_start, block_end), false)
    }

    /// `(where the raw data ends, where the endraw tag ends)`.
    fn find_endraw(&self, block_start: &str, block_end: &str) -> Option<(usize, usize)> {
        let mut from = self.pos;
        while let Some(i) = self.src[from..].find(block_start) {
            let at = from + i;
            if let Some(end) = self.word_tag_end(at, "endraw", (block_start, block_end), true) {
                return Some((at, end));
            }
            from = at + block_start.len();
        }
        None
    }

    /// The tokens of one tag up to its end delimiter.
    fn tag(&mut self, state: State) -> Result<()> {
        let syntax = self.syntax;
        let end = match state {
            State::Block => syntax.block_delimiters().1,
            State::Variable => syntax.variable_delimiters().1,
        };
        loop {
            let rest = &self.src[self.pos..];
            if rest.is_empty() {
                return Ok(());
            }
            // The end delimiter (not while a bracket is open).
            if self.balance.is_empty() {
                if let Some(n) = self.close_len(rest, end, state == State::Block) {
                    let kind = match state {
                        State::Block => "block_end",
                        State::Variable => "variable_end",
                    };
                    let pos = self.pos;
                    self.push(pos, kind, "");
                    self.pos += n;
                    return Ok(());
                }
            }
            let start = self.pos;
            let c = rest.chars().next().unwrap_or(' ');
            if c.is_whitespace() {
                let n = rest.len() - rest.trim_start().len();
                self.pos += n;
                continue;
            }
            if let Some(n) = float_len(self.src, start) {
                self.push(start, "float", &rest[..n]);
                self.pos += n;
                continue;
            }
            if let Some(n) = integer_len(rest) {
                self.push(start, "integer", &rest[..n]);
                self.pos += n;
                continue;
            }
            let ascii = rest
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            let name_len = match rest.as_bytes().get(ascii) {
                Some(b) if !b.is_ascii() => rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .map(char::len_utf8)
                    .sum(),
                _ => ascii,
            };
            if name_len > 0 {
                let name = &rest[..name_len];
                let first = name.chars().next().unwrap_or('_');
                if first.is_numeric() {
                    return Err((
                        "Invalid character in identifier".into(),
                        self.line_at(start),
                    ));
                }
                self.push(start, "name", name);
                self.pos += name_len;
                continue;
            }
            if c == '\'' || c == '"' {
                if let Some(n) = string_len(rest, c) {
                    self.push(start, "string", &rest[1..n - 1]);
                    self.pos += n;
                    continue;
                }
            }
            if let Some((op, kind)) = operator_at(rest) {
                let line = self.line_at(start);
                match op {
                    "{" => self.balance.push('}'),
                    "(" => self.balance.push(')'),
                    "[" => self.balance.push(']'),
                    "}" | ")" | "]" => {
                        let Some(expected) = self.balance.pop() else {
                            return Err((format!("unexpected '{op}'"), line));
                        };
                        if !op.starts_with(expected) {
                            return Err((
                                format!("unexpected '{op}', expected '{expected}'"),
                                line,
                            ));
                        }
                    }
                    _ => {}
                }
                self.push(start, kind, op);
                self.pos += op.len();
                continue;
            }
            // Jinja2 counts the position in characters.
            let chars = self.src[..start].chars().count();
            return Err((
                format!("unexpected char {} at {chars}", repr(&c.to_string())),
                self.line_at(start),
            ));
        }
    }
}

/// Digits with single `_` separators (`(\d+_)*\d+`): their length.
fn digits_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    loop {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return None;
        }
        if i + 1 < b.len() && b[i] == b'_' && b[i + 1].is_ascii_digit() {
            i += 1;
            continue;
        }
        return Some(i);
    }
}

/// Jinja2's float pattern at `at` (not after a `.`).
fn float_len(src: &str, at: usize) -> Option<usize> {
    if at > 0 && src.as_bytes()[at - 1] == b'.' {
        return None;
    }
    let s = &src[at..];
    let int = digits_len(s)?;
    let frac = |i: usize| -> Option<usize> {
        let rest = s[i..].strip_prefix('.')?;
        Some(i + 1 + digits_len(rest)?)
    };
    let exp = |i: usize| -> Option<usize> {
        let rest = &s[i..];
        let rest = rest.strip_prefix(['e', 'E'])?;
        let sign = usize::from(rest.starts_with(['+', '-']));
        Some(i + 1 + sign + digits_len(&rest[sign..])?)
    };
    // An exponent (after an optional fraction), else a fraction.
    let with_frac = frac(int);
    if let Some(e) = exp(with_frac.unwrap_or(int)) {
        return Some(e);
    }
    with_frac
}

/// Jinja2's integer pattern (binary, octal, hex, decimal, zero).
fn integer_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let radix_run = |start: usize, ok: fn(u8) -> bool| -> Option<usize> {
        // (_?[digits])+
        let mut i = start;
        let mut any = false;
        loop {
            let j = if i < b.len() && b[i] == b'_' {
                i + 1
            } else {
                i
            };
            if j < b.len() && ok(b[j]) {
                i = j + 1;
                any = true;
            } else {
                break;
            }
        }
        any.then_some(i)
    };
    if b.len() >= 2 && b[0] == b'0' {
        let r = match b[1] {
            b'b' | b'B' => radix_run(2, |c| c == b'0' || c == b'1'),
            b'o' | b'O' => radix_run(2, |c| (b'0'..=b'7').contains(&c)),
            b'x' | b'X' => radix_run(2, |c| c.is_ascii_hexdigit()),
            _ => None,
        };
        if r.is_some() {
            return r;
        }
    }
    match b.first()? {
        b'1'..=b'9' => Some(radix_run(1, |c| c.is_ascii_digit()).unwrap_or(1)),
        b'0' => Some(radix_run(1, |c| c == b'0').unwrap_or(1)),
        _ => None,
    }
}

/// A quoted string with backslash escapes: its length with both quotes.
fn string_len(s: &str, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices().skip(1) {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == quote {
            return Some(i + 1);
        }
    }
    None
}
