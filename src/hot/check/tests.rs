use super::*;
use crate::diag::SourceFile;

fn run(template: &str) -> Vec<Diagnostic> {
    let input = Input {
        template: Some(SourceFile::new("t.yaml".to_string(), template.to_string())),
        ..Input::default()
    };
    check(&input)
}

fn lines(ds: &[Diagnostic]) -> Vec<String> {
    ds.iter()
        .map(|d| format!("{} {} {}", d.severity.word(), d.code.name, d.message))
        .collect()
}

#[test]
fn the_catalogue_is_sorted_and_every_schema_loads() {
    let names: Vec<&str> = types().collect();
    assert!(names.len() >= 163);
    assert!(names.windows(2).all(|w| w[0] < w[1]));
    for n in names {
        let s = schema(n).expect("listed").expect("parses");
        assert_eq!(s.name, n);
    }
    assert!(schema_text("OS::Nope").is_none());
}

#[test]
fn findings_are_located_and_about_their_resource() {
    let t = "heat_template_version: 2016-10-14\nresources:\n  net:\n    type: OS::Neutron::Net\n    properties:\n      nmae: x\n      admin_state_up: maybe\n";
    let ds = run(t);
    assert_eq!(
        lines(&ds),
        [
            "error unknown-argument Unknown Property nmae",
            "error wrong-type Property error: admin_state_up: Value must be a boolean, not a string ('maybe')",
        ]
    );
    assert_eq!(ds[0].subject(RESOURCE), Some("net"));
    assert_eq!(ds[0].location().as_deref(), Some("t.yaml:6:7"));
    assert!(ds[0]
        .notes
        .iter()
        .any(|n| n.contains("did you mean `name`")));
}

#[test]
fn run_time_values_count_as_given_but_are_not_checked() {
    let t = "heat_template_version: 2016-10-14\nresources:\n  net:\n    type: OS::Neutron::Net\n  sub:\n    type: OS::Neutron::Subnet\n    properties:\n      network: {get_resource: net}\n      ip_version: {get_attr: [net, name]}\n      cidr: 10.0.0.0/24\n";
    assert_eq!(lines(&run(t)), Vec::<String>::new());
}

#[test]
fn unknown_types_are_reported_once() {
    let t = "heat_template_version: 2016-10-14\nresources:\n  a:\n    type: My::Thing\n  b:\n    type: My::Thing\n    properties: {x: 1}\n";
    let ds = run(t);
    assert_eq!(ds.len(), 1);
    // Heat knows no `My::Thing` either: it would refuse the stack.
    assert_eq!(ds[0].code, codes::HOT_UNKNOWN_TYPE);
    assert_eq!(ds[0].subject(RESOURCE), Some("a"));
}

#[test]
fn a_misspelt_heat_type_gets_heats_refusal_and_a_did_you_mean() {
    let t = "heat_template_version: 2016-10-14\nresources:\n  r:\n    type: OS::Heat::Nonee\n";
    let ds = run(t);
    assert_eq!(ds.len(), 1);
    assert_eq!(ds[0].code, codes::HOT_UNKNOWN_TYPE);
    assert!(ds[0]
        .notes
        .iter()
        .any(|n| n.ends_with("The Resource Type (OS::Heat::Nonee) could not be found.")));
    assert!(ds[0]
        .notes
        .iter()
        .any(|n| n == "did you mean `OS::Heat::None`?"));
}

#[test]
fn a_stack_that_does_not_compile_gives_its_compile_errors() {
    let ds = run("resources: {}\n");
    assert!(ds.iter().any(Diagnostic::is_error));
    assert!(ds.iter().all(|d| d.code.area == "hot"));
}

#[test]
fn groups_say_what_heat_does_and_point_at_the_properties() {
    let t = "heat_template_version: 2016-10-14\nresources:\n  port:\n    type: OS::Neutron::Port\n    properties:\n      network: private\n      fixed_ips: [{subnet: s}]\n      no_fixed_ips: true\n";
    let ds = run(t);
    assert_eq!(ds.len(), 1);
    let d = &ds[0];
    assert_eq!(d.code, codes::ARGUMENT_GROUP);
    assert_eq!(d.location().as_deref(), Some("t.yaml:3:3"));
    let at: Vec<usize> = d
        .secondary
        .iter()
        .map(|l| l.file.line_col(l.range.start).0)
        .collect();
    assert_eq!(at, [7, 8]);
    assert_eq!(
        d.notes,
        [
            "Heat 27.0.1 rejects the template with: `Cannot define the following properties at the same time: fixed_ips, no_fixed_ips.`",
            "from reading the engine's source (not verified by a run)",
        ]
    );
}

#[test]
fn nested_findings_point_at_their_top_property() {
    let t = "heat_template_version: 2016-10-14\nresources:\n  sub:\n    type: OS::Neutron::Subnet\n    properties:\n      network: n\n      cidr: 10.0.0.0/24\n      allocation_pools:\n        - start: 10.0.0.2\n";
    let ds = run(t);
    assert_eq!(ds.len(), 1);
    assert_eq!(ds[0].location().as_deref(), Some("t.yaml:8:7"));
}

#[test]
fn a_renamed_property_is_checked_under_its_new_name_where_it_is_written() {
    let t = "heat_template_version: 2016-10-14\nresources:\n  port:\n    type: OS::Neutron::Port\n    properties:\n      network_id: [private]\n";
    let ds = run(t);
    assert_eq!(
        lines(&ds),
        ["error wrong-type Property error: network: Value must be a string, not a list (['private'])"]
    );
    assert_eq!(ds[0].location().as_deref(), Some("t.yaml:6:7"));
}
