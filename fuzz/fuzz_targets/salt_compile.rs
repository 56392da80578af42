//! Jinja render + YAML + compile of a one-file tree with a small top file:
//! the input is the SLS text, optionally followed by a line `#--pillar--`
//! and a pillar SLS. Every input compiles to a lowstate or fails with
//! diagnostics; the run order is simulated too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lowstate::salt::config::{Config, SaltVersion};
use lowstate::salt::pipeline::{Options, Session};
use lowstate::salt::simulate::Assumptions;
use std::path::PathBuf;
use std::sync::OnceLock;

/// One tree per fuzzing process; each input rewrites its two SLS files.
fn tree() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("lowstate-fuzz-{}", std::process::id()));
        for sub in ["salt", "pillar"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        std::fs::write(
            dir.join("minion"),
            "id: fuzz\ngrains:\n  os: Debian\n  os_family: Debian\nfile_roots:\n  base: [salt]\npillar_roots:\n  base: [pillar]\n",
        )
        .unwrap();
        std::fs::write(dir.join("salt/top.sls"), "base:\n  '*':\n    - fuzzed\n").unwrap();
        std::fs::write(dir.join("pillar/top.sls"), "base:\n  '*':\n    - data\n").unwrap();
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let dir = tree();
    let (sls, pillar) = match data.windows(12).position(|w| w == b"#--pillar--\n") {
        Some(i) => (&data[..i], &data[i + 12..]),
        None => (data, &b""[..]),
    };
    std::fs::write(dir.join("salt/fuzzed.sls"), sls).unwrap();
    std::fs::write(dir.join("pillar/data.sls"), pillar).unwrap();
    let Ok(config) = Config::load(dir) else {
        return;
    };
    // Odd-length inputs compile as Salt 3006 (the requisite graph and its
    // simulate path), even-length ones as 3008.
    let version = if data.len() % 2 == 1 {
        SaltVersion::parse("3006").unwrap_or_default()
    } else {
        SaltVersion::default()
    };
    let options = Options {
        version,
        ..Options::default()
    };
    let session = Session::new(config, options);
    if session.lowstate().is_ok() {
        let _ = session.plan();
        let _ = session.simulate(&Assumptions::new());
    }
});
