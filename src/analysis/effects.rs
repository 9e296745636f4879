//! Side effects of ops, instructions and terminators beyond their general-register operands
//! (those come from [`Op::for_each_reg`]).
//!
//! An op's effects are derived from its operand roles ([`crate::ir::roles`]), declared once per
//! op beside its struct in `src/ir/ops/`; this module only reads them. The reference is the
//! reference op semantics (`src/reference/`, which both engines run) and, for
//! terminators, the shared dispatcher (`src/exec/warp.rs`, barriers in `src/exec/grid.rs`); the
//! roles follow what that code reads and writes, per executing lane:
//!
//! - **CC writes**: `.CC` on IADD, IADD32I, IADD3, ISCADD, XMAD, BFE, BFI and LEA writes all four
//!   flags (XMAD clears OF, BFE/BFI clear CF and OF: a clear is a write).
//! - **CC reads**: `.X` on IADD, IADD32I, IADD3 and LEA reads CF. ISETP `.X` reads CF, and ZF
//!   too for `.EQ .NE .GT .LE` (`.LT`/`.GE` only look at the sign of the difference, `.F`/`.T` at
//!   nothing). P2R `CC` reads the flags its mask selects (ZF bit 0, SF bit 1, CF bit 2, OF bit 3).
//!   A CC test of a terminator reads the flags of its formula (`CcExpr::reads`); CSETP likewise.
//! - **Predicates**: a `PT` operand is a constant, never a read; a write to `PT` is dropped, never
//!   a write. SEL, IMNMX, ISETP (`Pp`), PSETP (`Pa Pb Pc`) and LD/ST (steering) read their
//!   predicate operands; P2R `PR` reads the predicates its mask selects. ISETP and PSETP write
//!   `Pd` and `Pq`; LOP/LOP3, LDG and LEA write their optional predicate.
//! - **LEA.LO word**: every LEA.LO writes it; LEA.HI reads it only for its window test, so only
//!   when it writes CC or `Plg`.
//! - **Memory**: a `c[b][imm]` operand and LDC read constant memory; LDG/STG global memory;
//!   LDS/STS shared memory; LDL/STL local memory; LD/ST global and/or shared memory as their
//!   steering predicate allows, and local memory unless it is `!PT` (the local window).
//! - **Faults** (besides the instruction budget, which any instruction can exhaust): a
//!   misaligned constant address (a `c[b][imm]` operand whose offset is not a multiple of 4, an
//!   LDC wider than a byte with an index register or a misaligned immediate address); any global,
//!   generic, shared or local access (unmapped address, offset out of range); terminators that
//!   push the reconvergence stack (SSY, CAL, a BRA that may diverge: stack overflow), RET (a
//!   return without a call) and BAR.SYNC (barrier deadlock).

use super::{FLAG_CF, FLAG_OF, FLAG_SF, FLAG_ZF};
use crate::ir::*;

/// Memory spaces an access may touch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MemSpaces {
    /// Global memory (LDG/STG, global LD/ST).
    pub global: bool,
    /// The CTA's shared memory (LDS/STS, shared LD/ST).
    pub shared: bool,
    /// The constant banks (LDC, `c[b][imm]` operands).
    pub constant: bool,
    /// The thread's local memory (LDL/STL, generic LD/ST in the local window).
    pub local: bool,
    /// Resource views (DXBC `t#`, `u#`, `g#`).
    pub view: bool,
}

impl MemSpaces {
    /// No memory.
    pub const NONE: MemSpaces = MemSpaces {
        global: false,
        shared: false,
        constant: false,
        local: false,
        view: false,
    };

    /// True when no space is touched.
    pub fn is_empty(self) -> bool {
        self == MemSpaces::NONE
    }
}

