//! Register and predicate ops (ALU, moves, comparisons, LEA), each with its operand roles.

use crate::ir::operand::*;
use crate::ir::roles::*;

/// `MOV Rd, Sb`: copy a register, constant or 32-bit immediate.
///
/// With `Sb` a [`Src::Imm32`], its SASS form is `MOV32I Rd, imm32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mov {
    /// Destination.
    pub d: Reg,
    /// Source.
    pub b: Src,
}

impl Operands for Mov {
    fn operands(&self, o: &mut Roles<'_>) {
        let Mov { d, b } = *self;
        o.def(d);
        o.src(b);
    }
}

/// A special register readable by `S2R`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    /// `SR_TID.X`
    TidX,
    /// `SR_TID.Y`
    TidY,
    /// `SR_TID.Z`
    TidZ,
    /// `SR_CTAID.X`
    CtaidX,
    /// `SR_CTAID.Y`
    CtaidY,
    /// `SR_CTAID.Z`
    CtaidZ,
    /// `SR_LANEID`
    LaneId,
    /// `SR_EQMASK`: the lane's own bit.
    EqMask,
    /// `SR_LTMASK`: the bits of the lanes below.
    LtMask,
    /// `SR_LEMASK`: the bits of the lanes below and the lane's own.
    LeMask,
    /// `SR_GTMASK`: the bits of the lanes above.
    GtMask,
    /// `SR_GEMASK`: the bits of the lanes above and the lane's own.
    GeMask,
    /// `SR_CLOCKLO`: the low word of the warp's clock (docs/semantics.md §22d).
    ClockLo,
    /// `SR_CLOCKHI`: its high word.
    ClockHi,
    /// `SR_LMEMHIOFF`: the lowest offset the thread's stack may grow down to, 0 (docs/semantics.md
    /// §15a: ptxas's `-O0` code traps when the stack pointer falls below it).
    LmemHiOff,
}

impl SpecialReg {
    /// Every special register.
    pub const ALL: [SpecialReg; 15] = [
        SpecialReg::TidX,
        SpecialReg::TidY,
        SpecialReg::TidZ,
        SpecialReg::CtaidX,
        SpecialReg::CtaidY,
        SpecialReg::CtaidZ,
        SpecialReg::LaneId,
        SpecialReg::EqMask,
        SpecialReg::LtMask,
        SpecialReg::LeMask,
        SpecialReg::GtMask,
        SpecialReg::GeMask,
        SpecialReg::ClockLo,
        SpecialReg::ClockHi,
        SpecialReg::LmemHiOff,
    ];

    /// The value of a lane mask register in lane `l` (`None` for the other registers).
    pub fn lane_mask(self, l: u32) -> Option<u32> {
        let below = (1u32 << l) - 1;
        let own = 1u32 << l;
        Some(match self {
            SpecialReg::EqMask => own,
            SpecialReg::LtMask => below,
            SpecialReg::LeMask => below | own,
            SpecialReg::GtMask => !(below | own),
            SpecialReg::GeMask => !below,
            _ => return None,
        })
    }
}

/// `S2R Rd, SR_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct S2r {
    /// Destination.
    pub d: Reg,
    /// Special register read.
    pub sr: SpecialReg,
}

impl Operands for S2r {
    fn operands(&self, o: &mut Roles<'_>) {
        let S2r { d, sr } = *self;
        o.def(d);
        // Thread and lane ids differ between lanes; CTA ids are the same for the whole warp.
        // The clock too is the same in every lane.
        o.lane_varying(!matches!(
            sr,
            SpecialReg::CtaidX
                | SpecialReg::CtaidY
                | SpecialReg::CtaidZ
                | SpecialReg::ClockLo
                | SpecialReg::ClockHi
                | SpecialReg::LmemHiOff
        ));
    }
}

/// `IADD[.SAT][.PO][.X] Rd[.CC], [-]Ra, [-]Sb` (immediate: signed 20-bit).
///
/// With `Sb` a [`Src::Imm32`], its SASS form is `IADD32I[.SAT][.PO][.X] Rd[.CC], [-]Ra, imm32`
/// (every modifier of IADD but `-Sb`; ptxas writes `.SAT` for `add.sat.s32` with an immediate).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iadd {
    /// Destination.
    pub d: Reg,
    /// `.SAT`: the signed sum clamped to the signed 32-bit range (docs/semantics.md §21; not
    /// with `.CC`, `.X` or `.PO`). ptxas writes it for `add.sat.s32` and `sub.sat.s32`.
    pub sat: bool,
    /// `.CC`: write the condition code.
    pub cc: bool,
    /// `.X`: add the carry flag in.
    pub x: bool,
    /// `.PO`: add one more.
    pub po: bool,
    /// `-Ra`.
    pub neg_a: bool,
    /// First source.
    pub a: Reg,
    /// `-Sb`.
    pub neg_b: bool,
    /// Second source.
    pub b: Src,
}

