//! The contract between compiled blocks and the host: the context JIT code receives and the
//! `extern "C"` helpers it calls by symbol.
//!
//! A compiled block is `extern "C" fn(w: *mut WarpState, jcx: *mut JitCx) -> u32`: it runs the
//! block's instructions for the warp's active mask and returns 0, or returns 1 after a helper
//! recorded the fault in `jcx.fault`.
//!
//! The helpers run instructions with the reference definitions' entry for one instruction,
//! [`crate::reference::exec_inst`] (what the interpreter runs), against the dispatcher's
//! [`CtaEnv`].

use crate::exec::CtaEnv;
use crate::ir::{Inst, MemRole, Space};
use crate::reference::exec_inst;
use std::ffi::c_void;
use warpjit_runtime::{Fault, GlobalMemory, WarpState};

/// Segment hints a runner keeps (per host thread and launch): the k-th of a program's
/// instructions that use one ([`uses_hint`]), in program order, uses hint `k % HINTS`. Numbered
/// per program, not per compiled function: a loop's load and the store after the loop, each the
/// first memory instruction of its own function, shared hint 0 and so took a slow path each per
/// warp as they moved it between their segments (two per warp of the peers' gather).
pub const HINTS: usize = 16;

/// Whether `op`'s compiled code tests a segment hint: the global and generic loads and stores.
pub(crate) fn uses_hint(op: &crate::ir::Op) -> bool {
    use crate::ir::Op;
    matches!(op, Op::Ldg(_) | Op::Stg(_) | Op::Ld(_) | Op::St(_))
}

/// A global-memory fast-path hint: one resident segment without sparse tiles, with the bound
/// for every access size. An access of `bytes` bytes at `ea` (aligned down to `bytes`) lies
/// inside the segment exactly when `ea - lo < lens[log2(bytes)]` (unsigned), at host address
/// `host + (ea - lo)`. A hint carries the bounds of all five access sizes, so an instruction can
/// only ever test the bound computed for its own size, whichever instruction filled the slot.
/// The empty hint has every `lens[k] == 0`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegHint {
    /// Lowest address of the segment.
    pub lo: u64,
    /// Host address of guest byte `lo`.
    pub host: u64,
    /// For access size `1 << k`: the number of valid start addresses (segment size minus the
    /// access size, plus one; 0 when the segment is smaller than the access).
    pub lens: [u64; 5],
}

impl SegHint {
    /// Matches nothing.
    pub const EMPTY: SegHint = SegHint {
        lo: 0,
        host: 0,
        lens: [0; 5],
    };

    /// The hint for a whole segment.
    pub fn of(seg: &warpjit_runtime::memory::Segment) -> SegHint {
        SegHint {
            lo: seg.base(),
            host: seg.host_base() as u64,
            lens: std::array::from_fn(|k| seg.size().saturating_sub((1 << k) - 1)),
        }
    }

    /// Byte offset of the hint in slot `slot` from the start of [`JitCx`].
    pub fn offset_in_cx(slot: usize) -> i32 {
        (std::mem::offset_of!(JitCx, hints) + std::mem::size_of::<SegHint>() * (slot % HINTS))
            as i32
    }

    /// Byte offsets, inside a hint, of `lo`, `host` and the bound for `bytes`-byte accesses.
    pub fn field_offsets(bytes: u32) -> (i32, i32, i32) {
        debug_assert!(bytes.is_power_of_two() && bytes <= 16);
        (
            std::mem::offset_of!(SegHint, lo) as i32,
            std::mem::offset_of!(SegHint, host) as i32,
            (std::mem::offset_of!(SegHint, lens) + 8 * bytes.trailing_zeros() as usize) as i32,
        )
    }
}

/// The per-warp-run context compiled code addresses with `offset_of!`.
#[repr(C)]
pub struct JitCx {
    /// The launch's constant banks (bank `b` at `b * 0x10000`).
    pub consts: *const u8,
    /// Banks available in the launch's mode.
    pub nbanks: u32,
    /// Padding (keeps the layout explicit).
    pub _pad: u32,
    /// Base of the shared window.
    pub shared_window: u64,
    /// The CTA's environment (`*mut CtaEnv`), for instructions run by [`warpjit_jit_exec_inst`].
    pub env: *mut c_void,
    /// Instruction executions delegated to the interpreter's code (counted for `--stats`).
    pub delegated: u64,
    /// Global memory, for the slow path of memory instructions.
    pub mem: *const GlobalMemory,
    /// Fast-path segment hints, filled by [`warpjit_jit_mem_slow`].
    pub hints: [SegHint; HINTS],
    /// Where masked-off lanes of inline stores write (16 bytes, never read).
    pub sink: [u64; 2],
    /// Where out-of-range lanes of inline loads read (16 zero bytes, never written).
    pub zero: [u64; 2],
    /// Slow-path runs of inline memory instructions (counted for `--stats`).
    pub slow: u64,
    /// The CTA's shared memory.
    pub shared: *mut u8,
    /// Its size in bytes.
    pub shared_len: u64,
    /// The local memory of the running warp's lane 0 (lane `l`'s is `local_len` bytes per lane
    /// further on).
    pub local: *mut u8,
    /// Local memory bytes per thread (0 without local memory).
    pub local_len: u64,
    /// The run's view table ([`super::views::ViewTable`]): the `t#`/`u#` bindings the inline
    /// view loads read, and whether the run is under `--check`.
    pub views: *const super::views::ViewTable,
    /// For a function compiled for a region (`jit::region`): the warp instructions the budgets
    /// leave after the block the dispatcher counted. Each further block the compiled code
    /// starts takes its count from it; it never starts one that does not fit.
    pub room: u64,
    /// Further block runs done in compiled code (after the first, which the dispatcher
    /// counted).
    pub runs: u64,
    /// The warp instructions those runs issued; the dispatcher counts them when the call
    /// returns.
    pub issued: u64,
    /// The block whose instructions ran last (set by the runner to the block it calls, and by
    /// compiled code when it carries out a terminator): the dispatcher carries out its
    /// terminator.
    pub last: u32,
    /// The depth of the warp's reconvergence stack when the function was called: a region's
    /// compiled code keeps the entries it pushes to itself, and pushes one only if the stack
    /// will hold it (`jit::region`).
    pub depth: u32,
    /// The fault a helper raised (compiled code never reads or writes it; it only returns 1 after a
    /// helper returned 1). A [`Fault`] with its lane and pc; the dispatcher adds the rest. Last:
    /// with it first (48 bytes, moving every field compiled code reads), the `const_table` bench
    /// kernel's compiled code ran 13% slower, a layout effect measured but not explained.
    pub fault: Option<Fault>,
}

