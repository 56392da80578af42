//! What an SLS text says before any compile: where an ID is declared,
//! the YAML keys above a place, the Jinja files it imports, the pillar key
//! under the cursor, its symbols, an SLS name from a path, a relative
//! include resolved, the target a missing-requisite message names.

use crate::editor::{Place, Symbol, SymbolKind};
use std::ops::Range;
use std::path::Path;

/// The range of `id` in the first line of `text` that declares it as a
/// state ID: the line is the ID (bare or quoted) and a colon, from its
/// first column.
pub(super) fn id_declaration(text: &str, id: &str) -> Option<std::ops::Range<usize>> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let decl = line.trim_end();
        let key = decl.strip_suffix(':').unwrap_or("");
        let quoted = |q: char| key.strip_prefix(q).and_then(|k| k.strip_suffix(q));
        let start = match (key == id, quoted('"'), quoted('\'')) {
            (true, _, _) => Some(0),
            (_, Some(k), _) | (_, _, Some(k)) if k == id => Some(1),
            _ => None,
        };
        if let Some(s) = start {
            return Some(at + s..at + s + id.len());
        }
        at += line.len();
    }
    None
}

/// `a/b.sls` → `a.b`, `a/b/init.sls` → `a.b`; `None` for other files.
pub fn sls_name(rel: &str) -> Option<String> {
    let stem = rel.strip_suffix(".sls")?;
    let stem = stem.strip_suffix("/init").unwrap_or(stem);
    if stem == "init" {
        return None;
    }
    Some(stem.replace('/', "."))
}

/// The lines above `line` that hold it, innermost first: (indent, key,
/// whether it is a list item), skipping Jinja and blank lines.
pub(super) fn ancestors(text: &str, offset: usize) -> (String, Vec<(usize, String, bool)>) {
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = text[start..end].to_string();
    let mut indent = indent_of(&line);
    let mut out = Vec::new();
    for l in text[..start].lines().rev() {
        let t = l.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with("{%") || t.starts_with("{#") {
            continue;
        }
        let i = indent_of(l);
        let item = t.starts_with("- ");
        // A list item at the same indent as its key still belongs to it.
        if i < indent || (i == indent && !item && line.trim_start().starts_with("- ")) {
            let key = t.trim_start_matches("- ").trim_end();
            if let Some(k) = key.strip_suffix(':') {
                out.push((i, k.trim().to_string(), item));
            } else if let Some((k, _)) = key.split_once(": ") {
                out.push((i, k.trim().to_string(), item));
            }
            indent = i;
            if i == 0 {
                break;
            }
        }
    }
    (line, out)
}

fn indent_of(l: &str) -> usize {
    l.len() - l.trim_start_matches(' ').len()
}

/// Jinja `import`/`from`/`include`/`import_yaml`... statements of `text`
/// with a literal name: (range of the name, the name).
pub fn jinja_refs(text: &str) -> Vec<(Range<usize>, String)> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = text[at..].find("{%") {
        let s = at + i + 2;
        let Some(e) = text[s..].find("%}").map(|e| s + e) else {
            break;
        };
        let body = &text[s..e];
        let t = body.trim_start_matches(['-', '+']).trim_start();
        let kw = [
            "import_yaml",
            "import_json",
            "import_text",
            "from",
            "import",
            "include",
        ];
        if kw.iter().any(|k| t.starts_with(k)) {
            if let Some(q) = body.find(['"', '\'']) {
                let quote = &body[q..=q];
                if let Some(len) = body[q + 1..].find(quote) {
                    let name = &body[q + 1..q + 1 + len];
                    // `tpldir ~ "/map.jinja"`: beside the template.
                    let computed = body[..q].trim_end().strip_suffix('~').map(str::trim_end);
                    let name = match computed {
                        Some(v) if v.ends_with("tpldir") || v.ends_with("slspath") => {
                            format!(".{name}")
                        }
                        _ => name.to_string(),
                    };
                    out.push((s + q + 1..s + q + 1 + len, name));
                }
            }
        }
        at = e + 2;
    }
    out
}

/// The SLS a (possibly relative) include name means from `from`.
pub(super) fn resolve_relative(name: &str, from: Option<&str>, from_init: bool) -> String {
    let Some(rest) = name.strip_prefix('.') else {
        return name.to_string();
    };
    let Some(from) = from else {
        return rest.to_string();
    };
    let mut parts: Vec<&str> = from.split('.').collect();
    if !from_init {
        parts.pop();
    }
    let mut rest = rest;
    while let Some(r) = rest.strip_prefix('.') {
        parts.pop();
        rest = r;
    }
    parts.push(rest);
    parts.retain(|p| !p.is_empty());
    parts.join(".")
}

