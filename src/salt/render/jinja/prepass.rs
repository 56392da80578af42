//! Source pre-pass: rewrites the Jinja2/Salt syntax minijinja lacks into
//! constructs it has, on minijinja's own tokenizer (same `SyntaxConfig` as
//! the engine, so raw blocks, comments, custom delimiters and whitespace
//! markers are handled exactly as the engine sees them). Rewrites never add
//! or remove newlines, so engine line numbers stay those of the original.
//!
//! Before both: whitespace Jinja2's lexer skips inside tags (Python's `\s`:
//! U+00A0, U+2028, `\v`, ...) but minijinja's rejects becomes ASCII spaces.
//!
//! Statement level (first pass):
//! * `{% import_yaml EXPR as NAME %}` → `{% set NAME = __import_yaml(EXPR, ctx) %}`
//!   (also `import_json`, `import_text`; `ctx` is `true` for `with context`);
//! * `{% load_yaml as NAME %}BODY{% endload %}` →
//!   `{% set NAME %}BODY{% endset %}{% set NAME = NAME|load_yaml %}` (json, text);
//! * `{% do EXPR %}` → `{% do __noop(EXPR) %}` (minijinja only accepts calls);
//! * `{% for X in EXPR ... %}` → `{% for X in __iter(EXPR) ... %}` (None is
//!   not iterable in Jinja2);
//! * `{% if A, B %}` / `{% elif A, B %}` → `{% if (A, B) %}` (Jinja2 reads
//!   the test as a tuple);
//! * `{% macro m(a, b=a * 2) %}` → the default moved into the body, and a
//!   macro whose body reads `varargs` / `kwargs` declares them and is
//!   rebound after `{% endmacro %}` to `__varmacro(m, ...)` (see `macros`);
//! * `{% import EXPR ... %}` / `{% from EXPR import ... %}` without `with
//!   context` → the same, between `{% set tplfile, tpldir, tpldot =
//!   __import_enter(EXPR) %}` and `{% set ... = __import_leave() %}`: the
//!   imported template sees Salt's loader globals (see `loader::import_enter`).
//!
//! Expression level (second pass):
//! * map and list literals → `__mut({...})`, `__mut([...])` (mutable containers);
//! * `{% set NAME = RHS %}` (single target) → `{% set NAME = __mut((RHS)) %}`;
//! * `{% set A, B = RHS %}` → `{% set A, B = __unpack((RHS), 2) %}` and
//!   `{% for A, B in EXPR %}` → `{% for A, B in __iter_unpack(EXPR, 2) %}`
//!   (Python's unpacking: a string gives its characters, a length that
//!   differs fails);
//! * `'literal' % OPERAND` → `'literal'|__pyfmt(OPERAND)`.

use std::borrow::Cow;
use std::fmt::Write as _;

use minijinja::machinery::{tokenize, Token};
use minijinja::syntax::SyntaxConfig;

use super::py::print::is_py_space;

/// One token: what it is and its byte range in the source.
struct Tok<'a> {
    tok: Token<'a>,
    start: usize,
    end: usize,
}

fn lex<'a>(src: &'a str, syntax: &SyntaxConfig) -> Option<Vec<Tok<'a>>> {
    lex_at(src, syntax).ok()
}

/// The tokens of `src`, or the byte offset where the tokenizer gave up
/// (`None` when it did not say).
fn lex_at<'a>(src: &'a str, syntax: &SyntaxConfig) -> Result<Vec<Tok<'a>>, Option<usize>> {
    // Room for a token per 8 bytes, about what state files have: growing
    // from empty cost more than the tokenizer itself.
    let mut out = Vec::with_capacity(src.len() / 8 + 8);
    for item in tokenize(src, false, syntax.clone()) {
        let (tok, span) = item.map_err(|e| e.range().map(|r| r.start))?;
        out.push(Tok {
            tok,
            start: span.start_offset as usize,
            end: span.end_offset as usize,
        });
    }
    Ok(out)
}

/// `src` with every whitespace character Jinja2 skips inside tags and
/// minijinja rejects (U+00A0 no-break space, U+2028, `\v`, ...) replaced
/// by as many ASCII spaces as it has bytes, so offsets stay; `None` when
/// the tokenizer fails for another reason (the engine reports it).
fn with_ascii_spaces(src: &str, syntax: &SyntaxConfig) -> Option<String> {
    let mut text = src.to_string();
    // Each round replaces one character; a source with thousands of them
    // inside tags is not worth the time.
    for _ in 0..1000 {
        match lex_at(&text, syntax) {
            Ok(_) => return Some(text),
            Err(Some(at)) => {
                let c = text.get(at..)?.chars().next()?;
                if !is_py_space(c) || c.is_ascii_whitespace() {
                    return None;
                }
                text.replace_range(at..at + c.len_utf8(), &" ".repeat(c.len_utf8()));
            }
            Err(None) => return None,
        }
    }
    None
}

/// Rewrite `src`. A source the tokenizer rejects is returned unchanged (the
/// engine then reports the syntax error itself), unless what it rejected
/// is whitespace Jinja2 accepts: then the rewrite of the text with that
/// whitespace made ASCII.
pub(super) fn rewrite<'s>(src: &'s str, syntax: &SyntaxConfig) -> Cow<'s, str> {
    let Some(tokens) = lex(src, syntax) else {
        return match with_ascii_spaces(src, syntax) {
            Some(text) => rewrite(&text, syntax).into_owned().into(),
            None => src.into(),
        };
    };
    let stmts = statements(src, &tokens, syntax);
    if stmts.edits.is_empty() {
        // Unchanged by the first pass: its tokens serve the second.
        return expressions(src, &tokens);
    }
    if stmts.one_pass && tags_balanced(&tokens) {
        // The first pass only wrapped token ranges and inserted text with
        // nothing the second pass rewrites: both passes' edits apply to
        // `src` at once, with no second tokenizing.
        let mut wraps = expression_wraps(&tokens);
        wraps.extend(stmts.wraps);
        let mut edits = wrap_edits(wraps);
        edits.extend(stmts.inserts);
        return apply(src, edits).into();
    }
    relex(apply(src, stmts.edits), syntax).into()
}

