//! SASS front-end: Maxwell (SPA 5.0) assembly text to [`ir::Program`] and back.
//!
//! The pipeline is [`lexer`] (tokens, scheduling text and comments dropped, `/*0008*/` address
//! comments kept) → [`parser`] (one generic [`parser::RawInst`] per statement) → per-op syntax in
//! [`syntax`] (one [`syntax::SassSyntax`] impl per op struct, dispatched by the mnemonic table in
//! [`spelling`]) and [`control`] (BRA, SSY, SYNC, EXIT, BAR.SYNC) →
//! `program` (pcs, labels, blocks; private). [`print`](mod@print) is the inverse: [`print_op`],
//! [`print_inst`] and [`print_program`].
//!
//! Every error is an [`AsmError`] pointing at the offending token; no input panics.

pub mod control;
pub mod lexer;
pub mod listing;
pub mod parser;
pub mod print;
pub(crate) mod program;
pub mod spelling;
pub mod syntax;
pub mod validate;
pub mod words;

use crate::diag::{Diagnostic, Note};
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

/// An assembler error: where (1-based line and column of the offending token) and what, with
/// suggestions.
///
/// `Display` prints `LINE:COL: error: MESSAGE`; [`AsmError::diagnostic`] makes the located
/// [`Diagnostic`] every front-end reports (rendered with the line and a caret).
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
    /// Suggestions, what is valid ("did you mean `IADD`?"), and other lines the error involves
    /// (a label's first definition).
    pub notes: Vec<Note>,
}

impl AsmError {
    /// An error at `loc`; the line text is filled in by the public entry points.
    pub(crate) fn at(loc: SrcLoc, message: impl Into<String>) -> AsmError {
        AsmError {
            line: loc.line,
            col: loc.col,
            message: message.into(),
            line_text: String::new(),
            notes: Vec::new(),
        }
    }

    /// Adds a note.
    pub(crate) fn note(mut self, note: Note) -> AsmError {
        self.notes.push(note);
        self
    }

