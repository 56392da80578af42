//! Rendered files: the bytes Salt 3008.5's `file.managed` would write into
//! a new file on this minion, for every `file.managed` chunk of a plan and
//! every file a `file.recurse` chunk manages, as data ([`RenderedFile`]).
//!
//! It follows the state function's own steps: `contents` /
//! `contents_pillar` / `contents_grains` (joined line by line, with
//! `contents_newline`, optionally a template themselves), `source` (a list:
//! the first that exists; `salt://...?saltenv=`), and `template: jinja`
//! rendered with the context `file.get_managed` builds: `name`, `source`,
//! `user`, `group`, `mode` (normalised, `'0644'`), `attrs`, `saltenv`,
//! `salt`, `pillar`, `grains`, `opts`, then the state's unknown arguments,
//! then `defaults` updated by `context` over all of them. `sls`, `slspath`
//! and `tpldir` exist only when the context passes them. The minion counts
//! as empty (a fresh minion); nothing is fetched from the network: a remote
//! source is an error entry saying so, as is a source on the minion itself.
//! A file Salt cannot make is an entry with Salt's message (and a located
//! diagnostic); the others are still rendered.

use crate::diag::{codes, Diagnostic, SourceFile};
use crate::salt::high::SourceMap;
use crate::salt::pipeline::Session;
use crate::salt::render::jinja::{self, FileTemplate, FileVar, JinjaError};
use crate::salt::{ID, SLS};
use crate::value::{Map, Value};
use std::sync::Arc;

/// One file `file.managed` would write, or why it would not.
#[derive(Debug, Clone)]
pub struct RenderedFile {
    /// The state ID (`__id__`).
    pub state_id: Value,
    /// The SLS that declared it (`__sls__`).
    pub sls: Value,
    /// The path on the minion (`name`; for `file.recurse`, the file's path).
    pub name: Value,
    /// The source actually used (the first existing one of a list); `None`
    /// for `contents*` and empty files.
    pub source: Option<String>,
    /// The `template` argument (null when not given or false).
    pub template: Value,
    /// For the files of a `file.recurse`: that chunk's `name`.
    pub recurse: Option<Value>,
    /// The bytes written, or why Salt would not write the file.
    pub content: Result<Vec<u8>, FileError>,
}

/// Why a managed file cannot be made.
#[derive(Debug, Clone)]
pub struct FileError {
    /// Salt's own text (the state's comment).
    pub message: String,
    /// The same, located in the state or the template.
    pub diagnostic: Diagnostic,
}

impl RenderedFile {
    /// The SHA-256 of the content, hex.
    pub fn sha256(&self) -> Option<String> {
        use sha2::Digest;
        let bytes = self.content.as_ref().ok()?;
        let digest = sha2::Sha256::digest(bytes);
        Some(digest.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// The content as text, when it is UTF-8.
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(self.content.as_ref().ok()?).ok()
    }

    /// The entry in Salt's layout (`salt-file-render`'s): `state_id`,
    /// `sls`, `name`, `source`, `template`, `sha256`, `content` (text, or
    /// base64 with `binary: true`), `recurse`, `error`.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        let put = |m: &mut Map, k: &str, v: Value| {
            m.insert(Value::str(k), v);
        };
        put(&mut m, "state_id", self.state_id.clone());
        put(&mut m, "sls", self.sls.clone());
        put(&mut m, "name", self.name.clone());
        put(
            &mut m,
            "source",
            self.source.clone().map_or(Value::Null, Value::str),
        );
        put(&mut m, "template", self.template.clone());
        put(
            &mut m,
            "sha256",
            self.sha256().map_or(Value::Null, Value::str),
        );
        let text = self.text().map(Value::str);
        let binary = self.content.as_ref().ok().filter(|_| text.is_none());
        let content = match (&text, binary) {
            (Some(t), _) => t.clone(),
            (None, Some(bytes)) => {
                use base64::Engine;
                Value::str(base64::engine::general_purpose::STANDARD.encode(bytes))
            }
            (None, None) => Value::Null,
        };
        put(&mut m, "content", content);
        if let Some(r) = &self.recurse {
            put(&mut m, "recurse", r.clone());
        }
        if binary.is_some() {
            put(&mut m, "binary", Value::Bool(true));
        }
        if let Err(e) = &self.content {
            put(&mut m, "error", Value::str(e.message.as_str()));
        }
        Value::Map(m)
    }
}

/// The document `lowstate files` prints: `{"files": [...]}`.
pub fn document(files: &[RenderedFile]) -> Value {
    let mut m = Map::new();
    m.insert(
        Value::str("files"),
        Value::List(files.iter().map(RenderedFile::to_value).collect()),
    );
    Value::Map(m)
}