/// What an op, instruction or terminator reads and writes besides general registers, per
/// executing lane.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Effects {
    /// Predicates read: bit `n` is `Pn` (`PT` is a constant and has no bit).
    pub pred_reads: u8,
    /// Predicates written: bit `n` is `Pn` (writes to `PT` are dropped and have no bit).
    pub pred_writes: u8,
    /// CC flags read, as a flag mask ([`FLAG_CF`], ...).
    pub cc_reads: u8,
    /// CC flags written, as a flag mask.
    pub cc_writes: u8,
    /// Reads the hidden LEA.LO word.
    pub lea_lo_read: bool,
    /// Writes the hidden LEA.LO word.
    pub lea_lo_write: bool,
    /// Memory read.
    pub mem_reads: MemSpaces,
    /// Memory written.
    pub mem_writes: MemSpaces,
    /// May raise a fault (the instruction budget, common to every instruction, aside).
    pub can_fault: bool,
}

impl Effects {
    /// No effect at all.
    pub const NONE: Effects = Effects {
        pred_reads: 0,
        pred_writes: 0,
        cc_reads: 0,
        cc_writes: 0,
        lea_lo_read: false,
        lea_lo_write: false,
        mem_reads: MemSpaces::NONE,
        mem_writes: MemSpaces::NONE,
        can_fault: false,
    };

    /// Whether predicate `p` is written.
    pub fn writes_pred(&self, p: Pred) -> bool {
        !p.is_pt() && self.pred_writes >> p.0 & 1 != 0
    }

    /// Whether the CC flag at index `f` of `WarpState::cc` is written.
    pub fn writes_flag(&self, f: usize) -> bool {
        f < 4 && self.cc_writes >> f & 1 != 0
    }

    /// Whether any memory is read or written.
    pub fn touches_memory(&self) -> bool {
        !self.mem_reads.is_empty() || !self.mem_writes.is_empty()
    }

    fn read_pred(&mut self, p: PredSrc) {
        if !p.pred.is_pt() {
            self.pred_reads |= 1 << p.pred.0;
        }
    }
}

/// The flag-mask bit of a flag.
fn flag_bit(f: Flag) -> u8 {
    match f {
        Flag::Cf => FLAG_CF,
        Flag::Zf => FLAG_ZF,
        Flag::Sf => FLAG_SF,
        Flag::Of => FLAG_OF,
    }
}

/// Effects are the non-register roles of an op's operands.
impl Visitor for Effects {
    fn pred(&mut self, p: Pred, dir: Dir) {
        if !p.is_pt() {
            match dir {
                Dir::Use => self.pred_reads |= 1 << p.0,
                Dir::Def => self.pred_writes |= 1 << p.0,
            }
        }
    }
    fn flag(&mut self, f: Flag, dir: Dir) {
        match dir {
            Dir::Use => self.cc_reads |= flag_bit(f),
            Dir::Def => self.cc_writes |= flag_bit(f),
        }
    }
    fn lea_lo(&mut self, dir: Dir) {
        match dir {
            Dir::Use => self.lea_lo_read = true,
            Dir::Def => self.lea_lo_write = true,
        }
    }
    /// A constant operand reads 4 bytes at an immediate offset, so its fault is known here.
    fn constant(&mut self, c: ConstRef) {
        self.mem_reads.constant = true;
        self.can_fault |= !c.offset.is_multiple_of(4);
    }
    /// Addressed accesses can always fault (an unmapped address, a shared or local offset out of
    /// range).
    fn mem(&mut self, m: MemRole) {
        let (global, shared) = m.space.may_reach();
        let spaces = match m.dir {
            Dir::Use => &mut self.mem_reads,
            Dir::Def => &mut self.mem_writes,
        };
        spaces.global |= global;
        spaces.shared |= shared;
        spaces.constant |= m.space == Space::Constant;
        spaces.local |= m.space.may_reach_local();
        spaces.view |= m.space == Space::View;
        self.can_fault |= m.addr.is_some();
    }
    fn may_fault(&mut self) {
        self.can_fault = true;
    }
}

