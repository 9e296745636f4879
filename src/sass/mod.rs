//! SASS front-end: Maxwell (SPA 5.0) assembly text to [`ir::Program`] and back.
//!
//! The pipeline is [`lexer`] (tokens, scheduling text and comments dropped, `/*0008*/` address
//! comments kept) → [`parser`] (one generic [`parser::RawInst`] per statement) → per-op syntax in
//! [`syntax`] (one [`syntax::SassSyntax`] impl per op struct, dispatched by the mnemonic table in
//! [`spelling`]) and [`control`] (BRA, SSY, SYNC, EXIT, BAR.SYNC) →
//! [`program`] (pcs, labels, blocks). [`print`](mod@print) is the inverse: [`print_op`],
//! [`print_inst`] and [`print_program`].
//!
//! Every error is an [`AsmError`] pointing at the offending token; no input panics.

pub mod control;
pub mod lexer;
pub mod parser;
pub mod print;
pub mod program;
pub mod spelling;
pub mod syntax;
pub mod validate;

use crate::ir::{self, SrcLoc};

pub use control::{Control, ControlKind, Target};
pub use print::{print_inst, print_op, print_program, Sass, Unspelled};
pub use spelling::{mnemonic, MNEMONICS};

/// Options of the assembler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsmOptions {
    /// Registers the launch gives the shader: `R0..R{registers-1}` are usable (docs/semantics.md §4).
    pub registers: u32,
}

impl Default for AsmOptions {
    fn default() -> Self {
        AsmOptions { registers: 255 }
    }
}

/// An assembler error: where (1-based line and column of the offending token) and what.
///
/// `Display` prints `LINE:COL: error: MESSAGE`; [`AsmError::render`] adds the path and the line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: error: {message}")]
pub struct AsmError {
    /// 1-based line of the offending token.
    pub line: u32,
    /// 1-based column (in characters) of the offending token.
    pub col: u32,
    /// What is wrong.
    pub message: String,
    /// The text of the offending line (without its line break).
    pub line_text: String,
}

impl AsmError {
    /// An error at `loc`; the line text is filled in by the public entry points.
    pub(crate) fn at(loc: SrcLoc, message: impl Into<String>) -> AsmError {
        AsmError {
            line: loc.line,
            col: loc.col,
            message: message.into(),
            line_text: String::new(),
        }
    }

    /// Fills `line_text` from the source text.
    fn with_source(mut self, text: &str) -> AsmError {
        let idx = self.line.saturating_sub(1) as usize;
        self.line_text = text
            .split('\n')
            .nth(idx)
            .unwrap_or("")
            .trim_end_matches('\r')
            .to_string();
        self
    }

    /// `PATH:LINE:COL: error: MESSAGE`, then the offending line and a caret under the column,
    /// each indented by `  | `. `line_offset` is added to the line (for code embedded in a file).
    /// The output is bounded whatever the input: the line is cut to [`EXCERPT_CONTEXT`] characters
    /// each side of the column, control characters are escaped, the message is at most
    /// [`MESSAGE_MAX`] characters.
    pub fn render(&self, path: &str, line_offset: u32) -> String {
        let mut s = format!(
            "{path}:{}:{}: error: {}",
            self.line.saturating_add(line_offset),
            self.col,
            bounded_message(&self.message)
        );
        // Writing to a String cannot fail.
        let _ = write_excerpt(&mut s, &self.line_text, self.col);
        s
    }
}

/// Characters of the offending line shown on each side of the column when the line is longer than
/// `2 * EXCERPT_CONTEXT` characters.
pub const EXCERPT_CONTEXT: usize = 60;

/// Longest error message shown, in characters (longer ones are cut with `…`).
pub const MESSAGE_MAX: usize = 400;

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

/// An error message as shown: control characters escaped (tabs too) and at most [`MESSAGE_MAX`]
/// characters, then `…`.
pub(crate) fn bounded_message(message: &str) -> String {
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

/// Writes `\n  | LINE\n  | CARET`: the offending line and a caret under 1-based character column
/// `col`. Bounded whatever the line: a line longer than `2 * EXCERPT_CONTEXT` characters is cut to
/// [`EXCERPT_CONTEXT`] characters on each side of the column, with `…` where text was cut; control
/// characters are escaped (tabs kept, so that the caret lines up under them).
pub(crate) fn write_excerpt(
    out: &mut impl std::fmt::Write,
    line: &str,
    col: u32,
) -> std::fmt::Result {
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
    let mut caret = String::new();
    if start > 0 {
        text.push('…');
        caret.push(' ');
    }
    for (i, c) in line.chars().enumerate().skip(start).take(end - start) {
        let before = text.len();
        shown(c, &mut text);
        if i < at {
            if c == '\t' {
                caret.push('\t');
            } else {
                let width = text[before..].chars().count();
                caret.extend(std::iter::repeat_n(' ', width));
            }
        }
    }
    if end < n {
        text.push('…');
    }
    caret.push('^');
    write!(out, "\n  | {text}\n  | {caret}")
}

/// One parsed instruction line: a per-lane op, or a control instruction (a block terminator).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParsedInst {
    /// A per-lane instruction.
    Op(ir::Inst),
    /// BRA, SSY, SYNC, EXIT or BAR.SYNC.
    Control(Control),
}

impl ParsedInst {
    /// The guest pc (byte address).
    pub fn pc(&self) -> u32 {
        match self {
            ParsedInst::Op(i) => i.pc,
            ParsedInst::Control(c) => c.pc,
        }
    }

    /// Where the instruction's text starts.
    pub fn loc(&self) -> SrcLoc {
        match self {
            ParsedInst::Op(i) => i.loc,
            ParsedInst::Control(c) => c.loc,
        }
    }
}

impl std::fmt::Display for ParsedInst {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParsedInst::Op(i) => write!(f, "{}", print::Sass(i)),
            ParsedInst::Control(c) => write!(f, "{c}"),
        }
    }
}

/// Assembles a whole SASS listing into blocks (docs/semantics.md §2).
pub fn parse_program(text: &str, opts: &AsmOptions) -> Result<ir::Program, AsmError> {
    program::build(text, opts).map_err(|e| e.with_source(text))
}

/// Parses exactly one instruction (its pc is its `/*addr*/` comment, else 0x8, the first slot of
/// Maxwell's layout). Labels are not allowed; a branch target stays symbolic.
pub fn parse_inst(text: &str, opts: &AsmOptions) -> Result<ParsedInst, AsmError> {
    program::single(text, opts).map_err(|e| e.with_source(text))
}