/// The files of every `file.managed` and `file.recurse` chunk of `chunks`
/// (the ordered lowstate), in that order (a recurse's files by path).
/// `sources` locates errors in the SLS.
pub fn render_files(session: &Session, chunks: &[Map], sources: &SourceMap) -> Vec<RenderedFile> {
    let r = Renderer { session, sources };
    let mut out = Vec::new();
    for chunk in chunks {
        let state = chunk.get("state").and_then(Value::as_str);
        let fun = chunk.get("fun").and_then(Value::as_str);
        match (state, fun) {
            (Some("file"), Some("managed")) => out.push(r.managed_chunk(chunk)),
            (Some("file"), Some("recurse")) => out.extend(r.recurse_chunk(chunk)),
            _ => {}
        }
    }
    out
}

/// The template engines Salt registers; only Jinja renders here.
const TEMPLATE_ENGINES: &[&str] = &["jinja", "mako", "py", "wempy", "genshi", "cheetah"];

/// URL schemes of remote sources (never fetched).
const REMOTE_SCHEMES: &[&str] = &["http", "https", "ftp", "s3", "swift", "hdfs"];

/// A failure on the way to the bytes.
enum Fail {
    /// Salt's comment, with the code and the argument it is about.
    Salt(codes::Code, String, Option<&'static str>),
    /// A template that does not render: the message prefix, the error,
    /// the template text.
    Jinja(&'static str, JinjaError, Arc<SourceFile>),
}

fn salt_fail(code: codes::Code, message: impl Into<String>, arg: &'static str) -> Fail {
    Fail::Salt(code, message.into(), Some(arg))
}

/// One `file.managed` call: its declared arguments and the others (the
/// template's extra variables), in the chunk's order.
struct Call {
    args: Map,
    extra: Vec<(String, Value)>,
}

impl Call {
    /// A chunk's arguments as `fun` takes them (`format_call`): declared
    /// ones, and the others but `drop`, in the chunk's order.
    fn of(chunk: &Map, fun: &str, drop: &[&str]) -> Call {
        let declared = declared(fun);
        let mut args = Map::new();
        let mut extra = Vec::new();
        for (k, v) in crate::salt::low::chunk_args(chunk).iter() {
            let key = k.py_str();
            if declared.contains(&key) {
                args.insert(k.clone(), v.clone());
            } else if !drop.contains(&key.as_str()) {
                extra.push((key, v.clone()));
            }
        }
        Call { args, extra }
    }

    fn get(&self, key: &str) -> Option<&Value> {
        self.args.get(key).filter(|v| !v.is_null())
    }
    fn text(&self, key: &str) -> Option<String> {
        self.get(key).map(Value::py_str)
    }
    fn truthy(&self, key: &str, default: bool) -> bool {
        self.args.get(key).map_or(default, Value::truthy)
    }
}

struct Renderer<'s> {
    session: &'s Session,
    sources: &'s SourceMap,
}

/// The declared arguments of `file.managed` or `file.recurse` (Salt
/// 3008.5's signatures, from the compiled-in schemas; read once).
fn declared(fun: &str) -> &'static [String] {
    static MANAGED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    static RECURSE: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let cell = if fun == "file.recurse" {
        &RECURSE
    } else {
        &MANAGED
    };
    cell.get_or_init(|| {
        crate::salt::check::Catalogue::new()
            .schema(fun)
            .map(|s| {
                s.arguments
                    .iter()
                    .filter(|(_, a)| !a.undeclared)
                    .map(|(k, _)| k.clone())
                    .collect()
            })
            .unwrap_or_default()
    })
}

