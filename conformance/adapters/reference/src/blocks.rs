//! Content blocks between the protocol and harness-ref: a handler's blocks (behaviour
//! `content_blocks`) and a raw MCP result (feature `mcp-client`) as harness-ref outputs, the
//! parts of a result as the reply's `blocks`, and the block faults of `selftest`.
//!
//! harness-ref owns what a multi-part output becomes (`harness_ref::content`); this module only
//! translates shapes, so the reference is judged on the harness's own behaviour. A raw MCP
//! result goes through `harness_ref::from_mcp_result`, the reference's MCP client side, as its
//! JSON: the same bytes an MCP server would answer `tools/call` with.

use harness_conformance_protocol::image::{self, ImageFacts, ImageLimit, SyntheticImage};
use harness_conformance_protocol::{
    ContentBlock, EmbeddedResource, McpResult, ObservedResult, ResourceLink,
};
use harness_ref::{CapConfig, Link, Part, ResourceBody, ToolError, ToolOutput};

use crate::fault::Fault;
use crate::variant::Variant;

/// A protocol block as a harness-ref part.
pub(crate) fn part_of(block: &ContentBlock) -> Part {
    match block {
        ContentBlock::Text { text } => Part::Text(text.clone()),
        ContentBlock::Image { data, mime_type } => Part::Image {
            media_type: mime_type.clone(),
            data: data.clone(),
        },
        ContentBlock::Resource { resource } => Part::Resource {
            uri: resource.uri.clone(),
            mime_type: resource.mime_type.clone(),
            body: match (&resource.text, &resource.blob) {
                (Some(text), _) => ResourceBody::Text(text.clone()),
                (None, blob) => ResourceBody::Blob(blob.clone().unwrap_or_default()),
            },
        },
        ContentBlock::Audio { data, mime_type } => Part::Audio {
            media_type: mime_type.clone(),
            data: data.clone(),
        },
        ContentBlock::ResourceLink(link) => Part::ResourceLink(Link {
            uri: link.uri.clone(),
            name: link.name.clone(),
            title: link.title.clone(),
            description: link.description.clone(),
            mime_type: link.mime_type.clone(),
            size: link.size,
        }),
        // The runner builds these before a case is sent; one that got here anyway is shown
        // as the image it describes.
        ContentBlock::SyntheticImage(spec) => match spec.block() {
            Ok(built) => part_of(&built),
            Err(e) => Part::Text(format!("[synthetic image: {e}]")),
        },
    }
}

/// A harness-ref part as a protocol block (for the reply's `blocks`).
pub(crate) fn block_of(part: &Part) -> ContentBlock {
    match part {
        Part::Image { media_type, data } => ContentBlock::Image {
            data: data.clone(),
            mime_type: media_type.clone(),
        },
        Part::Resource {
            uri,
            mime_type,
            body,
        } => {
            let (text, blob) = match body {
                ResourceBody::Text(t) => (Some(t.clone()), None),
                ResourceBody::Blob(b) => (None, Some(b.clone())),
            };
            ContentBlock::Resource {
                resource: EmbeddedResource {
                    uri: uri.clone(),
                    mime_type: mime_type.clone(),
                    text,
                    blob,
                },
            }
        }
        Part::Audio { media_type, data } => ContentBlock::Audio {
            data: data.clone(),
            mime_type: media_type.clone(),
        },
        Part::ResourceLink(link) => ContentBlock::ResourceLink(ResourceLink {
            uri: link.uri.clone(),
            name: link.name.clone(),
            title: link.title.clone(),
            description: link.description.clone(),
            mime_type: link.mime_type.clone(),
            size: link.size,
        }),
        // `Part` is non-exhaustive: a text part, or any kind added later, shows its text.
        other => ContentBlock::Text {
            text: other.text().unwrap_or_default().to_owned(),
        },
    }
}

/// A handler that returned blocks, as harness-ref's output (with the block faults applied).
pub(crate) fn blocks_output(
    blocks: &[ContentBlock],
    fault: Option<Fault>,
) -> Result<ToolOutput, ToolError> {
    throw_on_unknown_kind(blocks, fault)?;
    Ok(ToolOutput::Parts(perturb_parts(
        blocks.iter().map(part_of).collect(),
        fault,
    )))
}

/// `throws-on-unknown-block-kind`: a converter that knows text, images and embedded resources
/// throws on any other kind, and the whole result — its text too — is lost to an internal
/// error that does not say what was refused (kirodotdev/Kiro #8960).
fn throw_on_unknown_kind(blocks: &[ContentBlock], fault: Option<Fault>) -> Result<(), ToolError> {
    if fault != Some(Fault::ThrowsOnUnknownBlockKind) {
        return Ok(());
    }
    match blocks.iter().find(|b| {
        !matches!(
            b,
            ContentBlock::Text { .. } | ContentBlock::Image { .. } | ContentBlock::Resource { .. }
        )
    }) {
        Some(b) => Err(ToolError::internal(format!(
            "unexpected content block type {:?}",
            b.kind()
        ))),
        None => Ok(()),
    }
}

