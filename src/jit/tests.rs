//! Unit tests of the JIT: the rules it mirrors from `crate::semantics`, weights and pieces, the
//! tier-2 thread.

use super::*;
use crate::ir::Program;
use std::time::Duration;
use warpjit_runtime::WarpState;

fn program(text: &str) -> Arc<Program> {
    Arc::new(crate::sass::parse_program(text, &Default::default()).expect("assembles"))
}

/// Runs `text` (one CTA of 32 threads) with every block compiled beforehand, and returns the
/// 256 bytes at 0x10000 (each lane stores at `0x10000 + 8 * lane`).
fn run_compiled(
    jit: &Jit,
    text: &str,
    consts: warpjit_runtime::ConstBanks,
    mode: warpjit_runtime::BankMode,
    shared_window: u64,
) -> Vec<u8> {
    run_compiled_prog(jit, program(text), text, consts, mode, shared_window)
}

/// [`run_compiled`] on a program already built: compiled by tier 1 (strip loops, the lane
/// routine) and by tier 2 (whole rows, the whole-warp path), which must write the same bytes.
fn run_compiled_prog(
    jit: &Jit,
    prog: Arc<Program>,
    text: &str,
    consts: warpjit_runtime::ConstBanks,
    mode: warpjit_runtime::BankMode,
    shared_window: u64,
) -> Vec<u8> {
    let one = run_compiled_at(jit, &prog, Tier::One, text, &consts, mode, shared_window);
    let two = run_compiled_at(jit, &prog, Tier::Two, text, &consts, mode, shared_window);
    assert!(one == two, "tier 1 and tier 2 differ:\n{text}");
    one
}

/// [`run_compiled`] with every block compiled by `tier`.
fn run_compiled_at(
    jit: &Jit,
    prog: &Arc<Program>,
    tier: Tier,
    text: &str,
    consts: &warpjit_runtime::ConstBanks,
    mode: warpjit_runtime::BankMode,
    shared_window: u64,
) -> Vec<u8> {
    let (prog, consts) = (prog.clone(), consts.clone());
    jit.compile_all_tier(&prog, tier).expect("compiles");
    let mut machine = Machine {
        shared_window,
        ..Machine::default()
    };
    let init = warpjit_runtime::memory::Init::Zero;
    machine.global.map(0x10000, 0x100, init).expect("maps");
    let launch = Launch {
        mode,
        ..Launch::new(prog, consts)
    };
    let opts = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    jit.run(&machine, &launch, &opts).expect("runs");
    let c = jit.take_counters();
    assert_eq!((c.interp_blocks, c.delegated), (0, 0), "{text}");
    machine.global.read_bytes(0x10000, 0x100).expect("mapped")
}

fn word(mem: &[u8], lane: usize) -> u32 {
    u32::from_le_bytes(mem[8 * lane..8 * lane + 4].try_into().unwrap())
}

/// Constant banks `banks`, each word holding its own address with the bank in the high half.
fn self_addressed_banks(banks: std::ops::Range<u32>) -> warpjit_runtime::ConstBanks {
    let mut consts = warpjit_runtime::ConstBanks::new();
    for bank in banks {
        for addr in (0..0x1_0000u32).step_by(4) {
            consts
                .write(bank, addr, &(bank << 16 | addr).to_le_bytes())
                .unwrap();
        }
    }
    consts
}

/// The rules the JIT mirrors in generated code (LEA's window predicate, LDC's address modes
/// and range) agree with their one definition in `crate::semantics` on edge values.
#[test]
fn semantics_mirrors() {
    use crate::ir::LdcMode;
    use crate::semantics::{ldc_address, ldc_readable, lea_outside_window};
    use warpjit_runtime::{BankMode, ConstBanks};
    let jit = Jit::new().expect("host supported");
    // LEA: lane l holds (lo, hi) = c[0][8l], c[0][8l + 4]; P0 is LO's window test on lo, P1
    // HI's on {hi, lo}.
    let lea = "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nLDC.64 R4, c[0x0][R1];\n\
               LEA P0, R6, R4, RZ, 0x0;\nLEA.HI P1, R7, R4, RZ, R5, 0x0;\n\
               P2R R8, PR, RZ, 0x3;\nSTG [R1+0x10000], R8;\nEXIT;\n";
    let top = u64::MAX - 0xff_ffff;
    for window in [0x0100_0000, 0xff00_0000, 0x1_0000_0000, 0, top] {
        let (wl, wh) = (window as u32, (window >> 32) as u32);
        let los = [
            0,
            wl.wrapping_sub(1),
            wl,
            wl.wrapping_add(0xff_ffff),
            wl.wrapping_add(0x100_0000),
            u32::MAX,
        ];
        let his = [wh, wh.wrapping_sub(1), wh.wrapping_add(1), 0, u32::MAX];
        let lanes: Vec<(u32, u32)> = (0..32).map(|l| (los[l % 6], his[l / 6 % 5])).collect();
        let mut consts = ConstBanks::new();
        for (l, (lo, hi)) in lanes.iter().enumerate() {
            consts.write(0, 8 * l as u32, &lo.to_le_bytes()).unwrap();
            consts
                .write(0, 8 * l as u32 + 4, &hi.to_le_bytes())
                .unwrap();
        }
        let mem = run_compiled(&jit, lea, consts, BankMode::Compute, window);
        for (l, &(lo, hi)) in lanes.iter().enumerate() {
            let want = lea_outside_window(window, false, lo, 0) as u32
                | (lea_outside_window(window, true, hi, lo) as u32) << 1;
            assert_eq!(
                word(&mem, l),
                want,
                "window {window:#x}, lane {l}: {lo:#x} {hi:#x}"
            );
        }
    }
    // LDC: lane l's Ra is c[0][4l]; every other word of banks 1 to 17 is its own address
    // with the bank in the high half.
    let ras: [u32; 32] = [
        0,
        4,
        0xffec,
        0xfff0,
        0xfffc,
        0x1_0000,
        0xffff_fff0,
        0xffff_ffec,
        0xffff_fffc,
        0x0001_0004,
        0x0001_0008,
        0x000b_fff8,
        0x000c_0008,
        0x000f_0000,
        0x0010_0000,
        0x0005_fff0,
        0x0006_0000,
        0x0007_fffc,
        0x0008_0000,
        0x001d_0010,
        0x001e_0000,
        0x7fff_0000,
        0x8000_0004,
        0xfffe_fffc,
        0x0000_8000,
        0x0000_7ffc,
        0x0002_fff8,
        0x0003_0008,
        0x0000_fff8,
        0x0001_fffc,
        0x000d_0000,
        0x0010_fff0,
    ];
    let mut consts = self_addressed_banks(1..18);
    for (l, ra) in ras.iter().enumerate() {
        consts.write(0, 4 * l as u32, &ra.to_le_bytes()).unwrap();
    }
    for (mode, mname) in [
        (LdcMode::Ia, "IA"),
        (LdcMode::Il, "IL"),
        (LdcMode::Is, "IS"),
        (LdcMode::Isl, "ISL"),
    ] {
        for imm in [0x10, -0x8] {
            let off = if imm < 0 {
                format!("-{:#x}", -imm)
            } else {
                format!("+{imm:#x}")
            };
            let ldc = format!(
                "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nSHL R9, R0, 0x2;\nLDC R2, c[0x0][R9];\n\
                 LDC.{mname} R3, c[0x2][R2{off}];\nSTG [R1+0x10000], R3;\nEXIT;\n"
            );
            for bmode in [BankMode::Compute, BankMode::Graphics] {
                let mem = run_compiled(&jit, &ldc, consts.clone(), bmode, 0x0100_0000);
                for (l, &ra) in ras.iter().enumerate() {
                    let (bank, addr) = ldc_address(mode, 2, imm, ra);
                    let want = if ldc_readable(bank, addr, 4, bmode.banks(), mode == LdcMode::Isl) {
                        consts.word(bank, addr as u32)
                    } else {
                        0
                    };
                    assert_eq!(
                        word(&mem, l),
                        want,
                        "LDC.{mname} imm {imm}, {bmode:?}, lane {l}: Ra {ra:#x}"
                    );
                }
            }
        }
    }
}

/// Indexed LDC's shortcuts at tier 2 (lanes reading consecutive words load eight vectors; lanes
/// reading one word load it once) read what the per-lane loop and the semantics read: at a
/// bank's end, across into the next bank (`.IL`), past the last bank, with a lane out of range,
/// and for some lanes only.
#[test]
fn indexed_ldc_shortcuts_read_what_the_lanes_read() {
    use crate::ir::LdcMode;
    use crate::semantics::{ldc_address, ldc_readable};
    use warpjit_runtime::BankMode;
    let jit = Jit::new().expect("host supported");
    let consts = self_addressed_banks(2..4);
    // (mode, lane l's Ra: `base + 4 * l` with `step`, or `base` without, immediate, lanes
    // that run it).
    let cases: [(LdcMode, u32, bool, i32, u32); 10] = [
        (LdcMode::Ia, 0x0, true, 0x0, 32),
        (LdcMode::Ia, 0xff80, true, 0x0, 32),
        (LdcMode::Ia, 0xff80, true, 0x4, 32),
        (LdcMode::Il, 0xffc0, true, 0x0, 32),
        (LdcMode::Il, 0x1_fff0, true, -0x8, 32),
        (LdcMode::Ia, 0x40, false, 0x8, 32),
        (LdcMode::Ia, 0xfffc, false, 0x4, 32),
        (LdcMode::Is, 0x1_0010, false, 0x0, 32),
        (LdcMode::Ia, 0x0, true, 0x20, 5),
        (LdcMode::Ia, 0x80, false, -0x4, 5),
    ];
    for (mode, base, step, imm, lanes) in cases {
        let mname = format!("{mode:?}").to_uppercase();
        let ra = match step {
            true => format!("SHL R2, R0, 0x2;\nIADD32I R2, R2, {base:#x}"),
            false => format!("MOV32I R2, {base:#x}"),
        };
        let off = match imm < 0 {
            true => format!("-{:#x}", -imm),
            false => format!("+{imm:#x}"),
        };
        let ldc = format!(
            "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\n{ra};\nMOV32I R3, 0x99;\n\
             ISETP.LT.U32.AND P0, PT, R0, {lanes:#x}, PT;\n\
             @P0 LDC.{mname} R3, c[0x2][R2{off}];\nSTG [R1+0x10000], R3;\nEXIT;\n"
        );
        for bmode in [BankMode::Compute, BankMode::Graphics] {
            let mem = run_compiled(&jit, &ldc, consts.clone(), bmode, 0x0100_0000);
            for l in 0..32u32 {
                let ra = if step { base + 4 * l } else { base };
                let (bank, addr) = ldc_address(mode, 2, imm, ra);
                let want = if l >= lanes {
                    0x99
                } else if ldc_readable(bank, addr, 4, bmode.banks(), mode == LdcMode::Isl) {
                    consts.word(bank, addr as u32)
                } else {
                    0
                };
                assert_eq!(word(&mem, l as usize), want, "{ldc}{bmode:?}, lane {l}");
            }
        }
    }
}

/// Compiled global loads address memory as `crate::semantics::effective` says (32-bit
/// wrap-around, `.E` pairs with a borrow across 4 GiB, misaligned addresses aligned down), on
/// both their fast path (every lane in the hinted segment) and their slow path, at both tiers
/// (tier 1 calls the lane routine, tier 2 also has the whole-warp path).
#[test]
fn effective_address_mirror() {
    for tier in [Tier::One, Tier::Two] {
        effective_address_mirror_at(tier);
    }
}

