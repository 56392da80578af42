//! The YAML loader in both dialects: any input gives a node or a located
//! error — never a panic, a hang or unbounded memory.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lowstate::yaml::{load_with, Dialect, LoadOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for dialect in [Dialect::Salt, Dialect::Heat] {
        let options = LoadOptions::new(dialect, &lowstate::limits::Limits::default());
        match load_with(text, &options) {
            Ok(node) => {
                let _ = node.to_value();
            }
            Err(e) => {
                // A located error: its span lies inside the text.
                assert!(e.span.start <= e.span.end && e.span.end <= text.len());
            }
        }
    }
});
