//! Resource limits: how far lowstate lets one input go before it stops with
//! a clear, located error instead of hanging or eating the machine. A state
//! tree or a template often comes from a merge request; these are what keep
//! compiling one safe. One table ([`LIMITS`]) names every limit, its default
//! and what it bounds; `--limit NAME=VALUE` sets one, and `docs/limits.md`
//! is checked against the table by a test.
//!
//! Also here: [`CappedAlloc`], the allocator wrapper the binary uses to keep
//! the whole process under the `memory` limit.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

/// Every limit's value. `Default` gives the documented defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// minijinja fuel (about one unit per instruction) for one template
    /// render (an SLS, a top file, an imported template).
    pub render_fuel: u64,
    /// Bytes one template render may produce.
    pub render_output: usize,
    /// Nested template calls (macros, includes, imports) in one render, in
    /// minijinja's recursion units (a macro call costs about 5).
    pub render_depth: usize,
    /// Nesting depth of one YAML document.
    pub yaml_depth: usize,
    /// Nodes one YAML document may build, aliases expanded.
    pub yaml_nodes: usize,
    /// States (lowstate chunks) one compile may produce.
    pub states: usize,
    /// Bytes of JSON/YAML/text one command may print.
    pub output: usize,
    /// Values HOT `repeat` may create while resolving one resource
    /// (copies times the template's values, over all its repeats).
    pub hot_repeat: usize,
    /// Bytes one HOT string function (`str_replace`, `list_join`, ...) may
    /// produce.
    pub hot_string: usize,
    /// Resources one `--nested` HOT expansion may create, over every
    /// stack of the tree (group members included).
    pub hot_resources: usize,
    /// Bytes of memory the whole process may hold (the binary enforces it
    /// with [`CappedAlloc`]).
    pub memory: usize,
}

const MIB: usize = 1024 * 1024;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            render_fuel: 20_000_000,
            render_output: 64 * MIB,
            render_depth: 2500,
            yaml_depth: 1000,
            yaml_nodes: 2_000_000,
            states: 200_000,
            output: 256 * MIB,
            hot_repeat: 1_000_000,
            hot_string: 16 * MIB,
            hot_resources: 100_000,
            memory: 512 * MIB,
        }
    }
}

/// One limit's documentation: its name (as `--limit NAME=VALUE` takes it),
/// what it bounds, and what happens when an input reaches it.
#[derive(Debug, Clone, Copy)]
pub struct LimitDoc {
    /// The name (`render-fuel`).
    pub name: &'static str,
    /// What it bounds.
    pub bounds: &'static str,
    /// What happens at the limit.
    pub at_limit: &'static str,
    /// The unit of its value.
    pub unit: &'static str,
}

