//! The fleet-wide render cache of `lowstate fleet` (the sessions of one
//! run hold it through [`crate::salt::fleet::Fleet`]). The cache keys a render by the file (saltenv and SLS, or the top
//! file) and by what the render read of the minion's data, as recorded by
//! [`crate::salt::render::jinja::reads`]: per source (grains, pillar,
//! opts) the top-level keys it read with the values it saw (absent keys
//! included), or the whole source. A minion reuses a render when every
//! recorded read gives an exactly equal value for it ([`reads::strict_eq`]:
//! types and map order count); anything else is a miss, which renders
//! afresh, so a miss is always safe. Everything else a render depends on
//! (the config apart from the minion's id and grains, and the compile
//! options apart from the pillar override) is the same for every minion
//! sharing one cache: `Fleet` gives minions whose settings differ
//! different caches.
//!
//! Two trees (`fleet --diff`): the share of one tree may have a twin, the
//! share of the other tree with the same settings ([`Twin`]). A render the
//! own cache misses is taken from the twin's cache when it read the same
//! minion data there and every file it read (the file itself, each
//! template it loaded) has the same bytes in both trees; it is then moved
//! to this tree's paths, or not taken when it cannot be (a failed render:
//! its messages may name the other tree's files). A render that listed
//! the fileserver is never taken.
//!
//! Memory: a file keeps at most [`MAX_ENTRIES_PER_FILE`] renders, one per
//! distinct combination of (reads, values seen); past that, new
//! combinations are rendered but not kept. So the cache is bounded by the
//! number of files times that cap, whatever the fleet's size.
//!
//! Spares: a compile consumes what it takes from the cache, so a hit is
//! copied. A holder of the cache with time to spare between compiles (the
//! language server, between edits) can have each render's next copy made
//! ahead ([`RenderShare::spare_work`]); a hit then takes that copy, which
//! no one else holds, instead of the shared render. At most one spare per
//! render, so this at most doubles the cache.

use crate::diag::{codes, Diagnostic};
use crate::salt::render::jinja::reads::{self, ReadLog, Source, SourceReads};
use crate::salt::render::jinja::RenderData;
use crate::value::Value;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The most renders one file keeps (see the module docs).
pub const MAX_ENTRIES_PER_FILE: usize = 256;

/// Hits and misses of the render cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Renders reused.
    pub hits: usize,
    /// Renders done (and kept, unless the file's cap was reached).
    pub misses: usize,
    /// Renders taken from the other tree's cache ([`Twin`]).
    pub from_twin: usize,
}

impl CacheStats {
    /// Add `o`'s counts.
    pub fn add(&mut self, o: &CacheStats) {
        self.hits += o.hits;
        self.misses += o.misses;
        self.from_twin += o.from_twin;
    }

    /// Hits over lookups, in percent (0 when there were none).
    pub fn hit_rate(&self) -> f64 {
        let all = self.hits + self.misses + self.from_twin;
        if all == 0 {
            0.0
        } else {
            100.0 * self.hits as f64 / all as f64
        }
    }
}

/// A render found in the cache.
pub(crate) struct Hit<T> {
    /// The result.
    pub result: Arc<T>,
    /// A copy of the result made ahead, which only this hit holds (see
    /// "Spares" in the module docs).
    spare: Option<T>,
    /// The functions it had answered as a fresh minion (to replay).
    pub answered: Vec<String>,
    /// What it read of the minion's data, by source.
    reads: [SourceReads; 3],
    /// The templates it loaded, and whether it listed the fileserver.
    files: (Vec<String>, bool),
}

/// A file a render read, as [`Twin::same`] compares it between two trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dep<'a> {
    /// An SLS (saltenv, name): it must be found at the same path relative
    /// to the roots in both trees, with the same bytes.
    Sls(&'a str, &'a str),
    /// A file of the roots (saltenv, path relative to the roots): absent
    /// in both, or present with the same bytes.
    File(&'a str, &'a str),
}

/// The other tree of a two-tree run: its renders, whether a file reads
/// the same in both trees, and how to move a render of the other tree to
/// this one (`None`: it cannot be moved).
pub struct Twin<'a, T> {
    /// The other tree's renders of this kind.
    pub share: &'a RenderShare<T>,
    /// Whether `dep` has the same bytes in both trees.
    pub same: &'a (dyn Fn(Dep) -> bool + Sync),
    /// The other tree's render, as this tree's.
    pub relocate: &'a (dyn Fn(&T) -> Option<T> + Sync),
}

