//! Running one warp an instruction or a block at a time, with its registers, predicates,
//! condition code and active mask readable and writable between steps: a debugger's view of a
//! launch.
//!
//! A [`WarpStepper`] sets one warp of one CTA up exactly as a launch does
//! ([`super::grid::init_warp`]) and runs it with the definition of an instruction it is handed
//! (an [`InstFn`]: [`crate::reference::exec_inst`], the reference definition both engines run)
//! and the dispatcher's handling of terminators and the reconvergence stack
//! ([`super::warp::terminate`]): stepping a warp to its end leaves the same state and memory as
//! running it. The core names no engine and no definition: the caller chooses.
//!
//! ```
//! use std::sync::Arc;
//! use warpjit::exec::step::{Step, WarpStepper};
//! use warpjit::exec::{Launch, Machine};
//! use warpjit::sass::{parse_program, AsmOptions};
//! use warpjit_runtime::ConstBanks;
//!
//! let prog = parse_program("S2R R0, SR_TID.X;\nIADD32I R1, R0, 0x10;\nEXIT;\n", &AsmOptions::default())
//!     .expect("the program assembles");
//! let machine = Machine::default();
//! let launch = Launch::new(Arc::new(prog), ConstBanks::new());
//! let mut s = WarpStepper::new(&machine, &launch, [0, 0, 0], 0, warpjit::reference::exec_inst)
//!     .expect("warp 0 of CTA 0");
//! assert_eq!(s.next_pc(), Some(0x8));
//! s.step().expect("S2R");
//! assert_eq!(s.reg(5, 0), 5); // lane 5's R0 is its thread id
//! s.set_reg(5, 0, 100);       // change it before the add
//! s.step().expect("IADD32I");
//! assert_eq!(s.reg(5, 1), 0x74);
//! assert_eq!(s.step().expect("EXIT"), Step::Ran);
//! assert_eq!(s.step().expect("the end"), Step::Exited);
//! ```

use super::grid::init_warp;
use super::warp::{exec_mask, resume, terminate, Stop, WarpCtl};
use super::{CtaEnv, Launch, Machine, Stats, WarpAt};
use crate::ir::{Block, Inst, Reg};
use warpjit_runtime::warp::{CF, OF, SF, ZF};
use warpjit_runtime::{Fault, FaultKind, WarpState, LANES};

/// One instruction for the lanes in a mask (the lanes that execute it: active and guard true;
/// non-zero), a fault with its lane and pc: what a [`WarpStepper`] runs for each instruction
/// ([`crate::reference::exec_inst`]).
pub type InstFn = fn(&Inst, &mut WarpState, u32, &mut CtaEnv<'_>) -> Result<(), Fault>;

/// What a step did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// An instruction or a terminator ran; the warp goes on.
    Ran,
    /// The warp reached a barrier (`BAR.SYNC`, `BAR.RED`, `BAR.ARV`, DXBC `sync_*_t`). The
    /// stepper runs this warp alone, so the next step continues past it as if every other warp
    /// had arrived (a `BAR.RED`'s result is over this warp's arriving threads).
    Barrier {
        /// Barrier index.
        id: u8,
        /// Its pc.
        pc: u32,
    },
    /// Every lane has exited: there is nothing left to step.
    Exited,
}

/// One lane's condition code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cc {
    /// Zero.
    pub zf: bool,
    /// Sign.
    pub sf: bool,
    /// Carry.
    pub cf: bool,
    /// Overflow (after LEA: the address is outside the shared window).
    pub of: bool,
}

/// Where a warp is in its program: the next instruction to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// The block.
    pub block: u32,
    /// Index of the next instruction in the block; its instruction count when the terminator
    /// is next.
    pub index: usize,
}

