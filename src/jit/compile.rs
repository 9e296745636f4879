//! Compiling one piece of a block: a Cranelift JIT module and context per tier, with the
//! runtime helpers registered, and the CLIF dump (`WARPJIT_DUMP_CLIF`).

use super::cache::{Piece, ProgCode};
use super::tier::Tier;
use super::{abi, codegen, fp, lanes, view, warp, JitError};
use cranelift_codegen::ir::{types, AbiParam, UserFuncName};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Linkage, Module};
use std::collections::HashMap;

/// One tier's compiler: its JIT module (which owns the code), a reused Cranelift context, and
/// its counters.
pub(super) struct Inner {
    /// The module; its code is freed when the `Inner` is dropped (see the `Drop` impl).
    pub(super) module: std::mem::ManuallyDrop<JITModule>,
    pub(super) ctx: Context,
    pub(super) fctx: FunctionBuilderContext,
    pub(super) exec_inst: FuncId,
    pub(super) mem_slow: FuncId,
    pub(super) lanes: FuncId,
    pub(super) ld_buf: FuncId,
    pub(super) st_buf: FuncId,
    pub(super) ld_tex: FuncId,
    pub(super) st_tex: FuncId,
    pub(super) view_atom: FuncId,
    pub(super) info: FuncId,
    pub(super) un_fn: FuncId,
    pub(super) bin_fn: FuncId,
    pub(super) tern_fn: FuncId,
    /// The conversion and binary64 routine (`jit::fp`).
    pub(super) fp_fn: FuncId,
    pub(super) lane_op: FuncId,
    pub(super) atom: FuncId,
    pub(super) shfl: FuncId,
    pub(super) next_name: u32,
    pub(super) dump: Option<std::path::PathBuf>,
    pub(super) tier: Tier,
    pub(super) compiled: u64,
    pub(super) compile_nanos: u64,
    pub(super) longest_nanos: u64,
    pub(super) errors: Vec<String>,
}

// SAFETY: `JITModule` holds `RefCell`s and raw code pointers but no thread-bound state; it is
// only ever used under the `Mutex` below.
unsafe impl Send for Inner {}

impl Drop for Inner {
    /// Frees the module's code and data (Cranelift keeps them for ever otherwise: a program
    /// that made a `Jit` per launch, or the fuzzer, which makes one per 256 inputs, grew by
    /// the code of every function it ever compiled).
    fn drop(&mut self) {
        // SAFETY: compiled code is only reachable through the addresses in the `ProgCode`
        // caches of the `Jit` that owns this module (tier 1) or shares it with its tier-2
        // thread (tier 2). An `Inner` drops when its `Jit` has gone (and, for tier 2, the
        // thread has ended): no engine run can be in progress (runs borrow the `Jit`), and no
        // address is called again. The module is not used after this.
        unsafe { std::mem::ManuallyDrop::take(&mut self.module).free_memory() };
    }
}

