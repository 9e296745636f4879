//! Checks the analyses against the reference interpreter on random programs.
//!
//! - Uniformity: a body runner checks, before each block and after each instruction, that every
//!   item reported uniform holds one value across the active lanes, that a block reported
//!   converged runs with every live lane active, and that a terminator condition reported uniform
//!   is the same in every active lane.
//! - Liveness: a body runner overwrites every item that is *not* live (in the active lanes) with
//!   junk before each block and after each instruction; the launch must still store the same
//!   global memory and end the same way (same fault or none, same instruction counts).

use std::sync::Arc;
use warpjit::analysis::liveness::{liveness, Liveness};
use warpjit::analysis::uniformity::{uniformity, Uniformity};
use warpjit::analysis::StateSet;
use warpjit::exec::warp::cond_mask;
use warpjit::exec::{run_grid, BodyRunner, CtaEnv, Launch, Machine, RunOptions, Stats};
use warpjit::interp::Interp;
use warpjit::ir::*;
use warpjit_runtime::memory::Init;
use warpjit_runtime::{BankMode, ConstBanks, Fault, WarpState, LANES};

/// Output area: each thread owns 64 words at `OUT + 256 * (ctaid * 32 + tid)`.
const OUT: u32 = 0x10000;
const OUT_BYTES: u64 = 0x10000;
/// The registers random code uses (R20/R21 hold the output base, written once).
const NREGS: u8 = 8;
const BASE: Reg = Reg(20);

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len() as u64) as usize]
    }
}

fn rreg(g: &mut Rng) -> Reg {
    match g.below(12) {
        0 => Reg::RZ,
        1 => BASE,
        _ => Reg(g.below(NREGS as u64) as u8),
    }
}

fn dreg(g: &mut Rng) -> Reg {
    Reg(g.below(NREGS as u64) as u8)
}

fn psrc(g: &mut Rng) -> PredSrc {
    let pred = if g.chance(15) {
        Pred::PT
    } else {
        Pred(g.below(4) as u8)
    };
    PredSrc {
        pred,
        neg: g.chance(30),
    }
}

fn pdst(g: &mut Rng) -> Pred {
    if g.chance(10) {
        Pred::PT
    } else {
        Pred(g.below(4) as u8)
    }
}

fn src(g: &mut Rng) -> Src {
    match g.below(6) {
        0 => Src::Imm(g.pick(&[0, 1, 2, 3, 0x10, 0xffff_ffff, 0x8000_0000, 0x101])),
        1 => Src::Const(ConstRef {
            bank: 0,
            offset: 4 * g.below(16) as u16,
        }),
        _ => Src::Reg(rreg(g)),
    }
}

fn small_imm(g: &mut Rng) -> Src {
    Src::Imm(g.pick(&[0, 1, 2, 5, 0x808, 0x1f, 0xfff]))
}

fn out_addr(g: &mut Rng, align: i32) -> Addr {
    let slot = g.below(64) as i32 * 4;
    Addr {
        base: Some(BASE),
        offset: slot / align * align,
    }
}

