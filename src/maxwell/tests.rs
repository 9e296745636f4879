//! Decoder tests: words whose meaning is known from NVIDIA's tools' listings, every form of the
//! table under random field values (decode → print → parse is the identity), and whole random
//! programs through the disassembler.

use super::encoding::{all_forms, form_of, Form, Word, B};
use super::*;
use crate::sass::print_inst;

const OPTS: DecodeOptions = DecodeOptions { registers: 255 };

const NOP: u64 = 0x50b0000000070f00;

/// Code of whole 32-byte groups holding `words` at their pcs, NOPs in the other slots.
fn code_with(words: &[(u32, u64)]) -> Vec<u8> {
    let end = words.iter().map(|w| w.0).max().unwrap_or(8);
    let mut code = vec![0u8; (end as usize & !31) + 32];
    for pc in (8..code.len() as u32).step_by(8).filter(|p| !is_sched(*p)) {
        code[pc as usize..pc as usize + 8].copy_from_slice(&NOP.to_le_bytes());
    }
    for &(pc, w) in words {
        code[pc as usize..pc as usize + 8].copy_from_slice(&w.to_le_bytes());
    }
    code
}

/// The text of one decoded word at `pc` (guard included).
pub(super) fn text_at(word: u64, pc: u32) -> Result<String, String> {
    let code = code_with(&[(pc, word)]);
    let d = decode_words(&code).map_err(|e| e.message)?;
    let i = d.into_iter().find(|d| d.pc == pc).expect("decoded");
    Ok(match i.inst {
        ParsedInst::Op(i) => print_inst(&i).unwrap(),
        ParsedInst::Control(c) => c.to_string(),
    })
}

pub(super) fn text(word: u64) -> String {
    text_at(word, 8).unwrap_or_else(|e| panic!("{word:#018x}: {e}"))
}

/// Words as cuobjdump/nvdisasm print them for ptxas's sm_50 output (each pair seen in NVIDIA's
/// listings: the stack-pointer load every kernel opens with, thread and block ids, the
/// global accesses of a vector add, the exit and the final self-branch).
#[test]
fn words_nvidia_tools_print() {
    assert_eq!(text(0x4c98078000870001), "MOV R1, c[0x0][0x20]");
    assert_eq!(text(0xf0c8000002170000), "S2R R0, SR_TID.X");
    assert_eq!(text(0xf0c8000002570002), "S2R R2, SR_CTAID.X");
    assert_eq!(text(0xe30000000007000f), "EXIT");
    assert_eq!(text(0x50b0000000070f00), "NOP");
    assert_eq!(text(0xeed4200000070200), "LDG.E R0, [R2]");
    assert_eq!(text(0xeedc200000070200), "STG.E [R2], R0");
    // `BRA` to itself: the offset is from the next instruction, -8.
    assert_eq!(text_at(0xe2400fffff87000f, 0x30).unwrap(), "BRA 0x30");
    // ptxas's closing self-branch at the first slot of a group points at the group's
    // scheduling word (-16): the instruction after it, itself.
    assert_eq!(text_at(0xe2400fffff07000f, 0x108).unwrap(), "BRA 0x108");
    // SSY has no guard field: bits 16-19 clear are not `@P0`.
    assert_eq!(text_at(0xe290000005000000, 0x18).unwrap(), "SSY 0x70");
    // A guarded exit: @P0 (bits 16-18 = 0, bit 19 clear).
    assert_eq!(text(0xe30000000000000f), "@P0 EXIT");
}

/// Words of the ptxas fixtures (tests/cubin/memory.cubin) read field by field (no NVIDIA
/// listing of these is at hand; the text is what the fields mean).
#[test]
fn words_of_ptxas_fixtures() {
    // gather: the high word of the 64-bit byte offset sext(i) << 2, {R2 = sign, R0 = i}.
    assert_eq!(text(0x36f8014000270007), "SHF.L.U64 R7, R0, 0x2, R2");
    // generic: selp.b64 of the shared-window pointer and `data` on flag != 0 (R10 = flag).
    assert_eq!(
        text(0x4b4a050005070b0b),
        "ICMP.NE.U32 R11, R11, c[0x0][0x140], R10"
    );
    assert_eq!(
        text(0x4b4a05000517ff0a),
        "ICMP.NE.U32 R10, RZ, c[0x0][0x144], R10"
    );
}

