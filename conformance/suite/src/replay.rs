//! Replay: whether the model provider takes each result when the transcript is sent again.
//!
//! A harness's result does not end with the model reading it: it stays in the transcript and is
//! sent again with every later request. A result the provider refuses — an error with empty
//! content, an empty text block beside an image, a text of white space alone — makes that
//! request fail, and every later one that replays it, so one tool call blocks the session
//! (jlevy/markform #153, anthropics/claude-code #23440). What a provider takes is the
//! provider's rule, not the suite's: each one is data, `conformance/providers/<dialect>.json`,
//! with the provider's refusal text and the public sources that quote it, validated by
//! `schema/provider.schema.json`. A harness that declares its `dialect` has every result of
//! every case judged by those rules (SPEC.md REPLAY-1); one that declares none is judged by no
//! provider.
//!
//! A rule reads the result as the protocol reports it — `is_error`, and the blocks the provider
//! receives — through a few declarative predicates ([`Require`]), so a rule is a sourced fact a
//! reader can check, never code. The blocks are the reported `blocks` when there are some; a
//! result reported without blocks is one text block holding its `content`, or no block at all
//! when the content is empty (a harness that sends an empty text block for an empty output
//! reports it in `blocks`). What the model is shown beside the content (truncation metadata, a
//! structured copy) is sent with it. That reading is the lenient one: the suite fails a result
//! only where every way of sending it breaks a rule.

use std::sync::OnceLock;

use harness_conformance_protocol::{ContentBlock, ObservedResult};
use include_dir::{include_dir, Dir};
use serde::Deserialize;

/// The providers' acceptance rules, one file per dialect, embedded at build time.
pub static PROVIDERS: Dir<'static> = include_dir!("$SUITE_DATA/providers");

/// One provider's acceptance rules for a tool result (`conformance/providers/<dialect>.json`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provider {
    /// The dialect a hello declares; the file is named after it.
    pub dialect: String,
    /// The provider and API, in words, with where its format is documented.
    pub provider: String,
    /// How a reported result maps onto the provider's tool-result block, in words.
    pub reading: String,
    /// The rules, each sourced.
    pub rules: Vec<Rule>,
}

/// One acceptance rule.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Stable within its file; reports name it.
    pub id: String,
    /// The rule in plain words.
    pub statement: String,
    /// The provider's error text when a request breaks it.
    pub refusal: String,
    /// Where it comes from: documentation, or public issues quoting the refusal.
    pub sources: Vec<String>,
    /// Which results it applies to; `None`: every result.
    #[serde(default)]
    pub when: Option<When>,
    /// What a result must hold.
    pub require: Require,
}

/// The results a rule applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct When {
    /// Only results whose `is_error` is this.
    #[serde(default)]
    pub is_error: Option<bool>,
}

/// What a rule requires of a result (the closed list `provider.schema.json` enumerates).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Require {
    /// At least one block: a non-text block, or a text block with at least one character.
    SomeContent,
    /// Every text block holds at least one character.
    TextBlocksNonEmpty,
    /// Every text block holds a character other than ASCII white space.
    TextBlocksNonBlank,
}

impl Rule {
    /// Whether the rule applies to a result flagged `is_error`.
    pub fn applies_to(&self, is_error: bool) -> bool {
        self.when
            .and_then(|w| w.is_error)
            .is_none_or(|want| want == is_error)
    }

    /// Whether the rule is about error results only (the error's message is also OUT-9's).
    pub fn errors_only(&self) -> bool {
        self.when.and_then(|w| w.is_error) == Some(true)
    }
}

