//! The layer rules of `src/`, read from the code's own paths (`use` trees
//! and inline `crate::…`, `super::…` and `self::…` paths):
//!
//! - the core (`value`, `text`, `yaml`, `diag`, `plan`, `rules`,
//!   `provenance`, `redact`, `fnmatch`, `pyre`, `emit`, `limits`, `editor`)
//!   imports no front end, and every top-level module is core, a front end
//!   or `cli`;
//! - a front end (`salt`, `hot`) never imports another front end;
//! - only `main.rs` declares or imports `cli`, and the library never names
//!   `anyhow` (typed errors in library code), `clap` or `indicatif` (the
//!   binary's);
//! - no import cycle between modules (a module using its own parent or child
//!   is declaration, not a cycle; test-only code is left out).
//!
//! Each rule is a function over a map of file → source text, so the tests
//! below can also feed it a forbidden import and see it fail.

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level modules of the dialect-free core.
const CORE: &[&str] = &[
    "value",
    "text",
    "yaml",
    "diag",
    "plan",
    "fnmatch",
    "emit",
    "limits",
    "rules",
    "provenance",
    "redact",
    "pyre",
    "editor",
    "changes",
];
/// The front ends.
const FRONT_ENDS: &[&str] = &["salt", "hot"];

/// `src/` as module path (`salt::render::jinja`) → text, tests stripped.
fn read_src() -> BTreeMap<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    walk(&root, &root, &mut out);
    out
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read src")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(root, &p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p.strip_prefix(root).expect("under src");
            let text = std::fs::read_to_string(&p).expect("read");
            out.insert(module_of(rel), text);
        }
    }
}

/// `salt/render/mod.rs` → `salt::render`; `lib.rs` → ``; `main.rs` → `main`.
fn module_of(rel: &Path) -> String {
    let s = rel.to_string_lossy().replace('\\', "/");
    let s = s.strip_suffix(".rs").unwrap_or(&s);
    let s = s.strip_suffix("/mod").unwrap_or(s);
    if s == "lib" {
        return String::new();
    }
    s.replace('/', "::")
}

/// The text without comments and without test-only code (a `tests.rs`
/// file, or everything from a `#[cfg(test)]` line on).
fn production_code(module: &str, text: &str) -> String {
    if module.ends_with("::tests") || module == "tests" {
        return String::new();
    }
    let mut out = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Every absolute module path a file names: `crate::a::b` (inline or in a
/// `use` tree with braces, expanded) and `super::`/`self::` paths (inline
/// or in a `use` tree) made absolute. In `main.rs` and `cli/`, `lowstate::` stands for `crate::`.
fn referenced_paths(module: &str, code: &str) -> Vec<String> {
    let bin = module == "main" || module == "cli" || module.starts_with("cli::");
    let mut out = Vec::new();
    // `use` statements, braces expanded.
    let mut rest = code;
    while let Some(i) = find_use(rest) {
        let after = &rest[i..];
        let end = after.find(';').unwrap_or(after.len());
        let tree: String = after[..end].split_whitespace().collect();
        let tree = tree
            .trim_start_matches("pub(crate)")
            .trim_start_matches("pub");
        let tree = tree.strip_prefix("use").unwrap_or(tree);
        for p in expand(tree) {
            out.push(p);
        }
        rest = &after[end.min(after.len())..];
    }
    // Inline paths.
    let roots: &[&str] = if bin {
        &["crate::", "super::", "self::", "lowstate::"]
    } else {
        &["crate::", "super::", "self::"]
    };
    for root in roots {
        for (i, _) in code.match_indices(root) {
            let prev = code[..i].chars().next_back();
            if prev.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let tail: String = code[i..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            out.push(tail);
        }
    }
    out.into_iter()
        .filter_map(|p| absolute(module, &p, bin))
        .collect()
}

/// The byte offset of the next `use` keyword starting a statement.
fn find_use(code: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = code[from..].find("use ") {
        let at = from + i;
        let line_start = code[..at].rfind('\n').map_or(0, |n| n + 1);
        let before = code[line_start..at].trim();
        if before.is_empty() || before == "pub" || before == "pub(crate)" {
            return Some(at);
        }
        from = at + 4;
    }
    None
}

/// `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    let Some(open) = tree.find('{') else {
        return vec![tree.to_string()];
    };
    let prefix = &tree[..open];
    let inner = tree[open + 1..]
        .strip_suffix('}')
        .unwrap_or(&tree[open + 1..]);
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(expand)
        .map(|p| format!("{prefix}{p}"))
        .collect()
}

/// A path made absolute (`crate::…` stripped), or `None` for other crates.
fn absolute(module: &str, path: &str, bin: bool) -> Option<String> {
    let path = path.split(" as ").next().unwrap_or(path);
    let mut segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut base: Vec<&str> = if module.is_empty() || module == "main" {
        Vec::new()
    } else {
        module.split("::").collect()
    };
    match segs.first().copied() {
        Some("crate") => {
            segs.remove(0);
            Some(segs.join("::"))
        }
        Some("lowstate") if bin => {
            segs.remove(0);
            Some(segs.join("::"))
        }
        Some("self") => {
            segs.remove(0);
            base.extend(segs);
            Some(base.join("::"))
        }
        Some("super") => {
            while segs.first() == Some(&"super") {
                segs.remove(0);
                base.pop();
            }
            base.extend(segs);
            Some(base.join("::"))
        }
        // `mod x;` children used by bare name (`load::x`) are declaration.
        _ => None,
    }
}

/// The longest known module that `path` starts with.
fn owning_module<'m>(modules: &'m BTreeSet<String>, path: &str) -> Option<&'m str> {
    let segs: Vec<&str> = path.split("::").collect();
    (1..=segs.len())
        .rev()
        .map(|n| segs[..n].join("::"))
        .find_map(|p| modules.get(&p).map(String::as_str))
}

