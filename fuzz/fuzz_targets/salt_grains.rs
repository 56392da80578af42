//! The minion's grains from a config directory: the input is a minion
//! config, optionally a line `#--grains--` and the config directory's
//! `grains` file (`lowstate::salt::fuzzing`). Loading either succeeds or
//! fails with a diagnostic; when it succeeds, every grain the config set
//! is in the result as set, and every grain has a source in `--explain`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lowstate::salt::fuzzing::{check_grains, grains_config_for_input};
use std::path::PathBuf;
use std::sync::OnceLock;

/// One config directory per fuzzing process; each input rewrites it.
fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        std::env::temp_dir().join(format!("lowstate-fuzz-grains-{}", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    let Some(Ok(config)) = grains_config_for_input(dir(), data) else {
        return;
    };
    if let Err(e) = check_grains(&config) {
        panic!("{e}");
    }
});
