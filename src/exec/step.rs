//! Running one warp an instruction or a block at a time, with its registers, predicates,
//! condition code and active mask readable and writable between steps: a debugger's view of a
//! launch.
//!
//! A [`WarpStepper`] sets one warp of one CTA up exactly as a launch does and runs it with the
//! body runner of the engine it is handed ([`Engine::body_runner`]) and the dispatcher's
//! handling of terminators and the reconvergence stack: stepping a warp to its end leaves the
//! same state and memory as running it. [`WarpStepper::step`] runs one instruction (through
//! [`BodyRunner::run_part`]: every engine runs a part of a block with the reference
//! definitions); [`WarpStepper::step_block`] runs the rest of a block, and from a block's start
//! the whole block as the engine runs it (the JIT's compiled code, once the block is hot).
//! [`WarpStepper::observe`] attaches an [`Observer`], which then sees the warp's instructions,
//! memory accesses, blocks and `--check` findings as in a launch. The core names no engine: the
//! caller chooses.
//!
//! ```
//! use std::sync::Arc;
//! use warpjit::exec::step::{Step, StepperError, WarpStepper};
//! use warpjit::exec::{Launch, Machine};
//! use warpjit::interp::Interpreter;
//! use warpjit::sass::{parse_program, AsmOptions};
//! use warpjit::ConstBanks;
//!
//! let prog = parse_program("S2R R0, SR_TID.X;\nIADD32I R1, R0, 0x10;\nEXIT;\n", &AsmOptions::default())
//!     .expect("the program assembles");
//! let machine = Machine::default();
//! let launch = Launch::new(Arc::new(prog), ConstBanks::new());
//! let mut s = WarpStepper::new(&machine, &launch, [0, 0, 0], 0, &Interpreter)
//!     .expect("warp 0 of CTA 0");
//! assert_eq!(s.next_pc(), Some(0x8));
//! s.step().expect("S2R");
//! assert_eq!(s.reg(5, 0), 5); // lane 5's R0 is its thread id
//! s.set_reg(5, 0, 100);       // change it before the add
//! s.step().expect("IADD32I");
//! assert_eq!(s.reg(5, 1), 0x74);
//! assert_eq!(s.step().expect("EXIT"), Step::Ran);
//! assert_eq!(s.step().expect("the end"), Step::Exited);
//!
//! // A warp the launch does not have is a typed error.
//! let e = WarpStepper::new(&machine, &launch, [0, 0, 0], 1, &Interpreter).err();
//! assert_eq!(e, Some(StepperError::WarpOutsideCta { warp: 1, warps: 1 }));
//! ```

use super::grid::init_warp;
use super::warp::{resume, terminate, BodyRunner, Stop, WarpCtl};
use super::{CtaEnv, Engine, Launch, Machine, Observer, Stats, WarpAt};
use crate::ir::{Block, Reg};
use warpjit_runtime::warp::{CF, OF, SF, ZF};
use warpjit_runtime::{Fault, FaultKind, WarpState, LANES};

/// Why a [`WarpStepper`] could not be made: the caller asked for a warp the launch does not
/// have (a user error, never a warpjit bug).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepperError {
    /// The CTA is outside the launch's grid.
    CtaOutsideGrid {
        /// The CTA asked for.
        cta: [u32; 3],
        /// The launch's grid.
        grid: [u32; 3],
    },
    /// The warp is outside the CTA (a CTA of `block` threads has `ceil(threads / 32)` warps).
    WarpOutsideCta {
        /// The warp asked for.
        warp: u32,
        /// The CTA's warps.
        warps: u64,
    },
}

impl std::fmt::Display for StepperError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StepperError::CtaOutsideGrid { cta, grid } => write!(
                f,
                "CTA ({}, {}, {}) is outside the grid ({}, {}, {})",
                cta[0], cta[1], cta[2], grid[0], grid[1], grid[2]
            ),
            StepperError::WarpOutsideCta { warp, warps } => {
                write!(f, "warp {warp} is outside the CTA's {warps} warps")
            }
        }
    }
}

impl std::error::Error for StepperError {}

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
    launch: &'m Launch,
    shared: Vec<u8>,
    /// The CTA's local memory (only this warp's threads' part is ever touched).
    local: Vec<u8>,
    w: Box<WarpState>,
    engine: &'m dyn Engine,
    runner: Box<dyn BodyRunner + 'm>,
    observer: Option<&'m dyn Observer>,
    ctl: WarpCtl,
    at: WarpAt,
    next: usize,
    exited: bool,
    stats: Stats,
}

