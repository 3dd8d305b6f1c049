//! `completions <shell>` and `man`: shell completion scripts and the man page, generated from
//! the same clap definition as the parser (clap_complete, clap_mangen), so they can never
//! disagree with the options the binary takes. Packages install them by running these
//! commands (docs/terminal.md); the wheel ships them as package data
//! (`python/harness_conformance.data/data/share/`), which a test keeps equal
//! to what these commands print.

use std::path::Path;
use std::process::ExitCode;

use clap::CommandFactory as _;

use crate::{out, Cli};

/// The name completions and man pages are generated for.
const BIN: &str = "harness-conformance";

/// The completion script for `shell`.
fn script(shell: clap_complete::Shell) -> String {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, BIN, &mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

/// Prints the completion script for `shell` to stdout.
pub fn completions(shell: clap_complete::Shell) -> Result<ExitCode, String> {
    out::stdout(&script(shell))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// Where the wheel's package data puts each shell's completion script, under `share/`: the
    /// folders bash-completion, zsh and fish read from a prefix.
    const PACKAGE_DATA: [(clap_complete::Shell, &str); 3] = [
        (
            clap_complete::Shell::Bash,
            "bash-completion/completions/harness-conformance",
        ),
        (
            clap_complete::Shell::Zsh,
            "zsh/site-functions/_harness-conformance",
        ),
        (
            clap_complete::Shell::Fish,
            "fish/vendor_completions.d/harness-conformance.fish",
        ),
    ];

    /// The wheel's `share/` folder in the checkout.
    fn share() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../python/harness_conformance.data/data/share")
    }

    /// Compares `got` with the committed `path`; `UPDATE_PACKAGE_DATA=1` rewrites it instead.
    fn same_as_committed(path: &Path, got: &[u8]) {
        if std::env::var_os("UPDATE_PACKAGE_DATA").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, got).unwrap();
            return;
        }
        let want = std::fs::read(path).unwrap_or_default();
        assert!(
            want == got,
            "{} is not what the runner generates; rewrite the wheel's completions and man pages with \
             `UPDATE_PACKAGE_DATA=1 cargo test -p harness-conformance --bin harness-conformance completions`",
            path.display()
        );
    }

    /// Issue 29: the wheel ships the completions and the man pages, and they are the ones this
    /// runner generates (a changed option changes them, and this test says how to rewrite them).
    #[test]
    fn the_wheel_ships_the_current_completions_and_man_pages() {
        for (shell, rel) in PACKAGE_DATA {
            same_as_committed(&share().join(rel), script(shell).as_bytes());
        }
        let generated = std::env::temp_dir().join(format!("hc-man-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&generated);
        std::fs::create_dir_all(&generated).unwrap();
        clap_mangen::generate_to(Cli::command(), &generated).unwrap();
        let names = |dir: &Path| -> Vec<String> {
            let mut v: Vec<String> = std::fs::read_dir(dir)
                .map(|d| {
                    d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
            v.sort();
            v
        };
        let committed = share().join("man/man1");
        if std::env::var_os("UPDATE_PACKAGE_DATA").is_some() {
            let _ = std::fs::remove_dir_all(&committed);
        }
        for name in names(&generated) {
            same_as_committed(
                &committed.join(&name),
                &std::fs::read(generated.join(&name)).unwrap(),
            );
        }
        assert_eq!(
            names(&committed),
            names(&generated),
            "the wheel's man pages are not the runner's"
        );
        let _ = std::fs::remove_dir_all(&generated);
    }
}