/// Every limit, in the order the docs list them.
pub const LIMITS: &[LimitDoc] = &[
    LimitDoc {
        name: "render-fuel",
        bounds: "instructions one template render runs (minijinja fuel)",
        at_limit: "`jinja-error` at the template line that was running: \"template ran out of fuel\"",
        unit: "instructions",
    },
    LimitDoc {
        name: "render-output",
        bounds: "text one template render produces",
        at_limit: "`jinja-error` at the template line that was writing",
        unit: "bytes",
    },
    LimitDoc {
        name: "render-depth",
        bounds: "nested macro calls, includes and imports in one render",
        at_limit: "`jinja-error` \"recursion limit exceeded\" at the call",
        unit: "minijinja recursion units (a macro call is about 5)",
    },
    LimitDoc {
        name: "yaml-depth",
        bounds: "nesting of one YAML document (SLS, pillar, template, environment)",
        at_limit: "`yaml-syntax` (`hot-template-parse` for HOT) at the node that goes too deep",
        unit: "levels",
    },
    LimitDoc {
        name: "yaml-nodes",
        bounds: "nodes one YAML document builds, aliases expanded (\"billion laughs\")",
        at_limit: "`yaml-syntax` \"document too large after expanding aliases\" at the alias",
        unit: "nodes",
    },
    LimitDoc {
        name: "states",
        bounds: "states (lowstate chunks) one Salt compile produces",
        at_limit: "`too-many-states`, naming the SLS that contributed most",
        unit: "states",
    },
    LimitDoc {
        name: "output",
        bounds: "what one command prints or writes",
        at_limit: "`output-too-large`; nothing is printed or written",
        unit: "bytes",
    },
    LimitDoc {
        name: "hot-repeat",
        bounds: "values `repeat` creates while resolving one resource (copies times the template's values, over all its repeats)",
        at_limit: "`hot-function-runtime` at the resource",
        unit: "values",
    },
    LimitDoc {
        name: "hot-string",
        bounds: "a string `str_replace`, `list_join` or `repeat` produces",
        at_limit: "`hot-function-runtime` at the resource",
        unit: "bytes",
    },
    LimitDoc {
        name: "hot-resources",
        bounds: "resources one `lowstate hot --nested` expansion creates, over every stack of the tree",
        at_limit: "`hot-too-many-resources` at the group or stack resource",
        unit: "resources",
    },
    LimitDoc {
        name: "memory",
        bounds: "memory the lowstate process holds",
        at_limit: "`memory-limit` on stderr, exit 1, no output written",
        unit: "bytes",
    },
];

impl Limits {
    /// The value of limit `name` (one of [`LIMITS`]).
    pub fn get(&self, name: &str) -> Option<u64> {
        Some(match name {
            "render-fuel" => self.render_fuel,
            "render-output" => self.render_output as u64,
            "render-depth" => self.render_depth as u64,
            "yaml-depth" => self.yaml_depth as u64,
            "yaml-nodes" => self.yaml_nodes as u64,
            "states" => self.states as u64,
            "output" => self.output as u64,
            "hot-repeat" => self.hot_repeat as u64,
            "hot-string" => self.hot_string as u64,
            "hot-resources" => self.hot_resources as u64,
            "memory" => self.memory as u64,
            _ => return None,
        })
    }

    /// Apply one `NAME=VALUE` setting. Values take `k`, `M`, `G` suffixes
    /// (powers of 1024 for sizes, of 1000 for counts is not worth the
    /// surprise: both are 1024-based).
    pub fn set(&mut self, setting: &str) -> Result<(), String> {
        let (name, value) = setting
            .split_once('=')
            .ok_or_else(|| format!("`{setting}`: expected NAME=VALUE"))?;
        let (name, value) = (name.trim(), value.trim());
        let n = parse_amount(value)
            .ok_or_else(|| format!("`{setting}`: `{value}` is not a positive number"))?;
        let size = usize::try_from(n).unwrap_or(usize::MAX);
        match name {
            "render-fuel" => self.render_fuel = n,
            "render-output" => self.render_output = size,
            "render-depth" => self.render_depth = size,
            // The loader's later passes recurse; past 1000 levels a thread's
            // stack is at risk (and PyYAML fails first, at Python's
            // recursion limit).
            "yaml-depth" if size > 1000 => {
                return Err(format!("`{setting}`: yaml-depth is at most 1000"))
            }
            "yaml-depth" => self.yaml_depth = size,
            "yaml-nodes" => self.yaml_nodes = size,
            "states" => self.states = size,
            "output" => self.output = size,
            "hot-repeat" => self.hot_repeat = size,
            "hot-string" => self.hot_string = size,
            "hot-resources" => self.hot_resources = size,
            "memory" => self.memory = size,
            _ => {
                let names: Vec<&str> = LIMITS.iter().map(|l| l.name).collect();
                return Err(format!(
                    "unknown limit `{name}` (known: {})",
                    names.join(", ")
                ));
            }
        }
        Ok(())
    }
}

