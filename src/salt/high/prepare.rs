//! The per-file part of building the highstate: one rendered SLS file
//! turned into what the order-sensitive walk ([`super::build::Builder`])
//! takes (Salt's `render_state` up to the merge): the parse tree becomes
//! data with room for the stamps, `include` is popped, `extend` and
//! `exclude` are checked and kept, state declarations are normalised
//! (dotted keys folded, duplicate modules reported), bodies shared by
//! YAML anchors are tracked, and declarations without an `order` get the
//! placeholder the walk numbers. Done where the file was rendered, in
//! parallel; errors keep where they point until the source map can say.

use super::source_map::{SourceMap, SpanMemo};
use crate::diag::codes;
use crate::diag::{Diagnostic, SourceFile};
use crate::salt::fileserver::SlsFile;
use crate::salt::render::Rendered;
use crate::salt::{ID, SLS};
use crate::value::{Map, Value};
use crate::yaml::{Loaded, Node, NodeValue};
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::sync::Arc;

/// The result of rendering one SLS file.
#[derive(Debug, Clone)]
pub enum SlsRender {
    /// No such SLS in that saltenv.
    Missing,
    /// Rendering failed.
    Failed {
        /// Why (boxed: failures are rare, renders many).
        error: Box<Diagnostic>,
        /// Whether the render changed the minion's pillar or grains in
        /// place before it failed (the files rendered after it see that,
        /// as in Salt).
        mutated: bool,
    },
    /// Rendered and prepared.
    Ok(Box<Prepared>),
}

impl SlsRender {
    /// Whether the render changed the minion's pillar or grains in place.
    pub(super) fn mutated(&self) -> bool {
        match self {
            SlsRender::Missing => false,
            SlsRender::Failed { mutated, .. } => *mutated,
            SlsRender::Ok(p) => p.mutated,
        }
    }

    /// A render that failed with `error` and changed nothing.
    pub(super) fn failed(error: Diagnostic) -> SlsRender {
        SlsRender::Failed {
            error: Box::new(error),
            mutated: false,
        }
    }
}

/// A rendered SLS file, with the per-file part of Salt's `render_state`
/// already done (parse tree to data, `include` / `extend` / `exclude`
/// popped, state declarations normalised), so that the order-sensitive
/// walk only has includes, auto-order numbers and merging left to do.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Where the file is.
    pub file: SlsFile,
    /// Whether the render changed the minion's pillar or grains in place
    /// (Salt's later files see the change: see [`Builder::render_state`](super::build::Builder)).
    pub(super) mutated: bool,
    /// `None` when the file has no states (renders to nothing or a falsy
    /// value).
    pub(super) body: Option<Body>,
}

#[derive(Debug, Clone)]
pub(super) struct Body {
    pub(super) template: Arc<SourceFile>,
    /// The text the data stage parsed.
    pub(super) text: Arc<SourceFile>,
    /// The parse tree, kept for the source map only when its spans are
    /// empty (data not from YAML).
    pub(super) spanless: Option<Node>,
    /// The spans of `text`, once the source map worked them out.
    pub(super) spans: Arc<SpanMemo>,
    /// The state dict, or the value the file rendered to when it is not a
    /// dict (the error is then in `errors`).
    pub(super) state: Result<Map, Value>,
    /// The `include` list (empty if none or not a list).
    pub(super) include: Vec<Value>,
    /// See [`shared_bodies`].
    pub(super) shared: Vec<(Value, Value)>,
    /// With auto-order: the state declarations of this file that had no
    /// order, as (ID index, declaration index) in `state`, in that order.
    /// Each got an `{order: 0}` placeholder as its last argument; the walk
    /// numbers them (see [`Builder::handle_iorder`](super::build::Builder)).
    pub(super) slots: Vec<(usize, usize)>,
    /// Errors found while preparing, in Salt's order, each with the place
    /// in the source map to point at (looked up during the walk, when the
    /// source map holds this file and those walked before it).
    pub(super) errors: Vec<(Diagnostic, LabelAt)>,
}

