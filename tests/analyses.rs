//! Checks the analyses against the reference interpreter on random programs.
//!
//! The programs are `warpjit::testgen` cases of every profile (every op, divergence with and
//! without SSY/SYNC, loops, early exits, barriers, faults), half with [`Frame::Bare`] (only what
//! the random code stores is observable: most values are dead) and half with
//! [`Frame::Minimal`]. Each runs three times on a fresh machine, each time under the
//! interpreter through a body runner of this file:
//!
//! - Uniformity: the runner checks, before each block and after each instruction, that every
//!   item reported uniform holds one value across the active lanes, that a block reported
//!   converged runs with every live lane active, and that a terminator condition reported uniform
//!   is the same in every active lane.
//! - Liveness: the runner overwrites every item that is *not* live (in the active lanes) with
//!   junk before each block and after each instruction; the launch must still store the same
//!   global memory and end the same way (same fault or none, same instruction counts).

use proptest::prelude::Rng;
use proptest::test_runner::{RngAlgorithm, TestRng};
use warpjit::analysis::liveness::{liveness, Liveness};
use warpjit::analysis::uniformity::{uniformity, Uniformity};
use warpjit::analysis::StateSet;
use warpjit::exec::cond_mask;
use warpjit::exec::{run_grid, BodyRunner, CtaEnv, Engine, Launch, Machine, RunOptions, Stats};
use warpjit::ir::*;
use warpjit::reference::run_insts;
use warpjit::testgen::{Case, Frame, Outcome, Profile};
use warpjit_runtime::{Fault, WarpState, LANES};

/// Registers the checks look at: every register the generated programs use (`R0..R31`).
const REGS: u8 = 32;

fn show(p: &Program) -> String {
    let mut s = String::new();
    for (k, b) in p.blocks.iter().enumerate() {
        s += &format!("B{k}:\n");
        for i in &b.insts {
            s += &format!("    {}\n", warpjit::sass::Sass(i));
        }
        s += &format!("    {:?}\n", b.term);
    }
    s
}

/// The same value in every active lane, for each item of `u`.
fn check_uniform(w: &WarpState, u: &StateSet, what: &dyn Fn() -> String) {
    let act = w.active;
    if act == 0 {
        return;
    }
    let l0 = act.trailing_zeros() as usize;
    let lanes = || (0..LANES).filter(move |l| act >> l & 1 != 0);
    for r in (0..REGS).map(Reg) {
        if u.has_reg(r) {
            let row = &w.regs[r.index()];
            assert!(
                lanes().all(|l| row[l] == row[l0]),
                "{r} reported uniform but differs: {}",
                what()
            );
        }
    }
    let same = |m: u32| m & act == 0 || m & act == act;
    for p in 0..7u8 {
        if u.has_pred(Pred(p)) {
            assert!(
                same(w.preds[p as usize]),
                "P{p} reported uniform but differs: {}",
                what()
            );
        }
    }
    for f in 0..4 {
        if u.has_flag(f) {
            assert!(
                same(w.cc[f]),
                "flag {f} reported uniform but differs: {}",
                what()
            );
        }
    }
    if u.lea_lo {
        assert!(
            lanes().all(|l| w.lea_lo[l] == w.lea_lo[l0]),
            "lea_lo reported uniform but differs: {}",
            what()
        );
    }
}

enum Mode<'a> {
    Plain,
    Uniform(&'a Uniformity, &'a Liveness),
    Perturb(&'a Liveness, Box<TestRng>),
}

struct Checker<'a> {
    p: &'a Program,
    mode: Mode<'a>,
}

