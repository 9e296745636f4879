//! The intermediate form every front-end lowers into and every engine runs.
//!
//! A [`Program`] is a list of basic [`Block`]s. A block is a straight run of guarded per-lane
//! [`Inst`]s (each an [`Op`] from the op table in [`ops`]) ending in exactly one [`Terminator`],
//! which is the only place control flow happens. Instructions keep their source location and their
//! guest `pc` (byte address for SASS), so faults and diagnostics point back at the text.
//!
//! Each op declares its operands by role ([`roles`]); [`regs`] and the analyses derive from
//! that. The IR holds no front-end spelling: SASS mnemonics and modifier names are in
//! `crate::sass::spelling`.

pub mod build;
pub mod cc;
pub mod operand;
pub mod ops;
pub mod regs;
pub mod roles;

pub use cc::CcExpr;
pub use operand::*;
pub use ops::*;
pub use regs::RegUse;
pub use roles::{Dir, Flag, MemRole, Operands, Roles, Space, Visitor};

use std::fmt;

/// Index of a block in [`Program::blocks`].
pub type BlockId = u32;

/// A location in source text: 1-based line and column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SrcLoc {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

/// The per-lane guard of an instruction: `@P0`, `@!P0`, or none (`@PT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guard(pub PredSrc);

impl Guard {
    /// No guard.
    pub const ALWAYS: Guard = Guard(PredSrc::TRUE);
    /// True when the guard is `@PT` (no guard written).
    pub fn is_always(self) -> bool {
        self.0 == PredSrc::TRUE
    }
}

impl fmt::Display for Guard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_always() {
            Ok(())
        } else {
            write!(f, "@{} ", self.0)
        }
    }
}

/// One guarded per-lane instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    /// Lanes for which the guard is false do nothing.
    pub guard: Guard,
    /// The operation.
    pub op: Op,
    /// Guest program counter (SASS: byte address; DXBC: instruction index).
    pub pc: u32,
    /// Where the instruction's text starts.
    pub loc: SrcLoc,
}

/// The reduction of a `BAR.RED`: what the barrier computes over the predicate of every thread
/// that arrives with it (docs/semantics.md §30).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarRedOp {
    /// `.POPC`: the number of arriving threads whose predicate holds.
    Popc,
    /// `.AND`: 1 if the predicate holds in every arriving thread, else 0.
    And,
    /// `.OR`: 1 if the predicate holds in some arriving thread, else 0.
    Or,
}

impl BarRedOp {
    /// In encoding order.
    pub const ALL: [BarRedOp; 3] = [BarRedOp::Popc, BarRedOp::And, BarRedOp::Or];
}

/// `BAR.RED.op`'s reduction and the predicate each arriving thread contributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BarRed {
    /// The reduction.
    pub op: BarRedOp,
    /// The predicate reduced (`!P0` inverts it).
    pub pred: PredSrc,
}

/// A lane condition of a control instruction: the guard and an optional `CC.EQ`/`CC.NE` test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cond {
    /// The `@P` guard.
    pub guard: Guard,
    /// The condition-code test, ANDed with the guard.
    pub cc: Option<CcTest>,
}

impl Cond {
    /// Always true.
    pub const ALWAYS: Cond = Cond {
        guard: Guard::ALWAYS,
        cc: None,
    };
    /// True when the condition holds for every lane.
    pub fn is_always(self) -> bool {
        self.guard.is_always() && self.cc.is_none()
    }
}

/// The kinds of reconvergence-stack entry: a region of code whose lanes wait, at a
/// [`Terminator::Wait`] of the same kind, until every lane of the region has arrived or exited
/// (docs/semantics.md §7). A [`Region::Call`] is a called subroutine: its push jumps to the
/// callee and its entry resumes at the return point (see [`Region::resumes_at`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Region {
    /// Reconvergence after divergent code (SASS `SSY` / `SYNC`; DXBC `if`, `switch` cases).
    Sync,
    /// A loop's exit (SASS `PBK` / `BRK`; DXBC `loop` / `break`, `switch` / `break`).
    Break,
    /// A loop iteration's end (SASS `PCNT` / `CONT`; DXBC `continue`).
    Continue,
    /// A subroutine call (SASS `CAL` / `RET`): the entry holds the return point.
    Call,
}

