//! What an editor asks of Heat templates (`lowstate lsp`): the located
//! issues of each open template (its compile and `check --hot`
//! diagnostics, and those of the environment files it uses), where a
//! `get_resource`, `get_param`, `get_attr`, `depends_on`, `get_file` or
//! provider template leads, who references a resource or parameter,
//! symbols, hovers (a parameter's value and source, a resource's wave and
//! property schema) and completions (resource types, properties,
//! attributes, the version's intrinsic functions, parameter and resource
//! names). Templates are read from the editor's texts; `get_file` and
//! provider templates are only located, never read by the editor side.

use crate::diag::{Diagnostic, SourceFile};
use crate::editor::{issue_of, Completion, CompletionKind, Issue, Place, Symbol, SymbolKind};
use crate::hot::Input;
use crate::value::Value;
use crate::yaml::{Node, NodeValue};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A directory of Heat templates opened in an editor.
#[derive(Debug, Default)]
pub struct Workspace {
    /// The directory reads stay in (the workspace folder).
    pub root: Option<PathBuf>,
    /// Environment files every template is compiled with (`-e`), in order.
    pub environments: Vec<PathBuf>,
}

/// Whether `text` looks like a Heat template or environment file.
pub fn is_hot_text(text: &str) -> bool {
    text.contains("heat_template_version")
        || text.contains("resource_registry")
        || text.contains("parameter_defaults")
}

fn is_template(text: &str) -> bool {
    text.contains("heat_template_version")
}

fn load(text: &str) -> Option<Node> {
    let options = crate::yaml::LoadOptions::new(crate::yaml::Dialect::Heat, &Default::default());
    crate::yaml::load_with(text, &options).ok()
}

/// The key → value entries of a mapping node.
fn entries(n: &Node) -> &[(Node, Node)] {
    match &n.value {
        NodeValue::Map(m) => m,
        _ => &[],
    }
}

fn str_of(n: &Node) -> Option<&str> {
    match &n.value {
        NodeValue::Str(s) => Some(s.as_str()),
        _ => None,
    }
}

fn get<'n>(n: &'n Node, key: &str) -> Option<&'n (Node, Node)> {
    entries(n).iter().find(|(k, _)| str_of(k) == Some(key))
}

/// The chain of nodes from the root to the innermost one holding
/// `offset`: each step's key (a mapping key's text, or a list index) and
/// the node.
fn chain(root: &Node, offset: usize) -> Vec<(String, &Node)> {
    let mut out = vec![(String::new(), root)];
    let mut cur = root;
    loop {
        let next = match &cur.value {
            NodeValue::Map(m) => m.iter().find_map(|(k, v)| {
                let key = str_of(k).unwrap_or("").to_string();
                if within(&k.span, offset) {
                    Some((key, k))
                } else if within(&v.span, offset) {
                    Some((key, v))
                } else {
                    None
                }
            }),
            NodeValue::List(l) => l
                .iter()
                .enumerate()
                .find(|(_, v)| within(&v.span, offset))
                .map(|(i, v)| (i.to_string(), v)),
            _ => None,
        };
        match next {
            Some((k, n)) if !std::ptr::eq(n, cur) => {
                let is_key = matches!(&cur.value, NodeValue::Map(m) if m.iter().any(|(kk, _)| std::ptr::eq(kk, n)));
                out.push((if is_key { format!("{k}\u{0}key") } else { k }, n));
                if is_key {
                    return out;
                }
                cur = n;
            }
            _ => return out,
        }
    }
}

fn within(r: &Range<usize>, offset: usize) -> bool {
    r.start <= offset && offset <= r.end && r.start < r.end
}

/// What the cursor is on.
#[derive(Debug, PartialEq)]
enum Target {
    Resource(String),
    Parameter(String),
    File(String),
    Type(String),
}