/// A file's renders taken out of a [`RenderShare`]: (saltenv, file) and
/// every render kept of it.
pub type Taken<T> = ((String, String), Vec<Arc<T>>);

/// Renders of one kind of file (SLS, top), by file and by what they read.
pub struct RenderShare<T> {
    files: Mutex<HashMap<(String, String), Slot<T>>>,
    hits: AtomicUsize,
    misses: AtomicUsize,
    from_twin: AtomicUsize,
}

impl<T> Default for RenderShare<T> {
    fn default() -> Self {
        RenderShare {
            files: Mutex::new(HashMap::new()),
            hits: AtomicUsize::new(0),
            misses: AtomicUsize::new(0),
            from_twin: AtomicUsize::new(0),
        }
    }
}

/// One file's renders, grouped by the set of reads they made.
struct Slot<T> {
    shapes: Vec<Shape<T>>,
    entries: usize,
}

/// The renders of one file that read the same things, by the hash of the
/// values they saw.
struct Shape<T> {
    reads: [SourceReads; 3],
    entries: HashMap<u64, Vec<Entry<T>>>,
}

/// Where a render's spare copy waits (see "Spares" in the module docs).
type SpareSlot<T> = Arc<Mutex<Option<T>>>;

struct Entry<T> {
    seen: Vec<Option<Value>>,
    result: Arc<T>,
    /// The next copy of `result`, once made (see "Spares").
    spare: SpareSlot<T>,
    answered: Vec<String>,
    files: (Vec<String>, bool),
}

/// What `data` gives for the reads of a shape, in order.
fn seen_for<'d>(reads: &[SourceReads; 3], data: &'d RenderData) -> Vec<Option<&'d Value>> {
    Source::ALL
        .iter()
        .zip(reads)
        .flat_map(|(s, r)| reads::seen(r, data.source(*s)))
        .collect()
}

fn hash_seen<'v>(seen: impl Iterator<Item = Option<&'v Value>>) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for v in seen {
        match v {
            None => 0u8.hash(&mut h),
            Some(v) => {
                1u8.hash(&mut h);
                reads::strict_hash(v, &mut h);
            }
        }
    }
    h.finish()
}

fn same_seen(a: &[Option<Value>], b: &[Option<&Value>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (None, None) => true,
            (Some(x), Some(y)) => reads::strict_eq(x, y),
            _ => false,
        })
}

impl<T> RenderShare<T> {
    /// Keep only the renders of the files `keep(saltenv, file)` accepts
    /// (an editor changed the others).
    pub fn retain(&self, keep: impl Fn(&str, &str) -> bool) {
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        files.retain(|(env, file), _| keep(env, file));
    }

    /// Take out the renders of the files `gone(saltenv, file)` accepts (an
    /// editor changed them): per file, every render kept of it.
    pub fn take_where(&self, gone: impl Fn(&str, &str) -> bool) -> Vec<Taken<T>> {
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        let keys: Vec<(String, String)> = files
            .keys()
            .filter(|(env, file)| gone(env, file))
            .cloned()
            .collect();
        keys.into_iter()
            .filter_map(|k| {
                let slot = files.remove(&k)?;
                let renders = slot
                    .shapes
                    .into_iter()
                    .flat_map(|s| s.entries.into_values().flatten().map(|e| e.result))
                    .collect();
                Some((k, renders))
            })
            .collect()
    }

    /// A render of `file` in `saltenv` that read what `data` still gives
    /// (not counted), with its spare copy if `take_spare` and one is ready.
    fn find(
        &self,
        saltenv: &str,
        file: &str,
        data: &RenderData,
        take_spare: bool,
    ) -> Option<Hit<T>> {
        let files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        files
            .get(&(saltenv.to_string(), file.to_string()))
            .and_then(|slot| {
                slot.shapes.iter().find_map(|shape| {
                    let seen = seen_for(&shape.reads, data);
                    let list = shape.entries.get(&hash_seen(seen.iter().copied()))?;
                    list.iter()
                        .find(|e| same_seen(&e.seen, &seen))
                        .map(|e| Hit {
                            result: e.result.clone(),
                            // Never waits: a copy still being put in place
                            // is left for the next hit.
                            spare: take_spare
                                .then(|| e.spare.try_lock().ok()?.take())
                                .flatten(),
                            answered: e.answered.clone(),
                            reads: shape.reads.clone(),
                            files: e.files.clone(),
                        })
                })
            })
    }

