//! The Maxwell (SM 5.x) encoding table: which bit patterns of a 64-bit instruction word are which
//! op, and where each operand field sits.
//!
//! Every op of the IR table ([`for_each_op!`](crate::for_each_op)) states its encodings here,
//! once, through the [`Encoded`] trait (the `maxwell_table!` below implements it for every op;
//! an op missing from the table is a compile error). An op another front-end introduced has no
//! encoding (an empty list). Control instructions (BRA, SSY, SYNC, EXIT, BAR, ...) are not ops;
//! their encodings are [`CONTROL`].
//!
//! A [`Form`] is one encoding: the fixed bits (`bits` under `mask`), where its second source
//! comes from ([`B`]: a register at bit 20, a constant `c[bank][offset]` with the bank at bit 34
//! and the word offset at bit 20, a 20-bit signed immediate at bit 20 with its sign at bit 56,
//! or none), and a function that reads the remaining fields into the op. A flag the IR does not
//! model (`.SAT` on IADD, `.X` on SHL, ...) is refused by name rather than dropped.
//!
//! The field positions are public facts about the hardware, documented by envytools
//! (`envydis/gm107.c`) and Mesa (NAK's `sm50.rs`, codegen's `nv50_ir_emit_gm107.cpp`); this
//! table is written from those descriptions, and its tests check it against what NVIDIA's
//! `ptxas` writes (tests/cubin).

use crate::ir::build::ControlKind;
use crate::ir::build::Target;
use crate::ir::*;

mod convert;

/// One 64-bit instruction word, with accessors for its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word(pub u64);

impl Word {
    /// `n` bits from bit `lo`.
    pub fn field(self, lo: u32, n: u32) -> u64 {
        (self.0 >> lo) & ((1u64 << n) - 1)
    }
    /// Bit `b`.
    pub fn bit(self, b: u32) -> bool {
        self.0 >> b & 1 != 0
    }
    /// A register field (8 bits; 255 is RZ).
    pub fn reg(self, lo: u32) -> Reg {
        Reg(self.field(lo, 8) as u8)
    }
    /// A predicate field (3 bits; 7 is PT).
    pub fn pred(self, lo: u32) -> Pred {
        Pred(self.field(lo, 3) as u8)
    }
    /// A predicate source with its inversion bit.
    pub fn psrc(self, lo: u32, not: u32) -> PredSrc {
        PredSrc {
            pred: self.pred(lo),
            neg: self.bit(not),
        }
    }
    /// A predicate destination that is optional in the text: `None` for PT.
    pub fn opt_pred(self, lo: u32) -> Option<Pred> {
        Some(self.pred(lo)).filter(|p| !p.is_pt())
    }
    /// `n` bits from `lo`, sign-extended.
    pub fn simm(self, lo: u32, n: u32) -> i64 {
        let v = self.field(lo, n);
        ((v << (64 - n)) as i64) >> (64 - n)
    }
    /// The 20-bit signed immediate of the ALU forms: 19 bits at 20, the sign at 56.
    pub fn imm20(self) -> u32 {
        let v = self.field(20, 19) | (self.field(56, 1) << 19);
        (((v << 44) as i64) >> 44) as u32
    }
    /// The 20-bit float immediate: bits 20..39 are bits 12..31 of a binary32 and bit 56 its
    /// sign; the low 12 bits are zero.
    pub fn fimm20(self) -> u32 {
        ((self.field(20, 19) << 12) | (self.field(56, 1) << 31)) as u32
    }
    /// The constant operand of the ALU forms: the bank at 34 (5 bits), the word offset at 20
    /// (14 bits).
    pub fn cbuf(self) -> ConstRef {
        ConstRef {
            bank: self.field(34, 5) as u8,
            offset: (self.field(20, 14) as u16) << 2,
        }
    }
    /// The instruction's guard: the predicate at 16, inverted by bit 19.
    pub fn guard(self) -> Guard {
        Guard(self.psrc(16, 19))
    }
}

/// Where a form takes its second source (`Sb`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum B {
    /// No `Sb` in the shared slot (the form reads its own fields).
    None,
    /// A register at bit 20.
    Reg,
    /// `c[bank][offset]`: bank at 34, word offset at 20.
    Const,
    /// A 20-bit signed immediate: 19 bits at 20, sign at 56.
    Imm,
    /// A 16-bit unsigned immediate at 20 (XMAD).
    U16,
    /// A 20-bit float immediate: the top 20 bits of a binary32 (19 at 20, the sign at 56).
    F20,
    /// A 32-bit immediate at 20: the `*32I` forms, read as [`Src::Imm32`].
    Imm32,
}

impl B {
    /// The source this slot holds in `w` (`RZ` for [`B::None`]).
    pub fn read(self, w: Word) -> Src {
        match self {
            B::None => Src::Reg(Reg::RZ),
            B::Reg => Src::Reg(w.reg(20)),
            B::Const => Src::Const(w.cbuf()),
            B::Imm => Src::Imm(w.imm20()),
            B::U16 => Src::Imm(w.field(20, 16) as u32),
            B::F20 => Src::Imm(w.fimm20()),
            B::Imm32 => Src::Imm32(w.field(20, 32) as u32),
        }
    }
}

/// What a word decodes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// A per-lane op.
    Op(Op),
    /// A control instruction; a branch target is an absolute address.
    Control(ControlKind),
}

/// Decodes the fields of a word that matched a form: `pc` is the word's address (for branch
/// targets), `b` the form's second source. An error names what the IR cannot represent.
pub type DecodeFn = fn(w: Word, pc: u32, b: Src) -> Result<Decoded, String>;

/// One encoding: the word matches when `word & mask == bits`.
#[derive(Clone, Copy)]
pub struct Form {
    /// The mnemonic, as nvdisasm prints it (for messages and coverage).
    pub mnemonic: &'static str,
    /// The fixed bits.
    pub bits: u64,
    /// Which bits are fixed.
    pub mask: u64,
    /// Where `Sb` comes from.
    pub b: B,
    /// Reads the other fields.
    pub decode: DecodeFn,
}

impl std::fmt::Debug for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({:#018x} under {:#018x}, {:?})",
            self.mnemonic, self.bits, self.mask, self.b
        )
    }
}

impl Form {
    /// Whether `w` is in this encoding.
    pub fn matches(&self, w: Word) -> bool {
        w.0 & self.mask == self.bits
    }
}

/// The Maxwell encodings of an op struct (implemented by `maxwell_table!`, never by hand).
pub trait Encoded {
    /// Every form of the op; empty for an op with no Maxwell encoding.
    const FORMS: &'static [Form];
}

/// Opcode bits in the top 16 bits of the word.
const fn op(hi: u16) -> u64 {
    (hi as u64) << 48
}

/// The usual masks: the top 13 bits (register and constant forms), the same with bit 56 free
/// (immediate forms, whose sign sits there), the top 12 bits.
const M13: u64 = 0xfff8 << 48;
const M13I: u64 = 0xfef8 << 48;
const M12: u64 = 0xfff0 << 48;
const M12I: u64 = 0xfef0 << 48;
const M9: u64 = 0xff80 << 48;
const M9I: u64 = 0xfe80 << 48;
const M8: u64 = 0xff00 << 48;
const M7: u64 = 0xfe00 << 48;
const M6: u64 = 0xfc00 << 48;

/// The three forms of an ALU op whose `Sb` is a register, a constant or an immediate, at
/// `reg` (register form), `reg - 0x1000` (constant form) and `reg - 0x2400` (immediate form)
/// as Maxwell lays them out, with the given masks.
macro_rules! rci {
    ($name:literal, $reg:expr, $cb:expr, $imm:expr, $m:expr, $mi:expr, $f:expr $(; $extra:expr)*) => {
        &[
            Form {
                mnemonic: $name,
                bits: op($reg),
                mask: $m,
                b: B::Reg,
                decode: $f,
            },
            Form {
                mnemonic: $name,
                bits: op($cb),
                mask: $m,
                b: B::Const,
                decode: $f,
            },
            Form {
                mnemonic: $name,
                bits: op($imm),
                mask: $mi,
                b: B::Imm,
                decode: $f,
            },
            $($extra,)*
        ]
    };
}

/// One form.
/// A float op's register, constant and 20-bit float immediate forms.
macro_rules! rcf {
    ($name:literal, $reg:expr, $cb:expr, $imm:expr, $m:expr, $mi:expr, $f:expr $(; $extra:expr)*) => {
        &[
            form!($name, op($reg), $m, Reg, $f),
            form!($name, op($cb), $m, Const, $f),
            form!($name, op($imm), $mi, F20, $f),
            $($extra,)*
        ]
    };
}

macro_rules! form {
    ($name:literal, $bits:expr, $mask:expr, $b:ident, $f:expr) => {
        Form {
            mnemonic: $name,
            bits: $bits,
            mask: $mask,
            b: B::$b,
            decode: $f,
        }
    };
}

type R = Result<Decoded, String>;

