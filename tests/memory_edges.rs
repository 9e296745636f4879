//! Global accesses of every size at and around both ends of segments, at address 0 and at the top
//! of the 64-bit space, under both engines, against a model that computes in 128 bits.
//!
//! Each run is one warp whose 32 lanes access 32 probe addresses near one segment edge. A first
//! block loads a byte from the base of the segment the probes are near, as its first global
//! access: the JIT's hint slot that the probe access (the first global access of the next block)
//! uses then holds that segment, filled by an access of another size; and the interpreter's
//! segment hint points there too. The model says, per lane, whether the (aligned-down) access
//! lies inside one segment; the engines must fault exactly when a lane does not, reporting the
//! lowest such lane and its aligned address, and otherwise load the bytes the model loads or
//! leave memory as the model's stores, in lane order, leave it.

use std::sync::Arc;
use warpjit::exec::{Engine, Launch, Machine, RunOptions};
use warpjit::ir::Program;
use warpjit::sass::{parse_program, AsmOptions};
use warpjit_runtime::memory::Init;
use warpjit_runtime::{ConstBanks, FaultKind};

/// Segment layouts, (base, size) each: odd sizes leave short tails; in the first, one segment
/// ends exactly at 2^64; in the second, nothing is mapped near the top, so an access there must
/// not be taken for one in the segment at 0.
const LAYOUTS: [&[(u64, u64)]; 2] = [
    &[
        (0, 0x1009),
        (0x2_0000, 0x1008),
        (0x3_0000, 0x3),
        (0xffff_ffff_ffff_e000, 0xff1),
        (0xffff_ffff_ffff_f000, 0x1000),
    ],
    &[(0, 0x1000), (0x10_0000, 0x10)],
];
/// Where each lane writes what it loaded (16 bytes a lane).
const OUT: u64 = 0x7000_0000;

