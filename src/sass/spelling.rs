//! The SASS spelling table: which mnemonic names which IR op, and the text of modifier values.
//!
//! The IR's op table ([`for_each_op!`](crate::for_each_op)) carries no text. Here, one line per op
//! gives it a SASS mnemonic (the op struct then implements [`SassSyntax`]: parse and canonical
//! print), with `| "FOO32I"` its 32-bit-immediate form's mnemonic too (the op struct then also
//! implements [`SassImm32Form`]: that form's parse and print, for a value whose `Sb` is
//! [`Src::Imm32`]), or declares that it has none (an op another front-end introduced); the printer
//! returns [`Unspelled`](super::print::Unspelled) for such an op. An op of the IR table missing
//! from this table is a compile error ([`Spelling`] not implemented), in the expansion of
//! [`mnemonic`] below.

use std::fmt;

use super::syntax::{SassImm32Form, SassSyntax};
use super::validate::Args;
use super::AsmError;
use crate::ir::*;

/// How the SASS front-end spells one op struct (implemented by the table below, never by hand).
pub trait Spelling {
    /// The mnemonic, or `None` when the op has no SASS form.
    const MNEMONIC: Option<&'static str>;
    /// The mnemonic this value prints with: [`Spelling::MNEMONIC`], or the op's 32-bit-immediate
    /// mnemonic (`MOV32I`, ...) when the value is in that form ([`SassImm32Form::is_imm32`]).
    fn mnemonic_of(&self) -> Option<&'static str>;
    /// Prints the op's canonical SASS text; `None` when it has no SASS form.
    fn print_sass(&self, f: &mut fmt::Formatter<'_>) -> Option<fmt::Result>;
}

/// The impl of [`Spelling`] for one line of the table.
macro_rules! spelling_impl {
    ($s:ident $name:literal) => {
        impl Spelling for $s {
            const MNEMONIC: Option<&'static str> = Some($name);
            fn mnemonic_of(&self) -> Option<&'static str> {
                Some($name)
            }
            fn print_sass(&self, f: &mut fmt::Formatter<'_>) -> Option<fmt::Result> {
                Some(SassSyntax::print(self, f))
            }
        }
    };
    ($s:ident $name:literal $imm32:literal) => {
        impl Spelling for $s {
            const MNEMONIC: Option<&'static str> = Some($name);
            fn mnemonic_of(&self) -> Option<&'static str> {
                Some(if SassImm32Form::is_imm32(self) {
                    $imm32
                } else {
                    $name
                })
            }
            fn print_sass(&self, f: &mut fmt::Formatter<'_>) -> Option<fmt::Result> {
                Some(if SassImm32Form::is_imm32(self) {
                    SassImm32Form::print_imm32(self, f)
                } else {
                    SassSyntax::print(self, f)
                })
            }
        }
    };
}

macro_rules! sass_table {
    (
        spelled { $($s:ident $name:literal $(| $imm32:literal)?,)* }
        unspelled { $($u:ident,)* }
    ) => {
        $(spelling_impl!($s $name $($imm32)?);)*
        $(
            impl Spelling for $u {
                const MNEMONIC: Option<&'static str> = None;
                fn mnemonic_of(&self) -> Option<&'static str> {
                    None
                }
                fn print_sass(&self, _: &mut fmt::Formatter<'_>) -> Option<fmt::Result> {
                    None
                }
            }
        )*

        /// Every SASS mnemonic of an op (control instructions aside), in table order (an op's
        /// 32-bit-immediate form right after it).
        pub const MNEMONICS: &[&str] = &[$($name, $($imm32,)?)*];

        /// Parses the op named by the instruction's mnemonic; `None` if no op has that mnemonic.
        pub fn parse_op(a: &mut Args<'_>) -> Option<Result<Op, AsmError>> {
            let r = match a.raw().mnemonic.as_str() {
                $(
                    $name => <$s as SassSyntax>::parse(a).map(Op::from),
                    $($imm32 => <$s as SassImm32Form>::parse_imm32(a).map(Op::from),)?
                )*
                _ => return None,
            };
            Some(r.and_then(|op| a.done().map(|()| op)))
        }
    };
}

