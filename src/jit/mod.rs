//! The Cranelift JIT engine.
//!
//! Each IR block of a program is translated, for a whole warp, into one native function
//! ([`codegen`]). Compiled blocks are cached per program and block and run by the same dispatcher
//! as the interpreter ([`crate::interp::warp::run_warp`]): terminators, divergence, barriers and
//! the instruction budget are shared code, so both engines agree by construction there.
//!
//! Tiering: a block is interpreted until it has run [`Jit::threshold`] times (default
//! [`DEFAULT_THRESHOLD`]) on any warp, then compiled by tier 1 (Cranelift with its single-pass
//! register allocator: about 3x faster to compile, 25-50% slower code) on the thread that hit the
//! threshold. A block that then runs [`Jit::hot_threshold`] more times on one host thread (default
//! [`DEFAULT_HOT_THRESHOLD`]) is recompiled by tier 2 (the backtracking allocator) on a background
//! thread, off the critical path, and its address swapped in when ready. Both tiers produce the
//! same results. Blocks longer than [`MAX_BLOCK_INSTS`] instructions stay interpreted (counted in
//! `--stats` as interpreted blocks).
//! With `--check`, every block is interpreted (diagnostics need the per-lane interpreter).
//!
//! One JIT module and one Cranelift context per tier are reused for every function.
//! Runtime helpers are registered with `JITBuilder::symbol`; the warp state and the [`abi::JitCx`]
//! are addressed with `offset_of!`. With `WARPJIT_DUMP_CLIF=DIR` each compiled block's CLIF is
//! written to `DIR`, each guest instruction as a comment above the code it produced.

pub mod abi;
pub mod codegen;
pub mod memory;
pub mod scalar;

use crate::exec::{Engine, Launch, Machine, RunOptions, Stats};
use crate::interp::cta::run_grid;
use crate::interp::ops::Cx;
use crate::interp::warp::{run_body, BodyRunner, Interp, WarpFault};
use crate::ir::{Block, BlockId, Program};
use abi::{BlockFn, JitCx};
use cranelift_codegen::ir::{types, AbiParam, UserFuncName};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Linkage, Module};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU8, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use warpjit_runtime::helpers::FaultSlot;
use warpjit_runtime::{Fault, FaultKind, WarpState};

/// Executions of a block (by any warp) before it is compiled.
pub const DEFAULT_THRESHOLD: u32 = 2;
/// Executions of a tier-1 block (on one host thread) before tier 2 recompiles it.
pub const DEFAULT_HOT_THRESHOLD: u32 = 64;
/// Longest block compiled (longer ones are interpreted).
pub const MAX_BLOCK_INSTS: usize = 512;

/// Why the JIT could not be set up or could not compile. A bug or an unsupported host, never a
/// user error.
#[derive(Debug, thiserror::Error)]
pub enum JitError {
    /// Cranelift does not support this host.
    #[error("this host is not supported by Cranelift: {0}")]
    Host(String),
    /// Cranelift rejected a function (a warpjit bug).
    #[error("compiling block {block} failed: {msg}")]
    Compile {
        /// The block.
        block: u32,
        /// Cranelift's message.
        msg: String,
    },
}

/// Per-program code: one slot per block.
struct ProgCode {
    /// Keeps the program (and so the `Inst` addresses baked into code) alive.
    prog: Arc<Program>,
    /// What is live out of each block: only that is stored back at a block's end.
    live: crate::analysis::Liveness,
    /// Compiled function addresses, two per block: `[2 * id]` for any active mask, `[2 * id + 1]`
    /// for a full warp (0 = not compiled; usize::MAX = will not compile).
    fns: Vec<AtomicUsize>,
    /// Executions so far, for tiering.
    runs: Vec<AtomicU32>,
    /// Per slot: 0 not compiled, 1 tier 1, 2 tier 2 requested (or done).
    tiers: Vec<AtomicU8>,
}

/// A request to the tier-2 compiler thread.
struct Tier2Request {
    code: Arc<ProgCode>,
    id: BlockId,
    full: bool,
}

struct Inner {
    module: JITModule,
    ctx: Context,
    fctx: FunctionBuilderContext,
    exec_inst: FuncId,
    mem_slow: FuncId,
    next_name: u32,
    dump: Option<std::path::PathBuf>,
    tier: Tier,
    compiled: u64,
    compile_nanos: u64,
    errors: Vec<String>,
}

