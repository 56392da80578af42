//! `lowstate fleet --diff OLD`: for every minion, the states a change of
//! the tree adds, removes and changes, as JSON lines in id order, and a
//! summary by SLS on stderr — what a reviewer of a state-tree merge wants.

use super::{compile_minion, Args, Tree};
use crate::cli::{CmdResult, Ctx, Failure};
use anyhow::anyhow;
use lowstate::salt::fleet::{diff_plans, FleetMinion};
use lowstate::salt::pipeline::Options;
use lowstate::value::{Map, Value};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// A state as the diff names it.
fn entry(c: &Map) -> Value {
    let mut m = Map::new();
    for (key, k) in [
        ("sls", "__sls__"),
        ("id", "__id__"),
        ("state", "state"),
        ("fun", "fun"),
        ("name", "name"),
    ] {
        m.insert(Value::str(key), c.get(k).cloned().unwrap_or_default());
    }
    Value::Map(m)
}

/// Per SLS: minions with a change, and the states added, removed, changed.
#[derive(Default)]
struct SlsCounts {
    minions: usize,
    added: usize,
    removed: usize,
    changed: usize,
}

pub(super) fn run(
    ctx: &Ctx,
    args: &Args,
    minions: &[FleetMinion],
    new_dir: &Path,
    old_dir: &Path,
    overrides: &Map,
    options: &Options,
) -> CmdResult {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut by_sls: BTreeMap<String, SlsCounts> = BTreeMap::new();
    let (mut changed_minions, mut failed) = (0usize, 0usize);
    let batch = (rayon::current_num_threads() * 16).max(16);
    // The two trees have different config directories, so different shares.
    let fleet = super::fleet_from_env();
    let (old_tree, new_tree) = (
        Tree::read(old_dir, overrides),
        Tree::read(new_dir, overrides),
    );
    for chunk in minions.chunks(batch) {
        let results: Vec<_> = chunk
            .par_iter()
            .map(|m| {
                let old = compile_minion(&fleet, &old_tree, options, m);
                let new = compile_minion(&fleet, &new_tree, options, m);
                (m.id.clone(), old, new)
            })
            .collect();
        for (id, old, new) in results {
            let mut line = Map::new();
            line.insert("id".into(), Value::str(id.as_str()));
            match (&old, &new) {
                (Ok(old), Ok(new)) => {
                    let d = diff_plans(old, new);
                    line.insert("ok".into(), Value::Bool(true));
                    if !d.is_empty() {
                        changed_minions += 1;
                    }
                    let mut touched: std::collections::BTreeSet<String> = Default::default();
                    let sls = |c: &Map| c.get("__sls__").map(Value::py_str).unwrap_or_default();
                    for c in &d.added {
                        by_sls.entry(sls(c)).or_default().added += 1;
                        touched.insert(sls(c));
                    }
                    for c in &d.removed {
                        by_sls.entry(sls(c)).or_default().removed += 1;
                        touched.insert(sls(c));
                    }
                    for (c, _) in &d.changed {
                        by_sls.entry(sls(c)).or_default().changed += 1;
                        touched.insert(sls(c));
                    }
                    for s in touched {
                        by_sls.entry(s).or_default().minions += 1;
                    }
                    line.insert(
                        "added".into(),
                        Value::List(d.added.iter().map(entry).collect()),
                    );
                    line.insert(
                        "removed".into(),
                        Value::List(d.removed.iter().map(entry).collect()),
                    );
                    let changed = d
                        .changed
                        .iter()
                        .map(|(c, fields)| {
                            let mut e = match entry(c) {
                                Value::Map(m) => m,
                                _ => Map::new(),
                            };
                            e.insert(
                                "arguments".into(),
                                Value::List(
                                    fields.iter().map(|f| Value::str(f.as_str())).collect(),
                                ),
                            );
                            Value::Map(e)
                        })
                        .collect();
                    line.insert("changed".into(), Value::List(changed));
                }
                _ => {
                    failed += 1;
                    line.insert("ok".into(), Value::Bool(false));
                    for (which, r) in [("old", &old), ("new", &new)] {
                        if let Err(d) = r {
                            let _ = writeln!(
                                std::io::stderr(),
                                "lowstate: minion {id} failed with the {which} tree:"
                            );
                            ctx.print_diagnostics(&d.0);
                            line.insert(
                                Value::str(format!("{which}_errors")),
                                Value::List(d.messages().into_iter().map(Value::str).collect()),
                            );
                        }
                    }
                }
            }
            let text = Value::Map(line).to_json().to_string();
            match writeln!(out, "{text}") {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                Err(e) => return Err(Failure::Config(anyhow!("cannot write output: {e}"))),
                Ok(()) => {}
            }
        }
    }
    let _ = out.flush();
    if !args.quiet {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(
            err,
            "lowstate: fleet diff: {} minions, {changed_minions} with changes, {failed} failed; {}",
            minions.len(),
            renders_summary(&fleet.stats())
        );
        for (sls, c) in &by_sls {
            let _ = writeln!(
                err,
                "  {sls}: {} minions; {} states added, {} removed, {} changed",
                c.minions, c.added, c.removed, c.changed
            );
        }
    }
    if failed > 0 {
        Err(Failure::RunFailed)
    } else {
        Ok(())
    }
}

/// What the two trees' compiles rendered and what they reused.
fn renders_summary(s: &lowstate::salt::share::CacheStats) -> String {
    format!(
        "renders: {} done, {} shared between minions, {} taken from the other tree",
        s.misses, s.hits, s.from_twin
    )
}
