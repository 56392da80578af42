//! The one-file trees the `salt_compile` fuzz target compiles, shared with
//! the regression test of its findings (`tests/fuzz_regressions.rs`), so
//! that a finding replays exactly as the fuzzer ran it.

use crate::salt::config::{Config, SaltVersion};
use crate::salt::pipeline::{Options, Session};
use std::path::Path;

/// The line that separates the SLS from the pillar SLS in an input.
pub const PILLAR_SEPARATOR: &[u8] = b"#--pillar--\n";

/// Write the tree of fuzz input `data` into `dir` (a minion config, a top
/// file matching every minion to SLS `fuzzed`, the SLS, and a pillar SLS
/// when `data` holds [`PILLAR_SEPARATOR`]) and open a session on it.
/// Odd-length inputs compile as Salt 3006, even ones as 3008. `None` when
/// the directory cannot be written.
pub fn session_for_input(dir: &Path, data: &[u8]) -> Option<Session> {
    let n = PILLAR_SEPARATOR.len();
    let (sls, pillar) = match data.windows(n).position(|w| w == PILLAR_SEPARATOR) {
        Some(i) => (&data[..i], &data[i + n..]),
        None => (data, &b""[..]),
    };
    for sub in ["salt", "pillar"] {
        std::fs::create_dir_all(dir.join(sub)).ok()?;
    }
    let files: [(&str, &[u8]); 5] = [
        (
            "minion",
            b"id: fuzz\ngrains:\n  os: Debian\n  os_family: Debian\nfile_roots:\n  base: [salt]\npillar_roots:\n  base: [pillar]\n",
        ),
        ("salt/top.sls", b"base:\n  '*':\n    - fuzzed\n"),
        ("pillar/top.sls", b"base:\n  '*':\n    - data\n"),
        ("salt/fuzzed.sls", sls),
        ("pillar/data.sls", pillar),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).ok()?;
    }
    let config = Config::load(dir).ok()?;
    let version = if data.len() % 2 == 1 {
        SaltVersion::V3006
    } else {
        SaltVersion::default()
    };
    Some(Session::new(
        config,
        Options {
            version: Some(version),
            ..Options::default()
        },
    ))
}

/// The line that separates the SLS (and pillar) from the file template in
/// an input of the `salt_files` fuzz target.
pub const TEMPLATE_SEPARATOR: &[u8] = b"#--template--\n";

/// The tree of a `salt_files` fuzz input: what follows
/// [`TEMPLATE_SEPARATOR`] is the file `salt://t.j2` (a template the SLS's
/// `file.managed` states can name), the rest as for [`session_for_input`].
pub fn files_session_for_input(dir: &Path, data: &[u8]) -> Option<Session> {
    let n = TEMPLATE_SEPARATOR.len();
    let (rest, template) = match data.windows(n).position(|w| w == TEMPLATE_SEPARATOR) {
        Some(i) => (&data[..i], &data[i + n..]),
        None => (data, &b""[..]),
    };
    let session = session_for_input(dir, rest)?;
    std::fs::write(dir.join("salt/t.j2"), template).ok()?;
    Some(session)
}

/// What `lowstate files` renders for a session (the `salt_files` fuzz
/// target): every entry has bytes or an error, and the document holds.
/// `Err` names the first broken invariant.
pub fn check_files(session: &Session) -> Result<(), String> {
    let Ok(plan) = session.located_lowstate() else {
        return Ok(());
    };
    let chunks = plan.lowstate.into_list();
    let files = crate::salt::files::render_files(session, &chunks, &plan.sources);
    let doc = crate::salt::files::document(&files);
    let listed = doc
        .get("files")
        .and_then(|f| f.as_list())
        .map_or(0, |l| l.len());
    if listed != files.len() {
        return Err(format!("{} files, {listed} entries", files.len()));
    }
    for f in &files {
        match &f.content {
            Ok(_) if f.sha256().is_none() => return Err("content without sha256".into()),
            Err(e) if e.message.is_empty() => return Err("an error without a message".into()),
            _ => {}
        }
    }
    let _ = doc.to_json();
    Ok(())
}

/// The Jinja pre-pass rewriting `src` in one pass, as compiles do, against
/// rewriting it pass by pass: `Err` shows both when they differ (the
/// `jinja_prepass` fuzz target).
pub fn check_prepass(src: &str) -> Result<(), String> {
    crate::salt::render::jinja::check_prepass(src)
}
