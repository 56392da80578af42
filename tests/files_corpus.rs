//! The rendered-files corpus: one trial per case under `tests/files-corpus/`
//! (a case as in `tests/corpus`: `minion`, `salt/`, `pillar/`), comparing
//! what `lowstate files` renders with `expected/files.json`, written by
//! Salt 3008.5's own `file.managed` (the `salt-file-render` oracle). Every
//! entry must match: name, source, template, sha256 and content byte for
//! byte, and errors where Salt has errors (Salt's message exactly, except
//! where it embeds a Python traceback or a host path). Cases listed in
//! `tests/files-corpus-known-failures.txt` must still fail.

use libtest_mimic::{Arguments, Failed, Trial};
use lowstate::salt::config::Config;
use lowstate::salt::pipeline::{Options, Session};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The corpus must not shrink unnoticed.
const MIN_CASES: usize = 20;

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let dir = root.join("files-corpus");
    let known = known_failures(&root.join("files-corpus-known-failures.txt"));
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.join("minion").is_file())
                .collect()
        })
        .unwrap_or_default();
    cases.sort();
    let mut trials = vec![Trial::test("files-corpus/present", {
        let n = cases.len();
        move || {
            if n < MIN_CASES {
                return Err(format!(
                    "tests/files-corpus has {n} cases, fewer than {MIN_CASES}: is the corpus missing?"
                )
                .into());
            }
            Ok(())
        }
    })];
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let key = format!("files/{name}");
        let expect_fail = known.get(&key).cloned();
        trials.push(Trial::test(key, move || {
            match (run_case(&case), expect_fail) {
                (r, None) => r,
                (Ok(()), Some(reason)) => Err(format!(
                    "passes now but is listed in files-corpus-known-failures.txt ({reason}): remove it from the list"
                )
                .into()),
                (Err(_), Some(_)) => Ok(()),
            }
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}

/// `files/case reason...` lines; `#` starts a comment.
fn known_failures(path: &Path) -> HashMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once(char::is_whitespace) {
            Some((k, r)) => (k.to_string(), r.trim().to_string()),
            None => (l.to_string(), String::new()),
        })
        .collect()
}

fn run_case(case: &Path) -> Result<(), Failed> {
    let text = std::fs::read_to_string(case.join("expected/files.json"))
        .map_err(|e| format!("cannot read expected/files.json: {e}"))?;
    let expected: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("bad expected json: {e}"))?;
    let config = Config::load(case).map_err(|d| format!("config: {}", d.message))?;
    let session = Session::new(config, Options::default());
    let plan = match session.plan() {
        Ok(p) => p,
        Err(d) => {
            if expected.get("lowstate_errors").is_some() {
                return Ok(());
            }
            return Err(format!("the lowstate does not compile: {:?}", d.messages()).into());
        }
    };
    if expected.get("lowstate_errors").is_some() {
        return Err("Salt's lowstate does not compile, ours does".into());
    }
    let chunks = plan.lowstate.into_list();
    let files = lowstate::salt::files::render_files(&session, &chunks, &plan.sources);
    let ours = lowstate::salt::files::document(&files).to_json();
    let exp = expected["files"].as_array().cloned().unwrap_or_default();
    let got = ours["files"].as_array().cloned().unwrap_or_default();
    let mut problems = Vec::new();
    if exp.len() != got.len() {
        problems.push(format!(
            "{} entries, Salt has {}: ours {:?}, Salt's {:?}",
            got.len(),
            exp.len(),
            got.iter().map(|e| e["name"].clone()).collect::<Vec<_>>(),
            exp.iter().map(|e| e["name"].clone()).collect::<Vec<_>>()
        ));
    }
    for (i, (e, g)) in exp.iter().zip(&got).enumerate() {
        if let Some(p) = entry_difference(e, g) {
            problems.push(format!("entry {i} ({}): {p}", e["name"]));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

/// Where one of our entries differs from Salt's.
fn entry_difference(exp: &serde_json::Value, got: &serde_json::Value) -> Option<String> {
    let (Some(e), Some(g)) = (exp.as_object(), got.as_object()) else {
        return Some("not an object".into());
    };
    for key in ["state_id", "sls", "name", "recurse"] {
        if e.get(key) != g.get(key) {
            return Some(format!("{key}: Salt {:?}, ours {:?}", e.get(key), g.get(key)));
        }
    }
    match (e.get("error"), g.get("error")) {
        (Some(ee), Some(ge)) => {
            let ee = ee.as_str().unwrap_or_default();
            let ge = ge.as_str().unwrap_or_default();
            // The oracle names itself where we name lowstate.
            let ee = ee.replace("salt-file-render has no network", "lowstate has no network");
            let host = ["Traceback", "<TMP>", "<SITE>", "<STDLIB>", "<CASE>"];
            if host.iter().any(|h| ee.contains(h)) || ee == ge {
                return None;
            }
            return Some(format!("error:\n  Salt: {ee:?}\n  ours: {ge:?}"));
        }
        (Some(ee), None) => return Some(format!("Salt fails ({ee}), ours renders")),
        (None, Some(ge)) => return Some(format!("ours fails ({ge}), Salt renders")),
        (None, None) => {}
    }
    for key in ["source", "template", "binary", "sha256", "content"] {
        if e.get(key) != g.get(key) {
            if key == "content" {
                let es = e.get(key).and_then(|v| v.as_str()).unwrap_or_default();
                let gs = g.get(key).and_then(|v| v.as_str()).unwrap_or_default();
                let at = es
                    .char_indices()
                    .zip(gs.chars())
                    .find(|((_, a), b)| a != b)
                    .map_or(es.len().min(gs.len()), |((i, _), _)| i);
                let from = es[..at].rfind('\n').map_or(0, |i| i + 1);
                let cut = |s: &str| s.get(from..).unwrap_or("").chars().take(160).collect::<String>();
                return Some(format!(
                    "content differs at byte {at}:\n  Salt: {:?}\n  ours: {:?}",
                    cut(es),
                    cut(gs)
                ));
            }
            return Some(format!("{key}: Salt {:?}, ours {:?}", e.get(key), g.get(key)));
        }
    }
    None
}
