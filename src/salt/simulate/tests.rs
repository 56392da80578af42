//! Simulator tests: small lowstates run through `simulate_with`.

use super::*;
use crate::salt::graph::tests::low;

/// A chunk as JSON: `c("a", "nop", "")` or with extra keys.
fn c(id: &str, fun: &str, extra: &str) -> String {
    c_in("test", id, fun, extra)
}

fn c_in(state: &str, id: &str, fun: &str, extra: &str) -> String {
    let sep = if extra.is_empty() { "" } else { "," };
    format!(
        r#"{{"state":"{state}","name":"{id}","__sls__":"s","__env__":"base","__id__":"{id}"{sep}{extra},"order":1,"fun":"{fun}"}}"#
    )
}

fn run(chunks: &[String], assume: &Assumptions, failhard: bool) -> RunResult {
    let l = low(&format!("[{}]", chunks.join(",")));
    let g = ChunkGraph::from_lowstate(&l).expect("graph");
    simulate(&g, assume, failhard)
}

fn rows(r: &RunResult) -> Vec<(String, Option<u64>, Value, bool, bool, String)> {
    r.states
        .iter()
        .map(|s| {
            (
                s.id.clone(),
                s.run_num,
                s.result.clone(),
                s.changes,
                s.ran,
                s.comment.py_str(),
            )
        })
        .collect()
}

fn row(
    id: &str,
    n: u64,
    result: Value,
    changes: bool,
    ran: bool,
    comment: &str,
) -> (String, Option<u64>, Value, bool, bool, String) {
    (id.into(), Some(n), result, changes, ran, comment.into())
}

const T: Value = Value::Bool(true);
const F: Value = Value::Bool(false);

