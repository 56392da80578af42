//! `lowstate fleet`: every minion's plan in one run. Minions come from
//! `--minions` (Salt's `grains.items` JSON, a directory of grains files,
//! or a YAML list); each compiles exactly as `compile --id ID --grains ...`
//! would, in parallel, streamed out in id order in batches (memory stays
//! bounded), with a progress bar on a terminal and a summary on stderr.
//! The minions share one [`Fleet`]: the fileserver and the renders whose
//! recorded reads agree (`LOWSTATE_FLEET_VERIFY=1` checks every reused
//! render against a fresh one).

use super::{CmdResult, Common, Ctx, Failure};
use anyhow::{anyhow, Context};
use lowstate::emit::Format;
use lowstate::salt::config::Config;
use lowstate::salt::fleet::{read_minions, Fleet, FleetMinion, Shard};
use lowstate::salt::pipeline::{Options, Session};
use lowstate::salt::render::jinja::reads::strict_hash;
use lowstate::salt::share::CacheStats;
use lowstate::value::{Map, Value};
use rayon::prelude::*;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

mod diff;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// The minions: `salt '*' grains.items --out=json` output (with or
    /// without `--static`), a directory of `<id>.json` grains files, or a
    /// YAML list of `{id, grains, pillar}`.
    #[arg(long, value_name = "PATH")]
    pub minions: PathBuf,
    /// Write `OUTDIR/<id>.json` per minion (exactly what `compile` prints
    /// for it) instead of JSON lines on stdout.
    #[arg(short = 'o', long = "output-dir", value_name = "OUTDIR")]
    pub output_dir: Option<PathBuf>,
    /// Compile only the K-th of N stable slices of the fleet (by a hash of
    /// the minion id), to spread a fleet over machines.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// No progress bar and no summary.
    #[arg(short, long)]
    pub quiet: bool,
    /// Compare with another version of the tree: a config directory, or a
    /// git revision of the repository that holds `-c DIR`. Prints one
    /// change report: per group of minions with the same changes, the
    /// states added, removed and changed (old and new values), the
    /// managed files' diffs and order changes; failures first.
    #[arg(long, value_name = "OLD_DIR|REV")]
    pub diff: Option<String>,
    #[command(flatten)]
    pub report: super::diff::ReportArgs,
    #[command(flatten)]
    pub selection: super::Selection,
}

/// One minion's outcome: its lowstate, or the diagnostics that stopped it.
struct Compiled {
    id: String,
    result: Result<Vec<Map>, lowstate::Diagnostics>,
}

/// Run `lowstate fleet`.
pub fn run(args: Args, ctx: &Ctx) -> CmdResult {
    let c = &args.common;
    if c.id.is_some() || c.grains.is_some() || !c.grain.is_empty() {
        return Err(Failure::Config(anyhow!(
            "fleet: --id, --grains and --grain come from --minions for each minion"
        )));
    }
    let shard = match &args.shard {
        None => None,
        Some(s) => Some(Shard::parse(s).map_err(|e| anyhow!("--shard {e}"))?),
    };
    let minions: Vec<FleetMinion> = read_minions(&args.minions)
        .map_err(|d| anyhow!("{}", d.message))?
        .into_iter()
        .filter(|m| shard.is_none_or(|s| s.holds(&m.id)))
        .collect();
    let (dir, overrides, options) = c.prepare(ctx, args.selection.sls.clone())?;
    if let Some(old) = &args.diff {
        if args.output_dir.is_some() {
            return Err(Failure::Config(anyhow!(
                "fleet: --diff prints to stdout; it does not take -o"
            )));
        }
        let (old_dir, _guard) = super::diff::old_tree(&dir, old)?;
        return diff::run(ctx, &args, &minions, &dir, &old_dir, &overrides, &options);
    }
    if args.report.format != super::diff::ReportFormat::Text || args.report.full_report.is_some() {
        return Err(Failure::Config(anyhow!(
            "fleet: --format and --full-report are for the report of --diff"
        )));
    }
    if let Some(out) = &args.output_dir {
        std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    }
    let fleet = fleet_from_env();
    let tree = Tree::read(&dir, &overrides);
    let compile = |m: &FleetMinion| -> Compiled {
        Compiled {
            id: m.id.clone(),
            result: compile_minion(&fleet, &tree, &options, m),
        }
    };

    let start = std::time::Instant::now();
    let show_progress = !args.quiet && std::io::stderr().is_terminal();
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(minions.len() as u64),
        indicatif::ProgressDrawTarget::hidden(),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} minions  {elapsed} (eta {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut stats = Stats::default();
    // Each plan file is atomic; the disk sync is one, at the end.
    let files = lowstate::emit::AtomicBatch::new(ctx.limits.output);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    // Batches keep memory bounded: a batch compiles in parallel, then is
    // written out in id order and dropped.
    let batch = (rayon::current_num_threads() * 16).max(16);
    for chunk in minions.chunks(batch) {
        let results: Vec<Compiled> = chunk.par_iter().map(compile).collect();
        for r in results {
            stats.count(&r);
            if let Err(d) = &r.result {
                let _ = writeln!(std::io::stderr(), "lowstate: minion {} failed:", r.id);
                ctx.print_diagnostics(&d.0);
            }
            write_one(&r, args.output_dir.as_ref(), &files, &mut out)?;
        }
        bar.inc(chunk.len() as u64);
        if show_progress && bar.is_hidden() && start.elapsed().as_secs_f64() > 1.0 {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
    }
    bar.finish_and_clear();
    if let Some(dir) = &args.output_dir {
        files
            .finish()
            .with_context(|| format!("cannot sync {}", dir.display()))?;
    }
    if let Err(e) = out.flush() {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(Failure::Config(anyhow!("cannot write output: {e}")));
        }
    }
    if !args.quiet {
        let _ = writeln!(
            std::io::stderr(),
            "{}",
            stats.summary(start.elapsed(), &fleet.stats())
        );
    }
    if stats.failed > 0 {
        Err(Failure::RunFailed)
    } else {
        Ok(())
    }
}

/// A tree's minion config, read once for the whole fleet with the flags'
/// keys: each minion's config is a copy with its own id and grains.
pub(super) struct Tree<'a> {
    dir: &'a Path,
    raw: Result<Map, lowstate::diag::Diagnostic>,
}

