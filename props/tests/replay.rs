//! Replays every committed seed and regression input on stable, decoded exactly as
//! `fuzz_target!` decodes them (`Arbitrary::arbitrary_take_rest`), through the same property
//! functions the fuzz targets call. CI thus checks them on every run without nightly.
//!
//! Also keeps the generated seeds honest: the files under `fuzz/seeds/` for `cap_output` and
//! `structured_call` must equal what `harness_ref_props::seeds` describes. After changing a
//! description, rewrite them with `WRITE_SEEDS=1 cargo test -p harness-ref-props --test replay`.

use std::fs;
use std::path::{Path, PathBuf};

use harness_ref_props::{
    cap, case_file, decode, parts, protocol, repair, security, seeds, structured, tool_use,
};

mod support;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// The property of each target, over raw fuzz bytes.
fn property(target: &str) -> Option<fn(&[u8])> {
    Some(match target {
        "cap_output" => |b| cap::check(&decode(b).unwrap()),
        "cap_streaming" => |b| cap::check_streaming(&decode(b).unwrap()),
        "structured_call" => |b| structured::check(&decode(b).unwrap()),
        "tool_use_bytes" => |b| tool_use::check(&decode(b).unwrap()),
        "protocol_messages" => |b| protocol::check(&decode(b).unwrap()),
        "case_file" => |b| case_file::check(&decode(b).unwrap(), &support::case_file_api()),
        "security_gates" => |b| security::check(&decode(b).unwrap()),
        "repair_call" => |b| repair::check(&decode(b).unwrap()),
        "parts_turn" => |b| parts::check(&decode(b).unwrap()),
        _ => return None,
    })
}

/// The fuzz targets, read from `fuzz/Cargo.toml`'s `[[bin]]` names.
fn targets() -> Vec<String> {
    let manifest = fs::read_to_string(fuzz_dir().join("Cargo.toml")).unwrap();
    let mut names = Vec::new();
    let mut in_bin = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if in_bin {
            if let Some(name) = line.strip_prefix("name = ") {
                names.push(name.trim_matches('"').to_string());
            }
        }
    }
    names
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

#[test]
fn every_target_has_a_property_and_seeds() {
    let targets = targets();
    assert!(targets.len() >= 4, "fuzz/Cargo.toml lists {targets:?}");
    for target in targets {
        assert!(
            property(&target).is_some(),
            "no stable replay for fuzz target {target}; add it to property()"
        );
        let seeds = files(&fuzz_dir().join("seeds").join(&target));
        assert!(!seeds.is_empty(), "fuzz/seeds/{target}/ has no seeds");
    }
}

#[test]
fn generated_seeds_match_their_descriptions() {
    let write = std::env::var_os("WRITE_SEEDS").is_some();
    let seeds = seeds::all().into_iter().map(|s| ("seeds", s));
    let regressions = seeds::regressions().into_iter().map(|s| ("regressions", s));
    for (kind, seed) in seeds.chain(regressions) {
        let path = fuzz_dir().join(kind).join(seed.target).join(seed.name);
        if write {
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, &seed.bytes).unwrap();
        }
        let committed = fs::read(&path).unwrap_or_else(|_| {
            panic!(
                "{} is missing; run WRITE_SEEDS=1 cargo test -p harness-ref-props --test replay",
                path.display()
            )
        });
        assert_eq!(
            committed,
            seed.bytes,
            "{} differs from its description in seeds.rs",
            path.display()
        );
    }
}

#[test]
fn structured_seeds_decode_to_their_descriptions() {
    for seed in seeds::all() {
        match seed.target {
            "cap_output" | "cap_streaming" => {
                let decoded: cap::CapOutput = decode(&seed.bytes).unwrap();
                assert_eq!(decoded.to_bytes(), seed.bytes, "{}", seed.name);
            }
            "structured_call" => {
                let decoded: structured::StructuredCall = decode(&seed.bytes).unwrap();
                assert_eq!(decoded.to_bytes(), seed.bytes, "{}", seed.name);
            }
            "security_gates" => {
                let decoded: security::GatedSession = decode(&seed.bytes).unwrap();
                assert_eq!(decoded.to_bytes(), seed.bytes, "{}", seed.name);
            }
            "repair_call" => {
                let decoded: repair::RepairCall = decode(&seed.bytes).unwrap();
                assert_eq!(decoded.to_bytes(), seed.bytes, "{}", seed.name);
            }
            "parts_turn" => {
                let decoded: parts::PartsTurn = decode(&seed.bytes).unwrap();
                assert_eq!(decoded.to_bytes(), seed.bytes, "{}", seed.name);
            }
            other => panic!("unexpected generated seed target {other}"),
        }
    }
}

fn replay(kind: &str) {
    let mut replayed = 0;
    for target in targets() {
        let check = property(&target).unwrap();
        for path in files(&fuzz_dir().join(kind).join(&target)) {
            let bytes = fs::read(&path).unwrap();
            let outcome = std::panic::catch_unwind(|| check(&bytes));
            assert!(
                outcome.is_ok(),
                "{} failed its property (see the panic above)",
                path.display()
            );
            replayed += 1;
        }
    }
    eprintln!("replayed {replayed} {kind} inputs");
}

#[test]
fn seeds_pass_their_properties() {
    replay("seeds");
}

#[test]
fn regressions_pass_their_properties() {
    replay("regressions");
}
