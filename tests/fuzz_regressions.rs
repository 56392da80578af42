//! Every input a fuzzer found (crash, hang, difference) stays a test:
//! `tests/fuzz-regressions/<target>/<name>` is the input as the fuzz target
//! takes it, `<name>.expected` what lowstate must do with it now (the
//! outcome below, one line per step). `FUZZ_REGRESSIONS_BLESS=1 cargo test
//! --test fuzz_regressions` writes missing `.expected` files (review them).

use lowstate::hot::compile as hot_compile;
use lowstate::hot::fuzzing::input_for;
use lowstate::salt::fuzzing::session_for_input;
use lowstate::yaml::{dump, load_value, load_with, Dialect, DumpOptions, LoadOptions};
use std::path::{Path, PathBuf};

/// What a diagnostic list says, one line each: `code: message` (first
/// line of the message).
fn lines_of(ds: &[lowstate::Diagnostic]) -> String {
    ds.iter()
        .map(|d| {
            let first = d.message.lines().next().unwrap_or("");
            format!("{}: {first}", d.code.name)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn yaml_load(text: &str) -> String {
    [Dialect::Salt, Dialect::Heat]
        .iter()
        .map(|&dialect| {
            let opts = LoadOptions::new(dialect, &lowstate::limits::Limits::default());
            match load_with(text, &opts) {
                Ok(n) => format!("{dialect:?}: ok {}", n.to_value().to_json()),
                Err(e) => format!("{dialect:?}: error at {:?}: {}", e.span, e.message),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn yaml_roundtrip(text: &str) -> String {
    let value = match load_value(text, Dialect::Salt) {
        Ok(v) => v,
        Err(e) => return format!("error: {}", e.message),
    };
    [None, Some(false), Some(true)]
        .iter()
        .map(|&flow| {
            let dumped = dump(&value, DumpOptions { flow });
            match load_value(&dumped, Dialect::Salt) {
                Ok(v) if v == value => format!("{flow:?}: same"),
                Ok(v) => format!("{flow:?}: differs: {}", v.to_json()),
                Err(e) => format!("{flow:?}: does not load: {}", e.message),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The fast path's verdict (it must never differ), then the load itself.
fn yaml_fastpath(text: &str) -> String {
    let verdict = match lowstate::yaml::fastpath::check(text) {
        lowstate::yaml::fastpath::Check::Declined => "declined".to_string(),
        lowstate::yaml::fastpath::Check::Agrees => "served".to_string(),
        lowstate::yaml::fastpath::Check::Differs(how) => format!("DIFFERS\n{how}"),
    };
    format!("fast path: {verdict}\n{}", yaml_load(text))
}

fn salt_compile(data: &[u8], dir: &Path) -> String {
    let session = session_for_input(dir, data).expect("tree written");
    match session.lowstate() {
        Ok(chunks) => {
            let run = session.simulate(&Default::default());
            format!(
                "ok: {} states; simulate: {}",
                chunks.len(),
                match run {
                    Ok(r) => format!("{} runs", r.states.len()),
                    Err(d) => lines_of(&d.0),
                }
            )
        }
        Err(d) => lines_of(&d.0),
    }
}

fn hot(text: &str) -> String {
    let c = hot_compile(&input_for(text, None));
    if c.ok() {
        format!("ok: {} resources", c.plan.nodes.len())
    } else {
        lines_of(&c.diagnostics)
    }
}

#[test]
fn every_fuzz_finding_keeps_its_outcome() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    let bless = std::env::var_os("FUZZ_REGRESSIONS_BLESS").is_some();
    let work: PathBuf =
        std::env::temp_dir().join(format!("lowstate-fuzz-regr-{}", std::process::id()));
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut targets: Vec<_> = std::fs::read_dir(&root).unwrap().flatten().collect();
    targets.sort_by_key(|e| e.file_name());
    for target in targets {
        let name = target.file_name().to_string_lossy().into_owned();
        let mut inputs: Vec<PathBuf> = std::fs::read_dir(target.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_none_or(|e| e != "expected"))
            .collect();
        inputs.sort();
        for input in inputs {
            let data = std::fs::read(&input).unwrap();
            let text = String::from_utf8_lossy(&data);
            let got = match name.as_str() {
                "yaml_load" => yaml_load(&text),
                "yaml_roundtrip" => yaml_roundtrip(&text),
                "yaml_fastpath" => yaml_fastpath(&text),
                "salt_compile" => salt_compile(&data, &work),
                "hot_compile" => hot(&text),
                other => panic!("unknown fuzz target folder {other}"),
            };
            let expected_path = input.with_extension("expected");
            match std::fs::read_to_string(&expected_path) {
                Ok(want) if want.trim_end() == got.trim_end() => {}
                Ok(want) => failures.push(format!(
                    "{}:\n  expected: {}\n  got:      {}",
                    input.display(),
                    want.trim_end(),
                    got
                )),
                Err(_) if bless => std::fs::write(&expected_path, format!("{got}\n")).unwrap(),
                Err(_) => failures.push(format!("{}: no .expected file", input.display())),
            }
            checked += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    assert!(checked >= 2, "only {checked} regression inputs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
