//! The decode functions of the conversions and the binary64 instructions (fields as envytools'
//! gm107 tables and Mesa NAK's sm50 encoder lay them out, checked against ptxas 12.9 output in
//! `tests/cubin/convert.cubin`). Their forms are in the table of `super`.

use super::*;

/// The float immediate of F2I/F2F/D* (an `F20` field): 19 bits at 20 and the sign at 56, the
/// top bits of a binary32 or of the high word of a binary64.
pub(super) fn f20(w: Word) -> Src {
    Src::Imm(((w.field(20, 19) << 12) | (w.field(56, 1) << 31)) as u32)
}

fn float_type(v: u64, what: &str) -> Result<FloatType, String> {
    match v {
        1 => Ok(FloatType::F16),
        2 => Ok(FloatType::F32),
        3 => Ok(FloatType::F64),
        _ => Err(format!("{what} float type {v:#x} is not valid")),
    }
}

fn int_type(size: u64, signed: bool) -> IntType {
    IntType {
        bits: 8 << size,
        signed,
    }
}

fn fp_round(v: u64) -> FpRound {
    [FpRound::Rn, FpRound::Rm, FpRound::Rp, FpRound::Rz][(v & 3) as usize]
}

fn int_round(v: u64) -> IntRound {
    [
        IntRound::Round,
        IntRound::Floor,
        IntRound::Ceil,
        IntRound::Trunc,
    ][(v & 3) as usize]
}

/// The modifiers at `neg` and `abs`, refused on an immediate (the text has no spelling).
fn fmods(w: Word, neg: u32, abs: u32, b: Src) -> Result<FMod, String> {
    let m = FMod {
        neg: w.bit(neg),
        abs: w.bit(abs),
    };
    if matches!(b, Src::Imm(_)) && (m.neg || m.abs) {
        return Err("a negated or absolute immediate operand is not supported".into());
    }
    Ok(m)
}

fn conv_common(w: Word, what: &str) -> Result<(), String> {
    no(w, 47, &format!("{what} with .CC"))
}

/// The byte select of I2F/I2I (bits 41-42, envytools' `b1`-`b3`): the source starts at that
/// byte; valid on an 8-bit source (`.B1`-`.B3`) and, as 2 (`.H1`), on a 16-bit one; never on
/// an immediate.
fn byte_sel(w: Word, what: &str, bits: u8, b: Src) -> Result<u8, String> {
    let sel = w.field(41, 2) as u8;
    match (sel, bits) {
        (0, _) => Ok(0),
        _ if matches!(b, Src::Imm(_)) => {
            Err(format!("{what} byte select on an immediate is not valid"))
        }
        (_, 8) | (2, 16) => Ok(sel),
        _ => Err(format!(
            "{what} byte select {sel:#x} of a {bits}-bit source is not valid"
        )),
    }
}

/// The half select of F2I/F2F (bit 41): `.H1`, the binary16 in the upper half.
fn half_sel(w: Word, what: &str, src: FloatType, b: Src) -> Result<u8, String> {
    if !w.bit(41) {
        return Ok(0);
    }
    if src != FloatType::F16 || matches!(b, Src::Imm(_)) {
        return Err(format!(
            "{what} half select needs a binary16 register or constant source"
        ));
    }
    Ok(2)
}

pub(super) fn i2f(w: Word, _: u32, b: Src) -> R {
    conv_common(w, "I2F")?;
    let src = int_type(w.field(10, 2), w.bit(13));
    let m = fmods(w, 45, 49, b)?;
    ok(I2f {
        d: w.reg(0),
        sel: byte_sel(w, "I2F", src.bits, b)?,
        dst: float_type(w.field(8, 2), "I2F destination")?,
        src,
        rnd: fp_round(w.field(39, 2)),
        neg: m.neg,
        abs: m.abs,
        b,
    })
}

pub(super) fn f2i(w: Word, _: u32, b: Src) -> R {
    conv_common(w, "F2I")?;
    no(w, 42, "F2I bit 42")?;
    let src = float_type(w.field(10, 2), "F2I source")?;
    imm_not_f16(src, b)?;
    let m = fmods(w, 45, 49, b)?;
    ok(F2i {
        d: w.reg(0),
        sel: half_sel(w, "F2I", src, b)?,
        ftz: w.bit(44),
        dst: int_type(w.field(8, 2), w.bit(12)),
        src,
        rnd: int_round(w.field(39, 2)),
        neg: m.neg,
        abs: m.abs,
        b,
    })
}

fn imm_not_f16(src: FloatType, b: Src) -> Result<(), String> {
    if src == FloatType::F16 && matches!(b, Src::Imm(_)) {
        return Err("an immediate binary16 source is not supported".into());
    }
    Ok(())
}