impl Operands for Iadd {
    fn operands(&self, o: &mut Roles<'_>) {
        let Iadd {
            d,
            sat: _,
            cc,
            x,
            po: _,
            neg_a: _,
            a,
            neg_b: _,
            b,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.cc_write(cc);
        o.cf_read(x);
    }
}

/// Partial-sum shift of IADD3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Iadd3Shift {
    /// No shift.
    #[default]
    None,
    /// `.RS`: (Ra + Sb as 33 bits) >> 16.
    Rs,
    /// `.LS`: (Ra + Sb) << 16.
    Ls,
}

/// An IADD3 operand: optionally negated, optionally a half.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iadd3Src<S> {
    /// `-x`: negated (after the half select).
    pub neg: bool,
    /// The operand.
    pub src: S,
    /// `.H0`/`.H1`.
    pub half: Half,
}

/// `IADD3[.RS|.LS][.X] Rd[.CC], [-]Ra[.Hn], [-]Sb[.Hn], [-]Rc[.Hn]` (immediate: signed 20-bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iadd3 {
    /// Destination.
    pub d: Reg,
    /// `.CC`.
    pub cc: bool,
    /// `.X`.
    pub x: bool,
    /// `.RS` / `.LS`.
    pub shift: Iadd3Shift,
    /// First source.
    pub a: Iadd3Src<Reg>,
    /// Second source.
    pub b: Iadd3Src<Src>,
    /// Third source.
    pub c: Iadd3Src<Reg>,
}

impl Operands for Iadd3 {
    fn operands(&self, o: &mut Roles<'_>) {
        let Iadd3 {
            d,
            cc,
            x,
            shift: _,
            a,
            b,
            c,
        } = *self;
        o.def(d);
        o.read(a.src);
        o.src(b.src);
        o.read(c.src);
        o.cc_write(cc);
        // `.X` adds the carry of an IADD3 `.CC`, which can be 2: CF and OF (docs/semantics.md
        // §21).
        o.cf_read(x);
        if x {
            o.flag_read(crate::ir::roles::Flag::Of);
        }
    }
}

/// `ISCADD[.PO] Rd[.CC], [-]Ra, [-]Sb, s`: Rd = (Ra << s) + Sb.
///
/// With `Sb` a [`Src::Imm32`], its SASS form is `ISCADD32I Rd[.CC], Ra, imm32, s` (no `.PO`, no
/// `-`; ptxas writes it in the slow paths of division and square root).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iscadd {
    /// Destination.
    pub d: Reg,
    /// `.CC`.
    pub cc: bool,
    /// `.PO`.
    pub po: bool,
    /// `-Ra`.
    pub neg_a: bool,
    /// Shifted source.
    pub a: Reg,
    /// `-Sb`.
    pub neg_b: bool,
    /// Added source.
    pub b: Src,
    /// Shift amount, 0..=31.
    pub shift: u8,
}

impl Operands for Iscadd {
    fn operands(&self, o: &mut Roles<'_>) {
        let Iscadd {
            d,
            cc,
            po: _,
            neg_a: _,
            a,
            neg_b: _,
            b,
            shift: _,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.cc_write(cc);
    }
}

/// XMAD addend mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum XmadMode {
    /// Rc.
    #[default]
    None,
    /// `.CLO`: Rc & 0xffff.
    Clo,
    /// `.CHI`: Rc >> 16.
    Chi,
    /// `.CBCC`: Rc + (Sb << 16).
    Cbcc,
    /// `.CSFU`: Rc minus 0x10000 for each signed half that is negative while the other half
    /// of the other operand is nonzero (the sign fix-up of ptxas's `mul.hi.s32` sequence; see
    /// `semantics::xmad_csfu`).
    Csfu,
}

/// `XMAD[.S16|.U16][.S16|.U16][.PSL][.MRG][.CLO|.CHI|.CBCC|.CSFU] Rd[.CC], Ra[.H1], Sb[.H1], Rc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Xmad {
    /// Destination.
    pub d: Reg,
    /// `.CC`: ZF/SF from the result, CF carry out of the add, OF cleared.
    pub cc: bool,
    /// Ra's half is signed.
    pub a_signed: bool,
    /// Sb's half is signed.
    pub b_signed: bool,
    /// `.PSL`: product shifted left 16.
    pub psl: bool,
    /// `.MRG`: merge Sb's low half into the result's high half.
    pub mrg: bool,
    /// Addend mode.
    pub mode: XmadMode,
    /// First factor.
    pub a: Reg,
    /// `Ra.H1`.
    pub a_h1: bool,
    /// Second factor (immediate: unsigned 16-bit).
    pub b: Src,
    /// `Sb.H1`.
    pub b_h1: bool,
    /// Addend (register or constant).
    pub c: Src,
}

