//! The compile weight of instructions, and the split of long blocks into pieces of bounded
//! weight (one function each).

use super::codegen::op_weight;
use crate::ir::Inst;
use std::ops::Range;

/// Most [`weight`] one compiled function holds; longer blocks are compiled in pieces.
pub const MAX_PIECE_WEIGHT: u32 = 512;

/// What an instruction costs to compile (the unit is about 100 us of tier-1 or 400 us of tier-2
/// time). Measured one kind at a time on blocks of 500 copies whose results all stay live (a
/// loop body), both tiers and variants, on a 2-core host: with many values live, tier 2's
/// register allocation dominates, about 0.6-2 ms per ALU instruction in a 250-instruction
/// function (LOP3 3 ms, P2R 7 ms), less in shorter ones; memory instructions (an inline fast path
/// and a cold slow path each) cost 0.8-1.8 ms at tier 1 and 2.5-9 ms at tier 2, growing with the
/// access size, generic `LD`/`ST` (a global and a shared path) the most. A piece of
/// [`MAX_PIECE_WEIGHT`] then compiles in about 50 ms at tier 1 and 200 ms at tier 2 at most.
///
/// Each op states its weight in its line of the JIT's lowering table (`codegen/table.rs`): an
/// op added to the IR table without one does not compile.
pub fn weight(inst: &Inst) -> u32 {
    op_weight(&inst.op)
}

/// Splits a block's instructions into pieces of at most [`MAX_PIECE_WEIGHT`] (an instruction
/// heavier than that alone). A block without instructions (only its terminator, which the
/// dispatcher runs) has no pieces: there is nothing to compile or call. Compiling one cost a
/// whole function's fixed cost (tens of microseconds) for code that returned at once.
pub fn pieces(insts: &[Inst]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    if insts.is_empty() {
        return out;
    }
    let (mut start, mut w) = (0, 0);
    for (i, inst) in insts.iter().enumerate() {
        let x = weight(inst);
        if i > start && w + x > MAX_PIECE_WEIGHT {
            out.push(start..i);
            (start, w) = (i, 0);
        }
        w += x;
    }
    out.push(start..insts.len());
    out
}