fn perturb(w: &mut WarpState, live: &StateSet, g: &mut TestRng) {
    let act = w.active;
    for r in (0..REGS).map(Reg) {
        if !live.has_reg(r) {
            for l in 0..LANES {
                if act >> l & 1 != 0 {
                    w.regs[r.index()][l] = g.next_u32();
                }
            }
        }
    }
    for p in 0..7 {
        if !live.has_pred(Pred(p as u8)) {
            w.preds[p] = (w.preds[p] & !act) | (g.next_u32() & act);
        }
    }
    for f in 0..4 {
        if !live.has_flag(f) {
            w.cc[f] = (w.cc[f] & !act) | (g.next_u32() & act);
        }
    }
    if !live.lea_lo {
        for l in 0..LANES {
            if act >> l & 1 != 0 {
                w.lea_lo[l] = g.next_u32();
            }
        }
    }
}

impl BodyRunner for Checker<'_> {
    fn run_body(
        &mut self,
        id: BlockId,
        block: &Block,
        w: &mut WarpState,
        env: &mut CtaEnv<'_>,
    ) -> Result<(), Fault> {
        let p = self.p;
        match &mut self.mode {
            Mode::Plain => run_insts(&block.insts, w, env),
            Mode::Uniform(u, live) => {
                let what = |at: &str| format!("B{id} {at} (active {:#x})\n{}", w.active, show(p));
                if u.is_converged(id) {
                    assert_eq!(
                        w.active,
                        !w.exited,
                        "B{id} reported converged: {}",
                        what("entry")
                    );
                }
                // Only observable (live) state has to hold what uniformity claims: engines clear
                // just the registers live into the entry block at a warp's start.
                let mut at_entry = u.uniform_in(id);
                at_entry.intersect_with(&live.live_in[id as usize]);
                check_uniform(w, &at_entry, &|| what("entry"));
                for (k, i) in block.insts.iter().enumerate() {
                    run_insts(std::slice::from_ref(i), w, env)?;
                    let what =
                        |at: &str| format!("B{id} {at} (active {:#x})\n{}", w.active, show(p));
                    let mut after = u.uniform_after(id, k);
                    after.intersect_with(&live.live_after(p, id, k));
                    check_uniform(w, &after, &|| what(&format!("after inst {k}")));
                }
                let cond = match block.term {
                    Terminator::Branch { cond, .. }
                    | Terminator::Wait { cond, .. }
                    | Terminator::Barrier { cond, .. } => Some(cond),
                    Terminator::Exit {
                        cond,
                        next: Some(_),
                        ..
                    } => Some(cond),
                    _ => None,
                };
                if let (Some(c), true) = (cond, u.branch_is_uniform(id)) {
                    let m = cond_mask(w, c) & w.active;
                    assert!(
                        m == 0 || m == w.active,
                        "B{id} condition reported uniform\n{}",
                        show(p)
                    );
                }
                Ok(())
            }
            Mode::Perturb(l, g) => {
                perturb(w, &l.live_in[id as usize], g);
                let after = l.live_after_each(p, id);
                for (i, live) in block.insts.iter().zip(&after) {
                    run_insts(std::slice::from_ref(i), w, env)?;
                    perturb(w, live, g);
                }
                Ok(())
            }
        }
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

/// An engine that runs a launch through a checking body runner.
struct Checking<'a> {
    mode: &'a (dyn Fn() -> Mode<'a> + Sync),
}

impl Engine for Checking<'_> {
    fn name(&self) -> &'static str {
        "checked interpreter"
    }

    fn run(&self, machine: &Machine, launch: &Launch, opts: &RunOptions) -> Result<Stats, Fault> {
        let p = &*launch.program;
        run_grid(machine, launch, opts, &|| {
            Box::new(Checker {
                p,
                mode: (self.mode)(),
            })
        })
    }

    fn body_runner<'a>(
        &'a self,
        _: &'a Machine,
        launch: &'a Launch,
        _: bool,
    ) -> Box<dyn BodyRunner + 'a> {
        Box::new(Checker {
            p: &launch.program,
            mode: (self.mode)(),
        })
    }
}

/// A run's result and every global segment's bytes afterwards.
type Run = (Result<Stats, Fault>, Vec<(u64, Vec<u8>)>);

