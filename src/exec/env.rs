//! [`CtaEnv`]: what the instructions of one CTA's warps may touch besides their registers.

use super::observe::{CheckFinding, FindingKind, MemAccess, MemSpace, Observer, WarpAt};
use warpjit_runtime::resource::Resources;
use warpjit_runtime::{ConstBanks, GlobalMemory};

/// Everything an instruction may touch besides the warp's registers: global memory, the constant
/// banks, the CTA's shared memory, and where events go. Built by the dispatcher for each CTA
/// (the private `grid::run_cta`) and handed to the engine's body runner with every block. (The
/// JIT's compiled code receives its own context, `jit::abi::JitCx`, filled from this one.)
pub struct CtaEnv<'a> {
    /// Global memory.
    pub mem: &'a GlobalMemory,
    /// Constant banks (launch constants filled in).
    pub consts: &'a ConstBanks,
    /// Banks available in the launch's mode.
    pub nbanks: u32,
    /// The CTA's shared memory.
    pub shared: &'a mut [u8],
    /// The bound textures and buffers.
    pub resources: &'a Resources,
    /// Base of the shared window.
    pub shared_window: u64,
    /// The CTA's local memory: `local_bytes` per thread, thread `32 * warp + lane` at
    /// `(32 * warp + lane) * local_bytes` (empty without local memory).
    pub local: &'a mut [u8],
    /// Local memory bytes per thread (0: no local memory and no local window).
    pub local_bytes: u32,
    /// Base of the local window.
    pub local_window: u64,
    /// Segment-lookup hint of the interpreter's global accesses.
    pub hint: usize,
    /// The attached observer, if any.
    pub observer: Option<&'a dyn Observer>,
    /// The observer wants `--check` findings ([`Observer::checks`]): ops look for them.
    pub check: bool,
    /// The observer wants memory-access events ([`Observer::wants_mem`]).
    pub observe_mem: bool,
    /// The observer wants instruction events ([`Observer::wants_inst`]).
    pub observe_inst: bool,
    /// The warp running (set by the dispatcher before each warp runs).
    pub at: WarpAt,
    /// The pc of the instruction running, for events raised inside an op (set by the
    /// interpreter while an observer is attached).
    pub pc: u32,
    /// Findings raised by the current instruction: (lane, kind, message), reported with its pc
    /// once the instruction completes (a faulting instruction reports none).
    pub findings: Vec<(u32, FindingKind, String)>,
    /// Where host calls (docs/semantics.md §22g) put what they print.
    pub host: &'a super::hostcall::HostOutput,
    /// Lane accesses whose address was aligned down to the access size (docs/semantics.md
    /// §16), counted into [`Stats::misaligned`](crate::exec::Stats::misaligned).
    pub misaligned: u64,
}

impl CtaEnv<'_> {
    /// The byte range in [`CtaEnv::local`] of lane `lane`'s local access of `bytes` bytes at
    /// `offset` (64-bit, may be "negative") in the current warp, or the out-of-range fault.
    #[inline]
    pub fn local_range(
        &self,
        offset: u64,
        bytes: u32,
        lane: usize,
    ) -> Result<usize, warpjit_runtime::Fault> {
        let len = self.local_bytes as u64;
        if offset < len && offset + bytes as u64 <= len {
            let thread = self.at.warp as u64 * 32 + lane as u64;
            Ok((thread * len + offset) as usize)
        } else {
            Err(warpjit_runtime::Fault::new(
                warpjit_runtime::FaultKind::LocalOutOfRange {
                    offset,
                    size: bytes,
                    local_bytes: self.local_bytes,
                },
                lane as u32,
            ))
        }
    }

    /// Whether a generic access at `ea` steered global goes to local memory: the launch has
    /// local memory and `ea` lies in the local window.
    #[inline]
    pub fn in_local_window(&self, ea: u64) -> bool {
        self.local_bytes != 0
            && ea.wrapping_sub(self.local_window) < warpjit_runtime::LOCAL_WINDOW_SIZE
    }

    /// Records a `--check` finding of lane `lane` for the current instruction (nothing without
    /// `check`).
    #[inline]
    pub fn finding(&mut self, lane: usize, msg: String) {
        self.finding_of(lane, FindingKind::Other, msg);
    }

    /// Records a `--check` finding of kind `kind` (nothing without `check`).
    #[inline]
    pub fn finding_of(&mut self, lane: usize, kind: FindingKind, msg: String) {
        if self.check {
            self.findings.push((lane as u32, kind, msg));
        }
    }

    /// Reports the findings of the instruction at `pc`, which completed.
    #[inline]
    pub fn flush_findings(&mut self, pc: u32) {
        if let Some(o) = self.observer {
            for (lane, kind, message) in self.findings.drain(..) {
                o.finding(CheckFinding {
                    launch: self.at.launch,
                    cta: self.at.cta,
                    warp: self.at.warp,
                    lane,
                    pc,
                    message,
                    kind,
                });
            }
        } else {
            self.findings.clear();
        }
    }

    /// Reports one lane's memory access by the current instruction (at `self.pc`): `data` the
    /// bytes read or written ([`MemAccess::data`]).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn access(
        &self,
        lane: usize,
        space: MemSpace,
        addr: u64,
        size: u32,
        store: bool,
        atomic: bool,
        data: [u32; 4],
    ) {
        if !self.observe_mem {
            return;
        }
        if let Some(o) = self.observer {
            o.mem(
                self.at,
                MemAccess {
                    pc: self.pc,
                    lane: lane as u32,
                    space,
                    addr,
                    size,
                    store,
                    atomic,
                    data,
                },
            );
        }
    }
}
