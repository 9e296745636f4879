//! Operand roles: what an op reads and writes, declared once per op.
//!
//! Every op struct implements [`Operands`] beside its definition (`src/ir/ops/`): its body lists
//! the struct's fields by role through [`Roles`] (destination and source registers with their
//! widths, predicate destinations and sources, condition-code flags, the hidden LEA.LO word,
//! memory accesses with space, direction and width) plus what the analyses need beyond roles
//! (whether it can fault, whether its result can differ between lanes with equal inputs).
//! Implementations destructure `self` without `..`, so a field added to an op is a compile error
//! until it is given a role (or named `_` as a pure modifier).
//!
//! [`Op::operands`] walks an op's roles with a [`Visitor`]; the register visitor
//! ([`Op::for_each_reg`]), the effects, liveness and uniformity analyses (`crate::analysis`) and
//! the JIT's constant-operand check are visitors, so none of them lists ops by hand.

use super::operand::*;
use super::Op;

/// Read (a source) or written (a destination).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Read.
    Use,
    /// Written.
    Def,
}

/// A condition-code flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flag {
    /// Carry.
    Cf,
    /// Zero.
    Zf,
    /// Sign.
    Sf,
    /// Overflow.
    Of,
}

impl Flag {
    /// All four flags.
    pub const ALL: [Flag; 4] = [Flag::Cf, Flag::Zf, Flag::Sf, Flag::Of];
}

/// The memory space an access names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Global memory.
    Global,
    /// The CTA's shared memory.
    Shared,
    /// The constant banks.
    Constant,
    /// The thread's local memory (LDL, STL).
    Local,
    /// Generic: global (or, in a launch with local memory, the local window) where the
    /// steering predicate holds, the shared window elsewhere.
    Generic(PredSrc),
    /// A resource view: a bound texture or buffer (DXBC `t#`, `u#`) or a declared range of
    /// shared memory (`g#`). Bounds are exact, reads out of range give 0 and writes out of range
    /// are dropped: such an access never faults.
    View,
}

impl Space {
    /// Whether the access may reach global memory and shared memory: `(global, shared)`.
    /// A generic access steered by `PT` is always global, by `!PT` always shared.
    pub fn may_reach(self) -> (bool, bool) {
        match self {
            Space::Global => (true, false),
            Space::Shared => (false, true),
            Space::Constant | Space::View | Space::Local => (false, false),
            Space::Generic(s) if s.pred.is_pt() => (!s.neg, s.neg),
            Space::Generic(_) => (true, true),
        }
    }

    /// Whether the access may reach the thread's local memory: LDL/STL, and a generic access
    /// that may be steered away from shared memory (it is local inside the local window).
    pub fn may_reach_local(self) -> bool {
        match self {
            Space::Local => true,
            Space::Generic(s) => !(s.pred.is_pt() && s.neg),
            _ => false,
        }
    }
}

/// One memory access of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemRole {
    /// Load ([`Dir::Use`]) or store ([`Dir::Def`]).
    pub dir: Dir,
    /// The space.
    pub space: Space,
    /// Bytes accessed per lane.
    pub bytes: u32,
    /// The address operand and whether it is 64-bit (`.E`: `{Ra+1, Ra}`), for addressed
    /// accesses; `None` for constant-bank reads (their index register is a plain source).
    pub addr: Option<(Addr, bool)>,
}

/// Receives an op's operands by role. Every method defaults to doing nothing, so a visitor
/// implements only the roles it cares about.
pub trait Visitor {
    /// `count` (1, 2 or 4) consecutive registers from `r` (`RZ` included).
    fn reg(&mut self, _r: Reg, _count: u8, _dir: Dir) {}
    /// A predicate (`PT` included: readers treat it as a constant, writes to it are dropped).
    fn pred(&mut self, _p: Pred, _dir: Dir) {}
    /// A condition-code flag.
    fn flag(&mut self, _f: Flag, _dir: Dir) {}
    /// The hidden per-thread word LEA.LO writes and LEA.HI reads.
    fn lea_lo(&mut self, _dir: Dir) {}
    /// A `c[bank][imm]` source operand: a 4-byte constant read that faults when misaligned.
    fn constant(&mut self, _c: ConstRef) {}
    /// A memory access (its address register, if any, is also reported through [`reg`]).
    ///
    /// [`reg`]: Visitor::reg
    fn mem(&mut self, _m: MemRole) {}
    /// The op may fault for a reason its memory roles do not imply (addressed global, shared
    /// and generic accesses always may).
    fn may_fault(&mut self) {}
    /// The op's result can differ between lanes whose inputs are equal (a thread id).
    fn lane_varying(&mut self) {}
}

/// The operand roles of one op struct. See the module docs.
pub trait Operands {
    /// Declares every operand with its role.
    fn operands(&self, o: &mut Roles<'_>);
}

/// The vocabulary [`Operands`] implementations declare roles with, over a [`Visitor`].
pub struct Roles<'a>(pub &'a mut dyn Visitor);

