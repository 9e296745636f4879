//! Differential fuzzing: the fuzzer's bytes become a valid SASS program and launch
//! (`warpjit::testgen`, the generator behind tests/differential.rs), run under the interpreter
//! once and the JIT twice; any difference in results, faults or global memory, or a block the
//! JIT cannot compile, panics with the case as a reproducer.
//!
//! Run (nightly): `cargo +nightly fuzz run differential` from the repository root.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use warpjit::testgen::{check, Case, Profile};

/// Which generator profile an input uses (its first byte), then the generator's bytes.
#[derive(Arbitrary, Debug)]
enum Pick {
    Alu,
    Control,
    Memory,
    Mixed,
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let profile = match Pick::arbitrary(&mut u).unwrap_or(Pick::Mixed) {
        Pick::Alu => Profile::Alu,
        Pick::Control => Profile::Control,
        Pick::Memory => Profile::Memory,
        Pick::Mixed => Profile::Mixed,
    };
    let case = Case::generate(&mut u, profile);
    if let Err(report) = check(&case) {
        panic!("{report}");
    }
});