impl<'a> Tree<'a> {
    /// Read `dir/minion` (and `minion.d`), with `overrides` set.
    pub(super) fn read(dir: &'a Path, overrides: &Map) -> Tree<'a> {
        let raw = Config::read_raw(dir).map(|mut raw| {
            for (k, v) in overrides {
                raw.insert(k.clone(), v.clone());
            }
            raw
        });
        Tree { dir, raw }
    }
}

/// The fleet run's shared work; `LOWSTATE_FLEET_VERIFY=1` renders every
/// cache hit afresh too (for tests: a difference fails the minion).
fn fleet_from_env() -> Fleet {
    Fleet::new(std::env::var_os("LOWSTATE_FLEET_VERIFY").is_some_and(|v| v == "1"))
}

/// One minion's lowstate from the tree configured in `dir`: the config
/// with the flags' keys and the minion's id and grains, its pillar merged
/// over `--pillar`, sharing the work `fleet` holds.
fn compile_minion(
    fleet: &Fleet,
    tree: &Tree,
    options: &Options,
    m: &FleetMinion,
) -> Result<Vec<Map>, lowstate::Diagnostics> {
    minion_session(fleet, tree, options, m)?.lowstate()
}

/// The compile session of one minion of the fleet (see [`compile_minion`]).
fn minion_session(
    fleet: &Fleet,
    tree: &Tree,
    options: &Options,
    m: &FleetMinion,
) -> Result<Session, lowstate::Diagnostics> {
    let mut raw = tree.raw.clone()?;
    raw.insert("id".into(), Value::str(m.id.as_str()));
    raw.insert("grains".into(), m.grains.clone());
    let config = Config::from_raw(tree.dir, raw)?;
    let mut opts = options.clone();
    if let Some(Value::Map(p)) = &m.pillar {
        let mut merged = match opts.pillar_override.take() {
            Some(Value::Map(g)) => g,
            _ => Map::new(),
        };
        lowstate::salt::dictupdate::update_map(&mut merged, p, true, false);
        opts.pillar_override = Some(Value::Map(merged));
    }
    Ok(Session::in_fleet(config, opts, fleet))
}

/// One minion's output: a JSON line, or `OUTDIR/<id>.json` with what
/// `compile` prints (the lowstate, or Salt's list of errors).
fn write_one(
    r: &Compiled,
    dir: Option<&PathBuf>,
    files: &lowstate::emit::AtomicBatch,
    out: &mut impl Write,
) -> CmdResult {
    let body = match &r.result {
        Ok(chunks) => Value::List(chunks.iter().cloned().map(Value::Map).collect()),
        Err(d) => Value::List(d.messages().into_iter().map(Value::str).collect()),
    };
    match dir {
        Some(dir) => {
            let path = dir.join(format!("{}.json", r.id));
            files
                .write_value(&body, Format::Json, &path)
                .context("cannot write output")?;
        }
        None => {
            let mut line = Map::new();
            line.insert("id".into(), Value::str(r.id.as_str()));
            line.insert("ok".into(), Value::Bool(r.result.is_ok()));
            line.insert(
                (if r.result.is_ok() {
                    "lowstate"
                } else {
                    "errors"
                })
                .into(),
                body,
            );
            let text = Value::Map(line).to_json().to_string();
            // A reader that went away (`| head`) is not an error.
            match writeln!(out, "{text}") {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                other => other.context("cannot write output")?,
            }
        }
    }
    Ok(())
}

/// The summary's counts.
#[derive(Default)]
struct Stats {
    compiled: usize,
    failed: usize,
    states: Vec<usize>,
    plans: std::collections::HashSet<u64>,
}

impl Stats {
    fn count(&mut self, r: &Compiled) {
        match &r.result {
            Ok(chunks) => {
                self.compiled += 1;
                self.states.push(chunks.len());
                use std::hash::{Hash, Hasher};
                // Exact (types and order count), without writing JSON.
                let mut h = std::collections::hash_map::DefaultHasher::new();
                chunks.len().hash(&mut h);
                for chunk in chunks {
                    chunk.len().hash(&mut h);
                    for (k, v) in chunk.iter() {
                        strict_hash(k, &mut h);
                        strict_hash(v, &mut h);
                    }
                }
                self.plans.insert(h.finish());
            }
            Err(_) => self.failed += 1,
        }
    }

    fn summary(&mut self, took: std::time::Duration, cache: &CacheStats) -> String {
        self.states.sort_unstable();
        let states = match (self.states.first(), self.states.last()) {
            (Some(min), Some(max)) => format!(
                "; states per minion: min {min}, median {}, max {max}",
                self.states[self.states.len() / 2]
            ),
            _ => String::new(),
        };
        format!(
            "lowstate: fleet: {} minions, {} compiled, {} failed{states}; {} distinct plans; renders shared: {} of {} ({:.0}%); {:.2} s",
            self.compiled + self.failed,
            self.compiled,
            self.failed,
            self.plans.len(),
            cache.hits,
            cache.hits + cache.misses,
            cache.hit_rate(),
            took.as_secs_f64()
        )
    }
}