/// One block as the provider receives it: a text, or another kind (named for messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sent<'a> {
    /// A text block.
    Text(&'a str),
    /// Text the model is shown beside the content — truncation metadata, a structured copy
    /// (PROTOCOL.md section 3c) — which the provider receives as text too: never empty or
    /// blank, since it states something.
    Beside,
    /// A block of another kind: `image`, `resource`, `audio`, `resource_link`.
    Other(&'static str),
}

/// The blocks the provider receives for `result` (see the module doc). What the model is shown
/// beside the content is read as sent with it: in the one text block of a text-only result
/// (which then is not blank), after the blocks of one with blocks.
pub fn sent(result: &ObservedResult) -> Vec<Sent<'_>> {
    let beside = result.truncation.is_some() || result.structured.is_some();
    let mut out: Vec<Sent<'_>> = match &result.blocks {
        Some(blocks) => blocks
            .iter()
            .map(|b| match b {
                ContentBlock::Text { text } => Sent::Text(text),
                ContentBlock::Image { .. } | ContentBlock::SyntheticImage(_) => {
                    Sent::Other("image")
                }
                ContentBlock::Resource { .. } => Sent::Other("resource"),
                ContentBlock::Audio { .. } => Sent::Other("audio"),
                ContentBlock::ResourceLink(_) => Sent::Other("resource_link"),
            })
            .collect(),
        None if beside => return vec![Sent::Beside],
        None if result.content.is_empty() => Vec::new(),
        None => vec![Sent::Text(&result.content)],
    };
    if beside {
        out.push(Sent::Beside);
    }
    out
}

/// Whether `text` is blank: empty, or only ASCII white space (the white space every provider's
/// check counts; a provider that counts more refuses more, never less).
pub fn is_blank(text: &str) -> bool {
    text.bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r'))
}

/// Why `blocks` break `require`, in words; `None` when they hold it.
pub fn broken(require: Require, blocks: &[Sent<'_>]) -> Option<String> {
    let texts = || {
        blocks.iter().enumerate().filter_map(|(i, b)| match b {
            Sent::Text(t) => Some((i, *t)),
            Sent::Beside | Sent::Other(_) => None,
        })
    };
    match require {
        Require::SomeContent => {
            let any = blocks.iter().any(|b| match b {
                Sent::Text(t) => !t.is_empty(),
                Sent::Beside | Sent::Other(_) => true,
            });
            (!any).then(|| "the result carries no content".to_owned())
        }
        Require::TextBlocksNonEmpty => texts()
            .find(|(_, t)| t.is_empty())
            .map(|(i, _)| format!("block {} is an empty text block", i + 1)),
        Require::TextBlocksNonBlank => texts().find(|(_, t)| is_blank(t)).map(|(i, t)| {
            if t.is_empty() {
                format!("block {} is an empty text block", i + 1)
            } else {
                format!(
                    "block {} is a text block of white space alone ({} byte(s))",
                    i + 1,
                    t.len()
                )
            }
        }),
    }
}

/// One rule a result breaks, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breach<'p> {
    /// The rule.
    pub rule: &'p Rule,
    /// What in the result breaks it.
    pub why: String,
}

/// Every rule of `provider` that `result` breaks, leaving out the rules about error results
/// when `skip_error_rules` (a case that holds the error's message to OUT-9 judges it there).
pub fn breaches<'p>(
    provider: &'p Provider,
    result: &ObservedResult,
    skip_error_rules: bool,
) -> Vec<Breach<'p>> {
    let blocks = sent(result);
    provider
        .rules
        .iter()
        .filter(|r| r.applies_to(result.is_error))
        .filter(|r| !(skip_error_rules && r.errors_only()))
        .filter_map(|rule| broken(rule.require, &blocks).map(|why| Breach { rule, why }))
        .collect()
}

/// Every embedded provider file: (path relative to `providers/`, contents), for `copy`.
pub fn provider_files() -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = PROVIDERS
        .files()
        .filter(|f| f.path().extension().is_some_and(|e| e == "json"))
        .map(|f| {
            (
                f.path().display().to_string(),
                f.contents_utf8().unwrap_or(""),
            )
        })
        .collect();
    out.sort();
    out
}

