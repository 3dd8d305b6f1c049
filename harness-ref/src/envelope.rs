//! The envelope: exactly one per call, pairing the answer with the call's id.
//!
//! A [`ToolResult`] serialises (serde) to the Anthropic `tool_result` content block
//! (`type`, `tool_use_id`, `content`, `is_error`); everything else — the code, retryability,
//! truncation metadata, the violations, the remedy and the tool's own reason — is exposed
//! as structured fields for the embedder, never mixed into the block.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use crate::cap::Truncation;
use crate::code::ErrorCode;
use crate::content::Part;
use crate::schema::Violation;

/// The structured side of an error result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorInfo {
    /// The outcome code.
    pub code: ErrorCode,
    /// The condition as composed (or, for refusals, as the tool wrote it), before any remedy.
    pub message: String,
    /// The remedy appended after ` — `, if the next step is known.
    pub remedy: Option<String>,
    /// The tool's own reason code (e.g. `FS_STALE_VERSION`), kept as the cause.
    pub reason: Option<String>,
    /// For `invalid_arguments`: every violation, as data.
    pub violations: Vec<Violation>,
}

/// The full output a `spill` cap kept aside, under the id its note shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    /// The id the model is pointed to (`out-` and 16 hex digits).
    pub id: String,
    /// The full output, exactly as the handler returned it.
    pub text: String,
}

/// The answer to one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    pub(crate) tool_use_id: Option<String>,
    pub(crate) content: String,
    pub(crate) error: Option<Box<ErrorInfo>>,
    /// Boxed: a result is moved through every stage, and most results are not cut.
    pub(crate) truncation: Option<Box<Truncation>>,
    pub(crate) artifact: Option<Box<Artifact>>,
    /// A multi-part answer's parts (text parts capped); empty when the content is the answer.
    pub(crate) parts: Vec<Part>,
}

impl ToolResult {
    /// The id of the call this answers; `None` only when no id could be read.
    pub fn tool_use_id(&self) -> Option<&str> {
        self.tool_use_id.as_deref()
    }

    /// The content the model sees (within the cap, note included).
    pub fn content(&self) -> &str {
        &self.content
    }

    /// True for every error outcome.
    pub fn is_error(&self) -> bool {
        self.error.is_some()
    }

    /// The outcome code; `None` on success.
    pub fn code(&self) -> Option<ErrorCode> {
        self.error.as_ref().map(|e| e.code)
    }

    /// The code's stable string; `None` on success.
    pub fn code_str(&self) -> Option<&'static str> {
        self.code().map(ErrorCode::code)
    }

    /// Whether the very same call can succeed if repeated (false on success).
    pub fn retryable(&self) -> bool {
        self.code().is_some_and(ErrorCode::retryable)
    }

    /// What the cap cut, if anything.
    pub fn truncation(&self) -> Option<&Truncation> {
        self.truncation.as_deref()
    }

    /// The artifact a `spill` cap kept the full output in, if it spilled.
    pub fn artifact(&self) -> Option<&Artifact> {
        self.artifact.as_deref()
    }

    /// The structured error, if this is an error.
    pub fn error(&self) -> Option<&ErrorInfo> {
        self.error.as_deref()
    }

    /// The violations of an `invalid_arguments` result (empty otherwise).
    pub fn violations(&self) -> &[Violation] {
        self.error.as_ref().map_or(&[], |e| e.violations.as_slice())
    }

    /// The parts of a multi-part answer, in order (empty when the answer is its content).
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// The `content` of the block: the text, or a multi-part answer's blocks.
    fn content_value(&self) -> Value {
        if self.parts.is_empty() {
            Value::String(self.content.clone())
        } else {
            Value::Array(self.parts.iter().map(Part::to_block).collect())
        }
    }

    /// The Anthropic `tool_result` block as a JSON value. `tool_use_id` is `null` when no id
    /// could be read; a multi-part answer's `content` is its list of blocks.
    pub fn to_block(&self) -> Value {
        serde_json::json!({
            "type": "tool_result",
            "tool_use_id": self.tool_use_id,
            "content": self.content_value(),
            "is_error": self.is_error(),
        })
    }
}

impl Serialize for ToolResult {
    /// Serialises to the Anthropic `tool_result` block.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("type", "tool_result")?;
        map.serialize_entry("tool_use_id", &self.tool_use_id)?;
        if self.parts.is_empty() {
            map.serialize_entry("content", &self.content)?;
        } else {
            map.serialize_entry("content", &self.content_value())?;
        }
        map.serialize_entry("is_error", &self.is_error())?;
        map.end()
    }
}