/// The BRX words ptxas 12.9 wrote for `switch` statements (tests/cubin/switch.cu), read with
/// envytools' gm107 fields: the register in bits 8-15, a 24-bit signed offset at 20, the CC
/// test in bits 0-4, the guard; its targets come from the cubin.
#[test]
fn brx_words() {
    let brx = |word: u64, pc: u32, targets: &[u32]| -> Result<String, String> {
        let code = code_with(&[(pc, word)]);
        let b = crate::cubin::IndirectBranch {
            offset: pc,
            kind: 0,
            targets: targets.to_vec(),
        };
        let mut d = decode_words(&code).map_err(|e| e.message)?;
        super::brx_targets(&mut d, &[b]).map_err(|e| e.message)?;
        let i = d.into_iter().find(|d| d.pc == pc).expect("decoded");
        match i.inst {
            ParsedInst::Control(c) => Ok(c.to_string()),
            ParsedInst::Op(i) => Err(format!("an op: {i:?}")),
        }
    };
    // The offset is minus the next instruction's pc: the register holds the target itself.
    // A target at a scheduling word (0xe0) is the instruction after it.
    assert_eq!(
        brx(0xe250_0fff_f307_040f, 0xc8, &[0xe0, 0xd0, 0x4f0]).unwrap(),
        "BRX R4 -0xd0 (*\"BRANCH_TARGETS 0xd0,0xe8,0x4f0\"*)"
    );
    assert_eq!(
        brx(0xe250_0fff_ed07_040f, 0x128, &[0x130]).unwrap(),
        "BRX R4 -0x130 (*\"BRANCH_TARGETS 0x130\"*)"
    );
    // Guarded, with a CC test, a positive offset.
    assert_eq!(
        brx(0xe250_0000_1000_0202, 0x8, &[0x10]).unwrap(),
        "@P0 BRX CC.EQ, R2 0x100 (*\"BRANCH_TARGETS 0x10\"*)"
    );
    // .LMT (bit 6) is refused; an indirect call's entry (kind 1, no targets) is named.
    assert!(brx(0xe250_0fff_f307_044f, 0xc8, &[0xd0])
        .unwrap_err()
        .contains("BRX.LMT"));
    let code = code_with(&[(0xf8, 0xe250_0fff_f007_030f)]);
    let call = crate::cubin::IndirectBranch {
        offset: 0xf8,
        kind: 1,
        targets: vec![],
    };
    let e = decode_with(&code, &OPTS, &[call]).unwrap_err();
    assert!(e.message.contains("indirect call"), "{e}");
    // A target between instructions is no instruction of the code.
    let b = crate::cubin::IndirectBranch {
        offset: 0x10,
        kind: 0,
        targets: vec![0x14],
    };
    let e = decode_with(&code_with(&[(0x10, 0xe250_0fff_f307_040f)]), &OPTS, &[b]).unwrap_err();
    assert!(e.message.contains("branch target 0x14"), "{e}");
}

/// The CAL and RET words of tests/cubin/calls.cubin, and their variants.
#[test]
fn calls_and_returns() {
    // CAL .NOINC (bit 6), target 0x48 and 0x18 past the next instruction; bits 16-19 are clear
    // but CAL has no guard field: not `@P0`. The hint is not kept.
    assert_eq!(text_at(0xe260000004800040, 0x48).unwrap(), "CAL 0x98");
    assert_eq!(text_at(0xe260000001800040, 0x58).unwrap(), "CAL 0x78");
    assert_eq!(text_at(0xe260000001800000, 0x58).unwrap(), "CAL 0x78");
    // A negative offset: a call back to 0x8 from 0x30.
    assert_eq!(text_at(0xe2600ffffd800000, 0x30).unwrap(), "CAL 0x10");
    // A constant-bank target (bit 5) is not a pc-relative CAL: refused.
    assert!(text_at(0xe260000004800060, 0x48).is_err());
    // RET, guarded like EXIT (bits 16-19), with the CC test in bits 0-4.
    assert_eq!(text(0xe32000000007000f), "RET");
    assert_eq!(text(0xe32000000000000f), "@P0 RET");
    assert_eq!(text(0xe32000000009000f), "@!P1 RET");
    assert_eq!(text(0xe320000000070005), "RET CC.NE");
    assert!(text(0xe320000000070002).ends_with("RET CC.EQ"));
    assert_eq!(text(0xe320000000070003), "RET CC.LE");
    assert!(text_at(0xe32000000007001f, 8).is_err());
}

/// Words ptxas 12.9 wrote for libdevice's functions (NVRTC's PTX of one-line CUDA kernels):
/// FSET and DSET writing RZ.CC for atan2f and atan2 (then a branch on CC.NEU), and the product
/// negation of FFMA and DFMA with an immediate, folded into its sign (fmaf(-x, 3.5f, y)).
#[test]
fn words_of_libdevice_functions() {
    assert_eq!(text(0x584283800ff704ff), "FSET.EQ.AND RZ.CC, |R4|, RZ, PT");
    assert_eq!(text(0x594283800ff702ff), "DSET.EQ.AND RZ.CC, |R2|, RZ, PT");
    assert_eq!(text(0x3281024060070200), "FFMA R0, R2, -3.5, R4");
    assert_eq!(text(0x367102400c070202), "DFMA R2, R2, -0x3ff40000, R4");
}

