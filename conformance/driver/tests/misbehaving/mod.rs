//! The misbehaving adapter (`adapter.py MODE`, beside this file) as the tests start and watch it:
//! the command that starts it in a mode, the pids the process-starting modes write into
//! `HC_PIDFILE`, and whether those processes are gone. The driver's reliability tests include
//! this module as `mod misbehaving;`, the command line's hostile-adapter tests with `#[path]`,
//! so that both drive the same adapter the same way.

use std::path::Path;
use std::time::{Duration, Instant};

/// The shell command that starts the misbehaving adapter in `mode` (`exec`, so that the
/// adapter is the process the runner started, not a shell around it). Every crate that
/// includes this module sits beside the driver's folder, so one path reaches the script.
pub fn command(mode: &str) -> String {
    format!(
        "exec python3 {}/../driver/tests/misbehaving/adapter.py {mode}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The pids an adapter wrote into `file`, one a line.
pub fn pids(file: &Path) -> Vec<u32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// Whether `pid` is gone (or a zombie waiting for a parent that is not this test).
pub fn dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Polls `f` every 20 ms until it holds or `limit` has passed; whether it held.
pub fn wait_until(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}
