//! The HOT compiler: the input is a template, optionally followed by a line
//! `#--env--` and one environment file (`lowstate::hot::fuzzing`). Every
//! input gives a document (ok or not) with diagnostics — never a panic, a
//! hang or unbounded memory.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lowstate::hot::compile;
use lowstate::hot::fuzzing::input_for;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let files = std::env::temp_dir().join("lowstate-fuzz-hot-files");
    let compiled = compile(&input_for(text, Some(files)));
    let _ = compiled.document.to_json_pretty();
    let _ = lowstate::plan::to_dot(&compiled.plan);
});
