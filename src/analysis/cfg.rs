//! What the fixed-point analyses share about a program's control flow, built in one pass over it
//! so that no analysis does per-block work that grows with the program's size.
//!
//! - **Hubs.** A wait (`SYNC`, `BRK`, `CONT`, `RET`) may resume wherever any push of its kind
//!   resumes, so a program with `w` waits and `r` resume points of one kind has `w × r` such
//!   thread edges (10^5 functions with a `RET` each, called from 10^5 places: 10^10). The
//!   analyses route them through one node per kind instead, its *hub*: every wait of the kind
//!   leads to the hub, the hub to every resume point of the kind, `w + r` edges. The meet over
//!   a hub is the meet over its resume points (or over its waits, going forward), so the
//!   results are those of the full edges.
//! - **The order of work.** [`Order`] ranks blocks in reverse postorder of a depth-first walk of
//!   the thread edges (hubs included) from the entry, then from each block it did not reach;
//!   [`Work`] hands out queued blocks lowest rank first (a forward problem) or highest first (a
//!   backward one), so that a block is visited after the blocks it depends on, except across
//!   back edges.
//!
//! With both, each block's transfer is evaluated once plus once per change of its input (a set
//! of at most [`ITEMS`] items only grows, or only shrinks), and a hub's change re-queues the
//! blocks after it: the work is linear in the program's size, at most about [`ITEMS`] times one
//! pass (tests/load_bounds.rs counts it on hostile programs).

use crate::ir::{BlockId, Program, Region, Terminator};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The number of region kinds (one hub each).
pub const KINDS: usize = Region::ALL.len();

/// The number of items of a [`StateSet`](super::StateSet): 255 registers, 7 predicates, 4 flags
/// and the LEA.LO word. A monotone set of them changes at most this many times.
pub const ITEMS: u64 = 255 + 7 + 4 + 1;

/// The index of a region kind in a `[_; KINDS]`.
pub fn ix(r: Region) -> usize {
    match r {
        Region::Sync => 0,
        Region::Break => 1,
        Region::Continue => 2,
        Region::Call => 3,
    }
}

/// Per region kind, where its pushes' entries resume and which blocks wait at them.
#[derive(Clone, Debug, Default)]
pub struct Hubs {
    /// Per kind: the resume points of every push of the kind ([`Region::resumes_at`]: an
    /// `SSY`'s target, a `CAL`'s return point), in the program, sorted, without duplicates.
    pub resume: [Vec<BlockId>; KINDS],
    /// Per kind: the blocks that end in a wait of the kind, in order.
    pub waits: [Vec<BlockId>; KINDS],
    /// Per block: bit `k` is set when the block is a resume point of kind `k`.
    pub resumes_here: Vec<u8>,
}

impl Hubs {
    /// The hubs of `p` (ids outside the program are left out).
    pub fn new(p: &Program) -> Hubs {
        let n = p.blocks.len();
        let mut h = Hubs {
            resumes_here: vec![0; n],
            ..Hubs::default()
        };
        for (b, block) in p.blocks.iter().enumerate() {
            match block.term {
                Terminator::Push {
                    region,
                    target,
                    next,
                    ..
                } => {
                    let r = region.resumes_at(target, next).1;
                    if (r as usize) < n {
                        h.resume[ix(region)].push(r);
                        h.resumes_here[r as usize] |= 1 << ix(region);
                    }
                }
                Terminator::Wait { region, .. } => h.waits[ix(region)].push(b as BlockId),
                _ => {}
            }
        }
        for r in &mut h.resume {
            r.sort_unstable();
            r.dedup();
        }
        h
    }

    /// The kinds whose resume point block `b` is.
    pub fn kinds_resuming_at(&self, b: usize) -> impl Iterator<Item = usize> + '_ {
        let bits = self.resumes_here[b];
        (0..KINDS).filter(move |k| bits >> k & 1 != 0)
    }
}

/// The successors of block `b` in the program (its terminator's, ids outside the program left
/// out), without the hub edges: [`Terminator::successors`] without allocating (a `BRX`'s
/// declared targets, then its next block).
pub fn plain_successors(p: &Program, b: usize) -> impl Iterator<Item = usize> + '_ {
    let n = p.blocks.len();
    let mut table: &[(u32, BlockId)] = &[];
    let (a, c) = match p.blocks[b].term {
        Terminator::Jump { target, .. } => (Some(target), None),
        Terminator::Branch {
            taken, fallthrough, ..
        } => (Some(taken), Some(fallthrough)),
        Terminator::Brx { table: t, next, .. } => {
            table = p.jump_tables.get(t as usize).map_or(&[], |t| &t.targets);
            (next, None)
        }
        Terminator::Push { target, next, .. } => (Some(next), Some(target)),
        Terminator::Wait { next, .. } | Terminator::Barrier { next, .. } => (Some(next), None),
        Terminator::Exit { next, .. } => (next, None),
    };
    table
        .iter()
        .map(|&(_, t)| t)
        .chain([a, c].into_iter().flatten())
        .map(|s| s as usize)
        .filter(move |&s| s < n)
}

