//! Tests for the top stage: env selection, include handling, every merge
//! strategy, verify messages, match ordering, the render plan, and the
//! corpus top-file cases (tops written here as JSON, expected order read
//! from the corpus' `expected/highstate.json`).

use super::*;
use crate::diag::codes;
use crate::diag::Severity;
use serde_json::json;

fn v(j: serde_json::Value) -> Value {
    Value::from_json(&j)
}

fn strs(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|s| s.to_string()).collect()
}

fn opts(envs: &[&str]) -> TopOptions {
    TopOptions {
        file_roots_envs: strs(envs),
        ..TopOptions::default()
    }
}

/// A fake fileserver: one top file per env, SLS listings, and the top
/// files includes resolve to.
#[derive(Default)]
struct Fake {
    tops: IndexMap<String, Value>,
    sls: HashMap<String, Vec<String>>,
    includes: HashMap<(String, String), Value>,
    fail: Option<String>,
    rendered: Vec<String>,
}

impl Fake {
    fn top(mut self, env: &str, top: serde_json::Value) -> Fake {
        self.tops.insert(env.into(), v(top));
        self
    }
    fn sls(mut self, env: &str, names: &[&str]) -> Fake {
        let mut names = strs(names);
        names.sort();
        self.sls.insert(env.into(), names);
        self
    }
    fn include(mut self, env: &str, sls: &str, top: serde_json::Value) -> Fake {
        self.includes.insert((env.into(), sls.into()), v(top));
        self
    }
}

impl TopLoader for Fake {
    fn render_top(&mut self, env: &str) -> Result<Option<Value>, Diagnostic> {
        self.rendered.push(format!("{env}:top"));
        if self.fail.as_deref() == Some(env) {
            return Err(Diagnostic::new(codes::TOP_RENDER, "boom"));
        }
        Ok(self.tops.get(env).cloned())
    }
    fn list_sls(&mut self, env: &str) -> Vec<String> {
        self.sls.get(env).cloned().unwrap_or_default()
    }
    fn render_include(&mut self, env: &str, sls: &str) -> Result<Option<Value>, Diagnostic> {
        self.rendered.push(format!("{env}:{sls}"));
        Ok(self
            .includes
            .get(&(env.to_string(), sls.to_string()))
            .cloned())
    }
}

fn grains() -> Value {
    v(json!({"id": "web01", "os": "Debian", "os_family": "Debian", "kernel": "Linux"}))
}

/// The whole top stage, then the render plan with `mods` de-duplication:
/// the `(env, sls)` renders in order, and every error message.
fn run(
    o: &TopOptions,
    fake: &mut Fake,
    grains: &Value,
    pillar: &Value,
) -> (Vec<(String, String)>, Vec<String>) {
    let fs_envs: Vec<String> = o.file_roots_envs.clone();
    let known = known_envs(o, &fs_envs);
    let (top, mut diags) = get_top(o, &fs_envs, fake);
    let node_opts = v(json!({}));
    let minion = Minion {
        id: "web01",
        grains,
        pillar,
        opts: &node_opts,
    };
    let (matches, d2) = top_matches(&top, &minion, o, &known);
    diags.extend(d2);
    let mut list = |env: &str| fake.list_sls(env);
    let mut out = Vec::new();
    let mut errors: Vec<String> = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.clone())
        .collect();
    let mut mods = std::collections::HashSet::new();
    for step in plan_highstate(&matches, &known, &mut list) {
        match step {
            RenderStep::Error(d) => errors.push(d.message),
            RenderStep::Render { env, sls, .. } => {
                if mods.insert(format!("{env}:{sls}")) {
                    out.push((env, sls));
                }
            }
        }
    }
    (out, errors)
}

