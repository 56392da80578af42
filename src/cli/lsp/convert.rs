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

/// The LSP position of a byte offset in `text`.
pub fn position_of(text: &str, offset: usize) -> lsp::Position {
    let offset = lowstate::text::floor_char_boundary(text, offset.min(text.len()));
    let before = &text[..offset];
    let line = before.matches('\n').count() as u32;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let character = before[line_start..]
        .chars()
        .map(|c| c.len_utf16() as u32)
        .sum();
    lsp::Position { line, character }
}

/// The LSP range of a byte range in `text`.
pub fn range_of(text: &str, r: &std::ops::Range<usize>) -> lsp::Range {
    lsp::Range {
        start: position_of(text, r.start),
        end: position_of(text, r.end.max(r.start)),
    }
}

/// A place as an LSP location (`text` reads a file's current text).
pub fn location(p: &Place, text: &dyn Fn(&Path) -> Option<String>) -> lsp::Location {
    let t = text(&p.path).unwrap_or_default();
    lsp::Location {
        uri: uri_of(&p.path),
        range: range_of(&t, &p.range),
    }
}

/// An issue as an LSP diagnostic.
pub fn diagnostic(issue: &Issue, text: &dyn Fn(&Path) -> Option<String>) -> lsp::Diagnostic {
    let own = text(&issue.at.path).unwrap_or_default();
    lsp::Diagnostic {
        range: range_of(&own, &issue.at.range),
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
                    location: location(p, text),
                    message: m.clone(),
                })
                .collect()
        }),
        ..Default::default()
    }
}

/// A symbol as an LSP document symbol.
#[allow(deprecated)] // `deprecated` is a required field of the struct.
pub fn document_symbol(s: &Symbol, text: &str) -> lsp::DocumentSymbol {
    lsp::DocumentSymbol {
        name: s.name.clone(),
        detail: (!s.detail.is_empty()).then(|| s.detail.clone()),
        kind: symbol_kind(s.kind),
        tags: None,
        deprecated: None,
        range: range_of(text, &s.at.range),
        selection_range: range_of(text, &s.name_at),
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
pub fn symbol_information(
    s: &Symbol,
    text: &dyn Fn(&Path) -> Option<String>,
) -> lsp::SymbolInformation {
    lsp::SymbolInformation {
        name: s.name.clone(),
        kind: symbol_kind(s.kind),
        tags: None,
        deprecated: None,
        location: location(&s.at, text),
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
        assert_eq!(position_of(t, 9), p);
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