    /// Adds a note when there is one.
    pub(crate) fn maybe_note(self, note: Option<Note>) -> AsmError {
        match note {
            Some(n) => self.note(n),
            None => self,
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

    /// The located diagnostic of this error in the file `path` (lines as they are).
    pub fn diagnostic(&self, path: impl Into<std::path::PathBuf>) -> Diagnostic {
        let mut d = Diagnostic::text(
            path,
            self.line,
            self.col,
            self.line_text.clone(),
            self.message.clone(),
        );
        d.notes.extend(self.notes.iter().cloned());
        d
    }

    /// The diagnostic rendered without colour (see [`Diagnostic::render`]); `line_offset` is
    /// added to the line (for code embedded in a file at that offset).
    pub fn render(&self, path: &str, line_offset: u32) -> String {
        let mut e = self.clone();
        e.line = e.line.saturating_add(line_offset);
        for n in &mut e.notes {
            n.line = n.line.map(|l| l.saturating_add(line_offset));
        }
        e.diagnostic(path).to_string()
    }
}

/// Every mnemonic the assembler knows: the op table's and the control instructions'.
pub fn mnemonics() -> impl Iterator<Item = &'static str> {
    spelling::MNEMONICS
        .iter()
        .chain(control::MNEMONICS)
        .copied()
}

/// The instructions of Maxwell (sm_50 to sm_53) as NVIDIA's CUDA binary utilities list them
/// (the instruction-set reference of `cuobjdump` and `nvdisasm`), whether warpjit runs them or
/// not: a mnemonic here that the assembler does not know is "not supported yet", not a typo.
pub const MAXWELL_MNEMONICS: &[&str] = &[
    // Floating point.
    "FADD",
    "FADD32I",
    "FCHK",
    "FCMP",
    "FFMA",
    "FFMA32I",
    "FMNMX",
    "FMUL",
    "FMUL32I",
    "FSET",
    "FSETP",
    "FSWZADD",
    "MUFU",
    "RRO",
    "DADD",
    "DFMA",
    "DMNMX",
    "DMUL",
    "DSET",
    "DSETP",
    "HADD2",
    "HADD2_32I",
    "HFMA2",
    "HFMA2_32I",
    "HMUL2",
    "HMUL2_32I",
    "HSET2",
    "HSETP2",
    // Integer.
    "BFE",
    "BFI",
    "FLO",
    "IADD",
    "IADD3",
    "IADD32I",
    "ICMP",
    "IMAD",
    "IMAD32I",
    "IMADSP",
    "IMNMX",
    "IMUL",
    "IMUL32I",
    "ISCADD",
    "ISCADD32I",
    "ISET",
    "ISETP",
    "LEA",
    "LOP",
    "LOP3",
    "LOP32I",
    "POPC",
    "SHF",
    "SHL",
    "SHR",
    "XMAD",
    // Conversion.
    "F2F",
    "F2I",
    "I2F",
    "I2I",
    // Movement.
    "MOV",
    "MOV32I",
    "PRMT",
    "SEL",
    "SHFL",
    // Predicates and condition codes.
    "CSET",
    "CSETP",
    "PSET",
    "PSETP",
    "P2R",
    "R2P",
    // Texture.
    "TEX",
    "TLD",
    "TLD4",
    "TXQ",
    "TEXS",
    "TLD4S",
    "TLDS",
    "TXD",
    "TXA",
    "TMML",
    // Loads and stores.
    "LD",
    "LDC",
    "LDG",
    "LDL",
    "LDS",
    "ST",
    "STG",
    "STL",
    "STS",
    "ATOM",
    "ATOMS",
    "RED",
    "CCTL",
    "CCTLL",
    "CCTLT",
    "MEMBAR",
    // Surface memory.
    "SUATOM",
    "SULD",
    "SURED",
    "SUST",
    // Control.
    "BRA",
    "BRX",
    "JMP",
    "JMX",
    "SSY",
    "SYNC",
    "CAL",
    "JCAL",
    "PRET",
    "RET",
    "BRK",
    "PBK",
    "CONT",
    "PCNT",
    "EXIT",
    "PEXIT",
    "LONGJMP",
    "PLONGJMP",
    "KIL",
    "BPT",
    "IDE",
    "RAM",
    "RTT",
    "SAM",
    // Graphics.
    "AL2P",
    "ALD",
    "AST",
    "OUT",
    "IPA",
    "PIXLD",
    "ISBERD",
    "VILD",
    "STP",
    // Video.
    "VABSDIFF",
    "VABSDIFF4",
    "VADD",
    "VMAD",
    "VMNMX",
    "VSET",
    "VSETP",
    "VSHL",
    "VSHR",
    // Miscellaneous.
    "NOP",
    "CS2R",
    "S2R",
    "B2R",
    "BAR",
    "R2B",
    "VOTE",
    "DEPBAR",
    "GETCRSPTR",
    "GETLMEMBASE",
    "SETCRSPTR",
    "SETLMEMBASE",
];

/// The error for a mnemonic the assembler does not know: a real Maxwell instruction not
/// supported yet, or an unknown opcode with the closest known one.
pub(crate) fn unknown_mnemonic(mnemonic: &str, loc: SrcLoc) -> AsmError {
    if MAXWELL_MNEMONICS.contains(&mnemonic) {
        return AsmError::at(
            loc,
            format!("`{mnemonic}` is a Maxwell instruction warpjit does not support yet"),
        )
        .note(Note::info(format!(
            "supported: {}",
            mnemonics().collect::<Vec<_>>().join(" ")
        )));
    }
    AsmError::at(loc, format!("unknown opcode `{mnemonic}`"))
        .maybe_note(crate::diag::did_you_mean(mnemonic, mnemonics()))
}

pub use crate::ir::build::ParsedInst;

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

/// [`parse_program`] of a listing as NVIDIA's tools print it, pasted whole (`nvdisasm`,
/// `cuobjdump -sass`: sections, directives, `Function : NAME`): the instructions of kernel
/// `kernel` ([`listing::select_kernel`]; needed when the listing holds several). A plain listing
/// parses as [`parse_program`] does.
pub fn parse_listing(
    text: &str,
    kernel: Option<&str>,
    opts: &AsmOptions,
) -> Result<ir::Program, AsmError> {
    let code = listing::select_kernel(text, kernel).map_err(|e| e.with_source(text))?;
    program::build(&code, opts).map_err(|e| e.with_source(text))
}

/// Parses exactly one instruction (its pc is its `/*addr*/` comment, else 0x8, the first slot of
/// Maxwell's layout). Labels are not allowed; a branch target stays symbolic.
pub fn parse_inst(text: &str, opts: &AsmOptions) -> Result<ParsedInst, AsmError> {
    program::single(text, opts).map_err(|e| e.with_source(text))
}
