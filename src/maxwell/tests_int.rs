//! Decoder tests of the integer, predicate and condition-code forms added for ptxas output
//! (ISET, PSET, CSETP, R2P, the CC tests of BRA): words ptxas 12.9 wrote for sm_50 (kernels of
//! tests/cubin and probes compiled at -O0 and -O3), read field by field with envytools' gm107
//! tables (no NVIDIA listing of them is at hand; the text is what the fields mean).

use super::tests::{text, text_at};

#[test]
fn iset_words_of_ptxas() {
    // set.lt.u32.s64 (a 64-bit comparison: the high words with .X after IADD RZ.CC on the low).
    assert_eq!(text(0x5b530b8001571304), "ISET.LT.X.AND R4, R19, R21, PT");
    assert_eq!(
        text(0x5b540b8001571311),
        "ISET.EQ.U32.X.AND R17, R19, R21, PT"
    );
    // set.lt.f32.s32: .BF gives 1.0f.
    assert_eq!(text(0x5b53138001670005), "ISET.BF.LT.AND R5, R0, R22, PT");
    // set.ne.and.u32.s32 with a predicate.
    assert_eq!(text(0x5b5b018001670006), "ISET.NE.AND R6, R0, R22, P3");
    // set.gt.or.f32.u32 with a negated predicate.
    assert_eq!(
        text(0x5b58350001670016),
        "ISET.BF.GT.U32.OR R22, R0, R22, !P2"
    );
    // The .CC bit (47) on the constant form.
    assert_eq!(
        text(0x4b53838005070004),
        "ISET.LT.AND R4.CC, R0, c[0x0][0x140], PT"
    );
}

#[test]
fn csetp_r2p_pset_words() {
    // The sign test ptxas writes after `I2I.S32.S32 RZ.CC, R19` (mul.hi.s64).
    assert_eq!(text(0x50a0038000071507), "CSETP.SFT.AND P0, PT, CC, PT");
    // -O0: CC saved by `P2R R12, CC, RZ, 0xf` and restored by `R2P CC, R12, 0xf`.
    assert_eq!(text(0x38e80100_00f7ff0c), "P2R R12, CC, RZ, 0xf");
    assert_eq!(text(0x38f00100_00f70c00), "R2P CC, R12, 0xf");
    // R2P PR, R0, 0x7f and its byte selectors (bits 41-42), a register mask.
    assert_eq!(text(0x38f0000007f70000), "R2P PR, R0, 0x7f");
    assert_eq!(text(0x38f0040007f70000), "R2P.B2 PR, R0, 0x7f");
    assert_eq!(text(0x5cf0060000170300), "R2P.B3 PR, R3, R1");
    // PSET.BF.AND.OR R3.CC, P0, !P1, PT: bop1 at 24, bop2 at 45, .BF 44, .CC 47, Pa 12 (15),
    // Pb 29 (32), Pc 39 (42); bop1 (24) and Pa (12) are 0: AND and P0.
    let w =
        0x5088u64 << 48 | 1 << 47 | 1 << 45 | 1 << 44 | 7 << 39 | 1 << 32 | 1 << 29 | 0x7 << 16 | 3;
    assert_eq!(text(w), "PSET.BF.AND.OR R3.CC, P0, !P1, PT");
    // CSETP with a test outside the represented set (RGT, 0x1f) is refused.
    assert!(text_at(0x50a0038000071f07, 8).is_err());
}

#[test]
fn imnmx_pairs_of_ptxas() {
    // min.s64 / max.u64 at -O3: the high words with .XHI.CC, then the low words with .XLO.
    assert_eq!(text(0x5c219b800157131f), "IMNMX.XHI R31.CC, R19, R21, PT");
    assert_eq!(text(0x5c200b800147121e), "IMNMX.U32.XLO R30, R18, R20, PT");
    assert_eq!(text(0x5c219f8001571319), "IMNMX.XHI R25.CC, R19, R21, !PT");
    assert_eq!(
        text(0x5c209b8001571307),
        "IMNMX.U32.XHI R7.CC, R19, R21, PT"
    );
    // XMED (mode 2) is refused.
    assert!(text_at(0x5c21138001571307, 8).is_err());
}

