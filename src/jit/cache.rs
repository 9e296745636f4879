//! The per-program code cache: every block's pieces, one slot per piece and variant (any
//! active mask, full warp) holding its compiled address and tier (filled by `tier.rs`).

use super::region::Plan;
use super::{pieces, Jit};
use crate::analysis::Liveness;
use crate::ir::{BlockId, Program};
use std::ops::Range;
use std::sync::atomic::{AtomicU32, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// A run of a block's instructions compiled as one function.
pub(super) struct Piece {
    /// The block.
    pub(super) block: BlockId,
    /// Its instructions in the block.
    pub(super) insts: Range<usize>,
}

/// Per-program code: one slot per piece of each block.
pub(super) struct ProgCode {
    /// Keeps the program (and so the `Inst` addresses baked into code) alive.
    pub(super) prog: Arc<Program>,
    /// What is live out of each block: only that is stored back at a block's end. Worked out
    /// on the first compile ([`ProgCode::live`]): a program none of whose blocks gets hot costs
    /// no analysis.
    live: OnceLock<Liveness>,
    /// Which registers hold one value in every active lane, before each instruction: the
    /// full-warp variant loads such a register as one word (on the first compile too,
    /// [`ProgCode::uniform`]).
    uniform: OnceLock<crate::analysis::Uniformity>,
    /// Every block's pieces, block after block.
    pub(super) pieces: Vec<Piece>,
    /// Per block, its pieces' indices in `pieces`.
    pub(super) block_pieces: Vec<Range<u32>>,
    /// Compiled function addresses, two per piece: `[2 * p]` for any active mask, `[2 * p + 1]`
    /// for a full warp (0 = not compiled; usize::MAX = will not compile).
    pub(super) fns: Vec<AtomicUsize>,
    /// Executions of each block so far, for tiering.
    pub(super) runs: Vec<AtomicU32>,
    /// Per slot: 0 not compiled, 1 tier 1, 2 tier 2 requested (or done).
    pub(super) tiers: Vec<AtomicU8>,
    /// Per slot: tier-1 runs counted by the runners that have finished. A runner counts on its
    /// own host thread for one launch and adds its counts here at the end, so that a block that
    /// many small launches run becomes hot too.
    pub(super) hot: Vec<AtomicU32>,
    /// Per block, the region a function entered there runs ([`super::region::plan`]), worked
    /// out when first needed: by the compiler, and by the runner to push the entries a region
    /// block holds when its function returns there.
    pub(super) plans: Vec<OnceLock<Option<Arc<Plan>>>>,
    /// Per block, how many instructions of the blocks before it use a segment hint
    /// ([`super::abi::uses_hint`]): where its instructions' hint numbers start.
    hint_base: Vec<u32>,
    /// Set once [`Jit::compile_ahead`] has run for the program (it runs once).
    pub(super) ahead: OnceLock<()>,
    /// Functions compiled for the program per tier (tier 1, tier 2), at most
    /// [`Jit::max_functions`] each (counted under the tier's lock).
    pub(super) functions: [AtomicU32; 2],
}

impl ProgCode {
    /// The program's liveness.
    pub(super) fn live(&self) -> &Liveness {
        self.live
            .get_or_init(|| crate::analysis::liveness(&self.prog))
    }

    /// The program's uniformity.
    pub(super) fn uniform(&self) -> &crate::analysis::Uniformity {
        self.uniform
            .get_or_init(|| crate::analysis::uniformity(&self.prog))
    }

    /// The segment hint number of the first instruction from `inst` on in block `id` that
    /// uses one: how many before it in the program do (`abi::HINTS`).
    pub(super) fn hint_at(&self, id: BlockId, inst: usize) -> usize {
        let block = &self.prog.blocks[id as usize].insts[..inst];
        let before = block
            .iter()
            .filter(|i| super::abi::uses_hint(&i.op))
            .count();
        self.hint_base[id as usize] as usize + before
    }

    /// Installs tier 2's function `addr` in slot `i` (callers run it from then on) and counts
    /// it in the program's tier-2 functions.
    pub(super) fn install_tier2(&self, i: usize, addr: usize) {
        self.functions[1].fetch_add(1, Ordering::Relaxed);
        self.tiers[i].store(2, Ordering::Relaxed);
        self.fns[i].store(addr, Ordering::Release);
    }

    /// The region entered at block `id`, if it heads one.
    pub(super) fn plan(&self, id: BlockId) -> Option<Arc<Plan>> {
        self.plans[id as usize]
            .get_or_init(|| super::region::plan(&self.prog, &self.block_pieces, id).map(Arc::new))
            .clone()
    }
}

/// Index of a piece's variant in [`ProgCode::fns`].
pub(super) fn slot(piece: u32, full: bool) -> usize {
    2 * piece as usize + full as usize
}

/// The piece and variant of slot `i` (the inverse of [`slot`]).
pub(super) fn slot_piece(i: usize) -> (u32, bool) {
    ((i / 2) as u32, i % 2 == 1)
}

impl Jit {
    /// The code cache entry of `prog`: found by its address (every run's fast path), else by
    /// its content (an equal program loaded again, in a new `Arc`, reuses the code compiled for
    /// the first, at whatever tier it reached), else made.
    pub(super) fn code_for(&self, prog: &Arc<Program>) -> Arc<ProgCode> {
        let key = Arc::as_ptr(prog) as usize;
        let mut progs = self.progs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, code)) = progs.by_addr.get(&key) {
            return code.clone();
        }
        let hash = content_hash(prog);
        let same = progs
            .by_content
            .get(&hash)
            .and_then(|codes| codes.iter().find(|c| *c.prog == **prog))
            .cloned();
        let code = match same {
            Some(code) => code,
            None => {
                let code = Arc::new(new_code(prog));
                progs.by_content.entry(hash).or_default().push(code.clone());
                code
            }
        };
        // The entry holds `prog`, so that its address is not reused while the entry lives.
        progs.by_addr.insert(key, (prog.clone(), code.clone()));
        code
    }
}

