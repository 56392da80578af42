//! Runs the simulator on every corpus case that has `expected/runorder.json`
//! and compares with what Salt 3008.5's `state.apply` reported (as JSON
//! values; array order significant).
//!
//! `from_highstate` runs Salt's high data through our high → low stages
//! (`high_to_lowstate`, the requisite graph) and then the simulator;
//! `from_expected_lowstate` feeds Salt's own lowstate into the simulator, so
//! it tests the executor alone.

mod common;

use lowstate::salt::config::{Config, SaltVersion};
use lowstate::salt::graph::ChunkGraph;
use lowstate::salt::high::SourceMap;
use lowstate::salt::low::LowOptions;
use lowstate::salt::pipeline::high_to_lowstate;
use lowstate::salt::simulate::{simulate, Assumptions, RunResult, NO_TOP_MATCH};
use lowstate::Value;
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn read_json(p: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(p).ok()?;
    let j: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some(Value::from_json(&j))
}

/// The minion's global `failhard` (a plain `failhard: True` line).
fn global_failhard(case: &Path) -> bool {
    std::fs::read_to_string(case.join("minion"))
        .map(|t| {
            t.lines().any(|l| {
                let l = l.trim();
                l.strip_prefix("failhard:")
                    .is_some_and(|v| matches!(v.trim(), "True" | "true" | "yes" | "on"))
            })
        })
        .unwrap_or(false)
}

/// Cases with a runorder whose highstate is a map.
fn runorder_cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(corpus())
        .expect("corpus dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected/runorder.json").is_file())
        .filter(|p| {
            matches!(
                read_json(&p.join("expected/highstate.json")),
                Some(Value::Map(_))
            )
        })
        .collect();
    cases.sort();
    cases
}

fn diff(case: &Path, got: &Value, want: &Value) -> String {
    format!(
        "{}\n--- want\n{}\n--- got\n{}",
        case.display(),
        want.to_json_pretty(),
        got.to_json_pretty()
    )
}

#[test]
fn from_expected_lowstate() {
    let (mut pass, mut skipped) = (0, 0);
    let mut fails = Vec::new();
    let cases = runorder_cases();
    for case in &cases {
        let want = read_json(&case.join("expected/runorder.json")).expect("runorder.json");
        let got = match read_json(&case.join("expected/lowstate.json")) {
            // No top match (109) and a top file that failed to render (121).
            Some(Value::List(low)) if low.is_empty() => {
                RunResult::no_states(NO_TOP_MATCH).to_value()
            }
            Some(Value::List(low)) if low.iter().all(|c| matches!(c, Value::Map(_))) => {
                match ChunkGraph::from_lowstate(&low) {
                    Ok(g) => simulate(&g, &Assumptions::new(), global_failhard(case)).to_value(),
                    Err(e) => RunResult::from_errors(vec![e.message]).to_value(),
                }
            }
            // Salt's compile errors: state.apply returns the same list.
            Some(errors @ Value::List(_)) => errors,
            // 122: Salt's show_lowstate crashed, there is no lowstate.json.
            _ => {
                skipped += 1;
                continue;
            }
        };
        if got == want {
            pass += 1;
        } else {
            fails.push(diff(case, &got, &want));
        }
    }
    eprintln!(
        "simulate from expected lowstate: {pass}/{} passed, {skipped} without lowstate.json",
        cases.len()
    );
    assert!(
        fails.is_empty(),
        "{} failed:\n{}",
        fails.len(),
        fails.join("\n\n")
    );
}

