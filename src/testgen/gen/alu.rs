//! ALU statements: one random instruction of every ALU op, chains through CC and the LEA.LO
//! word, and the odd instructions (NOP, MEMBAR, DEPBAR, a stray SYNC, a guarded BPT.TRAP).

use super::{Gen, Rule};
use crate::ir::*;

impl Gen<'_, '_> {
    /// One random ALU instruction (every ALU op of the op table).
    pub(super) fn alu(&mut self) -> Op {
        let d = self.dst();
        match self.below(32) {
            0 => Mov {
                d,
                b: self.src(Rule::Any32),
            }
            .into(),
            // MOV32I.
            1 => Mov {
                d,
                b: Src::Imm32(self.imm32()),
            }
            .into(),
            2 => S2r {
                d,
                sr: SpecialReg::ALL[self.below(SpecialReg::ALL.len() as u32) as usize],
            }
            .into(),
            3 => {
                let b = self.src(Rule::S20);
                // .SAT (add.sat.s32, sub.sat.s32) takes none of .CC, .X and .PO.
                let sat = self.chance(15);
                Iadd {
                    d,
                    sat,
                    cc: !sat && self.chance(40),
                    x: !sat && self.chance(30),
                    po: !sat && self.chance(15),
                    neg_a: self.chance(25),
                    a: self.sreg(),
                    neg_b: self.chance(if matches!(b, Src::Imm(_)) { 3 } else { 25 }),
                    b,
                }
                .into()
            }
            4 => {
                let sat = self.chance(15);
                // IADD32I.
                Iadd {
                    d,
                    sat,
                    cc: !sat && self.chance(40),
                    x: !sat && self.chance(30),
                    po: !sat && self.chance(15),
                    neg_a: self.chance(25),
                    a: self.sreg(),
                    neg_b: false,
                    b: Src::Imm32(self.imm32()),
                }
                .into()
            }
            5 => self.iadd3(d),
            6 => {
                let b = self.src(Rule::S20);
                Iscadd {
                    d,
                    cc: self.chance(40),
                    po: self.chance(15),
                    neg_a: self.chance(20),
                    a: self.sreg(),
                    neg_b: self.chance(if matches!(b, Src::Imm(_)) { 3 } else { 20 }),
                    b,
                    shift: self.below(32) as u8,
                }
                .into()
            }
            7 => self.xmad(d),
            8 => Shl {
                d,
                f: self.logic_cc(),
                w: self.chance(30),
                a: self.sreg(),
                b: self.amount(),
            }
            .into(),
            9 => Shr {
                d,
                f: self.logic_cc(),
                unsigned: self.chance(50),
                w: self.chance(30),
                brev: self.chance(20),
                a: self.sreg(),
                b: self.amount(),
            }
            .into(),
            10 => {
                let pout = [
                    PredOut::None,
                    PredOut::Z,
                    PredOut::Nz,
                    PredOut::T,
                    PredOut::F,
                ][self.weighted(&[40, 20, 20, 10, 10])];
                Lop {
                    func: self.pick(&[LopFn::And, LopFn::Or, LopFn::Xor, LopFn::PassB]),
                    f: self.logic_cc(),
                    pout,
                    p: if self.chance(50) {
                        Some(self.pdst())
                    } else {
                        None
                    },
                    d,
                    not_a: self.chance(25),
                    a: self.sreg(),
                    not_b: self.chance(25),
                    b: self.src(Rule::S20),
                }
                .into()
            }
            // LOP32I.
            11 => Lop {
                func: self.pick(&[LopFn::And, LopFn::Or, LopFn::Xor, LopFn::PassB]),
                f: self.logic_cc(),
                pout: PredOut::None,
                p: None,
                d,
                not_a: self.chance(25),
                a: self.sreg(),
                not_b: self.chance(25),
                b: Src::Imm32(self.imm32()),
            }
            .into(),
            12 => {
                let pout = [
                    PredOut::None,
                    PredOut::Z,
                    PredOut::Nz,
                    PredOut::T,
                    PredOut::F,
                ][self.weighted(&[40, 20, 20, 10, 10])];
                let lut = if self.chance(40) {
                    self.pick(&[0x00, 0xff, 0xf0, 0xcc, 0xaa, 0x96, 0xe8, 0x3c, 0xc0, 0xfe])
                } else {
                    self.below(256) as u8
                };
                Lop3 {
                    f: self.logic_cc(),
                    pout,
                    p: if self.chance(50) {
                        Some(self.pdst())
                    } else {
                        None
                    },
                    d,
                    a: self.sreg(),
                    b: self.src(Rule::Any32),
                    c: self.sreg(),
                    lut,
                }
                .into()
            }
            13 => Bfe {
                d,
                cc: self.chance(30),
                signed: self.chance(50),
                brev: self.chance(20),
                a: self.sreg(),
                b: self.bitfield(),
            }
            .into(),
            14 => Bfi {
                d,
                cc: self.chance(30),
                a: self.sreg(),
                b: self.bitfield(),
                c: self.src_rc(),
            }
            .into(),
            15 => Sel {
                d,
                a: self.sreg(),
                b: self.src(Rule::S20),
                p: self.psrc(),
            }
            .into(),
            16 => self.isetp(),
            17 => Psetp {
                bop1: self.pick(&[BoolOp::And, BoolOp::Or, BoolOp::Xor]),
                bop2: self.pick(&[BoolOp::And, BoolOp::Or, BoolOp::Xor]),
                p: self.pdst(),
                q: self.pdst(),
                a: self.psrc(),
                b: self.psrc(),
                c: self.psrc(),
            }
            .into(),
            18 => {
                let mask = match self.weighted(&[40, 30, 15, 15]) {
                    0 => Src::Imm(self.pick(&[0x7f, 0xf, 0xff, 0x1, 0x3c])),
                    1 => Src::Imm(self.below(256)),
                    2 => Src::Reg(self.sreg()),
                    _ => self.src(Rule::S20),
                };
                P2r {
                    d,
                    byte: self.below(4) as u8,
                    src: if self.chance(50) {
                        P2rSrc::Cc
                    } else {
                        P2rSrc::Pr
                    },
                    a: self.sreg(),
                    mask,
                }
                .into()
            }
            19 => Imnmx {
                d,
                cc: false,
                mode: ImnmxMode::Plain,
                unsigned: self.chance(50),
                a: self.sreg(),
                b: self.src(Rule::S20),
                p: self.psrc(),
            }
            .into(),
            20 => {
                let b = match self.weighted(&[45, 35, 5, 15]) {
                    0 => Src::Imm(self.bits32() & 0xffff),
                    1 => Src::Reg(self.sreg()),
                    2 => Src::Const(self.cref()),
                    _ => Src::Imm(self.imm(Rule::S20)),
                };
                Prmt {
                    d,
                    mode: PrmtMode::Idx,
                    a: self.sreg(),
                    b,
                    c: self.src_rc(),
                }
                .into()
            }
            21 => {
                let right = self.chance(50);
                let any = self.below(64);
                let edge = self.pick(&[0, 1, 31, 32, 33, 63, any]);
                Shf {
                    d,
                    right,
                    w: self.chance(30),
                    ty: self.pick(&[ShfType::B32, ShfType::U64, ShfType::S64]),
                    hi: right && self.chance(40),
                    a: self.sreg(),
                    b: if self.chance(50) {
                        Src::Imm(edge)
                    } else {
                        Src::Reg(self.sreg())
                    },
                    c: self.sreg(),
                }
                .into()
            }
            22 => Popc {
                d,
                not_b: self.chance(30),
                b: self.src(Rule::S20),
            }
            .into(),
            23 => Flo {
                d,
                signed: self.chance(50),
                sh: self.chance(40),
                not_b: self.chance(25),
                b: self.src(Rule::S20),
            }
            .into(),
            24 => {
                let b = self.src(Rule::S20);
                let c = if matches!(b, Src::Reg(_)) {
                    self.src_rc()
                } else {
                    Src::Reg(self.sreg())
                };
                Icmp {
                    d,
                    cmp: Cmp::ALL[self.below(8) as usize],
                    unsigned: self.chance(50),
                    a: self.sreg(),
                    b,
                    c,
                }
                .into()
            }
            25 => self.lea(d),
            26..=29 => self.int_op(d),
            _ => self.warp_op(),
        }
    }