fn random_op(g: &mut Rng) -> Op {
    let d = dreg(g);
    let a = rreg(g);
    let bool_op = |g: &mut Rng| g.pick(&[BoolOp::And, BoolOp::Or, BoolOp::Xor]);
    match g.below(30) {
        0 => Mov { d, b: src(g) }.into(),
        1 => Mov32i {
            d,
            imm: g.next() as u32 % 7,
        }
        .into(),
        2 => S2r {
            d,
            sr: g.pick(&SpecialReg::ALL),
        }
        .into(),
        3 | 4 => Iadd {
            d,
            cc: g.chance(50),
            x: g.chance(40),
            po: g.chance(10),
            neg_a: g.chance(20),
            a,
            neg_b: g.chance(20),
            b: src(g),
        }
        .into(),
        5 => Iadd32i {
            d,
            cc: g.chance(50),
            x: g.chance(40),
            po: false,
            neg_a: false,
            a,
            imm: g.next() as u32,
        }
        .into(),
        6 => {
            let h = |g: &mut Rng| g.pick(&[Half::None, Half::None, Half::H0, Half::H1]);
            Iadd3 {
                d,
                cc: g.chance(50),
                x: g.chance(40),
                shift: g.pick(&[Iadd3Shift::None, Iadd3Shift::Rs, Iadd3Shift::Ls]),
                a: Iadd3Src {
                    neg: g.chance(20),
                    src: a,
                    half: h(g),
                },
                b: Iadd3Src {
                    neg: g.chance(20),
                    src: src(g),
                    half: h(g),
                },
                c: Iadd3Src {
                    neg: g.chance(20),
                    src: rreg(g),
                    half: h(g),
                },
            }
            .into()
        }
        7 => Iscadd {
            d,
            cc: g.chance(40),
            po: false,
            neg_a: false,
            a,
            neg_b: false,
            b: src(g),
            shift: g.below(32) as u8,
        }
        .into(),
        8 => Xmad {
            d,
            cc: g.chance(40),
            a_signed: g.chance(30),
            b_signed: g.chance(30),
            psl: g.chance(30),
            mrg: g.chance(30),
            mode: g.pick(&[XmadMode::None, XmadMode::Clo, XmadMode::Chi, XmadMode::Cbcc]),
            a,
            a_h1: g.chance(50),
            b: src(g),
            b_h1: g.chance(50),
            c: src(g),
        }
        .into(),
        9 => Shl {
            d,
            w: g.chance(50),
            a,
            b: small_imm(g),
        }
        .into(),
        10 => Shr {
            d,
            unsigned: g.chance(50),
            w: g.chance(50),
            brev: g.chance(20),
            a,
            b: src(g),
        }
        .into(),
        11 => Lop {
            func: g.pick(&[LopFn::And, LopFn::Or, LopFn::Xor, LopFn::PassB]),
            pout: g.pick(&[
                PredOut::None,
                PredOut::Z,
                PredOut::Nz,
                PredOut::T,
                PredOut::F,
            ]),
            p: if g.chance(50) { Some(pdst(g)) } else { None },
            d,
            not_a: g.chance(30),
            a,
            not_b: g.chance(30),
            b: src(g),
        }
        .into(),
        12 => Lop3 {
            pout: g.pick(&[PredOut::None, PredOut::Z, PredOut::Nz]),
            p: if g.chance(50) { Some(pdst(g)) } else { None },
            d,
            a,
            b: src(g),
            c: rreg(g),
            lut: g.next() as u8,
        }
        .into(),
        13 => Bfe {
            d,
            cc: g.chance(40),
            signed: g.chance(50),
            brev: g.chance(20),
            a,
            b: small_imm(g),
        }
        .into(),
        14 => Bfi {
            d,
            cc: g.chance(40),
            a,
            b: small_imm(g),
            c: src(g),
        }
        .into(),
        15 => Sel {
            d,
            a,
            b: src(g),
            p: psrc(g),
        }
        .into(),
        16 | 17 => Isetp {
            cmp: g.pick(&Cmp::ALL),
            unsigned: g.chance(50),
            x: g.chance(40),
            bop: bool_op(g),
            p: pdst(g),
            q: pdst(g),
            a,
            // Equal operands often: `.X` comparisons only look at ZF when the words are equal.
            b: if g.chance(40) { Src::Reg(a) } else { src(g) },
            c: psrc(g),
        }
        .into(),
        18 => Psetp {
            bop1: bool_op(g),
            bop2: bool_op(g),
            p: pdst(g),
            q: pdst(g),
            a: psrc(g),
            b: psrc(g),
            c: psrc(g),
        }
        .into(),
        19 => P2r {
            d,
            byte: g.below(4) as u8,
            src: if g.chance(50) { P2rSrc::Pr } else { P2rSrc::Cc },
            a,
            mask: if g.chance(70) {
                Src::Imm(g.next() as u32 & 0xff)
            } else {
                src(g)
            },
        }
        .into(),
        20 => Imnmx {
            d,
            unsigned: g.chance(50),
            a,
            b: src(g),
            p: psrc(g),
        }
        .into(),
        21 => Prmt {
            d,
            a,
            b: src(g),
            c: src(g),
        }
        .into(),
        22 | 23 => {
            let hi = g.chance(50);
            let cc = g.chance(50);
            Lea {
                hi,
                x: g.chance(50),
                cc,
                p: if !cc && g.chance(60) {
                    Some(pdst(g))
                } else {
                    None
                },
                d,
                neg_a: g.chance(20),
                a,
                b: src(g),
                c: if hi { rreg(g) } else { Reg::RZ },
                shift: g.below(32) as u8,
            }
            .into()
        }
        24 => {
            let size = g.pick(&[MemSize::U8, MemSize::B32, MemSize::B64]);
            let d = Reg(d.0 & !(size.regs() - 1));
            if g.chance(50) {
                Ldc {
                    d,
                    size,
                    mode: LdcMode::Ia,
                    bank: 0,
                    a: Reg::RZ,
                    imm: size.bytes() as i32 * g.below(8) as i32,
                }
                .into()
            } else {
                Ldc {
                    d,
                    size: MemSize::U8,
                    mode: g.pick(&[LdcMode::Ia, LdcMode::Il, LdcMode::Is]),
                    bank: 0,
                    a,
                    imm: g.below(64) as i32,
                }
                .into()
            }
        }
        25 => {
            let size = g.pick(&[MemSize::B32, MemSize::B64, MemSize::U16]);
            let d = Reg(d.0 & !(size.regs() - 1));
            let ps = if g.chance(30) { Some(pdst(g)) } else { None };
            Ldg {
                d,
                e: false,
                cop: CacheOp::Default,
                size,
                ps,
                addr: out_addr(g, size.bytes() as i32),
            }
            .into()
        }
        26 | 27 => Stg {
            e: false,
            cop: CacheOp::Default,
            size: MemSize::B32,
            addr: out_addr(g, 4),
            v: rreg(g),
        }
        .into(),
        28 => {
            if g.chance(50) {
                Lds {
                    d,
                    u: false,
                    size: MemSize::B32,
                    addr: Addr {
                        base: None,
                        offset: 4 * g.below(8) as i32,
                    },
                }
                .into()
            } else {
                Sts {
                    size: MemSize::B32,
                    addr: Addr {
                        base: None,
                        offset: 4 * g.below(8) as i32,
                    },
                    v: rreg(g),
                }
                .into()
            }
        }
        _ => {
            if g.chance(50) {
                Ld {
                    d,
                    e: false,
                    cop: CacheOp::Default,
                    size: MemSize::B32,
                    addr: out_addr(g, 4),
                    steer: PredSrc::TRUE,
                }
                .into()
            } else {
                St {
                    e: false,
                    cop: CacheOp::Default,
                    size: MemSize::B32,
                    addr: out_addr(g, 4),
                    v: rreg(g),
                    steer: PredSrc::TRUE,
                }
                .into()
            }
        }
    }
}

