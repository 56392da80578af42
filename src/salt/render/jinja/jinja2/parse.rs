//! Jinja2 3.1's token stream and parser, for [`super`]: the grammar
//! (statements with the `do`, loop-control and Salt serializer tags,
//! expressions) read over [`super::lex`]'s tokens for its first error,
//! building no tree.

use super::lex::{describe, describe_expr, repr, Result, SyntaxError, Token};

/// Jinja2's first syntax error in the lexer's `tokens` (a lexer error
/// counts where the parser reaches it).
pub(super) fn first_error(tokens: Vec<Result<Token<'_>>>) -> Option<SyntaxError> {
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
