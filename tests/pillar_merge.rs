//! Salt 3008.5's pillar merging, case by case: every case of
//! `tests/data/salt-3008.5-pillar-merge.json` (36 pillar trees run through
//! `salt-call pillar.items` with their options) is compiled by lowstate and
//! must print Salt's answer. The cases lowstate does not match yet are in
//! [`KNOWN`], each with its reason; the test fails when one of them starts
//! to match (take it off the list) or another stops matching.

mod common;

use std::path::Path;
use std::process::Command;

/// Cases not matched yet, and why.
const KNOWN: &[(&str, &str)] = &[
    ("pillar_opts", "pillar_opts: Salt adds the master's whole config under `master`; lowstate has no master config"),
];

#[test]
fn pillar_merge_cases_of_salt_3008_5() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/data/salt-3008.5-pillar-merge.json")).unwrap(),
    )
    .unwrap();
    let cases = data["cases"].as_object().unwrap();
    let tmp = std::env::temp_dir().join(format!("lowstate-pillar-merge-{}", std::process::id()));
    let mut matched = 0;
    let mut problems = Vec::new();
    for (id, case) in cases {
        let inputs = &case["inputs"];
        let dir = tmp.join(id);
        common::pillar_case(case, &dir);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_lowstate"));
        cmd.args(["pillar", "--unmask", "--run-ext-pillar", "-c"])
            .arg(&dir);
        // `pillarenv=ENV` given to salt-call is lowstate's `--pillarenv ENV`.
        for arg in inputs["extra_args"].as_array().into_iter().flatten() {
            let (k, v) = arg.as_str().unwrap().split_once('=').unwrap();
            cmd.arg(format!("--{k}")).arg(v);
        }
        if let Some(p) = inputs.get("cli_pillar") {
            cmd.args(["--pillar", &p.to_string()]);
        }
        let out = cmd.output().unwrap();
        let ours: Option<serde_json::Value> = serde_json::from_slice(&out.stdout).ok();
        let same = ours.as_ref() == Some(&case["out"]);
        let known = KNOWN.iter().find(|(k, _)| k == id);
        match (same, known) {
            (true, None) => matched += 1,
            (true, Some(_)) => problems.push(format!("{id}: matches Salt now; take it off KNOWN")),
            (false, Some(_)) => {}
            (false, None) => problems.push(format!(
                "{id} ({}):\n  Salt:     {}\n  lowstate: {}\n  {}",
                case["desc"].as_str().unwrap_or(""),
                case["out"],
                ours.map(|v| v.to_string()).unwrap_or_default(),
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .next()
                    .unwrap_or("")
            )),
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    println!(
        "{matched} of {} pillar-merge cases equal Salt's answer",
        cases.len()
    );
    assert_eq!(cases.len(), 36);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
