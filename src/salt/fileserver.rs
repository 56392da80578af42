//! The fileserver: maps saltenvs to their roots and answers "where is this
//! SLS / file" the way Salt's local fileserver does (first root wins, `a.b`
//! is `a/b.sls` before `a/b/init.sls`, even across roots). Nothing outside
//! the roots is ever read: `..`, absolute paths and symlinks that leave a
//! root are refused.

use indexmap::IndexMap;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// An SLS file found in a saltenv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlsFile {
    /// Path relative to the root, `/`-separated (`a/b/init.sls`).
    pub rel: String,
    /// The file on disk.
    pub path: PathBuf,
    /// Its size when the lookup saw it (a hint for [`SlsFile::read`]).
    pub len: Option<u64>,
}

impl SlsFile {
    /// The file's bytes. With the size the lookup saw, the buffer is made
    /// that size up front (`std::fs::read` asks the file for it again).
    pub fn read(&self) -> std::io::Result<Vec<u8>> {
        let Some(len) = self.len else {
            return std::fs::read(&self.path);
        };
        use std::io::Read;
        let mut file = std::fs::File::open(&self.path)?;
        // One byte of room past the size: the read that fills it returns
        // short, and the next one sees the end. (`read_to_end` on a file
        // asks it for its size and position first: two more system calls.)
        let mut bytes = vec![0; usize::try_from(len).unwrap_or(0).saturating_add(1)];
        let mut filled = 0;
        loop {
            if filled == bytes.len() {
                // It grew since the lookup.
                bytes.resize(bytes.len() * 2, 0);
            }
            match file.read(&mut bytes[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        bytes.truncate(filled);
        Ok(bytes)
    }

    /// True for `.../init.sls` files (relative includes add an `init` level).
    pub fn is_init(&self) -> bool {
        self.rel == "init.sls" || self.rel.ends_with("/init.sls")
    }
}

/// Why a path was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathError {
    /// The path is absolute, has `..` leaving the root, or is otherwise unsafe.
    Outside(String),
}

/// The saltenvs and their roots.
#[derive(Debug, Default)]
pub struct FileServer {
    envs: IndexMap<String, Env>,
    /// Where a symlink may lead (canonical): every root, the directory of
    /// the minion config (the checkout), and the config's
    /// `lowstate_symlink_roots`. Empty: each root only.
    allowed: Vec<PathBuf>,
    /// `fileserver_followsymlinks` (default True).
    follow: bool,
    /// [`FileServer::find_file`]'s answers so far, by (saltenv, path): the
    /// tree is read as one snapshot (the listings are cached too), and the
    /// compiles of a fleet ask the same questions.
    found: std::sync::Mutex<FoundMap>,
    /// Texts that replace files on disk (an editor's unsaved buffers), by
    /// the path the lookups form (root joined with the relative path).
    overlay: std::sync::RwLock<std::collections::HashMap<PathBuf, Arc<str>>>,
}

/// A file [`FileServer::find_file`] found, with its size when the lookup
/// saw it.
type Found = (PathBuf, Option<u64>);

/// [`FileServer::find_file`]'s answers by (saltenv, path).
type FoundMap = std::collections::HashMap<(String, String), Option<Found>>;

/// How a fileserver treats symlinks (see [`FileServer::with_links`]).
#[derive(Debug, Clone, Default)]
pub struct LinkPolicy {
    /// Follow symlinks at all (`fileserver_followsymlinks`).
    pub follow: bool,
    /// Directories symlinks may lead into, besides the roots.
    pub allowed: Vec<PathBuf>,
}

#[derive(Debug)]
struct Env {
    roots: Vec<PathBuf>,
    /// Each root with symlinks resolved (`None` if it cannot be), computed
    /// once: containment checks compare against it.
    canonical: Vec<OnceLock<Option<PathBuf>>>,
    /// Each root's own entries and their kinds (`None` if it cannot be
    /// read), listed once: the first step of every lookup is answered
    /// from it instead of asking the file system (see [`plain_walk`]).
    tops: Vec<OnceLock<Option<Top>>>,
    /// Each root's symlinks to directories, as (where the link leads,
    /// resolved; the link's name), found once: a file reached through one
    /// (a formula checked out elsewhere and linked into the root) is
    /// located from its own path too ([`FileServer::locate`]).
    linked: Vec<OnceLock<Vec<(PathBuf, std::ffi::OsString)>>>,
    listing: OnceLock<Vec<String>>,
    paths: OnceLock<Arc<FileListing>>,
}

impl Env {
    fn canonical_root(&self, i: usize) -> Option<&Path> {
        self.canonical
            .get(i)?
            .get_or_init(|| self.roots.get(i).and_then(|r| r.canonicalize().ok()))
            .as_deref()
    }

    fn linked(&self, i: usize) -> &[(PathBuf, std::ffi::OsString)] {
        let Some(slot) = self.linked.get(i) else {
            return &[];
        };
        slot.get_or_init(|| {
            let (Some(root), Some(top)) = (self.roots.get(i), self.top(i)) else {
                return Vec::new();
            };
            let mut out: Vec<(PathBuf, std::ffi::OsString)> = top
                .0
                .iter()
                .filter(|(_, k)| **k == Kind::Link)
                .filter_map(|(name, _)| {
                    let to = root.join(name).canonicalize().ok()?;
                    to.is_dir().then(|| (to, name.clone()))
                })
                .collect();
            // One order whatever the listing's: by name.
            out.sort_by(|a, b| a.1.cmp(&b.1));
            out
        })
    }

    fn top(&self, i: usize) -> Option<&Top> {
        self.tops
            .get(i)?
            .get_or_init(|| self.roots.get(i).and_then(|r| Top::list(r)))
            .as_ref()
    }
}

/// What a directory entry is, as its listing tells (no `stat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Dir,
    Link,
    /// Anything else (a socket, a FIFO, a device).
    Other,
    /// The file system did not say: ask it.
    Unknown,
}

/// A root's entries by name.
#[derive(Debug)]
struct Top(std::collections::HashMap<std::ffi::OsString, Kind>);

impl Top {
    fn list(root: &Path) -> Option<Top> {
        let entries = std::fs::read_dir(root).ok()?;
        let mut kinds = std::collections::HashMap::new();
        for e in entries {
            let e = e.ok()?;
            // `file_type` comes from the listing itself where the file
            // system fills it in; std asks `lstat` only where it does not.
            let kind = match e.file_type() {
                Ok(t) if t.is_symlink() => Kind::Link,
                Ok(t) if t.is_dir() => Kind::Dir,
                Ok(t) if t.is_file() => Kind::File,
                Ok(_) => Kind::Other,
                Err(_) => Kind::Unknown,
            };
            kinds.insert(e.file_name(), kind);
        }
        Some(Top(kinds))
    }
}

impl FileServer {
    /// A fileserver over `roots` (saltenv → directories, in order).
    pub fn new(roots: &IndexMap<String, Vec<PathBuf>>) -> FileServer {
        FileServer {
            envs: roots
                .iter()
                .map(|(env, r)| {
                    (
                        env.clone(),
                        Env {
                            roots: r.clone(),
                            canonical: r.iter().map(|_| OnceLock::new()).collect(),
                            tops: r.iter().map(|_| OnceLock::new()).collect(),
                            linked: r.iter().map(|_| OnceLock::new()).collect(),
                            listing: OnceLock::new(),
                            paths: OnceLock::new(),
                        },
                    )
                })
                .collect(),
            allowed: Vec::new(),
            follow: true,
            found: Default::default(),
            overlay: Default::default(),
        }
    }

