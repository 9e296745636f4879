//! Tiering: which compiler tier, and the tier-2 compiler thread that recompiles blocks hot at
//! tier 1 in the background.

use super::cache::{slot, ProgCode};
use super::compile::Inner;
use super::Jit;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};

/// Which compiler tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// Fast compile (single-pass register allocation).
    One,
    /// Better code (backtracking register allocation).
    Two,
}

/// A request to the tier-2 compiler thread.
pub(super) struct Tier2Request {
    pub(super) code: Arc<ProgCode>,
    pub(super) piece: u32,
    pub(super) full: bool,
    /// The Jit's [`Jit::max_functions`].
    pub(super) limit: u32,
}

impl Jit {
    /// Asks the tier-2 thread to recompile a piece (once).
    pub(super) fn promote(&self, code: &Arc<ProgCode>, piece: u32, full: bool) {
        let i = slot(piece, full);
        if code.tiers[i]
            .compare_exchange(1, 2, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            if let Ok(q) = self.queue.lock() {
                if let Some(q) = q.as_ref() {
                    let _ = q.send(Tier2Request {
                        code: code.clone(),
                        piece,
                        full,
                        limit: self.max_functions,
                    });
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
        if req.code.functions[1].load(Ordering::Relaxed) >= req.limit {
            // The program's share of tier-2 code is used up: the tier-1 code keeps running.
            inner.limited += 1;
            continue;
        }
        match inner.compile_piece(&req.code, req.piece, req.full) {
            Ok(addr) => {
                req.code.functions[1].fetch_add(1, Ordering::Relaxed);
                req.code.fns[slot(req.piece, req.full)].store(addr, Ordering::Release)
            }
            Err(e) => inner.errors.push(e.to_string()),
        }
    }
}
