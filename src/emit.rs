//! Output: serialises results as JSON (Salt's `--out=json` layout) or YAML,
//! and writes them to stdout or atomically to a file (temp file + rename).

use crate::value::Value;
use std::io::Write;
use std::path::Path;

/// Output formats shared by the data-printing subcommands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    /// JSON, Salt's layout (`--out=json`).
    Json,
    /// YAML, PyYAML's block style.
    Yaml,
}

/// Serialise a value; the text always ends with a newline.
pub fn to_string(value: &Value, format: Format) -> String {
    let mut s = match format {
        Format::Json => value.to_json_pretty(),
        // Block style, as Salt's `--out=yaml` prints.
        Format::Yaml => crate::yaml::dump(value, crate::yaml::DumpOptions { flow: Some(false) }),
    };
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// Serialise `value` straight to stdout, or atomically to `out`. JSON is
/// streamed through a buffer rather than built as one string first; the
/// bytes are exactly [`to_string`]'s.
pub fn write_value(value: &Value, format: Format, out: Option<&Path>) -> std::io::Result<()> {
    if format != Format::Json {
        return output(&to_string(value, format), out);
    }
    let write = |w: &mut dyn Write| -> std::io::Result<()> {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, w);
        value.write_json_pretty(&mut w)?;
        w.write_all(b"\n")?;
        w.flush()
    };
    match out {
        Some(p) => write_atomic_with(p, write),
        None => write(&mut std::io::stdout().lock()),
    }
}

/// Write `text` to `path` atomically: a temp file beside it, then rename.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    write_atomic_with(path, |f| f.write_all(text.as_bytes()))
}

/// Like [`write_atomic`], with the content written by `fill`.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        fill(&mut f)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Print to stdout, or write atomically to `out`.
pub fn output(text: &str, out: Option<&Path>) -> std::io::Result<()> {
    match out {
        Some(p) => write_atomic(p, text),
        None => {
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            // A reader that went away (`| head`) is not an error.
            match lock.write_all(text.as_bytes()).and_then(|()| lock.flush()) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => other,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_file() {
        let dir = std::env::temp_dir().join(format!("lowstate-emit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("out.json");
        write_atomic(&p, "one").unwrap();
        write_atomic(&p, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        let leftovers = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(leftovers, 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn streamed_file_output_matches_to_string() {
        let dir = std::env::temp_dir().join(format!("lowstate-emit-v-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("out.json");
        let v = crate::vmap! {"a" => vec![Value::Int(1), Value::from("x")], "b" => 1.5};
        write_value(&v, Format::Json, Some(&p)).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            to_string(&v, Format::Json)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
