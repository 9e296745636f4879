//! SASS front-end: Maxwell (SPA 5.0) assembly text to [`ir::Program`] and back.
//!
//! The pipeline is [`lexer`] (tokens, scheduling text and comments dropped, `/*0008*/` address
//! comments kept) → [`parser`] (one generic [`parser::RawInst`] per statement) → per-op syntax in
//! [`syntax`] (one [`syntax::SassSyntax`] impl per op struct, dispatched through
//! [`for_each_op!`](crate::for_each_op)) and [`control`] (BRA, SSY, SYNC, EXIT, BAR.SYNC) →
//! [`program`] (pcs, labels, blocks). [`print`](mod@print) is the inverse: `Display` for [`ir::Op`] and
//! [`print_program`].
//!
//! Every error is an [`AsmError`] pointing at the offending token; no input panics.

pub mod control;
pub mod lexer;
pub mod parser;
pub mod print;
pub mod program;
pub mod syntax;
pub mod validate;

use crate::ir::{self, SrcLoc};

pub use control::{Control, ControlKind, Target};
pub use print::print_program;

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
    pub fn render(&self, path: &str, line_offset: u32) -> String {
        let caret: String = self
            .line_text
            .chars()
            .take(self.col.saturating_sub(1) as usize)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .chain(std::iter::once('^'))
            .collect();
        format!(
            "{path}:{}:{}: error: {}\n  | {}\n  | {caret}",
            self.line.saturating_add(line_offset),
            self.col,
            self.message,
            self.line_text
        )
    }
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
            ParsedInst::Op(i) => write!(f, "{i}"),
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
