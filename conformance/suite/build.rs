//! Finds the suite's data and tells the crate where it is.
//!
//! The data — the case corpus, the JSON Schemas, the providers' acceptance rules, SPEC.md and
//! PROTOCOL.md — is language-neutral and lives beside this crate in `conformance/`, where
//! adapters in every language read it. In
//! a checkout it is `..`; in a package built by `cargo package` it is this crate's own folder
//! (`ci/package.sh` links it in before packing, and the include list ships it). `SUITE_DATA`
//! names whichever holds `cases/`, and the loader embeds from there. SPEC.md is copied into
//! OUT_DIR (empty if absent, so a checkout in the middle of writing the spec still builds).
//! Reruns when any of it changes — `include_dir!` alone does not tell cargo about new files.

use std::path::{Path, PathBuf};

fn main() {
    let dir =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let data = if dir.join("cases").is_dir() {
        dir.clone()
    } else {
        dir.join("..")
    };
    let data = data.canonicalize().expect("the suite's data folder exists");
    let data_str = data
        .to_str()
        .expect("the suite's data folder has a UTF-8 path");
    println!("cargo:rustc-env=SUITE_DATA={data_str}");
    let text = std::fs::read_to_string(data.join("SPEC.md")).unwrap_or_default();
    std::fs::write(Path::new(&out).join("SPEC.md"), text).expect("OUT_DIR is writable");
    for f in ["SPEC.md", "PROTOCOL.md", "cases", "schema", "providers"] {
        println!("cargo:rerun-if-changed={}", data.join(f).display());
    }
}