impl Operands for Xmad {
    fn operands(&self, o: &mut Roles<'_>) {
        let Xmad {
            d,
            cc,
            a_signed: _,
            b_signed: _,
            psl: _,
            mrg: _,
            mode: _,
            a,
            a_h1: _,
            b,
            b_h1: _,
            c,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.src(c);
        o.cc_write(cc);
    }
}

/// `SHL[.W][.X] Rd[.CC], Ra, Sb`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shl {
    /// Destination.
    pub d: Reg,
    /// `.CC` and `.X`: the flags of a logic op ([`LogicCc`]).
    pub f: LogicCc,
    /// `.W`: amount mod 32.
    pub w: bool,
    /// Shifted value.
    pub a: Reg,
    /// Amount.
    pub b: Src,
}

impl Operands for Shl {
    fn operands(&self, o: &mut Roles<'_>) {
        let Shl { d, f, w: _, a, b } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        f.roles(o);
    }
}

/// `SHR[.U32|.S32][.W][.BREV][.X] Rd[.CC], Ra, Sb`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shr {
    /// Destination.
    pub d: Reg,
    /// `.CC` and `.X`: the flags of a logic op ([`LogicCc`]).
    pub f: LogicCc,
    /// `.U32`: logical shift (arithmetic otherwise).
    pub unsigned: bool,
    /// `.W`: amount mod 32.
    pub w: bool,
    /// `.BREV`: bit-reverse Ra first.
    pub brev: bool,
    /// Shifted value.
    pub a: Reg,
    /// Amount.
    pub b: Src,
}

impl Operands for Shr {
    fn operands(&self, o: &mut Roles<'_>) {
        let Shr {
            d,
            f,
            unsigned: _,
            w: _,
            brev: _,
            a,
            b,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        f.roles(o);
    }
}

/// Operand width of SHF (the data type field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ShfType {
    /// 32-bit (no suffix; `.U32` and `.S32` are the same encoding and read as this): the
    /// amount is clamped to 32 (or taken mod 32 with `.W`).
    #[default]
    B32,
    /// `.U64`: the amount is clamped to 64 (mod 64 with `.W`); right shifts are logical.
    U64,
    /// `.S64`: as `.U64`, but right shifts are arithmetic (the sign of Rc fills in).
    S64,
}

/// `SHF.{L|R}[.W][.U64|.S64][.HI] Rd, Ra, Sb, Rc`: funnel shift of the 64-bit value {Rc, Ra}
/// (Rc the high word) by Sb (docs/semantics.md §22).
///
/// The amount *n* is Sb as an unsigned 32-bit value, clamped to the type's width (32, or 64
/// for `.U64`/`.S64`), or with `.W` taken modulo that width. `SHF.L` gives the high word of
/// {Rc, Ra} << *n*; `SHF.R` gives the low word of {Rc, Ra} >> *n* (arithmetic for `.S64`,
/// logical otherwise), or its high word with `.HI`. `.HI` is only valid on `SHF.R` (on
/// Maxwell `SHF.L` always returns the high word, and the encoding with `.HI` set is illegal).
/// This is PTX's `shf.l`/`shf.r` with `.clamp` (or `.wrap` for `.W`), and the folding rule of
/// Mesa NAK for sm_50.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shf {
    /// Destination.
    pub d: Reg,
    /// `.R` (else `.L`).
    pub right: bool,
    /// `.W`: the amount wraps (mod the width) instead of clamping.
    pub w: bool,
    /// Data type.
    pub ty: ShfType,
    /// `.HI`: the high word of a right shift.
    pub hi: bool,
    /// Low word.
    pub a: Reg,
    /// Amount: a register or an unsigned immediate 0..=63.
    pub b: Src,
    /// High word.
    pub c: Reg,
}

impl Operands for Shf {
    fn operands(&self, o: &mut Roles<'_>) {
        let Shf {
            d,
            right: _,
            w: _,
            ty: _,
            hi: _,
            a,
            b,
            c,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.read(c);
    }
}

/// The condition-code modifiers of the logic, shift and I2I ops (docs/semantics.md §21): with
/// `.X` the zero test covers the earlier words of a wide value too (the result is zero and ZF
/// is set), with `.CC` the flags are written: ZF = that zero test, SF = bit 31 of the result,
/// CF = OF = 0. The zero test is also what `.Z`/`.NZ` predicate outputs test
/// (`semantics::logic_zero`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct LogicCc {
    /// `.CC`: write the four flags.
    pub cc: bool,
    /// `.X`: the zero test reads ZF.
    pub x: bool,
}