fn effective_address_mirror_at(tier: Tier) {
    use crate::semantics::effective;
    use warpjit_runtime::memory::Init;
    use warpjit_runtime::{ConstBanks, LANES};
    let mut jit = Jit::new().expect("host supported");
    jit.hot_threshold = u32::MAX;
    // Lane l's Ra pair is c[0][8l], c[0][8l + 4]; each thread stores both loads at
    // 0x10000 + 8 * tid.
    let text = |e: &str| {
        format!(
            "S2R R0, SR_LANEID;\nS2R R8, SR_TID.X;\nSHL R1, R0, 0x3;\nLDC.64 R4, c[0x0][R1];\n\
             LDG{e} R6, [R4+0x10];\nLDG{e} R7, [R4-0x10];\nSHL R9, R8, 0x3;\n\
             STG [R9+0x10000], R6;\nSTG [R9+0x10004], R7;\nEXIT;\n"
        )
    };
    // A segment across 4 GiB and one at 0 (32-bit addresses wrap into it).
    let fill = |base: u64, len: u64| -> Vec<u8> {
        (base..base + len)
            .step_by(4)
            .flat_map(|a| ((a as u32).wrapping_mul(0x9e37_79b1) ^ (a >> 32) as u32).to_le_bytes())
            .collect()
    };
    let wide: Vec<(u32, u32)> = [0xffff_ff10, 0xffff_fff0, 0xffff_fff3, 0xffff_fffc]
        .iter()
        .map(|&lo| (lo, 0))
        .chain([0, 4, 8, 0xb, 0xe0].iter().map(|&lo| (lo, 1)))
        .collect();
    let narrow: Vec<(u32, u32)> = [0xffff_fff0, 0xffff_fff3, 0xffff_fffc, 0x10, 0x13, 0x80]
        .iter()
        .map(|&lo| (lo, 0))
        .collect();
    // Misaligned lanes take the slow path (the interpreter's code aligns them down and counts
    // them): the same addresses without them show that the fast path is taken.
    let aligned: Vec<(u32, u32)> = wide.iter().copied().filter(|a| a.0 & 3 == 0).collect();
    for (e, table, all_fast) in [
        (".E", &aligned, true),
        (".E", &wide, false),
        ("", &narrow, false),
    ] {
        let prog = program(&text(e));
        jit.compile_all_tier(&prog, tier).expect("compiles");
        let mut machine = Machine::default();
        let (hi_base, lo_base) = (0xffff_ff00u64, 0u64);
        machine
            .global
            .map(hi_base, 0x200, Init::Bytes(&fill(hi_base, 0x200)))
            .unwrap();
        machine
            .global
            .map(lo_base, 0x100, Init::Bytes(&fill(lo_base, 0x100)))
            .unwrap();
        machine.global.map(0x10000, 0x800, Init::Zero).unwrap();
        let mut consts = ConstBanks::new();
        let mut w = WarpState::new_boxed(u32::MAX);
        for l in 0..LANES {
            let (lo, hi) = table[l % table.len()];
            consts.write(0, 8 * l as u32, &lo.to_le_bytes()).unwrap();
            consts
                .write(0, 8 * l as u32 + 4, &hi.to_le_bytes())
                .unwrap();
            (w.regs[4][l], w.regs[5][l]) = (lo, hi);
        }
        let launch = Launch {
            block: [256, 1, 1],
            ..Launch::new(prog, consts)
        };
        let opts = RunOptions {
            threads: 1,
            ..RunOptions::default()
        };
        let stats = jit.run(&machine, &launch, &opts).expect("runs");
        let c = jit.take_counters();
        assert_eq!((c.interp_blocks, c.delegated), (0, 0));
        if all_fast {
            // Only the first warp misses each instruction's hint; seven take the fast path.
            assert!(c.slow_paths <= 4, "{c:?}");
        }
        // Each thread's two loads, counted where misaligned (their offsets are multiples of 4).
        let misaligned = (0..256)
            .filter(|t| table[t % LANES % table.len()].0 & 3 != 0)
            .count();
        assert_eq!(stats.misaligned, 2 * misaligned as u64, "{stats:?}");
        let out = machine.global.read_bytes(0x10000, 0x800).unwrap();
        for tid in 0..256 {
            let l = tid % LANES;
            for (k, off) in [0x10i32, -0x10].into_iter().enumerate() {
                let addr = crate::ir::Addr {
                    base: Some(crate::ir::Reg(4)),
                    offset: off,
                };
                let ea = effective(&w, addr, e == ".E", l) & !3;
                let want = machine.global.read_bytes(ea, 4).unwrap();
                let at = 8 * tid + 4 * k;
                assert_eq!(
                    &out[at..at + 4],
                    &want[..],
                    "LDG{e} lane {l} offset {off}: {ea:#x}"
                );
            }
        }
    }
}

/// The compile weight of instances of every op of the table (each branch of an op whose
/// weight depends on its operands), pinned to the values measured when it was chosen.
/// SHF (by a register and by each immediate amount), POPC, FLO and ICMP in generated code
/// agree with their definitions (`crate::semantics::{shf, flo, icmp_zero}`) on edge
/// values, every variant, no instruction delegated.
#[test]
fn bit_ops_mirror_the_interpreter() {
    use crate::ir::{Cmp, ShfType};
    use crate::semantics::{flo, icmp_zero, shf};
    use warpjit_runtime::{BankMode, ConstBanks};
    let jit = Jit::new().expect("host supported");
    // Lane l: c[0][16l] = lo, +4 = hi, +8 = amount.
    let los = [
        0x8765_4321,
        0,
        u32::MAX,
        1,
        0x8000_0000,
        0x7fff_ffff,
        0x0001_0000,
        0xdead_beef,
    ];
    let his = [0x8000_0001, 0, u32::MAX, 0x7fff_ffff, 1, 0xffff_f000];
    let amounts = [
        0,
        1,
        2,
        16,
        31,
        32,
        33,
        47,
        63,
        64,
        65,
        100,
        0x8000_0000,
        u32::MAX,
        0x1f,
        0x20,
    ];
    let lanes: Vec<[u32; 3]> = (0..32)
        .map(|l| [los[l % 8], his[l % 6], amounts[l % 16]])
        .collect();
    let mut consts = ConstBanks::new();
    for (l, v) in lanes.iter().enumerate() {
        for (k, x) in v.iter().enumerate() {
            let at = 16 * l as u32 + 4 * k as u32;
            consts.write(0, at, &x.to_le_bytes()).unwrap();
        }
    }
    let run = |op: &str| {
        let text = format!(
            "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nSHL R2, R0, 0x4;\n\
             LDC.64 R4, c[0x0][R2];\nLDC R6, c[0x0][R2+0x8];\n{op};\n\
             STG [R1+0x10000], R8;\nEXIT;\n"
        );
        let mem = run_compiled(&jit, &text, consts.clone(), BankMode::Compute, 0);
        (0..32).map(|l| word(&mem, l)).collect::<Vec<u32>>()
    };
    let tys = [
        (ShfType::B32, ""),
        (ShfType::U64, ".U64"),
        (ShfType::S64, ".S64"),
    ];
    for right in [false, true] {
        for w in [false, true] {
            for (ty, tn) in tys {
                for hi in [false, true].into_iter().filter(|h| right || !h) {
                    let m = format!(
                        "SHF.{}{}{tn}{}",
                        if right { "R" } else { "L" },
                        if w { ".W" } else { "" },
                        if hi { ".HI" } else { "" }
                    );
                    let got = run(&format!("{m} R8, R4, R6, R5"));
                    for (l, [lo, h, n]) in lanes.iter().enumerate() {
                        let want = shf(right, w, ty, hi, *lo, *n, *h);
                        assert_eq!(got[l], want, "{m} by R6 = {n:#x}, lane {l}");
                    }
                    for n in [0, 1, 17, 31, 32, 33, 63] {
                        let got = run(&format!("{m} R8, R4, {n:#x}, R5"));
                        for (l, [lo, h, _]) in lanes.iter().enumerate() {
                            let want = shf(right, w, ty, hi, *lo, n, *h);
                            assert_eq!(got[l], want, "{m} by {n:#x}, lane {l}");
                        }
                    }
                }
            }
        }
    }
    // POPC and FLO of lo, hi and amount (whose lanes hold 0, -1, single bits, ...).
    for src in ["R4", "R5", "R6"] {
        let k = ["R4", "R5", "R6"].iter().position(|s| *s == src).unwrap();
        for not in [false, true] {
            let t = if not { "~" } else { "" };
            let inv = |v: u32| if not { !v } else { v };
            let got = run(&format!("POPC R8, {t}{src}"));
            for (l, v) in lanes.iter().enumerate() {
                assert_eq!(got[l], inv(v[k]).count_ones(), "POPC {t}{src}, lane {l}");
            }
            for signed in [false, true] {
                for sh in [false, true] {
                    let m = format!(
                        "FLO{}{}",
                        if signed { ".S32" } else { ".U32" },
                        if sh { ".SH" } else { "" }
                    );
                    let got = run(&format!("{m} R8, {t}{src}"));
                    for (l, v) in lanes.iter().enumerate() {
                        let want = flo(signed, sh, inv(v[k]));
                        assert_eq!(got[l], want, "{m} {t}{src}, lane {l}");
                    }
                }
            }
        }
    }
    // ICMP: R8 = (R6 cmp 0) ? R4 : R5.
    for cmp in Cmp::ALL {
        for unsigned in [false, true] {
            let m = format!("ICMP.{:?}{}", cmp, if unsigned { ".U32" } else { "" }).to_uppercase();
            let got = run(&format!("{m} R8, R4, R5, R6"));
            for (l, [lo, h, n]) in lanes.iter().enumerate() {
                let want = if icmp_zero(cmp, unsigned, *n) {
                    *lo
                } else {
                    *h
                };
                assert_eq!(got[l], want, "{m} with Rc = {n:#x}, lane {l}");
            }
        }
    }
}