/// The second pass over the text the first pass rewrote (tokenized again).
fn relex(text: String, syntax: &SyntaxConfig) -> String {
    let rewritten = match lex(&text, syntax) {
        Some(tokens) => match expressions(&text, &tokens) {
            Cow::Owned(s) => Some(s),
            Cow::Borrowed(_) => None,
        },
        None => None,
    };
    rewritten.unwrap_or(text)
}

/// A text replacement: delete `del` bytes at `pos`, insert `text`.
#[derive(Clone)]
struct Edit {
    pos: usize,
    del: usize,
    text: String,
    /// Sort key among edits at the same position.
    order: (u8, i64, i64),
}

fn apply(src: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(|e| (e.pos, e.order));
    let mut out = String::with_capacity(src.len() + edits.len() * 8);
    let mut cur = 0;
    for e in edits {
        if e.pos < cur {
            continue;
        }
        out.push_str(&src[cur..e.pos]);
        out.push_str(&e.text);
        cur = e.pos + e.del;
    }
    out.push_str(&src[cur..]);
    out
}

fn replace(pos: usize, end: usize, text: String) -> Edit {
    Edit {
        pos,
        del: end - pos,
        text,
        order: (1, 0, 0),
    }
}

/// What the first pass found to rewrite.
struct Stmts {
    /// Every edit, for applying the first pass on its own.
    edits: Vec<Edit>,
    /// The same edits when they can go with the second pass's in one go:
    /// wrappers of token ranges (`for`, `do`) ...
    wraps: Vec<Wrap>,
    /// ... and insertions (`import` / `from`).
    inserts: Vec<Edit>,
    /// Whether `wraps` and `inserts` stand for all of `edits`: no edit
    /// replaced a statement, and no inserted text holds something the
    /// second pass rewrites (a literal or `%` in a copied expression).
    one_pass: bool,
}

/// Whether tokens `from..to` hold something the second pass rewrites.
fn has_expression_rewrites(t: &[Tok], from: usize, to: usize) -> bool {
    t[from..to]
        .iter()
        .any(|x| matches!(x.tok, Token::BraceOpen | Token::BracketOpen | Token::Mod))
}

/// Whether wrapping tokens `from..to` in parentheses leaves the second
/// pass's view of the text as it was, given [`tags_balanced`] (so the range,
/// which starts and ends at its tag's bracket depth, balances): the range
/// must not end with `%`, whose rewrite looks at the token after it, which
/// the `)` would become.
fn wrappable(t: &[Tok], from: usize, to: usize) -> bool {
    !matches!(t[from..to].last().map(|x| &x.tok), Some(Token::Mod))
}

/// Whether brackets balance within every tag (`{% %}`, `{{ }}`) of the
/// token list: a template that is not (a syntax error the engine will
/// report) takes the two-pass path, whose output is the reference. The
/// tokenizer tracks bracket depth to tell a tag's end from `%}` inside an
/// expression, so a wrapper added to an unbalanced tag changes how it
/// reads on.
fn tags_balanced(t: &[Tok]) -> bool {
    let mut depth = 0i32;
    for x in t {
        match x.tok {
            Token::ParenOpen | Token::BracketOpen | Token::BraceOpen => depth += 1,
            Token::ParenClose | Token::BracketClose | Token::BraceClose if depth == 0 => {
                return false;
            }
            Token::ParenClose | Token::BracketClose | Token::BraceClose => depth -= 1,
            Token::BlockEnd | Token::VariableEnd if depth != 0 => return false,
            _ => {}
        }
    }
    depth == 0
}

/// A statement wrapper: `pre` before `from`, `post` after `to`, outside
/// any wrapper of the second pass on the same range.
fn stmt_wrap(
    from: usize,
    to: usize,
    pre: impl Into<Cow<'static, str>>,
    post: impl Into<Cow<'static, str>>,
) -> Wrap {
    Wrap {
        open: from,
        close: to,
        del: 0,
        pre: pre.into(),
        post: post.into(),
        rank: -1,
    }
}

/// The names an import without context takes, each with the variable it
/// sets, from the tokens `from..to` after `import` (`a, b as c`) or after
/// `as` (`m`; the name is then `*`, the module). `None` when they do not
/// read as such.
fn imported_names<'a>(
    t: &[Tok<'a>],
    from: usize,
    to: usize,
    module: bool,
) -> Option<Vec<(&'a str, &'a str)>> {
    let mut k = from;
    let mut out = Vec::new();
    while k < to {
        let Token::Ident(name) = t[k].tok else {
            return None;
        };
        if (name == "with" || name == "without")
            && matches!(t.get(k + 1).map(|x| &x.tok), Some(Token::Ident("context")))
            && k + 2 == to
        {
            break;
        }
        k += 1;
        let mut target = name;
        if !module && matches!(t.get(k).map(|x| &x.tok), Some(Token::Ident("as"))) {
            let Some(Token::Ident(alias)) = t.get(k + 1).map(|x| &x.tok) else {
                return None;
            };
            target = alias;
            k += 2;
        }
        out.push((if module { "*" } else { name }, target));
        if module {
            if k < to && !matches!(t[k].tok, Token::Ident("with" | "without")) {
                return None;
            }
            continue;
        }
        if k < to && matches!(t[k].tok, Token::Comma) {
            k += 1;
        }
    }
    (!out.is_empty()).then_some(out)
}

