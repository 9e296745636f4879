//! Lowering a DXBC program ([`ast::Program`]) to the IR.
//!
//! Registers: the component `c` of `r#` is IR register `4 * # + c`; after the temps come the
//! compute system values the program declares (`vThreadID`, `vThreadGroupID`, `vThreadIDInGroup`,
//! `vThreadIDInGroupFlattened`, filled by a prologue from the thread and group ids), then a few
//! scratch registers for one instruction's intermediate values. An instruction becomes one IR op
//! per written component (in x, y, z, w order), each reading its sources' swizzled components; a
//! component whose result would overwrite a register a later component still reads is computed into
//! a scratch register and copied at the end. Source modifiers are ops of their own (`FNeg`/`FAbs`
//! on float operands, `Ineg` on integer ones), `_sat` an op after the result.
//!
//! Structured control flow becomes blocks and terminators on the reconvergence stack
//! (docs/semantics.md §7): `if` pushes a [`Region::Sync`] entry at its `endif` and branches to the
//! `else` part; both parts end waiting at it. `loop` pushes a [`Region::Break`] entry at its exit
//! and, at the top of every iteration, a [`Region::Continue`] entry at the latch; `break` and
//! `continue` wait at them, and the iteration's end waits at the latch, which jumps back to the
//! top. `switch` pushes a break entry and tests its cases in order (the first case whose value
//! equals the selector; `default` last); a case body that does not `break` falls into the next.
//! `ret` exits; `sync_g_t` (any `sync` with `_t`) is a barrier.

use super::ast::{self, Components, Decl, Index, Modifier, Opcode, OperandValue, RegFile, Test};
use crate::ir::*;
use std::collections::{HashMap, HashSet};
use std::fmt;

mod control;
mod resource;
mod stage;

use resource::view_kind;
use stage::{geometry_shape, pixel_inputs, special_io};

/// An error in a program the lowering cannot run: which statement, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerError {
    /// Index of the statement in [`ast::Program::statements`]; `None` for the version line.
    pub stmt: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.stmt {
            Some(i) => write!(f, "statement {i}: {}", self.message),
            None => write!(f, "version line: {}", self.message),
        }
    }
}

impl std::error::Error for LowerError {}

/// Builds one result's op of a two-destination instruction from its register and sources.
type ResultOp = dyn Fn(Reg, &[Src]) -> Op;

/// Scratch registers one instruction may use (a relatively indexed or memory-held source
/// component takes one, a destination kept in memory one per component).
const SCRATCH: u32 = 32;
/// Scratch registers when some temps are kept in memory (each of their components an
/// instruction reads takes one more).
const SCRATCH_SPILLED: u32 = 48;
/// Registers the system values take after the temps: three components each of `vThreadID`,
/// `vThreadGroupID` and `vThreadIDInGroup`, then `vThreadIDInGroupFlattened`, then the
/// invocation index of a vertex or pixel shader.
const SYSVALS: u32 = 11;
/// The predicate conditions are computed into.
const P_COND: Pred = Pred(0);
/// A pixel shader's predicate of the lanes that are pixels (not helpers of their quad, not
/// discarded): their outputs and UAV accesses take effect.
const P_LIVE: Pred = Pred(1);
/// A predicate for combining a condition with [`P_LIVE`].
const P_TMP: Pred = Pred(2);

/// How an instruction reads an operand's modifiers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ty {
    /// `-` negates the float, `|x|` takes its magnitude.
    Float,
    /// `-` is two's complement negation; `|x|` is an error.
    Int,
}

/// An enclosing control structure.
enum Frame {
    If {
        else_blk: BlockId,
        end: BlockId,
        has_else: bool,
    },
    Loop {
        head: BlockId,
        latch: BlockId,
        exit: BlockId,
    },
    Switch {
        end: BlockId,
        first_test: BlockId,
        selector: Src,
        /// Case values (`None` for `default`) and their bodies, in order.
        cases: Vec<(Option<u32>, BlockId)>,
        /// The case values so far, to refuse a repeated one without a search per case.
        seen: std::collections::HashSet<Option<u32>>,
    },
}

/// The enclosing control structures, innermost last, with how many are loops and switches (so
/// that `break` and `continue` find an enclosing one without a search per instruction).
#[derive(Default)]
struct Frames {
    stack: Vec<Frame>,
    loops: usize,
    switches: usize,
}

impl Frames {
    fn push(&mut self, f: Frame) {
        match f {
            Frame::Loop { .. } => self.loops += 1,
            Frame::Switch { .. } => self.switches += 1,
            Frame::If { .. } => {}
        }
        self.stack.push(f);
    }

    fn pop(&mut self) -> Option<Frame> {
        let f = self.stack.pop()?;
        match f {
            Frame::Loop { .. } => self.loops -= 1,
            Frame::Switch { .. } => self.switches -= 1,
            Frame::If { .. } => {}
        }
        Some(f)
    }

    fn last(&self) -> Option<&Frame> {
        self.stack.last()
    }

    fn last_mut(&mut self) -> Option<&mut Frame> {
        self.stack.last_mut()
    }
}

struct Lower<'a> {
    prog: &'a ast::Program,
    views: Vec<ViewDecl>,
    /// `g#` slot, its range in shared memory and its stride (0: raw).
    tgsm: Vec<(u32, View, u32)>,
    /// What an instruction looks declarations up by (the first declaration of a slot, as a
    /// search of the lists gave, found without one per instruction: a program may hold 10^5
    /// declarations): a `t#`/`u#` view's kind, a `g#` slot's place in `tgsm`, an `x#` array
    /// (by register number: its region of shared memory, 16 bytes an element), a constant
    /// buffer's size.
    view_kinds: HashMap<View, ViewKind>,
    tgsm_at: HashMap<u32, usize>,
    xtemp_views: HashMap<u32, View>,
    /// Constant buffers: size in 16-byte entries by slot.
    cb_sizes: HashMap<u32, u32>,
    /// Stores of the current instruction's `x#` destination, emitted once its results are in
    /// the scratch registers [`Lower::dests`] handed out.
    xstores: Vec<StBuf>,
    /// The immediate constant buffer, four words an entry.
    icb: Option<std::sync::Arc<[u32]>>,
    blocks: Vec<Block>,
    /// The open block, if any (None right after a terminator until the next block starts).
    cur: Option<BlockId>,
    frames: Frames,
    temps: u32,
    /// The temps held in registers (`r0` to `r{reg_temps-1}`); the others are in `spill`.
    reg_temps: u32,
    /// The private array of the temps that do not fit in registers (element `i - reg_temps`
    /// holds `r{i}`).
    spill: Option<View>,
    /// Scratch registers an instruction may use.
    scratch_n: u32,
    sysval_base: u32,
    /// The `v#` and `o#` registers of a vertex or pixel shader (`None` for a compute shader).
    io: Option<StageIo>,
    /// The first `v#` register (the `o#` follow).
    io_base: u32,
    /// The special registers' slots.
    named_io: Vec<NamedIo>,
    /// The `v#` registers held in registers (all for a vertex or pixel shader; none for a
    /// geometry shader, which reads `v[vertex][reg]` from the launch's inputs).
    in_regs: u32,
    scratch_base: u32,
    scratch_next: u32,
    /// The current statement, its pc and location.
    stmt: usize,
    pc: u32,
    loc: SrcLoc,
}