/// A file's own states as its render left them for the walk (see
/// [`file_states`]).
pub(crate) struct FileStates<'r> {
    /// ID → body, stamped, each declaration without an `order` with a
    /// placeholder one (the walk numbers them).
    pub state: &'r Map,
    /// The `include` list.
    pub include: &'r [Value],
}

/// The own states of a render that the walk would take as they are: `None`
/// for a render that failed, has no states, found problems while it was
/// prepared, changed the minion's data in place, or has `extend` or
/// `exclude` (those reach other files' states).
pub(crate) fn file_states(r: &SlsRender) -> Option<FileStates<'_>> {
    let SlsRender::Ok(p) = r else { return None };
    let b = p.body.as_ref()?;
    let state = b.state.as_ref().ok()?;
    let plain = !p.mutated
        && b.errors.is_empty()
        && !state.contains_key("__extend__")
        && !state.contains_key("__exclude__");
    plain.then_some(FileStates {
        state,
        include: &b.include,
    })
}

/// Put a render's file into `sources` in place of the file's earlier
/// render (see [`SourceMap::replace_file`]).
pub(crate) fn replace_source(r: &SlsRender, what: &str, sources: &mut SourceMap) -> bool {
    let SlsRender::Ok(p) = r else { return false };
    let Some(b) = p.body.as_ref() else {
        return false;
    };
    sources.replace_file(
        what,
        b.template.clone(),
        b.text.clone(),
        b.spanless.clone(),
        b.spans.clone(),
    )
}

/// Where a diagnostic found while preparing a file should point, resolved
/// through the source map during the walk.
#[derive(Debug, Clone)]
pub(super) enum LabelAt {
    Nowhere,
    /// [`SourceMap::id`].
    Id(String),
    /// [`SourceMap::state`]: ID, state module.
    State(String, String),
}

impl LabelAt {
    pub(super) fn resolve(self, sources: &SourceMap) -> Option<crate::diag::Label> {
        match self {
            LabelAt::Nowhere => None,
            LabelAt::Id(id) => sources.id(&id),
            LabelAt::State(id, module) => sources.state(&id, &module),
        }
    }
}

/// The per-file part of Salt's `render_state`, done where the file was
/// rendered (in parallel): the parse tree becomes data, `include` is
/// popped, `extend` / `exclude` / state declarations are handled.
pub(super) fn prepare(
    file: SlsFile,
    rendered: Rendered,
    sls: &str,
    saltenv: &str,
    what: &str,
    auto_order: bool,
) -> Prepared {
    let Rendered {
        data,
        template,
        text,
        text_only,
        ..
    } = rendered;
    if text_only {
        // A text stream is not a dict; Salt's merge of it then finds
        // nothing left to read, so this is the one error.
        let label = crate::diag::Label::line(&template, 1, "the pipe ends in a text renderer");
        let body = NotDict {
            template,
            text,
            spanless: None,
            shared: Vec::new(),
            state: Value::Map(Map::new()),
        };
        return body.prepared(file, sls, what, label);
    }
    let (data, spanless, shared, span) = match data {
        // A mapping the YAML fast path read: no anchors, so no shared bodies.
        Some(Loaded::Plain(map)) if map.truthy() => (map, None, Vec::new(), 0..0),
        Some(Loaded::Tree(node)) if node.truthy() => {
            let spanless = node.span.is_empty().then(|| node.clone());
            let shared = shared_bodies(&node);
            let span = node.span.clone();
            // The parse tree is ours alone: move its strings into the data.
            (state_data(node, auto_order), spanless, shared, span)
        }
        _ => {
            return Prepared {
                file,
                body: None,
                mutated: false,
            }
        }
    };
    let Value::Map(mut state) = data else {
        let label = crate::diag::Label::new(&text, span, "renders to this");
        let body = NotDict {
            template,
            text,
            spanless,
            shared,
            state: data,
        };
        return body.prepared(file, sls, what, label);
    };
    let mut errors = Vec::new();
    let mut include = Vec::new();
    if let Some(inc) = state.get("include") {
        match inc {
            Value::List(_) => {
                if let Some(Value::List(l)) = state.shift_remove("include") {
                    include = l.into_iter().collect();
                }
            }
            _ => errors.push((
                Diagnostic::new(
                    codes::INCLUDE_NOT_LIST,
                    format!("Include Declaration in SLS {sls} is not formed as a list"),
                )
                .with_subject(SLS, what),
                LabelAt::Id(format!("include@{what}")),
            )),
        }
    }
    let mut plain = Vec::new();
    handle_extend(&mut state, sls, saltenv, &mut plain);
    errors.extend(
        plain
            .drain(..)
            .map(|d| (d, LabelAt::Id(format!("extend@{what}")))),
    );
    handle_exclude(&mut state, sls, &mut plain);
    errors.extend(plain.into_iter().map(|d| (d, LabelAt::Nowhere)));
    handle_state_decls(&mut state, sls, saltenv, &mut errors);
    share_bodies(&mut state, &shared);
    let slots = if auto_order {
        order_slots(&mut state, &shared)
    } else {
        Vec::new()
    };
    Prepared {
        file,
        mutated: false,
        body: Some(Body {
            template,
            text,
            spanless,
            spans: Arc::default(),
            state: Ok(state),
            include,
            shared,
            slots,
            errors,
        }),
    }
}

