//! IMADSP: a multiply-add of operand parts (24-bit and 16-bit halves), decoded and run by a
//! documented rule (docs/semantics.md §22a); ptxas 12.9 writes none for sm_50.

use crate::ir::operand::*;
use crate::ir::roles::*;

/// How IMADSP reads an operand: the whole word, its low 24 bits or one 16-bit half, zero- or
/// sign-extended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpPart {
    /// `.U32`: the word, unsigned.
    U32,
    /// `.S32`: the word, signed.
    S32,
    /// `.U24`: bits 23:0, zero-extended.
    U24,
    /// `.S24`: bits 23:0, sign-extended.
    S24,
    /// `.U16H0`: bits 15:0, zero-extended.
    U16H0,
    /// `.S16H0`: bits 15:0, sign-extended.
    S16H0,
    /// `.U16H1`: bits 31:16, zero-extended.
    U16H1,
    /// `.S16H1`: bits 31:16, sign-extended.
    S16H1,
}

impl SpPart {
    /// Every part, in the order of Ra's 3-bit type field (bit 0 of the field is the sign).
    pub const ALL: [SpPart; 8] = [
        SpPart::U32,
        SpPart::S32,
        SpPart::U24,
        SpPart::S24,
        SpPart::U16H0,
        SpPart::S16H0,
        SpPart::U16H1,
        SpPart::S16H1,
    ];

    /// The modifier as written (`U24`).
    pub fn name(self) -> &'static str {
        match self {
            SpPart::U32 => "U32",
            SpPart::S32 => "S32",
            SpPart::U24 => "U24",
            SpPart::S24 => "S24",
            SpPart::U16H0 => "U16H0",
            SpPart::S16H0 => "S16H0",
            SpPart::U16H1 => "U16H1",
            SpPart::S16H1 => "S16H1",
        }
    }

    /// Whether the part is sign-extended.
    pub fn signed(self) -> bool {
        matches!(
            self,
            SpPart::S32 | SpPart::S24 | SpPart::S16H0 | SpPart::S16H1
        )
    }

    /// The part of `x`, extended to 32 bits (its value mod 2^32).
    pub fn of(self, x: u32) -> u32 {
        match self {
            SpPart::U32 | SpPart::S32 => x,
            SpPart::U24 => x & 0xff_ffff,
            SpPart::S24 => (((x << 8) as i32) >> 8) as u32,
            SpPart::U16H0 => x & 0xffff,
            SpPart::S16H0 => x as u16 as i16 as i32 as u32,
            SpPart::U16H1 => x >> 16,
            SpPart::S16H1 => ((x as i32) >> 16) as u32,
        }
    }
}

/// `IMADSP.a.b.c Rd[.CC], Ra, Sb, Rc`: Rd = low32(part_a(Ra) × part_b(Sb) + part_c(Rc)). Sb's
/// part is one of `.U24 .S24 .U16H0 .S16H0`; Rc's one of `.U32 .S32 .U24 .S24 .U16H0 .S16H0`
/// with the sign of Ra's (the encoding has one sign bit for both). `.CC`: ZF and SF from Rd,
/// CF = OF = 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Imadsp {
    /// Destination.
    pub d: Reg,
    /// `.CC`.
    pub cc: bool,
    /// Ra's part.
    pub pa: SpPart,
    /// Sb's part.
    pub pb: SpPart,
    /// Rc's part.
    pub pc: SpPart,
    /// First factor.
    pub a: Reg,
    /// Second factor (register, constant or signed 20-bit immediate).
    pub b: Src,
    /// Addend (register, or a constant when Sb is a register).
    pub c: Src,
}

impl Operands for Imadsp {
    fn operands(&self, o: &mut Roles<'_>) {
        let Imadsp {
            d,
            cc,
            pa: _,
            pb: _,
            pc: _,
            a,
            b,
            c,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.src(c);
        o.cc_write(cc);
    }
}