/// First pass over the tokens `t` of `src`.
fn statements(src: &str, t: &[Tok], syntax: &SyntaxConfig) -> Stmts {
    let (bstart, bend) = syntax.block_delimiters();
    let mut edits = Vec::new();
    let mut wraps = Vec::new();
    let mut inserts = Vec::new();
    let mut one_pass = true;
    let mut loads: Vec<(String, &str)> = Vec::new();
    let mut macros: Vec<MacroDecl> = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if !matches!(t[i].tok, Token::BlockStart) {
            i += 1;
            continue;
        }
        let Some(j) = (i + 1..t.len()).find(|&k| matches!(t[k].tok, Token::BlockEnd)) else {
            break;
        };
        let inner_end = t[j].start;
        if let Some(Token::Ident(kw)) = t.get(i + 1).map(|x| &x.tok) {
            let kw_start = t[i + 1].start;
            // Jinja2 skips one `:` before the `%}` of a statement that opens
            // a body (`{% for x in xs: %}`, `{% if a: %}`, "for Python
            // compatibility"); minijinja does not.
            let mut j = j;
            if body_colon(t, i, j, kw) {
                j -= 1;
                // After any insertion at the same place (the `for`
                // wrapper's `)` right before the colon).
                edits.push(Edit {
                    order: (2, 0, 0),
                    ..replace(t[j].start, t[j].end, " ".into())
                });
                one_pass = false;
            }
            match *kw {
                "import_yaml" | "import_json" | "import_text" if j > i + 2 => {
                    // `{% import_yaml EXPR as NAME [with|without context] %}`
                    let as_idx = (i + 3..j).rev().find(|&k| {
                        matches!(t[k].tok, Token::Ident("as")) && depth_at(t, i + 2, k) == 0
                    });
                    if let Some(a) = as_idx {
                        if let Some(Token::Ident(name)) = t.get(a + 1).map(|x| &x.tok) {
                            let expr = &src[t[i + 2].start..t[a].start];
                            let with_ctx =
                                (a + 2..j).any(|k| matches!(t[k].tok, Token::Ident("with")));
                            edits.push(replace(
                                kw_start,
                                inner_end,
                                format!("set {name} = __{kw}({}, {with_ctx}) ", expr.trim()),
                            ));
                            one_pass = false;
                        }
                    }
                }
                "load_yaml" | "load_json" | "load_text" => {
                    if let (Some(Token::Ident("as")), Some(Token::Ident(name))) =
                        (t.get(i + 2).map(|x| &x.tok), t.get(i + 3).map(|x| &x.tok))
                    {
                        loads.push((name.to_string(), kw));
                        edits.push(replace(kw_start, inner_end, format!("set {name} ")));
                        one_pass = false;
                    }
                }
                "endload" => {
                    if let Some((name, filter)) = loads.pop() {
                        edits.push(replace(
                            kw_start,
                            inner_end,
                            format!("endset {bend}{bstart} set {name} = {name}|{filter} "),
                        ));
                        one_pass = false;
                    }
                }
                "import" | "from" if j > i + 2 => {
                    // Without `with context` (Jinja2's default) the imported
                    // template sees the loader's path globals, not ours.
                    let with_ctx = j >= 2
                        && matches!(t[j - 1].tok, Token::Ident("context"))
                        && matches!(t[j - 2].tok, Token::Ident("with"));
                    let end = if *kw == "import" { "as" } else { "import" };
                    let expr_end = (i + 2..j).find(|&k| {
                        matches!(t[k].tok, Token::Ident(w) if w == end)
                            && depth_at(t, i + 2, k) == 0
                    });
                    if let (false, Some(e)) = (with_ctx, expr_end) {
                        let expr = src[t[i + 2].start..t[e].start].trim();
                        let vars = super::loader::PATH_VARS.join(", ");
                        // Jinja2 evaluates the template once per render
                        // and every import takes from that module: the
                        // statement itself is kept but skipped, the module
                        // is imported only when this render has none yet
                        // (`loader::import_fresh` / `import_leave`).
                        let (fresh, leave) = match imported_names(t, e + 1, j, *kw == "import") {
                            Some(pairs) => {
                                let names: Vec<String> =
                                    pairs.iter().map(|(n, _)| format!("'{n}'")).collect();
                                let names = names.join(", ");
                                let targets: Vec<&str> = pairs.iter().map(|p| p.1).collect();
                                let targets = targets.join(", ");
                                (
                                    format!(
                                        "if __import_fresh() {bend}{bstart} import {expr} as \
                                         __import_module {bend}{bstart} endif {bend}{bstart} \
                                         if false {bend}{bstart} "
                                    ),
                                    format!(
                                        " {bend}{bstart} endif {bend}{bstart} set {vars}, {targets} \
                                         = __import_leave(__import_module, {names}) "
                                    ),
                                )
                            }
                            None => (
                                String::new(),
                                format!(" {bend}{bstart} set {vars} = __import_leave() "),
                            ),
                        };
                        let enter = replace(
                            kw_start,
                            kw_start,
                            format!("set {vars} = __import_enter({expr}) {bend}{bstart} {fresh}"),
                        );
                        let leave = replace(inner_end, inner_end, leave);
                        one_pass &= !has_expression_rewrites(t, i + 2, e);
                        inserts.push(enter.clone());
                        inserts.push(leave.clone());
                        edits.push(enter);
                        edits.push(leave);
                    }
                }
                "for" if j > i + 3 => {
                    // Jinja2 cannot iterate None (`'NoneType' object is not
                    // iterable`); minijinja loops zero times.
                    let at0 = |k: usize| depth_at(t, i + 2, k) == 0;
                    let in_idx =
                        (i + 2..j).find(|&k| matches!(t[k].tok, Token::Ident("in")) && at0(k));
                    if let Some(n) = in_idx.filter(|&n| n + 1 < j) {
                        let end = (n + 1..j)
                            .find(|&k| {
                                matches!(t[k].tok, Token::Ident("if" | "recursive")) && at0(k)
                            })
                            .unwrap_or(j);
                        let (from, to) = (t[n + 1].start, t[end - 1].end);
                        // `for x in 'a', 'b'`: Jinja2 reads a bare tuple.
                        let tuple =
                            (n + 1..end).any(|k| matches!(t[k].tok, Token::Comma) && at0(k));
                        // `for a, b in ...`: each item is unpacked as
                        // Python does (a string into its characters).
                        let commas = (i + 2..n)
                            .filter(|&k| matches!(t[k].tok, Token::Comma) && at0(k))
                            .count();
                        let targets = match t[n - 1].tok {
                            Token::Comma => commas,
                            _ => commas + 1,
                        };
                        let (pre, post): (Cow<'static, str>, Cow<'static, str>) =
                            match (tuple, targets > 1 || commas > 0) {
                                (true, false) => ("__iter((".into(), "))".into()),
                                (false, false) => ("__iter(".into(), ")".into()),
                                (true, true) => {
                                    ("__iter_unpack((".into(), format!("), {targets})").into())
                                }
                                (false, true) => {
                                    ("__iter_unpack(".into(), format!(", {targets})").into())
                                }
                            };
                        edits.push(replace(from, from, pre.to_string()));
                        edits.push(replace(to, to, post.to_string()));
                        wraps.push(stmt_wrap(from, to, pre, post));
                        one_pass &= wrappable(t, n + 1, end);
                    }
                }
                "macro" => {
                    if let Some(m) = macro_decl(src, t, i, j, syntax, &mut edits) {
                        one_pass &= !m.rewritten;
                        macros.push(m);
                    }
                }
                "endmacro" => {
                    if let Some(m) = macros.pop() {
                        if let Some(e) = macro_catch_alls(t, &m, i, j, syntax) {
                            edits.extend(e);
                            one_pass = false;
                        }
                    }
                }
                "if" | "elif" if j > i + 2 => {
                    // Jinja2 reads the test as a tuple: `{% if a, b %}` is
                    // a (truthy) tuple; minijinja needs the parentheses.
                    let tuple = (i + 2..j)
                        .any(|k| matches!(t[k].tok, Token::Comma) && depth_at(t, i + 2, k) == 0);
                    if tuple {
                        let (from, to) = (t[i + 2].start, t[j - 1].end);
                        edits.push(replace(from, from, "(".into()));
                        edits.push(replace(to, to, ")".into()));
                        wraps.push(stmt_wrap(from, to, "(", ")"));
                        one_pass &= wrappable(t, i + 2, j);
                    }
                }
                "do" if j > i + 2 => {
                    let start = t[i + 2].start;
                    let end = t[j - 1].end;
                    edits.push(replace(start, start, "__noop(".into()));
                    edits.push(replace(end, end, ")".into()));
                    wraps.push(stmt_wrap(start, end, "__noop(", ")"));
                    one_pass &= wrappable(t, i + 2, j);
                }
                _ => {}
            }
        }
        i = j + 1;
    }
    Stmts {
        edits,
        wraps,
        inserts,
        one_pass,
    }
}