    pub(super) fn iadd3(&mut self, d: Reg) -> Op {
        let b = self.src(Rule::S20);
        let b_imm = matches!(b, Src::Imm(_));
        Iadd3 {
            d,
            cc: self.chance(40),
            x: self.chance(30),
            shift: [Iadd3Shift::None, Iadd3Shift::Rs, Iadd3Shift::Ls][self.weighted(&[60, 20, 20])],
            a: Iadd3Src {
                neg: self.chance(25),
                src: self.sreg(),
                half: self.half(),
            },
            b: Iadd3Src {
                neg: self.chance(if b_imm { 3 } else { 25 }),
                src: b,
                half: if b_imm { Half::None } else { self.half() },
            },
            c: Iadd3Src {
                neg: self.chance(25),
                src: self.sreg(),
                half: self.half(),
            },
        }
        .into()
    }

    pub(super) fn xmad(&mut self, d: Reg) -> Op {
        let b = match self.weighted(&[55, 15, 30]) {
            0 => Src::Reg(self.sreg()),
            1 => Src::Const(self.cref()),
            _ => Src::Imm(self.imm(Rule::U16)),
        };
        Xmad {
            d,
            cc: self.chance(30),
            a_signed: self.chance(30),
            b_signed: self.chance(30),
            psl: self.chance(30),
            mrg: self.chance(30),
            mode: [XmadMode::None, XmadMode::Clo, XmadMode::Chi, XmadMode::Cbcc]
                [self.weighted(&[55, 15, 15, 15])],
            a: self.sreg(),
            a_h1: self.chance(40),
            b_h1: !matches!(b, Src::Imm(_)) && self.chance(40),
            b,
            c: self.src_rc(),
        }
        .into()
    }

