//! Located diagnostics: the one error type every front-end and the trace loader report, and its
//! one renderer.
//!
//! A [`Diagnostic`] names a file, a place in it ([`Location`]: a line and column of text, a byte
//! offset of a binary, or the whole file), a message, and optional [`Note`]s ("did you mean ...",
//! what is valid). [`Diagnostic::render`] draws it with [`annotate_snippets`]; the first line is
//! always the command line's contract (docs/trace-format.md):
//!
//! ```text
//! PATH:LINE:COL: error: MESSAGE          (text)
//! PATH: byte 0xOFFSET: error: MESSAGE    (binary)
//! PATH: error: MESSAGE                   (the whole file)
//! ```
//!
//! followed, for text, by the offending line and a caret under the column, and for a binary by
//! the 16 bytes around the offset. Output is bounded whatever the input: the line is cut to
//! [`EXCERPT_CONTEXT`] characters each side of the column, control characters are escaped, the
//! message and each note are at most [`MESSAGE_MAX`] characters. Colour is the caller's choice
//! (the command line colours only a terminal; `Display` never colours).

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use std::fmt;
use std::path::PathBuf;

/// Characters of the offending line shown on each side of the column when the line is longer than
/// `2 * EXCERPT_CONTEXT` characters.
pub const EXCERPT_CONTEXT: usize = 60;

/// Longest message (and note) shown, in characters (longer ones are cut with `…`).
pub const MESSAGE_MAX: usize = 400;

/// Bytes of a binary shown around a byte location (one aligned row).
const HEX_ROW: u64 = 16;

/// Where in its file a [`Diagnostic`] points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// The file as a whole (it cannot be read, or has no place to point at).
    File,
    /// A place in text.
    Text {
        /// 1-based line.
        line: u32,
        /// 1-based column, in characters.
        col: u32,
        /// The text of that line, without its line break.
        line_text: String,
    },
    /// A place in binary input.
    Byte {
        /// Offset from the start of the file.
        offset: u64,
        /// The file's bytes from `offset & !15`, at most 16 (shown as a hex row).
        row: Vec<u8>,
    },
}

/// What a [`Note`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoteKind {
    /// A suggestion: "did you mean `IADD`?".
    Help,
    /// More information: what is valid, where something was first defined.
    Note,
}

/// A line added under a diagnostic's excerpt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// Help or note.
    pub kind: NoteKind,
    /// The text.
    pub message: String,
    /// A line of the same file the note points at (a label's first definition): shown as
    /// `MESSAGE on line N`, and moved with the diagnostic when its lines are mapped to another
    /// file (code inside a trace).
    pub line: Option<u32>,
}

impl Note {
    /// A `help:` line.
    pub fn help(message: impl Into<String>) -> Note {
        Note {
            kind: NoteKind::Help,
            message: message.into(),
            line: None,
        }
    }

    /// A `note:` line.
    pub fn info(message: impl Into<String>) -> Note {
        Note {
            kind: NoteKind::Note,
            message: message.into(),
            line: None,
        }
    }

    /// A `note:` line about line `line` of the same file: `MESSAGE on line N`.
    pub fn at_line(message: impl Into<String>, line: u32) -> Note {
        Note {
            kind: NoteKind::Note,
            message: message.into(),
            line: Some(line),
        }
    }

    /// The note's text as shown (with its line).
    pub fn text(&self) -> String {
        match self.line {
            Some(l) => format!("{} on line {l}", self.message),
            None => self.message.clone(),
        }
    }
}

/// A user error located in a file (every variant of the command line's exit status 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file, as the user named it (or joined to the trace's directory for side files).
    pub path: PathBuf,
    /// Where in the file.
    pub location: Location,
    /// What is wrong.
    pub message: String,
    /// Suggestions and further information, in order.
    pub notes: Vec<Note>,
}

