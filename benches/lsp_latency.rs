//! Edit-to-diagnostics latency of `lowstate lsp`, measured over stdio as an
//! editor sees it: the time from sending a `didChange` to receiving the
//! `publishDiagnostics` of the edited file, median and p95.
//!
//! ```text
//! cargo bench --bench lsp_latency                       # the 1000x25 bench tree
//! cargo bench --bench lsp_latency -- --size 200x25
//! cargo bench --bench lsp_latency -- --tree DIR --file salt/nginx/init.sls
//! ```
//!
//! `--tree DIR` is a Salt config directory (holding `minion`), e.g. a
//! formula checked out under a `salt/` root; `--file` the SLS to edit
//! (relative to DIR). Each edit changes one character of a state's text
//! (and the next edit changes it back), so every edit is a real change the
//! server must recompile; `--edits N` (default 40). `--pause MS` waits
//! that long after each edit's diagnostics before the next edit, as a
//! typist does (default 0: back to back, the server never idle).
//! `--find TEXT` edits the first letter of TEXT's first occurrence instead
//! (e.g. `--find b500-s5:` edits a state ID, which compiles the whole tree
//! again: see docs/editors.md, "Incremental").

#[path = "../tests/lsp_client/mod.rs"]
mod client;

use client::{utf16_position, Client};
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let edits: usize = arg(&args, "--edits")
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let pause = std::time::Duration::from_millis(
        arg(&args, "--pause")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0),
    );
    let (tree, file) = match arg(&args, "--tree") {
        Some(t) => (
            PathBuf::from(t).canonicalize().expect("--tree DIR"),
            arg(&args, "--file").expect("--file REL with --tree"),
        ),
        None => {
            let size = arg(&args, "--size").unwrap_or_else(|| "1000x25".into());
            (generate(&size), "salt/big500/init.sls".into())
        }
    };
    let path = tree.join(&file);
    let mut text = std::fs::read_to_string(&path).expect("the file to edit");
    let mut c = Client::start_with(
        Path::new(env!("CARGO_BIN_EXE_lowstate")),
        &tree,
        Json::Null,
        &[],
    );
    let start = Instant::now();
    let u = c.open(&path, &text);
    let first = c.diagnostics(&u);
    let cold = start.elapsed();
    // The edit: the first letter after the middle of the file (on the bench
    // tree, of a state function's name), or `--find`'s, toggles case.
    let at = match arg(&args, "--find") {
        Some(find) => text
            .find(&find)
            .and_then(|i| Some(i + find.find(|ch: char| ch.is_ascii_alphabetic())?))
            .expect("--find TEXT: TEXT, with a letter, in the file"),
        None => text[text.len() / 2..]
            .find(|ch: char| ch.is_ascii_alphabetic())
            .map(|i| text.len() / 2 + i)
            .expect("a letter to edit"),
    };
    let mut times = Vec::with_capacity(edits);
    for i in 0..edits {
        std::thread::sleep(pause);
        let old = text[at..at + 1].to_string();
        let new = if old.chars().all(|ch| ch.is_ascii_lowercase()) {
            old.to_ascii_uppercase()
        } else {
            old.to_ascii_lowercase()
        };
        let range =
            json!({"start": utf16_position(&text, at), "end": utf16_position(&text, at + 1)});
        text.replace_range(at..at + 1, &new);
        let t = Instant::now();
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": i + 2},
                   "contentChanges": [{"range": range, "text": new}]}),
        );
        let _ = c.diagnostics(&u);
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let pick = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "lsp latency on {} (edit {file}): open to first diagnostics {:.0} ms ({} diagnostics); \
         {edits} edits{}: edit-to-diagnostics median {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        tree.display(),
        cold.as_secs_f64() * 1000.0,
        first.len(),
        if pause.is_zero() {
            String::new()
        } else {
            format!(" {} ms apart", pause.as_millis())
        },
        pick(0.5),
        pick(0.95),
        pick(1.0),
    );
    let _ = c.stop();
}

/// The bench tree of `benches/gen-big-tree` (FILESxSTATES) in a temp dir.
fn generate(size: &str) -> PathBuf {
    let (files, states) = size.split_once('x').expect("--size FILESxSTATES");
    let dir = std::env::temp_dir().join(format!("lowstate-lsp-bench-{size}"));
    if !dir.join("minion").is_file() {
        let ok = std::process::Command::new("python3")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/gen-big-tree"))
            .arg(dir.join("salt"))
            .args(["--files", files, "--states", states])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "benches/gen-big-tree failed (python3 needed)");
        std::fs::write(
            dir.join("minion"),
            "id: bench-minion\ngrains: {os: Debian, os_family: Debian, kernel: Linux}\nfile_roots: {base: [salt]}\n",
        )
        .unwrap();
    }
    dir.canonicalize().unwrap()
}
