//! The op table: every per-lane operation of the IR, defined once.
//!
//! [`for_each_op!`](crate::for_each_op) is the single list of ops. The parser, the printer and every engine expand it
//! (`$m! { Variant(Struct) "MNEMONIC", ... }`), so adding an instruction means adding one line here,
//! one struct below, and one implementation per consumer (syntax, interpreter, JIT), each found by
//! the compiler when missing.
//!
//! Control flow (BRA, SSY, SYNC, EXIT, BAR) is not an op: it ends a block as a
//! [`Terminator`](super::Terminator).

use super::operand::*;

/// Invokes `$m!` with the whole op list: `Variant(Struct) "MNEMONIC"`, comma separated.
#[macro_export]
macro_rules! for_each_op {
    ($m:ident) => {
        $m! {
            Mov(Mov) "MOV",
            Mov32i(Mov32i) "MOV32I",
            S2r(S2r) "S2R",
            Iadd(Iadd) "IADD",
            Iadd32i(Iadd32i) "IADD32I",
            Iadd3(Iadd3) "IADD3",
            Iscadd(Iscadd) "ISCADD",
            Xmad(Xmad) "XMAD",
            Shl(Shl) "SHL",
            Shr(Shr) "SHR",
            Lop(Lop) "LOP",
            Lop32i(Lop32i) "LOP32I",
            Lop3(Lop3) "LOP3",
            Bfe(Bfe) "BFE",
            Bfi(Bfi) "BFI",
            Sel(Sel) "SEL",
            Isetp(Isetp) "ISETP",
            Psetp(Psetp) "PSETP",
            P2r(P2r) "P2R",
            Imnmx(Imnmx) "IMNMX",
            Prmt(Prmt) "PRMT",
            Lea(Lea) "LEA",
            Ldc(Ldc) "LDC",
            Ldg(Ldg) "LDG",
            Stg(Stg) "STG",
            Ld(Ld) "LD",
            St(St) "ST",
            Lds(Lds) "LDS",
            Sts(Sts) "STS",
            Membar(Membar) "MEMBAR",
            Nop(Nop) "NOP",
            Depbar(Depbar) "DEPBAR",
        }
    };
}

macro_rules! define_op_enum {
    ($($v:ident($s:ident) $name:literal,)*) => {
        /// One per-lane operation of the IR (see the module docs for the table).
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum Op {
            $(
                #[doc = concat!("`", $name, "`")]
                $v($s),
            )*
        }

        impl Op {
            /// The mnemonic (the first dotted word of the instruction's text).
            pub fn mnemonic(&self) -> &'static str {
                match self {
                    $(Op::$v(_) => $name,)*
                }
            }

            /// Every mnemonic in the table, in table order.
            pub const MNEMONICS: &'static [&'static str] = &[$($name,)*];
        }

        $(
            impl From<$s> for Op {
                fn from(op: $s) -> Op {
                    Op::$v(op)
                }
            }
        )*
    };
}
for_each_op!(define_op_enum);

/// `MOV Rd, Sb`: copy a register, constant or 32-bit immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mov {
    /// Destination.
    pub d: Reg,
    /// Source.
    pub b: Src,
}

/// `MOV32I Rd, imm32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mov32i {
    /// Destination.
    pub d: Reg,
    /// The 32-bit immediate.
    pub imm: u32,
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
}

impl SpecialReg {
    /// All special registers with their text names.
    pub const ALL: [(SpecialReg, &'static str); 7] = [
        (SpecialReg::TidX, "SR_TID.X"),
        (SpecialReg::TidY, "SR_TID.Y"),
        (SpecialReg::TidZ, "SR_TID.Z"),
        (SpecialReg::CtaidX, "SR_CTAID.X"),
        (SpecialReg::CtaidY, "SR_CTAID.Y"),
        (SpecialReg::CtaidZ, "SR_CTAID.Z"),
        (SpecialReg::LaneId, "SR_LANEID"),
    ];
    /// The text name (`SR_TID.X`).
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(s, _)| *s == self)
            .map(|(_, n)| *n)
            .unwrap_or("SR_?")
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

/// `IADD[.PO][.X] Rd[.CC], [-]Ra, [-]Sb` (immediate: signed 20-bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iadd {
    /// Destination.
    pub d: Reg,
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

/// `IADD32I[.PO][.X] Rd[.CC], [-]Ra, imm32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iadd32i {
    /// Destination.
    pub d: Reg,
    /// `.CC`.
    pub cc: bool,
    /// `.X`.
    pub x: bool,
    /// `.PO`.
    pub po: bool,
    /// `-Ra`.
    pub neg_a: bool,
    /// First source.
    pub a: Reg,
    /// The 32-bit immediate.
    pub imm: u32,
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

/// `ISCADD[.PO] Rd[.CC], [-]Ra, [-]Sb, s`: Rd = (Ra << s) + Sb.
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
}