/// What the node chain names: a resource, a parameter, a file or a type.
fn target(ch: &[(String, &Node)]) -> Option<Target> {
    let keys: Vec<&str> = ch.iter().map(|(k, _)| k.as_str()).collect();
    let leaf = ch.last()?.1;
    let text = str_of(leaf)?.to_string();
    let n = keys.len();
    let key = |i: usize| keys.get(n.wrapping_sub(i)).copied().unwrap_or("");
    // Keys of `resources:` and `parameters:`.
    if n == 3 && key(1).ends_with("\u{0}key") {
        return match key(2) {
            "resources" => Some(Target::Resource(text)),
            "parameters" => Some(Target::Parameter(text)),
            _ => None,
        };
    }
    match (key(2), key(1)) {
        (_, "get_resource") | (_, "depends_on") => Some(Target::Resource(text)),
        ("depends_on", _) | ("get_attr", "0") => Some(Target::Resource(text)),
        (_, "get_param") | ("get_param", "0") => Some(Target::Parameter(text)),
        (_, "get_file") => Some(Target::File(text)),
        (_, "type") if n == 4 && key(3) != "resource_registry" => {
            if text.contains("::") {
                Some(Target::Type(text))
            } else {
                Some(Target::File(text))
            }
        }
        _ if keys.contains(&"resource_registry") && !key(1).ends_with("\u{0}key") => {
            (!text.contains("::")).then_some(Target::File(text))
        }
        _ => None,
    }
}

/// Every reference to a resource or parameter in the tree: (target, range).
fn references_in(root: &Node, out: &mut Vec<(Target, Range<usize>)>) {
    match &root.value {
        NodeValue::Map(m) => {
            for (k, v) in m {
                match (str_of(k), &v.value) {
                    (Some("get_resource"), NodeValue::Str(s)) => {
                        out.push((Target::Resource(s.to_string()), v.span.clone()))
                    }
                    (Some("get_param"), NodeValue::Str(s)) => {
                        out.push((Target::Parameter(s.to_string()), v.span.clone()))
                    }
                    (Some("get_param"), NodeValue::List(l)) => {
                        if let Some(s) = l.first().and_then(str_of) {
                            out.push((Target::Parameter(s.to_string()), l[0].span.clone()))
                        }
                    }
                    (Some("get_attr"), NodeValue::List(l)) => {
                        if let Some(s) = l.first().and_then(str_of) {
                            out.push((Target::Resource(s.to_string()), l[0].span.clone()))
                        }
                    }
                    (Some("depends_on"), NodeValue::Str(s)) => {
                        out.push((Target::Resource(s.to_string()), v.span.clone()))
                    }
                    (Some("depends_on"), NodeValue::List(l)) => {
                        for it in l {
                            if let Some(s) = str_of(it) {
                                out.push((Target::Resource(s.to_string()), it.span.clone()))
                            }
                        }
                    }
                    _ => {}
                }
                references_in(v, out);
            }
        }
        NodeValue::List(l) => l.iter().for_each(|v| references_in(v, out)),
        _ => {}
    }
}

impl Workspace {
    /// A workspace rooted at `root`.
    pub fn new(root: Option<PathBuf>) -> Workspace {
        Workspace {
            root,
            environments: Vec::new(),
        }
    }

    fn input(&self, path: &Path, text: &str, open: &[(PathBuf, String)]) -> Input {
        let env_text = |p: &PathBuf| {
            open.iter()
                .find(|(o, _)| o == p)
                .map(|(_, t)| t.clone())
                .or_else(|| std::fs::read_to_string(p).ok())
        };
        let dir = path.parent().map(Path::to_path_buf);
        Input {
            template: Some(SourceFile::new(path.display().to_string(), text)),
            environments: self
                .environments
                .iter()
                .filter_map(|p| Some(SourceFile::new(p.display().to_string(), env_text(p)?)))
                .collect(),
            files_dir: dir.clone(),
            files_root: self.root.clone().or(dir),
            // A template is written before its values are known: as Heat's
            // template validate, a parameter without one is no error.
            unset: crate::hot::params::Unset::Deferred,
            ..Input::default()
        }
    }