impl Diagnostic {
    /// An error at 1-based `line` and character `col` of text whose offending line is
    /// `line_text`.
    pub fn text(
        path: impl Into<PathBuf>,
        line: u32,
        col: u32,
        line_text: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            path: path.into(),
            location: Location::Text {
                line,
                col,
                line_text: line_text.into(),
            },
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// An error at byte `offset` of binary input `bytes` (the whole file).
    pub fn byte(
        path: impl Into<PathBuf>,
        bytes: &[u8],
        offset: u64,
        message: impl Into<String>,
    ) -> Diagnostic {
        let start = (offset & !(HEX_ROW - 1)).min(bytes.len() as u64) as usize;
        let end = (start + HEX_ROW as usize).min(bytes.len());
        Diagnostic {
            path: path.into(),
            location: Location::Byte {
                offset,
                row: bytes[start..end].to_vec(),
            },
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// An error about a whole file.
    pub fn file(path: impl Into<PathBuf>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            path: path.into(),
            location: Location::File,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// Adds a note.
    pub fn with_note(mut self, note: Note) -> Diagnostic {
        self.notes.push(note);
        self
    }

    /// The 1-based line, for text.
    pub fn line(&self) -> Option<u32> {
        match self.location {
            Location::Text { line, .. } => Some(line),
            _ => None,
        }
    }

    /// The 1-based column in characters, for text.
    pub fn col(&self) -> Option<u32> {
        match self.location {
            Location::Text { col, .. } => Some(col),
            _ => None,
        }
    }

    /// The offending line's text, for text.
    pub fn line_text(&self) -> Option<&str> {
        match &self.location {
            Location::Text { line_text, .. } => Some(line_text),
            _ => None,
        }
    }

    /// The first line of the rendering, without colour: `PATH:LINE:COL: error: MESSAGE` (or the
    /// byte or file form).
    pub fn headline(&self) -> String {
        format!("{}: {}", self.place(), bounded_message(&self.message))
    }

    /// `PATH:LINE:COL: error` (or `PATH: byte 0xN: error`, `PATH: error`).
    fn place(&self) -> String {
        let path = self.path.display();
        match &self.location {
            Location::File => format!("{path}: error"),
            Location::Text { line, col, .. } => format!("{path}:{line}:{col}: error"),
            Location::Byte { offset, .. } => format!("{path}: byte {offset:#x}: error"),
        }
    }

    /// The whole diagnostic: the headline, the excerpt with a caret, then the notes. `color`
    /// adds ANSI styles (for a terminal).
    pub fn render(&self, color: bool) -> String {
        let place = self.place();
        let message = bounded_message(&self.message);
        let excerpt = match &self.location {
            Location::File => None,
            Location::Text {
                line,
                col,
                line_text,
            } => {
                let (text, at) = excerpt(line_text, *col);
                Some((text, at, *line as usize, true))
            }
            Location::Byte { offset, row } => {
                let (text, at) = hex_row(*offset, row);
                Some((text, at, 1, false))
            }
        };
        let notes: Vec<(NoteKind, String)> = self
            .notes
            .iter()
            .map(|n| (n.kind, bounded_message(&n.text())))
            .collect();
        let mut group = Group::with_title(
            Level::ERROR
                .with_name(place.as_str())
                .primary_title(&message),
        );
        if let Some((text, at, line, numbered)) = &excerpt {
            group = group.element(
                Snippet::source(text.as_str())
                    .line_start(*line)
                    .line_numbering(*numbered)
                    .annotation(AnnotationKind::Primary.span(*at..*at)),
            );
        }
        for (kind, text) in &notes {
            let level = match kind {
                NoteKind::Help => Level::HELP,
                NoteKind::Note => Level::NOTE,
            };
            group = group.element(level.message(text.as_str()));
        }
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        }
        // Lines are cut here, not by the renderer.
        .term_width(100_000);
        let drawn = renderer.render(&[group]);
        // The renderer opens the excerpt with an empty gutter line; the contract wants the
        // offending line right under the headline.
        let mut out = String::with_capacity(drawn.len());
        for (i, l) in drawn.split('\n').enumerate() {
            if i == 1 && is_gutter_only(l) {
                continue;
            }
            if i > 0 {
                out.push('\n');
            }
            out.push_str(l);
        }
        out
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

impl std::error::Error for Diagnostic {}

/// Whether a rendered line (possibly with ANSI styles) is only the gutter bar.
fn is_gutter_only(line: &str) -> bool {
    let mut plain = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // Skip a CSI sequence: ESC [ ... final byte in @..~.
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) && c != '[' {
                    break;
                }
            }
        } else {
            plain.push(c);
        }
    }
    plain.trim() == "|"
}

/// How a character of user text is shown: control characters other than tab escaped (`\0`,
/// `\x1b`, `\u{85}`), anything else as itself.
fn shown(c: char, out: &mut String) {
    match c {
        '\t' => out.push('\t'),
        '\0' => out.push_str("\\0"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        c if c.is_control() && (c as u32) < 0x80 => {
            out.push_str(&format!("\\x{:02x}", c as u32));
        }
        c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        c => out.push(c),
    }
}

/// A message as shown: control characters escaped (tabs too) and at most [`MESSAGE_MAX`]
/// characters, then `…`.
pub fn bounded_message(message: &str) -> String {
    let mut out = String::new();
    for (i, c) in message.chars().enumerate() {
        if i == MESSAGE_MAX {
            out.push('…');
            break;
        }
        if c == '\t' {
            out.push_str("\\t");
        } else {
            shown(c, &mut out);
        }
    }
    out
}

/// `line` as a diagnostic shows it around 1-based character column `col`: whole when it has at
/// most 2 × [`EXCERPT_CONTEXT`] characters, else cut to [`EXCERPT_CONTEXT`] characters on each
/// side of the column with `…` where text was cut (control characters escaped).
pub fn line_excerpt(line: &str, col: u32) -> String {
    if line.chars().nth(2 * EXCERPT_CONTEXT).is_none() {
        line.to_string()
    } else {
        excerpt(line, col).0
    }
}

/// The part of `line` shown and the byte offset in it of 1-based character column `col`: a line
/// longer than `2 * EXCERPT_CONTEXT` characters is cut to [`EXCERPT_CONTEXT`] characters on each
/// side of the column, with `…` where text was cut; control characters are escaped (tabs kept).
fn excerpt(line: &str, col: u32) -> (String, usize) {
    let n = line.chars().count();
    let at = (col.saturating_sub(1) as usize).min(n);
    let (start, end) = if n <= 2 * EXCERPT_CONTEXT {
        (0, n)
    } else {
        let start = at
            .saturating_sub(EXCERPT_CONTEXT)
            .min(n - 2 * EXCERPT_CONTEXT);
        (start, (start + 2 * EXCERPT_CONTEXT).min(n))
    };
    let mut text = String::new();
    if start > 0 {
        text.push('…');
    }
    let mut caret = None;
    for (i, c) in line.chars().enumerate().skip(start).take(end - start) {
        if i == at {
            caret = Some(text.len());
        }
        shown(c, &mut text);
    }
    let caret = caret.unwrap_or(text.len());
    if end < n {
        text.push('…');
    }
    (text, caret)
}

/// A hex row `0xSTART: 7f 45 4c 46 ...` and the byte offset in it of the byte at `offset` (or
/// the row's end when the offset is past the bytes shown).
fn hex_row(offset: u64, row: &[u8]) -> (String, usize) {
    let start = offset & !(HEX_ROW - 1);
    let mut text = format!("{start:#010x}:");
    let mut at = None;
    for (i, b) in row.iter().enumerate() {
        text.push(' ');
        if start + i as u64 == offset {
            at = Some(text.len());
        }
        text.push_str(&format!("{b:02x}"));
    }
    let at = at.unwrap_or(text.len());
    (text, at)
}

/// The closest of `candidates` to `word`, for a "did you mean" note, ASCII case ignored: close
/// means a Jaro-Winkler similarity of at least 0.8 (good for long words with a shared start) or
/// a normalised Damerau-Levenshtein similarity of at least 0.5 (edits and swapped neighbours
/// over the longer length: good for short words); the best by the larger of the two, the first
/// of equals.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let w = word.to_ascii_uppercase();
    let mut best: Option<(f64, &str)> = None;
    for c in candidates {
        let c_up = c.to_ascii_uppercase();
        let jw = strsim::jaro_winkler(&w, &c_up);
        let dl = strsim::normalized_damerau_levenshtein(&w, &c_up);
        let score = jw.max(dl);
        if (jw >= 0.8 || dl >= 0.5) && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, c));
        }
    }
    best.map(|(_, c)| c)
}

