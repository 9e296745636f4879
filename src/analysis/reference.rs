//! The analyses as first written, kept as the oracle the linear ones must agree with exactly:
//! every wait with an edge of its own to every resume point of its kind (quadratic in the
//! number of calls, `SSY`s or DXBC loops), and uniformity re-solved from scratch for each round
//! of divergence (a round per link of a chain of divergent regions). Tests only.

use super::effects::never;
use super::liveness::{resume_points, step_back, term_uses, thread_successors, LiveSet, Liveness};
use super::uniformity::{cond_is_uniform, step_forward, UniformSet};
use crate::ir::*;

/// The number of region kinds.
const KINDS: usize = Region::ALL.len();

/// Per-thread liveness (see [`super::liveness::liveness`]).
pub fn liveness(p: &Program) -> Liveness {
    let n = p.blocks.len();
    let succs: Vec<Vec<BlockId>> = (0..n as BlockId).map(|b| thread_successors(p, b)).collect();
    let mut preds: Vec<Vec<BlockId>> = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s as usize].push(b as BlockId);
        }
    }
    let mut live_in = vec![LiveSet::EMPTY; n];
    let mut live_out = vec![LiveSet::EMPTY; n];
    // The registers other lanes may read by SHFL: live at every block end.
    let mut shuffled = LiveSet::EMPTY;
    for i in p.blocks.iter().flat_map(|b| &b.insts) {
        if let Op::Shfl(s) = &i.op {
            if !never(i.guard) {
                shuffled.insert_reg(s.a);
            }
        }
    }
    // Every block once, last first (a good order for a backward problem), then whatever changes.
    let mut work: Vec<BlockId> = (0..n as BlockId).collect();
    let mut queued = vec![true; n];
    while let Some(b) = work.pop() {
        let bi = b as usize;
        queued[bi] = false;
        let block = &p.blocks[bi];
        let mut out = term_uses(&block.term);
        out.union_with(&shuffled);
        for &s in &succs[bi] {
            out.union_with(&live_in[s as usize]);
        }
        live_out[bi] = out;
        let mut live = out;
        for i in block.insts.iter().rev() {
            step_back(i, &mut live);
        }
        if live != live_in[bi] {
            live_in[bi] = live;
            for &q in &preds[bi] {
                if !queued[q as usize] {
                    queued[q as usize] = true;
                    work.push(q);
                }
            }
        }
    }
    // Lanes that do not exist never run the entry block; their launch values are read as
    // any other lane's.
    if let Some(entry) = live_in.first_mut() {
        entry.union_with(&shuffled);
    }
    Liveness { live_in, live_out }
}

/// What [`uniformity`] finds: per block, the uniform items at entry (`None`: unreached) and
/// after each instruction, whether it is converged, and the entries surely pending.
pub struct RefUniformity {
    pub entry: Vec<Option<UniformSet>>,
    pub after: Vec<Vec<UniformSet>>,
    pub converged: Vec<bool>,
    pub pending: Vec<[bool; KINDS]>,
}

/// The index of a region kind in a `[bool; KINDS]`.
fn ix(r: Region) -> usize {
    match r {
        Region::Sync => 0,
        Region::Break => 1,
        Region::Continue => 2,
        Region::Call => 3,
    }
}

/// Thread edges for uniformity: successors without a push's edge to where its entry resumes
/// (a call keeps its edge to the callee), plus each wait → the resume point of every push of its
/// region kind.
fn thread_edges(p: &Program, b: usize, targets: &[Vec<BlockId>; KINDS]) -> Vec<BlockId> {
    let mut s = match p.blocks[b].term {
        Terminator::Push {
            region,
            target,
            next,
            ..
        } => vec![region.resumes_at(target, next).0],
        Terminator::Wait { region, next, .. } => std::iter::once(next)
            .chain(targets[ix(region)].iter().copied())
            .collect(),
        ref t => t.successors(p),
    };
    s.retain(|&t| (t as usize) < p.blocks.len());
    s.sort_unstable();
    s.dedup();
    s
}

/// Edges of the warp along which the active mask is kept: where a non-converged block passes
/// its state on (see the module docs).
fn warp_mask_edges(p: &Program, t: &Terminator, pending: [bool; KINDS]) -> Vec<BlockId> {
    match *t {
        Terminator::Wait {
            region, cond, next, ..
        } => {
            if cond.is_always() && pending[ix(region)] {
                vec![]
            } else {
                vec![next]
            }
        }
        _ => t.successors(p),
    }
}

