//! Smoke test: one kernel under both engines.
use std::sync::Arc;
use warpjit::exec::{Engine, Launch, Machine, RunOptions};
use warpjit::sass::{parse_program, AsmOptions};
use warpjit_runtime::memory::Init;
use warpjit_runtime::{BankMode, ConstBanks};

fn run(engine: &dyn Engine, text: &str) -> Vec<u8> {
    let prog = Arc::new(parse_program(text, &AsmOptions::default()).unwrap());
    let mut m = Machine::default();
    m.global.map(0x10000, 4096, Init::Zero).unwrap();
    let mut consts = ConstBanks::new();
    consts.write(0, 0x140, &0x10000u32.to_le_bytes()).unwrap();
    let launch = Launch {
        index: 0,
        program: prog,
        grid: [4, 1, 1],
        block: [64, 1, 1],
        mode: BankMode::Compute,
        shared_bytes: 0,
        consts: Arc::new(consts),
        budget: 1_000_000,
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