/// The fields VMNMX and VABSDIFF share (Sb read per form: a register, or 16 bits at 20): Rd at
/// 0, Ra at 8, Rc at 39; Ra's part at 36-38 (38 clear: byte 36-37; 38 set and 37 clear: half
/// 36; both set: the word), a register Sb's at 28-30 likewise; `.CC` 47 (not modelled), Ra and
/// Sb signed 48 and 49, the secondary step 51-53, `.SD` 54, `.SAT` 55.
fn video(w: Word, b: Src, mnemonic: &str) -> Result<Video, String> {
    no(w, 47, &format!("{mnemonic}.CC"))?;
    let part = |lo: u32| match (w.bit(lo + 2), w.bit(lo + 1)) {
        (false, _) => VideoPart::Byte(w.field(lo, 2) as u8),
        (true, false) => VideoPart::Half(w.field(lo, 1) as u8),
        (true, true) => VideoPart::Word,
    };
    Ok(Video {
        d: w.reg(0),
        d_signed: w.bit(54),
        sat: w.bit(55),
        second: VideoSecond::ALL[w.field(51, 3) as usize],
        a: w.reg(8),
        a_part: part(36),
        a_signed: w.bit(48),
        b,
        b_part: if w.bit(50) {
            part(28)
        } else {
            VideoPart::Half(0)
        },
        b_signed: w.bit(49),
        c: w.reg(39),
    })
}

/// Refuses a set flag the IR does not model.
fn no(w: Word, bit: u32, what: &str) -> Result<(), String> {
    if w.bit(bit) {
        Err(format!("{what} is not supported"))
    } else {
        Ok(())
    }
}

/// Refuses a field that is not the one value the IR models.
fn only(w: Word, lo: u32, n: u32, want: u64, what: &str) -> Result<(), String> {
    let v = w.field(lo, n);
    if v == want {
        Ok(())
    } else {
        Err(format!("{what} {v:#x} is not supported"))
    }
}

fn ok(op: impl Into<Op>) -> R {
    Ok(Decoded::Op(op.into()))
}

/// Refuses the negation bit (48) on an immediate `Sb`: the text writes a negative immediate as
/// a value, so a negated one has no spelling.
fn neg_imm(w: Word, b: Src) -> Result<(), String> {
    if matches!(b, Src::Imm(_)) && w.bit(48) {
        Err("a negated immediate operand is not supported".into())
    } else {
        Ok(())
    }
}

/// The IADD-style pair of negation bits: both set is `.PO` (plus one), as the hardware encodes
/// it; returns `(po, neg_a, neg_b)`.
fn negs(w: Word, a: u32, b: u32) -> (bool, bool, bool) {
    let (na, nb) = (w.bit(a), w.bit(b));
    if na && nb {
        (true, false, false)
    } else {
        (false, na, nb)
    }
}

fn bool_op(v: u64) -> Result<BoolOp, String> {
    match v {
        0 => Ok(BoolOp::And),
        1 => Ok(BoolOp::Or),
        2 => Ok(BoolOp::Xor),
        _ => Err(format!("boolean operation {v:#x} is not valid")),
    }
}

/// The comparison field of ISETP and ICMP (3 bits).
fn cmp(v: u64) -> Cmp {
    Cmp::ALL[(v & 7) as usize]
}

fn pout(v: u64) -> PredOut {
    match v {
        1 => PredOut::T,
        2 => PredOut::Z,
        3 => PredOut::Nz,
        _ => PredOut::None,
    }
}

/// `.CC` (at bit `cc`) and `.X` (at bit `x`) of a logic or shift op.
fn logic_cc(w: Word, cc: u32, x: u32) -> LogicCc {
    LogicCc {
        cc: w.bit(cc),
        x: w.bit(x),
    }
}

fn lop_fn(v: u64) -> LopFn {
    match v {
        0 => LopFn::And,
        1 => LopFn::Or,
        2 => LopFn::Xor,
        _ => LopFn::PassB,
    }
}

/// A memory size field (`.U8 .S8 .U16 .S16 .32 .64 .128 [.U.128]`).
fn mem_size(v: u64, u128_ok: bool) -> Result<MemSize, String> {
    Ok(match v {
        0 => MemSize::U8,
        1 => MemSize::S8,
        2 => MemSize::U16,
        3 => MemSize::S16,
        4 => MemSize::B32,
        5 => MemSize::B64,
        6 => MemSize::B128,
        7 if u128_ok => MemSize::U128,
        _ => return Err(format!("memory size {v:#x} is not valid here")),
    })
}

/// An address `[Ra + imm]` from the register at 8 and an `n`-bit immediate at 20: signed with
/// a base register, unsigned (absolute) with RZ.
fn addr(w: Word, n: u32) -> Addr {
    let base = w.reg(8);
    if base.is_rz() {
        Addr {
            base: None,
            offset: w.field(20, n) as i32,
        }
    } else {
        Addr {
            base: Some(base),
            offset: w.simm(20, n) as i32,
        }
    }
}

/// The condition-code test of BRA, SYNC, EXIT, BRK, CONT (5 bits at 0): 0xf is always.
fn cc_test(w: Word) -> Result<Option<CcTest>, String> {
    match w.field(0, 5) {
        0xf => Ok(None),
        v => CcTest::from_code(v).map(Some).ok_or_else(|| {
            format!("condition-code test {v:#x} (CSM_*, FCSM_*, RLE, RGT) is not supported")
        }),
    }
}

/// A pc-relative branch target: 24 signed bits at 20, from the next instruction. A target on
/// a scheduling word (a multiple of 0x20, where ptxas points branches to the first instruction
/// of a group) is the instruction after it.
fn target(w: Word, pc: u32) -> Target {
    let t = (i64::from(pc) + 8 + w.simm(20, 24)) as u32;
    Target::Addr(if t.is_multiple_of(0x20) {
        t.wrapping_add(8)
    } else {
        t
    })
}

macro_rules! maxwell_table {
    ($($s:ident => $forms:expr,)*) => {
        $(
            impl Encoded for $s {
                const FORMS: &'static [Form] = $forms;
            }
        )*

        /// Every op's forms, in table order.
        pub fn op_forms() -> impl Iterator<Item = &'static Form> {
            [$(<$s as Encoded>::FORMS,)*].into_iter().flatten()
        }
    };
}

/// Checks at compile time that every op of the IR table is in [`maxwell_table!`].
macro_rules! all_ops_encoded {
    ($($v:ident($s:ident),)*) => {
        #[allow(dead_code)]
        const fn _every_op_has_encodings() {
            $(let _ = <$s as Encoded>::FORMS;)*
        }
    };
}
crate::for_each_op!(all_ops_encoded);

