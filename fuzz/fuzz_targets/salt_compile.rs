//! Jinja render + YAML + compile of a one-file tree with a small top file:
//! the input is the SLS text, optionally followed by a line `#--pillar--`
//! and a pillar SLS (`lowstate::salt::fuzzing`). Every input compiles to a
//! lowstate or fails with diagnostics; the run is simulated too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lowstate::salt::fuzzing::session_for_input;
use lowstate::salt::simulate::Assumptions;
use std::path::PathBuf;
use std::sync::OnceLock;

/// One tree directory per fuzzing process; each input rewrites it.
fn tree() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| std::env::temp_dir().join(format!("lowstate-fuzz-{}", std::process::id())))
}

fuzz_target!(|data: &[u8]| {
    let Some(session) = session_for_input(tree(), data) else {
        return;
    };
    if session.lowstate().is_ok() {
        let _ = session.located_lowstate();
        let _ = session.simulate(&Assumptions::new());
    }
});