fn pairs(xs: &[(&str, &str)]) -> Vec<(String, String)> {
    xs.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// `(__env__, __sls__)` of each ID in a corpus case's expected highstate,
/// consecutive repeats folded: the order SLS files were rendered in.
fn expected(case: &str) -> Vec<(String, String)> {
    let path = format!(
        "{}/tests/corpus/{case}/expected/highstate.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("corpus file");
    let j: serde_json::Value = serde_json::from_str(&text).expect("json");
    let mut out: Vec<(String, String)> = Vec::new();
    for (id, body) in j.as_object().expect("highstate is a dict") {
        if id.starts_with("__") {
            continue;
        }
        let pair = (
            body["__env__"].as_str().unwrap().to_string(),
            body["__sls__"].as_str().unwrap().to_string(),
        );
        if out.last() != Some(&pair) {
            out.push(pair);
        }
    }
    out
}

// --- env selection ---------------------------------------------------------

#[test]
fn env_order_rules() {
    let o = opts(&["base", "dev", "prod"]);
    assert_eq!(get_envs(&o, &[]), strs(&["base", "dev", "prod"]));
    let o2 = opts(&["dev", "prod"]);
    assert_eq!(get_envs(&o2, &[]), strs(&["base", "dev", "prod"]));
    assert_eq!(
        get_envs(&o2, &strs(&["zzz", "dev"])),
        strs(&["base", "dev", "prod", "zzz"])
    );
    let mut o3 = opts(&["base", "dev", "prod", "qa"]);
    o3.env_order = strs(&["prod", "base", "prod", "nope", "dev"]);
    let fs = strs(&["base", "dev", "prod", "qa"]);
    assert_eq!(get_envs(&o3, &fs), strs(&["prod", "base", "dev"]));
    assert_eq!(get_envs(&o3, &[]), strs(&["prod", "base", "nope", "dev"]));
    assert_eq!(envs_to_read(&o3, &fs), strs(&["prod", "base", "dev"]));
    assert_eq!(known_envs(&o3, &fs), strs(&["base", "prod", "dev"]));

    let mut forced = opts(&["base", "dev"]);
    forced.saltenv = Some("dev".into());
    forced.state_top_saltenv = Some("base".into());
    assert_eq!(envs_to_read(&forced, &[]), strs(&["dev"]));
    forced.saltenv = Some(String::new());
    assert_eq!(
        envs_to_read(&forced, &[]),
        strs(&["base"]),
        "state_top_saltenv"
    );
    forced.state_top_saltenv = None;
    assert_eq!(envs_to_read(&forced, &[]), strs(&["base", "dev"]));
}

// --- gathering -------------------------------------------------------------

#[test]
fn gather_reads_every_env_and_missing_tops_are_empty() {
    let o = opts(&["base", "dev"]);
    let mut fake = Fake::default().top("base", json!({"base": {"*": ["a"]}}));
    let tops = gather_tops(&o, &[], &mut fake).unwrap();
    assert_eq!(
        tops.keys().cloned().collect::<Vec<_>>(),
        strs(&["base", "dev"])
    );
    assert_eq!(tops["dev"], vec![v(json!({}))]);
    assert_eq!(fake.rendered, strs(&["base:top", "dev:top"]));
}

#[test]
fn gather_follows_includes_once_and_one_level() {
    let o = opts(&["base"]);
    let mut fake = Fake::default()
        .top(
            "base",
            json!({"include": ["tops.*", "tops.a"], "base": {"*": ["a"]}}),
        )
        .sls("base", &["tops.a", "tops.b", "other"])
        .include(
            "base",
            "tops.a",
            json!({"include": ["other"], "base": {"x": ["ta"]}}),
        )
        .include("base", "tops.b", json!({"base": {"y": ["tb"]}}));
    let tops = gather_tops(&o, &[], &mut fake).unwrap();
    assert_eq!(
        fake.rendered,
        strs(&["base:top", "base:tops.a", "base:tops.b"])
    );
    assert_eq!(tops["base"].len(), 3);
    assert!(tops["base"][0].get("include").is_none(), "include popped");
    let (top, diags) = merge_tops(&tops, &o);
    assert!(diags.is_empty());
    let base = &top[&Value::from("base")];
    assert_eq!(
        base.keys().cloned().collect::<Vec<_>>(),
        vec![Value::from("*"), Value::from("x"), Value::from("y")]
    );
}

#[test]
fn gather_render_failure_gives_empty_top() {
    let o = opts(&["base", "dev"]);
    let mut fake = Fake {
        fail: Some("dev".into()),
        ..Fake::default().top("base", json!({"base": {"*": ["a"]}}))
    };
    assert!(gather_tops(&o, &[], &mut fake).is_err());
    let (top, diags) = get_top(&o, &[], &mut fake);
    assert!(top.is_empty());
    assert_eq!(diags.len(), 1);
}

#[test]
fn same_without_default_top_is_a_render_error() {
    let mut o = opts(&["base"]);
    o.top_file_merging_strategy = "same".into();
    o.default_top = String::new();
    let mut fake = Fake::default().top("base", json!({"base": {"*": ["a"]}}));
    let err = gather_tops(&o, &[], &mut fake).unwrap_err();
    assert!(err.message.contains("no default_top"));
    o.saltenv = Some("base".into());
    assert!(gather_tops(&o, &[], &mut fake).is_ok());
}

// --- merging ---------------------------------------------------------------

fn tops(entries: &[(&str, serde_json::Value)]) -> Tops {
    let mut t = Tops::new();
    for (env, top) in entries {
        t.entry(env.to_string()).or_default().push(v(top.clone()));
    }
    t
}

fn shape(top: &MergedTop) -> serde_json::Value {
    let mut m = Map::new();
    for (env, targets) in top {
        m.insert(env.clone(), Value::Map(targets.clone()));
    }
    Value::Map(m).to_json()
}

#[test]
fn merge_base_is_authoritative() {
    let t = tops(&[
        (
            "base",
            json!({"base": {"*": ["common"]}, "dev": {"web*": ["from_base"]}}),
        ),
        (
            "dev",
            json!({"dev": {"*": ["from_dev"]}, "base": {"*": ["sneaky"]}}),
        ),
        ("prod", json!({"prod": {"*": ["p"]}, "dev": {"*": ["x"]}})),
    ]);
    let (top, d) = merge_tops(&t, &opts(&["base", "dev", "prod"]));
    assert!(d.is_empty());
    assert_eq!(
        shape(&top),
        json!({"base": {"*": ["common"]}, "dev": {"web*": ["from_base"]}, "prod": {"*": ["p"]}})
    );
}

#[test]
fn merge_takes_foreign_sections_of_base_and_skips_empty_ones() {
    // An empty section in base does not claim the env.
    let t = tops(&[
        ("base", json!({"dev": {}, "base": {"*": ["a"]}})),
        ("dev", json!({"dev": {"*": ["d"]}})),
    ]);
    let (top, _) = merge_tops(&t, &opts(&["base", "dev"]));
    assert_eq!(
        shape(&top),
        json!({"base": {"*": ["a"]}, "dev": {"*": ["d"]}})
    );
}

#[test]
fn merge_later_base_target_overwrites_in_place() {
    let mut t = tops(&[("base", json!({"base": {"a": ["1"], "b": ["2"]}}))]);
    t["base"].push(v(json!({"base": {"a": ["3"]}})));
    let (top, _) = merge_tops(&t, &opts(&["base"]));
    assert_eq!(shape(&top), json!({"base": {"a": ["3"], "b": ["2"]}}));
}

#[test]
fn merge_non_base_include_cannot_add_to_its_own_section() {
    let mut t = tops(&[("base", json!({})), ("dev", json!({"dev": {"a": ["1"]}}))]);
    t["dev"].push(v(json!({"dev": {"b": ["2"]}})));
    let (top, _) = merge_tops(&t, &opts(&["base", "dev"]));
    assert_eq!(shape(&top), json!({"dev": {"a": ["1"]}}));
}

#[test]
fn merge_bad_section_gives_empty_top() {
    for bad in [json!(null), json!("x"), json!(["a"]), json!(3)] {
        let t = tops(&[("base", json!({"base": bad}))]);
        let (top, d) = merge_tops(&t, &opts(&["base"]));
        assert!(top.is_empty());
        assert_eq!(
            d[0].message,
            "Unable to render top file: Unable to render top file. No targets found."
        );
    }
    let t = tops(&[("base", json!({"base": ""}))]);
    let (top, d) = merge_tops(&t, &opts(&["base"]));
    assert!(
        top.is_empty() && d.is_empty(),
        "empty string: nothing to iterate"
    );
    let t = tops(&[("base", json!(["not", "a", "dict"]))]);
    let (top, d) = merge_tops(&t, &opts(&["base"]));
    assert!(top.is_empty());
    assert_eq!(d[0].severity, Severity::Error);
}

#[test]
fn merge_same() {
    let mut o = opts(&["base", "dev", "prod", "qa"]);
    o.top_file_merging_strategy = "same".into();
    let t = tops(&[
        (
            "base",
            json!({"base": {"*": ["common"]}, "dev": {"*": ["dev_from_base"]},
                   "prod": {"*": ["prod_from_base"]}}),
        ),
        (
            "dev",
            json!({"dev": {"*": ["dev_own"]}, "base": {"*": ["base_from_dev"]}}),
        ),
        ("prod", json!({})),
        ("qa", json!({})),
    ]);
    let (top, d) = merge_tops(&t, &o);
    assert_eq!(
        shape(&top),
        json!({"base": {"*": ["common"]}, "dev": {"*": ["dev_own"]},
               "prod": {"*": ["prod_from_base"]}})
    );
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].severity, Severity::Warning);
    assert!(d[0]
        .message
        .contains("'qa' saltenv has no top file, and no matches"));

    let t2 = tops(&[("base", json!({})), ("dev", json!({}))]);
    let (top, d) = merge_tops(&t2, &o);
    assert!(top.is_empty());
    assert_eq!(d.len(), 2);
    assert!(d[1].message.contains("also has no top file"));
}

