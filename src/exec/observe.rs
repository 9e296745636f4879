//! Execution events and the observers that receive them.
//!
//! An [`Observer`] attached through [`RunOptions::observer`](super::RunOptions::observer) sees a
//! launch as it runs: each warp instruction issued (with its pc, the warp's active mask and the
//! lanes that execute it), each lane's memory access (space, address, size), block entry and exit,
//! barrier arrival, and, when it asks for them ([`Observer::checks`]), the `--check` findings
//! (undefined or suspicious behaviour that got a defined result). `--check` is one observer,
//! [`CheckObserver`]; an execution-trace writer would be another.
//!
//! Events are reported by the engine-neutral dispatcher ([`super::warp`]) and the interpreter's
//! op code. An engine may run every block through the interpreter while an observer is attached
//! (the JIT does), so that events are exact per lane; without an observer nothing is reported and
//! nothing is slowed down.
//!
//! Events of different CTAs can arrive concurrently from several host threads (hence `Send + Sync` and
//! `&self`); the events of one warp arrive in program order.

use std::sync::Mutex;

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
    /// A store (else a load).
    pub store: bool,
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
    /// Whether the engine should look for `--check` findings and report them to
    /// [`Observer::finding`] (the op code does extra work for that). Default false.
    fn checks(&self) -> bool {
        false
    }
    /// A `--check` finding (only when [`Observer::checks`] is true).
    fn finding(&self, _f: CheckFinding) {}
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
