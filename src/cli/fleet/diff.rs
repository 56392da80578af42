//! `lowstate fleet --diff OLD`: every minion compiled (and its managed
//! files rendered) on the old and the new tree, compared into one change
//! report (`lowstate::changes`): minions with identical changes grouped,
//! failures first, in text, JSON or Markdown.

use super::{minion_session, Args, Tree};
use crate::cli::diff::{compare, print_report};
use crate::cli::{CmdResult, Ctx};
use lowstate::changes::{Noun, Report, Target};
use lowstate::salt::changes::Compiled;
use lowstate::salt::fleet::FleetMinion;
use lowstate::salt::pipeline::Options;
use lowstate::value::Map;
use rayon::prelude::*;
use std::io::Write;
use std::path::Path;

pub(super) fn run(
    ctx: &Ctx,
    args: &Args,
    minions: &[FleetMinion],
    new_dir: &Path,
    old_dir: &Path,
    overrides: &Map,
    options: &Options,
) -> CmdResult {
    // The two trees have different config directories, so different
    // shares; the new tree's takes renders from the old tree's where every
    // file they read is the same in both (its twin).
    let fleet = super::fleet_from_env();
    let (old_tree, new_tree) = (
        Tree::read(old_dir, overrides),
        Tree::read(new_dir, overrides),
    );
    let compiled = |tree: &Tree, m: &FleetMinion| {
        minion_session(&fleet, tree, options, m).and_then(|s| Compiled::of(&s))
    };
    // Batches keep memory bounded: only the change sets are kept.
    let batch = (rayon::current_num_threads() * 16).max(16);
    let mut targets = Vec::with_capacity(minions.len());
    for chunk in minions.chunks(batch) {
        let results: Vec<_> = chunk
            .par_iter()
            .map(|m| (m, compiled(&old_tree, m), compiled(&new_tree, m)))
            .collect();
        for (m, old, new) in results {
            targets.push(Target {
                id: m.id.clone(),
                changes: compare(ctx, &m.id, &old, &new),
            });
        }
    }
    let report = Report {
        noun: Noun::MINION,
        old: args.diff.clone().unwrap_or_default(),
        new: new_dir.display().to_string(),
        targets,
    };
    if !args.quiet {
        let groups = report.groups();
        let _ = writeln!(
            std::io::stderr(),
            "lowstate: fleet diff: {}; {}",
            lowstate::changes::text::summary_line(&report, &groups),
            renders_summary(&fleet.stats())
        );
    }
    print_report(ctx, report, &args.report)
}

/// What the two trees' compiles rendered and what they reused.
fn renders_summary(s: &lowstate::salt::share::CacheStats) -> String {
    format!(
        "renders: {} done, {} shared between minions, {} taken from the other tree",
        s.misses, s.hits, s.from_twin
    )
}
