//! `StdFsResolver`: path confinement against a real directory. The one module of harness-ref
//! that touches the file system, compiled only with the `fs` feature (and in its own tests), so
//! that the rest of the crate stays a pure library.

use std::io;
use std::path::{Path, PathBuf};

use super::confine::{PathProblem, Resolver, WorkspacePath};

/// Resolves workspace paths under a root directory with `std::fs`, following links.
#[derive(Debug, Clone)]
pub struct StdFsResolver {
    root: PathBuf,
}

impl StdFsResolver {
    /// A resolver for the workspace at `root` (which must exist; it is canonicalised once).
    pub fn new(root: impl AsRef<Path>) -> io::Result<StdFsResolver> {
        Ok(StdFsResolver {
            root: std::fs::canonicalize(root)?,
        })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Resolver for StdFsResolver {
    /// Walks the path one component at a time: each existing prefix is canonicalised (which
    /// follows every link in it) and must stay under the root; the first missing component
    /// ends the walk (what does not exist cannot be a link). A dangling link or a loop is
    /// [`PathProblem::Unresolvable`]: writing through it would create its target, wherever
    /// that is.
    fn check(&self, path: &WorkspacePath) -> Result<(), PathProblem> {
        let mut prefix = self.root.clone();
        for part in path.components() {
            prefix.push(part);
            match std::fs::symlink_metadata(&prefix) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
                Err(_) => return Err(PathProblem::Unresolvable),
                Ok(_) => {}
            }
            match std::fs::canonicalize(&prefix) {
                Ok(real) if real.starts_with(&self.root) => {}
                Ok(_) => return Err(PathProblem::EscapesThroughLink),
                Err(_) => return Err(PathProblem::Unresolvable),
            }
        }
        Ok(())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::security::confine::normalize;

    #[test]
    fn a_real_directory_with_links() {
        let base = std::env::temp_dir().join(format!("harness-ref-fs-{}", std::process::id()));
        let ws = base.join("ws");
        let outside = base.join("outside");
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, ws.join("out")).unwrap();
        std::os::unix::fs::symlink("src", ws.join("code")).unwrap();
        std::os::unix::fs::symlink(base.join("missing"), ws.join("dangling")).unwrap();
        let r = StdFsResolver::new(&ws).unwrap();
        let p = |s: &str| normalize(s).unwrap();
        assert_eq!(r.check(&p("src/new.rs")), Ok(()));
        assert_eq!(r.check(&p("code/new.rs")), Ok(()));
        assert_eq!(r.check(&p("out/x")), Err(PathProblem::EscapesThroughLink));
        assert_eq!(r.check(&p("dangling")), Err(PathProblem::Unresolvable));
        assert_eq!(r.check(&p("not/yet/there")), Ok(()));
        std::fs::remove_dir_all(&base).unwrap();
    }
}