/// A `help: did you mean `X`?` note for the closest candidate, if one is close.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<Note> {
    closest(word, candidates).map(|c| Note::help(format!("did you mean `{c}`?")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line_text: &str, col: u32, message: &str) -> Diagnostic {
        Diagnostic::text("t.toml", 2, col, line_text, message)
    }

    #[test]
    fn headline_excerpt_and_caret() {
        assert_eq!(
            at("\tb = 2", 6, "bad").to_string(),
            "t.toml:2:6: error: bad\n2 |     b = 2\n  |         ^"
        );
        assert_eq!(
            at("ab", 9, "past the end").to_string(),
            "t.toml:2:9: error: past the end\n2 | ab\n  |   ^"
        );
        let d = at("IADDD R1;", 1, "unknown opcode `IADDD`")
            .with_note(Note::help("did you mean `IADD`?"))
            .with_note(Note::info("valid: x"));
        assert_eq!(
            d.to_string(),
            "t.toml:2:1: error: unknown opcode `IADDD`\n2 | IADDD R1;\n  | ^\n  |\n  = help: did you mean `IADD`?\n  = note: valid: x"
        );
        assert_eq!(
            Diagnostic::file("x.bin", "cannot read").to_string(),
            "x.bin: error: cannot read"
        );
    }

    #[test]
    fn byte_locations_show_a_hex_row() {
        let bytes: Vec<u8> = (0..40).collect();
        let d = Diagnostic::byte("k.cubin", &bytes, 0x12, "bad byte");
        assert_eq!(
            d.to_string(),
            "k.cubin: byte 0x12: error: bad byte\n | 0x00000010: 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f\n |                   ^"
        );
        assert_eq!(d.headline(), "k.cubin: byte 0x12: error: bad byte");
    }

    #[test]
    fn colour_only_when_asked() {
        let d = at("x", 1, "m");
        assert!(!d.to_string().contains('\u{1b}'));
        let c = d.render(true);
        assert!(c.contains('\u{1b}'), "{c:?}");
        // The offending line still follows the headline.
        assert!(c.lines().nth(1).is_some_and(|l| l.contains(" x")), "{c:?}");
    }

    #[test]
    fn excerpts_are_bounded_and_escaped() {
        let long = format!("{}\0X{}", "a".repeat(10_000), "\0".repeat(10_000_000));
        let d = Diagnostic::text("t.toml", 1, 10_001, long, "bad \0 \x1b[31m");
        let shown = d.to_string();
        assert!(shown.len() < 600, "{} bytes", shown.len());
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines[0], "t.toml:1:10001: error: bad \\0 \\x1b[31m");
        assert_eq!(
            lines[1],
            format!("1 | …{}\\0X{}…", "a".repeat(60), "\\0".repeat(58))
        );
        assert_eq!(lines[2], format!("  |  {}^", " ".repeat(60)));
        // Short lines are whole; the caret skips escapes' widths.
        let d = Diagnostic::text("t.toml", 1, 4, "\u{1}\tab", "m");
        assert_eq!(
            d.to_string(),
            "t.toml:1:4: error: m\n1 | \\x01    ab\n  |          ^"
        );
        let msg = "x".repeat(100_000);
        let shown = Diagnostic::text("t.toml", 1, 1, "\u{1}\tab", msg).to_string();
        assert!(shown.len() < 500 && shown.contains("x…\n"), "{shown}");
    }

    #[test]
    fn suggestions() {
        assert_eq!(closest("IADDD", ["IADD", "IADD3", "MOV"]), Some("IADD"));
        assert_eq!(closest("iadd", ["IADD", "MOV"]), Some("IADD"));
        assert_eq!(closest("QQQQ", ["IADD", "MOV"]), None);
        assert_eq!(closest("ADN", ["F", "LT", "AND", "OR"]), Some("AND"));
        assert_eq!(closest("adress", ["addr", "size", "u32"]), Some("addr"));
    }
}