maxwell_table! {
    Mov => rci!("MOV", 0x5c98, 0x4c98, 0x3898, M13, M13I, |w, _, b| {
        only(w, 39, 4, 0xf, "MOV lane mask")?;
        ok(Mov { d: w.reg(0), b })
    }; form!("MOV32I", op(0x0100), M12, Imm32, |w, _, b| {
        only(w, 12, 4, 0xf, "MOV32I lane mask")?;
        ok(Mov { d: w.reg(0), b })
    })),
    S2r => &[form!("S2R", op(0xf0c8), M13, None, |w, _, _| {
        let sr = match w.field(20, 8) {
            0x00 => SpecialReg::LaneId,
            0x21 => SpecialReg::TidX,
            0x22 => SpecialReg::TidY,
            0x23 => SpecialReg::TidZ,
            0x25 => SpecialReg::CtaidX,
            0x26 => SpecialReg::CtaidY,
            0x27 => SpecialReg::CtaidZ,
            0x38 => SpecialReg::EqMask,
            0x39 => SpecialReg::LtMask,
            0x3a => SpecialReg::LeMask,
            0x3b => SpecialReg::GtMask,
            0x3c => SpecialReg::GeMask,
            0x37 => SpecialReg::LmemHiOff,
            0x50 => SpecialReg::ClockLo,
            0x51 => SpecialReg::ClockHi,
            v => return Err(format!("special register {v:#x} is not supported")),
        };
        ok(S2r { d: w.reg(0), sr })
    })],
    Vmnmx => &[
        form!("VMNMX", op(0x3a04), 0xfe04 << 48, Reg, |w, _, b| {
            ok(Vmnmx { max: w.bit(56), v: video(w, b, "VMNMX")? })
        }),
        form!("VMNMX", op(0x3a00), 0xfe04 << 48, U16, |w, _, b| {
            ok(Vmnmx { max: w.bit(56), v: video(w, b, "VMNMX")? })
        }),
    ],
    Vabsdiff => &[
        form!("VABSDIFF", op(0x5404), 0xff04 << 48, Reg, |w, _, b| {
            ok(Vabsdiff { v: video(w, b, "VABSDIFF")? })
        }),
        form!("VABSDIFF", op(0x5400), 0xff04 << 48, U16, |w, _, b| {
            ok(Vabsdiff { v: video(w, b, "VABSDIFF")? })
        }),
    ],
    // .SAT at 50 (ptxas writes it for add.sat.s32 and sub.sat.s32), .X at 43, .CC at 47.
    // VABSDIFF4 (envytools' fields): .SD at 38, Ra and Rb signed at 48 and 49, .SAT at 50, .ACC
    // at 53; the destination byte mask (51, 52, 36, 37: bytes 0 to 3) and the byte selects of
    // Ra (32-35) and Rb (28-31, from the 8 bytes {Rb, Ra}) as ptxas writes them: every byte,
    // the default selects (0x4: Ra's bytes 3210, Rb's 7654); others are refused.
    Vabsdiff4 => &[form!("VABSDIFF4", op(0x5000), M9, Reg, |w, _, _| {
        no(w, 47, "VABSDIFF4.CC")?;
        no(w, 54, "VABSDIFF4 secondary operation 0x2")?;
        if !(w.bit(51) && w.bit(52) && w.bit(36) && w.bit(37)) {
            return Err("VABSDIFF4 with a partial destination byte mask is not supported".into());
        }
        only(w, 32, 4, 4, "VABSDIFF4 byte select of Ra")?;
        only(w, 28, 4, 4, "VABSDIFF4 byte select of Rb")?;
        let (sat, acc) = (w.bit(50), w.bit(53));
        if sat && acc {
            return Err("VABSDIFF4.SAT.ACC is not supported".into());
        }
        ok(Vabsdiff4 {
            d: w.reg(0), d_signed: w.bit(38), sat, acc, a: w.reg(8), a_signed: w.bit(48),
            b: w.reg(20), b_signed: w.bit(49), c: w.reg(39),
        })
    })],
    Iadd => rci!("IADD", 0x5c10, 0x4c10, 0x3810, M13, M13I, |w, _, b| {
        neg_imm(w, b)?;
        let (po, neg_a, neg_b) = negs(w, 49, 48);
        let (sat, cc, x) = (w.bit(50), w.bit(47), w.bit(43));
        if sat && (cc || x || po) {
            return Err("IADD.SAT with .CC, .X or .PO is not supported".into());
        }
        ok(Iadd { d: w.reg(0), sat, cc, x, po, neg_a, a: w.reg(8), neg_b, b })
    };
    // IADD32I: .SAT at 54 (ptxas writes it for add.sat.s32 with an immediate), .CC 52, .X 53.
    form!("IADD32I", op(0x1c00), 0xfe80 << 48, Imm32, |w, _, b| {
        let (sat, cc, x) = (w.bit(54), w.bit(52), w.bit(53));
        if sat && (cc || x) {
            return Err("IADD32I.SAT with .CC or .X is not supported".into());
        }
        ok(Iadd {
            d: w.reg(0), sat, cc, x, po: false, neg_a: w.bit(56), a: w.reg(8), neg_b: false, b,
        })
    });
    form!("IADD32I", op(0x1d80), 0xff80 << 48, Imm32, |w, _, b| {
        no(w, 54, "IADD32I.SAT.PO")?;
        ok(Iadd {
            d: w.reg(0), sat: false, cc: w.bit(52), x: w.bit(53), po: true, neg_a: false,
            a: w.reg(8), neg_b: false, b,
        })
    })),
    Iadd3 => &[
        form!("IADD3", op(0x5cc0), M12, Reg, |w, _, b| {
            let shift = match w.field(37, 2) {
                0 => Iadd3Shift::None,
                1 => Iadd3Shift::Rs,
                2 => Iadd3Shift::Ls,
                v => return Err(format!("IADD3 shift {v:#x} is not valid")),
            };
            let half = |lo: u32| match w.field(lo, 2) {
                0 => Ok(Half::None),
                1 => Ok(Half::H0),
                2 => Ok(Half::H1),
                v => Err(format!("IADD3 half select {v:#x} is not valid")),
            };
            ok(Iadd3 {
                d: w.reg(0), cc: w.bit(47), x: w.bit(48), shift,
                a: Iadd3Src { neg: w.bit(51), src: w.reg(8), half: half(35)? },
                b: Iadd3Src { neg: w.bit(50), src: b, half: half(33)? },
                c: Iadd3Src { neg: w.bit(49), src: w.reg(39), half: half(31)? },
            })
        }),
        form!("IADD3", op(0x4cc0), M12, Const, iadd3_plain),
        form!("IADD3", op(0x38c0), M12I, Imm, |w, pc, b| {
            if w.bit(50) {
                return Err("a negated immediate operand is not supported".into());
            }
            iadd3_plain(w, pc, b)
        }),
    ],
    Iscadd => rci!("ISCADD", 0x5c18, 0x4c18, 0x3818, M13, M13I, |w, _, b| {
        neg_imm(w, b)?;
        let (po, neg_a, neg_b) = negs(w, 49, 48);
        ok(Iscadd {
            d: w.reg(0), cc: w.bit(47), po, neg_a, a: w.reg(8), neg_b, b,
            shift: w.field(39, 5) as u8,
        })
    }; form!("ISCADD32I", op(0x1400), 0xfc00 << 48, Imm32, |w, _, b| {
        ok(Iscadd {
            d: w.reg(0), cc: w.bit(52), po: false, neg_a: false, a: w.reg(8), neg_b: false, b,
            shift: w.field(53, 5) as u8,
        })
    })),
    Xmad => &[
        form!("XMAD", op(0x5b00), 0xffc0 << 48, Reg, |w, _, b| {
            xmad(w, b, Src::Reg(w.reg(39)), w.bit(36), w.bit(37), w.field(50, 3), 38, w.bit(35))
        }),
        form!("XMAD", op(0x3600), 0xfec0 << 48, U16, |w, _, b| {
            xmad(w, b, Src::Reg(w.reg(39)), w.bit(36), w.bit(37), w.field(50, 3), 38, false)
        }),
        form!("XMAD", op(0x4e00), 0xfe00 << 48, Const, |w, _, b| {
            xmad(w, b, Src::Reg(w.reg(39)), w.bit(55), w.bit(56), w.field(50, 2), 54, w.bit(52))
        }),
        form!("XMAD", op(0x5100), 0xff80 << 48, None, |w, _, _| {
            let c = Src::Const(w.cbuf());
            xmad(w, Src::Reg(w.reg(39)), c, false, false, w.field(50, 2), 54, w.bit(52))
        }),
    ],
    Shl => rci!("SHL", 0x5c48, 0x4c48, 0x3848, M13, M13I, |w, _, b| {
        ok(Shl { d: w.reg(0), f: logic_cc(w, 47, 43), w: w.bit(39), a: w.reg(8), b })
    }),
    Shr => rci!("SHR", 0x5c28, 0x4c28, 0x3828, M13, M13I, |w, _, b| {
        ok(Shr {
            d: w.reg(0), f: logic_cc(w, 47, 44), unsigned: !w.bit(48), w: w.bit(39),
            brev: w.bit(40), a: w.reg(8), b,
        })
    }),
    Shf => &[
        form!("SHF", op(0x5cf8), M13, Reg, |w, _, b| shf(w, true, b)),
        form!("SHF", op(0x38f8), M13I, None, |w, _, _| shf(w, true, shf_imm(w)?)),
        form!("SHF", op(0x5bf8), M13, Reg, |w, _, b| shf(w, false, b)),
        form!("SHF", op(0x36f8), M13I, None, |w, _, _| shf(w, false, shf_imm(w)?)),
    ],
    Lop => rci!("LOP", 0x5c40, 0x4c40, 0x3840, M13, M13I, |w, _, b| {
        ok(Lop {
            func: lop_fn(w.field(41, 2)), f: logic_cc(w, 47, 43), pout: pout(w.field(44, 2)),
            p: w.opt_pred(48),
            d: w.reg(0), not_a: w.bit(39), a: w.reg(8), not_b: w.bit(40), b,
        })
    }; form!("LOP32I", op(0x0400), 0xfc00 << 48, Imm32, |w, _, b| {
        ok(Lop {
            func: lop_fn(w.field(53, 2)), f: logic_cc(w, 52, 57), pout: PredOut::None, p: None,
            d: w.reg(0), not_a: w.bit(55), a: w.reg(8), not_b: w.bit(56), b,
        })
    })),
    Lop3 => &[
        form!("LOP3", op(0x5be0), M13, Reg, |w, _, b| {
            ok(Lop3 {
                f: logic_cc(w, 47, 38), pout: pout(w.field(36, 2)), p: w.opt_pred(48), d: w.reg(0), a: w.reg(8), b,
                c: w.reg(39), lut: w.field(28, 8) as u8,
            })
        }),
        form!("LOP3", op(0x0200), 0xfe00 << 48, Const, |w, _, b| {
            ok(Lop3 {
                f: logic_cc(w, 47, 56), pout: PredOut::None, p: None, d: w.reg(0), a: w.reg(8), b, c: w.reg(39),
                lut: w.field(48, 8) as u8,
            })
        }),
        form!("LOP3", op(0x3c00), 0xfc00 << 48, Imm, |w, _, b| {
            ok(Lop3 {
                f: logic_cc(w, 47, 57), pout: PredOut::None, p: None, d: w.reg(0), a: w.reg(8), b, c: w.reg(39),
                lut: w.field(48, 8) as u8,
            })
        }),
    ],
    Bfe => rci!("BFE", 0x5c00, 0x4c00, 0x3800, M13, M13I, |w, _, b| {
        ok(Bfe { d: w.reg(0), cc: w.bit(47), signed: w.bit(48), brev: w.bit(40), a: w.reg(8), b })
    }),
    Bfi => &[
        form!("BFI", op(0x5bf0), M13, Reg, bfi_c39),
        form!("BFI", op(0x4bf0), M13, Const, bfi_c39),
        form!("BFI", op(0x36f0), M13I, Imm, bfi_c39),
        form!("BFI", op(0x53f0), M13, None, |w, _, _| {
            ok(Bfi { d: w.reg(0), cc: w.bit(47), a: w.reg(8), b: Src::Reg(w.reg(39)), c: Src::Const(w.cbuf()) })
        }),
    ],
    Popc => rci!("POPC", 0x5c08, 0x4c08, 0x3808, M13, M13I, |w, _, b| {
        ok(Popc { d: w.reg(0), not_b: w.bit(40), b })
    }),
    Flo => rci!("FLO", 0x5c30, 0x4c30, 0x3830, M13, M13I, |w, _, b| {
        no(w, 47, "FLO with .CC")?;
        ok(Flo { d: w.reg(0), signed: w.bit(48), sh: w.bit(41), not_b: w.bit(40), b })
    }),
    Sel => rci!("SEL", 0x5ca0, 0x4ca0, 0x38a0, M13, M13I, |w, _, b| {
        ok(Sel { d: w.reg(0), a: w.reg(8), b, p: w.psrc(39, 42) })
    }),
    Isetp => rci!("ISETP", 0x5b60, 0x4b60, 0x3660, M12, M12I, |w, _, b| {
        ok(Isetp {
            cmp: cmp(w.field(49, 3)), unsigned: !w.bit(48), x: w.bit(43), bop: bool_op(w.field(45, 2))?,
            p: w.pred(3), q: w.pred(0), a: w.reg(8), b, c: w.psrc(39, 42),
        })
    }),
    Psetp => &[form!("PSETP", op(0x5090), M13, None, |w, _, _| {
        ok(Psetp {
            bop1: bool_op(w.field(24, 2))?, bop2: bool_op(w.field(45, 2))?,
            p: w.pred(3), q: w.pred(0),
            a: w.psrc(12, 15), b: w.psrc(29, 32), c: w.psrc(39, 42),
        })
    })],
    P2r => rci!("P2R", 0x5ce8, 0x4ce8, 0x38e8, M13, M13I, |w, _, mask| {
        let src = if w.bit(40) { P2rSrc::Cc } else { P2rSrc::Pr };
        ok(P2r { d: w.reg(0), byte: w.field(41, 2) as u8, src, a: w.reg(8), mask })
    }),
    Imnmx => rci!("IMNMX", 0x5c20, 0x4c20, 0x3820, M13, M13I, |w, _, b| {
        let mode = match w.field(43, 2) {
            0 => ImnmxMode::Plain,
            1 => ImnmxMode::Xlo,
            3 => ImnmxMode::Xhi,
            _ => return Err("IMNMX.XMED is not supported".into()),
        };
        ok(Imnmx { d: w.reg(0), cc: w.bit(47), mode, unsigned: !w.bit(48), a: w.reg(8), b, p: w.psrc(39, 42) })
    }),
    Icmp => &[
        form!("ICMP", op(0x5b40), M12, Reg, |w, _, b| icmp(w, b, Src::Reg(w.reg(39)))),
        form!("ICMP", op(0x4b40), M12, Const, |w, _, b| icmp(w, b, Src::Reg(w.reg(39)))),
        form!("ICMP", op(0x3640), M12I, Imm, |w, _, b| icmp(w, b, Src::Reg(w.reg(39)))),
        form!("ICMP", op(0x5340), M12, None, |w, _, _| {
            icmp(w, Src::Reg(w.reg(39)), Src::Const(w.cbuf()))
        }),
    ],
    Fadd => rcf!("FADD", 0x5c58, 0x4c58, 0x3858, M13, M13I, |w, _, b| {
        no(w, 47, "FADD with .CC")?;
        ok(Fadd {
            d: w.reg(0), ftz: w.bit(44), sat: w.bit(50), rnd: FRnd::ALL[w.field(39, 2) as usize],
            a: w.reg(8), am: fmod(w, 48, 46), b, bm: fmod_b(w, b, 45, 49)?,
        })
    }; form!("FADD32I", op(0x0800), M6, Imm32, |w, _, b| {
        no(w, 52, "FADD32I with .CC")?;
        fmod_b(w, Src::Imm(0), 53, 57)?;
        ok(Fadd {
            d: w.reg(0), ftz: w.bit(55), sat: false, rnd: FRnd::Rn, a: w.reg(8),
            am: fmod(w, 56, 54), b, bm: FMod::NONE,
        })
    })),
    Fmul => rcf!("FMUL", 0x5c68, 0x4c68, 0x3868, M13, M13I, |w, _, b| {
        no(w, 47, "FMUL with .CC")?;
        // The scale (envytools' gm107): 1-3 .D2 .D4 .D8, 4-6 .M8 .M4 .M2.
        let scale = match w.field(41, 3) {
            0 => 0,
            v @ 1..=3 => -(v as i8),
            v @ 4..=6 => 7 - v as i8,
            _ => return Err("FMUL scale 0x7 is not valid".into()),
        };
        no(w, 45, "FMUL.FMZ")?;
        let (b, neg_b) = fold_neg(w, b, 48, false)?;
        ok(Fmul {
            d: w.reg(0), ftz: w.bit(44), scale, sat: w.bit(50), rnd: FRnd::ALL[w.field(39, 2) as usize],
            a: w.reg(8), b, neg_b,
        })
    }; form!("FMUL32I", op(0x1e00), M8, Imm32, |w, _, b| {
        no(w, 52, "FMUL32I with .CC")?;
        no(w, 54, "FMUL32I.FMZ")?;
        ok(Fmul {
            d: w.reg(0), ftz: w.bit(53), scale: 0, sat: w.bit(55), rnd: FRnd::Rn, a: w.reg(8), b,
            neg_b: false,
        })
    })),
    Ffma => &[
        form!("FFMA", op(0x5980), M9, Reg, |w, _, b| ffma(w, b, Src::Reg(w.reg(39)))),
        form!("FFMA", op(0x4980), M9, Const, |w, _, b| ffma(w, b, Src::Reg(w.reg(39)))),
        form!("FFMA", op(0x3280), M9I, F20, |w, _, b| ffma(w, b, Src::Reg(w.reg(39)))),
        form!("FFMA", op(0x5180), M9, None, |w, _, _| {
            ffma(w, Src::Reg(w.reg(39)), Src::Const(w.cbuf()))
        }),
        // FFMA32I: the destination is the addend; `-Ra` (56) negates the product (`neg_b`).
        form!("FFMA32I", op(0x0c00), M6, Imm32, |w, _, b| {
            no(w, 52, "FFMA32I with .CC")?;
            no(w, 54, "FFMA32I.FMZ")?;
            let d = w.reg(0);
            ok(Ffma {
                d, ftz: w.bit(53), sat: w.bit(55), rnd: FRnd::Rn, a: w.reg(8), b,
                neg_b: w.bit(56), c: Src::Reg(d), neg_c: w.bit(57),
            })
        }),
    ],
    Fmnmx => rcf!("FMNMX", 0x5c60, 0x4c60, 0x3860, M13, M13I, |w, _, b| {
        no(w, 47, "FMNMX with .CC")?;
        ok(Fmnmx {
            d: w.reg(0), ftz: w.bit(44), a: w.reg(8), am: fmod(w, 48, 46), b,
            bm: fmod_b(w, b, 45, 49)?, p: w.psrc(39, 42),
        })
    }),
    Fset => &[
        form!("FSET", op(0x5800), M8, Reg, fset),
        form!("FSET", op(0x4800), M7, Const, fset),
        form!("FSET", op(0x3000), M7, F20, fset),
    ],
    Fsetp => rcf!("FSETP", 0x5bb0, 0x4bb0, 0x36b0, M12, M12I, |w, _, b| {
        ok(Fsetp {
            cmp: FCmp::ALL[w.field(48, 4) as usize], ftz: w.bit(47), bop: bool_op(w.field(45, 2))?,
            p: w.pred(3), q: w.pred(0), a: w.reg(8), am: fmod(w, 43, 7), b,
            bm: fmod_b(w, b, 6, 44)?,
            c: w.psrc(39, 42),
        })
    }),
    Fcmp => &[
        form!("FCMP", op(0x5ba0), M12, Reg, |w, _, b| fcmp(w, b, Src::Reg(w.reg(39)))),
        form!("FCMP", op(0x4ba0), M12, Const, |w, _, b| fcmp(w, b, Src::Reg(w.reg(39)))),
        form!("FCMP", op(0x36a0), M12I, F20, |w, _, b| fcmp(w, b, Src::Reg(w.reg(39)))),
        form!("FCMP", op(0x53a0), M12, None, |w, _, _| {
            fcmp(w, Src::Reg(w.reg(39)), Src::Const(w.cbuf()))
        }),
    ],
    Mufu => &[form!("MUFU", op(0x5080), M13, None, |w, _, _| {
        let f = w.field(20, 4);
        let Some(&(func, _)) = MufuFn::ALL.iter().find(|(_, c)| u64::from(*c) == f) else {
            return Err(format!("MUFU function {f:#x} is not valid"));
        };
        ok(Mufu { d: w.reg(0), func, sat: w.bit(50), a: w.reg(8), am: fmod(w, 48, 46) })
    })],
    Rro => rcf!("RRO", 0x5c90, 0x4c90, 0x3890, M13, M13I, |w, _, b| {
        ok(Rro { d: w.reg(0), ex2: w.bit(39), b, bm: fmod_b(w, b, 45, 49)? })
    }),
    Fchk => rcf!("FCHK", 0x5c88, 0x4c88, 0x3888, M13, M13I, |w, _, b| {
        only(w, 39, 6, 0, "FCHK check")?;
        ok(Fchk { p: w.pred(3), a: w.reg(8), am: fmod(w, 48, 46), b, bm: fmod_b(w, b, 45, 49)? })
    }),
    Prmt => &[
        form!("PRMT", op(0x5bc0), M12, Reg, prmt_c39),
        form!("PRMT", op(0x4bc0), M12, Const, prmt_c39),
        form!("PRMT", op(0x36c0), M12I, Imm, prmt_c39),
        form!("PRMT", op(0x53c0), M12, None, |w, _, _| {
            ok(Prmt { d: w.reg(0), mode: prmt_mode(w)?, a: w.reg(8), b: Src::Reg(w.reg(39)), c: Src::Const(w.cbuf()) })
        }),
    ],
    Iset => rci!("ISET", 0x5b50, 0x4b50, 0x3650, M12, M12I, |w, _, b| {
        ok(Iset {
            d: w.reg(0), cc: w.bit(47), bf: w.bit(44), cmp: cmp(w.field(49, 3)), unsigned: !w.bit(48),
            x: w.bit(43), bop: bool_op(w.field(45, 2))?, a: w.reg(8), b, c: w.psrc(39, 42),
        })
    }),
    Pset => &[form!("PSET", op(0x5088), M13, None, |w, _, _| {
        ok(Pset {
            d: w.reg(0), cc: w.bit(47), bf: w.bit(44),
            bop1: bool_op(w.field(24, 2))?, bop2: bool_op(w.field(45, 2))?,
            a: w.psrc(12, 15), b: w.psrc(29, 32), c: w.psrc(39, 42),
        })
    })],
    Csetp => &[form!("CSETP", op(0x50a0), M13, None, |w, _, _| {
        let v = w.field(8, 5);
        let test = CcTest::from_code(v).ok_or_else(|| {
            format!("condition-code test {v:#x} (CSM_*, FCSM_*, RLE, RGT) is not supported")
        })?;
        ok(Csetp { test, bop: bool_op(w.field(45, 2))?, p: w.pred(3), q: w.pred(0), c: w.psrc(39, 42) })
    })],
    R2p => rci!("R2P", 0x5cf0, 0x4cf0, 0x38f0, M13, M13I, |w, _, mask| {
        let dst = if w.bit(40) { P2rSrc::Cc } else { P2rSrc::Pr };
        ok(R2p { byte: w.field(41, 2) as u8, dst, a: w.reg(8), mask })
    }),
    Imul => rci!("IMUL", 0x5c38, 0x4c38, 0x3838, M13, M13I, |w, _, b| {
        ok(Imul {
            d: w.reg(0), cc: w.bit(47), hi: w.bit(39), a_signed: w.bit(40), b_signed: w.bit(41),
            a: w.reg(8), b,
        })
    }; form!("IMUL32I", op(0x1f00), 0xff00 << 48, Imm32, |w, _, b| {
        ok(Imul {
            d: w.reg(0), cc: w.bit(52), hi: w.bit(53), a_signed: w.bit(54), b_signed: w.bit(55),
            a: w.reg(8), b,
        })
    })),
    Imad => &[
        form!("IMAD", op(0x5a00), 0xff80 << 48, Reg, |w, _, b| imad(w, b, Src::Reg(w.reg(39)))),
        form!("IMAD", op(0x4a00), 0xff80 << 48, Const, |w, _, b| imad(w, b, Src::Reg(w.reg(39)))),
        form!("IMAD", op(0x3400), 0xfe80 << 48, Imm, |w, _, b| imad(w, b, Src::Reg(w.reg(39)))),
        form!("IMAD", op(0x5200), 0xff80 << 48, None, |w, _, _| {
            imad(w, Src::Reg(w.reg(39)), Src::Const(w.cbuf()))
        }),
    ],
    Imadsp => &[
        form!("IMADSP", op(0x5a80), 0xff80 << 48, Reg, |w, _, b| imadsp(w, b, Src::Reg(w.reg(39)))),
        form!("IMADSP", op(0x4a80), 0xff80 << 48, Const, |w, _, b| imadsp(w, b, Src::Reg(w.reg(39)))),
        form!("IMADSP", op(0x3480), 0xfe80 << 48, Imm, |w, _, b| imadsp(w, b, Src::Reg(w.reg(39)))),
        form!("IMADSP", op(0x5280), 0xff80 << 48, None, |w, _, _| {
            imadsp(w, Src::Reg(w.reg(39)), Src::Const(w.cbuf()))
        }),
    ],
    Lea => &[
        form!("LEA", op(0x5bd0), M13, Reg, lea_lo),
        form!("LEA", op(0x4bd0), M12, Const, lea_lo),
        form!("LEA", op(0x36d0), M13I, Imm, lea_lo),
        form!("LEA.HI", op(0x5bd8), M13, Reg, |w, _, b| {
            lea(w, true, w.bit(38), w.bit(37), b, w.reg(39), w.field(28, 5))
        }),
        form!("LEA.HI", op(0x1800), 0xfc00 << 48, Const, |w, _, b| {
            lea(w, true, w.bit(57), w.bit(56), b, w.reg(39), w.field(51, 5))
        }),
    ],
    Ldc => &[form!("LDC", op(0xef90), M13, None, |w, _, _| {
        let size = match w.field(48, 3) {
            v @ 0..=5 => mem_size(v, false)?,
            v => return Err(format!("LDC size {v:#x} is not valid")),
        };
        let mode = match w.field(44, 2) {
            0 => LdcMode::Ia,
            1 => LdcMode::Il,
            2 => LdcMode::Is,
            _ => LdcMode::Isl,
        };
        let a = w.reg(8);
        let imm = if a.is_rz() { w.field(20, 16) as i32 } else { w.simm(20, 16) as i32 };
        ok(Ldc { d: w.reg(0), size, mode, bank: w.field(36, 5) as u8, a, imm })
    })],
    Ldg => &[
        form!("LDG", op(0xeed0), M13, None, |w, _, _| {
            ok(Ldg {
                d: w.reg(0), e: w.bit(45), cop: load_cop(w.field(46, 2)),
                size: mem_size(w.field(48, 3), true)?, ps: None, addr: addr(w, 24),
            })
        }),
        form!("LDG", op(0xeec8), M13, None, |w, _, _| {
            ok(Ldg {
                d: w.reg(0), e: w.bit(45), cop: load_cop(w.field(46, 2)),
                size: mem_size(w.field(48, 3), true)?,
                ps: Some(Pred(7 - w.field(41, 3) as u8)), addr: addr(w, 20),
            })
        }),
    ],
    Stg => &[form!("STG", op(0xeed8), M13, None, |w, _, _| {
        let cop = match w.field(46, 2) {
            0 => CacheOp::Default,
            1 => CacheOp::Cg,
            2 => CacheOp::Cs,
            _ => CacheOp::Wt,
        };
        ok(Stg { e: w.bit(45), cop, size: mem_size(w.field(48, 3), false)?, addr: addr(w, 24), v: w.reg(0) })
    })],
    Ld => &[form!("LD", 0x8000 << 48, 0xe000 << 48, None, |w, _, _| {
        ok(Ld {
            d: w.reg(0), e: w.bit(52), cop: load_cop(w.field(56, 2)),
            size: mem_size(w.field(53, 3), false)?, addr: addr(w, 32),
            steer: PredSrc { pred: w.pred(58), neg: false },
        })
    })],
    St => &[form!("ST", 0xa000 << 48, 0xe000 << 48, None, |w, _, _| {
        let cop = match w.field(56, 2) {
            0 => CacheOp::Default,
            1 => CacheOp::Cg,
            3 => CacheOp::Wt,
            v => return Err(format!("ST cache operator {v:#x} is not supported")),
        };
        ok(St {
            e: w.bit(52), cop, size: mem_size(w.field(53, 3), false)?, addr: addr(w, 32),
            v: w.reg(0), steer: PredSrc { pred: w.pred(58), neg: false },
        })
    })],
    Lds => &[form!("LDS", op(0xef48), M13, None, |w, _, _| {
        ok(Lds { d: w.reg(0), u: w.bit(44), size: mem_size(w.field(48, 3), false)?, addr: addr(w, 24) })
    })],
    Sts => &[form!("STS", op(0xef58), M13, None, |w, _, _| {
        ok(Sts { size: mem_size(w.field(48, 3), false)?, addr: addr(w, 24), v: w.reg(0) })
    })],
    Ldl => &[form!("LDL", op(0xef40), M13, None, |w, _, _| {
        let cop = match w.field(44, 2) {
            0 => CacheOp::Default,
            1 => CacheOp::Lu,
            2 => CacheOp::Ci,
            _ => CacheOp::Cv,
        };
        ok(Ldl { d: w.reg(0), cop, size: mem_size(w.field(48, 3), false)?, addr: addr(w, 24) })
    })],
    Stl => &[form!("STL", op(0xef50), M13, None, |w, _, _| {
        let cop = match w.field(44, 2) {
            0 => CacheOp::Default,
            1 => CacheOp::Cg,
            2 => CacheOp::Cs,
            _ => CacheOp::Wt,
        };
        ok(Stl { cop, size: mem_size(w.field(48, 3), false)?, addr: addr(w, 24), v: w.reg(0) })
    })],
    // The scope at 8-9 (CTA, GL, SYS, VC), the L1 invalidation at 0-1 (none, IVALLD, IVALLT,
    // IVALLTD; ptxas writes IVALLD with GL and SYS).
    Membar => &[form!("MEMBAR", op(0xef98), M13, None, |w, _, _| {
        ok(Membar {
            scope: MembarScope::ALL[w.field(8, 2) as usize],
            inval: MembarInval::ALL[w.field(0, 2) as usize],
        })
    })],
    Nop => &[form!("NOP", op(0x50b0), M13, None, |_, _, _| ok(Nop))],
    // The mode at 6-8 (3: TRAP; the others, debugger stops, are not modelled), the code at 20.
    Bpt => &[form!("BPT", op(0xe3a0), M12, None, |w, _, _| {
        only(w, 6, 3, 3, "BPT mode")?;
        ok(Bpt { code: w.field(20, 20) as u32 })
    })],
    Depbar => &[form!("DEPBAR", op(0xf0f0), M13, None, |w, _, _| {
        let (le, sb, count) = (w.bit(29), w.field(26, 3) as u8, w.field(20, 6) as u8);
        if sb > 5 {
            return Err(format!("DEPBAR scoreboard SB{sb} is not valid"));
        }
        let threshold = (le || sb != 0 || count != 0).then_some((sb, count));
        ok(Depbar { le, threshold, waits: w.field(0, 6) as u8 })
    })],
    Atomg => &[
        form!("ATOM", op(0xed00), 0xff00 << 48, None, |w, _, _| {
            let (op, ty) = (atom_op(w.field(52, 4))?, atom_type(w.field(49, 3))?);
            ok(Atomg { d: w.reg(0), e: w.bit(48), op, ty, addr: atom_addr(w, 28, 20, 0), b: w.reg(20) })
        }),
        form!("ATOM", op(0xeef0), M12, None, |w, _, _| {
            only(w, 50, 2, 0, "ATOM.CAS field")?;
            let ty = if w.bit(49) { AtomType::U64 } else { AtomType::U32 };
            ok(Atomg { d: w.reg(0), e: w.bit(48), op: AtomOp::Cas, ty, addr: atom_addr(w, 28, 20, 0), b: w.reg(20) })
        }),
    ],
    Red => &[form!("RED", op(0xebf8), M13, None, |w, _, _| {
        let (op, ty) = (AtomOp::ALL[w.field(23, 3) as usize], atom_type(w.field(20, 3))?);
        ok(Red { e: w.bit(48), op, ty, addr: atom_addr(w, 28, 20, 0), b: w.reg(0) })
    })],
    Atoms => &[
        form!("ATOMS", op(0xec00), 0xff00 << 48, None, |w, _, _| {
            let op = atom_op(w.field(52, 4))?;
            let ty = match w.field(28, 2) {
                0 => AtomType::U32,
                1 => AtomType::S32,
                2 => AtomType::U64,
                v => return Err(format!("ATOMS type {v:#x} is not supported")),
            };
            ok(Atoms { d: w.reg(0), op, ty, addr: atom_addr(w, 30, 22, 2), b: w.reg(20) })
        }),
        form!("ATOMS", op(0xee00), 0xff80 << 48, None, |w, _, _| {
            only(w, 53, 2, 2, "ATOMS.CAST")?;
            let ty = if w.bit(52) { AtomType::U64 } else { AtomType::U32 };
            ok(Atoms { d: w.reg(0), op: AtomOp::Cas, ty, addr: atom_addr(w, 30, 22, 2), b: w.reg(20) })
        }),
    ],
    Shfl => &[form!("SHFL", op(0xef10), M13, None, |w, _, _| {
        let b = if w.bit(28) { RegImm::Imm(w.field(20, 5) as u32) } else { RegImm::Reg(w.reg(20)) };
        let c = if w.bit(29) { RegImm::Imm(w.field(34, 13) as u32) } else { RegImm::Reg(w.reg(39)) };
        let mode = ShflMode::ALL[w.field(30, 2) as usize];
        ok(Shfl { mode, p: w.pred(48), d: w.reg(0), a: w.reg(8), b, c })
    })],
    Vote => &[form!("VOTE", op(0x50d8), M13, None, |w, _, _| {
        let mode = match w.field(48, 2) {
            3 => return Err("VOTE mode 0x3 is not valid".into()),
            v => VoteMode::ALL[v as usize],
        };
        ok(Vote { mode, d: w.reg(0), p: w.pred(45), a: w.psrc(39, 42) })
    })],
    Cs2r => &[form!("CS2R", op(0x50c8), M13, None, |w, _, _| {
        let hi = match w.field(20, 8) {
            0x50 => false,
            0x51 => true,
            v => return Err(format!("CS2R of special register {v:#x} is not supported")),
        };
        ok(Cs2r { d: w.reg(0), hi })
    })],
    // B2R.RESULT (bit 32): Rd in 0-7, Pd in 45-47; ptxas fills the barrier field (8-15) with
    // 0xff. B2R without .RESULT (a barrier's state) is refused.
    B2r => &[form!("B2R", op(0xf0b8), M13, None, |w, _, _| {
        if !w.bit(32) {
            return Err("B2R without .RESULT (a barrier's state) is not supported".into());
        }
        only(w, 33, 12, 0, "B2R.RESULT mode bits")?;
        only(w, 48, 3, 0, "B2R.RESULT bits 48-50")?;
        only(w, 20, 12, 0, "B2R.RESULT bits 20-31")?;
        only(w, 8, 8, 0xff, "B2R.RESULT barrier field")?;
        ok(B2r { d: w.reg(0), p: w.pred(45) })
    })],
    Un => &[],
    Bin => &[],
    Tern => &[],
    LdBuf => &[],
    StBuf => &[],
    LdTex => &[],
    StTex => &[],
    Atom => &[],
    Info => &[],
    Table => &[],
    Sample => &[],
    Deriv => &[],
    I2f => rci!("I2F", 0x5cb8, 0x4cb8, 0x38b8, M13, M13I, convert::i2f),
    F2i => &[
        form!("F2I", op(0x5cb0), M13, Reg, convert::f2i),
        form!("F2I", op(0x4cb0), M13, Const, convert::f2i),
        form!("F2I", op(0x38b0), M13I, None, |w, pc, _| convert::f2i(w, pc, convert::f20(w))),
    ],
    F2f => &[
        form!("F2F", op(0x5ca8), M13, Reg, convert::f2f),
        form!("F2F", op(0x4ca8), M13, Const, convert::f2f),
        form!("F2F", op(0x38a8), M13I, None, |w, pc, _| convert::f2f(w, pc, convert::f20(w))),
    ],
    I2i => rci!("I2I", 0x5ce0, 0x4ce0, 0x38e0, M13, M13I, convert::i2i),
    Dadd => &[
        form!("DADD", op(0x5c70), M13, Reg, convert::dadd),
        form!("DADD", op(0x4c70), M13, Const, convert::dadd),
        form!("DADD", op(0x3870), M13I, None, |w, pc, _| convert::dadd(w, pc, convert::f20(w))),
    ],
    Dmul => &[
        form!("DMUL", op(0x5c80), M13, Reg, convert::dmul),
        form!("DMUL", op(0x4c80), M13, Const, convert::dmul),
        form!("DMUL", op(0x3880), M13I, None, |w, pc, _| convert::dmul(w, pc, convert::f20(w))),
    ],
    Dfma => &[
        form!("DFMA", op(0x5b70), M12, Reg, convert::dfma),
        form!("DFMA", op(0x4b70), M12, Const, convert::dfma),
        form!("DFMA", op(0x3670), M12I, None, |w, pc, _| convert::dfma(w, pc, convert::f20(w))),
        form!("DFMA", op(0x5370), M12, None, convert::dfma_rc),
    ],
    Dmnmx => &[
        form!("DMNMX", op(0x5c50), M13, Reg, convert::dmnmx),
        form!("DMNMX", op(0x4c50), M13, Const, convert::dmnmx),
        form!("DMNMX", op(0x3850), M13I, None, |w, pc, _| convert::dmnmx(w, pc, convert::f20(w))),
    ],
    Dsetp => &[
        form!("DSETP", op(0x5b80), M12, Reg, convert::dsetp),
        form!("DSETP", op(0x4b80), M12, Const, convert::dsetp),
        form!("DSETP", op(0x3680), M12I, None, |w, pc, _| convert::dsetp(w, pc, convert::f20(w))),
    ],
    Dset => &[
        form!("DSET", op(0x5900), 0xff80 << 48, Reg, convert::dset),
        form!("DSET", op(0x4900), 0xff80 << 48, Const, convert::dset),
        form!("DSET", op(0x3200), 0xfe80 << 48, None, |w, pc, _| convert::dset(w, pc, convert::f20(w))),
    ],
}

