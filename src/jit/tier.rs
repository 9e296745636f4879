//! Tiering: tier-1 compilation into the code cache when a block is reached again, and the
//! tier-2 compiler thread that recompiles blocks hot at tier 1 in the background.

use super::cache::{slot, ProgCode};
use super::compile::{Inner, Tier};
use super::{Jit, JitError};
use crate::ir::Program;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};

/// A request to the tier-2 compiler thread.
pub(super) struct Tier2Request {
    pub(super) code: Arc<ProgCode>,
    pub(super) piece: u32,
    pub(super) full: bool,
    /// The Jit's [`Jit::max_functions`].
    pub(super) limit: u32,
}

impl Jit {
    /// Compiles piece `piece` of `code` (the full-warp variant with `full`) with tier 1 now, if
    /// not already compiled, and returns its address. Without `wait`, when another host thread
    /// is compiling with tier 1 at the moment, returns 0 at once (the caller runs the piece
    /// through the reference definitions and asks again next time) instead of waiting idle
    /// behind that compile.
    pub(super) fn compile(
        &self,
        code: &ProgCode,
        piece: u32,
        full: bool,
        wait: bool,
    ) -> Result<usize, JitError> {
        let mut inner = match self.tier1.try_lock() {
            Ok(inner) => inner,
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) if !wait => return Ok(0),
            Err(std::sync::TryLockError::WouldBlock) => {
                self.tier1.lock().unwrap_or_else(|e| e.into_inner())
            }
        };
        let i = slot(piece, full);
        match code.fns[i].load(Ordering::Acquire) {
            0 => {}
            usize::MAX => {
                let msg = "an earlier attempt failed".to_string();
                let block = code.pieces[piece as usize].block;
                return Err(JitError::Compile { block, msg });
            }
            addr => return Ok(addr),
        }
        if code.functions[0].load(Ordering::Relaxed) >= self.max_functions {
            // The program's share of code is used up: the piece stays interpreted.
            code.fns[i].store(usize::MAX, Ordering::Release);
            inner.limited += 1;
            let block = code.pieces[piece as usize].block;
            return Err(JitError::Limit { block });
        }
        let r = inner.compile_piece(code, piece, full, false);
        match &r {
            Ok(addr) => {
                code.functions[0].fetch_add(1, Ordering::Relaxed);
                code.tiers[i].store(1, Ordering::Relaxed);
                code.fns[i].store(*addr, Ordering::Release);
            }
            Err(e) => {
                // A block Cranelift rejects is a warpjit bug: it stays interpreted (counted in
                // --stats) and the error is kept for `Jit::errors`.
                code.fns[i].store(usize::MAX, Ordering::Release);
                inner.errors.push(e.to_string());
            }
        }
        r
    }

    /// Compiles every block of a program with tier 1 now (see [`Jit::compile_all_tier`]).
    pub fn compile_all(&self, prog: &Arc<Program>) -> Result<usize, JitError> {
        self.compile_all_tier(prog, Tier::One)
    }

    /// Compiles every block of a program (every piece of it, see [`pieces`](super::pieces)) with `tier` now,
    /// on this thread (for tests, benchmarks and compile-latency measurement); later runs use
    /// that code. Returns how many functions were compiled.
    pub fn compile_all_tier(&self, prog: &Arc<Program>, tier: Tier) -> Result<usize, JitError> {
        let code = self.code_for(prog);
        let mut n = 0;
        for piece in 0..code.pieces.len() as u32 {
            for full in [false, true] {
                match tier {
                    Tier::One => {
                        self.compile(&code, piece, full, true)?;
                    }
                    Tier::Two => {
                        let mut inner = self.tier2.lock().unwrap_or_else(|e| e.into_inner());
                        let addr = inner.compile_piece(&code, piece, full, false)?;
                        code.install_tier2(slot(piece, full), addr);
                    }
                }
                n += 1;
            }
        }
        Ok(n)
    }

    /// Compiles `prog`'s likely hot code now, with tier 2, so that launches run it from their
    /// first warp: the full-warp variant of the pieces that head a region (a loop, compiled
    /// with the blocks it runs: `region`), then of the other pieces in program order, while
    /// their [`weight`](super::weight)s (a region's: all its blocks') add up to at most
    /// [`AHEAD_WEIGHT`](super::AHEAD_WEIGHT); the rest is compiled when it gets hot, by tiers.
    /// A piece already compiled keeps its code. Runs once per program (a later call returns
    /// 0), on this thread; the time is counted in [`CompileStats::ahead_nanos`]. Returns the
    /// functions compiled.
    ///
    /// This is what [`Engine::prepare`](crate::exec::Engine::prepare) does when [`Jit::ahead`]
    /// is set: a short launch then runs tier 2's code, instead of the reference definitions
    /// and tier 1's while tier 2 compiles beside it (on two host threads, that compile took a
    /// core from the launch for as long as the launch ran).
    ///
    /// [`CompileStats::ahead_nanos`]: super::CompileStats::ahead_nanos
    pub fn compile_ahead(&self, prog: &Arc<Program>) -> usize {
        let code = self.code_for(prog);
        let mut n = 0;
        code.ahead.get_or_init(|| {
            let weight = |b: usize, insts: std::ops::Range<usize>| -> u32 {
                prog.blocks[b].insts[insts].iter().map(super::weight).sum()
            };
            // (not a region head, piece, weight) for every piece: the region heads sort first.
            let mut order: Vec<(bool, u32, u32)> = (0..code.pieces.len() as u32)
                .map(|piece| {
                    let p = &code.pieces[piece as usize];
                    let whole = p.insts == (0..prog.blocks[p.block as usize].insts.len());
                    match code.plan(p.block).filter(|_| whole) {
                        Some(plan) => {
                            let w = plan.members.iter().map(|m| {
                                weight(m.id as usize, 0..prog.blocks[m.id as usize].insts.len())
                            });
                            (false, piece, w.sum())
                        }
                        None => (true, piece, weight(p.block as usize, p.insts.clone())),
                    }
                })
                .collect();
            order.sort_by_key(|&(rest, piece, _)| (rest, piece));
            let mut left = super::AHEAD_WEIGHT;
            let mut inner = self.tier2.lock().unwrap_or_else(|e| e.into_inner());
            for (_, piece, w) in order {
                let i = slot(piece, true);
                if w > left || code.fns[i].load(Ordering::Acquire) != 0 {
                    continue;
                }
                if code.functions[1].load(Ordering::Relaxed) >= self.max_functions {
                    inner.limited += 1;
                    break;
                }
                left -= w;
                match inner.compile_piece(&code, piece, true, true) {
                    Ok(addr) => {
                        code.install_tier2(i, addr);
                        n += 1;
                    }
                    // Cranelift rejected it (a warpjit bug): interpreted, as a block tier 1
                    // fails to compile is, and the error kept for `Jit::errors`.
                    Err(e) => {
                        code.fns[i].store(usize::MAX, Ordering::Release);
                        inner.errors.push(e.to_string());
                    }
                }
            }
        });
        n
    }

    /// Asks the tier-2 thread to recompile a piece (once).
    pub(super) fn promote(&self, code: &Arc<ProgCode>, piece: u32, full: bool) {
        let i = slot(piece, full);
        if code.tiers[i]
            .compare_exchange(1, 2, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            let req = Tier2Request {
                code: code.clone(),
                piece,
                full,
                limit: self.max_functions,
            };
            if self.tier2_inline {
                req.run(&mut self.tier2.lock().unwrap_or_else(|e| e.into_inner()));
                return;
            }
            if let Ok(q) = self.queue.lock() {
                if let Some(q) = q.as_ref() {
                    let _ = q.send(req);
                }
            }
        }
    }
}