fn top(module: &str) -> &str {
    module.split("::").next().unwrap_or("")
}

/// The module → module references of production code.
fn edges(src: &BTreeMap<String, String>) -> BTreeSet<(String, String)> {
    let modules: BTreeSet<String> = src.keys().cloned().collect();
    let mut out = BTreeSet::new();
    for (m, text) in src {
        let code = production_code(m, text);
        for p in referenced_paths(m, &code) {
            if let Some(target) = owning_module(&modules, &p) {
                if target != m {
                    out.insert((m.clone(), target.to_string()));
                }
            }
        }
    }
    out
}

fn is_ancestor(a: &str, b: &str) -> bool {
    a.is_empty() || b.starts_with(&format!("{a}::"))
}

/// Every broken rule, as a line of text.
fn violations(src: &BTreeMap<String, String>) -> Vec<String> {
    let mut bad = Vec::new();
    let es = edges(src);
    for (from, to) in &es {
        let (f, t) = (top(from), top(to));
        if CORE.contains(&f) && FRONT_ENDS.contains(&t) {
            bad.push(format!("core module {from} imports front end {to}"));
        }
        if FRONT_ENDS.contains(&f) && FRONT_ENDS.contains(&t) && f != t {
            bad.push(format!("front end {from} imports front end {to}"));
        }
        if t == "cli" && f != "cli" && from != "main" {
            bad.push(format!("{from} imports cli (only main may)"));
        }
    }
    for (m, text) in src {
        let code = production_code(m, text);
        if m != "main" && top(m) != "cli" {
            if code.contains("mod cli") {
                bad.push(format!("{m} declares cli (only main may)"));
            }
            if code.contains("anyhow") {
                bad.push(format!("library module {m} uses anyhow"));
            }
            // The command line (clap, and clap_complete/clap_mangen on its
            // definition) and progress bars are the binary's.
            for krate in ["clap", "indicatif"] {
                if code.contains(&format!("{krate}::")) || code.contains(&format!("use {krate}")) {
                    bad.push(format!("library module {m} uses {krate}"));
                }
            }
        }
    }
    // Cycles at every level of the tree: an edge between two files counts
    // as an edge between the two siblings under their deepest common
    // ancestor (`salt::render::jinja::salt::functions` -> `…::jinja::filters`
    // is `jinja::salt` -> `jinja::filters`). A module using its own parent or
    // child is declaration, not a cycle.
    let mut g = DiGraph::<String, ()>::new();
    let mut idx: BTreeMap<String, _> = BTreeMap::new();
    let mut node = |g: &mut DiGraph<String, ()>, name: String| {
        *idx.entry(name.clone()).or_insert_with(|| g.add_node(name))
    };
    for (from, to) in &es {
        if is_ancestor(from, to) || is_ancestor(to, from) {
            continue;
        }
        let f: Vec<&str> = from.split("::").collect();
        let t: Vec<&str> = to.split("::").collect();
        let k = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
        let (a, b) = (f[..=k].join("::"), t[..=k].join("::"));
        let (na, nb) = (node(&mut g, a), node(&mut g, b));
        g.update_edge(na, nb, ());
    }
    for scc in tarjan_scc(&g) {
        if scc.len() > 1 {
            let mut names: Vec<&str> = scc.iter().map(|n| g[*n].as_str()).collect();
            names.sort();
            bad.push(format!("import cycle: {}", names.join(" <-> ")));
        }
    }
    bad
}