/// `Referenced state does not exist for requisite [require: (pkg: x)]` →
/// (`pkg`, `x`).
pub(super) fn missing_target(message: &str) -> Option<(String, String)> {
    let s = message.split_once("[")?.1;
    let inner = s.split_once('(')?.1.split_once(')')?.0;
    match inner.split_once(": ") {
        Some((m, t)) => Some((m.trim().to_string(), t.trim().to_string())),
        None => Some((String::new(), inner.trim().to_string())),
    }
}

/// The pillar key a template reads at `offset`: `pillar['a']['b']`,
/// `pillar.get('a:b')`, `salt['pillar.get']('a:b')`, `pillar.a.b`.
pub fn pillar_key_at(text: &str, offset: usize) -> Option<String> {
    let ls = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let le = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = &text[ls..le];
    let col = offset - ls;
    let mut at = 0;
    while let Some(i) = line[at..].find("pillar") {
        let s = at + i;
        let mut e = s + "pillar".len();
        let rest = &line[e..];
        let mut keys: Vec<String> = Vec::new();
        if let Some(r) = rest
            .strip_prefix(".get'](")
            .or_else(|| rest.strip_prefix(".get\"]("))
            .or_else(|| rest.strip_prefix(".get("))
        {
            let r = r.trim_start_matches(['\'', '"']);
            let k: String = r.chars().take_while(|c| !"'\",)".contains(*c)).collect();
            e += rest.len() - r.len() + k.len();
            keys.extend(k.split(':').map(str::to_string));
        } else {
            let mut r = rest;
            loop {
                if let Some(x) = r.strip_prefix("['").or_else(|| r.strip_prefix("[\"")) {
                    let k: String = x.chars().take_while(|c| *c != '\'' && *c != '"').collect();
                    r = &x[k.len()..];
                    r = r.get(2..).unwrap_or("");
                    keys.push(k);
                } else if let Some(x) = r.strip_prefix('.') {
                    let k: String = x
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if k.is_empty() || k == "get" {
                        break;
                    }
                    r = &x[k.len()..];
                    keys.push(k);
                } else {
                    break;
                }
            }
            e = line.len() - r.len();
        }
        if !keys.is_empty() && s <= col && col <= e {
            return Some(keys.join(":"));
        }
        at = s + 1;
    }
    None
}

/// The symbols of an SLS text (IDs and their state declarations), read
/// from the text itself (so a file that does not compile has them too):
/// top-level keys are IDs (or `include`/`extend`/`exclude`), the keys
/// under them states.
pub fn document_symbols(path: &Path, text: &str) -> Vec<Symbol> {
    let mut out: Vec<Symbol> = Vec::new();
    let mut pos = 0;
    for l in text.split_inclusive('\n') {
        let start = pos;
        pos += l.len();
        let t = l.trim_end();
        if t.trim().is_empty() || t.trim_start().starts_with(['#', '{']) && !t.contains("}}:") {
            continue;
        }
        let indent = indent_of(t);
        let body = &t[indent..];
        if indent > 0 {
            if let Some(parent) = out.last_mut() {
                parent.at.range.end = pos;
                if let Some(c) = parent.children.last_mut() {
                    c.at.range.end = pos;
                }
            }
        }
        let Some(key) = body
            .strip_suffix(':')
            .or_else(|| body.split_once(": ").map(|x| x.0))
        else {
            continue;
        };
        if key.starts_with("- ") || key.is_empty() {
            continue;
        }
        let key = key.trim_matches(['"', '\'']);
        let name_at = start + indent..start + indent + key.len();
        if indent == 0 {
            let kind = if matches!(key, "include" | "extend" | "exclude") {
                SymbolKind::Namespace
            } else {
                SymbolKind::Object
            };
            out.push(Symbol {
                name: key.to_string(),
                detail: String::new(),
                kind,
                at: Place {
                    path: path.to_path_buf(),
                    range: start..pos,
                },
                name_at,
                children: Vec::new(),
            });
        } else if let Some(parent) = out.last_mut() {
            parent.at.range.end = pos;
            let top = parent.children.first().map_or(indent, |c| {
                c.name_at.start - text[..c.name_at.start].rfind('\n').map_or(0, |i| i + 1)
            });
            if indent == top && parent.kind == SymbolKind::Object {
                if !parent.detail.is_empty() {
                    parent.detail.push_str(", ");
                }
                parent.detail.push_str(key);
                parent.children.push(Symbol {
                    name: key.to_string(),
                    detail: String::new(),
                    kind: SymbolKind::Function,
                    at: Place {
                        path: path.to_path_buf(),
                        range: start..pos,
                    },
                    name_at,
                    children: Vec::new(),
                });
            } else if let Some(c) = parent.children.last_mut() {
                c.at.range.end = pos;
            }
        }
    }
    out
}