/// A `{% macro NAME(PARAMS) %}` tag the first pass has read.
struct MacroDecl {
    name: String,
    params: Vec<String>,
    /// Token index of the `)` closing the parameters.
    close: usize,
    /// Token index where the body starts.
    body: usize,
    /// Whether a default was moved into the body.
    rewritten: bool,
}

/// Read the macro tag in tokens `i..j` (`j`: its last token before `%}`
/// or the colon Jinja2 skips). A default that refers to a parameter
/// (`{% macro m(a, b=a * 2) %}`: Jinja2 evaluates defaults at call time,
/// in order, with the earlier parameters bound; minijinja before binding
/// any) moves into the body: `{% if b is undefined %}{% set b = (a * 2)
/// %}{% endif %}`, inside the tag's own delimiters so its whitespace
/// markers keep their effect.
fn macro_decl(
    src: &str,
    t: &[Tok],
    i: usize,
    j: usize,
    syntax: &SyntaxConfig,
    edits: &mut Vec<Edit>,
) -> Option<MacroDecl> {
    let (bstart, bend) = syntax.block_delimiters();
    let Token::Ident(name) = t.get(i + 2)?.tok else {
        return None;
    };
    if !matches!(t.get(i + 3)?.tok, Token::ParenOpen) {
        return None;
    }
    let close = matching(t, i + 3);
    if close >= j || !matches!(t[close].tok, Token::ParenClose) {
        return None;
    }
    let mut params = Vec::new();
    let mut defaults = Vec::new();
    let mut k = i + 4;
    while k < close {
        let Token::Ident(p) = t[k].tok else {
            return None;
        };
        let end = (k..close)
            .find(|&e| matches!(t[e].tok, Token::Comma) && depth_at(t, i + 4, e) == 0)
            .unwrap_or(close);
        if end > k + 2 && matches!(t[k + 1].tok, Token::Assign) {
            defaults.push((params.len(), k + 1, end));
        }
        params.push(p.to_string());
        k = end + 1;
    }
    let mut moved = String::new();
    for (n, assign, end) in defaults {
        let refers = (assign + 1..end).any(|x| {
            matches!(t[x].tok, Token::Ident(id) if params.iter().any(|p| p == id))
                && !matches!(t[x - 1].tok, Token::Dot)
        });
        if refers {
            let p = &params[n];
            let expr = &src[t[assign + 1].start..t[end - 1].end];
            // `=__missing` (a name nothing defines: undefined) keeps the
            // parameter optional, so later defaults stay allowed.
            edits.push(replace(
                t[assign + 1].start,
                t[end - 1].end,
                "__missing".into(),
            ));
            let _ = write!(
                moved,
                "{bend}{bstart} if {p} is undefined {bend}{bstart} set {p} = ({expr}) {bend}{bstart} endif "
            );
        }
    }
    let rewritten = !moved.is_empty();
    if rewritten {
        edits.push(replace(t[j].start, t[j].start, moved));
    }
    Some(MacroDecl {
        name: name.to_string(),
        params,
        close,
        body: j + 1,
        rewritten,
    })
}

