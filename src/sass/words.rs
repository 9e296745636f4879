//! The text of the IR's modifier values in SASS: [`Suffix`] for the values that print with their
//! dot (`.U8`, `.EF`), [`Name`] for those that print without one (`AND`, `SR_TID.X`). The syntax
//! of each op ([`super::syntax`]) reads and prints its modifiers through them.

use crate::ir::*;

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
