//! The HOT compiler: the input is a template, optionally followed by a line
//! `#--env--` and one environment file (`lowstate::hot::fuzzing`). Every
//! input gives a document (ok or not) with diagnostics — never a panic, a
//! hang or unbounded memory; compiled as stack create does and as the
//! editor does (`Unset::Deferred`: parameters without a value kept
//! symbolic).
#![no_main]

use libfuzzer_sys::fuzz_target;
use lowstate::hot::fuzzing::input_for;
use lowstate::hot::params::Unset;
use lowstate::hot::{compile, Input};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let files = std::env::temp_dir().join("lowstate-fuzz-hot-files");
    let input = input_for(text, Some(files));
    for unset in [Unset::Error, Unset::Deferred] {
        let compiled = compile(&Input {
            unset,
            ..input.clone()
        });
        let _ = compiled.document.to_json_pretty();
        let _ = lowstate::plan::to_dot(&compiled.plan);
    }
});
