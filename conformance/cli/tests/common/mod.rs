//! What the command line's tests share: the binary, a fresh folder per test, and the toy
//! adapter. Each test file includes it as `mod common;` and uses what it needs.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_harness-conformance"))
}

pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// A fresh, empty folder for one test (named after the test file, so files never collide).
pub fn tmp(name: &str) -> PathBuf {
    let file = module_path!().split("::").next().unwrap_or("test");
    let dir = std::env::temp_dir().join(format!("hc-{file}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The toy adapter: it answers every call with a success, so it fails every case that
/// expects an error.
pub fn toy() -> String {
    format!(
        "python3 {}/../driver/tests/misbehaving/adapter.py ok",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// `run` against the toy on the cases `selection` selects, quietly, with `extra` arguments.
pub fn run_toy(selection: &str, extra: &[&str]) -> Output {
    let toy = toy();
    let mut args = vec!["run", "--harness", &toy, "--run", selection, "-q"];
    args.extend(extra);
    run(&args)
}
