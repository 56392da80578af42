//! Output: serialises results as JSON (Salt's `--out=json` layout) or YAML,
//! and writes them to stdout or atomically to a file (temp file + rename).

use crate::value::Value;
use std::ffi::c_char;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, Ordering};

/// The error an output over the `output` limit (`limit` bytes; see
/// [`crate::limits`]) gives (kind `FileTooLarge`).
fn too_large(limit: usize) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::FileTooLarge,
        format!(
            "error[output-too-large]: the output passed the `output` limit of {} (`--limit output=BYTES`)",
            crate::limits::human_bytes(limit)
        ),
    )
}

/// A writer that fails once more than the `output` limit went through it.
struct Limited<W> {
    inner: W,
    left: usize,
    limit: usize,
}

impl<W: Write> Write for Limited<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() > self.left {
            return Err(too_large(self.limit));
        }
        let n = self.inner.write(buf)?;
        self.left -= n;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

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

/// Serialise `value` straight to stdout, or atomically to `out`, at most
/// `limit` bytes (the `output` limit). JSON is streamed through a buffer
/// rather than built as one string first; the bytes are exactly
/// [`to_string`]'s.
pub fn write_value(
    value: &Value,
    format: Format,
    out: Option<&Path>,
    limit: usize,
) -> std::io::Result<()> {
    write_value_with(value, format, out, limit, true)
}

/// [`write_value`]; `sync` says whether a file's data reaches the disk
/// before its rename (else an [`AtomicBatch`] syncs at its end).
fn write_value_with(
    value: &Value,
    format: Format,
    out: Option<&Path>,
    limit: usize,
    sync: bool,
) -> std::io::Result<()> {
    if format != Format::Json {
        let text = to_string(value, format);
        return match out {
            Some(p) if !sync => write_bytes_unsynced(p, text.as_bytes(), limit),
            _ => output(&text, out, limit),
        };
    }
    let write = |w: &mut dyn Write| -> std::io::Result<()> {
        let w = Limited {
            inner: w,
            left: limit,
            limit,
        };
        let mut w = std::io::BufWriter::with_capacity(1 << 16, w);
        value.write_json_pretty(&mut w)?;
        w.write_all(b"\n")?;
        w.flush()
    };
    match out {
        Some(p) => write_atomic_inner(p, write, sync),
        // A reader that went away (`| head`) is not an error.
        None => match write(&mut std::io::stdout().lock()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => other,
        },
    }
}

/// Write `text` to `path` atomically: a temp file beside it, then rename.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    write_atomic_with(path, |f| f.write_all(text.as_bytes()))
}

/// The temp file being written by [`write_atomic_with`], as a
/// NUL-terminated path (null when none), so that the binary's SIGINT/SIGTERM
/// handler can remove it: no half-written file is left behind.
pub static PENDING_TEMP: AtomicPtr<c_char> = AtomicPtr::new(std::ptr::null_mut());

/// Where writing to `path` really writes: the target of a symlink (so the
/// link stays a link), else `path` itself.
fn real_target(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => match std::fs::read_link(path) {
            Ok(t) if t.is_absolute() => real_target(&t),
            Ok(t) => real_target(&path.parent().unwrap_or(Path::new(".")).join(t)),
            Err(_) => path.to_path_buf(),
        },
        _ => path.to_path_buf(),
    }
}

/// Like [`write_atomic`], with the content written by `fill`. The temp file
/// is created exclusively (`O_EXCL`: a planted file or symlink is never
/// followed) beside the target, removed on error (and by the binary on
/// SIGINT/SIGTERM), and takes the existing file's permissions; writing to a
/// symlink writes its target. Errors name the path.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    write_atomic_inner(path, fill, true)
}

