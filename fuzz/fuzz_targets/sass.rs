//! The SASS assembler from arbitrary text: `warpjit::sass::parse_program` and `parse_inst` must
//! return an `AsmError` for bad input, never panic, and an error must point inside the text.
//! For text that assembles, printing it and assembling again must give the same program
//! (source locations aside) and printing must be a fixpoint — the round trip that
//! tests/sass_syntax.rs checks on generated listings, here on whatever the fuzzer finds.
//!
//! Run (nightly): `cargo +nightly fuzz run sass fuzz/corpus/sass fuzz/seeds/sass -- -dict=fuzz/dicts/sass.dict`
//! (see fuzz/README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpjit::ir::{Program, SrcLoc};
use warpjit::sass::{parse_inst, parse_program, print_program, AsmError, AsmOptions, ParsedInst};

/// A program without its source locations (printing moves every instruction).
fn strip_program(mut p: Program) -> Program {
    for b in &mut p.blocks {
        for i in &mut b.insts {
            i.loc = SrcLoc::default();
        }
    }
    p.lines.clear();
    p
}

/// One instruction without its location and pc (`Display` prints neither).
fn strip_inst(p: ParsedInst) -> ParsedInst {
    match p {
        ParsedInst::Op(mut i) => {
            i.loc = SrcLoc::default();
            i.pc = 0;
            ParsedInst::Op(i)
        }
        ParsedInst::Control(mut c) => {
            c.loc = SrcLoc::default();
            c.pc = 0;
            ParsedInst::Control(c)
        }
    }
}

/// An error must name a line of the text and render without panicking.
fn check_error(text: &str, e: &AsmError) {
    let lines = text.split('\n').count() as u32;
    assert!(
        e.line >= 1 && e.line <= lines,
        "error line {} outside the text ({lines} lines): {e}",
        e.line
    );
    assert!(e.col >= 1, "error column 0: {e}");
    let _ = e.render("fuzz.sass", 7);
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let opts = AsmOptions::default();

    match parse_program(text, &opts) {
        Err(e) => check_error(text, &e),
        Ok(p1) => {
            // Every op the SASS parser produces has a SASS spelling.
            let t2 = print_program(&p1).expect("a parsed program prints");
            let p2 = match parse_program(&t2, &opts) {
                Ok(p) => p,
                Err(e) => panic!(
                    "the printed program does not assemble:\n{}\n--- input\n{text}\n--- printed\n{t2}",
                    e.render("printed", 0)
                ),
            };
            assert_eq!(
                strip_program(p1.clone()),
                strip_program(p2.clone()),
                "print/parse changed the program\n--- input\n{text}\n--- printed\n{t2}"
            );
            assert_eq!(
                print_program(&p2).expect("a parsed program prints"),
                t2,
                "printing is not a fixpoint\n--- input\n{text}"
            );
            // Fewer registers: an error, or a program of the same shape (not always the same
            // program: an LDG/LD base register past the count reads as zero, an absolute
            // address, as `ldg_sparse_predicate_and_absolute_register` in tests/sass_syntax.rs
            // specifies).
            let few = AsmOptions { registers: 16 };
            match parse_program(text, &few) {
                Ok(p3) => {
                    let shape = |p: &Program| {
                        p.blocks
                            .iter()
                            .map(|b| (b.insts.len(), b.term))
                            .collect::<Vec<_>>()
                    };
                    assert_eq!(
                        shape(&p3),
                        shape(&p1),
                        "16 registers changed the blocks\n--- input\n{text}"
                    );
                }
                Err(e) => check_error(text, &e),
            }
        }
    }

    // One instruction: the same contract, through `Display`.
    match parse_inst(text, &opts) {
        Err(e) => check_error(text, &e),
        Ok(i1) => {
            let s1 = i1.to_string();
            let i2 = match parse_inst(&s1, &opts) {
                Ok(i) => i,
                Err(e) => panic!("`{s1}` (printed from `{text}`) does not assemble: {e}"),
            };
            assert_eq!(
                strip_inst(i1),
                strip_inst(i2.clone()),
                "`{text}` -> `{s1}` changed the instruction"
            );
            assert_eq!(i2.to_string(), s1, "printing `{text}` is not a fixpoint");
        }
    }
});
