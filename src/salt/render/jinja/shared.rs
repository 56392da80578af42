//! The minion data Salt shares between the files of one run. Salt renders
//! a run's SLS files one after the other with one `pillar` and one
//! `grains` object (the template variables), and its data functions
//! (`pillar.get`, `pillar.item`, `pillar.raw`, `config.get`, `grains.get`,
//! `grains.item`, `grains.items`) answer with parts of a second pair of
//! objects: a template that changes either in place changes it for every
//! file rendered after it.
//!
//! Renders here run side by side, each from its own copy of the data
//! (what lets them be cached and reused). That copy is exact as long as no
//! render changes shared data, so each render watches for that
//! ([`watch`]): containers made from the minion's data are marked
//! (`convert::to_jinja_data`), and a write to a marked container is
//! noted. Only then does the walk (`high::build`) render the changing file
//! again and every file after it, in Salt's order, with [`RunObjects`]
//! shared by all of them ([`with_run`]): the template variables are those
//! objects, and the data functions return references into theirs. Those
//! renders are never cached: what they see depends on the files before.
//!
//! A container reachable from the data is either one made from it
//! (marked) or one a write put there, and that write already changed a
//! marked container: so a render that wrote to no marked container left
//! the shared data as it found it. A container a write puts into a marked
//! one is marked too, so every container the data reaches stays marked.

use super::reads::Source;
use super::RenderData;
use minijinja::value::Value as MjValue;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// How many writes to minion data there have been (in any render): what a
/// [`RunObjects::view`] is valid for.
static WRITES: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static MUTATED: Cell<bool> = const { Cell::new(false) };
    static RUN: RefCell<Option<Arc<RunObjects>>> = const { RefCell::new(None) };
}

/// Note a write to a container; `marked` says whether it is minion data.
#[inline]
pub(crate) fn note_write(marked: bool) {
    if marked {
        MUTATED.with(|m| m.set(true));
        WRITES.fetch_add(1, Ordering::Relaxed);
    }
}

/// Run `f` (one render) and tell whether it wrote to minion data. A watch
/// inside another one also counts for the outer one.
pub fn watch<R>(f: impl FnOnce() -> R) -> (R, bool) {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            MUTATED.with(|m| m.set(m.get() | self.0));
        }
    }
    let outer = MUTATED.with(|m| m.replace(false));
    let restore = Restore(outer);
    let r = f();
    let mutated = MUTATED.with(Cell::get);
    drop(restore);
    (r, mutated)
}

/// The data objects of one run, shared by the files rendered after a
/// render changed them: the `pillar` and `grains` template variables, and
/// the objects the data functions answer from (Salt's `__pillar__` and
/// `__grains__`), each a copy of the minion's data until changed.
pub struct RunObjects {
    pillar: MjValue,
    grains: MjValue,
    fn_pillar: MjValue,
    fn_grains: MjValue,
    /// The data functions' pillar and grains as values, and the count of
    /// writes they were made at.
    view: Mutex<Option<(u64, Arc<RenderData>)>>,
}

impl std::fmt::Debug for RunObjects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RunObjects")
    }
}

impl RunObjects {
    /// Objects made of the minion's data: the template variables and the
    /// data functions' objects of pillar and grains, each a root of its own.
    pub(crate) fn new(
        pillar: MjValue,
        grains: MjValue,
        fn_pillar: MjValue,
        fn_grains: MjValue,
    ) -> Arc<RunObjects> {
        Arc::new(RunObjects {
            pillar,
            grains,
            fn_pillar,
            fn_grains,
            view: Mutex::new(None),
        })
    }

    /// The template variable of `source` (`None` for opts, which is not
    /// shared).
    pub(crate) fn variable(&self, source: Source) -> Option<&MjValue> {
        match source {
            Source::Pillar => Some(&self.pillar),
            Source::Grains => Some(&self.grains),
            Source::Opts => None,
        }
    }

    /// What `make` makes of the data functions' objects now (the minion's
    /// data as those functions read it), made again only after a write to
    /// minion data: every container they reach is marked, so any change to
    /// them is such a write.
    pub(crate) fn view<E>(
        &self,
        make: impl FnOnce() -> Result<RenderData, E>,
    ) -> Result<Arc<RenderData>, E> {
        let now = WRITES.load(Ordering::Relaxed);
        let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, data)) = &*view {
            if *at == now {
                return Ok(data.clone());
            }
        }
        let data = Arc::new(make()?);
        *view = Some((now, data.clone()));
        Ok(data)
    }

    /// The object the data functions read `source` from.
    pub(crate) fn function_root(&self, source: Source) -> Option<&MjValue> {
        match source {
            Source::Pillar => Some(&self.fn_pillar),
            Source::Grains => Some(&self.fn_grains),
            Source::Opts => None,
        }
    }
}

/// Run `f` (one render) with `run`'s objects as its shared data.
pub fn with_run<R>(run: &Arc<RunObjects>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Arc<RunObjects>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            RUN.with(|r| *r.borrow_mut() = outer);
        }
    }
    let outer = RUN.with(|r| r.borrow_mut().replace(run.clone()));
    let _restore = Restore(outer);
    f()
}

/// The run objects of the render on this thread, if it shares them.
pub(crate) fn current() -> Option<Arc<RunObjects>> {
    RUN.with(|r| r.borrow().clone())
}