#[test]
fn merge_all() {
    let mut o = opts(&["base", "dev"]);
    o.top_file_merging_strategy = "merge_all".into();
    let t = tops(&[
        ("base", json!({"base": {"*": ["a"]}, "dev": {"*": ["d1"]}})),
        (
            "dev",
            json!({"dev": {"*": ["d2", "d1"]}, "base": {"*": ["b", "a"], "web*": ["c"]}}),
        ),
    ]);
    let (top, d) = merge_tops(&t, &o);
    assert!(d.is_empty());
    assert_eq!(
        shape(&top),
        json!({"base": {"*": ["a", "b"], "web*": ["c"]}, "dev": {"*": ["d1", "d2"]}})
    );
}

#[test]
fn merge_all_match_option_and_dict_items() {
    let mut o = opts(&["base", "dev"]);
    o.top_file_merging_strategy = "merge_all".into();
    let t = tops(&[
        (
            "base",
            json!({"base": {"t": [{"match": "glob"}, "a", {"dev": "x"}], "u": ["a"]}}),
        ),
        (
            "dev",
            json!({"base": {"t": ["b", {"match": "pcre"}], "u": [{}, "b"]}}),
        ),
    ]);
    let (top, _) = merge_tops(&t, &o);
    // The later list's last dict wins; `{dev: x}` was the earlier list's
    // last dict and is lost. An empty dict is falsy: the earlier wins (none).
    assert_eq!(
        shape(&top),
        json!({"base": {"t": [{"match": "pcre"}, "a", "b"], "u": ["a", "b"]}})
    );
}