impl Renderer<'_> {
    fn entry(&self, chunk: &Map, name: Value, template: Option<&Value>) -> RenderedFile {
        let template = template
            .filter(|t| t.truthy())
            .cloned()
            .unwrap_or(Value::Null);
        RenderedFile {
            state_id: chunk.get("__id__").cloned().unwrap_or_default(),
            sls: chunk.get("__sls__").cloned().unwrap_or_default(),
            name,
            source: None,
            template,
            recurse: None,
            content: Ok(Vec::new()),
        }
    }

    /// The saltenv a chunk runs in (`__env__`, or its own `saltenv`).
    fn saltenv(&self, chunk: &Map) -> String {
        let mut env = chunk
            .get("__env__")
            .map_or_else(|| "base".to_string(), Value::py_str);
        let locked = self
            .session
            .data
            .opts
            .get("lock_saltenv")
            .is_some_and(Value::truthy);
        if let (false, Some(s)) = (locked, chunk.get("saltenv")) {
            env = s.py_str();
        }
        env
    }

    fn managed_chunk(&self, chunk: &Map) -> RenderedFile {
        let name = chunk.get("name").cloned().unwrap_or_default();
        let mut entry = self.entry(chunk, name, chunk.get("template"));
        let fail = if has_slot(&Value::Map(chunk.clone())) {
            Some(Fail::Salt(
                codes::FILE_RENDER,
                "__slot__ values are resolved at run time (not supported)".into(),
                None,
            ))
        } else {
            precheck_source(chunk.get("source")).map(|m| salt_fail(codes::FILE_SOURCE, m, "source"))
        };
        let result = match fail {
            Some(f) => Err(f),
            None => {
                let call = Call::of(chunk, "file.managed", &[]);
                self.managed(&call, &self.saltenv(chunk))
            }
        };
        self.finish(&mut entry, chunk, result);
        entry
    }

    fn finish(
        &self,
        entry: &mut RenderedFile,
        chunk: &Map,
        result: Result<(Option<String>, Vec<u8>), Fail>,
    ) {
        match result {
            Ok((source, bytes)) => {
                entry.source = source;
                entry.content = Ok(bytes);
            }
            Err(f) => entry.content = Err(self.error(chunk, &entry.name, f)),
        }
    }

    fn error(&self, chunk: &Map, name: &Value, f: Fail) -> FileError {
        let id = chunk.get("__id__").map(Value::py_str).unwrap_or_default();
        let sls = chunk.get("__sls__").map(Value::py_str).unwrap_or_default();
        let (message, diagnostic) = match f {
            Fail::Salt(code, message, arg) => {
                let label = arg
                    .and_then(|a| self.sources.arg(&id, "file", a))
                    .or_else(|| self.sources.state(&id, "file"))
                    .or_else(|| self.sources.id(&id));
                let d = Diagnostic::new(code, format!("{}: {message}", name.py_str()))
                    .or_primary(label);
                (message, d)
            }
            Fail::Jinja(prefix, e, template) => {
                let message = format!("{prefix}{}", e.message);
                let what = template.name.clone();
                let fail = |m: &str| format!("{}: {prefix}{m}", name.py_str());
                let mut d = crate::salt::render::jinja_diagnostic(e, &template, &fail, &what);
                d.subjects.retain(|s| s.kind.key != SLS.key);
                let d = match self.sources.state(&id, "file") {
                    Some(mut l) => {
                        l.message = "the state managing this file".into();
                        d.with_secondary(l)
                    }
                    None => d,
                };
                (message, d)
            }
        };
        FileError {
            message,
            diagnostic: diagnostic.with_subject(ID, id).with_subject(SLS, sls),
        }
    }

    /// `file.managed`'s steps up to the bytes `file.manage_file` writes.
    fn managed(&self, call: &Call, saltenv: &str) -> Result<(Option<String>, Vec<u8>), Fail> {
        let refuse = |m: &str, arg: &'static str| Err(salt_fail(codes::FILE_RENDER, m, arg));
        let name = expanduser(&call.text("name").unwrap_or_default());
        if name.is_empty() {
            return refuse("Destination file name is required", "name");
        }
        let mode = call.get("mode").cloned();
        let keep_mode = mode
            .as_ref()
            .and_then(Value::as_str)
            .is_some_and(|m| m.eq_ignore_ascii_case("keep"));
        let mode = if keep_mode {
            Value::Null
        } else {
            mode.map_or(Value::Null, |m| Value::str(normalize_mode(&m.py_str())))
        };
        let source = call.get("source").filter(|s| s.truthy()).cloned();
        let count = ["contents", "contents_pillar", "contents_grains"]
            .iter()
            .filter(|k| call.get(k).is_some())
            .count();
        if source.is_some() && count > 0 {
            return refuse("'source' cannot be used in combination with 'contents', 'contents_pillar', or 'contents_grains'", "source");
        }
        if keep_mode && count > 0 {
            return refuse("Mode preservation cannot be used in combination with 'contents', 'contents_pillar', or 'contents_grains'", "mode");
        }
        if count > 1 {
            return refuse(
                "Only one of 'contents', 'contents_pillar', and 'contents_grains' is permitted",
                "contents",
            );
        }
        // `_http_ftp_check` calls `.lower()` on every item of a list.
        if let Some(Value::List(items)) = &source {
            if let Some(bad) = items.iter().find(|i| !matches!(i, Value::Str(_))) {
                let ty = match bad {
                    Value::Map(_) => "collections.OrderedDict",
                    v => v.py_type_name(),
                };
                return refuse(
                    &format!("An exception occurred in this state: AttributeError: '{ty}' object has no attribute 'lower'"),
                    "source",
                );
            }
        }
        let template = call.get("template").filter(|t| t.truthy()).cloned();
        let delimiter = call
            .text("contents_delimiter")
            .unwrap_or_else(|| ":".into());
        let data = &self.session.data;
        let lookup = |root: &Value, key: &Value| -> Result<Value, String> {
            let keys: Vec<String> = match key {
                Value::List(l) => l.iter().map(Value::py_str).collect(),
                k => vec![k.py_str()],
            };
            let mut found = Vec::new();
            for k in &keys {
                match crate::salt::matcher::traverse_dict_and_list(root, k, &delimiter) {
                    Some(v) => found.push(v.clone()),
                    None => return Err(k.clone()),
                }
            }
            Ok(match key {
                Value::List(_) => Value::str(
                    found
                        .iter()
                        .map(Value::py_str)
                        .collect::<Vec<_>>()
                        .join("\n"),
                ),
                _ => found.pop().unwrap_or_default(),
            })
        };
        let use_contents = if let Some(key) = call.get("contents_pillar") {
            Some(lookup(&data.pillar, key).map_err(|k| {
                salt_fail(
                    codes::FILE_RENDER,
                    format!("Pillar {k} does not exist"),
                    "contents_pillar",
                )
            })?)
        } else if let Some(key) = call.get("contents_grains") {
            Some(lookup(&data.grains, key).map_err(|k| {
                salt_fail(
                    codes::FILE_RENDER,
                    format!("Grain {k} does not exist"),
                    "contents_grains",
                )
            })?)
        } else {
            call.get("contents").cloned()
        }
        .filter(|v| !v.is_null());
        let mut contents: Option<String> = None;
        if let Some(uc) = use_contents {
            if !call.truthy("allow_empty", true) && !uc.truthy() {
                let id = if let Some(p) = call.get("contents_pillar") {
                    format!("contents_pillar {}", p.py_str())
                } else if let Some(g) = call.get("contents_grains") {
                    format!("contents_grains {}", g.py_str())
                } else {
                    "'contents'".into()
                };
                return refuse(&format!("{id} value would result in empty contents. Set allow_empty to True to allow the managed file to be empty."), "allow_empty");
            }
            // Python's str() of each part: mappings from an SLS or the
            // pillar are `OrderedDict`s (the YAML renderer's), grains dicts.
            let ordered = call.get("contents_grains").is_none();
            let text_of = |v: &Value| match v {
                Value::Str(s) => s.to_string(),
                v if ordered => jinja::py::print::py_str(&jinja::convert::to_jinja_ordered(v)),
                v => v.py_str(),
            };
            let parts: Vec<String> = match &uc {
                Value::List(l) => l.iter().map(text_of).collect(),
                v => vec![text_of(v)],
            };
            if parts.is_empty() {
                return refuse("Contents specified by contents/contents_pillar/contents_grains is not a string or list of strings, and is not binary data. SLS is likely malformed.", "contents");
            }
            let mut text = String::new();
            for part in &parts {
                for line in crate::salt::render::jinja::filters::py_splitlines(part) {
                    text.push_str(line);
                    text.push('\n');
                }
            }
            if !call.truthy("contents_newline", true) {
                let keep = text.trim_end_matches('\n').trim_end_matches('\r').len();
                text.truncate(keep);
            }
            if let Some(t) = &template {
                // Its errors escape `file.managed` (no "Unable to manage
                // file"): the state system reports the exception.
                text = self.contents_template(call, t, &text, saltenv)?;
            }
            contents = Some(text);
        }
        if !name.starts_with('/') {
            return refuse(
                &format!("Specified file {name} is not an absolute path"),
                "name",
            );
        }
        let context = call.get("context");
        if context.is_some_and(|c| !matches!(c, Value::Map(_))) {
            return refuse("Context must be formed as a dict", "context");
        }
        let defaults = call.get("defaults").filter(|d| d.truthy());
        if defaults.is_some_and(|d| !matches!(d, Value::Map(_))) {
            return refuse("Defaults must be formed as a dict", "defaults");
        }
        if let Some(text) = contents {
            return self.encode(call, text).map(|b| (None, b));
        }
        let Some(source) = source else {
            // Neither source nor contents: an empty file.
            return Ok((None, Vec::new()));
        };
        let chosen = self.source_list(&source, saltenv)?;
        let (path, env) = parse_salt_url(&chosen);
        let env = env.unwrap_or_else(|| saltenv.to_string());
        let Some(file) = self.session.fs.find_file(&env, &path) else {
            return Err(salt_fail(
                codes::FILE_SOURCE,
                format!("Unable to manage file: Source file {chosen} not found in saltenv '{env}'"),
                "source",
            ));
        };
        let bytes = std::fs::read(&file).map_err(|e| {
            salt_fail(
                codes::FILE_SOURCE,
                format!("Unable to manage file: {}: {e}", file.display()),
                "source",
            )
        })?;
        let Some(engine) = template else {
            return Ok((Some(chosen), bytes));
        };
        let engine = engine.py_str();
        if !TEMPLATE_ENGINES.contains(&engine.as_str()) {
            return refuse(
                &format!(
                    "Unable to manage file: Specified template format {engine} is not supported"
                ),
                "template",
            );
        }
        if engine != "jinja" {
            return refuse(
                &format!("Unable to manage file: the '{engine}' template engine needs Python; lowstate renders only jinja"),
                "template",
            );
        }
        // A template that is not UTF-8 is copied as it is when Salt takes
        // it for binary, else its decode error stops the state.
        let text = match crate::salt::fileserver::decode_utf8(bytes.clone()) {
            Ok(t) => t,
            Err(_) if is_binary(&bytes) => return Ok((Some(chosen), bytes)),
            Err((_, why)) => {
                return refuse(&format!("Unable to manage file: {why}"), "source");
            }
        };
        let user = call.get("user").cloned().or_else(|| {
            call.extra
                .iter()
                .find(|(k, _)| k == "owner")
                .map(|(_, v)| v.clone())
        });
        let mut vars: Vec<(String, FileVar)> = vec![
            ("name".into(), FileVar::Value(Value::str(name.as_str()))),
            ("source".into(), FileVar::Value(Value::str(chosen.as_str()))),
            ("user".into(), FileVar::Value(user.unwrap_or_default())),
            (
                "group".into(),
                FileVar::Value(call.get("group").cloned().unwrap_or_default()),
            ),
            ("mode".into(), FileVar::Value(mode)),
            (
                "attrs".into(),
                FileVar::Value(call.get("attrs").cloned().unwrap_or_default()),
            ),
            ("saltenv".into(), FileVar::Value(Value::str(saltenv))),
            ("salt".into(), FileVar::Salt),
            ("pillar".into(), FileVar::Pillar),
            ("grains".into(), FileVar::Grains),
            ("opts".into(), FileVar::Opts),
        ];
        for (k, v) in &call.extra {
            if k != "env" {
                set_var(&mut vars, k, FileVar::Value(v.clone()));
            }
        }
        let shown = file.display().to_string();
        let rendered = self.render_template(
            &text,
            (&env, &path, &shown),
            vars,
            defaults,
            context,
            "Unable to manage file: ",
        )?;
        Ok((Some(chosen), rendered.into_bytes()))
    }

    /// `contents` rendered as a template (`file.apply_template_on_contents`).
    fn contents_template(
        &self,
        call: &Call,
        engine: &Value,
        text: &str,
        saltenv: &str,
    ) -> Result<String, Fail> {
        let engine = engine.py_str();
        if !TEMPLATE_ENGINES.contains(&engine.as_str()) {
            return Err(salt_fail(
                codes::FILE_RENDER,
                format!("Specified template format {engine} is not supported"),
                "template",
            ));
        }
        if engine != "jinja" {
            return Err(salt_fail(
                codes::FILE_RENDER,
                format!("the '{engine}' template engine needs Python; lowstate renders only jinja"),
                "template",
            ));
        }
        let vars = vec![
            ("saltenv".into(), FileVar::Value(Value::str(saltenv))),
            ("grains".into(), FileVar::Grains),
            ("pillar".into(), FileVar::Pillar),
            ("salt".into(), FileVar::Salt),
            ("opts".into(), FileVar::Opts),
        ];
        let defaults = call.get("defaults").filter(|d| d.truthy());
        self.render_template(
            text,
            (saltenv, "<contents>", "<contents>"),
            vars,
            defaults,
            call.get("context"),
            "An exception occurred in this state: SaltRenderError: ",
        )
    }

    /// Render `text` with `vars`, then `defaults` updated by `context`
    /// over them (Salt's `sls` context variables when they pass `sls`).
    /// `at` is the saltenv, the template's name and the file it was read
    /// from (for diagnostics).
    fn render_template(
        &self,
        text: &str,
        at: (&str, &str, &str),
        mut vars: Vec<(String, FileVar)>,
        defaults: Option<&Value>,
        context: Option<&Value>,
        prefix: &'static str,
    ) -> Result<String, Fail> {
        for layer in [defaults, context].into_iter().flatten() {
            if let Value::Map(m) = layer {
                for (k, v) in m.iter() {
                    set_var(&mut vars, &k.py_str(), FileVar::Value(v.clone()));
                }
            }
        }
        let sls = vars.iter().find_map(|(k, v)| match v {
            FileVar::Value(v) if k == "sls" => Some(v.py_str()),
            _ => None,
        });
        if let Some(sls) = &sls {
            // `generate_sls_context` without a template path: only the
            // `sls*` path names, each unless the context sets it.
            let slspath = sls.replace('.', "/");
            let slspath = slspath.trim_end_matches('/');
            for (k, v) in [
                ("slspath", slspath.to_string()),
                ("slsdotpath", slspath.replace('/', ".")),
                ("slscolonpath", slspath.replace('/', ":")),
                ("sls_path", slspath.replace('/', "_")),
            ] {
                if !vars.iter().any(|(n, _)| n == k) {
                    vars.push((k.into(), FileVar::Value(Value::str(v))));
                }
            }
        }
        let (saltenv, name, shown) = at;
        let jinja = self
            .session
            .file_jinja(sls.as_deref().is_some_and(|s| !s.is_empty()));
        let t = FileTemplate {
            saltenv,
            name,
            vars: &vars,
        };
        jinja.render_file(text, &t).map_err(|e| {
            let file = SourceFile::new(shown.to_string(), text.to_string());
            Fail::Jinja(prefix, e, file)
        })
    }

    /// The bytes of `contents` (`encoding`, else UTF-8).
    fn encode(&self, call: &Call, text: String) -> Result<Vec<u8>, Fail> {
        match call.text("encoding") {
            None => Ok(text.into_bytes()),
            Some(e)
                if matches!(
                    e.to_ascii_lowercase().replace('_', "-").as_str(),
                    "utf-8" | "utf8" | "u8"
                ) =>
            {
                Ok(text.into_bytes())
            }
            Some(e) if e.eq_ignore_ascii_case("ascii") && text.is_ascii() => Ok(text.into_bytes()),
            Some(e) => Err(salt_fail(
                codes::FILE_RENDER,
                format!("encoding '{e}' is not supported by lowstate (only UTF-8 and ASCII)"),
                "encoding",
            )),
        }
    }

    /// `file.source_list`: a single source as it is; of a list, the first
    /// that the file roots have (a dict entry by its key).
    fn source_list(&self, source: &Value, saltenv: &str) -> Result<String, Fail> {
        let Value::List(items) = source else {
            return Ok(source.py_str());
        };
        let mut remote = Vec::new();
        for item in items.iter() {
            let single = match item {
                Value::Map(m) if m.len() == 1 => m.first().map(|(k, _)| k.py_str()),
                Value::Map(_) => None,
                Value::Str(s) => Some(s.to_string()),
                _ => None,
            };
            let Some(single) = single else { continue };
            let sch = scheme(&single);
            if sch == "salt" || (sch.is_empty() && !single.starts_with('/')) {
                let (path, env) = parse_salt_url(&single);
                let env = env.unwrap_or_else(|| saltenv.to_string());
                let listing = self.session.fs.list_paths(&env);
                let known = |l: &[String]| l.binary_search(&path).is_ok();
                if known(&listing.files) || known(&listing.dirs) {
                    return Ok(single);
                }
            } else if sch.starts_with("http") || sch == "ftp" {
                remote.push(single);
                break;
            }
        }
        if !remote.is_empty() {
            return Err(salt_fail(
                codes::FILE_SOURCE,
                format!(
                    "remote source not fetched (lowstate has no network): {}",
                    remote.join(", ")
                ),
                "source",
            ));
        }
        Err(salt_fail(
            codes::FILE_SOURCE,
            "Unable to manage file: none of the specified sources were found",
            "source",
        ))
    }

    /// The files of a `file.recurse` chunk, by path.
    fn recurse_chunk(&self, chunk: &Map) -> Vec<RenderedFile> {
        let rname = chunk.get("name").cloned().unwrap_or_default();
        let managed_args = declared("file.managed");
        // `file.recurse` passes its other arguments on, but `mode` and
        // `makedirs`.
        let Call { args, extra } = Call::of(chunk, "file.recurse", &["mode", "makedirs"]);
        let saltenv = self.saltenv(chunk);
        let failed = |f: Fail| {
            let mut e = self.entry(chunk, rname.clone(), args.get("template"));
            e.recurse = Some(rname.clone());
            e.content = Err(self.error(chunk, &rname, f));
            vec![e]
        };
        let files = match self.recurse_files(&rname.py_str(), &args, &saltenv) {
            Ok(f) => f,
            Err(f) => return failed(f),
        };
        let file_mode = args.get("file_mode").filter(|m| !m.is_null());
        let mode = match file_mode {
            Some(Value::Str(s)) if s.eq_ignore_ascii_case("keep") => Value::str("keep"),
            Some(m) => Value::str(normalize_mode(&m.py_str())),
            None => Value::Null,
        };
        let mut out = Vec::new();
        for (dest, src) in files {
            let mut margs = Map::new();
            let mut mextra = Vec::new();
            let mut set = |k: &str, v: Value| {
                margs.insert(Value::str(k), v);
            };
            set("name", Value::str(dest.as_str()));
            set("source", Value::str(src.as_str()));
            for k in [
                "keep_source",
                "user",
                "group",
                "template",
                "replace",
                "context",
                "defaults",
                "backup",
            ] {
                if let Some(v) = args.get(k) {
                    set(k, v.clone());
                }
            }
            set("mode", mode.clone());
            set("makedirs", Value::Bool(true));
            for (k, v) in &extra {
                if managed_args.contains(k) {
                    set(k, v.clone());
                } else {
                    mextra.push((k.clone(), v.clone()));
                }
            }
            let mut e = self.entry(chunk, Value::str(dest.as_str()), args.get("template"));
            e.recurse = Some(rname.clone());
            let result = self.managed(
                &Call {
                    args: margs,
                    extra: mextra,
                },
                &saltenv,
            );
            self.finish(&mut e, chunk, result);
            out.push(e);
        }
        out
    }

    /// `_filter_recurse_sources` and `_gen_recurse_managed_files`: (path on
    /// the minion, `salt://` source with its saltenv), sorted by path.
    fn recurse_files(
        &self,
        name: &str,
        args: &Map,
        saltenv: &str,
    ) -> Result<Vec<(String, String)>, Fail> {
        let fail = |m: String| {
            Err(salt_fail(
                codes::FILE_SOURCE,
                format!("Recurse failed: {m}"),
                "source",
            ))
        };
        let sources: Vec<String> = match args.get("source") {
            Some(Value::List(l)) => l.iter().map(Value::py_str).collect(),
            Some(Value::Str(s)) => vec![s.to_string()],
            Some(v) => vec![v.py_str()],
            None => Vec::new(),
        }
        .into_iter()
        .map(|s| s.trim_end_matches('/').to_string())
        .collect();
        for s in &sources {
            if !s.starts_with("salt://") {
                return fail(format!("Invalid source '{s}' (must be a salt:// URI)"));
            }
        }
        let mut found = Vec::new();
        for s in &sources {
            let (path, env) = parse_salt_url(s);
            let env = env.unwrap_or_else(|| saltenv.to_string());
            if self
                .session
                .fs
                .list_paths(&env)
                .dirs
                .binary_search(&path)
                .is_ok()
            {
                found.push(s.clone());
            }
        }
        if found.is_empty() {
            return fail("none of the specified sources were found".into());
        }
        if !args.get("merge").is_some_and(Value::truthy) {
            found.truncate(1);
        }
        let maxdepth = args.get("maxdepth").and_then(|v| match v {
            Value::Int(i) => Some(*i),
            _ => None,
        });
        let include = args.get("include_pat").filter(|v| v.truthy());
        let exclude = args.get("exclude_pat").filter(|v| v.truthy());
        let mut files: std::collections::BTreeMap<String, String> = Default::default();
        let mut taken_dirs: std::collections::HashSet<String> = Default::default();
        for s in &found {
            let (root, env) = parse_salt_url(s);
            let env_given = env.is_some();
            let env = env.unwrap_or_else(|| saltenv.to_string());
            let root = format!("{}/", root.trim_end_matches('/'));
            let listing = self.session.fs.list_paths(&env);
            for f in listing.files.iter().filter(|f| f.starts_with(&root)) {
                let rel = &f[root.len()..];
                if rel.trim().is_empty() || !valid_relpath(rel, maxdepth) {
                    continue;
                }
                if !include_exclude(rel, include, exclude) {
                    continue;
                }
                let dest = format!("{}/{}", name.trim_end_matches('/'), rel);
                let occupied = taken_dirs.contains(&dest)
                    || ancestors(&dest).any(|p| files.contains_key(p))
                    || files.contains_key(&dest);
                if occupied {
                    continue;
                }
                for p in ancestors(&dest) {
                    taken_dirs.insert(p.to_string());
                }
                let _ = env_given;
                files.insert(dest, format!("salt://{f}?saltenv={env}"));
            }
        }
        Ok(files.into_iter().collect())
    }
}

