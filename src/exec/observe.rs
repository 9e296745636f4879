//! Execution events and the observers that receive them.
//!
//! An [`Observer`] attached through [`RunOptions::observer`](super::RunOptions::observer) sees a
//! launch as it runs: each warp instruction issued (with its pc, the warp's active mask and the
//! lanes that execute it), each lane's memory access (space, address, size), block entry and exit,
//! barrier arrival, and, when it asks for them ([`Observer::checks`]), the `--check` findings
//! (undefined or suspicious behaviour that got a defined result). `--check` is one observer,
//! [`CheckObserver`]; an execution-trace writer would be another.
//!
//! Events are reported by the engine-neutral dispatcher (the private `exec::warp`) and the interpreter's
//! op code. An engine may run every block through the interpreter while an observer is attached
//! (the JIT does), so that events are exact per lane; without an observer nothing is reported and
//! nothing is slowed down.
//!
//! Events of different CTAs can arrive concurrently from several host threads (hence `Send + Sync` and
//! `&self`); the events of one warp arrive in program order, and those of one CTA, from
//! [`Observer::cta_start`] to [`Observer::cta_end`], all on one host thread, in the order the
//! CTA's warps run (docs/semantics.md §9), with no other CTA's events between them on that
//! thread. [`Observer::launch_start`] comes before every CTA of a launch and
//! [`Observer::launch_end`] after all of them.
//!
//! [`crate::sanitizer::Sanitizer`] is the observer of `--check`'s tools (memcheck, racecheck,
//! initcheck, synccheck).

use super::{Launch, Machine, Stats};
use std::sync::Mutex;
use warpjit_runtime::Fault;

/// Which warp an event comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WarpAt {
    /// Launch index.
    pub launch: u32,
    /// CTA coordinates.
    pub cta: [u32; 3],
    /// Warp within the CTA.
    pub warp: u32,
}

/// The memory space of an access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemSpace {
    /// Global memory: the address is the 64-bit global address.
    Global,
    /// The CTA's shared memory: the address is the byte offset into it (a generic access in
    /// the shared window is reported here, as its offset).
    Shared,
    /// The thread's local memory (`LDL`, `STL`, a generic access in the local window): the
    /// address is the byte offset into the lane's local memory.
    Local,
    /// A constant bank (`LDC`): the address is the byte address inside the bank.
    Const {
        /// The bank.
        bank: u32,
    },
}

/// One lane's memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemAccess {
    /// Guest pc of the instruction.
    pub pc: u32,
    /// The lane.
    pub lane: u32,
    /// Where.
    pub space: MemSpace,
    /// The address (aligned down to the size, as accessed; see [`MemSpace`]).
    pub addr: u64,
    /// Access size in bytes.
    pub size: u32,
    /// A store (else a load); an atomic is a store.
    pub store: bool,
    /// An atomic read-modify-write (`ATOM`, `RED`, `ATOMS`, DXBC's atomics on `g#`).
    pub atomic: bool,
    /// The bytes read (a load) or written (a store; an atomic: the value it left), little-endian
    /// in the low `size` bytes (0 for a non-resident sparse tile's load).
    pub data: [u32; 4],
}

