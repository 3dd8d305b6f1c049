//! The process driver: one adapter process, JSON lines in and out, with every way it can
//! misbehave turned into data.
//!
//! This is the only library module that does I/O. An adapter is someone else's code and may
//! hang, crash, print garbage, print a line without end, or flood stderr; the driver must
//! survive all of it with bounded memory and bounded time:
//! - the adapter runs in its own process group (`sh -c <command>`), so killing the group also
//!   kills whatever the shell started (a `python3` under `uv run`, a `node` under `npx`);
//! - stdout is read by the caller itself, in [`AdapterProcess::recv`] (non-blocking, waiting
//!   in `poll` until the deadline), which cuts every line at [`DriverLimits::max_line`] bytes
//!   and keeps only a bounded prefix of an overlong line for the report;
//! - stderr is drained by another thread into a bounded tail, so a flood never blocks the
//!   adapter and never grows memory;
//! - every read has a deadline; on timeout the caller kills the group and starts afresh;
//! - every write has a deadline too: stdin is non-blocking and a write that cannot finish
//!   (the adapter stopped reading, and the line is larger than the pipe) waits in `poll` until
//!   the deadline, never longer, so a stuck reader cannot hang the runner;
//! - stdout is only read while the runner waits for an answer, so it holds at most one
//!   line and one read buffer while the runner is busy, and an adapter that writes ahead
//!   blocks on its own pipe instead of growing the runner's memory. (A reader thread handing
//!   lines over a channel did the same with one more thread wake-up per message: reading in
//!   the caller took that hop off every case, docs/benchmarks.md.)
//! - groups are killed with a syscall, registered in [`crate::groups`] so that an interrupt or
//!   the runner's exit kills them all, and a process that left the group while holding the
//!   adapter's pipes is found and reported.
//!
//! The driver knows nothing of the protocol's message types: it moves lines. [`crate::client`]
//! decodes them.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};

use crate::groups;

/// Limits applied to one adapter process.
#[derive(Debug, Clone, Copy)]
pub struct DriverLimits {
    /// The longest stdout line kept, in bytes; a longer line is reported, not buffered.
    pub max_line: usize,
    /// How many bytes of stderr are kept (the tail).
    pub stderr_tail: usize,
}

impl Default for DriverLimits {
    fn default() -> Self {
        DriverLimits {
            max_line: 64 * 1024 * 1024,
            stderr_tail: 8 * 1024,
        }
    }
}

/// How long a process found outside the adapter's group at the end of a case is given to exit
/// by itself (a helper closing down as its parent did) before it is killed and reported.
pub const LEFTOVER_GRACE: Duration = Duration::from_millis(250);

/// How many bytes of an offending line a report quotes.
pub const QUOTE_BYTES: usize = 240;

/// What reading one line produced, other than a line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadFault {
    /// No complete line before the deadline. `partial` is the start of what had arrived.
    Timeout {
        /// The bytes of the unfinished line (bounded).
        partial: Vec<u8>,
    },
    /// The adapter closed stdout (exited). `partial` is an unterminated last line, if any.
    Closed {
        /// The bytes after the last newline (bounded).
        partial: Vec<u8>,
    },
    /// A line longer than the limit; only its start is kept.
    TooLong {
        /// The first bytes of the line.
        head: Vec<u8>,
        /// How many bytes were read before giving up on the line (at least the limit).
        len: usize,
    },
}

/// Why a line could not be written to the adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WriteFault {
    /// The deadline passed with the line partly written: the adapter stopped reading.
    Timeout {
        /// Bytes written before the deadline.
        written: usize,
        /// The line's size, newline included.
        total: usize,
    },
    /// The pipe is closed (the adapter exited or closed its stdin), or another I/O error.
    Closed(String),
}

impl std::fmt::Display for WriteFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteFault::Timeout { written, total } => write!(
                f,
                "the adapter stopped reading its stdin: {written} of {total} bytes were written before the deadline"
            ),
            WriteFault::Closed(e) => write!(f, "the adapter's stdin is closed ({e})"),
        }
    }
}

/// A running adapter process.
#[derive(Debug)]
pub struct AdapterProcess {
    child: Child,
    /// The process group (the shell's pid).
    pgid: i32,
    /// Whether the group was killed and forgotten already.
    killed: bool,
    /// The inodes of the stdout and stderr pipes, to find a process that escaped the group
    /// still holding them.
    pipes: Vec<u64>,
    /// The value of [`groups::MARK_VAR`] it was started with (its orphans carry it).
    mark: String,
    stdin: Option<ChildStdin>,
    stdout: LineReader,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    /// Set by the stderr thread when stderr reaches end of file.
    stderr_done: Arc<std::sync::atomic::AtomicBool>,
    closed: Option<Vec<u8>>,
}