/// `salt.utils.stringutils.is_binary` on a file's first 2048 bytes: a NUL,
/// or more than 30% bytes that are not text.
fn is_binary(bytes: &[u8]) -> bool {
    let data = &bytes[..bytes.len().min(2048)];
    if data.is_empty() {
        return false;
    }
    if data.contains(&0) {
        return true;
    }
    let utf8 = match std::str::from_utf8(data) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    };
    let text = |b: u8| {
        (32..127).contains(&b)
            || matches!(b, b'\n' | b'\r' | b'\t' | 0x0c | 0x08)
            || (utf8 && (128..255).contains(&b))
    };
    let nontext = data.iter().filter(|b| !text(**b)).count();
    nontext as f64 / data.len() as f64 > 0.30
}

/// The proper ancestors of a `/` path (`/a/b/c` → `/a/b`, `/a`, `/`).
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    let mut cur = path;
    std::iter::from_fn(move || {
        if cur == "/" || cur.is_empty() {
            return None;
        }
        cur = match cur.rfind('/') {
            Some(0) => "/",
            Some(i) => &cur[..i],
            None => "",
        };
        (!cur.is_empty()).then_some(cur)
    })
}

/// `_is_valid_relpath`: no `..` part, at most `maxdepth` separators.
fn valid_relpath(rel: &str, maxdepth: Option<i64>) -> bool {
    if format!("/{rel}/").contains("/../") {
        return false;
    }
    match maxdepth {
        Some(d) => (rel.trim_matches('/').matches('/').count() as i64) <= d,
        None => true,
    }
}