/// Every provider file, decoded: (path, the provider or why it does not decode).
pub fn embedded() -> Vec<(String, Result<Provider, String>)> {
    provider_files()
        .into_iter()
        .map(|(path, text)| {
            let decoded = serde_json::from_str::<Provider>(text).map_err(|e| e.to_string());
            (path, decoded)
        })
        .collect()
}

/// The rules of `dialect`, when its file is embedded and decodes (`tests/providers.rs` holds
/// every dialect of the vocabulary to having one).
pub fn provider(dialect: &str) -> Option<&'static Provider> {
    static ALL: OnceLock<Vec<Provider>> = OnceLock::new();
    ALL.get_or_init(|| embedded().into_iter().filter_map(|(_, p)| p.ok()).collect())
        .iter()
        .find(|p| p.dialect == dialect)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(v: serde_json::Value) -> ObservedResult {
        serde_json::from_value(v).unwrap()
    }

    fn ids(p: &Provider, r: &ObservedResult) -> Vec<String> {
        breaches(p, r, false)
            .into_iter()
            .map(|b| b.rule.id.clone())
            .collect()
    }

    #[test]
    fn the_messages_api_takes_an_empty_success_and_refuses_an_empty_error() {
        let p = provider("anthropic-messages").unwrap();
        let ok = result(json!({"tool_use_id": "a", "is_error": false, "content": ""}));
        assert!(ids(p, &ok).is_empty());
        let err = result(json!({"tool_use_id": "a", "is_error": true, "content": ""}));
        assert_eq!(ids(p, &err), ["error-has-content"]);
        // OUT-9's cases judge an empty error message themselves.
        assert!(breaches(p, &err, true).is_empty());
    }

    #[test]
    fn blank_text_blocks_are_refused_beside_an_image_and_alone() {
        let p = provider("anthropic-messages").unwrap();
        let beside = result(json!({"tool_use_id": "a", "is_error": false, "content": "",
            "blocks": [{"type": "text", "text": ""}, {"type": "image", "data": "iVBO", "mimeType": "image/png"}]}));
        assert_eq!(
            ids(p, &beside),
            ["text-blocks-non-empty", "text-blocks-non-blank"]
        );
        let image_only = result(json!({"tool_use_id": "a", "is_error": true, "content": "",
            "blocks": [{"type": "image", "data": "iVBO", "mimeType": "image/png"}]}));
        assert!(ids(p, &image_only).is_empty());
        let blank = result(json!({"tool_use_id": "a", "is_error": false, "content": " \r\n"}));
        assert_eq!(ids(p, &blank), ["text-blocks-non-blank"]);
        let text = result(json!({"tool_use_id": "a", "is_error": false, "content": " x\n"}));
        assert!(ids(p, &text).is_empty());
    }

    #[test]
    fn metadata_shown_beside_the_content_is_sent_with_it() {
        let p = provider("anthropic-messages").unwrap();
        let cut = result(
            json!({"tool_use_id": "a", "is_error": false, "content": "\n\n\n",
            "truncation": {"omitted": 9000}}),
        );
        assert!(ids(p, &cut).is_empty());
        let blocks = result(json!({"tool_use_id": "a", "is_error": false, "content": "",
            "blocks": [{"type": "text", "text": ""}], "truncation": {"omitted": 9000}}));
        assert_eq!(
            ids(p, &blocks),
            ["text-blocks-non-empty", "text-blocks-non-blank"]
        );
    }

    #[test]
    fn white_space_beyond_ascii_is_not_counted_blank() {
        assert!(is_blank(" \t\n\x0B\x0C\r"));
        assert!(is_blank(""));
        assert!(!is_blank("\u{00A0}"));
        assert!(!is_blank("\u{2028}"));
    }

    #[test]
    fn every_embedded_file_decodes_and_is_named_after_its_dialect() {
        let all = embedded();
        assert!(!all.is_empty());
        for (path, p) in all {
            let p = p.unwrap_or_else(|e| panic!("{path}: {e}"));
            assert_eq!(path, format!("{}.json", p.dialect));
            assert!(!p.rules.is_empty(), "{path}");
        }
    }
}