#[test]
fn weight_of_every_op_is_pinned() {
    use crate::ir::*;
    let cases: &[(&str, u32)] = &[
        ("MOV R1, R2;", 4),
        ("MOV32I R1, 0x5;", 4),
        ("S2R R1, SR_TID.X;", 4),
        ("IADD R1, R2, R3;", 4),
        ("IADD.SAT R1, R2, -R3;", 12),
        ("IADD32I R1, R2, 0x5;", 4),
        ("IADD32I.SAT R1, -R2, 0x5;", 12),
        ("IADD3 R1, R2, R3, R4;", 4),
        ("ISCADD R1, R2, R3, 0x2;", 4),
        ("XMAD R1, R2, R3, R4;", 8),
        ("SHL R1, R2, 0x3;", 4),
        ("SHL R1, R2, R3;", 8),
        ("SHR R1, R2, 0x3;", 4),
        ("SHR R1, R2, R3;", 8),
        ("SHR.BREV R1, R2, 0x3;", 8),
        ("SHF.L.U64 R1, R2, 0x3, R3;", 4),
        ("SHF.R.S64.HI R1, R2, R3, R4;", 12),
        ("POPC R1, ~R2;", 8),
        ("FLO.S32.SH R1, R2;", 12),
        ("ICMP.GE R1, R2, 0x7, R3;", 8),
        ("LOP.AND R1, R2, R3;", 4),
        ("LOP32I.AND R1, R2, 0xff;", 4),
        ("LOP3.LUT R1, R2, R3, R4, 0x96;", 8),
        ("BFE.U32 R1, R2, 0x804;", 4),
        ("BFE.U32 R1, R2, R3;", 12),
        ("BFE.U32.BREV R1, R2, 0x804;", 12),
        ("BFI R1, R2, 0x804, R3;", 4),
        ("BFI R1, R2, R3, R4;", 12),
        ("SEL R1, R2, R3, P0;", 8),
        ("ISETP.NE.AND P0, PT, R1, R2, PT;", 4),
        ("PSETP.AND.AND P0, PT, P1, P2, PT;", 4),
        ("P2R R1, PR, RZ, 0x7f;", 16),
        ("IMNMX R1, R2, R3, PT;", 8),
        ("VMNMX.SD.S32.S32.MX.MIN R1, R2, RZ, R3;", 12),
        ("VABSDIFF.UD.U8.U8.ACC R1, R2.B3, R3.B1, R4;", 12),
        ("VABSDIFF4.U8.U8.ACC R1, R2, R3, R4;", 12),
        ("BPT.TRAP 0x1;", 1),
        ("PRMT R1, R2, 0x3210, R3;", 4),
        ("LEA R1, R2, R3, 0x4;", 4),
        ("LDC R1, c[0x2][0x10];", 4),
        ("LDC R1, c[0x2][R2+0x10];", 12),
        ("I2F.F32.S32 R1, R2;", 10),
        ("F2I.S32.F32.TRUNC R1, R2;", 10),
        ("F2F.F64.F32 R2, R1;", 10),
        ("I2I.S8.S32.SAT R1, R2;", 10),
        ("DADD R2, R4, R6;", 10),
        ("DMUL.RZ R2, R4, R6;", 10),
        ("DFMA R2, R4, R6, R8;", 10),
        ("DMNMX R2, R4, R6, PT;", 10),
        ("DSETP.LT.AND P0, PT, R4, R6, PT;", 10),
        ("DSET.LT.AND R1, R4, R6, PT;", 10),
        ("LDG.E.U8 R1, [R2];", 14),
        ("LDG.E.S8 R1, [R2];", 14),
        ("LDG.E.U16 R1, [R2];", 14),
        ("LDG.E.S16 R1, [R2];", 14),
        ("LDG.E R1, [R2];", 12),
        ("LDG.E.64 R4, [R2];", 16),
        ("LDG.E.128 R4, [R2];", 24),
        ("LDG.E.U.128 R4, [R2];", 14),
        ("STG.E.U8 [R2], R1;", 14),
        ("STG.E [R2], R1;", 12),
        ("STG.E.64 [R2], R4;", 16),
        ("STG.E.128 [R2], R4;", 24),
        ("LD.E.U16 R1, [R2];", 22),
        ("LD.E R1, [R2];", 20),
        ("LD.E.64 R4, [R2];", 24),
        ("LD.E.128 R4, [R2];", 32),
        ("ST.E.S8 [R2], R1;", 22),
        ("ST.E [R2], R1;", 20),
        ("ST.E.64 [R2], R4;", 24),
        ("ST.E.128 [R2], R4;", 32),
        ("LDS.U16 R1, [R2];", 14),
        ("LDS R1, [R2];", 12),
        ("LDS.64 R4, [R2];", 16),
        ("LDS.128 R4, [R2];", 24),
        ("STS.U8 [R2], R1;", 14),
        ("STS [R2], R1;", 12),
        ("STS.64 [R2], R4;", 16),
        ("STS.128 [R2], R4;", 24),
        ("LDL R1, [R2];", 12),
        ("STL.64 [R2], R4;", 16),
        ("MEMBAR.CTA;", 1),
        ("MEMBAR.GL.IVALLD;", 1),
        ("NOP;", 1),
        ("DEPBAR.LE SB0, 0x0;", 1),
        ("FADD R1, R2, R3;", 6),
        ("FADD.RZ R1, R2, R3;", 12),
        ("FADD32I R1, R2, 1.5;", 6),
        ("FMUL R1, R2, R3;", 6),
        ("FMUL.RM R1, R2, R3;", 12),
        ("FMUL.D2 R1, R2, R3;", 12),
        ("FMUL32I R1, R2, 2.0;", 6),
        ("FFMA R1, R2, R3, R4;", 8),
        ("FFMA.RP R1, R2, R3, R4;", 14),
        ("FFMA32I R1, R2, 2.0, R1;", 8),
        ("FMNMX R1, R2, R3, PT;", 10),
        ("FSET.LT.AND R1, R2, R3, PT;", 8),
        ("FSETP.LT.AND P0, PT, R2, R3, PT;", 8),
        ("FCMP.LT R1, R2, R3, R4;", 8),
        ("MUFU.RCP R1, R2;", 12),
        ("RRO.SINCOS R1, R2;", 6),
        ("FCHK.DIVIDE P0, R2, R3;", 10),
        ("ISET.LT.AND R1, R2, R3, PT;", 6),
        ("PSET.AND.AND R1, P0, P1, PT;", 4),
        ("CSETP.NEU.AND P0, PT, CC, PT;", 2),
        ("R2P PR, R1, 0x7f;", 16),
        ("IMUL R1, R2, R3;", 4),
        ("IMUL.S32.S32.HI R1, R2, R3;", 24),
        ("IMUL32I R1, R2, 0x5;", 4),
        ("ISCADD32I R1, R2, 0x12345678, 0x3;", 4),
        ("IMAD R1, R2, R3, R4;", 6),
        ("IMAD.HI R1, R2, R3, R4;", 24),
        ("IMADSP.S24.S24.S32 R1, R2, R3, R4;", 8),
        ("ATOM.E.ADD R1, [R2], R3;", 16),
        ("RED.E.ADD [R2], R3;", 12),
        ("ATOMS.CAS R1, [R2], R4, R5;", 16),
        ("SHFL.BFLY PT, R1, R2, 0x1, 0x1f;", 16),
        ("VOTE.ANY R1, PT, P0;", 6),
        ("CS2R R1, SR_CLOCKLO;", 4),
        ("B2R.RESULT R1, P0;", 4),
    ];
    let text: String = cases.iter().map(|(t, _)| format!("{t}\n")).collect();
    let prog = program(&format!("{text}EXIT;\n"));
    let insts = &prog.blocks[0].insts;
    assert_eq!(insts.len(), cases.len());
    let mut seen = std::collections::HashSet::new();
    for ((t, want), inst) in cases.iter().zip(insts) {
        assert_eq!(weight(inst), *want, "{t}");
        seen.insert(std::mem::discriminant(&inst.op));
    }
    // Ops without a SASS spelling (DXBC's).
    let (r, s) = (Reg(1), Src::Reg(Reg(2)));
    let unspelled: [Op; 12] = [
        Un {
            d: r,
            f: UnFn::Sqrt,
            a: s,
        }
        .into(),
        Bin {
            d: r,
            f: BinFn::Add,
            a: s,
            b: s,
        }
        .into(),
        Tern {
            d: r,
            f: TernFn::Mad,
            a: s,
            b: s,
            c: s,
        }
        .into(),
        LdBuf {
            d: [r, Reg::RZ, Reg::RZ, Reg::RZ],
            view: View::Srv(0),
            stride: 16,
            index: s,
            offset: Src::Imm(0),
            comp: [0, 1, 2, 3],
        }
        .into(),
        StBuf {
            view: View::Uav(0),
            stride: 0,
            index: Src::Imm(0),
            offset: s,
            v: [s; 4],
            mask: 1,
        }
        .into(),
        LdTex {
            d: [r; 4],
            view: View::Srv(0),
            x: s,
            y: s,
            slice: s,
            sample: s,
            mip: Src::Imm(0),
            offset: [0, 0, 0],
            comp: [0, 1, 2, 3],
        }
        .into(),
        StTex {
            view: View::Uav(0),
            x: s,
            y: s,
            slice: s,
            v: [s; 4],
        }
        .into(),
        Atom {
            d: r,
            view: View::Uav(0),
            stride: 0,
            addr: [s; 3],
            f: AtomFn::Add,
            a: s,
            b: s,
        }
        .into(),
        Table {
            d: r,
            index: s,
            table: vec![1, 2].into(),
        }
        .into(),
        Info {
            d: [r; 4],
            view: View::Srv(0),
            dim: None,
            kind: InfoKind::BufferLength,
            mip: Src::Imm(0),
            comp: [0, 1, 2, 3],
        }
        .into(),
        Sample {
            d: [r; 4],
            view: View::Srv(0),
            sampler: 0,
            f: SampleFn::Grad,
            compare: false,
            coord: [s; 4],
            ddx: [s; 3],
            ddy: [s; 3],
            lod: s,
            reference: s,
            offset: [0; 3],
            po: None,
            comp: [0, 1, 2, 3],
        }
        .into(),
        Deriv {
            d: r,
            a: s,
            y: false,
            fine: true,
        }
        .into(),
    ];
    for op in unspelled {
        let inst = Inst {
            guard: Guard::ALWAYS,
            op,
            pc: 0,
            loc: SrcLoc::default(),
        };
        let want = match inst.op {
            Op::Tern(_) => 6,
            Op::LdBuf(_) | Op::StBuf(_) | Op::StTex(_) | Op::Atom(_) | Op::Table(_) => 12,
            Op::LdTex(_) => 16,
            Op::Info(_) | Op::Deriv(_) => 8,
            Op::Sample(_) => 24,
            _ => 4,
        };
        assert_eq!(weight(&inst), want, "{:?}", inst.op);
        seen.insert(std::mem::discriminant(&inst.op));
    }
    macro_rules! count_ops {
        ($($v:ident($s:ident),)*) => { [$(stringify!($v)),*].len() };
    }
    assert_eq!(
        seen.len(),
        crate::for_each_op!(count_ops),
        "an op has no case"
    );
}

/// A block of 120 128-bit loads (weight 2880) becomes 6 pieces, none heavier than
/// `MAX_PIECE_WEIGHT`, covering the block in order; each is compiled as its own function.
#[test]
fn long_blocks_are_compiled_in_pieces_of_bounded_weight() {
    let prog = program(&format!("{}EXIT;\n", "LDG.E.128 R4, [R2];\n".repeat(120)));
    let insts = &prog.blocks[0].insts;
    let p = pieces(insts);
    assert_eq!(p.len(), 6, "{p:?}");
    let mut next = 0;
    for r in &p {
        assert_eq!(r.start, next);
        assert!(!r.is_empty());
        let w: u32 = insts[r.clone()].iter().map(weight).sum();
        assert!(w <= MAX_PIECE_WEIGHT, "{r:?} weighs {w}");
        next = r.end;
    }
    assert_eq!(next, insts.len());
    // Plain ALU instructions weigh 4: 128 of them fit one piece, 129 do not.
    let alu = |n: usize| program(&format!("{}EXIT;\n", "IADD R4, R4, R5;\n".repeat(n)));
    assert_eq!(pieces(&alu(128).blocks[0].insts), vec![0..128]);
    assert_eq!(pieces(&alu(129).blocks[0].insts), vec![0..128, 128..129]);
    assert!(
        pieces(&[]).is_empty(),
        "a block without instructions has no piece"
    );

    let jit = Jit::new().expect("host supported");
    let fns = jit.compile_all(&prog).expect("compiles");
    let others = prog.blocks[1..]
        .iter()
        .filter(|b| !b.insts.is_empty())
        .count();
    assert_eq!(fns, 2 * (p.len() + others), "two variants per piece");
    assert!(jit.errors().is_empty(), "{:?}", jit.errors());
}

/// Dropping a Jit neither waits for the tier-2 thread nor lets it work through its queue:
/// with the tier-2 compiler held busy and requests queued, the drop returns, and once
/// released the thread compiles none of them.
#[test]
fn dropping_the_jit_abandons_the_tier2_queue() {
    let prog = program(
        "IADD R4, R4, R5;\nISETP.NE.AND P0, PT, R4, RZ, PT;\n@P0 EXIT;\nIADD R4, R4, R5;\nEXIT;\n",
    );
    let jit = Jit::new().expect("host supported");
    jit.compile_all(&prog).expect("tier 1");
    let code = jit.code_for(&prog);
    let t2 = jit.tier2.clone();
    let busy = t2.lock().unwrap_or_else(|e| e.into_inner());
    let queued = code.pieces.len() as u32;
    for piece in 0..queued {
        for full in [false, true] {
            jit.promote(&code, piece, full);
        }
    }
    assert!(queued >= 2);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        drop(jit);
        let _ = tx.send(());
    });
    // A hang guard, not a measurement: the drop either returns at once or never (it would
    // wait for a thread that waits for `busy`).
    let dropped = rx.recv_timeout(Duration::from_secs(30)).is_ok();
    drop(busy);
    assert!(dropped, "dropping the Jit waited for the tier-2 thread");
    // The thread ends (dropping its share of the tier-2 compiler) without compiling.
    for _ in 0..3000 {
        if Arc::strong_count(&t2) == 1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(Arc::strong_count(&t2), 1, "the tier-2 thread did not end");
    let compiled = t2.lock().map(|i| i.counts.functions).unwrap_or(u64::MAX);
    assert_eq!(compiled, 0, "the tier-2 thread compiled abandoned requests");
}

/// A shut-down worker returns before its next compile, leaving its queue.
#[test]
fn a_shut_down_worker_leaves_its_queue() {
    let prog = program("IADD R4, R4, R5;\nEXIT;\n");
    let jit = Jit::new().expect("host supported");
    let code = jit.code_for(&prog);
    let (tx, rx) = mpsc::channel();
    for full in [false, true] {
        let (code, piece) = (code.clone(), 0);
        tx.send(Tier2Request {
            code,
            piece,
            full,
            limit: crate::jit::MAX_FUNCTIONS,
        })
        .expect("queued");
    }
    let inner = Mutex::new(Inner::new(Tier::Two).expect("host supported"));
    tier2_worker(&rx, &inner, &AtomicBool::new(true));
    assert_eq!(inner.lock().map(|i| i.counts.functions).ok(), Some(0));
    // It took one request and left the other; without the flag it compiles that one.
    drop(tx);
    tier2_worker(&rx, &inner, &AtomicBool::new(false));
    assert_eq!(inner.lock().map(|i| i.counts.functions).ok(), Some(1));
}

/// A function Cranelift rejects (here its module refuses the function's name, declared before
/// with another signature) leaves its block interpreted, with the same results, and is counted
/// in `CompileStats::failed` (printed by `--stats`), its error kept in `Jit::errors`; it is not
/// retried.
#[test]
fn a_block_that_fails_to_compile_is_interpreted_and_counted() {
    use cranelift_module::{Linkage, Module};
    let prog = program(
        "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nIADD R2, R0, 0x5;\nSTG [R1+0x10000], R2;\nEXIT;\n",
    );
    let mut jit = Jit::new().expect("host supported");
    jit.threshold = 1;
    {
        // The name tier 1 gives its first function, block 0's full-warp variant.
        let mut inner = jit.tier1.lock().unwrap();
        let sig = inner.module.make_signature();
        inner
            .module
            .declare_function("block0_0_full_t1", Linkage::Local, &sig)
            .expect("declared");
    }
    let mut machine = Machine::default();
    let init = warpjit_runtime::memory::Init::Zero;
    machine.global.map(0x10000, 0x100, init).expect("maps");
    let launch = Launch::new(prog, warpjit_runtime::ConstBanks::new());
    let opts = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    for run in 1..=2u32 {
        jit.run(&machine, &launch, &opts).expect("runs");
        let c = jit.take_counters();
        assert_eq!(c.interp_blocks, 1, "run {run}: {c:?}");
        let c = jit.compile_stats();
        assert_eq!((c.blocks, c.failed, c.tier2_failed), (0, 1, 0), "run {run}");
        let errors = jit.errors();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with("compiling block 0 failed"),
            "{errors:?}"
        );
        let mem = machine.global.read_bytes(0x10000, 0x100).expect("mapped");
        for lane in 0..32 {
            assert_eq!(word(&mem, lane), lane as u32 + 5, "run {run}, lane {lane}");
        }
    }
}