/// At the `{% endmacro %}` in tokens `i..j` closing `m`: when the body
/// reads `varargs` or `kwargs` (Jinja2's catch-alls), the edits that
/// declare them as the last parameters and rebind the macro's name to
/// `__varmacro(NAME, N, VARARGS, KWARGS)` (see `macros`).
fn macro_catch_alls(
    t: &[Tok],
    m: &MacroDecl,
    i: usize,
    j: usize,
    syntax: &SyntaxConfig,
) -> Option<Vec<Edit>> {
    let (bstart, bend) = syntax.block_delimiters();
    let reads = |w: &str| {
        !m.params.iter().any(|p| p == w)
            && (m.body..i).any(|x| {
                matches!(t[x].tok, Token::Ident(id) if id == w)
                    && !matches!(t[x - 1].tok, Token::Dot)
            })
    };
    let (va, kw) = (reads("varargs"), reads("kwargs"));
    if !va && !kw {
        return None;
    }
    let added: Vec<&str> = [("varargs", va), ("kwargs", kw)]
        .iter()
        .filter(|x| x.1)
        .map(|x| {
            if x.0 == "varargs" {
                "varargs=()"
            } else {
                "kwargs={}"
            }
        })
        .collect();
    let sep = if m.params.is_empty() || matches!(t[m.close - 1].tok, Token::Comma) {
        ""
    } else {
        ", "
    };
    let pos = t[m.close].start;
    let name = &m.name;
    let n = m.params.len();
    Some(vec![
        replace(pos, pos, format!("{sep}{}", added.join(", "))),
        replace(
            t[j].start,
            t[j].start,
            format!("{bend}{bstart} set {name} = __varmacro({name}, {n}, {va}, {kw}) "),
        ),
    ])
}

/// Whether the statement in tokens `i..j` (`{%` .. `%}`, keyword `kw`)
/// ends in the `:` Jinja2's `parse_statements` skips: the statements that
/// open a body (and `set` in its block form), a colon outside brackets.
fn body_colon(t: &[Tok], i: usize, j: usize, kw: &str) -> bool {
    let opens_body = match kw {
        "for" | "if" | "elif" | "else" | "macro" | "call" | "filter" | "block" | "autoescape" => {
            true
        }
        "set" => !(i + 2..j).any(|k| matches!(t[k].tok, Token::Assign)),
        _ => false,
    };
    opens_body
        && j > i + 2
        && matches!(t[j - 1].tok, Token::Colon)
        && depth_at(t, i + 2, j - 1) == 0
}

/// Bracket depth of token `k` counted from token `from`.
fn depth_at(t: &[Tok], from: usize, k: usize) -> i32 {
    let mut d = 0;
    for x in &t[from..k] {
        match x.tok {
            Token::ParenOpen | Token::BracketOpen | Token::BraceOpen => d += 1,
            Token::ParenClose | Token::BracketClose | Token::BraceClose => d -= 1,
            _ => {}
        }
    }
    d
}

/// Keywords after which `[` starts a list literal rather than a subscript.
const KEYWORDS: &[&str] = &[
    "in", "not", "and", "or", "if", "else", "elif", "is", "for", "import", "include", "from",
    "extends", "do", "with", "print", "return", "set",
];

fn ends_operand(tok: &Token) -> bool {
    match tok {
        Token::Ident(id) => !KEYWORDS.contains(id),
        Token::Str(_) | Token::String(_) | Token::Int(_) | Token::Int128(_) | Token::Float(_) => {
            true
        }
        Token::ParenClose | Token::BracketClose | Token::BraceClose => true,
        _ => false,
    }
}

/// Index of the bracket closing the one at `open` (or the last token).
fn matching(t: &[Tok], open: usize) -> usize {
    let mut depth = 0i32;
    for (k, x) in t.iter().enumerate().skip(open) {
        match x.tok {
            Token::ParenOpen | Token::BracketOpen | Token::BraceOpen => depth += 1,
            Token::ParenClose | Token::BracketClose | Token::BraceClose => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            Token::VariableEnd | Token::BlockEnd => return k.saturating_sub(1),
            _ => {}
        }
    }
    t.len().saturating_sub(1)
}

/// Index of the last token of the operand starting at `k`: unary signs, a
/// primary, then `.attr`, `[..]`, `(..)` and `|filter(..)` postfixes.
fn operand_end(t: &[Tok], mut k: usize) -> usize {
    while k + 1 < t.len() && matches!(t[k].tok, Token::Minus | Token::Plus) {
        k += 1;
    }
    let mut end = match t[k].tok {
        Token::ParenOpen | Token::BracketOpen | Token::BraceOpen => matching(t, k),
        _ => k,
    };
    loop {
        match t.get(end + 1).map(|x| &x.tok) {
            Some(Token::Dot) if end + 2 < t.len() => end += 2,
            Some(Token::BracketOpen) | Some(Token::ParenOpen) => end = matching(t, end + 1),
            Some(Token::Pipe) if end + 2 < t.len() => {
                end += 2;
                if matches!(t.get(end + 1).map(|x| &x.tok), Some(Token::ParenOpen)) {
                    end = matching(t, end + 1);
                }
            }
            _ => return end,
        }
    }
}

/// A wrapper around the source range `open..close`: `pre` is inserted at
/// `open` (replacing `del` bytes), `post` at `close`. `rank` orders wrappers
/// that share both ends (lower = outer).
struct Wrap {
    open: usize,
    close: usize,
    del: usize,
    pre: Cow<'static, str>,
    post: Cow<'static, str>,
    rank: i64,
}

fn wrap_edits(wraps: Vec<Wrap>) -> Vec<Edit> {
    let mut edits = Vec::with_capacity(wraps.len() * 2);
    for w in wraps {
        // Openers after closers at one position; outer (ends later) first.
        edits.push(Edit {
            pos: w.open,
            del: w.del,
            text: w.pre.into_owned(),
            order: (1, -(w.close as i64), w.rank),
        });
        // Closers: inner (started later) first.
        edits.push(Edit {
            pos: w.close,
            del: 0,
            text: w.post.into_owned(),
            order: (0, -(w.open as i64), -w.rank),
        });
    }
    edits
}