    /// A fileserver whose symlinks may lead into any root of `roots`, or
    /// into `links.allowed` (the checkout the config lives in, and the
    /// config's `lowstate_symlink_roots`), as Salt's fileserver follows
    /// symlinks (`fileserver_followsymlinks`) — but a tree from a merge
    /// request cannot read `/etc/shadow` through a link.
    pub fn with_links(roots: &IndexMap<String, Vec<PathBuf>>, links: &LinkPolicy) -> FileServer {
        let mut fs = FileServer::new(roots);
        fs.follow = links.follow;
        fs.allowed = roots
            .values()
            .flatten()
            .chain(links.allowed.iter())
            .filter_map(|d| d.canonicalize().ok())
            .collect();
        fs
    }

    /// Whether `p` (a path under root `root`) may be read: without
    /// symlinks, or with symlinks that stay inside the allowed directories.
    fn allowed_path(&self, root: &Path, p: &Path) -> bool {
        let Ok(real) = p.canonicalize() else {
            return false;
        };
        if real.starts_with(root) && (self.follow || !has_symlink(root, p)) {
            return true;
        }
        self.follow && self.allowed.iter().any(|a| real.starts_with(a))
    }

    /// A symlink on the way to `rel` that leads outside every allowed
    /// directory: (link, target), for an error that says why `rel` is
    /// missing.
    pub fn refused_link(&self, env: &str, rel: &str) -> Option<(PathBuf, PathBuf)> {
        let env = self.envs.get(env)?;
        for root in &env.roots {
            let mut cur = root.clone();
            for part in rel.split('/') {
                cur.push(part);
                if std::fs::symlink_metadata(&cur).is_ok_and(|m| m.file_type().is_symlink()) {
                    let target = cur
                        .canonicalize()
                        .unwrap_or_else(|_| std::fs::read_link(&cur).unwrap_or_default());
                    let ok = self.follow && self.allowed.iter().any(|a| target.starts_with(a));
                    if !ok {
                        return Some((cur, target));
                    }
                }
            }
        }
        None
    }

