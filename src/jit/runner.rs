//! [`JitRunner`], the JIT's [`BodyRunner`]: runs a block's compiled pieces, compiling them
//! when they become hot enough, and interprets what is not compiled.

use super::abi::{self, BlockFn, JitCx};
use super::cache::{slot, slot_piece, ProgCode};
use super::views::ViewTable;
use super::{Jit, RunCounters};
use crate::exec::warp::{Entry, EntryKind};
use crate::exec::{BodyRunner, CtaEnv, Further, Machine};
use crate::ir::{Block, BlockId};
use crate::reference::run_insts;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use warpjit_runtime::resource::Resources;
use warpjit_runtime::{Fault, FaultKind, WarpState};

/// The JIT's body runner for one host thread.
pub(super) struct JitRunner<'j> {
    jit: &'j Jit,
    code: Arc<ProgCode>,
    /// Kept across block calls so segment hints persist.
    jcx: Box<JitCx>,
    /// Tier-1 executions per block variant on this thread in this launch (added to
    /// `ProgCode::hot` when the runner is dropped).
    hot: Vec<u32>,
    /// The view table `jcx.views` points at (the host thread's spare, or made at the first
    /// call), and the resources and `--check` it was filled for (`None`: not yet filled).
    views: Option<Box<ViewTable>>,
    views_for: Option<(*const Resources, bool)>,
    /// This runner's share of [`Jit::take_counters`] (added to the Jit's when it is dropped).
    counters: RunCounters,
}

impl<'j> JitRunner<'j> {
    pub(super) fn new(jit: &'j Jit, code: Arc<ProgCode>, machine: &Machine) -> Self {
        let jcx = Box::new(JitCx {
            fault: None,
            consts: std::ptr::null(),
            nbanks: 0,
            _pad: 0,
            shared_window: machine.shared_window,
            env: std::ptr::null_mut(),
            delegated: 0,
            mem: &machine.global,
            hints: [abi::SegHint::EMPTY; abi::HINTS],
            sink: [0; 2],
            zero: [0; 2],
            slow: 0,
            shared: std::ptr::null_mut(),
            shared_len: 0,
            local: std::ptr::null_mut(),
            local_len: 0,
            views: std::ptr::null(),
            room: 0,
            runs: 0,
            issued: 0,
            last: 0,
            depth: 0,
        });
        let hot = vec![0; code.fns.len()];
        JitRunner {
            jit,
            code,
            jcx,
            hot,
            views: SPARE_VIEWS.try_with(|v| v.take()).ok().flatten(),
            views_for: None,
            counters: RunCounters::default(),
        }
    }
}

thread_local! {
    /// The view table of this host thread's last runner, for its next one (48 KiB: making it
    /// for every launch cost more than a small launch's work). Refilled before its first use.
    static SPARE_VIEWS: std::cell::Cell<Option<Box<ViewTable>>> =
        const { std::cell::Cell::new(None) };
}

impl Drop for JitRunner<'_> {
    /// Adds this launch's tier-1 counts to the program's (asking for tier 2 for a slot they
    /// make hot) and gives the view table back to the host thread.
    fn drop(&mut self) {
        for (i, &n) in self.hot.iter().enumerate() {
            if n == 0 || self.code.tiers[i].load(Ordering::Relaxed) != 1 {
                continue;
            }
            let total = self.code.hot[i]
                .fetch_add(n, Ordering::Relaxed)
                .saturating_add(n);
            if total >= self.jit.hot_threshold {
                let (piece, full) = slot_piece(i);
                self.jit.promote(&self.code, piece, full);
            }
        }
        self.jit.add_counters(&self.counters);
        let views = self.views.take();
        let _ = SPARE_VIEWS.try_with(|v| v.set(views));
    }
}

impl BodyRunner for JitRunner<'_> {
    fn run_body(
        &mut self,
        id: BlockId,
        block: &Block,
        w: &mut WarpState,
        env: &mut CtaEnv<'_>,
    ) -> Result<(), Fault> {
        self.body(id, block, w, env)
    }

    fn run_from(
        &mut self,
        id: BlockId,
        block: &Block,
        w: &mut WarpState,
        env: &mut CtaEnv<'_>,
        room: u64,
        stack: &mut Vec<Entry>,
    ) -> (Further, Result<(), Box<Fault>>) {
        // A block compiled with its region (`jit::region`) runs further blocks while the
        // active mask goes to one of them whole and `room` allows, counting them in `jcx`.
        // Its other forms (interpreted, several pieces, no region) leave the counts at 0.
        self.jcx.room = room;
        self.jcx.runs = 0;
        self.jcx.issued = 0;
        self.jcx.last = id;
        self.jcx.depth = stack.len() as u32;
        let r = self.body(id, block, w, env).map_err(Box::new);
        self.jcx.room = 0;
        if self.jcx.last != id {
            // The entries the region pushed and still holds at its last block (the code
            // checked that they fit), with the active mask, which a region never changes.
            if let Some(plan) = self.code.plan(id) {
                let last = self.jcx.last;
                stack.extend(plan.pending(last).iter().map(|&(region, block)| Entry {
                    kind: EntryKind::Region(region),
                    block,
                    mask: w.active,
                }));
            }
        }
        self.counters.looped += self.jcx.runs;
        let f = Further {
            runs: self.jcx.runs,
            issued: self.jcx.issued,
            last: self.jcx.last,
        };
        (f, r)
    }

    fn run_part(
        &mut self,
        _: BlockId,
        block: &Block,
        part: std::ops::Range<usize>,
        w: &mut WarpState,
        env: &mut CtaEnv<'_>,
    ) -> Result<(), Fault> {
        run_insts(&block.insts[part], w, env)
    }
}