/// Words of tests/cubin/convert.cubin read field by field (envytools' gm107 tables, NAK's sm50
/// encoder), each the instruction its PTX line compiles to.
#[test]
fn conversion_and_double_words_of_ptxas() {
    // cvt.rzi.s32.f32, cvt.rni.u32.f32, cvt.rzi.ftz.s32.f32, cvt.rzi.u16.f32
    assert_eq!(text(0x5cb0018000471a00), "F2I.S32.F32.TRUNC R0, R4");
    assert_eq!(text(0x5cb0000000470a07), "F2I.U32.F32 R7, R4");
    assert_eq!(text(0x5cb0118000471a10), "F2I.FTZ.S32.F32.TRUNC R16, R4");
    assert_eq!(text(0x5cb0018000470913), "F2I.U16.F32.TRUNC R19, R4");
    // cvt.rn.f32.s32 of a parameter, cvt.rz.f32.u32, cvt.rm.f32.u64, cvt.rn.f64.s64
    assert_eq!(text(0x4cb8000005472a13), "I2F.F32.S32 R19, c[0x0][0x150]");
    assert_eq!(text(0x5cb8018000470a0c), "I2F.F32.U32.RZ R12, R4");
    assert_eq!(text(0x5cb8008000270e1d), "I2F.F32.U64.RM R29, R2");
    assert_eq!(text(0x5cb8000000272f08), "I2F.F64.S64 R8, R2");
    // cvt.rn.f16.f32, cvt.f32.f16, cvt.rni.f64.f64, cvt.rz.f32.f64
    assert_eq!(text(0x5ca800000047090d), "F2F.F16.F32 R13, R4");
    assert_eq!(text(0x5ca8000000d70605), "F2F.F32.F16 R5, R13");
    assert_eq!(text(0x5ca8040000270f0c), "F2F.F64.F64.ROUND R12, R2");
    assert_eq!(text(0x5ca8018000270e1b), "F2F.F32.F64.RZ R27, R2");
    // cvt.sat.u16.s32, cvt.sat.s8.s32 of a parameter
    assert_eq!(text(0x5ce4000000472906), "I2I.U16.S32.SAT R6, R4");
    assert_eq!(
        text(0x4ce4000005473815),
        "I2I.S8.S32.SAT R21, c[0x0][0x150]"
    );
    // sub.rn.f64 with abs.f64/neg.f64 folded, add.rz.f64, mul.rn.f64 by 5.0, fma.rz.f64 with a
    // constant ptxas put in bank 2, fma.rp.f64 with the parameter as Sb
    assert_eq!(text(0x5c70600000670412), "DADD R18, |R4|, -R6");
    assert_eq!(text(0x5c70018000670414), "DADD.RZ R20, R4, R6");
    assert_eq!(text(0x3880004014070418), "DMUL R24, R4, 0x40140000");
    assert_eq!(text(0x537c020800070414), "DFMA.RZ R20, R4, R4, c[0x2][0x0]");
    assert_eq!(
        text(0x4b78010005670204),
        "DFMA.RP R4, R2, c[0x0][0x158], R2"
    );
    // min.f64 and max.f64, setp.nan / setp.gt / setp.ltu (with the and.pred folded)
    assert_eq!(text(0x5c5003800067040c), "DMNMX R12, R4, R6, PT");
    assert_eq!(text(0x5c50078000670408), "DMNMX R8, R4, R6, !PT");
    assert_eq!(text(0x5b8803800ff70207), "DSETP.NAN.AND P0, PT, R2, RZ, PT");
    assert_eq!(
        text(0x368403c00007080f),
        "DSETP.GT.AND P1, PT, R8, 0x40000000, PT"
    );
    assert_eq!(
        text(0x4b89040005670207),
        "DSETP.LTU.AND P0, PT, R2, c[0x0][0x158], !P0"
    );
    assert_eq!(text(0x590e03800ff70416), "DSET.GEU.AND R22, R4, RZ, PT");
}

/// The barrier words of ptxas's `bar.red.popc.u32`, `bar.red.and.pred` and `bar.red.or.pred`
/// (tests/cubin/barred.cubin; field by field, envytools' gm107 tables): BAR.RED with its
/// reduction, predicate and barrier, and the B2R.RESULT that reads the result.
#[test]
fn barrier_reduction_words_of_ptxas() {
    assert_eq!(text(0xf0a8180200070000), "BAR.RED.POPC 0x0, P0");
    assert_eq!(text(0xf0a8180a00070100), "BAR.RED.AND 0x1, P0");
    assert_eq!(text(0xf0a81c9200070200), "BAR.RED.OR 0x2, !P1");
    assert_eq!(text(0xf0b8e0010008ff00), "@!P0 B2R.RESULT R0");
    assert_eq!(text(0xf0b8e0010007ff00), "B2R.RESULT R0");
    assert_eq!(text(0xf0b800010007ffff), "B2R.RESULT RZ, P0");
    assert_eq!(text(0xf0b820010007ffff), "B2R.RESULT RZ, P1");
    // The same kernel's words: the other reductions and predicates, B2R.RESULT's register.
    assert_eq!(text(0xf0a8188a00070100), "BAR.RED.AND 0x1, P1");
    assert_eq!(text(0xf0a81d1200070200), "BAR.RED.OR 0x2, !P2");
    assert_eq!(text(0xf0a81c0200070300), "BAR.RED.POPC 0x3, !P0");
    assert_eq!(text(0xf0b840010007ffff), "B2R.RESULT RZ, P2");
    assert_eq!(text(0xf0b8e0010007ff04), "B2R.RESULT R4");
    // Named barriers with a thread count (the `named` kernel): `bar.arrive 1, 128` (guarded),
    // `bar.sync 1, 128`, `bar.red.popc.u32 %r, 2, 64, %p`, `bar.sync 3, 64`.
    assert_eq!(text(0xf0a81b8108080100), "@!P0 BAR.ARV 0x1, 0x80");
    assert_eq!(text(0xf0a81b8008070100), "BAR.SYNC 0x1, 0x80");
    assert_eq!(text(0xf0a8180204070200), "BAR.RED.POPC 0x2, 0x40, P0");
    assert_eq!(text(0xf0a81b8004070300), "BAR.SYNC 0x3, 0x40");
    // A thread count in a register (`bar.sync 2, %r`) is refused, as is .ARV without a count.
    assert!(text_at(0xf0a8138000400200, 8).is_err(), "count in R4");
    assert!(text_at(0xf0a81b8100070100, 8).is_err(), "ARV, count 0");
    // BAR.SYNC keeps its form; the other modes and B2R without .RESULT are refused.
    assert_eq!(text(0xf0a81b8000070100), "BAR.SYNC 0x1");
    assert!(text_at(0xf0a8180300070000, 8).is_err(), ".SCAN");
    assert!(text_at(0xf0a8181a00070000, 8).is_err(), "reduction 3");
    assert!(
        text_at(0xf0b8e0000007ff00, 8).is_err(),
        "B2R without .RESULT"
    );
}