#[test]
fn unknown_strategy_warns_and_merges() {
    let mut o = opts(&["base", "dev"]);
    o.top_file_merging_strategy = "bogus".into();
    let t = tops(&[
        ("base", json!({"base": {"*": ["a"]}})),
        ("dev", json!({"dev": {"*": ["d"]}, "base": {"x": ["no"]}})),
    ]);
    let (top, d) = merge_tops(&t, &o);
    assert_eq!(
        shape(&top),
        json!({"base": {"*": ["a"]}, "dev": {"*": ["d"]}})
    );
    assert_eq!(
        d[0].message,
        "Invalid top_file_merging_strategy 'bogus', falling back to 'merge'"
    );
    assert_eq!(d[0].severity, Severity::Warning);
}

// --- verify ----------------------------------------------------------------

#[test]
fn verify_messages() {
    let mut top = MergedTop::new();
    let mut base = Map::new();
    base.insert("ok".into(), v(json!(["a", {"match": "glob"}])));
    base.insert("str".into(), v(json!("a")));
    base.insert(
        "empty".into(),
        v(json!(["", {"match": ""}, {"match": null}])),
    );
    top.insert("base".into(), base);
    let mut weird = Map::new();
    weird.insert("*".into(), v(json!(["x"])));
    top.insert(Value::Int(5), weird.clone());
    top.insert("".into(), weird);
    let msgs: Vec<String> = verify_tops(&top).into_iter().map(|d| d.message).collect();
    assert_eq!(
        msgs,
        strs(&[
            "Malformed topfile: state declarations for matcher 'str' in saltenv 'base' are not formed as a list (got str)",
            "Environment base contains an empty sls index",
            "Improperly formatted top file matcher in saltenv {'match': ''}:  file",
            "Improperly formatted top file matcher in saltenv {'match': None}: None file",
            "Environment 5 in top file is not formed as a string",
            "Empty saltenv statement in top file",
        ])
    );
}

// --- matching --------------------------------------------------------------

fn matches_of(top: serde_json::Value, o: &TopOptions) -> (TopMatches, Vec<Diagnostic>) {
    let mut merged = MergedTop::new();
    for (env, targets) in top.as_object().unwrap() {
        merged.insert(
            Value::from(env.as_str()),
            v(targets.clone()).as_map().unwrap().clone(),
        );
    }
    let g = grains();
    let p = v(json!({}));
    let no = v(json!({}));
    let minion = Minion {
        id: "web01",
        grains: &g,
        pillar: &p,
        opts: &no,
    };
    let known = known_envs(o, &[]);
    top_matches(&merged, &minion, o, &known)
}