    /// Saltenvs in config order.
    pub fn envs(&self) -> impl Iterator<Item = &str> {
        self.envs.keys().map(String::as_str)
    }

    /// Whether `env` has file roots.
    pub fn has_env(&self, env: &str) -> bool {
        self.envs.contains_key(env)
    }

    /// Normalise a root-relative path: strip `./`, resolve `..` that stays
    /// inside, refuse absolute paths and escapes.
    pub fn normalise(path: &str) -> Result<String, PathError> {
        if path.starts_with('/') || path.contains('\\') || path.contains('\0') {
            return Err(PathError::Outside(path.to_string()));
        }
        let mut parts: Vec<&str> = Vec::new();
        for p in path.split('/') {
            match p {
                "" | "." => {}
                ".." => {
                    if parts.pop().is_none() {
                        return Err(PathError::Outside(path.to_string()));
                    }
                }
                p => parts.push(p),
            }
        }
        Ok(parts.join("/"))
    }

    /// Find a root-relative file: the first root that has it wins. Symlinks
    /// whose target leaves the root are treated as absent.
    pub fn find_file(&self, env: &str, rel: &str) -> Option<PathBuf> {
        self.find_sized(env, rel).map(|(path, _)| path)
    }

    /// [`FileServer::find_file`], with the file's size when the lookup saw it.
    fn find_sized(&self, env: &str, rel: &str) -> Option<Found> {
        let key = (env.to_string(), rel.to_string());
        if let Some(found) = self.found_lock().get(&key) {
            return found.clone();
        }
        let found = self.look_up(env, rel);
        self.found_lock().insert(key, found.clone());
        found
    }

