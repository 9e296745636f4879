//! Steps one warp through a 64-bit address example (the first of NVIDIA's LEA reference page,
//! docs/semantics.md §19) and prints its registers after each instruction:
//!
//! ```text
//! LEA.LO        R0.CC, R2, R4, 3   // R0 = (R2 << 3) + R4
//! LEA.HI.X  P0, R1, R2, R5, R3, 3  // R1 = ({R3,R2} >> 29) + R5 + CC.CF
//! LD.64         Rd, [R0 + 80], P0  // A[i + 10]
//! ```
//!
//! with `<R5,R4>` = &A[0] = 0x1_ffff_ffc0 (so that the low word carries into R1 for the later
//! lanes) and `<R3,R2>` = i = the lane number, set through the stepper before the first step.
//! A holds the doubles 0.0, 1.0, 2.0, ...: lane i loads A[i + 10] = i + 10.
//!
//! Run it: `cargo run --release --example step_lea`

use std::sync::Arc;
use warpjit::exec::step::{Step, WarpStepper};
use warpjit::exec::{Launch, Machine};
use warpjit::interp::Interpreter;
use warpjit::runtime::memory::Init;
use warpjit::sass::{parse_program, AsmOptions};
use warpjit::ConstBanks;

const A: u64 = 0x1_ffff_ffc0;

fn main() {
    let program = "
        LEA R0.CC, R2, R4, 0x3;
        LEA.HI.X P0, R1, R2, R5, R3, 0x3;
        LD.E.64 R6, [R0+0x50], P0;
        EXIT;
    ";
    let prog = parse_program(program, &AsmOptions::default()).expect("the example assembles");

    // A[k] = k as a double, for the 42 elements the lanes read.
    let a: Vec<u8> = (0..42u64)
        .flat_map(|k| (k as f64).to_bits().to_le_bytes())
        .collect();
    let mut machine = Machine::default();
    machine
        .global
        .map(A, a.len() as u64, Init::Bytes(&a))
        .expect("A maps");
    let launch = Launch::new(Arc::new(prog), ConstBanks::new());

    let mut warp =
        WarpStepper::new(&machine, &launch, [0, 0, 0], 0, &Interpreter).expect("warp 0 of CTA 0");
    for lane in 0..32 {
        warp.set_reg(lane, 4, A as u32); // R4: &A[0], low word
        warp.set_reg(lane, 5, (A >> 32) as u32); // R5: high word
        warp.set_reg(lane, 2, lane as u32); // R2: i
        warp.set_reg(lane, 3, 0); // R3: i's high word
    }
    let show = |w: &WarpStepper<'_>, lanes: &[usize]| {
        for &l in lanes {
            let r = |n| w.reg(l, n);
            let d = f64::from_bits(((r(7) as u64) << 32) | r(6) as u64);
            println!(
                "  lane {l:2}: R0 = {:#010x}  R1 = {:#010x}  CC.CF = {}  P0 = {}  R7:R6 = {d}",
                r(0),
                r(1),
                w.cc(l).cf as u8,
                w.pred(l, 0) as u8
            );
        }
    };
    let lanes = [0, 7, 8, 31];
    println!("before the first step:");
    show(&warp, &lanes);
    loop {
        let pc = warp.next_pc();
        match warp.step().expect("no fault") {
            Step::Exited => break,
            _ => {
                println!("after the instruction at {:#06x}:", pc.unwrap_or(0));
                show(&warp, &lanes);
            }
        }
    }
    // Lane i's address is A + 8 i + 80: lanes 8 and up carry out of the low word.
    for l in 0..32 {
        let want = (l as f64 + 10.0).to_bits();
        let got = ((warp.reg(l, 7) as u64) << 32) | warp.reg(l, 6) as u64;
        assert_eq!(got, want, "lane {l}");
    }
    println!("every lane loaded A[i + 10] = i + 10");
}