/// A rank per block: reverse postorder of a depth-first walk of the thread edges (the
/// terminators' successors, and a wait → its hub → every resume point of its kind) from the
/// entry, then from each block not reached yet, in program order.
#[derive(Clone, Debug)]
pub struct Order {
    /// `rank[b]`: block `b`'s place in the order (0 first).
    pub rank: Vec<u32>,
    /// `block[k]`: the block of rank `k`.
    pub block: Vec<u32>,
}

impl Order {
    /// The order of `p`'s blocks (see [`Order`]); linear in the blocks and edges.
    pub fn new(p: &Program, hubs: &Hubs) -> Order {
        let n = p.blocks.len();
        // Nodes: blocks 0..n, then one hub per kind.
        let hub = |k: usize| n + k;
        let edges = |v: usize| -> Vec<usize> {
            if v >= n {
                return hubs.resume[v - n].iter().map(|&r| r as usize).collect();
            }
            let mut e: Vec<usize> = plain_successors(p, v).collect();
            if let Terminator::Wait { region, .. } = p.blocks[v].term {
                e.push(hub(ix(region)));
            }
            e
        };
        let mut seen = vec![false; n + KINDS];
        let mut post: Vec<u32> = Vec::with_capacity(n);
        let mut stack: Vec<(usize, Vec<usize>, usize)> = Vec::new();
        for root in 0..n {
            if seen[root] {
                continue;
            }
            seen[root] = true;
            stack.push((root, edges(root), 0));
            while let Some((v, es, next)) = stack.last_mut() {
                if let Some(&s) = es.get(*next) {
                    *next += 1;
                    if !seen[s] {
                        seen[s] = true;
                        let e = edges(s);
                        stack.push((s, e, 0));
                    }
                } else {
                    if *v < n {
                        post.push(*v as u32);
                    }
                    stack.pop();
                }
            }
        }
        post.reverse();
        let mut rank = vec![0u32; n];
        for (k, &b) in post.iter().enumerate() {
            rank[b as usize] = k as u32;
        }
        Order { rank, block: post }
    }
}

/// A set of queued blocks handed out by rank, each at most once until it is queued again.
///
/// Blocks are handed out by their key, the rank (forward) or the rank from the end (backward),
/// lowest first. [`Work::all`] starts with every block queued: those are handed out by a cursor
/// over the keys, and only blocks queued again go through the heap.
#[derive(Clone, Debug)]
pub struct Work<'a> {
    order: &'a Order,
    /// Lowest rank first (forward) or highest first (backward).
    forward: bool,
    heap: BinaryHeap<Reverse<usize>>,
    queued: Vec<bool>,
    /// The next key of the first pass over every block ([`Work::all`]; the end when none).
    cursor: usize,
}

impl<'a> Work<'a> {
    /// An empty work list over `order`'s blocks, handing out the lowest rank first when
    /// `forward`, else the highest.
    pub fn new(order: &'a Order, forward: bool) -> Work<'a> {
        let n = order.rank.len();
        Work {
            order,
            forward,
            heap: BinaryHeap::new(),
            queued: vec![false; n],
            cursor: n,
        }
    }

    /// A work list with every block queued.
    pub fn all(order: &'a Order, forward: bool) -> Work<'a> {
        let n = order.rank.len();
        Work {
            order,
            forward,
            heap: BinaryHeap::new(),
            queued: vec![true; n],
            cursor: 0,
        }
    }

    fn key(&self, b: usize) -> usize {
        let r = self.order.rank[b] as usize;
        if self.forward {
            r
        } else {
            self.order.rank.len() - 1 - r
        }
    }

    fn block(&self, key: usize) -> usize {
        let r = if self.forward {
            key
        } else {
            self.order.rank.len() - 1 - key
        };
        self.order.block[r] as usize
    }

    /// Queues block `b` (nothing if it is queued already).
    pub fn push(&mut self, b: usize) {
        if !self.queued[b] {
            self.queued[b] = true;
            let k = self.key(b);
            self.heap.push(Reverse(k));
        }
    }

    /// The next block to evaluate, if any.
    pub fn pop(&mut self) -> Option<usize> {
        let n = self.order.rank.len();
        let from_heap = self.heap.peek().map(|r| r.0);
        let key = match from_heap {
            Some(h) if self.cursor >= n || h < self.cursor => {
                self.heap.pop();
                h
            }
            _ if self.cursor < n => {
                self.cursor += 1;
                self.cursor - 1
            }
            _ => return None,
        };
        let b = self.block(key);
        self.queued[b] = false;
        Some(b)
    }
}