fn random_inst(g: &mut Rng) -> Inst {
    let guard = match g.below(10) {
        0..=6 => Guard::ALWAYS,
        7 if g.chance(15) => Guard(PredSrc {
            pred: Pred::PT,
            neg: true,
        }),
        _ => Guard(PredSrc {
            pred: Pred(g.below(4) as u8),
            neg: g.chance(50),
        }),
    };
    Inst {
        guard,
        op: random_op(g),
        pc: 0,
        loc: SrcLoc::default(),
    }
}

fn random_cond(g: &mut Rng) -> Cond {
    let guard = if g.chance(20) {
        Guard::ALWAYS
    } else {
        Guard(psrc(g))
    };
    let cc = if g.chance(20) {
        Some(if g.chance(50) { CcTest::Eq } else { CcTest::Ne })
    } else {
        None
    };
    Cond { guard, cc }
}

/// A random program: a prologue computing the output base, `k` random blocks, a final EXIT.
fn random_program(g: &mut Rng) -> Program {
    let k = 2 + g.below(7) as u32;
    let last = k + 1;
    let mut blocks = Vec::new();
    let prologue = vec![
        Op::from(S2r {
            d: BASE,
            sr: SpecialReg::TidX,
        }),
        S2r {
            d: Reg(21),
            sr: SpecialReg::CtaidX,
        }
        .into(),
        Iscadd {
            d: BASE,
            cc: false,
            po: false,
            neg_a: false,
            a: Reg(21),
            neg_b: false,
            b: Src::Reg(BASE),
            shift: 5,
        }
        .into(),
        Shl {
            d: BASE,
            w: false,
            a: BASE,
            b: Src::Imm(8),
        }
        .into(),
        Iadd {
            d: BASE,
            cc: false,
            x: false,
            po: false,
            neg_a: false,
            a: BASE,
            neg_b: false,
            b: Src::Imm(OUT),
        }
        .into(),
    ];
    let insts = prologue
        .into_iter()
        .chain(seeds())
        .map(|op| Inst {
            guard: Guard::ALWAYS,
            op,
            pc: 0,
            loc: SrcLoc::default(),
        })
        .collect();
    blocks.push(Block {
        insts,
        term: Terminator::Jump {
            target: 1,
            pc: None,
        },
        pc: 0,
        labels: vec![],
    });
    for b in 1..=k {
        let n = g.below(6) as usize;
        let insts = (0..n).map(|_| random_inst(g)).collect();
        let next = b + 1;
        let any = |g: &mut Rng| 1 + g.below(last as u64) as u32;
        let forward = |g: &mut Rng| next + g.below((last - b) as u64) as u32;
        let term = match g.below(12) {
            0 => Terminator::Jump {
                target: if g.chance(30) { any(g) } else { forward(g) },
                pc: Some(0),
            },
            1..=3 => Terminator::Branch {
                cond: random_cond(g),
                taken: if g.chance(25) { any(g) } else { forward(g) },
                fallthrough: next,
                pc: 0,
            },
            4 | 5 => Terminator::Ssy {
                reconverge: forward(g),
                next,
                pc: 0,
            },
            6 | 7 => Terminator::Sync {
                cond: if g.chance(60) {
                    Cond::ALWAYS
                } else {
                    random_cond(g)
                },
                next,
                pc: 0,
            },
            8 => Terminator::Exit {
                cond: random_cond(g),
                next: Some(next),
                pc: Some(0),
            },
            9 => Terminator::Barrier {
                id: 0,
                cond: random_cond(g),
                next,
                pc: 0,
            },
            _ => Terminator::Jump {
                target: next,
                pc: None,
            },
        };
        blocks.push(Block {
            insts,
            term,
            pc: 0,
            labels: vec![],
        });
    }
    blocks.push(Block {
        insts: vec![],
        term: Terminator::Exit {
            cond: Cond::ALWAYS,
            next: None,
            pc: None,
        },
        pc: 0,
        labels: vec![],
    });
    let mut pc = 8;
    for b in &mut blocks {
        b.pc = pc;
        for i in &mut b.insts {
            i.pc = pc;
            pc += 8;
        }
        pc += 8;
    }
    Program {
        isa: Isa::Sass,
        blocks,
        registers: 255,
    }
}

