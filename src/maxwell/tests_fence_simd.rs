//! Decoder tests of the memory fences and of what ptxas writes for CUDA's SIMD intrinsics:
//! MEMBAR in every scope and invalidation, IADD.SAT, VABSDIFF4. The words are what ptxas 12.9
//! wrote for sm_50 (tests/cubin/fences.cubin, simd.cubin); the text is what nvdisasm prints
//! for them where a listing of NVIDIA's tools is at hand (CuAssembler's sm_61 instruction
//! records, the same encodings: `MEMBAR.CTA`, `MEMBAR.GL.IVALLD`, `MEMBAR.SYS.IVALLD`,
//! `VABSDIFF4.U8.U8`, `VABSDIFF4.U8.U8.ACC`), else what the fields mean by envytools' gm107
//! tables.

use super::tests::{text, text_at};

#[test]
fn membar_words_of_ptxas() {
    // __threadfence_block(), __threadfence(), __threadfence_system() (membar.cta, .gl, .sys).
    assert_eq!(text(0xef98000000070000), "MEMBAR.CTA");
    assert_eq!(text(0xef98000000070101), "MEMBAR.GL.IVALLD");
    assert_eq!(text(0xef98000000070201), "MEMBAR.SYS.IVALLD");
    // An older ptxas's guarded `MEMBAR.GL` without the invalidation (nvdisasm: `@P5 MEMBAR.GL`).
    assert_eq!(text(0xef98000000050100), "@P5 MEMBAR.GL");
    // Every scope and invalidation decodes (envytools' names for those nvdisasm was not seen
    // printing).
    assert_eq!(text(0xef98000000070302), "MEMBAR.VC.IVALLT");
    assert_eq!(text(0xef98000000070003), "MEMBAR.CTA.IVALLTD");
    for w in 0..16u64 {
        let word = 0xef98000000070000 | (w >> 2) << 8 | (w & 3);
        assert!(text_at(word, 8).is_ok(), "{word:#x}");
    }
}

#[test]
fn iadd_sat_words_of_ptxas() {
    // add.sat.s32 and sub.sat.s32 of __vaddss2/__vsubss2 (simd.cubin, kernel simd2).
    assert_eq!(text(0x5c1400000037160a), "IADD.SAT R10, R22, R3");
    assert_eq!(text(0x5c15000000070200), "IADD.SAT R0, R2, -R0");
    // The constant and immediate forms carry the bit at the same place.
    assert_eq!(text(0x4c14000005070200), "IADD.SAT R0, R2, c[0x0][0x140]");
    assert_eq!(text(0x3814000000170200), "IADD.SAT R0, R2, 0x1");
    // IADD32I.SAT (bit 54): add.sat.s32 and sub.sat.s32 with an immediate, as NVVM folds a
    // constant operand of __vaddss2 and __vsubss2 (simd.cubin, kernel simdk).
    assert_eq!(text(0x1c47fff00007000c), "IADD32I.SAT R12, R0, 0x7fff0000");
    assert_eq!(text(0x1c48001000070213), "IADD32I.SAT R19, R2, -0x7fff0000");
    assert_eq!(text(0x1d47ffb000070212), "IADD32I.SAT R18, -R2, 0x7ffb0000");
    assert_eq!(text(0x1d40005000070000), "IADD32I.SAT R0, -R0, 0x50000");
    let e = text_at(0x1dc0000000770000, 8).unwrap_err();
    assert!(e.contains("IADD32I.SAT.PO"), "{e}");
    // With .CC, .X or .PO (both negations) it is refused: their flags are not modelled.
    for bits in [1u64 << 47, 1 << 43, 3 << 48] {
        let e = text_at(0x5c1400000007020b | bits, 8).unwrap_err();
        assert!(e.contains("IADD.SAT with .CC, .X or .PO"), "{e}");
    }
}

#[test]
fn vabsdiff4_words() {
    // nvdisasm's text of two words (CuAssembler's sm_61 records).
    assert_eq!(text(0x50187fb440270000), "VABSDIFF4.U8.U8 R0, R0, R2, RZ");
    assert_eq!(
        text(0x50387fb441270812),
        "VABSDIFF4.U8.U8.ACC R18, R8, R18, RZ"
    );
    // ptxas 12.9's for __vabsdiffu4 and __vsadu4 (simd.cubin, kernel simd4).
    assert_eq!(text(0x50187fb440e70515), "VABSDIFF4.U8.U8 R21, R5, R14, RZ");
    assert_eq!(
        text(0x50387fb440e7051e),
        "VABSDIFF4.U8.U8.ACC R30, R5, R14, RZ"
    );
    // Signs (48, 49), .SD (38) and .SAT (50), by envytools' fields.
    assert_eq!(
        text(0x50187fb440270000 | 3 << 48 | 1 << 38 | 1 << 50),
        "VABSDIFF4.SD.S8.S8.SAT R0, R0, R2, RZ"
    );
    // What ptxas never writes is refused by name: a partial byte mask, other byte selects,
    // .SAT with .ACC, and the unknown bits 47 and 54.
    let w = 0x50187fb440270000u64;
    for (bits, what) in [
        (1u64 << 51, "partial destination byte mask"),
        (1 << 37, "partial destination byte mask"),
        (1 << 32, "byte select of Ra"),
        (1 << 28, "byte select of Rb"),
        (1 << 50 | 1 << 53, "VABSDIFF4.SAT.ACC"),
        (1 << 47, "VABSDIFF4.CC"),
        (1 << 54, "VABSDIFF4 secondary operation"),
    ] {
        let e = text_at(w ^ bits, 8).unwrap_err();
        assert!(e.contains(what), "{bits:#x}: {e}");
    }
}

/// nvdisasm's text of VMNMX words (CuAssembler's sm_61 records) reads back as the op the word
/// decodes to: nvdisasm leaves out `.SD`, `.S32.S32` and `.MN`.
#[test]
fn vmnmx_text_of_nvdisasm_reads_as_its_word() {
    use crate::sass::{parse_inst, AsmOptions, ParsedInst};
    for (word, nvdisasm) in [
        (0x3a6f05e060980404u64, "@!P0 VMNMX.MIN R4, R4, R9, R11"),
        (0x3b7706e061c7131c, "VMNMX.MX.MAX R28, R19, R28, R13"),
        (
            0x3a280e6ffff70d1c,
            "VMNMX.UD.U32.U16.MIN R28, R13, 0xffff, R28",
        ),
        (
            0x3b3403e062472627,
            "VMNMX.UD.U32.U32.MX.MAX R39, R38, R36, R7",
        ),
        (0x3b6b0f600017091e, "VMNMX.MX.MIN R30, R9, 0x1, R30"),
    ] {
        let decoded = text(word);
        let parse = |t: &str| match parse_inst(t, &AsmOptions::default()) {
            Ok(ParsedInst::Op(i)) => (i.guard, i.op),
            r => panic!("{t}: {r:?}"),
        };
        assert_eq!(parse(nvdisasm), parse(&decoded), "{word:#x}: {decoded}");
    }
}
