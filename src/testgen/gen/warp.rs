//! Atomics and warp statements: ATOM and RED on global memory and ATOMS on shared memory,
//! often with colliding addresses (every lane, or a few groups of lanes, on one word); SHFL in
//! every mode with register and immediate operands; VOTE; CS2R of the clock. Under divergence
//! (inside `if` and loops) the shuffles read non-executing lanes and the votes count only the
//! executing ones.

use super::Gen;
use crate::ir::*;
use crate::testgen::layout::*;

impl Gen<'_, '_> {
    /// A random operation and type (valid together).
    fn atom_kind(&mut self, red: bool, shared: bool) -> (AtomOp, AtomType) {
        loop {
            let n = if red { 8 } else { 10 };
            let op = AtomOp::ALL[self.below(n) as usize];
            let ty = AtomType::ALL[self.weighted(&[40, 20, 20, 10, if shared { 0 } else { 10 }])];
            if ty.valid_with(op) {
                return (op, ty);
            }
        }
    }

    /// An atomic on global (ATOM, RED) or shared memory (ATOMS).
    pub(super) fn atomic(&mut self, risky: bool) {
        let shared = self.shared_bytes >= 16 && self.chance(40);
        let red = !shared && self.chance(30);
        let (op, ty) = self.atom_kind(red, shared);
        let n = ty.regs();
        let bytes = ty.bytes();
        let (addr, e) = if shared {
            if self.chance(60) {
                // Colliding: lanes on one or two words.
                let x = Reg(self.below(20) as u8);
                let m = self.pick(&[0u32, 8]);
                self.emit(format!("LOP32I.AND R18, {x}, {m:#x}"));
                let room = ((self.shared_bytes - 8) / 8).max(1);
                let addr = Addr {
                    base: Some(Reg(18)),
                    offset: 8 * self.below(room) as i32,
                };
                (addr, false)
            } else {
                let mut a = self.shared_addr(risky, bytes);
                a.offset &= !3;
                (a, false)
            }
        } else if self.chance(50) {
            // Colliding: every lane (or groups of lanes) on a few words of SEG1.
            let x = Reg(self.below(20) as u8);
            let m = self.pick(&[0u32, 0x8, 0x18]);
            self.emit(format!("LOP32I.AND R18, {x}, {m:#x}"));
            self.emit(format!("IADD R16.CC, R18, c[0x0][{P_SEG1:#x}]"));
            self.emit(format!("IADD.X R17, RZ, c[0x0][{:#x}]", P_SEG1 + 4));
            let addr = Addr {
                base: Some(Reg(16)),
                offset: 8 * self.below(0x40) as i32,
            };
            (addr, true)
        } else {
            let (mut a, e, _) = self.global_ptr(false, risky, false, bytes);
            // ATOM and RED have a 20-bit offset: an absolute address goes through R16.
            if a.base.is_none() {
                self.emit(format!("MOV32I R16, {:#x}", a.offset as u32));
                a = Addr {
                    base: Some(Reg(16)),
                    offset: 0,
                };
            }
            a.offset = a.offset.clamp(-0x8_0000, 0x7_ffff);
            (a, e)
        };
        // The operand (and for CAS the compare and swap registers after it).
        let b = if op == AtomOp::Cas {
            Reg(self.below(12 / n as u32) as u8 * 2 * n)
        } else {
            self.src_wide(n)
        };
        let d = self.load_dst(n);
        let g = self.guard();
        let op_ = if shared {
            Op::from(Atoms { d, op, ty, addr, b })
        } else if red {
            Op::from(Red { e, op, ty, addr, b })
        } else {
            Op::from(Atomg {
                d,
                e,
                op,
                ty,
                addr,
                b,
            })
        };
        self.op(g, op_);
    }

    /// A lane or clamp operand: a register or an immediate.
    fn reg_imm(&mut self, max: u32, typical: &[u32]) -> RegImm {
        match self.weighted(&[30, 40, 30]) {
            0 => RegImm::Reg(self.sreg()),
            1 => RegImm::Imm(self.pick(typical)),
            _ => RegImm::Imm(self.below(max + 1)),
        }
    }

    /// SHFL, VOTE or CS2R.
    pub(super) fn warp_op(&mut self) -> Op {
        match self.weighted(&[55, 35, 10]) {
            0 => Shfl {
                mode: ShflMode::ALL[self.below(4) as usize],
                p: self.pdst(),
                d: self.dst(),
                a: self.sreg(),
                b: self.reg_imm(0x1f, &[1, 2, 4, 8, 16, 3]),
                c: self.reg_imm(0x1fff, &[0x1f, 0, 0x1c1f, 0x1800, 0x181f, 0x1e00]),
            }
            .into(),
            1 => Vote {
                mode: VoteMode::ALL[self.below(3) as usize],
                d: if self.chance(30) { Reg::RZ } else { self.dst() },
                p: self.pdst(),
                a: self.psrc(),
            }
            .into(),
            _ => Cs2r {
                d: self.dst(),
                hi: self.chance(20),
            }
            .into(),
        }
    }
}
