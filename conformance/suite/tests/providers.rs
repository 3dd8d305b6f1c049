//! The providers' acceptance rules (`conformance/providers/<dialect>.json`): one file per dialect
//! of the vocabulary, each valid under `schema/provider.schema.json` and decoded by the suite's
//! `replay` module, every rule with a public source — so a dialect a hello may declare always has
//! rules that can fail a result, and no rule is the suite's own invention.

use std::path::Path;

use harness_conformance_protocol::vocabulary::DIALECTS;
use harness_conformance_suite::replay;
use serde_json::Value;

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_dialect_has_sourced_rules_valid_under_the_provider_schema() {
    let data = Path::new(env!("SUITE_DATA"));
    let schema = jsonschema::validator_for(&read(&data.join("schema/provider.schema.json")))
        .expect("provider.schema.json is a schema");
    for dialect in DIALECTS {
        let file = read(&data.join("providers").join(format!("{dialect}.json")));
        let errors: Vec<String> = schema
            .iter_errors(&file)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{dialect}: {errors:#?}");
        let provider = replay::provider(dialect).expect("embedded and decoded");
        assert_eq!(provider.dialect, dialect);
        assert!(!provider.rules.is_empty(), "{dialect}");
        for rule in &provider.rules {
            assert!(
                rule.sources.iter().all(|s| s.starts_with("https://")),
                "{dialect}/{}",
                rule.id
            );
        }
    }
    // No file for a dialect the vocabulary does not have.
    let files = replay::provider_files();
    assert_eq!(files.len(), DIALECTS.len(), "{files:?}");
}

#[test]
fn a_rule_the_schema_does_not_know_is_refused() {
    let data = Path::new(env!("SUITE_DATA"));
    let schema = jsonschema::validator_for(&read(&data.join("schema/provider.schema.json")))
        .expect("provider.schema.json is a schema");
    let mut file = read(&data.join("providers/anthropic-messages.json"));
    file["rules"][0]["require"] = Value::from("looks_fine");
    assert!(!schema.is_valid(&file));
    file["rules"] = Value::Array(Vec::new());
    assert!(
        !schema.is_valid(&file),
        "a dialect without rules judges nothing"
    );
}
