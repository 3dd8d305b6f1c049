//! Embeds SPEC.md for the binary: copied into OUT_DIR (empty if absent, so a checkout in the
//! middle of writing the spec still builds), and reruns when it, any case or any schema
//! changes — `include_dir!` alone does not tell cargo about new files.

use std::path::Path;

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let spec = Path::new(&dir).join("SPEC.md");
    let text = std::fs::read_to_string(&spec).unwrap_or_default();
    std::fs::write(Path::new(&out).join("SPEC.md"), text).expect("OUT_DIR is writable");
    println!("cargo:rerun-if-changed=SPEC.md");
    println!("cargo:rerun-if-changed=cases");
    println!("cargo:rerun-if-changed=schema");
}