/// The signature of a compiled block.
pub type BlockFn = unsafe extern "C" fn(*mut WarpState, *mut JitCx) -> u32;

/// Runs one instruction with the interpreter's own code, for the lanes in `mask`; used by compiled
/// code for instructions it does not lower inline. Returns 0, or 1 after recording a fault.
///
/// # Safety
/// `w`, `jcx` (with a live `env`) and `inst` must be valid; called only from compiled blocks.
pub unsafe extern "C" fn warpjit_jit_exec_inst(
    w: *mut WarpState,
    jcx: *mut JitCx,
    inst: *const Inst,
    mask: u32,
) -> u32 {
    // SAFETY: the dispatcher passes live pointers for the duration of the block call.
    let (w, jcx, inst) = unsafe { (&mut *w, &mut *jcx, &*inst) };
    jcx.delegated += 1;
    if mask == 0 {
        return 0;
    }
    // SAFETY: `env` is the `CtaEnv` the dispatcher built for this warp run.
    let env = unsafe { &mut *(jcx.env as *mut CtaEnv<'_>) };
    match exec_inst(inst, w, mask, env) {
        Ok(()) => 0,
        Err(f) => {
            jcx.fault = Some(f);
            1
        }
    }
}

/// Tier 1's indexed LDC (tier 2 inlines its gather, about 150 Cranelift instructions): the
/// instruction by the interpreter's code for the lanes of `mask`, its results written into the
/// warp state, a fault (a misaligned lane) recorded as [`warpjit_jit_exec_inst`] records it.
/// Not counted as delegated: it is the op's lowering at tier 1, as the lane routines of other
/// ops are.
///
/// # Safety
/// As [`warpjit_jit_exec_inst`].
pub unsafe extern "C" fn warpjit_jit_ldc(
    w: *mut WarpState,
    jcx: *mut JitCx,
    inst: *const Inst,
    mask: u32,
) -> u32 {
    // SAFETY: forwarded from the caller.
    let r = unsafe { warpjit_jit_exec_inst(w, jcx, inst, mask) };
    // SAFETY: live for the call, as above.
    unsafe { (*jcx).delegated -= 1 };
    r
}

/// The slow path of an inline global access (LDG/STG): runs the instruction with the
/// interpreter's code (sparse tiles, other segments and faults behave exactly as there), then
/// points hint `slot` at the segment the first executing lane used, when it has no sparse tiles.
///
/// # Safety
/// As [`warpjit_jit_exec_inst`]; `slot < HINTS`.
pub unsafe extern "C" fn warpjit_jit_mem_slow(
    w: *mut WarpState,
    jcx: *mut JitCx,
    inst: *const Inst,
    mask: u32,
    slot: u32,
) -> u32 {
    // SAFETY: forwarded from the caller.
    let r = unsafe { warpjit_jit_exec_inst(w, jcx, inst, mask) };
    // SAFETY: live for the call, as above.
    let (w, jcx, inst) = unsafe { (&*w, &mut *jcx, &*inst) };
    jcx.delegated -= 1;
    jcx.slow += 1;
    if r != 0 || mask == 0 {
        return r;
    }
    // The op's global (or generic) access, from its operand roles; shared and constant
    // accesses have no segment hint.
    let (addr, e, bytes) = match inst.op.addressed_access() {
        Some(MemRole {
            space: Space::Global | Space::Generic(_),
            addr: Some((addr, e)),
            bytes,
            ..
        }) => (addr, e, bytes),
        _ => return r,
    };
    let ea = crate::semantics::effective(w, addr, e, mask.trailing_zeros() as usize)
        & !(bytes as u64 - 1);
    // SAFETY: the dispatcher sets `mem` to the launch's memory.
    let mem = unsafe { &*jcx.mem };
    // SAFETY: as in `warpjit_jit_exec_inst`.
    let env = unsafe { &*(jcx.env as *const CtaEnv<'_>) };
    let mut h = 0;
    if let Some(seg) = mem.find(ea, bytes as u64, &mut h) {
        // In a launch with local memory, no hint covers any byte of the local window: a generic
        // access there must reach the interpreter, which sends it to local memory (so an LDG or
        // STG of a segment mapped there always takes the slow path).
        let lw = env.local_window;
        let over_local = env.local_bytes != 0
            && seg.base() < lw.saturating_add(warpjit_runtime::LOCAL_WINDOW_SIZE)
            && lw < seg.base().saturating_add(seg.size());
        if !seg.has_sparse() && !over_local {
            jcx.hints[slot as usize % HINTS] = SegHint::of(seg);
        }
    }
    r
}
