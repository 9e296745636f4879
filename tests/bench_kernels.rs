//! The benchmark kernels compute what their native Rust versions compute, under both engines.
use warpjit::bench::{kernels, prepare, BLOCK};
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
    for (name, _) in warpjit::bench::TRACE_WORKLOADS {
        let src = warpjit::bench::TRACE_WORKLOADS
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(n, t)| warpjit::bench::TraceSource::BuiltIn(n, t))
            .expect("listed");
        let t = src.load().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(t.launches.len(), 1, "{name}");
    }
}