sass_table! {
    spelled {
        Mov "MOV" | "MOV32I",
        S2r "S2R",
        Iadd "IADD" | "IADD32I",
        Iadd3 "IADD3",
        Iscadd "ISCADD" | "ISCADD32I",
        Xmad "XMAD",
        Shl "SHL",
        Shr "SHR",
        Shf "SHF",
        Lop "LOP" | "LOP32I",
        Lop3 "LOP3",
        Bfe "BFE",
        Bfi "BFI",
        Popc "POPC",
        Flo "FLO",
        Sel "SEL",
        Isetp "ISETP",
        Psetp "PSETP",
        P2r "P2R",
        Imnmx "IMNMX",
        Vmnmx "VMNMX",
        Vabsdiff "VABSDIFF",
        Vabsdiff4 "VABSDIFF4",
        Icmp "ICMP",
        Prmt "PRMT",
        Fadd "FADD" | "FADD32I",
        Fmul "FMUL" | "FMUL32I",
        Ffma "FFMA" | "FFMA32I",
        Fmnmx "FMNMX",
        Fset "FSET",
        Fsetp "FSETP",
        Fcmp "FCMP",
        Mufu "MUFU",
        Rro "RRO",
        Fchk "FCHK",
        Iset "ISET",
        Pset "PSET",
        Csetp "CSETP",
        R2p "R2P",
        Imul "IMUL" | "IMUL32I",
        Imad "IMAD",
        Imadsp "IMADSP",
        Lea "LEA",
        Ldc "LDC",
        Ldg "LDG",
        Stg "STG",
        Ld "LD",
        St "ST",
        Lds "LDS",
        Sts "STS",
        Ldl "LDL",
        Stl "STL",
        Membar "MEMBAR",
        Nop "NOP",
        Bpt "BPT",
        Depbar "DEPBAR",
        I2f "I2F",
        F2i "F2I",
        F2f "F2F",
        I2i "I2I",
        Dadd "DADD",
        Dmul "DMUL",
        Dfma "DFMA",
        Dmnmx "DMNMX",
        Dsetp "DSETP",
        Dset "DSET",
        Atomg "ATOM",
        Red "RED",
        Atoms "ATOMS",
        Shfl "SHFL",
        Vote "VOTE",
        Cs2r "CS2R",
        B2r "B2R",
    }
    unspelled {
        Un,
        Bin,
        Tern,
        LdBuf,
        StBuf,
        LdTex,
        StTex,
        Atom,
        Info,
        Table,
        Sample,
        Deriv,
    }
}

macro_rules! by_op {
    ($($v:ident($s:ident),)*) => {
        /// The op's SASS mnemonic, or `None` when it has no SASS form.
        pub fn mnemonic(op: &Op) -> Option<&'static str> {
            match op {
                $(Op::$v(o) => o.mnemonic_of(),)*
            }
        }

        /// Prints the op's canonical SASS text; `None` when it has no SASS form.
        pub(super) fn print_op(op: &Op, f: &mut fmt::Formatter<'_>) -> Option<fmt::Result> {
            match op {
                $(Op::$v(o) => o.print_sass(f),)*
            }
        }
    };
}
crate::for_each_op!(by_op);

/// The SASS modifier text of an IR value that prints with its dot (empty for the default).
pub trait Suffix: Copy {
    /// The modifier text, e.g. `.U8`.
    fn suffix(self) -> &'static str;
}

/// The SASS name of an IR value that prints without a dot.
pub trait Name: Copy {
    /// The name, e.g. `AND`.
    fn name(self) -> &'static str;
}

impl Suffix for MemSize {
    /// Empty for the default `.32`.
    fn suffix(self) -> &'static str {
        match self {
            MemSize::U8 => ".U8",
            MemSize::S8 => ".S8",
            MemSize::U16 => ".U16",
            MemSize::S16 => ".S16",
            MemSize::B32 => "",
            MemSize::B64 => ".64",
            MemSize::B128 => ".128",
            MemSize::U128 => ".U.128",
        }
    }
}

