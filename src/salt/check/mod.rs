//! `lowstate check` for Salt: validates the final low chunks of a compile
//! (after include, extend, `names`, requisite_in — §4.4 of the property
//! groups spec) against the state argument schemas of Salt 3008.5
//! (`schemas/*.yaml`, generated from `sys.state_argspec` plus the
//! hand-written catalogue), and turns every finding into a located
//! diagnostic with what Salt itself would do. It never changes what
//! `compile` prints.

mod catalogue;

use crate::diag::{codes, Diagnostic};
use crate::rules::{self, Schema};
use crate::salt::config::{Config, SaltVersion};
use crate::salt::pipeline::LocatedLowstate;
use crate::salt::render::jinja::reads::{strict_eq, strict_hash};
use crate::value::{Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};

pub use crate::salt::low::{chunk_args, INTERNAL_KEYWORDS};

/// Options of one check.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Versions of tools on the minion the user stated
    /// (`--assume-version pip=9.0.1`).
    pub assume_versions: BTreeMap<String, Vec<u64>>,
    /// Codes not to report (the config's `lowstate_check_allow`).
    pub allow: Vec<String>,
    /// The Salt release targeted.
    pub version: SaltVersion,
}

/// The compiled-in schemas, parsed on first use.
pub struct Catalogue {
    schemas: HashMap<&'static str, &'static str>,
    parsed: std::sync::Mutex<HashMap<String, std::sync::Arc<Schema>>>,
    modules: BTreeSet<&'static str>,
    not_loaded: HashMap<&'static str, &'static str>,
}

impl Default for Catalogue {
    fn default() -> Self {
        Catalogue::new()
    }
}

impl Catalogue {
    /// The catalogue of Salt 3008.5.
    pub fn new() -> Catalogue {
        let schemas: HashMap<&str, &str> = catalogue::SCHEMAS.iter().copied().collect();
        let modules = schemas
            .keys()
            .filter_map(|f| f.split_once('.').map(|(m, _)| m))
            .collect();
        let not_loaded = catalogue::NOT_LOADED
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .collect();
        Catalogue {
            schemas,
            parsed: std::sync::Mutex::new(HashMap::new()),
            modules,
            not_loaded,
        }
    }
    /// Every state function with a schema (`file.managed`), in no
    /// particular order.
    pub fn functions(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.schemas.keys().copied()
    }
    /// The schema of `fun` (`file.managed`), if Salt 3008.5 has it. A
    /// compiled-in file that does not parse counts as missing (the
    /// project's tests make sure none does).
    pub fn schema(&self, fun: &str) -> Option<std::sync::Arc<Schema>> {
        let mut parsed = self.parsed.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = parsed.get(fun) {
            return Some(s.clone());
        }
        let text = self.schemas.get(fun)?;
        let s = std::sync::Arc::new(rules::parse_schema(fun, text).ok()?);
        parsed.insert(fun.to_string(), s.clone());
        Some(s)
    }
}

/// State modules a tree ships itself (`_states/*.py` in any file root).
pub fn custom_modules(config: &Config) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for roots in config.file_roots.values() {
        for root in roots {
            let Ok(dir) = std::fs::read_dir(root.join("_states")) else {
                continue;
            };
            for e in dir.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                if let Some(stem) = name.strip_suffix(".py") {
                    out.insert(stem.to_string());
                }
            }
        }
    }
    out
}

/// What checking one chunk found, before the findings of all chunks are
/// put together (said once per module, merged across `names`).
#[derive(Debug, Clone)]
enum Found {
    /// Said at the first chunk of its kind only (a custom or stub module).
    Once(String, Diagnostic),
    /// Said as it is.
    Plain(Diagnostic),
    /// An argument finding: whether it aborts the run, and the chunk's
    /// `name` (for one finding standing for several `names` chunks).
    Arg(bool, Diagnostic, String),
}

