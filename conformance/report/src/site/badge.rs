//! Badges: a harness's MUST and SHOULD scores as SVG images the site serves itself, and as
//! shields.io endpoint documents (<https://shields.io/badges/endpoint-badge>) for READMEs that
//! prefer shields' rendering.
//!
//! The SVG is drawn here (shields' flat style, text widths from a table of Verdana's advance
//! widths) so a README badge needs nothing but the published site. Its text is the site's own
//! (`MUST`, `84%`, `no handshake`): no adapter string reaches a badge. The colour scale never
//! shows green below 100%: a MUST badge at 95% means a MUST fails, and must not read as a pass.

use harness_conformance_suite::spec::Level;

use super::percent;
use crate::{escape, Report};

/// A badge's text and colour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Badge {
    /// `MUST` or `SHOULD`.
    pub label: &'static str,
    /// `84%`, `not tested`, `no handshake`.
    pub message: String,
    /// The shields.io colour name.
    pub color: &'static str,
}

impl Badge {
    /// The badge of a report at a level.
    pub fn of(report: &Report, level: Level) -> Badge {
        let label = level.as_str();
        if report.run.handshake_error.is_some() {
            return Badge {
                label,
                message: "no handshake".to_owned(),
                color: "red",
            };
        }
        match percent(report, level) {
            None => Badge {
                label,
                message: "not tested".to_owned(),
                color: "lightgrey",
            },
            Some(p) => Badge {
                label,
                message: format!("{p}%"),
                color: match p {
                    100 => "brightgreen",
                    90..=99 => "yellow",
                    50..=89 => "orange",
                    _ => "red",
                },
            },
        }
    }

    /// The shields.io endpoint JSON.
    pub fn endpoint(&self) -> String {
        let v = serde_json::json!({
            "schemaVersion": 1,
            "label": self.label,
            "message": self.message,
            "color": self.color,
        });
        format!("{v}\n")
    }

    /// The alt text (`MUST 84%`).
    pub fn alt(&self) -> String {
        format!("{} {}", self.label, self.message)
    }

    /// The badge as an SVG image (shields' flat style).
    pub fn svg(&self) -> String {
        let fill = match self.color {
            "brightgreen" => "#4c1",
            "yellow" => "#dfb317",
            "orange" => "#fe7d37",
            "red" => "#e05d44",
            _ => "#9f9f9f",
        };
        let (label, message) = (escape::xml(self.label), escape::xml(&self.message));
        let lw = text_width(self.label) + 10;
        let mw = text_width(&self.message) + 10;
        let w = lw + mw;
        // Text is drawn at 10x and scaled down, as shields does, for sub-pixel placement.
        let (lx, mx) = (lw * 5, lw * 10 + mw * 5);
        let (ltl, mtl) = ((lw - 10) * 10, (mw - 10) * 10);
        let alt = escape::xml(&self.alt());
        format!(
            concat!(
                r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="20" role="img" aria-label="{alt}">"##,
                r##"<title>{alt}</title>"##,
                r##"<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>"##,
                r##"<clipPath id="r"><rect width="{w}" height="20" rx="3" fill="#fff"/></clipPath>"##,
                r##"<g clip-path="url(#r)"><rect width="{lw}" height="20" fill="#555"/><rect x="{lw}" width="{mw}" height="20" fill="{fill}"/><rect width="{w}" height="20" fill="url(#s)"/></g>"##,
                r##"<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110">"##,
                r##"<text x="{lx}" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="{ltl}">{label}</text>"##,
                r##"<text x="{lx}" y="140" transform="scale(.1)" textLength="{ltl}">{label}</text>"##,
                r##"<text x="{mx}" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="{mtl}">{message}</text>"##,
                r##"<text x="{mx}" y="140" transform="scale(.1)" textLength="{mtl}">{message}</text>"##,
                "</g></svg>\n"
            ),
            w = w,
            alt = alt,
            lw = lw,
            mw = mw,
            fill = fill,
            lx = lx,
            mx = mx,
            ltl = ltl,
            mtl = mtl,
            label = label,
            message = message,
        )
    }
}

/// The width of `text` in Verdana 11px, in whole pixels, rounded up: the advance widths of the
/// characters badges use, and a wide default for anything else.
fn text_width(text: &str) -> u32 {
    let tenths: u32 = text
        .chars()
        .map(|c| match c {
            'i' | 'l' | 'j' | '.' | ',' | ':' | ';' | '!' | '|' | '\'' => 35,
            ' ' => 39,
            'f' | 't' | 'r' | 'I' => 50,
            '0'..='9' => 70,
            '%' => 122,
            'm' | 'w' => 107,
            'M' | 'W' => 95,
            'a'..='z' => 66,
            'A'..='Z' => 77,
            _ => 90,
        })
        .sum();
    tenths.div_ceil(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_badge_is_an_svg_with_its_text_and_a_width_that_fits_it() {
        let b = Badge {
            label: "MUST",
            message: "84%".to_owned(),
            color: "orange",
        };
        let svg = b.svg();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.contains("<title>MUST 84%</title>") && svg.contains("#fe7d37"));
        let long = Badge {
            message: "no handshake".to_owned(),
            ..b.clone()
        };
        let width = |s: &str| -> u32 {
            let at = s.find("width=\"").unwrap() + 7;
            s[at..s[at..].find('"').unwrap() + at].parse().unwrap()
        };
        assert!(width(&long.svg()) > width(&svg));
    }
}