/// The conversions and binary64 instructions under the JIT (vector code for the forms it
/// writes natively, the shared routine for the others) agree with `semantics::convert` on
/// edge values: NaNs (quiet, signalling, with payloads), infinities, subnormals, signed zeros,
/// halves, and the integer range limits (2^31, 2^32, 2^63, 2^64 and their neighbours).
#[test]
fn conversions_and_doubles_mirror_the_semantics() {
    use crate::semantics::convert as cv;
    use warpjit_runtime::{BankMode, ConstBanks};
    let jit = Jit::new().expect("host supported");
    let f32s: [u32; 32] = [
        0,
        0x8000_0000,
        0x3f00_0000,
        0xbf00_0000,
        0x3fc0_0000,
        0x4020_0000,
        0xc020_0000,
        1,
        0x8000_0001,
        0x007f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffbf_ffff,
        0x7f80_0001,
        0x4f00_0000,
        0xcf00_0000,
        0x4eff_ffff,
        0xcf00_0001,
        0x4f80_0000,
        0x5f00_0000,
        0x5f80_0000,
        0xbf80_0000,
        0x3eff_ffff,
        0x477f_ff80,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x7fff_ffff,
        0x3f00_0001,
        0xbf00_0001,
        0x4060_0000,
        0xc060_0000,
    ];
    let f64s: [u64; 32] = [
        0,
        1 << 63,
        0.5f64.to_bits(),
        (-0.5f64).to_bits(),
        1.5f64.to_bits(),
        2.5f64.to_bits(),
        2147483648.0f64.to_bits(),
        2147483647.5f64.to_bits(),
        (-2147483648.5f64).to_bits(),
        4294967296.0f64.to_bits(),
        9223372036854775808.0f64.to_bits(),
        (-9223372036854775808.0f64).to_bits(),
        18446744073709551616.0f64.to_bits(),
        18446744073709549568.0f64.to_bits(),
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        0xfff8_0000_0000_0123,
        1,
        0x8000_0000_0000_0001,
        0x7fef_ffff_ffff_ffff,
        0xffef_ffff_ffff_ffff,
        (1.0f64 / 3.0).to_bits(),
        0x0001_0000_0000_0000,
        0x3ff0_0000_0000_0001,
        0x43e0_0000_0000_0001,
        (-1.0f64).to_bits(),
        0x41ef_ffff_ffe0_0000,
        0x0010_0000_0000_0000,
        (-3.5f64).to_bits(),
        1e300f64.to_bits(),
    ];
    // Lane l: c[0][16l] = a (64 bits), c[0][16l+8] = b (64 bits).
    let consts = |a: &dyn Fn(usize) -> u64, b: &dyn Fn(usize) -> u64| {
        let mut c = ConstBanks::new();
        for l in 0..32 {
            c.write(0, 16 * l as u32, &a(l).to_le_bytes()).unwrap();
            c.write(0, 16 * l as u32 + 8, &b(l).to_le_bytes()).unwrap();
        }
        c
    };
    let c64 = consts(&|l| f64s[l], &|l| f64s[(l * 7 + 3) % 32]);
    let c32 = consts(&|l| f32s[l] as u64, &|l| f32s[(l * 5 + 1) % 32] as u64);
    let run = |op: &str, c: &ConstBanks| -> Vec<u64> {
        let text = format!(
            "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nSHL R2, R0, 0x4;\n\
             LDC.64 R4, c[0x0][R2];\nLDC.64 R6, c[0x0][R2+0x8];\nMOV R9, RZ;\n\
             {op};\nSTG.64 [R1+0x10000], R8;\nEXIT;\n"
        );
        let mem = run_compiled(&jit, &text, c.clone(), BankMode::Compute, 0);
        (0..32)
            .map(|l| u64::from_le_bytes(mem[8 * l..8 * l + 8].try_into().unwrap()))
            .collect()
    };
    let check = |text: &str, c: &ConstBanks, want: &dyn Fn(usize) -> u64| {
        let got = run(text, c);
        for (l, g) in got.iter().enumerate() {
            assert_eq!(*g, want(l), "{text}, lane {l}");
        }
    };
    let op_of = |text: &str| -> crate::ir::Op {
        let p = program(&format!("{text};\nEXIT;"));
        p.blocks[0].insts[0].op.clone()
    };
    let a64 = |l: usize| f64s[l];
    let b64 = |l: usize| f64s[(l * 7 + 3) % 32];
    let a32 = |l: usize| f32s[l] as u64;
    let b32 = |l: usize| f32s[(l * 5 + 1) % 32] as u64;
    // One register result (the high word R9 stays 0).
    let one = |text: &str, c: &ConstBanks, x: &dyn Fn(usize) -> u64, y: &dyn Fn(usize) -> u64| {
        let op = op_of(text);
        check(text, c, &|l| {
            cv::lane(&op, x(l), y(l), 0, false) & 0xffff_ffff
        });
    };
    let two = |text: &str, c: &ConstBanks, x: &dyn Fn(usize) -> u64, y: &dyn Fn(usize) -> u64| {
        let op = op_of(text);
        check(text, c, &|l| cv::lane(&op, x(l), y(l), x(l), true));
    };
    // Native: F2I.S32.F32 in every rounding, with FTZ and the sign modifiers; I2F.F32.S32.RN.
    for rnd in ["", ".FLOOR", ".CEIL", ".TRUNC"] {
        for ftz in ["", ".FTZ"] {
            for pre in ["", "-", "|", "-|"] {
                let post = if pre.contains('|') { "|" } else { "" };
                one(
                    &format!("F2I{ftz}.S32.F32{rnd} R8, {pre}R4{post}"),
                    &c32,
                    &a32,
                    &a32,
                );
            }
        }
    }
    one("I2F.F32.S32 R8, R4", &c32, &a32, &a32);
    one("I2F.F32.S32 R8, R6", &c32, &b32, &b32);
    // Native: DADD and DMUL in round-to-nearest, with modifiers.
    two("DADD R8, R4, R6", &c64, &a64, &b64);
    two("DADD R8, -R4, |R6|", &c64, &a64, &b64);
    two("DADD R8, -|R4|, -R6", &c64, &a64, &b64);
    two("DMUL R8, R4, R6", &c64, &a64, &b64);
    two("DMUL R8, R4, -R6", &c64, &a64, &b64);
    // Through the routine.
    for rnd in [".RZ", ".RM", ".RP"] {
        two(&format!("DADD{rnd} R8, R4, R6"), &c64, &a64, &b64);
        two(&format!("DMUL{rnd} R8, R4, R6"), &c64, &a64, &b64);
        two(&format!("DFMA{rnd} R8, R4, R6, R4"), &c64, &a64, &b64);
    }
    two("DFMA R8, R4, -R6, -R4", &c64, &a64, &b64);
    two("DMNMX R8, R4, R6, PT", &c64, &a64, &b64);
    let max = "DMNMX R8, -R4, |R6|, !PT";
    let op = op_of(max);
    check(max, &c64, &|l| cv::lane(&op, a64(l), b64(l), 0, false));
    two("F2I.S64.F64.TRUNC R8, R4", &c64, &a64, &a64);
    two("F2I.U64.F64.CEIL R8, -R4", &c64, &a64, &a64);
    two("F2I.S64.F32.FLOOR R8, R4", &c32, &a32, &a32);
    one("F2I.U32.F64.FLOOR R8, R4", &c64, &a64, &a64);
    one("F2I.U16.F32.TRUNC R8, R4", &c32, &a32, &a32);
    two("F2F.F64.F32 R8, R4", &c32, &a32, &a32);
    one("F2F.F32.F64.RZ R8, R4", &c64, &a64, &a64);
    one("F2F.F16.F32 R8, R4", &c32, &a32, &a32);
    one("F2F.F32.F32.ROUND.SAT R8, R4", &c32, &a32, &a32);
    two("F2F.F64.F64.FLOOR R8, |R4|", &c64, &a64, &a64);
    two("I2F.F64.S64.RP R8, R4", &c64, &a64, &a64);
    one("I2F.F32.U64.RM R8, R4", &c64, &a64, &a64);
    one("I2F.F16.S16 R8, -R4", &c32, &a32, &a32);
    one("I2I.S8.S32.SAT R8, R4", &c32, &a32, &a32);
    one("I2I.U16.S8 R8, |R4|", &c32, &a32, &a32);
    // DSET and DSETP: the comparison with Pp = PT (DSETP's result moved to R8 by SEL).
    for cmp in ["LT", "EQ", "NE", "GEU", "NAN", "NUM", "LTU", "NEU"] {
        let text = format!("DSET.{cmp}.AND R8, R4, -R6, PT");
        let op = op_of(&text);
        check(&text, &c64, &|l| {
            if cv::lane(&op, a64(l), b64(l), 0, false) != 0 {
                0xffff_ffff
            } else {
                0
            }
        });
        let text = format!("DSETP.{cmp}.AND P0, P1, |R4|, R6, PT;\nSEL R8, R4, R5, P0");
        let op = op_of(&format!("DSETP.{cmp}.AND P0, P1, |R4|, R6, PT"));
        check(&text, &c64, &|l| {
            if cv::lane(&op, a64(l), b64(l), 0, false) != 0 {
                a64(l) & 0xffff_ffff
            } else {
                a64(l) >> 32
            }
        });
    }
}

