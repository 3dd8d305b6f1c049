//! Multi-part results: text, images and embedded resources, and the MCP client side.
//!
//! A tool may answer with parts instead of one text ([`crate::ToolOutput::Parts`]). The harness
//! delivers each part as a block of its kind — the Anthropic `tool_result` content allows text,
//! image and document blocks — in the handler's order, never turning an image into text or a
//! placeholder. The cap applies to text: each text part is capped on its own (an image is not
//! text and is never cut, so a payload can never be split). An image of a media type the
//! Messages API does not take is refused as `invalid_tool_output`, with a message naming the
//! type, rather than sent to fail at the API.
//!
//! [`from_mcp_result`] is the MCP client side: a server's `CallToolResult` (its JSON) as a
//! handler's outcome — `isError: true` is the tool's refusal carrying the server's text, and
//! otherwise the content blocks become parts, unchanged.

use serde_json::{json, Value};

use crate::tool::{ToolError, ToolOutput};

/// One part of a multi-part output.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Part {
    /// Text (capped).
    Text(String),
    /// An image: its media type and its bytes as base64.
    Image {
        /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
        media_type: String,
        /// Base64 (RFC 4648) without a `data:` prefix.
        data: String,
    },
    /// An embedded resource: a URI and its text or bytes.
    Resource {
        /// Where it lives.
        uri: String,
        /// Its MIME type, if known.
        mime_type: Option<String>,
        /// What it holds.
        body: ResourceBody,
    },
}

/// What an embedded resource holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceBody {
    /// Text.
    Text(String),
    /// Bytes, base64.
    Blob(String),
}

/// The image media types the Messages API accepts in a `tool_result`.
pub const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

impl Part {
    /// The text of a text part.
    pub fn text(&self) -> Option<&str> {
        match self {
            Part::Text(t) => Some(t),
            _ => None,
        }
    }

    /// Why the harness cannot deliver this part, if it cannot.
    pub(crate) fn unsupported(&self) -> Option<String> {
        match self {
            Part::Image { media_type, .. } if !IMAGE_TYPES.contains(&media_type.as_str()) => {
                Some(format!(
                    "an image of type {media_type:?} is not supported (supported: {})",
                    IMAGE_TYPES.join(", ")
                ))
            }
            _ => None,
        }
    }

    /// The part as an Anthropic content block.
    pub fn to_block(&self) -> Value {
        match self {
            Part::Text(text) => json!({"type": "text", "text": text}),
            Part::Image { media_type, data } => json!({
                "type": "image",
                "source": {"type": "base64", "media_type": media_type, "data": data}
            }),
            Part::Resource {
                uri,
                mime_type,
                body,
            } => {
                let source = match body {
                    ResourceBody::Text(text) => json!({
                        "type": "text",
                        "media_type": mime_type.as_deref().unwrap_or("text/plain"),
                        "data": text
                    }),
                    ResourceBody::Blob(data) => json!({
                        "type": "base64",
                        "media_type": mime_type.as_deref().unwrap_or("application/octet-stream"),
                        "data": data
                    }),
                };
                json!({"type": "document", "source": source, "title": uri})
            }
        }
    }
}

/// The text parts joined: what a text-only reader of the result sees.
pub fn text_of(parts: &[Part]) -> String {
    parts.iter().filter_map(Part::text).collect()
}

/// A part from an MCP content block (its JSON), or why it has none.
fn part_of_mcp(block: &Value) -> Result<Part, String> {
    let field = |name: &str| block.get(name).and_then(Value::as_str).map(str::to_owned);
    match block.get("type").and_then(Value::as_str) {
        Some("text") => field("text")
            .map(Part::Text)
            .ok_or_else(|| "a text block without text".to_owned()),
        Some("image") => match (field("mimeType"), field("data")) {
            (Some(media_type), Some(data)) => Ok(Part::Image { media_type, data }),
            _ => Err("an image block without `data` and `mimeType`".to_owned()),
        },
        Some("resource") => {
            let r = block.get("resource").unwrap_or(&Value::Null);
            let s = |name: &str| r.get(name).and_then(Value::as_str).map(str::to_owned);
            let body = match (s("text"), s("blob")) {
                (Some(t), None) => ResourceBody::Text(t),
                (None, Some(b)) => ResourceBody::Blob(b),
                _ => return Err("a resource block without exactly one of `text` and `blob`".into()),
            };
            let uri = s("uri").ok_or_else(|| "a resource block without a `uri`".to_owned())?;
            Ok(Part::Resource {
                uri,
                mime_type: s("mimeType"),
                body,
            })
        }
        Some(other) => Err(format!("a {other:?} content block is not supported")),
        None => Err("a content block without a `type`".to_owned()),
    }
}

/// The MCP client side: an MCP server's `CallToolResult` (JSON) as a handler's outcome.
///
/// `isError: true` is the tool's own refusal: an error result carrying the server's text
/// (`isError` absent or false is a success). The content blocks become parts in their order;
/// a block the harness cannot take is refused by name, never dropped.
pub fn from_mcp_result(result: &Value) -> Result<ToolOutput, ToolError> {
    let blocks = match result.get("content") {
        Some(Value::Array(blocks)) => blocks.as_slice(),
        None => &[],
        Some(_) => {
            return Err(ToolError::refused(
                "the MCP server's result has a `content` that is not a list of blocks",
            ))
        }
    };
    let parts = blocks
        .iter()
        .map(part_of_mcp)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ToolError::refused(format!("the MCP server's result holds {e}")))?;
    if result.get("isError") == Some(&Value::Bool(true)) {
        let text = text_of(&parts);
        return Err(ToolError::refused(if text.is_empty() {
            "the MCP server reported an error without a message".to_owned()
        } else {
            text
        }));
    }
    Ok(ToolOutput::Parts(parts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_error_is_a_refusal_with_the_servers_text() {
        let e = from_mcp_result(
            &json!({"content": [{"type": "text", "text": "no such file"}], "isError": true}),
        )
        .unwrap_err();
        assert_eq!(e.message(), "no such file");
        for ok in [
            json!({"content": [{"type": "text", "text": "done"}]}),
            json!({"content": [{"type": "text", "text": "done"}], "isError": false}),
        ] {
            let Ok(ToolOutput::Parts(parts)) = from_mcp_result(&ok) else {
                panic!("{ok}")
            };
            assert_eq!(parts, vec![Part::Text("done".into())]);
        }
    }

    #[test]
    fn blocks_become_parts_in_order_and_unknown_ones_are_refused_by_name() {
        let Ok(ToolOutput::Parts(parts)) = from_mcp_result(&json!({"content": [
            {"type": "image", "data": "iVBO", "mimeType": "image/png"},
            {"type": "text", "text": "a chart"}
        ]})) else {
            panic!()
        };
        assert_eq!(parts[1], Part::Text("a chart".into()));
        assert!(matches!(&parts[0], Part::Image { data, .. } if data == "iVBO"));
        let e = from_mcp_result(&json!({"content": [{"type": "audio", "data": "x"}]})).unwrap_err();
        assert!(e.message().contains("\"audio\""), "{}", e.message());
    }
}
