//! The `lowstate check --hot` corpus (`tests/check-hot/NNN-name/`): each
//! case is a `template.yaml` (and an optional `env.yaml`) and an
//! `expected.txt` with one line per diagnostic of
//! `lowstate::hot::check::check`, `severity code resource message`, in
//! order (an empty file: the template checks clean). On failure the test
//! names the case and its first differing line.

use lowstate::diag::SourceFile;
use lowstate::hot::{self, Input, RESOURCE};
use std::path::{Path, PathBuf};

fn source(path: &Path, name: &str) -> std::sync::Arc<SourceFile> {
    SourceFile::new(
        name.to_string(),
        std::fs::read_to_string(path).unwrap_or_default(),
    )
}

/// The diagnostics of one case, one line each.
fn run_case(case: &Path) -> Vec<String> {
    let env = case.join("env.yaml");
    let input = Input {
        template: Some(source(&case.join("template.yaml"), "template.yaml")),
        environments: if env.is_file() {
            vec![source(&env, "env.yaml")]
        } else {
            Vec::new()
        },
        files_dir: Some(case.to_path_buf()),
        ..Input::default()
    };
    hot::check::check(&input)
        .iter()
        .map(|d| {
            format!(
                "{} {} {} {}",
                d.severity.word(),
                d.code.name,
                d.subject(RESOURCE).unwrap_or("-"),
                d.message
            )
        })
        .collect()
}

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/check-hot");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/check-hot")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

/// The first line where `got` differs from `want`.
fn first_difference(want: &[String], got: &[String]) -> Option<String> {
    for i in 0..want.len().max(got.len()) {
        let (w, g) = (want.get(i), got.get(i));
        if w != g {
            return Some(format!(
                "line {}:\n  expected: {}\n  got:      {}",
                i + 1,
                w.map_or("<no more lines>", String::as_str),
                g.map_or("<no more lines>", String::as_str)
            ));
        }
    }
    None
}

#[test]
fn every_case_gives_its_expected_findings() {
    let cases = cases();
    assert!(cases.len() >= 30, "only {} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let want: Vec<String> = std::fs::read_to_string(case.join("expected.txt"))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect();
        let got = run_case(case);
        if let Some(d) = first_difference(&want, &got) {
            failures.push(format!(
                "{}: {d}\n  all lines got:\n    {}",
                case.file_name().unwrap_or_default().to_string_lossy(),
                got.join("\n    ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