impl LogicCc {
    /// Neither modifier.
    pub const NONE: LogicCc = LogicCc {
        cc: false,
        x: false,
    };

    /// The flag roles: ZF read with `.X`, all four written with `.CC`.
    pub fn roles(self, o: &mut Roles<'_>) {
        if self.x {
            o.flag_read(Flag::Zf);
        }
        o.cc_write(self.cc);
    }
}

/// Bitwise function of LOP / LOP32I.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LopFn {
    /// `.AND`
    And,
    /// `.OR`
    Or,
    /// `.XOR`
    Xor,
    /// `.PASS_B`
    PassB,
}

/// Predicate output of LOP / LOP3 (`.Z`, `.NZ`, `.T`, `.F`; none writes false).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PredOut {
    /// No suffix: Pd = false.
    #[default]
    None,
    /// `.Z`: result == 0.
    Z,
    /// `.NZ`: result != 0.
    Nz,
    /// `.T`: true.
    T,
    /// `.F`: false.
    F,
}

/// `LOP.fn[.X][.Z|.NZ|.T|.F] [Pd,] Rd[.CC], [~]Ra, [~]Sb`.
///
/// With `Sb` a [`Src::Imm32`], its SASS form is `LOP32I.fn[.X] Rd[.CC], [~]Ra, [~]imm32` (no
/// predicate output: `p` is `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lop {
    /// Bitwise function.
    pub func: LopFn,
    /// `.CC` and `.X` ([`LogicCc`]).
    pub f: LogicCc,
    /// Predicate output mode.
    pub pout: PredOut,
    /// Predicate destination, if written.
    pub p: Option<Pred>,
    /// Destination.
    pub d: Reg,
    /// `~Ra`.
    pub not_a: bool,
    /// First source.
    pub a: Reg,
    /// `~Sb`.
    pub not_b: bool,
    /// Second source.
    pub b: Src,
}

impl Operands for Lop {
    fn operands(&self, o: &mut Roles<'_>) {
        let Lop {
            func: _,
            f,
            pout: _,
            p,
            d,
            not_a: _,
            a,
            not_b: _,
            b,
        } = *self;
        o.opt_pred_def(p);
        o.def(d);
        o.read(a);
        o.src(b);
        f.roles(o);
    }
}

/// `LOP3.LUT[.X][.Z|.NZ|.T|.F] [Pd,] Rd[.CC], Ra, Sb, Rc, lut`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lop3 {
    /// `.CC` and `.X` ([`LogicCc`]).
    pub f: LogicCc,
    /// Predicate output mode.
    pub pout: PredOut,
    /// Predicate destination, if written.
    pub p: Option<Pred>,
    /// Destination.
    pub d: Reg,
    /// First source.
    pub a: Reg,
    /// Second source.
    pub b: Src,
    /// Third source.
    pub c: Reg,
    /// Truth table, bit index = a<<2 | b<<1 | c.
    pub lut: u8,
}

impl Operands for Lop3 {
    fn operands(&self, o: &mut Roles<'_>) {
        let Lop3 {
            f,
            pout: _,
            p,
            d,
            a,
            b,
            c,
            lut: _,
        } = *self;
        o.opt_pred_def(p);
        o.def(d);
        o.read(a);
        o.src(b);
        o.read(c);
        f.roles(o);
    }
}

/// `BFE[.U32|.S32][.BREV] Rd[.CC], Ra, Sb`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bfe {
    /// Destination.
    pub d: Reg,
    /// `.CC`.
    pub cc: bool,
    /// `.S32`.
    pub signed: bool,
    /// `.BREV`.
    pub brev: bool,
    /// Source.
    pub a: Reg,
    /// Position (bits 7:0) and length (bits 15:8).
    pub b: Src,
}

impl Operands for Bfe {
    fn operands(&self, o: &mut Roles<'_>) {
        let Bfe {
            d,
            cc,
            signed: _,
            brev: _,
            a,
            b,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.cc_write(cc);
    }
}

/// `BFI Rd[.CC], Ra, Sb, Rc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bfi {
    /// Destination.
    pub d: Reg,
    /// `.CC`.
    pub cc: bool,
    /// Inserted bits.
    pub a: Reg,
    /// Position and length.
    pub b: Src,
    /// Base value (register or constant).
    pub c: Src,
}

impl Operands for Bfi {
    fn operands(&self, o: &mut Roles<'_>) {
        let Bfi { d, cc, a, b, c } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.src(c);
        o.cc_write(cc);
    }
}

