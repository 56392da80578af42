//! Jinja2 3.1's syntax errors, as Salt reports them: the first error
//! Jinja2's lexer and parser raise on a template, with Jinja2's own words
//! and line (`Expected an expression, got 'end of statement block'`,
//! `unexpected '}', expected ')'`, `expected token 'as', got 'end of
//! statement block'`, `Missing end of comment tag`, ...). minijinja, which
//! renders, words its syntax errors its own way and sometimes stops at a
//! different place; this module re-reads the template the way Jinja2 does
//! (its token stream with one token of lookahead, lexer errors raised when
//! the parser reaches them, the parser's grammar with the `do`,
//! `break`/`continue` and Salt's serializer tags) so the message is the one
//! Salt prints. It builds no tree: only what an error message depends on.

use minijinja::syntax::SyntaxConfig;

/// A syntax error: Jinja2's message and its 1-based line.
pub(crate) type SyntaxError = (String, usize);

type Result<T> = std::result::Result<T, SyntaxError>;

/// Jinja2's first syntax error in `source`, or `None` when Jinja2 parses
/// it (or it uses line statements or line comments, which this reader
/// does not follow).
pub(crate) fn first_error(source: &str, syntax: &SyntaxConfig) -> Option<SyntaxError> {
    if syntax.line_statement_prefix().is_some() || syntax.line_comment_prefix().is_some() {
        return None;
    }
    // Jinja2 splits on \r\n, \r and \n, joins with \n and drops one
    // trailing newline (unless keep_trailing_newline).
    let normalized;
    let mut text = source;
    if source.contains('\r') {
        normalized = source.replace("\r\n", "\n").replace('\r', "\n");
        text = &normalized;
    }
    if !syntax.keep_trailing_newline() {
        text = text.strip_suffix('\n').unwrap_or(text);
    }
    let tokens = lex(text, syntax);
    let mut parser = Parser {
        stream: Stream::new(tokens),
        depth: 0,
        tag_stack: Vec::new(),
        end_token_stack: Vec::new(),
    };
    match parser.start().and_then(|()| parser.subparse(None)) {
        Err((_, 0)) | Ok(()) => None,
        Err(e) => Some(e),
    }
}

/// Nesting past this gives up (no error reported: minijinja's stands).
/// Jinja2 itself fails at Python's recursion limit, about 80 nested
/// brackets, so templates that work stay well below it.
const MAX_DEPTH: usize = 64;

/// The give-up "error" (line 0, which no real error has).
fn too_deep<T>() -> Result<T> {
    Err((String::new(), 0))
}

/// One token: Jinja2's token type (`name`, `integer`, `add`, `block_end`,
/// ...), its value (names, strings, operators) and line.
#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    line: usize,
    kind: &'static str,
    value: &'a str,
}

impl Token<'_> {
    /// Jinja2's `Token.test`: `kind`, or `name:value` (the only value
    /// test the grammar makes).
    fn test(&self, expr: &str) -> bool {
        match expr.strip_prefix("name:") {
            Some(value) => self.is_name(value),
            None => self.kind == expr,
        }
    }

    fn test_any(&self, exprs: &[&str]) -> bool {
        exprs.iter().any(|e| self.test(e))
    }

    fn is_name(&self, value: &str) -> bool {
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
fn describe(t: &Token) -> String {
    match t.kind {
        "name" => t.value.to_string(),
        kind => describe_kind(kind),
    }
}

/// Jinja2's `describe_token_expr` (of `kind` or `name:value`).
fn describe_expr(expr: &str) -> String {
    match expr.strip_prefix("name:") {
        Some(value) => value.to_string(),
        None => describe_kind(expr),
    }
}

/// Python's `repr()` of a string.
fn repr(s: &str) -> String {
    crate::value::Value::str(s).py_repr()
}

/// The tokens Jinja2's lexer yields for `text` (newlines normalised;
/// whitespace and comments left out), ending with the lexer's error if it
/// raises one.
fn lex<'a>(text: &'a str, syntax: &'a SyntaxConfig) -> Vec<Result<Token<'a>>> {
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

/// Jinja2's `TokenStream`: the current token, pushed-back tokens, and the
/// lexer's output pulled one token at a time (a lexer error is raised when
/// the stream reaches it).
struct Stream<'a> {
    tokens: std::vec::IntoIter<Result<Token<'a>>>,
    pushed: std::collections::VecDeque<Token<'a>>,
    current: Token<'a>,
}

impl<'a> Stream<'a> {
    fn new(tokens: Vec<Result<Token<'a>>>) -> Stream<'a> {
        Stream {
            tokens: tokens.into_iter(),
            pushed: Default::default(),
            current: Token {
                line: 1,
                kind: "initial",
                value: "",
            },
        }
    }

    /// Go one token ahead; the old current token.
    fn next(&mut self) -> Result<Token<'a>> {
        let new = match self.pushed.pop_front() {
            Some(t) => t,
            None if self.current.kind == "eof" => self.current,
            None => match self.tokens.next() {
                Some(t) => t?,
                None => Token {
                    line: self.current.line,
                    kind: "eof",
                    value: "",
                },
            },
        };
        Ok(std::mem::replace(&mut self.current, new))
    }

    fn look(&mut self) -> Result<Token<'a>> {
        let old = self.next()?;
        let result = std::mem::replace(&mut self.current, old);
        self.pushed.push_back(result);
        Ok(result)
    }

    fn skip_if(&mut self, expr: &str) -> Result<bool> {
        if self.current.test(expr) {
            self.next()?;
            return Ok(true);
        }
        Ok(false)
    }

    fn expect(&mut self, expr: &str) -> Result<Token<'a>> {
        if !self.current.test(expr) {
            let what = describe_expr(expr);
            let line = self.current.line;
            if self.current.kind == "eof" {
                return Err((
                    format!("unexpected end of template, expected {}.", repr(&what)),
                    line,
                ));
            }
            return Err((
                format!(
                    "expected token {}, got {}",
                    repr(&what),
                    repr(&describe(&self.current))
                ),
                line,
            ));
        }
        self.next()
    }

    /// Jinja2's `bool(stream)`: not at the end.
    fn more(&self) -> bool {
        !self.pushed.is_empty() || self.current.kind != "eof"
    }
}

