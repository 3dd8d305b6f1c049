//! Content blocks: results that carry more than text (SPEC.md "content blocks", "MCP client").
//!
//! A tool can answer with a list of blocks — text, an image, an embedded resource — and a
//! harness that consumes MCP servers gets them inside a raw `CallToolResult`. The same block
//! shape is used three times, so the three cannot drift: in a case (a handler returning
//! blocks, behaviour `content_blocks`; a tool answering with a raw MCP result, feature
//! `mcp-client`) and in a reply (the blocks a result carries, as the harness produced them,
//! normalised by the adapter). The shape is MCP's JSON (`type`, `mimeType`, `resource`),
//! because that is what the most harnesses already hold; an adapter for another result format
//! (Anthropic's `source`, OpenAI's `image_url`) translates block by block, never re-encoding
//! the data.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One content block, in MCP's JSON form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ContentBlock {
    /// Text, shown as is.
    Text {
        /// The text.
        text: String,
    },
    /// An image: base64 data (no `data:` prefix) and its MIME type.
    Image {
        /// The image's bytes, base64 (RFC 4648, with padding).
        data: String,
        /// `image/png`, `image/jpeg`, …
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// An embedded resource (a document, a file): its URI and either text or base64 bytes.
    Resource {
        /// The resource.
        resource: EmbeddedResource,
    },
    /// Audio: base64 data and its MIME type (MCP 2025-03-26; behaviour `audio_blocks`).
    Audio {
        /// The audio's bytes, base64 (RFC 4648, with padding).
        data: String,
        /// `audio/wav`, `audio/mpeg`, …
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A link to a resource the model (or the client) can read later, not its contents (MCP
    /// 2025-06-18; behaviour `resource_link_blocks`).
    ResourceLink(ResourceLink),
    /// An image the runner builds from its description before the case is sent (case files
    /// only: an adapter never receives one, and a reply may not carry one; SPEC.md BLOCK-6).
    SyntheticImage(crate::image::SyntheticImage),
}

/// A [`ContentBlock::ResourceLink`]: MCP's `ResourceLink`, a URI and a name with optional
/// descriptive fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceLink {
    /// Where the resource lives: what the model needs to use the link.
    pub uri: String,
    /// Its name (a file name, an identifier).
    pub name: String,
    /// A title for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type, if known.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// The resource inside a [`ContentBlock::Resource`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmbeddedResource {
    /// Where the resource lives (`file:///…`, `https://…`, a custom scheme).
    pub uri: String,
    /// Its MIME type, if known.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its text, for a text resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Its bytes, base64, for a binary resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

impl ContentBlock {
    /// The block's kind as it appears on the wire (`text`, `image`, `resource`, `audio`,
    /// `resource_link`).
    pub fn kind(&self) -> &'static str {
        match self {
            ContentBlock::Text { .. } => "text",
            ContentBlock::Image { .. } => "image",
            ContentBlock::Resource { .. } => "resource",
            ContentBlock::Audio { .. } => "audio",
            ContentBlock::ResourceLink(_) => "resource_link",
            ContentBlock::SyntheticImage(_) => "synthetic_image",
        }
    }

    /// The behaviour (`behaviors`) an adapter declares to receive and report a block of this
    /// kind, if it needs one: the kinds added after `content_blocks` each have their own, so an
    /// adapter written before them skips their cases instead of failing on them.
    pub fn behavior_need(&self) -> Option<&'static str> {
        match self {
            ContentBlock::Audio { .. } => Some("audio_blocks"),
            ContentBlock::ResourceLink(_) => Some("resource_link_blocks"),
            _ => None,
        }
    }

    /// The text of a text block.
    pub fn text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text { text } => Some(text),
            _ => None,
        }
    }

    /// The base64 payload of an image or a binary resource: what must never become text.
    pub fn payload(&self) -> Option<&str> {
        match self {
            ContentBlock::Image { data, .. } | ContentBlock::Audio { data, .. } => Some(data),
            ContentBlock::Resource { resource } => resource.blob.as_deref(),
            ContentBlock::Text { .. }
            | ContentBlock::ResourceLink(_)
            | ContentBlock::SyntheticImage(_) => None,
        }
    }

    /// Whether a block is well formed: a resource holds exactly one of `text` and `blob`.
    pub fn check(&self) -> Result<(), String> {
        match self {
            ContentBlock::Resource { resource }
                if resource.text.is_some() == resource.blob.is_some() =>
            {
                Err(format!(
                    "the resource {:?} must hold exactly one of `text` and `blob`",
                    resource.uri
                ))
            }
            _ => Ok(()),
        }
    }
}

/// The text blocks of `blocks`, concatenated in order: a result's `content`.
pub fn text_of(blocks: &[ContentBlock]) -> String {
    blocks.iter().filter_map(ContentBlock::text).collect()
}

/// A raw MCP `CallToolResult`, as an MCP server answers `tools/call` (feature `mcp-client`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpResult {
    /// The result's content blocks, in order.
    pub content: Vec<ContentBlock>,
    /// The server's error flag; absent means `false`.
    #[serde(rename = "isError", default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// The structured result, if the server sends one.
    #[serde(
        rename = "structuredContent",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
}

impl McpResult {
    /// Whether the server flagged the result as an error.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_read_mcp_json_strictly() {
        let blocks: Vec<ContentBlock> = serde_json::from_value(json!([
            {"type": "text", "text": "a"},
            {"type": "image", "data": "iVBO", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///r.txt", "mimeType": "text/plain", "text": "r"}},
            {"type": "audio", "data": "UklG", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///r.txt", "name": "r.txt", "size": 1}
        ]))
        .unwrap();
        assert_eq!(
            blocks.iter().map(ContentBlock::kind).collect::<Vec<_>>(),
            ["text", "image", "resource", "audio", "resource_link"]
        );
        assert_eq!(
            blocks
                .iter()
                .filter_map(ContentBlock::behavior_need)
                .collect::<Vec<_>>(),
            ["audio_blocks", "resource_link_blocks"]
        );
        assert_eq!(blocks[3].payload(), Some("UklG"));
        assert_eq!(blocks[4].payload(), None);
        assert_eq!(text_of(&blocks), "a");
        assert_eq!(blocks[1].payload(), Some("iVBO"));
        assert!(blocks.iter().all(|b| b.check().is_ok()));
        for bad in [
            json!({"type": "image", "data": "x"}),
            json!({"type": "image", "data": "x", "mimeType": "image/png", "extra": 1}),
            json!({"type": "audio", "data": "x"}),
            json!({"type": "resource_link", "uri": "file:///r.txt"}),
            json!({"type": "resource_link", "uri": "u", "name": "n", "extra": 1}),
            json!({"type": "video", "data": "x", "mimeType": "video/mp4"}),
        ] {
            assert!(
                serde_json::from_value::<ContentBlock>(bad.clone()).is_err(),
                "{bad}"
            );
        }
        let both: ContentBlock = serde_json::from_value(
            json!({"type": "resource", "resource": {"uri": "u", "text": "t", "blob": "Yg=="}}),
        )
        .unwrap();
        assert!(both.check().is_err());
    }

    #[test]
    fn an_mcp_result_round_trips_and_absent_is_error_is_a_success() {
        let raw = json!({"content": [{"type": "text", "text": "no such file"}], "isError": true});
        let r: McpResult = serde_json::from_value(raw.clone()).unwrap();
        assert!(r.is_error());
        assert_eq!(serde_json::to_value(&r).unwrap(), raw);
        let ok: McpResult = serde_json::from_value(json!({"content": []})).unwrap();
        assert!(!ok.is_error());
    }
}