impl Region {
    /// Every kind.
    pub const ALL: [Region; 4] = [Region::Sync, Region::Break, Region::Continue, Region::Call];

    /// For a [`Terminator::Push`] of this kind with `target` and `next`: the block control goes
    /// to now, and the block the pushed entry resumes at when it is popped. `SSY`, `PBK` and
    /// `PCNT` continue at `next` and resume at `target`; `CAL` jumps to `target` (the callee)
    /// and resumes at `next` (the return point).
    pub fn resumes_at(self, target: BlockId, next: BlockId) -> (BlockId, BlockId) {
        match self {
            Region::Call => (target, next),
            Region::Sync | Region::Break | Region::Continue => (next, target),
        }
    }
}

/// How a block ends. Each variant documents which lanes go where.
///
/// Warp-level control follows Maxwell's reconvergence stack (docs/semantics.md §7): when the active
/// mask becomes empty (every lane exited or waits), the warp pops the stack; an empty
/// stack ends the warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Terminator {
    /// Fall through or `BRA` unconditionally to a block.
    Jump {
        /// The next block.
        target: BlockId,
        /// pc of the written `BRA`, or `None` for an implicit fall-through (not an instruction).
        pc: Option<u32>,
    },
    /// A conditional `BRA`: lanes where `cond` holds go to `taken`, the others to `fallthrough`.
    /// If both sets are non-empty the warp diverges: the taken lanes run first and the
    /// fall-through lanes are pushed on the stack.
    Branch {
        /// Which lanes take the branch.
        cond: Cond,
        /// Branch target.
        taken: BlockId,
        /// Next block in program order.
        fallthrough: BlockId,
        /// pc of the BRA.
        pc: u32,
    },
    /// Push a stack entry of kind `region` (SASS `SSY`, `PBK`, `PCNT`) holding `target` and the
    /// current active mask, then continue at `next`. A call (`region` [`Region::Call`], SASS
    /// `CAL`) is the other way round: its entry holds `next` (the return point) and the active
    /// lanes continue at `target` (the callee); [`Region::resumes_at`] says which is which.
    Push {
        /// Which kind of entry (which waits resume at it).
        region: Region,
        /// The written target: where the entry's lanes continue when it is popped (for a call,
        /// where the lanes go now: the callee).
        target: BlockId,
        /// Next block in program order (for a call, the return point the entry holds).
        next: BlockId,
        /// pc of the instruction.
        pc: u32,
    },
    /// Lanes where `cond` holds wait at the innermost entry of kind `region` (SASS `SYNC`, `BRK`,
    /// `CONT`, `RET`): they leave the active mask and every entry above that one, and continue
    /// where it resumes when it is popped. The others continue at `next`. With no such entry
    /// pending, `SYNC`, `BRK` and `CONT` do nothing; a `RET` for which some active lane's
    /// condition holds is a fault.
    Wait {
        /// Which kind of entry the lanes wait at.
        region: Region,
        /// Which lanes wait.
        cond: Cond,
        /// Next block in program order (for lanes that do not wait).
        next: BlockId,
        /// pc of the instruction.
        pc: u32,
    },
    /// `EXIT`: lanes where `cond` holds end; the others continue at `next` (if there is no next
    /// block, they end too).
    Exit {
        /// Which lanes exit.
        cond: Cond,
        /// Next block in program order.
        next: Option<BlockId>,
        /// pc of the EXIT, or `None` for the implicit exit at the end of the text (not an
        /// instruction: a program that runs off its end exits there).
        pc: Option<u32>,
    },
    /// `BRX Ra offset` (SASS): an indirect branch whose target is per lane. Each lane where
    /// `cond` holds goes to `pc + 8 + Ra + offset` (its register as a signed 32-bit value), which must be one of the targets the program declares for it,
    /// [`Program::jump_tables`]`[table]` (`crate::semantics::brx_block`); a lane whose target is not faults (and the branch
    /// then has no effect). The others continue at `next`. The lanes are grouped by target
    /// block: if there is more than one group, the warp diverges as at a [`Terminator::Branch`]:
    /// the group of the lowest lane runs first, the others (in the order of their lowest
    /// lanes), then the lanes that go to `next`, are pushed on the stack (docs/semantics.md §7).
    Brx {
        /// Which lanes branch (the guard and a CC test).
        cond: Cond,
        /// The register holding each lane's offset (a jump table's entry).
        reg: Reg,
        /// The immediate added to it (24-bit signed: ptxas writes minus the pc of the next
        /// instruction, so that the register holds the target's address in the code).
        offset: i32,
        /// Index in [`Program::jump_tables`] of the targets the branch may go to.
        table: u32,
        /// Next block in program order, for lanes whose condition fails (`None` when the
        /// condition always holds).
        next: Option<BlockId>,
        /// pc of the BRX.
        pc: u32,
    },
    /// `BAR.SYNC id` (or `BAR.RED.op id, Pp`): if any active lane's guard holds, the warp
    /// arrives at barrier `id` and waits until every warp of its CTA with live threads has
    /// arrived; then continues at `next`. With a reduction, the arriving lanes (active, guard
    /// true) contribute their predicate, and every warp that arrived with a reduction gets the
    /// result for `B2R.RESULT` (docs/semantics.md §30).
    Barrier {
        /// Barrier index (0..=15).
        id: u8,
        /// Guard of the BAR.
        cond: Cond,
        /// The reduction of `BAR.RED` (`None`: `BAR.SYNC` or `BAR.ARV`).
        red: Option<BarRed>,
        /// The thread count (`BAR.SYNC id, count`): the barrier completes once `count` threads
        /// have arrived, counted a warp (32) per arrival; 0 means every live warp of the CTA.
        count: u32,
        /// `BAR.ARV id, count`: the warp arrives and goes on without waiting.
        arrive: bool,
        /// Next block.
        next: BlockId,
        /// pc of the BAR.
        pc: u32,
    },
}

