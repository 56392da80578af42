//! Creation waves (spec §11.3): the longest-path layering of the
//! dependency graph, the cycle report, and why each resource sits in its
//! wave.

use super::{Resource, Stack};
use crate::plan::EdgeFamily;
use foldhash::HashMap;

impl Stack<'_> {
    /// Why `r` is in its wave: the requirement on the longest path first,
    /// then every other one, explicit (`depends_on`) or by reference, with
    /// the template line of the resource.
    pub(super) fn reasons(
        &self,
        r: &Resource,
        index: &Positions<'_>,
        of: &[usize],
    ) -> Vec<crate::plan::Reason> {
        let at = self
            .lines
            .get(&r.name)
            .map(|l| format!(" ({l})"))
            .unwrap_or_default();
        let how = |q: &str| {
            if r.explicit.contains(q) {
                "depends_on"
            } else {
                "get_resource/get_attr"
            }
        };
        let wave = |q: &str| index.get(q).map_or(0, |&j| of[j]);
        let mut reqs: Vec<&String> = r.requires.iter().collect();
        reqs.sort_by_key(|q| std::cmp::Reverse(wave(q)));
        let mut out = Vec::new();
        let Some(first) = reqs.first() else {
            out.push(crate::plan::Reason {
                family: None,
                text: format!("requires nothing: created in the first wave{at}"),
            });
            return out;
        };
        let w = wave(first);
        out.push(crate::plan::Reason {
            family: Some(EdgeFamily::Requires),
            text: format!(
                "after {first} ({}, wave {w}): the longest chain{at}",
                how(first)
            ),
        });
        for q in &reqs[1..] {
            let w = wave(q);
            out.push(crate::plan::Reason {
                family: Some(EdgeFamily::Requires),
                text: format!("after {q} ({}, wave {w})", how(q)),
            });
        }
        out
    }
}

/// The resources left in a cycle, each with what it still requires.
pub(super) type Cycle = Vec<(String, Vec<String>)>;

/// The position of each resource in the list it was built in, by name:
/// made once per stack for the wave layering and the attribute check.
pub(super) type Positions<'r> = HashMap<&'r str, usize>;

/// [`Positions`] of `resources`.
pub(super) fn positions(resources: &[Resource]) -> Positions<'_> {
    resources
        .iter()
        .enumerate()
        .map(|(i, r)| (r.name.as_str(), i))
        .collect()
}

/// The creation waves of a stack's resources, by their positions.
pub(super) struct Waves {
    /// The positions in each wave, names sorted by code point inside a
    /// wave.
    pub(super) layers: Vec<Vec<usize>>,
    /// Each resource's wave, by position.
    pub(super) of: Vec<usize>,
}

/// Creation waves: wave(R) = 1 + max wave of its requirements (longest
/// path); names sorted by code point inside a wave. On a cycle, the nodes
/// left with what they still require. `index` is [`positions`] of
/// `resources`.
pub(super) fn waves(resources: &[Resource], index: &Positions<'_>) -> Result<Waves, Cycle> {
    // Kahn's algorithm over the requirement edges: O(resources + edges).
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); resources.len()];
    let mut waiting: Vec<usize> = vec![0; resources.len()];
    for (i, r) in resources.iter().enumerate() {
        for q in &r.requires {
            if let Some(&j) = index.get(q.as_str()) {
                dependents[j].push(i);
                waiting[i] += 1;
            }
        }
    }
    let mut wave: Vec<usize> = vec![0; resources.len()];
    let mut ready: Vec<usize> = (0..resources.len()).filter(|&i| waiting[i] == 0).collect();
    while let Some(i) = ready.pop() {
        let w = wave[i];
        for &d in &dependents[i] {
            wave[d] = wave[d].max(w + 1);
            waiting[d] -= 1;
            if waiting[d] == 0 {
                ready.push(d);
            }
        }
    }
    if waiting.iter().any(|&n| n > 0) {
        return Err(resources
            .iter()
            .enumerate()
            .filter(|(i, _)| waiting[*i] > 0)
            .map(|(i, r)| {
                let left = r
                    .requires
                    .iter()
                    .filter(|q| {
                        index
                            .get(q.as_str())
                            .is_some_and(|&j| waiting[j] > 0 || j == i)
                    })
                    .cloned()
                    .collect();
                (r.name.clone(), left)
            })
            .collect());
    }
    let n = wave.iter().max().map_or(0, |m| m + 1);
    let mut layers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, &w) in wave.iter().enumerate() {
        layers[w].push(i);
    }
    for l in &mut layers {
        l.sort_by(|&a, &b| resources[a].name.cmp(&resources[b].name));
    }
    Ok(Waves { layers, of: wave })
}
