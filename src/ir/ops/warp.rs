//! Atomics and warp operations (docs/semantics.md §22b, §22c): `ATOM` and `RED` on global
//! memory, `ATOMS` on shared memory, `SHFL` and `VOTE`, each with its operand roles.

use crate::ir::operand::*;
use crate::ir::roles::*;

/// The operation of an atomic (`ATOM`, `RED`, `ATOMS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomOp {
    /// `.ADD`
    Add,
    /// `.MIN`
    Min,
    /// `.MAX`
    Max,
    /// `.INC`: `old >= b ? 0 : old + 1` (unsigned).
    Inc,
    /// `.DEC`: `old == 0 || old > b ? b : old - 1` (unsigned).
    Dec,
    /// `.AND`
    And,
    /// `.OR`
    Or,
    /// `.XOR`
    Xor,
    /// `.EXCH`
    Exch,
    /// `.CAS`: compare with `b`, swap in `c`.
    Cas,
}

impl AtomOp {
    /// Every operation, in encoding order (CAS, encoded apart, last).
    pub const ALL: [AtomOp; 10] = [
        AtomOp::Add,
        AtomOp::Min,
        AtomOp::Max,
        AtomOp::Inc,
        AtomOp::Dec,
        AtomOp::And,
        AtomOp::Or,
        AtomOp::Xor,
        AtomOp::Exch,
        AtomOp::Cas,
    ];
}

/// The operand type of an atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AtomType {
    /// `.U32` (the default).
    #[default]
    U32,
    /// `.S32`
    S32,
    /// `.U64` (`.64` on CAS)
    U64,
    /// `.S64`
    S64,
    /// `.F32.FTZ.RN` (ADD only)
    F32,
}

impl AtomType {
    /// Every type.
    pub const ALL: [AtomType; 5] = [
        AtomType::U32,
        AtomType::S32,
        AtomType::U64,
        AtomType::S64,
        AtomType::F32,
    ];

    /// Registers per operand (1 or 2).
    pub fn regs(self) -> u8 {
        match self {
            AtomType::U64 | AtomType::S64 => 2,
            _ => 1,
        }
    }

    /// Bytes accessed (4 or 8).
    pub fn bytes(self) -> u32 {
        4 * self.regs() as u32
    }

    /// The memory size of the access.
    pub fn size(self) -> MemSize {
        if self.regs() == 2 {
            MemSize::B64
        } else {
            MemSize::B32
        }
    }

    /// Whether `op` is defined on this type: `.F32` only adds, `.INC`/`.DEC` are `.U32` only,
    /// `.CAS` is `.U32` (32-bit) or `.U64` (`.64`).
    pub fn valid_with(self, op: AtomOp) -> bool {
        match op {
            AtomOp::Add => true,
            AtomOp::Inc | AtomOp::Dec => self == AtomType::U32,
            AtomOp::Cas => matches!(self, AtomType::U32 | AtomType::U64),
            _ => self != AtomType::F32,
        }
    }
}

/// The memory space of an atomic and its address width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomSpace {
    /// Global memory; `true` for a 64-bit (`.E`) address.
    Global(bool),
    /// The CTA's shared memory.
    Shared,
}

/// What the engines need of any atomic: space, operation, type and address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtomAccess {
    /// Space and address width.
    pub space: AtomSpace,
    /// Operation.
    pub op: AtomOp,
    /// Type.
    pub ty: AtomType,
    /// Address.
    pub addr: Addr,
}

/// `ATOM[.E].op[.type] Rd, [Ra+imm], Rb[, Rc]`: an atomic on global memory returning the old
/// value (`.CAS`: compare with Rb, swap in Rc, which is the register after Rb, or pair).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Atomg {
    /// Destination: the value before this lane's update.
    pub d: Reg,
    /// `.E`: 64-bit address in {Ra+1, Ra}.
    pub e: bool,
    /// Operation.
    pub op: AtomOp,
    /// Type.
    pub ty: AtomType,
    /// Address (a 20-bit signed offset).
    pub addr: Addr,
    /// Operand (the compare value of `.CAS`).
    pub b: Reg,
}

impl Atomg {
    /// The access it makes.
    pub fn access(&self) -> AtomAccess {
        AtomAccess {
            space: AtomSpace::Global(self.e),
            op: self.op,
            ty: self.ty,
            addr: self.addr,
        }
    }
}

/// The swap register of a CAS: right after the compare register (pair).
pub fn cas_swap(b: Reg, ty: AtomType) -> Reg {
    if b.is_rz() {
        b
    } else {
        b.offset(ty.regs())
    }
}

fn atomic_roles(o: &mut Roles<'_>, a: AtomAccess, d: Option<Reg>, b: Reg) {
    let space = match a.space {
        AtomSpace::Global(_) => Space::Global,
        AtomSpace::Shared => Space::Shared,
    };
    let e = matches!(a.space, AtomSpace::Global(true));
    let size = a.ty.size();
    let n = a.ty.regs();
    o.store(space, size, a.addr, e, b);
    if a.op == AtomOp::Cas {
        o.read_n(cas_swap(b, a.ty), n);
    }
    if let Some(d) = d {
        o.load(space, size, a.addr, e, d);
        // Lanes with equal operands get different old values.
        o.lane_varying(true);
    }
}

impl Operands for Atomg {
    fn operands(&self, o: &mut Roles<'_>) {
        let Atomg {
            d,
            e: _,
            op: _,
            ty: _,
            addr: _,
            b,
        } = *self;
        atomic_roles(o, self.access(), Some(d), b);
    }
}