impl<'m> WarpStepper<'m> {
    /// Warp `warp` of the CTA at `cta` of `launch` on `machine`, set up as the launch starts it
    /// (every register 0, its shared memory zeroed), to run with `engine`'s body runner.
    pub fn new(
        machine: &'m Machine,
        launch: &'m Launch,
        cta: [u32; 3],
        warp: u32,
        engine: &'m dyn Engine,
    ) -> Result<WarpStepper<'m>, StepperError> {
        if (0..3).any(|i| cta[i] >= launch.grid[i]) {
            return Err(StepperError::CtaOutsideGrid {
                cta,
                grid: launch.grid,
            });
        }
        if warp as u64 >= launch.warps_per_cta() {
            return Err(StepperError::WarpOutsideCta {
                warp,
                warps: launch.warps_per_cta(),
            });
        }
        let mut w = WarpState::new_boxed(0);
        let mut ctl = WarpCtl::default();
        init_warp(&mut w, &mut ctl, launch, cta, warp, &[]);
        Ok(WarpStepper {
            machine,
            launch,
            shared: vec![0; launch.shared_bytes as usize],
            local: vec![0; launch.cta_local_bytes() as usize],
            w,
            engine,
            runner: engine.body_runner(machine, launch, false),
            observer: None,
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

    /// Attaches `observer` for the steps from now on: it sees the warp's blocks entered and
    /// left, its instructions and memory accesses where it wants them
    /// ([`Observer::wants_inst`], [`Observer::wants_mem`]) and `--check` findings
    /// ([`Observer::checks`]), as in a launch; there are no launch or CTA events. The engine
    /// runs its observed form (the JIT runs every block through the reference definitions while
    /// an observer is attached, as in a launch).
    pub fn observe(&mut self, observer: &'m dyn Observer) {
        self.observer = Some(observer);
        self.runner = self.engine.body_runner(self.machine, self.launch, true);
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
        if !self.enter() {
            return Ok(Step::Exited);
        }
        let prog = self.launch.program.clone();
        let block = &prog.blocks[self.ctl.block as usize];
        if self.next < block.insts.len() {
            self.issue(1, block)?;
            let part = self.next..self.next + 1;
            self.exec(&prog, |r, id, w, env| r.run_part(id, block, part, w, env))?;
            self.next += 1;
            return Ok(Step::Ran);
        }
        self.finish(&prog)
    }

    /// Runs the rest of the current block, its terminator included; stops early at a barrier.
    /// From the start of a block whose instructions the budget holds, the engine runs them all
    /// as in a launch ([`BodyRunner::run_body`]: the JIT's compiled code once the block is hot);
    /// otherwise an instruction at a time.
    pub fn step_block(&mut self) -> Result<Step, Fault> {
        if !self.enter() {
            return Ok(Step::Exited);
        }
        let prog = self.launch.program.clone();
        let id = self.ctl.block;
        let block = &prog.blocks[id as usize];
        let n = block.insts.len();
        if self.next == 0 && n > 0 && self.ctl.issued + n as u64 <= self.launch.budget {
            self.issue(n as u64, block)?;
            self.exec(&prog, |r, id, w, env| r.run_body(id, block, w, env))?;
            self.next = n;
        }
        loop {
            let s = self.step()?;
            if s != Step::Ran || self.next == 0 || self.ctl.block != id {
                return Ok(s);
            }
        }
    }

    /// Readies the next step: false once every lane has exited. After an empty active mask,
    /// resumes the reconvergence stack's next entry; reports entering a block.
    fn enter(&mut self) -> bool {
        if self.exited {
            return false;
        }
        if self.w.active == 0 {
            if !resume(&mut self.w, &mut self.ctl) {
                self.exited = true;
                return false;
            }
            self.next = 0;
        }
        if self.next == 0 {
            if let Some(o) = self.observer {
                let b = &self.launch.program.blocks[self.ctl.block as usize];
                o.block_enter(self.at, self.ctl.block, b.pc, self.w.active);
            }
        }
        true
    }

    /// Counts `n` instructions of `block` from the next one as issued, with the clock set for
    /// the first; the budget fault at the first that does not fit (nothing runs then).
    fn issue(&mut self, n: u64, block: &Block) -> Result<(), Fault> {
        if self.ctl.issued + n > self.launch.budget {
            // The first instruction past the budget.
            let k = self.launch.budget.saturating_sub(self.ctl.issued) as usize;
            let pc = block
                .insts
                .get(self.next + k)
                .map(|i| i.pc)
                .or(block.term.pc())
                .unwrap_or(block.pc);
            let kind = FaultKind::BudgetExhausted {
                budget: self.launch.budget,
                ctas: None,
            };
            let lane = self.w.active.trailing_zeros() % 32;
            let f = Fault::new(kind, lane).at_pc(pc);
            return Err(f.in_warp(self.at.launch, self.at.cta, self.at.warp));
        }
        // The clock of the first instruction: the instructions issued before it.
        self.w.clock = self.ctl.issued;
        self.ctl.issued += n;
        self.stats.warp_insts += n;
        self.stats.lane_insts += n * self.w.active.count_ones() as u64;
        Ok(())
    }

    /// The CTA environment of a step: this warp's memory, the launch's banks, the observer.
    fn with_env<T>(
        &mut self,
        f: impl FnOnce(&mut dyn BodyRunner, &mut WarpState, &mut WarpCtl, &mut CtaEnv<'_>) -> T,
    ) -> T {
        let o = self.observer;
        let index = self.launch.index;
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
            observer: o,
            check: o.is_some_and(|o| o.checks()),
            observe_mem: o.is_some_and(|o| o.wants_mem(index)),
            observe_inst: o.is_some_and(|o| o.wants_inst(index)),
            at: self.at,
            pc: 0,
            findings: Vec::new(),
            host: &self.machine.host_output,
            misaligned: 0,
        };
        let r = f(&mut *self.runner, &mut self.w, &mut self.ctl, &mut env);
        self.stats.misaligned += env.misaligned;
        r
    }

    /// Runs instructions of the current block with the engine's runner (`go`); a fault as the
    /// launch reports it.
    fn exec(
        &mut self,
        prog: &crate::ir::Program,
        go: impl FnOnce(&mut dyn BodyRunner, u32, &mut WarpState, &mut CtaEnv<'_>) -> Result<(), Fault>,
    ) -> Result<(), Fault> {
        let (id, at) = (self.ctl.block, self.at);
        let r = self.with_env(|runner, w, _, env| go(runner, id, w, env));
        r.map_err(|f| super::grid::note_reads(prog, &self.w, f).in_warp(at.launch, at.cta, at.warp))
    }

    /// Carries out the current block's terminator (counted when it is written in the program).
    fn finish(&mut self, prog: &crate::ir::Program) -> Result<Step, Fault> {
        let id = self.ctl.block;
        let block = &prog.blocks[id as usize];
        if let Some(pc) = block.term.pc() {
            self.issue(1, block)?;
            if let Some(o) = self.observer.filter(|o| o.wants_inst(self.launch.index)) {
                o.inst(self.at, pc, self.w.active, self.w.active);
            }
        }
        let (obs, at) = (self.observer, self.at);
        let stop = self
            .with_env(|_, w, ctl, env| terminate(prog, block, id, w, ctl, env, obs))
            .map_err(|f| {
                super::grid::note_reads(prog, &self.w, f).in_warp(at.launch, at.cta, at.warp)
            })?;
        self.next = 0;
        if let (Some(o), None) = (obs, &stop) {
            o.block_exit(at, id);
        }
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

    /// Runs until the warp exits (barriers pass, as in [`Step::Barrier`]).
    pub fn run(&mut self) -> Result<Stats, Fault> {
        while self.step_block()? != Step::Exited {}
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
    use crate::sass::{parse_program, AsmOptions};
    use std::sync::Arc;
    use warpjit_runtime::memory::Init;
    use warpjit_runtime::ConstBanks;

    /// A machine with 128 zeroed bytes at 0x1000.
    fn fresh() -> Machine {
        let mut m = Machine::default();
        m.global.map(0x1000, 128, Init::Zero).expect("maps");
        m
    }

    /// The launch of `src` (one warp), run by the interpreter on a [`fresh`] machine: the
    /// launch, the machine afterwards and the run's statistics.
    fn interpreted(src: &str) -> (Launch, Machine, Stats) {
        let prog = Arc::new(parse_program(src, &AsmOptions::default()).expect("assembles"));
        let launch = Launch::new(prog, ConstBanks::new());
        let ran = fresh();
        let stats = crate::interp::Interpreter
            .run(&ran, &launch, &Default::default())
            .expect("runs");
        (launch, ran, stats)
    }

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
        let (launch, ran, stats) = interpreted(src);
        let stepped = fresh();
        let mut s = WarpStepper::new(&stepped, &launch, [0, 0, 0], 0, &crate::interp::Interpreter)
            .expect("the warp");
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

    /// What an observer of a stepped warp saw.
    #[derive(Default)]
    struct Seen {
        insts: std::sync::Mutex<Vec<u32>>,
        stores: std::sync::atomic::AtomicU32,
        blocks: std::sync::atomic::AtomicU32,
    }

    impl Observer for Seen {
        fn inst(&self, _: WarpAt, pc: u32, _: u32, _: u32) {
            self.insts.lock().unwrap().push(pc);
        }
        fn mem(&self, _: WarpAt, a: crate::exec::MemAccess) {
            if a.store {
                self.stores
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
        fn block_enter(&self, _: WarpAt, _: u32, _: u32, _: u32) {
            self.blocks
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// The JIT steps a warp block by block with its compiled code (the block compiled on its
    /// first run: no block interpreted) and leaves what the interpreter's run leaves; with an
    /// observer attached, stepping reports every issued instruction in order, each lane's store
    /// and each block entered.
    #[test]
    fn the_jit_steps_blocks_in_compiled_code_and_an_observer_sees_each_step() {
        let src = "
            S2R R0, SR_TID.X;
            SHL R2, R0, 0x2;
            IADD32I R1, R0, 0x7;
            STG [R2+0x1000], R1;
            EXIT;
        ";
        let (launch, ran, want) = interpreted(src);
        let bytes = |m: &Machine| m.global.read_bytes(0x1000, 128).expect("reads");

        let mut jit = crate::jit::Jit::new().expect("a host the JIT supports");
        jit.threshold = 1;
        let stepped = fresh();
        let mut s = WarpStepper::new(&stepped, &launch, [0, 0, 0], 0, &jit).expect("the warp");
        let got = s.run().expect("runs");
        assert_eq!(
            (got.warp_insts, got.lane_insts),
            (want.warp_insts, want.lane_insts)
        );
        assert_eq!(bytes(&stepped), bytes(&ran));
        let c = jit.take_counters();
        assert_eq!(c.interp_blocks, 0, "the block ran compiled: {c:?}");
        assert_eq!(
            jit.compile_stats().blocks,
            1,
            "the block was compiled to run"
        );

        let seen = Seen::default();
        let observed = fresh();
        let mut s = WarpStepper::new(&observed, &launch, [0, 0, 0], 0, &jit).expect("the warp");
        s.observe(&seen);
        while s.step().expect("steps") != Step::Exited {}
        assert_eq!(bytes(&observed), bytes(&ran));
        assert_eq!(*seen.insts.lock().unwrap(), [0x8, 0x10, 0x18, 0x28, 0x30]);
        assert_eq!(seen.stores.load(std::sync::atomic::Ordering::Relaxed), 32);
        assert_eq!(seen.blocks.load(std::sync::atomic::Ordering::Relaxed), 1);
    }

    #[test]
    fn a_warp_outside_the_launch_is_an_error() {
        let prog = Arc::new(parse_program("EXIT;", &AsmOptions::default()).expect("assembles"));
        let launch = Launch::new(prog, ConstBanks::new());
        let m = Machine::default();
        let e =
            |cta, warp| WarpStepper::new(&m, &launch, cta, warp, &crate::interp::Interpreter).err();
        let grid = [1, 1, 1];
        let cta = [1, 0, 0];
        assert_eq!(e(cta, 0), Some(StepperError::CtaOutsideGrid { cta, grid }));
        assert_eq!(
            e([0, 0, 0], 1),
            Some(StepperError::WarpOutsideCta { warp: 1, warps: 1 })
        );
        assert_eq!(
            e(cta, 0).expect("an error").to_string(),
            "CTA (1, 0, 0) is outside the grid (1, 1, 1)"
        );
    }
}
