//! Jinja2's syntax errors (`src/salt/render/jinja/jinja2.rs`): any text is
//! read to its first error or its end without a panic or a hang, an error
//! has a line inside the text, and reading twice gives the same answer.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lowstate::salt::fuzzing::jinja2_syntax_error;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let first = jinja2_syntax_error(text);
    if let Some((message, line)) = &first {
        assert!(!message.is_empty(), "an empty message for {text:?}");
        assert!(
            *line >= 1 && *line <= text.split(['\n', '\r']).count(),
            "line {line} outside {text:?}"
        );
    }
    assert_eq!(
        first,
        jinja2_syntax_error(text),
        "two readings of {text:?} differ"
    );
});
