//! Workspace path confinement: a path argument must name something inside the workspace.
//!
//! Two layers. [`normalize`] is pure and lexical: the path must be relative (no leading `/`,
//! no drive letter, no `\`), contain no `..` component, no NUL and not start with `~`; `.` and
//! empty components are dropped, so `a//./b` is `a/b`. What the text cannot show — a component
//! that is a symbolic link pointing out of the workspace — needs the file system, so that check
//! is a [`Resolver`] the embedder supplies: [`MapResolver`] (pure, a table of links, for tests
//! and scripted workspaces) here, and `security::fs::StdFsResolver` (feature `fs`, the one
//! module of this crate that does I/O) for a real directory.
//!
//! What this does not cover: a link created between the check and the effect (time-of-check
//! to time-of-use). An effect that opens files should still open them beneath the root with
//! the platform's no-follow facilities; confinement here is the gate, not the sandbox.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use serde_json::Value;

use crate::schema::Violation;

/// A normalised workspace-relative path: components joined by `/`, none of them `.`, `..` or
/// empty. The workspace root itself is `.`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkspacePath(String);

impl WorkspacePath {
    /// The path, e.g. `src/main.rs` (`.` for the root).
    pub fn as_str(&self) -> &str {
        if self.0.is_empty() {
            "."
        } else {
            &self.0
        }
    }

    /// The components, in order (none for the root).
    pub fn components(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').filter(|c| !c.is_empty())
    }
}

impl fmt::Display for WorkspacePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a path is not confined to the workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PathProblem {
    /// The empty string.
    Empty,
    /// Starts at a root: `/`, a drive letter (`C:`), or a UNC prefix.
    Absolute,
    /// Has a `..` component.
    ParentComponent,
    /// Contains `\` (a separator on some systems, a name character on others: ambiguous).
    Backslash,
    /// Contains a NUL character.
    Nul,
    /// Starts with `~` (a home directory to any shell that sees it).
    HomeRelative,
    /// Resolves outside the workspace through a symbolic link.
    EscapesThroughLink,
    /// Could not be resolved (a dangling link, a loop, an unreadable directory).
    Unresolvable,
}

impl PathProblem {
    /// What the argument should have been, for the violation's `expected`.
    pub fn expected(self) -> &'static str {
        match self {
            PathProblem::Empty => "a non-empty workspace-relative path",
            PathProblem::Absolute => {
                "a workspace-relative path (not starting with \"/\" or a drive)"
            }
            PathProblem::ParentComponent => "a workspace-relative path without \"..\" components",
            PathProblem::Backslash => "a workspace-relative path using \"/\" as separator",
            PathProblem::Nul => "a workspace-relative path without NUL characters",
            PathProblem::HomeRelative => "a workspace-relative path (not starting with \"~\")",
            PathProblem::EscapesThroughLink | PathProblem::Unresolvable => {
                "a path that stays inside the workspace"
            }
        }
    }
}

/// Lexical confinement: the normalised path, or why it is not workspace-relative.
pub fn normalize(raw: &str) -> Result<WorkspacePath, PathProblem> {
    if raw.is_empty() {
        return Err(PathProblem::Empty);
    }
    if raw.contains('\0') {
        return Err(PathProblem::Nul);
    }
    if raw.starts_with('/') {
        return Err(PathProblem::Absolute);
    }
    let bytes = raw.as_bytes();
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Err(PathProblem::Absolute);
    }
    if raw.contains('\\') {
        return Err(PathProblem::Backslash);
    }
    if raw.starts_with('~') {
        return Err(PathProblem::HomeRelative);
    }
    let mut parts = Vec::new();
    for part in raw.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(PathProblem::ParentComponent),
            other => parts.push(other),
        }
    }
    Ok(WorkspacePath(parts.join("/")))
}

/// The file-system half of confinement, supplied by the embedder.
pub trait Resolver: Send + Sync {
    /// `Ok` when `path`, resolved against the workspace root (following links), stays inside
    /// it; [`PathProblem::EscapesThroughLink`] or [`PathProblem::Unresolvable`] otherwise.
    /// A path that does not exist yet is inside when its existing part is.
    fn check(&self, path: &WorkspacePath) -> Result<(), PathProblem>;
}

/// How many links one resolution follows before giving up (as Linux's `MAXSYMLINKS`).
pub const MAX_LINK_HOPS: usize = 40;

/// A workspace described as a table of symbolic links (workspace-relative link path → target
/// as written in the link). Pure: for tests, fuzzing and scripted conformance workspaces.
/// Absolute targets point outside the workspace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MapResolver {
    links: BTreeMap<String, String>,
}

impl MapResolver {
    /// A workspace without links.
    pub fn new() -> MapResolver {
        MapResolver::default()
    }

