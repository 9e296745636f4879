//! The syntax of every op, each defined once: [`SassSyntax`] parses an op struct from a
//! [`RawInst`](super::parser::RawInst) (through [`Args`]) and prints it back as canonical
//! nvdisasm-style text: the register and predicate ops in `alu`, the memory and barrier ops in
//! `memory`, the shared operand and modifier helpers here. Which mnemonic names which op is the
//! spelling table's business ([`super::spelling`], which also holds
//! [`parse_op`](super::spelling::parse_op)); the text of modifier values is [`super::words`]'s.
//!
//! Modifiers are accepted in any order (except where order is meaning: XMAD's two sign modifiers,
//! PSETP's two boolean operators); printing uses one canonical order and omits defaults.

use std::fmt;

use super::parser::RawKind;
use super::validate::{AddrRule, Args, ImmRule, HALF, NEG, NOT};
use super::words::{Name, Suffix};
use super::AsmError;
use crate::ir::*;

/// The text syntax of one op struct.
pub trait SassSyntax: Sized {
    /// Parses the op from its modifiers and operands (the mnemonic is already matched).
    fn parse(a: &mut Args<'_>) -> Result<Self, AsmError>;
    /// Prints the op as SASS text (no guard, no `;`).
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

/// The 32-bit-immediate form of an op (`MOV32I`, `IADD32I`, `ISCADD32I`, `LOP32I`, `IMUL32I`,
/// `FADD32I`, `FMUL32I`, `FFMA32I`): one op of the IR whose `Sb` is then [`Src::Imm32`]. The SASS table names the form's mnemonic beside the op's.
pub trait SassImm32Form: Sized {
    /// Parses the op from the form's modifiers and operands (the mnemonic is already matched):
    /// `Sb` becomes [`Src::Imm32`], the fields the form lacks their
    /// defaults.
    fn parse_imm32(a: &mut Args<'_>) -> Result<Self, AsmError>;
    /// Whether the value prints in the form: its `Sb` is [`Src::Imm32`]
    /// and every other field is one the form can write (else it prints in the op's own form).
    fn is_imm32(&self) -> bool;
    /// Prints the value in the form (only when [`SassImm32Form::is_imm32`]).
    fn print_imm32(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

/// The value of an `Sb` printed in a 32-bit-immediate form (an immediate there, see
/// [`SassImm32Form::is_imm32`]).
fn imm32(b: Src) -> u32 {
    b.imm().unwrap_or_default()
}

mod alu;
mod barrier;
mod convert;
mod float;
mod int;
mod memory;
mod warp;

type R<T> = Result<T, AsmError>;

/// `s` when `on`, else nothing.
fn m(on: bool, s: &str) -> &str {
    if on {
        s
    } else {
        ""
    }
}

/// An immediate printed signed (`-0x7e`).
struct Si(u32);
impl fmt::Display for Si {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_imm(f, self.0)
    }
}

/// An optional leading predicate destination, printed with its comma.
struct OptPred(Option<Pred>);
impl fmt::Display for OptPred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(p) => write!(f, "{p}, "),
            None => Ok(()),
        }
    }
}

fn opt_pred_dst(a: &mut Args<'_>) -> R<Option<Pred>> {
    if a.peek_pred() {
        a.pred_dst().map(Some)
    } else {
        Ok(None)
    }
}

/// `.CC` on the opcode (the destination may carry it instead; see [`Args::dst_cc`]).
fn cc_mod(a: &mut Args<'_>) -> R<Option<SrcLoc>> {
    a.flag_loc("CC")
}

const SIZES: &[(&str, MemSize)] = &[
    ("U8", MemSize::U8),
    ("S8", MemSize::S8),
    ("U16", MemSize::U16),
    ("S16", MemSize::S16),
    ("32", MemSize::B32),
    ("64", MemSize::B64),
    ("128", MemSize::B128),
];
const LOAD_COPS: &[(&str, CacheOp)] = &[
    ("CA", CacheOp::Ca),
    ("CG", CacheOp::Cg),
    ("CS", CacheOp::Cs),
    ("LU", CacheOp::Lu),
    ("CV", CacheOp::Cv),
    ("CI", CacheOp::Ci),
];
const STORE_COPS: &[(&str, CacheOp)] = &[
    ("WB", CacheOp::Wb),
    ("CG", CacheOp::Cg),
    ("CS", CacheOp::Cs),
    ("WT", CacheOp::Wt),
];
/// LDL's cache operators (its encoding's field: default, `.LU`, `.CI`, `.CV`).
const LDL_COPS: &[(&str, CacheOp)] = &[
    ("LU", CacheOp::Lu),
    ("CI", CacheOp::Ci),
    ("CV", CacheOp::Cv),
];
/// STL's cache operators (default, `.CG`, `.CS`, `.WT`).
const STL_COPS: &[(&str, CacheOp)] = &[
    ("CG", CacheOp::Cg),
    ("CS", CacheOp::Cs),
    ("WT", CacheOp::Wt),
];
const LOP_FNS: &[(&str, LopFn)] = &[
    ("AND", LopFn::And),
    ("OR", LopFn::Or),
    ("XOR", LopFn::Xor),
    ("PASS_B", LopFn::PassB),
];
const POUTS: &[(&str, PredOut)] = &[
    ("Z", PredOut::Z),
    ("NZ", PredOut::Nz),
    ("T", PredOut::T),
    ("F", PredOut::F),
];
const BOPS: &[(&str, BoolOp)] = &[
    ("AND", BoolOp::And),
    ("OR", BoolOp::Or),
    ("XOR", BoolOp::Xor),
];
/// `.U32` / `.S32`, as "is unsigned".
const UNSIGNED: &[(&str, bool)] = &[("U32", true), ("S32", false)];

/// A memory size; with `u128`, `.U.128` (adjacent) is [`MemSize::U128`].
fn mem_size(a: &mut Args<'_>, u128: bool) -> R<MemSize> {
    let pair = if u128 {
        a.take_adjacent("U", "128")
    } else {
        None
    };
    let mut found = a.take_all(SIZES);
    if let Some(loc) = pair {
        found.insert(0, (MemSize::U128, "U.128", loc));
    }
    Ok(Args::one_of(found)?.unwrap_or_default())
}
