//! Regions: the blocks one compiled function runs, entered at one block.
//!
//! A block that lies on a cycle of blocks whose terminators compiled code can carry out (a
//! loop: a block that branches to itself, SASS `@P0 BRA` back edges, DXBC's
//! `loop … breakc … endloop`, a loop whose body holds an `if`) is compiled together with the
//! rest of that cycle: its function runs the block, then carries out its terminator itself
//! while the whole active mask goes to one block of the region and the room the dispatcher
//! gives (what the budgets and the warp's turn leave) holds that block, and returns to the
//! dispatcher, naming the block whose terminator is left to carry out, at the first divergence,
//! exit from the region, or budget or turn stop ([`crate::exec::warp::Further`]).
//!
//! Reconvergence-stack entries pushed inside the region are kept in the compiled code's
//! knowledge, not on the stack: each region block has one list of entries pushed since the
//! entry and not yet popped, the same on every path to it ([`Plan`]; a program where paths
//! disagree gets no region). A `PUSH` adds one; a wait that every active lane takes at such an
//! entry pops it (and those above it) and goes on where it resumes; a wait no lane takes goes
//! on to the next block. When the function returns, the runner pushes the block's entries onto
//! the real stack, with the active mask (which never changes inside a region).

use super::codegen::MAX_PENDING;
use super::weight::{weight, MAX_PIECE_WEIGHT};
use crate::ir::{BlockId, Cond, PredSrc, Program, Region, Terminator};
use std::ops::Range;

/// One block of a region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The block.
    pub id: BlockId,
    /// The entries pushed inside the region and not yet popped when the block starts, bottom
    /// first: each the region that pushed it and the block its lanes resume at.
    pub pending: Vec<(Region, BlockId)>,
    /// The region blocks its terminator may send the warp to ([`continuations`] inside the
    /// region; a block twice when two ways lead there): the one list of its edges, which the
    /// code follows and [`Plan::chained`] counts.
    pub next: Vec<BlockId>,
}

/// A region: its blocks, the entry first and the rest in block order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The blocks.
    pub members: Vec<Member>,
}

impl Plan {
    /// Per member (by index), the member whose end is the only way into it, if there is one
    /// such (the entry has the function's entry as a way in too): its code may start with
    /// that member's cached values ([`crate::jit::codegen::Member::chained`]).
    pub fn chained(&self) -> Vec<Option<usize>> {
        let mut ways: Vec<(usize, Option<usize>)> = vec![(0, None); self.members.len()];
        ways[0].0 = 1;
        for (k, m) in self.members.iter().enumerate() {
            for &b in &m.next {
                if let Some(t) = self.members.iter().position(|x| x.id == b) {
                    ways[t].0 += 1;
                    ways[t].1 = Some(k);
                }
            }
        }
        ways.into_iter()
            .map(|(n, from)| if n == 1 { from } else { None })
            .collect()
    }

    /// The entries block `b` of the region starts with (none for a block outside it).
    pub fn pending(&self, b: BlockId) -> &[(Region, BlockId)] {
        self.members
            .iter()
            .find(|m| m.id == b)
            .map_or(&[], |m| &m.pending)
    }
}