    /// The issues of the open templates (`open`: path and text), compiled
    /// and checked, by file (environment files' issues under theirs).
    pub fn issues(&self, open: &[(PathBuf, String)]) -> BTreeMap<PathBuf, Vec<Issue>> {
        let mut out: BTreeMap<PathBuf, Vec<Issue>> = BTreeMap::new();
        for (path, text) in open {
            out.entry(path.clone()).or_default();
            if !is_template(text) {
                continue;
            }
            let input = self.input(path, text, open);
            let compiled = crate::hot::compile(&input);
            let mut diags: Vec<Diagnostic> = compiled.diagnostics.clone();
            if compiled.ok() {
                diags.extend(crate::hot::check::check_compiled(&input, &compiled));
            }
            let redactor = crate::redact::Redactor::new(compiled.secrets.clone());
            let source = |name: &str| {
                let p = PathBuf::from(name);
                (p == *path || self.environments.contains(&p)).then_some(p)
            };
            for d in &diags {
                let fallback = Some(Place {
                    path: path.clone(),
                    range: 0..0,
                });
                if let Some(mut issue) = issue_of(d, &source, fallback) {
                    narrow_to_quoted(&mut issue, text);
                    issue.message = redactor.text(&issue.message);
                    let list = out.entry(issue.at.path.clone()).or_default();
                    if !list
                        .iter()
                        .any(|i| i.at == issue.at && i.message == issue.message)
                    {
                        list.push(issue);
                    }
                }
            }
        }
        out
    }

