//! Memory and barrier ops (LDC, LDG, STG, LD, ST, LDS, STS, LDL, STL, MEMBAR, NOP, DEPBAR), each
//! with its operand roles.

use crate::ir::operand::*;
use crate::ir::roles::*;

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

impl Operands for Ldc {
    fn operands(&self, o: &mut Roles<'_>) {
        let Ldc {
            d,
            size,
            mode: _,
            bank: _,
            a,
            imm,
        } = *self;
        o.def_n(d, size.regs());
        o.read(a);
        let bytes = size.bytes();
        o.const_load(bytes);
        // Wider than a byte: an index register may be misaligned, an immediate address is known.
        o.may_fault(bytes > 1 && (!a.is_rz() || (imm as i64 as u64) & (bytes as u64 - 1) != 0));
    }
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

impl Operands for Ldg {
    fn operands(&self, o: &mut Roles<'_>) {
        let Ldg {
            d,
            e,
            cop: _,
            size,
            ps,
            addr,
        } = *self;
        o.load(Space::Global, size, addr, e, d);
        o.opt_pred_def(ps);
    }
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

impl Operands for Stg {
    fn operands(&self, o: &mut Roles<'_>) {
        let Stg {
            e,
            cop: _,
            size,
            addr,
            v,
        } = *self;
        o.store(Space::Global, size, addr, e, v);
    }
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
    /// Global (or the local window) when true, shared window when false (`PT` when omitted).
    pub steer: PredSrc,
}

impl Operands for Ld {
    fn operands(&self, o: &mut Roles<'_>) {
        let Ld {
            d,
            e,
            cop: _,
            size,
            addr,
            steer,
        } = *self;
        o.load(Space::Generic(steer), size, addr, e, d);
    }
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
    /// Global (or the local window) when true, shared window when false.
    pub steer: PredSrc,
}

impl Operands for St {
    fn operands(&self, o: &mut Roles<'_>) {
        let St {
            e,
            cop: _,
            size,
            addr,
            v,
            steer,
        } = *self;
        o.store(Space::Generic(steer), size, addr, e, v);
    }
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

impl Operands for Lds {
    fn operands(&self, o: &mut Roles<'_>) {
        let Lds {
            d,
            u: _,
            size,
            addr,
        } = *self;
        o.load(Space::Shared, size, addr, false, d);
    }
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

impl Operands for Sts {
    fn operands(&self, o: &mut Roles<'_>) {
        let Sts { size, addr, v } = *self;
        o.store(Space::Shared, size, addr, false, v);
    }
}

/// `LDL[.cop][.sz] Rd, [Ra+imm]`: load from the thread's local memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ldl {
    /// Destination (first of a pair/quad).
    pub d: Reg,
    /// Cache operator (`.LU`, `.CI`, `.CV`; no functional effect).
    pub cop: CacheOp,
    /// Size.
    pub size: MemSize,
    /// Offset into local memory.
    pub addr: Addr,
}

impl Operands for Ldl {
    fn operands(&self, o: &mut Roles<'_>) {
        let Ldl {
            d,
            cop: _,
            size,
            addr,
        } = *self;
        o.load(Space::Local, size, addr, false, d);
    }
}

/// `STL[.cop][.sz] [Ra+imm], Rb`: store to the thread's local memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stl {
    /// Cache operator (`.CG`, `.CS`, `.WT`; no functional effect).
    pub cop: CacheOp,
    /// Size (`.S8`/`.S16` store like `.U8`/`.U16`).
    pub size: MemSize,
    /// Offset into local memory.
    pub addr: Addr,
    /// Value stored (first of a pair/quad).
    pub v: Reg,
}

impl Operands for Stl {
    fn operands(&self, o: &mut Roles<'_>) {
        let Stl {
            cop: _,
            size,
            addr,
            v,
        } = *self;
        o.store(Space::Local, size, addr, false, v);
    }
}

/// Scope of MEMBAR: which other threads the fence orders this thread's memory accesses against
/// (docs/semantics.md §22f).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MembarScope {
    /// `.CTA`: the threads of the CTA (`membar.cta`, `__threadfence_block()`).
    Cta,
    /// `.GL`: every thread of the device (`membar.gl`, `__threadfence()`).
    Gl,
    /// `.SYS`: the device and the host (`membar.sys`, `__threadfence_system()`).
    Sys,
    /// `.VC` (encoding 3; envytools' name, no PTX scope maps to it): taken as `.SYS`.
    Vc,
}

impl MembarScope {
    /// In encoding order (the 2-bit field's values 0 to 3).
    pub const ALL: [MembarScope; 4] = [
        MembarScope::Cta,
        MembarScope::Gl,
        MembarScope::Sys,
        MembarScope::Vc,
    ];
}

/// The first-level cache invalidation a MEMBAR asks for (ptxas writes `.IVALLD` with `.GL` and
/// `.SYS`); warpjit has no caches, so it changes nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MembarInval {
    /// None.
    None,
    /// `.IVALLD`: the data cache.
    D,
    /// `.IVALLT`: the texture cache.
    T,
    /// `.IVALLTD`: both.
    Td,
}