/// The operation field of ATOM and ATOMS (4 bits; `.CAS` has forms of its own).
fn atom_op(v: u64) -> Result<AtomOp, String> {
    match v {
        0..=8 => Ok(AtomOp::ALL[v as usize]),
        0xa => Err("ATOM.SAFEADD is not supported".into()),
        _ => Err(format!("atomic operation {v:#x} is not valid")),
    }
}

/// The type field of ATOM and RED (3 bits).
fn atom_type(v: u64) -> Result<AtomType, String> {
    match v {
        0 => Ok(AtomType::U32),
        1 => Ok(AtomType::S32),
        2 => Ok(AtomType::U64),
        3 => Ok(AtomType::F32),
        5 => Ok(AtomType::S64),
        4 => Err("atomic type .U128 is not supported".into()),
        _ => Err(format!("atomic type {v:#x} is not valid")),
    }
}

/// An atomic's address: the register at 8 and an `n`-bit offset at `lo`, scaled by `1 << shl`;
/// signed with a base register, unsigned with RZ.
fn atom_addr(w: Word, lo: u32, n: u32, shl: u32) -> Addr {
    let base = w.reg(8);
    if base.is_rz() {
        Addr {
            base: None,
            offset: (w.field(lo, n) << shl) as i32,
        }
    } else {
        Addr {
            base: Some(base),
            offset: (w.simm(lo, n) << shl) as i32,
        }
    }
}