/// The data of an SLS's parse tree ([`Node::into_value`]), with room left
/// where the next steps add: two keys in each ID's body (`__sls__`,
/// `__env__`) and, with `auto_order`, one argument in each declaration (the
/// `{order: 0}` placeholder). Growing tens of thousands of them one by one
/// afterwards copied each.
fn state_data(node: Node, auto_order: bool) -> Value {
    let NodeValue::Map(ids) = node.value else {
        return node.into_value();
    };
    let mut state = Map::with_capacity(ids.len());
    for (id, body) in ids {
        let body = match body.value {
            NodeValue::Map(decls) => {
                let mut m = Map::with_capacity(decls.len() + 2);
                for (key, decl) in decls {
                    let decl = match decl.value {
                        NodeValue::List(args) if auto_order => {
                            let mut list = crate::value::List::with_capacity(args.len() + 1);
                            list.extend(args.into_iter().map(Node::into_value));
                            Value::List(list)
                        }
                        other => Node {
                            value: other,
                            span: decl.span,
                        }
                        .into_value(),
                    };
                    m.insert(key.into_value(), decl);
                }
                Value::Map(m)
            }
            other => Node {
                value: other,
                span: body.span,
            }
            .into_value(),
        };
        state.insert(id.into_value(), body);
    }
    Value::Map(state)
}

/// Whether a state declaration gets an auto-order number: a list without
/// an `{order: ...}` argument under a key not starting with `_`.
pub(super) fn wants_order(key: &Value, decl: &Value) -> bool {
    if key.as_str().is_none_or(|k| k.starts_with('_')) {
        return false;
    }
    let Value::List(args) = decl else {
        return false;
    };
    !args.iter().any(
        |a| matches!(a, Value::Map(m) if m.keys().next().and_then(Value::as_str) == Some("order")),
    )
}

/// The placeholder argument [`order_slots`] appends.
fn order_placeholder() -> Value {
    let mut m = Map::new();
    m.insert("order".into(), Value::Int(0));
    Value::Map(m)
}

/// Append an `{order: 0}` placeholder to every declaration of `state`
/// that [`Builder::handle_iorder`](super::build::Builder) will number (alias bodies are numbered
/// through their anchor) and return where they are.
fn order_slots(state: &mut Map, shared: &[(Value, Value)]) -> Vec<(usize, usize)> {
    let mut slots = Vec::new();
    for (i, (id, body)) in state.iter_mut().enumerate() {
        if shared.iter().any(|(alias, _)| alias == id) {
            continue;
        }
        let Value::Map(body) = body else { continue };
        for (j, (key, decl)) in body.iter_mut().enumerate() {
            if wants_order(key, decl) {
                if let Value::List(args) = decl {
                    args.push(order_placeholder());
                    slots.push((i, j));
                }
            }
        }
    }
    slots
}

