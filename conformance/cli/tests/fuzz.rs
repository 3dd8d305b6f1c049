//! `harness-conformance fuzz` end to end: the binary writes a finding's case file and prints its
//! one-command reproducer (the generator itself is tested in the generate crate).

use harness_conformance_suite::loader;

#[test]
fn the_command_writes_a_case_file_and_prints_its_reproducer() {
    let dir = std::env::temp_dir().join(format!("hc-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let bin = env!("CARGO_BIN_EXE_harness-conformance");
    let clean = std::process::Command::new(bin)
        .args(["fuzz", "--seed", "2", "--cases", "40", "-q", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        clean.status.success(),
        "{}",
        String::from_utf8_lossy(&clean.stderr)
    );
    assert!(String::from_utf8_lossy(&clean.stdout).contains("result: nothing found in 40 case(s)"));
    assert!(String::from_utf8_lossy(&clean.stderr).contains("generated 40 case(s)"));
    assert!(!dir.exists(), "nothing found, nothing written");

    let broken = std::process::Command::new(bin)
        .args([
            "fuzz", "--fault", "loses-id", "--seed", "2", "--time", "30s", "-q", "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(broken.status.code(), Some(1));
    let out = String::from_utf8_lossy(&broken.stdout);
    let file = dir.join("seed-2-case-0.json");
    assert!(out.contains("FAIL [CORR-1] case 0 of seed 2"), "{out}");
    assert!(
        out.contains(&format!("--fault loses-id' --case-file {}", file.display())),
        "{out}"
    );
    let case = loader::decode_case(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(case.id, "fuzz/seed-2-case-0");
    assert_eq!(case.requirements, vec!["CORR-1".to_owned()]);

    let usage = std::process::Command::new(bin)
        .args(["fuzz", "--fault", "no-such-fault"])
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("coerces-types"));
    let _ = std::fs::remove_dir_all(&dir);
}