    fn found_lock(&self) -> std::sync::MutexGuard<'_, FoundMap> {
        self.found.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn look_up(&self, env: &str, rel: &str) -> Option<Found> {
        let rel = Self::normalise(rel).ok()?;
        if rel.is_empty() {
            return None;
        }
        let env = self.envs.get(env)?;
        env.roots.iter().enumerate().find_map(|(i, root)| {
            let p = root.join(&rel);
            if self.follow {
                match plain_walk(root, env.top(i), &rel) {
                    // No link on the way: the file is inside the root.
                    Walk::File(len) => return env.canonical_root(i).map(|_| (p, Some(len))),
                    Walk::Missing => return None,
                    Walk::Link => {}
                }
            }
            (p.is_file() && self.allowed_path(env.canonical_root(i)?, &p)).then_some((p, None))
        })
    }

    /// Read a root-relative file.
    pub fn read(&self, env: &str, rel: &str) -> Option<String> {
        self.read_text(&self.find_file(env, rel)?).ok()
    }

    /// The text of a file the lookups found: its overlay text or what is on
    /// disk (`std::fs::read_to_string`).
    pub fn read_text(&self, path: &Path) -> std::io::Result<String> {
        match self.overlaid(path) {
            Some(text) => Ok(text.to_string()),
            None => std::fs::read_to_string(path),
        }
    }

    /// The bytes of a file the lookups found: its overlay text (see
    /// [`FileServer::set_text`]) or what is on disk.
    pub fn read_path(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        if let Some(text) = self.overlaid(path) {
            return Ok(text.as_bytes().to_vec());
        }
        std::fs::read(path)
    }

    /// An SLS file's bytes ([`SlsFile::read`], or its overlay text).
    pub fn read_sls(&self, file: &SlsFile) -> std::io::Result<Vec<u8>> {
        match self.overlaid(&file.path) {
            Some(text) => Ok(text.as_bytes().to_vec()),
            None => file.read(),
        }
    }

    fn overlaid(&self, path: &Path) -> Option<Arc<str>> {
        let overlay = self.overlay.read().unwrap_or_else(|e| e.into_inner());
        if overlay.is_empty() {
            return None;
        }
        overlay.get(path).cloned()
    }

    /// Serve `text` instead of the file at `path` (a path as the lookups
    /// form it: a root joined with a relative path; see
    /// [`FileServer::locate`]), or the file again (`None`). An editor's
    /// unsaved buffer: nothing is written.
    pub fn set_text(&self, path: &Path, text: Option<&str>) {
        let mut overlay = self.overlay.write().unwrap_or_else(|e| e.into_inner());
        match text {
            Some(t) => {
                overlay.insert(path.to_path_buf(), Arc::from(t));
            }
            None => {
                overlay.remove(path);
            }
        }
    }

    /// Which saltenv and relative path serve the file at `path` (absolute),
    /// and the path the lookups form for it: the first root (in env order)
    /// that holds it. A path under the directory a root's symlink leads to
    /// (resolved) is located as the root serves it, through the link, when
    /// symlinks are followed.
    pub fn locate(&self, path: &Path) -> Option<(String, String, PathBuf)> {
        let found = |name: &String, root: &PathBuf, rel: PathBuf| {
            let rel = rel.to_string_lossy().replace('\\', "/");
            Some((name.clone(), rel.clone(), root.join(rel)))
        };
        for (name, env) in &self.envs {
            for (i, root) in env.roots.iter().enumerate() {
                let rel = path
                    .strip_prefix(root)
                    .ok()
                    .or_else(|| path.strip_prefix(env.canonical_root(i)?).ok());
                if let Some(rel) = rel {
                    return found(name, root, rel.to_path_buf());
                }
            }
        }
        if !self.follow {
            return None;
        }
        for (name, env) in &self.envs {
            for (i, root) in env.roots.iter().enumerate() {
                // Links the lookups follow only: into the root itself or
                // an allowed directory.
                let inside = |to: &Path| {
                    env.canonical_root(i).is_some_and(|r| to.starts_with(r))
                        || self.allowed.iter().any(|a| to.starts_with(a))
                };
                for (to, link) in env.linked(i).iter().filter(|(to, _)| inside(to)) {
                    if let Ok(rest) = path.strip_prefix(to) {
                        return found(name, root, Path::new(link).join(rest));
                    }
                }
            }
        }
        None
    }

