//! `lowstate fleet`: every minion's plan equals what `compile` prints for
//! that minion alone; failures name the minion and do not stop the others;
//! shards partition the fleet.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;

fn lowstate(dir: &Path, args: &[&str]) -> Output {
    common::lowstate_in(dir, args)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lowstate-fleet-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Twelve minions over the example tree's grain matches, as `salt '*'
/// grains.items --out=json` prints them (one pretty object per minion).
fn example_grains() -> Vec<(String, serde_json::Value)> {
    let oses = [
        ("Debian", "Debian"),
        ("CentOS", "RedHat"),
        ("Ubuntu", "Debian"),
    ];
    let roles: [&[&str]; 4] = [&["web"], &["app"], &["web", "app"], &[]];
    (0..12)
        .map(|i| {
            let id = format!("m{i:02}");
            let (os, family) = oses[i % 3];
            let g = serde_json::json!({
                "id": id, "os": os, "os_family": family, "kernel": "Linux",
                "roles": roles[i % 4], "ipv4": ["127.0.0.1", format!("10.0.0.{i}")],
            });
            (id, g)
        })
        .collect()
}

#[test]
fn every_minions_plan_equals_its_single_compile() {
    let d = temp("equal");
    let grains = example_grains();
    let stream: String = grains
        .iter()
        .map(|(id, g)| serde_json::to_string_pretty(&serde_json::json!({ id: g })).unwrap() + "\n")
        .collect();
    std::fs::write(d.join("grains.json"), stream).unwrap();
    let tree = root().join("state_tree");
    let tree = tree.to_str().unwrap();
    let out = lowstate(&d, &["fleet", "-c", tree, "--minions", "grains.json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), grains.len());
    let out_dir = lowstate(
        &d,
        &[
            "fleet",
            "-c",
            tree,
            "--minions",
            "grains.json",
            "-o",
            "plans",
        ],
    );
    assert_eq!(out_dir.status.code(), Some(0));
    assert!(out_dir.stdout.is_empty());
    let mut plans = std::collections::HashSet::new();
    for ((id, g), line) in grains.iter().zip(&lines) {
        let single = lowstate(
            &d,
            &[
                "compile",
                "-c",
                tree,
                "--id",
                id,
                "--grains",
                &g.to_string(),
            ],
        );
        assert_eq!(single.status.code(), Some(0));
        let want: serde_json::Value = serde_json::from_slice(&single.stdout).unwrap();
        assert_eq!(line["id"], serde_json::json!(id));
        assert_eq!(line["ok"], serde_json::json!(true));
        assert_eq!(line["lowstate"], want, "minion {id}");
        // The -o file is byte for byte what compile prints.
        let file = std::fs::read(d.join("plans").join(format!("{id}.json"))).unwrap();
        assert_eq!(file, single.stdout, "minion {id}");
        plans.insert(line["lowstate"].to_string());
    }
    assert!(plans.len() >= 3, "the grains should give different plans");
    let summary = String::from_utf8_lossy(&out.stderr);
    assert!(
        summary.contains("12 minions, 12 compiled, 0 failed"),
        "{summary}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_failing_minion_is_named_and_the_others_compile() {
    let d = temp("fail");
    std::fs::create_dir_all(d.join("tree/salt")).unwrap();
    std::fs::write(
        d.join("tree/minion"),
        "id: x\nfile_roots:\n  base: [salt]\n",
    )
    .unwrap();
    std::fs::write(d.join("tree/salt/top.sls"), "base:\n  '*':\n    - a\n").unwrap();
    std::fs::write(
        d.join("tree/salt/a.sls"),
        "{% if grains.get('broken') %}{{ raise('this minion is broken') }}{% endif %}\nx: {test.nop: []}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("minions.yaml"),
        "- id: good1\n  grains: {}\n- id: bad\n  grains: {broken: true}\n- id: good2\n  grains: {}\n  pillar: {k: v}\n",
    )
    .unwrap();
    let out = lowstate(&d, &["fleet", "-c", "tree", "--minions", "minions.yaml"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("minion bad failed"), "{err}");
    assert!(err.contains("this minion is broken"), "{err}");
    assert!(err.contains("3 minions, 2 compiled, 1 failed"), "{err}");
    let ids: Vec<(String, bool)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["id"].as_str().unwrap().to_string(),
                v["ok"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        ids,
        [
            ("bad".into(), false),
            ("good1".into(), true),
            ("good2".into(), true)
        ]
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn shards_partition_the_fleet() {
    let d = temp("shard");
    let grains = example_grains();
    let list: Vec<serde_json::Value> = grains
        .iter()
        .map(|(id, g)| serde_json::json!({"id": id, "grains": g}))
        .collect();
    std::fs::write(d.join("m.json"), serde_json::to_string(&list).unwrap()).unwrap();
    let tree = root().join("state_tree");
    let mut seen = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let out = lowstate(
            &d,
            &[
                "fleet",
                "-c",
                tree.to_str().unwrap(),
                "--minions",
                "m.json",
                "--shard",
                &shard,
                "-q",
            ],
        );
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stderr.is_empty(), "-q prints no summary");
        for l in String::from_utf8_lossy(&out.stdout).lines() {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            seen.push(v["id"].as_str().unwrap().to_string());
        }
    }
    seen.sort();
    let all: Vec<String> = grains.iter().map(|(id, _)| id.clone()).collect();
    assert_eq!(seen, all, "each minion in exactly one shard");
    let bad = lowstate(&d, &["fleet", "--minions", "m.json", "--shard", "4/3"]);
    assert_eq!(bad.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&d);
}

/// `--diff OLD`: per minion, the states a change adds and changes, and a
/// summary by SLS; against a directory and against a git revision.
#[test]
fn diff_names_added_and_changed_states_per_minion() {
    let d = temp("diff");
    for tree in ["old", "new"] {
        std::fs::create_dir_all(d.join(tree).join("salt")).unwrap();
        std::fs::write(
            d.join(tree).join("minion"),
            "id: x\nfile_roots:\n  base: [salt]\n",
        )
        .unwrap();
        std::fs::write(
            d.join(tree).join("salt/top.sls"),
            "base:\n  '*':\n    - a\n  'role:web':\n    - match: grain\n    - web\n",
        )
        .unwrap();
        std::fs::write(d.join(tree).join("salt/a.sls"), "a: {test.nop: [{v: 1}]}\n").unwrap();
    }
    std::fs::write(d.join("old/salt/web.sls"), "w: {test.nop: [{port: 80}]}\n").unwrap();
    std::fs::write(
        d.join("new/salt/web.sls"),
        "w: {test.nop: [{port: 8080}]}\nw2: {test.nop: []}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("m.yaml"),
        "- id: db\n  grains: {role: db}\n- id: web\n  grains: {role: web}\n",
    )
    .unwrap();
    let out = lowstate(
        &d,
        &["fleet", "-c", "new", "--minions", "m.yaml", "--diff", "old"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["id"], "db");
    assert_eq!(lines[0]["added"], serde_json::json!([]));
    assert_eq!(lines[0]["changed"], serde_json::json!([]));
    assert_eq!(lines[1]["added"][0]["id"], "w2");
    assert_eq!(lines[1]["changed"][0]["id"], "w");
    assert_eq!(
        lines[1]["changed"][0]["arguments"],
        serde_json::json!(["port"])
    );
    assert!(err.contains("2 minions, 1 with changes, 0 failed"), "{err}");
    assert!(
        err.contains("web: 1 minions; 1 states added, 0 removed, 1 changed"),
        "{err}"
    );
    // The same against a git revision of the repository holding -c DIR.
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(d.join("new"))
            .output()
            .unwrap();
        assert!(
            ok.status.success(),
            "{}",
            String::from_utf8_lossy(&ok.stderr)
        );
    };
    std::fs::rename(d.join("new/salt/web.sls"), d.join("web.new")).unwrap();
    std::fs::copy(d.join("old/salt/web.sls"), d.join("new/salt/web.sls")).unwrap();
    git(&["init", "-q"]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "add", "."]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qm",
        "old",
    ]);
    std::fs::rename(d.join("web.new"), d.join("new/salt/web.sls")).unwrap();
    let out = lowstate(
        &d,
        &[
            "fleet",
            "-c",
            "new",
            "--minions",
            "m.yaml",
            "--diff",
            "HEAD",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let again: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(again, lines);
    let _ = std::fs::remove_dir_all(&d);
}
