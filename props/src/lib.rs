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
pub mod cap;
pub mod case_file;
pub mod parts;
pub mod protocol;
pub mod repair;
pub mod schema;
pub mod security;
pub mod seeds;
pub mod structured;
pub mod tool_use;

/// Decodes fuzz bytes exactly as `fuzz_target!` does.
pub fn decode<'a, T: arbitrary::Arbitrary<'a>>(data: &'a [u8]) -> arbitrary::Result<T> {
    T::arbitrary_take_rest(arbitrary::Unstructured::new(data))
}

/// Every byte left in `u`: fuzz inputs are decoded with [`bytes::Reader`] from all of it.
pub fn all_bytes<'a>(u: &mut arbitrary::Unstructured<'a>) -> &'a [u8] {
    let n = u.len();
    u.bytes(n).unwrap_or_default()
}

/// The message of every panic the fuzz handlers raise on purpose.
pub const DELIBERATE_PANIC: &str = "harness-ref-props: deliberate handler panic";

/// Lets the handlers' deliberate panics unwind quietly, keeping every other panic fatal.
///
/// libFuzzer's panic hook aborts the process on *any* panic, even one the harness catches;
/// a handler that panics on purpose (to test that a panic becomes `internal_error`) would
/// end the fuzzing run. This wraps whatever hook is installed (libFuzzer's, or the default)
/// and skips it for panics carrying [`DELIBERATE_PANIC`]. Installed once per process.
pub fn quiet_deliberate_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
            if message.is_some_and(|m| m.contains(DELIBERATE_PANIC)) {
                return;
            }
            previous(info);
        }));
    });
}

/// Checks a violation's pointer: it names a value in `args`, or a field missing from an
/// object in `args` that some `required` of the schema lists.
pub fn pointer_is_explained(
    pointer: &str,
    args: &serde_json::Value,
    required: &std::collections::BTreeSet<String>,
) -> bool {
    if args.pointer(pointer).is_some() {
        return true;
    }
    let Some(slash) = pointer.rfind('/') else {
        return false;
    };
    let name = pointer[slash + 1..].replace("~1", "/").replace("~0", "~");
    args.pointer(&pointer[..slash])
        .and_then(serde_json::Value::as_object)
        .is_some_and(|parent| !parent.contains_key(&name) && required.contains(&name))
}