fn shape_matches(m: &TopMatches) -> serde_json::Value {
    let mut o = serde_json::Map::new();
    for (env, sls) in m {
        o.insert(env.clone(), json!(sls));
    }
    serde_json::Value::Object(o)
}

fn to_matches(j: serde_json::Value) -> TopMatches {
    let mut m = TopMatches::new();
    for (env, sls) in j.as_object().unwrap() {
        let list = sls.as_array().unwrap().iter();
        m.insert(
            env.clone(),
            list.map(|s| s.as_str().unwrap().to_string()).collect(),
        );
    }
    m
}

#[test]
fn match_order_env_items_and_duplicates() {
    let o = opts(&["base", "dev"]);
    let (m, d) = matches_of(
        json!({
            "base": {
                "*": ["common", {"dev": "devtool"}, "common", {"nosuch": "x"}, 7, null],
                "db*": ["db"],
                "web*": [{"match": "glob"}, "web", {"match": "glob", "dev": "late"}],
            },
            "dev": {"*": ["devapp"]},
        }),
        &o,
    );
    assert!(d.is_empty());
    assert_eq!(
        shape_matches(&m),
        json!({"base": ["common", "common", "web"], "dev": ["devtool", "late", "devapp"]})
    );
}

#[test]
fn env_appears_when_a_target_matched_even_if_empty() {
    let o = opts(&["base", "dev"]);
    let (m, _) = matches_of(
        json!({"base": {"*": [{"dev": "x"}]}, "dev": {"nomatch": ["y"]}}),
        &o,
    );
    assert_eq!(shape_matches(&m), json!({"base": [], "dev": ["x"]}));
    let (m, _) = matches_of(json!({"base": {"db*": ["a"]}}), &o);
    assert!(m.is_empty(), "no match at all");
}

#[test]
fn match_string_body_and_subfilter() {
    let o = opts(&["base"]);
    let (m, d) = matches_of(
        json!({"base": {
            "*": "single",
            "web*": [{"subfilter": {"G@os:Debian": ["sub_yes"], "G@os:RedHat": ["sub_no"]}}, "after"],
            "db*": [{"subfilter": {"*": ["never"]}}],
        }}),
        &o,
    );
    assert_eq!(
        shape_matches(&m),
        json!({"base": ["single", "sub_yes", "after"]})
    );
    assert_eq!(
        d.len(),
        1,
        "dict emptied by subfilter: Salt's popitem fails"
    );
}

#[test]
fn forced_saltenv_filters_sections() {
    let mut o = opts(&["base", "dev"]);
    o.saltenv = Some("dev".into());
    let (m, _) = matches_of(
        json!({"base": {"*": ["b", {"dev": "from_base"}]}, "dev": {"*": ["d"]}}),
        &o,
    );
    assert_eq!(shape_matches(&m), json!({"dev": ["d"]}));
}

#[test]
fn matcher_errors_are_reported() {
    let o = opts(&["base"]);
    let (m, d) = matches_of(
        json!({"base": {
            "x": [{"match": "bogus"}, "a"],
            "web(": [{"match": "pcre"}, "b"],
            "n": null,
            "*": ["ok"],
        }}),
        &o,
    );
    assert_eq!(shape_matches(&m), json!({"base": ["ok"]}));
    assert_eq!(d.len(), 3);
    assert!(d[0].message.contains("Unknown matcher 'bogus'"));
    assert!(d[2].message.contains("(got NoneType)"));
}

#[test]
fn master_tops_merge() {
    let mut m: TopMatches = IndexMap::new();
    m.insert("base".into(), strs(&["a", "b"]));
    let mut ext: TopMatches = IndexMap::new();
    ext.insert("base".into(), strs(&["b", "c"]));
    ext.insert("dev".into(), strs(&["d"]));
    let mut m1 = m.clone();
    merge_ext_tops(&mut m1, &ext, false);
    assert_eq!(
        shape_matches(&m1),
        json!({"base": ["a", "b", "c"], "dev": ["d"]})
    );
    merge_ext_tops(&mut m, &ext, true);
    assert_eq!(
        shape_matches(&m),
        json!({"base": ["b", "c", "a"], "dev": ["d"]})
    );
}

// --- render plan -----------------------------------------------------------

