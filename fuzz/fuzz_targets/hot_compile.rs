//! The HOT compiler: the input is a template, optionally followed by a line
//! `#--env--` and one environment file. Every input gives a document (ok or
//! not) with diagnostics — never a panic, a hang or unbounded memory.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lowstate::hot::{compile, Input};
use lowstate::text::SourceFile;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (template, env) = match text.find("#--env--\n") {
        Some(i) => (&text[..i], Some(&text[i + 9..])),
        None => (text, None),
    };
    let input = Input {
        template: Some(SourceFile::new("template.yaml", template)),
        environments: env
            .map(|e| vec![SourceFile::new("env.yaml", e)])
            .unwrap_or_default(),
        files_dir: Some(std::env::temp_dir().join("lowstate-fuzz-hot-files")),
        ..Input::default()
    };
    let compiled = compile(&input);
    let _ = compiled.document.to_json_pretty();
    let _ = lowstate::plan::to_dot(&compiled.plan);
});
