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