impl AdapterProcess {
    /// Starts `command` with `sh -c` in a process group of its own.
    ///
    /// Refused (an `Interrupted` error) once [`groups::kill_all`] has run.
    pub fn spawn(command: &str, limits: DriverLimits) -> std::io::Result<AdapterProcess> {
        let mark = groups::new_mark();
        let mut child = groups::spawn(
            Command::new("sh")
                .arg("-c")
                .arg(command)
                .env(groups::MARK_VAR, &mark)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .process_group(0),
        )?;
        let pgid = child.id() as i32;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr_pipe = child.stderr.take().expect("stderr is piped");
        let stdin = child.stdin.take();
        let pipes = [
            groups::pipe_inode(&stdout),
            groups::pipe_inode(&stderr_pipe),
        ]
        .into_iter()
        .flatten()
        .collect();
        // Reads and writes wait in `poll` with a deadline instead of blocking.
        if let Some(stdin) = &stdin {
            set_nonblocking(stdin)?;
        }
        set_nonblocking(&stdout)?;
        let stdout = LineReader::new(stdout, limits.max_line);

        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr);
        let keep = limits.stderr_tail;
        let stderr_done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let done = Arc::clone(&stderr_done);
        thread::Builder::new()
            .name("adapter-stderr".into())
            .spawn(move || {
                drain_stderr(stderr_pipe, keep, &tail);
                done.store(true, std::sync::atomic::Ordering::Release);
            })?;

        Ok(AdapterProcess {
            child,
            pgid,
            killed: false,
            pipes,
            mark,
            stdin,
            stdout,
            stderr,
            stderr_done,
            closed: None,
        })
    }

    /// The process id, which is also its process group id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Writes one line (a newline is added) before `deadline`. A closed pipe means the adapter
    /// is gone; a deadline that passes mid-line means it stopped reading (the caller kills it).
    pub fn send(&mut self, line: &str, deadline: Instant) -> Result<(), WriteFault> {
        // One buffer per message: the pipe is unbuffered, and a second syscall for the newline
        // would wake the adapter twice.
        let mut buf = Vec::with_capacity(line.len() + 1);
        buf.extend_from_slice(line.as_bytes());
        buf.push(b'\n');
        self.send_line(&buf, deadline)
    }

    /// Like [`Self::send`], for a line that ends with its newline already (no copy is made).
    pub fn send_line(&mut self, buf: &[u8], deadline: Instant) -> Result<(), WriteFault> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| WriteFault::Closed("stdin closed".into()))?;
        let mut written = 0;
        while written < buf.len() {
            match stdin.write(&buf[written..]) {
                Ok(0) => return Err(WriteFault::Closed("wrote nothing".into())),
                Ok(n) => written += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(WriteFault::Timeout {
                            written,
                            total: buf.len(),
                        });
                    }
                    let mut fds = [PollFd::new(&*stdin, PollFlags::OUT)];
                    match poll(&mut fds, Some(&poll_timeout(left))) {
                        Ok(_) | Err(rustix::io::Errno::INTR) => {}
                        Err(e) => return Err(WriteFault::Closed(e.to_string())),
                    }
                }
                Err(e) => return Err(WriteFault::Closed(e.to_string())),
            }
        }
        Ok(())
    }

    /// Waits until `deadline` for the next complete line (without its newline).
    pub fn recv(&mut self, deadline: Instant) -> Result<Vec<u8>, ReadFault> {
        if let Some(partial) = &self.closed {
            return Err(ReadFault::Closed {
                partial: partial.clone(),
            });
        }
        let got = self.stdout.next_line(deadline);
        if let Err(ReadFault::Closed { partial }) = &got {
            self.closed = Some(partial.clone());
        }
        got
    }

    /// Waits up to `wait` for stderr to reach end of file, so that a crashed adapter's last
    /// words are in [`Self::stderr_tail`] (a grandchild holding stderr open costs the wait).
    pub fn settle_stderr(&self, wait: Duration) {
        let until = Instant::now() + wait;
        while !self.stderr_done.load(std::sync::atomic::Ordering::Acquire) && Instant::now() < until
        {
            thread::sleep(Duration::from_millis(1));
        }
    }

    /// The last bytes the adapter wrote to stderr (lossy UTF-8).
    pub fn stderr_tail(&self) -> String {
        let tail = self.stderr.lock().map(|t| t.clone()).unwrap_or_default();
        let (a, b) = tail.as_slices();
        let mut bytes = a.to_vec();
        bytes.extend_from_slice(b);
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Asks politely (`stop`, then closing stdin), waits up to `grace`, then kills the group
    /// (always: a process the adapter left behind in its group dies with it). Returns the pids
    /// of processes found to have escaped the group.
    pub fn stop(mut self, stop_line: &str, grace: Duration) -> Vec<u32> {
        let until = Instant::now() + grace;
        let _ = self.send(stop_line, until);
        self.stdin = None;
        while Instant::now() < until {
            if self.exited() {
                break;
            }
            thread::sleep(Duration::from_millis(5));
        }
        self.terminate()
    }

    /// The adapter's processes outside its process group (escaped by `setsid`, or orphaned by a
    /// double fork), found now, killed and noted in [`groups::escapes`]; their pids. Called at
    /// the end of every case: a process the group kill would miss is ended with the case that
    /// left it, not at the end of the run.
    pub fn leftovers(&self) -> Vec<u32> {
        if self.killed {
            return Vec::new();
        }
        groups::leftovers(self.pgid, &self.mark, LEFTOVER_GRACE)
    }

    /// Whether the shell has exited, without reaping it (so its pid, the group's id, cannot be
    /// reused before the group is killed).
    fn exited(&self) -> bool {
        let Some(pid) = rustix::process::Pid::from_raw(self.pgid) else {
            return true;
        };
        use rustix::process::{waitid, WaitId, WaitIdOptions};
        let opts = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        match waitid(WaitId::Pid(pid), opts) {
            Ok(Some(_)) => true,
            Ok(None) => false,
            Err(_) => true,
        }
    }

    /// The exit status, if the process exits within `wait`.
    pub fn exit_status(&mut self, wait: Duration) -> Option<std::process::ExitStatus> {
        let until = Instant::now() + wait;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= until {
                return None;
            }
            thread::sleep(Duration::from_millis(2));
        }
    }

    /// Kills the whole process group and reaps the shell. Returns the pids of processes found
    /// to have escaped the group (they were killed too, and reported in [`groups::escapes`]).
    pub fn kill(mut self) -> Vec<u32> {
        self.terminate()
    }

    fn terminate(&mut self) -> Vec<u32> {
        if self.killed {
            return Vec::new();
        }
        self.stdin = None;
        // Those outside the group first, while their parentage still leads to the adapter.
        let mut found = groups::leftovers(self.pgid, &self.mark, Duration::ZERO);
        self.killed = true;
        let _ = groups::kill_group(self.pgid);
        let _ = self.child.kill();
        let _ = self.child.wait();
        groups::forget(self.pgid);
        found.extend(groups::sweep_escapees(self.pgid, &self.pipes));
        // And the ones the group's death orphaned.
        found.extend(groups::leftovers(self.pgid, &self.mark, Duration::ZERO));
        found.sort_unstable();
        found.dedup();
        found
    }
}

