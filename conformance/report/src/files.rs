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
//! This is the report crate's second I/O module (beside `snapshot::store`, which uses it); the
//! binary uses it for every file it opens.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Component, Path};

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