#[test]
fn the_tree_keeps_the_layer_rules() {
    let src = read_src();
    assert!(src.len() > 50, "read {} files from src/", src.len());
    let bad = violations(&src);
    assert!(bad.is_empty(), "layer rules broken:\n{}", bad.join("\n"));
}

#[test]
fn the_test_sees_the_real_imports() {
    // Guard against a test that cannot fail: known real edges are found.
    let es = edges(&read_src());
    for (from, to) in [("salt::pipeline", "salt::config"), ("salt::config", "yaml")] {
        assert!(
            es.contains(&(from.to_string(), to.to_string())),
            "edge {from} -> {to} not found"
        );
    }
}

/// The tree plus one extra file, or one file with a line added.
fn with(extra: &[(&str, &str)]) -> BTreeMap<String, String> {
    let mut src = read_src();
    for (m, line) in extra {
        let text = src.entry(m.to_string()).or_default();
        *text = format!("{line}\n{text}");
    }
    src
}

#[test]
fn core_importing_a_front_end_fails() {
    let bad = violations(&with(&[("yaml", "use crate::salt::config::Config;")]));
    assert!(
        bad.iter()
            .any(|b| b.contains("core module yaml imports front end salt::config")),
        "{bad:?}"
    );
}

#[test]
fn a_front_end_importing_another_fails() {
    let bad = violations(&with(&[
        ("hot", "//! fake"),
        ("salt::low", "use crate::hot::Thing;"),
    ]));
    assert!(
        bad.iter()
            .any(|b| b.contains("front end salt::low imports front end hot")),
        "{bad:?}"
    );
}

#[test]
fn importing_cli_fails() {
    let bad = violations(&with(&[("salt::report", "mod cli;")]));
    assert!(bad.iter().any(|b| b.contains("declares cli")), "{bad:?}");
}

#[test]
fn the_command_line_in_the_library_fails() {
    let bad = violations(&with(&[(
        "diag::render",
        "use clap::CommandFactory;\nfn f() { indicatif::ProgressBar::hidden(); }",
    )]));
    assert!(bad.iter().any(|b| b.contains("uses clap")), "{bad:?}");
    assert!(bad.iter().any(|b| b.contains("uses indicatif")), "{bad:?}");
}

#[test]
fn a_cycle_fails() {
    // salt::pipeline uses salt::config; make config use pipeline back.
    let bad = violations(&with(&[(
        "salt::config",
        "use crate::salt::pipeline::Session;",
    )]));
    assert!(
        bad.iter().any(|b| b.starts_with("import cycle")
            && b.contains("salt::config")
            && b.contains("salt::pipeline")),
        "{bad:?}"
    );
}

#[test]
fn use_trees_expand() {
    assert_eq!(
        expand("crate::a::{b,c::{d,e}}"),
        ["crate::a::b", "crate::a::c::d", "crate::a::c::e"]
    );
    assert_eq!(absolute("x::y", "super::z", false).as_deref(), Some("x::z"));
    assert_eq!(
        absolute("x::y::w", "super::super::z", false).as_deref(),
        Some("x::z")
    );
    assert_eq!(
        absolute("x::y", "self::z", false).as_deref(),
        Some("x::y::z")
    );
}