    /// A render of `file` in `saltenv` that read what `data` still gives
    /// (counted as a hit or a miss).
    pub(crate) fn lookup(&self, saltenv: &str, file: &str, data: &RenderData) -> Option<Hit<T>> {
        let found = self.find(saltenv, file, data, true);
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Keep `result`, a render of `file` that read `log` of `data`.
    pub(crate) fn insert(
        &self,
        saltenv: &str,
        file: &str,
        log: &ReadLog,
        data: &RenderData,
        result: Arc<T>,
    ) {
        let shape_reads: [SourceReads; 3] =
            Source::ALL.map(|s| reads::normalise(log.of(s), data.source(s)));
        let files = (log.templates.clone(), log.listed);
        self.insert_shaped(
            saltenv,
            file,
            shape_reads,
            files,
            &log.answered,
            data,
            result,
        );
    }

    /// [`RenderShare::insert`] with the reads already normalised.
    #[allow(clippy::too_many_arguments)]
    fn insert_shaped(
        &self,
        saltenv: &str,
        file: &str,
        shape_reads: [SourceReads; 3],
        files: (Vec<String>, bool),
        answered: &[String],
        data: &RenderData,
        result: Arc<T>,
    ) {
        let seen_refs = seen_for(&shape_reads, data);
        let hash = hash_seen(seen_refs.iter().copied());
        let mut slots = self.files.lock().unwrap_or_else(|e| e.into_inner());
        let slot = slots
            .entry((saltenv.to_string(), file.to_string()))
            .or_insert_with(|| Slot {
                shapes: Vec::new(),
                entries: 0,
            });
        if slot.entries >= MAX_ENTRIES_PER_FILE {
            return;
        }
        let at = match slot.shapes.iter().position(|s| s.reads == shape_reads) {
            Some(i) => i,
            None => {
                slot.shapes.push(Shape {
                    reads: shape_reads,
                    entries: HashMap::new(),
                });
                slot.shapes.len() - 1
            }
        };
        let list = slot.shapes[at].entries.entry(hash).or_default();
        // Another thread may have rendered the same thing meanwhile.
        if list.iter().any(|e| same_seen(&e.seen, &seen_refs)) {
            return;
        }
        list.push(Entry {
            seen: seen_refs.into_iter().map(|v| v.cloned()).collect(),
            result,
            spare: Arc::default(),
            answered: answered.to_vec(),
            files,
        });
        slot.entries += 1;
    }

    /// The work of making a spare copy of every render that has none
    /// (see "Spares" in the module docs), to run while no compile needs
    /// the time; it stops, between two copies, once `stop` is set. Only
    /// gathering the renders happens here, under the cache's lock, so that
    /// a thread doing the work at a low priority never holds that lock.
    pub fn spare_work(&self, stop: Arc<AtomicBool>) -> impl FnOnce() + Send + 'static
    where
        T: Clone + Send + Sync + 'static,
    {
        let files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        let todo: Vec<(Arc<T>, SpareSlot<T>)> = files
            .values()
            .flat_map(|slot| &slot.shapes)
            .flat_map(|shape| shape.entries.values().flatten())
            .filter(|e| e.spare.try_lock().is_ok_and(|s| s.is_none()))
            .map(|e| (e.result.clone(), e.spare.clone()))
            .collect();
        move || {
            for (result, spare) in todo {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let copy = (*result).clone();
                if let Ok(mut s) = spare.lock() {
                    s.get_or_insert(copy);
                }
            }
        }
    }

    /// The hits and misses so far.
    pub(crate) fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            from_twin: self.from_twin.load(Ordering::Relaxed),
        }
    }
}

/// The render of `key` in `twin`'s cache that read what `data` gives, moved
/// to this tree, when `dep` and every template it loaded are the same in
/// both trees.
fn from_twin<T>(
    twin: &Twin<'_, T>,
    dep: Dep,
    key: (&str, &str),
    data: &RenderData,
) -> Option<Hit<T>> {
    let hit = twin.share.find(key.0, key.1, data, false)?;
    let (templates, listed) = &hit.files;
    if *listed || !(twin.same)(dep) {
        return None;
    }
    let saltenv = match dep {
        Dep::Sls(env, _) | Dep::File(env, _) => env,
    };
    // A name the loader refuses reads nothing, in either tree.
    let all_same = templates.iter().all(|name| {
        crate::salt::render::jinja::template_path(name)
            .is_none_or(|path| (twin.same)(Dep::File(saltenv, &path)))
    });
    if !all_same {
        return None;
    }
    let moved = (twin.relocate)(&hit.result)?;
    Some(Hit {
        result: Arc::new(moved),
        ..hit
    })
}