#[test]
fn prmt_modes_of_ptxas() {
    // prmt.b32.f4e ... .rc16 with a register selector (mode at bits 48-50).
    assert_eq!(text(0x5bc10b0000d70006), "PRMT.F4E R6, R0, R13, R22");
    assert_eq!(text(0x5bc20b0000d70007), "PRMT.B4E R7, R0, R13, R22");
    assert_eq!(text(0x5bc30b0000d7001c), "PRMT.RC8 R28, R0, R13, R22");
    assert_eq!(text(0x5bc40b0000d7001d), "PRMT.ECL R29, R0, R13, R22");
    assert_eq!(text(0x5bc50b0000d70006), "PRMT.ECR R6, R0, R13, R22");
    assert_eq!(text(0x5bc60b0000d70007), "PRMT.RC16 R7, R0, R13, R22");
    // Immediate selectors, and Rc from constant bank 2 (ptxas put the b operand there).
    assert_eq!(text(0x36c1088000170604), "PRMT.F4E R4, R6, 0x1, R17");
    assert_eq!(text(0x53c17f8800070600), "PRMT.F4E R0, R6, RZ, c[0x2][0x0]");
    // Mode 7 and bit 51 are refused.
    assert!(text_at(0x5bc70b0000d70007, 8).is_err());
    assert!(text_at(0x5bc80b0000d70007, 8).is_err());
}

#[test]
fn multiplies_of_ptxas_o0() {
    // mul.hi.s32 / mul.hi.u32 / mul.lo.u32 and the 64-bit products' halves at -O0.
    assert_eq!(text(0x5c3803800077060c), "IMUL.S32.S32.HI R12, R6, R7");
    assert_eq!(text(0x5c3800800077060c), "IMUL.U32.U32.HI R12, R6, R7");
    assert_eq!(text(0x5c3800000047020a), "IMUL.U32.U32 R10, R2, R4");
    assert_eq!(text(0x5c3803000077060a), "IMUL.S32.S32 R10, R6, R7");
    // mul.wide.u32 by a constant: IMUL32I and IMUL32I.HI.
    assert_eq!(text(0x1f0000000107000a), "IMUL32I.U32.U32 R10, R0, 0x10");
    assert_eq!(text(0x1f2000000107000b), "IMUL32I.U32.U32.HI R11, R0, 0x10");
    // mad.hi.u32 / mad.hi.s32.
    assert_eq!(text(0x5a4000000077060c), "IMAD.U32.U32.HI R12, R6, R7, R0");
    assert_eq!(text(0x5a6100000077060c), "IMAD.S32.S32.HI R12, R6, R7, R0");
    // .X (bit 49) adds CF; .SAT is refused.
    assert_eq!(
        text(0x5a4200000077060c),
        "IMAD.U32.U32.HI.X R12, R6, R7, R0"
    );
    assert!(text_at(0x5a4400000077060c, 8).is_err());
}

#[test]
fn every_cc_test_of_bra() {
    let names = [
        "F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU",
        "GEU", "", "OFF", "LO", "SFF", "LS", "HI", "SFT", "HS", "OFT",
    ];
    for (code, name) in names.iter().enumerate() {
        // `BRA` to itself at 0x30 with test `code`.
        let w = 0xe2400fffff870000 | code as u64;
        let want = if name.is_empty() {
            "BRA 0x30".to_string()
        } else {
            format!("BRA CC.{name}, 0x30")
        };
        assert_eq!(text_at(w, 0x30).unwrap(), want);
    }
    for code in 24..32u64 {
        let e = text_at(0xe2400fffff870000 | code, 0x30).unwrap_err();
        assert!(e.contains("condition-code test"), "{e}");
    }
}