/// Where compiled code may go from the end of a block that starts with `pending`, and with
/// which entries: a jump's target; a predicate branch's two targets (a CC test is left to the
/// dispatcher); a push's next block, with one more entry; a wait's next block (no lane
/// waits) and, when the topmost entry of its kind was pushed inside the region, where that
/// entry resumes (every lane waits), with the entries below it. Exits, barriers and `BRX`
/// (whose lanes may split among its targets; the dispatcher carries it out): nowhere.
pub fn continuations(
    term: &Terminator,
    pending: &[(Region, BlockId)],
) -> Vec<(BlockId, Vec<(Region, BlockId)>)> {
    // A guard of `PT` holds for every lane, of `!PT` for none: only one way is possible.
    let fixed = |c: Cond| match c.guard.0 {
        PredSrc { pred, neg } if pred.is_pt() && c.cc.is_none() => Some(!neg),
        _ => None,
    };
    match *term {
        Terminator::Jump { target, .. } => vec![(target, pending.to_vec())],
        Terminator::Branch {
            cond,
            taken,
            fallthrough,
            ..
        } if cond.cc.is_none() => match fixed(cond) {
            Some(true) => vec![(taken, pending.to_vec())],
            Some(false) => vec![(fallthrough, pending.to_vec())],
            None => vec![(taken, pending.to_vec()), (fallthrough, pending.to_vec())],
        },
        Terminator::Push {
            region,
            target,
            next,
            ..
        } if pending.len() < MAX_PENDING => {
            let (now, resume) = region.resumes_at(target, next);
            let mut p = pending.to_vec();
            p.push((region, resume));
            vec![(now, p)]
        }
        Terminator::Wait {
            region, cond, next, ..
        } if cond.cc.is_none() => {
            let mut out = Vec::new();
            if fixed(cond) != Some(true) {
                out.push((next, pending.to_vec()));
            }
            if let Some(i) = pending.iter().rposition(|e| e.0 == region) {
                if fixed(cond) != Some(false) {
                    out.push((pending[i].1, pending[..i].to_vec()));
                }
            }
            out
        }
        // A CC test is left to the dispatcher, as is a push past the entries the plan keeps.
        Terminator::Branch { .. }
        | Terminator::Push { .. }
        | Terminator::Wait { .. }
        | Terminator::Brx { .. }
        | Terminator::Exit { .. }
        | Terminator::Barrier { .. } => Vec::new(),
    }
}

/// Most blocks the search for a region visits (a bound on the work for any program; a loop
/// whose search reaches more, through the code after it, is compiled block by block).
pub const MAX_VISIT: usize = 512;

/// Most empty blocks [`head_pieces`] searches from (a bound on the work for any program: a
/// program with more loops whose heads are empty runs the later ones' heads through the
/// dispatcher, each iteration's region starting after the head).
pub const MAX_EMPTY_HEADS: usize = 2048;

/// The region entered at `entry` (given each block's pieces): every block from `entry` on in
/// program order that is reachable from `entry`, and from which `entry` is reachable, through
/// [`continuations`] and blocks from `entry` on. So a region is compiled at a loop's first
/// block (its head, or its body's top where the test is at the bottom), not again at each of
/// its blocks; an inner loop is compiled both within the outer loop's region and alone.
/// `None` when `entry` is on no such cycle or is not one piece (an empty block that heads a
/// region is given one: [`head_pieces`]), when a block of the region is compiled in several
/// pieces or is reached with different entries pending, when the search visits more than
/// [`MAX_VISIT`] blocks, or when the region would weigh more than one function may
/// ([`MAX_PIECE_WEIGHT`]); in the last two cases, a block that branches to itself is a
/// region alone.
pub fn plan(prog: &Program, pieces: &[Range<u32>], entry: BlockId) -> Option<Plan> {
    if pieces[entry as usize].len() != 1 {
        return None;
    }
    let alone = || {
        let term = &prog.blocks[entry as usize].term;
        continuations(term, &[])
            .contains(&(entry, Vec::new()))
            .then(|| Plan {
                members: vec![Member {
                    id: entry,
                    pending: Vec::new(),
                    next: vec![entry],
                }],
            })
    };
    SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        search(prog, pieces, entry, &mut scratch).unwrap_or_else(alone)
    })
}

/// Per host thread, the block-indexed state of [`plan`]'s search, kept from search to search so
/// that a search costs what it visits, not the program's size: block `b` has been visited by
/// the current search when `stamp[b]` is its number, and is then `visited[at[b]]`.
#[derive(Default)]
struct Scratch {
    stamp: Vec<u32>,
    at: Vec<u32>,
    now: u32,
}

impl Scratch {
    /// Starts a search over a program of `n` blocks.
    fn begin(&mut self, n: usize) {
        if self.stamp.len() < n {
            self.stamp.resize(n, 0);
            self.at.resize(n, 0);
        }
        self.now = self.now.wrapping_add(1);
        if self.now == 0 {
            self.stamp.fill(0);
            self.now = 1;
        }
    }

    /// Where block `b` is in the visited list, if the current search has visited it.
    fn get(&self, b: BlockId) -> Option<usize> {
        (self.stamp[b as usize] == self.now).then(|| self.at[b as usize] as usize)
    }