/// `XMAD[.S16|.U16][.S16|.U16][.PSL][.MRG][.CLO|.CHI|.CBCC] Rd[.CC], Ra[.H1], Sb[.H1], Rc`.
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

/// `SHL[.W] Rd, Ra, Sb`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shl {
    /// Destination.
    pub d: Reg,
    /// `.W`: amount mod 32.
    pub w: bool,
    /// Shifted value.
    pub a: Reg,
    /// Amount.
    pub b: Src,
}

/// `SHR[.U32|.S32][.W][.BREV] Rd, Ra, Sb`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shr {
    /// Destination.
    pub d: Reg,
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

impl LopFn {
    /// The modifier text without its dot.
    pub fn name(self) -> &'static str {
        match self {
            LopFn::And => "AND",
            LopFn::Or => "OR",
            LopFn::Xor => "XOR",
            LopFn::PassB => "PASS_B",
        }
    }
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

impl PredOut {
    /// The modifier text.
    pub fn suffix(self) -> &'static str {
        match self {
            PredOut::None => "",
            PredOut::Z => ".Z",
            PredOut::Nz => ".NZ",
            PredOut::T => ".T",
            PredOut::F => ".F",
        }
    }
}

/// `LOP.fn[.Z|.NZ|.T|.F] [Pd,] Rd, [~]Ra, [~]Sb`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lop {
    /// Bitwise function.
    pub func: LopFn,
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

/// `LOP32I.fn Rd, Ra, [~]imm32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lop32i {
    /// Bitwise function.
    pub func: LopFn,
    /// Destination.
    pub d: Reg,
    /// `~Ra`.
    pub not_a: bool,
    /// First source.
    pub a: Reg,
    /// `~imm`: the immediate is inverted.
    pub not_b: bool,
    /// The immediate as written (before `~`).
    pub imm: u32,
}

/// `LOP3.LUT[.Z|.NZ|.T|.F] [Pd,] Rd, Ra, Sb, Rc, lut`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lop3 {
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
    /// All comparisons with names.
    pub const ALL: [(Cmp, &'static str); 8] = [
        (Cmp::F, "F"),
        (Cmp::Lt, "LT"),
        (Cmp::Eq, "EQ"),
        (Cmp::Le, "LE"),
        (Cmp::Gt, "GT"),
        (Cmp::Ne, "NE"),
        (Cmp::Ge, "GE"),
        (Cmp::T, "T"),
    ];
    /// The modifier text without its dot.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(c, _)| *c == self)
            .map(|(_, n)| *n)
            .unwrap_or("?")
    }
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
    /// The modifier text without its dot.
    pub fn name(self) -> &'static str {
        match self {
            BoolOp::And => "AND",
            BoolOp::Or => "OR",
            BoolOp::Xor => "XOR",
        }
    }
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

/// `IMNMX[.U32|.S32] Rd, Ra, Sb, Pp`: Pp ? min : max.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Imnmx {
    /// Destination.
    pub d: Reg,
    /// `.U32`.
    pub unsigned: bool,
    /// First source.
    pub a: Reg,
    /// Second source.
    pub b: Src,
    /// min when true, max when false.
    pub p: PredSrc,
}

/// `PRMT Rd, Ra, Sb, Rc`: byte permute of {Rc, Ra}, default mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prmt {
    /// Destination.
    pub d: Reg,
    /// Bytes 0..3.
    pub a: Reg,
    /// Selector (bits 15:0).
    pub b: Src,
    /// Bytes 4..7 (register or constant).
    pub c: Src,
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

/// LDC size (`.U8 .S8 .U16 .S16 .32 .64 .128`).
pub type LdcSize = MemSize;

