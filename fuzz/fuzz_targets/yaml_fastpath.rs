//! The YAML fast path (`src/yaml/fast.rs`) against the saphyr paths: on
//! any input it either declines or gives exactly the tree (values, key
//! order, spans) that the direct path and the full loader give.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lowstate::yaml::fastpath::{check, Check};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Check::Differs(how) = check(text) {
        panic!("the fast path differs on {text:?}:\n{how}");
    }
});
