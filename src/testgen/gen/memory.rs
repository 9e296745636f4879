//! Memory statements: LDC in every mode and size, LDG/STG, LD/ST (steered), LDS/STS, LDL/STL,
//! with pointers into every region of the [`layout`](crate::testgen::layout), in and out of
//! range.

use super::{floor_pow2, Gen};
use crate::ir::*;
use crate::sass::Sass;
use crate::testgen::layout::*;
use crate::testgen::Profile;

/// A global-memory region the generator aims at.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Region {
    Seg1,
    Edge,
    High,
    Window,
    Zero,
    Top,
}

impl Region {
    /// The `c[0x0]` offset of its 64-bit base.
    fn param(self) -> u16 {
        match self {
            Region::Seg1 => P_SEG1,
            Region::Edge => P_EDGE,
            Region::High => P_HIGH,
            Region::Window => P_WIN,
            Region::Zero => P_ZERO,
            Region::Top => P_TOP,
        }
    }
}

impl Gen<'_, '_> {
    pub(super) fn mem(&mut self) {
        // Rarely an access meant to go wrong (out of range, misaligned LDC, wrong steering): a
        // fault ends the launch, so most programs should run to their end.
        let risky = self.chance(3);
        let w: [u32; 10] = match self.profile {
            Profile::Control => [0, 0, 0, 0, 1, 1, 0, 1, 1, 1],
            _ => [20, 15, 12, 10, 10, 8, 25, 6, 6, 12],
        };
        match self.weighted(&w) {
            0 => self.ldg(risky),
            1 => self.stg(risky),
            2 => self.ld(risky),
            3 => self.st(risky),
            4 => self.lds(risky),
            5 => self.sts(risky),
            6 => self.ldc(risky),
            7 => self.ldl(risky),
            8 => self.stl(risky),
            _ => self.atomic(risky),
        }
    }

    pub(super) fn mem_size(&mut self, u128_ok: bool) -> MemSize {
        let sizes = [
            MemSize::B32,
            MemSize::U8,
            MemSize::S8,
            MemSize::U16,
            MemSize::S16,
            MemSize::B64,
            MemSize::B128,
            MemSize::U128,
        ];
        let n = if u128_ok { 8 } else { 7 };
        sizes[self.weighted(&[30, 10, 10, 10, 10, 15, 15, 5][..n])]
    }

    /// `LOP32I.AND R18, Rx, mask`: an index below `1 << bits` from a random data register.
    fn index(&mut self, bits: u32) {
        let x = Reg(self.below(20) as u8);
        let mask = if bits >= 32 {
            u32::MAX
        } else {
            (1u32 << bits) - 1
        };
        self.emit(format!("LOP32I.AND R18, {x}, {mask:#x}"));
    }

    /// An index in `R18` and the shift that scales it, keeping `index << shift` below
    /// `2^bits`: a random register's low bits and a shift of 0 to 3, or (two times in five, when
    /// it fits) the lane id scaled by the access size, so that the warp's lanes access
    /// consecutive `size`-byte elements (the whole-warp shape of 32-, 64- and 128-bit
    /// accesses).
    fn scaled_index(&mut self, bits: u32, size: u32) -> u32 {
        let lg = size.trailing_zeros();
        if bits >= 5 + lg && self.chance(40) {
            self.emit("S2R R18, SR_LANEID");
            return lg;
        }
        let s = self.below(4).min(bits);
        self.index(bits.saturating_sub(s));
        s
    }

    /// Index bits that keep `index + 0x10 + 16` inside shared memory (0: only offset 0 fits).
    fn shared_bits(&self) -> u32 {
        fit_bits(self.shared_bytes)
    }

