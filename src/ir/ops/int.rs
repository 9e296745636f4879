//! Integer, predicate and condition-code ops added for ptxas output (docs/semantics.md §22a):
//! ISET, PSET, CSETP, R2P, IMUL (with its 32-bit-immediate form), IMAD.

use super::super::roles::{Flag, Operands, Roles};
use super::super::*;

/// The value a set-to-register op (ISET, PSET) writes for true: all ones, or with `.BF`
/// 1.0 in binary32 (false is 0 either way).
pub fn set_value(bf: bool) -> u32 {
    if bf {
        0x3f80_0000
    } else {
        u32::MAX
    }
}

/// `ISET[.BF].cmp[.U32][.X].bop Rd[.CC], Ra, Sb, Pp`: *r* = (Ra cmp Sb) bop Pp, the comparison
/// as ISETP's (with `.X` the high part of a wide one); Rd = *r* ? (1.0 with `.BF`, else
/// 0xffffffff) : 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iset {
    /// Destination.
    pub d: Reg,
    /// `.CC` on the destination.
    pub cc: bool,
    /// `.BF`: true is 1.0f.
    pub bf: bool,
    /// Comparison.
    pub cmp: Cmp,
    /// `.U32`: unsigned comparison.
    pub unsigned: bool,
    /// `.X`: the high part of a wide comparison (reads CF and ZF).
    pub x: bool,
    /// Combiner with Pp.
    pub bop: BoolOp,
    /// First source.
    pub a: Reg,
    /// Second source.
    pub b: Src,
    /// Combined predicate.
    pub c: PredSrc,
}

impl Operands for Iset {
    fn operands(&self, o: &mut Roles<'_>) {
        let Iset {
            d,
            cc,
            bf: _,
            cmp,
            unsigned: _,
            x,
            bop: _,
            a,
            b,
            c,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.pred_read(c);
        if x {
            match cmp {
                Cmp::F | Cmp::T => {}
                Cmp::Lt | Cmp::Ge => o.flag_read(Flag::Cf),
                Cmp::Eq | Cmp::Ne | Cmp::Gt | Cmp::Le => {
                    o.flag_read(Flag::Cf);
                    o.flag_read(Flag::Zf);
                }
            }
        }
        o.cc_write(cc);
    }
}

/// `PSET[.BF].bop1.bop2 Rd[.CC], Pa, Pb, Pc`: *r* = (Pa bop1 Pb) bop2 Pc; Rd as ISET's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pset {
    /// Destination.
    pub d: Reg,
    /// `.CC` on the destination.
    pub cc: bool,
    /// `.BF`: true is 1.0f.
    pub bf: bool,
    /// First combiner.
    pub bop1: BoolOp,
    /// Second combiner.
    pub bop2: BoolOp,
    /// Sources.
    pub a: PredSrc,
    /// Sources.
    pub b: PredSrc,
    /// Sources.
    pub c: PredSrc,
}

impl Operands for Pset {
    fn operands(&self, o: &mut Roles<'_>) {
        let Pset {
            d,
            cc,
            bf: _,
            bop1: _,
            bop2: _,
            a,
            b,
            c,
        } = *self;
        o.def(d);
        o.pred_read(a);
        o.pred_read(b);
        o.pred_read(c);
        o.cc_write(cc);
    }
}

/// `CSETP.test.bop Pd, Pq, CC, Pp`: *t* = the CC test; Pd = *t* bop Pp, Pq = (not *t*) bop Pp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Csetp {
    /// The condition-code test.
    pub test: CcTest,
    /// Combiner with Pp.
    pub bop: BoolOp,
    /// Destination: *t* bop Pp.
    pub p: Pred,
    /// Destination: (not *t*) bop Pp.
    pub q: Pred,
    /// Combined predicate.
    pub c: PredSrc,
}

impl Operands for Csetp {
    fn operands(&self, o: &mut Roles<'_>) {
        let Csetp {
            test,
            bop: _,
            p,
            q,
            c,
        } = *self;
        o.pred_def(p);
        o.pred_def(q);
        o.pred_read(c);
        let [z, s, cf, of] = test.expr().reads();
        for (on, f) in [(z, Flag::Zf), (s, Flag::Sf), (cf, Flag::Cf), (of, Flag::Of)] {
            if on {
                o.flag_read(f);
            }
        }
    }
}

