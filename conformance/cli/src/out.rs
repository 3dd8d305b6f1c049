//! The binary's way out: writing to stdout and stderr, and ending the process — normally, on a
//! closed pipe, on an interrupt, or on a panic — without leaving an adapter behind.
//!
//! Rust ignores SIGPIPE, so `println!` into a closed pipe (`harness-conformance list | head -1`)
//! panics. Everything the binary prints goes through [`stdout`] and [`stderr`] instead: a
//! closed pipe ends the process quietly with [`EXIT_BROKEN_PIPE`], the status a shell reports
//! for a program killed by SIGPIPE. Everything written to stderr is for people and goes
//! through `escape::terminal` first (it carries paths, adapter commands and messages).
//!
//! SIGINT, SIGTERM and SIGHUP are delivered to a thread ([`install_signal_handlers`], through
//! `signal-hook`: no code runs in the signal handler itself) that kills every adapter process
//! group ([`groups::kill_all`]) and exits with 128 + the signal's number. [`finish`] does the
//! same sweep on the normal way out, and `main` on a panic.

use std::io::Write as _;

use harness_conformance_driver::groups;
use harness_conformance_report::escape;

/// The exit status after a closed stdout or stderr (128 + SIGPIPE).
pub const EXIT_BROKEN_PIPE: i32 = 141;

/// The exit status when the binary panicked (Rust's own); it is a bug, and the adapters are
/// killed first all the same.
pub const EXIT_PANIC: i32 = 101;

/// Kills what is left and exits with `code`.
pub fn exit(code: i32) -> ! {
    groups::kill_all();
    std::process::exit(code)
}

fn closed(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::BrokenPipe
}

/// Writes `text` to stdout as it is (reports are escaped by their renderers). A closed pipe
/// ends the process quietly; another error is returned.
pub fn stdout(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if closed(&e) => exit(EXIT_BROKEN_PIPE),
        Err(e) => Err(format!("cannot write to stdout: {e}")),
    }
}

/// Writes `text` and a newline to stderr, escaped for a terminal. A closed pipe ends the
/// process quietly; other errors are ignored (there is nowhere left to report them).
pub fn stderr(text: &str) {
    let mut line = escape::terminal(text).into_owned();
    line.push('\n');
    let mut err = std::io::stderr().lock();
    if let Err(e) = err.write_all(line.as_bytes()) {
        if closed(&e) {
            exit(EXIT_BROKEN_PIPE);
        }
    }
}

/// `println!` through [`stdout`] (a closed pipe exits quietly; other errors are returned).
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::out::stdout(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprintln!` through [`stderr`] (named `tell`: `warn` is a built-in attribute).
macro_rules! tell {
    ($($arg:tt)*) => {
        $crate::out::stderr(&format!($($arg)*))
    };
}

pub(crate) use {say, tell};

/// Starts the thread that turns SIGINT, SIGTERM and SIGHUP into "kill every adapter, then exit
/// with 128 + the signal".
pub fn install_signal_handlers() -> Result<(), String> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
        .map_err(|e| format!("cannot install the signal handlers: {e}"))?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                let killed = groups::kill_all();
                let name = match sig {
                    SIGINT => "SIGINT",
                    SIGTERM => "SIGTERM",
                    _ => "SIGHUP",
                };
                // Best effort: stderr may be the terminal that is going away.
                let _ = writeln!(
                    std::io::stderr(),
                    "harness-conformance: interrupted by {name}; killed {killed} adapter process group(s)"
                );
                std::process::exit(128 + sig);
            }
        })
        .map_err(|e| format!("cannot start the signal thread: {e}"))?;
    Ok(())
}

/// The normal way out: kills any adapter group still alive, and reports the processes that
/// escaped their group during the run.
pub fn finish() {
    groups::kill_all();
    let escapes = groups::escapes();
    for note in &escapes {
        tell!("warning: {note}");
    }
}