fn plan(matches: serde_json::Value, known: &[&str], fake: &mut Fake) -> Vec<String> {
    let m = to_matches(matches);
    let mut list = |env: &str| fake.list_sls(env);
    plan_highstate(&m, &strs(known), &mut list)
        .into_iter()
        .map(|s| match s {
            RenderStep::Error(d) => format!("ERR {}", d.message),
            RenderStep::Render {
                env,
                sls,
                sls_match,
            } => format!("{env}:{sls} ({sls_match})"),
        })
        .collect()
}

#[test]
fn plan_expands_globs_in_sorted_order() {
    let mut fake = Fake::default().sls(
        "base",
        &[
            "solo",
            "tools.c",
            "tools.b",
            "tools.a",
            "apps.zed",
            "apps.mid",
            "apps.mid.deep",
            "apps.alpha",
        ],
    );
    assert_eq!(
        plan(
            json!({"base": ["apps.*", "tools.[ab]", "solo", "missing"]}),
            &["base"],
            &mut fake
        ),
        strs(&[
            "base:apps.alpha (apps.*)",
            "base:apps.mid (apps.*)",
            "base:apps.mid.deep (apps.*)",
            "base:apps.zed (apps.*)",
            "base:tools.a (tools.[ab])",
            "base:tools.b (tools.[ab])",
            "base:solo (solo)",
            "base:missing (missing)",
        ])
    );
}

#[test]
fn plan_unknown_env_reuses_stale_list() {
    let mut fake = Fake::default().sls("base", &["main", "other"]);
    // Unknown env first: the literal name.
    assert_eq!(
        plan(
            json!({"nosuchenv": ["other"], "base": ["main"]}),
            &["base"],
            &mut fake
        ),
        strs(&[
            "ERR No matching salt environment for environment 'nosuchenv' found",
            "nosuchenv:other (other)",
            "base:main (main)",
        ])
    );
    // Unknown env after base: base's last list is rendered again under it.
    assert_eq!(
        plan(
            json!({"base": ["main"], "nosuchenv": ["other", "x"]}),
            &["base"],
            &mut fake
        ),
        strs(&[
            "base:main (main)",
            "ERR No matching salt environment for environment 'nosuchenv' found",
            "nosuchenv:main (other)",
            "ERR No matching salt environment for environment 'nosuchenv' found",
            "nosuchenv:main (x)",
        ])
    );
    // An `__env__` env stands in for unknown ones.
    let mut fake = Fake::default().sls("__env__", &["feature"]);
    assert_eq!(
        plan(json!({"br1": ["feat*"]}), &["base", "__env__"], &mut fake),
        strs(&["br1:feature (feat*)"])
    );
}

#[test]
fn missing_sls_rewrite() {
    let msg = "Specified SLS other in saltenv nosuchenv is not available on the salt master or through a configured fileserver";
    assert_eq!(
        missing_sls_message(msg, "other", "nosuchenv").as_deref(),
        Some("No matching sls found for 'other' in env 'nosuchenv'")
    );
    assert_eq!(missing_sls_message(msg, "main", "nosuchenv"), None);
}

// --- corpus cases ----------------------------------------------------------

fn corpus(case: &str, o: &TopOptions, mut fake: Fake, grains: Value, pillar: Value) {
    let (got, errors) = run(o, &mut fake, &grains, &pillar);
    assert!(errors.is_empty(), "{case}: {errors:?}");
    assert_eq!(got, expected(case), "{case}");
}

fn one_env(sls: &[&str]) -> Fake {
    Fake::default().sls("base", sls)
}

#[test]
fn corpus_001_glob() {
    let top = json!({"base": {
        "*": ["common"], "db*": ["db"], "web*": ["web"], "web0?": ["webq"],
        "web[0-9]1": ["webclass"], "web[!0]*": ["webneg"], "WEB01": ["upper"],
    }});
    let fake =
        one_env(&["common", "db", "web", "webq", "webclass", "webneg", "upper"]).top("base", top);
    corpus(
        "001-top-glob",
        &opts(&["base"]),
        fake,
        grains(),
        v(json!({})),
    );
}

#[test]
fn corpus_002_pcre() {
    let top = json!({"base": {
        "web": [{"match": "pcre"}, "pcre_prefix"],
        "^web\\d+$": [{"match": "pcre"}, "pcre_full"],
        "eb01": [{"match": "pcre"}, "pcre_mid"],
        "E@web0[0-9]": ["compound_e"],
        "E@^db": ["compound_e_db"],
        "web.*|db.*": [{"match": "pcre"}, "pcre_alt"],
    }});
    corpus(
        "002-top-pcre",
        &opts(&["base"]),
        Fake::default().top("base", top),
        grains(),
        v(json!({})),
    );
}

