//! How the high → low compile scales: `cargo bench --bench high_to_low`
//! compiles the large synthetic tree (3 SLS files × N states, see
//! `tests/common/large_tree.rs`) at N and 2N and prints the time ratio
//! (about 2 for a linear pass, 4 for a quadratic one). Median of 5 runs
//! each. Nothing here is needed by `cargo test`.

#[path = "../tests/common/large_tree.rs"]
mod large_tree;

use lowstate::salt::high::SourceMap;
use lowstate::salt::low::LowOptions;
use lowstate::salt::pipeline::high_to_low;
use std::time::{Duration, Instant};

fn median_time(n: usize) -> Duration {
    let mut times: Vec<Duration> = (0..5)
        .map(|_| {
            let high = large_tree::large_tree(n);
            let start = Instant::now();
            let low =
                high_to_low(high, &LowOptions::default(), &SourceMap::default()).expect("compiles");
            let t = start.elapsed();
            assert!(low.len() >= 3 * n);
            t
        })
        .collect();
    times.sort();
    times[2]
}

fn main() {
    let n = 6000;
    let (one, two) = (median_time(n), median_time(2 * n));
    println!(
        "high_to_low: {} states {one:?}, {} states {two:?}, ratio {:.2} (linear 2, quadratic 4)",
        3 * n,
        6 * n,
        two.as_secs_f64() / one.as_secs_f64()
    );
}