impl Roles<'_> {
    /// A 32-bit register destination.
    pub fn def(&mut self, r: Reg) {
        self.0.reg(r, 1, Dir::Def);
    }
    /// A destination of `count` consecutive registers.
    pub fn def_n(&mut self, r: Reg, count: u8) {
        self.0.reg(r, count, Dir::Def);
    }
    /// A 32-bit register source.
    pub fn read(&mut self, r: Reg) {
        self.0.reg(r, 1, Dir::Use);
    }
    /// A source of `count` consecutive registers.
    pub fn read_n(&mut self, r: Reg, count: u8) {
        self.0.reg(r, count, Dir::Use);
    }
    /// An `Sb`-style source: a register, a constant (read and alignment fault) or an immediate.
    pub fn src(&mut self, s: Src) {
        match s {
            Src::Reg(r) => self.read(r),
            Src::Const(c) => self.0.constant(c),
            Src::Imm(_) | Src::Imm32(_) => {}
        }
    }
    /// A predicate destination.
    pub fn pred_def(&mut self, p: Pred) {
        self.0.pred(p, Dir::Def);
    }
    /// An optional predicate destination.
    pub fn opt_pred_def(&mut self, p: Option<Pred>) {
        if let Some(p) = p {
            self.pred_def(p);
        }
    }
    /// A predicate source (its inversion does not matter to roles).
    pub fn pred_read(&mut self, p: PredSrc) {
        self.0.pred(p.pred, Dir::Use);
    }
    /// `.CC` on the destination: when `on`, all four flags are written (a clear is a write).
    pub fn cc_write(&mut self, on: bool) {
        if on {
            for f in Flag::ALL {
                self.0.flag(f, Dir::Def);
            }
        }
    }
    /// `.X`: when `on`, the carry flag is read.
    pub fn cf_read(&mut self, on: bool) {
        if on {
            self.0.flag(Flag::Cf, Dir::Use);
        }
    }
    /// One flag read.
    pub fn flag_read(&mut self, f: Flag) {
        self.0.flag(f, Dir::Use);
    }
    /// One flag written (R2P's partial CC write).
    pub fn flag_def(&mut self, f: Flag) {
        self.0.flag(f, Dir::Def);
    }
    /// The LEA.LO word is written.
    pub fn lea_lo_write(&mut self) {
        self.0.lea_lo(Dir::Def);
    }
    /// The LEA.LO word is read, when `on`.
    pub fn lea_lo_read(&mut self, on: bool) {
        if on {
            self.0.lea_lo(Dir::Use);
        }
    }
    /// A load of `size` from `space` at `addr` (`wide`: a 64-bit address pair) into `d`.
    pub fn load(&mut self, space: Space, size: MemSize, addr: Addr, wide: bool, d: Reg) {
        self.access(Dir::Use, space, size, addr, wide);
        self.def_n(d, size.regs());
    }
    /// A store of `size` from `v` to `space` at `addr`.
    pub fn store(&mut self, space: Space, size: MemSize, addr: Addr, wide: bool, v: Reg) {
        self.access(Dir::Def, space, size, addr, wide);
        self.read_n(v, size.regs());
    }
    fn access(&mut self, dir: Dir, space: Space, size: MemSize, addr: Addr, wide: bool) {
        if let Some(r) = addr.base {
            self.read_n(r, if wide { 2 } else { 1 });
        }
        if let Space::Generic(steer) = space {
            self.pred_read(steer);
        }
        self.0.mem(MemRole {
            dir,
            space,
            bytes: size.bytes(),
            addr: Some((addr, wide)),
        });
    }
    /// A constant-bank read of `bytes` at a computed address (LDC; the index is a separate
    /// source).
    pub fn const_load(&mut self, bytes: u32) {
        self.0.mem(MemRole {
            dir: Dir::Use,
            space: Space::Constant,
            bytes,
            addr: None,
        });
    }
    /// A resource-view access of `bytes` per lane (a load for [`Dir::Use`], a store for
    /// [`Dir::Def`]); its coordinates are separate sources.
    pub fn view_access(&mut self, dir: Dir, bytes: u32) {
        self.0.mem(MemRole {
            dir,
            space: Space::View,
            bytes,
            addr: None,
        });
    }
    /// The op may fault, when `on` (see [`Visitor::may_fault`]).
    pub fn may_fault(&mut self, on: bool) {
        if on {
            self.0.may_fault();
        }
    }
    /// The result can differ between lanes with equal inputs, when `on`.
    pub fn lane_varying(&mut self, on: bool) {
        if on {
            self.0.lane_varying();
        }
    }
}

macro_rules! op_operands {
    ($($v:ident($s:ident),)*) => {
        impl Op {
            /// Walks the op's operands with their roles (see the module docs).
            pub fn operands(&self, v: &mut dyn Visitor) {
                let mut roles = Roles(v);
                match self {
                    $(Op::$v(o) => Operands::operands(o, &mut roles),)*
                }
            }
        }
    };
}
crate::for_each_op!(op_operands);

impl Op {
    /// The op's first addressed memory access (global, shared or generic), if any.
    pub fn addressed_access(&self) -> Option<MemRole> {
        struct First(Option<MemRole>);
        impl Visitor for First {
            fn mem(&mut self, m: MemRole) {
                if self.0.is_none() && m.addr.is_some() {
                    self.0 = Some(m);
                }
            }
        }
        let mut f = First(None);
        self.operands(&mut f);
        f.0
    }
}