/// [`write_atomic_with`]; `sync` says whether the file's data reaches the
/// disk before the rename (else an [`AtomicBatch`] syncs at its end).
fn write_atomic_inner(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    sync: bool,
) -> std::io::Result<()> {
    let named =
        |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let target = real_target(path);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let mode = std::fs::metadata(&target).ok().map(|m| m.permissions());
    let (tmp, mut file) = {
        let mut attempt = 0u32;
        loop {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let tmp = dir.join(format!(
                ".{name}.{}.{nanos}.{attempt}.tmp",
                std::process::id()
            ));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)
            {
                Ok(f) => break (tmp, f),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 16 => {
                    attempt += 1
                }
                Err(e) => return Err(named(e)),
            }
        }
    };
    let pending = std::ffi::CString::new(tmp.as_os_str().as_encoded_bytes().to_vec())
        .ok()
        .map(std::ffi::CString::into_raw);
    if let Some(p) = pending {
        PENDING_TEMP.store(p, Ordering::SeqCst);
    }
    let result = (|| {
        fill(&mut file)?;
        if let Some(m) = mode {
            file.set_permissions(m)?;
        }
        if sync {
            file.sync_all()?;
        }
        std::fs::rename(&tmp, &target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    let was = PENDING_TEMP.swap(std::ptr::null_mut(), Ordering::SeqCst);
    if !was.is_null() {
        // SAFETY: `was` came from CString::into_raw above and was not freed.
        drop(unsafe { std::ffi::CString::from_raw(was) });
    }
    result.map_err(named)
}

/// Bytes within `limit` (the `output` limit) written atomically, without
/// a sync.
fn write_bytes_unsynced(path: &Path, bytes: &[u8], limit: usize) -> std::io::Result<()> {
    if bytes.len() > limit {
        return Err(too_large(limit));
    }
    write_atomic_inner(path, |f| f.write_all(bytes), false)
}

/// Many files written atomically (each a temp file renamed into place, so
/// none is ever seen half-written), without a disk sync per file: the
/// data of all of them reaches the disk at [`AtomicBatch::finish`], one
/// `syncfs` per directory's filesystem (Linux; elsewhere each file is
/// synced there), then each directory, so the renames last too. A
/// thousand files cost one sync instead of a thousand stalls.
#[derive(Debug)]
pub struct AtomicBatch {
    /// The `output` limit of each file.
    limit: usize,
    written: std::sync::Mutex<Vec<PathBuf>>,
}

impl AtomicBatch {
    /// An empty batch whose files are each held to `limit` bytes (the
    /// `output` limit).
    pub fn new(limit: usize) -> AtomicBatch {
        AtomicBatch {
            limit,
            written: Default::default(),
        }
    }

    /// [`write_value`] to `path`, synced at [`AtomicBatch::finish`].
    pub fn write_value(&self, value: &Value, format: Format, path: &Path) -> std::io::Result<()> {
        write_value_with(value, format, Some(path), self.limit, false)?;
        self.note(path);
        Ok(())
    }

    /// `bytes` written to `path`, synced at [`AtomicBatch::finish`].
    pub fn write_bytes(&self, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        write_bytes_unsynced(path, bytes, self.limit)?;
        self.note(path);
        Ok(())
    }

    fn note(&self, path: &Path) {
        let mut w = self.written.lock().unwrap_or_else(|e| e.into_inner());
        w.push(real_target(path));
    }

    /// Bring everything written to the disk.
    pub fn finish(self) -> std::io::Result<()> {
        let written = self.written.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut dirs: Vec<PathBuf> = written
            .iter()
            .map(|p| match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => PathBuf::from("."),
            })
            .collect();
        dirs.sort();
        dirs.dedup();
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::fs::MetadataExt;
            let mut devices = std::collections::HashSet::new();
            for d in &dirs {
                let dir = std::fs::File::open(d)?;
                if devices.insert(dir.metadata()?.dev()) {
                    use std::os::fd::AsRawFd;
                    // SAFETY: syncfs on an open descriptor.
                    if unsafe { libc::syncfs(dir.as_raw_fd()) } != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        for p in &written {
            std::fs::File::open(p)?.sync_all()?;
        }
        for d in &dirs {
            // A directory that cannot be synced (some filesystems refuse)
            // still has its renames from the syncfs above.
            let _ = std::fs::File::open(d).and_then(|f| f.sync_all());
        }
        Ok(())
    }
}

/// Print to stdout, or write atomically to `out`. A text over `limit`
/// bytes (the `output` limit) is neither printed nor written.
pub fn output(text: &str, out: Option<&Path>, limit: usize) -> std::io::Result<()> {
    if text.len() > limit {
        return Err(too_large(limit));
    }
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
        write_value(&v, Format::Json, Some(&p), usize::MAX).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            to_string(&v, Format::Json)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