impl Op {
    /// What the op reads and writes besides general registers, for a lane that executes it
    /// (see the module docs for the rules), from its operand roles.
    pub fn effects(&self) -> Effects {
        let mut e = Effects::NONE;
        self.operands(&mut e);
        e
    }
}

/// True when a guard or condition is `!PT`: no lane ever passes it.
pub fn never(g: Guard) -> bool {
    g.0.pred.is_pt() && g.0.neg
}

impl Inst {
    /// The op's effects plus the read of the guard predicate. An instruction guarded by `!PT`
    /// never executes and has no effect at all.
    pub fn effects(&self) -> Effects {
        if never(self.guard) {
            return Effects::NONE;
        }
        let mut e = self.op.effects();
        e.read_pred(self.guard.0);
        e
    }
}

impl Cond {
    /// The predicates (bit `n` = `Pn`) and CC flags (a flag mask) a lane condition reads. A
    /// `!PT` guard is false whatever the CC test says, so it reads nothing.
    pub fn reads(self) -> (u8, u8) {
        if never(self.guard) {
            return (0, 0);
        }
        let p = if self.guard.0.pred.is_pt() {
            0
        } else {
            1 << self.guard.0.pred.0
        };
        let cc = super::cc_test_flags(self.cc);
        (p, cc)
    }
}

impl Terminator {
    /// What the control instruction reads besides general registers (its lane condition:
    /// guard predicate, the flags of its CC test's formula; an EXIT with no next block exits
    /// every lane without looking at its condition) and whether it can fault (SSY, CAL and a BRA
    /// that may diverge push the reconvergence stack, which can overflow; a RET may have no call
    /// to return to; BAR.SYNC can deadlock; a BRX may go to an undeclared target). The general
    /// register a BRX reads is [`Terminator::reg_read`].
    pub fn effects(&self) -> Effects {
        let mut e = Effects::NONE;
        let cond = match *self {
            Terminator::Jump { .. } => None,
            Terminator::Push { .. } => {
                e.can_fault = true;
                None
            }
            Terminator::Branch { cond, .. } => {
                // A constant condition never splits the warp.
                e.can_fault = !(cond.is_always() || never(cond.guard));
                Some(cond)
            }
            Terminator::Brx { cond, .. } => {
                // A lane's target may be undeclared; a split may overflow the stack.
                e.can_fault = !never(cond.guard);
                Some(cond)
            }
            Terminator::Wait { region, cond, .. } => {
                // A RET with no call entry pending faults.
                e.can_fault = region == Region::Call && !never(cond.guard);
                Some(cond)
            }
            Terminator::Exit { cond, next, .. } => next.map(|_| cond),
            Terminator::Barrier { cond, red, .. } => {
                e.can_fault = true;
                if let Some(r) = red {
                    e.read_pred(r.pred);
                }
                Some(cond)
            }
        };
        if let Some(c) = cond {
            let (p, f) = c.reads();
            e.pred_reads |= p;
            e.cc_reads = f;
        }
        e
    }
}