/// `POPC Rd, [~]Sb`: the number of set bits of Sb (of ~Sb with `~`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Popc {
    /// Destination.
    pub d: Reg,
    /// `~Sb`: count the bits of the inverse.
    pub not_b: bool,
    /// Source (register, constant or signed 20-bit immediate).
    pub b: Src,
}

impl Operands for Popc {
    fn operands(&self, o: &mut Roles<'_>) {
        let Popc { d, not_b: _, b } = *self;
        o.def(d);
        o.src(b);
    }
}

/// `FLO[.U32|.S32][.SH] Rd, [~]Sb`: find the leading one (docs/semantics.md §22).
///
/// With *v* = Sb (or ~Sb with `~`): the bit position (0..=31) of the most significant 1 of *v*;
/// with `.S32` and a negative *v*, of its most significant 0 (the first bit that differs from
/// the sign). `.SH` returns 31 minus that position instead (the left shift that brings the bit
/// to bit 31). When there is no such bit (*v* = 0, or -1 with `.S32`) the result is 0xffffffff,
/// with or without `.SH`: PTX's `bfind` (`.shiftamt` for `.SH`), which ptxas compiles to FLO.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flo {
    /// Destination.
    pub d: Reg,
    /// `.S32`: look for the first bit that differs from the sign bit.
    pub signed: bool,
    /// `.SH`: return the shift amount (31 - position).
    pub sh: bool,
    /// `~Sb`: invert the source first.
    pub not_b: bool,
    /// Source (register, constant or signed 20-bit immediate).
    pub b: Src,
}

impl Operands for Flo {
    fn operands(&self, o: &mut Roles<'_>) {
        let Flo {
            d,
            signed: _,
            sh: _,
            not_b: _,
            b,
        } = *self;
        o.def(d);
        o.src(b);
    }
}

/// `SEL Rd, Ra, Sb, Pp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sel {
    /// Destination.
    pub d: Reg,
    /// Chosen when Pp holds.
    pub a: Reg,
    /// Chosen otherwise.
    pub b: Src,
    /// Selector.
    pub p: PredSrc,
}

impl Operands for Sel {
    fn operands(&self, o: &mut Roles<'_>) {
        let Sel { d, a, b, p } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.pred_read(p);
    }
}

/// Integer comparison of ISETP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `.F`: false.
    F,
    /// `.LT`
    Lt,
    /// `.EQ`
    Eq,
    /// `.LE`
    Le,
    /// `.GT`
    Gt,
    /// `.NE`
    Ne,
    /// `.GE`
    Ge,
    /// `.T`: true.
    T,
}

impl Cmp {
    /// Every comparison.
    pub const ALL: [Cmp; 8] = [
        Cmp::F,
        Cmp::Lt,
        Cmp::Eq,
        Cmp::Le,
        Cmp::Gt,
        Cmp::Ne,
        Cmp::Ge,
        Cmp::T,
    ];
}

/// Boolean combiner of ISETP / PSETP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    /// `.AND`
    And,
    /// `.OR`
    Or,
    /// `.XOR`
    Xor,
}

impl BoolOp {
    /// Applies the combiner.
    pub fn apply(self, a: bool, b: bool) -> bool {
        match self {
            BoolOp::And => a & b,
            BoolOp::Or => a | b,
            BoolOp::Xor => a ^ b,
        }
    }
}

/// `ISETP.cmp[.U32][.X].bop Pd, Pq, Ra, Sb, Pp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Isetp {
    /// Comparison.
    pub cmp: Cmp,
    /// `.U32`: unsigned comparison.
    pub unsigned: bool,
    /// `.X`: high part of a wide comparison.
    pub x: bool,
    /// Combiner with Pp.
    pub bop: BoolOp,
    /// Destination: (Ra cmp Sb) bop Pp.
    pub p: Pred,
    /// Destination: !(Ra cmp Sb) bop Pp.
    pub q: Pred,
    /// First source.
    pub a: Reg,
    /// Second source.
    pub b: Src,
    /// Combined predicate.
    pub c: PredSrc,
}

impl Operands for Isetp {
    fn operands(&self, o: &mut Roles<'_>) {
        let Isetp {
            cmp,
            unsigned: _,
            x,
            bop: _,
            p,
            q,
            a,
            b,
            c,
        } = *self;
        o.pred_def(p);
        o.pred_def(q);
        o.read(a);
        o.src(b);
        o.pred_read(c);
        // `.X` chains the carry; `.LT`/`.GE` look only at the sign of the difference, `.F`/`.T` at
        // nothing, the others at ZF too.
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
    }
}