impl MembarInval {
    /// In encoding order (the 2-bit field's values 0 to 3).
    pub const ALL: [MembarInval; 4] = [
        MembarInval::None,
        MembarInval::D,
        MembarInval::T,
        MembarInval::Td,
    ];
}

/// `MEMBAR.scope[.inval]`: a memory fence (docs/semantics.md §22f). Every lane's accesses
/// already take effect in program order; one with a scope wider than the CTA is also a host
/// memory fence, which orders them against CTAs running on other host threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Membar {
    /// Scope.
    pub scope: MembarScope,
    /// The cache invalidation (no effect).
    pub inval: MembarInval,
}

impl Membar {
    /// Whether the fence orders accesses beyond the CTA (whose warps run on one host thread),
    /// and so is a host memory fence.
    pub fn host_fence(&self) -> bool {
        self.scope != MembarScope::Cta
    }
}

impl Operands for Membar {
    fn operands(&self, _o: &mut Roles<'_>) {
        let Membar { scope: _, inval: _ } = *self;
    }
}

/// `NOP`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nop;

impl Operands for Nop {
    fn operands(&self, _o: &mut Roles<'_>) {
        let Nop = *self;
    }
}

/// The `BPT.TRAP` code of a call to `vprintf(const char *format, void *args)`, a host call
/// (docs/semantics.md §22g).
pub const VPRINTF_CODE: u32 = 0xf_0001;

/// The `BPT.TRAP` code of a call to `__assertfail(const char *message, const char *file,
/// unsigned line, const char *function, size_t charSize)`, a host call (docs/semantics.md §22g).
pub const ASSERTFAIL_CODE: u32 = 0xf_0002;

/// The `BPT.TRAP` code of a call to `__cuda_syscall_CGS_get_intrinsic_handle(scope)` (the
/// device runtime's `cudaCGGetIntrinsicHandle`, cooperative groups' grid handle in code
/// compiled with `-G`), a host call (docs/semantics.md §22g).
pub const CGS_HANDLE_CODE: u32 = 0xf_0003;

/// `BPT.TRAP code`: stops the launch with a trap fault in the first active lane
/// (docs/semantics.md §22e); ptxas writes it behind a branch, for a check that failed. The codes
/// of the host calls ([`crate::exec::hostcall`], docs/semantics.md §22g) run a function the CUDA
/// driver supplies instead: `vprintf` reads R4 to R7 and writes R4, `__assertfail` reads R4 to
/// R11 (and then traps), `__cuda_syscall_CGS_get_intrinsic_handle` reads R4 and writes R4 and
/// R5.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bpt {
    /// The code (a 20-bit immediate).
    pub code: u32,
}

impl Operands for Bpt {
    fn operands(&self, o: &mut Roles<'_>) {
        let Bpt { code } = *self;
        match code {
            VPRINTF_CODE => {
                o.read_n(Reg(4), 4);
                o.def(Reg(4));
                // The count comes from the format, which a lane may read from its own local
                // memory: equal pointers do not make equal results.
                o.lane_varying(true);
            }
            ASSERTFAIL_CODE => o.read_n(Reg(4), 8),
            CGS_HANDLE_CODE => {
                o.read(Reg(4));
                o.def_n(Reg(4), 2);
            }
            _ => {}
        }
        o.may_fault(true);
    }
}

/// `DEPBAR[.LE] [SBn, count][, {..}]`: a scoreboard wait, a scheduling hint with no effect on
/// results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Depbar {
    /// `.LE` written.
    pub le: bool,
    /// `SBn, count`: wait until scoreboard `n` (0 to 5) counts at most `count` (0 to 63).
    pub threshold: Option<(u8, u8)>,
    /// `{a, b, ...}`: the scoreboards waited on, bit `i` for `SBi` (0 if none are listed).
    pub waits: u8,
}

impl Operands for Depbar {
    fn operands(&self, _o: &mut Roles<'_>) {
        let Depbar {
            le: _,
            threshold: _,
            waits: _,
        } = self;
    }
}