    /// Sets up a global/generic address in `R16` (and `R17` with `.E`) and returns the
    /// address operand and where the access should be steered (generic accesses).
    ///
    /// Unless `risky`, the access stays inside mapped memory: SEG1, the SEG1/SEG2 boundary,
    /// HIGH (64-bit forms only), and the shared window (steered to shared memory, or global
    /// when a segment is mapped there).
    pub(super) fn global_ptr(
        &mut self,
        generic: bool,
        risky: bool,
        ps: bool,
        size: u32,
    ) -> (Addr, bool, PredSrc) {
        let shared_ok = generic && self.shared_bytes >= 16;
        let win_global = self.window_segment;
        let w_win = if shared_ok || win_global { 25 } else { 0 };
        let region = match self.weighted(&[40, 20, 15, if risky { 10 } else { w_win }, 8, 8]) {
            0 => Region::Seg1,
            1 => Region::Edge,
            2 => Region::High,
            3 => Region::Window,
            4 => Region::Zero,
            _ => Region::Top,
        };
        // Window accesses go to shared memory (generic, when it has room) or to the global
        // segment mapped at the window.
        let to_shared = region == Region::Window && shared_ok && (!win_global || self.chance(60));
        let safe_bits = match region {
            Region::Seg1 => 17,
            Region::High => 16,
            Region::Edge if size == 16 => 16,
            Region::Edge => self.pick(&[8, 12, 16]),
            Region::Window if to_shared => self.shared_bits(),
            Region::Window | Region::Zero | Region::Top => 11,
        };
        let bits = if risky {
            safe_bits + self.range(1, 4)
        } else {
            safe_bits
        };
        let imm_max: i32 = if ps { 0x7_ffff } else { 0x7f_ffff };
        let offset = if risky && self.chance(50) {
            self.range(0, 2 * imm_max as u32) as i32 - imm_max
        } else {
            self.below(0x10) as i32
        };
        let plg = if generic && self.chance(70) {
            Some(Pred(self.below(7) as u8))
        } else {
            None
        };
        let forms = [
            60,
            if matches!(region, Region::High | Region::Top) && !risky {
                0
            } else {
                30
            },
            if ps || matches!(region, Region::High | Region::Window | Region::Top) {
                0
            } else {
                10
            },
            if risky { 10 } else { 0 },
        ];
        let p = region.param();
        let (addr, e, plg) = match self.weighted(&forms) {
            0 => {
                // .E: a 64-bit pointer from LEA.LO .CC and LEA.HI.X (or IADD .CC / IADD.X).
                let s = self.scaled_index(bits, size);
                if self.chance(70) {
                    self.emit(format!("LEA R16.CC, R18, c[0x0][{p:#x}], {s:#x}"));
                    let pl = plg.map(|p| format!("{p}, ")).unwrap_or_default();
                    self.emit(format!(
                        "LEA.HI.X {pl}R17, R18, c[0x0][{:#x}], RZ, {s:#x}",
                        p + 4
                    ));
                    (
                        Addr {
                            base: Some(Reg(16)),
                            offset,
                        },
                        true,
                        plg,
                    )
                } else {
                    self.emit(format!("SHL R19, R18, {s:#x}"));
                    self.emit(format!("IADD R16.CC, R19, c[0x0][{p:#x}]"));
                    self.emit(format!("IADD.X R17, RZ, c[0x0][{:#x}]", p + 4));
                    (
                        Addr {
                            base: Some(Reg(16)),
                            offset,
                        },
                        true,
                        None,
                    )
                }
            }
            1 => {
                // 32-bit address, zero-extended.
                let s = self.scaled_index(bits, size);
                if let Some(pl) = plg {
                    self.emit(format!("LEA {pl}, R16, R18, c[0x0][{p:#x}], {s:#x}"));
                } else {
                    self.emit(format!("ISCADD R16, R18, c[0x0][{p:#x}], {s:#x}"));
                }
                (
                    Addr {
                        base: Some(Reg(16)),
                        offset,
                    },
                    false,
                    plg,
                )
            }
            2 => {
                // Absolute: `[imm]` (zero-extended ImmU24).
                let a = match region {
                    Region::Edge => EDGE + self.below(0x1000) as u64,
                    Region::Zero => ZERO + self.below(0x800) as u64,
                    _ => SEG1 + self.below(0x1000) as u64,
                };
                (
                    Addr {
                        base: None,
                        offset: a as i32,
                    },
                    false,
                    None,
                )
            }
            _ => {
                // Whatever a data register (pair) holds.
                let r = Reg(2 * self.below(10) as u8);
                let e = self.chance(50);
                let offset = offset.clamp(-0x8_0000, 0x7_ffff);
                (
                    Addr {
                        base: Some(r),
                        offset,
                    },
                    e,
                    None,
                )
            }
        };
        let steer = if risky && self.chance(50) {
            self.psrc()
        } else {
            match (plg, to_shared) {
                (Some(p), _) if (region != Region::Window || to_shared) && self.chance(90) => {
                    PredSrc {
                        pred: p,
                        neg: false,
                    }
                }
                (_, true) => PredSrc {
                    pred: Pred::PT,
                    neg: true,
                },
                _ => PredSrc::TRUE,
            }
        };
        (addr, e, steer)
    }

