//! `completions <shell>` and `man`: shell completion scripts and the man page, generated from
//! the same clap definition as the parser (clap_complete, clap_mangen), so they can never
//! disagree with the options the binary takes. Packages install them by running these
//! commands (docs/terminal.md).

use std::path::Path;
use std::process::ExitCode;

use clap::CommandFactory as _;

use crate::{out, Cli};

/// The name completions and man pages are generated for.
const BIN: &str = "harness-conformance";

/// Prints the completion script for `shell` to stdout.
pub fn completions(shell: clap_complete::Shell) -> Result<ExitCode, String> {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, BIN, &mut buf);
    out::stdout(&String::from_utf8_lossy(&buf))?;
    Ok(ExitCode::SUCCESS)
}

/// Prints the man page (roff) to stdout, or writes one page per command into `dir`
/// (`harness-conformance.1`, `harness-conformance-run.1`, …).
pub fn man(dir: Option<&Path>) -> Result<ExitCode, String> {
    let cmd = Cli::command();
    match dir {
        None => {
            let mut buf = Vec::new();
            clap_mangen::Man::new(cmd)
                .render(&mut buf)
                .map_err(|e| format!("cannot render the man page: {e}"))?;
            out::stdout(&String::from_utf8_lossy(&buf))?;
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            clap_mangen::generate_to(cmd, dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            crate::out::tell!("wrote the man pages to {}", dir.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}
