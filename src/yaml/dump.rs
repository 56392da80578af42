//! Dumping values as Salt's `safe_dump` does: PyYAML's `SafeRepresenter`
//! (YAML 1.1 implicit typing decides which strings need quotes) driving
//! libyaml's emitter (`CSafeDumper`, `allow_unicode=True`, indent 2, width 80).

use super::resolve::{resolve_plain, ScalarTag};
use super::DumpOptions;
use crate::value::{py_float_repr, Value};

const BEST_INDENT: isize = 2;
const BEST_WIDTH: usize = 80;
/// libyaml writes a mapping key as `? key` when it is longer than this.
const MAX_SIMPLE_KEY: usize = 128;

pub(super) fn dump(value: &Value, opts: DumpOptions) -> String {
    let mut e = Emitter {
        out: String::new(),
        flow: opts.flow,
        indent: -1,
        indents: Vec::new(),
        flow_level: 0,
        column: 0,
        whitespace: true,
        indention: true,
        mapping_context: false,
        simple_key: false,
    };
    e.node(value, Ctx::Root);
    // Document end: break the last line.
    e.write_indent();
    e.out
}

/// What a scalar looks like to libyaml's `yaml_emitter_analyze_scalar`.
struct Analysis {
    multiline: bool,
    flow_plain: bool,
    block_plain: bool,
    single_quoted: bool,
}