impl Inner {
    /// A JIT module and context for one tier, with the runtime helpers registered.
    pub(super) fn new(tier: Tier) -> Result<Inner, JitError> {
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
        // The runtime helpers compiled code calls, by the names `declare_function` imports.
        let helpers: [(&str, *const u8); 16] = [
            (
                "warpjit_jit_exec_inst",
                abi::warpjit_jit_exec_inst as *const u8,
            ),
            (
                "warpjit_jit_mem_slow",
                abi::warpjit_jit_mem_slow as *const u8,
            ),
            ("warpjit_jit_ld_buf", view::warpjit_jit_ld_buf as *const u8),
            ("warpjit_jit_st_buf", view::warpjit_jit_st_buf as *const u8),
            ("warpjit_jit_ld_tex", view::warpjit_jit_ld_tex as *const u8),
            ("warpjit_jit_st_tex", view::warpjit_jit_st_tex as *const u8),
            (
                "warpjit_jit_view_atom",
                view::warpjit_jit_view_atom as *const u8,
            ),
            ("warpjit_jit_info", view::warpjit_jit_info as *const u8),
            ("warpjit_jit_lanes", lanes::warpjit_jit_lanes as *const u8),
            ("warpjit_jit_un", view::warpjit_jit_un as *const u8),
            ("warpjit_jit_bin", view::warpjit_jit_bin as *const u8),
            ("warpjit_jit_fp", fp::warpjit_jit_fp as *const u8),
            (
                "warpjit_jit_lane_op",
                view::warpjit_jit_lane_op as *const u8,
            ),
            ("warpjit_jit_tern", view::warpjit_jit_tern as *const u8),
            ("warpjit_jit_atom", warp::warpjit_jit_atom as *const u8),
            ("warpjit_jit_shfl", warp::warpjit_jit_shfl as *const u8),
        ];
        for (name, f) in helpers {
            builder.symbol(name, f);
        }
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
        // (jcx, w, exec, slot, offset, access): the lane routine (`jit::lanes`).
        let mut lanes_sig = module.make_signature();
        lanes_sig.params.push(AbiParam::new(ptr));
        lanes_sig.params.push(AbiParam::new(ptr));
        lanes_sig.params.extend([AbiParam::new(types::I32); 4]);
        lanes_sig.returns.push(AbiParam::new(types::I32));
        let lanes = module
            .declare_function("warpjit_jit_lanes", Linkage::Import, &lanes_sig)
            .map_err(|e| host(&e))?;
        // (jcx, op, mask, area): the buffer-view routines (`jit::view`).
        let mut view_sig = module.make_signature();
        view_sig.params.extend([
            AbiParam::new(ptr),
            AbiParam::new(ptr),
            AbiParam::new(types::I32),
            AbiParam::new(ptr),
        ]);
        let ld_buf = module
            .declare_function("warpjit_jit_ld_buf", Linkage::Import, &view_sig)
            .map_err(|e| host(&e))?;
        let st_buf = module
            .declare_function("warpjit_jit_st_buf", Linkage::Import, &view_sig)
            .map_err(|e| host(&e))?;
        let ld_tex = module
            .declare_function("warpjit_jit_ld_tex", Linkage::Import, &view_sig)
            .map_err(|e| host(&e))?;
        let declare = |module: &mut JITModule, name: &str| {
            module
                .declare_function(name, Linkage::Import, &view_sig)
                .map_err(|e| host(&e))
        };
        let un_fn = declare(&mut module, "warpjit_jit_un")?;
        let bin_fn = declare(&mut module, "warpjit_jit_bin")?;
        let tern_fn = declare(&mut module, "warpjit_jit_tern")?;
        let fp_fn = declare(&mut module, "warpjit_jit_fp")?;
        let lane_op = declare(&mut module, "warpjit_jit_lane_op")?;
        let shfl = declare(&mut module, "warpjit_jit_shfl")?;
        let st_tex = declare(&mut module, "warpjit_jit_st_tex")?;
        let view_atom = declare(&mut module, "warpjit_jit_view_atom")?;
        let info = declare(&mut module, "warpjit_jit_info")?;
        // (jcx, inst, mask, area) -> fault: the atomics' routine (`jit::warp`).
        let mut atom_sig = view_sig.clone();
        atom_sig.returns.push(AbiParam::new(types::I32));
        let atom = module
            .declare_function("warpjit_jit_atom", Linkage::Import, &atom_sig)
            .map_err(|e| host(&e))?;
        Ok(Inner {
            ctx: module.make_context(),
            module: std::mem::ManuallyDrop::new(module),
            fctx: FunctionBuilderContext::new(),
            exec_inst,
            mem_slow,
            lanes,
            ld_buf,
            st_buf,
            ld_tex,
            st_tex,
            view_atom,
            info,
            un_fn,
            bin_fn,
            tern_fn,
            fp_fn,
            lane_op,
            atom,
            shfl,
            next_name: 0,
            dump: dump_dir()?,
            tier,
            compiled: 0,
            compile_nanos: 0,
            longest_nanos: 0,
            errors: Vec::new(),
        })
    }