/// Values for random code to start from: R0 = tid.x, R1 = ctaid.x, R2 = laneid * 3,
/// P0 = tid.x odd, P1 = tid.x < 5 (not uniform), P2 = ctaid.x == 0 (uniform).
fn seeds() -> Vec<Op> {
    let lop = |p: u8, a: u8, b: u32| -> Op {
        Lop {
            func: LopFn::And,
            pout: PredOut::Nz,
            p: Some(Pred(p)),
            d: Reg::RZ,
            not_a: false,
            a: Reg(a),
            not_b: false,
            b: Src::Imm(b),
        }
        .into()
    };
    let isetp = |p: u8, cmp: Cmp, a: u8, b: u32| -> Op {
        Isetp {
            cmp,
            unsigned: true,
            x: false,
            bop: BoolOp::And,
            p: Pred(p),
            q: Pred::PT,
            a: Reg(a),
            b: Src::Imm(b),
            c: PredSrc::TRUE,
        }
        .into()
    };
    vec![
        S2r {
            d: Reg(0),
            sr: SpecialReg::TidX,
        }
        .into(),
        S2r {
            d: Reg(1),
            sr: SpecialReg::CtaidX,
        }
        .into(),
        S2r {
            d: Reg(2),
            sr: SpecialReg::LaneId,
        }
        .into(),
        Iscadd {
            d: Reg(2),
            cc: false,
            po: false,
            neg_a: false,
            a: Reg(2),
            neg_b: false,
            b: Src::Reg(Reg(2)),
            shift: 1,
        }
        .into(),
        lop(0, 0, 1),
        isetp(1, Cmp::Lt, 0, 5),
        isetp(2, Cmp::Eq, 1, 0),
    ]
}

