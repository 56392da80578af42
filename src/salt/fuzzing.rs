//! The one-file trees the `salt_compile` fuzz target compiles, shared with
//! the regression test of its findings (`tests/fuzz_regressions.rs`), so
//! that a finding replays exactly as the fuzzer ran it.

use crate::diag::Diagnostic;
use crate::salt::config::{Config, SaltVersion};
use crate::salt::pipeline::{Options, Session};
use crate::value::Value;
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

/// Jinja2's first syntax error in `src` (default delimiters), as Salt
/// reports it: `(message, line)` (the `jinja2_syntax` fuzz target).
pub fn jinja2_syntax_error(src: &str) -> Option<(String, usize)> {
    let syntax = minijinja::syntax::SyntaxConfig::default();
    crate::salt::render::jinja::jinja2_first_error(src, &syntax)
}

/// The line that separates the minion config from the config directory's
/// `grains` file in an input of the `salt_grains` fuzz target.
pub const GRAINS_SEPARATOR: &[u8] = b"#--grains--\n";

/// The config directory of a `salt_grains` fuzz input written into `dir`
/// (the minion config, and the `grains` file after [`GRAINS_SEPARATOR`]),
/// loaded as the CLI loads it. `None` when the directory cannot be
/// written.
pub fn grains_config_for_input(dir: &Path, data: &[u8]) -> Option<Result<Config, Diagnostic>> {
    let n = GRAINS_SEPARATOR.len();
    let (minion, grains) = match data.windows(n).position(|w| w == GRAINS_SEPARATOR) {
        Some(i) => (&data[..i], Some(&data[i + n..])),
        None => (data, None),
    };
    std::fs::create_dir_all(dir).ok()?;
    std::fs::write(dir.join("minion"), minion).ok()?;
    match grains {
        Some(text) => std::fs::write(dir.join("grains"), text).ok()?,
        None => {
            let _ = std::fs::remove_file(dir.join("grains"));
        }
    }
    Some(Config::load(dir))
}

/// The grains of a loaded config (the `salt_grains` fuzz target): what the
/// configured layers set is in the result as set (they win), and
/// `--explain` has one leaf per grain. `Err` names the first broken
/// invariant.
pub fn check_grains(config: &Config) -> Result<(), String> {
    let model = &config.grains_model;
    for (key, set) in model.configured() {
        match model.value.get(&key) {
            Some(v) if v.py_repr() == set.py_repr() => {}
            other => {
                return Err(format!(
                    "grain {} was set to {} but the result has {:?}",
                    key.py_repr(),
                    set.py_repr(),
                    other.map(Value::py_repr)
                ))
            }
        }
    }
    if config.grains != Value::Map(model.value.clone()) {
        return Err("the config's grains are not the merged grains".into());
    }
    let explained = model.explain().leaves.len();
    if explained != model.value.len() {
        return Err(format!(
            "{} grains, {explained} explained",
            model.value.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{check_grains, grains_config_for_input, GRAINS_SEPARATOR};

    const SEED: &str = "id: web01\nlowstate_os: rocky-9\ngrains_blacklist: ['zmq*', 'os_family']\ngrains:\n  roles: [web]\n  os_family: Mine\n";
    const GRAINS: &str = "roles: [db]\ndatacenter: fra1\nosrelease: '9.9'\n";

    fn input(minion: &str, grains: &str) -> Vec<u8> {
        [minion.as_bytes(), GRAINS_SEPARATOR, grains.as_bytes()].concat()
    }

    /// The seed loads, the config wins over the `grains` file, the
    /// blacklist drops computed grains only, and the invariants hold.
    #[test]
    fn the_seed_input_merges_as_salt_does() {
        let dir = tempfile_dir("seed");
        let config = grains_config_for_input(&dir, &input(SEED, GRAINS))
            .expect("written")
            .expect("loads");
        let g = config.grains.as_map().expect("a mapping");
        assert_eq!(g.get("roles").map(|v| v.py_repr()), Some("['web']".into()));
        assert_eq!(g.get("datacenter").map(|v| v.py_str()), Some("fra1".into()));
        assert_eq!(g.get("osrelease").map(|v| v.py_str()), Some("9.9".into()));
        assert_eq!(g.get("os_family").map(|v| v.py_str()), Some("Mine".into()));
        assert!(g.get("zmqversion").is_none());
        assert_eq!(check_grains(&config), Ok(()));
        let bad = grains_config_for_input(&dir, &input(SEED, "- a list\n")).expect("written");
        assert!(
            bad.is_err(),
            "a grains file that is not a mapping is refused"
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    /// A bounded soak: 200 mutations of the seed (bytes dropped, repeated
    /// and swapped, parts of one file pasted into the other) each load or
    /// fail with a diagnostic, and never break the invariants.
    #[test]
    fn mutated_inputs_load_or_fail_cleanly() {
        let dir = tempfile_dir("soak");
        let seed = input(SEED, GRAINS);
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n.max(1) as u64) as usize
        };
        let (mut loaded, mut refused) = (0, 0);
        for _ in 0..200 {
            let mut data = seed.clone();
            for _ in 0..1 + next(4) {
                let at = next(data.len());
                match next(4) {
                    0 => {
                        data.remove(at);
                    }
                    1 => {
                        let b = data[next(data.len())];
                        data.insert(at, b);
                    }
                    2 => {
                        let other = next(data.len());
                        data.swap(at, other);
                    }
                    _ => {
                        let from = next(data.len());
                        let len = next(24).min(data.len() - from);
                        let piece = data[from..from + len].to_vec();
                        data.splice(at..at, piece);
                    }
                }
            }
            match grains_config_for_input(&dir, &data).expect("written") {
                Ok(config) => {
                    loaded += 1;
                    if let Err(e) = check_grains(&config) {
                        panic!("{e}\ninput: {}", String::from_utf8_lossy(&data));
                    }
                }
                Err(d) => {
                    refused += 1;
                    assert!(!d.message.is_empty());
                }
            }
        }
        assert!(
            loaded > 0 && refused > 0,
            "{loaded} loaded, {refused} refused"
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    fn tempfile_dir(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("lowstate-grains-{name}-{}", std::process::id()))
    }
}
