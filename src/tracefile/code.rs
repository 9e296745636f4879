//! Mapping positions inside an inline `code = """..."""` string back to the trace file.
//!
//! A TOML string's value is its literal with the quotes removed, escapes decoded and, for the
//! multi-line kinds, a line break right after the opening quotes dropped (and, for `"""`, a `\`
//! at the end of a line trimming the break and the whitespace after it). To point an assembler
//! error at the trace, the literal is decoded again here, recording for every byte of the value the
//! trace offset it came from.

use std::ops::Range;

/// For each byte of a string value, its offset in the trace text, plus one entry for the end.
pub(crate) struct StringMap {
    offsets: Vec<usize>,
}

impl StringMap {
    /// Decodes the literal at `span` of `text`; `None` when the decoding does not reproduce
    /// `value` (a literal form this decoder does not know), so callers fall back to a line shift.
    pub(crate) fn new(text: &str, span: &Range<usize>, value: &str) -> Option<StringMap> {
        let raw = text.get(span.clone())?;
        let (basic, q) = if raw.starts_with("\"\"\"") {
            (true, 3)
        } else if raw.starts_with("'''") {
            (false, 3)
        } else if raw.starts_with('"') {
            (true, 1)
        } else if raw.starts_with('\'') {
            (false, 1)
        } else {
            return None;
        };
        if raw.len() < 2 * q {
            return None;
        }
        let end = raw.len() - q;
        let mut i = q;
        if q == 3 {
            if raw[i..].starts_with('\n') {
                i += 1;
            } else if raw[i..].starts_with("\r\n") {
                i += 2;
            }
        }
        let mut out = String::with_capacity(end.saturating_sub(i));
        let mut offsets = Vec::with_capacity(end.saturating_sub(i) + 1);
        while i < end {
            let c = raw.get(i..)?.chars().next()?;
            if basic && c == '\\' {
                let rest = raw.get(i + 1..end)?;
                let next = rest.chars().next()?;
                let (decoded, len) = match next {
                    'b' => ('\u{8}', 2),
                    't' => ('\t', 2),
                    'n' => ('\n', 2),
                    'f' => ('\u{c}', 2),
                    'r' => ('\r', 2),
                    'e' => ('\u{1b}', 2),
                    '"' => ('"', 2),
                    '\\' => ('\\', 2),
                    'x' | 'u' | 'U' => {
                        let n = match next {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let hex = rest.get(1..1 + n)?;
                        (char::from_u32(u32::from_str_radix(hex, 16).ok()?)?, 2 + n)
                    }
                    ' ' | '\t' | '\n' | '\r' if q == 3 => {
                        // Line-ending backslash: trim whitespace and line breaks up to the next
                        // other character.
                        let skip =
                            rest.len() - rest.trim_start_matches([' ', '\t', '\n', '\r']).len();
                        i += 1 + skip;
                        continue;
                    }
                    _ => return None,
                };
                let mut buf = [0u8; 4];
                for _ in decoded.encode_utf8(&mut buf).bytes() {
                    offsets.push(span.start + i);
                }
                out.push(decoded);
                i += len;
            } else {
                for k in 0..c.len_utf8() {
                    offsets.push(span.start + i + k);
                }
                out.push(c);
                i += c.len_utf8();
            }
        }
        offsets.push(span.start + end);
        (out == value).then_some(StringMap { offsets })
    }

    /// The trace offset of a byte offset of the value (the end maps to the closing quotes).
    pub(crate) fn trace_offset(&self, value_offset: usize) -> usize {
        let last = self.offsets.len() - 1;
        self.offsets[value_offset.min(last)]
    }
}

/// The byte offset in `value` of 1-based `line` and 1-based character `col` (clamped to the
/// line's end; line 0 or past the end gives the value's end).
pub(crate) fn value_offset(value: &str, line: u32, col: u32) -> usize {
    if line == 0 {
        return 0;
    }
    let mut start = 0;
    for _ in 1..line {
        match value[start..].find('\n') {
            Some(n) => start += n + 1,
            None => return value.len(),
        }
    }
    let line_end = value[start..].find('\n').map_or(value.len(), |n| start + n);
    let text = &value[start..line_end];
    let skip = text
        .char_indices()
        .nth(col.saturating_sub(1) as usize)
        .map_or(text.len(), |(b, _)| b);
    start + skip
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(text: &str, value: &str) -> Option<Vec<usize>> {
        let start = text.find(['"', '\'']).unwrap_or(0);
        let m = StringMap::new(text, &(start..text.len()), value)?;
        Some(m.offsets)
    }

    #[test]
    fn multi_line_basic_drops_first_newline() {
        let t = "code = \"\"\"\nAB\n\"\"\"";
        assert_eq!(map(t, "AB\n"), Some(vec![11, 12, 13, 14]));
        assert!(map(t, "AB").is_none(), "a mismatch is detected");
    }

    #[test]
    fn escapes_and_line_ending_backslash() {
        let t = "code = \"\"\"A\\tB \\\n   C\"\"\"";
        let m = map(t, "A\tB C").unwrap();
        assert_eq!(m[0], 10);
        assert_eq!(m[1], 11);
        assert_eq!(m[2], 13);
        assert_eq!(m[4], t.find('C').unwrap());
        let l = "code = 'a\\n'";
        assert_eq!(map(l, "a\\n"), Some(vec![8, 9, 10, 11]));
        let u = "code = \"\\u00e9x\"";
        assert_eq!(map(u, "éx"), Some(vec![8, 8, 14, 15]));
    }

    #[test]
    fn value_offsets() {
        let v = "ab\ncdé\nf";
        assert_eq!(value_offset(v, 1, 1), 0);
        assert_eq!(value_offset(v, 2, 2), 4);
        assert_eq!(value_offset(v, 2, 4), 7);
        assert_eq!(value_offset(v, 2, 9), 7);
        assert_eq!(value_offset(v, 3, 1), 8);
        assert_eq!(value_offset(v, 7, 1), v.len());
    }
}