/// Take back the placeholders [`order_slots`] put into the body at
/// `index` (about to be replaced by an included file's body, which is
/// compared with it first, as Salt compares the unnumbered one).
pub(super) fn drop_order_slots(state: &mut Map, index: usize, slots: &[(usize, usize)]) {
    let Some((_, Value::Map(body))) = state.get_index_mut(index) else {
        return;
    };
    let start = slots.partition_point(|&(i, _)| i < index);
    for &(_, j) in slots[start..].iter().take_while(|&&(i, _)| i == index) {
        if let Some((_, Value::List(args))) = body.get_index_mut(j) {
            args.pop();
        }
    }
}

/// An SLS that rendered to something other than a dict: what its body
/// keeps for the merge (`state`, which Salt's merge takes as it is).
struct NotDict {
    template: Arc<SourceFile>,
    text: Arc<SourceFile>,
    spanless: Option<Node>,
    shared: Vec<(Value, Value)>,
    state: Value,
}

impl NotDict {
    /// The body with Salt's error, "does not render to a dictionary", at
    /// `label`.
    fn prepared(self, file: SlsFile, sls: &str, what: &str, label: crate::diag::Label) -> Prepared {
        let error = Diagnostic::new(
            codes::SLS_NOT_DICT,
            format!("SLS {sls} does not render to a dictionary"),
        )
        .with_subject(SLS, what)
        .with_primary(label);
        Prepared {
            file,
            mutated: false,
            body: Some(Body {
                template: self.template,
                text: self.text,
                spanless: self.spanless,
                spans: Arc::default(),
                state: Err(self.state),
                include: Vec::new(),
                shared: self.shared,
                slots: Vec::new(),
                errors: vec![(error, LabelAt::Nowhere)],
            }),
        }
    }
}

/// IDs whose body is a YAML alias of an earlier ID's body (`copy: *opts`).
/// In Salt both names hold one Python dict, so whatever is done to one
/// (declaration folding, auto-order numbers) shows in the other. An alias
/// expands to a node with its anchor's span, which identifies it.
fn shared_bodies(node: &Node) -> Vec<(Value, Value)> {
    let NodeValue::Map(entries) = &node.value else {
        return Vec::new();
    };
    // The first ID seen with each span: one lookup per ID, not a scan of
    // every earlier one.
    let mut first: HashMap<(usize, usize), &Node> = HashMap::new();
    let mut out = Vec::new();
    for (k, v) in entries {
        let key = (v.span.start, v.span.end);
        match first.entry(key) {
            Entry::Vacant(slot) => {
                slot.insert(k);
            }
            Entry::Occupied(anchor) => {
                if matches!(v.value, NodeValue::Map(_)) && !v.span.is_empty() {
                    out.push((key_value(k), key_value(anchor.get())));
                }
            }
        }
    }
    out
}

fn key_value(k: &Node) -> Value {
    match &k.value {
        NodeValue::Str(s) => Value::Str(s.clone()),
        NodeValue::Int(i) => Value::Int(*i),
        NodeValue::Bool(b) => Value::Bool(*b),
        NodeValue::Float(f) => Value::Float(*f),
        _ => Value::Null,
    }
}

/// Give every alias ID its anchor's (current) body.
pub(super) fn share_bodies(state: &mut Map, shared: &[(Value, Value)]) {
    for (alias, anchor) in shared {
        if let Some(body) = state.get(anchor).cloned() {
            if let Some(slot) = state.get_mut(alias) {
                *slot = body;
            }
        }
    }
}