/// The code cache's index ([`Jit::code_for`]).
#[derive(Default)]
pub(super) struct Programs {
    /// By the program's address, with the program itself (kept alive, so that its address
    /// names it for as long as the entry lives).
    by_addr: std::collections::HashMap<usize, (Arc<Program>, Arc<ProgCode>)>,
    /// By a hash of the program's content, the entries with that hash (compared whole).
    by_content: std::collections::HashMap<u64, Vec<Arc<ProgCode>>>,
}

/// A hash of everything a program holds (its `Debug` text, fed to the hasher as it is written).
fn content_hash(prog: &Program) -> u64 {
    use std::hash::Hasher;
    struct Feed(std::collections::hash_map::DefaultHasher);
    impl std::fmt::Write for Feed {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.write(s.as_bytes());
            Ok(())
        }
    }
    let mut f = Feed(Default::default());
    let _ = std::fmt::Write::write_fmt(&mut f, format_args!("{prog:?}"));
    f.0.finish()
}

/// A new, empty code cache entry for `prog`: its pieces, analyses and slots.
fn new_code(prog: &Arc<Program>) -> ProgCode {
    let n = prog.blocks.len();
    let split: Vec<_> = prog.blocks.iter().map(|b| pieces(&b.insts)).collect();
    // Where the pieces would be, to find the empty blocks that head a region.
    let mut at = 0;
    let tentative: Vec<_> = split
        .iter()
        .map(|p| {
            at += p.len() as u32;
            at - p.len() as u32..at
        })
        .collect();
    let heads = super::region::head_pieces(prog, &tentative);
    let mut all = Vec::new();
    let mut block_pieces = Vec::with_capacity(n);
    for (id, mut ranges) in split.into_iter().enumerate() {
        if heads[id] {
            ranges.push(0..0);
        }
        let first = all.len() as u32;
        all.extend(ranges.into_iter().map(|insts| Piece {
            block: id as BlockId,
            insts,
        }));
        block_pieces.push(first..all.len() as u32);
    }
    let slots = 2 * all.len();
    ProgCode {
        prog: prog.clone(),
        live: OnceLock::new(),
        uniform: OnceLock::new(),
        hint_base: prog
            .blocks
            .iter()
            .scan(0u32, |n, b| {
                let base = *n;
                *n += b
                    .insts
                    .iter()
                    .filter(|i| super::abi::uses_hint(&i.op))
                    .count() as u32;
                Some(base)
            })
            .collect(),
        ahead: OnceLock::new(),
        pieces: all,
        block_pieces,
        fns: (0..slots).map(|_| AtomicUsize::new(0)).collect(),
        runs: (0..n).map(|_| AtomicU32::new(0)).collect(),
        tiers: (0..slots).map(|_| AtomicU8::new(0)).collect(),
        hot: (0..slots).map(|_| AtomicU32::new(0)).collect(),
        plans: (0..n).map(|_| OnceLock::new()).collect(),
        functions: [AtomicU32::new(0), AtomicU32::new(0)],
    }
}