/// Receives execution events. Every method does nothing by default.
pub trait Observer: Send + Sync {
    /// A warp instruction was issued at `pc` (terminators that are written instructions
    /// included) with the warp's `active` mask; `exec` holds the lanes that execute it (active
    /// and guard true; for a terminator, the active mask).
    fn inst(&self, _at: WarpAt, _pc: u32, _active: u32, _exec: u32) {}
    /// A lane accessed memory (`LDG`, `STG`, `LD`, `ST`, `LDS`, `STS`, `LDC`; constant operands
    /// `c[b][imm]` of other instructions are not reported). Reported for the instructions that
    /// complete (a faulting instruction has no effect and reports no access); lanes in order.
    fn mem(&self, _at: WarpAt, _access: MemAccess) {}
    /// The warp entered block `block` (first pc `pc`) with the active mask `active`.
    fn block_enter(&self, _at: WarpAt, _block: u32, _pc: u32, _active: u32) {}
    /// The warp left block `block`: its instructions and terminator ran (a warp that faults or
    /// runs out of budget inside a block does not leave it).
    fn block_exit(&self, _at: WarpAt, _block: u32) {}
    /// The warp arrived at barrier `id` (`BAR.SYNC` at `pc`) with the active mask `active`.
    fn barrier(&self, _at: WarpAt, _id: u8, _pc: u32, _active: u32) {}
    /// Barrier `id` completed in the CTA of `at` (whose `warp` is the warp whose arrival or exit
    /// completed it): the warps in `released` (ascending) go on past it. A warp that arrived
    /// with `BAR.ARV` (it did not wait) is not among them.
    fn barrier_done(&self, _at: WarpAt, _id: u8, _released: &[u32]) {}
    /// A launch is about to run over `machine` (before any of its CTAs).
    fn launch_start(&self, _machine: &Machine, _launch: &Launch) {}
    /// The launch ended (after all its CTAs): its statistics, or the fault the engine returns
    /// for it (the lowest-numbered faulting CTA's, docs/semantics.md §9).
    fn launch_end(&self, _launch: &Launch, _result: Result<&Stats, &Fault>) {}
    /// Global memory `[base, base + size)` was allocated by the host, before the launches that
    /// use it: `defined` when its contents are defined (a trace's segment with data, or a
    /// size-only one, which the format defines as zeros), else undefined until written (a
    /// trace's `uninitialized` segment, a driver's fresh allocation: it reads as zeros, but a
    /// program should not rely on them). The trace runner reports every `[[global]]` segment.
    fn alloc(&self, _base: u64, _size: u64, _defined: bool) {}
    /// The host freed the allocation at `base` of `size` bytes (a driver's free): accesses to
    /// it fault from then on.
    fn free(&self, _base: u64, _size: u64) {}
    /// The host wrote `[base, base + len)` of global memory (a driver's copy or fill), which
    /// defines those bytes.
    fn host_write(&self, _base: u64, _len: u64) {}
    /// A CTA starts (`at.warp` is 0); `index` is its linear number in the grid (x fastest).
    fn cta_start(&self, _at: WarpAt, _index: u64) {}
    /// The CTA ended: every warp exited, or `fault` stopped it (reported with its warp, lane and
    /// pc; the CTA's later events never come).
    fn cta_end(&self, _at: WarpAt, _fault: Option<&Fault>) {}
    /// Whether the observer wants [`Observer::mem`] events in the launch with index `launch`
    /// (asked as each CTA starts; default true). Without them, the interpreter keeps its fast
    /// paths for memory accesses.
    fn wants_mem(&self, _launch: u32) -> bool {
        true
    }
    /// Whether the observer wants [`Observer::inst`] events in the launch with index `launch`
    /// (asked as each CTA starts; default true).
    fn wants_inst(&self, _launch: u32) -> bool {
        true
    }
    /// Whether the engine should look for `--check` findings and report them to
    /// [`Observer::finding`] (the op code does extra work for that). Default false.
    fn checks(&self) -> bool {
        false
    }
    /// A `--check` finding (only when [`Observer::checks`] is true).
    fn finding(&self, _f: CheckFinding) {}
}

/// What a [`CheckFinding`] is about, for an observer that sorts findings by tool (the
/// sanitizer's memcheck and synccheck take theirs from here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FindingKind {
    /// A global, generic, shared or local access whose address `addr` was aligned down to its
    /// `size` (docs/semantics.md §16): `space` is where it went, `store` a store or atomic.
    Misaligned {
        /// Where the access went.
        space: MemSpace,
        /// The access size in bytes.
        size: u32,
        /// The address before alignment (for shared and local memory, the offset).
        addr: u64,
        /// A store or an atomic (else a load).
        store: bool,
        /// An atomic.
        atomic: bool,
    },
    /// Barrier `barrier` reached by a warp whose live lanes `idle` are not active (§8).
    PartialWarp {
        /// The barrier.
        barrier: u8,
        /// The live lanes that are not active.
        idle: u32,
    },
    /// A SHFL lane read the register of lane `src`, which does not execute the SHFL (§22c).
    ShflInactive {
        /// The source lane.
        src: u32,
    },
    /// Any other finding (docs/semantics.md §24): a constant bank outside the mode, a DXBC
    /// view read or written out of range or unbound, ...
    Other,
}

/// A `--check` finding: undefined or suspicious behaviour that got a defined result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckFinding {
    /// Launch index.
    pub launch: u32,
    /// CTA coordinates.
    pub cta: [u32; 3],
    /// Warp within the CTA.
    pub warp: u32,
    /// Lane.
    pub lane: u32,
    /// Guest pc.
    pub pc: u32,
    /// What happened.
    pub message: String,
    /// What kind of finding it is.
    pub kind: FindingKind,
}

impl std::fmt::Display for CheckFinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "check: {} (launch {}, CTA ({}, {}, {}), warp {}, lane {}, pc {:#06x})",
            self.message,
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

/// Most findings a [`CheckObserver`] keeps.
pub const MAX_FINDINGS: usize = 1000;

/// The `--check` observer: collects findings (shared across host threads; at most
/// [`MAX_FINDINGS`]).
#[derive(Default)]
pub struct CheckObserver {
    list: Mutex<Vec<CheckFinding>>,
}

impl CheckObserver {
    /// Takes the collected findings, sorted by (launch, CTA, warp, pc, lane) so the output does
    /// not depend on host thread timing.
    pub fn take(&self) -> Vec<CheckFinding> {
        let mut v = self
            .list
            .lock()
            .map(|mut l| std::mem::take(&mut *l))
            .unwrap_or_default();
        v.sort_by_key(|d| (d.launch, d.cta[2], d.cta[1], d.cta[0], d.warp, d.pc, d.lane));
        v
    }
}

impl Observer for CheckObserver {
    fn checks(&self) -> bool {
        true
    }
    fn finding(&self, f: CheckFinding) {
        if let Ok(mut l) = self.list.lock() {
            if l.len() < MAX_FINDINGS {
                l.push(f);
            }
        }
    }
}
