//! The hand-picked seeds, described in code and encoded with the byte grammar.
//!
//! Seeds for targets whose input is plain text (a tool_use block, a protocol line) are
//! committed as files and read as they are; the ones listed here are the seeds for targets
//! with structured inputs, which a person cannot type as bytes. `props/tests/replay.rs`
//! checks that the committed files under `fuzz/seeds/` equal what this module produces, and
//! rewrites them on request.

/// A seed: its target, a descriptive file name, and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seed {
    /// The fuzz target it belongs to.
    pub target: &'static str,
    /// The file name under `fuzz/seeds/<target>/`.
    pub name: &'static str,
    /// The input bytes.
    pub bytes: Vec<u8>,
}

/// Every generated seed.
pub fn all() -> Vec<Seed> {
    Vec::new()
}
