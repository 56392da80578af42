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
static GLOBAL: lowstate::limits::CappedAlloc<Mimalloc> =
    lowstate::limits::CappedAlloc::new(Mimalloc);

/// mimalloc through its plain `mi_malloc`/`mi_realloc` when the alignment
/// asked for is one every block of that size has anyway (what the system
/// allocator's wrapper does too); the `mimalloc` crate's allocator takes
/// the aligned entry points for every call, a slower path (about 3% of a
/// tree of stacks' instructions). Other alignments go to it.
struct Mimalloc;

/// The alignment `mi_malloc` guarantees for blocks of at least that size.
const MI_MAX_ALIGN: usize = 16;

/// Whether a block of `size` bytes aligned to `align` is what `mi_malloc`
/// returns anyway.
fn plain(align: usize, size: usize) -> bool {
    align <= MI_MAX_ALIGN && align <= size
}

// SAFETY: every block comes from mimalloc (plain or aligned entry point)
// and goes back to `mi_free`, which takes both; the plain entry points are
// used only where their alignment meets the layout's.
unsafe impl std::alloc::GlobalAlloc for Mimalloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if plain(layout.align(), layout.size()) {
            libmimalloc_sys::mi_malloc(layout.size()).cast()
        } else {
            mimalloc::MiMalloc.alloc(layout)
        }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        if plain(layout.align(), layout.size()) {
            libmimalloc_sys::mi_zalloc(layout.size()).cast()
        } else {
            mimalloc::MiMalloc.alloc_zeroed(layout)
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        mimalloc::MiMalloc.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        if plain(layout.align(), new_size) {
            libmimalloc_sys::mi_realloc(ptr.cast(), new_size).cast()
        } else {
            mimalloc::MiMalloc.realloc(ptr, layout, new_size)
        }
    }
}

/// mimalloc's `purge_delay` option (its position in v3's option table):
/// how long freed memory stays committed. The default (a second) is longer
/// than a whole compile, so memory freed by one stage (the high data, the
/// rendered text) still counted in the peak while the next allocated. At 0
/// every freed page went back at once and the next stage faulted it in
/// again (with TLB shootdowns across the render threads): 10 ms lets a
/// stage reuse what the one before it just freed. On the 1000x25 bench
/// tree that is about 10% faster for about 5 MiB more peak memory.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The purge delay lowstate sets, in milliseconds.
const PURGE_DELAY_MS: std::os::raw::c_long = 10;

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

/// A bug must not leak what it was working on: the default panic message
/// quotes whatever the panicking code formatted, which may be a pillar
/// value or a hidden parameter. Print where it happened, not what; remove
/// an `-o` temp file; `LOWSTATE_DEBUG=1` shows the full message.
fn install_panic_hook() {
    let debug = std::env::var_os("LOWSTATE_DEBUG").is_some_and(|v| v == "1");
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let tmp = lowstate::emit::PENDING_TEMP.load(std::sync::atomic::Ordering::SeqCst);
        if !tmp.is_null() {
            // SAFETY: a NUL-terminated path owned by emit until it swaps it out.
            unsafe { libc::unlink(tmp) };
        }
        if debug {
            default(info);
            return;
        }
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!(
            "error[internal]: lowstate hit a bug{at} and stopped; nothing was written. \
             The message is withheld because it may quote input values (secrets); \
             run again with LOWSTATE_DEBUG=1 to see it, and please report the bug."
        );
    }));
}

fn main() {
    install_panic_hook();
    if std::env::var_os("LOWSTATE_TEST_PANIC").is_some() {
        // For the test of the hook above: a panic whose message holds data.
        panic!(
            "internal test panic quoting a value: {:?}",
            std::env::var("LOWSTATE_TEST_PANIC")
        );
    }
    // SAFETY: options are set before any other thread exists.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    // SAFETY: installing a handler that only calls async-signal-safe functions.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    let args = cli::Cli::parse();
    let code = cli::run(args, &|bytes| GLOBAL.set_cap(bytes));
    // Everything is written (stdout is flushed here; `-o` files were
    // renamed into place): leave without the C exit handlers. The one that
    // costs is mimalloc's, which, statically linked, hands every free page
    // back to the OS one `madvise` at a time (about 1% of a large compile)
    // just before the OS takes the whole address space anyway.
    use std::io::Write;
    let _ = std::io::stdout().flush();
    // SAFETY: `_exit` only ends the process; no Rust state is used after.
    unsafe { libc::_exit(code) }
}

#[cfg(test)]
mod tests {
    use super::Mimalloc;
    use std::alloc::{GlobalAlloc, Layout};

    #[test]
    fn every_layout_gets_its_alignment_and_keeps_its_bytes_through_realloc() {
        // Plain sizes, sizes under their alignment, and large alignments
        // (the aligned entry points), grown and shrunk across the line.
        for (size, align, new_size) in [
            (1, 1, 40),
            (8, 8, 3),
            (8, 16, 64),
            (24, 16, 8),
            (100, 8, 5000),
            (64, 64, 200),
            (4096, 4096, 10),
        ] {
            let layout = Layout::from_size_align(size, align).unwrap();
            // SAFETY: each block is written within its size and freed once
            // with the layout it has.
            unsafe {
                let p = Mimalloc.alloc(layout);
                assert!(!p.is_null());
                assert_eq!(p as usize % align, 0, "alloc {size}/{align}");
                for i in 0..size {
                    *p.add(i) = i as u8;
                }
                let q = Mimalloc.realloc(p, layout, new_size);
                assert_eq!(
                    q as usize % align,
                    0,
                    "realloc {size}/{align} to {new_size}"
                );
                for i in 0..size.min(new_size) {
                    assert_eq!(*q.add(i), i as u8);
                }
                Mimalloc.dealloc(q, Layout::from_size_align(new_size, align).unwrap());
                let z = Mimalloc.alloc_zeroed(layout);
                assert_eq!(z as usize % align, 0, "alloc_zeroed {size}/{align}");
                assert!((0..size).all(|i| *z.add(i) == 0));
                Mimalloc.dealloc(z, layout);
            }
        }
    }
}