    pub(super) fn isetp(&mut self) -> Op {
        Isetp {
            cmp: Cmp::ALL[self.below(8) as usize],
            unsigned: self.chance(50),
            x: self.chance(25),
            bop: self.pick(&[BoolOp::And, BoolOp::Or, BoolOp::Xor]),
            p: self.pdst(),
            q: self.pdst(),
            a: self.sreg(),
            b: self.src(Rule::S20),
            c: self.psrc(),
        }
        .into()
    }

    fn lea(&mut self, d: Reg) -> Op {
        let hi = self.chance(50);
        let b = match self.weighted(&[55, 25, if hi { 0 } else { 20 }]) {
            0 => Src::Reg(self.sreg()),
            1 => Src::Const(self.cref()),
            _ => Src::Imm(self.imm(Rule::S20)),
        };
        let (cc, p) = match self.weighted(&[40, 30, 30]) {
            0 => (false, None),
            1 => (true, None),
            _ => (false, Some(self.pdst())),
        };
        Lea {
            hi,
            x: self.chance(35),
            cc,
            p,
            d,
            neg_a: self.chance(20),
            a: self.sreg(),
            b,
            c: if hi { self.sreg() } else { Reg::RZ },
            shift: if self.chance(70) {
                self.below(6) as u8
            } else {
                self.below(32) as u8
            },
        }
        .into()
    }

