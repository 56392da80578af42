//! `lowstate files` on a one-file tree: the input is an SLS (with
//! `file.managed` / `file.recurse` states), optionally a line `#--pillar--`
//! and a pillar SLS, optionally a line `#--template--` and the template
//! `salt://t.j2` (`lowstate::salt::fuzzing`). Every managed file renders to
//! bytes or to an error entry with a message; nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lowstate::salt::fuzzing::{check_files, files_session_for_input};
use std::path::PathBuf;
use std::sync::OnceLock;

/// One tree directory per fuzzing process; each input rewrites it.
fn tree() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        std::env::temp_dir().join(format!("lowstate-fuzz-files-{}", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    let Some(session) = files_session_for_input(tree(), data) else {
        return;
    };
    if let Err(e) = check_files(&session) {
        panic!("{e}");
    }
});
