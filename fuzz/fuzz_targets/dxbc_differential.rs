//! Differential fuzzing of DXBC: the fuzzer's bytes become a valid `cs_5_0` compute shader and
//! its resources (`warpjit::testgen::dxbc`, the generator behind tests/dxbc_differential.rs),
//! run under the interpreter and under the JIT (every block compiled on its first run, twice);
//! any difference in statistics, fault or UAV bytes panics with the listing as the reproducer.
//!
//! Run (nightly): `cargo +nightly fuzz run dxbc_differential fuzz/corpus/dxbc_differential`
//! (see fuzz/README.md).
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use warpjit::testgen::dxbc::{check_dxbc, DxbcCase};

fuzz_target!(|data: &[u8]| {
    let Ok(case) = DxbcCase::generate(&mut Unstructured::new(data)) else {
        return;
    };
    if let Err(e) = check_dxbc(&case) {
        panic!("{e}");
    }
});
