//! The `lowstate` binary: parses the command line and hands off to one
//! module per subcommand under `cli/`. Exit codes: 0 ok, 1 compile errors,
//! 2 usage or config errors.

mod cli;

use clap::Parser;

/// mimalloc instead of the system allocator: a compile allocates and frees
/// millions of small maps and strings, and glibc's malloc/free were a quarter
/// of the profile (and slower still across rayon's render threads).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option (its position in v3's option table):
/// how long freed memory stays committed. The default (a second) is longer
/// than a whole compile, so memory freed by one stage (the high data, the
/// rendered text) still counted in the peak while the next allocated; 0
/// gives it back at once.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() {
    // SAFETY: options are set before any other thread exists.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) };
    let args = cli::Cli::parse();
    let code = cli::run(args);
    std::process::exit(code);
}