/// The tier-2 compiler thread: compiles requests in order until the queue closes or `shutdown`
/// is set, checked before each request and again once it holds the tier-2 compiler, so a
/// dropped [`Jit`] abandons its queue instead of waiting for it (at most the one compile in
/// progress, itself bounded by [`MAX_PIECE_WEIGHT`], runs on).
pub(super) fn tier2_worker(
    rx: &mpsc::Receiver<Tier2Request>,
    t2: &Mutex<Inner>,
    shutdown: &AtomicBool,
) {
    while let Ok(req) = rx.recv() {
        if shutdown.load(Ordering::Acquire) {
            return;
        }
        let mut inner = t2.lock().unwrap_or_else(|e| e.into_inner());
        if shutdown.load(Ordering::Acquire) {
            return;
        }
        req.run(&mut inner);
    }
}

impl Tier2Request {
    /// Compiles the requested piece with the tier-2 compiler `inner` and installs it, unless
    /// the program's share of tier-2 code is used up (the tier-1 code then keeps running); a
    /// failure is kept in `inner`'s errors.
    fn run(&self, inner: &mut Inner) {
        if self.code.functions[1].load(Ordering::Relaxed) >= self.limit {
            inner.limited += 1;
            return;
        }
        match inner.compile_piece(&self.code, self.piece, self.full, false) {
            Ok(addr) => self.code.install_tier2(slot(self.piece, self.full), addr),
            Err(e) => inner.errors.push(e.to_string()),
        }
    }
}
