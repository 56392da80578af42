use super::*;
use crate::value::Map;
use std::collections::BTreeMap;

const FM: &str = r#"
schema: lowstate/state-args/1
function: file.managed
unknown_args: ignore
arguments:
  name: {required: true}
  source: {default: null, presence: truthy}
  contents: {default: null}
  contents_pillar: {default: null}
  mode: {default: null}
groups:
  - id: source-vs-contents
    rule: {xor: [[source], {or: [[contents], [contents_pillar]]}]}
    when: any
    salt: "'source' cannot be used in combination with 'contents'"
    evidence: run:fm-source-and-contents
  - id: keep
    rule: {forbid: [[contents], [contents_pillar]]}
    when: {equals: {mode: keep}, casefold: true}
"#;

fn args(yaml: &str) -> Map {
    crate::yaml::load_value(yaml, crate::yaml::Dialect::Salt)
        .unwrap()
        .as_map()
        .cloned()
        .unwrap_or_default()
}

/// Group and version findings only (the test schemas declare no arguments).
fn groups(schema: &Schema, yaml: &str) -> Vec<Finding> {
    run(schema, yaml)
        .into_iter()
        .filter(|f| matches!(f.kind, FindingKind::Group | FindingKind::Version))
        .collect()
}

fn run(schema: &Schema, yaml: &str) -> Vec<Finding> {
    let versions = BTreeMap::from([("salt".to_string(), vec![3008, 5])]);
    let ctx = Context {
        engine: "Salt 3008.5",
        versions: &versions,
        lenient_scalars: false,
        unknown_value: &|_| false,
    };
    let hints = Hints {
        always_allowed: &|k| k == "require",
        near_misses: &["require", "watch"],
    };
    check(schema, &args(yaml), &hints, &ctx)
}

#[test]
fn the_truth_table_of_the_spec() {
    let s = parse_schema("fm", FM).unwrap();
    // §2.8: rows of the worked truth table.
    assert!(run(&s, "name: /x").is_empty());
    assert!(run(&s, "name: /x\nsource: salt://a").is_empty());
    let f = run(&s, "name: /x\nsource: salt://a\ncontents: b");
    assert_eq!(f.len(), 1);
    assert_eq!(
        f[0].message,
        "file.managed: cannot use these arguments together: source, contents"
    );
    assert_eq!(f[0].args, ["source", "contents"]);
    assert!(run(&s, "name: /x\ncontents: a\ncontents_pillar: b").is_empty());
    assert!(run(&s, "name: /x\nsource: ''\ncontents: a").is_empty());
    assert!(run(&s, "name: /x\nsource: salt://a\ncontents: null").is_empty());
}

#[test]
fn guards_names_and_required() {
    let s = parse_schema("fm", FM).unwrap();
    let f = run(&s, "name: /x\nmode: KEEP\ncontents: a");
    assert_eq!(f.len(), 1);
    assert_eq!(
        f[0].message,
        "file.managed: contents cannot be used when mode is keep"
    );
    let f = run(
        &s,
        "source: salt://a\nrequires: [x]\nsorce: 1\nrequire: [y]",
    );
    let kinds: Vec<FindingKind> = f.iter().map(|f| f.kind).collect();
    assert_eq!(
        kinds,
        [
            FindingKind::MisspeltRequisite,
            FindingKind::UnknownArgument,
            FindingKind::Missing
        ]
    );
    assert_eq!(f[1].notes[1], "did you mean `source`?");
    assert_eq!(
        f[2].message,
        "Missing parameter name for state file.managed"
    );
}

#[test]
fn operators_on_no_operand_present() {
    for (op, holds) in [
        ("and", false),
        ("or", false),
        ("xor", false),
        ("forbid", true),
    ] {
        let text = format!(
            "schema: lowstate/state-args/1\nfunction: t.t\ngroups:\n  - {{id: g, rule: {{{op}: [[a], [b]]}}}}\n"
        );
        let s = parse_schema("t", &text).unwrap();
        assert_eq!(groups(&s, "x: 1").is_empty(), holds, "{op}");
    }
}

#[test]
fn xor_is_exactly_one_not_parity() {
    let text = "schema: lowstate/state-args/1\nfunction: t.t\ngroups:\n  - {id: g, rule: {xor: [[a], [b], [c]]}}\n";
    let s = parse_schema("t", text).unwrap();
    assert!(groups(&s, "a: 1").is_empty());
    assert_eq!(groups(&s, "a: 1\nb: 1\nc: 1").len(), 1);
}