    fn ldg(&mut self, risky: bool) {
        let size = self.mem_size(true);
        let ps = self.chance(30);
        let (addr, e, _) = self.global_ptr(false, risky, ps, size.bytes());
        let ps = ps.then(|| self.pdst());
        let cop = self.pick(&[
            CacheOp::Default,
            CacheOp::Ca,
            CacheOp::Cg,
            CacheOp::Cs,
            CacheOp::Lu,
            CacheOp::Cv,
            CacheOp::Ci,
        ]);
        let d = self.load_dst(size.regs());
        let g = self.guard();
        let op = Op::from(Ldg {
            d,
            e,
            cop,
            size,
            ps,
            addr,
        });
        if addr.base.is_none() && self.registers == 32 {
            // A base register at or past the register count: absolute addressing.
            let text = format!("{g}{}", Sass(&op)).replace("[0x", "[R200+0x");
            self.emit(text);
        } else {
            self.op(g, op);
        }
    }

    fn stg(&mut self, risky: bool) {
        let size = self.mem_size(true);
        let (addr, e, _) = self.global_ptr(false, risky, false, size.bytes());
        let cop = self.pick(&[
            CacheOp::Default,
            CacheOp::Wb,
            CacheOp::Cg,
            CacheOp::Cs,
            CacheOp::Wt,
        ]);
        let v = self.src_wide(size.regs());
        let g = self.guard();
        self.op(
            g,
            Stg {
                e,
                cop,
                size,
                addr,
                v,
            },
        );
    }

    fn ld(&mut self, risky: bool) {
        let size = self.mem_size(true);
        let (addr, e, steer) = self.global_ptr(true, risky, false, size.bytes());
        let d = self.load_dst(size.regs());
        let g = self.guard();
        self.op(
            g,
            Ld {
                d,
                e,
                cop: CacheOp::Default,
                size,
                addr,
                steer,
            },
        );
    }

    fn st(&mut self, risky: bool) {
        let size = self.mem_size(true);
        let (addr, e, steer) = self.global_ptr(true, risky, false, size.bytes());
        let v = self.src_wide(size.regs());
        let g = self.guard();
        self.op(
            g,
            St {
                e,
                cop: CacheOp::Default,
                size,
                addr,
                v,
                steer,
            },
        );
    }

    /// A shared-memory address: `[R18+imm]` with an index that keeps the access inside shared
    /// memory (unless `risky`), or an absolute `[imm]`.
    pub(super) fn shared_addr(&mut self, risky: bool, size: u32) -> Addr {
        self.offset_addr(self.shared_bytes, risky, size)
    }

    /// An offset into a memory of `sb` bytes (shared or one thread's local memory): `[R18+imm]`
    /// with an index that keeps the access inside (unless `risky`), or an absolute `[imm]`.
    fn offset_addr(&mut self, sb: u32, risky: bool, size: u32) -> Addr {
        let bits = fit_bits(sb) + if risky { self.range(1, 3) } else { 0 };
        if bits == 0 || self.chance(20) {
            let lim = if risky {
                2 * sb + 0x10
            } else {
                sb.saturating_sub(size - 1)
            };
            return Addr {
                base: None,
                offset: self.below(lim) as i32,
            };
        }
        self.index(bits);
        let offset = if risky {
            self.range(0, 0x200) as i32 - 0x100
        } else {
            self.below(0x10) as i32
        };
        Addr {
            base: Some(Reg(18)),
            offset,
        }
    }