/// Second pass over the tokens `t` of `src`.
fn expressions<'s>(src: &'s str, t: &[Tok]) -> Cow<'s, str> {
    let wraps = expression_wraps(t);
    if wraps.is_empty() {
        return src.into();
    }
    apply(src, wrap_edits(wraps)).into()
}

/// The wrappers of the second pass over the tokens `t`.
fn expression_wraps(t: &[Tok]) -> Vec<Wrap> {
    let mut wraps = Vec::new();
    for i in 0..t.len() {
        if matches!(t[i].tok, Token::BlockStart)
            && matches!(t.get(i + 1).map(|x| &x.tok), Some(Token::Ident("set")))
        {
            set_rhs(t, i, &mut wraps);
        }
        match t[i].tok {
            Token::BraceOpen => wraps.push(Wrap {
                open: t[i].start,
                close: t[matching(t, i)].end,
                del: 0,
                pre: "__mut(".into(),
                post: ")".into(),
                rank: 1,
            }),
            Token::BracketOpen => {
                if i > 0 && ends_operand(&t[i - 1].tok) {
                    continue;
                }
                wraps.push(Wrap {
                    open: t[i].start,
                    close: t[matching(t, i)].end,
                    del: 0,
                    pre: "__mut(".into(),
                    post: ")".into(),
                    rank: 1,
                });
            }
            Token::Mod => {
                let lhs_is_str = i > 0 && matches!(t[i - 1].tok, Token::Str(_) | Token::String(_));
                if lhs_is_str && i + 1 < t.len() && !is_end(&t[i + 1].tok) {
                    let end = operand_end(t, i + 1);
                    wraps.push(Wrap {
                        open: t[i].start,
                        close: t[end].end,
                        del: t[i].end - t[i].start,
                        pre: "|__pyfmt(".into(),
                        post: ")".into(),
                        rank: 2,
                    });
                }
            }
            _ => {}
        }
    }
    wraps
}

fn is_end(tok: &Token) -> bool {
    matches!(tok, Token::VariableEnd | Token::BlockEnd)
}

/// `{% set NAME[.attr] = RHS %}` with a single target: wrap RHS.
fn set_rhs(t: &[Tok], i: usize, wraps: &mut Vec<Wrap>) {
    let mut k = i + 2;
    while k < t.len() && !matches!(t[k].tok, Token::Assign | Token::BlockEnd | Token::Comma) {
        k += 1;
    }
    // `{% set a, b = RHS %}`: RHS unpacked as Python does.
    let mut targets = 1;
    let mut trailing = false;
    while k < t.len() && matches!(t[k].tok, Token::Comma) {
        trailing = true;
        k += 1;
        while k < t.len() && !matches!(t[k].tok, Token::Assign | Token::BlockEnd | Token::Comma) {
            trailing = false;
            k += 1;
        }
        if !trailing {
            targets += 1;
        }
    }
    if k >= t.len() || !matches!(t[k].tok, Token::Assign) {
        return;
    }
    // The pre-pass's own `set tplfile, tpldir, tpldot = __import_enter(..)`
    // stays as it is (its helpers return the right length).
    let ours = matches!(t.get(k + 1).map(|x| &x.tok), Some(Token::Ident(id)) if id.starts_with("__import_"));
    let unpack = targets > 1 || trailing;
    if unpack && ours {
        return;
    }
    let Some(e) = (k + 1..t.len()).find(|&e| matches!(t[e].tok, Token::BlockEnd)) else {
        return;
    };
    if e == k + 1 {
        return;
    }
    let (pre, post): (Cow<'static, str>, Cow<'static, str>) = if unpack {
        ("__unpack((".into(), format!("), {targets})").into())
    } else {
        ("__mut((".into(), "))".into())
    };
    wraps.push(Wrap {
        open: t[k + 1].start,
        close: t[e - 1].end,
        del: 0,
        pre,
        post,
        rank: 0,
    });
}

/// The rewrite with each pass on its own text (the second tokenizing the
/// first's output), which the one-pass path of [`rewrite`] must equal.
fn two_passes(src: &str, syntax: &SyntaxConfig) -> String {
    let Some(tokens) = lex(src, syntax) else {
        return match with_ascii_spaces(src, syntax) {
            Some(text) => two_passes(&text, syntax),
            None => src.to_string(),
        };
    };
    let stmts = statements(src, &tokens, syntax);
    if stmts.edits.is_empty() {
        return expressions(src, &tokens).into_owned();
    }
    relex(apply(src, stmts.edits), syntax)
}

