//! The benchmark kernels compute what their native Rust versions compute, under both engines.
// The kernels are the command line's, no part of the library.
#[allow(dead_code)]
#[path = "../src/cli/kernels.rs"]
mod bench;

use bench::{kernels, prepare, BLOCK};
use warpjit::exec::{Engine, RunOptions};
use warpjit::interp::Interpreter;
use warpjit::jit::Jit;

#[test]
fn kernels_match_native_under_both_engines() {
    let jit = Jit::new().unwrap();
    let engines: [&dyn Engine; 2] = [&Interpreter, &jit];
    for k in kernels() {
        for e in engines {
            let p = prepare(&k, 8 * BLOCK).unwrap();
            let s1 = p.run(e, &RunOptions::default()).unwrap();
            p.check(&k)
                .unwrap_or_else(|m| panic!("{} under {}: {m}", k.name, e.name()));
            // A second run goes through compiled code (the tiering threshold has passed).
            let s2 = p.run(e, &RunOptions::default()).unwrap();
            p.check(&k).unwrap();
            assert_eq!(
                s1.lane_insts,
                s2.lane_insts,
                "{}: same work counted by {}",
                k.name,
                e.name()
            );
        }
    }
}

#[test]
fn the_built_in_trace_workloads_load() {
    // `warpjit bench` runs them after the kernels (their size is for release builds: here they
    // only load, programs lowered and resources bound).
    for (name, _) in bench::TRACE_WORKLOADS {
        let src = bench::TRACE_WORKLOADS
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(n, t)| bench::TraceSource::BuiltIn(n, t))
            .expect("listed");
        let t = src.load().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(t.launches.len(), 1, "{name}");
    }
}

/// Every kernel gives the same output bytes and the same counts on 1, 2 and 3 host threads,
/// under the interpreter and under the JIT (one whose tier 2 takes over after two runs on a
/// host thread too, so both tiers' code runs while other threads run the other tier's), the
/// output being what native Rust computes. 37 CTAs: the threads' shares are uneven.
#[test]
fn kernels_give_identical_bytes_on_1_2_and_3_host_threads() {
    let jit = Jit::new().unwrap();
    let mut eager = Jit::new().unwrap();
    eager.threshold = 1;
    eager.hot_threshold = 2;
    let engines: [(&str, &dyn Engine); 3] = [
        ("interp", &Interpreter),
        ("jit", &jit),
        ("jit (tier 2 early)", &eager),
    ];
    let n = 37 * BLOCK;
    for k in kernels() {
        for (name, e) in engines {
            let mut first: Option<(Vec<u8>, (u64, u64, u64))> = None;
            // Twice over the thread counts: the second round runs compiled code throughout.
            for threads in [1, 2, 3, 1, 2, 3] {
                let p = prepare(&k, n).unwrap();
                let opts = RunOptions {
                    threads,
                    ..RunOptions::default()
                };
                let s = p.run(e, &opts).unwrap();
                p.check(&k)
                    .unwrap_or_else(|m| panic!("{} under {name}, {threads} threads: {m}", k.name));
                let out = p
                    .machine
                    .global
                    .read_bytes(bench::OUT, k.out_bytes as u64 * n as u64)
                    .unwrap();
                let got = (out, (s.warps, s.warp_insts, s.lane_insts));
                match &first {
                    None => first = Some(got),
                    Some(want) => {
                        assert!(
                            want.0 == got.0,
                            "{} under {name}: output on {threads} threads differs from 1 thread",
                            k.name
                        );
                        assert_eq!(want.1, got.1, "{} under {name}, {threads} threads", k.name);
                    }
                }
            }
        }
    }
}
