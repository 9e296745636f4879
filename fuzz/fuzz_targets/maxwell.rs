//! The Maxwell decoder from arbitrary code: byte 0 picks the register count, the rest is a
//! kernel's code (scheduling words and instruction words). `warpjit::maxwell::decode` returns a
//! program or a `DecodeError` naming a word of the code, never panics; for code that decodes,
//! the disassembly parses (SASS front-end) back to the same program: decode → print → parse is
//! the identity.
//!
//! Run (nightly): `cargo +nightly fuzz run maxwell fuzz/corpus/maxwell fuzz/seeds/maxwell` (see
//! fuzz/README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpjit::maxwell::{decode, disassemble, DecodeOptions};
use warpjit::sass::{parse_program, AsmOptions};

fn strip(mut p: warpjit::ir::Program) -> warpjit::ir::Program {
    p.lines.clear();
    for b in &mut p.blocks {
        for i in &mut b.insts {
            i.loc = Default::default();
        }
    }
    p
}

fuzz_target!(|data: &[u8]| {
    let Some((&regs, code)) = data.split_first() else {
        return;
    };
    let registers = u32::from(regs).max(1);
    let opts = DecodeOptions { registers };
    match decode(code, &opts) {
        Ok(p) => {
            assert!(code.len() % 8 == 0);
            let text = disassemble(code, &opts).expect("decoded code disassembles");
            let back = parse_program(&text, &AsmOptions { registers })
                .unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(strip(p), strip(back), "{text}");
        }
        Err(e) => {
            assert!((e.offset as usize) <= code.len(), "{e}");
            let _ = e.to_string();
        }
    }
});