impl Terminator {
    /// The general register the control instruction reads: a `BRX`'s (unless it never runs,
    /// or reads `RZ`).
    pub fn reg_read(&self) -> Option<Reg> {
        match *self {
            Terminator::Brx { cond, reg, .. } if !never(cond.guard) && !reg.is_rz() => Some(reg),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::super::FLAGS_ALL;
    use super::*;

    fn fx(op: impl Into<Op>) -> Effects {
        op.into().effects()
    }

    #[test]
    fn cc_writes_and_carry_reads() {
        let add = |cc, x| Iadd {
            d: Reg(1),
            sat: false,
            cc,
            x,
            po: false,
            neg_a: false,
            a: Reg(2),
            neg_b: false,
            b: Src::Reg(Reg(3)),
        };
        assert_eq!(fx(add(false, false)), Effects::NONE);
        let e = fx(add(true, false));
        assert_eq!((e.cc_writes, e.cc_reads), (FLAGS_ALL, 0));
        let e = fx(add(true, true));
        assert_eq!((e.cc_writes, e.cc_reads), (FLAGS_ALL, FLAG_CF));
        let e = fx(add(false, true));
        assert_eq!((e.cc_writes, e.cc_reads), (0, FLAG_CF));

        let e = fx(Iadd {
            d: Reg(1),
            sat: false,
            cc: true,
            x: true,
            po: false,
            neg_a: false,
            a: Reg(2),
            neg_b: false,
            b: Src::Imm32(1),
        });
        assert_eq!((e.cc_writes, e.cc_reads), (FLAGS_ALL, FLAG_CF));
        fn s3<S>(src: S) -> Iadd3Src<S> {
            Iadd3Src {
                neg: false,
                src,
                half: Half::None,
            }
        }
        let e = fx(Iadd3 {
            d: Reg(1),
            cc: true,
            x: true,
            shift: Iadd3Shift::None,
            a: s3(Reg(2)),
            b: s3(Src::Imm(1)),
            c: s3(Reg::RZ),
        });
        // IADD3.X takes the whole carry of the low words' IADD3 .CC: CF + OF (semantics §21).
        assert_eq!((e.cc_writes, e.cc_reads), (FLAGS_ALL, FLAG_CF | FLAG_OF));
        let e = fx(Iscadd {
            d: Reg(1),
            cc: true,
            po: false,
            neg_a: false,
            a: Reg(2),
            neg_b: false,
            b: Src::Imm(0),
            shift: 2,
        });
        assert_eq!((e.cc_writes, e.cc_reads), (FLAGS_ALL, 0));
        let e = fx(Bfe {
            d: Reg(1),
            cc: true,
            signed: false,
            brev: false,
            a: Reg(2),
            b: Src::Imm(0x808),
        });
        assert_eq!(e.cc_writes, FLAGS_ALL, "BFE .CC clears CF and OF: a write");
        let e = fx(Bfi {
            d: Reg(1),
            cc: true,
            a: Reg(2),
            b: Src::Imm(0x808),
            c: Src::Reg(Reg(3)),
        });
        assert_eq!(e.cc_writes, FLAGS_ALL);
        let mut x = xmad(Reg(1), Reg(2), Src::Reg(Reg(3)), Src::Reg(Reg::RZ));
        x.cc = true;
        assert_eq!(fx(x).cc_writes, FLAGS_ALL, "XMAD .CC clears OF: a write");
    }

    #[test]
    fn isetp_x_reads_what_the_comparison_needs() {
        let mk = |cmp, x| Isetp {
            cmp,
            unsigned: false,
            x,
            bop: BoolOp::And,
            p: Pred(0),
            q: Pred::PT,
            a: Reg(1),
            b: Src::Reg(Reg(2)),
            c: PredSrc {
                pred: Pred(3),
                neg: true,
            },
        };
        let e = fx(mk(Cmp::Eq, false));
        assert_eq!((e.pred_reads, e.pred_writes, e.cc_reads), (1 << 3, 1, 0));
        assert_eq!(fx(mk(Cmp::Eq, true)).cc_reads, FLAG_CF | FLAG_ZF);
        assert_eq!(fx(mk(Cmp::Ne, true)).cc_reads, FLAG_CF | FLAG_ZF);
        assert_eq!(fx(mk(Cmp::Gt, true)).cc_reads, FLAG_CF | FLAG_ZF);
        assert_eq!(fx(mk(Cmp::Le, true)).cc_reads, FLAG_CF | FLAG_ZF);
        assert_eq!(fx(mk(Cmp::Lt, true)).cc_reads, FLAG_CF);
        assert_eq!(fx(mk(Cmp::Ge, true)).cc_reads, FLAG_CF);
        assert_eq!(fx(mk(Cmp::T, true)).cc_reads, 0);
        let mut both = mk(Cmp::Lt, false);
        both.q = Pred(5);
        both.c = PredSrc::TRUE;
        let e = fx(both);
        assert_eq!(
            (e.pred_reads, e.pred_writes),
            (0, 1 | 1 << 5),
            "PT is not a read"
        );
    }

    #[test]
    fn predicate_operands() {
        let p = |n, neg| PredSrc { pred: Pred(n), neg };
        let e = fx(Psetp {
            bop1: BoolOp::And,
            bop2: BoolOp::Or,
            p: Pred(1),
            q: Pred::PT,
            a: p(2, false),
            b: p(3, true),
            c: PredSrc::TRUE,
        });
        assert_eq!((e.pred_reads, e.pred_writes), (0b1100, 0b10));
        let e = fx(Sel {
            d: Reg(1),
            a: Reg(2),
            b: Src::Imm(0),
            p: p(4, true),
        });
        assert_eq!(e.pred_reads, 1 << 4);
        let e = fx(Imnmx {
            d: Reg(1),
            cc: false,
            mode: ImnmxMode::Plain,
            unsigned: false,
            a: Reg(2),
            b: Src::Imm(0),
            p: p(6, false),
        });
        assert_eq!(e.pred_reads, 1 << 6);
        let lop = |pr| Lop {
            func: LopFn::And,
            f: LogicCc::NONE,
            pout: PredOut::Nz,
            p: pr,
            d: Reg(1),
            not_a: false,
            a: Reg(2),
            not_b: false,
            b: Src::Imm(1),
        };
        assert_eq!(fx(lop(Some(Pred(2)))).pred_writes, 1 << 2);
        assert_eq!(fx(lop(Some(Pred::PT))).pred_writes, 0);
        assert_eq!(fx(lop(None)).pred_writes, 0);
        let lop3 = Lop3 {
            f: LogicCc::NONE,
            pout: PredOut::None,
            p: Some(Pred(0)),
            d: Reg(1),
            a: Reg(2),
            b: Src::Imm(1),
            c: Reg(3),
            lut: 0xc0,
        };
        assert_eq!(fx(lop3).pred_writes, 1, "no suffix still writes Pd (false)");
        let e = fx(Ldg {
            d: Reg(4),
            e: true,
            cop: CacheOp::Default,
            size: MemSize::B64,
            ps: Some(Pred(1)),
            addr: Addr {
                base: Some(Reg(2)),
                offset: 0,
            },
        });
        assert_eq!(
            (e.pred_writes, e.mem_reads.global, e.can_fault),
            (2, true, true)
        );
    }

    #[test]
    fn p2r_reads_masked_bits() {
        let mk = |src, mask| P2r {
            d: Reg(1),
            byte: 1,
            src,
            a: Reg(1),
            mask,
        };
        assert_eq!(fx(mk(P2rSrc::Pr, Src::Imm(0x7f))).pred_reads, 0x7f);
        assert_eq!(
            fx(mk(P2rSrc::Pr, Src::Imm(0x1ff))).pred_reads,
            0x7f,
            "bit 7 is not a predicate"
        );
        assert_eq!(fx(mk(P2rSrc::Pr, Src::Imm(0x5))).pred_reads, 0x5);
        assert_eq!(fx(mk(P2rSrc::Pr, Src::Reg(Reg(3)))).pred_reads, 0x7f);
        assert_eq!(fx(mk(P2rSrc::Cc, Src::Imm(0xf))).cc_reads, FLAGS_ALL);
        assert_eq!(fx(mk(P2rSrc::Cc, Src::Imm(0x1))).cc_reads, FLAG_ZF);
        assert_eq!(fx(mk(P2rSrc::Cc, Src::Imm(0x4))).cc_reads, FLAG_CF);
        assert_eq!(
            fx(mk(P2rSrc::Cc, Src::Imm(0xa))).cc_reads,
            FLAG_SF | FLAG_OF
        );
        let e = fx(mk(
            P2rSrc::Cc,
            Src::Const(ConstRef {
                bank: 0,
                offset: 0x140,
            }),
        ));
        assert_eq!(
            (e.cc_reads, e.pred_reads, e.mem_reads.constant, e.can_fault),
            (FLAGS_ALL, 0, true, false)
        );
    }

    #[test]
    fn lea_word_and_flags() {
        let mk = |hi, x, cc, p| Lea {
            hi,
            x,
            cc,
            p,
            d: Reg(2),
            neg_a: false,
            a: Reg(0),
            b: Src::Reg(Reg(4)),
            c: Reg::RZ,
            shift: 2,
        };
        let e = fx(mk(false, false, true, None));
        assert_eq!(
            (e.lea_lo_write, e.lea_lo_read, e.cc_writes, e.cc_reads),
            (true, false, FLAGS_ALL, 0)
        );
        let e = fx(mk(true, true, false, Some(Pred(0))));
        assert_eq!(
            (
                e.lea_lo_write,
                e.lea_lo_read,
                e.cc_writes,
                e.cc_reads,
                e.pred_writes
            ),
            (false, true, 0, FLAG_CF, 1)
        );
        let e = fx(mk(true, true, true, None));
        assert!(e.lea_lo_read);
        let e = fx(mk(true, false, false, None));
        assert!(
            !e.lea_lo_read && !e.lea_lo_write,
            "LEA.HI without CC or Plg does not look at the word"
        );
        let e = fx(mk(true, false, false, Some(Pred::PT)));
        assert!(!e.lea_lo_read);
    }

    #[test]
    fn memory_and_faults() {
        let c = |offset| Src::Const(ConstRef { bank: 0, offset });
        let e = fx(Mov {
            d: Reg(1),
            b: c(0x140),
        });
        assert_eq!(
            (e.mem_reads, e.can_fault),
            (
                MemSpaces {
                    constant: true,
                    ..MemSpaces::NONE
                },
                false
            )
        );
        assert!(
            fx(Mov {
                d: Reg(1),
                b: c(0x142)
            })
            .can_fault,
            "misaligned constant operand"
        );
        assert_eq!(
            fx(Mov {
                d: Reg(1),
                b: Src::Imm(3)
            }),
            Effects::NONE
        );
        let ldc = |size, a, imm| Ldc {
            d: Reg(4),
            size,
            mode: LdcMode::Ia,
            bank: 3,
            a,
            imm,
        };
        assert!(!fx(ldc(MemSize::B32, Reg::RZ, 0x10)).can_fault);
        assert!(fx(ldc(MemSize::B64, Reg::RZ, 0x14)).can_fault);
        assert!(
            fx(ldc(MemSize::B32, Reg(1), 0x10)).can_fault,
            "a register address may be misaligned"
        );
        assert!(
            !fx(ldc(MemSize::U8, Reg(1), 0x11)).can_fault,
            "a byte is never misaligned"
        );
        assert!(fx(ldc(MemSize::B32, Reg(1), 0)).mem_reads.constant);
        let a = Addr {
            base: Some(Reg(2)),
            offset: 0,
        };
        let ld = |steer| Ld {
            d: Reg(4),
            e: true,
            cop: CacheOp::Default,
            size: MemSize::B32,
            addr: a,
            steer,
        };
        let e = fx(ld(PredSrc::TRUE));
        assert_eq!(
            (
                e.mem_reads.global,
                e.mem_reads.shared,
                e.pred_reads,
                e.can_fault
            ),
            (true, false, 0, true)
        );
        let e = fx(ld(PredSrc {
            pred: Pred::PT,
            neg: true,
        }));
        assert_eq!((e.mem_reads.global, e.mem_reads.shared), (false, true));
        let e = fx(ld(PredSrc {
            pred: Pred(2),
            neg: false,
        }));
        assert_eq!(
            (e.mem_reads.global, e.mem_reads.shared, e.pred_reads),
            (true, true, 4)
        );
        let e = fx(St {
            e: false,
            cop: CacheOp::Default,
            size: MemSize::B32,
            addr: a,
            v: Reg(3),
            steer: PredSrc {
                pred: Pred(1),
                neg: true,
            },
        });
        assert_eq!(
            (
                e.mem_writes.global,
                e.mem_writes.shared,
                e.pred_reads,
                e.mem_reads
            ),
            (true, true, 2, MemSpaces::NONE)
        );
        let e = fx(Stg {
            e: true,
            cop: CacheOp::Default,
            size: MemSize::B32,
            addr: a,
            v: Reg(3),
        });
        assert!(e.mem_writes.global && !e.mem_writes.shared && e.can_fault);
        let e = fx(Lds {
            d: Reg(1),
            u: false,
            size: MemSize::B32,
            addr: a,
        });
        assert!(e.mem_reads.shared && e.can_fault);
        let e = fx(Sts {
            size: MemSize::B32,
            addr: a,
            v: Reg(1),
        });
        assert!(e.mem_writes.shared && e.can_fault && e.touches_memory());
        assert_eq!(
            fx(Membar {
                scope: MembarScope::Gl,
                inval: MembarInval::D,
            }),
            Effects::NONE
        );
        assert_eq!(
            fx(S2r {
                d: Reg(0),
                sr: SpecialReg::TidX
            }),
            Effects::NONE
        );
    }

    #[test]
    fn guards_and_terminators() {
        let op: Op = Mov {
            d: Reg(1),
            b: Src::Imm(1),
        }
        .into();
        let i = guarded(Pred(3), false, op.clone());
        assert_eq!(i.effects().pred_reads, 1 << 3);
        assert_eq!(
            guarded(Pred(3), true, op.clone()).effects().pred_reads,
            1 << 3
        );
        assert_eq!(inst(op.clone()).effects(), Effects::NONE);
        let never_lop = guarded(Pred::PT, true, lop_p(Reg(1), Reg(2), Pred(0)));
        assert_eq!(never_lop.effects(), Effects::NONE, "@!PT never executes");

        let cond = |p: u8, neg, cc| Cond {
            guard: Guard(PredSrc { pred: Pred(p), neg }),
            cc,
        };
        let t = Terminator::Branch {
            cond: cond(2, false, Some(CcTest::Ne)),
            taken: 1,
            fallthrough: 2,
            pc: 0,
        };
        let e = t.effects();
        assert_eq!((e.pred_reads, e.cc_reads, e.can_fault), (4, FLAG_ZF, true));
        let t = Terminator::Branch {
            cond: Cond::ALWAYS,
            taken: 1,
            fallthrough: 2,
            pc: 0,
        };
        assert_eq!(t.effects(), Effects::NONE);
        let t = Terminator::Wait {
            region: Region::Sync,
            cond: cond(7, true, Some(CcTest::Eq)),
            next: 1,
            pc: 0,
        };
        assert_eq!(
            t.effects(),
            Effects::NONE,
            "!PT is false whatever the CC test"
        );
        let t = Terminator::Exit {
            cond: cond(7, false, Some(CcTest::Eq)),
            next: Some(1),
            pc: None,
        };
        assert_eq!(
            t.effects().cc_reads,
            FLAG_ZF | FLAG_SF,
            "CC.EQ is ZF and not SF"
        );
        let t = Terminator::Exit {
            cond: cond(1, false, None),
            next: None,
            pc: None,
        };
        assert_eq!(
            t.effects(),
            Effects::NONE,
            "EXIT at the end exits every lane"
        );
        let t = Terminator::Barrier {
            id: 0,
            cond: cond(1, false, None),
            red: None,
            count: 0,
            arrive: false,
            next: 1,
            pc: 0,
        };
        assert_eq!((t.effects().pred_reads, t.effects().can_fault), (2, true));
        assert!(
            Terminator::Push {
                region: Region::Break,
                target: 1,
                next: 1,
                pc: 0
            }
            .effects()
            .can_fault
        );
    }
}
