//! Where spilled outputs live, and for how long.
//!
//! Under the `spill` strategy a result shows a preview and points the model to an [`Artifact`]
//! holding the full output. That artifact is a promise: the model may ask for it turns later,
//! so it must still be there while the transcript points to it — and nothing else should keep
//! it. Harnesses that got this wrong are on record: opencode kept every spilled output until
//! the disk held 63 GB of them (sst/opencode #29694), and qwen-code's sweep of old spill files
//! deleted files a live session still referred to (QwenLM/qwen-code PR #5042).
//!
//! [`SpillStore`] is the store an embedder's agent loop keeps beside its sessions:
//!
//! * scoped to a session: each session has its own artifacts, and ending or evicting in one
//!   never touches another's;
//! * referenced by results: [`SpillStore::keep`] records which call's result names the
//!   artifact, [`SpillStore::forget`] drops that reference when the transcript no longer holds
//!   the result (a compaction, the user deleting it);
//! * bounded: a session keeps at most [`SpillBound`]'s count and bytes, evicting its oldest
//!   *unreferenced* artifacts to make room — never one a result in the transcript still
//!   names, so the bound yields to references rather than break them;
//! * cleaned at the end: [`SpillStore::end`] removes everything the session kept.
//!
//! Ids are content-addressed ([`crate::cap::artifact_id`]): the same output spilled twice in a
//! session is one artifact with two references, and two sessions may each hold an artifact
//! under the same id for the same output — never under one id for two different outputs.
//! The store is pure data (no files): an embedder that writes artifacts to disk mirrors
//! [`SpillStore::held`].

use std::collections::{BTreeMap, BTreeSet};

use crate::Artifact;

/// What one session's store keeps at most, besides the artifacts its transcript still refers
/// to (which are never evicted). `None`: no bound of that kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SpillBound {
    /// At most this many artifacts.
    pub max_artifacts: Option<usize>,
    /// At most this many bytes of artifact text in all.
    pub max_bytes: Option<usize>,
}

impl SpillBound {
    /// harness-ref's bound: 8 artifacts and 8 MiB of text per session, besides those still
    /// referenced. Small on purpose: a spill the model has not been pointed to again within
    /// eight later spills is rarely read, and the store never grows past it.
    pub const DEFAULT: SpillBound = SpillBound {
        max_artifacts: Some(8),
        max_bytes: Some(8 << 20),
    };

    fn admits(&self, count: usize, bytes: usize) -> bool {
        self.max_artifacts.is_none_or(|m| count <= m) && self.max_bytes.is_none_or(|m| bytes <= m)
    }
}

/// The spilled artifacts of every session, each session's kept apart.
#[derive(Debug, Clone, Default)]
pub struct SpillStore {
    bound: SpillBound,
    sessions: BTreeMap<String, Vec<Kept>>,
}

/// One artifact a session keeps, and the calls whose results name it.
#[derive(Debug, Clone)]
struct Kept {
    artifact: Artifact,
    referrers: BTreeSet<String>,
}

impl SpillStore {
    /// An empty store whose sessions each keep at most `bound`.
    pub fn new(bound: SpillBound) -> SpillStore {
        SpillStore {
            bound,
            sessions: BTreeMap::new(),
        }
    }

    /// Keeps `artifact` for `session`, named by the result of `call`. When the session would
    /// go over its bound, its oldest artifacts that no result refers to any more are evicted
    /// first; if those are not enough, the artifact is kept anyway (a referenced artifact is
    /// never removed, and this one is referenced). Returns the ids evicted.
    pub fn keep(&mut self, session: &str, call: &str, artifact: &Artifact) -> Vec<String> {
        let kept = self.sessions.entry(session.to_owned()).or_default();
        if let Some(k) = kept.iter_mut().find(|k| k.artifact.id == artifact.id) {
            k.referrers.insert(call.to_owned());
            return Vec::new();
        }
        let mut evicted = Vec::new();
        loop {
            let count = kept.len() + 1;
            let bytes =
                kept.iter().map(|k| k.artifact.text.len()).sum::<usize>() + artifact.text.len();
            if self.bound.admits(count, bytes) {
                break;
            }
            match kept.iter().position(|k| k.referrers.is_empty()) {
                Some(oldest) => evicted.push(kept.remove(oldest).artifact.id),
                None => break,
            }
        }
        kept.push(Kept {
            artifact: artifact.clone(),
            referrers: BTreeSet::from([call.to_owned()]),
        });
        evicted
    }

    /// The session's transcript no longer holds the results of `calls`: their artifacts lose
    /// those references (and become evictable once none is left). Nothing is removed now.
    pub fn forget<'a>(&mut self, session: &str, calls: impl IntoIterator<Item = &'a str>) {
        let Some(kept) = self.sessions.get_mut(session) else {
            return;
        };
        for call in calls {
            for k in kept.iter_mut() {
                k.referrers.remove(call);
            }
        }
    }

    /// The session ended for good: everything it kept is removed. Other sessions keep theirs.
    pub fn end(&mut self, session: &str) {
        self.sessions.remove(session);
    }

    /// The artifact `id` as `session` sees it: only its own.
    pub fn get(&self, session: &str, id: &str) -> Option<&Artifact> {
        self.sessions
            .get(session)?
            .iter()
            .map(|k| &k.artifact)
            .find(|a| a.id == id)
    }

    /// Every id the store holds, in any session, sorted and once each.
    pub fn held(&self) -> Vec<String> {
        let ids: BTreeSet<&str> = self
            .sessions
            .values()
            .flatten()
            .map(|k| k.artifact.id.as_str())
            .collect();
        ids.into_iter().map(str::to_owned).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn artifact(text: &str) -> Artifact {
        Artifact {
            id: crate::cap::artifact_id(crate::cap::artifact_hash(text)),
            text: text.to_owned(),
        }
    }

    #[test]
    fn a_referenced_artifact_outlives_the_bound_and_an_unreferenced_one_is_evicted() {
        let mut store = SpillStore::new(SpillBound {
            max_artifacts: Some(2),
            max_bytes: None,
        });
        let (a, b, c) = (artifact("a"), artifact("b"), artifact("c"));
        store.keep("s", "c1", &a);
        store.keep("s", "c2", &b);
        store.forget("s", ["c2"]);
        assert_eq!(store.keep("s", "c3", &c), vec![b.id.clone()]);
        assert!(store.get("s", &a.id).is_some(), "a is still referenced");
        // Every artifact referenced: the bound yields.
        assert!(store.keep("s", "c4", &artifact("d")).is_empty());
        assert_eq!(store.held().len(), 3);
    }

    #[test]
    fn sessions_are_apart_and_an_end_removes_only_its_own() {
        let mut store = SpillStore::new(SpillBound::DEFAULT);
        let (a, b) = (artifact("a"), artifact("b"));
        store.keep("one", "c1", &a);
        store.keep("two", "c2", &b);
        assert!(store.get("two", &a.id).is_none());
        store.end("two");
        assert_eq!(store.held(), vec![a.id.clone()]);
        store.end("one");
        assert!(store.held().is_empty());
    }

    #[test]
    fn the_same_output_twice_is_one_artifact_with_two_references() {
        let mut store = SpillStore::new(SpillBound {
            max_artifacts: Some(1),
            max_bytes: Some(1),
        });
        let a = artifact("a");
        store.keep("s", "c1", &a);
        store.keep("s", "c2", &a);
        store.forget("s", ["c1"]);
        assert!(store.keep("s", "c3", &artifact("b")).is_empty());
        assert_eq!(store.held().len(), 2);
    }
}