fn iadd3_plain(w: Word, _: u32, b: Src) -> R {
    let plain = |neg, src| Iadd3Src {
        neg,
        src,
        half: Half::None,
    };
    ok(Iadd3 {
        d: w.reg(0),
        cc: w.bit(47),
        x: w.bit(48),
        shift: Iadd3Shift::None,
        a: plain(w.bit(51), w.reg(8)),
        b: Iadd3Src {
            neg: w.bit(50),
            src: b,
            half: Half::None,
        },
        c: plain(w.bit(49), w.reg(39)),
    })
}

#[allow(clippy::too_many_arguments)]
fn xmad(w: Word, b: Src, c: Src, psl: bool, mrg: bool, cmode: u64, x: u32, b_h1: bool) -> R {
    no(w, x, "XMAD.X")?;
    let mode = match cmode {
        0 => XmadMode::None,
        1 => XmadMode::Clo,
        2 => XmadMode::Chi,
        4 => XmadMode::Cbcc,
        3 => XmadMode::Csfu,
        v => return Err(format!("XMAD mode {v:#x} is not valid")),
    };
    ok(Xmad {
        d: w.reg(0),
        cc: w.bit(47),
        a_signed: w.bit(48),
        b_signed: w.bit(49),
        psl,
        mrg,
        mode,
        a: w.reg(8),
        a_h1: w.bit(53),
        b,
        b_h1,
        c,
    })
}

