//! The stacks the `hot_compile` fuzz target compiles, shared with the
//! regression test of its findings (`tests/fuzz_regressions.rs`).

use super::Input;
use crate::text::SourceFile;

/// The line that separates the template from the environment file.
pub const ENV_SEPARATOR: &str = "#--env--\n";

/// The compile input of fuzz input `text`: a template, and an environment
/// file after [`ENV_SEPARATOR`] if there is one. `get_file` reads in
/// `files_dir`.
pub fn input_for(text: &str, files_dir: Option<std::path::PathBuf>) -> Input {
    let (template, env) = match text.find(ENV_SEPARATOR) {
        Some(i) => (&text[..i], Some(&text[i + ENV_SEPARATOR.len()..])),
        None => (text, None),
    };
    Input {
        template: Some(SourceFile::new("template.yaml", template)),
        environments: env
            .map(|e| vec![SourceFile::new("env.yaml", e)])
            .unwrap_or_default(),
        files_dir,
        plan: true,
        ..Input::default()
    }
}