/// Builds structured programs: nested SSY/SYNC regions, loops, early exits.
struct Builder<'g> {
    g: &'g mut Rng,
    blocks: Vec<Block>,
    cur: usize,
}

impl Builder<'_> {
    fn new_block(&mut self) -> BlockId {
        self.blocks.push(Block {
            insts: vec![],
            term: Terminator::Exit {
                cond: Cond::ALWAYS,
                next: None,
                pc: None,
            },
            pc: 0,
            labels: vec![],
        });
        (self.blocks.len() - 1) as BlockId
    }
    /// Ends the current block with `term` and continues in `next`.
    fn end(&mut self, term: Terminator, next: BlockId) {
        self.blocks[self.cur].term = term;
        self.cur = next as usize;
    }
    fn straight(&mut self, max: u64) {
        for _ in 0..self.g.below(max + 1) {
            let i = random_inst(self.g);
            self.blocks[self.cur].insts.push(i);
        }
    }
    /// A condition that is often thread-dependent.
    fn cond(&mut self) -> Cond {
        if self.g.chance(50) {
            Cond {
                guard: Guard(PredSrc {
                    pred: Pred(self.g.below(3) as u8),
                    neg: self.g.chance(50),
                }),
                cc: None,
            }
        } else {
            random_cond(self.g)
        }
    }
    fn region(&mut self, depth: u32) {
        for _ in 0..1 + self.g.below(3) {
            match self.g.below(if depth < 3 { 8 } else { 2 }) {
                0 | 1 => self.straight(4),
                2 | 3 => {
                    // SSY join; @P BRA else; then: ...; SYNC; else: ...; SYNC; join:
                    self.straight(2);
                    let (br, then, els, join) = (
                        self.new_block(),
                        self.new_block(),
                        self.new_block(),
                        self.new_block(),
                    );
                    self.end(
                        Terminator::Ssy {
                            reconverge: join,
                            next: br,
                            pc: 0,
                        },
                        br,
                    );
                    let cond = self.cond();
                    self.end(
                        Terminator::Branch {
                            cond,
                            taken: els,
                            fallthrough: then,
                            pc: 0,
                        },
                        then,
                    );
                    self.region(depth + 1);
                    self.end(
                        Terminator::Sync {
                            cond: Cond::ALWAYS,
                            next: els,
                            pc: 0,
                        },
                        els,
                    );
                    self.region(depth + 1);
                    self.end(
                        Terminator::Sync {
                            cond: Cond::ALWAYS,
                            next: join,
                            pc: 0,
                        },
                        join,
                    );
                }
                4 => {
                    // SSY join; @P SYNC; body; SYNC; join:
                    let (s, body, join) = (self.new_block(), self.new_block(), self.new_block());
                    self.end(
                        Terminator::Ssy {
                            reconverge: join,
                            next: s,
                            pc: 0,
                        },
                        s,
                    );
                    let cond = self.cond();
                    self.end(
                        Terminator::Sync {
                            cond,
                            next: body,
                            pc: 0,
                        },
                        body,
                    );
                    self.region(depth + 1);
                    self.end(
                        Terminator::Sync {
                            cond: Cond::ALWAYS,
                            next: join,
                            pc: 0,
                        },
                        join,
                    );
                }
                5 => {
                    // c = 0 (or tid); head: body; c += 1; P3 = c < bound; @P3 BRA head
                    let c = Reg(3 + self.g.below(5) as u8);
                    let init: Op = if self.g.chance(70) {
                        Mov32i { d: c, imm: 0 }.into()
                    } else {
                        Mov {
                            d: c,
                            b: Src::Reg(Reg(2)),
                        }
                        .into()
                    };
                    let bound = if self.g.chance(70) {
                        Src::Imm(1 + self.g.below(4) as u32)
                    } else {
                        Src::Reg(Reg(0))
                    };
                    self.blocks[self.cur].insts.push(Inst {
                        guard: Guard::ALWAYS,
                        op: init,
                        pc: 0,
                        loc: SrcLoc::default(),
                    });
                    let head = self.new_block();
                    self.end(
                        Terminator::Jump {
                            target: head,
                            pc: None,
                        },
                        head,
                    );
                    self.region(depth + 1);
                    let step: Op = Iadd {
                        d: c,
                        cc: false,
                        x: false,
                        po: false,
                        neg_a: false,
                        a: c,
                        neg_b: false,
                        b: Src::Imm(1),
                    }
                    .into();
                    let test: Op = Isetp {
                        cmp: Cmp::Lt,
                        unsigned: true,
                        x: false,
                        bop: BoolOp::And,
                        p: Pred(3),
                        q: Pred::PT,
                        a: c,
                        b: bound,
                        c: PredSrc::TRUE,
                    }
                    .into();
                    for op in [step, test] {
                        self.blocks[self.cur].insts.push(Inst {
                            guard: Guard::ALWAYS,
                            op,
                            pc: 0,
                            loc: SrcLoc::default(),
                        });
                    }
                    let after = self.new_block();
                    let cond = Cond {
                        guard: Guard(PredSrc {
                            pred: Pred(3),
                            neg: false,
                        }),
                        cc: None,
                    };
                    self.end(
                        Terminator::Branch {
                            cond,
                            taken: head,
                            fallthrough: after,
                            pc: 0,
                        },
                        after,
                    );
                }
                6 => {
                    // An early exit, a barrier or an unstructured skip.
                    let (body, after) = (self.new_block(), self.new_block());
                    let cond = self.cond();
                    match self.g.below(3) {
                        0 => self.end(
                            Terminator::Exit {
                                cond,
                                next: Some(body),
                                pc: Some(0),
                            },
                            body,
                        ),
                        1 => self.end(
                            Terminator::Barrier {
                                id: 0,
                                cond,
                                next: body,
                                pc: 0,
                            },
                            body,
                        ),
                        _ => self.end(
                            Terminator::Branch {
                                cond,
                                taken: after,
                                fallthrough: body,
                                pc: 0,
                            },
                            body,
                        ),
                    }
                    self.straight(3);
                    self.end(
                        Terminator::Jump {
                            target: after,
                            pc: None,
                        },
                        after,
                    );
                }
                _ => self.straight(3),
            }
        }
    }
}

