//! Progress of a run on stderr: a bar on a terminal, one plain line per case elsewhere.
//!
//! On a terminal a run of hundreds of cases is one `indicatif` bar (cases done of all, the
//! verdict counts so far, elapsed time and ETA); each result a reader must look at (a FAIL, an
//! ERROR, …) is printed above the bar as it happens. Anywhere else — a CI log, a pipe, a file —
//! every case is one line, exactly as before the bar existed, so logs stay greppable. The bar
//! is cleared before the report is written: the two never interleave. `--quiet` prints
//! neither.

use std::io::IsTerminal as _;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use harness_conformance_report::terminal;
use harness_conformance_suite::verdict::{CaseOutcome, Verdict};

use crate::style;

/// How the run's progress is shown.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
    quiet: bool,
    counts: Mutex<[usize; Verdict::ALL.len()]>,
}

impl Progress {
    /// A bar for `total` cases when stderr is a terminal (and not `quiet`), plain lines
    /// otherwise.
    pub fn new(total: usize, quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(
                Some(total as u64),
                ProgressDrawTarget::stderr_with_hz(10),
            );
            let template = if style::stderr_enabled() {
                "{bar:30.green/dim} {msg}  {elapsed} elapsed, ETA {eta}"
            } else {
                "{bar:30} {msg}  {elapsed} elapsed, ETA {eta}"
            };
            bar.set_style(
                ProgressStyle::with_template(template)
                    .expect("the template is valid")
                    .progress_chars("━╸─"),
            );
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        });
        Progress {
            bar,
            quiet,
            counts: Mutex::new([0; Verdict::ALL.len()]),
        }
    }

    /// One case finished (`done` of `total`).
    pub fn case(&self, done: usize, total: usize, o: &CaseOutcome) {
        if self.quiet {
            return;
        }
        let line = terminal::progress_line(done, total, o);
        let Some(bar) = &self.bar else {
            return style::stderr_line(&line);
        };
        if o.verdict.is_unexpected() {
            bar.suspend(|| style::stderr_line(&line));
        }
        // Workers finish cases concurrently and the bar redraws on its own clock: the number of
        // cases done and the verdict counts are one message, made under the lock, so a redraw
        // never shows one newer than the other.
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = Verdict::ALL.iter().position(|v| *v == o.verdict) {
            counts[i] += 1;
        }
        let done: usize = counts.iter().sum();
        bar.set_message(format!("{done}/{total} cases  {}", counts_text(&counts)));
        bar.set_position(done as u64);
    }

    /// Clears the bar (before the report is written).
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// `12 PASS, 1 FAIL`: the verdicts so far, in `Verdict::ALL` order.
fn counts_text(counts: &[usize; Verdict::ALL.len()]) -> String {
    Verdict::ALL
        .iter()
        .zip(counts)
        .filter(|(_, n)| **n > 0)
        .map(|(v, n)| format!("{n} {}", v.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_name_only_the_verdicts_seen() {
        let mut counts = [0; Verdict::ALL.len()];
        assert_eq!(counts_text(&counts), "");
        counts[0] = 12;
        counts[Verdict::ALL
            .iter()
            .position(|v| *v == Verdict::Error)
            .unwrap()] = 2;
        assert_eq!(counts_text(&counts), "12 PASS, 2 ERROR");
    }
}
