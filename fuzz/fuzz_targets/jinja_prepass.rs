//! The Jinja pre-pass (`src/salt/render/jinja/prepass.rs`): rewriting a
//! template in one pass, as every compile does, gives exactly the text of
//! rewriting it pass by pass (the second pass tokenizing the first's output).
#![no_main]

use libfuzzer_sys::fuzz_target;
use lowstate::salt::fuzzing::check_prepass;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(how) = check_prepass(text) {
        panic!("the one-pass pre-pass differs on {text:?}:\n{how}");
    }
});