/// The float ops in generated code (vector code for round to nearest, the lane routine for the
/// directed modes and MUFU) agree with `crate::semantics::float` on float edge values (NaN
/// payloads, infinities, subnormals, signed zeros, 1 ± ulp, the overflow and underflow
/// boundaries) in every variant, no instruction delegated.
#[test]
fn float_ops_mirror_the_semantics() {
    use crate::ir::*;
    use crate::semantics::float as f;
    use warpjit_runtime::{BankMode, ConstBanks};
    let jit = Jit::new().expect("host supported");
    let edges: [u32; 32] = [
        0,
        0x8000_0000,
        1,
        0x807f_ffff,
        0x0080_0000,
        0x8080_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x3f80_0001,
        0x3f7f_ffff,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0001,
        0x3380_0000,
        0x4b80_0000,
        0x3f00_0000,
        0x4049_0fdb,
        0xc2c8_0000,
        0x42fe_0000,
        0xc315_0000,
        0x7f00_0000,
        0x0100_0000,
        0x0d80_0000,
        0x3fc0_0000,
        0x4040_0000,
        0xbe80_0000,
        0x7f00_0001,
        0x0040_0000,
    ];
    // Lane l: a = edges[l], b = edges[7l + 3], c = edges[13l + 5] (mod 32): every lane differs.
    let lanes: Vec<[u32; 3]> = (0..32)
        .map(|l| [edges[l], edges[(7 * l + 3) % 32], edges[(13 * l + 5) % 32]])
        .collect();
    let mut consts = ConstBanks::new();
    for (l, v) in lanes.iter().enumerate() {
        for (k, x) in v.iter().enumerate() {
            let at = 16 * l as u32 + 4 * k as u32;
            consts.write(0, at, &x.to_le_bytes()).unwrap();
        }
    }
    let run = |op: &str| {
        let text = format!(
            "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nSHL R2, R0, 0x4;\n\
             LDC.64 R4, c[0x0][R2];\nLDC R6, c[0x0][R2+0x8];\nMOV R8, R6;\nMOV32I R9, 0x1;\n\
             {op};\nSTG [R1+0x10000], R8;\nEXIT;\n"
        );
        let mem = run_compiled(&jit, &text, consts.clone(), BankMode::Compute, 0);
        (0..32).map(|l| word(&mem, l)).collect::<Vec<u32>>()
    };
    let check = |op: &str, want: &dyn Fn(u32, u32, u32) -> u32| {
        let got = run(op);
        for (l, &[a, b, c]) in lanes.iter().enumerate() {
            assert_eq!(
                got[l],
                want(a, b, c),
                "{op}, lane {l}: a {a:#x} b {b:#x} c {c:#x}"
            );
        }
    };
    let mods = [
        (FMod::NONE, ""),
        (FMod::neg(true), "-"),
        (
            FMod {
                neg: false,
                abs: true,
            },
            "|",
        ),
        (
            FMod {
                neg: true,
                abs: true,
            },
            "-|",
        ),
    ];
    let wrap = |m: &str, r: &str| match m {
        "|" => format!("|{r}|"),
        "-|" => format!("-|{r}|"),
        _ => format!("{m}{r}"),
    };
    for (rnd, rn) in FRnd::ALL.iter().zip(["", ".RM", ".RP", ".RZ"]) {
        for ftz in [false, true] {
            for sat in [false, true] {
                let mo = format!(
                    "{}{rn}{}",
                    if ftz { ".FTZ" } else { "" },
                    if sat { ".SAT" } else { "" }
                );
                for (i, &(am, at)) in mods.iter().enumerate() {
                    let (bm, bt) = mods[(i + 1) % 4];
                    let o = Fadd {
                        d: Reg(8),
                        ftz,
                        sat,
                        rnd: *rnd,
                        a: Reg(4),
                        am,
                        b: Src::Reg(Reg(5)),
                        bm,
                    };
                    check(
                        &format!("FADD{mo} R8, {}, {}", wrap(at, "R4"), wrap(bt, "R5")),
                        &|a, b, _| f::fadd(&o, a, b),
                    );
                }
                for (scale, sc) in [(0, ""), (-3, ".D8"), (1, ".M2")] {
                    let o = Fmul {
                        d: Reg(8),
                        ftz,
                        scale,
                        sat,
                        rnd: *rnd,
                        a: Reg(4),
                        b: Src::Reg(Reg(5)),
                        neg_b: scale == 1,
                    };
                    let n = if scale == 1 { "-" } else { "" };
                    check(&format!("FMUL{sc}{mo} R8, R4, {n}R5"), &|a, b, _| {
                        f::fmul(&o, a, b)
                    });
                }
                for neg in [false, true] {
                    let n = if neg { "-" } else { "" };
                    for neg_c in [false, true] {
                        let o = Ffma {
                            d: Reg(8),
                            ftz,
                            sat,
                            rnd: *rnd,
                            a: Reg(4),
                            b: Src::Reg(Reg(5)),
                            neg_b: neg,
                            c: Src::Reg(Reg(6)),
                            neg_c,
                        };
                        let nc = if neg_c { "-" } else { "" };
                        check(&format!("FFMA{mo} R8, R4, {n}R5, {nc}R6"), &|a, b, c| {
                            f::ffma(&o, a, b, c)
                        });
                    }
                }
            }
        }
    }
    for ftz in [false, true] {
        let t = if ftz { ".FTZ" } else { "" };
        for sat in [false, true] {
            let s = if sat { ".SAT" } else { "" };
            let o = Fmul {
                d: Reg(8),
                ftz,
                scale: 0,
                sat,
                rnd: FRnd::Rn,
                a: Reg(4),
                b: Src::Imm32(0x3f80_0001),
                neg_b: false,
            };
            check(&format!("FMUL32I{t}{s} R8, R4, 1.0000001"), &|a, _, _| {
                f::fmul(&o, a, 0x3f80_0001)
            });
            let o = Ffma {
                d: Reg(8),
                ftz,
                sat,
                rnd: FRnd::Rn,
                a: Reg(4),
                b: Src::Imm32(0xc000_0000),
                neg_b: true,
                c: Src::Reg(Reg(8)),
                neg_c: sat,
            };
            let nc = if sat { "-" } else { "" };
            check(
                &format!("FFMA32I{t}{s} R8, -R4, -2.0, {nc}R8"),
                &|a, _, c| f::ffma(&o, a, 0xc000_0000, c),
            );
        }
        let o = Fadd {
            d: Reg(8),
            ftz,
            sat: false,
            rnd: FRnd::Rn,
            a: Reg(4),
            am: FMod::neg(true),
            b: Src::Imm32(0x0000_0003 | 0x0080_0000),
            bm: FMod::NONE,
        };
        check(&format!("FADD32I{t} R8, -R4, 0x800003"), &|a, _, _| {
            f::fadd(&o, a, 0x0080_0003)
        });
        for (i, &(am, at)) in mods.iter().enumerate() {
            let (bm, bt) = mods[(i + 2) % 4];
            for min in [false, true] {
                let p = if min { "PT" } else { "!PT" };
                check(
                    &format!("FMNMX{t} R8, {}, {}, {p}", wrap(at, "R4"), wrap(bt, "R5")),
                    &|a, b, _| {
                        f::fout(
                            f::fmnmx(min, f::fin(a, am, ftz), f::fin(b, bm, ftz)),
                            ftz,
                            false,
                        )
                    },
                );
            }
        }
        for cmp in FCmp::ALL {
            let name = format!("{cmp:?}").to_uppercase();
            let test = |a: u32, b: u32| {
                f::fcmp(
                    cmp,
                    f::fin(a, FMod::NONE, ftz),
                    f::fin(b, FMod::neg(true), ftz),
                )
            };
            check(
                &format!("FSETP.{name}{t}.AND P0, P1, R4, -R5, PT;\nSEL R8, R9, RZ, P0"),
                &|a, b, _| test(a, b) as u32,
            );
            check(
                &format!("FSETP.{name}{t}.XOR P0, P1, R4, -R5, PT;\nSEL R8, R9, RZ, P1"),
                &|a, b, _| // (!test) ^ PT
                test(a, b) as u32,
            );
            check(
                &format!("FSET.BF.{name}{t}.OR R8, R4, -R5, !PT"),
                &|a, b, _| {
                    if test(a, b) {
                        f::ONE32
                    } else {
                        0
                    }
                },
            );
            check(
                &format!("FSET.{name}{t}.AND R8, R4, -R5, PT"),
                &|a, b, _| {
                    if test(a, b) {
                        u32::MAX
                    } else {
                        0
                    }
                },
            );
            check(&format!("FCMP.{name}{t} R8, R4, R5, R6"), &|a, b, c| {
                if f::fcmp(cmp, f::fin(c, FMod::NONE, ftz), 0) {
                    a
                } else {
                    b
                }
            });
        }
    }
    for (func, _) in MufuFn::ALL {
        let name = format!("{func:?}").to_uppercase();
        for sat in [false, true] {
            let s = if sat { ".SAT" } else { "" };
            check(&format!("MUFU.{name}{s} R8, -|R4|"), &|a, _, _| {
                f::mufu(
                    func,
                    sat,
                    FMod {
                        neg: true,
                        abs: true,
                    }
                    .apply(a),
                )
            });
        }
    }
    for ex2 in [false, true] {
        let o = Rro {
            d: Reg(8),
            ex2,
            b: Src::Reg(Reg(5)),
            bm: FMod::neg(true),
        };
        let n = if ex2 { "EX2" } else { "SINCOS" };
        check(&format!("RRO.{n} R8, -R5"), &|_, b, _| {
            f::rro(&o, FMod::neg(true).apply(b))
        });
    }
    check(
        "FCHK.DIVIDE P0, R4, |R5|;\nSEL R8, R9, RZ, P0",
        &|a, b, _| f::fchk_divide(a, b & 0x7fff_ffff) as u32,
    );
}

/// A block holding only its terminator compiles to nothing (the dispatcher runs the terminator)
/// and still runs: here the EXIT block after the branch, and the branch's empty arm.
#[test]
fn blocks_without_instructions_compile_to_nothing_and_run() {
    let text = "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nISETP.LT.U32.AND P0, PT, R0, 0x10, PT;\n\
                SSY `(DONE);\n@P0 BRA `(SKIP);\nIADD32I R0, R0, 0x100;\nSYNC;\nSKIP:\nSYNC;\n\
                DONE:\nSTG [R1+0x10000], R0;\nBRA `(END);\nEND:\nEXIT;\n";
    let prog = program(text);
    let empty = prog.blocks.iter().filter(|b| b.insts.is_empty()).count();
    assert!(empty >= 2, "the case needs empty blocks: {:?}", prog.blocks);
    let jit = Jit::new().expect("host supported");
    let fns = jit.compile_all(&prog).expect("compiles");
    let full = prog.blocks.len() - empty;
    assert_eq!(
        fns,
        2 * full,
        "two variants of each block with instructions, none else"
    );
    let mem = run_compiled(
        &jit,
        text,
        warpjit_runtime::ConstBanks::new(),
        warpjit_runtime::BankMode::Compute,
        warpjit_runtime::DEFAULT_SHARED_WINDOW,
    );
    for lane in 0..32 {
        let want = if lane < 16 { lane } else { lane + 0x100 };
        assert_eq!(word(&mem, lane), want as u32, "lane {lane}");
    }
}

/// The immediate constant buffer lookup (`Table`, lowered as vector code) for indices in range,
/// just past the end, and huge ones (including those whose 4-byte offset wraps 32 bits into the
/// table), under a guard: `table[index]` where `index < 5`, else 0; lanes the guard leaves off
/// keep their old value. Expected values by hand.
#[test]
fn table_lookup_is_bounds_checked_for_every_index() {
    use crate::ir::{Reg, Src, Table};
    use warpjit_runtime::{BankMode, ConstBanks};
    let jit = Jit::new().expect("host supported");
    let table = [0x11, 0x22, 0x33, 0x44, 0x55];
    let idx: [u32; 16] = [
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        0x4000_0000,
        0x4000_0001,
        0x8000_0000,
        0x8000_0002,
        0xffff_ffff,
        0xffff_fffc,
        0xc000_0003,
        0x0001_0000,
        4,
    ];
    let mut consts = ConstBanks::new();
    for l in 0..32u32 {
        let i = idx[l as usize % 16];
        consts.write(0, 16 * l, &i.to_le_bytes()).unwrap();
    }
    // Lanes 0-23 run the lookup (P0); the others keep R8 = 0x99.
    let text = "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nSHL R2, R0, 0x4;\n\
                LDC R4, c[0x0][R2];\nMOV32I R8, 0x99;\nISETP.LT.U32.AND P0, PT, R0, 0x18, PT;\n\
                @P0 MOV R8, RZ;\nSTG [R1+0x10000], R8;\nEXIT;\n";
    let mut prog = crate::sass::parse_program(text, &Default::default()).expect("assembles");
    let inst = prog.blocks[0]
        .insts
        .iter_mut()
        .find(|i| !i.guard.is_always())
        .expect("the guarded MOV");
    inst.op = Table {
        d: Reg(8),
        index: Src::Reg(Reg(4)),
        table: table.to_vec().into(),
    }
    .into();
    let what = "the MOV replaced by a Table";
    let mem = run_compiled_prog(&jit, Arc::new(prog), what, consts, BankMode::Compute, 0);
    for l in 0..32 {
        let i = idx[l % 16] as usize;
        let want = if l >= 24 {
            0x99
        } else if i < 5 {
            table[i]
        } else {
            0
        };
        assert_eq!(word(&mem, l), want, "lane {l}, index {i:#x}");
    }
}

/// What a launch did: its counts (warps, warp and lane instructions) or its fault, the 256
/// bytes at 0x10000, and a JIT's own counts ([`RunCounters`]; zero for the interpreter).
type Outcome = (Result<(u64, u64, u64), String>, Vec<u8>, RunCounters);

/// Runs `launch` on one host thread, on a machine with 256 zeroed bytes at 0x10000, under a JIT
/// that compiles every block on its first run and under the interpreter: (JIT, interpreter).
fn interpreter_and_jit(launch: &Launch) -> (Outcome, Outcome) {
    let mut jit = Jit::new().expect("host supported");
    jit.threshold = 1;
    jit.hot_threshold = u32::MAX;
    (
        jit_outcome(&jit, launch),
        run_outcome(&crate::interp::Interpreter, launch),
    )
}

/// A JIT whose code for `prog` is all tier 2's (compiled now, in both variants; no tiering).
fn tier2_jit(prog: &Arc<Program>) -> Jit {
    let mut jit = Jit::new().expect("host supported");
    jit.hot_threshold = u32::MAX;
    jit.compile_all_tier(prog, Tier::Two).expect("compiles");
    jit
}

/// Runs `launch` under `engine` on one host thread, on a machine with 256 zeroed bytes at
/// 0x10000.
fn run_outcome(engine: &dyn Engine, launch: &Launch) -> Outcome {
    let opts = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    let mut machine = Machine::default();
    let init = warpjit_runtime::memory::Init::Zero;
    machine.global.map(0x10000, 0x100, init).expect("maps");
    let r = engine.run(&machine, launch, &opts);
    let mem = machine.global.read_bytes(0x10000, 0x100).expect("mapped");
    let counts = match &r {
        Ok(s) => Ok((s.warps, s.warp_insts, s.lane_insts)),
        Err(f) => Err(format!("{f:?}")),
    };
    (counts, mem, RunCounters::default())
}

/// [`run_outcome`] under `jit`, with what its runners counted in the launch.
fn jit_outcome(jit: &Jit, launch: &Launch) -> Outcome {
    jit.take_counters();
    let (counts, mem, _) = run_outcome(jit, launch);
    (counts, mem, jit.take_counters())
}

