//! Operand types shared by every op: registers, predicates, sources, addresses.

use std::fmt;

/// A 32-bit general register `R0..R254`; `RZ` is register 255 (reads 0, writes ignored).
///
/// A DXBC front-end scalarises its 4-component registers into this same file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u8);

impl Reg {
    /// The zero register.
    pub const RZ: Reg = Reg(255);
    /// True for `RZ`.
    pub fn is_rz(self) -> bool {
        self.0 == 255
    }
    /// Index into the register-major register file.
    pub fn index(self) -> usize {
        self.0 as usize
    }
    /// The register `n` places after this one (for pairs and quads); `RZ` stays `RZ`.
    pub fn offset(self, n: u8) -> Reg {
        if self.is_rz() {
            self
        } else {
            Reg(self.0.saturating_add(n))
        }
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_rz() {
            f.write_str("RZ")
        } else {
            write!(f, "R{}", self.0)
        }
    }
}

/// A predicate register `P0..P6`; `PT` is index 7 (always true, writes ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pred(pub u8);

impl Pred {
    /// The always-true predicate.
    pub const PT: Pred = Pred(7);
    /// True for `PT`.
    pub fn is_pt(self) -> bool {
        self.0 == 7
    }
}

impl fmt::Display for Pred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_pt() {
            f.write_str("PT")
        } else {
            write!(f, "P{}", self.0)
        }
    }
}

/// A predicate operand, possibly inverted: `P0`, `!P3`, `PT`, `!PT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PredSrc {
    /// The predicate register read.
    pub pred: Pred,
    /// Whether the value is inverted (`!P0`).
    pub neg: bool,
}

impl PredSrc {
    /// `PT`, the always-true operand.
    pub const TRUE: PredSrc = PredSrc {
        pred: Pred::PT,
        neg: false,
    };
}

impl fmt::Display for PredSrc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.neg {
            f.write_str("!")?;
        }
        write!(f, "{}", self.pred)
    }
}

/// A constant-bank operand `c[bank][offset]` with an immediate, unsigned 16-bit offset.
///
/// It reads as `LDC.32` in IA mode with `Ra = RZ` would (docs/semantics.md §14): banks outside the
/// launch's mode read 0, a misaligned offset faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConstRef {
    /// Bank index, 0..=31.
    pub bank: u8,
    /// Byte offset inside the bank.
    pub offset: u16,
}

impl fmt::Display for ConstRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "c[{:#x}][{:#x}]", self.bank, self.offset)
    }
}

/// The second source slot (`Sb`) of most ALU ops: a register, a constant or an immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Src {
    /// A general register.
    Reg(Reg),
    /// A constant-bank operand.
    Const(ConstRef),
    /// An immediate, already sign- or zero-extended to 32 bits as the op's field defines.
    Imm(u32),
    /// A full 32-bit immediate in the op's 32-bit-immediate form (SASS `MOV32I`, `IADD32I`,
    /// `ISCADD32I`, `LOP32I`, `IMUL32I`, `FADD32I`, `FMUL32I`, `FFMA32I`): the same value to the
    /// engines as [`Src::Imm`]; the front-ends read it from that form and print it in that form
    /// (the form's modifiers are a subset of the op's, see each op).
    Imm32(u32),
}

impl Src {
    /// The register read, if this is a register operand.
    pub fn reg(self) -> Option<Reg> {
        match self {
            Src::Reg(r) => Some(r),
            _ => None,
        }
    }

    /// The immediate's value, if this is an immediate of either form.
    pub fn imm(self) -> Option<u32> {
        match self {
            Src::Imm(v) | Src::Imm32(v) => Some(v),
            Src::Reg(_) | Src::Const(_) => None,
        }
    }
}

impl fmt::Display for Src {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Src::Reg(r) => write!(f, "{r}"),
            Src::Const(c) => write!(f, "{c}"),
            Src::Imm(v) | Src::Imm32(v) => fmt_imm(f, *v),
        }
    }
}

/// Prints an immediate as nvdisasm does: hex, negative values (as signed 32-bit) with a minus.
pub fn fmt_imm(f: &mut fmt::Formatter<'_>, v: u32) -> fmt::Result {
    let s = v as i32;
    if s < 0 {
        write!(f, "-{:#x}", (s as i64).unsigned_abs())
    } else {
        write!(f, "{v:#x}")
    }
}

/// A 16-bit half select on an operand (`.H0` / `.H1`, XMAD and IADD3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Half {
    /// No half select: the whole 32-bit value.
    #[default]
    None,
    /// The low half, zero-extended.
    H0,
    /// The high half, zero-extended.
    H1,
}

impl fmt::Display for Half {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Half::None => Ok(()),
            Half::H0 => f.write_str(".H0"),
            Half::H1 => f.write_str(".H1"),
        }
    }
}

/// A memory address operand `[Ra + imm]` / `[imm]`.
///
/// `base == None` is absolute addressing: `Ra` omitted, `RZ`, or (LDG/LD) a register at or past the
/// launch's register count; `offset` is then the zero-extended unsigned immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Addr {
    /// The base register (the low register of a pair with `.E`).
    pub base: Option<Reg>,
    /// Byte offset: sign-extended with a base register, zero-extended when absolute.
    pub offset: i32,
}

