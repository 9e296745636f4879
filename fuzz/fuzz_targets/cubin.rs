//! The cubin loader from arbitrary bytes: `warpjit::cubin::Cubin::parse` returns a cubin or a
//! `CubinError` (which renders), never panics; for a cubin that reads, `kernel(None)` returns the
//! only kernel or an error listing the kernels, and every kernel's code is whole 8-byte words and
//! decodes (with the BRX targets the cubin lists) or names a word inside it.
//!
//! Run (nightly): `cargo +nightly fuzz run cubin fuzz/corpus/cubin fuzz/seeds/cubin` (see
//! fuzz/README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpjit::cubin::Cubin;

fuzz_target!(|data: &[u8]| {
    match Cubin::parse(data) {
        Ok(cubin) => {
            match cubin.kernel(None) {
                Ok(kernel) => assert_eq!(cubin.kernels[0].name, kernel.name),
                Err(message) => assert!(cubin.kernels.len() != 1, "{message}"),
            }
            for kernel in &cubin.kernels {
                assert_eq!(kernel.code.len() % 8, 0, "{}", kernel.name);
                assert!(cubin.kernel(Some(kernel.name.as_str())).is_ok());
                // Its code decodes, or the error names a word inside it.
                let opts = warpjit::maxwell::DecodeOptions {
                    registers: kernel.registers.clamp(1, 255),
                };
                let branches = &kernel.indirect_branches;
                if let Err(e) = warpjit::maxwell::decode_with(&kernel.code, &opts, branches) {
                    assert!((e.offset as usize) <= kernel.code.len(), "{e}");
                }
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
