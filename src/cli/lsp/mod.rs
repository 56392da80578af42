//! `lowstate lsp`: a language server for SLS files and Heat templates on
//! stdio (the Language Server Protocol through `lsp-server`, its types
//! from `lsp-types`). This module owns the protocol and the documents the
//! editor holds; what to answer comes from the library
//! (`lowstate::salt::ide`, `lowstate::hot::ide`, `lowstate::editor`).
//!
//! A workspace is a Salt config directory (`minion` in the root folder, or
//! `initializationOptions.config`) or a directory of HOT templates. After
//! the messages waiting are handled, an edit recompiles (reusing every
//! render the edit cannot change) and republishes the diagnostics of the
//! open files; the last compile is freed, the compiled files' spans
//! worked out ahead, and the next compile's copies of the cached renders
//! made while the editor is quiet, on threads of their own. A request about a file outside the workspace gets an empty
//! answer; a panic inside a request is caught, logged through
//! `window/logMessage` (without its message, which may quote a secret)
//! and answered with an error; the server never writes a file.

mod convert;

use convert::{offset_of, path_of, uri_of};
use lowstate::editor::{Issue, Place};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types as lsp;
use serde_json::{json, Value as Json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Arguments of `lowstate lsp`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Speak LSP on stdin/stdout (the default and only transport; editors
    /// pass it by habit).
    #[arg(long)]
    pub stdio: bool,
}

/// Run the server until the editor says `exit`. Exit code 0 after a
/// `shutdown`, 1 otherwise.
pub fn run(_args: Args) -> i32 {
    let (conn, io) = Connection::stdio();
    let code = match serve(&conn) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("lowstate lsp: {e}");
            1
        }
    };
    drop(conn);
    let _ = io.join();
    code
}

fn serve(conn: &Connection) -> Result<(), String> {
    let (id, params) = conn.initialize_start().map_err(|e| e.to_string())?;
    let init: lsp::InitializeParams = serde_json::from_value(params).unwrap_or_default();
    let caps = json!({
        "capabilities": {
            "textDocumentSync": {"openClose": true, "change": 2, "save": {"includeText": false}},
            "definitionProvider": true,
            "referencesProvider": true,
            "hoverProvider": true,
            "documentSymbolProvider": true,
            "workspaceSymbolProvider": true,
            "codeActionProvider": {"codeActionKinds": ["quickfix"]},
            "completionProvider": {"triggerCharacters": [":", " ", "."]},
        },
        "serverInfo": {"name": "lowstate", "version": env!("CARGO_PKG_VERSION")},
    });
    conn.initialize_finish(id, caps)
        .map_err(|e| e.to_string())?;
    let mut server = Server::new(conn, &init);
    server.announce();
    loop {
        let msg = match conn.receiver.recv() {
            Ok(m) => m,
            Err(_) => return Ok(()),
        };
        match msg {
            Message::Request(req) => {
                if conn.handle_shutdown(&req).map_err(|e| e.to_string())? {
                    return Ok(());
                }
                // Diagnostics first, so that answers read the latest edit.
                server.refresh();
                let resp = server.answer(req);
                let _ = conn.sender.send(Message::Response(resp));
            }
            Message::Notification(n) => {
                if n.method == "exit" {
                    return Ok(());
                }
                server.notify(n);
            }
            Message::Response(_) => {}
        }
        if conn.receiver.is_empty() {
            server.refresh();
        }
    }
}