impl Drop for AdapterProcess {
    fn drop(&mut self) {
        self.terminate();
    }
}

fn set_nonblocking(fd: impl rustix::fd::AsFd) -> std::io::Result<()> {
    let flags = rustix::fs::fcntl_getfl(&fd)?;
    rustix::fs::fcntl_setfl(&fd, flags | rustix::fs::OFlags::NONBLOCK)?;
    Ok(())
}

/// `left` as a `poll` timeout (an hour when it does not fit).
fn poll_timeout(left: Duration) -> Timespec {
    Timespec::try_from(left).unwrap_or(Timespec {
        tv_sec: 3600,
        tv_nsec: 0,
    })
}

/// The adapter's stdout cut into lines of at most `max_line` bytes, read on the caller's
/// thread: nothing is read while nobody waits for a line.
#[derive(Debug)]
struct LineReader {
    stdout: ChildStdout,
    max_line: usize,
    /// What was read and not yet used is `buf[pos..len]`.
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    /// The line so far; for an overlong line, only its first [`QUOTE_BYTES`].
    line: Vec<u8>,
    /// The length so far of an overlong line.
    overlong: Option<usize>,
}

/// What refilling the read buffer gave.
enum Fill {
    Data,
    Eof,
    Timeout,
}

impl LineReader {
    fn new(stdout: ChildStdout, max_line: usize) -> LineReader {
        LineReader {
            stdout,
            max_line,
            buf: vec![0; 64 * 1024].into_boxed_slice(),
            pos: 0,
            len: 0,
            line: Vec::new(),
            overlong: None,
        }
    }

