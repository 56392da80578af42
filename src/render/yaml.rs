//! YAML as Salt loads it: saphyr-parser events resolved with PyYAML 1.1 rules
//! plus Salt's overrides (leading-zero ints, timestamps as strings, duplicate
//! keys rejected), every node keeping its byte span in the parsed text.
//! Also dumps values as PyYAML's `safe_dump` would (block and flow styles).

use crate::value::Value;
use std::ops::Range;

/// A parsed YAML node with its byte span in the source text.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: NodeValue,
    pub span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeValue {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Node>),
    /// Entries in source order (merge keys already applied).
    Map(Vec<(Node, Node)>),
}

/// Why YAML loading failed.
#[derive(Debug, Clone, PartialEq)]
pub struct YamlError {
    /// Salt's message text (after `Rendering SLS '...' failed: `).
    pub message: String,
    /// Where it went wrong, in the parsed text.
    pub span: Range<usize>,
    /// A related place (the first occurrence of a duplicate key, the mapping start).
    pub context: Option<Range<usize>>,
    pub kind: YamlErrorKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YamlErrorKind {
    Syntax,
    DuplicateKey,
    /// A mapping used as a key (`{{ x }}` gone wrong): Salt says "possible double curly-brace".
    UnhashableKey,
}

impl Node {
    pub fn to_value(&self) -> Value {
        todo!("yaml helper")
    }
}

/// Parse one YAML document. An empty document is `Null`.
pub fn load(_text: &str) -> Result<Node, YamlError> {
    todo!("yaml helper")
}

/// Parse to a plain value.
pub fn load_value(text: &str) -> Result<Value, YamlError> {
    load(text).map(|n| n.to_value())
}

/// Options for [`dump`], mirroring PyYAML's `safe_dump` keywords.
#[derive(Debug, Clone, Copy, Default)]
pub struct DumpOptions {
    /// `default_flow_style`: `Some(true)` all flow, `Some(false)` all block,
    /// `None` PyYAML's default (flow for collections of scalars only).
    pub flow: Option<bool>,
}

/// Dump a value as PyYAML's `safe_dump` would (keys in insertion order).
pub fn dump(_value: &Value, _opts: DumpOptions) -> String {
    todo!("yaml helper")
}
