//! Smoke test: one kernel under both engines.
use std::sync::Arc;
use warpjit::exec::{Engine, Launch, Machine, RunOptions};
use warpjit::sass::{parse_program, AsmOptions};
use warpjit_runtime::memory::Init;
use warpjit_runtime::ConstBanks;

fn run(engine: &dyn Engine, text: &str) -> Vec<u8> {
    let prog = Arc::new(parse_program(text, &AsmOptions::default()).unwrap());
    let mut m = Machine::default();
    m.global.map(0x10000, 4096, Init::Zero).unwrap();
    let mut consts = ConstBanks::new();
    consts.write(0, 0x140, &0x10000u32.to_le_bytes()).unwrap();
    let launch = Launch {
        grid: [4, 1, 1],
        block: [64, 1, 1],
        budget: 1_000_000,
        ..Launch::new(prog, consts)
    };
    for _ in 0..3 {
        engine.run(&m, &launch, &RunOptions::default()).unwrap();
    }
    m.global.read_bytes(0x10000, 4096).unwrap()
}

#[test]
fn smoke() {
    let text = "
        S2R R0, SR_TID.X;
        S2R R1, SR_CTAID.X;
        ISCADD R0, R1, R0, 6;
        IADD R2.CC, R0, 0x7;
        ISETP.GE.AND P0, PT, R0, 0x80, PT;
        @P0 IADD R2, R2, 0x1000;
        XMAD R3, R0, R2, RZ;
        LOP3.LUT R3, R3, R2, R0, 0x96;
        LEA R4.CC, R0, c[0x0][0x140], 0x2;
        LEA.HI.X R5, R0, RZ, RZ, 0x2;
        STG.E [R4], R3;
        EXIT;
    ";
    let i = run(&warpjit::interp::Interpreter, text);
    let jit = warpjit::jit::Jit::new().unwrap();
    let j = run(&jit, text);
    assert_eq!(i, j);
    assert!(jit.compile_stats().blocks > 0);
}

/// Every register R0..R23 of every thread, after `body`, under one engine.
fn regs_after(engine: &dyn Engine, body: &str, shared: u32) -> Vec<u8> {
    let mut text = String::from(
        "S2R R0, SR_TID.X;\nS2R R1, SR_CTAID.X;\nISCADD R20, R1, R0, 0x6;\nIADD32I R2, R20, 0x1234567;\nXMAD R3, R2, 0x9e37, R0;\nLOP32I.XOR R4, R3, 0x5a5a5a5a;\n",
    );
    text.push_str(body);
    text.push_str("LEA R22.CC, R20, c[0x0][0x140], 0x7;\nLEA.HI.X R23, R20, RZ, RZ, 0x7;\n");
    for r in 0..20 {
        text.push_str(&format!("STG.E [R22+{:#x}], R{r};\n", 4 * r));
    }
    text.push_str("P2R R21, PR, RZ, 0x7f;\nSTG.E [R22+0x50], R21;\nP2R R21, CC, RZ, 0xf;\nSTG.E [R22+0x54], R21;\nEXIT;\n");
    let prog = Arc::new(parse_program(&text, &AsmOptions::default()).unwrap());
    let mut m = Machine::default();
    m.global.map(0x10000, 256 * 128, Init::Zero).unwrap();
    m.global
        .map(
            0x100000,
            0x1000,
            Init::Bytes(&(0..0x1000u32).map(|i| (i * 7) as u8).collect::<Vec<u8>>()),
        )
        .unwrap();
    let mut consts = ConstBanks::new();
    consts.write(0, 0x140, &0x10000u32.to_le_bytes()).unwrap();
    let launch = Launch {
        grid: [4, 1, 1],
        block: [50, 1, 1],
        shared_bytes: shared,
        budget: 1_000_000,
        ..Launch::new(prog, consts)
    };
    for _ in 0..2 {
        engine.run(&m, &launch, &RunOptions::default()).unwrap();
    }
    m.global.read_bytes(0x10000, 256 * 128).unwrap()
}

#[test]
fn per_lane_and_memory_lowerings_agree() {
    let bodies = [
        "SHL R5, R3, R0;\nSHR R6, R4, R0;\nSHR.U32 R7, R4, R2;\nSHR.BREV R8, R3, 0x3;\nSHL.W R9, R3, R2;\n",
        "BFE R5, R3, R2;\nBFE.S32 R6, R4, R3;\nBFE.BREV R7, R3, 0x808;\nBFI R8, R4, R3, R2;\nBFE.S32.BREV R9, R4, 0x1003;\n",
        "PRMT R5, R3, 0x8a51, R4;\nPRMT R6, R3, R2, R4;\nPRMT R7, R4, 0x3210, R3;\n",
        "ISETP.GT.AND P0, PT, R3, R4, PT;\nIADD RZ.CC, -R4, R3;\nISETP.LT.X.AND P1, P2, R2, R0, PT;\nISETP.GE.U32.X.OR P3, PT, R3, R2, P0;\nISETP.EQ.X.AND P4, P5, R0, R0, PT;\nSEL R5, R3, R4, P1;\nP2R R6, PR, R2, 0x3c;\nP2R.B2 R7, CC, R3, 0xff;\n",
        "LOP.AND R5, R20, 0xff;\nSHL R5, R5, 0x2;\nSTS [R5], R3;\nBAR.SYNC 0x0;\nLDS R6, [R5];\nLDS.U8 R7, [R5+0x1];\nLOP32I.OR R8, R5, 0x100000;\nLEA P0, R9, R8, RZ;\nLD R10, [R8], P0;\nLD.S16 R11, [R8+0x2];\nST [R8+0x100], R4;\nLD R12, [R8+0x100];\n",
    ];
    let jit = warpjit::jit::Jit::new().unwrap();
    for body in bodies {
        let i = regs_after(&warpjit::interp::Interpreter, body, 1024);
        let j = regs_after(&jit, body, 1024);
        for (k, (a, b)) in i.chunks(4).zip(j.chunks(4)).enumerate() {
            assert_eq!(
                a,
                b,
                "word {k} (thread {}, slot {}) differs for:\n{body}",
                k / 32,
                k % 32
            );
        }
    }
}