impl fmt::Display for Addr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.base {
            None => write!(f, "[{:#x}]", self.offset as u32),
            Some(r) if self.offset == 0 => write!(f, "[{r}]"),
            Some(r) if self.offset < 0 => {
                write!(f, "[{r}-{:#x}]", (self.offset as i64).unsigned_abs())
            }
            Some(r) => write!(f, "[{r}+{:#x}]", self.offset),
        }
    }
}

/// A Maxwell condition-code test (`CC.EQ`, `CC.NEU`, ...): a boolean function of the four CC
/// flags, read by BRA, SYNC, EXIT, BRK, CONT, RET and CSETP. The variants are in encoding order
/// (the 5-bit test field holds [`CcTest::code`]); what each one computes is
/// [`crate::semantics`]'s `cc_test` (docs/semantics.md §21). The tests 24 to 31 (`CSM_*`,
/// `FCSM_*`, `RLE`, `RGT`) read state other than the flags and are not represented.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CcTest {
    /// `CC.F`: never.
    F,
    /// `CC.LT`
    Lt,
    /// `CC.EQ`
    Eq,
    /// `CC.LE`
    Le,
    /// `CC.GT`
    Gt,
    /// `CC.NE`
    Ne,
    /// `CC.GE`
    Ge,
    /// `CC.NUM`: ordered.
    Num,
    /// `CC.NAN`: unordered.
    Nan,
    /// `CC.LTU`
    Ltu,
    /// `CC.EQU`
    Equ,
    /// `CC.LEU`
    Leu,
    /// `CC.GTU`
    Gtu,
    /// `CC.NEU`
    Neu,
    /// `CC.GEU`
    Geu,
    /// `CC.T`: always.
    T,
    /// `CC.OFF`: overflow clear.
    Off,
    /// `CC.LO`: unsigned lower (carry clear).
    Lo,
    /// `CC.SFF`: sign clear.
    Sff,
    /// `CC.LS`: unsigned lower or same.
    Ls,
    /// `CC.HI`: unsigned higher.
    Hi,
    /// `CC.SFT`: sign set.
    Sft,
    /// `CC.HS`: unsigned higher or same (carry set).
    Hs,
    /// `CC.OFT`: overflow set.
    Oft,
}

impl CcTest {
    /// Every test, in encoding order.
    pub const ALL: [CcTest; 24] = [
        CcTest::F,
        CcTest::Lt,
        CcTest::Eq,
        CcTest::Le,
        CcTest::Gt,
        CcTest::Ne,
        CcTest::Ge,
        CcTest::Num,
        CcTest::Nan,
        CcTest::Ltu,
        CcTest::Equ,
        CcTest::Leu,
        CcTest::Gtu,
        CcTest::Neu,
        CcTest::Geu,
        CcTest::T,
        CcTest::Off,
        CcTest::Lo,
        CcTest::Sff,
        CcTest::Ls,
        CcTest::Hi,
        CcTest::Sft,
        CcTest::Hs,
        CcTest::Oft,
    ];

    /// The 5-bit encoding of the test.
    pub fn code(self) -> u8 {
        Self::ALL.iter().position(|&t| t == self).unwrap_or(0) as u8
    }

    /// The test with encoding `code`, if it is one of those represented (0 to 23).
    pub fn from_code(code: u64) -> Option<CcTest> {
        Self::ALL.get(code as usize).copied()
    }

    /// The name after `CC.` (`NEU`).
    pub fn name(self) -> &'static str {
        [
            "F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU",
            "NEU", "GEU", "T", "OFF", "LO", "SFF", "LS", "HI", "SFT", "HS", "OFT",
        ][self.code() as usize]
    }
}

impl fmt::Display for CcTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CC.{}", self.name())
    }
}

/// Memory access size and extension (`.U8 .S8 .U16 .S16 .32 .64 .128 .U.128`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum MemSize {
    /// 8 bits, zero-extended.
    U8,
    /// 8 bits, sign-extended.
    S8,
    /// 16 bits, zero-extended.
    U16,
    /// 16 bits, sign-extended.
    S16,
    /// 32 bits (the default).
    #[default]
    B32,
    /// 64 bits into a register pair.
    B64,
    /// 128 bits into a register quad.
    B128,
    /// 128 bits with the uniform-address hint (behaves as `.128`).
    U128,
}

impl MemSize {
    /// Bytes accessed.
    pub fn bytes(self) -> u32 {
        match self {
            MemSize::U8 | MemSize::S8 => 1,
            MemSize::U16 | MemSize::S16 => 2,
            MemSize::B32 => 4,
            MemSize::B64 => 8,
            MemSize::B128 | MemSize::U128 => 16,
        }
    }
    /// Registers written or read (1, 2 or 4).
    pub fn regs(self) -> u8 {
        match self {
            MemSize::B64 => 2,
            MemSize::B128 | MemSize::U128 => 4,
            _ => 1,
        }
    }
    /// Whether a sub-word load sign-extends.
    pub fn signed(self) -> bool {
        matches!(self, MemSize::S8 | MemSize::S16)
    }
}

/// Cache operator of a global/generic access. No functional effect; kept for traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CacheOp {
    /// No operator written (the default, `.CA` for loads, `.WB` for stores).
    #[default]
    Default,
    /// Cache at all levels.
    Ca,
    /// Cache at global level.
    Cg,
    /// Streaming (maps to `.CA`).
    Cs,
    /// Last use (maps to `.CG`).
    Lu,
    /// Volatile.
    Cv,
    /// Inconsistent (invariant data).
    Ci,
    /// Write-back (stores).
    Wb,
    /// Write-through (stores).
    Wt,
}
