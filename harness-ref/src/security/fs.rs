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
    use crate::security::confine::{normalize, MapResolver};

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

    use proptest::prelude::*;

    fn link_strategy() -> impl Strategy<Value = Vec<(&'static str, &'static str)>> {
        let names = prop::sample::select(vec!["l1", "a/l2", "a/b/l3", "c/l4"]);
        let targets = prop::sample::select(vec![
            "..",
            "../..",
            "../../..",
            "/",
            "a",
            "a/b",
            "c",
            "b",
            "l1",
            "../c",
            "../../a/b",
            "missing",
            "a/missing/..",
        ]);
        prop::collection::vec((names, targets), 0..4)
    }

    fn path_strategy() -> impl Strategy<Value = String> {
        let part = prop::sample::select(vec!["a", "b", "c", "l1", "l2", "l3", "l4", "x"]);
        prop::collection::vec(part, 1..5).prop_map(|p| p.join("/"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// The pure link table and the real file system agree wherever it matters: a path the
        /// table sees leaving the workspace is refused on disk too, and a path the disk accepts
        /// the table accepts.
        #[test]
        fn prop_map_and_std_fs_agree_on_escapes(
            links in link_strategy(),
            paths in prop::collection::vec(path_strategy(), 1..6),
            n in any::<u64>(),
        ) {
            let base = std::env::temp_dir().join(format!(
                "harness-ref-fsprop-{}-{n}", std::process::id()
            ));
            let ws = base.join("ws");
            std::fs::create_dir_all(ws.join("a/b")).unwrap();
            std::fs::create_dir_all(ws.join("c")).unwrap();
            let mut map = MapResolver::new();
            let mut made = std::collections::BTreeSet::new();
            for (name, target) in &links {
                if !made.insert(*name) {
                    continue;
                }
                let at = ws.join(name);
                let _ = std::fs::remove_dir_all(&at);
                std::os::unix::fs::symlink(target, &at).unwrap();
                map = map.link(name, *target);
            }
            let disk = StdFsResolver::new(&ws).unwrap();
            for raw in &paths {
                let p = normalize(raw).unwrap();
                let on_map = map.check(&p);
                let on_disk = disk.check(&p);
                if on_map == Err(PathProblem::EscapesThroughLink) {
                    prop_assert!(on_disk.is_err(), "{raw}: escapes by the table, accepted on disk ({links:?})");
                }
                if on_disk.is_ok() {
                    prop_assert!(on_map.is_ok(), "{raw}: accepted on disk, refused by the table ({links:?})");
                }
            }
            std::fs::remove_dir_all(&base).unwrap();
        }
    }
}
