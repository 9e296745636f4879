//! Which registers each op reads and writes: the basis of the effects, liveness and uniformity
//! analyses in [`crate::analysis`].

use super::*;

/// One register operand of an op: `count` consecutive registers from `reg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegUse {
    /// First register.
    pub reg: Reg,
    /// How many consecutive registers (1, 2 or 4).
    pub count: u8,
    /// Written (true) or read (false).
    pub def: bool,
}

fn src(f: &mut dyn FnMut(RegUse), s: Src) {
    if let Src::Reg(r) = s {
        f(RegUse {
            reg: r,
            count: 1,
            def: false,
        });
    }
}
fn rd(f: &mut dyn FnMut(RegUse), r: Reg) {
    f(RegUse {
        reg: r,
        count: 1,
        def: false,
    });
}
fn wr(f: &mut dyn FnMut(RegUse), r: Reg, count: u8) {
    f(RegUse {
        reg: r,
        count,
        def: true,
    });
}
fn addr(f: &mut dyn FnMut(RegUse), a: Addr, e: bool) {
    if let Some(r) = a.base {
        f(RegUse {
            reg: r,
            count: if e { 2 } else { 1 },
            def: false,
        });
    }
}

impl Op {
    /// Calls `f` for every register operand (reads and writes; `RZ` included).
    pub fn for_each_reg(&self, f: &mut dyn FnMut(RegUse)) {
        match self {
            Op::Mov(o) => {
                src(f, o.b);
                wr(f, o.d, 1);
            }
            Op::Mov32i(o) => wr(f, o.d, 1),
            Op::S2r(o) => wr(f, o.d, 1),
            Op::Iadd(o) => {
                rd(f, o.a);
                src(f, o.b);
                wr(f, o.d, 1);
            }
            Op::Iadd32i(o) => {
                rd(f, o.a);
                wr(f, o.d, 1);
            }
            Op::Iadd3(o) => {
                rd(f, o.a.src);
                src(f, o.b.src);
                rd(f, o.c.src);
                wr(f, o.d, 1);
            }
            Op::Iscadd(o) => {
                rd(f, o.a);
                src(f, o.b);
                wr(f, o.d, 1);
            }
            Op::Xmad(o) => {
                rd(f, o.a);
                src(f, o.b);
                src(f, o.c);
                wr(f, o.d, 1);
            }
            Op::Shl(o) => {
                rd(f, o.a);
                src(f, o.b);
                wr(f, o.d, 1);
            }
            Op::Shr(o) => {
                rd(f, o.a);
                src(f, o.b);
                wr(f, o.d, 1);
            }
            Op::Lop(o) => {
                rd(f, o.a);
                src(f, o.b);
                wr(f, o.d, 1);
            }
            Op::Lop32i(o) => {
                rd(f, o.a);
                wr(f, o.d, 1);
            }
            Op::Lop3(o) => {
                rd(f, o.a);
                src(f, o.b);
                rd(f, o.c);
                wr(f, o.d, 1);
            }
            Op::Bfe(o) => {
                rd(f, o.a);
                src(f, o.b);
                wr(f, o.d, 1);
            }
            Op::Bfi(o) => {
                rd(f, o.a);
                src(f, o.b);
                src(f, o.c);
                wr(f, o.d, 1);
            }
            Op::Sel(o) => {
                rd(f, o.a);
                src(f, o.b);
                wr(f, o.d, 1);
            }
            Op::Isetp(o) => {
                rd(f, o.a);
                src(f, o.b);
            }
            Op::Psetp(_) | Op::Membar(_) | Op::Nop(_) | Op::Depbar(_) => {}
            Op::P2r(o) => {
                rd(f, o.a);
                src(f, o.mask);
                wr(f, o.d, 1);
            }
            Op::Imnmx(o) => {
                rd(f, o.a);
                src(f, o.b);
                wr(f, o.d, 1);
            }
            Op::Prmt(o) => {
                rd(f, o.a);
                src(f, o.b);
                src(f, o.c);
                wr(f, o.d, 1);
            }
            Op::Lea(o) => {
                rd(f, o.a);
                src(f, o.b);
                rd(f, o.c);
                wr(f, o.d, 1);
            }
            Op::Ldc(o) => {
                rd(f, o.a);
                wr(f, o.d, o.size.regs());
            }
            Op::Ldg(o) => {
                addr(f, o.addr, o.e);
                wr(f, o.d, o.size.regs());
            }
            Op::Stg(o) => {
                addr(f, o.addr, o.e);
                f(RegUse {
                    reg: o.v,
                    count: o.size.regs(),
                    def: false,
                });
            }
            Op::Ld(o) => {
                addr(f, o.addr, o.e);
                wr(f, o.d, o.size.regs());
            }
            Op::St(o) => {
                addr(f, o.addr, o.e);
                f(RegUse {
                    reg: o.v,
                    count: o.size.regs(),
                    def: false,
                });
            }
            Op::Lds(o) => {
                addr(f, o.addr, false);
                wr(f, o.d, o.size.regs());
            }
            Op::Sts(o) => {
                addr(f, o.addr, false);
                f(RegUse {
                    reg: o.v,
                    count: o.size.regs(),
                    def: false,
                });
            }
        }
    }
}