impl JitRunner<'_> {
    /// [`BodyRunner::run_body`], which [`BodyRunner::run_from`] runs too: inlined into both,
    /// so that the common case, one piece already compiled at tier 2 (or at tier 1 and not yet
    /// hot), costs no call but the compiled function's (the dispatcher's cost per warp).
    #[inline(always)]
    fn body(
        &mut self,
        id: BlockId,
        block: &Block,
        w: &mut WarpState,
        env: &mut CtaEnv<'_>,
    ) -> Result<(), Fault> {
        // The active mask only changes at terminators: one variant serves the whole block.
        let full = w.active == u32::MAX;
        let pieces = self.code.block_pieces[id as usize].clone();
        if pieces.len() == 1 {
            let i = slot(pieces.start, full);
            let f = self.code.fns[i].load(Ordering::Acquire);
            if f != 0 && f != usize::MAX && self.code.tiers[i].load(Ordering::Relaxed) != 1 {
                return self.call(f, w, env);
            }
        }
        self.pieces(id, block, w, env, full, pieces)
    }

    /// The rest of [`JitRunner::body`]: each piece of the block in turn, compiled when it gets
    /// hot (counting tier-1 runs, asking for tier 2), interpreted while it is not compiled.
    #[inline(never)]
    fn pieces(
        &mut self,
        id: BlockId,
        block: &Block,
        w: &mut WarpState,
        env: &mut CtaEnv<'_>,
        full: bool,
        pieces: std::ops::Range<u32>,
    ) -> Result<(), Fault> {
        let mut runs = None;
        let mut interpreted = false;
        for piece in pieces {
            let i = slot(piece, full);
            let mut f = self.code.fns[i].load(Ordering::Acquire);
            if f == 0 {
                let runs = *runs.get_or_insert_with(|| {
                    self.code.runs[id as usize].fetch_add(1, Ordering::Relaxed) + 1
                });
                if runs >= self.jit.threshold {
                    // A piece that fails to compile is interpreted; the failure is counted
                    // (`CompileStats::failed`, printed by `--stats`) and kept in `Jit::errors`.
                    f = self
                        .jit
                        .compile(&self.code, piece, full, false)
                        .unwrap_or(0);
                }
            } else if self.code.tiers[i].load(Ordering::Relaxed) == 1 {
                // Hot at tier 1 (counted per host thread, no shared counter): ask for tier 2.
                self.hot[i] += 1;
                if self.hot[i] == self.jit.hot_threshold {
                    self.jit.promote(&self.code, piece, full);
                }
            }
            if f == 0 || f == usize::MAX {
                interpreted = true;
                let range = self.code.pieces[piece as usize].insts.clone();
                run_insts(&block.insts[range], w, env)?;
                continue;
            }
            self.call(f, w, env)?;
        }
        self.counters.interp_blocks += interpreted as u64;
        Ok(())
    }

    /// Runs compiled function `f` on the warp.
    #[inline(always)]
    fn call(&mut self, f: usize, w: &mut WarpState, env: &mut CtaEnv<'_>) -> Result<(), Fault> {
        // SAFETY: `f` is a finalized function of one of our modules with the `BlockFn`
        // signature; module code is never freed (Cranelift leaks finalized code on drop).
        let func: BlockFn = unsafe { std::mem::transmute::<usize, BlockFn>(f) };
        // The bindings compiled code reads (`jit::views`): filled again only when the resources
        // or `--check` change (once per launch and host thread).
        let key = (env.resources as *const Resources, env.check);
        let views = self.views.get_or_insert_with(ViewTable::new);
        if self.views_for != Some(key) {
            views.fill(env.resources, env.check);
            self.views_for = Some(key);
        }
        let jcx = &mut *self.jcx;
        jcx.views = &**views;
        jcx.fault = None;
        jcx.consts = env.consts.as_bytes().as_ptr();
        jcx.nbanks = env.nbanks;
        jcx.env = env as *mut CtaEnv<'_> as *mut std::ffi::c_void;
        jcx.delegated = 0;
        jcx.slow = 0;
        jcx.shared = env.shared.as_mut_ptr();
        jcx.shared_len = env.shared.len() as u64;
        // The running warp's part of the CTA's local memory (32 lanes of `local_bytes` each).
        let warp_local = env.at.warp as usize * 32 * env.local_bytes as usize;
        jcx.local = env.local.as_mut_ptr().wrapping_add(warp_local);
        jcx.local_len = env.local_bytes as u64;
        // SAFETY: `w` and `jcx` are live for the call; compiled code only touches the warp
        // state, the constant banks, global memory inside hinted segments, the storage of the
        // resources in the view table (which `env.resources` keeps alive for the launch) inside
        // each entry's bounds, and (through helpers) the interpreter context.
        let r = unsafe { func(w, jcx) };
        self.counters.delegated += jcx.delegated;
        self.counters.slow_paths += jcx.slow;
        if r != 0 {
            // Compiled code returns 1 only after a helper recorded the fault.
            let kind = FaultKind::BudgetExhausted {
                budget: 0,
                ctas: None,
            };
            return Err(jcx.fault.take().unwrap_or(Fault::new(kind, 0)));
        }
        Ok(())
    }
}
