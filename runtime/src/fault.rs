//! Guest faults: errors a guest program causes. They stop a launch and are reported; they are
//! values, never panics.

use std::fmt;

/// What went wrong. Every variant is a guest (user program) error, never a warpjit bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// A global access outside every mapped segment (CUDA error 700).
    IllegalAddress {
        /// The (aligned) address accessed.
        addr: u64,
        /// Access size in bytes.
        size: u32,
    },
    /// An LDC (or `c[][]` operand) address not a multiple of its size.
    MisalignedConstant {
        /// The bank.
        bank: u32,
        /// The byte address inside the bank.
        addr: u32,
        /// Access size in bytes.
        size: u32,
    },
    /// A shared-memory access outside the CTA's shared memory.
    SharedOutOfRange {
        /// The offset into shared memory (64-bit, may be "negative" as two's complement).
        offset: u64,
        /// Access size in bytes.
        size: u32,
        /// The CTA's shared memory size.
        shared_bytes: u32,
    },
    /// A local-memory access (LDL, STL, a generic LD/ST in the local window) outside the
    /// thread's local memory.
    LocalOutOfRange {
        /// The offset into the thread's local memory (64-bit, may be "negative" as two's
        /// complement).
        offset: u64,
        /// Access size in bytes.
        size: u32,
        /// The launch's local memory per thread.
        local_bytes: u32,
    },
    /// An instruction budget ran out (a guard against endless loops and oversized launches): the
    /// per-warp budget, or a CTA's share of the launch budget.
    BudgetExhausted {
        /// The budget, in warp instructions: the per-warp budget, or the whole launch's.
        budget: u64,
        /// For the launch budget, the CTAs sharing it (each gets `budget / ctas`); `None` for the
        /// per-warp budget.
        ctas: Option<u64>,
    },
    /// Every live warp of a CTA waits at a barrier that can never complete.
    BarrierDeadlock {
        /// The barrier the reporting warp waits at.
        barrier: u32,
    },
    /// The reconvergence stack grew past its limit (SSY without SYNC in a loop).
    StackOverflow {
        /// The limit.
        depth: u32,
    },
    /// A `RET` executed by lanes with no call entry on the reconvergence stack (no `CAL` to
    /// return to).
    ReturnWithoutCall,
    /// An indirect branch (`BRX`) sent a lane to an address that is not one of the targets its
    /// program declares for it (docs/semantics.md §31). A user error (of the program or of its
    /// jump table's data).
    BadBranchTarget {
        /// The lane's target address (`pc + 8 + Ra + offset`, computed exactly).
        target: i64,
        /// Why it is not a target.
        why: BadTarget,
    },
    /// `BPT.TRAP code` ran: the program stopped itself, a check it makes failed (ptxas's `-O0`
    /// code traps when the stack pointer falls below `SR_LMEMHIOFF`). A user error (of the
    /// program).
    Trap {
        /// The trap's code (its 20-bit immediate).
        code: u32,
    },
}

/// Why a lane's indirect branch target is not one of its branch's targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BadTarget {
    /// Outside the kernel's code.
    Outside,
    /// Inside the code, but not at an instruction (between two).
    NotInstruction,
    /// An instruction that the branch does not declare as a target.
    Undeclared,
}

impl fmt::Display for BadTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BadTarget::Outside => "outside the kernel's code",
            BadTarget::NotInstruction => "not at an instruction",
            BadTarget::Undeclared => "an instruction the branch does not declare as a target",
        })
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FaultKind::IllegalAddress { addr, size } => {
                write!(f, "illegal address: {size}-byte global access at {addr:#x} outside every mapped segment")
            }
            FaultKind::MisalignedConstant { bank, addr, size } => {
                write!(f, "misaligned constant load: {size}-byte read of c[{bank:#x}][{addr:#x}]")
            }
            FaultKind::SharedOutOfRange { offset, size, shared_bytes } => write!(
                f,
                "shared memory out of range: {size}-byte access at offset {:#x} (shared_bytes = {shared_bytes:#x})",
                offset as i64
            ),
            FaultKind::LocalOutOfRange { offset, size, local_bytes } => write!(
                f,
                "local memory out of range: {size}-byte access at offset {:#x} (local_bytes = {local_bytes:#x})",
                offset as i64
            ),
            FaultKind::BudgetExhausted { budget, ctas: None } => {
                write!(f, "instruction budget exhausted: {budget} warp instructions")
            }
            FaultKind::BudgetExhausted {
                budget,
                ctas: Some(ctas),
            } => write!(
                f,
                "launch budget exhausted: a CTA's share is {} warp instructions (launch_budget = {budget} over {ctas} CTAs)",
                budget.checked_div(ctas).unwrap_or(budget)
            ),
            FaultKind::BarrierDeadlock { barrier } => {
                write!(f, "barrier deadlock: BAR.SYNC {barrier} can never complete")
            }
            FaultKind::StackOverflow { depth } => {
                write!(f, "reconvergence stack overflow: more than {depth} entries")
            }
            FaultKind::Trap { code } => {
                write!(f, "trap: BPT.TRAP {code:#x} ran (the program stopped itself: a check it makes failed)")
            }
            FaultKind::BadBranchTarget { target, why } => {
                let t = if target < 0 {
                    format!("-{:#x}", target.unsigned_abs())
                } else {
                    format!("{target:#x}")
                };
                write!(f, "bad branch target: BRX to {t}, {why}")
            }
            FaultKind::ReturnWithoutCall => {
                write!(f, "return without a call: RET with no CAL entry on the reconvergence stack")
            }
        }
    }
}