/// SHF's shift immediate: 6 unsigned bits at 20 (nvdisasm prints no more). The rest of the
/// ALU immediate field (bits 26 to 36; 37 and 38 hold the data type) and its sign bit (56) are
/// refused when set: the text has no spelling for a wider amount.
fn shf_imm(w: Word) -> Result<Src, String> {
    if w.field(26, 11) != 0 || w.bit(56) {
        return Err("an SHF shift amount wider than 6 bits is not supported".into());
    }
    Ok(Src::Imm(w.field(20, 6) as u32))
}

fn shf(w: Word, right: bool, b: Src) -> R {
    no(w, 47, "SHF with .CC")?;
    no(w, 49, "SHF.X")?;
    if !right {
        // ptxas never sets it; the hardware refuses it (Mesa NAK, sm50.rs).
        no(w, 48, "SHF.L.HI")?;
    }
    let ty = match w.field(37, 2) {
        0 => ShfType::B32,
        2 => ShfType::U64,
        3 => ShfType::S64,
        v => return Err(format!("SHF data type {v:#x} is not valid")),
    };
    ok(Shf {
        d: w.reg(0),
        right,
        w: w.bit(50),
        ty,
        hi: w.bit(48),
        a: w.reg(8),
        b,
        c: w.reg(39),
    })
}

