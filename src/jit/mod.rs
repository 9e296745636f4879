//! The Cranelift JIT engine.
//!
//! Each IR block of a program is translated, for a whole warp, into one native function
//! ([`codegen`]). Compiled blocks are cached per program and block and run by the engine-neutral
//! dispatcher both engines share ([`crate::exec::warp::run_warp`]): terminators, divergence,
//! barriers and the instruction budget are shared code, so both engines agree by construction
//! there. From the interpreter the JIT uses only its boundary: [`crate::interp::Interp`] for
//! blocks not compiled (yet), and [`crate::interp::exec_inst`] for instructions compiled code
//! delegates.
//!
//! Tiering: a block is interpreted until it has run [`Jit::threshold`] times (default
//! [`DEFAULT_THRESHOLD`]) on any warp, then compiled by tier 1 (Cranelift with its single-pass
//! register allocator: about 3x faster to compile, 25-50% slower code) on the thread that hit the
//! threshold. A block that then runs [`Jit::hot_threshold`] more times on one host thread (default
//! [`DEFAULT_HOT_THRESHOLD`]) is recompiled by tier 2 (the backtracking allocator) on a background
//! thread, off the critical path, and its address swapped in when ready. Both tiers produce the
//! same results.
//!
//! Compile time grows with a block's length and, much more, with its memory instructions (each
//! has an inline fast path and a cold slow path; a 128-bit global load costs about 60 times an
//! add). So that no compile takes long (about 50 ms at tier 1 and 200 ms at tier 2 on a slow
//! host), a block is compiled in pieces of at most [`MAX_PIECE_WEIGHT`] by [`weight`], one
//! function each, run one after the other; the state a later piece needs is stored at a piece's
//! end as at a block's.
//! With an observer attached (`--check` is one), every block is interpreted: events are per lane.
//! Without one, compiled code is exactly as if observers did not exist.
//!
//! One JIT module and one Cranelift context per tier are reused for every function.
//! Runtime helpers are registered with `JITBuilder::symbol`; the warp state and the [`abi::JitCx`]
//! are addressed with `offset_of!`. With `WARPJIT_DUMP_CLIF=DIR` each compiled block's CLIF is
//! written to `DIR`, each guest instruction as a comment above the code it produced.

pub mod abi;
pub mod codegen;
pub mod memory;
pub mod scalar;

use crate::exec::{run_grid, BodyRunner, CtaEnv, Engine, Launch, Machine, RunOptions, Stats};
use crate::interp::Interp;
use crate::ir::{Block, BlockId, Inst, MemSize, Op, Program, Src};
use abi::{BlockFn, JitCx};
use cranelift_codegen::ir::{types, AbiParam, UserFuncName};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Linkage, Module};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use warpjit_runtime::{Fault, FaultKind, WarpState};

/// Executions of a block (by any warp) before it is compiled.
pub const DEFAULT_THRESHOLD: u32 = 2;
/// Executions of a tier-1 block (on one host thread) before tier 2 recompiles it.
pub const DEFAULT_HOT_THRESHOLD: u32 = 64;
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
pub fn weight(inst: &Inst) -> u32 {
    let mem = |size: MemSize| match size {
        MemSize::B128 => 24,
        MemSize::B64 => 16,
        MemSize::B32 => 12,
        _ => 14,
    };
    let reg = |s: &Src| !matches!(s, Src::Imm(_));
    match &inst.op {
        Op::Ldg(o) => mem(o.size),
        Op::Stg(o) => mem(o.size),
        Op::Lds(o) => mem(o.size),
        Op::Sts(o) => mem(o.size),
        Op::Ld(o) => mem(o.size) + 8,
        Op::St(o) => mem(o.size) + 8,
        Op::Ldc(o) if !o.a.is_rz() => 12,
        Op::Bfe(o) if o.brev || reg(&o.b) => 12,
        Op::Bfi(o) if reg(&o.b) => 12,
        Op::P2r(_) => 16,
        Op::Shl(o) if reg(&o.b) => 8,
        Op::Shr(o) if o.brev || reg(&o.b) => 8,
        Op::Lop3(_) | Op::Sel(_) | Op::Imnmx(_) | Op::Xmad(_) => 8,
        Op::Nop(_) | Op::Membar(_) | Op::Depbar(_) => 1,
        _ => 4,
    }
}

