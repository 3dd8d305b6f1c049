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
//! kill, so the runner also looks for the adapter's processes outside its group ([`leftovers`],
//! Linux, through `/proc`) at the end of every case and when the adapter stops:
//! - descendants of the adapter still linked to it by parentage (`/proc/<pid>/task/*/children`,
//!   recursively) whose process group is not the adapter's;
//! - orphans: a process whose parent exited (a double fork) is re-parented to the nearest
//!   *child subreaper* above it. The binary makes the runner one ([`adopt_orphans`],
//!   `PR_SET_CHILD_SUBREAPER`, no privilege needed), so such a process becomes the runner's own
//!   child instead of init's, however many times it forked; it is attributed to its adapter by
//!   the environment mark every adapter is started with ([`MARK_VAR`]), which every descendant
//!   inherits unless it clears its environment — one that does is still the runner's child,
//!   killed and reported as of unknown origin;
//! - as before, processes outside the group that still hold the adapter's stdout or stderr.
//!
//! Each is killed, reaped when it is the runner's child, and reported: in the case's ERROR when
//! found at the end of a case, and in [`escapes`] (printed when the run ends) in every event.
//! Why a subreaper and not only a walk of `/proc`: a double-forked process has no link left to
//! the adapter (its parent is gone, its session and group are new), so no walk can find it
//! after the fact; with the runner as subreaper the kernel keeps it in the runner's tree.

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
    /// Whether this process is a child subreaper whose every other child is an adapter's orphan
    /// ([`adopt_orphans`]).
    adopting: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    groups: BTreeSet::new(),
    closing: false,
    escapes: Vec::new(),
    adopting: false,
});

/// The environment variable every adapter is started with: `<runner pid>.<adapter serial>`.
/// Its descendants inherit it, so an orphan re-parented to the runner is attributed to the
/// adapter it came from.
pub const MARK_VAR: &str = "HARNESS_CONFORMANCE_ADAPTER";

static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A fresh mark for an adapter about to start (the value of [`MARK_VAR`]).
pub(crate) fn new_mark() -> String {
    let n = SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{}.{n}", std::process::id())
}

/// Makes this process a child subreaper (`PR_SET_CHILD_SUBREAPER`, Linux; no privilege
/// needed), so that a process an adapter double-forked is re-parented to the runner rather
/// than to init, where [`leftovers`] finds it. Call it once, early, from a program whose only
/// child processes are the adapters this crate starts: every other child of this process is
/// then taken for an adapter's orphan, killed and reported. Elsewhere than Linux it does
/// nothing and says so.
pub fn adopt_orphans() -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        rustix::process::set_child_subreaper(Pid::from_raw(1))?;
        registry().adopting = true;
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "orphaned adapter processes can be adopted on Linux only",
        ))
    }
}

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