/// A loop is compiled as a region (`jit::region`): its further blocks run in compiled code
/// (counted in [`RunCounters::looped`]) and agree with the interpreter in everything, at every budget:
/// a per-lane trip count (the loop diverges at its end or at its head and runs on for fewer
/// lanes), the clock read inside it, an `if` inside the loop (uniform, and divergent), and the
/// budget fault at each instruction of an iteration (the compiled code never starts a block
/// that does not fit, and the dispatcher then stops at the exact instruction). Then an endless
/// jump to itself, stopped by the budget.
#[test]
fn a_loop_runs_in_compiled_code_and_stops_exactly() {
    const SETUP: &str = "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nLOP32I.AND R5, R0, 0x3;\n\
                         IADD32I R5, R5, 0x4;\nMOV R2, RZ;\nMOV R3, RZ;\n";
    // One block branching to itself.
    let counted = format!(
        "{SETUP}LOOP:\nIADD32I R3, R3, 0x1;\nCS2R R6, SR_CLOCKLO;\nIADD R2, R2, R6;\n\
         ISETP.LT.U32.AND P0, PT, R3, R5, PT;\n@P0 BRA LOOP;\n\
         STG [R1+0x10000], R2;\nEXIT;\n"
    );
    // A head that leaves, a body that jumps back (DXBC's `loop … breakc … endloop`).
    let head_body = format!(
        "{SETUP}HEAD:\nISETP.GE.U32.AND P0, PT, R3, R5, PT;\n@P0 BRA DONE;\n\
         IADD32I R3, R3, 0x1;\nCS2R R6, SR_CLOCKLO;\nIADD R2, R2, R6;\nBRA HEAD;\n\
         DONE:\nSTG [R1+0x10000], R2;\nEXIT;\n"
    );
    // An `if` inside the loop, on a uniform condition (every other iteration) and on a
    // per-lane one (lanes 0-15 skip on odd iterations: the warp diverges inside the loop).
    let with_if = |cond: &str| {
        format!(
            "{SETUP}LOOP:\nIADD32I R3, R3, 0x1;\nLOP32I.AND R7, R3, 0x1;\n{cond}\
             @P1 BRA SKIP;\nIADD R2, R2, R3;\nSKIP:\nCS2R R6, SR_CLOCKLO;\n\
             IADD R2, R2, R6;\nISETP.LT.U32.AND P0, PT, R3, R5, PT;\n@P0 BRA LOOP;\n\
             STG [R1+0x10000], R2;\nEXIT;\n"
        )
    };
    let uniform_if = with_if("ISETP.EQ.U32.AND P1, PT, R7, RZ, PT;\n");
    let divergent_if =
        with_if("ISETP.NE.U32.AND P1, PT, R7, RZ, PT;\nISETP.LT.U32.AND P1, PT, R0, 0x10, P1;\n");
    // PBK before the loop, BRK out of it (the wait is at an entry pushed before the region).
    let pbk = format!(
        "{SETUP}PBK DONE;\nLOOP:\nISETP.GE.U32.AND P0, PT, R3, R5, PT;\n@P0 BRK;\n\
         IADD32I R3, R3, 0x1;\nCS2R R6, SR_CLOCKLO;\nIADD R2, R2, R6;\nBRA LOOP;\n\
         DONE:\nSTG [R1+0x10000], R2;\nEXIT;\n"
    );
    // PCNT at the top of each iteration and CONT at its end, a guarded CONT, and an SSY/SYNC
    // `if` inside (DXBC's `loop`, `continue` and `if` take this shape): the region keeps the
    // entries it pushes and pops them itself, uniformly, and leaves when lanes part.
    let pcnt = |cond: &str| {
        format!(
            "{SETUP}PBK DONE;\nLOOP:\nPCNT NEXT;\nISETP.GE.U32.AND P0, PT, R3, R5, PT;\n\
             @P0 BRK;\nIADD32I R3, R3, 0x1;\nLOP32I.AND R7, R3, 0x3;\n\
             ISETP.EQ.U32.AND P1, PT, R7, 0x3, PT;\n@P1 CONT;\n{cond}SSY JOIN;\n\
             @!P2 BRA ELSE;\nIADD R2, R2, R3;\nSYNC;\nELSE:\nCS2R R6, SR_CLOCKLO;\n\
             IADD R2, R2, R6;\nSYNC;\nJOIN:\nCONT;\nNEXT:\nBRA LOOP;\n\
             DONE:\nSTG [R1+0x10000], R2;\nEXIT;\n"
        )
    };
    let pcnt_uniform = pcnt("LOP32I.AND R8, R3, 0x1;\nISETP.EQ.U32.AND P2, PT, R8, RZ, PT;\n");
    let pcnt_divergent = pcnt("ISETP.LT.U32.AND P2, PT, R0, 0x10, PT;\n");
    // Every lane runs the same 7 iterations: the counter R3 and the bound R5 are uniform at
    // the loop's entry, so tier 2 passes them around the loop as one vector each
    // (`codegen::Carried::uniform`), beside the per-lane R2 that mixes them in.
    let uniform_trip = "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nMOV32I R5, 0x7;\nMOV R2, R0;\n\
                        MOV R3, RZ;\nLOOP:\nIADD32I R3, R3, 0x1;\nIMUL R2, R2, R3;\n\
                        IADD R2, R2, R3;\nISETP.LT.U32.AND P0, PT, R3, R5, PT;\n@P0 BRA LOOP;\n\
                        IADD R2, R2, R3;\nSTG [R1+0x10000], R2;\nEXIT;\n"
        .to_string();
    let endless = "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nSTG [R1+0x10000], R0;\nSPIN:\n\
                   IADD32I R2, R2, 0x1;\nSTG [R1+0x10000], R2;\nBRA SPIN;\n"
        .to_string();
    // (text, budgets, further blocks run in compiled code at least): the counted loop issues
    // 6 + 5 * 7 + 2 = 43 instructions when every lane runs 7 iterations; the budgets stop
    // each program at every point.
    for (text, budgets, least) in [
        (counted, 6..46u64, 3),
        (head_body, 6..60, 6),
        (uniform_if, 6..90, 6),
        (divergent_if, 6..120, 2),
        (pbk, 6..70, 6),
        (pcnt_uniform, 6..140, 6),
        (pcnt_divergent, 6..160, 2),
        (uniform_trip, 6..46, 3),
        // (Every run of the endless loop ends in the budget fault, which carries no statistics.)
        (endless, 3..30, 0),
    ] {
        let prog = program(&text);
        // Tier 2's regions pass registers from block to block as parameters.
        let two = tier2_jit(&prog);
        let (mut looped, mut looped2) = (0, 0);
        for budget in budgets.chain([1_000]) {
            let launch = Launch {
                budget,
                ..Launch::new(prog.clone(), warpjit_runtime::ConstBanks::new())
            };
            let (got, want) = interpreter_and_jit(&launch);
            let got2 = jit_outcome(&two, &launch);
            for (tier, got) in [(1, &got), (2, &got2)] {
                assert_eq!(got.0, want.0, "tier {tier}, budget {budget}:\n{text}");
                assert_eq!(got.1, want.1, "tier {tier}, budget {budget}:\n{text}");
                assert_eq!(got.2.interp_blocks, 0, "{text}");
            }
            looped += got.2.looped;
            looped2 += got2.2.looped;
        }
        assert!(looped >= least, "ran in compiled code: {looped}\n{text}");
        assert!(looped2 >= least, "ran in tier 2's code: {looped2}\n{text}");
    }
}

/// A region keeps the reconvergence entries it pushes to itself and pushes one only when the
/// warp's stack (1024 entries) would still hold it: a loop that pushes two entries per
/// iteration (`PCNT`, `SSY`), run at the depth of 1022 and of 1023 nested calls, agrees with
/// the interpreter, which overflows the stack at the `SSY` in the second case only.
#[test]
fn a_region_pushes_only_what_the_stack_holds() {
    for depth in [1022u32, 1023] {
        let text = format!(
            "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nMOV R9, RZ;\nMOV R2, RZ;\nMOV R3, RZ;\n\
             CAL F;\nSTG [R1+0x10000], R2;\nEXIT;\n\
             F:\nIADD32I R9, R9, 0x1;\nISETP.LT.U32.AND P0, PT, R9, {depth:#x}, PT;\n\
             @!P0 BRA BODY;\nCAL F;\nRET;\n\
             BODY:\nLOOP:\nPCNT NEXT;\nIADD32I R3, R3, 0x1;\nSSY JOIN;\nIADD R2, R2, R3;\n\
             SYNC;\nJOIN:\nCONT;\nNEXT:\nISETP.LT.U32.AND P1, PT, R3, 0x8, PT;\n\
             @P1 BRA LOOP;\nRET;\n"
        );
        let prog = program(&text);
        let launch = Launch::new(prog.clone(), warpjit_runtime::ConstBanks::new());
        let (got, want) = interpreter_and_jit(&launch);
        assert_eq!(got.0, want.0, "depth {depth}");
        assert_eq!(got.1, want.1, "depth {depth}");
        let got2 = jit_outcome(&tier2_jit(&prog), &launch);
        assert_eq!(
            (&got2.0, &got2.1),
            (&want.0, &want.1),
            "depth {depth}, tier 2"
        );
        match (depth, &got.0, &got.2) {
            (1022, Ok(_), s) => assert!(s.looped > 0, "the loop ran in compiled code"),
            (1023, Err(f), _) => assert!(f.contains("StackOverflow"), "{f}"),
            (_, r, _) => panic!("depth {depth}: {r:?}"),
        }
    }
}

/// `LOP3.LUT` for all 256 tables (the JIT reduces a table that ignores an input to a two-input
/// op and builds the others from `bitselect`), with the second operand a register and an
/// immediate, agrees with the interpreter's definition of the table.
#[test]
fn every_lop3_table_agrees_with_its_definition() {
    use crate::semantics::lut3;
    let jit = Jit::new().expect("host supported");
    for lut in 0..=255u8 {
        let text = format!(
            "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nLOP32I.XOR R2, R1, 0xf0f0f0f0;\n\
             SHL R5, R0, 0x9;\nLOP32I.XOR R3, R5, 0xcccccccc;\nSHL R6, R0, 0x11;\n\
             LOP32I.XOR R4, R6, 0xaaaaaaaa;\nLOP3.LUT R7, R2, R3, R4, {lut:#x};\n\
             LOP3.LUT R8, R2, 0x3c3c3c3c, R4, {lut:#x};\n\
             STG [R1+0x10000], R7;\nSTG [R1+0x10004], R8;\nEXIT;\n"
        );
        let mem = run_compiled(
            &jit,
            &text,
            warpjit_runtime::ConstBanks::new(),
            warpjit_runtime::BankMode::Compute,
            warpjit_runtime::DEFAULT_SHARED_WINDOW,
        );
        for lane in 0..32u32 {
            let a = (lane << 3) ^ 0xf0f0_f0f0;
            let b = (lane << 9) ^ 0xcccc_cccc;
            let c = (lane << 17) ^ 0xaaaa_aaaa;
            let l = lane as usize;
            let got =
                |k: usize| u32::from_le_bytes(mem[8 * l + k..8 * l + k + 4].try_into().unwrap());
            assert_eq!(got(0), lut3(lut, a, b, c), "lut {lut:#x}, lane {lane}");
            assert_eq!(
                got(4),
                lut3(lut, a, 0x3c3c_3c3c, c),
                "lut {lut:#x}, lane {lane} (immediate)"
            );
        }
    }
}

/// A budget fault at an instruction guarded by `!PT` (it never runs, so it reads nothing)
/// reports no register values: R3 there is dead, and the JIT never stores it (a difference
/// in the reported reads that the differential fuzzer found).
#[test]
fn a_fault_at_an_instruction_that_never_runs_reports_no_reads() {
    use crate::interp::Interpreter;
    let text = "S2R R0, SR_LANEID;\nLOP32I.XOR R3, R0, 0x8000;\nBAR.SYNC 0x0;\nLOOP:\n\
                @!PT IADD R1, R3, R3;\nIADD32I R2, R2, 0x1;\nBRA LOOP;\n";
    let prog = program(text);
    let never = prog
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .find(|i| crate::analysis::effects::never(i.guard))
        .expect("the case has an @!PT instruction")
        .pc;
    let opts = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    let mut jit = Jit::new().expect("host supported");
    jit.threshold = 1;
    let mut hit = false;
    // The loop issues 3 instructions a turn: one of three budgets stops at the @!PT one.
    for budget in 30..40 {
        let launch = Launch {
            budget,
            ..Launch::new(prog.clone(), warpjit_runtime::ConstBanks::new())
        };
        let run = |e: &dyn Engine| {
            e.run(&Machine::default(), &launch, &opts)
                .expect_err("ends")
        };
        let (want, got) = (run(&Interpreter), run(&jit));
        assert_eq!(format!("{got:?}"), format!("{want:?}"), "budget {budget}");
        if want.pc == never {
            hit = true;
            assert!(want.reads.is_empty(), "{want:?}");
        }
    }
    assert!(hit, "some budget stops at the @!PT instruction");
}