/// Salt's `_handle_extend`: move `extend` into `__extend__`.
fn handle_extend(state: &mut Map, sls: &str, saltenv: &str, errors: &mut Vec<Diagnostic>) {
    let Some(ext) = state.shift_remove("extend") else {
        return;
    };
    let Value::Map(mut ext) = ext else {
        errors.push(
            Diagnostic::new(
                codes::BAD_EXTEND,
                format!("Extension value in SLS '{sls}' is not a dictionary"),
            )
            .with_subject(SLS, format!("{saltenv}:{sls}")),
        );
        return;
    };
    let mut bad = Vec::new();
    for (name, body) in ext.iter_mut() {
        let Value::Map(body) = body else {
            errors.push(
                Diagnostic::new(
                    codes::BAD_EXTEND,
                    format!(
                        "Extension name '{}' in SLS '{sls}' is not a dictionary",
                        name.py_str()
                    ),
                )
                .with_subject(SLS, format!("{saltenv}:{sls}"))
                .with_subject(ID, name.py_str()),
            );
            bad.push(name.clone());
            continue;
        };
        if !body.contains_key("__sls__") {
            body.insert("__sls__".into(), sls.into());
        }
        if !body.contains_key("__env__") {
            body.insert("__env__".into(), saltenv.into());
        }
        let keys: Vec<Value> = body.keys().cloned().collect();
        for key in keys {
            let Some(k) = key.as_str() else { continue };
            if k.starts_with('_') || !matches!(body.get(k), Some(Value::List(_))) {
                continue;
            }
            if let Some((module, fun)) = k.split_once('.') {
                let fun = fun.split('.').next().unwrap_or(fun).to_string();
                let module = module.to_string();
                if let Some(Value::List(mut args)) = body.shift_remove(k) {
                    args.push(fun.into());
                    body.insert(module.into(), Value::List(args));
                }
            }
        }
    }
    state
        .entry("__extend__".into())
        .or_insert_with(|| Value::List(crate::value::List::new()));
    if let Some(Value::List(l)) = state.get_mut("__extend__") {
        l.push(Value::Map(ext));
    }
}

/// Salt's `_handle_exclude`: move `exclude` into `__exclude__`.
fn handle_exclude(state: &mut Map, sls: &str, errors: &mut Vec<Diagnostic>) {
    let Some(exc) = state.shift_remove("exclude") else {
        return;
    };
    let items: Vec<Value> = match exc {
        Value::List(l) => l.into_iter().collect(),
        other => {
            errors.push(Diagnostic::new(
                codes::EXCLUDE_NOT_LIST,
                format!("Exclude Declaration in SLS {sls} is not formed as a list"),
            ));
            // Python's list.extend iterates what it is given.
            match other {
                Value::Str(s) => s.chars().map(Value::from).collect(),
                Value::Map(m) => m.into_keys().collect(),
                _ => vec![],
            }
        }
    };
    state
        .entry("__exclude__".into())
        .or_insert_with(|| Value::List(crate::value::List::new()));
    if let Some(Value::List(l)) = state.get_mut("__exclude__") {
        l.extend(items);
    }
}

