//! Diagnostics as plain data: every stage reports problems as `Diagnostic`
//! values (severity, code, Salt's message, labelled spans into source files);
//! rendering them for people or machines lives in `diag::render`.

pub mod render;

use std::ops::Range;
use std::sync::Arc;

pub use crate::text::SourceFile;

/// A byte range inside one source file.
#[derive(Debug, Clone)]
pub struct Label {
    pub file: Arc<SourceFile>,
    pub range: Range<usize>,
    pub message: String,
}

impl Label {
    pub fn new(file: &Arc<SourceFile>, range: Range<usize>, message: impl Into<String>) -> Label {
        Label {
            file: file.clone(),
            range,
            message: message.into(),
        }
    }
    /// A label covering a whole 1-based line.
    pub fn line(file: &Arc<SourceFile>, line: usize, message: impl Into<String>) -> Label {
        let range = file.line_range(line);
        Label::new(file, range, message)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

/// One problem found while compiling.
#[derive(Debug, Clone)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable machine-readable code, e.g. `yaml-syntax`, `missing-requisite`.
    pub code: &'static str,
    /// The message, worded exactly as Salt words it where Salt has one.
    pub message: String,
    pub primary: Option<Label>,
    pub secondary: Vec<Label>,
    pub notes: Vec<String>,
    /// `env:sls` or `sls` the problem belongs to, when known.
    pub sls: Option<String>,
    /// State ID involved, when known.
    pub id: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            primary: None,
            secondary: Vec::new(),
            notes: Vec::new(),
            sls: None,
            id: None,
        }
    }
    pub fn warning(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message)
        }
    }
    pub fn with_primary(mut self, label: Label) -> Self {
        self.primary = Some(label);
        self
    }
    pub fn with_secondary(mut self, label: Label) -> Self {
        self.secondary.push(label);
        self
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
    pub fn with_sls(mut self, sls: impl Into<String>) -> Self {
        self.sls = Some(sls.into());
        self
    }
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }
    /// Set the primary label unless one is already there.
    pub fn or_primary(mut self, label: Option<Label>) -> Self {
        if self.primary.is_none() {
            self.primary = label;
        }
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
    /// `file:line:col` of the primary label.
    pub fn location(&self) -> Option<String> {
        self.primary.as_ref().map(|l| {
            let (line, col) = l.file.line_col(l.range.start);
            format!("{}:{}:{}", l.file.name, line, col)
        })
    }
}

/// A list of diagnostics that stops compilation.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }
    /// Salt's own error strings, in order (what `show_lowstate` returns).
    pub fn messages(&self) -> Vec<String> {
        self.0
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.message.clone())
            .collect()
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
}

impl From<Vec<Diagnostic>> for Diagnostics {
    fn from(d: Vec<Diagnostic>) -> Self {
        Diagnostics(d)
    }
}

impl std::fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for d in &self.0 {
            writeln!(f, "{}", d.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}