fn structured_program(g: &mut Rng) -> Program {
    let mut flat = random_program(g);
    flat.blocks.truncate(1);
    let mut b = Builder {
        g,
        blocks: flat.blocks,
        cur: 0,
    };
    let first = b.new_block();
    b.end(
        Terminator::Jump {
            target: first,
            pc: None,
        },
        first,
    );
    b.region(0);
    let mut blocks = b.blocks;
    for (k, blk) in blocks.iter_mut().enumerate() {
        blk.pc = 8 + 0x100 * k as u32;
        for (j, i) in blk.insts.iter_mut().enumerate() {
            i.pc = blk.pc + 8 * j as u32;
        }
    }
    Program {
        isa: Isa::Sass,
        blocks,
        registers: 255,
    }
}

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
    for r in (0..32u8).chain([BASE.0, 21]).map(Reg) {
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
    Uniform(&'a Uniformity),
    Perturb(&'a Liveness, Rng),
}

struct Checker<'a> {
    p: &'a Program,
    mode: Mode<'a>,
}

fn perturb(w: &mut WarpState, live: &StateSet, g: &mut Rng) {
    let act = w.active;
    for r in (0..32u8).chain([BASE.0, 21]).map(Reg) {
        if !live.has_reg(r) {
            for l in 0..LANES {
                if act >> l & 1 != 0 {
                    w.regs[r.index()][l] = g.next() as u32;
                }
            }
        }
    }
    for p in 0..7 {
        if !live.has_pred(Pred(p as u8)) {
            w.preds[p] = (w.preds[p] & !act) | (g.next() as u32 & act);
        }
    }
    for f in 0..4 {
        if !live.has_flag(f) {
            w.cc[f] = (w.cc[f] & !act) | (g.next() as u32 & act);
        }
    }
    if !live.lea_lo {
        for l in 0..LANES {
            if act >> l & 1 != 0 {
                w.lea_lo[l] = g.next() as u32;
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
        _: &mut Stats,
    ) -> Result<(), Fault> {
        let p = self.p;
        match &mut self.mode {
            Mode::Plain => Interp::run_insts(&block.insts, w, env),
            Mode::Uniform(u) => {
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
                let live = warpjit::analysis::liveness(p);
                let mut at_entry = u.uniform_in(id);
                at_entry.intersect_with(&live.live_in[id as usize]);
                check_uniform(w, &at_entry, &|| what("entry"));
                for (k, i) in block.insts.iter().enumerate() {
                    Interp::run_insts(std::slice::from_ref(i), w, env)?;
                    let what =
                        |at: &str| format!("B{id} {at} (active {:#x})\n{}", w.active, show(p));
                    let mut after = u.uniform_after(id, k);
                    after.intersect_with(&live.live_after(p, id, k));
                    check_uniform(w, &after, &|| what(&format!("after inst {k}")));
                }
                let cond = match block.term {
                    Terminator::Branch { cond, .. }
                    | Terminator::Sync { cond, .. }
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
                    Interp::run_insts(std::slice::from_ref(i), w, env)?;
                    perturb(w, live, g);
                }
                Ok(())
            }
        }
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

fn launch(p: &Program, g: &mut Rng) -> Launch {
    let mut consts = ConstBanks::new();
    for k in 0..64u32 {
        let v = match k % 4 {
            0 => k,
            1 => 0xffff_ffc0u32.wrapping_add(k),
            _ => g.next() as u32,
        };
        consts.write(0, 4 * k, &v.to_le_bytes());
    }
    Launch {
        index: 0,
        program: Arc::new(p.clone()),
        grid: [2, 1, 1],
        block: [g.pick(&[32, 32, 24, 7]), 1, 1],
        mode: BankMode::Compute,
        shared_bytes: 64,
        consts: Arc::new(consts),
        budget: 1500,
    }
}

/// Runs the launch with a checking runner; returns the outcome and the output memory.
fn run(
    l: &Launch,
    make: &(dyn Fn() -> Checker<'static> + Sync),
) -> (Result<Stats, Fault>, Vec<u8>) {
    let mut m = Machine::default();
    m.global.map(OUT as u64, OUT_BYTES, Init::Zero).unwrap();
    let opts = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    let r = run_grid(&m, l, &opts, &|| Box::new(make()));
    let mem = m.global.read_bytes(OUT as u64, OUT_BYTES).unwrap();
    (r, mem)
}

#[test]
fn analyses_agree_with_the_interpreter() {
    let mut g = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut diverged, mut converged_blocks, mut reconverged, mut ran) = (0, 0, 0, 0u64);
    for round in 0..800 {
        // 'static: the program and results are leaked; the test process ends soon.
        let p = if round % 2 == 0 {
            random_program(&mut g)
        } else {
            structured_program(&mut g)
        };
        let p: &'static Program = Box::leak(Box::new(p));
        let u: &'static Uniformity = Box::leak(Box::new(uniformity(p)));
        let lv: &'static Liveness = Box::leak(Box::new(liveness(p)));
        let l = launch(p, &mut g);
        reconverged += (0..p.blocks.len())
            .filter(|&b| {
                u.is_converged(b as u32)
                    && p.blocks.iter().enumerate().any(|(q, blk)| {
                        !u.is_converged(q as u32) && matches!(blk.term, Terminator::Sync { .. })
                    }) && p.blocks.iter().any(|blk| matches!(blk.term, Terminator::Ssy { reconverge, .. } if reconverge as usize == b))
            })
            .count();
        diverged += (0..p.blocks.len() as u32)
            .filter(|&b| !u.is_converged(b))
            .count();
        converged_blocks += (0..p.blocks.len() as u32)
            .filter(|&b| u.is_converged(b))
            .count();
        let plain = run(&l, &|| Checker {
            p,
            mode: Mode::Plain,
        });
        let checked = run(&l, &|| Checker {
            p,
            mode: Mode::Uniform(u),
        });
        assert_eq!(plain, checked, "checking changed the run");
        ran += plain.0.as_ref().map(|s| s.warp_insts).unwrap_or(0);
        let seed = g.next();
        let perturbed = run(&l, &move || Checker {
            p,
            mode: Mode::Perturb(lv, Rng(seed | 1)),
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