/// `PSETP.bop1.bop2 Pd, Pq, Pa, Pb, Pc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Psetp {
    /// First combiner.
    pub bop1: BoolOp,
    /// Second combiner.
    pub bop2: BoolOp,
    /// Destination: (Pa bop1 Pb) bop2 Pc.
    pub p: Pred,
    /// Destination: (!Pa bop1 Pb) bop2 Pc.
    pub q: Pred,
    /// Sources.
    pub a: PredSrc,
    /// Sources.
    pub b: PredSrc,
    /// Sources.
    pub c: PredSrc,
}

impl Operands for Psetp {
    fn operands(&self, o: &mut Roles<'_>) {
        let Psetp {
            bop1: _,
            bop2: _,
            p,
            q,
            a,
            b,
            c,
        } = *self;
        o.pred_def(p);
        o.pred_def(q);
        o.pred_read(a);
        o.pred_read(b);
        o.pred_read(c);
    }
}

/// What P2R reads: the predicate file or the condition code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum P2rSrc {
    /// `PR`: P0..P6 in bits 0..6.
    Pr,
    /// `CC`: ZF bit 0, SF bit 1, CF bit 2, OF bit 3.
    Cc,
}

/// `P2R[.B1|.B2|.B3] Rd, PR|CC, Ra, mask`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct P2r {
    /// Destination.
    pub d: Reg,
    /// Byte the bits and mask move to (0..=3).
    pub byte: u8,
    /// Source of the bits.
    pub src: P2rSrc,
    /// Value merged into.
    pub a: Reg,
    /// Mask (applied after moving to `byte`).
    pub mask: Src,
}

impl Operands for P2r {
    fn operands(&self, o: &mut Roles<'_>) {
        let P2r {
            d,
            byte: _,
            src,
            a,
            mask,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(mask);
        // The bits of the 8-bit mask that may be set: exact for an immediate, all otherwise.
        let bits = match mask {
            Src::Imm(m) | Src::Imm32(m) => m as u8,
            Src::Reg(r) if r.is_rz() => 0,
            _ => 0xff,
        };
        match src {
            // PR: P0..P6 in bits 0..6.
            P2rSrc::Pr => (0..7).filter(|p| bits >> p & 1 != 0).for_each(|p| {
                o.pred_read(PredSrc {
                    pred: Pred(p),
                    neg: false,
                })
            }),
            // CC: ZF bit 0, SF bit 1, CF bit 2, OF bit 3.
            P2rSrc::Cc => [Flag::Zf, Flag::Sf, Flag::Cf, Flag::Of]
                .into_iter()
                .enumerate()
                .filter(|(bit, _)| bits >> bit & 1 != 0)
                .for_each(|(_, f)| o.flag_read(f)),
        }
    }
}

/// The 64-bit pair mode of IMNMX (docs/semantics.md §22a).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ImnmxMode {
    /// A 32-bit min/max.
    #[default]
    Plain,
    /// `.XLO`: the low word of a 64-bit min/max, after `.XHI.CC` on the high words.
    Xlo,
    /// `.XHI`: the high word of a 64-bit min/max; with `.CC` it records the comparison.
    Xhi,
}

/// `IMNMX[.U32|.S32][.XLO|.XHI] Rd[.CC], Ra, Sb, Pp`: Pp ? min : max (docs/semantics.md §22,
/// §22a for the 64-bit modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Imnmx {
    /// Destination.
    pub d: Reg,
    /// `.CC` on the destination (`.XHI` only).
    pub cc: bool,
    /// `.XLO` / `.XHI`.
    pub mode: ImnmxMode,
    /// `.U32`.
    pub unsigned: bool,
    /// First source.
    pub a: Reg,
    /// Second source.
    pub b: Src,
    /// min when true, max when false.
    pub p: PredSrc,
}

impl Operands for Imnmx {
    fn operands(&self, o: &mut Roles<'_>) {
        let Imnmx {
            d,
            cc,
            mode,
            unsigned: _,
            a,
            b,
            p,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.pred_read(p);
        o.cc_write(cc);
        if mode == ImnmxMode::Xlo {
            o.flag_read(Flag::Zf);
            o.flag_read(Flag::Sf);
        }
    }
}

/// `ICMP.cmp[.U32] Rd, Ra, Sb, Rc`: Rd = (Rc cmp 0) ? Ra : Sb, the comparison signed unless
/// `.U32` (docs/semantics.md §22).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Icmp {
    /// Destination.
    pub d: Reg,
    /// Comparison of Rc with zero.
    pub cmp: Cmp,
    /// `.U32`: unsigned comparison.
    pub unsigned: bool,
    /// Chosen when the comparison holds.
    pub a: Reg,
    /// Chosen otherwise (register, constant or signed 20-bit immediate).
    pub b: Src,
    /// Compared with zero (register or constant; a constant only with a register Sb).
    pub c: Src,
}