/// Runs the case's launch with a checking runner; returns the outcome and the memory.
fn run<'a>(case: &Case, l: &Launch, mode: &'a (dyn Fn() -> Mode<'a> + Sync)) -> Run {
    let o: Outcome = case.run(&Checking { mode }, l).unwrap();
    (o.result.map(|_| o.stats.unwrap()), o.memory)
}

#[test]
fn analyses_agree_with_the_interpreter() {
    let mut g = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let (mut diverged, mut converged_blocks, mut reconverged, mut ran) = (0, 0, 0, 0u64);
    for round in 0..800 {
        let profile = Profile::ALL[round % Profile::ALL.len()];
        let frame = if (round / Profile::ALL.len()).is_multiple_of(2) {
            Frame::Bare
        } else {
            Frame::Minimal
        };
        let mut bytes = vec![0; g.next_u32() as usize % 6000];
        g.fill_bytes(&mut bytes);
        let case = Case::from_bytes_with(&bytes, profile, frame);
        let l = case.launch().unwrap();
        let p = &*l.program;
        let u = uniformity(p);
        let lv = liveness(p);
        reconverged += (0..p.blocks.len())
            .filter(|&b| {
                u.is_converged(b as u32)
                    && p.blocks.iter().enumerate().any(|(q, blk)| {
                        !u.is_converged(q as u32) && matches!(blk.term, Terminator::Wait { .. })
                    }) && p.blocks.iter().any(|blk| matches!(blk.term, Terminator::Push { target, .. } if target as usize == b))
            })
            .count();
        diverged += (0..p.blocks.len() as u32)
            .filter(|&b| !u.is_converged(b))
            .count();
        converged_blocks += (0..p.blocks.len() as u32)
            .filter(|&b| u.is_converged(b))
            .count();
        let plain = run(&case, &l, &|| Mode::Plain);
        let checked = run(&case, &l, &|| Mode::Uniform(&u, &lv));
        assert_eq!(plain, checked, "checking changed the run");
        ran += plain.0.as_ref().map(|s| s.warp_insts).unwrap_or(0);
        let mut seed = [0; 32];
        g.fill_bytes(&mut seed);
        let perturbed = run(&case, &l, &|| {
            Mode::Perturb(
                &lv,
                Box::new(TestRng::from_seed(RngAlgorithm::ChaCha, &seed)),
            )
        });
        assert!(
            plain.0 == perturbed.0,
            "dead values changed the outcome {:?} vs {:?}\n{}",
            plain.0,
            perturbed.0,
            show(p)
        );
        assert!(
            plain.1 == perturbed.1,
            "dead values changed the stored memory\n{}",
            show(p)
        );
    }
    assert!(
        diverged > 500 && converged_blocks > 500 && reconverged > 100 && ran > 20_000,
        "the random programs cover both cases: {diverged} {converged_blocks} {reconverged} {ran}"
    );
}

