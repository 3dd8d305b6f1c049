//! Opening the files the runner reads and writes — snapshots, baselines, reports, findings,
//! copied cases — without following symbolic links.
//!
//! Those files live in directories a pull request controls (a snapshot directory committed in
//! the repository, a baseline next to it). A symlink committed as `DIR/<case>.snap.new` would
//! make a run write through it to any file the CI user can write, and one committed as
//! `DIR/<case>.snap` would make a run print any file it can read into the CI log. So every open
//! here refuses a symlink in the last component (`O_NOFOLLOW`, through `rustix`), and
//! [`write_under`] also refuses one in any directory between the base and the file, so a file
//! is never read or written outside the directory given. The error says so plainly.
//!
//! Every read is bounded too ([`read_bounded`]): a file the runner reads is as hostile as an
//! adapter's reply, so it is read up to a stated size and refused past it, never loaded whole
//! first. Directory walks ([`walk`]) do not follow links either, and count what they visit —
//! entries, depth and bytes ([`WalkLimits`]) — stopping with an error that names the bound, so
//! a directory of 100,000 files, or a link to itself, costs a bounded amount of work.
//!
//! This is the report crate's second I/O module (beside `snapshot::store`, which uses it); the
//! binary uses it for every file it opens.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

use rustix::fs::{Mode, OFlags};

/// The error for a path that is a symbolic link.
fn refused(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{}: is a symbolic link; refusing to follow it (a link committed to a repository could point outside its directory)",
            path.display()
        ),
    )
}

fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

fn open(path: &Path, flags: OFlags) -> io::Result<File> {
    let mode = Mode::from_raw_mode(0o644);
    match rustix::fs::open(path, flags | OFlags::NOFOLLOW | OFlags::CLOEXEC, mode) {
        Ok(fd) => Ok(File::from(fd)),
        // ELOOP is what O_NOFOLLOW answers for a symlink.
        Err(rustix::io::Errno::LOOP) => Err(refused(path)),
        Err(e) => Err(with_path(e.into(), path)),
    }
}

/// Reads a whole file as UTF-8, refusing a symlink. A missing file is `NotFound` (the message
/// names the path).
pub fn read_to_string(path: &Path) -> io::Result<String> {
    let mut file = open(path, OFlags::RDONLY)?;
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|e| with_path(e, path))?;
    Ok(text)
}

/// Reads a whole file as UTF-8, refusing a symlink and a file of more than `max` bytes: at most
/// `max + 1` bytes are read, so a huge file costs no more than a file at the bound. The error
/// for a file past the bound names it (`InvalidData`, "over the limit of … bytes").
pub fn read_bounded(path: &Path, max: u64, what: &str) -> io::Result<String> {
    let file = open(path, OFlags::RDONLY)?;
    let mut text = String::new();
    file.take(max.saturating_add(1))
        .read_to_string(&mut text)
        .map_err(|e| with_path(e, path))?;
    if text.len() as u64 > max {
        return Err(too_large(path, what, max));
    }
    Ok(text)
}

/// The error for a file over its bound.
pub fn too_large(path: &Path, what: &str, max: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "{}: {what} is over the limit of {max} bytes; refusing to read it (docs/runner-guarantees.md)",
            path.display()
        ),
    )
}

/// What one directory walk may visit before it stops with an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkLimits {
    /// Directory entries looked at, of any kind (files, directories, links, others), in all.
    pub max_entries: usize,
    /// How deep below the directory given the walk goes (a directory deeper is an error).
    pub max_depth: usize,
    /// Whether directories below the one given are walked at all (when not, they are
    /// skipped, as the other files that are not asked for).
    pub subdirectories: bool,
    /// The sum of the sizes of the files it returns.
    pub max_bytes: u64,
    /// The largest file it returns.
    pub max_file_bytes: u64,
}

/// A file a walk found: its path and its size when it was seen.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Found {
    /// The path (the directory given, joined with the names below it).
    pub path: PathBuf,
    /// Its size in bytes.
    pub len: u64,
}