/// One warp of one CTA of a launch, run step by step (see the module docs).
pub struct WarpStepper<'m> {
    machine: &'m Machine,
    launch: Launch,
    shared: Vec<u8>,
    /// The CTA's local memory (only this warp's threads' part is ever touched).
    local: Vec<u8>,
    w: Box<WarpState>,
    exec: InstFn,
    ctl: WarpCtl,
    at: WarpAt,
    next: usize,
    exited: bool,
    stats: Stats,
}

impl<'m> WarpStepper<'m> {
    /// Warp `warp` of the CTA at `cta` of `launch` on `machine`, set up as the launch starts it
    /// (every register 0, its shared memory zeroed), to run each instruction with `exec`. An
    /// error names a CTA outside the grid or a warp outside the CTA.
    pub fn new(
        machine: &'m Machine,
        launch: &Launch,
        cta: [u32; 3],
        warp: u32,
        exec: InstFn,
    ) -> Result<WarpStepper<'m>, String> {
        if (0..3).any(|i| cta[i] >= launch.grid[i]) {
            return Err(format!(
                "CTA ({}, {}, {}) is outside the grid {:?}",
                cta[0], cta[1], cta[2], launch.grid
            ));
        }
        if warp as u64 >= launch.warps_per_cta() {
            return Err(format!(
                "warp {warp} is outside the CTA's {} warps",
                launch.warps_per_cta()
            ));
        }
        let mut w = WarpState::new_boxed(0);
        let mut ctl = WarpCtl::default();
        init_warp(&mut w, &mut ctl, launch, cta, warp, &[]);
        Ok(WarpStepper {
            machine,
            launch: launch.clone(),
            shared: vec![0; launch.shared_bytes as usize],
            local: vec![0; launch.cta_local_bytes() as usize],
            w,
            exec,
            ctl,
            at: WarpAt {
                launch: launch.index,
                cta,
                warp,
            },
            next: 0,
            exited: false,
            stats: Stats {
                warps: 1,
                ..Stats::default()
            },
        })
    }

    fn block(&self) -> &Block {
        &self.launch.program.blocks[self.ctl.block as usize]
    }

    /// Where the warp is: the next instruction (after an empty active mask, the block the
    /// reconvergence stack resumes is known only at the next step). `None` once it has exited.
    pub fn position(&self) -> Option<Position> {
        (!self.exited).then_some(Position {
            block: self.ctl.block,
            index: self.next,
        })
    }

    /// The pc of the next instruction or terminator (a terminator that is not written in the
    /// program, a fall-through, has none).
    pub fn next_pc(&self) -> Option<u32> {
        if self.exited {
            return None;
        }
        let b = self.block();
        match b.insts.get(self.next) {
            Some(i) => Some(i.pc),
            None => b.term.pc(),
        }
    }

    /// Runs the next instruction for the lanes that execute it (active, guard true), or the
    /// block's terminator. A fault comes back as the launch would report it.
    pub fn step(&mut self) -> Result<Step, Fault> {
        if self.exited {
            return Ok(Step::Exited);
        }
        if self.w.active == 0 {
            if !resume(&mut self.w, &mut self.ctl) {
                self.exited = true;
                return Ok(Step::Exited);
            }
            self.next = 0;
        }
        let prog = self.launch.program.clone();
        let block = &prog.blocks[self.ctl.block as usize];
        let counted = self.next < block.insts.len() || block.term.pc().is_some();
        if counted {
            if self.ctl.issued >= self.launch.budget {
                let pc = self.next_pc().unwrap_or(block.pc);
                let kind = FaultKind::BudgetExhausted {
                    budget: self.launch.budget,
                    ctas: None,
                };
                let lane = self.w.active.trailing_zeros() % 32;
                return Err(Fault::new(kind, lane).at_pc(pc).in_warp(
                    self.at.launch,
                    self.at.cta,
                    self.at.warp,
                ));
            }
            self.ctl.issued += 1;
            self.stats.warp_insts += 1;
            self.stats.lane_insts += self.w.active.count_ones() as u64;
        }
        let at = self.at;
        let mut env = CtaEnv {
            mem: &self.machine.global,
            consts: &self.launch.consts,
            nbanks: self.launch.mode.banks(),
            shared: &mut self.shared,
            resources: &self.machine.resources,
            shared_window: self.machine.shared_window,
            local: &mut self.local,
            local_bytes: self.launch.local_bytes,
            local_window: self.machine.local_window,
            hint: 0,
            observer: None,
            check: false,
            observe_mem: false,
            observe_inst: false,
            at,
            pc: 0,
            findings: Vec::new(),
            host: &self.machine.host_output,
            misaligned: 0,
        };
        let in_warp = |f: Fault| f.in_warp(at.launch, at.cta, at.warp);
        if let Some(inst) = block.insts.get(self.next) {
            let mask = exec_mask(&self.w, inst.guard);
            // The clock of this instruction: the instructions issued before it.
            self.w.clock = self.ctl.issued - 1;
            if mask != 0 {
                (self.exec)(inst, &mut self.w, mask, &mut env)
                    .map_err(|f| in_warp(super::grid::note_reads(&prog, &self.w, f)))?;
            }
            self.next += 1;
            return Ok(Step::Ran);
        }
        let id = self.ctl.block;
        let stop = terminate(&prog, block, id, &mut self.w, &mut self.ctl, &mut env, None)
            .map_err(|f| in_warp(super::grid::note_reads(&prog, &self.w, f)))?;
        self.next = 0;
        Ok(match stop {
            Some(Stop::Barrier { id, pc, red, .. }) => {
                // Alone at the barrier: the reduction is over this warp's threads.
                if let Some(r) = red {
                    self.w.bar_result = r.result(r.trues, r.threads);
                }
                Step::Barrier { id, pc }
            }
            // (`terminate` never ends a turn: only the dispatcher does, between blocks.)
            Some(Stop::Exited | Stop::Yield) | None => Step::Ran,
        })
    }

    /// Runs the rest of the current block, its terminator included; stops early at a barrier.
    pub fn step_block(&mut self) -> Result<Step, Fault> {
        let block = self.ctl.block;
        loop {
            let s = self.step()?;
            if s != Step::Ran || self.next == 0 || self.ctl.block != block {
                return Ok(s);
            }
        }
    }

    /// Runs until the warp exits (barriers pass, as in [`Step::Barrier`]).
    pub fn run(&mut self) -> Result<Stats, Fault> {
        while self.step()? != Step::Exited {}
        Ok(self.stats)
    }

    /// The warp's whole state: registers (register-major), predicates, condition code, thread
    /// ids, active and exited masks.
    pub fn warp(&self) -> &WarpState {
        &self.w
    }

    /// The warp's state, to change between steps.
    pub fn warp_mut(&mut self) -> &mut WarpState {
        &mut self.w
    }

    /// Register `r` of lane `lane` (`RZ`, 255, reads 0).
    pub fn reg(&self, lane: usize, r: u8) -> u32 {
        if Reg(r).is_rz() {
            0
        } else {
            self.w.regs[r as usize][lane % LANES]
        }
    }

    /// Sets register `r` of lane `lane` (writes to `RZ` are dropped).
    pub fn set_reg(&mut self, lane: usize, r: u8, value: u32) {
        if !Reg(r).is_rz() {
            self.w.regs[r as usize][lane % LANES] = value;
        }
    }

    /// Predicate `p` (0 to 6; 7 is `PT`) of lane `lane`.
    pub fn pred(&self, lane: usize, p: u8) -> bool {
        self.w.preds[p as usize & 7] >> (lane % LANES) & 1 != 0
    }

    /// Sets predicate `p` (0 to 6) of lane `lane`; `PT` stays true.
    pub fn set_pred(&mut self, lane: usize, p: u8, value: bool) {
        if p < 7 {
            let bit = 1u32 << (lane % LANES);
            let m = &mut self.w.preds[p as usize];
            *m = if value { *m | bit } else { *m & !bit };
        }
    }

    /// The condition code of lane `lane`.
    pub fn cc(&self, lane: usize) -> Cc {
        let flag = |f: usize| self.w.cc[f] >> (lane % LANES) & 1 != 0;
        Cc {
            zf: flag(ZF),
            sf: flag(SF),
            cf: flag(CF),
            of: flag(OF),
        }
    }

    /// The lanes that run the next instruction (before its guard).
    pub fn active(&self) -> u32 {
        self.w.active
    }

    /// Sets the active mask (exited lanes cannot come back: they are left out).
    pub fn set_active(&mut self, mask: u32) {
        self.w.active = mask & !self.w.exited;
    }

    /// The warp's CTA's shared memory.
    pub fn shared(&self) -> &[u8] {
        &self.shared
    }

    /// Warp and lane instructions issued so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::Engine;
    use crate::reference::exec_inst;
    use crate::sass::{parse_program, AsmOptions};
    use std::sync::Arc;
    use warpjit_runtime::memory::Init;
    use warpjit_runtime::ConstBanks;

    /// A divergent loop with a reconvergence point and a store per lane: stepping it to the end
    /// leaves the memory the interpreter's run leaves, with the same instruction counts.
    #[test]
    fn stepping_a_warp_to_its_end_matches_running_it() {
        let src = "
            S2R R0, SR_TID.X;
            MOV R1, RZ;
            SSY `(.L_join);
        .L_loop:
            IADD32I R1, R1, 0x3;
            IADD32I R0, R0, -0x1;
            ISETP.GE.AND P0, PT, R0, RZ, PT;
            @P0 BRA `(.L_loop);
            SYNC;
        .L_join:
            S2R R2, SR_TID.X;
            SHL R2, R2, 0x2;
            STG [R2+0x1000], R1;
            EXIT;
        ";
        let prog = Arc::new(parse_program(src, &AsmOptions::default()).expect("assembles"));
        let fresh = || {
            let mut m = Machine::default();
            m.global.map(0x1000, 128, Init::Zero).expect("maps");
            m
        };
        let launch = Launch::new(prog, ConstBanks::new());
        let ran = fresh();
        let stats = crate::interp::Interpreter
            .run(&ran, &launch, &Default::default())
            .expect("runs");
        let stepped = fresh();
        let mut s = WarpStepper::new(&stepped, &launch, [0, 0, 0], 0, exec_inst).expect("the warp");
        let mut steps = 0;
        while s.step().expect("steps") != Step::Exited {
            steps += 1;
        }
        let st = s.stats();
        assert_eq!(
            (st.warp_insts, st.lane_insts),
            (stats.warp_insts, stats.lane_insts)
        );
        assert_eq!(steps as u64, st.warp_insts, "one issued instruction a step");
        let bytes = |m: &Machine| m.global.read_bytes(0x1000, 128).expect("reads");
        assert_eq!(bytes(&stepped), bytes(&ran));
        // Lane l loops l + 1 times: R1 = 3 (l + 1).
        let word = |l: usize| {
            let b = bytes(&stepped);
            u32::from_le_bytes([b[4 * l], b[4 * l + 1], b[4 * l + 2], b[4 * l + 3]])
        };
        assert_eq!((word(0), word(31)), (3, 96));
    }

    #[test]
    fn a_warp_outside_the_launch_is_an_error() {
        let prog = Arc::new(parse_program("EXIT;", &AsmOptions::default()).expect("assembles"));
        let launch = Launch::new(prog, ConstBanks::new());
        let m = Machine::default();
        assert!(WarpStepper::new(&m, &launch, [1, 0, 0], 0, exec_inst).is_err());
        assert!(WarpStepper::new(&m, &launch, [0, 0, 0], 1, exec_inst).is_err());
    }
}