impl Operands for Icmp {
    fn operands(&self, o: &mut Roles<'_>) {
        let Icmp {
            d,
            cmp: _,
            unsigned: _,
            a,
            b,
            c,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.src(c);
    }
}

/// The mode of PRMT: the default (four selector nibbles) or one of PTX `prmt`'s modes, which
/// read only the selector's low two bits (docs/semantics.md §22a).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PrmtMode {
    /// Four 4-bit byte selectors with sign replication.
    #[default]
    Idx,
    /// `.F4E`: forward 4 extract.
    F4e,
    /// `.B4E`: backward 4 extract.
    B4e,
    /// `.RC8`: replicate a byte.
    Rc8,
    /// `.ECL`: edge clamp left.
    Ecl,
    /// `.ECR`: edge clamp right.
    Ecr,
    /// `.RC16`: replicate a half word.
    Rc16,
}

impl PrmtMode {
    /// Every mode, in encoding order (0 to 6).
    pub const ALL: [PrmtMode; 7] = [
        PrmtMode::Idx,
        PrmtMode::F4e,
        PrmtMode::B4e,
        PrmtMode::Rc8,
        PrmtMode::Ecl,
        PrmtMode::Ecr,
        PrmtMode::Rc16,
    ];
}

/// `PRMT[.F4E|.B4E|.RC8|.ECL|.ECR|.RC16] Rd, Ra, Sb, Rc`: byte permute of {Rc, Ra}.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prmt {
    /// Destination.
    pub d: Reg,
    /// Mode.
    pub mode: PrmtMode,
    /// Bytes 0..3.
    pub a: Reg,
    /// Selector (bits 15:0).
    pub b: Src,
    /// Bytes 4..7 (register or constant).
    pub c: Src,
}

impl Operands for Prmt {
    fn operands(&self, o: &mut Roles<'_>) {
        let Prmt {
            d,
            mode: _,
            a,
            b,
            c,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.src(c);
    }
}

/// `LEA{.LO|.HI}{.X} [Plg,] Rd{.CC}, {-}Ra, Sb{, Rc}{, s}` (docs/semantics.md §19).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lea {
    /// `.HI` (else `.LO`).
    pub hi: bool,
    /// `.X`: carry in.
    pub x: bool,
    /// `.CC` on the destination.
    pub cc: bool,
    /// The local/global predicate Plg, if written.
    pub p: Option<Pred>,
    /// Destination.
    pub d: Reg,
    /// `-Ra`: negate {Rc, Ra} as 64 bits.
    pub neg_a: bool,
    /// Offset, low word.
    pub a: Reg,
    /// Base: register, constant, or (LO only) signed 20-bit immediate.
    pub b: Src,
    /// Offset, high word (HI only; `RZ` when omitted).
    pub c: Reg,
    /// `#ScaleU05`.
    pub shift: u8,
}

impl Operands for Lea {
    fn operands(&self, o: &mut Roles<'_>) {
        let Lea {
            hi,
            x,
            cc,
            p,
            d,
            neg_a: _,
            a,
            b,
            c,
            shift: _,
        } = *self;
        o.opt_pred_def(p);
        o.def(d);
        o.read(a);
        o.src(b);
        o.read(c);
        o.cc_write(cc);
        o.cf_read(x);
        if hi {
            // The window test of LEA.HI looks at {Rd, lea_lo}; its result only reaches CC.OF and Plg.
            o.lea_lo_read(cc || p.is_some_and(|p| !p.is_pt()));
        } else {
            o.lea_lo_write();
        }
    }
}

/// The part of a 32-bit register a scalar video operand takes (docs/semantics.md §22e), zero- or
/// sign-extended: a byte, a half or the word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VideoPart {
    /// Byte 0 to 3 (`.B0`-`.B3`).
    Byte(u8),
    /// Half 0 or 1 (`.H0`, `.H1`).
    Half(u8),
    /// The whole register.
    Word,
}

/// What a scalar video instruction does with its result and `Rc` (docs/semantics.md §22e).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VideoSecond {
    /// `.MRG_16H`: the low 16 bits into `Rc`'s high half.
    Mrg16h,
    /// `.MRG_16L`: the low 16 bits into `Rc`'s low half.
    Mrg16l,
    /// `.MRG_8B0`: the low byte into `Rc`'s byte 0.
    Mrg8b0,
    /// `.MRG_8B2`: the low byte into `Rc`'s byte 2.
    Mrg8b2,
    /// `.ACC`: plus `Rc`.
    Acc,
    /// `.MIN`: the minimum with `Rc`.
    Min,
    /// `.MAX`: the maximum with `Rc`.
    Max,
    /// None: the result itself (`Rc` unread).
    Plain,
}