/// A fault with its location.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fault {
    /// What went wrong.
    pub kind: FaultKind,
    /// Launch index (0-based, file order).
    pub launch: u32,
    /// CTA coordinates.
    pub cta: [u32; 3],
    /// Warp index within the CTA.
    pub warp: u32,
    /// Lane within the warp.
    pub lane: u32,
    /// Guest pc of the faulting instruction.
    pub pc: u32,
    /// The general registers the faulting instruction reads, with the faulting lane's values
    /// (filled in by the dispatcher as the fault leaves the warp; empty for a fault that no
    /// instruction raised).
    pub reads: FaultReads,
}

/// Up to [`FaultReads::MAX`] general registers and the faulting lane's values in them, in the
/// order the instruction names them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FaultReads {
    len: u8,
    regs: [u8; FaultReads::MAX],
    vals: [u32; FaultReads::MAX],
}

impl FaultReads {
    /// Most registers kept (an instruction reads at most three 4-register operands).
    pub const MAX: usize = 12;

    /// Adds register `reg` holding `val`; a register already present, or one past
    /// [`FaultReads::MAX`], is ignored.
    pub fn push(&mut self, reg: u8, val: u32) {
        let n = self.len as usize;
        if n < Self::MAX && !self.regs[..n].contains(&reg) {
            self.regs[n] = reg;
            self.vals[n] = val;
            self.len += 1;
        }
    }

    /// The registers and values, in order.
    pub fn iter(&self) -> impl Iterator<Item = (u8, u32)> + '_ {
        let n = self.len as usize;
        self.regs[..n]
            .iter()
            .copied()
            .zip(self.vals[..n].iter().copied())
    }

    /// Whether no register was recorded.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl fmt::Display for FaultReads {
    /// `R2 = 0xfffffff0, R3 = 0xffffffff`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (r, v)) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "R{r} = {v:#x}")?;
        }
        Ok(())
    }
}

impl Fault {
    /// A fault of lane `lane` as an op raises it, before the rest of its place is known: the pc,
    /// warp, CTA and launch read 0 until [`Fault::at_pc`] and [`Fault::in_warp`] fill them in as
    /// the fault leaves the instruction and the warp. (One type from the op to the report: there
    /// is no separate per-lane or per-warp fault record.)
    #[inline]
    pub const fn new(kind: FaultKind, lane: u32) -> Fault {
        Fault {
            kind,
            launch: 0,
            cta: [0; 3],
            warp: 0,
            lane,
            pc: 0,
            reads: FaultReads {
                len: 0,
                regs: [0; FaultReads::MAX],
                vals: [0; FaultReads::MAX],
            },
        }
    }

    /// The fault with the guest pc of its instruction.
    #[inline]
    pub const fn at_pc(mut self, pc: u32) -> Fault {
        self.pc = pc;
        self
    }

    /// The fault with its launch, CTA and warp.
    #[inline]
    pub const fn in_warp(mut self, launch: u32, cta: [u32; 3], warp: u32) -> Fault {
        self.launch = launch;
        self.cta = cta;
        self.warp = warp;
        self
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "fault: {} (launch {}, CTA ({}, {}, {}), warp {}, lane {}, pc {:#06x})",
            self.kind,
            self.launch,
            self.cta[0],
            self.cta[1],
            self.cta[2],
            self.warp,
            self.lane,
            self.pc
        )
    }
}

impl std::error::Error for Fault {}