/// highstate → high_to_lowstate → ChunkGraph → simulate, or the errors.
fn run_from_highstate(case: &Path) -> Result<Value, String> {
    let config = common::oracle_config(case).map_err(|m| format!("config: {m}"))?;
    let Some(Value::Map(high)) = read_json(&case.join("expected/highstate.json")) else {
        return Err("highstate.json is not a map".into());
    };
    if high.is_empty() {
        // Nothing matched (109) or the top file failed to render (121).
        return Ok(RunResult::no_states(NO_TOP_MATCH).to_value());
    }
    let opts = LowOptions::from_config(&config, SaltVersion::V3008);
    let result = match high_to_lowstate(high, &opts, &SourceMap::default()) {
        Ok(low) => {
            let g = ChunkGraph::from_ordered(&low).map_err(|e| e.message)?;
            simulate(&g, &Assumptions::new(), config.failhard)
        }
        Err(diags) => RunResult::from_errors(diags.into_iter().map(|d| d.message).collect()),
    };
    Ok(result.to_value())
}

#[test]
fn from_highstate() {
    let mut pass = 0;
    let mut fails = Vec::new();
    let cases = runorder_cases();
    for case in &cases {
        let want = read_json(&case.join("expected/runorder.json")).expect("runorder.json");
        match run_from_highstate(case) {
            Ok(got) if got == want => pass += 1,
            Ok(got) => fails.push(diff(case, &got, &want)),
            Err(e) => fails.push(format!("{}: {e}", case.display())),
        }
    }
    eprintln!("simulate from highstate: {pass}/{} passed", cases.len());
    assert!(
        fails.is_empty(),
        "{} failed:\n{}",
        fails.len(),
        fails.join("\n\n")
    );
}

/// Every renderer runs on every corpus lowstate; the graph built from the
/// compiler's requisite graph lists the same nodes in the same order as the
/// one rebuilt from Salt's lowstate.
#[test]
fn renderers_on_every_lowstate() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(corpus())
        .expect("corpus dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    cases.sort();
    let mut rendered = 0;
    let mut mismatches = Vec::new();
    for case in &cases {
        let Some(Value::List(low)) = read_json(&case.join("expected/lowstate.json")) else {
            continue;
        };
        if !low.iter().all(|c| matches!(c, Value::Map(_))) {
            continue;
        }
        let Ok(g) = ChunkGraph::from_lowstate(&low) else {
            continue;
        };
        let json = lowstate::plan::to_json_document(&g.to_plan());
        assert_eq!(json.get("version"), Some(&Value::Int(1)));
        assert!(lowstate::plan::to_dot(&g.to_plan()).starts_with("digraph"));
        assert!(lowstate::plan::to_mermaid(&g.to_plan()).starts_with("flowchart"));
        assert!(lowstate::plan::to_html(&g.to_plan()).contains("id=\"plan-data\""));
        let report = lowstate::salt::report::order_report(&g, None, false);
        assert!(report.lines().count() > g.order.len());
        rendered += 1;
        // Cross-check the adapter over the compiler's graph.
        let Ok(config) = Config::load(case) else {
            continue;
        };
        let Some(Value::Map(high)) = read_json(&case.join("expected/highstate.json")) else {
            continue;
        };
        let opts = LowOptions::from_config(&config, SaltVersion::V3008);
        if let Ok(ordered) = high_to_lowstate(high, &opts, &SourceMap::default()) {
            let ours = ChunkGraph::from_ordered(&ordered).expect("adapter");
            let tags = |g: &ChunkGraph| g.order.iter().map(|&n| g.node_tag(n)).collect::<Vec<_>>();
            let edges = |g: &ChunkGraph| {
                let mut v: Vec<(String, String, String)> = g
                    .edges
                    .iter()
                    .map(|e| (g.node_tag(e.from), g.node_tag(e.to), e.kind.to_string()))
                    .collect();
                v.sort();
                v
            };
            if tags(&ours) != tags(&g) || edges(&ours) != edges(&g) {
                mismatches.push(case.display().to_string());
            }
        }
    }
    eprintln!("rendered {rendered} lowstates; adapter mismatches: {mismatches:?}");
    assert!(rendered > 80);
    assert!(mismatches.is_empty(), "{mismatches:?}");
}
