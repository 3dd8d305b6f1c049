//! The byte grammar every fuzz input is decoded with, and its inverse.
//!
//! Inputs are decoded one byte per decision (`byte % choices`), strings as a length byte and
//! their bytes, and the last field takes the rest. That grammar is deliberately dumber than
//! `arbitrary`'s own encodings because it is trivially invertible: a seed is written from a
//! readable description ([`Writer`]), and a test proves every seed decodes back to the value
//! it was written from. Seeds therefore survive upgrades of `arbitrary`, and a contributor can
//! add one without reverse-engineering a fuzzer's byte format.
//!
//! Running out of bytes is not an error: every read then returns zero, the "smallest" choice,
//! so every byte string decodes to some input and the fuzzer wastes no executions.

/// Reads decisions from fuzz bytes; reads past the end return zeros.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    data: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data }
    }

    /// The next byte, or 0 when the input is exhausted.
    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((first, rest)) => {
                self.data = rest;
                *first
            }
            None => 0,
        }
    }

    /// A choice among `n` (> 0) options.
    pub fn choose(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n
    }

    /// Whether the next byte is odd.
    pub fn flag(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    /// A little-endian `u16` from two bytes.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    /// A little-endian `i32` from four bytes.
    pub fn i32(&mut self) -> i32 {
        i32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    /// A length byte, then that many bytes (fewer when the input ends first).
    pub fn short_bytes(&mut self) -> &'a [u8] {
        let len = usize::from(self.byte()).min(self.data.len());
        let (taken, rest) = self.data.split_at(len);
        self.data = rest;
        taken
    }

    /// A length-prefixed string; invalid UTF-8 is replaced, so every input decodes.
    pub fn short_string(&mut self) -> String {
        String::from_utf8_lossy(self.short_bytes()).into_owned()
    }

    /// A length-prefixed string cut to at most 255 bytes at a char boundary (replacement
    /// characters can make the lossy decoding longer than its bytes), so that
    /// [`Writer::short_string`] writes it back.
    pub fn short_text(&mut self) -> String {
        let mut s = self.short_string();
        let mut end = s.len().min(255);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s
    }

    /// Everything not read yet.
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.data)
    }

    /// How many bytes are left to read.
    pub fn remaining(&self) -> usize {
        self.data.len()
    }

    /// Whether every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

/// Writes the bytes a [`Reader`] decodes back into the same decisions.
#[derive(Debug, Clone, Default)]
pub struct Writer {
    out: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Writer::default()
    }

    /// One byte.
    pub fn byte(&mut self, b: u8) -> &mut Self {
        self.out.push(b);
        self
    }

    /// Choice `index` (must be below 256).
    pub fn choose(&mut self, index: usize) -> &mut Self {
        self.byte(u8::try_from(index).expect("a choice index fits in a byte"))
    }

    /// A flag.
    pub fn flag(&mut self, on: bool) -> &mut Self {
        self.byte(u8::from(on))
    }

    /// A little-endian `u16`.
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.out.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A little-endian `i32`.
    pub fn i32(&mut self, v: i32) -> &mut Self {
        self.out.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A length byte and the bytes (at most 255 of them).
    pub fn short_bytes(&mut self, bytes: &[u8]) -> &mut Self {
        let len = u8::try_from(bytes.len()).expect("a short string has at most 255 bytes");
        self.out.push(len);
        self.out.extend_from_slice(bytes);
        self
    }

    /// A length-prefixed string.
    pub fn short_string(&mut self, s: &str) -> &mut Self {
        self.short_bytes(s.as_bytes())
    }

    /// Trailing bytes, read back by [`Reader::rest`].
    pub fn rest(&mut self, bytes: &[u8]) -> &mut Self {
        self.out.extend_from_slice(bytes);
        self
    }

    /// The bytes written.
    pub fn finish(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }
}

/// Formats bytes as a Rust byte-string literal body, for reproductions.
pub fn rust_byte_string(bytes: &[u8]) -> String {
    bytes.escape_ascii().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_decodes_what_a_writer_wrote() {
        let bytes = Writer::new()
            .choose(3)
            .flag(true)
            .u16(513)
            .i32(-7)
            .short_string("é/~")
            .rest(b"tail")
            .finish();
        let mut r = Reader::new(&bytes);
        assert_eq!(r.choose(5), 3);
        assert!(r.flag());
        assert_eq!(r.u16(), 513);
        assert_eq!(r.i32(), -7);
        assert_eq!(r.short_string(), "é/~");
        assert_eq!(r.rest(), b"tail");
        assert!(r.is_empty());
        assert_eq!(r.byte(), 0, "reads past the end are zeros");
        assert_eq!(r.short_string(), "");
    }

    #[test]
    fn a_short_string_is_cut_at_the_end_of_the_input() {
        let mut r = Reader::new(&[9, b'a', b'b']);
        assert_eq!(r.short_string(), "ab");
        assert!(r.is_empty());
    }
}