/// IMAD's fields: the signs at 48 (Ra) and 53 (Sb), `.HI` at 54, `.CC` at 47; `.SAT` (50) and
/// `.X` (49) are refused.
fn imad(w: Word, b: Src, c: Src) -> R {
    no(w, 50, "IMAD.SAT")?;
    ok(Imad {
        d: w.reg(0),
        cc: w.bit(47),
        x: w.bit(49),
        hi: w.bit(54),
        a_signed: w.bit(48),
        b_signed: w.bit(53),
        a: w.reg(8),
        b,
        c,
    })
}

/// IMADSP's fields (envytools' gm107 tables): Ra's part at 48 (3 bits: sign at 48, then 32, 24,
/// 16-bit low or high half), Sb's at 53 (2 bits: sign, then 24-bit or low half), Rc's at 51
/// (2 bits: 32, 24 or low half) with the sign at 48 (Ra's), `.CC` at 47.
fn imadsp(w: Word, b: Src, c: Src) -> R {
    let pa = SpPart::ALL[w.field(48, 3) as usize];
    let pb = SpPart::ALL[2 + w.field(53, 2) as usize];
    let pc = match w.field(51, 2) {
        3 => return Err("IMADSP Rc part 0x3 is not valid".into()),
        v => SpPart::ALL[(2 * v + w.field(48, 1)) as usize],
    };
    ok(Imadsp {
        d: w.reg(0),
        cc: w.bit(47),
        pa,
        pb,
        pc,
        a: w.reg(8),
        b,
        c,
    })
}

fn icmp(w: Word, b: Src, c: Src) -> R {
    ok(Icmp {
        d: w.reg(0),
        cmp: cmp(w.field(49, 3)),
        unsigned: !w.bit(48),
        a: w.reg(8),
        b,
        c,
    })
}

/// A float source modifier from its negate and absolute-value bits.
fn fmod(w: Word, neg: u32, abs: u32) -> FMod {
    FMod {
        neg: w.bit(neg),
        abs: w.bit(abs),
    }
}

/// The product negation at bit `neg` of FMUL, FFMA, DMUL and DFMA with their `Sb`: on an
/// immediate it is folded into the value (the sign of a binary32 immediate, or of a binary64's
/// high word), as the text writes it: `-(a * imm)` is `a * -imm` bit for bit, the NaNs these
/// produce being canonical (binary32) or taken from the operands (binary64), so a binary64 NaN
/// immediate, whose sign would then show, keeps refusing. Returns `Sb` and whether the
/// negation remains.
pub(super) fn fold_neg(w: Word, b: Src, neg: u32, double: bool) -> Result<(Src, bool), String> {
    match b {
        Src::Imm(v) if w.bit(neg) => {
            let nan64 = double && v & 0x7ff0_0000 == 0x7ff0_0000 && v & 0x000f_ffff != 0;
            if nan64 {
                return Err("a negated binary64 NaN immediate is not supported".into());
            }
            Ok((Src::Imm(v ^ 0x8000_0000), false))
        }
        _ => Ok((b, w.bit(neg))),
    }
}

/// The modifier of the Sb slot: refused on an immediate (ptxas folds the sign into the value,
/// and the text has no spelling for a modified literal).
fn fmod_b(w: Word, b: Src, neg: u32, abs: u32) -> Result<FMod, String> {
    let m = fmod(w, neg, abs);
    if matches!(b, Src::Imm(_)) && m != FMod::NONE {
        return Err("a negated or absolute float immediate is not supported".into());
    }
    Ok(m)
}

fn ffma(w: Word, b: Src, c: Src) -> R {
    no(w, 47, "FFMA with .CC")?;
    no(w, 54, "FFMA.FMZ")?;
    let (b, neg_b) = fold_neg(w, b, 48, false)?;
    ok(Ffma {
        d: w.reg(0),
        ftz: w.bit(53),
        sat: w.bit(50),
        rnd: FRnd::ALL[w.field(51, 2) as usize],
        a: w.reg(8),
        b,
        neg_b,
        c,
        neg_c: w.bit(49),
    })
}

fn fset(w: Word, _: u32, b: Src) -> R {
    ok(Fset {
        d: w.reg(0),
        cc: w.bit(47),
        bf: w.bit(52),
        cmp: FCmp::ALL[w.field(48, 4) as usize],
        ftz: w.bit(55),
        bop: bool_op(w.field(45, 2))?,
        a: w.reg(8),
        am: fmod(w, 43, 54),
        b,
        bm: fmod_b(w, b, 53, 44)?,
        c: w.psrc(39, 42),
    })
}

fn fcmp(w: Word, b: Src, c: Src) -> R {
    ok(Fcmp {
        d: w.reg(0),
        cmp: FCmp::ALL[w.field(48, 4) as usize],
        ftz: w.bit(47),
        a: w.reg(8),
        b,
        c,
    })
}

