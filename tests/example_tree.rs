//! Snapshot tests of the human-facing outputs on the shipped example tree
//! (`state_tree/`): the order report, DOT and Mermaid drawings, and the
//! diagnostics of a broken tree. Review changes with `cargo insta review`.

use lowstate::salt::config::Config;
use lowstate::salt::pipeline::{Options, Session};
use std::path::Path;

fn session() -> Session {
    // Relative to the package root (cargo runs tests there), so file names
    // in the report do not depend on where the checkout lives.
    let config = Config::load(Path::new("state_tree")).expect("example config");
    Session::new(config, Options::default())
}

#[test]
fn order_report() {
    let s = session();
    let (g, sources) = s.graph().expect("example tree compiles");
    insta::assert_snapshot!(lowstate::salt::report::order_report(
        &g,
        Some(&sources),
        false
    ));
}

#[test]
fn dot_graph() {
    let (g, _) = session().graph().expect("example tree compiles");
    insta::assert_snapshot!(lowstate::plan::to_dot(&g.to_plan()));
}

#[test]
fn mermaid_graph() {
    let (g, _) = session().graph().expect("example tree compiles");
    insta::assert_snapshot!(lowstate::plan::to_mermaid(&g.to_plan()));
}

#[test]
fn lowstate_json() {
    let chunks = session().lowstate().expect("example tree compiles");
    let v = lowstate::Value::List(chunks.into_iter().map(lowstate::Value::Map).collect());
    insta::assert_snapshot!(v.to_json_pretty());
}

#[test]
fn human_diagnostics() {
    let config = Config::load(Path::new("tests/corpus/089-err-missing-requisite")).unwrap();
    let err = Session::new(config, Options::default())
        .lowstate()
        .unwrap_err();
    insta::assert_snapshot!(lowstate::diag::render::human(&err.0, false));
}

/// The example tree compiles exactly as Salt 3008.5 compiles it.
#[test]
fn example_tree_equals_salt() {
    let s = session();
    let read = |name: &str| -> serde_json::Value {
        let text =
            std::fs::read_to_string(format!("tests/example-tree-expected/{name}.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let low = lowstate::Value::List(
        s.lowstate()
            .unwrap()
            .into_iter()
            .map(lowstate::Value::Map)
            .collect(),
    );
    assert_eq!(low.to_json(), read("lowstate"));
    let high = lowstate::Value::Map(s.highstate().unwrap().high);
    assert_eq!(high.to_json(), read("highstate"));
}