#[test]
fn every_top_level_module_has_a_layer() {
    // A new top-level module must be placed: core, front end or cli.
    let src = read_src();
    let tops: BTreeSet<&str> = src.keys().map(|m| top(m)).collect();
    for t in tops {
        assert!(
            t.is_empty()
                || t == "main"
                || t == "cli"
                || CORE.contains(&t)
                || FRONT_ENDS.contains(&t),
            "top-level module {t} is in no layer (add it to CORE or FRONT_ENDS)"
        );
    }
    for m in CORE.iter().chain(FRONT_ENDS) {
        assert!(
            src.contains_key(*m),
            "layer list names {m}, which src/ lacks"
        );
    }
}

#[test]
fn core_importing_a_front_end_through_super_fails() {
    let bad = violations(&with(&[(
        "yaml::load",
        "use super::super::hot::template::Template;",
    )]));
    assert!(
        bad.iter()
            .any(|b| b.contains("core module yaml::load imports front end hot::template")),
        "{bad:?}"
    );
    // Every core module is checked, `redact` and `pyre` included.
    for m in ["redact", "pyre"] {
        let bad = violations(&with(&[(m, "fn f() { crate::salt::low::compile(); }")]));
        assert!(
            bad.iter()
                .any(|b| b.contains(&format!("core module {m} imports front end salt::low"))),
            "{m}: {bad:?}"
        );
    }
}

#[test]
fn a_front_end_importing_another_through_super_fails() {
    let bad = violations(&with(&[(
        "hot::stack",
        "fn f() { super::super::salt::order::order_chunks(); }",
    )]));
    assert!(
        bad.iter()
            .any(|b| b.contains("front end hot::stack imports front end salt::order")),
        "{bad:?}"
    );
}

#[test]
fn using_cli_fails() {
    for line in [
        "use crate::cli::Common;",
        "fn f() { super::super::super::cli::run(); }",
    ] {
        let bad = violations(&with(&[("salt::high::build", line)]));
        assert!(
            bad.iter()
                .any(|b| b.contains("salt::high::build imports cli (only main may)")),
            "{line}: {bad:?}"
        );
    }
}

#[test]
fn anyhow_in_the_library_fails() {
    let bad = violations(&with(&[("salt::low", "use anyhow::Context;")]));
    assert!(
        bad.iter()
            .any(|b| b.contains("library module salt::low uses anyhow")),
        "{bad:?}"
    );
}

#[test]
fn a_cycle_through_super_fails() {
    // Inline `super::` paths count: yaml::dump and yaml::resolve are
    // siblings; make each use the other.
    let bad = violations(&with(&[
        ("yaml::dump", "fn f() { super::resolve::x(); }"),
        ("yaml::resolve", "fn g() { super::dump::y(); }"),
    ]));
    assert!(
        bad.iter().any(|b| b.starts_with("import cycle")
            && b.contains("yaml::dump")
            && b.contains("yaml::resolve")),
        "{bad:?}"
    );
    // And `use super::…` trees.
    let bad = violations(&with(&[
        ("yaml::dump", "use super::resolve::X;"),
        ("yaml::resolve", "use super::{dump::Y, Node};"),
    ]));
    assert!(
        bad.iter().any(|b| b.starts_with("import cycle")
            && b.contains("yaml::dump")
            && b.contains("yaml::resolve")),
        "{bad:?}"
    );
}

#[test]
fn the_binarys_crates_are_optional_for_the_library() {
    // clap, anyhow and indicatif serve the binary only: optional
    // dependencies behind the default `cli` feature the binary requires.
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .expect("Cargo.toml");
    for dep in ["clap", "anyhow", "indicatif"] {
        let line = manifest
            .lines()
            .find(|l| l.starts_with(&format!("{dep} =")))
            .unwrap_or_else(|| panic!("{dep} is not a dependency"));
        assert!(line.contains("optional = true"), "{line}");
        assert!(
            manifest.contains(&format!("\"dep:{dep}\"")),
            "the cli feature does not enable {dep}"
        );
    }
    assert!(manifest.contains("required-features = [\"cli\"]"));
}