/// Subroutine calls (CAL/RET), which the random programs do not make: the same checks on
/// hand-written programs with a divergent RET, calls from divergent code, recursion, a BRK out
/// of a subroutine and a SYNC in a subroutine for its caller's SSY. Each stores R1 to R3 of
/// every lane.
#[test]
fn analyses_agree_with_the_interpreter_on_calls() {
    use std::sync::Arc;
    use warpjit::sass::{parse_program, AsmOptions};
    use warpjit_runtime::memory::Init;
    use warpjit_runtime::ConstBanks;
    const OUT: u64 = 0x10000;
    let store = "
        S2R R8, SR_TID.X;
        SHL R8, R8, 0x2;
        STG [R8+0x10000], R1;
        STG [R8+0x10080], R2;
        STG [R8+0x10100], R3;
        EXIT;
    ";
    let programs = [
        // A divergent RET, a guarded and a CC one; the callee writes R2 on one path only.
        "
            BRA .L_main;
        .L_f:
            IADD R3.CC, R0, RZ;
            MOV32I R1, 0x1;
            RET CC.EQ;
            MOV32I R2, 0x4;
            @P0 RET;
            IADD32I R1, R1, 0x2;
            RET;
        .L_main:
            S2R R0, SR_TID.X;
            MOV32I R2, 0x9;
            ISETP.LT.U32.AND P0, PT, R0, 0x8, PT;
            CAL .L_f;
            IADD32I R3, R1, 0x10;
        ",
        // Calls from both paths of a divergent region, a uniform value passed in R5.
        "
            BRA .L_main;
        .L_inc:
            IADD R1, R1, R5;
            MOV R2, R5;
            RET;
        .L_main:
            S2R R0, SR_TID.X;
            MOV32I R5, 0x3;
            ISETP.GE.U32.AND P0, PT, R0, 0x10, PT;
            SSY .L_join;
            @P0 BRA .L_hi;
            CAL .L_inc;
            SYNC;
        .L_hi:
            CAL .L_inc;
            CAL .L_inc;
            SYNC;
        .L_join:
            IADD32I R3, R1, 0x10;
        ",
        // Recursion to a per-lane depth.
        "
            BRA .L_main;
        .L_f:
            IADD32I R1, R1, 0x1;
            ISETP.LT.U32.AND P0, PT, R1, R0, PT;
            @!P0 BRA .L_back;
            CAL .L_f;
        .L_back:
            SHL R2, R2, 0x4;
            IADD R2, R2, R1;
            IADD32I R1, R1, -0x1;
            RET;
        .L_main:
            S2R R0, SR_TID.X;
            LOP.AND R0, R0, 0x3;
            IADD32I R0, R0, 0x2;
            CAL .L_f;
            MOV32I R3, 0x5;
        ",
        // A BRK out of a subroutine, and a SYNC in one for its caller's SSY.
        "
            BRA .L_main;
        .L_step:
            ISETP.GE.U32.AND P0, PT, R1, R0, PT;
            @P0 BRK;
            IADD32I R1, R1, 0x1;
            RET;
        .L_sync:
            MOV32I R3, 0x7;
            @P1 SYNC;
            MOV32I R3, 0x8;
            RET;
        .L_main:
            S2R R0, SR_TID.X;
            LOP.AND R0, R0, 0x3;
            PBK .L_exit;
        .L_loop:
            CAL .L_step;
            IADD32I R2, R2, 0x10;
            BRA .L_loop;
        .L_exit:
            ISETP.LT.U32.AND P1, PT, R0, 0x2, PT;
            SSY .L_join;
            CAL .L_sync;
            IADD32I R3, R3, 0x100;
            SYNC;
        .L_join:
            IADD R3, R3, R2;
        ",
    ];
    for text in programs {
        let p = Arc::new(
            parse_program(&format!("{text}{store}"), &AsmOptions::default()).expect("assembles"),
        );
        let u = uniformity(&p);
        let lv = liveness(&p);
        let launch = Launch::new(p.clone(), ConstBanks::new());
        fn go<'a>(
            launch: &Launch,
            mode: &'a (dyn Fn() -> Mode<'a> + Sync),
        ) -> (Result<Stats, Fault>, Vec<u8>) {
            let mut m = Machine::default();
            m.global.map(OUT, 0x180, Init::Zero).expect("maps");
            let r = Checking { mode }.run(&m, launch, &RunOptions::default());
            (r, m.global.read_bytes(OUT, 0x180).expect("reads"))
        }
        let plain = go(&launch, &|| Mode::Plain);
        assert!(plain.0.is_ok(), "{:?}\n{}", plain.0, show(&p));
        assert_eq!(
            plain,
            go(&launch, &|| Mode::Uniform(&u, &lv)),
            "checking changed the run"
        );
        for seed in 0..4u8 {
            let perturbed = go(&launch, &|| {
                Mode::Perturb(
                    &lv,
                    Box::new(TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32])),
                )
            });
            assert!(
                plain == perturbed,
                "dead values changed the run\n{}",
                show(&p)
            );
        }
    }
}