/// The must-analysis "an entry of region kind k is on the reconvergence stack" at each block's
/// entry, for every kind.
fn entries_pending(p: &Program) -> Vec<[bool; KINDS]> {
    let n = p.blocks.len();
    let mut pend: Vec<Option<[bool; KINDS]>> = vec![None; n];
    if n == 0 {
        return vec![];
    }
    pend[0] = Some([false; KINDS]);
    let mut work = vec![0usize];
    while let Some(b) = work.pop() {
        let Some(v) = pend[b] else { continue };
        let edges: Vec<(BlockId, [bool; KINDS])> = match p.blocks[b].term {
            Terminator::Push {
                region,
                target,
                next,
                ..
            } => {
                let mut after = v;
                after[ix(region)] = true;
                let (now, resume) = region.resumes_at(target, next);
                vec![(now, after), (resume, v)]
            }
            ref t => t.successors(p).into_iter().map(|s| (s, v)).collect(),
        };
        for (s, val) in edges {
            let Some(slot) = pend.get_mut(s as usize) else {
                continue;
            };
            let new = match *slot {
                None => Some(val),
                Some(c) => Some(std::array::from_fn(|k| c[k] && val[k])),
            };
            if new != *slot {
                *slot = new;
                work.push(s as usize);
            }
        }
    }
    pend.into_iter()
        .map(|v| v.unwrap_or([false; KINDS]))
        .collect()
}

/// Forward uniformity for a given set of non-converged blocks: (entry, exit) states, `None`
/// where no thread arrives.
#[allow(clippy::type_complexity)]
fn forward(
    p: &Program,
    edges: &[Vec<BlockId>],
    div: &[bool],
) -> (Vec<Option<UniformSet>>, Vec<Option<UniformSet>>) {
    let n = p.blocks.len();
    let mut entry: Vec<Option<UniformSet>> = vec![None; n];
    let mut exit: Vec<Option<UniformSet>> = vec![None; n];
    if n == 0 {
        return (entry, exit);
    }
    entry[0] = Some(UniformSet::FULL);
    let mut work = vec![0usize];
    let mut queued = vec![false; n];
    queued[0] = true;
    while let Some(b) = work.pop() {
        queued[b] = false;
        let Some(mut u) = entry[b] else { continue };
        for i in &p.blocks[b].insts {
            step_forward(i, &mut u, !div[b]);
        }
        exit[b] = Some(u);
        for &s in &edges[b] {
            let s = s as usize;
            let changed = match &mut entry[s] {
                None => {
                    entry[s] = Some(u);
                    true
                }
                Some(e) => e.intersect_with(&u),
            };
            if changed && !queued[s] {
                queued[s] = true;
                work.push(s);
            }
        }
    }
    (entry, exit)
}

/// Computes uniformity and convergence for every block of `p` (see the module docs).
pub fn uniformity(p: &Program) -> RefUniformity {
    let n = p.blocks.len();
    let targets = Region::ALL.map(|r| resume_points(p, r));
    let edges: Vec<Vec<BlockId>> = (0..n).map(|b| thread_edges(p, b, &targets)).collect();
    let pending = entries_pending(p);
    // A BRK, CONT or RET takes its lanes out of the entries above the one it waits at, so with
    // one in the program a push's entry may resume without lanes that were active at the push.
    // So may a SYNC once the program has a CAL: a call entry can sit above an SSY entry (a SYNC
    // in the callee for an SSY of the caller) and holds the syncing lanes.
    let waits_past = p.blocks.iter().any(|b| {
        matches!(
            b.term,
            Terminator::Wait {
                region: Region::Break | Region::Continue | Region::Call,
                ..
            } | Terminator::Push {
                region: Region::Call,
                ..
            }
        )
    });
    let mut div = vec![false; n];
    let (entry, exit) = loop {
        let (entry, exit) = forward(p, &edges, &div);
        // Divergence only grows: start from the previous set, add this round's seeds, close.
        let mut new = div.clone();
        let mut work: Vec<usize> = (0..n).filter(|&b| new[b]).collect();
        for (block, u) in p.blocks.iter().zip(&exit) {
            let Some(u) = u else { continue };
            let seeds: Vec<BlockId> = match block.term {
                Terminator::Branch {
                    cond,
                    taken,
                    fallthrough,
                    ..
                } if !cond_is_uniform(cond, u) => {
                    vec![taken, fallthrough]
                }
                Terminator::Wait { cond, next, .. } if !cond_is_uniform(cond, u) => vec![next],
                Terminator::Brx { cond, reg, .. }
                    if !cond_is_uniform(cond, u) || !(reg.is_rz() || u.has_reg(reg)) =>
                {
                    block.term.successors(p)
                }
                _ => vec![],
            };
            for s in seeds {
                if (s as usize) < n && !new[s as usize] {
                    new[s as usize] = true;
                    work.push(s as usize);
                }
            }
        }
        if waits_past && new.iter().any(|&d| d) {
            for t in targets.iter().flatten() {
                if (*t as usize) < n && !new[*t as usize] {
                    new[*t as usize] = true;
                    work.push(*t as usize);
                }
            }
        }
        while let Some(b) = work.pop() {
            for s in warp_mask_edges(p, &p.blocks[b].term, pending[b]) {
                if (s as usize) < n && !new[s as usize] {
                    new[s as usize] = true;
                    work.push(s as usize);
                }
            }
        }
        if new == div {
            break (entry, exit);
        }
        div = new;
    };
    let mut after = Vec::with_capacity(n);
    for b in 0..n {
        let mut u = entry[b].unwrap_or(UniformSet::FULL);
        let mut v = Vec::new();
        for i in &p.blocks[b].insts {
            if entry[b].is_some() {
                step_forward(i, &mut u, !div[b]);
            }
            v.push(u);
        }
        assert!(entry[b].is_none() || exit[b] == Some(u));
        after.push(v);
    }
    RefUniformity {
        entry,
        after,
        converged: div.iter().map(|d| !d).collect(),
        pending,
    }
}

