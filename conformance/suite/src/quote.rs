//! Bounded quoting of text for reports.
//!
//! Every failure message says what was expected and what the harness returned. Returned text
//! can be megabytes, so it is quoted with its head and tail and its full length, never whole.

/// How many chars of text a quote shows at most (head and tail together).
pub const QUOTE_CHARS: usize = 240;

/// `text` as a Rust-style escaped string, cut in the middle when longer than [`QUOTE_CHARS`].
pub fn quote(text: &str) -> String {
    quote_n(text, QUOTE_CHARS)
}

/// Like [`quote`] with a custom bound.
pub fn quote_n(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return format!("{text:?}");
    }
    let head_n = max * 2 / 3;
    let tail_n = max - head_n;
    // Found from each end, so quoting a 60 MiB result walks 240 chars, not all of them.
    let head_end = text
        .char_indices()
        .nth(head_n)
        .map_or(text.len(), |(i, _)| i);
    let tail_start = match tail_n {
        0 => text.len(),
        _ => text
            .char_indices()
            .rev()
            .nth(tail_n - 1)
            .map_or(0, |(i, _)| i),
    };
    let (head, tail) = (&text[..head_end], &text[tail_start..]);
    format!(
        "{head:?} … {tail:?} ({n} chars, {} bytes in all)",
        text.len()
    )
}

/// A JSON value, compact, bounded like [`quote`] (without the surrounding quotes).
pub fn quote_json(value: &serde_json::Value) -> String {
    let text = value.to_string();
    let n = text.chars().count();
    if n <= QUOTE_CHARS {
        return text;
    }
    let head: String = text.chars().take(QUOTE_CHARS).collect();
    format!("{head} … ({n} chars in all)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_keeps_head_tail_and_length() {
        let text = format!("HEAD{}TAIL", "x".repeat(10_000));
        let q = quote(&text);
        assert!(q.starts_with("\"HEAD"));
        assert!(q.contains("TAIL\""));
        assert!(q.contains("10008 chars"));
        assert!(q.chars().count() < 320);
        assert_eq!(quote("a\nb"), "\"a\\nb\"");
        // Multi-byte chars at both cuts, and bounds too small for a tail.
        let wide = "é".repeat(500);
        assert_eq!(
            quote_n(&wide, 3),
            format!("{:?} … \"é\" (500 chars, 1000 bytes in all)", "éé")
        );
        assert_eq!(
            quote_n(&wide, 1),
            "\"\" … \"é\" (500 chars, 1000 bytes in all)"
        );
        assert_eq!(
            quote_n(&wide, 0),
            "\"\" … \"\" (500 chars, 1000 bytes in all)"
        );
    }
}