fn bfi_c39(w: Word, _: u32, b: Src) -> R {
    ok(Bfi {
        d: w.reg(0),
        cc: w.bit(47),
        a: w.reg(8),
        b,
        c: Src::Reg(w.reg(39)),
    })
}

/// PRMT's mode: 3 bits at 48 (0 the default, 1 to 6 `.F4E` to `.RC16`); bit 51 is refused.
fn prmt_mode(w: Word) -> Result<PrmtMode, String> {
    no(w, 51, "PRMT mode bit 51")?;
    let v = w.field(48, 3);
    PrmtMode::ALL
        .get(v as usize)
        .copied()
        .ok_or_else(|| format!("PRMT mode {v:#x} is not valid"))
}

fn prmt_c39(w: Word, _: u32, b: Src) -> R {
    ok(Prmt {
        d: w.reg(0),
        mode: prmt_mode(w)?,
        a: w.reg(8),
        b,
        c: Src::Reg(w.reg(39)),
    })
}

fn lea_lo(w: Word, _: u32, b: Src) -> R {
    lea(w, false, w.bit(46), w.bit(45), b, Reg::RZ, w.field(39, 5))
}

fn lea(w: Word, hi: bool, x: bool, neg_a: bool, b: Src, c: Reg, shift: u64) -> R {
    let (p, cc) = (w.opt_pred(48), w.bit(47));
    if p.is_some() && cc {
        return Err("LEA writing both CC and a predicate is not supported".into());
    }
    ok(Lea {
        hi,
        x,
        cc,
        p,
        d: w.reg(0),
        neg_a,
        a: w.reg(8),
        b,
        c,
        shift: shift as u8,
    })
}

fn load_cop(v: u64) -> CacheOp {
    match v {
        0 => CacheOp::Default,
        1 => CacheOp::Cg,
        2 => CacheOp::Ci,
        _ => CacheOp::Cv,
    }
}

/// A branch-like form with a pc-relative target (bit 5 clear; set is the constant-bank form).
const BR_MASK: u64 = (0xfff0 << 48) | 0x20;

/// The control instructions' encodings.
pub const CONTROL: &[Form] = &[
    form!("BRA", op(0xe240), BR_MASK, None, |w, pc, _| {
        no(w, 6, "BRA.LMT")?;
        Ok(Decoded::Control(ControlKind::Bra {
            cc: cc_test(w)?,
            target: target(w, pc),
        }))
    }),
    // BRX Ra offset: an indirect branch to pc + 8 + Ra + offset (envytools: REG_08, S24_20;
    // bit 5 set reads the offset from a constant bank instead, which matches no form). Its
    // targets are not in the word: `decode` takes them from the cubin.
    form!("BRX", op(0xe250), BR_MASK, None, |w, _, _| {
        no(w, 6, "BRX.LMT")?;
        Ok(Decoded::Control(ControlKind::Brx {
            cc: cc_test(w)?,
            reg: w.reg(8),
            offset: w.simm(20, 24) as i32,
            targets: Vec::new(),
        }))
    }),
    form!("SSY", op(0xe290), BR_MASK, None, |w, pc, _| push(
        w,
        pc,
        Region::Sync
    )),
    form!("PBK", op(0xe2a0), BR_MASK, None, |w, pc, _| push(
        w,
        pc,
        Region::Break
    )),
    form!("PCNT", op(0xe2b0), BR_MASK, None, |w, pc, _| push(
        w,
        pc,
        Region::Continue
    )),
    form!("SYNC", op(0xf0f8), M13, None, |w, _, _| wait(
        w,
        Region::Sync
    )),
    form!("BRK", op(0xe340), M12, None, |w, _, _| wait(
        w,
        Region::Break
    )),
    form!("CONT", op(0xe350), M12, None, |w, _, _| wait(
        w,
        Region::Continue
    )),
    // CAL: a pc-relative call (bit 5 set, a constant-bank target, matches no form). Bit 6 is
    // `.NOINC`, a hint with no effect here; CAL has no guard field (like SSY).
    form!("CAL", op(0xe260), BR_MASK, None, |w, pc, _| push(
        w,
        pc,
        Region::Call
    )),
    form!("RET", op(0xe320), M12, None, |w, _, _| wait(
        w,
        Region::Call
    )),
    form!("EXIT", op(0xe300), M12, None, |w, _, _| {
        no(w, 5, "EXIT.KEEPREFCOUNT")?;
        Ok(Decoded::Control(ControlKind::Exit { cc: cc_test(w)? }))
    }),
    // BAR: the mode in bits 32-34 (0 .SYNC, 1 .ARV, 2 .RED, 3 .SCAN), .RED's reduction in
    // 35-36 (.POPC, .AND, .OR) and its predicate in 39-41 with the inversion at 42.
    form!("BAR", op(0xf0a8), M13, None, |w, _, _| {
        let (red, arrive) = match w.field(32, 3) {
            m @ (0 | 1) => {
                only(w, 35, 2, 0, "BAR.SYNC/.ARV reduction")?;
                only(w, 39, 4, 7, "BAR.SYNC/.ARV predicate")?;
                (None, m == 1)
            }
            2 => {
                let op = match w.field(35, 2) {
                    3 => return Err("BAR.RED reduction 0x3 is not valid".into()),
                    v => BarRedOp::ALL[v as usize],
                };
                (
                    Some(BarRed {
                        op,
                        pred: w.psrc(39, 42),
                    }),
                    false,
                )
            }
            v => return Err(format!("BAR mode {v:#x} (.SCAN) is not supported")),
        };
        // The thread count: an immediate (bit 43; 0 means every thread of the CTA), or a
        // register (RZ: every thread).
        let count = if w.bit(43) {
            w.field(20, 12) as u32
        } else if w.reg(20).is_rz() {
            0
        } else {
            return Err("BAR with a thread count in a register is not supported".into());
        };
        if arrive && count == 0 {
            return Err("BAR.ARV without a thread count is not valid".into());
        }
        let id = if w.bit(44) {
            w.field(8, 8)
        } else if w.reg(8).is_rz() {
            0
        } else {
            return Err("BAR with a barrier index in a register is not supported".into());
        };
        if id > 15 {
            return Err(format!("barrier {id:#x} is not valid (0 to 15)"));
        }
        Ok(Decoded::Control(ControlKind::Bar {
            id: id as u8,
            red,
            count,
            arrive,
        }))
    }),
];

fn push(w: Word, pc: u32, region: Region) -> R {
    Ok(Decoded::Control(ControlKind::Push {
        region,
        target: target(w, pc),
    }))
}

fn wait(w: Word, region: Region) -> R {
    Ok(Decoded::Control(ControlKind::Wait {
        region,
        cc: cc_test(w)?,
    }))
}

/// Every form: the ops' and the control instructions'.
pub fn all_forms() -> impl Iterator<Item = &'static Form> {
    op_forms().chain(CONTROL.iter())
}

/// What a word no form matches is, when it is an instruction warpjit knows but does not run
/// (opcode bits as envytools' gm107 tables give them): its mnemonic and why.
pub fn unsupported_of(w: Word) -> Option<(&'static str, &'static str)> {
    const BRX_CONST: &str = "the form with its offset in a constant bank is not supported \
                             (ptxas writes BRX with a register)";
    const CALLS: &str = "indirect calls through function pointers are not supported (ptxas \
                         writes PRET, then BRX or, in relocatable and debug code, JMX)";
    const ABSOLUTE: &str = "absolute jumps and calls are not supported (ptxas was not seen to \
                            write them for sm_50)";
    const VIDEO: &str =
        "of the video instructions only VMNMX, VABSDIFF and VABSDIFF4 are supported";
    const TEXTURE: &str = "texture and surface instructions are not supported";
    const TABLE: &[(u64, u64, &str, &str)] = &[
        (0xe250, 0xfff0, "BRX", BRX_CONST),
        (0xe270, 0xfff0, "PRET", CALLS),
        (0xe200, 0xfff0, "JMX", CALLS),
        (0xe220, 0xfff0, "JCAL", ABSOLUTE),
        (0xe210, 0xfff0, "JMP", ABSOLUTE),
        (0x2000, 0xfc00, "VADD", VIDEO),
        (0x4000, 0xfe00, "VSET", VIDEO),
        (0x5f00, 0xff00, "VMAD", VIDEO),
        (0x5700, 0xff00, "VSHL", VIDEO),
        (0x5600, 0xff00, "VSHR", VIDEO),
        (0x50f0, 0xfff8, "VSETP", VIDEO),
        (0xdeb8, 0xfff8, "TEX", TEXTURE),
        (0xc038, 0xfc38, "TEX", TEXTURE),
        (0xdc38, 0xfe38, "TLD", TEXTURE),
        (0xeb00, 0xffe0, "SULD", TEXTURE),
        (0xeb20, 0xffe0, "SUST", TEXTURE),
    ];
    TABLE
        .iter()
        .find(|&&(bits, mask, _, _)| w.0 >> 48 & mask == bits)
        .map(|&(_, _, name, why)| (name, why))
}

/// The form a word is in: of those that match, the one with the most fixed bits.
pub fn form_of(w: Word) -> Option<&'static Form> {
    all_forms()
        .filter(|f| f.matches(w))
        .max_by_key(|f| f.mask.count_ones())
}