/// What an error message needs of a parsed expression.
#[derive(Debug, Clone, PartialEq)]
enum Expr {
    /// A name (not one of the constants' names).
    Name,
    Const,
    Tuple(Vec<Expr>),
    List,
    Dict,
    NsRef,
    Call,
    Other,
}

impl Expr {
    /// Jinja2's `can_assign`.
    fn can_assign(&self) -> bool {
        match self {
            Expr::Name | Expr::NsRef => true,
            Expr::Tuple(items) => items.iter().all(Expr::can_assign),
            _ => false,
        }
    }

    /// The node class name Jinja2's "can't assign to" message shows.
    fn class(&self) -> &'static str {
        match self {
            Expr::Name => "name",
            Expr::Const => "const",
            Expr::Tuple(_) => "tuple",
            Expr::List => "list",
            Expr::Dict => "dict",
            Expr::NsRef => "nsref",
            Expr::Call => "call",
            Expr::Other => "expr",
        }
    }
}

struct Parser<'a> {
    stream: Stream<'a>,
    /// How deep expressions nest here (brackets, unary operators): past
    /// [`MAX_DEPTH`] the reader gives up rather than overflow its stack.
    depth: usize,
    tag_stack: Vec<&'a str>,
    end_token_stack: Vec<&'static [&'static str]>,
}

impl<'a> Parser<'a> {
    fn start(&mut self) -> Result<()> {
        self.stream.next().map(drop)
    }

    fn fail<T>(&self, message: String, line: Option<usize>) -> Result<T> {
        Err((message, line.unwrap_or(self.stream.current.line)))
    }