impl Terminator {
    /// The pc of the control instruction, if the terminator is one (counts as an instruction).
    pub fn pc(&self) -> Option<u32> {
        match *self {
            Terminator::Jump { pc, .. } | Terminator::Exit { pc, .. } => pc,
            Terminator::Branch { pc, .. }
            | Terminator::Brx { pc, .. }
            | Terminator::Push { pc, .. }
            | Terminator::Wait { pc, .. }
            | Terminator::Barrier { pc, .. } => Some(pc),
        }
    }

    /// Blocks control may go to from here (`p` is the program the terminator belongs to, which
    /// holds an indirect branch's targets): for a push, both the block it continues at and the
    /// block its entry resumes at (for a call, the callee and the return point); for a wait,
    /// only `next` (where a waiting lane resumes depends on the stack); for a `BRX`, every
    /// target it declares and `next`.
    pub fn successors(&self, p: &Program) -> Vec<BlockId> {
        match *self {
            Terminator::Jump { target, .. } => vec![target],
            Terminator::Branch {
                taken, fallthrough, ..
            } => vec![taken, fallthrough],
            Terminator::Brx { table, next, .. } => {
                let mut s: Vec<BlockId> = p
                    .jump_tables
                    .get(table as usize)
                    .map(|t| t.targets.iter().map(|&(_, b)| b).collect())
                    .unwrap_or_default();
                s.extend(next);
                s
            }
            Terminator::Push { target, next, .. } => vec![next, target],
            Terminator::Wait { next, .. } | Terminator::Barrier { next, .. } => vec![next],
            Terminator::Exit { next, .. } => next.into_iter().collect(),
        }
    }
}

/// A basic block: straight-line instructions and one terminator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The instructions, in order.
    pub insts: Vec<Inst>,
    /// How the block ends.
    pub term: Terminator,
    /// pc of the block's first instruction (or of its terminator when empty).
    pub pc: u32,
    /// Label names that point at this block (for printing).
    pub labels: Vec<String>,
}

/// The source language of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// Maxwell SASS.
    Sass,
    /// Direct3D shader bytecode assembly.
    Dxbc,
}

/// A whole program in IR form. Block 0 is the entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// Source language.
    pub isa: Isa,
    /// Basic blocks; execution starts at block 0.
    pub blocks: Vec<Block>,
    /// Number of general registers the launch gives the program.
    pub registers: u32,
    /// What the program asks of a launch beyond its code.
    pub interface: Interface,
    /// Where each guest instruction's text starts, by pc (sorted by pc): every per-lane and
    /// control instruction of a text program; empty for a binary. Fault reports name the line.
    pub lines: Vec<(u32, SrcLoc)>,
    /// The registers a thread may read before writing them (live into the entry block), worked
    /// out by `exec::grid::registers_to_clear` on the program's first launch and kept for the
    /// later ones (a trace may launch one 4 MiB program many times). Not part of the program's
    /// meaning: see [`Memo`]. Make it empty ([`Memo::default`]).
    pub entry_reads: Memo<Vec<u8>>,
    /// The targets of each indirect branch ([`Terminator::Brx`]`::table` indexes it); empty
    /// for a program without one.
    pub jump_tables: Vec<JumpTable>,
}