/// The byte and half selects ptxas writes on conversion sources (tests/cubin/selects.cubin:
/// `cvt.rn.f32.u8` of `x >> 24`, `cvt.rn.f32.u16`/`.s16` and `cvt.f32.f16`/`cvt.rzi.s32.f16`
/// of an upper half, `cvt.rm.f32.u8` of `x >> 16`): bits 41-42 of I2F/I2I, bit 41 of F2F/F2I.
#[test]
fn conversion_selects_of_ptxas() {
    assert_eq!(text(0x5cb8060000470200), "I2F.F32.U8 R0, R4.B3");
    assert_eq!(text(0x5cb8040000470607), "I2F.F32.U16 R7, R4.H1");
    assert_eq!(text(0x5cb8040000472608), "I2F.F32.S16 R8, R4.H1");
    assert_eq!(text(0x5ca8020000470609), "F2F.F32.F16 R9, R4.H1");
    assert_eq!(text(0x5cb003800047160b), "F2I.S32.F16.TRUNC R11, R4.H1");
    assert_eq!(text(0x5cb804800047020d), "I2F.F32.U8.RM R13, R4.B2");
    // I2I takes the same field (envytools' b1-b3).
    assert_eq!(text(0x5ce0020000470005), "I2I.U8.U8 R5, R4.B1");
    // Selects that name no part of the source are refused: .B1 of a 32-bit or 16-bit source,
    // a half select of a binary32 source, F2I's bit 42.
    assert!(text_at(0x5cb8020000470a00, 8).is_err(), "B1 of U32");
    assert!(text_at(0x5cb8020000470600, 8).is_err(), "B1 of U16");
    assert!(text_at(0x5ca8020000470a09, 8).is_err(), "H1 of F32");
    assert!(text_at(0x5cb005800047160b, 8).is_err(), "F2I bit 42");
}

/// FMUL's scale (bits 41-43, envytools' gm107 table: 1-3 .D2 .D4 .D8, 4-6 .M8 .M4 .M2) on
/// `FMUL R0, R2, R3` (0x5c68000000370200 in ptxas's float.cubin); ptxas 12.9 -O3 did not
/// write a scale for any product by a power of two tried, so the words are built by field.
#[test]
fn fmul_scale_fields() {
    assert_eq!(text(0x5c68000000370200), "FMUL R0, R2, R3");
    assert_eq!(text(0x5c68020000370200), "FMUL.D2 R0, R2, R3");
    assert_eq!(text(0x5c68060000370200), "FMUL.D8 R0, R2, R3");
    assert_eq!(text(0x5c68080000370200), "FMUL.M8 R0, R2, R3");
    assert_eq!(text(0x5c680c0000370200), "FMUL.M2 R0, R2, R3");
    assert!(text_at(0x5c680e0000370200, 8).is_err(), "scale 7");
}

#[test]
fn field_accessors() {
    let w = Word(0x0100_0000_0000_0000 | (0x12345678u64 << 20) | (0x7 << 16) | (0xf << 12) | 3);
    assert_eq!(text(w.0), "MOV32I R3, 0x12345678");
    // Sign of the 20-bit immediate at bit 56.
    let neg = Word((1 << 56) | (0x7ffff << 20));
    assert_eq!(neg.imm20(), 0xffff_ffff);
    assert_eq!(Word(0x7ffff << 20).imm20(), 0x7ffff);
    // Constant bank 3, word offset 5.
    let c = Word((3 << 34) | (5 << 20)).cbuf();
    assert_eq!((c.bank, c.offset), (3, 20));
}