    fn fail_ut_eof<T>(
        &self,
        name: Option<&str>,
        stack: &[&'static [&'static str]],
        line: Option<usize>,
    ) -> Result<T> {
        let expected: Vec<String> = stack
            .iter()
            .flat_map(|exprs| exprs.iter().map(|e| describe_expr(e)))
            .collect();
        let looking = stack.last().map(|exprs| {
            exprs
                .iter()
                .map(|e| repr(&describe_expr(e)))
                .collect::<Vec<_>>()
                .join(" or ")
        });
        let mut message = vec![match name {
            None => "Unexpected end of template.".to_string(),
            Some(n) => format!("Encountered unknown tag {}.", repr(n)),
        }];
        if let Some(looking) = looking.filter(|l| !l.is_empty()) {
            if name.is_some_and(|n| expected.iter().any(|e| e == n)) {
                message.push(format!("You probably made a nesting mistake. Jinja is expecting this tag, but currently looking for {looking}."));
            } else {
                message.push(format!(
                    "Jinja was looking for the following tags: {looking}."
                ));
            }
        }
        if let Some(tag) = self.tag_stack.last() {
            message.push(format!(
                "The innermost block that needs to be closed is {}.",
                repr(tag)
            ));
        }
        self.fail(message.join(" "), line)
    }

    fn fail_eof<T>(&self, end_tokens: &'static [&'static str], line: Option<usize>) -> Result<T> {
        let mut stack = self.end_token_stack.clone();
        stack.push(end_tokens);
        self.fail_ut_eof(None, &stack, line)
    }

    fn is_tuple_end(&self, extra_end_rules: &[&str]) -> bool {
        matches!(
            self.stream.current.kind,
            "variable_end" | "block_end" | "rparen"
        ) || self.stream.current.test_any(extra_end_rules)
    }

    fn parse_statement(&mut self) -> Result<()> {
        let token = self.stream.current;
        if token.kind != "name" {
            return self.fail("tag name expected".into(), Some(token.line));
        }
        // Jinja2's statements, then the tags of the extensions Salt loads
        // (`do`, loop controls, Salt's serializer tags).
        let parse: fn(&mut Self) -> Result<()> = match token.value {
            "for" => Self::parse_for,
            "if" => Self::parse_if,
            "block" => Self::parse_block,
            "extends" => |p| p.next_then(|p| p.parse_expression(true).map(drop)),
            "print" => Self::parse_print,
            "macro" => Self::parse_macro,
            "include" => Self::parse_include,
            "from" => Self::parse_from,
            "import" | "import_yaml" | "import_json" | "import_text" => Self::parse_import,
            "set" => Self::parse_set,
            "with" => Self::parse_with,
            "autoescape" => |p| {
                p.next_then(|p| {
                    p.parse_expression(true)?;
                    p.parse_statements(&["name:endautoescape"], true)
                })
            },
            "call" => Self::parse_call_block,
            "filter" => |p| {
                p.next_then(|p| {
                    p.parse_filter(true)?;
                    p.parse_statements(&["name:endfilter"], true)
                })
            },
            "do" => |p| p.next_then(|p| p.parse_tuple(true, &[], false).map(drop)),
            "break" | "continue" => |p| p.stream.next().map(drop),
            "profile" => |p| {
                p.next_then(|p| {
                    p.stream.expect("name:as")?;
                    p.parse_expression(true)?;
                    p.parse_statements(&["name:endprofile"], true)
                })
            },
            "load_yaml" | "load_json" | "load_text" => |p| {
                p.next_then(|p| {
                    p.stream.expect("name:as")?;
                    p.parse_assign_target(false, &[], false)?;
                    p.parse_statements(&["name:endload"], true)
                })
            },
            name => {
                return self.fail_ut_eof(Some(name), &self.end_token_stack, Some(token.line));
            }
        };
        self.tag_stack.push(token.value);
        let r = parse(self);
        self.tag_stack.pop();
        r
    }

    /// Step over the tag name, then `then`.
    fn next_then(&mut self, then: impl FnOnce(&mut Self) -> Result<()>) -> Result<()> {
        self.stream.next()?;
        then(self)
    }

    fn parse_statements(
        &mut self,
        end_tokens: &'static [&'static str],
        drop_needle: bool,
    ) -> Result<()> {
        self.stream.skip_if("colon")?;
        self.stream.expect("block_end")?;
        self.subparse(Some(end_tokens))?;
        if self.stream.current.kind == "eof" {
            return self.fail_eof(end_tokens, None);
        }
        if drop_needle {
            self.stream.next()?;
        }
        Ok(())
    }

    fn parse_set(&mut self) -> Result<()> {
        self.stream.next()?;
        self.parse_assign_target(false, &[], true)?;
        if self.stream.skip_if("assign")? {
            return self.parse_tuple(true, &[], false).map(drop);
        }
        self.parse_filter(false)?;
        self.parse_statements(&["name:endset"], true)
    }

    fn parse_for(&mut self) -> Result<()> {
        self.stream.expect("name:for")?;
        self.parse_assign_target(false, &["name:in"], false)?;
        self.stream.expect("name:in")?;
        self.parse_tuple(false, &["name:recursive"], false)?;
        if self.stream.skip_if("name:if")? {
            self.parse_expression(true)?;
        }
        self.stream.skip_if("name:recursive")?;
        self.parse_statements(&["name:endfor", "name:else"], false)?;
        if self.stream.next()?.value != "endfor" {
            self.parse_statements(&["name:endfor"], true)?;
        }
        Ok(())
    }

    fn parse_if(&mut self) -> Result<()> {
        self.stream.expect("name:if")?;
        loop {
            self.parse_tuple(false, &[], false)?;
            self.parse_statements(&["name:elif", "name:else", "name:endif"], false)?;
            let token = self.stream.next()?;
            if token.test("name:elif") {
                continue;
            } else if token.test("name:else") {
                self.parse_statements(&["name:endif"], true)?;
            }
            return Ok(());
        }
    }

    fn parse_with(&mut self) -> Result<()> {
        self.stream.next()?;
        self.comma_list("block_end", |p| {
            p.parse_assign_target(false, &[], false)?;
            p.stream.expect("assign")?;
            p.parse_expression(true).map(drop)
        })?;
        self.parse_statements(&["name:endwith"], true)
    }

    /// Items `item` reads, separated by commas, up to a token of kind
    /// `end` (left current).
    fn comma_list(&mut self, end: &str, item: impl Fn(&mut Self) -> Result<()>) -> Result<()> {
        let mut first = true;
        while self.stream.current.kind != end {
            if !first {
                self.stream.expect("comma")?;
            }
            first = false;
            item(self)?;
        }
        Ok(())
    }

    fn parse_block(&mut self) -> Result<()> {
        self.stream.next()?;
        let name = self.stream.expect("name")?.value;
        self.stream.skip_if("name:scoped")?;
        self.stream.skip_if("name:required")?;
        if self.stream.current.kind == "sub" {
            return self.fail("Block names in Jinja have to be valid Python identifiers and may not contain hyphens, use an underscore instead.".into(), None);
        }
        self.parse_statements(&["name:endblock"], true)?;
        self.stream.skip_if(&format!("name:{name}"))?;
        Ok(())
    }

    fn parse_import_context(&mut self) -> Result<()> {
        if self.stream.current.test_any(&["name:with", "name:without"])
            && self.stream.look()?.test("name:context")
        {
            self.stream.next()?;
            self.stream.next()?;
        }
        Ok(())
    }

    fn parse_include(&mut self) -> Result<()> {
        self.stream.next()?;
        self.parse_expression(true)?;
        if self.stream.current.test("name:ignore") && self.stream.look()?.test("name:missing") {
            self.stream.next()?;
            self.stream.next()?;
        }
        self.parse_import_context()
    }

    fn parse_import(&mut self) -> Result<()> {
        self.stream.next()?;
        self.parse_expression(true)?;
        self.stream.expect("name:as")?;
        self.parse_assign_target(true, &[], false)?;
        self.parse_import_context()
    }

    fn parse_from(&mut self) -> Result<()> {
        self.stream.next()?;
        self.parse_expression(true)?;
        self.stream.expect("name:import")?;
        let mut names = 0;
        loop {
            if names > 0 {
                self.stream.expect("comma")?;
            }
            if self.stream.current.kind == "name" {
                if self.import_context_end()? {
                    break;
                }
                let token = self.stream.current;
                self.parse_assign_target(true, &[], false)?;
                if token.value.starts_with('_') {
                    return self.fail(
                        "names starting with an underline can not be imported".into(),
                        Some(token.line),
                    );
                }
                if self.stream.skip_if("name:as")? {
                    self.parse_assign_target(true, &[], false)?;
                }
                names += 1;
                if self.import_context_end()? || self.stream.current.kind != "comma" {
                    break;
                }
            } else {
                self.stream.expect("name")?;
            }
        }
        Ok(())
    }

    /// `with context` / `without context` at the end of a `from` import.
    fn import_context_end(&mut self) -> Result<bool> {
        if matches!(self.stream.current.value, "with" | "without")
            && self.stream.look()?.test("name:context")
        {
            self.stream.next()?;
            self.stream.next()?;
            return Ok(true);
        }
        Ok(false)
    }

    fn parse_signature(&mut self) -> Result<()> {
        self.stream.expect("lparen")?;
        let (mut args, mut defaults) = (0, 0);
        while self.stream.current.kind != "rparen" {
            if args > 0 {
                self.stream.expect("comma")?;
            }
            self.parse_assign_target(true, &[], false)?;
            if self.stream.skip_if("assign")? {
                self.parse_expression(true)?;
                defaults += 1;
            } else if defaults > 0 {
                return self.fail("non-default argument follows default argument".into(), None);
            }
            args += 1;
        }
        self.stream.expect("rparen").map(drop)
    }

    fn parse_call_block(&mut self) -> Result<()> {
        let line = self.stream.next()?.line;
        if self.stream.current.kind == "lparen" {
            self.parse_signature()?;
        }
        if self.parse_expression(true)? != Expr::Call {
            return self.fail("expected call".into(), Some(line));
        }
        self.parse_statements(&["name:endcall"], true)
    }

    fn parse_macro(&mut self) -> Result<()> {
        self.stream.next()?;
        self.parse_assign_target(true, &[], false)?;
        self.parse_signature()?;
        self.parse_statements(&["name:endmacro"], true)
    }

    fn parse_print(&mut self) -> Result<()> {
        self.stream.next()?;
        self.comma_list("block_end", |p| p.parse_expression(true).map(drop))
    }

    /// Jinja2's `parse_assign_target` (a tuple of targets, or with
    /// `name_only` one name).
    fn parse_assign_target(
        &mut self,
        name_only: bool,
        extra_end_rules: &[&str],
        with_namespace: bool,
    ) -> Result<Expr> {
        let line = self.stream.current.line;
        let target = if name_only {
            self.stream.expect("name")?;
            Expr::Name
        } else {
            self.parse_tuple_with(true, true, extra_end_rules, false, with_namespace)?
        };
        if !target.can_assign() {
            return self.fail(
                format!("can't assign to {}", repr(target.class())),
                Some(line),
            );
        }
        Ok(target)
    }

    fn parse_expression(&mut self, with_condexpr: bool) -> Result<Expr> {
        if !with_condexpr {
            return self.parse_or();
        }
        let mut expr = self.parse_or()?;
        while self.stream.skip_if("name:if")? {
            self.parse_or()?;
            if self.stream.skip_if("name:else")? {
                self.parse_expression(true)?;
            }
            expr = Expr::Other;
        }
        Ok(expr)
    }

    fn parse_or(&mut self) -> Result<Expr> {
        self.parse_joined("name:or", Self::parse_and)
    }

    fn parse_and(&mut self) -> Result<Expr> {
        self.parse_joined("name:and", Self::parse_not)
    }

    /// Operands joined by the keyword `word` (`or`, `and`).
    fn parse_joined(&mut self, word: &str, operand: fn(&mut Self) -> Result<Expr>) -> Result<Expr> {
        let mut left = operand(self)?;
        while self.stream.skip_if(word)? {
            operand(self)?;
            left = Expr::Other;
        }
        Ok(left)
    }

    fn parse_not(&mut self) -> Result<Expr> {
        if self.stream.current.test("name:not") {
            self.stream.next()?;
            self.parse_not()?;
            return Ok(Expr::Other);
        }
        self.parse_compare()
    }

    fn parse_compare(&mut self) -> Result<Expr> {
        let mut expr = self.parse_binary(0)?;
        loop {
            let kind = self.stream.current.kind;
            if matches!(kind, "eq" | "ne" | "lt" | "lteq" | "gt" | "gteq") {
                self.stream.next()?;
            } else if self.stream.skip_if("name:in")? {
            } else if self.stream.current.test("name:not") && self.stream.look()?.test("name:in") {
                self.stream.next()?;
                self.stream.next()?;
            } else {
                return Ok(expr);
            }
            self.parse_binary(0)?;
            expr = Expr::Other;
        }
    }

    /// `math1` (`+ -`), `concat` (`~`), `math2` (`* / // %`) and `pow`
    /// (`**`), by level.
    fn parse_binary(&mut self, level: usize) -> Result<Expr> {
        const LEVELS: &[&[&str]] = &[
            &["add", "sub"],
            &["tilde"],
            &["mul", "div", "floordiv", "mod"],
            &["pow"],
        ];
        let operand = |p: &mut Self| match level + 1 < LEVELS.len() {
            true => p.parse_binary(level + 1),
            false => p.parse_unary(true),
        };
        let mut left = operand(self)?;
        while LEVELS[level].contains(&self.stream.current.kind) {
            self.stream.next()?;
            operand(self)?;
            left = Expr::Other;
        }
        Ok(left)
    }

    fn parse_unary(&mut self, with_filter: bool) -> Result<Expr> {
        self.depth += 1;
        let r = self.parse_unary_in(with_filter);
        self.depth -= 1;
        r
    }

    fn parse_unary_in(&mut self, with_filter: bool) -> Result<Expr> {
        if self.depth > MAX_DEPTH {
            return too_deep();
        }
        let mut node = match self.stream.current.kind {
            "sub" | "add" => {
                self.stream.next()?;
                self.parse_unary(false)?;
                Expr::Other
            }
            _ => self.parse_primary(false)?,
        };
        node = self.parse_postfix(node)?;
        if with_filter {
            node = self.parse_filter_expr(node)?;
        }
        Ok(node)
    }

    fn parse_primary(&mut self, with_namespace: bool) -> Result<Expr> {
        let token = self.stream.current;
        match token.kind {
            "name" => {
                self.stream.next()?;
                match token.value {
                    "true" | "false" | "True" | "False" | "none" | "None" => Ok(Expr::Const),
                    _ if with_namespace && self.stream.current.kind == "dot" => {
                        self.stream.next()?;
                        self.stream.expect("name")?;
                        Ok(Expr::NsRef)
                    }
                    _ => Ok(Expr::Name),
                }
            }
            "string" => {
                self.stream.next()?;
                while self.stream.current.kind == "string" {
                    self.stream.next()?;
                }
                Ok(Expr::Const)
            }
            "integer" | "float" => {
                self.stream.next()?;
                Ok(Expr::Const)
            }
            "lparen" => {
                self.stream.next()?;
                let node = self.parse_tuple(true, &[], true)?;
                self.stream.expect("rparen")?;
                Ok(node)
            }
            "lbracket" => self
                .parse_seq("lbracket", "rbracket", false)
                .map(|_| Expr::List),
            "lbrace" => self.parse_seq("lbrace", "rbrace", true).map(|_| Expr::Dict),
            _ => self.fail(
                format!("unexpected {}", repr(&describe(&token))),
                Some(token.line),
            ),
        }
    }

    /// Jinja2's `parse_tuple` of expressions (see [`Parser::parse_tuple_with`]).
    fn parse_tuple(
        &mut self,
        with_condexpr: bool,
        extra_end_rules: &[&str],
        explicit_parentheses: bool,
    ) -> Result<Expr> {
        self.parse_tuple_with(
            false,
            with_condexpr,
            extra_end_rules,
            explicit_parentheses,
            false,
        )
    }

    fn parse_tuple_with(
        &mut self,
        simplified: bool,
        with_condexpr: bool,
        extra_end_rules: &[&str],
        explicit_parentheses: bool,
        with_namespace: bool,
    ) -> Result<Expr> {
        let mut args = Vec::new();
        let mut is_tuple = false;
        loop {
            if !args.is_empty() {
                self.stream.expect("comma")?;
            }
            if self.is_tuple_end(extra_end_rules) {
                break;
            }
            args.push(match simplified {
                true => self.parse_primary(with_namespace)?,
                false => self.parse_expression(with_condexpr)?,
            });
            if self.stream.current.kind == "comma" {
                is_tuple = true;
            } else {
                break;
            }
        }
        if !is_tuple {
            if let Some(one) = args.pop() {
                return Ok(one);
            }
            if !explicit_parentheses {
                return self.fail(
                    format!(
                        "Expected an expression, got {}",
                        repr(&describe(&self.stream.current))
                    ),
                    None,
                );
            }
        }
        Ok(Expr::Tuple(args))
    }

    /// A list (`[a, b]`) or a dict (`{k: v}`) literal.
    fn parse_seq(&mut self, open: &str, close: &str, pairs: bool) -> Result<()> {
        self.stream.expect(open)?;
        let mut first = true;
        while self.stream.current.kind != close {
            if !first {
                self.stream.expect("comma")?;
            }
            first = false;
            if self.stream.current.kind == close {
                break;
            }
            self.parse_expression(true)?;
            if pairs {
                self.stream.expect("colon")?;
                self.parse_expression(true)?;
            }
        }
        self.stream.expect(close).map(drop)
    }

    fn parse_postfix(&mut self, mut node: Expr) -> Result<Expr> {
        loop {
            match self.stream.current.kind {
                "dot" | "lbracket" => {
                    self.parse_subscript()?;
                    node = Expr::Other;
                }
                "lparen" => {
                    self.parse_call_args()?;
                    node = Expr::Call;
                }
                _ => return Ok(node),
            }
        }
    }

    fn parse_filter_expr(&mut self, mut node: Expr) -> Result<Expr> {
        loop {
            match self.stream.current.kind {
                "pipe" => {
                    self.parse_filter(false)?;
                    node = Expr::Other;
                }
                "name" if self.stream.current.value == "is" => {
                    self.parse_test()?;
                    node = Expr::Other;
                }
                "lparen" => {
                    self.parse_call_args()?;
                    node = Expr::Call;
                }
                _ => return Ok(node),
            }
        }
    }

    fn parse_subscript(&mut self) -> Result<()> {
        let token = self.stream.next()?;
        if token.kind == "dot" {
            let attr = self.stream.current;
            self.stream.next()?;
            if attr.kind != "name" && attr.kind != "integer" {
                return self.fail("expected name or number".into(), Some(attr.line));
            }
            return Ok(());
        }
        if token.kind == "lbracket" {
            self.comma_list("rbracket", Self::parse_subscribed)?;
            return self.stream.expect("rbracket").map(drop);
        }
        self.fail("expected subscript expression".into(), Some(token.line))
    }

    fn parse_subscribed(&mut self) -> Result<()> {
        if self.stream.current.kind == "colon" {
            self.stream.next()?;
        } else {
            self.parse_expression(true)?;
            if self.stream.current.kind != "colon" {
                return Ok(());
            }
            self.stream.next()?;
        }
        if !matches!(self.stream.current.kind, "colon" | "rbracket" | "comma") {
            self.parse_expression(true)?;
        }
        if self.stream.current.kind == "colon" {
            self.stream.next()?;
            if !matches!(self.stream.current.kind, "rbracket" | "comma") {
                self.parse_expression(true)?;
            }
        }
        Ok(())
    }

    fn parse_call_args(&mut self) -> Result<()> {
        let token = self.stream.expect("lparen")?;
        let (mut args, mut kwargs, mut dyn_args, mut dyn_kwargs) = (false, false, false, false);
        let mut require_comma = false;
        let ensure = |p: &Self, ok: bool| -> Result<()> {
            match ok {
                true => Ok(()),
                false => p.fail(
                    "invalid syntax for function call expression".into(),
                    Some(token.line),
                ),
            }
        };
        while self.stream.current.kind != "rparen" {
            if require_comma {
                self.stream.expect("comma")?;
                if self.stream.current.kind == "rparen" {
                    break;
                }
            }
            match self.stream.current.kind {
                "mul" => {
                    ensure(self, !dyn_args && !dyn_kwargs)?;
                    self.stream.next()?;
                    self.parse_expression(true)?;
                    dyn_args = true;
                }
                "pow" => {
                    ensure(self, !dyn_kwargs)?;
                    self.stream.next()?;
                    self.parse_expression(true)?;
                    dyn_kwargs = true;
                }
                _ => {
                    if self.stream.current.kind == "name" && self.stream.look()?.kind == "assign" {
                        ensure(self, !dyn_kwargs)?;
                        self.stream.next()?;
                        self.stream.next()?;
                        self.parse_expression(true)?;
                        kwargs = true;
                    } else {
                        ensure(self, !dyn_args && !dyn_kwargs && !kwargs)?;
                        self.parse_expression(true)?;
                        args = true;
                    }
                }
            }
            require_comma = true;
        }
        let _ = args;
        self.stream.expect("rparen").map(drop)
    }

    fn parse_filter(&mut self, mut start_inline: bool) -> Result<()> {
        while self.stream.current.kind == "pipe" || start_inline {
            if !start_inline {
                self.stream.next()?;
            }
            self.stream.expect("name")?;
            while self.stream.current.kind == "dot" {
                self.stream.next()?;
                self.stream.expect("name")?;
            }
            if self.stream.current.kind == "lparen" {
                self.parse_call_args()?;
            }
            start_inline = false;
        }
        Ok(())
    }

    fn parse_test(&mut self) -> Result<()> {
        self.stream.next()?;
        if self.stream.current.test("name:not") {
            self.stream.next()?;
        }
        self.stream.expect("name")?;
        while self.stream.current.kind == "dot" {
            self.stream.next()?;
            self.stream.expect("name")?;
        }
        let current = self.stream.current;
        if current.kind == "lparen" {
            self.parse_call_args()?;
        } else if matches!(
            current.kind,
            "name" | "string" | "integer" | "float" | "lparen" | "lbracket" | "lbrace"
        ) && !current.test_any(&["name:else", "name:or", "name:and"])
        {
            if current.is_name("is") {
                return self.fail("You cannot chain multiple tests with is".into(), None);
            }
            let arg = self.parse_primary(false)?;
            self.parse_postfix(arg)?;
        }
        Ok(())
    }

    fn subparse(&mut self, end_tokens: Option<&'static [&'static str]>) -> Result<()> {
        if self.end_token_stack.len() > MAX_DEPTH {
            return too_deep();
        }
        if let Some(ends) = end_tokens {
            self.end_token_stack.push(ends);
        }
        let r = self.subparse_body(end_tokens);
        if end_tokens.is_some() {
            self.end_token_stack.pop();
        }
        r
    }

    fn subparse_body(&mut self, end_tokens: Option<&'static [&'static str]>) -> Result<()> {
        while self.stream.more() {
            match self.stream.current.kind {
                "data" => {
                    self.stream.next()?;
                }
                "variable_begin" => {
                    self.stream.next()?;
                    self.parse_tuple(true, &[], false)?;
                    self.stream.expect("variable_end")?;
                }
                "block_begin" => {
                    self.stream.next()?;
                    if let Some(ends) = end_tokens {
                        if self.stream.current.test_any(ends) {
                            return Ok(());
                        }
                    }
                    self.parse_statement()?;
                    self.stream.expect("block_end")?;
                }
                _ => return self.fail("internal parsing error".into(), None),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(src: &str) -> Option<(String, usize)> {
        first_error(src, &SyntaxConfig::default())
    }

    #[test]
    fn valid_templates_have_no_error() {
        for src in [
            "a {{ b }} c",
            "{% if a %}x{% elif b %}y{% else %}z{% endif %}",
            "{% for k, v in d.items() if v recursive %}{{ loop(v) }}{% else %}{% endfor %}",
            "{% set x = 1 %}{% set y %}t{% endset %}{% do l.append(1) %}",
            "{% macro m(a, b=1) %}{{ caller() }}{% endmacro %}{% call m(1) %}x{% endcall %}",
            "{% from 'x.jinja' import a as b, c with context %}{% import 'y' as y %}",
            "{% load_yaml as cfg %}a: 1{% endload %}{% import_yaml 'f.yaml' as f %}",
            "{{ a[1:2] }}{{ a.0 }}{{ f(*args, **kw) }}{{ x is divisibleby 3 }}",
            "{% raw %}{{ not parsed {% endraw %}{# a comment #}",
            "{{ {'a': [1, 2.5e3, 0x1f], 'b': (1,)} | tojson }}",
            // An opener with nothing after it (the last newline dropped).
            "a {% raw %}",
            "a {#\n",
        ] {
            assert_eq!(err(src), None, "{src}");
        }
    }

    #[test]
    fn deep_nesting_gives_up_instead_of_overflowing() {
        let deep = format!("{{{{ {}1{} }}}}", "(".repeat(100_000), ")".repeat(99_999));
        assert_eq!(err(&deep), None);
        let blocks = "{% if 1 %}".repeat(100_000);
        assert_eq!(err(&blocks), None);
        let minus = format!("{{{{ {}1 }}}}", "-".repeat(100_000));
        assert_eq!(err(&minus), None);
    }

    #[test]
    fn errors_are_jinja2s() {
        let cases = [
            ("{% if %}", "Expected an expression, got 'end of statement block'", 1),
            ("{{ }}", "Expected an expression, got 'end of print statement'", 1),
            ("{{ 1 + }}", "unexpected 'end of print statement'", 1),
            ("\n{{ [1, 2 }}", "unexpected '}', expected ']'", 2),
            ("{{ 1 + 2) }}", "unexpected ')'", 1),
            ("{% for i %}{% endfor %}", "expected token 'in', got 'end of statement block'", 1),
            ("{% import 'x' %}", "expected token 'as', got 'end of statement block'", 1),
            ("{{ foo(a=1, 2) }}", "invalid syntax for function call expression", 1),
            ("{# hi\nx", "Missing end of comment tag", 1),
            ("{% raw %}\nx", "Missing end of raw directive", 1),
            ("{{ 'abc }}", "unexpected char \"'\" at 3", 1),
            ("{{ foo", "unexpected end of template, expected 'end of print statement'.", 1),
            ("{% if 1 \nx", "expected token 'end of statement block', got 'x'", 2),
            ("{{ foo. }}", "expected name or number", 1),
            ("{% 'a' %}", "tag name expected", 1),
            ("{% set true = 1 %}", "can't assign to 'const'", 1),
            ("{% macro m(a=1, b) %}{% endmacro %}", "non-default argument follows default argument", 1),
            (
                "{% if a %}\n{% for x in y %}\n{% endif %}",
                "Encountered unknown tag 'endif'. You probably made a nesting mistake. Jinja is expecting this tag, but currently looking for 'endfor' or 'else'. The innermost block that needs to be closed is 'for'.",
                3,
            ),
            // At the end, the line of the last token (the text after the tag).
            (
                "{% if a %}\nx",
                "Unexpected end of template. Jinja was looking for the following tags: 'elif' or 'else' or 'endif'. The innermost block that needs to be closed is 'if'.",
                1,
            ),
        ];
        for (src, message, line) in cases {
            assert_eq!(err(src), Some((message.to_string(), line)), "{src}");
        }
    }
}