/// `check_include_exclude`: globs, or `E@` regular expressions.
fn include_exclude(path: &str, include: Option<&Value>, exclude: Option<&Value>) -> bool {
    let matches = |pat: &str| match pat.strip_prefix("E@") {
        Some(re) => crate::pyre::compile(re)
            .ok()
            .is_some_and(|r| r.is_match(path).unwrap_or(false)),
        None => crate::fnmatch::fnmatch(path, pat),
    };
    let any = |v: &Value| match v {
        Value::List(l) => l.iter().any(|p| matches(&p.py_str())),
        p => matches(&p.py_str()),
    };
    include.is_none_or(any) && exclude.is_none_or(|e| !any(e))
}

/// Set a template variable, keeping the position of one already there
/// (a Python dict update).
fn set_var(vars: &mut Vec<(String, FileVar)>, key: &str, value: FileVar) {
    match vars.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = value,
        None => vars.push((key.to_string(), value)),
    }
}

/// Whether a chunk holds `__slot__:` values (resolved at run time).
fn has_slot(v: &Value) -> bool {
    match v {
        Value::Str(s) => s.starts_with("__slot__:"),
        Value::Map(m) => m.values().any(has_slot),
        Value::List(l) => l.iter().any(has_slot),
        _ => false,
    }
}

