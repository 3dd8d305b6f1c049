//! The variants about results the provider takes on replay (issue 30 area 5, SPEC.md REPLAY-1).
//!
//! harness-ref keeps every result one the Messages API takes when the transcript is sent again:
//! it drops blank text parts, keeps an output of white space alone with a word beside it, and
//! never leaves an error without a message. The broken variants undo one of those at the
//! adapter's boundary, from what the case's handler returned (its script, never the case's
//! id); the legitimate one makes another choice the provider takes as well.

use harness_conformance_protocol::{Behavior, ContentBlock, ObservedResult, Output, ToolDef};

use crate::{Fault, Variant};

/// What `placeholder-for-empty-output` sends for an empty success.
pub(crate) const NO_OUTPUT: &str = "(no output)";

/// Applies the replay faults and the legitimate placeholder to one observed result; `tool` is
/// the tool its call named, when there is one.
pub(crate) fn perturb_result(
    o: &mut ObservedResult,
    fault: Option<Fault>,
    variant: Option<Variant>,
    tool: Option<&ToolDef>,
) {
    let empty_success = !o.is_error && o.content.is_empty() && o.blocks.is_none();
    match fault {
        Some(Fault::EmptyErrorContent) if o.is_error => {
            if let Some(message) = tool.and_then(|t| blank_error(&t.behavior)) {
                o.content = message;
                o.blocks = None;
            }
        }
        Some(Fault::KeepsBlankTextBlocks) if !o.is_error => {
            if let Some(returned) = tool.and_then(|t| returned_blocks(&t.behavior)) {
                restore_blank_blocks(o, returned);
            }
        }
        Some(Fault::EmptyOutputAsAnEmptyTextBlock) if empty_success => {
            o.blocks = Some(vec![ContentBlock::Text {
                text: String::new(),
            }]);
        }
        Some(Fault::PassesWhiteSpaceOutput) if !o.is_error => {
            if let Some(Output::Text(text)) = tool.and_then(|t| final_output(&t.behavior)) {
                if !text.is_empty() && text.trim().is_empty() {
                    o.content.clone_from(text);
                }
            }
        }
        _ => {}
    }
    if variant == Some(Variant::PlaceholderForEmptyOutput) && empty_success {
        o.content = NO_OUTPUT.to_owned();
    }
}

/// The output a behaviour ends in, past its sleeps and mutations.
fn final_output(mut b: &Behavior) -> Option<&Output> {
    loop {
        match b {
            Behavior::Return { output } => return Some(output),
            Behavior::Raise { .. } => return None,
            Behavior::Sleep { then, .. } | Behavior::MutateArgs { then, .. } => b = then,
        }
    }
}

/// The message of an error the handler (or its MCP server) gave with no text but white space.
fn blank_error(mut b: &Behavior) -> Option<String> {
    loop {
        match b {
            Behavior::Raise { raise } => {
                return raise
                    .message
                    .trim()
                    .is_empty()
                    .then(|| raise.message.clone())
            }
            Behavior::Return {
                output: Output::McpResult(result),
            } if result.is_error == Some(true) => {
                let text: String = result
                    .content
                    .iter()
                    .filter_map(ContentBlock::text)
                    .collect();
                return text.trim().is_empty().then_some(text);
            }
            Behavior::Return { .. } => return None,
            Behavior::Sleep { then, .. } | Behavior::MutateArgs { then, .. } => b = then,
        }
    }
}

/// The blocks a successful handler returned (content blocks, or an MCP success's content).
fn returned_blocks(b: &Behavior) -> Option<&[ContentBlock]> {
    match final_output(b)? {
        Output::ContentBlocks(blocks) => Some(blocks),
        Output::McpResult(result) if result.is_error != Some(true) => Some(&result.content),
        _ => None,
    }
}

/// Puts back, at their places, the blank text blocks the handler returned and harness-ref
/// dropped.
fn restore_blank_blocks(o: &mut ObservedResult, returned: &[ContentBlock]) {
    let blank = |b: &ContentBlock| b.text().is_some_and(|t| t.trim().is_empty());
    if !returned.iter().any(blank) {
        return;
    }
    let mut blocks = o.blocks.take().unwrap_or_default();
    for (at, block) in returned.iter().enumerate() {
        if blank(block) {
            blocks.insert(at.min(blocks.len()), block.clone());
        }
    }
    o.content = blocks.iter().filter_map(ContentBlock::text).collect();
    o.blocks = Some(blocks);
}
