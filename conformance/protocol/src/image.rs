//! Images built from a description, and the limits a model provider puts on images (SPEC.md
//! BLOCK-6).
//!
//! A case about an image too large for the provider describes it — `{"type":
//! "synthetic_image", "width": 3000, "height": 16, "bytes": 40000}` — and the runner builds it
//! before the case leaves for the adapter ([`crate::resolve_case_with`]), so the corpus commits
//! no base64 and every adapter receives an ordinary image block. The image is a real PNG that
//! any decoder reads (a 1-bit grayscale picture, stored without compression, padded to `bytes`
//! with a `tEXt` comment chunk), so a harness that resizes oversized images can resize it.
//!
//! [`ImageLimit`] is the provider's limit a case configures (`config.image_limit`, feature
//! `image-limits`); [`facts`] reads what an image block holds (its base64 length and pixel
//! dimensions from its header, without decoding the pixels) for the runner's check and for any
//! Rust harness that enforces a limit.

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::generate::{GenError, MAX_GENERATED_SIZE};

/// A PNG the runner builds: so many pixels wide and high, optionally padded to `bytes` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyntheticImage {
    /// Width in pixels (at least 1).
    pub width: u32,
    /// Height in pixels (at least 1).
    pub height: u32,
    /// The file's size in bytes, reached with a comment chunk; absent: as small as the pixels
    /// allow. Below that size is a case error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
}

/// The image limits of a model provider, as a case configures them (`config.image_limit`).
/// Each bound is inclusive; an absent one is not limited.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageLimit {
    /// The largest width in pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_width: Option<u64>,
    /// The largest height in pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_height: Option<u64>,
    /// The longest base64 text of one image (the Messages API counts the base64 data, not
    /// the decoded bytes: `image exceeds 5 MB maximum: 5316852 bytes > 5242880 bytes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_base64_bytes: Option<u64>,
}

/// What an image block holds, as far as a provider's limits are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageFacts {
    /// Width in pixels, from the image's header.
    pub width: u64,
    /// Height in pixels.
    pub height: u64,
    /// The length of its base64 text.
    pub base64_bytes: u64,
}

impl ImageLimit {
    /// Why an image with these facts is over the limit (each bound it breaks), or `None`.
    pub fn breaches(&self, f: &ImageFacts) -> Option<String> {
        let over: Vec<String> = [
            (self.max_width, f.width, "wide", "pixels"),
            (self.max_height, f.height, "high", "pixels"),
            (self.max_base64_bytes, f.base64_bytes, "of base64", "bytes"),
        ]
        .into_iter()
        .filter_map(|(max, got, what, unit)| {
            max.filter(|m| got > *m)
                .map(|m| format!("{got} {unit} {what} > {m}"))
        })
        .collect();
        (!over.is_empty()).then(|| over.join(", "))
    }
}

/// The facts of a base64 image, or why they cannot be read (not base64, no image header the
/// reader knows). Line breaks in the base64 (MIME-style wrapping) are read past; they count in
/// its length, as the provider counts them.
pub fn facts(data: &str) -> Result<ImageFacts, String> {
    let compact: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(compact)
        .map_err(|e| format!("its data is not base64: {e}"))?;
    let size = imagesize::blob_size(&bytes)
        .map_err(|e| format!("its dimensions cannot be read from its header: {e}"))?;
    Ok(ImageFacts {
        width: size.width as u64,
        height: size.height as u64,
        base64_bytes: data.len() as u64,
    })
}

/// The most pixel data (bytes, one bit a pixel) a synthetic image may hold: 4 MiB.
const MAX_PIXEL_BYTES: u64 = 4 << 20;

