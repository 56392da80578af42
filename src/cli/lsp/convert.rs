//! The protocol's coordinates: `file://` URIs ↔ paths, LSP positions
//! (line, UTF-16 column) ↔ byte offsets, and the library's issues,
//! places and symbols as `lsp_types` values.

use lowstate::diag::Severity;
use lowstate::editor::{CompletionKind, Issue, Place, Symbol, SymbolKind};
use lsp_types as lsp;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The path of a `file://` URI (percent-decoded).
pub fn path_of(uri: &lsp::Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file://host/path`: only the local host.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let mut bytes = Vec::with_capacity(rest.len());
    let raw = rest.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' && i + 2 < raw.len() + 1 {
            if let Some(b) = rest
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                bytes.push(b);
                i += 3;
                continue;
            }
        }
        bytes.push(raw[i]);
        i += 1;
    }
    let p = PathBuf::from(String::from_utf8(bytes).ok()?);
    p.is_absolute().then_some(p)
}

/// The `file://` URI of an absolute path.
pub fn uri_of(path: &Path) -> lsp::Uri {
    let mut s = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    lsp::Uri::from_str(&s).unwrap_or_else(|_| lsp::Uri::from_str("file:///").expect("a URI"))
}

/// The byte offset of an LSP position (UTF-16 columns) in `text`; past
/// the end of a line or of the text, its end.
pub fn offset_of(text: &str, pos: lsp::Position) -> usize {
    let mut line_start = 0;
    for _ in 0..pos.line {
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |i| line_start + i);
    let mut units = 0u32;
    for (i, c) in text[line_start..line_end].char_indices() {
        if units >= pos.character {
            return line_start + i;
        }
        units += c.len_utf16() as u32;
    }
    line_end
}

/// A text with the byte offsets its lines start at: a position is found
/// by a binary search and a walk along its own line, so converting every
/// diagnostic or symbol of a file reads the file once.
pub struct Lines<'t> {
    text: &'t str,
    starts: std::borrow::Cow<'t, [usize]>,
}

impl<'t> Lines<'t> {
    /// Index `text`.
    pub fn new(text: &'t str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect::<Vec<_>>()
            .into();
        Lines { text, starts }
    }

    /// The LSP position of a byte offset.
    pub fn position(&self, offset: usize) -> lsp::Position {
        let offset = lowstate::text::floor_char_boundary(self.text, offset.min(self.text.len()));
        let line = self
            .starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = self.starts.get(line).copied().unwrap_or(0);
        let character = self.text[start..offset]
            .chars()
            .map(|c| c.len_utf16() as u32)
            .sum();
        lsp::Position {
            line: line as u32,
            character,
        }
    }

    /// The LSP range of a byte range.
    pub fn range(&self, r: &std::ops::Range<usize>) -> lsp::Range {
        lsp::Range {
            start: self.position(r.start),
            end: self.position(r.end.max(r.start)),
        }
    }
}

/// The LSP range of a byte range in `text`.
pub fn range_of(text: &str, r: &std::ops::Range<usize>) -> lsp::Range {
    Lines::new(text).range(r)
}

/// A file's text and the offsets its lines start at.
type Indexed = (String, Vec<usize>);

/// The current texts of files, each read (and its lines indexed) once
/// however many places point into it.
pub struct Texts<'a> {
    read: &'a dyn Fn(&Path) -> Option<String>,
    files: std::cell::RefCell<std::collections::HashMap<PathBuf, std::rc::Rc<Indexed>>>,
}

impl<'a> Texts<'a> {
    /// Texts read by `read` (the editor's, else the file's).
    pub fn new(read: &'a dyn Fn(&Path) -> Option<String>) -> Self {
        Texts {
            read,
            files: Default::default(),
        }
    }

    /// The LSP range of `range` in the file at `path` (empty text when it
    /// cannot be read).
    pub fn range(&self, path: &Path, range: &std::ops::Range<usize>) -> lsp::Range {
        let file = self
            .files
            .borrow_mut()
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                let text = (self.read)(path).unwrap_or_default();
                let starts = Lines::new(&text).starts.into_owned();
                std::rc::Rc::new((text, starts))
            })
            .clone();
        let lines = Lines {
            text: &file.0,
            starts: std::borrow::Cow::Borrowed(&file.1),
        };
        lines.range(range)
    }
}