/// [`rewrite`] against [`two_passes`] on `src` (default delimiters): both
/// outputs when they differ. For the tests and the `jinja_prepass` fuzz
/// target.
pub(crate) fn check_one_pass(src: &str) -> Result<(), String> {
    let syntax = SyntaxConfig::default();
    let (one, two) = (rewrite(src, &syntax), two_passes(src, &syntax));
    if one == two {
        Ok(())
    } else {
        Err(format!("one pass:\n{one}\ntwo passes:\n{two}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(s: &str) -> String {
        let out = rewrite(s, &SyntaxConfig::default()).into_owned();
        assert_eq!(check_one_pass(s), Ok(()));
        out
    }

    /// Every template text of the repository's trees and corpora.
    fn templates(dir: &std::path::Path, out: &mut Vec<(std::path::PathBuf, String)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                templates(&p, out);
            } else if let Ok(text) = std::fs::read_to_string(&p) {
                if text.contains("{%") || text.contains("{{") {
                    out.push((p, text));
                }
            }
        }
    }

    #[test]
    fn one_pass_equals_two_passes_on_every_template_of_the_repository() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut found = Vec::new();
        for dir in ["tests", "state_tree", "docs"] {
            templates(&root.join(dir), &mut found);
        }
        assert!(found.len() > 100, "only {} templates found", found.len());
        let syntax = SyntaxConfig::default();
        let mut one_pass = 0;
        for (path, text) in &found {
            let tokens = lex(text, &syntax);
            if tokens.is_some_and(|t| {
                let s = statements(text, &t, &syntax);
                !s.edits.is_empty() && s.one_pass && tags_balanced(&t)
            }) {
                one_pass += 1;
            }
            assert_eq!(check_one_pass(text), Ok(()), "{}", path.display());
        }
        assert!(
            one_pass > 20,
            "the one-pass path served only {one_pass} of {} templates",
            found.len()
        );
    }

    #[test]
    fn one_pass_nests_statement_and_expression_wrappers() {
        assert_eq!(
            rw("{% for x in [1, 2] %}{% endfor %}"),
            "{% for x in __iter(__mut([1, 2])) %}{% endfor %}"
        );
        assert_eq!(
            rw("{% for x in '%s' % y if x %}{% endfor %}"),
            "{% for x in __iter('%s' |__pyfmt( y)) if x %}{% endfor %}"
        );
        assert_eq!(
            rw("{% do [1].append({}) %}"),
            "{% do __noop(__mut([1]).append(__mut({}))) %}"
        );
        // A literal in an import's expression is copied into the inserted
        // text, so that template takes the two-pass path.
        rw("{% from ['a'][0] import m %}{% for x in [1] %}{% endfor %}");
        rw("{% from 'a' import m %}{% for x in {'a': 1} %}{% endfor %}{% set y = x %}");
        // Found by the fuzz target: a stray `)` in the loop's expression.
        // The tokenizer tracks bracket depth, so wrapping that range would
        // change how it reads the blocks after it: two passes.
        rw("{%- set cfg = {'a': 1} %}\n{%- for name, uid in users uid) %}\n{%-   sst: {{ loop.last }}\n{% endfor %}\n");
        rw("{% do f(x)) %}{% set a = [1] %}{{ {'b': 2} }}");
        // And a `%` ending the range: its rewrite reads the next token.
        rw("{%+ do cfg.uper = 'insidez' %%} {\n-e}\n");
        rw("{% for x in 'a' % if y %}{% endfor %}");
        // A tag whose brackets do not balance: the tokenizer reads on
        // past it differently once a wrapper is added, so two passes.
        rw("{%- set users = {'carol': 3, 'alice': 1, 'bob': 2} %}\n{%- ,etprint acc = []t = name %}\n{%-   set outer = 'inside' %}\n{%- endfor %}\n{%- for% index: {{ loop.ind'Debian')ex }}\n    - first: {{ loop.first }}\n    - la %}\n{% set svst: {{(loop.last }}\n{% endfor %}\nsummary:\n~ ':' ~ uid   set outer = 'inside' %}\n{%- endfor %}\n{%- for% index: {{ loop.ind'Debian')ex }}\n    - first: {{ loop.first }}\n    - la %}\n{% set svst: {{(loop.last }}\n{% endfor %}\nsummary:\n~ ':' ~ uid) %}\n{%-   set ns.total = ns.total + uid %}\n{%-   set ns.last = name %}\n{%-   set outer = 'inside' %}\n{%- endfor %}\n{%- for i in    if name == 'bob' %}{% continue %}{% endif %}\n{%-   do acc.append(name ~ ':' ~}\n{%-  for i in    if name == 'bob' %}{% continue %}{% endif %}\n{%-   do acc.append(name ~ ':' ~ uid) %}\n{%-   set ns.total = ns.tolt a+ uid %}\n{%-   set st }}\n    - last: {{ loop.last }}\n{% endfor %}\nsurmmay:\n  test.nop:\n    - acc: {{ acc }}\n    - cfg: {{ la %}\n{% set svst: {*( i in range(10) %}{% if i > 2 %}{% break %}{% endif %}{% do acc.append(i) %}{% test.nop:\n    - index: {{ loop.idenx }}\n    - f2irstS: {{ loop.first }}\n    - last: {{ loop.last }}\n{%hnndfor %}\nsummary:\n  te%}\n{% set svst: {{(loop.last }}\n{% endfor %}\nsummary:\n~ ':' ~ uid) %}\n{%- outer }}\n");
    }

    #[test]
    fn wraps_literals_and_set() {
        assert_eq!(
            rw("{% set d = {'a': [1]} %}"),
            "{% set d = __mut((__mut({'a': __mut([1])}))) %}"
        );
        assert_eq!(rw("{{ x[0] }}{{ f()[1] }}"), "{{ x[0] }}{{ f()[1] }}");
        assert_eq!(rw("{{ 2 in [1, 2] }}"), "{{ 2 in __mut([1, 2]) }}");
        assert_eq!(
            rw("{% set a, b = 1, 2 %}"),
            "{% set a, b = __unpack((1, 2), 2) %}"
        );
        assert_eq!(
            rw("{% for a, b in 'xy', 'zw' %}{% endfor %}{% for a, b in d|dictsort %}{% endfor %}"),
            "{% for a, b in __iter_unpack(('xy', 'zw'), 2) %}{% endfor %}{% for a, b in __iter_unpack(d|dictsort, 2) %}{% endfor %}"
        );
        assert_eq!(
            rw("{%- set x -%}a{% endset %}"),
            "{%- set x -%}a{% endset %}"
        );
        assert_eq!(rw("{% set x={} %}"), "{% set x=__mut((__mut({}))) %}");
    }

    #[test]
    fn drops_the_colon_jinja2_skips_and_reads_bare_tuples() {
        assert_eq!(
            rw("{% for x in ['a']: %}{% endfor %}"),
            "{% for x in __iter(__mut(['a']))  %}{% endfor %}"
        );
        assert_eq!(
            rw("{% if a: %}{% elif b: %}{% else: %}{% endif %}"),
            "{% if a  %}{% elif b  %}{% else  %}{% endif %}"
        );
        // Colons inside brackets or after other statements stay.
        assert_eq!(rw("{% if d[1:] %}{% endif %}"), "{% if d[1:] %}{% endif %}");
        assert_eq!(rw("{% set x = a: %}"), "{% set x = __mut((a:)) %}");
        assert_eq!(
            rw("{% for p in 'a', 'b' if p %}{% endfor %}"),
            "{% for p in __iter(('a', 'b')) if p %}{% endfor %}"
        );
        assert_eq!(
            rw("{% for p in 'vim', %}{% endfor %}"),
            "{% for p in __iter(('vim',)) %}{% endfor %}"
        );
        assert_eq!(
            rw("{% if a, b %}{% elif c, %}{% elif f(d, e) %}{% endif %}"),
            "{% if (a, b) %}{% elif (c,) %}{% elif f(d, e) %}{% endif %}"
        );
        assert_eq!(
            rw("{%- if a, [1]: -%}{% endif %}"),
            "{%- if (a, __mut([1]))  -%}{% endif %}"
        );
    }

    #[test]
    fn macro_defaults_and_catch_alls() {
        assert_eq!(
            rw("{%- macro m(a, b=a * 2, c=1) -%}{{ b }}{%- endmacro %}"),
            "{%- macro m(a, b=__missing, c=1) %}{% if b is undefined %}{% set b = __mut(((a * 2))) %}{% endif -%}{{ b }}{%- endmacro %}"
        );
        assert_eq!(
            rw("{% macro m(a) %}{{ varargs }}{{ kwargs.x }}{% endmacro %}"),
            "{% macro m(a, varargs=(), kwargs=__mut({})) %}{{ varargs }}{{ kwargs.x }}{% endmacro %}{% set m = __mut((__varmacro(m, 1, true, true))) %}"
        );
        assert_eq!(
            rw("{% macro m() %}{{ varargs }}{% endmacro %}{% macro n(a,) %}{{ d.kwargs }}{{ kwargs }}{% endmacro %}"),
            "{% macro m(varargs=()) %}{{ varargs }}{% endmacro %}{% set m = __mut((__varmacro(m, 0, true, false))) %}{% macro n(a,kwargs=__mut({})) %}{{ d.kwargs }}{{ kwargs }}{% endmacro %}{% set n = __mut((__varmacro(n, 1, false, true))) %}"
        );
        // Defaults without parameters in them, and `d.varargs`, stay.
        let plain = "{% macro m(a, b=c.a) %}{{ d.varargs }}{% endmacro %}";
        assert_eq!(rw(plain), plain);
    }

    #[test]
    fn unicode_whitespace_in_tags_is_whitespace() {
        assert_eq!(rw("{{ v\u{a0}}}"), "{{ v  }}");
        assert_eq!(
            rw("\u{a0}{%\u{2028}if\u{a0}a %}\u{a0}{% endif %}"),
            "\u{a0}{%   if  a %}\u{a0}{% endif %}"
        );
        // In a string it stays; other bad characters stay for the engine.
        assert_eq!(rw("{{ '\u{a0}' ~ [1] }}"), "{{ '\u{a0}' ~ __mut([1]) }}");
        assert_eq!(rw("{{ v\u{a0}? }}"), "{{ v\u{a0}? }}");
    }

    #[test]
    fn rewrites_statements() {
        assert_eq!(
            rw("{% import_yaml tpldir ~ '/d.yaml' as d %}"),
            "{% set d = __mut((__import_yaml(tpldir ~ '/d.yaml', false))) %}"
        );
        assert_eq!(
            rw("{%- import_json 'x.json' as j with context -%}"),
            "{%- set j = __mut((__import_json('x.json', true))) -%}"
        );
        assert_eq!(
            rw("{%- load_yaml as y -%}\na: 1\n{%- endload %}"),
            "{%- set y -%}\na: 1\n{%- endset %}{% set y = __mut((y|load_yaml)) %}"
        );
        assert_eq!(
            rw("{% do d.pop('a') if c %}"),
            "{% do __noop(d.pop('a') if c) %}"
        );
    }

    #[test]
    fn percent_format() {
        assert_eq!(
            rw("{{ '/home/%s' % user }}"),
            "{{ '/home/%s' |__pyfmt( user) }}"
        );
        assert_eq!(
            rw("{{ '%s-%s'%(a, b) ~ x }}"),
            "{{ '%s-%s'|__pyfmt((a, b)) ~ x }}"
        );
        assert_eq!(rw("{{ '%s'%d.x|upper }}"), "{{ '%s'|__pyfmt(d.x|upper) }}");
        assert_eq!(
            rw("{% set p = '%s'%[a] %}"),
            "{% set p = __mut(('%s'|__pyfmt(__mut([a])))) %}"
        );
        assert_eq!(rw("{{ 7 % 3 }}"), "{{ 7 % 3 }}");
    }

    #[test]
    fn keeps_lines_raw_and_comments() {
        let src = "{% raw %}{{ [1] }}{% endraw %}\n{# {'a': 1} #}\n{% set x = [\n  1,\n] %}\n";
        let out = rw(src);
        assert_eq!(out.matches('\n').count(), src.matches('\n').count());
        assert!(out.starts_with("{% raw %}{{ [1] }}{% endraw %}\n{# {'a': 1} #}\n"));
        assert!(out.contains("__mut((__mut(["));
    }

    #[test]
    fn custom_delimiters() {
        let mut b = SyntaxConfig::builder();
        b.block_delimiters("<%", "%>");
        let syn = b.build().unwrap();
        assert_eq!(
            rewrite("<% load_text as t %>x<% endload %>", &syn),
            "<% set t %>x<% endset %><% set t = __mut((t|load_text)) %>"
        );
    }

    #[test]
    fn bad_source_unchanged() {
        assert_eq!(rw("{{ 'unterminated }}"), "{{ 'unterminated }}");
    }
}
