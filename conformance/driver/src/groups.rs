//! Every adapter process group the runner started, so that none outlives it.
//!
//! Adapters run in process groups of their own (so that killing one kills whatever its shell
//! started). That also means a Ctrl-C in the terminal, or a CI cancel, reaches the runner and
//! not them: the runner must kill them itself. This module is the one registry of live groups:
//! [`crate::driver::AdapterProcess`] registers its group when it spawns and forgets it when it
//! has killed it, and [`kill_all`] — called by the binary on SIGINT/SIGTERM, on a panic and on
//! its way out — kills every group still registered and refuses any later spawn, so a worker
//! thread cannot start a fresh adapter after the sweep.
//!
//! Kills are `kill(-pgid, SIGKILL)` syscalls through `rustix` (never an external `kill`, which
//! a slim image may not have). A process that left its group (`setsid`) survives the group's
//! kill; when it still holds one of the adapter's pipes it can be seen through `/proc` (Linux),
//! and it is then killed and reported ([`escapes`]). One that also closed the pipes cannot be
//! told from an unrelated process, and is out of the runner's reach (docs/runner-guarantees.md).

use std::collections::BTreeSet;
use std::io;
use std::process::{Child, Command};
use std::sync::{Mutex, MutexGuard};

use rustix::process::{kill_process, kill_process_group, Pid, Signal};

#[derive(Default)]
struct Registry {
    groups: BTreeSet<i32>,
    closing: bool,
    escapes: Vec<String>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    groups: BTreeSet::new(),
    closing: false,
    escapes: Vec::new(),
});

/// How many escape notes are kept (one per escaped process, the first ones).
const MAX_ESCAPE_NOTES: usize = 64;

fn registry() -> MutexGuard<'static, Registry> {
    // A panic elsewhere must not stop the sweep: the data is a set of ids, always consistent.
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Spawns `command` (which must ask for a process group of its own) and registers its group,
/// unless [`kill_all`] has run: then nothing is started.
pub(crate) fn spawn(command: &mut Command) -> io::Result<Child> {
    let mut reg = registry();
    if reg.closing {
        return Err(io::Error::new(
            io::ErrorKind::Interrupted,
            "the runner is shutting down; no adapter is started",
        ));
    }
    let child = command.spawn()?;
    reg.groups.insert(child.id() as i32);
    Ok(child)
}

/// Sends SIGKILL to the group `pgid`. A group that is already gone is not an error.
pub(crate) fn kill_group(pgid: i32) -> io::Result<()> {
    let Some(pid) = Pid::from_raw(pgid) else {
        return Ok(());
    };
    match kill_process_group(pid, Signal::KILL) {
        Ok(()) | Err(rustix::io::Errno::SRCH) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Forgets a group the driver has killed and reaped.
pub(crate) fn forget(pgid: i32) {
    registry().groups.remove(&pgid);
}

/// Kills every registered group and refuses every later spawn. Returns how many groups were
/// signalled. Safe to call more than once and from any thread.
pub fn kill_all() -> usize {
    let mut reg = registry();
    reg.closing = true;
    let groups = std::mem::take(&mut reg.groups);
    for &g in &groups {
        let _ = kill_group(g);
    }
    groups.len()
}

/// How many adapter process groups are alive (registered and not yet killed).
pub fn live() -> usize {
    registry().groups.len()
}

/// The notes about processes that escaped their adapter's group, since the last call.
pub fn escapes() -> Vec<String> {
    std::mem::take(&mut registry().escapes)
}

fn note_escape(note: String) {
    let mut reg = registry();
    if reg.escapes.len() < MAX_ESCAPE_NOTES {
        reg.escapes.push(note);
    }
}

/// Finds, kills and reports the processes outside group `pgid` that still hold one of the
/// pipes whose inodes are `pipes` (the adapter's stdout and stderr), after the group was
/// killed. Returns their pids. Linux only (`/proc`); elsewhere nothing can be seen.
pub(crate) fn sweep_escapees(pgid: i32, pipes: &[u64]) -> Vec<u32> {
    if pipes.is_empty() {
        return Vec::new();
    }
    // SIGKILL is delivered asynchronously: a member of the group may hold the pipe for a
    // moment after the kill. Only a holder outside the group has escaped.
    let mut found = Vec::new();
    for attempt in 0..3 {
        found = holders(pipes)
            .into_iter()
            .filter(|&pid| process_group_of(pid) != Some(pgid))
            .collect();
        if found.is_empty() || attempt == 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    for &pid in &found {
        if let Some(p) = Pid::from_raw(pid as i32) {
            let _ = kill_process(p, Signal::KILL);
        }
        note_escape(format!(
            "process {pid} left the adapter's process group {pgid} (setsid?) and still held its stdout or stderr after the group was killed; the runner killed it"
        ));
    }
    found
}

/// The inode of a pipe's end (to recognise it in `/proc/<pid>/fd`).
pub(crate) fn pipe_inode(fd: impl std::os::fd::AsFd) -> Option<u64> {
    rustix::fs::fstat(fd).ok().map(|s| s.st_ino)
}

/// The pids (other than this process) with a descriptor on one of `pipes`.
fn holders(pipes: &[u64]) -> Vec<u32> {
    let me = std::process::id();
    let wanted: Vec<String> = pipes.iter().map(|i| format!("pipe:[{i}]")).collect();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in procs.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        let holds = fds.flatten().any(|fd| {
            std::fs::read_link(fd.path())
                .is_ok_and(|target| wanted.iter().any(|w| target.as_os_str() == w.as_str()))
        });
        if holds {
            out.push(pid);
        }
    }
    out
}

/// The process group of `pid`, from `/proc/<pid>/stat` (field 5, after the parenthesised name).
fn process_group_of(pid: u32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(2)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_process_group_of_this_process_is_read_from_proc() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            return;
        }
        let me = std::process::id();
        let pgid = rustix::process::getpgid(None)
            .unwrap()
            .as_raw_nonzero()
            .get();
        assert_eq!(process_group_of(me), Some(pgid));
    }
}
