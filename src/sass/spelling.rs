//! The SASS spelling table: which mnemonic names which IR op, and the text of modifier values.
//!
//! The IR's op table ([`for_each_op!`](crate::for_each_op)) carries no text. Here, one line per op
//! gives it a SASS mnemonic (the op struct then implements [`SassSyntax`]: parse and canonical
//! print), with `| "FOO32I"` its 32-bit-immediate form's mnemonic too (the op struct then also
//! implements [`SassImm32Form`]: that form's parse and print, for a value whose `Sb` is
//! [`Src::Imm32`]), or declares that it has none (an op another front-end introduced); the printer
//! returns [`Unspelled`](super::print::Unspelled) for such an op. An op of the IR table missing
//! from this table is a compile error ([`Spelling`] not implemented), in the expansion of
//! [`mnemonic`] below. The text of modifier values is in [`super::words`].

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