/// A register that is uniform before an instruction and that the instruction overwrites lane
/// by lane through the lane routine (a global load in reverse lane order) is read back per
/// lane, not as one uniform word (the full-warp variant loads registers uniform before and
/// after the instruction as one word).
#[test]
fn a_register_a_routine_overwrites_is_read_back_per_lane() {
    // Global words at 0x20000: word i is 0x100 + i. Lane l loads word 31 - l.
    let text = "S2R R0, SR_TID.X;\nSHL R1, R0, 0x2;\nMOV32I R6, 0x5;\nLOP32I.XOR R3, R1, 0x7c;\n\
                LDG R6, [R3+0x20000];\nIADD R7, R6, R6;\nSHL R4, R0, 0x3;\n\
                STG [R4+0x10000], R6;\nSTG [R4+0x10004], R7;\nEXIT;\n";
    let prog = program(text);
    let jit = Jit::new().expect("host supported");
    jit.compile_all(&prog).expect("compiles");
    let mut machine = Machine::default();
    let words: Vec<u8> = (0..32u32).flat_map(|i| (0x100 + i).to_le_bytes()).collect();
    let zero = warpjit_runtime::memory::Init::Zero;
    machine.global.map(0x10000, 0x100, zero).expect("maps");
    let data = warpjit_runtime::memory::Init::Bytes(&words);
    machine.global.map(0x20000, 0x80, data).expect("maps");
    let launch = Launch::new(prog, warpjit_runtime::ConstBanks::new());
    let opts = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    jit.run(&machine, &launch, &opts).expect("runs");
    assert_eq!(jit.take_counters().interp_blocks, 0);
    let mem = machine.global.read_bytes(0x10000, 0x100).expect("mapped");
    for lane in 0..32 {
        let want = 0x100 + 31 - lane as u32;
        assert_eq!(word(&mem, lane), want, "lane {lane}");
        let r7 = u32::from_le_bytes(mem[8 * lane + 4..8 * lane + 8].try_into().unwrap());
        assert_eq!(r7, 2 * want, "lane {lane}");
    }
}

/// The search for regions is bounded for any program: of many empty blocks that each loop to
/// themselves (each a region alone), only the first `MAX_EMPTY_HEADS` are searched and get a
/// piece (a program of 20,000 such blocks took seconds to load when every empty block was
/// searched, each search allocating state for the whole program).
#[test]
fn the_search_for_regions_is_bounded() {
    use crate::jit::region::{head_pieces, MAX_EMPTY_HEADS};
    let ranges = |prog: &Program| -> Vec<std::ops::Range<u32>> {
        let mut at = 0;
        prog.blocks
            .iter()
            .map(|b| {
                let k = crate::jit::pieces(&b.insts).len() as u32;
                at += k;
                at - k..at
            })
            .collect()
    };
    let n = MAX_EMPTY_HEADS + 5;
    let mut text = String::from("ISETP.GT.U32.AND P0, PT, RZ, 0x1, PT;\n");
    for i in 0..n {
        text += &format!("L{i}:\n@P0 BRA L{i};\n");
    }
    text += "EXIT;\n";
    let prog = program(&text);
    let heads = head_pieces(&prog, &ranges(&prog));
    assert_eq!(heads.iter().filter(|h| **h).count(), MAX_EMPTY_HEADS);
    assert!(heads[1] && !heads[n]);
}

/// Tier 1 compiles runs of lane-wise instructions as strip loops (`Tx::strip_run`: one chunk of
/// four lanes per iteration, each lane mask merged chunk by chunk). They agree with the
/// interpreter, and with tier 2's whole rows, in every lane: under a partial active mask (each
/// side of a divergent `if` runs with some lanes of some chunks), with guards, with a carry
/// (CC) and the LEA.LO word made before a run, used inside it and after it, with predicates
/// made and read inside a run and read after it, and with a lane routine's results (IMUL.HI).
#[test]
fn strip_loops_agree_with_the_interpreter_under_any_mask() {
    let text = "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nIADD32I R2, R0, -0x10;\n\
        XMAD R3, R0, 0x9e37, R0;\nIADD R13.CC, R3, R3;\nLEA R14.CC, R0, R3, 0x1d;\n\
        ISETP.LT.AND P0, PT, R0, 0x13, PT;\nSSY JOIN;\n@P0 BRA SIDE;\n\
        IADD.X R4, R2, R3;\nLEA.HI.X R7, R0, R2, RZ, 0x1d;\nIADD R4.CC, R4, R3;\n\
        IADD.X R5, R3, RZ;\nISETP.GT.AND P1, PT, R4, R5, PT;\n@P1 LOP.XOR R4, R4, R7;\n\
        @!P1 IADD R5, R5, R7;\nPSETP.AND.AND P2, PT, P1, !P0, PT;\nSEL R8, R4, R5, P2;\n\
        IMUL.U32.U32.HI R9, R4, R3;\nICMP.LT R10, R0, 0x1c, R9;\nFLO.U32 R11, R10;\n\
        IADD3 R8, R8, R11, R7;\nSYNC;\n\
        SIDE:\nLOP3.LUT R4, R2, R3, R0, 0x96;\nBFE.U32 R5, R3, 0x804;\nIADD.X R6, R4, R5;\n\
        IMNMX R7, R2, R3, PT;\nISETP.NE.AND P1, PT, R5, 0x7, PT;\n@P1 IADD R7, R7, 0x3;\n\
        LEA.HI.X R9, R0, R4, RZ, 0x1d;\nIADD3 R8, R6, R7, R9;\nSYNC;\n\
        JOIN:\n@P1 IADD32I R8, R8, 0x100;\nLOP.XOR R12, R5, R7;\n\
        STG [R1+0x10000], R8;\nSTG [R1+0x10004], R12;\nEXIT;\n";
    let prog = program(text);
    let launch = Launch {
        block: [32, 1, 1],
        ..Launch::new(prog.clone(), warpjit_runtime::ConstBanks::new())
    };
    let (got, want) = interpreter_and_jit(&launch);
    assert_eq!(got.0, want.0);
    assert!(got.1 == want.1, "tier 1 differs from the interpreter");
    // Both sides of the `if` ran (lanes 0-18 and 19-31 stored different things).
    assert_ne!(want.1[..8], want.1[8 * 20..8 * 21]);
    let two = run_compiled_at(
        &Jit::new().expect("host supported"),
        &prog,
        Tier::Two,
        text,
        &warpjit_runtime::ConstBanks::new(),
        warpjit_runtime::BankMode::Compute,
        0x0100_0000,
    );
    assert!(two == want.1, "tier 2 differs from the interpreter");
}

/// A program loaded again (an equal program in a new `Arc`, as a trace read twice gives) runs
/// the code compiled for the first load; a program that differs in one instruction gets its own.
#[test]
fn a_program_loaded_again_reuses_its_code() {
    let text = "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nIADD32I R2, R0, 0x7;\n\
                STG [R1+0x10000], R2;\nEXIT;\n";
    let mut jit = Jit::new().expect("host supported");
    jit.threshold = 1;
    jit.hot_threshold = u32::MAX;
    let run = |jit: &Jit, text: &str| {
        let launch = Launch::new(program(text), warpjit_runtime::ConstBanks::new());
        let before = jit.compile_stats().blocks;
        let out = run_outcome(jit, &launch);
        (out.1, jit.compile_stats().blocks - before)
    };
    let (first, compiled) = run(&jit, text);
    assert!(compiled > 0);
    let (again, recompiled) = run(&jit, text);
    assert_eq!((again, recompiled), (first.clone(), 0));
    let (other, compiled) = run(&jit, &text.replace("0x7", "0x9"));
    assert!(compiled > 0);
    assert_ne!(other, first);
}

/// A block that many small launches run becomes hot: each launch counts one run of it (one
/// warp), and the counts add up across launches until tier 2 is asked for. Counted only within
/// a launch, it never would be.
#[test]
fn many_small_launches_make_a_block_hot() {
    let prog = program("S2R R0, SR_TID.X;\nIADD32I R1, R0, 0x7;\nEXIT;\n");
    let jit = Jit::new().expect("host supported");
    let launch = Launch::new(prog.clone(), warpjit_runtime::ConstBanks::new());
    let code = jit.code_for(&prog);
    let full = cache::slot(0, true);
    // Interpreted first, compiled by tier 1 on reaching the threshold, then counted.
    let tier1_runs = jit.hot_threshold - 1;
    for _ in 0..jit.threshold + tier1_runs {
        assert!(run_outcome(&jit, &launch).0.is_ok());
    }
    assert_eq!(code.tiers[full].load(Ordering::Relaxed), 1, "not hot yet");
    assert!(run_outcome(&jit, &launch).0.is_ok());
    assert_eq!(
        code.tiers[full].load(Ordering::Relaxed),
        2,
        "tier 2 asked for"
    );
}

/// A scattered load of a whole warp (the lane routine's whole-warp path, which code of both
/// tiers calls) reads what each lane addresses; when one lane, first, middle or
/// last, lies past the segment's end, the launch faults as the interpreter's does, at that lane.
/// Four warps run the same accesses, so that the later ones find the segment hint the first
/// one's slow path set; only the last warp has a lane that misses.
#[test]
fn a_gather_faults_at_the_one_lane_that_misses() {
    for (op, words) in [("LDG.E", 1), ("LDG.E.64", 2), ("LDG", 1)] {
        for miss in [32u32, 0, 17, 31] {
            // Lane l stores 3l + 7 and 5l + 1 at 0x10000 + 8l, then reads the slot of lane
            // l ^ 5 (or 0x10100, past the 256 bytes mapped, in the lane `miss` of warp 3) into
            // R4 (and R5), and stores them at 0x10000 + 8l (+ 4).
            let text = format!(
                "S2R R0, SR_TID.X;\nLOP.AND R9, R0, 0x1f;\nSHL R6, R9, 0x3;\n\
                 XMAD R7, R9, 0x3, RZ;\nIADD32I R7, R7, 0x7;\nXMAD R8, R9, 0x5, RZ;\n\
                 IADD32I R8, R8, 0x1;\nSTG [R6+0x10000], R7;\nSTG [R6+0x10004], R8;\n\
                 LOP.XOR R1, R9, 0x5;\nSHL R1, R1, 0x3;\n\
                 ISETP.EQ.U32.AND P0, PT, R0, {:#x}, PT;\n@P0 MOV32I R1, 0x100;\n\
                 IADD32I R2, R1, 0x10000;\nMOV R3, RZ;\nMOV R5, RZ;\n{op} R4, [R2];\n\
                 STG [R6+0x10000], R4;\nSTG [R6+0x10004], R5;\nEXIT;\n",
                96 + miss
            );
            let prog = program(&text);
            let launch = Launch {
                block: [128, 1, 1],
                ..Launch::new(prog.clone(), warpjit_runtime::ConstBanks::new())
            };
            let interp = run_outcome(&crate::interp::Interpreter, &launch);
            for (tier, jit) in [
                ("tier 1", interpreter_and_jit(&launch).0),
                ("tier 2", run_outcome(&tier2_jit(&prog), &launch)),
            ] {
                assert_eq!(jit.0, interp.0, "{tier}, {op}, lane {miss} misses");
                assert_eq!(jit.1, interp.1, "{tier}, {op}, lane {miss} misses");
            }
            if miss < 32 {
                let fault = interp.0.expect_err("a lane misses");
                assert!(fault.contains(&format!("lane: {miss}")), "{fault}");
                assert!(fault.contains("warp: 3"), "{fault}");
                continue;
            }
            for l in 0..32 {
                let s = l ^ 5;
                let hi = if words == 2 { 5 * s + 1 } else { 0 };
                assert_eq!(word(&interp.1, l as usize), 3 * s + 7, "{op}, lane {l}");
                let at = 8 * l as usize + 4;
                let got = u32::from_le_bytes(interp.1[at..at + 4].try_into().unwrap());
                assert_eq!(got, hi, "{op}, lane {l}, second word");
            }
        }
    }
}

/// BPT.TRAP faults in the first lane whose guard holds, at its pc, under both engines (the JIT
/// delegates it to the interpreter); when no lane's guard holds it does nothing.
#[test]
fn a_trap_faults_in_the_first_lane_that_runs_it() {
    for (bound, want) in [(5, Some(5)), (0, Some(0)), (32, None)] {
        let text = format!(
            "S2R R0, SR_TID.X;\nISETP.GE.U32.AND P0, PT, R0, {bound:#x}, PT;\n\
             @P0 BPT.TRAP 0x7;\nSHL R1, R0, 0x3;\nSTG [R1+0x10000], R0;\nEXIT;\n"
        );
        let launch = Launch {
            block: [32, 1, 1],
            ..Launch::new(program(&text), warpjit_runtime::ConstBanks::new())
        };
        let (jit, interp) = interpreter_and_jit(&launch);
        assert_eq!(jit.0, interp.0, "bound {bound}");
        assert_eq!(jit.1, interp.1, "bound {bound}");
        match want {
            Some(lane) => {
                let f = interp.0.expect_err("a trap");
                assert!(f.contains("Trap { code: 7 }"), "{f}");
                assert!(f.contains(&format!("lane: {lane},")), "{f}");
                assert!(f.contains("pc: 24,"), "{f}");
            }
            None => assert_eq!(interp.0, Ok((1, 6, 192))),
        }
    }
}