/// A tool answered by an MCP server with `result`: harness-ref's MCP client side.
pub(crate) fn mcp_output(
    result: &McpResult,
    fault: Option<Fault>,
) -> Result<ToolOutput, ToolError> {
    throw_on_unknown_kind(&result.content, fault)?;
    let mut result = result.clone();
    if fault == Some(Fault::IgnoresMcpIsError) {
        // The client reads `content` and never looks at the flag.
        result.is_error = None;
    }
    let json = serde_json::to_value(&result).map_err(|e| ToolError::internal(e.to_string()))?;
    match harness_ref::from_mcp_result(&json)? {
        ToolOutput::Parts(parts) => Ok(ToolOutput::Parts(perturb_parts(parts, fault))),
        other => Ok(other),
    }
}

/// The handler-side block faults.
fn perturb_parts(parts: Vec<Part>, fault: Option<Fault>) -> Vec<Part> {
    match fault {
        Some(Fault::ReplacesBlocksWithPlaceholders) => parts
            .into_iter()
            .map(|p| match p {
                Part::Image { .. } => Part::Text("[image]".into()),
                Part::Resource { .. } => Part::Text("[resource]".into()),
                other => other,
            })
            .collect(),
        Some(Fault::FlattensBlocksToText) => parts
            .into_iter()
            .map(|p| match p {
                Part::Image { media_type, data } => {
                    Part::Text(format!("data:{media_type};base64,{data}"))
                }
                Part::Resource {
                    mime_type,
                    body: ResourceBody::Blob(data),
                    ..
                } => Part::Text(format!(
                    "data:{};base64,{data}",
                    mime_type.as_deref().unwrap_or("application/octet-stream")
                )),
                other => other,
            })
            .collect(),
        Some(Fault::DropsResourceLinks) => parts
            .into_iter()
            .filter(|p| !matches!(p, Part::ResourceLink(_)))
            .collect(),
        Some(Fault::RendersLinksWithoutUri) => parts
            .into_iter()
            .map(|p| match p {
                Part::ResourceLink(link) => {
                    Part::Text(format!("[{}]", link.title.as_deref().unwrap_or(&link.name)))
                }
                other => other,
            })
            .collect(),
        Some(Fault::MovesBlocksAfterText) => {
            let (text, other): (Vec<Part>, Vec<Part>) =
                parts.into_iter().partition(|p| p.text().is_some());
            text.into_iter().chain(other).collect()
        }
        _ => parts,
    }
}

/// The result-side block fault: `caps-block-payloads` counts each payload's base64 against the
/// cap with the text and cuts the data to whatever room the text left (at least 8 chars).
pub(crate) fn perturb_result(o: &mut ObservedResult, fault: Option<Fault>, cap: &CapConfig) {
    if fault != Some(Fault::CapsBlockPayloads) {
        return;
    }
    let Some(blocks) = o.blocks.as_mut() else {
        return;
    };
    let text: usize = blocks
        .iter()
        .filter_map(ContentBlock::text)
        .map(str::len)
        .sum();
    let payload: usize = blocks
        .iter()
        .filter_map(|b| b.payload())
        .map(str::len)
        .sum();
    if text + payload <= cap.limit {
        return;
    }
    let room = cap.limit.saturating_sub(text).max(8);
    for block in blocks.iter_mut() {
        match block {
            ContentBlock::Image { data, .. } if data.len() > room => data.truncate(room),
            ContentBlock::Resource { resource } => {
                if let Some(blob) = resource.blob.as_mut() {
                    blob.truncate(room.min(blob.len()));
                }
            }
            _ => {}
        }
    }
}

/// The legitimate block variants: `refuses-non-text-blocks` refuses an output holding an
/// image, a resource, audio or a resource link, naming the kind, as a text-only client does;
/// `renders-links-as-text` gives a resource link to the model as a text block keeping its URI
/// and name (harness-ref's own text for the API), as a harness without link blocks may.
pub(crate) fn refuse_non_text_in(
    out: ToolOutput,
    variant: Option<Variant>,
) -> Result<ToolOutput, ToolError> {
    if variant == Some(Variant::RendersLinksAsText) {
        return Ok(match out {
            ToolOutput::Parts(parts) => ToolOutput::Parts(
                parts
                    .into_iter()
                    .map(|p| match p {
                        Part::ResourceLink(link) => Part::Text(link.to_text()),
                        other => other,
                    })
                    .collect(),
            ),
            other => other,
        });
    }
    if variant != Some(Variant::RefusesNonTextBlocks) {
        return Ok(out);
    }
    if let ToolOutput::Parts(parts) = &out {
        let kind = parts.iter().find_map(|p| match p {
            Part::Image { .. } => Some("image"),
            Part::Resource { .. } => Some("embedded resource"),
            Part::Audio { .. } => Some("audio"),
            Part::ResourceLink(_) => Some("resource link"),
            _ => None,
        });
        if let Some(kind) = kind {
            return Err(ToolError::refused(format!(
                "the tool returned {kind} content, which is not supported here: only text reaches the model"
            )));
        }
    }
    Ok(out)
}