// SAFETY: `JITModule` holds `RefCell`s and raw code pointers but no thread-bound state; it is
// only ever used under the `Mutex` below.
unsafe impl Send for Inner {}

/// The JIT engine (`--engine jit`).
pub struct Jit {
    tier1: Mutex<Inner>,
    tier2: Arc<Mutex<Inner>>,
    progs: Mutex<HashMap<usize, Arc<ProgCode>>>,
    queue: Mutex<Option<mpsc::Sender<Tier2Request>>>,
    worker: Option<std::thread::JoinHandle<()>>,
    /// Executions before a block is compiled (tier 1).
    pub threshold: u32,
    /// Executions of a tier-1 block on one host thread before tier 2 recompiles it
    /// (`u32::MAX`: never).
    pub hot_threshold: u32,
}

/// Compile statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompileStats {
    /// Blocks compiled by tier 1 (on the critical path).
    pub blocks: u64,
    /// Time tier 1 spent compiling, in nanoseconds.
    pub nanos: u64,
    /// Blocks recompiled by tier 2 (on the background thread).
    pub tier2_blocks: u64,
    /// Time tier 2 spent compiling, in nanoseconds.
    pub tier2_nanos: u64,
}

/// Which compiler tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// Fast compile (single-pass register allocation).
    One,
    /// Better code (backtracking register allocation).
    Two,
}

impl Jit {
    /// Sets up Cranelift for the host: a module per tier and the tier-2 compiler thread.
    pub fn new() -> Result<Jit, JitError> {
        let tier2 = Arc::new(Mutex::new(Inner::new(Tier::Two)?));
        let (tx, rx) = mpsc::channel::<Tier2Request>();
        let t2 = tier2.clone();
        let worker = std::thread::Builder::new()
            .name("warpjit-tier2".into())
            .spawn(move || {
                for req in rx {
                    let mut inner = t2.lock().unwrap_or_else(|e| e.into_inner());
                    match inner.compile_block(&req.code.prog, &req.code.live, req.id, req.full) {
                        Ok(addr) => {
                            req.code.fns[slot(req.id, req.full)].store(addr, Ordering::Release)
                        }
                        Err(e) => inner.errors.push(e.to_string()),
                    }
                }
            })
            .map_err(|e| JitError::Host(e.to_string()))?;
        Ok(Jit {
            tier1: Mutex::new(Inner::new(Tier::One)?),
            tier2,
            progs: Mutex::new(HashMap::new()),
            queue: Mutex::new(Some(tx)),
            worker: Some(worker),
            threshold: DEFAULT_THRESHOLD,
            hot_threshold: DEFAULT_HOT_THRESHOLD,
        })
    }

    /// Blocks compiled so far and the time it took, per tier.
    pub fn compile_stats(&self) -> CompileStats {
        let get = |m: &Mutex<Inner>| {
            m.lock()
                .map(|i| (i.compiled, i.compile_nanos))
                .unwrap_or_default()
        };
        let (blocks, nanos) = get(&self.tier1);
        let (tier2_blocks, tier2_nanos) = get(&self.tier2);
        CompileStats {
            blocks,
            nanos,
            tier2_blocks,
            tier2_nanos,
        }
    }

    fn code_for(&self, prog: &Arc<Program>) -> Arc<ProgCode> {
        let key = Arc::as_ptr(prog) as usize;
        let mut progs = self.progs.lock().unwrap_or_else(|e| e.into_inner());
        progs
            .entry(key)
            .or_insert_with(|| {
                let n = prog.blocks.len();
                Arc::new(ProgCode {
                    prog: prog.clone(),
                    live: crate::analysis::liveness(prog),
                    fns: (0..2 * n).map(|_| AtomicUsize::new(0)).collect(),
                    runs: (0..n).map(|_| AtomicU32::new(0)).collect(),
                    tiers: (0..2 * n).map(|_| AtomicU8::new(0)).collect(),
                })
            })
            .clone()
    }

