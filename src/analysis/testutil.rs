//! Small builders for hand-made IR programs in the analyses' tests.

use crate::ir::*;

/// An unguarded instruction.
pub fn inst(op: impl Into<Op>) -> Inst {
    Inst {
        guard: Guard::ALWAYS,
        op: op.into(),
        pc: 0,
        loc: SrcLoc::default(),
    }
}

/// `@Pn` / `@!Pn` instruction.
pub fn guarded(p: Pred, neg: bool, op: impl Into<Op>) -> Inst {
    Inst {
        guard: Guard(PredSrc { pred: p, neg }),
        op: op.into(),
        pc: 0,
        loc: SrcLoc::default(),
    }
}

/// A program from blocks (pcs filled in from positions), on which the analyses agree with
/// their reference versions ([`super::reference::assert_agree`]).
pub fn prog(blocks: Vec<Block>) -> Program {
    let mut blocks = blocks;
    let mut pc = 8;
    for b in &mut blocks {
        b.pc = pc;
        for i in &mut b.insts {
            i.pc = pc;
            pc += 8;
        }
        pc += 8;
    }
    let p = Program {
        isa: Isa::Sass,
        blocks,
        registers: 255,
        interface: Interface::default(),
        lines: Vec::new(),
        entry_reads: Default::default(),
        jump_tables: Vec::new(),
    };
    // Every hand-made program of the tests also checks the linear analyses against the
    // reference ones.
    super::reference::assert_agree(&p);
    p
}

/// A block.
pub fn blk(insts: Vec<Inst>, term: Terminator) -> Block {
    Block {
        insts,
        term,
        pc: 0,
        labels: Vec::new(),
    }
}

/// Register source.
pub fn sr(n: u8) -> Src {
    Src::Reg(Reg(n))
}

/// A condition on `@Pn` / `@!Pn`.
pub fn pcond(p: u8, neg: bool) -> Cond {
    Cond {
        guard: Guard(PredSrc { pred: Pred(p), neg }),
        cc: None,
    }
}

/// Unconditional jump.
pub fn jump(target: BlockId) -> Terminator {
    Terminator::Jump { target, pc: None }
}

/// Conditional branch.
pub fn br(cond: Cond, taken: BlockId, fallthrough: BlockId) -> Terminator {
    Terminator::Branch {
        cond,
        taken,
        fallthrough,
        pc: 0,
    }
}

/// Exit every lane.
pub fn exit() -> Terminator {
    Terminator::Exit {
        cond: Cond::ALWAYS,
        next: None,
        pc: None,
    }
}

/// Conditional EXIT.
pub fn exit_if(cond: Cond, next: BlockId) -> Terminator {
    Terminator::Exit {
        cond,
        next: Some(next),
        pc: Some(0),
    }
}

/// SSY.
pub fn ssy(reconverge: BlockId, next: BlockId) -> Terminator {
    push(Region::Sync, reconverge, next)
}

/// SSY, PBK, PCNT or CAL (whose `target` is the callee, `next` the return point).
pub fn push(region: Region, target: BlockId, next: BlockId) -> Terminator {
    Terminator::Push {
        region,
        target,
        next,
        pc: 0,
    }
}

/// SYNC (all lanes).
pub fn sync(next: BlockId) -> Terminator {
    sync_if(Cond::ALWAYS, next)
}

/// Conditional SYNC.
pub fn sync_if(cond: Cond, next: BlockId) -> Terminator {
    wait_if(Region::Sync, cond, next)
}

/// Conditional SYNC, BRK, CONT or RET.
pub fn wait_if(region: Region, cond: Cond, next: BlockId) -> Terminator {
    Terminator::Wait {
        region,
        cond,
        next,
        pc: 0,
    }
}

/// `MOV Rd, Sb`.
pub fn mov(d: u8, b: Src) -> Op {
    Mov { d: Reg(d), b }.into()
}

/// `MOV32I Rd, imm`.
pub fn movi(d: u8, imm: u32) -> Op {
    Mov {
        d: Reg(d),
        b: Src::Imm32(imm),
    }
    .into()
}

/// `S2R Rd, sr`.
pub fn s2r(d: u8, sr: SpecialReg) -> Op {
    S2r { d: Reg(d), sr }.into()
}

/// `IADD[.X] Rd[.CC], Ra, Sb`.
pub fn iadd_cc(d: u8, a: u8, b: Src, cc: bool, x: bool) -> Op {
    Iadd {
        d: Reg(d),
        sat: false,
        cc,
        x,
        po: false,
        neg_a: false,
        a: Reg(a),
        neg_b: false,
        b,
    }
    .into()
}

/// `IADD Rd, Ra, Sb`.
pub fn iadd(d: u8, a: u8, b: Src) -> Op {
    iadd_cc(d, a, b, false, false)
}

/// `ISETP.cmp.AND Pp, PT, Ra, Sb, PT`.
pub fn isetp(p: u8, cmp: Cmp, a: u8, b: Src) -> Op {
    Isetp {
        cmp,
        unsigned: false,
        x: false,
        bop: BoolOp::And,
        p: Pred(p),
        q: Pred::PT,
        a: Reg(a),
        b,
        c: PredSrc::TRUE,
    }
    .into()
}

/// `XMAD Rd, Ra, Sb, Sc`.
pub fn xmad(d: Reg, a: Reg, b: Src, c: Src) -> Xmad {
    Xmad {
        d,
        cc: false,
        a_signed: false,
        b_signed: false,
        psl: false,
        mrg: false,
        mode: XmadMode::None,
        a,
        a_h1: false,
        b,
        b_h1: false,
        c,
    }
}

/// `LOP.AND.NZ Pp, Rd, Ra, 0x1`.
pub fn lop_p(d: Reg, a: Reg, p: Pred) -> Op {
    Lop {
        func: LopFn::And,
        f: LogicCc::NONE,
        pout: PredOut::Nz,
        p: Some(p),
        d,
        not_a: false,
        a,
        not_b: false,
        b: Src::Imm(1),
    }
    .into()
}

/// `STG.E [Ra], Rv` (a 64-bit address in {Ra+1, Ra}).
pub fn stg(a: u8, v: u8) -> Op {
    Stg {
        e: true,
        cop: CacheOp::Default,
        size: MemSize::B32,
        addr: Addr {
            base: Some(Reg(a)),
            offset: 0,
        },
        v: Reg(v),
    }
    .into()
}

/// `LDG.E[.sz] Rd, [Ra]`.
pub fn ldg(d: u8, a: u8, size: MemSize) -> Op {
    Ldg {
        d: Reg(d),
        e: true,
        cop: CacheOp::Default,
        size,
        ps: None,
        addr: Addr {
            base: Some(Reg(a)),
            offset: 0,
        },
    }
    .into()
}
