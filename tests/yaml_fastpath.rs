//! The YAML fast path's proof of equality (`src/yaml/fast.rs`): on every
//! YAML text the suite has, the fast path either declines or gives exactly
//! the tree (values, key order, spans) the saphyr direct path and the full
//! loader give. The texts: every `.sls`, `.yaml`, `.yml` file under
//! `tests/` as written (Jinja and all), every SLS of the Salt corpora as
//! Jinja renders it (`Session::render_text`), PyYAML's inputs in
//! `tests/data/yaml/load.json`, and a tree from `benches/gen-big-tree`
//! rendered (when `python3` is there). The fast path must also serve most
//! of the rendered texts, or it would prove nothing.
//!
//! `FASTPATH_DUMP=DIR cargo test --test yaml_fastpath` writes every text
//! into `DIR/served/` or `DIR/declined/` (to see what the fast path misses,
//! and to seed the fuzz target: `fuzz/seed.sh` does).

use lowstate::salt::config::Config;
use lowstate::salt::pipeline::{Options, Session};
use lowstate::yaml::fastpath::{check, Check};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// Files under `dir` (recursively) whose extension is one of `exts`, sorted.
fn files(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| exts.contains(&e))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every SLS of the tree configured in `dir` (a `minion` file and its
/// file_roots), rendered by Jinja as the compile would; SLS that fail to
/// render are skipped.
fn rendered_tree(dir: &Path) -> Vec<String> {
    let Ok(config) = Config::load(dir) else {
        return Vec::new();
    };
    let roots: Vec<PathBuf> = config.file_roots.values().flatten().cloned().collect();
    let session = Session::new(config, Options::default());
    let mut out = Vec::new();
    for root in roots {
        for path in files(&root, &["sls"]) {
            let Ok(rel) = path.strip_prefix(&root) else {
                continue;
            };
            let rel = rel.with_extension("");
            let mut name = rel.to_string_lossy().replace('/', ".");
            if let Some(dir) = name.strip_suffix(".init") {
                name = dir.to_string();
            }
            if let Ok(text) = session.render_text(&name) {
                out.push(text);
            }
        }
    }
    out
}

/// The rendered SLS of every case of the Salt corpora.
fn rendered_corpus() -> Vec<String> {
    let mut out = Vec::new();
    for corpus in ["corpus", "corpus-3006", "corpus-extra"] {
        let Ok(rd) = std::fs::read_dir(root().join(corpus)) else {
            continue;
        };
        let mut cases: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        cases.sort();
        for case in cases.iter().filter(|c| c.is_dir()) {
            out.extend(rendered_tree(case));
        }
    }
    out
}

/// A generated bench tree (20 files of 25 states), rendered; empty without
/// `python3`.
fn rendered_bench_tree() -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("lowstate-fastpath-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let gen = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/gen-big-tree");
    let ok = std::process::Command::new("python3")
        .arg(&gen)
        .arg(dir.join("salt"))
        .args(["--files", "20", "--states", "25"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("python3 benches/gen-big-tree did not run: bench tree skipped");
        return Vec::new();
    }
    let minion = "id: bench-minion\ngrains: {os: Debian, os_family: Debian, kernel: Linux}\n\
                  file_roots: {base: [salt]}\n";
    std::fs::write(dir.join("minion"), minion).expect("writable temp dir");
    let out = rendered_tree(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// Check every text; the count the fast path served.
fn agree(what: &str, texts: &[String]) -> usize {
    let mut served = 0;
    let mut failures = Vec::new();
    for t in texts {
        let outcome = check(t);
        if let Ok(dir) = std::env::var("FASTPATH_DUMP") {
            let sub = match outcome {
                Check::Declined => "declined",
                _ => "served",
            };
            static N: AtomicUsize = AtomicUsize::new(0);
            let n = N.fetch_add(1, Ordering::Relaxed);
            let dir = Path::new(&dir).join(sub);
            let _ = std::fs::create_dir_all(&dir);
            let _ = std::fs::write(dir.join(format!("{n:05}.yaml")), t);
        }
        match outcome {
            Check::Declined => {}
            Check::Agrees => served += 1,
            Check::Differs(how) => failures.push(format!("{t:?}\n{how}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{what}: the fast path differs on {} texts:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    println!(
        "{what}: fast path served {served} of {} texts ({:.0}%)",
        texts.len(),
        100.0 * served as f64 / texts.len().max(1) as f64
    );
    served
}

#[test]
fn raw_yaml_files_of_the_suite() {
    let texts: Vec<String> = files(&root(), &["sls", "yaml", "yml"])
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    assert!(texts.len() > 500, "{}", texts.len());
    agree("raw files under tests/", &texts);
}

#[test]
fn pyyaml_inputs() {
    let data: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(root().join("data/yaml/load.json")).expect("load.json"),
    )
    .expect("json");
    let texts: Vec<String> = data
        .iter()
        .filter_map(|c| c["input"].as_str().map(str::to_string))
        .collect();
    agree("tests/data/yaml/load.json", &texts);
}

#[test]
fn rendered_salt_corpus() {
    let texts = rendered_corpus();
    assert!(texts.len() > 300, "{}", texts.len());
    let served = agree("rendered corpus SLS", &texts);
    // The fast path must carry the common case, or it proves nothing.
    assert!(
        served * 10 >= texts.len() * 6,
        "the fast path served only {served} of {} rendered SLS",
        texts.len()
    );
}

#[test]
fn rendered_bench_tree_is_served_entirely() {
    let texts = rendered_bench_tree();
    let served = agree("rendered bench tree", &texts);
    assert_eq!(served, texts.len());
}
