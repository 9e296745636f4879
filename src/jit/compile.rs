//! Compiling one piece of a block: a Cranelift JIT module and context per tier, with the
//! runtime helpers registered, and the CLIF dump (`WARPJIT_DUMP_CLIF`).

use super::cache::{Piece, ProgCode};
use super::helper::{Declared, Helper};
use super::{codegen, JitError};
use cranelift_codegen::ir::UserFuncName;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module};
use std::collections::HashMap;

/// Which compiler tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// Fast compile (single-pass register allocation).
    One,
    /// Better code (backtracking register allocation).
    Two,
}

/// One tier's compiler: its JIT module (which owns the code), a reused Cranelift context, and
/// its counters.
pub(super) struct Inner {
    /// The module; its code is freed when the `Inner` is dropped (see the `Drop` impl).
    pub(super) module: std::mem::ManuallyDrop<JITModule>,
    pub(super) ctx: Context,
    pub(super) fctx: FunctionBuilderContext,
    /// The runtime helpers as declared in the module, indexed by [`Helper`]: a function
    /// imports those it calls.
    pub(super) helpers: Vec<Declared>,
    pub(super) next_name: u32,
    pub(super) dump: Option<std::path::PathBuf>,
    pub(super) tier: Tier,
    /// Functions compiled while launches run (when their blocks got hot), and their time.
    pub(super) counts: Counts,
    /// Functions compiled ahead of the launches that run them ([`super::Jit::compile_ahead`]).
    pub(super) ahead: Counts,
    pub(super) errors: Vec<String>,
    /// Functions not compiled because their program reached [`super::Jit::max_functions`].
    pub(super) limited: u64,
    /// Instructions of the functions compiled whose op's `Lower` impl declined them.
    pub(super) declined: u64,
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
        // The runtime helpers compiled code calls, by the names their declarations import.
        for &h in Helper::ALL {
            builder.symbol(h.symbol(), h.address());
        }
        let mut module = JITModule::new(builder);
        let ptr = module.target_config().pointer_type();
        let helpers = Helper::ALL
            .iter()
            .map(|&h| {
                let sig = h.shape().signature(module.make_signature(), ptr);
                let id = module
                    .declare_function(h.symbol(), Linkage::Import, &sig)
                    .map_err(|e| host(&e))?;
                Ok(Declared {
                    index: id.as_u32(),
                    sig,
                })
            })
            .collect::<Result<Vec<_>, JitError>>()?;
        Ok(Inner {
            ctx: module.make_context(),
            module: std::mem::ManuallyDrop::new(module),
            fctx: FunctionBuilderContext::new(),
            helpers,
            next_name: 0,
            dump: dump_dir()?,
            tier,
            counts: Counts::default(),
            ahead: Counts::default(),
            errors: Vec::new(),
            limited: 0,
            declined: 0,
        })
    }

    /// Compiles one piece of a block: its instructions, then what is live after its last one
    /// (the block's live-out for its last piece) stored back. Its time is counted in
    /// [`Inner::ahead`] with `ahead`, else in [`Inner::counts`].
    pub(super) fn compile_piece(
        &mut self,
        code: &ProgCode,
        piece: u32,
        full: bool,
        ahead: bool,
    ) -> Result<usize, JitError> {
        let Piece { block: id, insts } = &code.pieces[piece as usize];
        let (id, insts) = (*id, insts.clone());
        let prog = &*code.prog;
        let block = &prog.blocks[id as usize];
        // A whole block on a cycle of blocks compiled code can continue through is compiled
        // with that cycle (`region`): the function runs on through its blocks.
        let plan = match insts == (0..block.insts.len()) {
            true => code.plan(id),
            false => None,
        };
        let members = plan.as_ref().map(|p| &p.members);
        let blocks: Vec<_> = match members {
            Some(m) => m.iter().map(|m| m.id).collect(),
            None => vec![id],
        };
        let live_after: Vec<_> = blocks
            .iter()
            .map(|&b| code.live().live_after_each(prog, b))
            .collect();
        let live_out = match insts.end {
            end if end == block.insts.len() => &code.live().live_out[id as usize],
            end => &live_after[0][end - 1],
        };
        let t0 = std::time::Instant::now();
        let err = |msg: String| JitError::Compile { block: id, msg };
        let name = format!(
            "block{}_{}{}{}{}_t{}",
            self.next_name,
            id,
            if insts.start > 0 {
                format!("_at{}", insts.start)
            } else {
                String::new()
            },
            match members {
                Some(m) => format!("_region{}", m.len()),
                None => String::new(),
            },
            if full { "_full" } else { "" },
            if self.tier == Tier::One { 1 } else { 2 }
        );
        self.next_name += 1;
        self.module.clear_context(&mut self.ctx);
        let ptr = self.module.target_config().pointer_type();
        let comments;
        let declined;
        {
            let mut fb = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
            // Tier 2 lowers whole rows into SSA values with the whole-warp memory paths; so
            // does tier 1 for a region (a loop, whose code runs until tier 2's is ready, many
            // iterations a call: about 3x faster there than strip loops for about 1.8x their
            // compile time), with its single-pass register allocator. Tier 1's other blocks
            // use strip loops ([`codegen::Tx::strip_run`]), for compile latency.
            let rich = self.tier == Tier::Two || members.is_some();
            let env = codegen::Env {
                helpers: &self.helpers,
                ptr,
                more: insts.end != block.insts.len(),
                live_out,
                whole_warp: rich,
            };
            let strip = !rich;
            let mut tx = codegen::Tx::new(&mut fb, env, full);
            match members {
                None => translate(&mut tx, code, id, insts.clone(), &live_after[0], strip),
                Some(members) => {
                    let chained = plan.as_ref().map_or(Vec::new(), |p| p.chained());
                    let carried = carried_regs(code, members, &chained, full);
                    let at: Vec<_> = members
                        .iter()
                        .zip(&chained)
                        .zip(&carried)
                        .map(|((m, from), carried)| {
                            let blk = &prog.blocks[m.id as usize];
                            let at = tx.b.create_block();
                            for c in carried {
                                for _ in 0..if c.uniform { 1 } else { 8 } {
                                    tx.b.append_block_param(
                                        at,
                                        cranelift_codegen::ir::types::I32X4,
                                    );
                                }
                            }
                            codegen::Member {
                                id: m.id,
                                at,
                                total: blk.insts.len() as u32 + blk.term.pc().is_some() as u32,
                                pending: &m.pending,
                                next: &m.next,
                                chained: from.is_some(),
                                carried,
                            }
                        })
                        .collect();
                    tx.enter(&at[0]);
                    // Each chained block right after the one it is chained to, with that
                    // block's cached values; the others from nothing cached.
                    let mut done = vec![false; at.len()];
                    let mut work: Vec<(usize, Option<codegen::Cached>)> = Vec::new();
                    for start in 0..at.len() {
                        if done[start] || chained[start].is_some() {
                            continue;
                        }
                        work.push((start, None));
                        while let Some((k, carried)) = work.pop() {
                            done[k] = true;
                            let m = &at[k];
                            let blk = &prog.blocks[m.id as usize];
                            let live_out = &code.live().live_out[m.id as usize];
                            tx.begin_member(k, m.at, live_out, carried, m.carried);
                            translate(
                                &mut tx,
                                code,
                                m.id,
                                0..blk.insts.len(),
                                &live_after[k],
                                strip,
                            );
                            tx.end_member(m, &blk.term, &at);
                            for (t, from) in chained.iter().enumerate() {
                                if *from == Some(k) {
                                    work.push((t, Some(tx.cached())));
                                }
                            }
                        }
                    }
                    // A chained block's way in is from a block reachable from the entry.
                    debug_assert!(done.iter().all(|d| *d));
                }
            }
            comments = std::mem::take(&mut tx.comments);
            declined = tx.finish();
            fb.finalize(self.module.target_config());
        }
        let fid = self
            .module
            .declare_function(&name, Linkage::Local, &self.ctx.func.signature)
            .map_err(|e| err(e.to_string()))?;
        self.ctx.func.name = UserFuncName::user(0, fid.as_u32());
        if let Some(dir) = &self.dump {
            let comments: Vec<_> = comments
                .iter()
                .map(|&(i, m, k)| {
                    // In a region, `k` counts from its block's start; else from the piece's.
                    let start = if members.is_some() { 0 } else { insts.start };
                    let g = &prog.blocks[blocks[m] as usize].insts[start + k];
                    (i, format!("{:#06x}: {:?}", g.pc, g.op))
                })
                .collect();
            let text = dump_clif(&self.ctx.func, &comments);
            let _ = std::fs::create_dir_all(dir);
            let _ = std::fs::write(dir.join(format!("{name}.clif")), text);
        }
        self.module
            .define_function(fid, &mut self.ctx)
            .map_err(|e| err(format!("{e:?}")))?;
        if let (Some(dir), Some(code)) = (&self.dump, self.ctx.compiled_code()) {
            // The machine code as raw bytes: `objdump -D -b binary -m i386:x86-64 FILE.bin`.
            let _ = std::fs::write(dir.join(format!("{name}.bin")), code.code_buffer());
        }
        self.module
            .finalize_definitions()
            .map_err(|e| err(e.to_string()))?;
        let addr = self.module.get_finalized_function(fid) as usize;
        self.declined += declined as u64;
        let counts = match ahead {
            true => &mut self.ahead,
            false => &mut self.counts,
        };
        counts.add(t0.elapsed().as_nanos() as u64);
        Ok(addr)
    }
}

