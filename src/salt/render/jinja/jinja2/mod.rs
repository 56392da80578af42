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
//!
//! [`lex`] is Jinja2's lexer, [`parse`] its token stream and parser.

mod lex;
mod parse;

use minijinja::syntax::SyntaxConfig;

pub(crate) use lex::SyntaxError;

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
    parse::first_error(lex::lex(text, syntax))
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
