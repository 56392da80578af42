//! The `lowstate` binary: parses the command line and hands off to one
//! module per subcommand under `cli/`. Exit codes: 0 ok, 1 compile errors,
//! 2 usage or config errors.

mod cli;

use clap::Parser;

/// mimalloc instead of the system allocator: a compile allocates and frees
/// millions of small maps and strings, and glibc's malloc/free were a quarter
/// of the profile (and slower still across rayon's render threads). The
/// wrapper keeps the process under the `memory` limit (`--limit memory=`).
#[global_allocator]
static GLOBAL: lowstate::limits::CappedAlloc<mimalloc::MiMalloc> =
    lowstate::limits::CappedAlloc::new(mimalloc::MiMalloc);

/// mimalloc's `purge_delay` option (its position in v3's option table):
/// how long freed memory stays committed. The default (a second) is longer
/// than a whole compile, so memory freed by one stage (the high data, the
/// rendered text) still counted in the peak while the next allocated; 0
/// gives it back at once.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// SIGINT/SIGTERM: remove the temp file an atomic `-o` write has open (no
/// half-written file is left behind), then die of the signal as usual.
extern "C" fn on_signal(sig: libc::c_int) {
    let tmp = lowstate::emit::PENDING_TEMP.load(std::sync::atomic::Ordering::SeqCst);
    // SAFETY: unlink, signal and raise are async-signal-safe; `tmp` is a
    // NUL-terminated path or null.
    unsafe {
        if !tmp.is_null() {
            libc::unlink(tmp);
        }
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

fn main() {
    // SAFETY: options are set before any other thread exists.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) };
    // SAFETY: installing a handler that only calls async-signal-safe functions.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    let args = cli::Cli::parse();
    let code = cli::run(args, &|bytes| GLOBAL.set_cap(bytes));
    std::process::exit(code);
}