/// Splits a block's instructions into pieces of at most [`MAX_PIECE_WEIGHT`] (an instruction
/// heavier than that alone); a block without instructions is one empty piece.
pub fn pieces(insts: &[Inst]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
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

/// A run of a block's instructions compiled as one function.
struct Piece {
    /// The block.
    block: BlockId,
    /// Its instructions in the block.
    insts: Range<usize>,
}

/// Per-program code: one slot per piece of each block.
struct ProgCode {
    /// Keeps the program (and so the `Inst` addresses baked into code) alive.
    prog: Arc<Program>,
    /// What is live out of each block: only that is stored back at a block's end.
    live: crate::analysis::Liveness,
    /// Every block's pieces, block after block.
    pieces: Vec<Piece>,
    /// Per block, its pieces' indices in `pieces`.
    block_pieces: Vec<Range<u32>>,
    /// Compiled function addresses, two per piece: `[2 * p]` for any active mask, `[2 * p + 1]`
    /// for a full warp (0 = not compiled; usize::MAX = will not compile).
    fns: Vec<AtomicUsize>,
    /// Executions of each block so far, for tiering.
    runs: Vec<AtomicU32>,
    /// Per slot: 0 not compiled, 1 tier 1, 2 tier 2 requested (or done).
    tiers: Vec<AtomicU8>,
}

/// A request to the tier-2 compiler thread.
struct Tier2Request {
    code: Arc<ProgCode>,
    piece: u32,
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
    longest_nanos: u64,
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
    /// Set when the Jit is dropped: the tier-2 thread abandons its queue.
    shutdown: Arc<AtomicBool>,
    /// Executions before a block is compiled (tier 1).
    pub threshold: u32,
    /// Executions of a tier-1 block on one host thread before tier 2 recompiles it
    /// (`u32::MAX`: never).
    pub hot_threshold: u32,
}

/// Compile statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompileStats {
    /// Functions (a variant of a block, or of a piece of one) compiled by tier 1 (on the
    /// critical path).
    pub blocks: u64,
    /// Time tier 1 spent compiling, in nanoseconds.
    pub nanos: u64,
    /// Functions recompiled by tier 2 (on the background thread).
    pub tier2_blocks: u64,
    /// Time tier 2 spent compiling, in nanoseconds.
    pub tier2_nanos: u64,
    /// The longest single tier-1 compile (one function), in nanoseconds.
    pub longest_nanos: u64,
    /// The longest single tier-2 compile, in nanoseconds.
    pub tier2_longest_nanos: u64,
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
        let shutdown = Arc::new(AtomicBool::new(false));
        let (t2, stop) = (tier2.clone(), shutdown.clone());
        // Detached: dropping the Jit never waits for it (see `tier2_worker`).
        std::thread::Builder::new()
            .name("warpjit-tier2".into())
            .spawn(move || tier2_worker(&rx, &t2, &stop))
            .map_err(|e| JitError::Host(e.to_string()))?;
        Ok(Jit {
            tier1: Mutex::new(Inner::new(Tier::One)?),
            tier2,
            progs: Mutex::new(HashMap::new()),
            queue: Mutex::new(Some(tx)),
            shutdown,
            threshold: DEFAULT_THRESHOLD,
            hot_threshold: DEFAULT_HOT_THRESHOLD,
        })
    }

    /// Blocks compiled so far and the time it took, per tier.
    pub fn compile_stats(&self) -> CompileStats {
        let get = |m: &Mutex<Inner>| {
            m.lock()
                .map(|i| (i.compiled, i.compile_nanos, i.longest_nanos))
                .unwrap_or_default()
        };
        let (blocks, nanos, longest_nanos) = get(&self.tier1);
        let (tier2_blocks, tier2_nanos, tier2_longest_nanos) = get(&self.tier2);
        CompileStats {
            blocks,
            nanos,
            tier2_blocks,
            tier2_nanos,
            longest_nanos,
            tier2_longest_nanos,
        }
    }

    fn code_for(&self, prog: &Arc<Program>) -> Arc<ProgCode> {
        let key = Arc::as_ptr(prog) as usize;
        let mut progs = self.progs.lock().unwrap_or_else(|e| e.into_inner());
        progs
            .entry(key)
            .or_insert_with(|| {
                let n = prog.blocks.len();
                let mut all = Vec::new();
                let mut block_pieces = Vec::with_capacity(n);
                for (id, b) in prog.blocks.iter().enumerate() {
                    let first = all.len() as u32;
                    all.extend(pieces(&b.insts).into_iter().map(|insts| Piece {
                        block: id as BlockId,
                        insts,
                    }));
                    block_pieces.push(first..all.len() as u32);
                }
                let slots = 2 * all.len();
                Arc::new(ProgCode {
                    prog: prog.clone(),
                    live: crate::analysis::liveness(prog),
                    pieces: all,
                    block_pieces,
                    fns: (0..slots).map(|_| AtomicUsize::new(0)).collect(),
                    runs: (0..n).map(|_| AtomicU32::new(0)).collect(),
                    tiers: (0..slots).map(|_| AtomicU8::new(0)).collect(),
                })
            })
            .clone()
    }

    /// Compiles piece `piece` of `code` (the full-warp variant with `full`) with tier 1 now, if
    /// not already compiled, and returns its address.
    fn compile(&self, code: &ProgCode, piece: u32, full: bool) -> Result<usize, JitError> {
        let mut inner = self.tier1.lock().unwrap_or_else(|e| e.into_inner());
        let i = slot(piece, full);
        match code.fns[i].load(Ordering::Acquire) {
            0 => {}
            usize::MAX => {
                let msg = "an earlier attempt failed".to_string();
                let block = code.pieces[piece as usize].block;
                return Err(JitError::Compile { block, msg });
            }
            addr => return Ok(addr),
        }
        let r = inner.compile_piece(code, piece, full);
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

    /// Asks the tier-2 thread to recompile a piece (once).
    fn promote(&self, code: &Arc<ProgCode>, piece: u32, full: bool) {
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

    /// Compiles every block of a program (every piece of it, see [`pieces`]) with `tier` now,
    /// on this thread (for tests, benchmarks and compile-latency measurement); later runs use
    /// that code. Returns how many functions were compiled.
    pub fn compile_all_tier(&self, prog: &Arc<Program>, tier: Tier) -> Result<usize, JitError> {
        let code = self.code_for(prog);
        let mut n = 0;
        for piece in 0..code.pieces.len() as u32 {
            for full in [false, true] {
                match tier {
                    Tier::One => {
                        self.compile(&code, piece, full)?;
                    }
                    Tier::Two => {
                        let mut inner = self.tier2.lock().unwrap_or_else(|e| e.into_inner());
                        let addr = inner.compile_piece(&code, piece, full)?;
                        code.tiers[slot(piece, full)].store(2, Ordering::Relaxed);
                        code.fns[slot(piece, full)].store(addr, Ordering::Release);
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
        // The tier-2 thread is not joined: it sees the flag (or the closed queue) before its
        // next request and ends, abandoning the rest of the queue. A compile it is in the middle
        // of finishes into its own module, which it owns a share of; no code of ours runs any
        // more (running needs `&self`) and finalized code is never freed.
        self.shutdown.store(true, Ordering::Release);
        if let Ok(mut q) = self.queue.lock() {
            q.take();
        }
    }
}

/// The tier-2 compiler thread: compiles requests in order until the queue closes or `shutdown`
/// is set, checked before each request and again once it holds the tier-2 compiler, so a
/// dropped [`Jit`] abandons its queue instead of waiting for it (at most the one compile in
/// progress, itself bounded by [`MAX_PIECE_WEIGHT`], runs on).
fn tier2_worker(rx: &mpsc::Receiver<Tier2Request>, t2: &Mutex<Inner>, shutdown: &AtomicBool) {
    while let Ok(req) = rx.recv() {
        if shutdown.load(Ordering::Acquire) {
            return;
        }
        let mut inner = t2.lock().unwrap_or_else(|e| e.into_inner());
        if shutdown.load(Ordering::Acquire) {
            return;
        }
        match inner.compile_piece(&req.code, req.piece, req.full) {
            Ok(addr) => req.code.fns[slot(req.piece, req.full)].store(addr, Ordering::Release),
            Err(e) => inner.errors.push(e.to_string()),
        }
    }
}

/// Index of a piece's variant in [`ProgCode::fns`].
fn slot(piece: u32, full: bool) -> usize {
    2 * piece as usize + full as usize
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
            longest_nanos: 0,
            errors: Vec::new(),
        })
    }

    /// Compiles one piece of a block: its instructions, then what is live after its last one
    /// (the block's live-out for its last piece) stored back.
    fn compile_piece(
        &mut self,
        code: &ProgCode,
        piece: u32,
        full: bool,
    ) -> Result<usize, JitError> {
        let Piece { block: id, insts } = &code.pieces[piece as usize];
        let (id, insts) = (*id, insts.clone());
        let prog = &*code.prog;
        let live_after = code.live.live_after_each(prog, id);
        let block = &prog.blocks[id as usize];
        let live_out = match insts.end {
            end if end == block.insts.len() => &code.live.live_out[id as usize],
            end => &live_after[end - 1],
        };
        let t0 = std::time::Instant::now();
        let err = |msg: String| JitError::Compile { block: id, msg };
        let name = format!(
            "block{}_{}{}{}_t{}",
            self.next_name,
            id,
            if insts.start > 0 {
                format!("_at{}", insts.start)
            } else {
                String::new()
            },
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
            for (inst, after) in block.insts[insts.clone()]
                .iter()
                .zip(&live_after[insts.clone()])
            {
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
        let nanos = t0.elapsed().as_nanos() as u64;
        self.compiled += 1;
        self.compile_nanos += nanos;
        self.longest_nanos = self.longest_nanos.max(nanos);
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
            fault: None,
            consts: std::ptr::null(),
            nbanks: 0,
            _pad: 0,
            shared_window: machine.shared_window,
            env: std::ptr::null_mut(),
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
        env: &mut CtaEnv<'_>,
        stats: &mut Stats,
    ) -> Result<(), Fault> {
        // The active mask only changes at terminators: one variant serves the whole block.
        let full = w.active == u32::MAX;
        let pieces = self.code.block_pieces[id as usize].clone();
        // The common case, one piece already compiled at tier 2 (or at tier 1 and not yet hot):
        // straight to the call.
        if pieces.len() == 1 {
            let i = slot(pieces.start, full);
            let f = self.code.fns[i].load(Ordering::Acquire);
            if f != 0 && f != usize::MAX && self.code.tiers[i].load(Ordering::Relaxed) != 1 {
                return self.call(f, w, env, stats);
            }
        }
        let mut runs = None;
        let mut interpreted = false;
        for piece in pieces {
            let i = slot(piece, full);
            let mut f = self.code.fns[i].load(Ordering::Acquire);
            if f == 0 {
                let runs = *runs.get_or_insert_with(|| {
                    self.code.runs[id as usize].fetch_add(1, Ordering::Relaxed) + 1
                });
                if runs >= self.jit.threshold {
                    f = self.jit.compile(&self.code, piece, full).unwrap_or(0);
                }
            } else if self.code.tiers[i].load(Ordering::Relaxed) == 1 {
                // Hot at tier 1 (counted per host thread, no shared counter): ask for tier 2.
                self.hot[i] += 1;
                if self.hot[i] == self.jit.hot_threshold {
                    self.jit.promote(&self.code, piece, full);
                }
            }
            if f == 0 || f == usize::MAX {
                interpreted = true;
                let range = self.code.pieces[piece as usize].insts.clone();
                Interp::run_insts(&block.insts[range], w, env)?;
                continue;
            }
            self.call(f, w, env, stats)?;
        }
        stats.interp_blocks += interpreted as u64;
        Ok(())
    }

    fn run_prefix(
        &mut self,
        _: BlockId,
        block: &Block,
        n: usize,
        w: &mut WarpState,
        env: &mut CtaEnv<'_>,
    ) -> Result<(), Fault> {
        Interp::run_insts(&block.insts[..n], w, env)
    }
}

impl JitRunner<'_> {
    /// Runs compiled function `f` on the warp.
    #[inline]
    fn call(
        &mut self,
        f: usize,
        w: &mut WarpState,
        env: &mut CtaEnv<'_>,
        stats: &mut Stats,
    ) -> Result<(), Fault> {
        // SAFETY: `f` is a finalized function of one of our modules with the `BlockFn`
        // signature; module code is never freed (Cranelift leaks finalized code on drop).
        let func: BlockFn = unsafe { std::mem::transmute::<usize, BlockFn>(f) };
        let jcx = &mut *self.jcx;
        jcx.fault = None;
        jcx.consts = env.consts.as_bytes().as_ptr();
        jcx.nbanks = env.nbanks;
        jcx.env = env as *mut CtaEnv<'_> as *mut std::ffi::c_void;
        jcx.delegated = 0;
        jcx.slow = 0;
        jcx.shared = env.shared.as_mut_ptr();
        jcx.shared_len = env.shared.len() as u64;
        // SAFETY: `w` and `jcx` are live for the call; compiled code only touches the warp
        // state, the constant banks, global memory inside hinted segments and (through helpers)
        // the interpreter context.
        let r = unsafe { func(w, jcx) };
        stats.delegated += jcx.delegated;
        stats.slow_paths += jcx.slow;
        if r != 0 {
            // Compiled code returns 1 only after a helper recorded the fault.
            let kind = FaultKind::BudgetExhausted {
                budget: 0,
                ctas: None,
            };
            return Err(jcx.fault.take().unwrap_or(Fault::new(kind, 0)));
        }
        Ok(())
    }
}

impl Engine for Jit {
    fn name(&self) -> &'static str {
        "jit"
    }

    fn run(&self, machine: &Machine, launch: &Launch, opts: &RunOptions) -> Result<Stats, Fault> {
        if opts.observer.is_some() {
            return run_grid(machine, launch, opts, &|| Box::new(Interp));
        }
        let code = self.code_for(&launch.program);
        run_grid(machine, launch, opts, &|| {
            Box::new(JitRunner::new(self, code.clone(), machine))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn program(text: &str) -> Arc<Program> {
        Arc::new(crate::sass::parse_program(text, &Default::default()).expect("assembles"))
    }

    /// Runs `text` (one CTA of 32 threads) with every block compiled beforehand, and returns the
    /// 256 bytes at 0x10000 (each lane stores at `0x10000 + 8 * lane`).
    fn run_compiled(
        jit: &Jit,
        text: &str,
        consts: warpjit_runtime::ConstBanks,
        mode: warpjit_runtime::BankMode,
        shared_window: u64,
    ) -> Vec<u8> {
        let prog = program(text);
        jit.compile_all(&prog).expect("compiles");
        let mut machine = Machine {
            shared_window,
            ..Machine::default()
        };
        let init = warpjit_runtime::memory::Init::Zero;
        machine.global.map(0x10000, 0x100, init).expect("maps");
        let launch = Launch {
            mode,
            ..Launch::new(prog, consts)
        };
        let opts = RunOptions {
            threads: 1,
            ..RunOptions::default()
        };
        let stats = jit.run(&machine, &launch, &opts).expect("runs");
        assert_eq!((stats.interp_blocks, stats.delegated), (0, 0), "{text}");
        machine.global.read_bytes(0x10000, 0x100).expect("mapped")
    }

    fn word(mem: &[u8], lane: usize) -> u32 {
        u32::from_le_bytes(mem[8 * lane..8 * lane + 4].try_into().unwrap())
    }

    /// The rules the JIT mirrors in generated code (LEA's window predicate, LDC's address modes
    /// and range) agree with their one definition in `crate::semantics` on edge values.
    #[test]
    fn semantics_mirrors() {
        use crate::ir::LdcMode;
        use crate::semantics::{ldc_address, ldc_readable, lea_outside_window};
        use warpjit_runtime::{BankMode, ConstBanks};
        let jit = Jit::new().expect("host supported");
        // LEA: lane l holds (lo, hi) = c[0][8l], c[0][8l + 4]; P0 is LO's window test on lo, P1
        // HI's on {hi, lo}.
        let lea = "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nLDC.64 R4, c[0x0][R1];\n\
                   LEA P0, R6, R4, RZ, 0x0;\nLEA.HI P1, R7, R4, RZ, R5, 0x0;\n\
                   P2R R8, PR, RZ, 0x3;\nSTG [R1+0x10000], R8;\nEXIT;\n";
        let top = u64::MAX - 0xff_ffff;
        for window in [0x0100_0000, 0xff00_0000, 0x1_0000_0000, 0, top] {
            let (wl, wh) = (window as u32, (window >> 32) as u32);
            let los = [
                0,
                wl.wrapping_sub(1),
                wl,
                wl.wrapping_add(0xff_ffff),
                wl.wrapping_add(0x100_0000),
                u32::MAX,
            ];
            let his = [wh, wh.wrapping_sub(1), wh.wrapping_add(1), 0, u32::MAX];
            let lanes: Vec<(u32, u32)> = (0..32).map(|l| (los[l % 6], his[l / 6 % 5])).collect();
            let mut consts = ConstBanks::new();
            for (l, (lo, hi)) in lanes.iter().enumerate() {
                consts.write(0, 8 * l as u32, &lo.to_le_bytes()).unwrap();
                consts
                    .write(0, 8 * l as u32 + 4, &hi.to_le_bytes())
                    .unwrap();
            }
            let mem = run_compiled(&jit, lea, consts, BankMode::Compute, window);
            for (l, &(lo, hi)) in lanes.iter().enumerate() {
                let want = lea_outside_window(window, false, lo, 0) as u32
                    | (lea_outside_window(window, true, hi, lo) as u32) << 1;
                assert_eq!(
                    word(&mem, l),
                    want,
                    "window {window:#x}, lane {l}: {lo:#x} {hi:#x}"
                );
            }
        }
        // LDC: lane l's Ra is c[0][4l]; every other word of banks 1 to 17 is its own address
        // with the bank in the high half.
        let ras: [u32; 32] = [
            0,
            4,
            0xffec,
            0xfff0,
            0xfffc,
            0x1_0000,
            0xffff_fff0,
            0xffff_ffec,
            0xffff_fffc,
            0x0001_0004,
            0x0001_0008,
            0x000b_fff8,
            0x000c_0008,
            0x000f_0000,
            0x0010_0000,
            0x0005_fff0,
            0x0006_0000,
            0x0007_fffc,
            0x0008_0000,
            0x001d_0010,
            0x001e_0000,
            0x7fff_0000,
            0x8000_0004,
            0xfffe_fffc,
            0x0000_8000,
            0x0000_7ffc,
            0x0002_fff8,
            0x0003_0008,
            0x0000_fff8,
            0x0001_fffc,
            0x000d_0000,
            0x0010_fff0,
        ];
        let mut consts = ConstBanks::new();
        for bank in 1..18u32 {
            for addr in (0..0x1_0000u32).step_by(4) {
                consts
                    .write(bank, addr, &(bank << 16 | addr).to_le_bytes())
                    .unwrap();
            }
        }
        for (l, ra) in ras.iter().enumerate() {
            consts.write(0, 4 * l as u32, &ra.to_le_bytes()).unwrap();
        }
        for (mode, mname) in [
            (LdcMode::Ia, "IA"),
            (LdcMode::Il, "IL"),
            (LdcMode::Is, "IS"),
            (LdcMode::Isl, "ISL"),
        ] {
            for imm in [0x10, -0x8] {
                let off = if imm < 0 {
                    format!("-{:#x}", -imm)
                } else {
                    format!("+{imm:#x}")
                };
                let ldc = format!(
                    "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nSHL R9, R0, 0x2;\nLDC R2, c[0x0][R9];\n\
                     LDC.{mname} R3, c[0x2][R2{off}];\nSTG [R1+0x10000], R3;\nEXIT;\n"
                );
                for bmode in [BankMode::Compute, BankMode::Graphics] {
                    let mem = run_compiled(&jit, &ldc, consts.clone(), bmode, 0x0100_0000);
                    for (l, &ra) in ras.iter().enumerate() {
                        let (bank, addr) = ldc_address(mode, 2, imm, ra);
                        let want =
                            if ldc_readable(bank, addr, 4, bmode.banks(), mode == LdcMode::Isl) {
                                consts.word(bank, addr as u32)
                            } else {
                                0
                            };
                        assert_eq!(
                            word(&mem, l),
                            want,
                            "LDC.{mname} imm {imm}, {bmode:?}, lane {l}: Ra {ra:#x}"
                        );
                    }
                }
            }
        }
    }

    /// Compiled global loads address memory as `crate::semantics::effective` says (32-bit
    /// wrap-around, `.E` pairs with a borrow across 4 GiB, misaligned addresses aligned down), on
    /// both their fast path (every lane in the hinted segment) and their slow path.
    #[test]
    fn effective_address_mirror() {
        use crate::semantics::effective;
        use warpjit_runtime::memory::Init;
        use warpjit_runtime::{ConstBanks, LANES};
        let jit = Jit::new().expect("host supported");
        // Lane l's Ra pair is c[0][8l], c[0][8l + 4]; each thread stores both loads at
        // 0x10000 + 8 * tid.
        let text = |e: &str| {
            format!(
                "S2R R0, SR_LANEID;\nS2R R8, SR_TID.X;\nSHL R1, R0, 0x3;\nLDC.64 R4, c[0x0][R1];\n\
                 LDG{e} R6, [R4+0x10];\nLDG{e} R7, [R4-0x10];\nSHL R9, R8, 0x3;\n\
                 STG [R9+0x10000], R6;\nSTG [R9+0x10004], R7;\nEXIT;\n"
            )
        };
        // A segment across 4 GiB and one at 0 (32-bit addresses wrap into it).
        let fill = |base: u64, len: u64| -> Vec<u8> {
            (base..base + len)
                .step_by(4)
                .flat_map(|a| {
                    ((a as u32).wrapping_mul(0x9e37_79b1) ^ (a >> 32) as u32).to_le_bytes()
                })
                .collect()
        };
        let wide: Vec<(u32, u32)> = [0xffff_ff10, 0xffff_fff0, 0xffff_fff3, 0xffff_fffc]
            .iter()
            .map(|&lo| (lo, 0))
            .chain([0, 4, 8, 0xb, 0xe0].iter().map(|&lo| (lo, 1)))
            .collect();
        let narrow: Vec<(u32, u32)> = [0xffff_fff0, 0xffff_fff3, 0xffff_fffc, 0x10, 0x13, 0x80]
            .iter()
            .map(|&lo| (lo, 0))
            .collect();
        for (e, table, all_fast) in [(".E", &wide, true), ("", &narrow, false)] {
            let prog = program(&text(e));
            jit.compile_all(&prog).expect("compiles");
            let mut machine = Machine::default();
            let (hi_base, lo_base) = (0xffff_ff00u64, 0u64);
            machine
                .global
                .map(hi_base, 0x200, Init::Bytes(&fill(hi_base, 0x200)))
                .unwrap();
            machine
                .global
                .map(lo_base, 0x100, Init::Bytes(&fill(lo_base, 0x100)))
                .unwrap();
            machine.global.map(0x10000, 0x800, Init::Zero).unwrap();
            let mut consts = ConstBanks::new();
            let mut w = WarpState::new_boxed(u32::MAX);
            for l in 0..LANES {
                let (lo, hi) = table[l % table.len()];
                consts.write(0, 8 * l as u32, &lo.to_le_bytes()).unwrap();
                consts
                    .write(0, 8 * l as u32 + 4, &hi.to_le_bytes())
                    .unwrap();
                (w.regs[4][l], w.regs[5][l]) = (lo, hi);
            }
            let launch = Launch {
                block: [256, 1, 1],
                ..Launch::new(prog, consts)
            };
            let opts = RunOptions {
                threads: 1,
                ..RunOptions::default()
            };
            let stats = jit.run(&machine, &launch, &opts).expect("runs");
            assert_eq!((stats.interp_blocks, stats.delegated), (0, 0));
            if all_fast {
                // Only the first warp misses each instruction's hint; seven take the fast path.
                assert!(stats.slow_paths <= 4, "{stats:?}");
            }
            let out = machine.global.read_bytes(0x10000, 0x800).unwrap();
            for tid in 0..256 {
                let l = tid % LANES;
                for (k, off) in [0x10i32, -0x10].into_iter().enumerate() {
                    let addr = crate::ir::Addr {
                        base: Some(crate::ir::Reg(4)),
                        offset: off,
                    };
                    let ea = effective(&w, addr, e == ".E", l) & !3;
                    let want = machine.global.read_bytes(ea, 4).unwrap();
                    let at = 8 * tid + 4 * k;
                    assert_eq!(
                        &out[at..at + 4],
                        &want[..],
                        "LDG{e} lane {l} offset {off}: {ea:#x}"
                    );
                }
            }
        }
    }

    /// The compile weight of instances of every op of the table (each branch of an op whose
    /// weight depends on its operands), pinned to the values measured when it was chosen.
    #[test]
    fn weight_of_every_op_is_pinned() {
        let cases: &[(&str, u32)] = &[
            ("MOV R1, R2;", 4),
            ("MOV32I R1, 0x5;", 4),
            ("S2R R1, SR_TID.X;", 4),
            ("IADD R1, R2, R3;", 4),
            ("IADD32I R1, R2, 0x5;", 4),
            ("IADD3 R1, R2, R3, R4;", 4),
            ("ISCADD R1, R2, R3, 0x2;", 4),
            ("XMAD R1, R2, R3, R4;", 8),
            ("SHL R1, R2, 0x3;", 4),
            ("SHL R1, R2, R3;", 8),
            ("SHR R1, R2, 0x3;", 4),
            ("SHR R1, R2, R3;", 8),
            ("SHR.BREV R1, R2, 0x3;", 8),
            ("LOP.AND R1, R2, R3;", 4),
            ("LOP32I.AND R1, R2, 0xff;", 4),
            ("LOP3.LUT R1, R2, R3, R4, 0x96;", 8),
            ("BFE.U32 R1, R2, 0x804;", 4),
            ("BFE.U32 R1, R2, R3;", 12),
            ("BFE.U32.BREV R1, R2, 0x804;", 12),
            ("BFI R1, R2, 0x804, R3;", 4),
            ("BFI R1, R2, R3, R4;", 12),
            ("SEL R1, R2, R3, P0;", 8),
            ("ISETP.NE.AND P0, PT, R1, R2, PT;", 4),
            ("PSETP.AND.AND P0, PT, P1, P2, PT;", 4),
            ("P2R R1, PR, RZ, 0x7f;", 16),
            ("IMNMX R1, R2, R3, PT;", 8),
            ("PRMT R1, R2, 0x3210, R3;", 4),
            ("LEA R1, R2, R3, 0x4;", 4),
            ("LDC R1, c[0x2][0x10];", 4),
            ("LDC R1, c[0x2][R2+0x10];", 12),
            ("LDG.E.U8 R1, [R2];", 14),
            ("LDG.E.S8 R1, [R2];", 14),
            ("LDG.E.U16 R1, [R2];", 14),
            ("LDG.E.S16 R1, [R2];", 14),
            ("LDG.E R1, [R2];", 12),
            ("LDG.E.64 R4, [R2];", 16),
            ("LDG.E.128 R4, [R2];", 24),
            ("STG.E.U8 [R2], R1;", 14),
            ("STG.E [R2], R1;", 12),
            ("STG.E.64 [R2], R4;", 16),
            ("STG.E.128 [R2], R4;", 24),
            ("LD.E.U16 R1, [R2];", 22),
            ("LD.E R1, [R2];", 20),
            ("LD.E.64 R4, [R2];", 24),
            ("LD.E.128 R4, [R2];", 32),
            ("ST.E.S8 [R2], R1;", 22),
            ("ST.E [R2], R1;", 20),
            ("ST.E.64 [R2], R4;", 24),
            ("ST.E.128 [R2], R4;", 32),
            ("LDS.U16 R1, [R2];", 14),
            ("LDS R1, [R2];", 12),
            ("LDS.64 R4, [R2];", 16),
            ("LDS.128 R4, [R2];", 24),
            ("STS.U8 [R2], R1;", 14),
            ("STS [R2], R1;", 12),
            ("STS.64 [R2], R4;", 16),
            ("STS.128 [R2], R4;", 24),
            ("MEMBAR.CTA;", 1),
            ("NOP;", 1),
            ("DEPBAR.LE SB0, 0x0;", 1),
        ];
        let text: String = cases.iter().map(|(t, _)| format!("{t}\n")).collect();
        let prog = program(&format!("{text}EXIT;\n"));
        let insts = &prog.blocks[0].insts;
        assert_eq!(insts.len(), cases.len());
        let mut seen = std::collections::HashSet::new();
        for ((t, want), inst) in cases.iter().zip(insts) {
            assert_eq!(weight(inst), *want, "{t}");
            seen.insert(std::mem::discriminant(&inst.op));
        }
        macro_rules! count_ops {
            ($($v:ident($s:ident),)*) => { [$(stringify!($v)),*].len() };
        }
        assert_eq!(
            seen.len(),
            crate::for_each_op!(count_ops),
            "an op has no case"
        );
    }

    /// A block of 120 128-bit loads (weight 2880) becomes 6 pieces, none heavier than
    /// `MAX_PIECE_WEIGHT`, covering the block in order; each is compiled as its own function.
    #[test]
    fn long_blocks_are_compiled_in_pieces_of_bounded_weight() {
        let prog = program(&format!("{}EXIT;\n", "LDG.E.128 R4, [R2];\n".repeat(120)));
        let insts = &prog.blocks[0].insts;
        let p = pieces(insts);
        assert_eq!(p.len(), 6, "{p:?}");
        let mut next = 0;
        for r in &p {
            assert_eq!(r.start, next);
            assert!(!r.is_empty());
            let w: u32 = insts[r.clone()].iter().map(weight).sum();
            assert!(w <= MAX_PIECE_WEIGHT, "{r:?} weighs {w}");
            next = r.end;
        }
        assert_eq!(next, insts.len());
        // Plain ALU instructions weigh 4: 128 of them fit one piece, 129 do not.
        let alu = |n: usize| program(&format!("{}EXIT;\n", "IADD R4, R4, R5;\n".repeat(n)));
        assert_eq!(pieces(&alu(128).blocks[0].insts), vec![0..128]);
        assert_eq!(pieces(&alu(129).blocks[0].insts), vec![0..128, 128..129]);
        assert_eq!(pieces(&[]), vec![0..0]);

        let jit = Jit::new().expect("host supported");
        let fns = jit.compile_all(&prog).expect("compiles");
        let blocks = prog.blocks.len();
        assert_eq!(fns, 2 * (p.len() + blocks - 1), "two variants per piece");
        assert!(jit.errors().is_empty(), "{:?}", jit.errors());
    }

    /// Dropping a Jit neither waits for the tier-2 thread nor lets it work through its queue:
    /// with the tier-2 compiler held busy and requests queued, the drop returns, and once
    /// released the thread compiles none of them.
    #[test]
    fn dropping_the_jit_abandons_the_tier2_queue() {
        let prog = program("IADD R4, R4, R5;\nISETP.NE.AND P0, PT, R4, RZ, PT;\n@P0 EXIT;\nIADD R4, R4, R5;\nEXIT;\n");
        let jit = Jit::new().expect("host supported");
        jit.compile_all(&prog).expect("tier 1");
        let code = jit.code_for(&prog);
        let t2 = jit.tier2.clone();
        let busy = t2.lock().unwrap_or_else(|e| e.into_inner());
        let queued = code.pieces.len() as u32;
        for piece in 0..queued {
            for full in [false, true] {
                jit.promote(&code, piece, full);
            }
        }
        assert!(queued >= 2);
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            drop(jit);
            let _ = tx.send(());
        });
        // A hang guard, not a measurement: the drop either returns at once or never (it would
        // wait for a thread that waits for `busy`).
        let dropped = rx.recv_timeout(Duration::from_secs(30)).is_ok();
        drop(busy);
        assert!(dropped, "dropping the Jit waited for the tier-2 thread");
        // The thread ends (dropping its share of the tier-2 compiler) without compiling.
        for _ in 0..3000 {
            if Arc::strong_count(&t2) == 1 {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(Arc::strong_count(&t2), 1, "the tier-2 thread did not end");
        let compiled = t2.lock().map(|i| i.compiled).unwrap_or(u64::MAX);
        assert_eq!(compiled, 0, "the tier-2 thread compiled abandoned requests");
    }

    /// A shut-down worker returns before its next compile, leaving its queue.
    #[test]
    fn a_shut_down_worker_leaves_its_queue() {
        let prog = program("IADD R4, R4, R5;\nEXIT;\n");
        let jit = Jit::new().expect("host supported");
        let code = jit.code_for(&prog);
        let (tx, rx) = mpsc::channel();
        for full in [false, true] {
            let (code, piece) = (code.clone(), 0);
            tx.send(Tier2Request { code, piece, full }).expect("queued");
        }
        let inner = Mutex::new(Inner::new(Tier::Two).expect("host supported"));
        tier2_worker(&rx, &inner, &AtomicBool::new(true));
        assert_eq!(inner.lock().map(|i| i.compiled).ok(), Some(0));
        // It took one request and left the other; without the flag it compiles that one.
        drop(tx);
        tier2_worker(&rx, &inner, &AtomicBool::new(false));
        assert_eq!(inner.lock().map(|i| i.compiled).ok(), Some(1));
    }
}
