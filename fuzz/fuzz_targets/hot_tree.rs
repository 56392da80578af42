//! The HOT tree and update preview: the input (a template, optionally an
//! environment after `#--env--`, as `hot_compile`) compiled with
//! `--nested`, and previewed as an update of itself and of the empty
//! stack. Every input gives a document with diagnostics — never a panic, a
//! hang (a self-including provider template stops at Heat's depth) or
//! unbounded memory (the `hot-resources` limit).
#![no_main]

use libfuzzer_sys::fuzz_target;
use lowstate::hot::fuzzing::input_for;
use lowstate::hot::{compile, update};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let files = std::env::temp_dir().join("lowstate-fuzz-hot-files");
    let mut input = input_for(text, Some(files.clone()));
    input.nested = true;
    input.limits.hot_resources = 10_000;
    let compiled = compile(&input);
    let _ = compiled.document.to_json_pretty();
    let _ = update::preview(&input, &input).document.to_json_pretty();
    let empty = input_for("heat_template_version: 2016-10-14\n", Some(files));
    let _ = update::preview(&empty, &input).document.to_json_pretty();
});