/// Note the functions a reused render had answered as a fresh minion, as
/// rendering it would have.
pub(crate) fn replay_answers(data: &RenderData, answered: &[String]) {
    if answered.is_empty() {
        return;
    }
    if let Ok(mut used) = data.queries.answered.lock() {
        used.extend(answered.iter().cloned());
    }
}

/// The internal error of a verify run: the cached render of `what` given
/// to `minion` differs from a fresh one.
pub(crate) fn mismatch(what: &str, minion: &str) -> Diagnostic {
    Diagnostic::new(
        codes::INTERNAL,
        format!(
            "fleet render cache: the cached render of '{what}' differs from a fresh render for minion '{minion}' (a read was not recorded; please report this)"
        ),
    )
}

/// Run `render` with a read log, or reuse a render of `file` from `share`
/// that read what `data` gives; `minion` names the minion in a verify
/// mismatch, `what` the file; `failed` makes the mismatch result.
pub(crate) fn cached<T: std::fmt::Debug>(
    share: &RenderShare<T>,
    verify: bool,
    key: (&str, &str),
    data: &RenderData,
    what: &str,
    failed: impl FnOnce(Diagnostic) -> T,
    render: impl Fn() -> T,
) -> Arc<T> {
    cached_twin(share, None, verify, key, data, what, failed, render)
}