/// The targets an indirect branch ([`Terminator::Brx`]) may go to, as its program declares them
/// (a cubin's `EIATTR_INDIRECT_BRANCH_TARGETS`, a listing's `BRANCH_TARGETS` note).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JumpTable {
    /// Each target's pc (an instruction's) and its block, sorted by pc, without duplicates.
    pub targets: Vec<(u32, BlockId)>,
}

impl Program {
    /// Whether an instruction of the program (a per-lane or a written control instruction)
    /// is at `pc`. A search through every block: for messages, not for running.
    pub fn has_instruction_at(&self, pc: u32) -> bool {
        self.blocks
            .iter()
            .any(|b| b.insts.iter().any(|i| i.pc == pc) || b.term.pc() == Some(pc))
    }

    /// The pcs of the program's first and last instructions (`None` without any).
    pub fn pc_extent(&self) -> Option<(u32, u32)> {
        let pcs = self
            .blocks
            .iter()
            .flat_map(|b| b.insts.iter().map(|i| i.pc).chain(b.term.pc()));
        pcs.fold(None, |r, pc| match r {
            None => Some((pc, pc)),
            Some((lo, hi)) => Some((lo.min(pc), hi.max(pc))),
        })
    }
}

/// A value worked out from a [`Program`] on first use and kept with it. It is derived from the
/// program, not part of it: programs compare equal whatever their memos hold, and a clone
/// starts empty (a clone may be edited, and must not keep what was worked out from the
/// original).
#[derive(Debug)]
pub struct Memo<T>(std::sync::OnceLock<T>);

impl<T> Memo<T> {
    /// The value, worked out by `f` on the first call (concurrent first calls run one `f`).
    pub fn get_or_init(&self, f: impl FnOnce() -> T) -> &T {
        self.0.get_or_init(f)
    }

    /// The value, if worked out already.
    pub fn get(&self) -> Option<&T> {
        self.0.get()
    }
}

impl<T> Default for Memo<T> {
    fn default() -> Self {
        Memo(std::sync::OnceLock::new())
    }
}

impl<T> Clone for Memo<T> {
    fn clone(&self) -> Self {
        Memo::default()
    }
}

impl<T> PartialEq for Memo<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> Eq for Memo<T> {}

impl Program {
    /// Where the guest instruction at `pc` starts in the program's text, if known.
    pub fn line_of(&self, pc: u32) -> Option<SrcLoc> {
        let i = self.lines.binary_search_by_key(&pc, |l| l.0).ok()?;
        Some(self.lines[i].1)
    }
}

/// What a program asks of the launch that runs it: its thread-group shape, shared memory, and
/// the resource views it declares (for a SASS text program, nothing).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interface {
    /// The threads per CTA the program is written for (DXBC `dcl_thread_group`).
    pub block: Option<[u32; 3]>,
    /// Shared memory the program needs: its `g#` ranges (the first
    /// [`tgsm_bytes`](Self::tgsm_bytes)), then the private `x#` arrays of every thread
    /// ([`View::Temp`]) from the next 16-byte boundary.
    pub shared_bytes: u32,
    /// The part of [`shared_bytes`](Self::shared_bytes) the program's `g#` declarations take
    /// (what a trace's `shared_bytes` must cover).
    pub tgsm_bytes: u32,
    /// The resource views it declares.
    pub views: Vec<ViewDecl>,
    /// For a program run over invocations (a DXBC vertex, geometry or pixel shader: 32 a CTA, their
    /// number in constant bank [`INVOCATIONS_BANK`] word 0), how many `v#` and `o#` registers
    /// each reads and writes (the [`View::Input`] and [`View::Output`] structures, 16 bytes a
    /// register).
    pub invocations: Option<StageIo>,
    /// The special input and output registers the program declares (`vCoverage`, `oDepth`,
    /// ...), each a record slot after the numbered ones (counted in [`StageIo`]).
    pub named_io: Vec<NamedIo>,
    /// The samplers it declares.
    pub samplers: Vec<SamplerDecl>,
    /// A pixel shader's declared inputs (empty for the other stages).
    pub pixel_inputs: Vec<PixelInput>,
}

