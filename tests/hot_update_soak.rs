//! A soak test of `--nested` and `--diff-from` over every HOT corpus case:
//! each compiles with `--nested` without a panic; a stack previewed as an
//! update of itself changes nothing (no resource added, deleted or
//! replaced; only stack resources, which Heat always updates, may be
//! updated); and each case previewed against the next one gives a
//! document whatever the two hold.

use lowstate::hot::{self, update};
use lowstate::value::Value;
use std::path::{Path, PathBuf};

#[path = "corpus_hot.rs"]
#[allow(dead_code)]
mod corpus_hot;

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut out = Vec::new();
    for dir in ["corpus-hot", "corpus-hot-extra", "corpus-hot-nested"] {
        let mut cases: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        cases.sort();
        out.extend(cases);
    }
    out
}

#[test]
fn every_case_previewed_against_itself_changes_nothing() {
    let cases = cases();
    assert!(cases.len() > 100, "{} cases", cases.len());
    let mut previewed = 0;
    for case in &cases {
        let (mut input, _) = corpus_hot::input_of(case);
        input.nested = true;
        let compiled = hot::compile(&input);
        if !compiled.ok() {
            continue;
        }
        let p = update::preview(&input, &input);
        let doc = &p.document;
        assert!(p.ok(), "{}: {:?}", case.display(), p.diagnostics);
        for key in ["added", "deleted", "replaced"] {
            let n = doc.get(key).and_then(Value::as_list).map_or(0, |l| l.len());
            assert_eq!(n, 0, "{}: {key} {}", case.display(), doc.to_json_pretty());
        }
        for e in doc
            .get("updated")
            .and_then(Value::as_list)
            .into_iter()
            .flatten()
        {
            let kind = e
                .get("reason")
                .and_then(|r| r.get("kind"))
                .and_then(Value::as_str);
            assert_eq!(
                kind,
                Some("nested_stack"),
                "{}: {}",
                case.display(),
                doc.to_json_pretty()
            );
        }
        previewed += 1;
    }
    assert!(previewed > 60, "{previewed} previewed");
}

#[test]
fn every_case_previewed_against_the_next_gives_a_document() {
    let cases = cases();
    for pair in cases.windows(2) {
        let (mut old, _) = corpus_hot::input_of(&pair[0]);
        let (mut new, _) = corpus_hot::input_of(&pair[1]);
        old.nested = true;
        new.nested = true;
        let p = update::preview(&old, &new);
        assert_eq!(
            p.document.get("ok"),
            Some(&Value::Bool(p.ok())),
            "{}",
            pair[1].display()
        );
    }
}
