//! Decoder tests of the condition-code forms of the logic, shift, I2I and IMAD ops (`.CC`, `.X`):
//! words ptxas 12.9 wrote for sm_50 (tests/cubin/int64.ptx at -O3 and int64_O0.ptx at -O0), and
//! words with envytools' gm107 `.CC`/`.X` bits set on ptxas words where ptxas did not write
//! them (SHL, SHR, LOP3, LOP32I `.X`).

use super::tests::text;

#[test]
fn sign_and_zero_tests_of_ptxas() {
    // mul.hi.s64: the factors' signs and the product's sign, read by CSETP.
    assert_eq!(text(0x5ce0800000b73aff), "I2I.S32.S32 RZ.CC, R11");
    assert_eq!(text(0x5c478400019707ff), "LOP.XOR RZ.CC, R7, R25");
    // (a & b) != 0 on 64 bits: the low words set ZF, the high words test with .X.
    assert_eq!(text(0x5c47800001c70aff), "LOP.AND RZ.CC, R10, R28");
    assert_eq!(text(0x5c41380001d70bff), "LOP.AND.X.NZ P1, RZ, R11, R29");
    // (a & 0xff00ff00ff00) == 0: LOP32I.CC, then the immediate form of LOP with .X.
    assert_eq!(
        text(0x041ff00ff0070aff),
        "LOP32I.AND RZ.CC, R10, 0xff00ff00"
    );
    assert_eq!(text(0x3844380ff0070bff), "LOP.AND.X.NZ P4, RZ, R11, 0xff00");
    // a == b on 64 bits.
    assert_eq!(text(0x5c453c0001d70bff), "LOP.XOR.X.NZ P5, RZ, R11, R29");
}

#[test]
fn imad_carry_chain_of_ptxas_o0() {
    // The 128-bit product of mul.hi.u64 at -O0: IMAD RZ.CC gives the carry, IMAD.HI.X takes it.
    assert_eq!(
        text(0x5a008a00013711ff),
        "IMAD.U32.U32 RZ.CC, R17, R19, R20"
    );
    assert_eq!(
        text(0x5a42078001371114),
        "IMAD.U32.U32.HI.X R20, R17, R19, R15"
    );
    assert_eq!(
        text(0x5a428780013711ff),
        "IMAD.U32.U32.HI.X RZ.CC, R17, R19, R15"
    );
}

#[test]
fn cc_and_x_bits_of_the_other_forms() {
    // SHL: .X at 43, .CC at 47 (on `SHL R30, R10, 0x1f`).
    assert_eq!(text(0x3848000001f70a1e), "SHL R30, R10, 0x1f");
    assert_eq!(text(0x3848800001f70a1e), "SHL R30.CC, R10, 0x1f");
    assert_eq!(text(0x3848080001f70a1e), "SHL.X R30, R10, 0x1f");
    // SHR: .X at 44 (on `SHR R15, R11, 0x1f`).
    assert_eq!(text(0x3829900001f70b0f), "SHR.X R15.CC, R11, 0x1f");
    // LOP3 register form: .X at 38 (on `LOP3.LUT R3, R30, R29, R3, 0xf4`).
    assert_eq!(
        text(0x5be781cf41d71e03),
        "LOP3.LUT.X R3.CC, R30, R29, R3, 0xf4"
    );
    // LOP32I: .X at 57.
    assert_eq!(
        text(0x061ff00ff0070aff),
        "LOP32I.AND.X RZ.CC, R10, 0xff00ff00"
    );
}

#[test]
fn imadsp_fields() {
    // No ptxas word: envytools' fields on IMAD's register layout. Ra's part at 48 (3 bits),
    // Sb's at 53 (2 bits), Rc's at 51 (2 bits) with Ra's sign, .CC at 47.
    let base = 0x5a80u64 << 48 | 4 << 39 | 3 << 20 | 7 << 16 | 2 << 8 | 1;
    assert_eq!(text(base), "IMADSP.U32.U24.U32 R1, R2, R3, R4");
    assert_eq!(
        text(base | 3 << 48 | 1 << 53 | 1 << 51 | 1 << 47),
        "IMADSP.S24.S24.S24 R1.CC, R2, R3, R4"
    );
    assert_eq!(
        text(base | 6 << 48 | 2 << 53 | 2 << 51),
        "IMADSP.U16H1.U16H0.U16H0 R1, R2, R3, R4"
    );
    // The immediate and constant forms.
    assert_eq!(
        text(0x3480u64 << 48 | 1 << 48 | 3 << 53 | 4 << 39 | 0x10 << 20 | 7 << 16 | 2 << 8 | 1),
        "IMADSP.S32.S16H0.S32 R1, R2, 0x10, R4"
    );
    assert_eq!(
        text(0x5280u64 << 48 | 3 << 39 | 4 << 20 | 7 << 16 | 2 << 8 | 1),
        "IMADSP.U32.U24.U32 R1, R2, R3, c[0x0][0x10]"
    );
    // Rc's part 3 does not exist.
    assert!(super::tests::text_at(base | 3 << 51, 8).is_err());
}
