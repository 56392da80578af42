//! The users' pages show real output: every `console` block of
//! docs/check.md and docs/layers.md that runs `lowstate` shows what the
//! binary prints for it (stdout, then stderr).

mod common;

use common::lowstate;

fn page_shows_real_output(page_name: &str) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join(page_name)).unwrap();
    let mut ran = 0;
    for block in page.split("```console\n").skip(1) {
        let block = block.split("\n```").next().unwrap();
        let (command, shown) = block.split_once('\n').unwrap_or((block, ""));
        let Some(args) = command.strip_prefix("$ lowstate ") else {
            continue;
        };
        let args: Vec<&str> = args.split_whitespace().collect();
        let out = lowstate(&args);
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            printed.trim_end(),
            shown.trim_end(),
            "{page_name}: `{command}`"
        );
        ran += 1;
    }
    assert!(ran >= 1, "{page_name}: ran {ran} examples");
}

#[test]
fn the_check_page_shows_real_output() {
    page_shows_real_output("docs/check.md");
}

#[test]
fn the_layers_page_shows_real_output() {
    page_shows_real_output("docs/layers.md");
}
