//! Multi-part results: text, images, embedded resources, audio and resource links, and the MCP
//! client side.
//!
//! A tool may answer with parts instead of one text ([`crate::ToolOutput::Parts`]). The harness
//! delivers each part as a block of its kind — the Anthropic `tool_result` content allows text,
//! image and document blocks — in the handler's order, never turning an image into text or a
//! placeholder. The cap applies to text: each text part is capped on its own (an image is not
//! text and is never cut, so a payload can never be split). An image of a media type the
//! Messages API does not take is refused as `invalid_tool_output`, with a message naming the
//! type, rather than sent to fail at the API; so is audio, which a `tool_result` cannot carry.
//! A resource link (MCP 2025-06-18) stays a part of its own, and goes to the API as a text
//! block that keeps its URI and name (the API has no link block): the model can still use the
//! link, and nothing of it is dropped.
//!
//! An image over the model provider's limits ([`ImageLimit`]: the Messages API refuses an image
//! whose base64 is over 5 MB or whose side is over 8000 pixels, and a transcript holding one is
//! refused on every later turn too) is refused for its call, as `invalid_tool_output` with a
//! message that says which bound it breaks and what to do, so the next request carries an error
//! result instead of an image the provider rejects (anthropics/claude-code #46656). Dimensions
//! are read from the image's header; an image whose header cannot be read is judged by its size
//! alone (the provider decides what it can decode).
//!
//! [`from_mcp_result`] is the MCP client side: a server's `CallToolResult` (its JSON) as a
//! handler's outcome — `isError: true` is the tool's refusal carrying the server's text, and
//! otherwise the content blocks become parts, unchanged.

use base64::Engine as _;
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
    /// Audio: its media type and its bytes as base64 (refused: a `tool_result` takes no audio).
    Audio {
        /// `audio/wav`, `audio/mpeg`, …
        media_type: String,
        /// Base64 (RFC 4648).
        data: String,
    },
    /// A link to a resource, not its contents (MCP's `resource_link`).
    ResourceLink(Link),
}

/// A resource link: MCP's `ResourceLink` fields.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Link {
    /// Where the resource lives.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A title for display.
    pub title: Option<String>,
    /// What it is.
    pub description: Option<String>,
    /// Its MIME type.
    pub mime_type: Option<String>,
    /// Its size in bytes.
    pub size: Option<u64>,
}

impl Link {
    /// The link as the text the model reads where no link block exists: its name (and title),
    /// its URI, and whatever else the server said of it.
    pub fn to_text(&self) -> String {
        let mut out = format!("resource link {:?}", self.name);
        if let Some(title) = &self.title {
            out.push_str(&format!(" ({title})"));
        }
        out.push_str(&format!(": {}", self.uri));
        let facts: Vec<String> = [
            self.mime_type.clone(),
            self.size.map(|n| format!("{n} bytes")),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !facts.is_empty() {
            out.push_str(&format!(" [{}]", facts.join(", ")));
        }
        if let Some(description) = &self.description {
            out.push_str(&format!(" — {description}"));
        }
        out
    }
}

/// What an embedded resource holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceBody {
    /// Text.
    Text(String),
    /// Bytes, base64.
    Blob(String),
}

/// A model provider's limits on one image. Each bound is inclusive; `None` is no bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImageLimit {
    /// The widest image, in pixels.
    pub max_width: Option<u64>,
    /// The highest image, in pixels.
    pub max_height: Option<u64>,
    /// The longest base64 text of one image, in bytes (what the Messages API counts).
    pub max_base64_bytes: Option<u64>,
}

impl ImageLimit {
    /// The Messages API's: 8000 × 8000 pixels, 5 MiB of base64 (`image exceeds 5 MB maximum:
    /// … bytes > 5242880 bytes`, anthropics/claude-code #14887).
    pub const MESSAGES_API: ImageLimit = ImageLimit {
        max_width: Some(8000),
        max_height: Some(8000),
        max_base64_bytes: Some(5 * 1024 * 1024),
    };

    /// No limit.
    pub const NONE: ImageLimit = ImageLimit {
        max_width: None,
        max_height: None,
        max_base64_bytes: None,
    };

    /// Why the base64 image `data` is over the limit, if it is: each bound it breaks.
    pub fn breaches(&self, data: &str) -> Option<String> {
        let size = base64::engine::general_purpose::STANDARD
            .decode(data)
            .ok()
            .and_then(|bytes| imagesize::blob_size(&bytes).ok());
        let mut over = Vec::new();
        if let Some(size) = size {
            for (max, got, side) in [
                (self.max_width, size.width as u64, "wide"),
                (self.max_height, size.height as u64, "high"),
            ] {
                if let Some(max) = max.filter(|m| got > *m) {
                    over.push(format!("{got} pixels {side}, over the {max} allowed"));
                }
            }
        }
        if let Some(max) = self.max_base64_bytes.filter(|m| data.len() as u64 > *m) {
            over.push(format!(
                "{} bytes of base64, over the {max} allowed",
                data.len()
            ));
        }
        (!over.is_empty()).then(|| over.join(" and "))
    }
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

