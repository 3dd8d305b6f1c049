//! Whether the binary colours what it prints, and the printing of coloured text.
//!
//! `--color auto|always|never` (global) decides; `auto`, the default, asks `anstream` (the
//! stack clap already uses), which honours `NO_COLOR`, `CLICOLOR_FORCE`, `CLICOLOR` and
//! `TERM=dumb` and otherwise colours only a terminal. Styles are inserted by the report
//! crate's `terminal_style` into text that is already escaped, and never change it; this module
//! only decides per stream and writes the result.

use std::io::Write as _;
use std::sync::OnceLock;

use clap::ValueEnum;

use crate::out;

/// `--color`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// Colour a terminal, unless `NO_COLOR` says not to (`CLICOLOR_FORCE` colours a pipe too).
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

static WHEN: OnceLock<ColorWhen> = OnceLock::new();

/// Records `--color` for the rest of the run (the first call wins).
pub fn init(when: ColorWhen) {
    let _ = WHEN.set(when);
    // clap's own errors and help, printed through anstream, follow the same choice.
    anstream::ColorChoice::write_global(match when {
        ColorWhen::Auto => anstream::ColorChoice::Auto,
        ColorWhen::Always => anstream::ColorChoice::Always,
        ColorWhen::Never => anstream::ColorChoice::Never,
    });
}

fn decide(auto: anstream::ColorChoice) -> bool {
    match WHEN.get().copied().unwrap_or_default() {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => !matches!(auto, anstream::ColorChoice::Never),
    }
}

/// Whether text for stdout is coloured.
pub fn stdout_enabled() -> bool {
    decide(anstream::AutoStream::choice(&std::io::stdout()))
}

/// Whether text for stderr is coloured.
pub fn stderr_enabled() -> bool {
    decide(anstream::AutoStream::choice(&std::io::stderr()))
}

/// Writes an already escaped terminal report (or progress text) to stdout, coloured if stdout
/// is; a closed pipe ends the process quietly (`out::stdout`).
pub fn stdout_report(escaped: &str) -> Result<(), String> {
    if stdout_enabled() {
        out::stdout(&harness_conformance_report::terminal_style::paint(escaped))
    } else {
        out::stdout(escaped)
    }
}

/// Writes an already escaped line and a newline to stderr, coloured if stderr is. It is
/// written as it is (not escaped again: the styles are escape sequences).
pub fn stderr_line(escaped: &str) {
    let mut line = if stderr_enabled() {
        harness_conformance_report::terminal_style::paint(escaped)
    } else {
        escaped.to_owned()
    };
    line.push('\n');
    let mut err = std::io::stderr().lock();
    if let Err(e) = err.write_all(line.as_bytes()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            out::exit(out::EXIT_BROKEN_PIPE);
        }
    }
}