    /// Compiles one piece of a block: its instructions, then what is live after its last one
    /// (the block's live-out for its last piece) stored back.
    pub(super) fn compile_piece(
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
            let lanes = self.module.declare_func_in_func(self.lanes, fb.func);
            let ld_buf = self.module.declare_func_in_func(self.ld_buf, fb.func);
            let st_buf = self.module.declare_func_in_func(self.st_buf, fb.func);
            let ld_tex = self.module.declare_func_in_func(self.ld_tex, fb.func);
            let st_tex = self.module.declare_func_in_func(self.st_tex, fb.func);
            let view_atom = self.module.declare_func_in_func(self.view_atom, fb.func);
            let info = self.module.declare_func_in_func(self.info, fb.func);
            let un_fn = self.module.declare_func_in_func(self.un_fn, fb.func);
            let bin_fn = self.module.declare_func_in_func(self.bin_fn, fb.func);
            let tern_fn = self.module.declare_func_in_func(self.tern_fn, fb.func);
            let fp_fn = self.module.declare_func_in_func(self.fp_fn, fb.func);
            let lane_op = self.module.declare_func_in_func(self.lane_op, fb.func);
            let atom = self.module.declare_func_in_func(self.atom, fb.func);
            let shfl = self.module.declare_func_in_func(self.shfl, fb.func);
            let env = codegen::Env {
                exec_inst,
                mem_slow,
                lanes,
                ld_buf,
                st_buf,
                ld_tex,
                st_tex,
                view_atom,
                info,
                un_fn,
                bin_fn,
                tern_fn,
                fp_fn,
                lane_op,
                atom,
                shfl,
                ptr,
                more: insts.end != block.insts.len(),
                live_out,
                wide_whole_warp: self.tier == Tier::Two,
                repeat: if insts == (0..block.insts.len()) {
                    codegen::Repeat::of(block, id)
                } else {
                    None
                },
            };
            let mut tx = codegen::Tx::new(&mut fb, env, full);
            let u = &code.uniform;
            for (k, (inst, after)) in block.insts[insts.clone()]
                .iter()
                .zip(&live_after[insts.clone()])
                .enumerate()
            {
                // What is uniform both before and after the instruction (nothing, in a block
                // the analysis finds unreachable: its answers there are vacuous).
                let k = insts.start + k;
                let mut both = match k {
                    _ if !u.is_reachable(id) => crate::analysis::uniformity::UniformSet::EMPTY,
                    0 => u.uniform_in(id),
                    k => u.uniform_after(id, k - 1),
                };
                both.intersect_with(&u.uniform_after(id, k));
                tx.inst(inst, after, &both);
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
            let guest = &block.insts[insts.clone()];
            let comments: Vec<_> = comments
                .iter()
                .map(|&(i, k)| (i, format!("{:#06x}: {:?}", guest[k].pc, guest[k].op)))
                .collect();
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
/// The directory `WARPJIT_DUMP_CLIF` names, created if missing and checked writable: a
/// directory that cannot take the dumps is an error when the JIT starts, not a silent loss.
fn dump_dir() -> Result<Option<std::path::PathBuf>, JitError> {
    let Some(dir) = std::env::var_os("WARPJIT_DUMP_CLIF").map(std::path::PathBuf::from) else {
        return Ok(None);
    };
    let fail = |e: std::io::Error| JitError::Dump {
        dir: dir.display().to_string(),
        msg: e.to_string(),
    };
    std::fs::create_dir_all(&dir).map_err(fail)?;
    let probe = dir.join(format!(".warpjit-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(fail)?;
    let _ = std::fs::remove_file(&probe);
    Ok(Some(dir))
}

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