    /// Locate SLS `a.b`: `a/b.sls` in any root beats `a/b/init.sls`. As in
    /// Salt's `get_state`, the name only has its dots turned into slashes:
    /// `a/b` (a name written as a path) is found too, and the empty part of
    /// `app.` (`include: [..]` from a file that is not an `init.sls`) finds
    /// `app//init.sls`.
    pub fn find_sls(&self, env: &str, sls: &str) -> Option<SlsFile> {
        if sls.is_empty() {
            return None;
        }
        // Dots become slashes; the salt:// lookup drops the slashes a
        // leading dot makes (`.a` is a.sls, and keeps its name).
        let path = sls.replace('.', "/");
        let base = path.trim_start_matches('/');
        [format!("{base}.sls"), format!("{base}/init.sls")]
            .into_iter()
            .find_map(|rel| {
                let (path, len) = self.find_sized(env, &rel)?;
                let rel = Self::normalise(&rel).ok()?;
                Some(SlsFile { rel, path, len })
            })
    }

    /// Every SLS name available in an env, unique and sorted (for globs).
    pub fn list_sls(&self, env: &str) -> &[String] {
        let Some(e) = self.envs.get(env) else {
            return &[];
        };
        e.listing.get_or_init(|| {
            let mut names = BTreeSet::new();
            for (i, root) in e.roots.iter().enumerate() {
                let Some(canonical) = e.canonical_root(i) else {
                    continue;
                };
                walk(
                    &|p| self.allowed_path(canonical, p),
                    root,
                    root,
                    &mut |rel| {
                        if let Some(stem) = rel.strip_suffix(".sls") {
                            let name = match stem.strip_suffix("/init") {
                                Some(pkg) => pkg.to_string(),
                                None => stem.to_string(),
                            };
                            names.insert(name.replace('/', "."));
                        }
                    },
                );
            }
            names.into_iter().collect()
        })
    }
}

impl FileServer {
    /// Every file and directory of an env (all roots merged, sorted), as
    /// Salt's `roots` fileserver backend lists them; computed once.
    pub fn list_paths(&self, env: &str) -> Arc<FileListing> {
        let Some(e) = self.envs.get(env) else {
            return Arc::default();
        };
        e.paths
            .get_or_init(|| {
                let mut files = BTreeSet::new();
                let mut dirs = BTreeSet::new();
                for (i, root) in e.roots.iter().enumerate() {
                    if let Some(canonical) = e.canonical_root(i) {
                        walk_all(canonical, root, root, &mut files, &mut dirs);
                    }
                }
                Arc::new(FileListing {
                    files: files.into_iter().collect(),
                    dirs: dirs.into_iter().collect(),
                })
            })
            .clone()
    }
}

/// Collect files and directories below `dir` (root-relative), not leaving
/// the root.
fn walk_all(
    canonical: &Path,
    root: &Path,
    dir: &Path,
    files: &mut BTreeSet<String>,
    dirs: &mut BTreeSet<String>,
) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if !inside(canonical, &p) {
            continue;
        }
        let Some(rel) = p
            .strip_prefix(root)
            .ok()
            .and_then(Path::to_str)
            .map(|s| s.replace('\\', "/"))
        else {
            continue;
        };
        if p.is_dir() {
            dirs.insert(rel);
            walk_all(canonical, root, &p, files, dirs);
        } else {
            files.insert(rel);
        }
    }
}

/// Is `p` (after resolving symlinks) inside the canonical root `root`?
fn inside(root: &Path, p: &Path) -> bool {
    p.canonicalize().is_ok_and(|p| p.starts_with(root))
}