/// Every regular file under `dir` whose name ends with `.{ext}`, in path order, without
/// following a symbolic link anywhere below `dir` (a link is an error naming it: a link
/// committed in a pull request could point outside the directory, or at the directory itself),
/// and counting what it visits against `limits` (past any of them the walk stops with an error
/// that names the bound). `dir` itself is the caller's choice and may be a link. `what` names
/// the files in messages (`case files`, `saved reports`).
pub fn walk(dir: &Path, ext: &str, limits: WalkLimits, what: &str) -> io::Result<Vec<Found>> {
    let mut found = Vec::new();
    let mut seen = 0usize;
    let mut bytes = 0u64;
    // Depth-first with an explicit stack: no recursion for a hostile depth to exhaust.
    let mut stack: Vec<(PathBuf, usize)> = vec![(dir.to_path_buf(), 0)];
    let suffix = format!(".{ext}");
    while let Some((at, depth)) = stack.pop() {
        for entry in std::fs::read_dir(&at).map_err(|e| with_path(e, &at))? {
            let entry = entry.map_err(|e| with_path(e, &at))?;
            seen += 1;
            if seen > limits.max_entries {
                return Err(walk_error(
                    dir,
                    format!(
                        "holds more than {} entries; a walk looks at no more (the {what} of one run must fit)",
                        limits.max_entries
                    ),
                ));
            }
            let path = entry.path();
            // `file_type` does not follow links (it is the directory entry's own type).
            let kind = entry.file_type().map_err(|e| with_path(e, &path))?;
            if kind.is_symlink() {
                return Err(refused(&path));
            }
            if kind.is_dir() {
                if !limits.subdirectories {
                    continue;
                }
                if depth + 1 > limits.max_depth {
                    return Err(walk_error(
                        &path,
                        format!(
                            "is more than {} directories deep below {}; a walk goes no deeper",
                            limits.max_depth,
                            dir.display()
                        ),
                    ));
                }
                stack.push((path, depth + 1));
                continue;
            }
            if !kind.is_file() || !entry.file_name().to_string_lossy().ends_with(&suffix) {
                continue;
            }
            let len = entry.metadata().map_err(|e| with_path(e, &path))?.len();
            if len > limits.max_file_bytes {
                return Err(too_large(&path, "the file", limits.max_file_bytes));
            }
            bytes += len;
            if bytes > limits.max_bytes {
                return Err(walk_error(
                    dir,
                    format!(
                        "holds more than {} bytes of {what}; a walk reads no more",
                        limits.max_bytes
                    ),
                ));
            }
            found.push(Found { path, len });
        }
    }
    found.sort();
    Ok(found)
}

fn walk_error(path: &Path, message: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {message} (docs/runner-guarantees.md)", path.display()),
    )
}

/// Writes a whole file (created, or truncated), refusing a symlink.
pub fn write(path: &Path, contents: &[u8]) -> io::Result<()> {
    let mut file = open(path, OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC)?;
    file.write_all(contents).map_err(|e| with_path(e, path))
}

/// Writes a new file: whatever `path` was (a file, a symlink, a hard link to something
/// elsewhere) is removed first, and the file is created exclusively, so the write lands in a
/// file of its own.
pub fn replace(path: &Path, contents: &[u8]) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(with_path(e, path)),
    }
    let mut file = open(path, OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL)?;
    file.write_all(contents).map_err(|e| with_path(e, path))
}