/// A special input or output register of a program run over invocations: which record slot
/// holds it (after the numbered `v#` or `o#`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NamedIo {
    /// Its name as the program and a trace spell it (`vCoverage`, `oDepth`, ...).
    pub name: &'static str,
    /// An output (`o...`) rather than an input.
    pub output: bool,
    /// Its slot among the inputs or outputs.
    pub slot: u32,
}

/// The constant bank whose word 0 holds a launch's invocation count.
pub const INVOCATIONS_BANK: u8 = 17;

/// The `v#` and `o#` registers of a program run over invocations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StageIo {
    /// `v0` to `v{inputs-1}`.
    pub inputs: u32,
    /// `o0` to `o{outputs-1}`.
    pub outputs: u32,
    /// Input vertices per invocation: 1, or a geometry shader's primitive's vertex count (its
    /// `v[vertex][reg]`).
    pub vertices_in: u32,
    /// Output records per invocation: 1 (the `o#` at its end), or a geometry shader's
    /// `dcl_maxout` (one per `emit`).
    pub vertices_out: u32,
    /// A pixel shader's hidden input slot (the last of `inputs`): word 0 is 1 for a pixel and
    /// 0 for a helper invocation of its 2x2 quad (docs/semantics.md §33). `None` for the other
    /// stages.
    pub live: Option<u32>,
}

/// How a pixel shader reads one of its `v#` registers, for filling the inputs of helper
/// invocations and a position the trace does not give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelInput {
    /// The register (`v#`).
    pub reg: u32,
    /// Declared `constant` (or an integer system value): a helper copies a pixel's value;
    /// otherwise the value is interpolated, and a helper's is extrapolated.
    pub constant: bool,
    /// The `position` system value (`SV_Position`).
    pub position: bool,
}

/// A declared `t#` or `u#` view, for checking what a launch binds to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewDecl {
    /// `View::Srv(slot)` or `View::Uav(slot)`.
    pub view: View,
    /// What it is declared as.
    pub kind: ViewKind,
}

/// What a view is declared as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    /// A structured buffer of this stride.
    Structured(u32),
    /// A raw (byte-address) buffer.
    Raw,
    /// A typed buffer.
    TypedBuffer,
    /// A texture.
    Texture {
        /// Its dimension.
        dim: TextureKind,
        /// The declared sample count of a multisampled texture (0: any count).
        samples: u32,
    },
}

/// A texture's dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureKind {
    /// 1D.
    Tex1d,
    /// 1D array.
    Tex1dArray,
    /// 2D.
    Tex2d,
    /// 2D array.
    Tex2dArray,
    /// 2D multisampled.
    Tex2dMs,
    /// 2D multisampled array.
    Tex2dMsArray,
    /// 3D.
    Tex3d,
    /// Cube.
    Cube,
    /// Cube array.
    CubeArray,
}

impl TextureKind {
    /// Whether it is an array (its array index is an operand).
    pub fn is_array(self) -> bool {
        matches!(
            self,
            TextureKind::Tex1dArray
                | TextureKind::Tex2dArray
                | TextureKind::Tex2dMsArray
                | TextureKind::CubeArray
        )
    }
    /// Whether it is multisampled.
    pub fn is_multisample(self) -> bool {
        matches!(self, TextureKind::Tex2dMs | TextureKind::Tex2dMsArray)
    }
    /// Whether it is a cube or cube array.
    pub fn is_cube(self) -> bool {
        matches!(self, TextureKind::Cube | TextureKind::CubeArray)
    }
}

/// A declared sampler (`dcl_sampler s#, mode`), for checking what a launch binds to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerDecl {
    /// The `s#` slot.
    pub slot: u8,
    /// `mode_comparison`: the bound sampler must have a comparison filter (and `mode_default`:
    /// must not).
    pub comparison: bool,
}

impl Program {
    /// Total number of instructions (terminators excluded).
    pub fn inst_count(&self) -> usize {
        self.blocks.iter().map(|b| b.insts.len()).sum()
    }
}
