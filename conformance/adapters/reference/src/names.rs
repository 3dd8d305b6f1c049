//! Looking a fault or a variant up by its command-line name, and saying so when there is none.
//!
//! Faults and variants are chosen by kebab-case name on the command line; both kinds parse and
//! refuse names the same way, so the lookup and the message live here once.

use std::fmt;

/// At most this many characters of an unknown name are shown back.
const SHOWN_CHARS: usize = 80;

/// The item of `all` whose `name` is `wanted`.
pub(crate) fn find<T: Copy>(all: &[T], name: fn(T) -> &'static str, wanted: &str) -> Option<T> {
    all.iter().copied().find(|item| name(*item) == wanted)
}

/// Writes `unknown <kind> "<wanted>"; the <kind>s are: a, b, c`. `wanted` came from the command
/// line: it is bounded and escaped.
pub(crate) fn write_unknown<T: Copy>(
    f: &mut fmt::Formatter<'_>,
    kind: &str,
    wanted: &str,
    all: &[T],
    name: fn(T) -> &'static str,
) -> fmt::Result {
    let shown: String = wanted.chars().take(SHOWN_CHARS).collect();
    write!(f, "unknown {kind} {shown:?}; the {kind}s are: ")?;
    for (i, item) in all.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        f.write_str(name(*item))?;
    }
    Ok(())
}