#[test]
fn schema_errors_are_refused_with_a_hint() {
    let bad = [
        ("groups:\n  - {id: g, rule: {AND: [[a]]}}", "write `and`"),
        (
            "groups:\n  - {id: g, rule: {and: []}}",
            "empty operand list",
        ),
        ("groups:\n  - {id: g, rule: {or: [[]]}}", "empty path"),
        ("groups:\n  - {id: g, rule: {or: [a]}}", "a path is a list"),
        (
            "arguments:\n  a: {requried: true}",
            "unknown key `requried`",
        ),
        (
            "groups:\n  - {id: g, rule: {or: [[a]], and: [[b]]}}",
            "one-key mapping",
        ),
    ];
    for (body, want) in bad {
        let text = format!("schema: lowstate/state-args/1\nfunction: t.t\n{body}\n");
        let e = parse_schema("t.yaml", &text).unwrap_err();
        assert!(e.to_string().contains(want), "{e} (wanted {want})");
    }
}

#[test]
fn version_groups_know_or_defer() {
    let text = "schema: lowstate/state-args/1\nfunction: pip.installed\nversions:\n  - {of: pip, allowed: '>=1.4,<=9.0.3', args: [[use_wheel]], salt: x}\n  - {of: salt, allowed: '>=3008.0', args: [[new]]}\n";
    let s = parse_schema("t", text).unwrap();
    let f = groups(&s, "use_wheel: true\nnew: 1");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].severity, Severity::Info);
    let versions = BTreeMap::from([("pip".to_string(), vec![26, 3])]);
    let ctx = Context {
        engine: "Salt 3008.5",
        versions: &versions,
        lenient_scalars: false,
        unknown_value: &|_| false,
    };
    let hints = Hints {
        always_allowed: &|_| true,
        near_misses: &[],
    };
    let f = check(&s, &args("use_wheel: true"), &hints, &ctx);
    assert_eq!(f[0].severity, Severity::Error);
    assert_eq!(
        f[0].message,
        "pip.installed: `use_wheel` needs pip >=1.4,<=9.0.3, not 26.3"
    );
    assert_eq!(cmp_version(&[3008], &[3008, 0]), std::cmp::Ordering::Equal);
}

#[test]
fn values_types_and_nested_keys() {
    let text = r#"
schema: lowstate/state-args/1
resource: OS::Test
properties:
  size: {type: integer, range: {min: 1, max: 10}}
  kind: {type: string, values: [a, b]}
  net:
    type: list
    items:
      type: mapping
      schema:
        port: {type: string, required: true}
"#;
    let s = parse_schema("t", text).unwrap();
    let f = run(&s, "size: 11\nkind: c\nnet: [{prt: x}]\nextra: 1");
    let msgs: Vec<&str> = f.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(
        msgs,
        [
            "Unknown Property extra",
            "OS::Test: `size` is 11, it must be between 1 and 10",
            "OS::Test: `kind` must be one of a, b, not 'c'",
            "Property error: net[0]: Unknown Property prt",
            "Property error: net[0]: Property port not assigned",
        ]
    );
}

#[test]
fn edit_distance_counts_edits() {
    assert_eq!(eval::edit_distance("requires", "require"), 1);
    assert_eq!(eval::edit_distance("watch_in", "watch"), 3);
    // A swap of neighbours is one edit.
    assert_eq!(eval::edit_distance("nmae", "name"), 1);
    assert_eq!(eval::edit_distance("nmae", "image"), 2);
    assert_eq!(eval::edit_distance("ab", "ba"), 1);
    assert_eq!(eval::edit_distance("abc", "ca"), 3);
    assert_eq!(eval::edit_distance("", "abc"), 3);
    assert_eq!(eval::edit_distance("kitten", "sitting"), 3);
}

#[test]
fn heat_scalar_coercions() {
    // heat/engine/properties.py `Property._get_*`: what each type takes.
    let text = "schema: lowstate/state-args/1\nresource: OS::T\nproperties:\n  s: {type: string}\n  i: {type: integer, range: {max: 5}}\n  n: {type: number}\n  b: {type: boolean}\n  l: {type: list}\n  m: {type: map}\n";
    let s = parse_schema("t", text).unwrap();
    let versions = BTreeMap::new();
    let ctx = Context {
        engine: "Heat 27.0.1",
        versions: &versions,
        lenient_scalars: true,
        unknown_value: &|_| false,
    };
    let hints = Hints {
        always_allowed: &|_| false,
        near_misses: &[],
    };
    let wrong = |yaml: &str| -> Vec<String> {
        check(&s, &args(yaml), &hints, &ctx)
            .into_iter()
            .map(|f| f.rule.unwrap_or_default())
            .collect()
    };
    let none: Vec<String> = Vec::new();
    assert_eq!(
        wrong("s: 3\ni: ' +4 '\nn: '1_0.5e1'\nb: 'TRUE'\nl: [1]\nm: {}"),
        none
    );
    assert_eq!(wrong("s: true\ni: true\nn: false\nb: 'False'"), none);
    assert_eq!(wrong("i: 3.7\nn: ' inf '"), none);
    assert_eq!(
        wrong("s: 1.5\ni: '3.0'\nn: 'x1'\nb: 'yes'\nl: 'a,b'\nm: [1]"),
        ["s", "i", "n", "b", "l", "m"]
    );
    assert_eq!(wrong("b: 1"), ["b"]);
    assert_eq!(wrong("i: '7'"), ["i"]);
}