/// `123`, `64k`, `16M`, `4G` (1024-based); zero and overflow are refused.
fn parse_amount(s: &str) -> Option<u64> {
    let (digits, mult) = match s.char_indices().last()? {
        (i, 'k' | 'K') => (&s[..i], 1u64 << 10),
        (i, 'm' | 'M') => (&s[..i], 1 << 20),
        (i, 'g' | 'G') => (&s[..i], 1 << 30),
        _ => (s, 1),
    };
    let n: u64 = digits.replace('_', "").parse().ok()?;
    n.checked_mul(mult).filter(|&n| n > 0)
}

/// A human size for messages: `64 MiB`, `4 GiB`, `1000 bytes`.
pub fn human_bytes(n: usize) -> String {
    const UNITS: [(&str, usize); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if n >= size && n % size == 0 {
            return format!("{} {unit}", n / size);
        }
    }
    format!("{n} bytes")
}

/// A global allocator wrapper that keeps the process under a memory cap.
/// When an allocation would pass the cap it writes one line to stderr
/// (`error[memory-limit]: ...`, no data from the input) and ends the
/// process with exit code 1: nothing has been written to stdout or an
/// output file yet at that point in a compile, and an output file is only
/// ever renamed into place when complete. The cap starts at the default
/// and the binary sets it from `--limit memory=` with [`CappedAlloc::set_cap`].
///
/// Each thread counts in its own cell and adds to the shared count once
/// it is [`SLACK`] bytes ahead or behind (or at once for an allocation that
/// large): one shared counter touched on every allocation was 6% of a
/// compile's CPU, its cache line bouncing between the render threads. The
/// cap is therefore kept to within `SLACK` per thread. Meant as the one
/// global allocator: the per-thread cells are shared by every instance.
pub struct CappedAlloc<A> {
    inner: A,
    used: AtomicIsize,
    cap: AtomicUsize,
}

/// How far one thread's count may run ahead of (or behind) the shared one.
pub const SLACK: isize = 256 << 10;

thread_local! {
    /// This thread's bytes not yet added to the shared count.
    static PENDING: Cell<isize> = const { Cell::new(0) };
}

impl<A> CappedAlloc<A> {
    /// Wrap `inner` with the default cap.
    pub const fn new(inner: A) -> CappedAlloc<A> {
        CappedAlloc {
            inner,
            used: AtomicIsize::new(0),
            cap: AtomicUsize::new(512 * MIB),
        }
    }

    /// Set the cap in bytes.
    pub fn set_cap(&self, bytes: usize) {
        self.cap.store(bytes, Ordering::Relaxed);
    }

    /// Add the calling thread's count not yet shared to the shared count:
    /// for a thread about to end, whose share would be lost with it. A
    /// thread that frees what others allocated ends up to [`SLACK`] behind,
    /// so a process that starts threads by the thousand (an editor's
    /// server, a few per edit) would drift up to its cap without this.
    pub fn flush_thread(&self) {
        let pending = PENDING.try_with(|p| p.replace(0)).unwrap_or(0);
        if pending != 0 {
            self.used.fetch_add(pending, Ordering::Relaxed);
        }
    }

    /// Bytes currently allocated through this allocator, to within
    /// [`SLACK`] per thread.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed).max(0) as usize
    }

    /// Count `delta` bytes (negative: freed); check the cap when the
    /// shared count grows.
    fn count(&self, delta: isize) {
        let flush = PENDING.try_with(|p| {
            let now = p.get() + delta;
            if (-SLACK..=SLACK).contains(&now) {
                p.set(now);
                0
            } else {
                p.set(0);
                now
            }
        });
        // A thread past its local storage counts directly.
        let flush = flush.unwrap_or(delta);
        if flush == 0 {
            return;
        }
        let after = self.used.fetch_add(flush, Ordering::Relaxed) + flush;
        if flush > 0 && after.max(0) as usize > self.cap.load(Ordering::Relaxed) {
            self.over();
        }
    }

    #[cold]
    fn over(&self) -> ! {
        // No allocation from here on: a fixed message, written raw.
        let msg: &[u8] = b"error[memory-limit]: lowstate stopped: memory use passed its cap (`--limit memory=BYTES`, default 512M); an input builds a value too large to hold (a template doubling a string in a loop?). Nothing was written.\n";
        // SAFETY: writing a static buffer to fd 2, then leaving without
        // running destructors or atexit handlers (which may allocate).
        unsafe {
            libc::write(2, msg.as_ptr().cast(), msg.len());
            libc::_exit(1);
        }
    }
}

