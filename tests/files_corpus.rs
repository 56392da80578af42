//! The rendered-files corpus: one trial per case under `tests/files-corpus/`
//! (a case as in `tests/corpus`: `minion`, `salt/`, `pillar/`), comparing
//! what `lowstate files` renders with `expected/files.json`, written by
//! Salt 3008.5's own `file.managed` (the `salt-file-render` oracle). Every
//! entry must match: name, source, template, sha256 and content byte for
//! byte, and errors where Salt has errors (Salt's message exactly, except
//! where it embeds a Python traceback or a host path). Cases listed in
//! `tests/files-corpus-known-failures.txt` must still fail.

mod common;

use common::known_failures;
use libtest_mimic::{Arguments, Failed, Trial};
use lowstate::salt::config::Config;
use lowstate::salt::pipeline::{Options, Session};
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
    trials.push(Trial::test("files-corpus/soak", {
        let cases = cases.clone();
        move || soak(&cases)
    }));
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

/// Soak: every synthetic case again with each of its templates and its SLS
/// cut short at a few points (unclosed blocks, half expressions, broken
/// YAML): each managed file must still render to bytes or to an error
/// entry with a message, never a panic (`salt::fuzzing::check_files`, the
/// `salt_files` fuzz target's check).
fn soak(cases: &[PathBuf]) -> Result<(), Failed> {
    let scratch = std::env::temp_dir().join(format!("lowstate-files-soak-{}", std::process::id()));
    let mut runs = 0;
    for case in cases.iter().filter(|c| {
        c.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('s'))
    }) {
        let mut texts = Vec::new();
        collect(&case.join("salt"), &mut texts);
        for file in texts {
            let Ok(bytes) = std::fs::read(&file) else {
                continue;
            };
            for cut in [bytes.len() / 2, bytes.len().saturating_sub(1)] {
                let _ = std::fs::remove_dir_all(&scratch);
                copy_tree(case, &scratch).map_err(|e| format!("copy: {e}"))?;
                let rel = file.strip_prefix(case).unwrap();
                std::fs::write(scratch.join(rel), &bytes[..cut]).map_err(|e| e.to_string())?;
                let config = Config::load(&scratch).map_err(|d| d.message)?;
                let session = Session::new(config, Options::default());
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    lowstate::salt::fuzzing::check_files(&session)
                }));
                match outcome {
                    Ok(Ok(())) => runs += 1,
                    Ok(Err(e)) => {
                        return Err(format!("{} cut at {cut}: {e}", file.display()).into())
                    }
                    Err(_) => {
                        return Err(format!("{} cut at {cut}: panicked", file.display()).into())
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    if runs < 50 {
        return Err(format!("only {runs} soak runs").into());
    }
    Ok(())
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.file_name().is_some_and(|n| n != "top.sls")
            && p.extension()
                .is_some_and(|x| x == "sls" || x == "j2" || x == "jinja")
        {
            out.push(p);
        }
    }
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)?.flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_tree(&e.path(), &target)?;
        } else {
            std::fs::copy(e.path(), target)?;
        }
    }
    Ok(())
}

fn run_case(case: &Path) -> Result<(), Failed> {
    let text = std::fs::read_to_string(case.join("expected/files.json"))
        .map_err(|e| format!("cannot read expected/files.json: {e}"))?;
    let expected: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("bad expected json: {e}"))?;
    let config = Config::load(case).map_err(|d| format!("config: {}", d.message))?;
    let session = Session::new(config, Options::default());
    let plan = match session.located_lowstate() {
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
    // Every rendered diagnostic is pinned (file names relative to the case).
    let diags: Vec<lowstate::Diagnostic> = files
        .iter()
        .filter_map(|f| f.content.as_ref().err().map(|e| e.diagnostic.clone()))
        .collect();
    if !diags.is_empty() {
        let rendered = format!(
            "{}---- json ----\n{}\n",
            lowstate::diag::render::human(&diags, false),
            lowstate::diag::render::json(&diags)
        )
        .replace(&format!("{}/", case.display()), "");
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        insta::with_settings!({
            snapshot_path => "snapshots/files-corpus",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(name, rendered);
        });
    }
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
            return Some(format!(
                "{key}: Salt {:?}, ours {:?}",
                e.get(key),
                g.get(key)
            ));
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
                let cut = |s: &str| {
                    s.get(from..)
                        .unwrap_or("")
                        .chars()
                        .take(160)
                        .collect::<String>()
                };
                return Some(format!(
                    "content differs at byte {at}:\n  Salt: {:?}\n  ours: {:?}",
                    cut(es),
                    cut(gs)
                ));
            }
            return Some(format!(
                "{key}: Salt {:?}, ours {:?}",
                e.get(key),
                g.get(key)
            ));
        }
    }
    None
}