    /// The next complete line (without its newline), waiting until `deadline`.
    fn next_line(&mut self, deadline: Instant) -> Result<Vec<u8>, ReadFault> {
        loop {
            if self.pos == self.len {
                match self.fill(deadline) {
                    Fill::Data => {}
                    Fill::Eof => {
                        let partial = if self.overlong.is_some() {
                            Vec::new()
                        } else {
                            bounded(&self.line).to_vec()
                        };
                        return Err(ReadFault::Closed { partial });
                    }
                    Fill::Timeout => {
                        return Err(ReadFault::Timeout {
                            partial: bounded(&self.line).to_vec(),
                        })
                    }
                }
            }
            let buf = &self.buf[self.pos..self.len];
            let (chunk, newline) = match memchr::memchr(b'\n', buf) {
                Some(i) => (&buf[..i], true),
                None => (buf, false),
            };
            let used = chunk.len() + usize::from(newline);
            match self.overlong.as_mut() {
                Some(len) => *len += chunk.len(),
                None if self.line.len() + chunk.len() > self.max_line => {
                    self.overlong = Some(self.line.len() + chunk.len());
                    // Keep the line's first bytes for the report, whichever chunk they came in.
                    let room = QUOTE_BYTES.saturating_sub(self.line.len());
                    self.line.extend_from_slice(&chunk[..chunk.len().min(room)]);
                    self.line.truncate(QUOTE_BYTES);
                    self.line.shrink_to_fit();
                }
                None => self.line.extend_from_slice(chunk),
            }
            self.pos += used;
            if newline {
                return match self.overlong.take() {
                    Some(len) => {
                        let head = bounded(&self.line).to_vec();
                        self.line.clear();
                        Err(ReadFault::TooLong { head, len })
                    }
                    None => Ok(std::mem::take(&mut self.line)),
                };
            }
        }
    }

    /// Reads what is there into the empty buffer, waiting in `poll` until `deadline` when
    /// nothing is. A read error is the end of the stream.
    fn fill(&mut self, deadline: Instant) -> Fill {
        self.pos = 0;
        self.len = 0;
        loop {
            match self.stdout.read(&mut self.buf) {
                Ok(0) => return Fill::Eof,
                Ok(n) => {
                    self.len = n;
                    return Fill::Data;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Fill::Timeout;
                    }
                    let mut fds = [PollFd::new(&self.stdout, PollFlags::IN)];
                    match poll(&mut fds, Some(&poll_timeout(left))) {
                        Ok(_) | Err(rustix::io::Errno::INTR) => {}
                        Err(_) => return Fill::Eof,
                    }
                }
                Err(_) => return Fill::Eof,
            }
        }
    }
}

fn drain_stderr(mut stderr: impl Read, keep: usize, tail: &Mutex<VecDeque<u8>>) {
    let mut buf = [0u8; 8192];
    loop {
        match stderr.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if let Ok(mut t) = tail.lock() {
                    t.extend(&buf[..n]);
                    let excess = t.len().saturating_sub(keep);
                    t.drain(..excess);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// The first [`QUOTE_BYTES`] of `bytes`.
pub fn bounded(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.len().min(QUOTE_BYTES)]
}

/// Quotes bytes for a report: at most [`QUOTE_BYTES`], escaped, with the total length when cut.
pub fn quote_bytes(bytes: &[u8]) -> String {
    let shown = bounded(bytes);
    let text = String::from_utf8_lossy(shown);
    let mut out = format!("{:?}", text);
    if bytes.len() > shown.len() {
        out.push_str(&format!(" … ({} bytes in all)", bytes.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max_line: usize) -> DriverLimits {
        DriverLimits {
            max_line,
            stderr_tail: 64,
        }
    }

    #[test]
    fn lines_are_delivered_and_a_too_long_line_keeps_its_head() {
        let mut p = AdapterProcess::spawn(
            "printf 'one\\n'; head -c 5000 /dev/zero | tr '\\0' 'Z'; printf '\\ntwo\\n'; printf 'tail' >&2",
            limits(100),
        )
        .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        assert_eq!(p.recv(deadline).unwrap(), b"one");
        match p.recv(deadline) {
            Err(ReadFault::TooLong { head, len }) => {
                assert_eq!(head, vec![b'Z'; QUOTE_BYTES.min(5000)]);
                assert!(len > 100);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(p.recv(deadline).unwrap(), b"two");
        assert!(matches!(p.recv(deadline), Err(ReadFault::Closed { .. })));
        // The stderr thread may still be draining when stdout closes.
        p.settle_stderr(Duration::from_secs(10));
        assert_eq!(p.stderr_tail(), "tail");
    }

    #[test]
    fn quotes_are_bounded() {
        let q = quote_bytes(&vec![b'a'; 10_000]);
        assert!(q.len() < QUOTE_BYTES + 40, "{q}");
        assert!(q.ends_with("(10000 bytes in all)"));
        assert_eq!(quote_bytes(b"ok\x01"), "\"ok\\u{1}\"");
    }
}