/// A deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A word in `f`'s encoding with random free bits; registers mostly small, so that they
    /// are in range and aligned often enough.
    fn word(&mut self, f: &Form) -> u64 {
        let mut w = (self.next() & !f.mask) | f.bits;
        // Bias register fields (0, 8, 20, 39) to small even values or RZ.
        for lo in [0u32, 8, 20, 39] {
            let field_mask = 0xffu64 << lo;
            if f.mask & field_mask == 0 && !self.next().is_multiple_of(4) {
                let r = match self.next() % 4 {
                    0 => 255,
                    _ => (self.next() % 16) * 4,
                };
                w = (w & !field_mask) | (r << lo);
            }
        }
        // The condition-code test: mostly "always" (3 of its 32 values are supported).
        if matches!(f.mnemonic, "BRA" | "SYNC" | "BRK" | "CONT" | "RET" | "EXIT")
            && self.next().is_multiple_of(2)
        {
            w = (w & !0x3f) | 0xf;
        }
        // BAR: .SYNC (mode, reduction and predicate fixed) or .RED (a reduction and any
        // predicate), no thread count, a small barrier.
        if f.mnemonic == "BAR" {
            w &= !((0x7ff << 32) | (0xfff << 20) | (0xff << 8));
            w |= (1 << 44) | ((self.next() % 16) << 8);
            w |= match self.next() % 3 {
                0 => 0x380 << 32,
                1 => (0x381 << 32) | (1 << 43) | ((1 + self.next() % 0xfff) << 20),
                _ => (2 | ((self.next() % 3) << 3) | ((self.next() & 0xf) << 7)) << 32,
            };
            if self.next().is_multiple_of(3) {
                w |= (1 << 43) | ((self.next() % 0x1000) << 20);
            }
        }
        // B2R.RESULT: the mode bit set, the barrier field 0xff, the rest clear.
        if f.mnemonic == "B2R" && !self.next().is_multiple_of(4) {
            w &= !((0xfff << 33) | (0x7 << 48) | (0xfff << 20) | (0xff << 8));
            w |= (1 << 32) | (0xff << 8);
        }
        // CS2R reads only the two clock registers (0x50, 0x51) of its 8-bit field.
        if f.mnemonic == "CS2R" && !self.next().is_multiple_of(4) {
            w = (w & !(0xff << 20)) | ((0x50 | (self.next() & 1)) << 20);
        }
        // SHF's immediate is 6 bits: keep the rest of the ALU immediate field clear mostly.
        if f.mnemonic == "SHF" && f.b == B::None && !self.next().is_multiple_of(4) {
            w &= !((0x7ff << 26) | (1 << 56));
        }
        // Conversions and binary64 ops: mostly no .CC or selectors, valid float types, an
        // 8-byte aligned constant (a 64-bit operand), no modifiers on an immediate.
        let mn = f.mnemonic;
        let cvt = ["I2F", "F2I", "F2F", "I2I"].contains(&mn);
        let dbl = ["DADD", "DMUL", "DFMA", "DMNMX", "DSETP", "DSET"].contains(&mn);
        if (cvt || dbl) && !self.next().is_multiple_of(4) {
            w &= !(1 << 47);
            if cvt {
                w &= !(if mn == "F2F" { 1 << 41 } else { 3 << 41 });
            }
            if mn == "F2F" && self.next().is_multiple_of(2) {
                w &= !(1 << 42);
            }
            for (lo, on) in [(8, ["I2F", "F2F"]), (10, ["F2I", "F2F"])] {
                if on.contains(&mn) && (w >> lo) & 3 == 0 {
                    w |= 2 << lo;
                }
            }
            if mn == "I2I" {
                w &= !((1 << 9) | (1 << 11));
            }
            w &= !(1 << 20);
            if f.b == B::None {
                for b in [6, 7, 43, 44, 45, 46, 48, 49, 53, 54] {
                    w &= !(1 << b);
                }
            }
            // The opcode bits stay.
            w = (w & !f.mask) | f.bits;
        }
        // FMUL's .FMZ (45) is refused and its scale 7 (41..43) invalid: keep them clear mostly.
        if matches!(f.mnemonic, "FMUL" | "FMUL32I" | "FFMA" | "FFMA32I")
            && !self.next().is_multiple_of(4)
        {
            w &= !((0x7 << 41) | (1 << 45) | (1 << 54) | (1 << 47) | (1 << 52));
            w |= f.bits;
        }
        // A float immediate takes no modifier bits; FCHK's check field (39..44) is 0.
        if f.b == B::F20 && !self.next().is_multiple_of(4) {
            w &= !((1 << 6) | (1 << 44) | (1 << 45) | (1 << 48) | (1 << 49) | (1 << 53));
            w |= f.bits;
        }
        if f.mnemonic == "FCHK" && !self.next().is_multiple_of(4) {
            w &= !(0x3f << 39);
        }
        // VABSDIFF4 as ptxas writes it: every destination byte, the default byte selects, no
        // .CC, bit 54 clear, not .SAT with .ACC (mostly).
        if f.mnemonic == "VABSDIFF4" && !self.next().is_multiple_of(4) {
            w &= !((0xff << 28) | (1 << 47) | (1 << 54));
            w |= (3 << 51) | (3 << 36) | (0x44 << 28);
            if w >> 53 & 1 != 0 {
                w &= !(1 << 50);
            }
        }
        // LD/ST carry a 32-bit offset; the text's is 24 bits: keep most in range.
        if matches!(f.mnemonic, "LD" | "ST") && !self.next().is_multiple_of(4) {
            w &= !(0xfff << 40);
        }
        w
    }
}