    /// Compiles block `id` of `code` (the full-warp variant with `full`) with tier 1 now, if
    /// not already compiled, and returns its address.
    fn compile(&self, code: &ProgCode, id: BlockId, full: bool) -> Result<usize, JitError> {
        let mut inner = self.tier1.lock().unwrap_or_else(|e| e.into_inner());
        let i = slot(id, full);
        match code.fns[i].load(Ordering::Acquire) {
            0 => {}
            usize::MAX => {
                let msg = "an earlier attempt failed".to_string();
                return Err(JitError::Compile { block: id, msg });
            }
            addr => return Ok(addr),
        }
        let r = inner.compile_block(&code.prog, &code.live, id, full);
        match &r {
            Ok(addr) => {
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

    /// Asks the tier-2 thread to recompile a block (once).
    fn promote(&self, code: &Arc<ProgCode>, id: BlockId, full: bool) {
        let i = slot(id, full);
        if code.tiers[i]
            .compare_exchange(1, 2, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            if let Ok(q) = self.queue.lock() {
                if let Some(q) = q.as_ref() {
                    let _ = q.send(Tier2Request {
                        code: code.clone(),
                        id,
                        full,
                    });
                }
            }
        }
    }

    /// Compile errors so far (each a warpjit bug; the blocks concerned stay interpreted, or at
    /// tier 1).
    pub fn errors(&self) -> Vec<String> {
        let mut v = self
            .tier1
            .lock()
            .map(|i| i.errors.clone())
            .unwrap_or_default();
        v.extend(
            self.tier2
                .lock()
                .map(|i| i.errors.clone())
                .unwrap_or_default(),
        );
        v
    }

    /// Compiles every block of a program with tier 1 now (see [`Jit::compile_all_tier`]).
    pub fn compile_all(&self, prog: &Arc<Program>) -> Result<usize, JitError> {
        self.compile_all_tier(prog, Tier::One)
    }

    /// Compiles every block of a program with `tier` now, on this thread (for tests,
    /// benchmarks and compile-latency measurement); later runs use that code. Returns how many
    /// functions were compiled.
    pub fn compile_all_tier(&self, prog: &Arc<Program>, tier: Tier) -> Result<usize, JitError> {
        let code = self.code_for(prog);
        let mut n = 0;
        for id in 0..prog.blocks.len() as u32 {
            if prog.blocks[id as usize].insts.len() > MAX_BLOCK_INSTS {
                continue;
            }
            for full in [false, true] {
                match tier {
                    Tier::One => {
                        self.compile(&code, id, full)?;
                    }
                    Tier::Two => {
                        let mut inner = self.tier2.lock().unwrap_or_else(|e| e.into_inner());
                        let addr = inner.compile_block(&code.prog, &code.live, id, full)?;
                        code.tiers[slot(id, full)].store(2, Ordering::Relaxed);
                        code.fns[slot(id, full)].store(addr, Ordering::Release);
                    }
                }
                n += 1;
            }
        }
        Ok(n)
    }
}

impl Drop for Jit {
    fn drop(&mut self) {
        // Closing the queue ends the tier-2 thread once it has finished its current request.
        if let Ok(mut q) = self.queue.lock() {
            q.take();
        }
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

/// Index of a block's variant in [`ProgCode::fns`].
fn slot(id: BlockId, full: bool) -> usize {
    2 * id as usize + full as usize
}

impl Inner {
    /// A JIT module and context for one tier, with the runtime helpers registered.
    fn new(tier: Tier) -> Result<Inner, JitError> {
        let mut flags = settings::builder();
        let host = |e: &dyn std::fmt::Display| JitError::Host(e.to_string());
        let regalloc = match tier {
            Tier::One => "single_pass",
            Tier::Two => "backtracking",
        };
        let verify = if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        };
        for (k, v) in [
            ("use_colocated_libcalls", "false"),
            ("is_pic", "false"),
            ("opt_level", "none"),
            ("regalloc_algorithm", regalloc),
            ("enable_verifier", verify),
        ] {
            flags.set(k, v).map_err(|e| host(&e))?;
        }
        let isa = cranelift_native::builder()
            .map_err(|e| host(&e))?
            .finish(settings::Flags::new(flags))
            .map_err(|e| host(&e))?;
        let mut builder = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
        builder.symbol(
            "warpjit_jit_exec_inst",
            abi::warpjit_jit_exec_inst as *const u8,
        );
        builder.symbol(
            "warpjit_jit_mem_slow",
            abi::warpjit_jit_mem_slow as *const u8,
        );
        let mut module = JITModule::new(builder);
        let ptr = module.target_config().pointer_type();
        let mut sig = module.make_signature();
        sig.params.extend([
            AbiParam::new(ptr),
            AbiParam::new(ptr),
            AbiParam::new(ptr),
            AbiParam::new(types::I32),
        ]);
        sig.returns.push(AbiParam::new(types::I32));
        let exec_inst = module
            .declare_function("warpjit_jit_exec_inst", Linkage::Import, &sig)
            .map_err(|e| host(&e))?;
        sig.params.push(AbiParam::new(types::I32));
        let mem_slow = module
            .declare_function("warpjit_jit_mem_slow", Linkage::Import, &sig)
            .map_err(|e| host(&e))?;
        Ok(Inner {
            ctx: module.make_context(),
            module,
            fctx: FunctionBuilderContext::new(),
            exec_inst,
            mem_slow,
            next_name: 0,
            dump: std::env::var_os("WARPJIT_DUMP_CLIF").map(std::path::PathBuf::from),
            tier,
            compiled: 0,
            compile_nanos: 0,
            errors: Vec::new(),
        })
    }

    fn compile_block(
        &mut self,
        prog: &Program,
        live: &crate::analysis::Liveness,
        id: BlockId,
        full: bool,
    ) -> Result<usize, JitError> {
        let live_out = &live.live_out[id as usize];
        let live_after = live.live_after_each(prog, id);
        let block = &prog.blocks[id as usize];
        if block.insts.len() > MAX_BLOCK_INSTS {
            return Err(JitError::Compile {
                block: id,
                msg: "block too long".into(),
            });
        }
        let t0 = std::time::Instant::now();
        let err = |msg: String| JitError::Compile { block: id, msg };
        let name = format!(
            "block{}_{}{}_t{}",
            self.next_name,
            id,
            if full { "_full" } else { "" },
            if self.tier == Tier::One { 1 } else { 2 }
        );
        self.next_name += 1;
        self.module.clear_context(&mut self.ctx);
        let ptr = self.module.target_config().pointer_type();
        let comments;
        {
            let mut fb = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
            let exec_inst = self.module.declare_func_in_func(self.exec_inst, fb.func);
            let mem_slow = self.module.declare_func_in_func(self.mem_slow, fb.func);
            let env = codegen::Env {
                exec_inst,
                mem_slow,
                ptr,
                live_out,
            };
            let mut tx = codegen::Tx::new(&mut fb, env, full);
            for (inst, after) in block.insts.iter().zip(&live_after) {
                tx.inst(inst, after);
            }
            comments = std::mem::take(&mut tx.comments);
            tx.finish();
            fb.finalize(self.module.target_config());
        }
        let fid = self
            .module
            .declare_function(&name, Linkage::Local, &self.ctx.func.signature)
            .map_err(|e| err(e.to_string()))?;
        self.ctx.func.name = UserFuncName::user(0, fid.as_u32());
        if let Some(dir) = &self.dump {
            let text = dump_clif(&self.ctx.func, &comments);
            let _ = std::fs::create_dir_all(dir);
            let _ = std::fs::write(dir.join(format!("{name}.clif")), text);
        }
        self.module
            .define_function(fid, &mut self.ctx)
            .map_err(|e| err(format!("{e:?}")))?;
        self.module
            .finalize_definitions()
            .map_err(|e| err(e.to_string()))?;
        let addr = self.module.get_finalized_function(fid) as usize;
        self.compiled += 1;
        self.compile_nanos += t0.elapsed().as_nanos() as u64;
        Ok(addr)
    }
}

/// CLIF text with each guest instruction as a comment above the code it produced.
fn dump_clif(
    func: &cranelift_codegen::ir::Function,
    comments: &[(cranelift_codegen::ir::Inst, String)],
) -> String {
    use cranelift_codegen::write::{decorate_function, FuncWriter, PlainWriter};
    struct W<'c>(HashMap<cranelift_codegen::ir::Inst, &'c str>);
    impl FuncWriter for W<'_> {
        fn write_instruction(
            &mut self,
            w: &mut dyn std::fmt::Write,
            func: &cranelift_codegen::ir::Function,
            aliases: &cranelift_codegen::entity::SecondaryMap<
                cranelift_codegen::ir::Value,
                Vec<cranelift_codegen::ir::Value>,
            >,
            inst: cranelift_codegen::ir::Inst,
            indent: usize,
        ) -> std::fmt::Result {
            if let Some(c) = self.0.get(&inst) {
                writeln!(w, "{:indent$}; {c}", "")?;
            }
            PlainWriter.write_instruction(w, func, aliases, inst, indent)
        }
        fn write_block_header(
            &mut self,
            w: &mut dyn std::fmt::Write,
            func: &cranelift_codegen::ir::Function,
            block: cranelift_codegen::ir::Block,
            indent: usize,
        ) -> std::fmt::Result {
            PlainWriter.write_block_header(w, func, block, indent)
        }
    }
    let mut s = String::new();
    let map = comments.iter().map(|(i, c)| (*i, c.as_str())).collect();
    let _ = decorate_function(&mut W(map), &mut s, func);
    s
}

/// The JIT's body runner for one host thread.
struct JitRunner<'j> {
    jit: &'j Jit,
    code: Arc<ProgCode>,
    /// Kept across block calls so segment hints persist.
    jcx: Box<JitCx>,
    /// Tier-1 executions per block variant on this thread.
    hot: Vec<u32>,
}

impl<'j> JitRunner<'j> {
    fn new(jit: &'j Jit, code: Arc<ProgCode>, machine: &Machine) -> Self {
        let jcx = Box::new(JitCx {
            fault: FaultSlot::default(),
            consts: std::ptr::null(),
            nbanks: 0,
            _pad: 0,
            shared_window: machine.shared_window,
            cx: std::ptr::null_mut(),
            delegated: 0,
            mem: &machine.global,
            hints: [abi::SegHint::EMPTY; abi::HINTS],
            sink: [0; 2],
            zero: [0; 2],
            slow: 0,
            shared: std::ptr::null_mut(),
            shared_len: 0,
        });
        let hot = vec![0; code.fns.len()];
        JitRunner {
            jit,
            code,
            jcx,
            hot,
        }
    }
}

impl BodyRunner for JitRunner<'_> {
    fn run_body(
        &mut self,
        id: BlockId,
        block: &Block,
        w: &mut WarpState,
        cx: &mut Cx<'_>,
        stats: &mut Stats,
        diag: &mut dyn FnMut(u32, u32, String),
    ) -> Result<(), WarpFault> {
        let full = w.active == u32::MAX;
        let i = slot(id, full);
        let mut f = self.code.fns[i].load(Ordering::Acquire);
        if f == 0 {
            let runs = self.code.runs[id as usize].fetch_add(1, Ordering::Relaxed) + 1;
            if runs >= self.jit.threshold && block.insts.len() <= MAX_BLOCK_INSTS {
                f = self.jit.compile(&self.code, id, full).unwrap_or(0);
            }
        } else if self.code.tiers[i].load(Ordering::Relaxed) == 1 {
            // Hot at tier 1 (counted per host thread, no shared counter): ask for tier 2.
            self.hot[i] += 1;
            if self.hot[i] == self.jit.hot_threshold {
                self.jit.promote(&self.code, id, full);
            }
        }
        if f == 0 || f == usize::MAX {
            stats.interp_blocks += 1;
            return run_body(block, w, cx, diag);
        }
        // SAFETY: `f` is a finalized function of our module with the `BlockFn` signature; the
        // module lives as long as `self.jit`.
        let func: BlockFn = unsafe { std::mem::transmute::<usize, BlockFn>(f) };
        let jcx = &mut *self.jcx;
        jcx.fault = FaultSlot::default();
        jcx.consts = cx.consts.as_bytes().as_ptr();
        jcx.nbanks = cx.nbanks;
        jcx.cx = cx as *mut Cx<'_> as *mut std::ffi::c_void;
        jcx.delegated = 0;
        jcx.slow = 0;
        jcx.shared = cx.shared.as_mut_ptr();
        jcx.shared_len = cx.shared.len() as u64;
        // SAFETY: `w` and `jcx` are live for the call; compiled code only touches the warp
        // state, the constant banks, global memory inside hinted segments and (through helpers)
        // the interpreter context.
        let r = unsafe { func(w, jcx) };
        stats.delegated += jcx.delegated;
        stats.slow_paths += jcx.slow;
        if r != 0 {
            let kind = jcx
                .fault
                .kind()
                .unwrap_or(FaultKind::BudgetExhausted {
                    budget: 0,
                    ctas: None,
                });
            return Err(WarpFault {
                kind,
                lane: jcx.fault.lane,
                pc: jcx.fault.pc,
            });
        }
        Ok(())
    }
}

impl Engine for Jit {
    fn name(&self) -> &'static str {
        "jit"
    }

    fn run(&self, machine: &Machine, launch: &Launch, opts: &RunOptions) -> Result<Stats, Fault> {
        if opts.check {
            return run_grid(machine, launch, opts, &|| Box::new(Interp));
        }
        let code = self.code_for(&launch.program);
        run_grid(machine, launch, opts, &|| {
            Box::new(JitRunner::new(self, code.clone(), machine))
        })
    }
}
