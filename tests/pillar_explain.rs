//! `lowstate pillar --explain`: provenance of pillar values on trees of
//! Salt 3008.5's pillar-merge cases (`tests/data/salt-3008.5-pillar-merge.json`),
//! with the expected winner and losers written by hand from the layer order
//! (top file order, includes before the including SLS unless
//! `pillar_includes_override_sls`, `--pillar` last).

mod common;

use std::path::Path;
use std::process::Command;

fn case_dir(id: &str) -> std::path::PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/data/salt-3008.5-pillar-merge.json")).unwrap(),
    )
    .unwrap();
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir =
        std::env::temp_dir().join(format!("lowstate-explain-{id}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    common::pillar_case(&data["cases"][id], &dir);
    dir
}

/// `--explain-format json` of a case (the whole pillar, or `--explain=PATH`
/// when `extra` starts with a path).
fn explain(id: &str, extra: &[&str]) -> serde_json::Value {
    let (explain, extra) = match extra.first() {
        Some(p) if !p.starts_with('-') => (format!("--explain={p}"), &extra[1..]),
        _ => ("--explain".to_string(), extra),
    };
    let dir = case_dir(id);
    let out = Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .args(["pillar", "-c"])
        .arg(&dir)
        .arg(explain)
        .args(["--explain-format", "json"])
        .args(extra)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn leaf<'a>(doc: &'a serde_json::Value, path: &str) -> &'a serde_json::Value {
    common::explain_leaf(doc, path)
}

/// The file name (and line) an origin points at, without the directory.
fn short(origin: &serde_json::Value) -> String {
    let o = origin.as_str().unwrap();
    o.rsplit('/').next().unwrap().to_string()
}

fn story(doc: &serde_json::Value, path: &str) -> (String, Vec<String>) {
    let l = leaf(doc, path);
    let from = if l["from"].is_null() {
        "-".to_string()
    } else {
        short(&l["from"]["origin"])
    };
    let overrode = l["overrode"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| short(&w["origin"]))
        .collect();
    (from, overrode)
}

#[test]
fn later_sls_wins_and_names_what_it_overrode() {
    let doc = explain("smart", &[]);
    assert_eq!(
        story(&doc, "common:nested:over"),
        ("b.sls:3:18".into(), vec!["a.sls:3:27".into()])
    );
    assert_eq!(
        story(&doc, "common:nested:keep"),
        ("a.sls:3:18".into(), vec![])
    );
    assert_eq!(
        story(&doc, "common:lst"),
        ("b.sls:4:8".into(), vec!["a.sls:4:8".into()])
    );
    let dropped = &doc["dropped"][0];
    assert_eq!(dropped["path"], "common:scalar_vs_map");
    assert_eq!(short(&dropped["origin"]), "a.sls:5:18");
    assert!(dropped["reason"]
        .as_str()
        .unwrap()
        .starts_with("type changed scalar→map"));
    // Layers in merge order, with the resolved rule.
    let layers: Vec<&str> = doc["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["rule"].as_str().unwrap())
        .collect();
    assert_eq!(layers, ["recurse (smart)", "recurse (smart)"]);
}

#[test]
fn top_file_order_decides() {
    let doc = explain("order_swapped", &[]);
    assert_eq!(story(&doc, "common:nested:over").0, "a.sls:3:27");
}

#[test]
fn the_including_sls_wins_unless_includes_override() {
    let doc = explain("include", &[]);
    let (from, overrode) = story(&doc, "k");
    assert!(from.starts_with("c.sls"), "{from}");
    assert!(overrode[0].starts_with("d.sls"), "{overrode:?}");
    let doc = explain("include_override", &[]);
    let (from, overrode) = story(&doc, "k");
    assert!(from.starts_with("d.sls"), "{from}");
    assert!(overrode[0].starts_with("c.sls"), "{overrode:?}");
}

#[test]
fn the_pillar_override_comes_last() {
    let doc = explain(
        "cli_override",
        &["--pillar", r#"{"common": {"nested": {"over": "cli"}}}"#],
    );
    let l = leaf(&doc, "common:nested:over");
    assert_eq!(l["from"]["origin"], "cli:--pillar");
    assert_eq!(
        story(&doc, "common:nested:over").1,
        ["b.sls:3:18", "a.sls:3:27"]
    );
}

#[test]
fn merged_lists_list_their_contributions() {
    let doc = explain("merge_lists", &[]);
    let l = leaf(&doc, "common:lst");
    assert!(l["from"].is_null());
    let parts: Vec<String> = l["contributions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| short(&w["origin"]))
        .collect();
    assert_eq!(parts, ["a.sls:4:8", "b.sls:4:8"]);
}

#[test]
fn a_path_narrows_the_explanation() {
    let doc = explain("smart", &["common:nested"]);
    let paths: Vec<&str> = doc["leaves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["common:nested:keep", "common:nested:over"]);
}

/// A planted secret (a path in `lowstate_secret_pillar`) is not printed by
/// `pillar` or `pillar --explain`, masked or `--unmask`ed, human or JSON,
/// and neither is a falsy secret's value.
#[test]
fn secret_pillar_paths_never_print() {
    let dir = std::env::temp_dir().join(format!("lowstate-secret-pillar-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("p")).unwrap();
    std::fs::create_dir_all(dir.join("states")).unwrap();
    std::fs::write(
        dir.join("minion"),
        "id: m\nfile_roots: {base: [states]}\npillar_roots: {base: [p]}\nlowstate_secret_pillar: ['*:password', 'vault']\n",
    )
    .unwrap();
    std::fs::write(dir.join("p/top.sls"), "base:\n  '*':\n    - a\n    - b\n").unwrap();
    std::fs::write(
        dir.join("p/a.sls"),
        "db:\n  user: app\n  password: Hunter2-planted\nvault: {token: S3cr3t-token, empty: ''}\n",
    )
    .unwrap();
    std::fs::write(dir.join("p/b.sls"), "db:\n  password: Second-planted\n").unwrap();
    let d = dir.to_str().unwrap();
    let mut scanned = 0;
    for extra in [
        &[][..],
        &["--unmask"][..],
        &["--explain"][..],
        &["--explain", "--unmask"][..],
        &["--explain", "--unmask", "--explain-format", "json"][..],
        &["--explain=db:password", "--unmask"][..],
        &["--format", "yaml", "--unmask"][..],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_lowstate"))
            .args(["pillar", "-c", d])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success());
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        for secret in ["Hunter2-planted", "Second-planted", "S3cr3t-token"] {
            assert!(
                !all.contains(secret),
                "`pillar {extra:?}` printed {secret}:\n{all}"
            );
        }
        assert!(all.contains("<redacted>"), "{extra:?}: {all}");
        scanned += 1;
    }
    assert_eq!(scanned, 7);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A silent type change (Salt's merge replaces a scalar by a map) is a
/// warning with `--explain`.
#[test]
fn a_silent_type_change_is_a_warning() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/data/salt-3008.5-pillar-merge.json")).unwrap(),
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("lowstate-explain-warn-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    common::pillar_case(&data["cases"]["smart"], &dir);
    let out = Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .args(["pillar", "-c", ".", "--explain", "common:scalar_vs_map"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success());
    insta::assert_snapshot!("explain-type-change", String::from_utf8_lossy(&out.stderr));
}