impl Suffix for CacheOp {
    fn suffix(self) -> &'static str {
        match self {
            CacheOp::Default => "",
            CacheOp::Ca => ".CA",
            CacheOp::Cg => ".CG",
            CacheOp::Cs => ".CS",
            CacheOp::Lu => ".LU",
            CacheOp::Cv => ".CV",
            CacheOp::Ci => ".CI",
            CacheOp::Wb => ".WB",
            CacheOp::Wt => ".WT",
        }
    }
}

impl Suffix for LdcMode {
    /// Empty for the default IA.
    fn suffix(self) -> &'static str {
        match self {
            LdcMode::Ia => "",
            LdcMode::Il => ".IL",
            LdcMode::Is => ".IS",
            LdcMode::Isl => ".ISL",
        }
    }
}

impl Suffix for PredOut {
    fn suffix(self) -> &'static str {
        match self {
            PredOut::None => "",
            PredOut::Z => ".Z",
            PredOut::Nz => ".NZ",
            PredOut::T => ".T",
            PredOut::F => ".F",
        }
    }
}

impl Suffix for Iadd3Shift {
    fn suffix(self) -> &'static str {
        match self {
            Iadd3Shift::None => "",
            Iadd3Shift::Rs => ".RS",
            Iadd3Shift::Ls => ".LS",
        }
    }
}

impl Suffix for ShfType {
    /// Empty for 32 bits.
    fn suffix(self) -> &'static str {
        match self {
            ShfType::B32 => "",
            ShfType::U64 => ".U64",
            ShfType::S64 => ".S64",
        }
    }
}

impl Name for LopFn {
    fn name(self) -> &'static str {
        match self {
            LopFn::And => "AND",
            LopFn::Or => "OR",
            LopFn::Xor => "XOR",
            LopFn::PassB => "PASS_B",
        }
    }
}

impl Name for BoolOp {
    fn name(self) -> &'static str {
        match self {
            BoolOp::And => "AND",
            BoolOp::Or => "OR",
            BoolOp::Xor => "XOR",
        }
    }
}

impl Name for Cmp {
    fn name(self) -> &'static str {
        match self {
            Cmp::F => "F",
            Cmp::Lt => "LT",
            Cmp::Eq => "EQ",
            Cmp::Le => "LE",
            Cmp::Gt => "GT",
            Cmp::Ne => "NE",
            Cmp::Ge => "GE",
            Cmp::T => "T",
        }
    }
}

impl Name for SpecialReg {
    fn name(self) -> &'static str {
        match self {
            SpecialReg::TidX => "SR_TID.X",
            SpecialReg::TidY => "SR_TID.Y",
            SpecialReg::TidZ => "SR_TID.Z",
            SpecialReg::CtaidX => "SR_CTAID.X",
            SpecialReg::CtaidY => "SR_CTAID.Y",
            SpecialReg::CtaidZ => "SR_CTAID.Z",
            SpecialReg::LaneId => "SR_LANEID",
            SpecialReg::EqMask => "SR_EQMASK",
            SpecialReg::LtMask => "SR_LTMASK",
            SpecialReg::LeMask => "SR_LEMASK",
            SpecialReg::GtMask => "SR_GTMASK",
            SpecialReg::GeMask => "SR_GEMASK",
            SpecialReg::ClockLo => "SR_CLOCKLO",
            SpecialReg::ClockHi => "SR_CLOCKHI",
            SpecialReg::LmemHiOff => "SR_LMEMHIOFF",
        }
    }
}

impl Name for MembarScope {
    fn name(self) -> &'static str {
        match self {
            MembarScope::Cta => "CTA",
            MembarScope::Gl => "GL",
            MembarScope::Sys => "SYS",
            MembarScope::Vc => "VC",
        }
    }
}

impl Name for MembarInval {
    /// The modifier's name; empty for [`MembarInval::None`], which has none.
    fn name(self) -> &'static str {
        match self {
            MembarInval::None => "",
            MembarInval::D => "IVALLD",
            MembarInval::T => "IVALLT",
            MembarInval::Td => "IVALLTD",
        }
    }
}