impl SyntheticImage {
    /// The PNG's bytes.
    pub fn png(&self) -> Result<Vec<u8>, GenError> {
        if self.width == 0 || self.height == 0 {
            return Err(GenError::EmptyImage);
        }
        // One filter byte and ceil(width / 8) bytes a row, every pixel black.
        let row = 1 + u64::from(self.width).div_ceil(8);
        let raw_len = row.saturating_mul(u64::from(self.height));
        if raw_len > MAX_PIXEL_BYTES {
            return Err(GenError::TooLarge(raw_len));
        }
        let raw = vec![0u8; raw_len as usize];
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        let mut ihdr = Vec::with_capacity(13);
        ihdr.extend_from_slice(&self.width.to_be_bytes());
        ihdr.extend_from_slice(&self.height.to_be_bytes());
        // Bit depth 1, colour type 0 (grayscale), deflate, filter method 0, no interlace.
        ihdr.extend_from_slice(&[1, 0, 0, 0, 0]);
        chunk(&mut png, b"IHDR", &ihdr);
        let idat = zlib_stored(&raw);
        let natural = png.len() as u64 + 12 + idat.len() as u64 + 12;
        if let Some(want) = self.bytes {
            if want > MAX_GENERATED_SIZE {
                return Err(GenError::TooLarge(want));
            }
            // A tEXt chunk ("Comment", a NUL, filler): 12 bytes of framing, 8 of keyword.
            let framing = 12 + 8;
            if want < natural + framing && want != natural {
                return Err(GenError::ImageBytes {
                    asked: want,
                    least: natural,
                });
            }
            if want > natural {
                let mut text = b"Comment\0".to_vec();
                text.resize((want - natural - 12) as usize, b'x');
                chunk(&mut png, b"tEXt", &text);
            }
        }
        chunk(&mut png, b"IDAT", &idat);
        chunk(&mut png, b"IEND", &[]);
        Ok(png)
    }

    /// The image as an ordinary image block (`image/png`, base64).
    pub fn block(&self) -> Result<crate::ContentBlock, GenError> {
        Ok(crate::ContentBlock::Image {
            data: base64::engine::general_purpose::STANDARD.encode(self.png()?),
            mime_type: "image/png".into(),
        })
    }
}

/// Appends one PNG chunk: length, type, data, CRC-32 of type and data.
fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    png.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = png.len();
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    let crc = crc32(&png[start..]);
    png.extend_from_slice(&crc.to_be_bytes());
}

/// `data` as a zlib stream of stored (uncompressed) deflate blocks (RFC 1950, RFC 1951 3.2.4).
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let mut blocks = data.chunks(0xFFFF).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xFF, 0xFF]);
    }
    while let Some(block) = blocks.next() {
        out.push(u8::from(blocks.peek().is_none()));
        let len = block.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    out.extend_from_slice(&((b << 16) | a).to_be_bytes());
    out
}

/// CRC-32 (ISO 3309, the PNG polynomial), bit by bit: synthetic images are small.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts_of(spec: SyntheticImage) -> ImageFacts {
        let crate::ContentBlock::Image { data, .. } = spec.block().unwrap() else {
            panic!()
        };
        facts(&data).unwrap()
    }

    #[test]
    fn a_synthetic_png_has_the_described_dimensions_and_size() {
        let f = facts_of(SyntheticImage {
            width: 3000,
            height: 16,
            bytes: None,
        });
        assert_eq!((f.width, f.height), (3000, 16));
        let png = SyntheticImage {
            width: 40,
            height: 30,
            bytes: Some(5000),
        }
        .png()
        .unwrap();
        assert_eq!(png.len(), 5000);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // The IHDR chunk's CRC is the one every PNG of this header carries.
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
        assert_eq!(&png[png.len() - 12..], b"\0\0\0\0IEND\xae\x42\x60\x82");
    }

    #[test]
    fn impossible_images_are_refused() {
        let e = |w, h, b| {
            SyntheticImage {
                width: w,
                height: h,
                bytes: b,
            }
            .png()
            .unwrap_err()
        };
        assert_eq!(e(0, 5, None), GenError::EmptyImage);
        assert!(matches!(e(4, 4, Some(10)), GenError::ImageBytes { .. }));
        assert!(matches!(e(100_000, 100_000, None), GenError::TooLarge(_)));
    }

    #[test]
    fn a_limit_names_each_bound_an_image_breaks() {
        let limit = ImageLimit {
            max_width: Some(2000),
            max_height: None,
            max_base64_bytes: Some(100),
        };
        let f = ImageFacts {
            width: 3000,
            height: 9000,
            base64_bytes: 100,
        };
        assert_eq!(
            limit.breaches(&f).as_deref(),
            Some("3000 pixels wide > 2000")
        );
        assert_eq!(
            limit.breaches(&ImageFacts { width: 2000, ..f }),
            None,
            "bounds are inclusive"
        );
        assert!(facts("not base64!").is_err());
        assert!(facts("aGVsbG8=").unwrap_err().contains("header"));
    }
}