/// `R2P[.B1|.B2|.B3] PR|CC, Ra, mask`: the inverse of P2R. With *k* the byte (`.Bk`, 0 by
/// default) and *m* the low 8 bits of mask: for each bit *i* set in *m*, the *i*-th target
/// (P*i* for `PR`, *i* < 7; ZF, SF, CF, OF for *i* = 0..3 with `CC`) takes bit 8*k* + *i* of
/// Ra; the others keep their values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct R2p {
    /// Byte of Ra the bits come from (0..=3).
    pub byte: u8,
    /// What is written: the predicates or the condition code.
    pub dst: P2rSrc,
    /// Source of the bits.
    pub a: Reg,
    /// Mask (register, constant or immediate; its low 8 bits).
    pub mask: Src,
}

impl Operands for R2p {
    fn operands(&self, o: &mut Roles<'_>) {
        let R2p {
            byte: _,
            dst,
            a,
            mask,
        } = *self;
        o.read(a);
        o.src(mask);
        // An immediate mask writes exactly its targets; any other mask may write each target
        // or leave it, so each is both read (kept) and written.
        let (bits, exact) = match mask {
            Src::Imm(m) | Src::Imm32(m) => (m as u8, true),
            Src::Reg(r) if r.is_rz() => (0, true),
            _ => (0xff, false),
        };
        match dst {
            P2rSrc::Pr => (0..7).filter(|p| bits >> p & 1 != 0).for_each(|p| {
                if !exact {
                    o.pred_read(PredSrc {
                        pred: Pred(p),
                        neg: false,
                    });
                }
                o.pred_def(Pred(p));
            }),
            P2rSrc::Cc => [Flag::Zf, Flag::Sf, Flag::Cf, Flag::Of]
                .into_iter()
                .enumerate()
                .filter(|(bit, _)| bits >> bit & 1 != 0)
                .for_each(|(_, f)| {
                    if !exact {
                        o.flag_read(f);
                    }
                    o.flag_def(f);
                }),
        }
    }
}

/// `IMUL[.U32|.S32][.U32|.S32][.HI] Rd[.CC], Ra, Sb`: the 64-bit product of Ra and Sb, each
/// read signed or unsigned (the first modifier for Ra, the second for Sb; unsigned by default);
/// Rd = its low word, or its high word with `.HI`.
///
/// With `Sb` a [`Src::Imm32`], its SASS form is `IMUL32I` with the same modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Imul {
    /// Destination.
    pub d: Reg,
    /// `.CC` on the destination.
    pub cc: bool,
    /// `.HI`: the high word.
    pub hi: bool,
    /// Ra is signed.
    pub a_signed: bool,
    /// Sb is signed.
    pub b_signed: bool,
    /// First source.
    pub a: Reg,
    /// Second source.
    pub b: Src,
}

impl Operands for Imul {
    fn operands(&self, o: &mut Roles<'_>) {
        let Imul {
            d,
            cc,
            hi: _,
            a_signed: _,
            b_signed: _,
            a,
            b,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.cc_write(cc);
    }
}

/// `IMAD[.U32|.S32][.U32|.S32][.HI][.X] Rd[.CC], Ra, Sb, Rc`: IMUL's word (low, or high with
/// `.HI`) of Ra × Sb, plus Rc, plus CF with `.X` (mod 2^32). `.CC`: CF = the carry out of that
/// addition, ZF and SF from Rd, OF = 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Imad {
    /// Destination.
    pub d: Reg,
    /// `.CC` on the destination.
    pub cc: bool,
    /// `.X`: add the carry flag in.
    pub x: bool,
    /// `.HI`: the high word of the product.
    pub hi: bool,
    /// Ra is signed.
    pub a_signed: bool,
    /// Sb is signed.
    pub b_signed: bool,
    /// First factor.
    pub a: Reg,
    /// Second factor (register, constant or signed 20-bit immediate).
    pub b: Src,
    /// Addend (register or constant; a constant only with a register Sb).
    pub c: Src,
}

impl Operands for Imad {
    fn operands(&self, o: &mut Roles<'_>) {
        let Imad {
            d,
            cc,
            x,
            hi: _,
            a_signed: _,
            b_signed: _,
            a,
            b,
            c,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.src(c);
        o.cc_write(cc);
        o.cf_read(x);
    }
}