/// Threads of [`in_background`] running at the lowest priority.
static IDLE_WORKERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Run `work` (no part of any answer, holding no lock a compile takes:
/// freeing the last compile) on a thread of its own at the lowest
/// priority, so that it takes a core only while the compile of the next
/// edit leaves one idle. At most two such threads wait at a time; past
/// that, `work` runs at normal priority, so that it never piles up behind
/// a busy machine.
fn in_background(name: &str, work: impl FnOnce() + Send + 'static) {
    use std::sync::atomic::Ordering;
    let low = IDLE_WORKERS.fetch_add(1, Ordering::SeqCst) < 2;
    if !low {
        IDLE_WORKERS.fetch_sub(1, Ordering::SeqCst);
    }
    let spawned = spawn(name, move || {
        if low {
            lowest_priority();
        }
        // A panic (a bug) still frees the slot.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
        if low {
            IDLE_WORKERS.fetch_sub(1, Ordering::SeqCst);
        }
    });
    // No thread: `work` was dropped here, undone.
    if spawned.is_err() && low {
        IDLE_WORKERS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Start a thread of the server's, named `name`: it adds what it counted
/// of the memory cap to the shared count as it ends
/// ([`lowstate::limits::CappedAlloc::flush_thread`]), which a thread that
/// only ends would lose; the server starts a few per edit.
fn spawn(
    name: &str,
    work: impl FnOnce() + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            work();
            crate::GLOBAL.flush_thread();
        })
}

/// Lower the calling thread's priority to the lowest (Linux: a thread's
/// nice value is its own).
fn lowest_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority only reads its arguments; the ID is this
    // thread's own.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19);
    }
}

/// What kind of file a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An SLS file (or a file a Salt tree reads: Jinja, top, pillar).
    Salt,
    /// A Heat template or environment file.
    Hot,
}