/// Whether the linear analyses give exactly what the reference ones give on `p` (a panic
/// naming the first difference if not).
pub fn assert_agree(p: &Program) {
    let want = liveness(p);
    let got = super::liveness(p);
    assert_eq!(got, want, "liveness differs from the reference");
    let want = uniformity(p);
    let got = super::uniformity(p);
    // Past its cut-off the linear uniformity may know less (fewer items uniform, fewer blocks
    // converged), never more; else exactly as much.
    let widened = got.widened();
    let check = |got: UniformSet, want: UniformSet, what: &dyn Fn() -> String| {
        if got.is_subset(&want) && (got == want || widened) {
            return;
        }
        panic!("{}: {got} where the reference has {want}", what());
    };
    for b in 0..p.blocks.len() {
        let id = b as BlockId;
        assert_eq!(
            got.is_reachable(id),
            want.entry[b].is_some(),
            "reachable B{b}"
        );
        if let Some(e) = want.entry[b] {
            check(got.uniform_in(id), e, &|| format!("uniform into B{b}"));
        }
        for (k, a) in want.after[b].iter().enumerate() {
            check(got.uniform_after(id, k), *a, &|| {
                format!("uniform after B{b}.{k}")
            });
        }
        if widened {
            assert!(
                want.converged[b] || !got.is_converged(id),
                "B{b} converged past the cut-off, not in the reference"
            );
        } else {
            assert_eq!(got.is_converged(id), want.converged[b], "converged B{b}");
        }
        for r in Region::ALL {
            assert_eq!(
                got.pending(id, r),
                want.pending[b][ix(r)],
                "{r:?} pending at B{b}"
            );
        }
    }
}

#[cfg(feature = "testgen")]
#[cfg(test)]
mod tests {
    use crate::testgen::{Case, Frame, Profile};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// The linear liveness and uniformity agree exactly with the reference ones on random
        /// programs of every profile.
        #[test]
        fn linear_analyses_agree_with_the_reference(
            bytes in proptest::collection::vec(any::<u8>(), 0..2000),
            profile in proptest::sample::select(Profile::ALL.to_vec()),
        ) {
            let case = Case::from_bytes_with(&bytes, profile, Frame::Bare);
            let p = crate::sass::parse_program(
                &case.text,
                &crate::sass::AsmOptions { registers: case.registers },
            )
            .expect("generated programs assemble");
            super::assert_agree(&p);
        }
    }

    /// ... and on every hostile shape (testgen::hostile), at a few sizes.
    #[test]
    fn linear_analyses_agree_with_the_reference_on_the_hostile_shapes() {
        for shape in crate::testgen::hostile::Shape::ALL {
            for n in [1, 2, 5, 40, 300] {
                let b = shape.build(n);
                let opts = crate::frontend::Options {
                    isa: shape.isa(),
                    registers: 255,
                    path: b.code_file().into(),
                    kernel: None,
                };
                let p = crate::frontend::compile(b.text.as_bytes(), &opts).expect("loads");
                super::assert_agree(&p);
            }
        }
    }
}