/// What [`plain_walk`] found.
enum Walk {
    /// A regular file (of this size), reached through directories that are
    /// not links.
    File(u64),
    /// Nothing there, or not a regular file (no link on the way).
    Missing,
    /// A link on the way (or at the end): resolve it to decide.
    Link,
}

/// Look at `root/rel` one component at a time without following links
/// (`rel` is normalised: no `.` or `..`). A file reached without a link is
/// inside the root whatever the root's own path is, which spares resolving
/// its whole path (about a dozen system calls per SLS file). The first
/// component is looked up in the root's listing `top` when there is one: of
/// `a.sls` and `a/init.sls`, which every SLS name tries in turn, that
/// answers the first for nothing and the second with one `lstat`.
fn plain_walk(root: &Path, top: Option<&Top>, rel: &str) -> Walk {
    let mut cur = root.to_path_buf();
    let mut parts = rel.split('/').peekable();
    let mut top = top;
    while let Some(part) = parts.next() {
        cur.push(part);
        let last = parts.peek().is_none();
        if let Some(top) = top.take() {
            match top.0.get(std::ffi::OsStr::new(part)) {
                None | Some(Kind::Other) => return Walk::Missing,
                Some(Kind::Link) => return Walk::Link,
                Some(Kind::Dir) if last => return Walk::Missing,
                Some(Kind::Dir) => continue,
                // A file still needs its size; an unknown kind, a look.
                Some(Kind::File | Kind::Unknown) => {}
            }
        }
        let Ok(meta) = std::fs::symlink_metadata(&cur) else {
            return Walk::Missing;
        };
        let kind = meta.file_type();
        if kind.is_symlink() {
            return Walk::Link;
        }
        if last {
            return if kind.is_file() {
                Walk::File(meta.len())
            } else {
                Walk::Missing
            };
        }
        if !kind.is_dir() {
            return Walk::Missing;
        }
    }
    Walk::Missing
}

/// Whether a path component between `root` and `p` is a symlink.
fn has_symlink(root: &Path, p: &Path) -> bool {
    let Ok(rel) = p.strip_prefix(root) else {
        return true;
    };
    let mut cur = root.to_path_buf();
    rel.components().any(|c| {
        cur.push(c);
        std::fs::symlink_metadata(&cur).is_ok_and(|m| m.file_type().is_symlink())
    })
}

/// Visit the files under `dir` (sorted, recursively) that resolve inside
/// the root. Only symlinks need resolving: a plain entry of a directory
/// inside the root is inside it too.
fn walk(ok: &dyn Fn(&Path) -> bool, root: &Path, dir: &Path, f: &mut dyn FnMut(&str)) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        let is_dir = match e.file_type() {
            Ok(t) if !t.is_symlink() => t.is_dir(),
            _ => {
                if !ok(&p) {
                    continue;
                }
                p.is_dir()
            }
        };
        if is_dir {
            walk(ok, root, &p, f);
        } else if let Ok(rel) = p.strip_prefix(root) {
            if let Some(s) = rel.to_str() {
                f(&s.replace('\\', "/"));
            }
        }
    }
}

/// A file's bytes as text, or Python's `UnicodeDecodeError` for them:
/// `(byte offset, "'utf-8' codec can't decode byte 0xe9 in position 46:
/// invalid continuation byte")`, as Salt reports a file that is not UTF-8.
pub fn decode_utf8(bytes: Vec<u8>) -> Result<String, (usize, String)> {
    String::from_utf8(bytes).map_err(|e| {
        let err = e.utf8_error();
        let pos = err.valid_up_to();
        let bytes = e.as_bytes();
        let b = bytes[pos];
        let reason = if (0x80..=0xBF).contains(&b) || b >= 0xF5 || b == 0xC0 || b == 0xC1 {
            "invalid start byte"
        } else if err.error_len().is_none() {
            "unexpected end of data"
        } else {
            "invalid continuation byte"
        };
        (
            pos,
            format!("'utf-8' codec can't decode byte 0x{b:02x} in position {pos}: {reason}"),
        )
    })
}