/// Every form decodes random words in its encoding to ops whose text reads back as the same
/// op; and each form decodes a good share of them (no form is dead).
#[test]
fn every_form_round_trips_through_text() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for f in all_forms() {
        let mut good = 0;
        for _ in 0..400 {
            let w = rng.word(f);
            let Some(found) = form_of(Word(w)) else {
                panic!("{f:?}: {w:#018x} matches no form");
            };
            if !std::ptr::eq(found, f) && found.mask.count_ones() <= f.mask.count_ones() {
                panic!("{f:?}: {w:#018x} taken by {found:?}, no more specific");
            }
            if !std::ptr::eq(found, f) {
                continue;
            }
            let Ok(d) = decode_words(&code_with(&[(8, w)])) else {
                continue;
            };
            match &d[0].inst {
                ParsedInst::Op(i) => match super::check_text(i, &AsmOptions::default()) {
                    Ok(()) => good += 1,
                    Err(m) if m.contains("different instruction") => {
                        panic!("{f:?}: {w:#018x}: {m}")
                    }
                    Err(_) => {}
                },
                ParsedInst::Control(c) => {
                    let mut c = c.clone();
                    // A BRX's targets come from the cubin, not its word: give it one.
                    if let crate::sass::ControlKind::Brx { targets, .. } = &mut c.kind {
                        targets.push(Target::Addr(0x10));
                    }
                    let t = c.to_string();
                    match single(&t, &AsmOptions::default()) {
                        Ok(ParsedInst::Control(back)) => {
                            assert_eq!((back.guard, back.kind), (c.guard, c.kind.clone()), "{t}");
                            good += 1;
                        }
                        r => panic!("{f:?}: {w:#018x}: `{t}` reads back as {r:?}"),
                    }
                }
            }
        }
        assert!(good >= 10, "{f:?}: only {good} of 400 random words decoded");
    }
}

/// Random programs of decodable words (branches to instructions of the program) decode to
/// the program their disassembly parses to.
#[test]
fn disassembly_parses_to_the_decoded_program() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let forms: Vec<&Form> = all_forms().collect();
    for case in 0..60 {
        let n = 3 + (rng.next() % 20) as usize;
        let slots: Vec<u32> = (0..n)
            .map(|i| {
                let i = i as u32;
                0x20 * (i / 3) + 8 * (i % 3 + 1)
            })
            .collect();
        let mut code = vec![0u8; (n.div_ceil(3)) * 32];
        // Each BRX's targets, as the cubin would list them: up to three slots, or the
        // scheduling word before one (the instruction after it).
        let mut branches: Vec<crate::cubin::IndirectBranch> = Vec::new();
        for &pc in &slots {
            let w = loop {
                let f = forms[(rng.next() % forms.len() as u64) as usize];
                let mut w = rng.word(f);
                if f.mnemonic == "BRX" {
                    let targets = (0..1 + rng.next() % 3)
                        .map(|_| {
                            let t = slots[(rng.next() % n as u64) as usize];
                            if rng.next().is_multiple_of(4) && t % 0x20 == 8 {
                                t - 8
                            } else {
                                t
                            }
                        })
                        .collect();
                    branches.retain(|b| b.offset != pc);
                    branches.push(crate::cubin::IndirectBranch {
                        offset: pc,
                        kind: 0,
                        targets,
                    });
                }
                if matches!(f.mnemonic, "BRA" | "SSY" | "PBK" | "PCNT" | "CAL") {
                    let t = slots[(rng.next() % n as u64) as usize];
                    let rel = (i64::from(t) - i64::from(pc) - 8) as u64 & 0xff_ffff;
                    w = (w & !(0xff_ffff << 20)) | (rel << 20);
                    if f.mnemonic != "BRA" {
                        w |= 0x7 << 16; // never guarded
                        w &= !(1 << 19);
                    }
                }
                let ok = match decode_words(&code_with(&[(8, w)])) {
                    Ok(d) => match &d[0].inst {
                        ParsedInst::Op(i) => super::check_text(i, &OPTS.into_asm()).is_ok(),
                        ParsedInst::Control(_) => true,
                    },
                    Err(_) => false,
                };
                if ok {
                    break w;
                }
            };
            code[pc as usize..pc as usize + 8].copy_from_slice(&w.to_le_bytes());
        }
        // Unused slots of the last group: NOPs.
        for pc in (0..code.len() as u32).step_by(8) {
            if !is_sched(pc) && !slots.contains(&pc) {
                code[pc as usize..pc as usize + 8].copy_from_slice(&NOP.to_le_bytes());
            }
        }
        let p = decode_with(&code, &OPTS, &branches).unwrap_or_else(|e| panic!("case {case}: {e}"));
        let listing = disassemble_with(&code, &OPTS, &branches).unwrap();
        let back = crate::sass::parse_program(&listing, &OPTS.into_asm())
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{listing}"));
        assert_eq!(strip(p), strip(back), "case {case}:\n{listing}");
    }
}

impl DecodeOptions {
    fn into_asm(self) -> AsmOptions {
        AsmOptions {
            registers: self.registers,
        }
    }
}