/// A place as an LSP location.
pub fn location(p: &Place, texts: &Texts) -> lsp::Location {
    lsp::Location {
        uri: uri_of(&p.path),
        range: texts.range(&p.path, &p.range),
    }
}

/// An issue as an LSP diagnostic.
pub fn diagnostic(issue: &Issue, texts: &Texts) -> lsp::Diagnostic {
    lsp::Diagnostic {
        range: texts.range(&issue.at.path, &issue.at.range),
        severity: Some(match issue.severity {
            Severity::Error => lsp::DiagnosticSeverity::ERROR,
            Severity::Warning => lsp::DiagnosticSeverity::WARNING,
            Severity::Info => lsp::DiagnosticSeverity::INFORMATION,
        }),
        code: Some(lsp::NumberOrString::String(issue.code.to_string())),
        source: Some("lowstate".into()),
        message: issue.message.clone(),
        related_information: (!issue.related.is_empty()).then(|| {
            issue
                .related
                .iter()
                .map(|(p, m)| lsp::DiagnosticRelatedInformation {
                    location: location(p, texts),
                    message: m.clone(),
                })
                .collect()
        }),
        ..Default::default()
    }
}

/// A symbol as an LSP document symbol.
#[allow(deprecated)] // `deprecated` is a required field of the struct.
pub fn document_symbol(s: &Symbol, text: &Lines) -> lsp::DocumentSymbol {
    lsp::DocumentSymbol {
        name: s.name.clone(),
        detail: (!s.detail.is_empty()).then(|| s.detail.clone()),
        kind: symbol_kind(s.kind),
        tags: None,
        deprecated: None,
        range: text.range(&s.at.range),
        selection_range: text.range(&s.name_at),
        children: (!s.children.is_empty()).then(|| {
            s.children
                .iter()
                .map(|c| document_symbol(c, text))
                .collect()
        }),
    }
}

/// A symbol as an LSP workspace symbol.
#[allow(deprecated)]
pub fn symbol_information(s: &Symbol, texts: &Texts) -> lsp::SymbolInformation {
    lsp::SymbolInformation {
        name: s.name.clone(),
        kind: symbol_kind(s.kind),
        tags: None,
        deprecated: None,
        location: location(&s.at, texts),
        container_name: (!s.detail.is_empty()).then(|| s.detail.clone()),
    }
}

fn symbol_kind(k: SymbolKind) -> lsp::SymbolKind {
    match k {
        SymbolKind::Namespace => lsp::SymbolKind::NAMESPACE,
        SymbolKind::Object => lsp::SymbolKind::OBJECT,
        SymbolKind::Function => lsp::SymbolKind::FUNCTION,
        SymbolKind::Variable => lsp::SymbolKind::VARIABLE,
    }
}

/// A completion kind in LSP's words.
pub fn completion_kind(k: CompletionKind) -> lsp::CompletionItemKind {
    match k {
        CompletionKind::Module => lsp::CompletionItemKind::MODULE,
        CompletionKind::Function => lsp::CompletionItemKind::FUNCTION,
        CompletionKind::Property => lsp::CompletionItemKind::PROPERTY,
        CompletionKind::Keyword => lsp::CompletionItemKind::KEYWORD,
        CompletionKind::Reference => lsp::CompletionItemKind::REFERENCE,
        CompletionKind::File => lsp::CompletionItemKind::FILE,
        CompletionKind::Type => lsp::CompletionItemKind::CLASS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let t = "ab\né𝄞x\n";
        let p = lsp::Position {
            line: 1,
            character: 3,
        };
        assert_eq!(offset_of(t, p), 3 + 2 + 4);
        assert_eq!(Lines::new(t).position(9), p);
        assert_eq!(
            offset_of(
                t,
                lsp::Position {
                    line: 9,
                    character: 0
                }
            ),
            t.len()
        );
    }

    #[test]
    fn uris_round_trip() {
        let p = Path::new("/tmp/a b/é.sls");
        assert_eq!(path_of(&uri_of(p)).as_deref(), Some(p));
    }
}