/// Functions a tier compiled and the time it took.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Counts {
    pub(super) functions: u64,
    pub(super) nanos: u64,
    /// The longest single compile.
    pub(super) longest: u64,
}

impl Counts {
    fn add(&mut self, nanos: u64) {
        self.functions += 1;
        self.nanos += nanos;
        self.longest = self.longest.max(nanos);
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

/// Translates instructions `insts` of block `id`, each with what is live after it
/// (`live_after`, per instruction of the block) and what is uniform both before and after it.
/// With `strip` (tier 1's straight-line blocks), each run of at least [`MIN_STRIP`] instructions that may run four
/// lanes at a time ([`codegen::Tx::strippable`]) becomes one strip loop: its code is emitted
/// once rather than once per vector of the row, for an eighth of the Cranelift work.
fn translate(
    tx: &mut codegen::Tx<'_, '_, '_>,
    code: &ProgCode,
    id: crate::ir::BlockId,
    insts: std::ops::Range<usize>,
    live_after: &[crate::analysis::LiveSet],
    strip: bool,
) {
    let block = &code.prog.blocks[id as usize];
    tx.first_hint(code.hint_at(id, insts.start));
    let u = code.uniform();
    let items: Vec<_> = insts
        .clone()
        .map(|k| {
            // What is uniform both before and after the instruction (nothing, in a block the
            // analysis finds unreachable: its answers there are vacuous).
            let mut both = match k {
                _ if !u.is_reachable(id) => crate::analysis::uniformity::UniformSet::EMPTY,
                0 => u.uniform_in(id),
                k => u.uniform_after(id, k - 1),
            };
            both.intersect_with(&u.uniform_after(id, k));
            (&block.insts[k], live_after[k], both)
        })
        .collect();
    let mut k = 0;
    while k < items.len() {
        let run = match strip {
            true => items[k..]
                .iter()
                .take_while(|(inst, _, _)| codegen::Tx::strippable(inst))
                .count(),
            false => 0,
        };
        let pair = match items.get(k..k + 2) {
            Some([(lo, _, u), (hi, after, _)]) if run < MIN_STRIP => {
                codegen::addr_pair_of(lo, hi, after).map(|p| (p, *after, *u))
            }
            _ => None,
        };
        if run >= MIN_STRIP {
            tx.strip_run(&items[k..k + run]);
            k += run;
        } else if pair.is_some_and(|(p, after, u)| tx.defer_addr_pair(p, &after, &u)) {
            k += 2;
        } else {
            let (inst, after, both) = &items[k];
            tx.inst(inst, after, both);
            k += 1;
        }
    }
}

/// The fewest instructions a strip loop is made for: the loop's own code (the chunk's
/// address and masks, the count, the branch) costs about what one instruction saves.
const MIN_STRIP: usize = 2;

/// The most registers a region block receives as parameters ([`codegen::Member::carried`]):
/// each is eight vectors, and every way in passes them all.
const MAX_CARRIED: usize = 16;

/// Per region block (`members`, with `chained` from [`super::region::Plan::chained`]): the
/// registers its code receives as parameters, those live into it that the region's
/// instructions read or write (at most [`MAX_CARRIED`], the lowest; each with whether the
/// region writes it and, in a `full` function, whether it is uniform at the block's entry and
/// so passed as one vector: [`codegen::Carried`]), none for a chained block. A register the
/// region never touches stays in the warp state, where passing it on would change nothing.
fn carried_regs(
    code: &ProgCode,
    members: &[super::region::Member],
    chained: &[Option<usize>],
    full: bool,
) -> Vec<Vec<codegen::Carried>> {
    use crate::analysis::LiveSet;
    let (mut touched, mut written) = (LiveSet::EMPTY, LiveSet::EMPTY);
    for m in members {
        for inst in &code.prog.blocks[m.id as usize].insts {
            let (t, w) = codegen::touched_by(inst);
            touched.union_with(&t);
            written.union_with(&w);
        }
    }
    members
        .iter()
        .zip(chained)
        .map(|(m, from)| match from {
            Some(_) => Vec::new(),
            None => {
                let live = &code.live().live_in[m.id as usize];
                let u = code.uniform();
                let uniform = match full && u.is_reachable(m.id) {
                    true => u.uniform_in(m.id),
                    false => crate::analysis::uniformity::UniformSet::EMPTY,
                };
                (0..=254u8)
                    .map(crate::ir::Reg)
                    .filter(|&r| live.has_reg(r) && touched.has_reg(r))
                    .take(MAX_CARRIED)
                    .map(|r| codegen::Carried {
                        reg: r.0,
                        written: written.has_reg(r),
                        uniform: uniform.has_reg(r),
                    })
                    .collect()
            }
        })
        .collect()
}