/// Coalesced whole-warp accesses: in range (vector path), crossing a segment's end (a fault with
/// the same lane and pc as the interpreter's), and 32-bit addresses.
#[test]
fn coalesced_accesses_agree_including_faults() {
    let run = |engine: &dyn Engine, text: &str| {
        let prog = Arc::new(parse_program(text, &AsmOptions::default()).unwrap());
        let mut m = Machine::default();
        m.global
            .map(
                0x10000,
                0x1000,
                Init::Bytes(&(0..0x1000u32).map(|i| (i * 13) as u8).collect::<Vec<u8>>()),
            )
            .unwrap();
        m.global.map(0x2_0000_0000, 0xf0, Init::Zero).unwrap();
        let launch = Launch {
            grid: [2, 1, 1],
            block: [64, 1, 1],
            budget: 1_000_000,
            ..Launch::new(prog, ConstBanks::new())
        };
        let mut last = None;
        for _ in 0..3 {
            last = Some(engine.run(
                &m,
                &launch,
                &RunOptions {
                    threads: 1,
                    ..RunOptions::default()
                },
            ));
        }
        (
            last.unwrap().map(|s| s.lane_insts),
            m.global.read_bytes(0x10000, 0x1000).unwrap(),
        )
    };
    let copy = "S2R R0, SR_TID.X;\nSHL R1, R0, 0x2;\nLDG R2, [R1+0x10000];\nIADD R2, R2, 0x5;\nSTG [R1+0x10800], R2;\nEXIT;\n";
    // 64-bit addresses: warp 1 of each CTA reads past the 0xf0-byte segment (lane 28 faults).
    let past = "S2R R0, SR_TID.X;\nSHL R2, R0, 0x2;\nMOV32I R3, 0x2;\nLDG.E R4, [R2];\nSTG.E [R2], R4;\nEXIT;\n";
    let jit = warpjit::jit::Jit::new().unwrap();
    for text in [copy, past] {
        let i = run(&warpjit::interp::Interpreter, text);
        let j = run(&jit, text);
        assert_eq!(i, j, "{text}");
    }
    let (r, _) = run(&jit, past);
    let f = r.unwrap_err();
    assert_eq!((f.warp, f.lane), (1, 28), "{f}");
}

/// Plg of LEA.LO and LEA.HI for addresses stepping across the shared window, with the window
/// anywhere in the 64-bit space (a library may place it above 4 GiB; only traces must keep it
/// low): both engines against `EA - window < 16 MiB` computed here in 64 bits.
#[test]
fn lea_window_predicate_with_the_window_anywhere() {
    let text = "
        S2R R0, SR_TID.X;
        LEA R2.CC, R0, c[0x0][0x148], 0x17;
        LEA.HI.X P0, R3, R0, c[0x0][0x14c], RZ, 0x17;
        LEA P1, R6, R0, c[0x0][0x148], 0x17;
        P2R R4, PR, RZ, 0x3;
        SHL R5, R0, 0x2;
        STG [R5+0x10000], R4;
        EXIT;
    ";
    let prog = Arc::new(parse_program(text, &AsmOptions::default()).unwrap());
    let jit = warpjit::jit::Jit::new().unwrap();
    for window in [
        0x0100_0000u64,
        0x1_0000_0000,
        0xffff_ffff_ff00_0000,
        0x7fff_ff00_0080_0000,
    ] {
        // Lane t addresses window - 8 MiB * 4 + t * 8 MiB: lanes 4 and 5 are inside.
        let base = window.wrapping_sub(4 << 23);
        let want: Vec<u8> = (0..32u64)
            .flat_map(|t| {
                let hi = base.wrapping_add(t << 23);
                let lo32 = (base as u32).wrapping_add((t << 23) as u32) as u64;
                let outside = |ea: u64| (ea.wrapping_sub(window) >= 0x100_0000) as u32;
                (outside(hi) | outside(lo32) << 1).to_le_bytes()
            })
            .collect();
        for engine in [&warpjit::interp::Interpreter as &dyn Engine, &jit] {
            let mut m = Machine {
                shared_window: window,
                ..Machine::default()
            };
            m.global.map(0x10000, 128, Init::Zero).unwrap();
            let mut consts = ConstBanks::new();
            consts.write(0, 0x148, &base.to_le_bytes()).unwrap();
            let launch = Launch {
                budget: 1_000,
                ..Launch::new(prog.clone(), consts)
            };
            for _ in 0..3 {
                engine.run(&m, &launch, &RunOptions::default()).unwrap();
            }
            let got = m.global.read_bytes(0x10000, 128).unwrap();
            assert_eq!(
                got,
                want,
                "{} with the window at {window:#x}",
                engine.name()
            );
        }
    }
}
