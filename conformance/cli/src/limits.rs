//! The command line's numbers, each parsed by a clap value parser into a documented range, so
//! that `--timeout inf`, `--timeout NaN`, `--jobs 0` or `--jobs 100000` is a clear usage error
//! (exit 2) instead of a panic or a silent clamp. The ranges are in `--help` and in
//! docs/runner-guarantees.md.

use std::time::Duration;

/// The most parallel workers (`--jobs`): each is an adapter process and three threads.
pub const MAX_JOBS: usize = 64;

/// The longest per-case or handshake timeout, in seconds (a day).
pub const MAX_TIMEOUT_SECS: f64 = 86_400.0;

/// The shortest timeout, in seconds (one millisecond).
pub const MIN_TIMEOUT_SECS: f64 = 0.001;

/// The longest run-wide limit (`--max-time`) and fuzzing time, in seconds (a week).
pub const MAX_RUN_SECS: f64 = 604_800.0;

/// The most adapter restarts in a run.
pub const MAX_RESTARTS: u32 = 10_000;

/// A duration within `min..=max` seconds: a bare number is seconds (`2.5`), anything else is
/// humantime's syntax (`30s`, `1m30s`, `500ms`, `2h`), so every duration option takes the same
/// words as `fuzz --time` (issue 29: `--timeout 30s` used to be refused).
fn seconds_in(s: &str, min: f64, max: f64) -> Result<Duration, String> {
    let t = s.trim();
    let d = match t.parse::<f64>() {
        Ok(v) if v.is_finite() && (min..=max).contains(&v) => {
            Duration::try_from_secs_f64(v).map_err(|e| format!("{s:?}: {e}"))?
        }
        Ok(_) => return Err(out_of_range(s, min, max)),
        Err(_) => humantime::parse_duration(t).map_err(|e| {
            format!("{s:?} is not a duration ({e}): give seconds (`30`) or a duration such as `30s`, `1m30s`, `500ms`")
        })?,
    };
    if !(min..=max).contains(&d.as_secs_f64()) {
        return Err(out_of_range(s, min, max));
    }
    Ok(d)
}

fn out_of_range(s: &str, min: f64, max: f64) -> String {
    format!("{s:?} is outside {min}..={max} seconds (a finite number, or a duration such as `30s`)")
}

/// A per-case or handshake timeout: 0.001 to 86400 seconds (`30`, `30s`, `1m`, `500ms`).
pub fn timeout(s: &str) -> Result<Duration, String> {
    seconds_in(s, MIN_TIMEOUT_SECS, MAX_TIMEOUT_SECS)
}

/// A run-wide time limit: 0.001 to 604800 seconds.
pub fn run_time(s: &str) -> Result<Duration, String> {
    seconds_in(s, MIN_TIMEOUT_SECS, MAX_RUN_SECS)
}

/// A time budget that may be zero (the fuzzer's `--shrink-time`): 0 to 604800 seconds.
pub fn budget(s: &str) -> Result<Duration, String> {
    seconds_in(s, 0.0, MAX_RUN_SECS)
}

/// A number of workers: 1 to [`MAX_JOBS`].
pub fn jobs(s: &str) -> Result<usize, String> {
    let n: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a whole number"))?;
    if !(1..=MAX_JOBS).contains(&n) {
        return Err(format!("{n} is outside 1..={MAX_JOBS}"));
    }
    Ok(n)
}

/// A number of restarts: 0 to [`MAX_RESTARTS`].
pub fn restarts(s: &str) -> Result<u32, String> {
    let n: u32 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a whole number"))?;
    if n > MAX_RESTARTS {
        return Err(format!("{n} is outside 0..={MAX_RESTARTS}"));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_outside_their_ranges_are_refused() {
        for bad in ["inf", "-inf", "NaN", "0", "-1", "1e19", "1e300", "x", ""] {
            assert!(timeout(bad).is_err(), "{bad}");
        }
        assert_eq!(timeout("2.5"), Ok(Duration::from_millis(2500)));
        // Every duration option takes humantime's syntax too; a bare number stays seconds.
        assert_eq!(timeout("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(timeout("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(timeout("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(run_time("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(budget("0s"), Ok(Duration::ZERO));
        for bad in ["0s", "2d", "30 parsecs", "1us"] {
            assert!(timeout(bad).is_err(), "{bad}");
        }
        assert_eq!(budget("0"), Ok(Duration::ZERO));
        assert!(budget("inf").is_err());
        for bad in ["0", "100000", "-1", "1.5"] {
            assert!(jobs(bad).is_err(), "{bad}");
        }
        assert_eq!(jobs("64"), Ok(64));
        assert!(restarts("10001").is_err());
    }
}
