//! Corpus check for the high → low stages: for every case whose
//! `expected/highstate.json` is high data (a map) and that has
//! `expected/lowstate.json`, run `high_to_low` on the highstate and compare
//! with Salt's lowstate (chunks as JSON values, array order significant) or
//! with Salt's error strings.

mod common;

use common::first_difference;
use lowstate::salt::config::SaltVersion;
use lowstate::salt::high::SourceMap;
use lowstate::salt::low::LowOptions;
use lowstate::salt::pipeline::high_to_low;
use lowstate::value::Value;
use serde_json::Value as Json;
use std::path::{Path, PathBuf};

#[path = "common/large_tree.rs"]
mod large_tree;
use large_tree::large_tree;

/// Cases that cannot pass from `highstate.json` alone, with the reason.
const KNOWN_GAPS: &[(&str, &str)] = &[(
    "111-err-id-not-string",
    "the integer ID 123 became the string \"123\" in highstate.json",
)];

fn read_json(p: &Path) -> Option<Json> {
    let text = std::fs::read_to_string(p).ok()?;
    serde_json::from_str(&text).ok()
}

fn chunk_names(v: &Json) -> String {
    v.as_array()
        .map(|l| {
            l.iter()
                .map(|c| format!("{}:{}", c["__id__"].as_str().unwrap_or("?"), c["name"]))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

fn options_for(case: &Path) -> LowOptions {
    let mut opts = LowOptions::new(SaltVersion::V3008);
    // Minimal reading of the minion file (the YAML loader is another stage):
    // only `mod_watch: [a, b]` in flow style would matter here.
    if let Ok(text) = std::fs::read_to_string(case.join("minion")) {
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("mod_watch:") {
                let rest = rest.trim().trim_start_matches('[').trim_end_matches(']');
                opts.mod_watch.extend(
                    rest.split(',')
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty()),
                );
            }
        }
    }
    opts
}

fn run_case(case: &Path) -> Option<Result<(), String>> {
    let high = read_json(&case.join("expected/highstate.json"))?;
    let expected = read_json(&case.join("expected/lowstate.json"))?;
    if !high.is_object() {
        return None;
    }
    let Value::Map(high) = Value::from_json(&high) else {
        return None;
    };
    let result = high_to_low(high, &options_for(case), &SourceMap::default());
    let expected_errors = expected
        .as_array()
        .is_some_and(|l| l.first().is_some_and(Json::is_string));
    Some(match (result, expected_errors) {
        (Ok(chunks), false) => {
            let ours = Json::Array(
                chunks
                    .into_iter()
                    .map(|c| Value::Map(c).to_json())
                    .collect(),
            );
            match first_difference(&expected, &ours, "$") {
                None => Ok(()),
                Some(d) => Err(format!(
                    "{d}\n    ours:     {}\n    expected: {}",
                    chunk_names(&ours),
                    chunk_names(&expected)
                )),
            }
        }
        (Ok(_), true) => Err(format!("expected errors {expected}, got a lowstate")),
        (Err(errs), false) => Err(format!(
            "unexpected errors: {:?}",
            errs.iter().map(|d| &d.message).collect::<Vec<_>>()
        )),
        (Err(errs), true) => {
            let ours: Vec<Json> = errs
                .iter()
                .map(|d| Json::String(d.message.clone()))
                .collect();
            if Json::Array(ours.clone()) == expected {
                Ok(())
            } else {
                Err(format!(
                    "errors differ:\n    ours:     {ours:?}\n    expected: {expected}"
                ))
            }
        }
    })
}

#[test]
fn corpus_high_to_low() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/corpus exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    let (mut passed, mut failed, mut gaps) = (0, Vec::new(), 0);
    for case in &cases {
        let name = case
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let Some(outcome) = run_case(case) else {
            continue;
        };
        let gap = KNOWN_GAPS.iter().find(|(n, _)| *n == name);
        match (outcome, gap) {
            (Ok(()), None) => passed += 1,
            (Ok(()), Some(_)) => failed.push(format!("{name}: listed as a known gap but passes")),
            (Err(_), Some(_)) => gaps += 1,
            (Err(e), None) => failed.push(format!("{name}: {e}")),
        }
    }
    eprintln!(
        "high_to_low corpus: {passed} passed, {} failed, {gaps} known gaps",
        failed.len()
    );
    assert!(passed > 0, "no corpus case was run");
    assert!(
        failed.is_empty(),
        "{} cases failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

/// A large synthetic tree: 3 SLS files × N states with requires, watch,
/// require_in lists, `sls:` and glob requisites and `names` (see
/// [`large_tree`]). Its lowstate has every chunk (`names` expanded) and puts
/// each chunk after the states it requires or watches. How the compile
/// scales with N is measured by `benches/high_to_low.rs`, not here.
#[test]
fn large_tree_compiles_in_requisite_order() {
    const N: usize = 6000;
    let low = high_to_low(large_tree(N), &LowOptions::default(), &SourceMap::default())
        .expect("compiles");
    // Two IDs per file have two `names` each: one chunk more apiece.
    assert_eq!(low.len(), 3 * N + 6);
    let mut first = std::collections::HashMap::new();
    for (at, chunk) in low.iter().enumerate() {
        let id = chunk.get("__id__").and_then(Value::as_str).expect("__id__");
        first.entry(id.to_string()).or_insert(at);
    }
    let mut checked = 0;
    for (at, chunk) in low.iter().enumerate() {
        for kind in ["require", "watch"] {
            let Some(targets) = chunk.get(kind).and_then(Value::as_list) else {
                continue;
            };
            for t in targets.iter() {
                let target = match t {
                    Value::Map(m) => m.get("test").and_then(Value::as_str),
                    other => other.as_str(),
                };
                // `sls:` and glob targets name no single ID.
                let Some(&before) = target.and_then(|t| first.get(t)) else {
                    continue;
                };
                assert!(before < at, "{kind} {target:?} comes after chunk {at}");
                checked += 1;
            }
        }
    }
    assert!(checked > 3 * N, "only {checked} requisites checked");
}