#[test]
fn failure_propagates_with_salts_comment() {
    let r = run(
        &[
            c("a", "fail_without_changes", ""),
            c("b", "nop", r#""require":[{"test":"a"}]"#),
            c("d", "nop", r#""require":["b"]"#),
        ],
        &Assumptions::new(),
        false,
    );
    assert_eq!(
        rows(&r),
        vec![
            row("a", 0, F, false, true, "Failure!"),
            row("b", 1, F, false, false, "One or more requisite failed: s.a"),
            row("d", 2, F, false, false, "One or more requisite failed: s.b"),
        ]
    );
}

#[test]
fn watch_fires_mod_watch_with_two_run_numbers() {
    let r = run(
        &[
            c("src", "succeed_with_changes", ""),
            c(
                "w",
                "succeed_without_changes",
                r#""watch":[{"test":"src"}]"#,
            ),
            c("after", "nop", ""),
        ],
        &Assumptions::new(),
        false,
    );
    assert_eq!(
        rows(&r),
        vec![
            row("src", 0, T, true, true, "Success!"),
            row("w", 2, T, true, true, "Watch statement fired."),
            row("after", 3, T, false, true, "Success!"),
        ]
    );
    assert_eq!(r.states[1].kind, RunKind::ModWatch);
}

#[test]
fn prereq_runs_only_when_target_would_change() {
    let r = run(
        &[
            c("t", "succeed_without_changes", r#""__prereq__":true"#),
            c(
                "p",
                "succeed_with_changes",
                r#""prereq":[{"test":"t"}],"__prerequiring__":true"#,
            ),
            c("t", "succeed_without_changes", r#""__prereq__":true"#),
        ],
        &Assumptions::new(),
        false,
    );
    assert_eq!(
        rows(&r),
        vec![
            row("p", 0, T, false, false, "No changes detected"),
            row("t", 1, T, false, true, "Success!"),
        ]
    );
}

#[test]
fn failhard_per_state_overrides_global() {
    let chunks = [
        c("a", "fail_without_changes", r#""failhard":false"#),
        c("b", "fail_without_changes", ""),
        c("d", "nop", ""),
    ];
    let r = run(&chunks, &Assumptions::new(), true);
    assert_eq!(
        r.states.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
        vec!["a", "b"]
    );
    assert!(r.failhard_stop);
    let r = run(&chunks, &Assumptions::new(), false);
    assert_eq!(r.states.len(), 3);
    assert!(!r.failhard_stop);
}

#[test]
fn assumptions_drive_other_modules() {
    let a = Assumptions::from_text(
        r#"{"nginx": {"changes": false}, "broken*": {"result": false, "comment": "nope"}}"#,
    )
    .unwrap();
    let r = run(
        &[
            c_in("pkg", "nginx", "installed", ""),
            c_in("file", "broken-cfg", "managed", ""),
            c_in("service", "svc", "running", r#""watch":[{"pkg":"nginx"}]"#),
            c_in(
                "file",
                "other",
                "managed",
                r#""onchanges":[{"file":"broken-cfg"}]"#,
            ),
        ],
        &a,
        false,
    );
    assert_eq!(
        rows(&r),
        vec![
            row(
                "nginx",
                0,
                T,
                false,
                true,
                "Assumed: succeeds without changes"
            ),
            row("broken-cfg", 1, F, true, true, "nope"),
            row("svc", 2, T, true, true, "Assumed: succeeds with changes"),
            row(
                "other",
                3,
                T,
                false,
                false,
                "State was not run because none of the onchanges reqs changed"
            ),
        ]
    );
}

#[test]
fn listen_fires_after_the_run_and_reports_missing_targets() {
    let r = run(
        &[
            c("l", "nop", r#""listen":[{"test":"src"}, {"test":"ghost"}]"#),
            c("src", "succeed_with_changes", ""),
            c_in("file", "f", "managed", r#""listen":[{"test":"src"}]"#),
        ],
        &Assumptions::new(),
        false,
    );
    let got: Vec<(String, String, String, Option<u64>, String)> = r
        .states
        .iter()
        .map(|s| {
            (
                s.id.clone(),
                s.state.clone(),
                s.fun.clone(),
                s.run_num,
                s.comment.py_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "l".into(),
                "test".into(),
                "nop".into(),
                Some(0),
                "Success!".into()
            ),
            (
                "src".into(),
                "test".into(),
                "succeed_with_changes".into(),
                Some(1),
                "Success!".into()
            ),
            (
                "f".into(),
                "file".into(),
                "managed".into(),
                Some(2),
                "Assumed: succeeds with changes".into()
            ),
            (
                "listener_l".into(),
                "test".into(),
                "mod_watch".into(),
                Some(3),
                "Watch statement fired.".into()
            ),
            // file has no mod_watch: Salt's verify error, ID from the tag.
            (
                "listener_f".into(),
                "file".into(),
                "mod_watch".into(),
                Some(4),
                "State 'file.mod_watch' was not found in SLS 's'\n".into()
            ),
            (
                "listen_ghost".into(),
                "Listen_Error".into(),
                "Listen_Error".into(),
                Some(5),
                "Referenced state test: ghost does not exist".into()
            ),
        ]
    );
}

#[test]
fn onfail_any_all_and_onchanges_any() {
    let r = run(
        &[
            c("ok", "succeed_without_changes", ""),
            c("bad", "fail_with_changes", ""),
            c("any", "nop", r#""onfail_any":["ok","bad"]"#),
            c("all", "nop", r#""onfail_all":["ok","bad"]"#),
            c("ch", "nop", r#""onchanges_any":["ok","bad"]"#),
        ],
        &Assumptions::new(),
        false,
    );
    let comments: Vec<String> = r.states.iter().map(|s| s.comment.py_str()).collect();
    assert_eq!(
        comments,
        vec![
            "Success!",
            "Failure!",
            "Success!",
            "State was not run because onfail req did not change",
            "State was not run because none of the onchanges reqs changed",
        ]
    );
}

#[test]
fn unknown_test_function_is_a_verify_error() {
    let r = run(&[c("x", "bogus", "")], &Assumptions::new(), false);
    assert_eq!(
        r.states[0].comment,
        Value::str("State 'test.bogus' was not found in SLS 's'\n")
    );
    assert_eq!(r.states[0].result, F);
    assert_eq!(r.states[0].kind, RunKind::Error);
}

#[test]
fn documents_and_lists() {
    let r = run(&[c("a", "nop", "")], &Assumptions::new(), false);
    let doc = r.to_document();
    assert_eq!(doc.get("version"), Some(&Value::Int(1)));
    assert_eq!(
        doc.get("states").and_then(Value::as_list).map(|l| l.len()),
        Some(1)
    );
    let list = r.to_value();
    assert_eq!(list.as_list().map(|l| l.len()), Some(1));
    let e = RunResult::from_errors(vec!["boom".into()]).to_value();
    assert_eq!(e, Value::List(crate::value::list![Value::str("boom")]));
    let n = RunResult::no_states(NO_TOP_MATCH).to_value();
    assert_eq!(
        n.as_list().and_then(|l| l[0].get("id")),
        Some(&Value::str("states"))
    );
}

/// A requisite cycle the 3006 compile lets through (it checks only direct
/// pairs) fails its states instead of recursing without end.
#[test]
fn a_long_requisite_cycle_fails_instead_of_overflowing() {
    let chunks = vec![
        c("a", "nop", r#""require":[{"test":"b"}]"#),
        c("b", "nop", r#""require":[{"test":"c"}]"#),
        c("c", "nop", r#""require":[{"test":"a"}]"#),
    ];
    let r = run(&chunks, &Assumptions::new(), false);
    assert_eq!(r.states.len(), 3);
    assert!(r.states.iter().all(|s| s.result == Value::Bool(false)));
}

/// A chain deeper than Salt's recursion reaches ends in "Recursive
/// requisite found" at the cap, not a stack overflow.
#[test]
fn a_very_long_unmet_chain_stops_at_the_nesting_cap() {
    let n = 1000;
    let chunks: Vec<String> = (0..n)
        .map(|i| {
            if i + 1 < n {
                c(
                    &format!("s{i}"),
                    "nop",
                    &format!(r#""require":[{{"test":"s{}"}}]"#, i + 1),
                )
            } else {
                c(&format!("s{i}"), "nop", "")
            }
        })
        .collect();
    let r = run(&chunks, &Assumptions::new(), false);
    assert!(r
        .states
        .iter()
        .any(|s| s.comment.py_str() == "Recursive requisite found"));
}