struct Server<'c> {
    conn: &'c Connection,
    /// The workspace folder.
    root: Option<PathBuf>,
    salt: Option<lowstate::salt::ide::Workspace>,
    hot: lowstate::hot::ide::Workspace,
    /// Open documents: text and kind, by canonical path.
    docs: BTreeMap<PathBuf, (String, Kind)>,
    /// The paths as the editor named them (for published URIs).
    names: BTreeMap<PathBuf, PathBuf>,
    analysis: Option<lowstate::salt::ide::Analysis>,
    hot_issues: BTreeMap<PathBuf, Vec<Issue>>,
    dirty: bool,
    published: BTreeSet<PathBuf>,
    /// The thread working out the compiled files' spans, while it runs.
    spans: Option<std::thread::JoinHandle<()>>,
    /// Tells the thread copying cached renders ahead of the next compile
    /// (if one runs) to stop: a compile begins.
    spares_stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl<'c> Server<'c> {
    fn new(conn: &'c Connection, init: &lsp::InitializeParams) -> Self {
        #[allow(deprecated)] // root_uri: clients still send it alone.
        let root = init
            .workspace_folders
            .as_ref()
            .and_then(|f| f.first())
            .and_then(|f| path_of(&f.uri))
            .or_else(|| init.root_uri.as_ref().and_then(path_of))
            .map(|p| p.canonicalize().unwrap_or(p));
        let options = init.initialization_options.clone().unwrap_or(Json::Null);
        let config = options
            .get("config")
            .and_then(Json::as_str)
            .map(|c| match &root {
                Some(r) if Path::new(c).is_relative() => r.join(c),
                _ => PathBuf::from(c),
            })
            // A folder with `minion`, or a state tree without one.
            .or_else(|| {
                root.clone().filter(|r| {
                    r.join("minion").is_file()
                        || lowstate::salt::config::implied_minion(r).is_some()
                })
            });
        let mut server = Server {
            conn,
            root: root.clone(),
            salt: None,
            hot: lowstate::hot::ide::Workspace::new(root.clone()),
            docs: BTreeMap::new(),
            names: BTreeMap::new(),
            analysis: None,
            hot_issues: BTreeMap::new(),
            dirty: false,
            published: BTreeSet::new(),
            spans: None,
            spares_stop: std::sync::Arc::default(),
        };
        if let Some(envs) = options.get("environments").and_then(Json::as_array) {
            let base = root.clone().unwrap_or_default();
            server.hot.environments = envs
                .iter()
                .filter_map(Json::as_str)
                .map(|e| base.join(e))
                .collect();
        }
        if let Some(dir) = config {
            match lowstate::salt::ide::Workspace::open(&dir) {
                Ok(w) => server.salt = Some(w),
                Err(d) => server.log(
                    lsp::MessageType::ERROR,
                    &format!(
                        "cannot open the Salt config {}: {}",
                        dir.display(),
                        d.message
                    ),
                ),
            }
        }
        server
    }

    fn announce(&self) {
        let what = match (&self.salt, &self.root) {
            (Some(w), _) if w.dir().join("minion").is_file() => {
                format!("Salt config {}", w.dir().display())
            }
            (Some(w), _) => format!(
                "Salt state tree {} (no minion there: file_roots {}; pillar_roots {})",
                w.dir().display(),
                w.roots(false),
                w.roots(true)
            ),
            (None, Some(r)) => format!("HOT templates in {}", r.display()),
            (None, None) => "no workspace folder: every request gets an empty answer".into(),
        };
        self.log(lsp::MessageType::INFO, &format!("lowstate lsp: {what}"));
    }

    fn log(&self, typ: lsp::MessageType, message: &str) {
        let n = Notification::new(
            "window/logMessage".into(),
            lsp::LogMessageParams {
                typ,
                message: message.to_string(),
            },
        );
        let _ = self.conn.sender.send(Message::Notification(n));
    }

    /// Whether `path` belongs to the workspace.
    fn inside(&self, path: &Path) -> bool {
        match &self.salt {
            Some(w) => w.contains(path),
            None => self.root.as_ref().is_some_and(|r| path.starts_with(r)),
        }
    }

    fn kind_of(&self, path: &Path, text: &str) -> Kind {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let hot_like = lowstate::hot::ide::is_hot_text(text);
        if ext == "sls" || ext == "jinja" || ext == "j2" || (self.salt.is_some() && !hot_like) {
            Kind::Salt
        } else {
            Kind::Hot
        }
    }

    /// The key of the document at `path`: for a file the Salt fileserver
    /// serves, the path its lookups form for it, found from the path as
    /// the editor gave it (a file under a symlinked formula directory, or
    /// a symlinked SLS alias: resolving the link first would name another
    /// SLS, or a file outside the roots), else from the path with every
    /// link resolved (a formula's own checkout, linked into a root); any
    /// other file: the path with every link resolved.
    fn canonical(&self, path: PathBuf) -> PathBuf {
        let served = |p: &Path| self.salt.as_ref().and_then(|w| w.served_path(p));
        if let Some(key) = served(&path) {
            return key;
        }
        let resolved = path.canonicalize().unwrap_or(path);
        served(&resolved).unwrap_or(resolved)
    }

    fn notify(&mut self, n: Notification) {
        match n.method.as_str() {
            "textDocument/didOpen" => {
                let Ok(p) = serde_json::from_value::<lsp::DidOpenTextDocumentParams>(n.params)
                else {
                    return;
                };
                let Some(path) = path_of(&p.text_document.uri) else {
                    return;
                };
                let key = self.canonical(path.clone());
                self.names.insert(key.clone(), path);
                let kind = self.kind_of(&key, &p.text_document.text);
                self.set(key, p.text_document.text, kind);
            }
            "textDocument/didChange" => {
                let Ok(p) = serde_json::from_value::<lsp::DidChangeTextDocumentParams>(n.params)
                else {
                    return;
                };
                let Some(path) = path_of(&p.text_document.uri) else {
                    return;
                };
                let key = self.canonical(path);
                let Some((mut text, kind)) = self.docs.get(&key).cloned() else {
                    return;
                };
                for c in p.content_changes {
                    match c.range {
                        None => text = c.text,
                        Some(r) => {
                            let s = offset_of(&text, r.start);
                            let e = offset_of(&text, r.end).max(s);
                            text.replace_range(s..e, &c.text);
                        }
                    }
                }
                self.set(key, text, kind);
            }
            "textDocument/didClose" => {
                let Ok(p) = serde_json::from_value::<lsp::DidCloseTextDocumentParams>(n.params)
                else {
                    return;
                };
                let Some(path) = path_of(&p.text_document.uri) else {
                    return;
                };
                let key = self.canonical(path);
                if let Some((_, kind)) = self.docs.remove(&key) {
                    if kind == Kind::Salt {
                        if let Some(w) = &mut self.salt {
                            w.set_text(&key, None);
                        }
                    }
                    self.dirty = true;
                }
            }
            _ => {}
        }
    }

    fn set(&mut self, path: PathBuf, text: String, kind: Kind) {
        if !self.inside(&path) {
            self.docs.insert(path, (text, kind));
            return;
        }
        if kind == Kind::Salt {
            if let Some(w) = &mut self.salt {
                w.set_text(&path, Some(text.clone()));
            }
        }
        self.docs.insert(path, (text, kind));
        self.dirty = true;
    }

    /// Recompile after edits and publish every open file's diagnostics.
    fn refresh(&mut self) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        self.spares_stop
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let hot: Vec<(PathBuf, String)> = self
            .docs
            .iter()
            .filter(|(p, (_, k))| *k == Kind::Hot && self.inside(p))
            .map(|(p, (t, _))| (p.clone(), t.clone()))
            .collect();
        // The last analysis: the next one may take its plan and update it.
        let mut previous = self.analysis.take();
        let analysed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let salt = self.salt.as_mut().map(|w| w.analyse(&mut previous));
            (salt, self.hot.issues(&hot))
        }));
        match analysed {
            Ok((salt, hot)) => {
                self.analysis = salt;
                // What is left of the last analysis may hold a whole
                // compile: freeing it is no part of the answer, so another
                // thread does it.
                if previous.is_some() {
                    in_background("lowstate-lsp-free", move || drop(previous));
                }
                self.hot_issues = hot;
            }
            Err(_) => {
                // The answers go on from the last analysis.
                self.analysis = previous;
                self.log(
                    lsp::MessageType::ERROR,
                    "lowstate lsp: internal error while compiling (a bug; the message is withheld because it may quote input values); the server goes on",
                );
                return;
            }
        }
        let mut now = BTreeSet::new();
        let read = |p: &Path| self.text(p);
        let texts = convert::Texts::new(&read);
        let open: Vec<PathBuf> = self.docs.keys().cloned().collect();
        for path in open {
            if !self.inside(&path) {
                continue;
            }
            let issues: Vec<&Issue> = self
                .analysis
                .as_ref()
                .and_then(|a| a.issues.get(&path))
                .into_iter()
                .flatten()
                .chain(self.hot_issues.get(&path).into_iter().flatten())
                .collect();
            let diagnostics = issues
                .iter()
                .map(|i| convert::diagnostic(i, &texts))
                .collect();
            self.publish(&path, diagnostics);
            now.insert(path);
        }
        for gone in self.published.difference(&now).cloned().collect::<Vec<_>>() {
            self.publish(&gone, Vec::new());
        }
        self.published = now;
        // The files' spans, worked out while the editor is quiet (the
        // first compile's: later ones reuse them but for the edited file).
        if let Some(a) = &self.analysis {
            if self.spans.as_ref().is_none_or(|h| h.is_finished()) {
                // At normal priority: a compile that needs a span waits for
                // a file this thread is working out.
                self.spans = spawn("lowstate-lsp-spans", a.span_work()).ok();
            }
        }
        // The next compile's copies of the cached renders, made while the
        // editor is quiet, at the lowest priority; the next compile stops
        // the work where it is and takes the copies made so far.
        if let Some(w) = &self.salt {
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            self.spares_stop = stop.clone();
            let work = w.spare_work(stop);
            let _ = spawn("lowstate-lsp-spares", move || {
                lowest_priority();
                work();
            });
        }
    }

    fn publish(&self, path: &Path, diagnostics: Vec<lsp::Diagnostic>) {
        let name = self.names.get(path).map_or(path, PathBuf::as_path);
        let n = Notification::new(
            "textDocument/publishDiagnostics".into(),
            lsp::PublishDiagnosticsParams {
                uri: uri_of(name),
                diagnostics,
                version: None,
            },
        );
        let _ = self.conn.sender.send(Message::Notification(n));
    }

    /// The editor's text of `path`, else the file's.
    fn text(&self, path: &Path) -> Option<String> {
        match self.docs.get(path) {
            Some((t, _)) => Some(t.clone()),
            None => std::fs::read_to_string(path).ok(),
        }
    }

    /// Answer a request; a panic becomes an error answer and a log line.
    fn answer(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        let method = req.method.clone();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.handle(req)));
        match result {
            Ok(Ok(v)) => Response::new_ok(id, v),
            Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
            Err(_) => {
                self.log(
                    lsp::MessageType::ERROR,
                    &format!("lowstate lsp: internal error handling {method} (a bug; the message is withheld because it may quote input values); the server goes on"),
                );
                Response::new_err(
                    id,
                    ErrorCode::InternalError as i32,
                    format!("internal error handling {method}"),
                )
            }
        }
    }

    /// The document a position request is about: (path, text, byte
    /// offset), or `None` outside the workspace.
    fn at(&self, doc: &lsp::TextDocumentPositionParams) -> Option<(PathBuf, String, usize, Kind)> {
        let path = self.canonical(path_of(&doc.text_document.uri)?);
        if !self.inside(&path) {
            return None;
        }
        let (text, kind) = match self.docs.get(&path) {
            Some((t, k)) => (t.clone(), *k),
            None => {
                let t = std::fs::read_to_string(&path).ok()?;
                let k = self.kind_of(&path, &t);
                (t, k)
            }
        };
        let offset = offset_of(&text, doc.position);
        Some((path, text, offset, kind))
    }

    fn locations(&self, places: Vec<Place>) -> Json {
        let read = |p: &Path| self.text(p);
        let texts = convert::Texts::new(&read);
        let list: Vec<lsp::Location> = places
            .iter()
            .filter(|p| self.inside(&p.path))
            .map(|p| {
                let mut l = convert::location(p, &texts);
                if let Some(name) = self.names.get(&p.path) {
                    l.uri = uri_of(name);
                }
                l
            })
            .collect();
        json!(list)
    }

    fn handle(&mut self, req: Request) -> Result<Json, (ErrorCode, String)> {
        let bad = |e: serde_json::Error| (ErrorCode::InvalidParams, e.to_string());
        match req.method.as_str() {
            "textDocument/definition" => {
                let p: lsp::GotoDefinitionParams =
                    serde_json::from_value(req.params).map_err(bad)?;
                let Some((path, text, offset, kind)) = self.at(&p.text_document_position_params)
                else {
                    return Ok(json!([]));
                };
                let places = match (kind, &self.analysis) {
                    (Kind::Salt, Some(a)) => a.definition(&path, &text, offset),
                    (Kind::Hot, _) => self.hot.definition(&path, &text, offset),
                    _ => Vec::new(),
                };
                Ok(self.locations(places))
            }
            "textDocument/references" => {
                let p: lsp::ReferenceParams = serde_json::from_value(req.params).map_err(bad)?;
                let Some((path, text, offset, kind)) = self.at(&p.text_document_position) else {
                    return Ok(json!([]));
                };
                let decl = p.context.include_declaration;
                let places = match (kind, &self.analysis) {
                    (Kind::Salt, Some(a)) => a.references(&text, offset, decl),
                    (Kind::Hot, _) => self.hot.references(&path, &text, offset, decl),
                    _ => Vec::new(),
                };
                Ok(self.locations(places))
            }
            "textDocument/hover" => {
                let p: lsp::HoverParams = serde_json::from_value(req.params).map_err(bad)?;
                let Some((path, text, offset, kind)) = self.at(&p.text_document_position_params)
                else {
                    return Ok(Json::Null);
                };
                let md = match (kind, &self.analysis) {
                    (Kind::Salt, Some(a)) => a.hover(&text, offset),
                    (Kind::Hot, _) => self.hot.hover(&path, &text, offset),
                    _ => None,
                };
                Ok(match md {
                    Some(value) => json!({"contents": {"kind": "markdown", "value": value}}),
                    None => Json::Null,
                })
            }
            "textDocument/completion" => {
                let p: lsp::CompletionParams = serde_json::from_value(req.params).map_err(bad)?;
                let Some((path, text, offset, kind)) = self.at(&p.text_document_position) else {
                    return Ok(json!([]));
                };
                let items = match (kind, &self.analysis) {
                    (Kind::Salt, Some(a)) => a.completion(&path, &text, offset),
                    (Kind::Hot, _) => self.hot.completion(&path, &text, offset),
                    _ => Vec::new(),
                };
                let items: Vec<lsp::CompletionItem> = items
                    .into_iter()
                    .map(|c| lsp::CompletionItem {
                        label: c.label,
                        detail: Some(c.detail),
                        kind: Some(convert::completion_kind(c.kind)),
                        ..Default::default()
                    })
                    .collect();
                Ok(json!(items))
            }
            "textDocument/documentSymbol" => {
                let p: lsp::DocumentSymbolParams =
                    serde_json::from_value(req.params).map_err(bad)?;
                let Some(path) = path_of(&p.text_document.uri).map(|p| self.canonical(p)) else {
                    return Ok(json!([]));
                };
                if !self.inside(&path) {
                    return Ok(json!([]));
                }
                let Some(text) = self.text(&path) else {
                    return Ok(json!([]));
                };
                let symbols = match self.kind_of(&path, &text) {
                    Kind::Salt => lowstate::salt::ide::document_symbols(&path, &text),
                    Kind::Hot => lowstate::hot::ide::document_symbols(&path, &text),
                };
                let lines = convert::Lines::new(&text);
                let out: Vec<lsp::DocumentSymbol> = symbols
                    .iter()
                    .map(|s| convert::document_symbol(s, &lines))
                    .collect();
                Ok(json!(out))
            }
            "workspace/symbol" => {
                let p: lsp::WorkspaceSymbolParams =
                    serde_json::from_value(req.params).map_err(bad)?;
                let mut symbols = self
                    .analysis
                    .as_ref()
                    .map(|a| a.workspace_symbols(&p.query))
                    .unwrap_or_default();
                symbols.extend(self.hot.workspace_symbols(&p.query));
                let read = |p: &Path| self.text(p);
                let texts = convert::Texts::new(&read);
                let out: Vec<lsp::SymbolInformation> = symbols
                    .iter()
                    .filter(|s| self.inside(&s.at.path))
                    .map(|s| convert::symbol_information(s, &texts))
                    .collect();
                Ok(json!(out))
            }
            "textDocument/codeAction" => {
                let p: lsp::CodeActionParams = serde_json::from_value(req.params).map_err(bad)?;
                Ok(self.code_actions(&p))
            }
            "lowstate/testPanic"
                if std::env::var_os("LOWSTATE_LSP_TEST_PANIC").is_some_and(|v| v == "1") =>
            {
                panic!("a test panic quoting a value: hunter2");
            }
            m => Err((ErrorCode::MethodNotFound, format!("unhandled method {m}"))),
        }
    }

    /// The quick fixes of the issues the range touches.
    fn code_actions(&self, p: &lsp::CodeActionParams) -> Json {
        let Some(path) = path_of(&p.text_document.uri).map(|p| self.canonical(p)) else {
            return json!([]);
        };
        if !self.inside(&path) {
            return json!([]);
        }
        let Some(text) = self.text(&path) else {
            return json!([]);
        };
        let (s, e) = (
            offset_of(&text, p.range.start),
            offset_of(&text, p.range.end),
        );
        let issues = self
            .analysis
            .as_ref()
            .and_then(|a| a.issues.get(&path))
            .into_iter()
            .flatten()
            .chain(self.hot_issues.get(&path).into_iter().flatten());
        let get = |q: &Path| self.text(q);
        let texts = convert::Texts::new(&get);
        let mut out = Vec::new();
        for issue in issues {
            let Some(fix) = &issue.fix else { continue };
            if issue.at.range.end < s || issue.at.range.start > e {
                continue;
            }
            let edit = lsp::TextEdit {
                range: convert::range_of(&text, &fix.range),
                new_text: fix.replacement.clone(),
            };
            let uri = uri_of(self.names.get(&path).map_or(&path, |n| n));
            let action = lsp::CodeAction {
                title: fix.title.clone(),
                kind: Some(lsp::CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![convert::diagnostic(issue, &texts)]),
                edit: Some(lsp::WorkspaceEdit {
                    changes: Some([(uri, vec![edit])].into_iter().collect()),
                    ..Default::default()
                }),
                is_preferred: Some(true),
                ..Default::default()
            };
            out.push(action);
        }
        json!(out)
    }
}