/// Python's `urlparse(s).scheme`, lowercased.
fn scheme(s: &str) -> String {
    match s.find(':') {
        Some(i)
            if i > 0
                && s.as_bytes()[0].is_ascii_alphabetic()
                && s[..i]
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')) =>
        {
            s[..i].to_ascii_lowercase()
        }
        _ => String::new(),
    }
}

/// A source that is not read from the state tree: a remote URL (never
/// fetched) or a path on the minion. For a list, only when it has one item.
fn precheck_source(src: Option<&Value>) -> Option<String> {
    let items: Vec<String> = match src {
        None | Some(Value::Null) => return None,
        Some(Value::List(l)) => l
            .iter()
            .map(|s| match s {
                Value::Map(m) => m.first().map(|(k, _)| k.py_str()).unwrap_or_default(),
                s => s.py_str(),
            })
            .collect(),
        Some(s) => vec![s.py_str()],
    };
    if items.len() != 1 {
        return None;
    }
    let s = &items[0];
    let sch = scheme(s);
    if sch == "salt" {
        return None;
    }
    if REMOTE_SCHEMES.contains(&sch.as_str()) || (sch.len() > 1 && sch != "file") {
        return Some(format!(
            "remote source not fetched (lowstate has no network): {s}"
        ));
    }
    Some(format!(
        "local source is a file on the minion, not in the state tree: {s}"
    ))
}

