//! A minimal language client for `lowstate lsp` (JSON-RPC framing over
//! the child's stdio), shared by the protocol tests and the latency
//! benchmark.
#![allow(dead_code)] // each user takes what it needs

use serde_json::{json, Value as Json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// A language client speaking to one `lowstate lsp` process.
pub struct Client {
    /// The server process.
    pub child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Json>,
    next_id: i64,
    /// Notifications received while waiting for something else.
    pub notes: Vec<Json>,
}

impl Client {
    /// Start the server on workspace `root` and initialize it.
    pub fn start(root: &Path, options: Json, env: &[(&str, &str)]) -> Client {
        Client::start_with(
            Path::new(env!("CARGO_BIN_EXE_lowstate")),
            root,
            options,
            env,
        )
    }

    /// Start `bin lsp` on workspace `root` and initialize it.
    pub fn start_with(bin: &Path, root: &Path, options: Json, env: &[(&str, &str)]) -> Client {
        let mut cmd = Command::new(bin);
        cmd.arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start lowstate lsp");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        len = v.parse().unwrap();
                    }
                }
                let mut body = vec![0; len];
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                    return;
                }
            }
        });
        let mut c = Client {
            child,
            stdin,
            incoming: rx,
            next_id: 0,
            notes: Vec::new(),
        };
        let init = c.request(
            "initialize",
            json!({"processId": null, "rootUri": uri(root), "capabilities": {},
                   "initializationOptions": options}),
        );
        assert!(
            init["result"]["capabilities"]["hoverProvider"] == json!(true),
            "{init}"
        );
        c.notify("initialized", json!({}));
        c
    }

    fn send(&mut self, msg: &Json) {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next message from the server.
    pub fn recv(&mut self) -> Json {
        self.incoming
            .recv_timeout(Duration::from_secs(120))
            .expect("the server answers")
    }

    /// Send a notification.
    pub fn notify(&mut self, method: &str, params: Json) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Send a request and wait for its response (the whole message).
    pub fn request(&mut self, method: &str, params: Json) -> Json {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.recv();
            if m.get("id") == Some(&json!(id)) && m.get("method").is_none() {
                return m;
            }
            self.notes.push(m);
        }
    }

    /// The next diagnostics published for `uri`.
    pub fn diagnostics(&mut self, uri: &str) -> Vec<Json> {
        loop {
            if let Some(i) = self.notes.iter().position(|n| {
                n["method"] == "textDocument/publishDiagnostics" && n["params"]["uri"] == uri
            }) {
                let n = self.notes.remove(i);
                return n["params"]["diagnostics"].as_array().unwrap().clone();
            }
            let m = self.recv();
            self.notes.push(m);
        }
    }

    /// Open a document with `text`.
    pub fn open(&mut self, path: &Path, text: &str) -> String {
        let u = uri(path);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": u, "languageId": "sls", "version": 1, "text": text}}),
        );
        u
    }

    /// Replace a document's text.
    pub fn change(&mut self, u: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": version},
                   "contentChanges": [{"text": text}]}),
        );
    }

    /// A position request at the first occurrence of `needle` in `text`
    /// (plus `skip` characters).
    pub fn at(&mut self, method: &str, u: &str, text: &str, needle: &str, skip: usize) -> Json {
        let (line, character) = position(text, needle, skip);
        let mut params =
            json!({"textDocument": {"uri": u}, "position": {"line": line, "character": character}});
        if method == "textDocument/references" {
            params["context"] = json!({"includeDeclaration": true});
        }
        self.request(method, params)
    }

    /// Shut the server down; its exit code.
    pub fn stop(mut self) -> i32 {
        let r = self.request("shutdown", Json::Null);
        assert!(r.get("error").is_none(), "{r}");
        self.notify("exit", Json::Null);
        self.child.wait().unwrap().code().unwrap_or(-1)
    }
}

/// The `file://` URI of a path.
pub fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

/// (line, character) of `needle` in `text`, plus `skip` (ASCII text).
pub fn position(text: &str, needle: &str, skip: usize) -> (usize, usize) {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} in text"))
        + skip;
    let line = text[..at].matches('\n').count();
    let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
    (line, col)
}

/// The LSP position (UTF-16 column) of a byte offset.
pub fn utf16_position(text: &str, at: usize) -> Json {
    let before = &text[..at];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let character: usize = before[start..].chars().map(char::len_utf16).sum();
    json!({"line": line, "character": character})
}