/// The findings of chunks checked before, by the chunk's exact content,
/// for an editor's compiles after each edit: a chunk the edit left alone
/// is not checked again. Its findings point into files; an edit of a
/// file forgets every finding pointing into it
/// ([`CheckCache::forget_file`]), so what is kept is what a fresh check
/// finds. Each check keeps only the entries it used.
#[derive(Default)]
pub struct CheckCache {
    entries: std::sync::Mutex<Checked>,
}

/// Checked chunks and their findings, found by [`chunk_hash`] (chunks
/// with the same key are compared whole): the entries in one vector, each
/// hash's entries chained from `heads` (no allocation per chunk).
#[derive(Default)]
struct Checked {
    entries: Vec<Option<CheckedChunk>>,
    heads: HashMap<u64, u32, foldhash::fast::FixedState>,
    /// Per chunk of the plan checked last (by its index there): its entry.
    by_chunk: Vec<Option<u32>>,
}

struct CheckedChunk {
    /// [`chunk_hash`] of `chunk`.
    hash: u64,
    chunk: Map,
    found: std::sync::Arc<Vec<Found>>,
    /// The entry before it with the same hash.
    next: Option<u32>,
    /// Forgotten ([`CheckCache::forget_file`]): never found again.
    forgotten: bool,
}

impl Checked {
    fn with_capacity(n: usize) -> Checked {
        Checked {
            entries: Vec::with_capacity(n),
            heads: HashMap::with_capacity_and_hasher(n, Default::default()),
            by_chunk: Vec::new(),
        }
    }
    /// The entry holding a chunk equal to `chunk` (of hash `hash`).
    fn find(&self, hash: u64, chunk: &Map) -> Option<usize> {
        let mut at = self.heads.get(&hash).copied();
        while let Some(i) = at {
            let e = self.entries.get(i as usize)?.as_ref()?;
            if !e.forgotten && same_chunk(&e.chunk, chunk) {
                return Some(i as usize);
            }
            at = e.next;
        }
        None
    }
    /// Add an entry; returns where it is.
    fn push(&mut self, hash: u64, chunk: Map, found: std::sync::Arc<Vec<Found>>) -> u32 {
        let i = self.entries.len() as u32;
        let next = self.heads.insert(hash, i);
        self.entries.push(Some(CheckedChunk {
            hash,
            chunk,
            found,
            next,
            forgotten: false,
        }));
        i
    }
}

impl CheckCache {
    /// Forget the findings that point into the file named `name` (or
    /// into its rendered text).
    pub fn forget_file(&self, name: &str) {
        let mut checked = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let points_here = |found: &[Found]| {
            found.iter().any(|f| {
                let d = match f {
                    Found::Once(_, d) | Found::Plain(d) | Found::Arg(_, d, _) => d,
                };
                d.primary.iter().chain(d.secondary.iter()).any(|l| {
                    let f = l.file.name.as_str();
                    f == name || f.strip_suffix(" (rendered)") == Some(name)
                })
            })
        };
        for e in checked.entries.iter_mut().flatten() {
            if points_here(&e.found) {
                e.forgotten = true;
            }
        }
    }

    /// Forget everything.
    pub fn clear(&self) {
        *self.entries.lock().unwrap_or_else(|e| e.into_inner()) = Checked::default();
    }
}

/// The chunk's key in a [`CheckCache`]: what names it (ID, state,
/// function, name: IDs are unique across files), so that finding it again
/// costs a few short hashes; two chunks with the same key are told apart
/// by [`same_chunk`].
fn chunk_hash(chunk: &Map) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    // One pass over the chunk (a lookup per key would scan it four times).
    let mut naming: [Option<&Value>; 4] = [None; 4];
    for (k, v) in chunk.iter() {
        let Value::Str(k) = k else { continue };
        let i = match k.as_str() {
            "__id__" => 0,
            "state" => 1,
            "fun" => 2,
            "name" => 3,
            _ => continue,
        };
        naming[i] = Some(v);
    }
    let mut h = foldhash::fast::FixedState::default().build_hasher();
    for v in naming {
        match v {
            Some(v) => strict_hash(v, &mut h),
            None => h.write_u8(0xff),
        }
    }
    h.finish()
}