/// The initial byte at `a`.
fn pattern(a: u64) -> u8 {
    (a.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as u8
}

fn holds(segs: &[(u64, u64)], a: u64, len: u64) -> bool {
    segs.iter()
        .any(|&(b, s)| b as u128 <= a as u128 && a as u128 + len as u128 <= b as u128 + s as u128)
}

/// (suffix, bytes, signed)
const SIZES: [(&str, u64, bool); 7] = [
    (".U8", 1, false),
    (".S8", 1, true),
    (".U16", 2, false),
    (".S16", 2, true),
    ("", 4, false),
    (".64", 8, false),
    (".128", 16, false),
];

fn program(suffix: &str, store: bool) -> Arc<Program> {
    let access = if store {
        format!("STG.E{suffix} [R2], R4;")
    } else {
        format!("LDG.E{suffix} R4, [R2];")
    };
    let text = format!(
        "
        S2R R0, SR_TID.X;
        SHL R1, R0, 0x3;
        IADD32I R4, R0, 0x11223300;
        IADD32I R5, R0, 0x44556600;
        IADD32I R6, R0, 0x77889900;
        IADD32I R7, R0, 0x2abbcc00;
        LDC.64 R2, c[0x0][0x200];
        LDG.E.U8 R10, [R2];
    .L_probe:
        LDC.64 R2, c[0x0][R1+0x300];
        {access}
        LEA R12.CC, R0, c[0x0][0x140], 0x4;
        LEA.HI.X R13, R0, c[0x0][0x144], RZ, 0x4;
        STG.E.128 [R12], R4;
        EXIT;
    "
    );
    Arc::new(parse_program(&text, &AsmOptions::default()).expect("valid program"))
}

fn machine(segs: &[(u64, u64)]) -> Machine {
    let mut m = Machine::default();
    for &(b, s) in segs {
        let data: Vec<u8> = (0..s).map(|i| pattern(b + i)).collect();
        m.global.map(b, s, Init::Bytes(&data)).unwrap();
    }
    m.global.map(OUT, 32 * 16, Init::Zero).unwrap();
    m
}

/// The register words lane `l` stores (R4..R7 as the program sets them).
fn lane_words(l: u64) -> [u32; 4] {
    [0x11223300, 0x44556600, 0x77889900, 0x2abbcc00].map(|w: u32| w.wrapping_add(l as u32))
}

fn le_bytes(words: [u32; 4]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// What the model expects: `Err((lane, aligned address))` for a fault, else the bytes of every
/// segment (stores) or the 16 bytes each lane writes to OUT (loads).
type Outcome = Result<Vec<u8>, (u32, u64)>;

fn model(
    segs: &[(u64, u64)],
    probes: &[u64; 32],
    bytes: u64,
    signed: bool,
    store: bool,
) -> Outcome {
    let mut mem: Vec<(u64, Vec<u8>)> = segs
        .iter()
        .map(|&(b, s)| (b, (0..s).map(|i| pattern(b + i)).collect()))
        .collect();
    let mut out = vec![0u8; 32 * 16];
    {
        let ea: Vec<u64> = (0..32).map(|l| probes[l] & !(bytes - 1)).collect();
        if let Some(l) = (0..32).find(|&l| !holds(segs, ea[l], bytes)) {
            return Err((l as u32, ea[l]));
        }
        for l in 0..32 {
            let a = ea[l];
            let (b, data) = mem
                .iter_mut()
                .find(|(b, d)| *b <= a && a - *b < d.len() as u64)
                .expect("held");
            let off = (a - *b) as usize;
            if store {
                let v = le_bytes(lane_words(l as u64));
                data[off..off + bytes as usize].copy_from_slice(&v[..bytes as usize]);
            } else {
                let mut v = [0u8; 16];
                v[..bytes as usize].copy_from_slice(&data[off..off + bytes as usize]);
                if signed && v[bytes as usize - 1] & 0x80 != 0 {
                    v[bytes as usize..4].fill(0xff);
                }
                let mut words = [0u32; 4];
                for (k, w) in words.iter_mut().enumerate() {
                    *w = u32::from_le_bytes(v[4 * k..4 * k + 4].try_into().unwrap());
                }
                if bytes < 8 {
                    // Only R4 is loaded; R5..R7 keep the values the program gave them.
                    let keep = lane_words(l as u64);
                    words[1..].copy_from_slice(&keep[1..]);
                } else if bytes == 8 {
                    let keep = lane_words(l as u64);
                    words[2..].copy_from_slice(&keep[2..]);
                }
                out[16 * l..16 * l + 16].copy_from_slice(&le_bytes(words));
            }
        }
    }
    Ok(if store {
        mem.into_iter().flat_map(|(_, d)| d).collect()
    } else {
        out
    })
}

fn run(
    engine: &dyn Engine,
    segs: &[(u64, u64)],
    prog: &Arc<Program>,
    (prime, probes): (u64, &[u64; 32]),
    store: bool,
) -> Outcome {
    let m = machine(segs);
    let mut consts = ConstBanks::new();
    consts.write(0, 0x140, &OUT.to_le_bytes()).unwrap();
    consts.write(0, 0x200, &prime.to_le_bytes()).unwrap();
    for l in 0..32u64 {
        consts
            .write(0, 0x300 + 8 * l as u32, &probes[l as usize].to_le_bytes())
            .unwrap();
    }
    let launch = Launch {
        budget: 1_000,
        ..Launch::new(prog.clone(), consts)
    };
    let opts = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    match engine.run(&m, &launch, &opts) {
        Err(f) => match f.kind {
            FaultKind::IllegalAddress { addr, .. } => Err((f.lane, addr)),
            other => panic!("{}: unexpected fault {other}", engine.name()),
        },
        Ok(_) if store => Ok(segs
            .iter()
            .flat_map(|&(b, s)| m.global.read_bytes(b, s).unwrap())
            .collect()),
        Ok(_) => Ok(m.global.read_bytes(OUT, 32 * 16).unwrap()),
    }
}

/// Probe sets around every edge, each with the base of the segment it is near: 32 consecutive
/// bytes, or 32 steps of 4, 8 or 16 bytes, or one address for every lane.
fn probe_sets(segs: &[(u64, u64)]) -> Vec<(u64, [u64; 32])> {
    let mut sets = Vec::new();
    for &(b, s) in segs {
        for edge in [b, b.wrapping_add(s)] {
            for start in [-32i64, -16, 0] {
                let at = edge.wrapping_add(start as u64);
                sets.push((b, std::array::from_fn(|l| at.wrapping_add(l as u64))));
            }
            // Lanes `step` bytes apart (the whole-warp shape of 32-, 64- and 128-bit accesses),
            // half of them past the edge, or all of them ending at it.
            for step in [4u64, 8, 16] {
                for before in [16u64, 32] {
                    let at = edge.wrapping_sub(step * before);
                    sets.push((b, std::array::from_fn(|l| at.wrapping_add(step * l as u64))));
                }
            }
            // Every lane on one address: the whole-warp and uniform shapes.
            sets.push((b, [edge.wrapping_sub(8); 32]));
        }
    }
    sets
}

/// An outcome in a line: the fault's lane and address, or that it ran (and its bytes differ).
fn summary(o: &Outcome) -> String {
    match o {
        Err((lane, addr)) => format!("fault at lane {lane}, address {addr:#x}"),
        Ok(_) => "ran without a fault".to_string(),
    }
}

#[test]
fn accesses_of_every_size_around_segment_edges_match_the_model() {
    let mut jit = warpjit::jit::Jit::new().expect("Cranelift supports this host");
    jit.threshold = 1;
    // A JIT running every block at tier 2 (compiled before the first run), which gives a full
    // warp's coalesced 64- and 128-bit accesses their whole-warp path.
    let mut jit2 = warpjit::jit::Jit::new().expect("Cranelift supports this host");
    jit2.hot_threshold = u32::MAX;
    let engines: [&dyn Engine; 3] = [&warpjit::interp::Interpreter, &jit, &jit2];
    let (mut faults, mut clean) = (0, 0);
    for store in [false, true] {
        for (suffix, bytes, signed) in SIZES {
            if store && signed {
                continue;
            }
            let prog = program(suffix, store);
            jit2.compile_all_tier(&prog, warpjit::jit::Tier::Two)
                .expect("every block compiles");
            for segs in LAYOUTS {
                for (prime, probes) in probe_sets(segs) {
                    let want = model(segs, &probes, bytes, signed, store);
                    match &want {
                        Err(_) => faults += 1,
                        Ok(_) => clean += 1,
                    }
                    for (k, e) in engines.iter().enumerate() {
                        let got = run(*e, segs, &prog, (prime, &probes), store);
                        assert!(
                            got == want,
                            "engine {k} ({}) STG={store} size {bytes}: probes from {:#x}: got {:?}, want {:?}",
                            e.name(),
                            probes[0],
                            summary(&got),
                            summary(&want)
                        );
                    }
                }
            }
        }
    }
    // The probe sets reach both outcomes many times.
    assert!(
        faults > 50 && clean > 50,
        "{faults} faulting, {clean} clean"
    );
}