#[test]
fn errors_name_the_word() {
    // An opcode no form has.
    let code = code_with(&[(0x10, 0xfff8_0000_0000_0000)]);
    let e = decode(&code, &OPTS).unwrap_err();
    assert_eq!(e.offset, 0x10);
    assert_eq!(e.word, 0xfff8_0000_0000_0000);
    assert!(e.to_string().contains("0xfff8000000000000"), "{e}");
    assert!(
        e.message
            .contains("unknown or unsupported Maxwell encoding"),
        "{e}"
    );
    // A BRX as ptxas wrote it for a `switch` (NVRTC's PTX of a 12-case switch) needs the
    // targets the cubin lists for it.
    let code = code_with(&[(0x10, 0xe250_0fff_f107_040f)]);
    let e = decode(&code, &OPTS).unwrap_err();
    assert_eq!(e.offset, 0x10);
    assert!(e.message.contains("EIATTR_INDIRECT_BRANCH_TARGETS"), "{e}");
    // An instruction warpjit knows but does not run is named, with the reason: VADD, PRET
    // (the push of an indirect call's return point), JMX, the constant form of BRX.
    let e = decode(&code_with(&[(0x10, 0x2024_02e0_6057_0000)]), &OPTS).unwrap_err();
    assert!(e.message.starts_with("VADD is not supported"), "{e}");
    for (w, name) in [
        (0xe270_0000_0080_0040u64, "PRET"),
        (0xe200_0000_0007_030f, "JMX"),
        (0xe250_0000_0007_032f, "BRX"),
    ] {
        let e = decode(&code_with(&[(0x10, w)]), &OPTS).unwrap_err();
        assert!(
            e.message.starts_with(&format!("{name} is not supported")),
            "{e}"
        );
    }
    // A flag the IR does not model is refused by name.
    let sat = 0x1c00_0000_0000_0000u64 | (1 << 54) | (1 << 52) | (0x7 << 16);
    assert!(text_at(sat, 8)
        .unwrap_err()
        .contains("IADD32I.SAT with .CC"));
    // A branch past the end of the code.
    let bra = 0xe240_0000_0007_000fu64 | (0x40 << 20);
    let code = code_with(&[(0x10, bra)]);
    let e = decode(&code, &OPTS).unwrap_err();
    assert!(e.message.contains("branch target 0x58"), "{e}");
    // A length that is not whole words.
    assert!(decode(&[0u8; 12], &OPTS).is_err());
    // A register past the launch's count.
    let mov = 0x5c98_0780_0007_0000u64 | (200 << 20) | (0x7 << 16);
    let code = code_with(&[(8, mov)]);
    let e = decode(&code, &DecodeOptions { registers: 16 }).unwrap_err();
    assert!(e.message.contains("R200"), "{e}");
}

#[test]
fn decoding_random_bytes_never_panics() {
    let mut rng = Rng(42);
    for _ in 0..2000 {
        let n = (rng.next() % 12) as usize * 8;
        let code: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        let _ = decode(&code, &OPTS);
        let _ = disassemble(&code, &OPTS);
    }
}

/// The kernels ptxas compiled (tests/cubin): each decodes with its own register count, and
/// its disassembly parses back to the decoded program. `vadd3` (VADD) and `fnptr` (PRET, an
/// indirect call) do not decode: their errors name the word.
#[test]
fn ptxas_kernels_decode_and_disassemble() {
    let files: &[(&str, &[u8])] = &[
        ("vadd", include_bytes!("../../tests/cubin/vadd.cubin")),
        ("memory", include_bytes!("../../tests/cubin/memory.cubin")),
        ("consts", include_bytes!("../../tests/cubin/consts.cubin")),
        ("reduce", include_bytes!("../../tests/cubin/reduce.cubin")),
        ("arith", include_bytes!("../../tests/cubin/arith.cubin")),
        ("calls", include_bytes!("../../tests/cubin/calls.cubin")),
        ("stack", include_bytes!("../../tests/cubin/stack.cubin")),
        ("scale", include_bytes!("../../tests/cubin/scale.cubin")),
        ("float", include_bytes!("../../tests/cubin/float.cubin")),
        (
            "unsupported",
            include_bytes!("../../tests/cubin/unsupported.cubin"),
        ),
        (
            "gather64",
            include_bytes!("../../tests/cubin/gather64.cubin"),
        ),
        ("convert", include_bytes!("../../tests/cubin/convert.cubin")),
        ("intops", include_bytes!("../../tests/cubin/intops.cubin")),
        ("muls_O0", include_bytes!("../../tests/cubin/muls_O0.cubin")),
        ("barred", include_bytes!("../../tests/cubin/barred.cubin")),
        ("selects", include_bytes!("../../tests/cubin/selects.cubin")),
        ("video", include_bytes!("../../tests/cubin/video.cubin")),
        (
            "stack_O0",
            include_bytes!("../../tests/cubin/stack_O0.cubin"),
        ),
        ("recurse", include_bytes!("../../tests/cubin/recurse.cubin")),
        ("casloop", include_bytes!("../../tests/cubin/casloop.cubin")),
        ("negimm", include_bytes!("../../tests/cubin/negimm.cubin")),
        ("devdata", include_bytes!("../../tests/cubin/devdata.cubin")),
        ("simd", include_bytes!("../../tests/cubin/simd.cubin")),
        ("simd_O0", include_bytes!("../../tests/cubin/simd_O0.cubin")),
        ("fences", include_bytes!("../../tests/cubin/fences.cubin")),
        ("switch", include_bytes!("../../tests/cubin/switch.cubin")),
        ("brxidx", include_bytes!("../../tests/cubin/brxidx.cubin")),
        ("fnptr", include_bytes!("../../tests/cubin/fnptr.cubin")),
        ("spin", include_bytes!("../../tests/cubin/spin.cubin")),
        ("gridbar", include_bytes!("../../tests/cubin/gridbar.cubin")),
        ("cg_grid", include_bytes!("../../tests/cubin/cg_grid.cubin")),
        ("params", include_bytes!("../../tests/cubin/params.cubin")),
    ];
    let mut decoded = Vec::new();
    let mut failed = Vec::new();
    for &(file, bytes) in files {
        let cubin = crate::cubin::Cubin::parse(bytes).unwrap();
        for k in &cubin.kernels {
            let opts = DecodeOptions {
                registers: k.registers,
            };
            match decode_with(&k.code, &opts, &k.indirect_branches) {
                Ok(p) => {
                    let listing = disassemble_with(&k.code, &opts, &k.indirect_branches).unwrap();
                    let back = crate::sass::parse_program(&listing, &opts.into_asm())
                        .unwrap_or_else(|e| panic!("{file}/{}: {e}\n{listing}", k.name));
                    assert_eq!(
                        strip(p),
                        strip(back),
                        "{file}/{}:\n{}",
                        k.name,
                        words_of(&k.code)
                    );
                    decoded.push(k.name.clone());
                }
                Err(e) => {
                    assert!(e.to_string().contains(&format!("{:#018x}", e.word)), "{e}");
                    failed.push(format!("{file}/{}: {e}", k.name));
                }
            }
        }
    }
    decoded.sort();
    eprintln!("{}", failed.join("\n"));
    assert_eq!(
        decoded,
        [
            "add_prefix",
            "barred",
            "brx16",
            "bytesel",
            "calls",
            "carry128",
            "casloop",
            "cg_grid",
            "clamp",
            "consts",
            "cvt32",
            "cvt64",
            "dbl",
            "devdata",
            "diverge",
            "dpx",
            "dpx",
            "every_kind",
            "fcmp",
            "fdiv",
            "fence_sum",
            "fences",
            "ffma_loop",
            "fmods",
            "fmufu",
            "frnd",
            "fsqrt",
            "gather",
            "gather64",
            "generic",
            "grid_sums",
            "handoff",
            "intops",
            "misc",
            "mul",
            "muls",
            "named",
            "negimm",
            "no_params",
            "recurse",
            "reduce",
            "sad",
            "scale",
            "scan_block",
            "simd2",
            "simd2",
            "simd4",
            "simd4",
            "simdk",
            "simdk",
            "sizes",
            "stack",
            "stack_O0",
            "sw32",
            "sw8",
            "swcall",
            "swdiv",
            "swloop",
            "tile_reduce",
            "vadd",
            "warp_lock",
        ]
    );
}