/// LDC address mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum LdcMode {
    /// `.IA`, the default.
    #[default]
    Ia,
    /// `.IL`: linear.
    Il,
    /// `.IS`: segmented.
    Is,
    /// `.ISL`: segmented, banks > 13 read 0.
    Isl,
}

impl LdcMode {
    /// The modifier text, empty for IA.
    pub fn suffix(self) -> &'static str {
        match self {
            LdcMode::Ia => "",
            LdcMode::Il => ".IL",
            LdcMode::Is => ".IS",
            LdcMode::Isl => ".ISL",
        }
    }
}

/// `LDC[.sz][.ad] Rd, c[bank][Ra+imm]` (docs/semantics.md §17).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ldc {
    /// Destination (first of a pair/quad).
    pub d: Reg,
    /// Size.
    pub size: LdcSize,
    /// Address mode.
    pub mode: LdcMode,
    /// `#ImmU05` bank.
    pub bank: u8,
    /// Index register (`RZ` when omitted).
    pub a: Reg,
    /// With a register: ImmS16. With `RZ`: the unsigned 16-bit address (0..=0xffff).
    pub imm: i32,
}

/// `LDG[.E][.cop][.sz] [Ps,] Rd, [Ra+imm]` (docs/semantics.md §18).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ldg {
    /// Destination (first of a pair/quad).
    pub d: Reg,
    /// `.E`: 64-bit address in {Ra+1, Ra}.
    pub e: bool,
    /// Cache operator.
    pub cop: CacheOp,
    /// Size.
    pub size: MemSize,
    /// Sparse-tile status predicate.
    pub ps: Option<Pred>,
    /// Address.
    pub addr: Addr,
}

/// `STG[.E][.cop][.sz] [Ra+imm], Rb`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stg {
    /// `.E`.
    pub e: bool,
    /// Cache operator.
    pub cop: CacheOp,
    /// Size (`.S8`/`.S16` store like `.U8`/`.U16`).
    pub size: MemSize,
    /// Address.
    pub addr: Addr,
    /// Value stored (first of a pair/quad).
    pub v: Reg,
}

/// `LD[.E][.cop][.sz] Rd, [Ra+imm][, Pg]`: generic load steered by a predicate (§5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ld {
    /// Destination.
    pub d: Reg,
    /// `.E`.
    pub e: bool,
    /// Cache operator.
    pub cop: CacheOp,
    /// Size.
    pub size: MemSize,
    /// Address.
    pub addr: Addr,
    /// Global when true, shared window when false (`PT` when omitted).
    pub steer: PredSrc,
}

/// `ST[.E][.cop][.sz] [Ra+imm], Rb[, Pg]`: generic store steered by a predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct St {
    /// `.E`.
    pub e: bool,
    /// Cache operator.
    pub cop: CacheOp,
    /// Size.
    pub size: MemSize,
    /// Address.
    pub addr: Addr,
    /// Value stored.
    pub v: Reg,
    /// Global when true, shared window when false.
    pub steer: PredSrc,
}

/// `LDS[.U][.sz] Rd, [Ra+imm]`: load from the CTA's shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lds {
    /// Destination.
    pub d: Reg,
    /// `.U`: uniform hint, no effect.
    pub u: bool,
    /// Size.
    pub size: MemSize,
    /// Offset into shared memory.
    pub addr: Addr,
}

/// `STS[.sz] [Ra+imm], Rb`: store to the CTA's shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sts {
    /// Size.
    pub size: MemSize,
    /// Offset into shared memory.
    pub addr: Addr,
    /// Value stored.
    pub v: Reg,
}

/// Scope of MEMBAR (no functional effect in lockstep execution).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MembarScope {
    /// `.CTA`
    Cta,
    /// `.GL`
    Gl,
    /// `.SYS`
    Sys,
}

/// `MEMBAR.scope`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Membar {
    /// Scope.
    pub scope: MembarScope,
}

/// `NOP`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nop;

/// `DEPBAR[.LE] SBn, count[, {..}]`: a scoreboard wait, no functional effect. Operands are kept
/// verbatim for printing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Depbar {
    /// Operand text after the mnemonic and modifiers, normalised (single spaces).
    pub text: String,
    /// `.LE` written.
    pub le: bool,
}