/// Lowers `prog`, whose statements start at `locs` (line, column; empty for a binary), to the IR.
pub fn lower(prog: &ast::Program, locs: &[(u32, u32)]) -> Result<Program, LowerError> {
    let stage = prog.version.stage;
    if matches!(stage, ast::Stage::Hull | ast::Stage::Domain) {
        return Err(LowerError {
            stmt: None,
            message: format!(
                "{} shaders (tessellation) are not supported: warpjit runs compute, vertex, \
                 geometry and pixel shaders",
                if stage == ast::Stage::Hull {
                    "hull"
                } else {
                    "domain"
                }
            ),
        });
    }
    let geometry = stage == ast::Stage::Geometry;
    let mut temps = 0;
    let mut thread_group = None;
    let (mut inputs, mut outputs) = (0u32, 0u32);
    // Special registers (`vCoverage`, `oDepth`, ...) declared, in order: their slots follow the
    // numbered ones.
    let mut named: Vec<(&'static str, bool)> = Vec::new();
    for d in prog.decls() {
        match d {
            Decl::Temps(n) => temps = *n,
            Decl::ThreadGroup(g) => thread_group = Some(*g),
            Decl::Input { reg, .. } | Decl::Output { reg, .. } => {
                if let OperandValue::Reg { file, .. } = &reg.value {
                    if let Some((name, output)) = special_io(*file) {
                        // A geometry shader computes its primitive and instance ids.
                        let computed = geometry && !output;
                        if !computed && !named.iter().any(|n: &(&str, bool)| n.0 == name) {
                            named.push((name, output));
                        }
                        continue;
                    }
                }
                if let OperandValue::Reg { file, indices } = &reg.value {
                    // A geometry shader's inputs are `v[vertex][reg]`.
                    let at = usize::from(geometry && *file == RegFile::Input && indices.len() == 2);
                    if let Some(Index::Imm(i)) = indices.get(at) {
                        match file {
                            RegFile::Input => inputs = inputs.max(i.saturating_add(1)),
                            RegFile::Output => outputs = outputs.max(i.saturating_add(1)),
                            _ => {}
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let numbered = (inputs, outputs);
    let mut named_io = Vec::new();
    for &(name, output) in &named {
        let n = if output { &mut outputs } else { &mut inputs };
        named_io.push(NamedIo {
            name,
            output,
            slot: *n,
        });
        *n += 1;
    }
    // A pixel shader's hidden input slot tells a pixel from a helper invocation of its quad.
    let live = (stage == ast::Stage::Pixel).then(|| {
        inputs += 1;
        inputs - 1
    });
    let compute = stage == ast::Stage::Compute;
    if compute && thread_group.is_none() {
        return Err(LowerError {
            stmt: None,
            message: "a compute shader needs `dcl_thread_group x, y, z`".into(),
        });
    }
    if compute {
        (inputs, outputs) = (0, 0);
        if let Some(&(name, _)) = named.first() {
            return Err(LowerError {
                stmt: None,
                message: format!("a compute shader has no {name}"),
            });
        }
    }
    let gs = if geometry {
        Some(geometry_shape(prog)?)
    } else {
        None
    };
    // A geometry shader reads its inputs where they are (`v[vertex][reg]`); the others hold
    // theirs in registers, loaded at the start.
    let in_regs = if geometry { 0 } else { inputs };
    let (views, tgsm, tgsm_bytes) = declared_views(prog);
    let threads = match thread_group {
        Some(g) => g.iter().map(|&n| n as u64).product::<u64>(),
        None => 32,
    };
    if numbered.0 > 32 || numbered.1 > 32 {
        return Err(LowerError {
            stmt: None,
            message: "a shader has at most 32 input and 32 output registers".into(),
        });
    }
    // Registers: the temps, the system values, the v# and o# held in registers (and a geometry
    // shader's emit counter), scratch. Temps that do not fit stay in memory (a private array of
    // each invocation, like an x#), read and written through scratch registers.
    let own = SYSVALS + 4 * in_regs + 4 * outputs + u32::from(geometry);
    let (reg_temps, scratch_n) = if 4 * temps + own + SCRATCH <= 255 {
        (temps, SCRATCH)
    } else if own + SCRATCH_SPILLED <= 255 {
        ((255 - own - SCRATCH_SPILLED) / 4, SCRATCH_SPILLED)
    } else {
        return Err(LowerError {
            stmt: None,
            message: format!(
                "{inputs} inputs and {outputs} outputs need {} registers (4 each); warpjit \
                 gives a program 255, of which {} are its own",
                4 * (in_regs + outputs),
                SYSVALS + SCRATCH_SPILLED
            ),
        });
    };
    let (xtemps, spill, shared_end) =
        indexable_temps(prog, tgsm_bytes, threads, temps - reg_temps)?;
    let sysval_base = 4 * reg_temps;
    let io_base = sysval_base + SYSVALS;
    // A geometry shader's emit counter follows its outputs.
    let scratch_base = io_base + 4 * in_regs + 4 * outputs + u32::from(geometry);
    let mut view_kinds = HashMap::new();
    for v in &views {
        view_kinds.entry(v.view).or_insert(v.kind);
    }
    let mut tgsm_at = HashMap::new();
    for (i, t) in tgsm.iter().enumerate() {
        tgsm_at.entry(t.0).or_insert(i);
    }
    let mut cb_sizes = HashMap::new();
    for d in prog.decls() {
        if let Decl::ConstantBuffer { slot, size, .. } = *d {
            cb_sizes.entry(slot).or_insert(size);
        }
    }
    let xtemp_views = xtemps.iter().copied().collect();
    let mut l = Lower {
        prog,
        views,
        tgsm,
        view_kinds,
        tgsm_at,
        xtemp_views,
        cb_sizes,
        xstores: Vec::new(),
        icb: prog.decls().find_map(|d| match d {
            Decl::ImmediateConstantBuffer(v) => Some(v.iter().flatten().copied().collect()),
            _ => None,
        }),
        blocks: Vec::new(),
        cur: None,
        frames: Frames::default(),
        temps,
        reg_temps,
        spill,
        scratch_n,
        sysval_base,
        io: (!compute).then_some(StageIo {
            inputs,
            outputs,
            vertices_in: gs.map_or(1, |g| g.0),
            vertices_out: gs.map_or(1, |g| g.1),
            live,
        }),
        in_regs,
        named_io: named_io.clone(),
        io_base,
        scratch_base,
        scratch_next: 0,
        stmt: 0,
        pc: 0,
        loc: SrcLoc::default(),
    };
    let entry = l.new_block();
    l.start(entry);
    match thread_group {
        Some(g) => l.prologue(g),
        None => l.invocation_prologue(),
    }
    let mut pc = 0;
    let mut lines = Vec::new();
    for (i, s) in prog.statements.iter().enumerate() {
        let ast::Statement::Inst(inst) = s else {
            continue;
        };
        l.stmt = i;
        l.pc = pc;
        pc += 1;
        l.loc = locs
            .get(i)
            .map(|&(line, col)| SrcLoc { line, col })
            .unwrap_or_default();
        if locs.get(i).is_some() {
            lines.push((l.pc, l.loc));
        }
        l.scratch_next = 0;
        l.inst(inst)?;
        for st in std::mem::take(&mut l.xstores) {
            l.emit(st);
        }
    }
    if let Some(f) = l.frames.last() {
        let what = match f {
            Frame::If { .. } => "an `if` without its `endif`",
            Frame::Loop { .. } => "a `loop` without its `endloop`",
            Frame::Switch { .. } => "a `switch` without its `endswitch`",
        };
        return Err(l.err(what));
    }
    if l.cur.is_some() {
        l.store_outputs(Guard::ALWAYS);
        l.finish(Terminator::Exit {
            cond: Cond::ALWAYS,
            next: None,
            pc: None,
        });
    }
    let registers = 255;
    Ok(Program {
        isa: Isa::Dxbc,
        blocks: l.blocks,
        registers,
        interface: Interface {
            block: thread_group,
            // `g#` ranges one after another, in declaration order.
            shared_bytes: shared_end,
            tgsm_bytes,
            views: l.views,
            invocations: l.io,
            named_io: l.named_io,
            samplers: prog
                .decls()
                .filter_map(|d| match *d {
                    Decl::Sampler { slot, mode } if slot < 16 => Some(SamplerDecl {
                        slot: slot as u8,
                        comparison: mode == ast::SamplerMode::Comparison,
                    }),
                    _ => None,
                })
                .collect(),
            pixel_inputs: if stage == ast::Stage::Pixel {
                pixel_inputs(prog)
            } else {
                Vec::new()
            },
        },
        lines,
        entry_reads: Default::default(),
        jump_tables: Vec::new(),
    })
}

/// The `x#` arrays (register number and region), the region of the temps kept in memory, and
/// the end of the last region in shared memory.
type MemoryTemps = (Vec<(u32, View)>, Option<View>, u32);

/// Most shared memory a launch has (the 16 MiB shared window).
const MAX_SHARED: u64 = 16 << 20;

/// The `x#` arrays a program declares, each given `16 * size * threads` bytes of shared memory
/// (16 bytes an element, whatever its component count), one after another from the first
/// 16-byte boundary at or after `tgsm_bytes`; and the end of the last.
fn indexable_temps(
    prog: &ast::Program,
    tgsm_bytes: u32,
    threads: u64,
    spilled: u32,
) -> Result<MemoryTemps, LowerError> {
    let mut out = Vec::new();
    let mut declared = HashSet::new();
    let mut next = if spilled > 0
        || prog
            .decls()
            .any(|d| matches!(d, Decl::IndexableTemp { .. }))
    {
        (tgsm_bytes as u64).next_multiple_of(16)
    } else {
        tgsm_bytes as u64
    };
    for (i, s) in prog.statements.iter().enumerate() {
        let ast::Statement::Decl(Decl::IndexableTemp { reg, size, .. }) = *s else {
            continue;
        };
        let per_thread = 16 * size as u64;
        let end = next + per_thread * threads;
        if end > MAX_SHARED || !declared.insert(reg) {
            return Err(LowerError {
                stmt: Some(i),
                message: if end > MAX_SHARED {
                    format!(
                        "x{reg}[{size}] for {threads} threads needs {} bytes, more than the \
                         16 MiB of shared memory that holds the g# and x# arrays",
                        per_thread * threads
                    )
                } else {
                    format!("x{reg} is declared twice")
                },
            });
        }
        out.push((
            reg,
            View::Temp {
                base: next as u32,
                size: per_thread as u32,
            },
        ));
        next = end;
    }
    let spill = if spilled > 0 {
        let per_thread = 16 * spilled as u64;
        let end = next + per_thread * threads;
        if end > MAX_SHARED {
            let at = prog
                .statements
                .iter()
                .position(|s| matches!(s, ast::Statement::Decl(Decl::Temps(_))));
            return Err(LowerError {
                stmt: at,
                message: format!(
                    "{spilled} temps past the registers, for {threads} threads, need {} bytes of \
                     memory, more than the 16 MiB of shared memory that holds them",
                    per_thread * threads
                ),
            });
        }
        let view = View::Temp {
            base: next as u32,
            size: per_thread as u32,
        };
        next = end;
        Some(view)
    } else {
        None
    };
    Ok((out, spill, next as u32))
}

/// The views a program declares: `t#`/`u#` with their kinds, and the `g#` ranges laid out in
/// shared memory one after another (4-byte aligned), with the total.
fn declared_views(prog: &ast::Program) -> (Vec<ViewDecl>, Vec<(u32, View, u32)>, u32) {
    let mut views = Vec::new();
    let mut tgsm = Vec::new();
    let mut next = 0u32;
    for d in prog.decls() {
        let (uav, slot, kind) = match *d {
            Decl::Resource {
                slot, dim, samples, ..
            } => match view_kind(dim, samples) {
                Some(k) => (false, slot, k),
                None => continue,
            },
            Decl::ResourceRaw { slot } => (false, slot, ViewKind::Raw),
            Decl::ResourceStructured { slot, stride } => {
                (false, slot, ViewKind::Structured(stride))
            }
            Decl::UavTyped { slot, dim, .. } => match view_kind(dim, 0) {
                Some(k) => (true, slot, k),
                None => continue,
            },
            Decl::UavRaw { slot, .. } => (true, slot, ViewKind::Raw),
            Decl::UavStructured { slot, stride, .. } => (true, slot, ViewKind::Structured(stride)),
            Decl::TgsmRaw { slot, bytes } => {
                let size = bytes.saturating_add(3) & !3;
                tgsm.push((slot, View::Tgsm { base: next, size }, 0));
                next = next.saturating_add(size);
                continue;
            }
            Decl::TgsmStructured {
                slot,
                stride,
                count,
            } => {
                let size = stride.saturating_mul(count);
                tgsm.push((slot, View::Tgsm { base: next, size }, stride));
                next = next.saturating_add(size);
                continue;
            }
            _ => continue,
        };
        // Slots past Direct3D's (t0-t127, u0-u63) are declared nowhere: using one is an error.
        let view = match (uav, slot) {
            (false, 0..=127) => View::Srv(slot as u8),
            (true, 0..=63) => View::Uav(slot as u8),
            _ => continue,
        };
        views.push(ViewDecl { view, kind });
    }
    (views, tgsm, next)
}

impl Lower<'_> {
    fn err(&self, message: impl Into<String>) -> LowerError {
        LowerError {
            stmt: Some(self.stmt),
            message: message.into(),
        }
    }

    fn new_block(&mut self) -> BlockId {
        self.blocks.push(Block {
            insts: Vec::new(),
            term: Terminator::Exit {
                cond: Cond::ALWAYS,
                next: None,
                pc: None,
            },
            pc: self.pc,
            labels: Vec::new(),
        });
        (self.blocks.len() - 1) as BlockId
    }

    /// Makes `b` the open block (the previous one must have been finished).
    fn start(&mut self, b: BlockId) {
        debug_assert!(self.cur.is_none());
        self.blocks[b as usize].pc = self.pc;
        self.cur = Some(b);
    }

    /// The open block, opening an unreachable one after a terminator (code after `break`).
    fn open(&mut self) -> BlockId {
        match self.cur {
            Some(b) => b,
            None => {
                let b = self.new_block();
                self.start(b);
                b
            }
        }
    }

    /// Ends the open block with `term`.
    fn finish(&mut self, term: Terminator) {
        let b = self.open();
        self.blocks[b as usize].term = term;
        self.cur = None;
    }

    /// Ends the open block with `term(next)` and opens `next`, a new block.
    fn finish_into(&mut self, term: impl FnOnce(BlockId) -> Terminator) -> BlockId {
        let next = self.new_block();
        self.finish(term(next));
        self.start(next);
        next
    }

    fn emit(&mut self, op: impl Into<Op>) {
        self.emit_guarded(Guard::ALWAYS, op);
    }

    fn emit_guarded(&mut self, guard: Guard, op: impl Into<Op>) {
        let b = self.open();
        let (pc, loc) = (self.pc, self.loc);
        self.blocks[b as usize].insts.push(Inst {
            guard,
            op: op.into(),
            pc,
            loc,
        });
    }

    fn scratch(&mut self) -> Result<Reg, LowerError> {
        if self.scratch_next >= self.scratch_n {
            return Err(self.err(
                "instruction too complex: it needs more scratch registers than warpjit reserves",
            ));
        }
        let r = Reg((self.scratch_base + self.scratch_next) as u8);
        self.scratch_next += 1;
        Ok(r)
    }

    /// Fills the system-value registers from the thread and group ids.
    fn prologue(&mut self, group: [u32; 3]) {
        let base = self.sysval_base;
        let uses = |f: RegFile| {
            self.prog.statements.iter().any(|s| match s {
                ast::Statement::Inst(i) => i.operands.iter().any(|o| uses_file(o, f)),
                ast::Statement::Decl(_) => false,
            })
        };
        let (tid, gid, local, flat) = (
            uses(RegFile::ThreadId),
            uses(RegFile::ThreadGroupId),
            uses(RegFile::ThreadIdInGroup),
            uses(RegFile::ThreadIdInGroupFlattened),
        );
        if !(tid || gid || local || flat) {
            return;
        }
        let t = [SpecialReg::TidX, SpecialReg::TidY, SpecialReg::TidZ];
        let c = [SpecialReg::CtaidX, SpecialReg::CtaidY, SpecialReg::CtaidZ];
        for k in 0..3u32 {
            self.emit(S2r {
                d: Reg((base + 6 + k) as u8),
                sr: t[k as usize],
            });
            self.emit(S2r {
                d: Reg((base + 3 + k) as u8),
                sr: c[k as usize],
            });
            // vThreadID = vThreadGroupID * group size + vThreadIDInGroup.
            self.emit(Tern {
                d: Reg((base + k) as u8),
                f: TernFn::Imad,
                a: Src::Reg(Reg((base + 3 + k) as u8)),
                b: Src::Imm(group[k as usize]),
                c: Src::Reg(Reg((base + 6 + k) as u8)),
            });
        }
        // Flattened: (z * gy + y) * gx + x.
        let f = Reg((base + 9) as u8);
        self.emit(Tern {
            d: f,
            f: TernFn::Imad,
            a: Src::Reg(Reg((base + 8) as u8)),
            b: Src::Imm(group[1]),
            c: Src::Reg(Reg((base + 7) as u8)),
        });
        self.emit(Tern {
            d: f,
            f: TernFn::Imad,
            a: Src::Reg(f),
            b: Src::Imm(group[0]),
            c: Src::Reg(Reg((base + 6) as u8)),
        });
    }

    /// The IR register of component `c` of `r#i`.
    fn temp(&self, i: u32, c: u8) -> Result<Reg, LowerError> {
        if i >= self.temps {
            return Err(self.err(format!("r{i} is not declared (dcl_temps {})", self.temps)));
        }
        Ok(Reg((4 * i + c as u32) as u8))
    }

    /// The value of component `comp` (of the destination's) of source `op`, read as `ty`.
    fn src(&mut self, op: &ast::Operand, comp: u8, ty: Ty) -> Result<Src, LowerError> {
        let k = source_component(op.components, comp);
        let plain = match &op.value {
            OperandValue::Imm32(v) => Src::Imm(if v.len() == 1 {
                v[0]
            } else {
                v.get(comp as usize).copied().unwrap_or(0)
            }),
            OperandValue::Reg { file, indices } => {
                let imm = |n: usize| match indices.get(n) {
                    Some(Index::Imm(i)) => Some(*i),
                    _ => None,
                };
                match file {
                    RegFile::Temp => match imm(0) {
                        Some(i) if i >= self.reg_temps && i < self.temps => {
                            let w = self.scratch()?;
                            self.emit(LdBuf {
                                d: [w, Reg::RZ, Reg::RZ, Reg::RZ],
                                view: self.spill.expect("temps past the registers are spilled"),
                                stride: 16,
                                index: Src::Imm(i - self.reg_temps),
                                offset: Src::Imm(0),
                                comp: [k, 0, 0, 0],
                            });
                            Src::Reg(w)
                        }
                        Some(i) => Src::Reg(self.temp(i, k)?),
                        None => return Err(self.err("a temp register needs a literal index")),
                    },
                    RegFile::Input if indices.len() == 2 => self.vertex_input(indices, k)?,
                    f if special_io(*f).is_some_and(|(_, output)| !output) => {
                        self.special_input(*f, k)?
                    }
                    RegFile::Input => match (imm(0), self.io) {
                        (Some(i), Some(io)) if i < self.in_regs && i < io.inputs => {
                            Src::Reg(Reg((self.io_base + 4 * i + k as u32) as u8))
                        }
                        _ => return Err(self.err("an input register v# that is not declared")),
                    },
                    RegFile::ThreadId => Src::Reg(Reg((self.sysval_base + k as u32) as u8)),
                    RegFile::ThreadGroupId => {
                        Src::Reg(Reg((self.sysval_base + 3 + k as u32) as u8))
                    }
                    RegFile::ThreadIdInGroup => {
                        Src::Reg(Reg((self.sysval_base + 6 + k as u32) as u8))
                    }
                    RegFile::ThreadIdInGroupFlattened => {
                        Src::Reg(Reg((self.sysval_base + 9) as u8))
                    }
                    RegFile::ConstantBuffer => match (imm(0), indices.get(1)) {
                        (Some(slot), Some(Index::Imm(row))) if slot < 14 && *row < 4096 => {
                            Src::Const(ConstRef {
                                bank: slot as u8,
                                offset: (16 * row + 4 * k as u32) as u16,
                            })
                        }
                        (Some(slot), Some(Index::Imm(_))) if slot < 14 => {
                            return Err(
                                self.err("constant buffer index out of range (at most 4095)")
                            )
                        }
                        (Some(_), Some(Index::Imm(_))) => {
                            return Err(self.err("constant buffer slot out of range (cb0 to cb13)"))
                        }
                        (Some(slot), Some(Index::Reg(o) | Index::RegPlus(o, _))) if slot < 14 => {
                            let n = match indices.get(1) {
                                Some(Index::RegPlus(_, n)) => *n,
                                _ => 0,
                            };
                            let o = (**o).clone();
                            Src::Reg(self.cb_relative(slot, &o, n, k)?)
                        }
                        _ => {
                            return Err(self.err("constant buffer slot out of range (cb0 to cb13)"))
                        }
                    },
                    RegFile::IndexableTemp => {
                        let (view, index) = self.xtemp_element(indices)?;
                        let w = match index {
                            Src::Reg(r) if self.is_scratch(r) => r,
                            _ => self.scratch()?,
                        };
                        self.emit(LdBuf {
                            d: [w, Reg::RZ, Reg::RZ, Reg::RZ],
                            view,
                            stride: 16,
                            index,
                            offset: Src::Imm(0),
                            comp: [k, 0, 0, 0],
                        });
                        Src::Reg(w)
                    }
                    RegFile::ImmediateConstantBuffer => {
                        let Some(table) = self.icb.clone() else {
                            return Err(self.err("icb is read without dcl_immediateConstantBuffer"));
                        };
                        match indices.first() {
                            Some(Index::Imm(i)) => Src::Imm(
                                table
                                    .get(4 * *i as usize + k as usize)
                                    .copied()
                                    .unwrap_or(0),
                            ),
                            Some(Index::Reg(o) | Index::RegPlus(o, _)) => {
                                let n = match indices.first() {
                                    Some(Index::RegPlus(_, n)) => *n,
                                    _ => 0,
                                };
                                let o = (**o).clone();
                                let entries = (table.len() / 4) as u32;
                                let e = self.clamped_index(&o, n, entries)?;
                                // The word index replaces the entry index in its scratch.
                                let w = e;
                                self.emit(Tern {
                                    d: w,
                                    f: TernFn::Imad,
                                    a: Src::Reg(e),
                                    b: Src::Imm(4),
                                    c: Src::Imm(k as u32),
                                });
                                self.emit(Table {
                                    d: w,
                                    index: Src::Reg(w),
                                    table,
                                });
                                Src::Reg(w)
                            }
                            None => return Err(self.err("icb needs an index")),
                        }
                    }
                    other => {
                        return Err(
                            self.err(format!("operand `{}` is not supported yet", other.text()))
                        )
                    }
                }
            }
        };
        let (neg, abs) = match op.modifier {
            Modifier::None => return Ok(plain),
            Modifier::Neg => (true, false),
            Modifier::Abs => (false, true),
            Modifier::AbsNeg => (true, true),
        };
        match ty {
            Ty::Int if abs => Err(self.err("`|x|` on an integer operand")),
            Ty::Int => {
                let t = match plain {
                    Src::Reg(r) if self.is_scratch(r) => r,
                    _ => self.scratch()?,
                };
                self.emit(Un {
                    d: t,
                    f: UnFn::Ineg,
                    a: plain,
                });
                Ok(Src::Reg(t))
            }
            Ty::Float => {
                // A value already in a scratch register is modified in place.
                let t = match plain {
                    Src::Reg(r) if self.is_scratch(r) => r,
                    _ => self.scratch()?,
                };
                let mut v = plain;
                if abs {
                    self.emit(Un {
                        d: t,
                        f: UnFn::FAbs,
                        a: v,
                    });
                    v = Src::Reg(t);
                }
                if neg {
                    self.emit(Un {
                        d: t,
                        f: UnFn::FNeg,
                        a: v,
                    });
                }
                Ok(Src::Reg(t))
            }
        }
    }

    /// Destination registers for the components of `mask` of element `index` of a memory-held
    /// array (`x#`, or the temps past the registers): scratch registers, stored to the element
    /// once the instruction is done.
    fn store_later(
        &mut self,
        view: View,
        index: Src,
        mask: u8,
    ) -> Result<[Option<Reg>; 4], LowerError> {
        let mut out = [None; 4];
        let mut v = [Src::Imm(0); 4];
        for c in 0..4 {
            if mask & (1 << c) != 0 {
                let t = self.scratch()?;
                out[c] = Some(t);
                v[c] = Src::Reg(t);
            }
        }
        self.xstores.push(StBuf {
            view,
            stride: 16,
            index,
            offset: Src::Imm(0),
            v,
            mask,
        });
        Ok(out)
    }

    /// The registers of the components of `mask` of output slot `slot` (`o#`, then the special
    /// outputs).
    fn output_regs(&self, slot: u32, mask: u8) -> [Option<Reg>; 4] {
        let base = self.io_base + 4 * (self.in_regs + slot);
        std::array::from_fn(|c| (mask & (1 << c) != 0).then(|| Reg((base + c as u32) as u8)))
    }

    /// True when `r` is one of the scratch registers.
    fn is_scratch(&self, r: Reg) -> bool {
        (self.scratch_base..self.scratch_base + self.scratch_n).contains(&(r.0 as u32))
    }

    /// The array and element index an `x#[i]` operand names (`indices`: the register number,
    /// then the element: a literal, or a register component plus a literal, added in a scratch
    /// register).
    fn xtemp_element(&mut self, indices: &[Index]) -> Result<(View, Src), LowerError> {
        let Some(&Index::Imm(reg)) = indices.first() else {
            return Err(self.err("an indexable temp x# needs a literal register number"));
        };
        let Some(&view) = self.xtemp_views.get(&reg) else {
            return Err(self.err(format!("x{reg} is not declared (dcl_indexableTemp)")));
        };
        let index = match indices.get(1) {
            Some(Index::Imm(i)) => Src::Imm(*i),
            Some(Index::Reg(o)) => {
                let o = (**o).clone();
                self.src(&o, 0, Ty::Int)?
            }
            Some(Index::RegPlus(o, n)) => {
                let (o, n) = ((**o).clone(), *n);
                let i = self.src(&o, 0, Ty::Int)?;
                let t = self.scratch()?;
                self.emit(Bin {
                    d: t,
                    f: BinFn::Iadd,
                    a: i,
                    b: Src::Imm(n),
                });
                Src::Reg(t)
            }
            None => return Err(self.err(format!("x{reg} needs an element index: x{reg}[i]"))),
        };
        Ok((view, index))
    }

    /// `min(index + n, limit)` into a scratch register, where `index` is the selected component
    /// of `op`: an entry index that cannot wrap around into range.
    fn clamped_index(&mut self, op: &ast::Operand, n: u32, limit: u32) -> Result<Reg, LowerError> {
        let i = self.src(op, 0, Ty::Int)?;
        let t = self.scratch()?;
        self.emit(Bin {
            d: t,
            f: BinFn::Iadd,
            a: i,
            b: Src::Imm(n),
        });
        // An index that wrapped past 2^32 is out of range too: compare before clamping.
        self.emit(Bin {
            d: t,
            f: BinFn::Umin,
            a: Src::Reg(t),
            b: Src::Imm(limit),
        });
        Ok(t)
    }

    /// Component `k` of `cb{slot}[op + n]` (the index wrapping in 32 bits): 0 at or past the
    /// declared size, with a `--check` finding (D3D's robust access).
    fn cb_relative(
        &mut self,
        slot: u32,
        op: &ast::Operand,
        n: u32,
        k: u8,
    ) -> Result<Reg, LowerError> {
        let Some(&size) = self.cb_sizes.get(&slot) else {
            return Err(self.err(format!("cb{slot} is not declared")));
        };
        let i = self.src(op, 0, Ty::Int)?;
        let v = self.scratch()?;
        self.emit(Bin {
            d: v,
            f: BinFn::Iadd,
            a: i,
            b: Src::Imm(n),
        });
        self.emit(LdBuf {
            d: [v, Reg::RZ, Reg::RZ, Reg::RZ],
            view: View::Cb {
                bank: slot as u8,
                entries: size.min(4096) as u16,
            },
            stride: 16,
            index: Src::Reg(v),
            offset: Src::Imm(0),
            comp: [k, 0, 0, 0],
        });
        Ok(v)
    }

    /// The registers a destination operand writes, per component (`None` for components not in
    /// its mask; all `None` for `null`).
    fn dests(&mut self, op: &ast::Operand) -> Result<[Option<Reg>; 4], LowerError> {
        let OperandValue::Reg { file, indices } = &op.value else {
            return Err(self.err("a literal cannot be a destination"));
        };
        let mask = match op.components {
            Components::Mask(m) => m,
            Components::One | Components::Zero => 1,
            Components::Select(k) => 1 << k,
            Components::Swizzle(_) => 0xf,
        };
        match file {
            RegFile::Null => Ok([None; 4]),
            RegFile::Output => {
                let (Some(Index::Imm(i)), Some(io)) = (indices.first(), self.io) else {
                    return Err(self.err("an output register o# needs a literal index"));
                };
                if *i >= io.outputs {
                    return Err(self.err(format!("o{i} is not declared")));
                }
                Ok(self.output_regs(*i, mask))
            }
            RegFile::Temp => {
                let Some(Index::Imm(i)) = indices.first() else {
                    return Err(self.err("a temp register needs a literal index"));
                };
                if let Some(view) = self
                    .spill
                    .filter(|_| *i >= self.reg_temps && *i < self.temps)
                {
                    return self.store_later(view, Src::Imm(i - self.reg_temps), mask);
                }
                let mut out = [None; 4];
                for (c, o) in out.iter_mut().enumerate() {
                    if mask & (1 << c) != 0 {
                        *o = Some(self.temp(*i, c as u8)?);
                    }
                }
                Ok(out)
            }
            f if special_io(*f).is_some_and(|(_, output)| output) => {
                let (name, _) = special_io(*f).expect("a special output");
                let Some(slot) = self
                    .named_io
                    .iter()
                    .find(|n| n.name == name && n.output)
                    .map(|n| n.slot)
                else {
                    return Err(self.err(format!("{name} is not declared (dcl_output {name})")));
                };
                Ok(self.output_regs(slot, mask))
            }
            RegFile::IndexableTemp => {
                // The element index is read before the instruction writes anything; the
                // results go to scratch registers, stored once the instruction is done.
                let (view, mut index) = self.xtemp_element(indices)?;
                if let Src::Reg(r) = index {
                    if !self.is_scratch(r) {
                        // A second destination of the instruction may overwrite it.
                        let t = self.scratch()?;
                        self.emit(Mov { d: t, b: index });
                        index = Src::Reg(t);
                    }
                }
                self.store_later(view, index, mask)
            }
            other => Err(self.err(format!("writing `{}` is not supported yet", other.text()))),
        }
    }

    /// Lowers a one-destination instruction component by component: `op` gets the destination
    /// register and the sources (read as `tys`) of each written component.
    fn per_component(
        &mut self,
        inst: &ast::Inst,
        tys: &[Ty],
        mut op: impl FnMut(&mut Self, Reg, &[Src]) -> Result<(), LowerError>,
    ) -> Result<(), LowerError> {
        if inst.operands.len() != 1 + tys.len() {
            return Err(self.err(format!(
                "`{}` takes a destination and {} source operands, not {} operands",
                inst.opcode.text(),
                tys.len(),
                inst.operands.len()
            )));
        }
        let dests = self.dests(&inst.operands[0])?;
        let srcs = &inst.operands[1..];
        if srcs.len() != tys.len() {
            return Err(self.err(format!(
                "`{}` takes {} source operands, not {}",
                inst.opcode.text(),
                tys.len(),
                srcs.len()
            )));
        }
        // The registers each component reads (for the overwrite check).
        let reads: Vec<Vec<Reg>> = (0..4u8)
            .map(|c| {
                srcs.iter()
                    .filter_map(|s| self.reg_read(s, c))
                    .collect::<Vec<_>>()
            })
            .collect();
        let mut copies = Vec::new();
        for c in 0..4u8 {
            let Some(d) = dests[c as usize] else { continue };
            let later = (c + 1..4)
                .filter(|&k| dests[k as usize].is_some())
                .any(|k| reads[k as usize].contains(&d));
            let target = if later { self.scratch()? } else { d };
            let mut vals = Vec::with_capacity(srcs.len());
            for (s, ty) in srcs.iter().zip(tys) {
                vals.push(self.src(s, c, *ty)?);
            }
            op(self, target, &vals)?;
            if inst.saturate {
                self.emit(Un {
                    d: target,
                    f: UnFn::Sat,
                    a: Src::Reg(target),
                });
            }
            if later {
                copies.push((d, target));
            }
        }
        for (d, t) in copies {
            self.emit(Mov { d, b: Src::Reg(t) });
        }
        Ok(())
    }

    /// The IR register component `c` of `op` reads, if it is a register.
    fn reg_read(&self, op: &ast::Operand, c: u8) -> Option<Reg> {
        match &op.value {
            OperandValue::Reg {
                file: RegFile::Temp,
                indices,
            } => match indices.first() {
                Some(Index::Imm(i)) if *i < self.reg_temps => Some(Reg((4 * i
                    + source_component(op.components, c) as u32)
                    as u8)),
                _ => None,
            },
            _ => None,
        }
    }

    fn un(&mut self, inst: &ast::Inst, f: UnFn, ty: Ty) -> Result<(), LowerError> {
        self.per_component(inst, &[ty], |l: &mut Self, d, s: &[Src]| {
            l.emit(Un { d, f, a: s[0] });
            Ok(())
        })
    }

    fn bin(&mut self, inst: &ast::Inst, f: BinFn, ty: Ty) -> Result<(), LowerError> {
        self.per_component(inst, &[ty, ty], |l: &mut Self, d, s: &[Src]| {
            l.emit(Bin {
                d,
                f,
                a: s[0],
                b: s[1],
            });
            Ok(())
        })
    }

    fn tern(&mut self, inst: &ast::Inst, f: TernFn, tys: [Ty; 3]) -> Result<(), LowerError> {
        self.per_component(inst, &tys, |l: &mut Self, d, s: &[Src]| {
            l.emit(Tern {
                d,
                f,
                a: s[0],
                b: s[1],
                c: s[2],
            });
            Ok(())
        })
    }

    /// An instruction with two destinations (`imul`, `udiv`, `sincos`, `swapc`, ...): every
    /// result is computed into scratch registers first, then copied, so neither destination
    /// clobbers a source of the other.
    fn two_dests(
        &mut self,
        inst: &ast::Inst,
        tys: &[Ty],
        ops: [&ResultOp; 2],
    ) -> Result<(), LowerError> {
        if inst.operands.len() != 2 + tys.len() {
            return Err(self.err(format!(
                "`{}` takes 2 destinations and {} sources",
                inst.opcode.text(),
                tys.len()
            )));
        }
        let dests = [
            self.dests(&inst.operands[0])?,
            self.dests(&inst.operands[1])?,
        ];
        let mut copies = Vec::new();
        for (k, dk) in dests.iter().enumerate() {
            for c in 0..4u8 {
                let Some(d) = dk[c as usize] else { continue };
                let mut vals = Vec::new();
                for (s, ty) in inst.operands[2..].iter().zip(tys) {
                    vals.push(self.src(s, c, *ty)?);
                }
                let t = self.scratch()?;
                self.emit((ops[k])(t, &vals));
                if inst.saturate {
                    self.emit(Un {
                        d: t,
                        f: UnFn::Sat,
                        a: Src::Reg(t),
                    });
                }
                copies.push((d, t));
            }
        }
        for (d, t) in copies {
            self.emit(Mov { d, b: Src::Reg(t) });
        }
        Ok(())
    }

    /// A two-destination instruction of two integer sources whose results are `first` and
    /// `second` of them (`imul`: high and low halves; `udiv`: quotient and remainder; ...).
    fn bin_pair(
        &mut self,
        inst: &ast::Inst,
        first: BinFn,
        second: BinFn,
    ) -> Result<(), LowerError> {
        self.two_dests(
            inst,
            &[Ty::Int, Ty::Int],
            [&move |d, s| bin_op(d, first, s[0], s[1]), &move |d, s| {
                bin_op(d, second, s[0], s[1])
            }],
        )
    }

    /// `dp2`, `dp3`, `dp4`: one sum of products, written to every component of the mask.
    fn dot(&mut self, inst: &ast::Inst, n: u8) -> Result<(), LowerError> {
        if inst.operands.len() != 3 {
            return Err(self.err("a dot product takes one destination and two sources"));
        }
        let acc = self.scratch()?;
        for c in 0..n {
            let a = self.src(&inst.operands[1], c, Ty::Float)?;
            let b = self.src(&inst.operands[2], c, Ty::Float)?;
            if c == 0 {
                self.emit(Bin {
                    d: acc,
                    f: BinFn::Mul,
                    a,
                    b,
                });
            } else {
                self.emit(Tern {
                    d: acc,
                    f: TernFn::Mad,
                    a,
                    b,
                    c: Src::Reg(acc),
                });
            }
        }
        if inst.saturate {
            self.emit(Un {
                d: acc,
                f: UnFn::Sat,
                a: Src::Reg(acc),
            });
        }
        for d in self.dests(&inst.operands[0])?.into_iter().flatten() {
            self.emit(Mov {
                d,
                b: Src::Reg(acc),
            });
        }
        Ok(())
    }

    /// `bfi dst, width, offset, insert, base`.
    fn bfi(&mut self, inst: &ast::Inst) -> Result<(), LowerError> {
        let tys = [Ty::Int; 4];
        self.per_component(inst, &tys, |l: &mut Self, d, s: &[Src]| {
            let m = l.scratch()?;
            let sh = l.scratch()?;
            l.emit(Bin {
                d: m,
                f: BinFn::BfMask,
                a: s[0],
                b: s[1],
            });
            l.emit(Bin {
                d: sh,
                f: BinFn::Ishl,
                a: s[2],
                b: s[1],
            });
            l.emit(Tern {
                d,
                f: TernFn::BitSelect,
                a: Src::Reg(m),
                b: Src::Reg(sh),
                c: s[3],
            });
            Ok(())
        })
    }

    /// Sets [`P_COND`] to "component `.x`-selected value of `op` is non-zero".
    fn condition(&mut self, inst: &ast::Inst) -> Result<Cond, LowerError> {
        let Some(op) = inst.operands.first() else {
            return Err(self.err(format!("`{}` needs an operand", inst.opcode.text())));
        };
        let v = self.src(op, 0, Ty::Int)?;
        let a = match v {
            Src::Reg(r) => r,
            other => {
                let t = self.scratch()?;
                self.emit(Mov { d: t, b: other });
                t
            }
        };
        self.emit(Isetp {
            cmp: Cmp::Ne,
            unsigned: true,
            x: false,
            bop: BoolOp::And,
            p: P_COND,
            q: Pred::PT,
            a,
            b: Src::Reg(Reg::RZ),
            c: PredSrc::TRUE,
        });
        let neg = match inst.test {
            Some(Test::NonZero) => false,
            Some(Test::Zero) => true,
            None => return Err(self.err("a conditional instruction needs `_z` or `_nz`")),
        };
        Ok(Cond {
            guard: Guard(PredSrc { pred: P_COND, neg }),
            cc: None,
        })
    }

    /// Lowers an instruction: arithmetic ([`Self::arith`]), resources ([`Self::resource`]),
    /// then control flow and the stage's own instructions ([`Self::control`], in
    /// `lower/control.rs`).
    fn inst(&mut self, inst: &ast::Inst) -> Result<(), LowerError> {
        if self.arith(inst)? || self.resource(inst)? || self.control(inst)? {
            return Ok(());
        }
        Err(self.err(format!("unsupported instruction {}", inst.opcode.text())))
    }

    /// Lowers a move, float or integer arithmetic, or conversion instruction; `false` if `inst`
    /// is none of them.
    fn arith(&mut self, inst: &ast::Inst) -> Result<bool, LowerError> {
        use Opcode as O;
        match inst.opcode {
            O::Mov => self.per_component(inst, &[Ty::Float], |l: &mut Self, d, s: &[Src]| {
                l.emit(Mov { d, b: s[0] });
                Ok(())
            })?,
            O::Movc => self.tern(inst, TernFn::Movc, [Ty::Int, Ty::Float, Ty::Float])?,
            O::Swapc => self.two_dests(
                inst,
                &[Ty::Int, Ty::Float, Ty::Float],
                [
                    &|d, s| tern_op(d, TernFn::Movc, s[0], s[2], s[1]),
                    &|d, s| tern_op(d, TernFn::Movc, s[0], s[1], s[2]),
                ],
            )?,
            // Float arithmetic.
            O::Add => self.bin(inst, BinFn::Add, Ty::Float)?,
            O::Mul => self.bin(inst, BinFn::Mul, Ty::Float)?,
            O::Div => self.bin(inst, BinFn::Div, Ty::Float)?,
            O::Min => self.bin(inst, BinFn::Min, Ty::Float)?,
            O::Max => self.bin(inst, BinFn::Max, Ty::Float)?,
            O::Eq => self.bin(inst, BinFn::Eq, Ty::Float)?,
            O::Ne => self.bin(inst, BinFn::Ne, Ty::Float)?,
            O::Lt => self.bin(inst, BinFn::Lt, Ty::Float)?,
            O::Ge => self.bin(inst, BinFn::Ge, Ty::Float)?,
            O::Mad => self.tern(inst, TernFn::Mad, [Ty::Float; 3])?,
            O::Dp2 => self.dot(inst, 2)?,
            O::Dp3 => self.dot(inst, 3)?,
            O::Dp4 => self.dot(inst, 4)?,
            O::Sqrt => self.un(inst, UnFn::Sqrt, Ty::Float)?,
            O::Rsq => self.un(inst, UnFn::Rsq, Ty::Float)?,
            O::Rcp => self.un(inst, UnFn::Rcp, Ty::Float)?,
            O::Exp => self.un(inst, UnFn::Exp, Ty::Float)?,
            O::Log => self.un(inst, UnFn::Log, Ty::Float)?,
            O::Frc => self.un(inst, UnFn::Frc, Ty::Float)?,
            O::RoundNe => self.un(inst, UnFn::RoundNe, Ty::Float)?,
            O::RoundNi => self.un(inst, UnFn::RoundNi, Ty::Float)?,
            O::RoundPi => self.un(inst, UnFn::RoundPi, Ty::Float)?,
            O::RoundZ => self.un(inst, UnFn::RoundZ, Ty::Float)?,
            O::Sincos => self.two_dests(
                inst,
                &[Ty::Float],
                [&|d, s| un_op(d, UnFn::Sin, s[0]), &|d, s| {
                    un_op(d, UnFn::Cos, s[0])
                }],
            )?,
            // Conversions.
            O::Ftoi => self.un(inst, UnFn::Ftoi, Ty::Float)?,
            O::Ftou => self.un(inst, UnFn::Ftou, Ty::Float)?,
            O::Itof => self.un(inst, UnFn::Itof, Ty::Int)?,
            O::Utof => self.un(inst, UnFn::Utof, Ty::Int)?,
            O::F32ToF16 => self.un(inst, UnFn::F32ToF16, Ty::Float)?,
            O::F16ToF32 => self.un(inst, UnFn::F16ToF32, Ty::Int)?,
            // Integer arithmetic and bits.
            O::Iadd => self.bin(inst, BinFn::Iadd, Ty::Int)?,
            O::Ineg => self.un(inst, UnFn::Ineg, Ty::Int)?,
            O::Imad | O::Umad => self.tern(inst, TernFn::Imad, [Ty::Int; 3])?,
            O::Imul => self.bin_pair(inst, BinFn::ImulHi, BinFn::MulLo)?,
            O::Umul => self.bin_pair(inst, BinFn::UmulHi, BinFn::MulLo)?,
            O::Udiv => self.bin_pair(inst, BinFn::Udiv, BinFn::Urem)?,
            O::Uaddc => self.bin_pair(inst, BinFn::Iadd, BinFn::AddCarry)?,
            O::Usubb => self.bin_pair(inst, BinFn::Isub, BinFn::SubBorrow)?,
            O::And => self.bin(inst, BinFn::And, Ty::Int)?,
            O::Or => self.bin(inst, BinFn::Or, Ty::Int)?,
            O::Xor => self.bin(inst, BinFn::Xor, Ty::Int)?,
            O::Not => self.un(inst, UnFn::Not, Ty::Int)?,
            O::Ishl => self.bin(inst, BinFn::Ishl, Ty::Int)?,
            O::Ishr => self.bin(inst, BinFn::Ishr, Ty::Int)?,
            O::Ushr => self.bin(inst, BinFn::Ushr, Ty::Int)?,
            O::Imin => self.bin(inst, BinFn::Imin, Ty::Int)?,
            O::Imax => self.bin(inst, BinFn::Imax, Ty::Int)?,
            O::Umin => self.bin(inst, BinFn::Umin, Ty::Int)?,
            O::Umax => self.bin(inst, BinFn::Umax, Ty::Int)?,
            O::Ieq => self.bin(inst, BinFn::Ieq, Ty::Int)?,
            O::Ine => self.bin(inst, BinFn::Ine, Ty::Int)?,
            O::Ilt => self.bin(inst, BinFn::Ilt, Ty::Int)?,
            O::Ige => self.bin(inst, BinFn::Ige, Ty::Int)?,
            O::Ult => self.bin(inst, BinFn::Ult, Ty::Int)?,
            O::Uge => self.bin(inst, BinFn::Uge, Ty::Int)?,
            O::Ubfe => self.tern(inst, TernFn::Ubfe, [Ty::Int; 3])?,
            O::Ibfe => self.tern(inst, TernFn::Ibfe, [Ty::Int; 3])?,
            O::Msad => self.tern(inst, TernFn::Msad, [Ty::Int; 3])?,
            O::Bfi => self.bfi(inst)?,
            O::Bfrev => self.un(inst, UnFn::Bfrev, Ty::Int)?,
            O::CountBits => self.un(inst, UnFn::CountBits, Ty::Int)?,
            O::FirstBitHi => self.un(inst, UnFn::FirstBitHi, Ty::Int)?,
            O::FirstBitLo => self.un(inst, UnFn::FirstBitLo, Ty::Int)?,
            O::FirstBitShi => self.un(inst, UnFn::FirstBitShi, Ty::Int)?,
            O::Nop => {}
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The component of a source that the destination's component `comp` reads.
fn source_component(c: Components, comp: u8) -> u8 {
    match c {
        Components::Swizzle(s) => s[comp as usize & 3],
        Components::Select(k) => k,
        Components::Mask(_) | Components::One | Components::Zero => comp,
    }
}

/// Whether `op` (or a register in its indices) names register file `f`.
fn uses_file(op: &ast::Operand, f: RegFile) -> bool {
    match &op.value {
        OperandValue::Reg { file, indices } => {
            *file == f
                || indices.iter().any(|i| match i {
                    Index::Imm(_) => false,
                    Index::Reg(o) | Index::RegPlus(o, _) => uses_file(o, f),
                })
        }
        OperandValue::Imm32(_) => false,
    }
}

fn un_op(d: Reg, f: UnFn, a: Src) -> Op {
    Un { d, f, a }.into()
}

fn bin_op(d: Reg, f: BinFn, a: Src, b: Src) -> Op {
    Bin { d, f, a, b }.into()
}

fn tern_op(d: Reg, f: TernFn, a: Src, b: Src, c: Src) -> Op {
    Tern { d, f, a, b, c }.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(insts: Vec<ast::Inst>) -> ast::Program {
        let mut statements = vec![ast::Statement::Decl(Decl::ThreadGroup([1, 1, 1]))];
        statements.extend(insts.into_iter().map(ast::Statement::Inst));
        ast::Program {
            version: ast::Version {
                stage: ast::Stage::Compute,
                major: 5,
                minor: 0,
            },
            statements,
        }
    }

    /// Found by the dxbc fuzz target: a container can encode an instruction with fewer operands
    /// than its opcode takes; the lowering refuses it instead of indexing past them.
    #[test]
    fn instructions_with_too_few_operands_are_errors() {
        for op in [
            Opcode::Mov,
            Opcode::Add,
            Opcode::Mad,
            Opcode::Bfi,
            Opcode::Dp3,
        ] {
            let e = lower(&program(vec![ast::Inst::new(op, vec![])]), &[]).unwrap_err();
            assert_eq!(e.stmt, Some(1), "{op:?}");
            assert!(
                e.message.contains("operand") || e.message.contains("takes"),
                "{op:?}: {}",
                e.message
            );
        }
    }
}