    /// Where the thing at `offset` of the template at `path` is defined.
    pub fn definition(&self, path: &Path, text: &str, offset: usize) -> Vec<Place> {
        let Some(root) = load(text) else {
            return Vec::new();
        };
        let ch = chain(&root, offset);
        let here = |r: Range<usize>| Place {
            path: path.to_path_buf(),
            range: r,
        };
        match target(&ch) {
            Some(Target::Resource(name)) => get(&root, "resources")
                .and_then(|(_, rs)| get(rs, &name))
                .map(|(k, _)| here(k.span.clone()))
                .into_iter()
                .collect(),
            Some(Target::Parameter(name)) => get(&root, "parameters")
                .and_then(|(_, ps)| get(ps, &name))
                .map(|(k, _)| here(k.span.clone()))
                .into_iter()
                .collect(),
            Some(Target::File(f)) => {
                let f = f.strip_prefix("file://").unwrap_or(&f);
                let p = path
                    .parent()
                    .map(|d| d.join(f))
                    .unwrap_or_else(|| PathBuf::from(f));
                let inside = self
                    .root
                    .as_ref()
                    .is_none_or(|r| p.canonicalize().is_ok_and(|c| c.starts_with(r)));
                (p.is_file() && inside)
                    .then(|| Place {
                        path: p.canonicalize().unwrap_or(p),
                        range: 0..0,
                    })
                    .into_iter()
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// The references to the resource or parameter at `offset` (and its
    /// declaration when `declaration`).
    pub fn references(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        declaration: bool,
    ) -> Vec<Place> {
        let Some(root) = load(text) else {
            return Vec::new();
        };
        let Some(t) = target(&chain(&root, offset)) else {
            return Vec::new();
        };
        let mut refs = Vec::new();
        references_in(&root, &mut refs);
        let mut out: Vec<Place> = if declaration {
            self.definition(path, text, offset)
        } else {
            Vec::new()
        };
        out.extend(
            refs.into_iter()
                .filter(|(x, _)| *x == t)
                .map(|(_, r)| Place {
                    path: path.to_path_buf(),
                    range: r,
                }),
        );
        out
    }

    /// Hover text (Markdown) at `offset`.
    pub fn hover(&self, path: &Path, text: &str, offset: usize) -> Option<String> {
        let root = load(text)?;
        let t = target(&chain(&root, offset))?;
        if let Target::Type(ty) = &t {
            return schema_hover(ty);
        }
        let compiled = crate::hot::compile(&self.input(path, text, &[]));
        let redactor = crate::redact::Redactor::new(compiled.secrets.clone());
        let doc = &compiled.document;
        match t {
            Target::Parameter(name) => {
                let p = doc.get("parameters")?.get(name.as_str())?;
                let g = |k: &str| p.get(k).map(Value::py_str).unwrap_or_default();
                if g("source") == "deferred" {
                    return Some(format!(
                        "**parameter `{name}`** ({})\n\nno value: no default, and no environment file gives one; Heat asks for it when the stack is created\n",
                        g("type")
                    ));
                }
                let shown = if p.get("hidden") == Some(&Value::Bool(true)) {
                    "******".to_string()
                } else {
                    g("display")
                };
                Some(redactor.text(&format!(
                    "**parameter `{name}`** ({})\n\nvalue: `{shown}`\n\nsource: {}\n",
                    g("type"),
                    g("source")
                )))
            }
            Target::Resource(name) => {
                let r = match doc.get("resources")? {
                    Value::List(l) => l
                        .iter()
                        .find(|r| r.get("name").map(Value::py_str).as_deref() == Some(&name))?,
                    _ => return None,
                };
                let g = |k: &str| r.get(k).map(Value::py_str).unwrap_or_default();
                let requires = match r.get("requires") {
                    Some(Value::List(l)) => {
                        l.iter().map(Value::py_str).collect::<Vec<_>>().join(", ")
                    }
                    _ => String::new(),
                };
                let mut out = format!(
                    "**resource `{name}`** `{}`\n\nwave {}{}\n",
                    g("type"),
                    g("wave"),
                    if requires.is_empty() {
                        String::new()
                    } else {
                        format!(", after {requires}")
                    }
                );
                if let Some(s) = schema_hover(&g("resolved_type")) {
                    out.push('\n');
                    out.push_str(&s);
                }
                Some(redactor.text(&out))
            }
            _ => None,
        }
    }

    /// Completions at `offset` of the template at `path`.
    pub fn completion(&self, _path: &Path, text: &str, offset: usize) -> Vec<Completion> {
        let ls = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let before = &text[ls..offset];
        let root = load(text).or_else(|| {
            // Mid-edit text rarely parses: complete against the text with
            // the line being written blanked.
            let le = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
            let mut t = text.to_string();
            t.replace_range(ls..le, "");
            load(&t)
        });
        let names = |section: &str| -> Vec<String> {
            root.as_ref()
                .and_then(|r| get(r, section))
                .map(|(_, m)| {
                    entries(m)
                        .iter()
                        .filter_map(|(k, _)| str_of(k).map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut out = Vec::new();
        let tail = before.trim_end();
        if tail.ends_with("get_resource:")
            || tail.ends_with("depends_on:")
            || tail.contains("depends_on: [")
        {
            for n in names("resources") {
                out.push(Completion::new(n, "resource", CompletionKind::Reference));
            }
            return out;
        }
        if tail.ends_with("get_param:") || tail.contains("get_param: [") {
            for n in names("parameters") {
                out.push(Completion::new(n, "parameter", CompletionKind::Reference));
            }
            return out;
        }
        if let Some(rest) = tail.split("get_attr: [").nth(1) {
            match rest.split_once(',') {
                None => {
                    for n in names("resources") {
                        out.push(Completion::new(n, "resource", CompletionKind::Reference));
                    }
                }
                Some((res, _)) => {
                    let ty = root
                        .as_ref()
                        .and_then(|r| get(r, "resources"))
                        .and_then(|(_, rs)| get(rs, res.trim()))
                        .and_then(|(_, body)| get(body, "type"))
                        .and_then(|(_, t)| str_of(t).map(str::to_string))
                        .unwrap_or_default();
                    for a in crate::hot::stack::attributes_of(&ty) {
                        out.push(Completion::new(
                            a,
                            format!("attribute of {ty}"),
                            CompletionKind::Property,
                        ));
                    }
                }
            }
            return out;
        }
        if tail.trim_start().starts_with("type:") {
            let mut types: Vec<&str> = crate::hot::env::plugins().collect();
            types.sort_unstable();
            for t in types {
                out.push(Completion::new(t, "resource type", CompletionKind::Type));
            }
            return out;
        }
        // Under a resource's `properties:`: its type's properties.
        let indent = before.len() - before.trim_start().len();
        if let Some(ty) = enclosing_properties_type(text, ls, indent) {
            if let Some(Ok(schema)) = crate::hot::check::schema(&ty) {
                for (name, rule) in &schema.arguments {
                    let detail = if rule.required {
                        "required property"
                    } else {
                        "property"
                    };
                    out.push(Completion::new(
                        name.clone(),
                        detail,
                        CompletionKind::Property,
                    ));
                }
                return out;
            }
        }
        let version = root
            .as_ref()
            .and_then(|r| get(r, "heat_template_version"))
            .map(|(_, v)| match &v.value {
                NodeValue::Str(s) => s.to_string(),
                _ => String::new(),
            })
            .unwrap_or_default();
        for f in crate::hot::functions::available(&version) {
            out.push(Completion::new(
                f,
                format!("intrinsic function ({version})"),
                CompletionKind::Function,
            ));
        }
        out
    }

    /// The resources, parameters and outputs of every template under the
    /// root whose name contains `query`.
    pub fn workspace_symbols(&self, query: &str) -> Vec<Symbol> {
        let Some(root) = &self.root else {
            return Vec::new();
        };
        let q = query.to_lowercase();
        let mut out = Vec::new();
        let Ok(rd) = std::fs::read_dir(root) else {
            return out;
        };
        let mut files: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        files.sort();
        for p in files {
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !matches!(ext, "yaml" | "yml" | "json" | "template") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&p) else {
                continue;
            };
            if !is_template(&text) {
                continue;
            }
            for s in document_symbols(&p, &text) {
                out.extend(
                    s.children
                        .into_iter()
                        .filter(|c| c.name.to_lowercase().contains(&q)),
                );
            }
        }
        out
    }
}

/// Point an issue whose message quotes a name (`The specified reference
/// "vlo" (in srv) is incorrect.`) at that name, when it is written after
/// the issue's start in the same resource.
fn narrow_to_quoted(issue: &mut Issue, text: &str) {
    let Some(name) = issue.message.split('"').nth(1) else {
        return;
    };
    if name.is_empty() || issue.at.path.as_os_str().is_empty() {
        return;
    }
    let start = issue.at.range.start;
    // Within the block the label starts (up to the next line as little
    // indented as the label's).
    let ls = text[..start.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let indent = start.saturating_sub(ls);
    let mut end = text.len();
    let mut pos = text[start.min(text.len())..]
        .find('\n')
        .map_or(text.len(), |i| start + i + 1);
    while pos < text.len() {
        let line_end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
        let line = &text[pos..line_end];
        let t = line.trim_start();
        if !t.is_empty() && line.len() - t.len() <= indent {
            end = pos;
            break;
        }
        pos = line_end + 1;
    }
    if let Some(r) = crate::editor::find_word(&text[..end], name, start + 1) {
        issue.at.range = r;
    }
}

/// The type of the resource whose `properties:` mapping holds the line
/// starting at `line_start` (indented `indent`), read from the text above.
fn enclosing_properties_type(text: &str, line_start: usize, indent: usize) -> Option<String> {
    let mut want = indent;
    let mut in_props = false;
    for l in text[..line_start].lines().rev() {
        let t = l.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let i = l.len() - t.len();
        if !in_props {
            if i < want {
                if t.trim_end() == "properties:" {
                    in_props = true;
                    want = i;
                    continue;
                }
                return None;
            }
        } else if i == want {
            if let Some(ty) = t.strip_prefix("type:") {
                return Some(ty.trim().trim_matches(['"', '\'']).to_string());
            }
        } else if i < want {
            return None;
        }
    }
    None
}

/// A resource type's properties (Heat 27.0.1's schema), as Markdown.
fn schema_hover(ty: &str) -> Option<String> {
    let schema = crate::hot::check::schema(ty)?.ok()?;
    let mut out = format!("**{ty}** properties (Heat 27.0.1)\n\n");
    for (name, rule) in &schema.arguments {
        out.push_str(&format!("- `{name}`"));
        if rule.required {
            out.push_str(" (required)");
        }
        out.push('\n');
    }
    let attrs = crate::hot::stack::attributes_of(ty);
    if !attrs.is_empty() {
        out.push_str(&format!("\nattributes: {}\n", attrs.join(", ")));
    }
    Some(out)
}

/// The sections, parameters, resources and outputs of a template text.
pub fn document_symbols(path: &Path, text: &str) -> Vec<Symbol> {
    let Some(root) = load(text) else {
        return Vec::new();
    };
    let place = |r: &Range<usize>| Place {
        path: path.to_path_buf(),
        range: r.clone(),
    };
    let mut out = Vec::new();
    for (k, v) in entries(&root) {
        let Some(section) = str_of(k) else { continue };
        let (kind, detail_key) = match section {
            "parameters" => (SymbolKind::Variable, "type"),
            "resources" => (SymbolKind::Object, "type"),
            "outputs" => (SymbolKind::Variable, "description"),
            _ => continue,
        };
        let children = entries(v)
            .iter()
            .filter_map(|(ck, cv)| {
                Some(Symbol {
                    name: str_of(ck)?.to_string(),
                    detail: get(cv, detail_key)
                        .and_then(|(_, d)| str_of(d))
                        .unwrap_or("")
                        .to_string(),
                    kind,
                    at: place(&(ck.span.start..cv.span.end.max(ck.span.end))),
                    name_at: ck.span.clone(),
                    children: Vec::new(),
                })
            })
            .collect();
        out.push(Symbol {
            name: section.to_string(),
            detail: String::new(),
            kind: SymbolKind::Namespace,
            at: place(&(k.span.start..v.span.end.max(k.span.end))),
            name_at: k.span.clone(),
            children,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "heat_template_version: 2016-10-14\nparameters:\n  size:\n    type: number\n    default: 2\nresources:\n  vol:\n    type: OS::Cinder::Volume\n    properties:\n      size: {get_param: size}\n  srv:\n    type: OS::Nova::Server\n    depends_on: [vol]\n    properties:\n      name: {get_attr: [vol, size]}\n";

    #[test]
    fn references_lead_to_declarations() {
        let w = Workspace::default();
        let p = Path::new("/t/a.yaml");
        let at = T.find("get_param: size").unwrap() + 12;
        let d = w.definition(p, T, at);
        assert_eq!(d.len(), 1);
        assert_eq!(&T[d[0].range.clone()], "size");
        let at = T.find("[vol]").unwrap() + 2;
        assert_eq!(&T[w.definition(p, T, at)[0].range.clone()], "vol");
        let at = T.find("[vol, size]").unwrap() + 2;
        assert_eq!(&T[w.definition(p, T, at)[0].range.clone()], "vol");
        let decl = T.find("  vol:").unwrap() + 3;
        assert_eq!(w.references(p, T, decl, false).len(), 2);
    }

    #[test]
    fn hovers_and_completions() {
        let w = Workspace::default();
        let p = Path::new("/t/a.yaml");
        let h = w
            .hover(p, T, T.find("get_param: size").unwrap() + 12)
            .unwrap();
        assert!(
            h.contains("value: `2`") && h.contains("source: default"),
            "{h}"
        );
        let h = w.hover(p, T, T.find("  vol:").unwrap() + 3).unwrap();
        assert!(h.contains("wave 0") && h.contains("- `size`"), "{h}");
        let at = T.find("      size:").unwrap();
        let c = w.completion(p, T, at + 6);
        assert!(c.iter().any(|c| c.label == "volume_type"), "{c:?}");
        let s = document_symbols(p, T);
        assert_eq!(s[1].children.len(), 2);
    }

    /// A parameter without a value is no error in the editor (Heat's
    /// template validate needs none); what it hid is still found.
    #[test]
    fn a_parameter_without_a_value_is_deferred_and_the_rest_checked() {
        let t = "heat_template_version: 2016-10-14\nparameters:\n  key:\n    type: number\nresources:\n  srv:\n    type: OS::Cinder::Volume\n    properties:\n      size: {get_param: key}\n      nmae: data\n";
        let w = Workspace::default();
        let p = PathBuf::from("/t/a.yaml");
        let issues = w.issues(&[(p.clone(), t.to_string())]);
        let codes: Vec<&str> = issues[&p].iter().map(|i| i.code).collect();
        assert_eq!(codes, ["unknown-argument"], "{:?}", issues[&p]);
        let h = w
            .hover(&p, t, t.find("get_param: key").unwrap() + 11)
            .unwrap();
        assert!(h.contains("no value"), "{h}");
        let h = w.hover(&p, t, t.find("  srv:").unwrap() + 3).unwrap();
        assert!(h.contains("wave 0"), "{h}");
        // The CLI's stack create still wants the value.
        let input = Input {
            template: Some(SourceFile::new("a.yaml", t)),
            ..Input::default()
        };
        let compiled = crate::hot::compile(&input);
        assert_eq!(compiled.diagnostics[0].code.name, "hot-parameter-missing");
    }
}
