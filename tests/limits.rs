//! Resource limits (`--limit`, docs/limits.md): each limit stops a runaway
//! input with a clear, located error and exit 1, and docs/limits.md lists
//! every limit with its real default and the test that exercises it.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;

fn lowstate(dir: &Path, args: &[&str]) -> Output {
    common::lowstate_in(dir, args)
}

/// A one-SLS tree (`salt/a.sls` = `sls`, matched for every minion), or a
/// HOT template when `hot` is set; returns its directory.
fn tree(tag: &str, sls: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lowstate-limits-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("salt")).unwrap();
    std::fs::write(
        d.join("minion"),
        "id: m\nfile_roots:\n  base: [salt]\nlowstate_os: debian-12\n",
    )
    .unwrap();
    std::fs::write(d.join("salt/top.sls"), "base:\n  '*':\n    - a\n").unwrap();
    std::fs::write(d.join("salt/a.sls"), sls).unwrap();
    d
}

/// Run `args` (compile by default) on a tree and expect exit 1, a message
/// containing `needle`, and nothing on stdout but Salt's error list.
fn stops(tag: &str, sls: &str, args: &[&str], needle: &str) -> String {
    let d = tree(tag, sls);
    let mut full: Vec<&str> = args.to_vec();
    if !full.contains(&"hot") {
        full.extend(["compile", "-c", "."]);
    }
    let out = lowstate(&d, &full);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{tag}: {err}");
    assert!(err.contains(needle), "{tag}: wanted {needle:?} in:\n{err}");
    let _ = std::fs::remove_dir_all(&d);
    insta::assert_snapshot!(format!("limits-{tag}"), err);
    err
}

#[test]
fn limit_render_fuel_stops_a_runaway_loop() {
    let err = stops(
        "fuel",
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}\nx: {test.nop: []}\n",
        &[],
        "`render-fuel` limit",
    );
    // Located: the SLS and its line.
    assert!(err.contains("a.sls:1"), "{err}");
}

#[test]
fn limit_render_output_stops_a_huge_render() {
    let err = stops(
        "output",
        "{% for i in range(1000) %}# {{ 'x' * 100 }}\n{% endfor %}x: {test.nop: []}\n",
        &["--limit", "render-output=16k"],
        "`render-output` limit",
    );
    assert!(err.contains("a.sls"), "{err}");
}

#[test]
fn limit_render_depth_stops_runaway_recursion() {
    stops(
        "depth",
        "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}\n",
        &[],
        "recursion limit exceeded",
    );
}

#[test]
fn limit_yaml_depth_stops_deep_nesting() {
    let deep = format!("x: {}{}\n", "[".repeat(50), "]".repeat(50));
    stops(
        "yamldepth",
        &deep,
        &["--limit", "yaml-depth=20"],
        "`yaml-depth` limit",
    );
}

#[test]
fn limit_yaml_nodes_stops_alias_expansion() {
    let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for (i, c) in "bcdefghi".chars().enumerate() {
        let prev = (b'a' + i as u8) as char;
        text.push_str(&format!(
            "{c}: &{c} [{}]\n",
            vec![format!("*{prev}"); 10].join(", ")
        ));
    }
    stops(
        "laughs",
        &text,
        &[],
        "document too large after expanding aliases",
    );
}

#[test]
fn limit_states_stops_a_state_explosion() {
    let err = stops(
        "states",
        "{% for i in range(50) %}\ns{{ i }}: {test.nop: []}\n{% endfor %}\n",
        &["--limit", "states=10"],
        "error[too-many-states]",
    );
    assert!(err.contains("SLS 'a' declares 50 of them"), "{err}");
}