impl VideoSecond {
    /// In encoding order (the 3-bit field's values 0 to 7).
    pub const ALL: [VideoSecond; 8] = [
        VideoSecond::Mrg16h,
        VideoSecond::Mrg16l,
        VideoSecond::Mrg8b0,
        VideoSecond::Mrg8b2,
        VideoSecond::Acc,
        VideoSecond::Min,
        VideoSecond::Max,
        VideoSecond::Plain,
    ];
}

/// The operands and modes VMNMX and VABSDIFF share: `op(Ra.part, Sb.part)` on values extended
/// to 33 bits, saturated to the destination type with `.SAT`, then the secondary step with
/// `Rc` (docs/semantics.md §22e).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Video {
    /// Destination.
    pub d: Reg,
    /// `.SD`: a signed destination (else `.UD`).
    pub d_signed: bool,
    /// `.SAT`.
    pub sat: bool,
    /// The secondary step.
    pub second: VideoSecond,
    /// First source.
    pub a: Reg,
    /// Its part.
    pub a_part: VideoPart,
    /// Its type is signed.
    pub a_signed: bool,
    /// Second source: a register or a 16-bit immediate (then `b_part` is `Half(0)`).
    pub b: Src,
    /// Its part.
    pub b_part: VideoPart,
    /// Its type is signed.
    pub b_signed: bool,
    /// Third source (read by every secondary step but the plain one).
    pub c: Reg,
}

impl Video {
    fn operands(&self, o: &mut Roles<'_>) {
        let Video {
            d,
            d_signed: _,
            sat: _,
            second,
            a,
            a_part: _,
            a_signed: _,
            b,
            b_part: _,
            b_signed: _,
            c,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        if second != VideoSecond::Plain {
            o.read(c);
        }
    }
}

/// `VMNMX.{UD|SD}.atype.btype.{MN|MX}[.SAT][.second] Rd, Ra[.sel], Sb[.sel], Rc`: the minimum
/// (`.MN`) or maximum (`.MX`) of two video operands (docs/semantics.md §22e). ptxas writes it
/// for a clamp, `min(max(x, lo), hi)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vmnmx {
    /// `.MX` (else `.MN`).
    pub max: bool,
    /// Operands and modes.
    pub v: Video,
}

impl Operands for Vmnmx {
    fn operands(&self, o: &mut Roles<'_>) {
        let Vmnmx { max: _, v } = *self;
        v.operands(o);
    }
}

/// `VABSDIFF.{UD|SD}.atype.btype[.SAT][.second] Rd, Ra[.sel], Sb[.sel], Rc`: the absolute
/// difference of two video operands (docs/semantics.md §22e). ptxas writes it for `sad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vabsdiff {
    /// Operands and modes.
    pub v: Video,
}

impl Operands for Vabsdiff {
    fn operands(&self, o: &mut Roles<'_>) {
        let Vabsdiff { v } = *self;
        v.operands(o);
    }
}

/// `VABSDIFF4[.SD].{U8|S8}.{U8|S8}[.SAT][.ACC] Rd, Ra, Rb, Rc`: the absolute differences of the
/// four bytes of `Ra` and `Rb`, each byte zero- or sign-extended by its type (docs/semantics.md
/// §22e): without `.ACC` the four differences are `Rd`'s bytes (`.SAT` clamps each to the
/// destination's byte range, 0..255 or, with `.SD`, 0..127), with `.ACC` their sum plus `Rc`.
/// ptxas writes it for `vabsdiff4.u32.u32.u32` (`__vabsdiffu4`) and `.add` (`__vsadu4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vabsdiff4 {
    /// Destination.
    pub d: Reg,
    /// `.SD`: a signed destination (its `.SAT` range is 0..127).
    pub d_signed: bool,
    /// `.SAT` (not with `.ACC`).
    pub sat: bool,
    /// `.ACC`: the sum of the four differences plus `Rc`.
    pub acc: bool,
    /// First source.
    pub a: Reg,
    /// Its bytes are signed (`.S8`).
    pub a_signed: bool,
    /// Second source.
    pub b: Reg,
    /// Its bytes are signed (`.S8`).
    pub b_signed: bool,
    /// Third source (read by `.ACC` only: the merge of all four bytes leaves none of it).
    pub c: Reg,
}

impl Operands for Vabsdiff4 {
    fn operands(&self, o: &mut Roles<'_>) {
        let Vabsdiff4 {
            d,
            d_signed: _,
            sat: _,
            acc,
            a,
            a_signed: _,
            b,
            b_signed: _,
            c,
        } = *self;
        o.def(d);
        o.read(a);
        o.read(b);
        if acc {
            o.read(c);
        }
    }
}