    /// Adds a link at `path` (workspace-relative, normalised here) pointing to `target`.
    pub fn link(mut self, path: &str, target: impl Into<String>) -> MapResolver {
        let key = normalize(path).map_or_else(|_| path.to_string(), |p| p.as_str().to_string());
        self.links.insert(key, target.into());
        self
    }

    /// Where `path` ends up, as components below the root, or why it leaves the workspace.
    pub fn resolve(&self, path: &WorkspacePath) -> Result<Vec<String>, PathProblem> {
        let mut pending: VecDeque<String> = path.components().map(str::to_string).collect();
        let mut current: Vec<String> = Vec::new();
        let mut hops = 0;
        while let Some(part) = pending.pop_front() {
            match part.as_str() {
                "" | "." => continue,
                ".." => {
                    if current.pop().is_none() {
                        return Err(PathProblem::EscapesThroughLink);
                    }
                    continue;
                }
                _ => {}
            }
            current.push(part);
            if let Some(target) = self.links.get(&current.join("/")) {
                hops += 1;
                if hops > MAX_LINK_HOPS {
                    return Err(PathProblem::Unresolvable);
                }
                current.pop();
                if target.starts_with('/') || target.contains('\\') {
                    return Err(PathProblem::EscapesThroughLink);
                }
                for p in target.split('/').rev() {
                    pending.push_front(p.to_string());
                }
            }
        }
        Ok(current)
    }
}

impl Resolver for MapResolver {
    fn check(&self, path: &WorkspacePath) -> Result<(), PathProblem> {
        self.resolve(path).map(|_| ())
    }
}

/// Confinement violations of the string arguments at `pointers` (absent ones are the schema's
/// business and skipped; a non-string is a violation).
pub fn path_violations(
    args: &Value,
    pointers: &[String],
    resolver: Option<&dyn Resolver>,
) -> Vec<Violation> {
    let mut out = Vec::new();
    for pointer in pointers {
        let Some(value) = args.pointer(pointer) else {
            continue;
        };
        let Value::String(raw) = value else {
            out.push(
                Violation::new(pointer.clone(), "a workspace-relative path string", value)
                    .with_keyword("path"),
            );
            continue;
        };
        let problem = match normalize(raw) {
            Err(p) => Some(p),
            Ok(path) => resolver.and_then(|r| r.check(&path).err()),
        };
        if let Some(problem) = problem {
            out.push(
                Violation::new(pointer.clone(), problem.expected(), value).with_keyword("path"),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_rules() {
        assert_eq!(normalize("src//./main.rs").unwrap().as_str(), "src/main.rs");
        assert_eq!(normalize("./").unwrap().as_str(), ".");
        assert_eq!(normalize("a/b/").unwrap().as_str(), "a/b");
        assert_eq!(normalize(""), Err(PathProblem::Empty));
        assert_eq!(normalize("/etc/passwd"), Err(PathProblem::Absolute));
        assert_eq!(normalize("C:/x"), Err(PathProblem::Absolute));
        assert_eq!(normalize("\\\\server\\share"), Err(PathProblem::Backslash));
        assert_eq!(normalize("a\\..\\b"), Err(PathProblem::Backslash));
        assert_eq!(normalize("a/../b"), Err(PathProblem::ParentComponent));
        assert_eq!(normalize(".."), Err(PathProblem::ParentComponent));
        assert_eq!(normalize("~/x"), Err(PathProblem::HomeRelative));
        assert_eq!(normalize("a\0b"), Err(PathProblem::Nul));
        assert_eq!(normalize("a..b/c.").unwrap().as_str(), "a..b/c.");
    }

    #[test]
    fn links_are_followed_and_escapes_found() {
        let ws = MapResolver::new()
            .link("out", "/etc")
            .link("up", "..")
            .link("docs/latest", "../releases/v2")
            .link("loop", "loop")
            .link("deep/back", "../../x");
        let p = |s: &str| normalize(s).unwrap();
        assert_eq!(
            ws.check(&p("out/passwd")),
            Err(PathProblem::EscapesThroughLink)
        );
        assert_eq!(
            ws.check(&p("up/secret")),
            Err(PathProblem::EscapesThroughLink)
        );
        assert_eq!(
            ws.check(&p("deep/back")),
            Err(PathProblem::EscapesThroughLink)
        );
        assert_eq!(ws.check(&p("loop/a")), Err(PathProblem::Unresolvable));
        assert_eq!(
            ws.resolve(&p("docs/latest/notes.md")).unwrap(),
            vec!["releases", "v2", "notes.md"]
        );
        assert_eq!(ws.check(&p("outside-ish/file")), Ok(()));
        assert_eq!(ws.check(&p("new/file.txt")), Ok(()));
    }
}
