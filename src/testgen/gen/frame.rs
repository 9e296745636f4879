//! The frame around the random code: the prologue (thread ids, register fills) and the
//! epilogue that stores the per-thread state, full or minimal.

use super::Gen;
use crate::ir::*;
use crate::sass::{parse_program, AsmOptions};
use crate::testgen::layout::*;

impl Gen<'_, '_> {
    pub(super) fn prologue(&mut self, block: [u32; 3], grid: [u32; 3]) {
        let [bx, by, _] = block;
        let tpc = block.iter().product::<u32>();
        self.emit("S2R R24, SR_TID.X");
        self.emit("S2R R25, SR_TID.Y");
        self.emit("S2R R26, SR_TID.Z");
        self.emit(format!("XMAD R25, R25, {bx:#x}, R24"));
        self.emit(format!("XMAD R25, R26, {:#x}, R25", bx * by));
        self.emit("S2R R26, SR_CTAID.X");
        self.emit("S2R R27, SR_CTAID.Y");
        self.emit(format!("XMAD R26, R27, {:#x}, R26", grid[0]));
        self.emit(format!("XMAD R24, R26, {tpc:#x}, R25"));
        self.emit("S2R R27, SR_LANEID");
        for r in 0..20u32 {
            let k = 0x9e37_79b9u32.wrapping_mul(r + 1);
            let line = match self.weighted(&[40, 15, 15, 10, 10, 10]) {
                0 => format!("IADD32I R{r}, R24, {k:#x}"),
                1 => format!("LOP32I.XOR R{r}, R27, {:#x}", self.imm32()),
                2 => format!(
                    "ISCADD R{r}, R25, {:#x}, {:#x}",
                    self.below(0x8_0000),
                    self.below(32)
                ),
                3 => format!("MOV32I R{r}, {:#x}", self.imm32()),
                4 => format!(
                    "LDC R{r}, c[{:#x}][{:#x}]",
                    self.below(4),
                    0x180 + 4 * self.below(0xa0)
                ),
                _ => format!("XMAD R{r}, R24, {:#x}, R27", self.below(0x1_0000)),
            };
            self.emit(line);
        }
    }

    pub(super) fn epilogue(&mut self) {
        self.emit("P2R R29, CC, RZ, 0xf");
        self.emit("P2R R28, PR, RZ, 0x7f");
        self.emit(format!("LEA R30.CC, R24, c[0x0][{P_OUT:#x}], 0x8"));
        self.emit(format!(
            "LEA.HI.X R31, R24, c[0x0][{:#x}], RZ, 0x8",
            P_OUT + 4
        ));
        for q in 0..7 {
            self.emit(format!("STG.E.128 [R30+{:#x}], R{}", 16 * q, 4 * q));
        }
        self.emit("STG.E.64 [R30+0x70], R28");
        if self.shared_bytes >= 16 {
            self.emit("ISCADD R18, R25, RZ, 0x4");
            self.emit(format!(
                "ISETP.LE.U32.AND P0, PT, R18, {:#x}, PT",
                self.shared_bytes - 16
            ));
            self.emit("@P0 LDS.128 R0, [R18]");
            self.emit("@P0 STG.E.128 [R30+0x80], R0");
        }
        self.emit("EXIT");
    }

    /// [`Frame::Minimal`]: ends the program with an epilogue that stores only the 16-byte groups
    /// of the slot holding a register the random code (lines `code_start..`) writes (the P2R
    /// words always; shared memory if the code stores there), and drops the prologue's fills of
    /// registers that are neither read by the code nor stored.
    pub(super) fn minimal_frame(&mut self, code_start: usize) {
        let mut text = self.lines.join("\n");
        text.push_str("\nEXIT;\n");
        let opts = AsmOptions {
            registers: self.registers,
        };
        let prog = parse_program(&text, &opts)
            .unwrap_or_else(|e| panic!("the generator wrote invalid SASS: {e}\n{text}"));
        let (mut read, mut written, mut shared) = (0u32, 0u32, false);
        for inst in prog.blocks.iter().flat_map(|b| &b.insts) {
            if (inst.loc.line as usize) <= code_start {
                continue;
            }
            inst.op.for_each_reg(&mut |u| {
                for k in 0..u.count {
                    let r = u.reg.offset(k);
                    if r.0 < 32 {
                        let bit = 1u32 << r.0;
                        if u.def {
                            written |= bit;
                        } else {
                            read |= bit;
                        }
                    }
                }
            });
            shared |= matches!(inst.op, Op::Sts(_) | Op::St(_));
        }
        // The 16-byte groups of the slot to store: those holding a written register.
        let groups: u32 = (0..8)
            .filter(|q| written >> (4 * q) & 0xf != 0)
            .fold(0, |m, q| m | 0xf << (4 * q));
        // The fills of R0..R19 are the prologue's last 20 lines: keep those of registers read
        // or stored (so a stored group holds what the full frame stores).
        let keep_fill = read | groups;
        let fills = code_start - 20..code_start;
        let mut k = 0;
        self.lines.retain(|_| {
            let keep = !fills.contains(&k) || keep_fill >> (k - fills.start) & 1 != 0;
            k += 1;
            keep
        });
        self.emit("P2R R29, CC, RZ, 0xf");
        self.emit("P2R R28, PR, RZ, 0x7f");
        self.emit(format!("LEA R30.CC, R24, c[0x0][{P_OUT:#x}], 0x8"));
        self.emit(format!(
            "LEA.HI.X R31, R24, c[0x0][{:#x}], RZ, 0x8",
            P_OUT + 4
        ));
        for q in 0..7 {
            if groups >> (4 * q) & 1 != 0 {
                self.emit(format!("STG.E.128 [R30+{:#x}], R{}", 16 * q, 4 * q));
            }
        }
        self.emit("STG.E.64 [R30+0x70], R28");
        if shared && self.shared_bytes >= 16 {
            self.emit("ISCADD R18, R25, RZ, 0x4");
            self.emit(format!(
                "ISETP.LE.U32.AND P0, PT, R18, {:#x}, PT",
                self.shared_bytes - 16
            ));
            self.emit("@P0 LDS.128 R0, [R18]");
            self.emit("@P0 STG.E.128 [R30+0x80], R0");
        }
        self.emit("EXIT");
    }
}