/// `RED[.E].op[.type] [Ra+imm], Rb`: an atomic on global memory without a result (no `.CAS`,
/// `.EXCH`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Red {
    /// `.E`.
    pub e: bool,
    /// Operation.
    pub op: AtomOp,
    /// Type.
    pub ty: AtomType,
    /// Address.
    pub addr: Addr,
    /// Operand.
    pub b: Reg,
}

impl Red {
    /// The access it makes.
    pub fn access(&self) -> AtomAccess {
        AtomAccess {
            space: AtomSpace::Global(self.e),
            op: self.op,
            ty: self.ty,
            addr: self.addr,
        }
    }
}

impl Operands for Red {
    fn operands(&self, o: &mut Roles<'_>) {
        let Red {
            e: _,
            op: _,
            ty: _,
            addr: _,
            b,
        } = *self;
        atomic_roles(o, self.access(), None, b);
    }
}

/// `ATOMS.op[.type] Rd, [Ra+imm], Rb[, Rc]`: an atomic on the CTA's shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Atoms {
    /// Destination.
    pub d: Reg,
    /// Operation (no `.F32`).
    pub op: AtomOp,
    /// Type.
    pub ty: AtomType,
    /// Offset into shared memory (a 24-bit signed offset, a multiple of 4).
    pub addr: Addr,
    /// Operand (the compare value of `.CAS`).
    pub b: Reg,
}

impl Atoms {
    /// The access it makes.
    pub fn access(&self) -> AtomAccess {
        AtomAccess {
            space: AtomSpace::Shared,
            op: self.op,
            ty: self.ty,
            addr: self.addr,
        }
    }
}

impl Operands for Atoms {
    fn operands(&self, o: &mut Roles<'_>) {
        let Atoms {
            d,
            op: _,
            ty: _,
            addr: _,
            b,
        } = *self;
        atomic_roles(o, self.access(), Some(d), b);
    }
}

/// The mode of `SHFL`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    /// `.IDX`: from lane `b`.
    Idx,
    /// `.UP`: from lane − `b`.
    Up,
    /// `.DOWN`: from lane + `b`.
    Down,
    /// `.BFLY`: from lane xor `b`.
    Bfly,
}

impl ShflMode {
    /// In encoding order.
    pub const ALL: [ShflMode; 4] = [ShflMode::Idx, ShflMode::Up, ShflMode::Down, ShflMode::Bfly];
}

/// A register or a small immediate (SHFL's lane and clamp operands).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegImm {
    /// A register.
    Reg(Reg),
    /// An immediate.
    Imm(u32),
}

/// `SHFL.mode Pd, Rd, Ra, b, c`: Rd = Ra of the source lane, Pd = whether the source lane was in
/// range. `b` is the lane operand (register or 0..=0x1f), `c` the clamp (bits 0-4) and segment
/// mask (bits 8-12) (register or 0..=0x1fff).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shfl {
    /// Mode.
    pub mode: ShflMode,
    /// In-range predicate (`PT` when not wanted).
    pub p: Pred,
    /// Destination.
    pub d: Reg,
    /// Value shuffled.
    pub a: Reg,
    /// Lane operand.
    pub b: RegImm,
    /// Clamp and segment mask.
    pub c: RegImm,
}

impl Operands for Shfl {
    fn operands(&self, o: &mut Roles<'_>) {
        let Shfl {
            mode: _,
            p,
            d,
            a,
            b,
            c,
        } = *self;
        o.read(a);
        for x in [b, c] {
            if let RegImm::Reg(r) = x {
                o.read(r);
            }
        }
        o.def(d);
        o.pred_def(p);
        // A lane's result comes from another lane's register.
        o.lane_varying(true);
    }
}

/// `CS2R Rd, SR_CLOCKLO` / `SR_CLOCKHI`: a word of the warp's clock (docs/semantics.md §22d),
/// the fast form of `S2R` for the clock. On sm_50 it writes one register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cs2r {
    /// Destination.
    pub d: Reg,
    /// `SR_CLOCKHI` (else `SR_CLOCKLO`).
    pub hi: bool,
}

impl Operands for Cs2r {
    fn operands(&self, o: &mut Roles<'_>) {
        let Cs2r { d, hi: _ } = *self;
        o.def(d);
    }
}

/// The vote of `VOTE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    /// `.ALL`: true in every active lane.
    All,
    /// `.ANY`: true in some active lane.
    Any,
    /// `.EQ`: the same in every active lane.
    Eq,
}

impl VoteMode {
    /// In encoding order.
    pub const ALL: [VoteMode; 3] = [VoteMode::All, VoteMode::Any, VoteMode::Eq];
}

/// `VOTE.mode Rd, Pd, Pp`: Rd = the ballot (bit *l* set when lane *l* is executing and Pp holds
/// there), Pd = the vote over the executing lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vote {
    /// Mode.
    pub mode: VoteMode,
    /// Ballot register (`RZ` when not wanted).
    pub d: Reg,
    /// Vote predicate (`PT` when not wanted).
    pub p: Pred,
    /// The predicate voted on.
    pub a: PredSrc,
}

impl Operands for Vote {
    fn operands(&self, o: &mut Roles<'_>) {
        let Vote { mode: _, d, p, a } = *self;
        o.pred_read(a);
        o.def(d);
        o.pred_def(p);
    }
}