#[test]
fn corpus_003_list() {
    let top = json!({"base": {
        "db01,web01": [{"match": "list"}, "in_list"],
        "db01,web011": [{"match": "list"}, "not_in_list"],
        "web01": [{"match": "list"}, "single"],
        "L@db01,web01,app01": ["compound_list"],
        "L@db01": ["compound_list_no"],
    }});
    corpus(
        "003-top-list",
        &opts(&["base"]),
        Fake::default().top("base", top),
        grains(),
        v(json!({})),
    );
}

#[test]
fn corpus_004_grain() {
    let top = json!({"base": {
        "os:Debian": [{"match": "grain"}, "g_os"],
        "roles:web": [{"match": "grain"}, "g_list"],
        "os_family:Deb*": [{"match": "grain"}, "g_glob"],
        "site:dc:name:east": [{"match": "grain"}, "g_nested"],
        "os:RedHat": [{"match": "grain"}, "g_no"],
        "osmajorrelease:12": [{"match": "grain"}, "g_int"],
        "os:^Deb": [{"match": "grain_pcre"}, "g_pcre"],
        "G@roles:cache": ["g_compound"],
        "P@os:D.*n": ["g_compound_pcre"],
        "G@roles:db": ["g_compound_no"],
    }});
    let g = v(
        json!({"id": "web01", "os": "Debian", "os_family": "Debian", "kernel": "Linux",
        "osmajorrelease": 12, "roles": ["web", "cache"], "site": {"dc": {"name": "east"}}}),
    );
    corpus(
        "004-top-grain",
        &opts(&["base"]),
        Fake::default().top("base", top),
        g,
        v(json!({})),
    );
}

#[test]
fn corpus_005_pillar() {
    let top = json!({"base": {
        "role:frontend": [{"match": "pillar"}, "p_role"],
        "app:tier:web": [{"match": "pillar"}, "p_nested"],
        "I@role:front*": ["p_compound_glob"],
        "role:^front": [{"match": "pillar_pcre"}, "p_pcre"],
        "role:front*": [{"match": "pillar_exact"}, "p_exact_glob"],
        "tags:blue": [{"match": "pillar_exact"}, "p_exact"],
        "J@role:^fr": ["p_j"],
        "I@role:backend": ["p_no"],
        "I@tags:red": ["p_list"],
    }});
    let p = v(json!({"role": "frontend", "app": {"tier": "web"}, "tags": ["red", "blue"]}));
    corpus(
        "005-top-pillar",
        &opts(&["base"]),
        Fake::default().top("base", top),
        grains(),
        p,
    );
}

#[test]
fn corpus_006_compound() {
    let top = json!({"base": {
        "web* and G@kernel:Linux": ["c_and"],
        "web* and not G@kernel:Windows": ["c_and_not"],
        "db* or G@os:Debian": ["c_or"],
        "( db* or web* ) and G@os_family:Debian": ["c_paren"],
        "not web*": ["c_not_no"],
        "web* and": ["c_malformed"],
        "X@foo": ["c_unknown_prefix"],
        "db* or not G@os:RedHat": ["c_or_not"],
        "web01 and L@web01,db01 and E@^w": ["c_three"],
    }});
    corpus(
        "006-top-compound",
        &opts(&["base"]),
        Fake::default().top("base", top),
        grains(),
        v(json!({})),
    );
}

#[test]
fn corpus_007_match_key() {
    let top = json!({"base": {
        "db01,web01": ["m_after", {"match": "list"}],
        "os:Debian": [{"match": "pcre"}, "m_last_grain", {"match": "grain"}],
        "kernel:Linux": [{"match": "grain"}, {"match": "pcre"}, "m_last_pcre"],
        "web01": [{"match": "glob"}, "m_glob"],
    }});
    corpus(
        "007-top-match-key",
        &opts(&["base"]),
        Fake::default().top("base", top),
        grains(),
        v(json!({})),
    );
}

#[test]
fn corpus_008_multi_env() {
    let fake = Fake::default()
        .top(
            "base",
            json!({"base": {"*": ["common", {"dev": "devtool"}]}}),
        )
        .top(
            "dev",
            json!({"dev": {"*": ["devapp"]}, "base": {"*": ["sneaky"]}}),
        );
    corpus(
        "008-top-multi-env",
        &opts(&["base", "dev"]),
        fake,
        grains(),
        v(json!({})),
    );
}