/// `p` without source locations (the decoder numbers instructions; the parser has columns).
fn strip(mut p: Program) -> Program {
    p.lines.clear();
    for b in &mut p.blocks {
        for i in &mut b.insts {
            i.loc = SrcLoc::default();
        }
    }
    p
}

/// A kernel's words, one per line, for a failure message.
fn words_of(code: &[u8]) -> String {
    super::words(code)
        .map(|(pc, w)| format!("{pc:04x}: {w:#018x}\n"))
        .collect()
}

/// Each `*32I` form decodes to its op with `Sb` the form's 32-bit immediate as `Src::Imm32`
/// (bits 20..52 of the word), spelled and printed with the form's mnemonic, and reads back as
/// the same op.
#[test]
fn imm32_forms_decode_to_their_op_with_an_imm32_operand() {
    use crate::ir::{Op, Src};
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let forms: Vec<_> = all_forms().filter(|f| f.b == B::Imm32).collect();
    let mut names: Vec<_> = forms.iter().map(|f| f.mnemonic).collect();
    names.dedup();
    assert_eq!(
        names,
        [
            "MOV32I",
            "IADD32I",
            "ISCADD32I",
            "LOP32I",
            "FADD32I",
            "FMUL32I",
            "FFMA32I",
            "IMUL32I"
        ]
    );
    for f in forms {
        let mut good = 0;
        for _ in 0..200 {
            let w = rng.word(f);
            if !form_of(Word(w)).is_some_and(|found| std::ptr::eq(found, f)) {
                continue;
            }
            let Ok(d) = decode_words(&code_with(&[(8, w)])) else {
                continue;
            };
            let ParsedInst::Op(i) = &d[0].inst else {
                panic!("{f:?}: {w:#018x} is not an op");
            };
            let imm = Src::Imm32(Word(w).field(20, 32) as u32);
            let b = match &i.op {
                Op::Mov(o) => o.b,
                Op::Iadd(o) => o.b,
                Op::Iscadd(o) => o.b,
                Op::Lop(o) => o.b,
                Op::Imul(o) => o.b,
                Op::Fadd(o) => o.b,
                Op::Fmul(o) => o.b,
                Op::Ffma(o) => o.b,
                op => panic!("{f:?}: {w:#018x} decodes to {op:?}"),
            };
            assert_eq!(b, imm, "{f:?}: {w:#018x}");
            assert_eq!(crate::sass::mnemonic(&i.op), Some(f.mnemonic));
            let text = crate::sass::Sass(&i.op).to_string();
            assert!(text.starts_with(f.mnemonic), "{text}");
            match single(&text, &AsmOptions::default()) {
                Ok(ParsedInst::Op(back)) => assert_eq!(back.op, i.op, "{text}"),
                r => panic!("{f:?}: `{text}` reads back as {r:?}"),
            }
            good += 1;
        }
        assert!(good >= 10, "{f:?}: only {good} of 200 random words decoded");
    }
}
