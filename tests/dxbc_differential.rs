//! Differential testing of the JIT against the reference interpreter on random valid DXBC
//! compute shaders (`warpjit::testgen::dxbc`, shared with the cargo-fuzz target
//! `dxbc_differential`): each case is a `cs_5_0` listing over structured, raw and texture
//! resources, typed UAVs in several formats, view atomics with colliding addresses, append and
//! consume counters, view queries, texture sampling (every dimension, samplers of every kind),
//! TGSM, constant buffers, the icb and indexable temps, with
//! divergent structured control flow, whose epilogue stores every thread's registers; the
//! interpreter runs it once and the JIT (every block compiled on its first run) twice, each on
//! fresh resources, and the statistics (or fault) and every UAV byte must be identical, with no
//! instruction delegated to the interpreter's code.
//!
//! A second property runs the generator's hostile mode (deep nests of loops, ifs and switches,
//! many cases: the shapes that made loading slow, small).
//!
//! Cases: 48 by default (24 hostile), `PROPTEST_CASES=N` to change.

use arbitrary::Unstructured;
use proptest::prelude::*;
use warpjit::testgen::dxbc::{check_dxbc, DxbcCase};

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48);
    ProptestConfig {
        cases,
        max_shrink_iters: 2048,
        ..ProptestConfig::default()
    }
}

fn case(hostile: bool) -> impl Strategy<Value = DxbcCase> {
    proptest::collection::vec(any::<u8>(), 0..3000).prop_map(move |bytes| {
        let u = &mut Unstructured::new(&bytes);
        if hostile {
            DxbcCase::generate_hostile(u)
        } else {
            DxbcCase::generate(u)
        }
        .expect("running out of bytes is fine")
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn dxbc_programs_agree(case in case(false)) {
        check_dxbc(&case).map_err(TestCaseError::fail)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: config().cases / 2, ..config() })]

    /// The shapes that made loading slow, small: nests of up to 24 loops, ifs or switches,
    /// switches of many cases, loops in a row, lane-varying `retc`s.
    #[test]
    fn hostile_dxbc_programs_agree(case in case(true)) {
        check_dxbc(&case).map_err(TestCaseError::fail)?;
    }
}

/// The hostile generator's listings lower, and reach its deep nests and many-case switches.
#[test]
fn hostile_listings_lower_and_nest_deep() {
    let (mut deepest, mut most_cases) = (0, 0);
    for seed in 0..200u32 {
        let bytes: Vec<u8> = (0..2000u32)
            .map(|i| {
                (i.wrapping_mul(2_654_435_761) ^ seed.wrapping_mul(0x7f4a_7c15))
                    .rotate_left(seed % 29) as u8
            })
            .collect();
        let case = DxbcCase::generate_hostile(&mut Unstructured::new(&bytes)).expect("generates");
        case.launch().unwrap_or_else(|e| panic!("{e}"));
        let mut depth = 0i32;
        for line in case.text.lines() {
            match line.split_whitespace().next() {
                Some("loop" | "if_nz" | "if_z" | "switch") => depth += 1,
                Some("endloop" | "endif" | "endswitch") => depth -= 1,
                _ => {}
            }
            deepest = deepest.max(depth);
        }
        most_cases = most_cases.max(case.text.matches("case l(").count());
    }
    assert!(deepest >= 16, "nests reach only {deepest} deep");
    assert!(most_cases >= 30, "switches reach only {most_cases} cases");
}

/// Every generated listing parses and lowers (the generator writes only valid programs), and
/// the generator reaches every kind of statement.
#[test]
fn generated_listings_lower_and_cover_the_statements() {
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..200u32 {
        let bytes: Vec<u8> = (0..2000u32)
            .map(|i| {
                (i.wrapping_mul(2_654_435_761) ^ seed.wrapping_mul(0x9e37_79b9))
                    .rotate_left(seed % 31) as u8
            })
            .collect();
        let case = DxbcCase::generate(&mut Unstructured::new(&bytes)).expect("generates");
        case.launch().unwrap_or_else(|e| panic!("{e}"));
        for word in case.text.split_whitespace() {
            let op = word.split('(').next().unwrap_or(word);
            seen.insert(op.to_string());
        }
    }
    for op in [
        "ld_structured_indexable",
        "ld_raw_indexable",
        "ld_indexable",
        "ldms_aoffimmi_indexable",
        "ldms_indexable",
        "store_raw",
        "imm_atomic_iadd",
        "sync_g_t",
        "loop",
        "breakc_nz",
        "switch",
        "if_nz",
        "else",
        "mad",
        "udiv",
        "sincos",
        "swapc",
        "dp4",
        "bfi",
        "store_uav_typed",
        "ld_uav_typed",
        "imm_atomic_cmp_exch",
        "atomic_cmp_store",
        "atomic_or",
        "imm_atomic_alloc",
        "imm_atomic_consume",
        "bufinfo",
        "resinfo_rcpFloat",
        "resinfo_uint",
        "sampleinfo",
        "sample_l_indexable",
        "sample_d_indexable",
        "sample_c_lz_indexable",
        "gather4_indexable",
        "gather4_c_indexable",
        "gather4_po_indexable",
    ] {
        assert!(seen.contains(op), "the generator never wrote `{op}`");
    }
}