    fn set(&mut self, b: BlockId, at: usize) {
        self.stamp[b as usize] = self.now;
        self.at[b as usize] = at as u32;
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// The search of [`plan`] from a one-piece `entry`: `Some(result)`, or `None` when it visits
/// more than [`MAX_VISIT`] blocks or the region weighs too much (then the entry alone, if it
/// branches to itself, is the region).
fn search(
    prog: &Program,
    pieces: &[Range<u32>],
    entry: BlockId,
    scratch: &mut Scratch,
) -> Option<Option<Plan>> {
    scratch.begin(prog.blocks.len());
    // Forward from `entry`, each block with the entries it starts with, and the edges found
    // (as places in `visited`).
    let mut visited: Vec<(BlockId, Vec<(Region, BlockId)>)> = vec![(entry, Vec::new())];
    scratch.set(entry, 0);
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut stack = vec![0usize];
    while let Some(k) = stack.pop() {
        let b = visited[k].0;
        if pieces[b as usize].len() > 1 {
            continue;
        }
        for (s, p) in continuations(&prog.blocks[b as usize].term, &visited[k].1) {
            if s < entry {
                continue;
            }
            match scratch.get(s) {
                Some(j) if visited[j].1 != p => {
                    // Reached with different entries pending. (A block that is in the end not
                    // in the region only makes this give up early.)
                    return Some(None);
                }
                Some(j) => edges.push((k as u32, j as u32)),
                None if visited.len() >= MAX_VISIT => return None,
                None => {
                    scratch.set(s, visited.len());
                    edges.push((k as u32, visited.len() as u32));
                    stack.push(visited.len());
                    visited.push((s, p));
                }
            }
        }
    }
    // Backward from `entry` along the edges found.
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); visited.len()];
    for &(from, to) in &edges {
        preds[to as usize].push(from);
    }
    let mut member = vec![false; visited.len()];
    let mut stack = vec![0usize];
    while let Some(k) = stack.pop() {
        for &q in &preds[k] {
            if !member[q as usize] {
                member[q as usize] = true;
                stack.push(q as usize);
            }
        }
    }
    if !member[0] {
        return Some(None);
    }
    let mut ids: Vec<(BlockId, usize)> = (0..visited.len())
        .filter(|&k| member[k])
        .map(|k| (visited[k].0, k))
        .collect();
    ids.sort_unstable();
    let load: u32 = ids
        .iter()
        .flat_map(|&(b, _)| prog.blocks[b as usize].insts.iter().map(weight))
        .sum();
    if load > MAX_PIECE_WEIGHT && ids.len() > 1 {
        // Too heavy together: the entry alone, if it branches to itself (an inner loop of one
        // block still runs in compiled code).
        return None;
    }
    let members = ids
        .iter()
        .map(|&(id, k)| {
            let pending = std::mem::take(&mut visited[k].1);
            let next = continuations(&prog.blocks[id as usize].term, &pending)
                .into_iter()
                .map(|(b, _)| b)
                .filter(|b| ids.binary_search_by_key(b, |m| m.0).is_ok())
                .collect();
            Member { id, pending, next }
        })
        .collect();
    Some(Some(Plan { members }))
}

/// Which blocks without instructions head a region, given the pieces of the blocks that have
/// instructions: they get one empty piece, so that a function entered there runs the region
/// (a DXBC loop's head only pushes the entry its `continue` waits at, and a region that starts
/// after it cannot pop that entry itself). Only an empty block that a later block (or itself)
/// jumps or branches back to can head one, so only those are searched.
pub fn head_pieces(prog: &Program, pieces: &[Range<u32>]) -> Vec<bool> {
    let n = prog.blocks.len();
    let mut back = vec![false; n];
    for (b, block) in prog.blocks.iter().enumerate() {
        let targets = match block.term {
            Terminator::Jump { target, .. } => [Some(target), None],
            Terminator::Branch {
                taken, fallthrough, ..
            } => [Some(taken), Some(fallthrough)],
            _ => [None, None],
        };
        for t in targets.into_iter().flatten() {
            if t as usize <= b && prog.blocks[t as usize].insts.is_empty() {
                back[t as usize] = true;
            }
        }
    }
    let mut with = pieces.to_vec();
    let mut searched = 0;
    (0..n)
        .map(|b| {
            if !back[b] || searched == MAX_EMPTY_HEADS {
                return false;
            }
            searched += 1;
            let was = std::mem::replace(&mut with[b], 0..1);
            let heads = plan(prog, &with, b as BlockId).is_some();
            with[b] = was;
            heads
        })
        .collect()
}