    /// Why the harness cannot deliver this part to a provider with the image limit `limit`,
    /// if it cannot.
    pub(crate) fn unsupported(&self, limit: &ImageLimit) -> Option<String> {
        match self {
            Part::Image { data, .. } if limit.breaches(data).is_some() => Some(format!(
                "the image is too large for the model provider ({}); ask for a smaller one (a lower resolution or a crop) if the tool can give it",
                limit.breaches(data).unwrap_or_default()
            )),
            Part::Image { media_type, .. } if !IMAGE_TYPES.contains(&media_type.as_str()) => {
                Some(format!(
                    "an image of type {media_type:?} is not supported (supported: {})",
                    IMAGE_TYPES.join(", ")
                ))
            }
            Part::Audio { media_type, .. } => Some(format!(
                "audio content ({media_type:?}) is not supported: a tool result can carry text, images and documents"
            )),
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
            Part::ResourceLink(link) => json!({"type": "text", "text": link.to_text()}),
            // Refused before delivery ([`Part::unsupported`]); shown as what it is if asked.
            Part::Audio { media_type, .. } => {
                json!({"type": "text", "text": format!("[audio content ({media_type}) not delivered]")})
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
        Some("audio") => match (field("mimeType"), field("data")) {
            (Some(media_type), Some(data)) => Ok(Part::Audio { media_type, data }),
            _ => Err("an audio block without `data` and `mimeType`".to_owned()),
        },
        Some("resource_link") => match (field("uri"), field("name")) {
            (Some(uri), Some(name)) => Ok(Part::ResourceLink(Link {
                uri,
                name,
                title: field("title"),
                description: field("description"),
                mime_type: field("mimeType"),
                size: block.get("size").and_then(Value::as_u64),
            })),
            _ => Err("a resource_link block without `uri` and `name`".to_owned()),
        },
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

    /// A PNG header (signature and IHDR chunk) for an image of `w` × `h` pixels, base64.
    fn png_header(w: u32, h: u32) -> String {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&w.to_be_bytes());
        png.extend_from_slice(&h.to_be_bytes());
        png.extend_from_slice(&[8, 0, 0, 0, 0, 0, 0, 0, 0]);
        base64::engine::general_purpose::STANDARD.encode(png)
    }

    #[test]
    fn an_image_over_the_providers_limit_is_refused_saying_which_bound() {
        let image = |w, h| Part::Image {
            media_type: "image/png".into(),
            data: png_header(w, h),
        };
        let limit = ImageLimit {
            max_width: Some(2000),
            max_height: Some(2000),
            max_base64_bytes: None,
        };
        assert_eq!(image(2000, 2000).unsupported(&limit), None);
        let why = image(3000, 10).unsupported(&limit).unwrap();
        assert!(
            why.contains("3000 pixels wide, over the 2000 allowed"),
            "{why}"
        );
        assert!(why.contains("a smaller one"), "{why}");
        let tight = ImageLimit {
            max_base64_bytes: Some(10),
            ..ImageLimit::NONE
        };
        assert!(image(1, 1)
            .unsupported(&tight)
            .unwrap()
            .contains("bytes of base64"));
        assert_eq!(image(9000, 1).unsupported(&ImageLimit::NONE), None);
        // A header that cannot be read is judged by its size alone.
        let odd = Part::Image {
            media_type: "image/png".into(),
            data: "iVBO".into(),
        };
        assert_eq!(odd.unsupported(&ImageLimit::MESSAGES_API), None);
    }

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
        let e = from_mcp_result(&json!({"content": [{"type": "video", "data": "x"}]})).unwrap_err();
        assert!(e.message().contains("\"video\""), "{}", e.message());
    }

    #[test]
    fn a_resource_link_keeps_its_uri_and_name_on_the_way_to_the_api() {
        let Ok(ToolOutput::Parts(parts)) = from_mcp_result(&json!({"content": [
            {"type": "text", "text": "1 match"},
            {"type": "resource_link", "uri": "file:///src/main.rs", "name": "main.rs", "mimeType": "text/x-rust", "size": 120}
        ]})) else {
            panic!()
        };
        let Part::ResourceLink(link) = &parts[1] else {
            panic!("{parts:?}")
        };
        assert_eq!(
            (link.uri.as_str(), link.size),
            ("file:///src/main.rs", Some(120))
        );
        let block = parts[1].to_block();
        let text = block["text"].as_str().unwrap();
        assert!(
            text.contains("file:///src/main.rs") && text.contains("main.rs"),
            "{text}"
        );
        let audio = Part::Audio {
            media_type: "audio/wav".into(),
            data: "UklG".into(),
        };
        assert!(audio
            .unsupported(&ImageLimit::MESSAGES_API)
            .unwrap()
            .contains("audio"));
    }
}