/// `salt.utils.url.parse`: the path and the `?saltenv=` of a `salt://` URL.
pub fn parse_salt_url(url: &str) -> (String, Option<String>) {
    let Some(resource) = url.strip_prefix("salt://") else {
        return (url.to_string(), None);
    };
    let (path, env) = if let Some((p, _)) = resource.split_once("?env=") {
        (p, None)
    } else if let Some((p, e)) = resource.split_once("?saltenv=") {
        (p, Some(e.to_string()))
    } else {
        (resource, None)
    };
    (path.trim_start_matches('/').to_string(), env)
}

/// `salt.utils.files.normalize_mode`: `644` → `'0644'`.
pub fn normalize_mode(mode: &str) -> String {
    let m = mode.replace("0o", "0");
    let m = m
        .trim_matches('"')
        .trim_matches('\'')
        .trim_start_matches('0');
    format!("{m:0>4}")
}

/// `os.path.expanduser` on a minion running as root.
pub fn expanduser(p: &str) -> String {
    if p == "~" || p.starts_with("~/") {
        return format!("/root{}", &p[1..]);
    }
    if p == "~root" || p.starts_with("~root/") {
        return format!("/root{}", &p[5..]);
    }
    p.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_come_from_the_schemas() {
        let managed = declared("file.managed");
        for arg in ["name", "source", "template", "contents_pillar", "defaults"] {
            assert!(managed.iter().any(|a| a == arg), "{arg}");
        }
        // `owner` and `env` are read from **kwargs, not declared.
        assert!(!managed.iter().any(|a| a == "owner" || a == "env"));
        let recurse = declared("file.recurse");
        assert!(recurse.iter().any(|a| a == "file_mode"));
        assert!(!recurse.iter().any(|a| a == "contents"));
    }

    #[test]
    fn modes_normalise_like_salt() {
        assert_eq!(normalize_mode("644"), "0644");
        assert_eq!(normalize_mode("00644"), "0644");
        assert_eq!(normalize_mode("0o755"), "0755");
        assert_eq!(normalize_mode("'600'"), "0600");
    }

    #[test]
    fn salt_urls_parse() {
        assert_eq!(parse_salt_url("salt://a/b"), ("a/b".into(), None));
        assert_eq!(
            parse_salt_url("salt:///a?saltenv=dev"),
            ("a".into(), Some("dev".into()))
        );
        assert_eq!(scheme("HTTPS://x"), "https");
        assert_eq!(scheme("/etc/x"), "");
    }

    #[test]
    fn recurse_paths() {
        assert!(valid_relpath("a/b", Some(1)));
        assert!(!valid_relpath("a/b/c", Some(1)));
        assert!(!valid_relpath("a/../b", None));
        assert_eq!(ancestors("/a/b/c").collect::<Vec<_>>(), ["/a/b", "/a", "/"]);
        let pat = Value::str("*.conf");
        assert!(include_exclude("x.conf", Some(&pat), None));
        assert!(!include_exclude("x.conf", None, Some(&pat)));
        assert!(include_exclude("x", None, Some(&Value::str("E@^y"))));
    }
}