/// The model provider's image limit a case configures (`config.image_limit`), or the
/// Messages API's, as harness-ref applies it; `passes-oversized-images`,
/// `drops-oversized-images` and `reduces-oversized-images` apply none in harness-ref (the
/// first sends the image on, the other two act on the result, [`limit_images`]).
pub(crate) fn image_limit(
    limit: Option<&ImageLimit>,
    fault: Option<Fault>,
    variant: Option<Variant>,
) -> harness_ref::ImageLimit {
    if matches!(
        fault,
        Some(Fault::PassesOversizedImages | Fault::DropsOversizedImages)
    ) || variant == Some(Variant::ReducesOversizedImages)
    {
        return harness_ref::ImageLimit::NONE;
    }
    match limit {
        Some(l) => harness_ref::ImageLimit {
            max_width: l.max_width,
            max_height: l.max_height,
            max_base64_bytes: l.max_base64_bytes,
        },
        None => harness_ref::ImageLimit::MESSAGES_API,
    }
}

/// The result-side image faults and the reducing variant, on images over `limit` (the
/// case's, or the Messages API's): `drops-oversized-images` removes them from a success;
/// `reduces-oversized-images` replaces each by a picture scaled down to fit, followed by a
/// text note that says so.
pub(crate) fn limit_images(
    o: &mut ObservedResult,
    fault: Option<Fault>,
    variant: Option<Variant>,
    limit: Option<&ImageLimit>,
) {
    let drops = fault == Some(Fault::DropsOversizedImages);
    let reduces = variant == Some(Variant::ReducesOversizedImages);
    let (Some(blocks), true) = (o.blocks.as_mut(), drops || reduces) else {
        return;
    };
    let limit = limit.copied().unwrap_or(ImageLimit {
        max_width: Some(8000),
        max_height: Some(8000),
        max_base64_bytes: Some(5 * 1024 * 1024),
    });
    let mut out = Vec::with_capacity(blocks.len());
    for block in blocks.drain(..) {
        let over = match &block {
            ContentBlock::Image { data, .. } => image::facts(data)
                .ok()
                .filter(|f| limit.breaches(f).is_some()),
            _ => None,
        };
        match over {
            None => out.push(block),
            Some(_) if drops => {}
            Some(f) => {
                let (reduced, (w, h)) = reduce(&f, &limit);
                out.push(reduced);
                out.push(ContentBlock::Text {
                    text: format!(
                        "\n[image resized from {} × {} pixels ({} bytes of base64) to {w} × {h} pixels to fit the model provider's image limit]",
                        f.width, f.height, f.base64_bytes
                    ),
                });
            }
        }
    }
    o.content = harness_conformance_protocol::text_of(&out);
    *blocks = out;
}

/// A picture of `f`'s proportions scaled down to fit `limit`, and its size.
fn reduce(f: &ImageFacts, limit: &ImageLimit) -> (ContentBlock, (u32, u32)) {
    let bound = |max: Option<u64>, got: u64| max.map_or(1.0, |m| m as f64 / got.max(1) as f64);
    let scale = bound(limit.max_width, f.width)
        .min(bound(limit.max_height, f.height))
        .min(1.0);
    let mut size = (
        ((f.width as f64 * scale) as u32).max(1),
        ((f.height as f64 * scale) as u32).max(1),
    );
    loop {
        let spec = SyntheticImage {
            width: size.0,
            height: size.1,
            bytes: None,
        };
        let block = spec.block().unwrap_or(ContentBlock::Image {
            data: String::new(),
            mime_type: "image/png".into(),
        });
        let fits = match &block {
            ContentBlock::Image { data, .. } => {
                image::facts(data).is_ok_and(|g| limit.breaches(&g).is_none())
            }
            _ => false,
        };
        if fits || size == (1, 1) {
            return (block, size);
        }
        size = ((size.0 / 2).max(1), (size.1 / 2).max(1));
    }
}

/// `oversized-image-poisons-later-calls`: whether `o` is harness-ref's refusal of an image
/// over the provider's limit (after which the fault fails every later call of the turn).
pub(crate) fn refused_oversized_image(o: &ObservedResult) -> bool {
    o.is_error
        && o.content
            .contains("the image is too large for the model provider")
}