/// Runs `launch` under `engine` on one host thread, on a machine with 1 KiB at 0x10000 holding
/// `data` at 0x10300; returns the outcome (as [`run_outcome`], over the first 256 bytes) and
/// what the launch's host calls printed, record by record: (warp, lane, stream, text).
fn run_with_host_calls(
    engine: &dyn Engine,
    launch: &Launch,
    data: &[u8],
) -> (
    Outcome,
    Vec<(u32, u32, crate::exec::hostcall::HostStream, String)>,
) {
    let opts = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    let mut machine = Machine::default();
    let init = warpjit_runtime::memory::Init::Zero;
    machine.global.map(0x10000, 0x400, init).expect("maps");
    machine.global.write_bytes(0x10300, data).expect("mapped");
    let r = engine.run(&machine, launch, &opts);
    let mem = machine.global.read_bytes(0x10000, 0x100).expect("mapped");
    let counts = match &r {
        Ok(s) => Ok((s.warps, s.warp_insts, s.lane_insts)),
        Err(f) => Err(format!("{f:?}")),
    };
    let (records, dropped) = machine.host_output.take();
    assert_eq!(dropped, 0);
    let records = records
        .into_iter()
        .map(|r| {
            let text = String::from_utf8(r.text).expect("ASCII");
            (r.warp, r.lane, r.stream, text)
        })
        .collect();
    ((counts, mem, RunCounters::default()), records)
}

/// Host calls (docs/semantics.md §22g) run for exactly the lanes that execute them, in lane
/// order, with the same text, results and faults under the interpreter, the JIT's tier 1 and
/// its tier 2: `vprintf` under a guard that holds for every fourth lane and in a branch taken
/// by the odd lanes (each lane's argument is its own, its return value the argument count), and
/// `__assertfail` in lanes 5 and 9, which prints each lane's message to stderr and then stops the
/// launch with a trap in lane 5.
#[test]
fn host_calls_run_for_the_lanes_that_execute_them() {
    use crate::exec::hostcall::{HostStream, ASSERTFAIL_CODE};
    // At 0x10300: the format, at 0x10320 a string; at 0x10340 the assertion's message, file and
    // function.
    let mut data = vec![0u8; 0x100];
    data[..20].copy_from_slice(b"lane %d arg %#x %s\n\0");
    data[0x20..0x24].copy_from_slice(b"odd\0");
    data[0x40..0x45].copy_from_slice(b"x==0\0");
    data[0x50..0x55].copy_from_slice(b"a.cu\0");
    data[0x60..0x67].copy_from_slice(b"void k\0");
    // Each lane's argument buffer at 0x10100 + 16 * lane: its lane number, lane + 0x100 (for
    // %#x), a pointer to "odd" (for %s, at the next multiple of 8). Results at 0x10000 + 8 * lane.
    const SETUP: &str = "S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nSHL R9, R0, 0x4;\n\
         STG [R9+0x10100], R0;\nIADD32I R2, R0, 0x100;\nSTG [R9+0x10104], R2;\n\
         MOV32I R2, 0x10320;\nSTG [R9+0x10108], R2;\nSTG [R9+0x1010c], RZ;\n\
         MOV32I R4, 0x10300;\nMOV R5, RZ;\nIADD32I R6, R9, 0x10100;\nMOV R7, RZ;\n";
    let printing = format!(
        "{SETUP}LOP32I.AND R3, R0, 0x3;\nISETP.EQ.U32.AND P0, PT, R3, RZ, PT;\n\
         @P0 BPT.TRAP 0xf0001;\nSTG [R1+0x10000], R4;\nMOV32I R4, 0x10300;\n\
         LOP32I.AND R3, R0, 0x1;\nISETP.EQ.U32.AND P1, PT, R3, RZ, PT;\n@P1 BRA SKIP;\n\
         BPT.TRAP 0xf0001;\nSTG [R1+0x10004], R4;\nSKIP:\nEXIT;\n"
    );
    let asserting = format!(
        "{SETUP}MOV32I R4, 0x10340;\nMOV32I R6, 0x10350;\nMOV32I R8, 0x2a;\n\
         MOV32I R10, 0x10360;\nMOV R11, RZ;\n\
         ISETP.EQ.U32.AND P0, PT, R0, 0x5, PT;\nISETP.EQ.U32.OR P0, PT, R0, 0x9, P0;\n\
         @P0 BPT.TRAP 0xf0002;\nSTG [R1+0x10000], RZ;\nEXIT;\n"
    );
    for (text, is_assert) in [(&printing, false), (&asserting, true)] {
        let prog = program(text);
        let launch = Launch {
            block: [32, 1, 1],
            ..Launch::new(prog.clone(), warpjit_runtime::ConstBanks::new())
        };
        let mut jit = Jit::new().expect("host supported");
        jit.threshold = 1;
        jit.hot_threshold = u32::MAX;
        let want = run_with_host_calls(&crate::interp::Interpreter, &launch, &data);
        for (tier, engine) in [("tier 1", jit), ("tier 2", tier2_jit(&prog))] {
            let got = run_with_host_calls(&engine, &launch, &data);
            assert_eq!(got.0 .0, want.0 .0, "{tier}:\n{text}");
            assert_eq!(got.0 .1, want.0 .1, "{tier}:\n{text}");
            assert_eq!(got.1, want.1, "{tier}:\n{text}");
        }
        let ((counts, mem, _), records) = want;
        if is_assert {
            let f = counts.expect_err("the assertion stops the launch");
            assert!(
                f.contains(&format!("Trap {{ code: {ASSERTFAIL_CODE} }}")),
                "{f}"
            );
            assert!(f.contains("lane: 5,"), "{f}");
            let want: Vec<_> = [5, 9]
                .map(|l| {
                    let m = format!(
                        "a.cu:42: void k: block: [0,0,0], thread: [{l},0,0] Assertion `x==0` \
                         failed.\n"
                    );
                    (0, l, HostStream::Stderr, m)
                })
                .into();
            assert_eq!(records, want);
            continue;
        }
        counts.expect("runs");
        let mut want = Vec::new();
        for l in (0..32).step_by(4) {
            let t = format!("lane {l} arg {:#x} odd\n", l + 0x100);
            want.push((0, l, HostStream::Stdout, t));
        }
        for l in (1..32).step_by(2) {
            let t = format!("lane {l} arg {:#x} odd\n", l + 0x100);
            want.push((0, l, HostStream::Stdout, t));
        }
        assert_eq!(records, want);
        for l in 0..32 {
            // vprintf returns the number of arguments (3) in R4; lanes that did not print keep
            // the format's address there.
            let first = if l % 4 == 0 { 3 } else { 0x10300 };
            assert_eq!(word(&mem, l), first, "lane {l}");
            let second = u32::from_le_bytes(mem[8 * l + 4..8 * l + 8].try_into().unwrap());
            let want = if l % 2 == 1 { 3 } else { 0 };
            assert_eq!(second, want, "lane {l}");
        }
    }
}

/// `Jit::compile_ahead` compiles the full-warp code of a program's loop first, then its other
/// pieces in order while their weight fits in `AHEAD_WEIGHT`, once: here block 0 is three
/// pieces of 128 IADD32I (weight 512 each), so after the loop's region and block 0's first
/// piece the next two no longer fit, while the small block after the loop does. A launch then
/// runs that code from its first warp, compiles nothing, interprets only what was left out,
/// and agrees with the interpreter; with `Jit::ahead` cleared, `prepare` compiles nothing.
#[test]
fn compiling_ahead_takes_loops_first_within_the_weight() {
    let text = format!(
        "{}LOOP:\nIADD32I R3, R3, 0x1;\nIADD R2, R2, R3;\n\
         ISETP.LT.U32.AND P0, PT, R3, 0x10, PT;\n@P0 BRA LOOP;\n\
         S2R R0, SR_TID.X;\nSHL R1, R0, 0x3;\nIADD R2, R2, R4;\nSTG [R1+0x10000], R2;\nEXIT;\n",
        "IADD32I R4, R4, 0x1;\n".repeat(384)
    );
    let prog = program(&text);
    let launch = Launch::new(prog.clone(), warpjit_runtime::ConstBanks::new());
    let mut lazy = Jit::new().expect("host supported");
    lazy.ahead = false;
    lazy.prepare(&launch, &RunOptions::default());
    assert_eq!(
        lazy.compile_stats().ahead_blocks,
        0,
        "not ahead when cleared"
    );

    let jit = Jit::new().expect("host supported");
    let code = jit.code_for(&prog);
    let blocks: Vec<_> = code.pieces.iter().map(|p| p.block).collect();
    assert_eq!(
        blocks,
        [0, 0, 0, 1, 2],
        "three pieces of block 0, the loop, the end"
    );
    assert_eq!(jit.compile_ahead(&prog), 3);
    let compiled =
        |piece: u32, full: bool| code.fns[cache::slot(piece, full)].load(Ordering::Relaxed);
    for (piece, want) in [(0, true), (1, false), (2, false), (3, true), (4, true)] {
        assert_eq!(compiled(piece, true) != 0, want, "piece {piece}");
        assert_eq!(
            compiled(piece, false),
            0,
            "piece {piece}: only full warps ahead"
        );
        let tier = code.tiers[cache::slot(piece, true)].load(Ordering::Relaxed);
        assert_eq!(tier, if want { 2 } else { 0 }, "piece {piece}");
    }
    assert_eq!(jit.compile_ahead(&prog), 0, "once per program");
    let c = jit.compile_stats();
    assert_eq!((c.ahead_blocks, c.blocks, c.tier2_blocks), (3, 0, 0));
    assert!(c.ahead_nanos > 0);

    let want = run_outcome(&crate::interp::Interpreter, &launch);
    let (counts, mem, counters) = jit_outcome(&jit, &launch);
    assert_eq!((counts, mem), (want.0, want.1));
    assert_eq!(counters.interp_blocks, 1, "block 0's last two pieces, once");
    assert!(counters.looped > 0, "the loop ran in its region's code");
    assert_eq!(
        jit.compile_stats().blocks,
        0,
        "nothing compiled during the launch"
    );
}

/// Segment hints are numbered per program: a loop's load (the first memory instruction of the
/// loop's function) and the store after the loop (the first of its own function) keep one hint
/// each, so only the first warp of the runner takes their slow paths (which set the hints),
/// and every later warp runs both from compiled code. When both used hint 0, each moved it to
/// its own segment and every warp took two slow paths.
#[test]
fn a_loop_load_and_a_later_store_keep_a_hint_each() {
    let text = "S2R R0, SR_TID.X;\nSHL R1, R0, 0x2;\nIADD32I R6, R1, 0x10000;\nMOV R2, RZ;\n\
                MOV R3, RZ;\nLOOP:\nLDG R4, [R6];\nIADD R2, R2, R4;\nIADD32I R3, R3, 0x1;\n\
                ISETP.LT.U32.AND P0, PT, R3, 0x4, PT;\n@P0 BRA LOOP;\n\
                IADD32I R7, R1, 0x20000;\nSTG [R7], R2;\nEXIT;\n";
    let launch = Launch {
        block: [256, 1, 1],
        ..Launch::new(program(text), warpjit_runtime::ConstBanks::new())
    };
    let jit = Jit::new().expect("host supported");
    assert_eq!(
        jit.compile_ahead(&launch.program),
        3,
        "every block of it, for full warps"
    );
    let mut machine = Machine::default();
    let input: Vec<u8> = (0..256u32)
        .flat_map(|i| (3 * i + 1).to_le_bytes())
        .collect();
    let init = warpjit_runtime::memory::Init::Bytes(&input);
    machine.global.map(0x10000, 0x400, init).expect("maps");
    let init = warpjit_runtime::memory::Init::Zero;
    machine.global.map(0x20000, 0x400, init).expect("maps");
    let opts = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    jit.take_counters();
    jit.run(&machine, &launch, &opts).expect("runs");
    let out = machine.global.read_bytes(0x20000, 0x400).expect("mapped");
    for i in 0..256u32 {
        let got = u32::from_le_bytes(out[4 * i as usize..][..4].try_into().unwrap());
        assert_eq!(got, 4 * (3 * i + 1), "thread {i}");
    }
    let c = jit.take_counters();
    assert_eq!((c.slow_paths, c.interp_blocks), (2, 0), "{c:?}");
}