/// Salt's `_handle_state_decls`: pad short declarations, fold `mod.fun`
/// keys into `mod: [..., fun]`, stamp `__sls__` / `__env__`.
fn handle_state_decls(
    state: &mut Map,
    sls: &str,
    saltenv: &str,
    errors: &mut Vec<(Diagnostic, LabelAt)>,
) {
    for (name, body) in state.iter_mut() {
        if !matches!(body, Value::Map(_)) {
            let id = name.py_str();
            if id == "__extend__" || id == "__exclude__" {
                continue;
            }
            if let Value::Str(s) = body {
                if s.contains('.') {
                    let mut comps = s.split('.');
                    let module = comps.next().unwrap_or("").to_string();
                    let fun = comps.next().unwrap_or("").to_string();
                    let mut m = Map::new();
                    m.insert("__sls__".into(), sls.into());
                    m.insert("__env__".into(), saltenv.into());
                    m.insert(module.into(), Value::List(crate::value::list![fun.into()]));
                    *body = Value::Map(m);
                    continue;
                }
            }
            errors.push((
                Diagnostic::new(
                    codes::BAD_STATE_DECLARATION,
                    format!("ID {id} in SLS {sls} is not a dictionary"),
                )
                .with_subject(SLS, format!("{saltenv}:{sls}"))
                .with_subject(ID, id.clone()),
                LabelAt::Id(id),
            ));
            continue;
        }
        let Value::Map(body) = body else { continue };
        // Visit the keys as they were: a `module.fun` key is moved to the
        // end as `module`, so the next original key slides into `pos`.
        // (Without such a key, as in most bodies, nothing moves.)
        let dotted = |k: &Value| k.as_str().is_some_and(|k| k.contains('.'));
        let mut skeys: Vec<crate::value::Str> = Vec::new();
        let steps = if body.keys().any(dotted) {
            body.len()
        } else {
            0
        };
        let mut pos = 0;
        for _ in 0..steps {
            let Some((Value::Str(k), v)) = body.get_index(pos) else {
                pos += 1;
                continue;
            };
            if k.starts_with('_') || !matches!(v, Value::List(_)) {
                pos += 1;
                continue;
            }
            if k.contains('.') {
                let mut comps = k.split('.');
                let module = comps.next().unwrap_or("").to_string();
                let fun = comps.next().unwrap_or("").to_string();
                // (A linear scan: an ID declares a handful of modules.)
                if skeys.iter().any(|k| *k == module) {
                    let id = name.py_str();
                    errors.push((
                        Diagnostic::new(codes::DUPLICATE_STATE_MODULE,
                            format!(
                                "ID '{id}' in SLS '{sls}' contains multiple state declarations of the same type"
                            ),
                        )
                        .with_subject(SLS, format!("{saltenv}:{sls}"))
                        .with_subject(ID, id.clone()),
                        LabelAt::State(id.clone(), module),
                    ));
                    pos += 1;
                    continue;
                }
                if let Some((_, Value::List(mut args))) = body.shift_remove_index(pos) {
                    args.push(fun.into());
                    body.insert(module.clone().into(), Value::List(args));
                }
                skeys.push(module.into());
                continue;
            }
            skeys.push(k.clone());
            pos += 1;
        }
        body.reserve(2);
        if !body.contains_key("__sls__") {
            body.insert("__sls__".into(), sls.into());
        }
        if !body.contains_key("__env__") {
            body.insert("__env__".into(), saltenv.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_decls_keep_key_order_around_folded_and_duplicate_modules() {
        let list = |items: &[&str]| Value::List(items.iter().map(|&s| s.into()).collect());
        let mut body = Map::new();
        body.insert("a.one".into(), list(&[]));
        body.insert("b".into(), list(&["x"]));
        body.insert("__flag".into(), list(&[]));
        body.insert("c.two".into(), list(&["arg"]));
        body.insert("a.three".into(), list(&[]));
        body.insert("d".into(), "scalar".into());
        let mut state = Map::new();
        state.insert("id".into(), Value::Map(body));
        let mut errors = vec![];
        handle_state_decls(&mut state, "s", "base", &mut errors);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].0.code, codes::DUPLICATE_STATE_MODULE);
        let body = state.get("id").and_then(Value::as_map).unwrap();
        let keys: Vec<&str> = body.keys().filter_map(Value::as_str).collect();
        assert_eq!(
            keys,
            ["b", "__flag", "a.three", "d", "a", "c", "__sls__", "__env__"]
        );
        assert_eq!(body.get("a"), Some(&list(&["one"])));
        assert_eq!(body.get("c"), Some(&list(&["arg", "two"])));
    }

    #[test]
    fn state_decls_fold_dotted_keys() {
        let mut state = Map::new();
        let mut body = Map::new();
        body.insert("service.running".into(), Value::List(crate::value::list![]));
        body.insert(
            "pkg".into(),
            Value::List(crate::value::list!["installed".into()]),
        );
        state.insert("httpd".into(), Value::Map(body));
        state.insert("short".into(), "test.nop".into());
        let mut errors = vec![];
        handle_state_decls(&mut state, "web", "base", &mut errors);
        assert!(errors.is_empty());
        let keys: Vec<String> = state["httpd"]
            .as_map()
            .unwrap()
            .keys()
            .map(Value::py_str)
            .collect();
        assert_eq!(keys, ["pkg", "service", "__sls__", "__env__"]);
        assert_eq!(
            state["short"].py_repr(),
            "{'__sls__': 'web', '__env__': 'base', 'test': ['nop']}"
        );
    }
}