/// A size as a signed count (no allocation is larger than `isize::MAX`).
fn signed(n: usize) -> isize {
    isize::try_from(n).unwrap_or(isize::MAX)
}

// SAFETY: every call is forwarded to `inner` unchanged; the wrapper only
// counts sizes (and may end the process before an allocation).
unsafe impl<A: GlobalAlloc> GlobalAlloc for CappedAlloc<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.count(signed(layout.size()));
        self.inner.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.count(signed(layout.size()));
        self.inner.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.inner.dealloc(ptr, layout);
        self.count(-signed(layout.size()));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.count(signed(new_size) - signed(layout.size()));
        self.inner.realloc(ptr, layout, new_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_alloc_counts_large_allocations_at_once_and_small_ones_in_batches() {
        let a = CappedAlloc::new(std::alloc::System);
        let big = Layout::from_size_align(1 << 20, 8).unwrap();
        let small = Layout::from_size_align(1 << 10, 8).unwrap();
        // SAFETY: each block is freed once, with its own layout.
        unsafe {
            let p = a.alloc(big);
            assert!(a.used() >= 1 << 20, "a block past SLACK is counted at once");
            let q = a.alloc(small);
            assert!(a.used() < (1 << 20) + SLACK as usize);
            a.dealloc(q, small);
            a.dealloc(p, big);
        }
        assert!(a.used() <= SLACK as usize, "freed memory leaves the count");
    }

    /// Threads that free what another allocated, each ending with its
    /// count flushed: the shared count comes back to what is allocated,
    /// however many threads there were (it used to climb by what each
    /// thread had not shared yet).
    #[test]
    fn threads_that_end_leave_no_count_behind() {
        static A: CappedAlloc<std::alloc::System> = CappedAlloc::new(std::alloc::System);
        let small = Layout::from_size_align(1 << 10, 8).unwrap();
        // What another test left on this thread is not this allocator's.
        PENDING.with(|p| p.set(0));
        for _ in 0..64 {
            // SAFETY: each block is freed once, with its own layout, on
            // the thread below.
            let blocks: Vec<usize> = (0..100)
                .map(|_| unsafe { A.alloc(small) } as usize)
                .collect();
            A.flush_thread();
            std::thread::spawn(move || {
                for b in blocks {
                    unsafe { A.dealloc(b as *mut u8, small) };
                }
                A.flush_thread();
            })
            .join()
            .unwrap();
        }
        assert_eq!(A.used.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn every_limit_is_settable_and_readable() {
        for doc in LIMITS {
            let mut l = Limits::default();
            l.set(&format!("{}=7", doc.name)).unwrap();
            assert_eq!(l.get(doc.name), Some(7), "{}", doc.name);
            assert_ne!(Limits::default().get(doc.name), Some(7));
        }
    }

    #[test]
    fn amounts_and_errors() {
        let mut l = Limits::default();
        l.set("memory=2G").unwrap();
        assert_eq!(l.memory, 2 << 30);
        l.set("render-output=64k").unwrap();
        assert_eq!(l.render_output, 64 << 10);
        assert!(l.set("memory=0").unwrap_err().contains("not a positive"));
        assert!(l.set("memory").unwrap_err().contains("NAME=VALUE"));
        assert!(l
            .set("speed=3")
            .unwrap_err()
            .contains("unknown limit `speed`"));
        assert!(l.set("states=99999999999999999999G").is_err());
        assert!(l
            .set("yaml-depth=1001")
            .unwrap_err()
            .contains("at most 1000"));
        assert_eq!(human_bytes(64 << 20), "64 MiB");
        assert_eq!(human_bytes(1000), "1000 bytes");
    }
}