    /// Instruction sequences whose CC or partial results feed the next instruction.
    pub(super) fn chain(&mut self) {
        let g = self.guard();
        match self.below(8) {
            0 => {
                // 64-bit add / subtract.
                let (lo, hi) = (self.dst(), self.dst());
                let (a, b) = (self.sreg(), self.src(Rule::S20));
                let neg = self.chance(40) && !matches!(b, Src::Imm(_));
                self.op(
                    g,
                    Iadd {
                        d: lo,
                        sat: false,
                        cc: true,
                        x: false,
                        po: false,
                        neg_a: false,
                        a,
                        neg_b: neg,
                        b,
                    },
                );
                let (a, b) = (self.sreg(), self.src(Rule::S20));
                let cc = self.chance(30);
                if self.chance(30) {
                    let imm = self.imm32();
                    self.op(
                        g,
                        Iadd {
                            d: hi,
                            sat: false,
                            cc,
                            x: true,
                            po: false,
                            neg_a: false,
                            a,
                            neg_b: false,
                            b: Src::Imm32(imm),
                        },
                    );
                } else {
                    self.op(
                        g,
                        Iadd {
                            d: hi,
                            sat: false,
                            cc,
                            x: true,
                            po: false,
                            neg_a: false,
                            a,
                            neg_b: neg,
                            b,
                        },
                    );
                }
            }
            1 => {
                // Wide comparison: the low words set CC, ISETP.X compares the high words.
                let (a, b) = (self.sreg(), self.sreg());
                self.op(
                    g,
                    Iadd {
                        d: Reg::RZ,
                        sat: false,
                        cc: true,
                        x: false,
                        po: false,
                        neg_a: false,
                        a,
                        neg_b: true,
                        b: Src::Reg(b),
                    },
                );
                let mut i = self.isetp();
                if let Op::Isetp(o) = &mut i {
                    o.x = true;
                }
                self.op(g, i);
            }
            2 => {
                // base + (offset << s) in 64 or more bits: LEA.LO .CC, then LEA.HI.X .CC ...
                let s = self.below(32) as u8;
                let n = self.range(1, 3);
                let neg_a = self.chance(20);
                let a = self.sreg();
                let b = self.src(Rule::S20);
                let d = self.dst();
                self.op(
                    g,
                    Lea {
                        hi: false,
                        x: false,
                        cc: true,
                        p: None,
                        d,
                        neg_a,
                        a,
                        b,
                        c: Reg::RZ,
                        shift: s,
                    },
                );
                for k in 0..n {
                    let last = k + 1 == n;
                    let (cc, p) = if last && self.chance(50) {
                        (false, Some(self.pdst()))
                    } else {
                        (!last || self.chance(30), None)
                    };
                    let b = if self.chance(70) {
                        Src::Reg(self.sreg())
                    } else {
                        Src::Const(self.cref())
                    };
                    let c = self.sreg();
                    let d = self.dst();
                    self.op(
                        g,
                        Lea {
                            hi: true,
                            x: true,
                            cc,
                            p,
                            d,
                            neg_a,
                            a,
                            b,
                            c,
                            shift: s,
                        },
                    );
                }
            }
            3 => {
                // IADD3 carry chain.
                let d = self.dst();
                let mut o = self.iadd3(d);
                if let Op::Iadd3(x) = &mut o {
                    x.cc = true;
                }
                self.op(g, o);
                let d = self.dst();
                let mut o = self.iadd3(d);
                if let Op::Iadd3(x) = &mut o {
                    x.x = true;
                }
                self.op(g, o);
            }
            4 => {
                // nvcc's 32-bit multiply idiom.
                let (x, y) = (self.sreg(), self.sreg());
                let (t0, t1, d) = (self.dst(), self.dst(), self.dst());
                self.emit(format!("{g}XMAD {t0}, {x}, {y}, RZ"));
                self.emit(format!("{g}XMAD.MRG {t1}, {x}, {y}.H1, RZ"));
                self.emit(format!("{g}XMAD.PSL.CBCC {d}, {x}.H1, {t1}.H1, {t0}"));
            }
            5 => {
                // A CC producer, then the flags as a value.
                let d = self.dst();
                let mut o = match self.below(5) {
                    0 => self.iadd3(d),
                    1 => self.xmad(d),
                    2 => self.lea(d),
                    3 => Bfe {
                        d,
                        cc: true,
                        signed: self.chance(50),
                        brev: false,
                        a: self.sreg(),
                        b: self.bitfield(),
                    }
                    .into(),
                    _ => Iscadd {
                        d,
                        cc: true,
                        po: self.chance(20),
                        neg_a: self.chance(20),
                        a: self.sreg(),
                        neg_b: false,
                        b: Src::Reg(self.sreg()),
                        shift: self.below(32) as u8,
                    }
                    .into(),
                };
                match &mut o {
                    Op::Iadd3(x) => x.cc = true,
                    Op::Xmad(x) => x.cc = true,
                    Op::Lea(x) => {
                        x.cc = true;
                        x.p = None;
                    }
                    _ => {}
                }
                self.op(g, o);
                let (d, a) = (self.dst(), self.sreg());
                let byte = self.below(4) as u8;
                self.op(
                    g,
                    P2r {
                        d,
                        byte,
                        src: P2rSrc::Cc,
                        a,
                        mask: Src::Imm(0xf),
                    },
                );
            }
            6 => {
                // Register bit-field controls and shift amounts in a sane range.
                let (t, x) = (Reg(16 + self.below(4) as u8), self.sreg());
                let m = self.pick(&[0x1f1f, 0x3f3f, 0x1f, 0x3f, 0xff]);
                self.emit(format!("LOP32I.AND {t}, {x}, {m:#x}"));
                let (d, a) = (self.dst(), self.sreg());
                let o: Op = match self.below(4) {
                    0 => Bfe {
                        d,
                        cc: self.chance(30),
                        signed: self.chance(50),
                        brev: self.chance(20),
                        a,
                        b: Src::Reg(t),
                    }
                    .into(),
                    1 => Bfi {
                        d,
                        cc: self.chance(30),
                        a,
                        b: Src::Reg(t),
                        c: Src::Reg(self.sreg()),
                    }
                    .into(),
                    2 => Shl {
                        d,
                        f: self.logic_cc(),
                        w: self.chance(30),
                        a,
                        b: Src::Reg(t),
                    }
                    .into(),
                    _ => Shr {
                        d,
                        f: self.logic_cc(),
                        unsigned: self.chance(50),
                        w: self.chance(30),
                        brev: self.chance(20),
                        a,
                        b: Src::Reg(t),
                    }
                    .into(),
                };
                self.op(g, o);
            }
            _ => {
                // PRMT with a register selector, including sign-replicate nibbles.
                let (t, x) = (Reg(16 + self.below(4) as u8), self.sreg());
                let m = self.pick(&[0xffff, 0x7777, 0x8888, 0xf0f0]);
                self.emit(format!("LOP32I.AND {t}, {x}, {m:#x}"));
                let (d, a, c) = (self.dst(), self.sreg(), self.src_rc());
                self.op(
                    g,
                    Prmt {
                        d,
                        mode: PrmtMode::Idx,
                        a,
                        b: Src::Reg(t),
                        c,
                    },
                );
            }
        }
    }

    pub(super) fn misc(&mut self) {
        if self.chance(25) && self.break_or_continue() {
            return;
        }
        match self.below(5) {
            0 => self.emit("NOP"),
            1 => {
                let s = self.pick(&["CTA", "GL", "SYS", "VC"]);
                let i = self.pick(&["", ".IVALLD", ".IVALLT", ".IVALLTD"]);
                self.emit(format!("MEMBAR.{s}{i}"));
            }
            2 => self.emit("DEPBAR.LE SB0, 0x0"),
            3 if self.ssy_depth == 0 => self.emit("SYNC"),
            // A trap behind a predicate: it faults when any lane has the predicate.
            4 if self.chance(10) => {
                let p = self.psrc();
                let code = self.below(0x10_0000);
                self.emit(format!("@{p} BPT.TRAP {code:#x}"));
            }
            _ => {
                let g = self.guard();
                let op = self.alu();
                self.op(g, op);
            }
        }
    }
}