fn same_chunk(a: &Map, b: &Map) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b.iter())
            .all(|((k1, v1), (k2, v2))| strict_eq(k1, k2) && strict_eq(v1, v2))
}

/// Check every chunk of a compiled plan. Findings come in lowstate order,
/// except that those which abort the whole run lead (they lose every
/// result of the run).
pub fn check(
    plan: &LocatedLowstate,
    config: &Config,
    options: &CheckOptions,
    catalogue: &Catalogue,
) -> Vec<Diagnostic> {
    check_with(plan, config, options, catalogue, &CheckCache::default())
}

/// [`check`], reusing (and keeping) the findings of unchanged chunks in
/// `cache`.
pub fn check_with(
    plan: &LocatedLowstate,
    config: &Config,
    options: &CheckOptions,
    catalogue: &Catalogue,
    cache: &CheckCache,
) -> Vec<Diagnostic> {
    check_after(plan, config, options, catalogue, cache, None)
}

/// [`check_with`] on the plan `cache` checked last with the chunks at
/// `changed` replaced (`None`: any plan): the other chunks' findings are
/// taken by their place, without looking them up.
pub fn check_after(
    plan: &LocatedLowstate,
    config: &Config,
    options: &CheckOptions,
    catalogue: &Catalogue,
    cache: &CheckCache,
    changed: Option<&[usize]>,
) -> Vec<Diagnostic> {
    let custom = custom_modules(config);
    let mut versions = options.assume_versions.clone();
    versions.insert(
        "salt".into(),
        match options.version {
            SaltVersion::V3006 => vec![3006],
            SaltVersion::V3007 => vec![3007],
            SaltVersion::V3008 => vec![3008, 5],
        },
    );
    let unknown_value = |_: &Value| false;
    let ctx = rules::Context {
        engine: "Salt 3008.5",
        versions: &versions,
        lenient_scalars: false,
        unknown_value: &unknown_value,
    };
    // Salt sets `name` on every chunk (the ID when not given).
    let always = |n: &str| n == "name";
    let hints = rules::Hints {
        always_allowed: &always,
        near_misses: crate::salt::requisite::REQUISITE_SPELLINGS,
    };
    let mut out: Vec<(bool, Diagnostic)> = Vec::new();
    // Finding index → the names of the chunks it stands for.
    let mut names_of: HashMap<usize, Vec<String>> = HashMap::new();
    type Place = Option<(String, usize, usize)>;
    let mut seen: HashMap<(&'static str, String, Place), usize> = HashMap::new();
    let mut once: BTreeSet<String> = BTreeSet::new();
    let low = &plan.lowstate;
    let mut old = std::mem::take(&mut *cache.entries.lock().unwrap_or_else(|e| e.into_inner()));
    // The entry of chunk `i` of the plan checked last, when chunk `i` is
    // still that chunk.
    let same_place = |i: usize| {
        let changed = changed?;
        if changed.contains(&i) || old.by_chunk.len() != low.chunks.len() {
            return None;
        }
        let at = (*old.by_chunk.get(i)?)? as usize;
        let e = old.entries.get(at)?.as_ref()?;
        (!e.forgotten).then_some((e.hash, Some(at)))
    };
    // Each chunk's key and the entry checked before that equals it: the
    // comparisons of every chunk, in parallel.
    let looked_up: Vec<Option<(u64, Option<usize>)>> = {
        use rayon::prelude::*;
        low.sequence
            .par_iter()
            .with_min_len(256)
            .map(|&i| {
                if let Some(found) = same_place(i) {
                    return Some(found);
                }
                let chunk = low.chunks.get(i)?;
                let hash = chunk_hash(chunk);
                Some((hash, old.find(hash, chunk)))
            })
            .collect()
    };
    let mut kept = Checked::with_capacity(old.entries.len());
    kept.by_chunk = vec![None; low.chunks.len()];
    for (&i, looked) in low.sequence.iter().zip(looked_up) {
        let (Some(chunk), Some((hash, before))) = (low.chunks.get(i), looked) else {
            continue;
        };
        // An entry of the last check (moved over), else one this check
        // made for an equal chunk, else the chunk checked now.
        let moved = before.and_then(|at| old.entries.get_mut(at)?.take());
        let (found, at) = match moved {
            Some(e) => {
                let found = e.found.clone();
                (found, kept.push(hash, e.chunk, e.found))
            }
            None => match kept.find(hash, chunk) {
                Some(at) => match kept.entries.get(at).and_then(Option::as_ref) {
                    Some(e) => (e.found.clone(), at as u32),
                    None => continue,
                },
                None => {
                    let f = std::sync::Arc::new(check_chunk(
                        chunk, plan, &custom, catalogue, &hints, &ctx,
                    ));
                    (f.clone(), kept.push(hash, chunk.clone(), f))
                }
            },
        };
        if let Some(slot) = kept.by_chunk.get_mut(i) {
            *slot = Some(at);
        }
        for f in found.iter() {
            match f {
                Found::Once(key, d) => {
                    if once.insert(key.clone()) {
                        out.push((false, d.clone()));
                    }
                }
                Found::Plain(d) => out.push((false, d.clone())),
                Found::Arg(aborts_run, d, name) => {
                    // A state `names` expanded into several chunks has one
                    // finding per chunk at the same place: say it once,
                    // naming the chunks.
                    let key = (
                        d.code.name,
                        d.message.clone(),
                        d.primary
                            .as_ref()
                            .map(|l| (l.file.name.clone(), l.range.start, l.range.end)),
                    );
                    if let Some(&i) = seen.get(&key) {
                        names_of.entry(i).or_default().push(name.clone());
                        continue;
                    }
                    seen.insert(key, out.len());
                    names_of.insert(out.len(), vec![name.clone()]);
                    out.push((*aborts_run, d.clone()));
                }
            }
        }
    }
    *cache.entries.lock().unwrap_or_else(|e| e.into_inner()) = kept;
    for (i, (_, d)) in out.iter_mut().enumerate() {
        if let Some(names) = names_of.get(&i).filter(|n| n.len() > 1) {
            d.notes.push(format!(
                "for each of the {} states `names` makes here: {}",
                names.len(),
                names.join(", ")
            ));
        }
    }
    let mut diags: Vec<Diagnostic> = Vec::with_capacity(out.len());
    diags.extend(out.iter().filter(|(a, _)| *a).map(|(_, d)| d.clone()));
    diags.extend(out.into_iter().filter(|(a, _)| !*a).map(|(_, d)| d));
    diags.retain(|d| !allowed(d, &options.allow));
    diags
}

/// What checking one chunk finds.
fn check_chunk(
    chunk: &Map,
    plan: &LocatedLowstate,
    custom: &BTreeSet<String>,
    catalogue: &Catalogue,
    hints: &rules::Hints,
    ctx: &rules::Context,
) -> Vec<Found> {
    let mut out = Vec::new();
    let module = chunk.get("state").map(Value::py_str).unwrap_or_default();
    let fun = chunk.get("fun").map(Value::py_str).unwrap_or_default();
    let id = chunk.get("__id__").map(Value::py_str).unwrap_or_default();
    let sls = chunk.get("__sls__").map(Value::py_str).unwrap_or_default();
    let full = format!("{module}.{fun}");
    // The ID's key, looked up only for a finding that needs it (a chunk
    // without findings leaves the source map's spans unread).
    let id_label = std::cell::OnceCell::new();
    let locate = |d: Diagnostic| {
        let label = match d.primary {
            Some(_) => None,
            None => id_label.get_or_init(|| plan.sources.id(&id)).clone(),
        };
        d.or_primary(label)
            .with_subject(crate::salt::SLS, sls.as_str())
            .with_subject(crate::salt::ID, id.as_str())
    };
    if custom.contains(&module) {
        out.push(Found::Once(
            format!("custom:{module}"),
            locate(Diagnostic::new(
                codes::NOT_VALIDATED,
                format!("state module `{module}` comes from the tree's `_states/`; its arguments are not validated"),
            )),
        ));
        return out;
    }
    let Some(schema) = catalogue.schema(&full) else {
        let d = match catalogue.not_loaded.get(module.as_str()) {
            Some(reason) => Diagnostic::new(
                codes::MODULE_NOT_LOADED,
                format!("State '{full}' was not found in SLS '{sls}'\nReason: '{module}' __virtual__ returned False: {reason}"),
            )
            .with_note("Salt 3008.5 could not load this module where the argument data was made; on a minion that has what it needs it may load"),
            None if catalogue.modules.contains(module.as_str()) => Diagnostic::new(
                codes::UNKNOWN_FUNCTION,
                format!("State '{full}' was not found in SLS '{sls}'\nReason: '{full}' is not available."),
            )
            .with_note("Salt 3008.5 fails this state at run time; the run goes on"),
            None => Diagnostic::new(
                codes::UNKNOWN_FUNCTION,
                format!("State '{full}' was not found in SLS '{sls}'\nReason: '{full}' is not available."),
            )
            .with_note(format!(
                "Salt 3008.5 has no state module `{module}`; a custom one belongs in `_states/{module}.py` in a file root"
            )),
        };
        let d = match plan.sources.state(&id, &module) {
            Some(l) => d.with_primary(l),
            None => d,
        };
        // A misspelt function (`service.runing`) or module.
        let d = match (d.code == codes::UNKNOWN_FUNCTION)
            .then(|| {
                // In name order: the closest first-named wins a tie.
                let known: BTreeSet<&str> = catalogue.schemas.keys().copied().collect();
                rules::suggest(&full, known.into_iter())
            })
            .flatten()
        {
            Some(near) => d.with_note(format!("did you mean `{near}`?")),
            None => d,
        };
        out.push(Found::Plain(locate(d)));
        return out;
    };
    if let rules::Loaded::Stub(needs) = &schema.loaded {
        out.push(Found::Once(
            format!("stub:{module}"),
            locate(
                Diagnostic::new(
                    codes::NEEDS_BINARY,
                    format!(
                        "state module `{module}` loads only where {} installed on the minion",
                        match needs.as_slice() {
                            [one] => format!("`{one}` is"),
                            many => format!(
                                "{} are",
                                many.iter()
                                    .map(|n| format!("`{n}`"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        }
                    ),
                )
                .with_note(format!(
                    "elsewhere Salt fails the state with: `State '{full}' was not found in SLS '{sls}'`"
                )),
            ),
        ));
    }
    let args = chunk_args(chunk);
    let name = chunk.get("name").map(Value::py_str).unwrap_or_default();
    for f in rules::check(&schema, &args, hints, ctx) {
        let aborts_run = f.aborts_run;
        let d = f.into_diagnostic(rules::Placement {
            arg: &|a| plan.sources.arg(&id, &module, a),
            owner: plan.sources.id(&id),
            owner_beside_arg: true,
            involved: None,
        });
        out.push(Found::Arg(aborts_run, locate(d), name.clone()));
    }
    out
}

/// Is `d` suppressed: by the config's list, or by a
/// `# lowstate: allow(code, ...)` comment on its ID's line (or on the line
/// of its primary label)?
fn allowed(d: &Diagnostic, config_allow: &[String]) -> bool {
    if config_allow.iter().any(|c| c == d.code.name) {
        return true;
    }
    let mut lines = Vec::new();
    if let Some(p) = &d.primary {
        lines.push((p.file.clone(), p.range.start));
    }
    if let Some(s) = d.secondary.first() {
        lines.push((s.file.clone(), s.range.start));
    }
    lines.iter().any(|(file, at)| {
        let (line, _) = file.line_col(*at);
        let text = &file.text[file.line_range(line)];
        allow_list(text).contains(&d.code.name)
    })
}

/// The codes of a `# lowstate: allow(a, b)` comment in a line.
pub fn allow_list(line: &str) -> Vec<&str> {
    let Some(at) = line.find("lowstate: allow(") else {
        return Vec::new();
    };
    let rest = &line[at + "lowstate: allow(".len()..];
    let Some(end) = rest.find(')') else {
        return Vec::new();
    };
    rest[..end]
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}
