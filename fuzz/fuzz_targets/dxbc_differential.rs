//! Differential fuzzing of DXBC: the fuzzer's bytes become a valid `cs_5_0` compute shader and
//! its resources (`warpjit::testgen::dxbc`, the generator behind tests/dxbc_differential.rs),
//! run under the interpreter and under the JIT (every block compiled on its first run, twice);
//! any difference in statistics, fault or UAV bytes panics with the listing as the reproducer.
//! An input whose first byte is a multiple of 4 uses the generator's hostile mode.
//!
//! Run (nightly): `cargo +nightly fuzz run dxbc_differential fuzz/corpus/dxbc_differential`
//! (see fuzz/README.md).
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use warpjit::testgen::dxbc::{check_dxbc, DxbcCase};

fuzz_target!(|data: &[u8]| {
    // One input in four also draws the shapes that made loading slow (deep nests, many cases).
    let u = &mut Unstructured::new(data);
    let case = if data.first().is_some_and(|b| b % 4 == 0) {
        DxbcCase::generate_hostile(u)
    } else {
        DxbcCase::generate(u)
    };
    let Ok(case) = case else {
        return;
    };
    if let Err(e) = check_dxbc(&case) {
        panic!("{e}");
    }
});