    fn lds(&mut self, risky: bool) {
        let size = self.mem_size(false);
        if self.shared_bytes < size.bytes() && !risky {
            return;
        }
        let addr = self.shared_addr(risky, size.bytes());
        let d = self.load_dst(size.regs());
        let g = self.guard();
        let u = self.chance(20);
        self.op(g, Lds { d, u, size, addr });
    }

    fn sts(&mut self, risky: bool) {
        let size = self.mem_size(false);
        if self.shared_bytes < size.bytes() && !risky {
            return;
        }
        let addr = self.shared_addr(risky, size.bytes());
        let v = self.src_wide(size.regs());
        let g = self.guard();
        self.op(g, Sts { size, addr, v });
    }

    fn ldl(&mut self, risky: bool) {
        let size = self.mem_size(false);
        let cop = self.pick(&[CacheOp::Default, CacheOp::Lu, CacheOp::Ci, CacheOp::Cv]);
        let addr = self.offset_addr(LOCAL_BYTES, risky, size.bytes());
        let d = self.load_dst(size.regs());
        let g = self.guard();
        self.op(g, Ldl { d, cop, size, addr });
    }

    fn stl(&mut self, risky: bool) {
        let size = self.mem_size(false);
        let cop = self.pick(&[CacheOp::Default, CacheOp::Cg, CacheOp::Cs, CacheOp::Wt]);
        let addr = self.offset_addr(LOCAL_BYTES, risky, size.bytes());
        let v = self.src_wide(size.regs());
        let g = self.guard();
        self.op(g, Stl { cop, size, addr, v });
    }

    fn ldc(&mut self, risky: bool) {
        let size = [
            MemSize::B32,
            MemSize::U8,
            MemSize::S8,
            MemSize::U16,
            MemSize::S16,
            MemSize::B64,
            MemSize::B128,
        ][self.weighted(&[30, 10, 10, 10, 10, 15, 15])];
        let bytes = size.bytes();
        let align = !(bytes - 1);
        let mode = self.pick(&[LdcMode::Ia, LdcMode::Il, LdcMode::Is, LdcMode::Isl]);
        let bank = match self.weighted(&[60, 25, 15]) {
            0 => self.below(4),
            1 => self.pick(&[7, 8, 12, 13, 14, 17, 18]),
            _ => self.below(32),
        } as u8;
        let d = self.load_dst(size.regs());
        let g = self.guard();
        let (a, imm) = if self.chance(35) {
            let addr = match self.weighted(&[60, 20, 20]) {
                0 => 0x180 + 4 * self.below(0xa0),
                1 => 0xff00 + 4 * self.below(0x40),
                _ => self.bits32() & 0xffff,
            };
            let addr = if risky { addr } else { addr & align };
            (Reg::RZ, addr as i32)
        } else {
            // Index bits 16 and up select banks in IL/IS/ISL modes.
            let bank_bits = self.pick(&[0u32, 1, 3, 7, 0x1f]);
            let addr_bits = if risky { 0xffff } else { 0x3ff & align };
            let x = Reg(self.below(20) as u8);
            self.emit(format!(
                "LOP32I.AND R18, {x}, {:#x}",
                bank_bits << 16 | addr_bits
            ));
            let imm = if risky {
                self.range(0, 0xffff) as i32 - 0x8000
            } else {
                (self.range(0, 0x600) as i32 - 0x200) & align as i32
            };
            (Reg(18), imm)
        };
        self.op(
            g,
            Ldc {
                d,
                size,
                mode,
                bank,
                a,
                imm,
            },
        );
    }
}

/// Index bits that keep `index + 0x10 + 16` inside `total` bytes (0: only offset 0 fits).
fn fit_bits(total: u32) -> u32 {
    let usable = total.saturating_sub(0x20);
    if usable < 2 {
        0
    } else {
        floor_pow2(usable).trailing_zeros()
    }
}