#[test]
fn limit_output_prints_nothing_over_it() {
    let d = tree("outsize", "x: {test.nop: []}\n");
    let out = lowstate(&d, &["--limit", "output=100", "compile", "-c", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("output-too-large"), "{err}");
    assert!(out.stdout.len() <= 100, "{} bytes", out.stdout.len());
    // With -o the file is not written at all.
    let target = d.join("plan.json");
    let out = lowstate(
        &d,
        &[
            "--limit",
            "output=100",
            "compile",
            "-c",
            ".",
            "-o",
            "plan.json",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(!target.exists());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn limit_memory_stops_a_doubling_template() {
    let err = stops(
        "memory",
        "{% macro d(s, n) %}{% if n %}{{ d(s ~ s, n - 1) }}{% else %}{{ s|length }}{% endif %}{% endmacro %}\nx: {test.nop: [{name: \"{{ d('ab', 40) }}\"}]}\n",
        &["--limit", "memory=256M"],
        "error[memory-limit]",
    );
    assert!(err.contains("Nothing was written"), "{err}");
}

/// A HOT template at `dir/t.yaml`.
fn hot(tag: &str, template: &str, limit: &str, needle: &str) {
    let d = tree(tag, "");
    std::fs::write(d.join("t.yaml"), template).unwrap();
    let out = lowstate(&d, &["--limit", limit, "hot", "t.yaml"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{tag}: {err}");
    assert!(err.contains(needle), "{tag}: wanted {needle:?} in:\n{err}");
    let _ = std::fs::remove_dir_all(&d);
    insta::assert_snapshot!(format!("limits-{tag}"), err);
}

#[test]
fn limit_hot_repeat_counts_nested_copies() {
    let template = "heat_template_version: 2016-10-14\nresources:\n  v:\n    type: OS::Heat::Value\n    properties:\n      value:\n        repeat:\n          for_each: {'%a%': [a, b, c, d, e, f, g, h, i, j], '%b%': [a, b, c, d, e, f, g, h, i, j]}\n          template: {repeat: {for_each: {'%c%': [a, b, c, d, e, f, g, h, i, j]}, template: '%a%%b%%c%'}}\n";
    hot(
        "hotrepeat",
        template,
        "hot-repeat=1000",
        "the `hot-repeat` limit",
    );
}

#[test]
fn limit_hot_string_stops_str_replace_growth() {
    let template = "heat_template_version: 2015-04-30\nresources:\n  v:\n    type: OS::Heat::Value\n    properties:\n      value:\n        str_replace:\n          template: '$x$x$x$x$x$x$x$x$x$x'\n          params:\n            $x: '0123456789012345678901234567890123456789'\n";
    hot(
        "hotstring",
        template,
        "hot-string=100",
        "the `hot-string` limit",
    );
}

#[test]
fn limit_hot_resources_stops_a_huge_group() {
    // 100,000 members: stopped at the group before one member is built.
    let d = tree("hotresources", "");
    let template = "heat_template_version: 2016-10-14\nresources:\n  g:\n    type: OS::Heat::ResourceGroup\n    properties:\n      count: 100000\n      resource_def: {type: OS::Heat::None}\n";
    std::fs::write(d.join("t.yaml"), template).unwrap();
    let out = lowstate(
        &d,
        &["--limit", "hot-resources=1000", "hot", "t.yaml", "--nested"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("hot-resources limit"), "{err}");
    // Without --nested the group is one resource.
    let out = lowstate(&d, &["--limit", "hot-resources=1000", "hot", "t.yaml"]);
    assert_eq!(out.status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&d);
    insta::assert_snapshot!("limits-hotresources", err);
}

#[test]
fn limit_hot_resources_stops_a_huge_instance_group_in_an_update() {
    // The update preview builds an InstanceGroup's members itself (the
    // compile leaves the group whole): a size over the limit is refused at
    // the group's Size, before one member is built.
    let d = tree("hotresourcesig", "");
    let group = |size: u64| {
        format!(
            "heat_template_version: 2016-10-14\nresources:\n  ig:\n    type: OS::Heat::InstanceGroup\n    properties:\n      AvailabilityZones: [nova]\n      LaunchConfigurationName: {{get_resource: lc}}\n      Size: {size}\n  lc:\n    type: AWS::AutoScaling::LaunchConfiguration\n    properties: {{ImageId: img, InstanceType: m1.small}}\n"
        )
    };
    std::fs::write(d.join("new.yaml"), group(100_000_000)).unwrap();
    std::fs::write(d.join("old.yaml"), group(2)).unwrap();
    let out = lowstate(&d, &["hot", "new.yaml", "--diff-from", "old.yaml"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    std::fs::write(d.join("new.yaml"), group(3)).unwrap();
    let ok = lowstate(&d, &["hot", "new.yaml", "--diff-from", "old.yaml"]);
    assert_eq!(ok.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&ok.stdout).contains("ig.member-2"));
    let _ = std::fs::remove_dir_all(&d);
    insta::assert_snapshot!("limits-hotresources-instance-group", err);
}

#[test]
fn limit_hot_resources_stops_a_huge_instance_group_deep_in_an_added_stack() {
    // An added provider stack's InstanceGroup is listed member by member
    // (the preview builds them), not compared: over the limit it is refused
    // at its Size too, never cut short.
    let d = tree("hotresourcesigdeep", "");
    std::fs::write(
        d.join("inner.yaml"),
        "heat_template_version: 2016-10-14\nresources:\n  ig:\n    type: OS::Heat::InstanceGroup\n    properties:\n      AvailabilityZones: [nova]\n      LaunchConfigurationName: {get_resource: lc}\n      Size: 50\n  lc:\n    type: AWS::AutoScaling::LaunchConfiguration\n    properties: {ImageId: img, InstanceType: m1.small}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("old.yaml"),
        "heat_template_version: 2016-10-14\nresources:\n  a: {type: OS::Heat::None}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("new.yaml"),
        "heat_template_version: 2016-10-14\nresources:\n  a: {type: OS::Heat::None}\n  s: {type: inner.yaml}\n",
    )
    .unwrap();
    let run = |limit: &str| {
        lowstate(
            &d,
            &[
                "--limit",
                limit,
                "hot",
                "new.yaml",
                "--diff-from",
                "old.yaml",
            ],
        )
    };
    let out = run("hot-resources=20");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("resources.ig: the InstanceGroup would hold 50 members, more than the hot-resources limit (20"),
        "{err}"
    );
    let ok = run("hot-resources=60");
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(String::from_utf8_lossy(&ok.stdout).contains("s.ig.member-49"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn limit_hot_resources_stops_at_the_same_member_every_time() {
    // 20 members of 3 resources, expanded side by side: the budget (20 for
    // the group's stack, then 3 a member) runs out at the eighth member in
    // the document's order (waves, names sorted: 0, 1, 10, ..., 15), as
    // one after the other, on every run.
    let d = tree("hotresourcesorder", "");
    std::fs::write(
        d.join("t.yaml"),
        "heat_template_version: 2016-10-14\nresources:\n  g:\n    type: OS::Heat::ResourceGroup\n    properties:\n      count: 20\n      resource_def: {type: m.yaml}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("m.yaml"),
        "heat_template_version: 2016-10-14\nresources:\n  a: {type: OS::Heat::None}\n  b: {type: OS::Heat::None}\n  c: {type: OS::Heat::None}\n",
    )
    .unwrap();
    for _ in 0..5 {
        let out = lowstate(
            &d,
            &["--limit", "hot-resources=42", "hot", "t.yaml", "--nested"],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains(
                "resources.g<nested_stack>.resources.15: the nested stacks would hold more than 42"
            ),
            "{err}"
        );
    }
    let out = lowstate(
        &d,
        &["--limit", "hot-resources=80", "hot", "t.yaml", "--nested"],
    );
    assert_eq!(out.status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_bad_limit_is_a_usage_error() {
    let d = tree("badlimit", "x: {test.nop: []}\n");
    for bad in ["speed=3", "memory", "states=0"] {
        let out = lowstate(&d, &["--limit", bad, "compile", "-c", "."]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--limit"));
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// docs/limits.md has a row per limit with its real default and a test
/// of this file that exists.
#[test]
fn docs_limits_md_matches_the_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/limits.md")).unwrap();
    let this = std::fs::read_to_string(root.join("tests/limits.rs")).unwrap();
    let defaults = lowstate::limits::Limits::default();
    for l in lowstate::limits::LIMITS {
        let row = doc
            .lines()
            .find(|r| r.starts_with(&format!("| `{}`", l.name)))
            .unwrap_or_else(|| panic!("docs/limits.md has no row for {}", l.name));
        let value = defaults.get(l.name).unwrap();
        let shown = [
            value.to_string(),
            lowstate::limits::human_bytes(value as usize),
        ];
        assert!(
            shown.iter().any(|s| row.contains(&format!("`{s}`"))),
            "{}: default {value} not in {row}",
            l.name
        );
        let test = row
            .split('`')
            .find(|w| w.starts_with("limit_"))
            .unwrap_or_else(|| panic!("{}: no test named in {row}", l.name));
        assert!(
            this.contains(&format!("fn {test}(")),
            "{test} is not a test here"
        );
    }
}