/// [`cached`], taking a render the own cache lacks from `twin`'s cache
/// when `twin.1` (the file itself) and every template it loaded read the
/// same in both trees and the render moves to this tree.
#[allow(clippy::too_many_arguments)]
pub(crate) fn cached_twin<T: std::fmt::Debug>(
    share: &RenderShare<T>,
    twin: Option<(&Twin<'_, T>, Dep)>,
    verify: bool,
    key: (&str, &str),
    data: &RenderData,
    what: &str,
    failed: impl FnOnce(Diagnostic) -> T,
    render: impl Fn() -> T,
) -> Arc<T> {
    let (saltenv, file) = key;
    let check = |hit: Hit<T>| -> Arc<T> {
        replay_answers(data, &hit.answered);
        if verify {
            let (fresh, _) = reads::record(&render);
            if format!("{fresh:?}") != format!("{:?}", hit.result) {
                let minion = data.opts.get("id").map(Value::py_str).unwrap_or_default();
                return Arc::new(failed(mismatch(what, &minion)));
            }
        }
        // The copy made ahead is the result, held by no one else.
        hit.spare.map_or(hit.result, Arc::new)
    };
    if let Some(hit) = share.lookup(saltenv, file, data) {
        return check(hit);
    }
    if let Some(hit) = twin.and_then(|(t, dep)| from_twin(t, dep, key, data)) {
        share.misses.fetch_sub(1, Ordering::Relaxed);
        share.from_twin.fetch_add(1, Ordering::Relaxed);
        share.insert_shaped(
            saltenv,
            file,
            hit.reads.clone(),
            hit.files.clone(),
            &hit.answered,
            data,
            hit.result.clone(),
        );
        return check(hit);
    }
    let (result, log) = reads::record(&render);
    let result = Arc::new(result);
    share.insert(saltenv, file, &log, data, result.clone());
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmap;

    /// The cache's answer for file `a` of `base`.
    fn cached_a<T: std::fmt::Debug>(
        share: &RenderShare<T>,
        verify: bool,
        d: &RenderData,
        failed: impl FnOnce(Diagnostic) -> T,
        render: impl Fn() -> T,
    ) -> Arc<T> {
        cached(share, verify, ("base", "a"), d, "base:a", failed, render)
    }

    fn data(os: Value, roles: Value) -> RenderData {
        RenderData {
            grains: vmap! {"id" => "m1", "os" => os, "roles" => roles},
            opts: vmap! {"id" => "m1"},
            ..RenderData::default()
        }
    }

    #[test]
    fn hits_need_every_read_value_exactly_equal() {
        let share: RenderShare<String> = RenderShare::default();
        let renders = std::cell::Cell::new(0);
        let render = |d: &RenderData| {
            renders.set(renders.get() + 1);
            reads::key(Source::Grains, "os");
            reads::key(Source::Grains, "missing");
            format!("{:?}", d.grains.get("os"))
        };
        let get = |d: &RenderData| cached_a(&share, true, d, |e| e.message, || render(d));
        let debian = data(Value::str("Debian"), Value::Null);
        assert_eq!(*get(&debian), "Some(Str(\"Debian\"))");
        // Another minion, other unread grains: shared (verify renders it again).
        let mut other = data(Value::str("Debian"), Value::str("web"));
        other
            .grains
            .as_map_mut()
            .unwrap()
            .insert("id".into(), Value::str("m2"));
        assert_eq!(*get(&other), "Some(Str(\"Debian\"))");
        assert_eq!(
            share.stats(),
            CacheStats {
                hits: 1,
                misses: 1,
                from_twin: 0
            }
        );
        // A read value that differs, even only by type, is a miss.
        assert_eq!(
            *get(&data(Value::str("CentOS"), Value::Null)),
            "Some(Str(\"CentOS\"))"
        );
        assert_eq!(*get(&data(Value::Int(1), Value::Null)), "Some(Int(1))");
        assert_eq!(
            *get(&data(Value::Float(1.0), Value::Null)),
            "Some(Float(1.0))"
        );
        // An absent key that appears is a miss too.
        let mut present = data(Value::str("Debian"), Value::Null);
        present
            .grains
            .as_map_mut()
            .unwrap()
            .insert("missing".into(), Value::Int(0));
        get(&present);
        assert_eq!(
            share.stats(),
            CacheStats {
                hits: 1,
                misses: 5,
                from_twin: 0
            }
        );
        assert_eq!(renders.get(), 6);
    }

    #[test]
    fn a_render_that_reads_everything_needs_equal_sources() {
        let share: RenderShare<usize> = RenderShare::default();
        let get = |d: &RenderData| {
            cached_a(
                &share,
                false,
                d,
                |_| 0,
                || {
                    reads::everything(Source::Grains);
                    d.grains.as_map().map_or(0, |m| m.len())
                },
            )
        };
        get(&data(Value::Null, Value::Null));
        get(&data(Value::Null, Value::Null));
        get(&data(Value::Null, Value::str("x")));
        assert_eq!(
            share.stats(),
            CacheStats {
                hits: 1,
                misses: 2,
                from_twin: 0
            }
        );
    }

    #[test]
    fn a_hit_takes_the_copy_made_ahead_once() {
        let share: RenderShare<String> = RenderShare::default();
        let get = |d: &RenderData| {
            cached_a(
                &share,
                false,
                d,
                |e| e.message,
                || {
                    reads::key(Source::Grains, "os");
                    "rendered".to_string()
                },
            )
        };
        let d = data(Value::str("Debian"), Value::Null);
        let first = get(&d);
        // No spare yet: the hit is the render the cache holds.
        let shared = get(&d);
        assert!(Arc::ptr_eq(&first, &shared));
        share.spare_work(Arc::default())();
        let spare = get(&d);
        assert_eq!(*spare, "rendered");
        assert!(!Arc::ptr_eq(&first, &spare));
        assert_eq!(Arc::strong_count(&spare), 1);
        // Used up: the next hit shares the render again until the next
        // spare is made; a second run of the work makes only that one.
        assert!(Arc::ptr_eq(&first, &get(&d)));
        share.spare_work(Arc::default())();
        share.spare_work(Arc::default())();
        assert_eq!(Arc::strong_count(&get(&d)), 1);
        assert!(Arc::ptr_eq(&first, &get(&d)));
        // Stopped before it starts: no copy.
        share.spare_work(Arc::new(AtomicBool::new(true)))();
        assert!(Arc::ptr_eq(&first, &get(&d)));
        assert_eq!(share.stats().hits, 6);
    }

    #[test]
    fn verify_reports_a_stale_render() {
        let share: RenderShare<String> = RenderShare::default();
        // A render that reads `os` without saying so.
        let get = |d: &RenderData| {
            cached_a(
                &share,
                true,
                d,
                |e| e.message,
                || d.grains.get("os").map(Value::py_str).unwrap_or_default(),
            )
        };
        get(&data(Value::str("Debian"), Value::Null));
        let stale = get(&data(Value::str("CentOS"), Value::Null));
        assert!(stale.contains("cached render of 'base:a'"), "{stale}");
        assert!(stale.contains("minion 'm1'"), "{stale}");
    }
}