fn is_printable(c: char) -> bool {
    let v = c as u32;
    v == 0x0A
        || (0x20..=0x7E).contains(&v)
        || (0xA0..=0xD7FF).contains(&v)
        || ((0xE000..=0xFFFD).contains(&v) && v != 0xFEFF)
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blankz(c: Option<char>) -> bool {
    match c {
        None => true,
        Some(c) => c == ' ' || c == '\t' || is_break(c),
    }
}

fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            multiline: false,
            flow_plain: false,
            block_plain: true,
            single_quoted: true,
        };
    }
    let chars: Vec<char> = s.chars().collect();
    let mut block_ind = false;
    let mut flow_ind = false;
    if s.starts_with("---") || s.starts_with("...") {
        block_ind = true;
        flow_ind = true;
    }
    let (mut line_breaks, mut special) = (false, false);
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut prev_space, mut prev_break) = (false, false);
    let mut preceded_by_ws = true;
    let n = chars.len();
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_ws = is_blankz(chars.get(i + 1).copied());
        if i == 0 {
            if "#,[]{}&*!|>'\"%@`".contains(c) {
                flow_ind = true;
                block_ind = true;
            }
            if c == '?' || c == ':' {
                flow_ind = true;
                if followed_by_ws {
                    block_ind = true;
                }
            }
            if c == '-' && followed_by_ws {
                flow_ind = true;
                block_ind = true;
            }
        } else {
            if ",?[]{}".contains(c) {
                flow_ind = true;
            }
            if c == ':' {
                flow_ind = true;
                if followed_by_ws {
                    block_ind = true;
                }
            }
            if c == '#' && preceded_by_ws {
                flow_ind = true;
                block_ind = true;
            }
        }
        if !is_printable(c) {
            special = true;
        }
        if is_break(c) {
            line_breaks = true;
        }
        if c == ' ' {
            if i == 0 {
                leading_space = true;
            }
            if i == n - 1 {
                trailing_space = true;
            }
            if prev_break {
                break_space = true;
            }
            prev_space = true;
            prev_break = false;
        } else if is_break(c) {
            if i == 0 {
                leading_break = true;
            }
            if i == n - 1 {
                trailing_break = true;
            }
            if prev_space {
                space_break = true;
            }
            prev_space = false;
            prev_break = true;
        } else {
            prev_space = false;
            prev_break = false;
        }
        preceded_by_ws = is_blankz(Some(c));
    }
    let mut a = Analysis {
        multiline: line_breaks,
        flow_plain: true,
        block_plain: true,
        single_quoted: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if break_space {
        a.flow_plain = false;
        a.block_plain = false;
        a.single_quoted = false;
    }
    if space_break || special {
        a.flow_plain = false;
        a.block_plain = false;
        a.single_quoted = false;
    }
    if line_breaks {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if flow_ind {
        a.flow_plain = false;
    }
    if block_ind {
        a.block_plain = false;
    }
    a
}

#[derive(Clone, Copy, PartialEq)]
enum Ctx {
    Root,
    Seq,
    Map,
    Key,
}

#[derive(Clone, Copy, PartialEq)]
enum Style {
    Plain,
    Single,
    Double,
}

struct Emitter {
    out: String,
    flow: Option<bool>,
    indent: isize,
    indents: Vec<isize>,
    flow_level: usize,
    column: usize,
    whitespace: bool,
    indention: bool,
    mapping_context: bool,
    simple_key: bool,
}

/// A scalar as the representer makes it: its text and whether it would
/// read back as the same type when written plain.
fn represent(v: &Value) -> Option<(String, bool)> {
    match v {
        Value::Null => Some(("null".into(), true)),
        Value::Bool(b) => Some((if *b { "true" } else { "false" }.into(), true)),
        Value::Int(i) => Some((i.to_string(), true)),
        Value::Float(f) => Some((float_text(*f), true)),
        Value::Str(s) => Some((s.to_string(), resolve_plain(s) == ScalarTag::Str)),
        Value::List(_) | Value::Map(_) => None,
    }
}

/// `SafeRepresenter.represent_float`.
fn float_text(f: f64) -> String {
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    let v = py_float_repr(f).to_lowercase();
    if !v.contains('.') && v.contains('e') {
        v.replacen('e', ".0e", 1)
    } else {
        v
    }
}

impl Emitter {
    fn put(&mut self, s: &str) {
        self.out.push_str(s);
        self.column += s.chars().count();
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn write_indicator(&mut self, ind: &str, need_ws: bool, is_ws: bool, is_indention: bool) {
        if need_ws && !self.whitespace {
            self.put(" ");
        }
        self.put(ind);
        self.whitespace = is_ws;
        self.indention = self.indention && is_indention;
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(" ");
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    /// Whether a collection is written in flow style (the representer's choice).
    fn flow_style(&self, v: &Value) -> bool {
        match self.flow {
            Some(f) => f,
            None => match v {
                Value::List(l) => l.iter().all(|x| represent(x).is_some()),
                Value::Map(m) => m
                    .iter()
                    .all(|(k, x)| represent(k).is_some() && represent(x).is_some()),
                _ => false,
            },
        }
    }

    fn node(&mut self, v: &Value, ctx: Ctx) {
        self.mapping_context = matches!(ctx, Ctx::Map | Ctx::Key);
        self.simple_key = ctx == Ctx::Key;
        match v {
            Value::List(items) => {
                if self.flow_level > 0 || self.flow_style(v) || items.is_empty() {
                    self.flow_sequence(items);
                } else {
                    self.block_sequence(items);
                }
            }
            Value::Map(map) => {
                let pairs: Vec<(&Value, &Value)> = map.iter().collect();
                if self.flow_level > 0 || self.flow_style(v) || pairs.is_empty() {
                    self.flow_mapping(&pairs);
                } else {
                    self.block_mapping(&pairs);
                }
            }
            scalar => {
                let (text, plain_implicit) = represent(scalar).unwrap_or_default();
                self.scalar(&text, plain_implicit);
            }
        }
    }

    fn check_simple_key(&self, k: &Value) -> bool {
        match k {
            Value::List(l) => l.is_empty(),
            Value::Map(m) => m.is_empty(),
            scalar => {
                let (text, _) = represent(scalar).unwrap_or_default();
                !analyze(&text).multiline && text.len() <= MAX_SIMPLE_KEY
            }
        }
    }

    fn flow_sequence(&mut self, items: &[Value]) {
        self.write_indicator("[", true, true, false);
        self.increase_indent(true, false);
        self.flow_level += 1;
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.write_indicator(",", false, false, false);
            }
            if self.column > BEST_WIDTH {
                self.write_indent();
            }
            self.node(item, Ctx::Seq);
        }
        self.flow_level -= 1;
        self.pop_indent();
        self.write_indicator("]", false, false, false);
    }

    fn flow_mapping(&mut self, pairs: &[(&Value, &Value)]) {
        self.write_indicator("{", true, true, false);
        self.increase_indent(true, false);
        self.flow_level += 1;
        for (i, (k, v)) in pairs.iter().enumerate() {
            if i > 0 {
                self.write_indicator(",", false, false, false);
            }
            if self.column > BEST_WIDTH {
                self.write_indent();
            }
            if self.check_simple_key(k) {
                self.node(k, Ctx::Key);
                self.write_indicator(":", false, false, false);
            } else {
                self.write_indicator("?", true, false, false);
                self.node(k, Ctx::Map);
                if self.column > BEST_WIDTH {
                    self.write_indent();
                }
                self.write_indicator(":", true, false, false);
            }
            self.node(v, Ctx::Map);
        }
        self.flow_level -= 1;
        self.pop_indent();
        self.write_indicator("}", false, false, false);
    }

    fn block_sequence(&mut self, items: &[Value]) {
        let indentless = self.mapping_context && !self.indention;
        self.increase_indent(false, indentless);
        for item in items {
            self.write_indent();
            self.write_indicator("-", true, false, true);
            self.node(item, Ctx::Seq);
        }
        self.pop_indent();
    }

    fn block_mapping(&mut self, pairs: &[(&Value, &Value)]) {
        self.increase_indent(false, false);
        for (k, v) in pairs {
            self.write_indent();
            if self.check_simple_key(k) {
                self.node(k, Ctx::Key);
                self.write_indicator(":", false, false, false);
            } else {
                self.write_indicator("?", true, false, true);
                self.node(k, Ctx::Map);
                self.write_indent();
                self.write_indicator(":", true, false, true);
            }
            self.node(v, Ctx::Map);
        }
        self.pop_indent();
    }

    /// `yaml_emitter_select_scalar_style` for a scalar without a tag.
    fn select_style(&self, text: &str, a: &Analysis, plain_implicit: bool) -> Style {
        let mut style = Style::Plain;
        if self.simple_key && a.multiline {
            style = Style::Double;
        }
        if style == Style::Plain {
            if (self.flow_level > 0 && !a.flow_plain) || (self.flow_level == 0 && !a.block_plain) {
                style = Style::Single;
            }
            if text.is_empty() && (self.flow_level > 0 || self.simple_key) {
                style = Style::Single;
            }
            if !plain_implicit {
                style = Style::Single;
            }
        }
        if style == Style::Single && !a.single_quoted {
            style = Style::Double;
        }
        style
    }

    fn scalar(&mut self, text: &str, plain_implicit: bool) {
        let a = analyze(text);
        let style = self.select_style(text, &a, plain_implicit);
        self.increase_indent(true, false);
        let allow_breaks = !self.simple_key;
        match style {
            Style::Plain => self.write_plain(text, allow_breaks),
            Style::Single => self.write_single(text, allow_breaks),
            Style::Double => self.write_double(text, allow_breaks),
        }
        self.pop_indent();
    }

    fn write_plain(&mut self, text: &str, allow_breaks: bool) {
        if !self.whitespace && (!text.is_empty() || self.flow_level > 0) {
            self.put(" ");
        }
        let chars: Vec<char> = text.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && chars.get(i + 1) != Some(&' ')
                {
                    self.write_indent();
                } else {
                    self.put(" ");
                }
                spaces = true;
            } else {
                let mut buf = [0u8; 4];
                self.put(c.encode_utf8(&mut buf));
                self.indention = false;
                spaces = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn write_single(&mut self, text: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let chars: Vec<char> = text.chars().collect();
        let n = chars.len();
        let (mut spaces, mut breaks) = (false, false);
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i != 0
                    && i != n - 1
                    && chars.get(i + 1) != Some(&' ')
                {
                    self.write_indent();
                } else {
                    self.put(" ");
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                // WRITE_BREAK: a '\n' is written as a line break, others as themselves.
                if c == '\n' {
                    self.put_break();
                } else {
                    let mut buf = [0u8; 4];
                    self.out.push_str(c.encode_utf8(&mut buf));
                    self.column = 0;
                }
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put("'");
                }
                let mut buf = [0u8; 4];
                self.put(c.encode_utf8(&mut buf));
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        if breaks {
            self.write_indent();
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double(&mut self, text: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        let chars: Vec<char> = text.chars().collect();
        let n = chars.len();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if !is_printable(c) || c == '\u{FEFF}' || is_break(c) || c == '"' || c == '\\' {
                let esc = match c {
                    '\0' => "\\0".to_string(),
                    '\u{7}' => "\\a".into(),
                    '\u{8}' => "\\b".into(),
                    '\t' => "\\t".into(),
                    '\n' => "\\n".into(),
                    '\u{b}' => "\\v".into(),
                    '\u{c}' => "\\f".into(),
                    '\r' => "\\r".into(),
                    '\u{1b}' => "\\e".into(),
                    '"' => "\\\"".into(),
                    '\\' => "\\\\".into(),
                    '\u{85}' => "\\N".into(),
                    '\u{a0}' => "\\_".into(),
                    '\u{2028}' => "\\L".into(),
                    '\u{2029}' => "\\P".into(),
                    c if (c as u32) <= 0xFF => format!("\\x{:02X}", c as u32),
                    c if (c as u32) <= 0xFFFF => format!("\\u{:04X}", c as u32),
                    c => format!("\\U{:08X}", c as u32),
                };
                self.put(&esc);
                spaces = false;
            } else if c == ' ' {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && i != 0 && i != n - 1 {
                    self.write_indent();
                    if chars.get(i + 1) == Some(&' ') {
                        self.put("\\");
                    }
                } else {
                    self.put(" ");
                }
                spaces = true;
            } else {
                let mut buf = [0u8; 4];
                self.put(c.encode_utf8(&mut buf));
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }
}
