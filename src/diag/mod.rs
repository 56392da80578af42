//! Diagnostics as plain data: every stage reports problems as `Diagnostic`
//! values (a registered [`Code`] with its severity, the reference engine's
//! message, labelled spans into every source involved, the subjects it is
//! about); the closed code registry is [`codes`]; rendering them for people
//! or machines lives in [`render`].

pub mod codes;
pub mod render;

pub use codes::Code;

use std::ops::Range;
use std::sync::Arc;

pub use crate::text::SourceFile;

/// A byte range inside one source file, with what it shows.
#[derive(Debug, Clone)]
pub struct Label {
    /// The file.
    pub file: Arc<SourceFile>,
    /// The bytes pointed at.
    pub range: Range<usize>,
    /// What the label says about them.
    pub message: String,
}

impl Label {
    /// A label of `range` in `file`.
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

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A fact worth knowing that lowstate cannot settle offline (what the
    /// minion or the cloud decides at run time); never fails a run.
    Info,
    /// Compiling goes on; the result may not be what was meant.
    Warning,
    /// Compiling fails (exit 1).
    Error,
}

impl Severity {
    /// The lower-case word (`error`, `warning`, `info`).
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// A kind of thing a diagnostic can be about, declared by a front end:
/// Salt's SLS and state ID, Heat's resource and parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubjectKind {
    /// The key in JSON output (`sls`, `id`, `resource`).
    pub key: &'static str,
    /// The word in human output (`SLS`, `ID`, `resource`).
    pub word: &'static str,
}

/// What a diagnostic is about, in the dialect's own words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    /// The kind of thing.
    pub kind: SubjectKind,
    /// Its name.
    pub name: String,
}

/// One problem found while compiling.
#[derive(Debug, Clone)]
pub struct Diagnostic {
    /// The severity (the code's, unless a caller downgrades it).
    pub severity: Severity,
    /// The registered code (see [`codes`]).
    pub code: Code,
    /// The message, worded exactly as the reference engine words it where
    /// it has one.
    pub message: String,
    /// Where the problem is.
    pub primary: Option<Label>,
    /// Other places involved (the template line behind rendered text, the
    /// first declaration of a duplicate).
    pub secondary: Vec<Label>,
    /// Hints and explanations.
    pub notes: Vec<String>,
    /// What the problem is about, most general first.
    pub subjects: Vec<Subject>,
}

impl Diagnostic {
    /// A diagnostic with `code` (and its severity) and `message`.
    pub fn new(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: code.severity,
            code,
            message: message.into(),
            primary: None,
            secondary: Vec::new(),
            notes: Vec::new(),
            subjects: Vec::new(),
        }
    }
    /// Set the primary label.
    pub fn with_primary(mut self, label: Label) -> Self {
        self.primary = Some(label);
        self
    }
    /// Add a secondary label.
    pub fn with_secondary(mut self, label: Label) -> Self {
        self.secondary.push(label);
        self
    }
    /// Add secondary labels.
    pub fn with_secondaries(mut self, labels: impl IntoIterator<Item = Label>) -> Self {
        self.secondary.extend(labels);
        self
    }
    /// Add a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
    /// Add notes (none, one or several: `Option` and iterators).
    pub fn with_notes<S: Into<String>>(mut self, notes: impl IntoIterator<Item = S>) -> Self {
        self.notes.extend(notes.into_iter().map(Into::into));
        self
    }
    /// Add a subject.
    pub fn with_subject(mut self, kind: SubjectKind, name: impl Into<String>) -> Self {
        self.subjects.push(Subject {
            kind,
            name: name.into(),
        });
        self
    }
    /// The name of the first subject of `kind`.
    pub fn subject(&self, kind: SubjectKind) -> Option<&str> {
        self.subjects
            .iter()
            .find(|s| s.kind == kind)
            .map(|s| s.name.as_str())
    }
    /// Set the primary label unless one is already there.
    pub fn or_primary(mut self, label: Option<Label>) -> Self {
        if self.primary.is_none() {
            self.primary = label;
        }
        self
    }
    /// Is this an error (not a warning)?
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

/// The known name closest to `name`, within edit distance 2 (and at most
/// half the candidate's length): the "did you mean" of every diagnostic.
pub fn did_you_mean<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    known
        .map(|k| (edit_distance(name, k), k))
        .filter(|(d, k)| *d <= 2.min(k.len() / 2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Edit distance in characters, counting a swap of two neighbours as one
/// edit (the optimal string alignment distance): `nmae` is one edit from
/// `name`, as the typist made it, and two from `image`.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Rows i-2, i-1 and i of the table.
    let mut before: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 0..a.len() {
        let mut cur = vec![i + 1; b.len() + 1];
        for j in 0..b.len() {
            let cost = usize::from(a[i] != b[j]);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            if i > 0 && j > 0 && a[i] == b[j - 1] && a[i - 1] == b[j] {
                cur[j + 1] = cur[j + 1].min(before[j - 1] + 1);
            }
        }
        before = std::mem::replace(&mut prev, cur);
    }
    prev[b.len()]
}