pub(super) fn f2f(w: Word, _: u32, b: Src) -> R {
    // Bit 42 is the rounding to an integral value here.
    no(w, 47, "F2F with .CC")?;
    let dst = float_type(w.field(8, 2), "F2F destination")?;
    let src = float_type(w.field(10, 2), "F2F source")?;
    imm_not_f16(src, b)?;
    let rnd = if w.bit(42) {
        if dst != src {
            return Err("F2F rounding to an integral value across formats is not supported".into());
        }
        F2fRound::Int(int_round(w.field(39, 2)))
    } else {
        F2fRound::Fp(fp_round(w.field(39, 2)))
    };
    let m = fmods(w, 45, 49, b)?;
    ok(F2f {
        d: w.reg(0),
        sel: half_sel(w, "F2F", src, b)?,
        ftz: w.bit(44),
        sat: w.bit(50),
        dst,
        src,
        rnd,
        neg: m.neg,
        abs: m.abs,
        b,
    })
}

pub(super) fn i2i(w: Word, _: u32, b: Src) -> R {
    let (ds, ss) = (w.field(8, 2), w.field(10, 2));
    if ds == 3 || ss == 3 {
        return Err("I2I with a 64-bit type is not valid".into());
    }
    let m = fmods(w, 45, 49, b)?;
    let src = int_type(ss, w.bit(13));
    ok(I2i {
        d: w.reg(0),
        sel: byte_sel(w, "I2I", src.bits, b)?,
        cc: w.bit(47),
        sat: w.bit(50),
        dst: int_type(ds, w.bit(12)),
        src,
        neg: m.neg,
        abs: m.abs,
        b,
    })
}

pub(super) fn dadd(w: Word, _: u32, b: Src) -> R {
    no(w, 47, "DADD with .CC")?;
    ok(Dadd {
        d: w.reg(0),
        rnd: fp_round(w.field(39, 2)),
        ma: fmods(w, 48, 46, Src::Reg(Reg::RZ))?,
        a: w.reg(8),
        mb: fmods(w, 45, 49, b)?,
        b,
    })
}

pub(super) fn dmul(w: Word, _: u32, b: Src) -> R {
    no(w, 47, "DMUL with .CC")?;
    let (b, neg) = super::fold_neg(w, b, 48, true)?;
    ok(Dmul {
        d: w.reg(0),
        rnd: fp_round(w.field(39, 2)),
        neg,
        a: w.reg(8),
        b,
    })
}

pub(super) fn dfma(w: Word, _: u32, b: Src) -> R {
    no(w, 47, "DFMA with .CC")?;
    let (b, neg_ab) = super::fold_neg(w, b, 48, true)?;
    ok(Dfma {
        d: w.reg(0),
        rnd: fp_round(w.field(50, 2)),
        neg_ab,
        a: w.reg(8),
        b,
        neg_c: w.bit(49),
        c: Src::Reg(w.reg(39)),
    })
}

/// DFMA's form with a register Sb (at 39) and a constant Sc.
pub(super) fn dfma_rc(w: Word, _: u32, _: Src) -> R {
    no(w, 47, "DFMA with .CC")?;
    ok(Dfma {
        d: w.reg(0),
        rnd: fp_round(w.field(50, 2)),
        neg_ab: w.bit(48),
        a: w.reg(8),
        b: Src::Reg(w.reg(39)),
        neg_c: w.bit(49),
        c: Src::Const(w.cbuf()),
    })
}

pub(super) fn dmnmx(w: Word, _: u32, b: Src) -> R {
    no(w, 47, "DMNMX with .CC")?;
    ok(Dmnmx {
        d: w.reg(0),
        ma: fmods(w, 48, 46, Src::Reg(Reg::RZ))?,
        a: w.reg(8),
        mb: fmods(w, 45, 49, b)?,
        b,
        p: w.psrc(39, 42),
    })
}

fn dcmp(w: Word) -> FCmp {
    FCmp::ALL[w.field(48, 4) as usize]
}

pub(super) fn dsetp(w: Word, _: u32, b: Src) -> R {
    ok(Dsetp {
        cmp: dcmp(w),
        bop: bool_op(w.field(45, 2))?,
        p: w.pred(3),
        q: w.pred(0),
        ma: fmods(w, 43, 7, Src::Reg(Reg::RZ))?,
        a: w.reg(8),
        mb: fmods(w, 6, 44, b)?,
        b,
        c: w.psrc(39, 42),
    })
}

pub(super) fn dset(w: Word, _: u32, b: Src) -> R {
    ok(Dset {
        d: w.reg(0),
        cc: w.bit(47),
        cmp: dcmp(w),
        bf: w.bit(52),
        bop: bool_op(w.field(45, 2))?,
        ma: fmods(w, 43, 54, Src::Reg(Reg::RZ))?,
        a: w.reg(8),
        mb: fmods(w, 53, 44, b)?,
        b,
        c: w.psrc(39, 42),
    })
}
