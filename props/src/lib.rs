//! Property functions and fuzz inputs, shared by the cargo-fuzz targets in `fuzz/` and by
//! their stable mirrors in this crate's tests.
//!
//! Why a crate of its own: `fuzz/` is a separate cargo workspace built with nightly and
//! libFuzzer, and nothing in it runs in `cargo test`. Putting every property here means the
//! fuzz targets are one-liners, and the same function runs on stable under proptest and over
//! every committed seed and regression input, decoded exactly as `fuzz_target!` decodes them
//! (`Arbitrary::arbitrary_take_rest`).
//!
//! One module per fuzz target, named like the target. Each has an input type whose `Debug`
//! prints a runnable reproduction, and a `check` function that panics when a property fails.
//! A pure library: no I/O, no printing.

pub mod bytes;
pub mod protocol;
pub mod schema;
pub mod seeds;

/// Decodes fuzz bytes exactly as `fuzz_target!` does.
pub fn decode<'a, T: arbitrary::Arbitrary<'a>>(data: &'a [u8]) -> arbitrary::Result<T> {
    T::arbitrary_take_rest(arbitrary::Unstructured::new(data))
}

/// Every byte left in `u`: fuzz inputs are decoded with [`bytes::Reader`] from all of it.
pub fn all_bytes<'a>(u: &mut arbitrary::Unstructured<'a>) -> &'a [u8] {
    let n = u.len();
    u.bytes(n).unwrap_or_default()
}