#[test]
fn corpus_009_base_authoritative() {
    let fake = Fake::default()
        .top(
            "base",
            json!({"base": {"*": ["common"]}, "dev": {"web*": ["from_base_top"]}}),
        )
        .top("dev", json!({"dev": {"*": ["from_dev_top"]}}));
    corpus(
        "009-top-base-authoritative",
        &opts(&["base", "dev"]),
        fake,
        grains(),
        v(json!({})),
    );
}

#[test]
fn corpus_010_same() {
    let mut o = opts(&["base", "dev", "prod"]);
    o.top_file_merging_strategy = "same".into();
    let fake = Fake::default()
        .top(
            "base",
            json!({"base": {"*": ["common"]}, "dev": {"*": ["dev_from_base"]},
                   "prod": {"*": ["prod_from_base"]}}),
        )
        .top(
            "dev",
            json!({"dev": {"*": ["dev_own"]}, "base": {"*": ["base_from_dev"]}}),
        );
    corpus("010-top-strategy-same", &o, fake, grains(), v(json!({})));
}

#[test]
fn corpus_011_merge_all() {
    let mut o = opts(&["base", "dev"]);
    o.top_file_merging_strategy = "merge_all".into();
    let fake = Fake::default()
        .top("base", json!({"base": {"*": ["a"]}, "dev": {"*": ["d1"]}}))
        .top(
            "dev",
            json!({"dev": {"*": ["d2", "d1"]}, "base": {"*": ["b", "a"], "web*": ["c"]}}),
        );
    corpus(
        "011-top-strategy-merge-all",
        &o,
        fake,
        grains(),
        v(json!({})),
    );
}

#[test]
fn corpus_012_env_order() {
    let mut o = opts(&["base", "dev", "prod", "qa"]);
    o.top_file_merging_strategy = "merge_all".into();
    o.env_order = strs(&["prod", "base", "dev"]);
    let fake = Fake::default()
        .top("base", json!({"base": {"*": ["b1"]}}))
        .top("dev", json!({"dev": {"*": ["d1"]}}))
        .top("qa", json!({"qa": {"*": ["q1"]}}))
        .top("prod", json!({"prod": {"*": ["p1"]}}));
    corpus("012-top-env-order", &o, fake, grains(), v(json!({})));
}

#[test]
fn corpus_014_sls_glob() {
    let fake = Fake::default()
        .top(
            "base",
            json!({"base": {"*": ["apps.*", "tools.[ab]", "solo"]}}),
        )
        .sls(
            "base",
            &[
                "solo",
                "tools.b",
                "tools.a",
                "tools.c",
                "apps.alpha",
                "apps.zed",
                "apps.mid.deep",
                "apps.mid",
            ],
        );
    corpus(
        "014-top-sls-glob",
        &opts(&["base"]),
        fake,
        grains(),
        v(json!({})),
    );
}

#[test]
fn corpus_109_no_match() {
    let mut fake = Fake::default().top("base", json!({"base": {"db*": ["db"]}}));
    let (got, errors) = run(&opts(&["base"]), &mut fake, &grains(), &v(json!({})));
    assert!(got.is_empty() && errors.is_empty());
    assert_eq!(
        expected("109-err-no-top-match"),
        Vec::<(String, String)>::new()
    );
}

#[test]
fn corpus_120_unknown_env_first() {
    let mut fake = Fake::default()
        .top(
            "base",
            json!({"nosuchenv": {"*": ["other"]}, "base": {"*": ["main"]}}),
        )
        .sls("base", &["main"]);
    let (got, errors) = run(&opts(&["base"]), &mut fake, &grains(), &v(json!({})));
    assert_eq!(got, pairs(&[("nosuchenv", "other"), ("base", "main")]));
    assert_eq!(
        errors,
        strs(&["No matching salt environment for environment 'nosuchenv' found"])
    );
}

#[test]
fn corpus_123_forced_saltenv() {
    let mut o = opts(&["base", "dev"]);
    o.saltenv = Some("dev".into());
    let fake = Fake::default()
        .top(
            "base",
            json!({"base": {"*": ["b"]}, "dev": {"*": ["d-from-base-top"]}}),
        )
        .top("dev", json!({"dev": {"*": ["d"]}, "base": {"*": ["b"]}}));
    corpus("123-top-saltenv-option", &o, fake, grains(), v(json!({})));
}