/// The paths of a saltenv, relative to its roots, `/`-separated, each
/// list sorted and without duplicates (several roots merge).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileListing {
    /// Files (relative paths) the loader can serve.
    pub files: Vec<String>,
    /// Directories the loader can list.
    pub dirs: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (tempdir::Dir, FileServer) {
        let d = tempdir::Dir::new("fs");
        d.write("r1/a/b/init.sls", "x: 1");
        d.write("r2/a/b.sls", "y: 1");
        d.write("r1/top.sls", "");
        d.write("r1/solo.sls", "");
        d.write("r2/solo.sls", "other");
        d.write("r1/init.sls", "");
        let mut roots = IndexMap::new();
        roots.insert("base".to_string(), vec![d.path("r1"), d.path("r2")]);
        (d, FileServer::new(&roots))
    }

    #[test]
    fn sls_file_beats_init_across_roots() {
        let (_d, fs) = tree();
        let f = fs.find_sls("base", "a.b").unwrap();
        assert_eq!(f.rel, "a/b.sls");
        assert!(f.path.to_string_lossy().contains("r2"));
        assert_eq!(fs.read("base", "solo.sls").as_deref(), Some(""));
    }

    #[test]
    fn listing_is_sorted_and_unique() {
        let (_d, fs) = tree();
        assert_eq!(fs.list_sls("base"), ["a.b", "init", "solo", "top"]);
    }

    #[test]
    fn paths_of_all_roots_merge_sorted() {
        let (_d, fs) = tree();
        let l = fs.list_paths("base");
        assert_eq!(
            l.files,
            ["a/b.sls", "a/b/init.sls", "init.sls", "solo.sls", "top.sls"]
        );
        assert_eq!(l.dirs, ["a", "a/b"]);
        assert!(fs.list_paths("nosuch").files.is_empty());
    }

    #[test]
    #[cfg(unix)]
    fn symlinks_count_only_when_they_stay_inside_the_root() {
        let d = tempdir::Dir::new("links");
        d.write("root/a/init.sls", "x: 1");
        d.write("outside/secret.sls", "y: 1");
        d.write("outside/pkg/init.sls", "z: 1");
        let root = d.path("root");
        std::os::unix::fs::symlink(d.path("outside/secret.sls"), root.join("leak.sls")).unwrap();
        std::os::unix::fs::symlink(d.path("outside/pkg"), root.join("leakdir")).unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("alias")).unwrap();
        let mut roots = IndexMap::new();
        roots.insert("base".to_string(), vec![root]);
        let fs = FileServer::new(&roots);
        assert_eq!(fs.list_sls("base"), ["a", "alias"]);
        assert!(fs.find_sls("base", "leak").is_none());
        assert!(fs.find_sls("base", "leakdir").is_none());
        assert!(fs.find_sls("base", "alias").is_some());
    }

    /// A file under a directory a root links to is located as the root
    /// serves it, through the link; a link the lookups refuse (it leads
    /// outside the root and every allowed directory) locates nothing.
    #[test]
    #[cfg(unix)]
    fn files_under_a_linked_directory_are_located_through_the_link() {
        let d = tempdir::Dir::new("locate");
        d.write("root/top.sls", "");
        d.write("formulas/app/init.sls", "x: 1");
        let root = d.path("root");
        std::os::unix::fs::symlink(d.path("formulas/app"), root.join("app")).unwrap();
        let real = d.path("formulas/app/init.sls").canonicalize().unwrap();
        let mut roots = IndexMap::new();
        roots.insert("base".to_string(), vec![root.clone()]);
        assert_eq!(FileServer::new(&roots).locate(&real), None);
        let links = LinkPolicy {
            follow: true,
            allowed: vec![d.path("formulas").canonicalize().unwrap()],
        };
        let fs = FileServer::with_links(&roots, &links);
        assert_eq!(
            fs.locate(&real),
            Some((
                "base".into(),
                "app/init.sls".into(),
                root.join("app/init.sls")
            ))
        );
        assert!(fs.find_sls("base", "app").is_some());
        let unfollowed = FileServer::with_links(
            &roots,
            &LinkPolicy {
                follow: false,
                ..links
            },
        );
        assert_eq!(unfollowed.locate(&real), None);
    }

    /// The root's listing answers the first step of a lookup as `lstat`
    /// would: files (with their sizes), directories, links, what is absent,
    /// and a directory or a FIFO where a file is asked for.
    #[test]
    #[cfg(unix)]
    fn the_roots_listing_answers_as_lstat_does() {
        let d = tempdir::Dir::new("top");
        d.write("root/a.sls", "abc");
        d.write("root/b/init.sls", "x: 1");
        d.write("root/c.sls/init.sls", "");
        d.write("outside/x.sls", "");
        let root = d.path("root");
        std::os::unix::fs::symlink(d.path("outside"), root.join("link")).unwrap();
        std::os::unix::fs::symlink(d.path("outside/x.sls"), root.join("l.sls")).unwrap();
        let fifo = std::ffi::CString::new(root.join("f.sls").to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let top = Top::list(&root).unwrap();
        let rels = [
            "a.sls",
            "b",
            "b/init.sls",
            "b/none",
            "c.sls",
            "c.sls/init.sls",
            "link",
            "link/x.sls",
            "l.sls",
            "f.sls",
            "none",
            "none/init.sls",
            "a.sls/x",
        ];
        for rel in rels {
            let listed = plain_walk(&root, Some(&top), rel);
            let looked = plain_walk(&root, None, rel);
            let show = |w: &Walk| match w {
                Walk::File(n) => format!("file {n}"),
                Walk::Missing => "missing".into(),
                Walk::Link => "link".into(),
            };
            assert_eq!(show(&listed), show(&looked), "{rel}");
        }
        assert!(matches!(
            plain_walk(&root, Some(&top), "a.sls"),
            Walk::File(3)
        ));
        let mut roots = IndexMap::new();
        roots.insert("base".to_string(), vec![root]);
        let fs = FileServer::new(&roots);
        let b = fs.find_sls("base", "b").unwrap();
        assert_eq!((b.rel.as_str(), b.len), ("b/init.sls", Some(4)));
        assert_eq!(b.read().unwrap(), b"x: 1");
        assert!(fs.find_sls("base", "f").is_none());
    }

    #[test]
    fn refuses_paths_outside_roots() {
        let (_d, fs) = tree();
        assert!(FileServer::normalise("../x").is_err());
        assert!(FileServer::normalise("/etc/passwd").is_err());
        assert_eq!(FileServer::normalise("a/./b/../c").unwrap(), "a/c");
        assert!(fs.read("base", "../r2/solo.sls").is_none());
        assert!(fs.find_sls("base", "..a").is_none());
    }

    /// A tiny self-cleaning temp dir for tests.
    mod tempdir {
        use std::path::PathBuf;
        pub(crate) struct Dir(PathBuf);
        impl Dir {
            pub(crate) fn new(tag: &str) -> Dir {
                let p = std::env::temp_dir().join(format!(
                    "lowstate-{tag}-{}-{:?}",
                    std::process::id(),
                    std::thread::current().id()
                ));
                let _ = std::fs::remove_dir_all(&p);
                std::fs::create_dir_all(&p).unwrap();
                Dir(p)
            }
            pub(crate) fn path(&self, rel: &str) -> PathBuf {
                self.0.join(rel)
            }
            pub(crate) fn write(&self, rel: &str, text: &str) {
                let p = self.0.join(rel);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, text).unwrap();
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }
}
