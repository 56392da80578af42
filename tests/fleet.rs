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
    assert!(summary.contains("renders shared: "), "{summary}");
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

/// `--diff OLD`: one change report, minions with the same changes grouped,
/// old and new values; against a directory and against a git revision.
#[test]
fn diff_reports_changes_per_group_of_minions() {
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
        "- id: db\n  grains: {role: db}\n- id: web\n  grains: {role: web}\n- id: web2\n  grains: {role: web}\n",
    )
    .unwrap();
    let out = lowstate(
        &d,
        &[
            "fleet",
            "-c",
            "new",
            "--minions",
            "m.yaml",
            "--diff",
            "old",
            "--format",
            "json",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["unchanged"], serde_json::json!(["db"]));
    let group = &report["groups"][0];
    assert_eq!(group["label"], "web, web2 (2 minions)");
    assert_eq!(group["items"][0]["id"], "w");
    assert_eq!(group["items"][0]["change"], "changed");
    assert_eq!(
        group["items"][0]["values"],
        serde_json::json!([{"path": ["port"], "old": 80, "new": 8080, "diff": null, "masked": false}])
    );
    assert_eq!(group["items"][1]["id"], "w2");
    assert_eq!(group["items"][1]["change"], "added");
    // The top file and `a` read the same in both trees: the new tree's
    // compile takes them from the old tree's.
    // (How many depends on which minion gets there first.)
    let taken: usize = err
        .split(" taken from the other tree")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(taken >= 2, "{err}");
    assert!(
        err.contains("3 minions, 2 with changes in 1 group, 0 failing"),
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
            "--format",
            "json",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut again: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    again["old"] = report["old"].clone();
    assert_eq!(again, report);
    let _ = std::fs::remove_dir_all(&d);
}

/// One minion of a corpus fleet: id, grains and an optional pillar override.
struct Variant {
    id: String,
    grains: serde_json::Value,
    pillar: Option<serde_json::Value>,
}

/// The case's own minion and variants of it: another id with the same
/// grains, another OS family, a role-like grain changed, and (when the
/// case has pillar) one pillar value overridden.
fn corpus_variants(case: &Path) -> Option<Vec<Variant>> {
    let text = std::fs::read_to_string(case.join("minion")).ok()?;
    let conf = lowstate::yaml::load_value(&text, lowstate::yaml::Dialect::Salt).ok()?;
    let own_id = conf
        .get("id")
        .map(lowstate::value::Value::py_str)
        .unwrap_or_else(|| "minion".into());
    let grains = match conf.get("grains") {
        Some(g @ lowstate::value::Value::Map(_)) => g.to_json(),
        _ => serde_json::json!({}),
    };
    let mut out = vec![
        Variant {
            id: own_id.clone(),
            grains: grains.clone(),
            pillar: None,
        },
        Variant {
            id: format!("{own_id}-twin"),
            grains: grains.clone(),
            pillar: None,
        },
    ];
    let mut os = grains.clone();
    let redhat = os["os_family"] == "RedHat";
    os["os"] = serde_json::json!(if redhat { "Debian" } else { "CentOS" });
    os["os_family"] = serde_json::json!(if redhat { "Debian" } else { "RedHat" });
    out.push(Variant {
        id: format!("{own_id}-os"),
        grains: os,
        pillar: None,
    });
    let mut role = grains.clone();
    for key in ["roles", "role"] {
        role[key] = match &grains[key] {
            serde_json::Value::Array(a) if !a.is_empty() => serde_json::json!([]),
            serde_json::Value::Array(_) => serde_json::json!(["web", "db"]),
            serde_json::Value::Null => serde_json::json!(if key == "roles" {
                serde_json::json!(["web"])
            } else {
                serde_json::json!("web")
            }),
            _ => serde_json::json!("fleet-role"),
        };
    }
    out.push(Variant {
        id: format!("{own_id}-role"),
        grains: role,
        pillar: None,
    });
    // A pillar override that changes the first value the case's pillar has.
    let pillar = lowstate::salt::config::Config::load(case)
        .ok()
        .map(|c| {
            lowstate::salt::pipeline::Session::new(c, Default::default())
                .data
                .pillar
                .clone()
        })
        .and_then(|p| p.as_map().cloned())
        .filter(|p| !p.is_empty() && !p.contains_key("_errors"));
    if let Some(p) = pillar {
        if let Some((k, v)) = p.iter().next() {
            let changed = match v {
                lowstate::value::Value::Map(m) => match m.iter().next() {
                    Some((k2, _)) => serde_json::json!({ k2.py_str(): "fleet-variant" }),
                    None => serde_json::json!("fleet-variant"),
                },
                _ => serde_json::json!("fleet-variant"),
            };
            out.push(Variant {
                id: format!("{own_id}-pillar"),
                grains: grains.clone(),
                pillar: Some(serde_json::json!({ k.py_str(): changed })),
            });
        }
    }
    Some(out)
}

/// Every Salt corpus case compiled as a small fleet (its own minion and
/// variants of it) with `LOWSTATE_FLEET_VERIFY=1`, which renders every
/// render the fleet reuses afresh too: each minion's plan (or errors) is
/// byte for byte what `compile` prints for it alone, and the cache hit.
/// Each fleet runs twice, on one thread in list order and on the default
/// threads in reverse order ([`corpus_fleet`]), so the outcome does not
/// depend on scheduling.
#[test]
fn corpus_cases_as_fleets_equal_their_single_compiles() {
    let tests = root().join("tests");
    let mut cases = Vec::new();
    for (dir, version) in [
        ("corpus", "3008"),
        ("corpus-3006", "3006"),
        ("corpus-extra", "3008"),
    ] {
        let Ok(rd) = std::fs::read_dir(tests.join(dir)) else {
            continue;
        };
        let mut found: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        found.sort();
        cases.extend(
            found
                .into_iter()
                .filter(|p| p.join("minion").is_file())
                .map(|p| (p, version)),
        );
    }
    assert!(cases.len() > 100, "{} corpus cases", cases.len());
    let d = temp("corpus");
    let minions = std::sync::atomic::AtomicUsize::new(0);
    let hits = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((case, version)) = cases.get(i) else {
                    break;
                };
                match corpus_fleet(case, version, &d.join(i.to_string())) {
                    Ok((n, h)) => {
                        minions.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
                        hits.fetch_add(h, std::sync::atomic::Ordering::Relaxed);
                    }
                    Err(e) => failures
                        .lock()
                        .unwrap()
                        .push(format!("{}: {e}", case.display())),
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let hits = hits.into_inner();
    eprintln!(
        "corpus fleets: {} cases, {} minions, {hits} renders shared",
        cases.len(),
        minions.into_inner()
    );
    assert!(hits > 0, "the corpus fleets never shared a render");
    let _ = std::fs::remove_dir_all(&d);
}

/// One case as a fleet: (minions compiled, renders shared) or what differs.
fn corpus_fleet(case: &Path, version: &str, work: &Path) -> Result<(usize, usize), String> {
    let Some(variants) = corpus_variants(case) else {
        return Ok((0, 0));
    };
    std::fs::create_dir_all(work).unwrap();
    let c = case.to_str().unwrap();
    // Two runs: one thread in list order (each minion renders after the
    // ones before it on the same thread, so whatever a render leaves on
    // its thread reaches the later ones every time, not when scheduling
    // happens to), and the default threads in reverse order.
    let mut hits = 0;
    for (run, one_thread) in [("plans", true), ("plans-rev", false)] {
        let mut list: Vec<serde_json::Value> = variants
            .iter()
            .map(|v| serde_json::json!({"id": v.id, "grains": v.grains, "pillar": v.pillar}))
            .collect();
        if !one_thread {
            list.reverse();
        }
        let minions = format!("{run}.json");
        std::fs::write(work.join(&minions), serde_json::to_string(&list).unwrap()).unwrap();
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_lowstate"));
        cmd.args(["fleet", "-c", c, "--minions", &minions, "-o", run])
            .args(["--salt-version", version])
            .env("LOWSTATE_FLEET_VERIFY", "1")
            .current_dir(work);
        if one_thread {
            cmd.env("RAYON_NUM_THREADS", "1");
        }
        let out = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("fleet render cache") {
            return Err(format!("verify found a stale render ({run}):\n{err}"));
        }
        let shared: usize = err
            .split("renders shared: ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("no cache summary ({run}):\n{err}"))?;
        if one_thread {
            hits = shared;
        }
    }
    for v in &variants {
        let grains = v.grains.to_string();
        let mut args = vec!["compile", "-c", c, "--id", &v.id, "--grains", &grains];
        let pillar = v.pillar.as_ref().map(|p| p.to_string());
        if let Some(p) = &pillar {
            args.extend(["--pillar", p]);
        }
        args.extend(["--salt-version", version]);
        let single = lowstate(work, &args);
        for run in ["plans", "plans-rev"] {
            let fleet = std::fs::read(work.join(run).join(format!("{}.json", v.id)))
                .map_err(|e| format!("minion {} ({run}): no plan ({e})", v.id))?;
            if fleet != single.stdout {
                return Err(format!(
                    "minion {} (grains {grains}, pillar {pillar:?}, {run}): fleet plan differs from compile\n--- fleet\n{}\n--- compile\n{}",
                    v.id,
                    String::from_utf8_lossy(&fleet),
                    String::from_utf8_lossy(&single.stdout)
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(work);
    Ok((variants.len(), hits))
}

/// A formula-style fleet as `benches/gen-fleet` makes it (map.jinja with
/// `grains.filter_by` and a pillar lookup, grain-matched top file, a
/// per-minion address): minions with equal inputs share renders, so the
/// cache must hit, and the plans stay those of single compiles.
#[test]
fn a_formula_fleet_shares_renders() {
    let d = temp("formula");
    let salt = d.join("tree/salt");
    for name in ["nginx", "ntp"] {
        std::fs::create_dir_all(salt.join(name)).unwrap();
        std::fs::write(
            salt.join(name).join("map.jinja"),
            format!(
                "{{% set {name} = salt['grains.filter_by']({{'Debian': {{'pkg': '{name}'}}, 'RedHat': {{'pkg': '{name}-server'}}}}, grain='os_family', merge=salt['pillar.get']('{name}:lookup', {{}})) %}}\n"
            ),
        )
        .unwrap();
        let imp = format!("{{% from tpldir ~ '/map.jinja' import {name} with context %}}\n");
        std::fs::write(
            salt.join(name).join("init.sls"),
            "include:\n  - .install\n  - .config\n",
        )
        .unwrap();
        std::fs::write(
            salt.join(name).join("install.sls"),
            format!("{imp}{name}-pkg:\n  pkg.installed:\n    - name: {{{{ {name}.pkg }}}}\n"),
        )
        .unwrap();
        std::fs::write(
            salt.join(name).join("config.sls"),
            format!("{imp}{name}-config:\n  file.managed:\n    - name: /etc/{name}\n    - contents: listen {{{{ grains['ipv4'][1] }}}}\n"),
        )
        .unwrap();
    }
    std::fs::write(
        salt.join("top.sls"),
        "base:\n  '*':\n    - ntp\n  'roles:web':\n    - match: grain\n    - nginx\n",
    )
    .unwrap();
    std::fs::write(
        d.join("tree/minion"),
        "id: x\nfile_roots:\n  base: [salt]\n",
    )
    .unwrap();
    let grains: Vec<(String, serde_json::Value)> = (0..40)
        .map(|i| {
            let id = format!("m{i:02}");
            let family = ["Debian", "RedHat"][i % 2];
            let roles: &[&str] = if i % 3 == 0 { &["web"] } else { &[] };
            let g = serde_json::json!({"id": id, "os_family": family, "roles": roles,
                "ipv4": ["127.0.0.1", format!("10.0.0.{i}")]});
            (id, g)
        })
        .collect();
    let stream: String = grains
        .iter()
        .map(|(id, g)| serde_json::json!({ id: g }).to_string() + "\n")
        .collect();
    std::fs::write(d.join("grains.json"), stream).unwrap();
    let (out, shared) = verified_fleet(&d, "tree");
    eprintln!("formula fleet: renders shared: {shared}");
    let hits: usize = shared.split(' ').next().unwrap().parse().unwrap();
    let total: usize = shared.split(' ').nth(2).unwrap().parse().unwrap();
    // Per minion: top, ntp, ntp.install (2 families), ntp.config (unique
    // address); the install and init renders and the top file repeat.
    assert!(hits * 2 > total, "hit rate too low: {shared}");
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for ((id, g), line) in grains.iter().zip(&lines).step_by(7) {
        let single = lowstate(
            &d,
            &[
                "compile",
                "-c",
                "tree",
                "--id",
                id,
                "--grains",
                &g.to_string(),
            ],
        );
        let want: serde_json::Value = serde_json::from_slice(&single.stdout).unwrap();
        assert_eq!(line["lowstate"], want, "minion {id}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// The benchmark's own fleet (`benches/gen-fleet`, 100 minions; skipped
/// without python3): the cache hits, every hit is verified, and sampled
/// minions equal their single compiles.
#[test]
fn the_generated_bench_fleet_shares_renders() {
    let d = temp("gen");
    let made = std::process::Command::new("python3")
        .arg(root().join("benches/gen-fleet"))
        .arg(&d)
        .args(["--minions", "100"])
        .output();
    if !made.is_ok_and(|o| o.status.success()) {
        eprintln!("python3 or benches/gen-fleet unavailable: skipped");
        return;
    }
    let (out, shared) = verified_fleet(&d, ".");
    eprintln!("generated fleet: renders shared: {shared}");
    let hits: usize = shared.split(' ').next().unwrap().parse().unwrap();
    assert!(hits > 0, "the cache never hit: {shared}");
    let grains: Vec<(String, serde_json::Value)> = serde_json::Deserializer::from_str(
        &std::fs::read_to_string(d.join("grains.json")).unwrap(),
    )
    .into_iter::<serde_json::Value>()
    .map(|o| {
        let (id, g) = o
            .unwrap()
            .as_object()
            .unwrap()
            .clone()
            .into_iter()
            .next()
            .unwrap();
        (id, g)
    })
    .collect();
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for ((id, g), line) in grains.iter().zip(&lines).step_by(13) {
        assert_eq!(line["id"], serde_json::json!(id));
        let single = lowstate(
            &d,
            &["compile", "-c", ".", "--id", id, "--grains", &g.to_string()],
        );
        let want: serde_json::Value = serde_json::from_slice(&single.stdout).unwrap();
        assert_eq!(line["lowstate"], want, "minion {id}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// `lowstate fleet -c CONFIG --minions grains.json` in `dir` with every
/// cache hit verified: its output (it must succeed) and the summary's
/// `renders shared: ...` figures.
fn verified_fleet(dir: &std::path::Path, config: &str) -> (std::process::Output, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .args(["fleet", "-c", config, "--minions", "grains.json"])
        .env("LOWSTATE_FLEET_VERIFY", "1")
        .current_dir(dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{err}");
    let shared = err
        .split("renders shared: ")
        .nth(1)
        .unwrap_or_else(|| panic!("no cache summary: {err}"))
        .to_string();
    (out, shared)
}

/// Two trees of `fleet --diff`, compiled in one fleet run: the new tree
/// takes the renders of every file that reads the same in both trees
/// (itself and the templates it imports) from the old tree's cache, and
/// renders the rest; what it compiles (plans and the text of every
/// diagnostic, whose labels point at the new tree's files) is byte for
/// byte what a run without the old tree gives.
#[test]
fn diff_reuses_renders_of_unchanged_files_between_trees() {
    use lowstate::salt::config::Config;
    use lowstate::salt::fleet::Fleet;
    use lowstate::salt::pipeline::{Options, Session};
    use lowstate::value::Value;

    let d = temp("twin");
    for tree in ["old", "new"] {
        let w = |rel: &str, text: &str| {
            let p = d.join(tree).join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        w("minion", "file_roots:\n  base: [salt]\n");
        w(
            "salt/top.sls",
            "base:\n  '*':\n    - same\n    - mapped\n    - edited\n    - common\n  'dup*':\n    - clash\n",
        );
        // Unchanged, and reads a grain: one render per OS in each tree.
        w(
            "salt/same.sls",
            "same-{{ grains['os'] }}:\n  test.nop:\n    - os: {{ grains['os'] }}\n",
        );
        // Unchanged itself, but imports a template that changes.
        w(
            "salt/mapped.sls",
            "{% from 'map.jinja' import m with context %}\nmapped:\n  test.nop:\n    - port: {{ m.port }}\n",
        );
        // Unchanged, and imports an unchanged template.
        w(
            "salt/lib/common.jinja",
            "{% set c = {'user': grains['os'] | lower} %}\n",
        );
        w(
            "salt/common.sls",
            "{% from 'lib/common.jinja' import c with context %}\ncommon:\n  test.nop:\n    - user: {{ c.user }}\n",
        );
        // Unchanged; the new `edited` declares the same ID for some.
        w(
            "salt/clash.sls",
            "shared-id:\n  test.nop:\n    - from: clash\n",
        );
    }
    let w = |rel: &str, text: &str| std::fs::write(d.join(rel), text).unwrap();
    w("old/salt/map.jinja", "{% set m = {'port': 80} %}\n");
    w("new/salt/map.jinja", "{% set m = {'port': 8080} %}\n");
    w("old/salt/edited.sls", "edited:\n  test.nop: []\n");
    w(
        "new/salt/edited.sls",
        "edited:\n  test.nop:\n    - v: 2\n{% if grains['id'].startswith('dup') %}\nshared-id:\n  test.nop:\n    - from: edited\n{% endif %}\n",
    );
    let minions: Vec<(String, &str)> = (0..8)
        .map(|i| {
            let id = if i == 3 {
                "dup3".to_string()
            } else {
                format!("m{i}")
            };
            (id, ["Debian", "CentOS", "Ubuntu"][i % 3])
        })
        .collect();
    let compile = |fleet: &Fleet, tree: &str, id: &str, os: &str| -> String {
        let dir = d.join(tree);
        let mut raw = Config::read_raw(&dir).unwrap();
        raw.insert("id".into(), Value::str(id));
        let mut grains = lowstate::value::Map::new();
        grains.insert("id".into(), Value::str(id));
        grains.insert("os".into(), Value::str(os));
        raw.insert("grains".into(), Value::Map(grains));
        let config = Config::from_raw(&dir, raw).unwrap();
        match Session::in_fleet(config, Options::default(), fleet).lowstate() {
            Ok(chunks) => {
                let list = Value::List(chunks.into_iter().map(Value::Map).collect());
                list.to_json().to_string()
            }
            Err(e) => lowstate::diag::render::human(&e.0, false),
        }
    };
    // Both trees in one run (as `fleet --diff` compiles them), verifying
    // every reused render against a fresh one.
    let both = Fleet::new(true);
    let mut with_twin = Vec::new();
    for (id, os) in &minions {
        compile(&both, "old", id, os);
        with_twin.push(compile(&both, "new", id, os));
    }
    let stats = both.stats();
    // The new tree's top file, `same` and `common` (per OS) and `clash`
    // come from the old tree; `mapped` (its import changed) and `edited`
    // are rendered again.
    assert!(stats.from_twin >= 8, "{stats:?}");
    let alone = Fleet::new(false);
    let fresh: Vec<String> = minions
        .iter()
        .map(|(id, os)| compile(&alone, "new", id, os))
        .collect();
    assert_eq!(alone.stats().from_twin, 0);
    assert_eq!(with_twin, fresh);
    assert!(fresh[0].contains("8080"), "{}", fresh[0]);
    // The clash names both files of the new tree.
    let new_dir = d.join("new").join("salt");
    assert!(
        fresh[3].contains(&*new_dir.join("clash.sls").to_string_lossy()),
        "{}",
        fresh[3]
    );
    assert!(
        !with_twin.iter().any(|t| t.contains("old/salt")),
        "{with_twin:?}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