/// Writes `base/relative`, creating the directories between; refuses a symlink anywhere below
/// `base` (base itself is the caller's choice and may be one) and a `relative` path that
/// leaves `base` (`..`, an absolute path).
pub fn write_under(base: &Path, relative: &Path, contents: &[u8]) -> io::Result<()> {
    let mut dir = base.to_path_buf();
    let parts: Vec<Component> = relative.components().collect();
    let Some((last, between)) = parts.split_last() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "an empty file name",
        ));
    };
    for part in between.iter().chain(std::iter::once(last)) {
        if !matches!(part, Component::Normal(_)) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: leaves {}", relative.display(), base.display()),
            ));
        }
    }
    for part in between {
        dir.push(part);
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.file_type().is_symlink() => return Err(refused(&dir)),
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("{}: is not a directory", dir.display()),
                ))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                std::fs::create_dir(&dir).map_err(|e| with_path(e, &dir))?;
            }
            Err(e) => return Err(with_path(e, &dir)),
        }
    }
    write(&dir.join(last), contents)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("hc-files-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn symlinks_are_neither_read_nor_written_through() {
        let d = scratch("links");
        let outside = d.join("outside.txt");
        std::fs::write(&outside, "secret").unwrap();
        let inside = d.join("dir");
        std::fs::create_dir(&inside).unwrap();
        let link = inside.join("x.snap");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        let e = read_to_string(&link).unwrap_err().to_string();
        assert!(
            e.contains("is a symbolic link; refusing to follow it"),
            "{e}"
        );
        assert!(!e.contains("secret"));
        let e = write(&link, b"overwritten").unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret");
        // `replace` removes the link and writes a file of its own.
        replace(&link, b"mine").unwrap();
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "mine");
        assert!(!std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret");
    }

    fn limits() -> WalkLimits {
        WalkLimits {
            max_entries: 100,
            max_depth: 4,
            subdirectories: true,
            max_bytes: 1000,
            max_file_bytes: 100,
        }
    }

    #[test]
    fn reads_are_bounded() {
        let d = scratch("bounded");
        let f = d.join("f.json");
        std::fs::write(&f, "x".repeat(101)).unwrap();
        assert_eq!(read_bounded(&f, 101, "a file").unwrap().len(), 101);
        let e = read_bounded(&f, 100, "a saved report").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(
            e.to_string()
                .contains("a saved report is over the limit of 100 bytes"),
            "{e}"
        );
    }

    #[test]
    fn walks_refuse_links_and_stop_at_their_bounds() {
        let d = scratch("walk");
        std::fs::create_dir_all(d.join("a/b")).unwrap();
        std::fs::write(d.join("a/b/x.json"), "{}").unwrap();
        std::fs::write(d.join("y.json"), "{}").unwrap();
        std::fs::write(d.join("notes.txt"), "not a case").unwrap();
        let found = walk(&d, "json", limits(), "case files").unwrap();
        let names: Vec<_> = found.iter().map(|f| f.path.clone()).collect();
        assert_eq!(names, [d.join("a/b/x.json"), d.join("y.json")]);
        // A link to the directory itself (a loop) and a link out are refused, not followed.
        std::os::unix::fs::symlink(".", d.join("a/loop")).unwrap();
        let e = walk(&d, "json", limits(), "case files").unwrap_err();
        assert!(e.to_string().contains("is a symbolic link"), "{e}");
        std::fs::remove_file(d.join("a/loop")).unwrap();
        // Too many entries, too deep, too many bytes, too large a file.
        for i in 0..10 {
            std::fs::write(d.join(format!("n{i}.json")), "{}").unwrap();
        }
        let few = WalkLimits {
            max_entries: 8,
            ..limits()
        };
        let e = walk(&d, "json", few, "case files").unwrap_err();
        assert!(e.to_string().contains("more than 8 entries"), "{e}");
        std::fs::create_dir_all(d.join("1/2/3/4/5")).unwrap();
        let e = walk(&d, "json", limits(), "case files").unwrap_err();
        assert!(
            e.to_string().contains("more than 4 directories deep"),
            "{e}"
        );
        std::fs::remove_dir_all(d.join("1")).unwrap();
        std::fs::write(d.join("big.json"), "x".repeat(101)).unwrap();
        let e = walk(&d, "json", limits(), "case files").unwrap_err();
        assert!(e.to_string().contains("over the limit of 100 bytes"), "{e}");
        std::fs::write(d.join("big.json"), "x".repeat(100)).unwrap();
        let small = WalkLimits {
            max_bytes: 50,
            ..limits()
        };
        let e = walk(&d, "json", small, "case files").unwrap_err();
        assert!(
            e.to_string().contains("more than 50 bytes of case files"),
            "{e}"
        );
    }

    #[test]
    fn write_under_stays_under_its_base() {
        let d = scratch("under");
        write_under(&d, Path::new("cases/a/b.json"), b"{}").unwrap();
        assert_eq!(
            std::fs::read_to_string(d.join("cases/a/b.json")).unwrap(),
            "{}"
        );
        let elsewhere = scratch("under-elsewhere");
        std::os::unix::fs::symlink(&elsewhere, d.join("evil")).unwrap();
        let e = write_under(&d, Path::new("evil/x.json"), b"{}").unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(!elsewhere.join("x.json").exists());
        assert!(write_under(&d, Path::new("../x.json"), b"{}").is_err());
        assert!(write_under(&d, Path::new("/tmp/x.json"), b"{}").is_err());
    }
}