/// The processes of the adapter whose shell is `pgid` (its process group) that are outside that
/// group, so that killing the group would miss them: its descendants in another group, and —
/// when the runner adopts orphans — the runner's children outside the group carrying its
/// `mark` (with their own descendants). Those still alive after `grace` (a process on its way
/// out is given that long to finish) are killed (and reaped when they are the runner's
/// children) and noted in [`escapes`]; their pids are returned. The runner's children outside
/// every group with no mark (an environment cleared) are killed and noted too, but not
/// returned: they cannot be told to be this adapter's. Orphans that already exited are reaped
/// quietly. Linux only (`/proc`).
pub(crate) fn leftovers(pgid: i32, mark: &str, grace: std::time::Duration) -> Vec<u32> {
    let outside = |pid: u32| process_group_of(pid).is_some_and(|g| g != pgid);
    let mut found: Vec<u32> = descendants(pgid as u32)
        .into_iter()
        .filter(|&pid| outside(pid))
        .collect();
    let mut orphans = Vec::new();
    let mut unknown = Vec::new();
    let mut exited = Vec::new();
    // Under the registry's lock, so that no adapter is being started meanwhile: a child forked
    // but not yet exec'd has no mark yet, and would be taken for an orphan of unknown origin.
    let reg = registry();
    let shells = &reg.groups;
    if reg.adopting {
        // Orphans are re-parented to the subreaper's first live thread, its main thread: at the
        // end of a case (`grace` given) that one `children` file is read; when an adapter
        // stops, every thread's.
        let me = std::process::id();
        let adopted = if grace.is_zero() {
            children(me)
        } else {
            thread_children(me, me)
        };
        for pid in adopted {
            if shells.contains(&(pid as i32)) || pid == pgid as u32 {
                continue;
            }
            if zombie(pid) {
                // An orphan that exited by itself: reaped below, nothing outlived anything.
                exited.push(pid);
                continue;
            }
            let Some(group) = process_group_of(pid) else {
                continue;
            };
            match mark_of(pid) {
                // In the adapter's group, it dies with the group.
                Some(m) if m == mark && group != pgid => orphans.push(pid),
                // Another adapter's, or this one's in its group: not this sweep's.
                Some(_) => {}
                // Environment cleared: of unknown origin, but the runner's child all the same,
                // and the runner starts no process but adapters. Left alone while it is in a
                // live adapter's group (that adapter's group kill takes it).
                None if !shells.contains(&group) && group != pgid => unknown.push(pid),
                None => {}
            }
        }
    }
    drop(reg);
    for pid in exited {
        reap(pid);
    }
    for &o in orphans.iter().chain(&unknown) {
        found.extend(descendants(o));
        found.push(o);
    }
    found.sort_unstable();
    found.dedup();
    if found.is_empty() {
        return found;
    }
    // A process on its way out (an agent's helper closing down) is not left behind.
    let until = std::time::Instant::now() + grace;
    while std::time::Instant::now() < until && !found.iter().all(|&p| gone(p)) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let direct = |pid: u32| orphans.contains(&pid) || unknown.contains(&pid);
    let unknown_tree: Vec<u32> = unknown
        .iter()
        .flat_map(|&u| descendants(u).into_iter().chain([u]))
        .collect();
    let mut left = Vec::new();
    for &pid in &found {
        if gone(pid) {
            if direct(pid) {
                reap(pid);
            }
            continue;
        }
        if let Some(p) = Pid::from_raw(pid as i32) {
            let _ = kill_process(p, Signal::KILL);
        }
        if direct(pid) {
            // It is the runner's child now: reap it.
            reap(pid);
        }
        let origin = if unknown_tree.contains(&pid) {
            "was orphaned by an adapter of this run that cleared its environment (its origin cannot be told)".to_owned()
        } else if direct(pid) {
            format!("was orphaned outside the adapter's process group {pgid} (its parent exited: a double fork)")
        } else {
            format!("left the adapter's process group {pgid} (setsid or setpgid)")
        };
        note_escape(format!("process {pid} {origin}; the runner killed it"));
        if !unknown_tree.contains(&pid) {
            left.push(pid);
        }
    }
    left
}

/// Whether `pid` is gone or has exited (a zombie waiting to be reaped).
fn gone(pid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists() || zombie(pid)
}

/// Waits for the runner's child `pid` (killed or exited), so it leaves no zombie.
fn reap(pid: u32) {
    if let Some(p) = Pid::from_raw(pid as i32) {
        let _ = rustix::process::waitpid(Some(p), rustix::process::WaitOptions::empty());
    }
}

/// Whether `pid` has exited and waits to be reaped (state `Z` in `/proc/<pid>/stat`).
fn zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    })
}

/// Every descendant of `root` still linked to it by parentage (`root` excluded), from the
/// `children` files of `/proc` (each thread's own).
fn descendants(root: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(pid) = stack.pop() {
        for child in children(pid) {
            // A pid seen twice would be a cycle only a racing reuse makes; bounded anyway.
            if !out.contains(&child) && out.len() < MAX_DESCENDANTS {
                out.push(child);
                stack.push(child);
            }
        }
    }
    out
}

/// How many descendants of one adapter are looked at (a fork bomb is cut off here; the group
/// kill takes the ones in its group).
const MAX_DESCENDANTS: usize = 4096;

/// The children of thread `tid` of process `pid` (`/proc/<pid>/task/<tid>/children`).
fn thread_children(pid: u32, tid: u32) -> Vec<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/children"))
        .map(|list| {
            list.split_whitespace()
                .filter_map(|p| p.parse::<u32>().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The children of `pid` (`/proc/<pid>/task/<tid>/children`, every thread).
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for task in tasks.flatten() {
        if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
            out.extend(
                list.split_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
    }
    out
}

/// The value of [`MARK_VAR`] in `pid`'s environment (as it was started), if readable.
fn mark_of(pid: u32) -> Option<String> {
    let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let key = format!("{MARK_VAR}=");
    env.split(|&b| b == 0)
        .find_map(|kv| kv.strip_prefix(key.as_bytes()))
        .map(|v| String::from_utf8_lossy(v).into_owned())
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
    fn children_and_marks_are_read_from_proc() {
        if !std::path::Path::new("/proc/self/task").exists() {
            return;
        }
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .env(MARK_VAR, "test.1")
            .spawn()
            .unwrap();
        let pid = child.id();
        assert!(children(std::process::id()).contains(&pid));
        // The environment is readable once the child has exec'd (a moment after spawn on a
        // busy machine).
        let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut mark = mark_of(pid);
        while mark.is_none() && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(10));
            mark = mark_of(pid);
        }
        assert_eq!(mark.as_deref(), Some("test.1"));
        let _ = child.kill();
        let _ = child.wait();
    }

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
