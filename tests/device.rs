//! The library surface of `warpjit::device`: modules from cubins (ptxas's and nvJitLink's), the
//! parameter table, data images, memory mapped and unmapped between launches, launches on both
//! engines. Expected values are worked out from the PTX sources in tests/cubin/.

use warpjit::cubin::{CodeRelocKind, RelocTarget};
use warpjit::device::{launch, LaunchConfig, LaunchError, Module};
use warpjit::exec::{Engine, Machine, RunOptions};
use warpjit::interp::Interpreter;
use warpjit::jit::Jit;
use warpjit::runtime::memory::Init;
use warpjit::FaultKind;

fn cubin(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/cubin/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn engines() -> Vec<Box<dyn Engine>> {
    vec![Box::new(Interpreter), Box::new(Jit::new().unwrap())]
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn config(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig::new([grid, 1, 1], [block, 1, 1])
}

/// vadd(a, b, c, n): the parameter table (three u64, one u32: 28 bytes) lays the values out
/// and refuses the wrong count or size; c[i] = a[i] + b[i] for i < n on both engines.
#[test]
fn vadd_through_the_parameter_table() {
    let m = Module::from_cubin(&cubin("vadd.cubin")).unwrap();
    assert_eq!(m.kernel_names().collect::<Vec<_>>(), ["vadd"]);
    assert_eq!(m.data_bytes(), 0);
    let k = m.kernel("vadd", 0).unwrap();
    let t = k.params();
    assert_eq!((t.offset, t.size, t.params.len()), (0x140, 28, 4));
    // The wrong count: the error names none of the values (too few) ...
    let e = t.layout(&[&[0; 8], &[0; 8]]).unwrap_err();
    assert_eq!(e.index, None, "{e}");
    assert!(
        e.to_string().contains("4 parameters (8, 8, 8, 4 bytes)"),
        "{e}"
    );
    // ... the wrong size names the value.
    let e = t.layout(&[&[0; 8], &[0; 8], &[0; 4], &[0; 4]]).unwrap_err();
    assert_eq!(e.index, Some(2), "{e}");
    for engine in engines() {
        let mut machine = Machine::default();
        let (a, b, c) = (0x1_0000u64, 0x2_0000u64, 0x3_0000u64);
        let a_data: Vec<u8> = (0..100u32).flat_map(|i| (3 * i).to_le_bytes()).collect();
        let b_data: Vec<u8> = (0..100u32).flat_map(|i| (i << 20).to_le_bytes()).collect();
        machine.global.map(a, 400, Init::Bytes(&a_data)).unwrap();
        machine.global.map(b, 400, Init::Bytes(&b_data)).unwrap();
        machine.global.map(c, 400, Init::Zero).unwrap();
        let p = t
            .layout(&[
                &a.to_le_bytes(),
                &b.to_le_bytes(),
                &c.to_le_bytes(),
                &90u32.to_le_bytes(),
            ])
            .unwrap();
        let stats = launch(
            engine.as_ref(),
            &machine,
            &k,
            &config(4, 32),
            &p,
            &RunOptions::default(),
        )
        .unwrap();
        assert_eq!(stats.warps, 4);
        let out = words(&machine.global.read_bytes(c, 400).unwrap());
        for (i, &v) in out.iter().enumerate() {
            let want = if i < 90 {
                3 * i as u32 + ((i as u32) << 20)
            } else {
                0
            };
            assert_eq!(v, want, "{} c[{i}]", engine.name());
        }
        // A parameter block of the wrong size, or a block too large, runs nothing.
        let e = launch(
            engine.as_ref(),
            &machine,
            &k,
            &config(1, 32),
            &p[..20],
            &RunOptions::default(),
        );
        assert!(matches!(e, Err(LaunchError::Invalid(m)) if m.contains("28 bytes")));
        let e = launch(
            engine.as_ref(),
            &machine,
            &k,
            &config(1, 2048),
            &p,
            &RunOptions::default(),
        );
        assert!(matches!(e, Err(LaunchError::Invalid(m)) if m.contains("block x = 2048")));
        // Unmapped between launches, c's addresses fault.
        machine.global.unmap(c).unwrap();
        let e = launch(
            engine.as_ref(),
            &machine,
            &k,
            &config(1, 32),
            &p,
            &RunOptions::default(),
        );
        match e {
            Err(LaunchError::Fault(f)) => {
                assert!(matches!(f.kind, FaultKind::IllegalAddress { .. }), "{f}")
            }
            other => panic!("{other:?}"),
        }
    }
}

/// devdata(in, out) from ptxas (the data's addresses in bank 4) and from nvJitLink (in the
/// code, through .rel.text relocations): out[t] = tbl[in[t] & 3] + t with tbl = {10, 20, 30,
/// 40}, and each thread adds 1 to the zeroed `counter`, both found by name in the data image.
#[test]
fn module_data_from_ptxas_and_nvjitlink() {
    for file in ["devdata.cubin", "devdata_jl.cubin"] {
        let m = Module::from_cubin(&cubin(file)).unwrap();
        let tbl = m.symbol("tbl").unwrap();
        let counter = m.symbol("counter").unwrap();
        assert_eq!(
            (tbl.offset, tbl.size, tbl.constant),
            (0, 16, false),
            "{file}"
        );
        assert_eq!((counter.offset, counter.size), (256, 4), "{file}");
        assert_eq!(m.data_bytes(), 260, "{file}");
        assert_eq!(m.symbol("nothing"), None);
        if file == "devdata_jl.cubin" {
            let k = &m.cubin().kernels[0];
            let kinds: Vec<_> = k.code_relocs.iter().map(|r| r.kind).collect();
            assert_eq!(
                kinds,
                [
                    CodeRelocKind::Lo32,
                    CodeRelocKind::Hi32,
                    CodeRelocKind::Lo32,
                    CodeRelocKind::Hi32
                ]
            );
        }
        for engine in engines() {
            let mut machine = Machine::default();
            let base = 0x5_0000_0000u64;
            m.map_data(&mut machine.global, base).unwrap();
            let k = m.kernel("devdata", base).unwrap();
            let input: Vec<u8> = (0..40u32).flat_map(|t| (7 * t + 3).to_le_bytes()).collect();
            machine
                .global
                .map(0x1000, 160, Init::Bytes(&input))
                .unwrap();
            machine.global.map(0x2000, 160, Init::Zero).unwrap();
            let p = k
                .params()
                .layout(&[&0x1000u64.to_le_bytes(), &0x2000u64.to_le_bytes()])
                .unwrap();
            for round in 1..=2u32 {
                launch(
                    engine.as_ref(),
                    &machine,
                    &k,
                    &config(1, 40),
                    &p,
                    &RunOptions::default(),
                )
                .unwrap();
                let out = words(&machine.global.read_bytes(0x2000, 160).unwrap());
                for t in 0..40u32 {
                    let want = [10, 20, 30, 40][((7 * t + 3) & 3) as usize] + t;
                    assert_eq!(out[t as usize], want, "{file} {} t={t}", engine.name());
                }
                let c = machine.global.read_bytes(base + counter.offset, 4).unwrap();
                assert_eq!(words(&c), [40 * round], "{file} {}", engine.name());
            }
        }
    }
}

/// nvJitLink keeps ptxas's double division in a section of its own, called by a relocated
/// JCAL, and calls vprintf the same way: linking copies the function after the kernel and
/// turns the JCAL into a CAL that reaches it; the vprintf call is listed for the driver.
#[test]
fn linking_copies_called_functions() {
    let m = Module::from_cubin(&cubin("printf_jl.cubin")).unwrap();
    let c = m.cubin();
    let k = c.kernel(Some("printf_k")).unwrap();
    assert_eq!(c.functions.len(), 1);
    assert!(c.functions[0].name.starts_with("__cuda_sm20_div_rn"));
    assert!(k
        .code_relocs
        .iter()
        .any(|r| matches!(&r.target, RelocTarget::Code { section, .. } if *section == c.functions[0].name)));
    let linked = c
        .link(
            k,
            Some(warpjit::cubin::DataPlacement {
                init: 0x9000_0000,
                zeroed: 0x9000_0100,
            }),
        )
        .unwrap();
    assert_eq!(
        linked.code.len(),
        k.code.len().next_multiple_of(32) + c.functions[0].code.len()
    );
    assert_eq!(linked.parts.len(), 2);
    assert_eq!(linked.host_calls.len(), 1);
    assert_eq!(linked.host_calls[0].1, "vprintf");
    // Without a placement, the data addresses in the code are an error naming the byte.
    let e = c.link(k, None).unwrap_err();
    assert!(e.message.contains("not placed"), "{e}");
    // The kernel's only parameter: `out`, 8 bytes at 0.
    let params = &k.params;
    assert_eq!(params.len(), 1);
    assert_eq!((params[0].offset, params[0].size), (0, 8));
}

/// Device printf: a call to vprintf becomes the host call `BPT.TRAP 0xf0001` (nvJitLink's
/// relocated JCAL and ptxas's PRET + JMX through bank 4 alike), which both engines run as the
/// driver's vprintf: printf_k's 32 lines (every conversion it uses, a string through %s, a local
/// argument buffer) are the text make_printf_expect.py computes from the source, in lane order,
/// and each thread's printf returns 15, its number of arguments; with 4 CTAs the lines come
/// CTA by CTA for any number of host threads. printf_none prints its line once per thread.
#[test]
fn device_printf_runs_on_both_engines() {
    // Bytes, not UTF-8: threads 30 and 31 print `%c` of 0x7f and 0x80.
    let want = std::fs::read(format!(
        "{}/tests/cubin/printf_k.expected",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    for file in ["printf_jl.cubin", "printf.cubin"] {
        let m = Module::from_cubin(&cubin(file)).unwrap();
        let base = 0x6_0000_0000u64;
        for engine in engines() {
            let name = format!("{file} {}", engine.name());
            let mut machine = Machine::default();
            m.map_data(&mut machine.global, base).unwrap();
            let out = 0x1_0000u64;
            machine.global.map(out, 4 * 128, Init::Zero).unwrap();
            let k = m.kernel("printf_k", base).unwrap();
            let p = k.params().layout(&[&out.to_le_bytes()]).unwrap();
            for threads in [1, 3] {
                let opts = RunOptions {
                    threads,
                    ..RunOptions::default()
                };
                launch(engine.as_ref(), &machine, &k, &config(1, 32), &p, &opts).unwrap();
                let (records, dropped) = machine.host_output.take();
                assert_eq!(dropped, 0);
                let text: Vec<u8> = records.iter().flat_map(|r| r.text.clone()).collect();
                assert!(text == want, "{name}: {}", String::from_utf8_lossy(&text));
                let lanes: Vec<u32> = records.iter().map(|r| r.lane).collect();
                assert_eq!(lanes, (0..32).collect::<Vec<_>>(), "{name}");
                let got = words(&machine.global.read_bytes(out, 4 * 32).unwrap());
                assert_eq!(got, vec![15; 32], "{name}");
                // Four CTAs: each CTA's 32 lines, CTA 0 first.
                launch(engine.as_ref(), &machine, &k, &config(4, 32), &p, &opts).unwrap();
                let (records, _) = machine.host_output.take();
                let ctas: Vec<u32> = records.iter().map(|r| r.cta[0]).collect();
                let expect: Vec<u32> = (0..128).map(|i| i / 32).collect();
                assert_eq!(ctas, expect, "{name}");
                let text: Vec<u8> = records.iter().flat_map(|r| r.text.clone()).collect();
                assert!(text == want.repeat(4), "{name}");
            }
            let k = m.kernel("printf_none", base).unwrap();
            launch(
                engine.as_ref(),
                &machine,
                &k,
                &config(1, 3),
                &[],
                &RunOptions::default(),
            )
            .unwrap();
            let (records, _) = machine.host_output.take();
            let text: Vec<u8> = records.iter().flat_map(|r| r.text.clone()).collect();
            assert_eq!(
                String::from_utf8(text).unwrap(),
                "no arguments\n".repeat(3),
                "{name}"
            );
        }
    }
}

/// Numba's `print` (tests/cubin/numba_print.py, the module Numba handed the driver): its format
/// string lives in constant bank 3, and the kernel reads the string's generic address from
/// `c[0x0][0xd0]`, which a launch of a module with `__constant__` data sets to bank 3's backing
/// (`device::CONST3_ADDRESS`). Each of the 3 threads prints its line as the source says: the
/// values separated by spaces, the float as `%f` does.
#[test]
fn numba_print_finds_its_format_string_in_bank_3() {
    let m = Module::from_cubin(&cubin("numba_print.cubin")).unwrap();
    let name = m.kernel_names().next().unwrap().to_string();
    let base = 0x6_0000_0000u64;
    for engine in engines() {
        let mut machine = Machine::default();
        m.map_data(&mut machine.global, base).unwrap();
        let k = m.kernel(&name, base).unwrap();
        launch(
            engine.as_ref(),
            &machine,
            &k,
            &config(1, 3),
            &[],
            &RunOptions::default(),
        )
        .unwrap();
        let (records, _) = machine.host_output.take();
        let text: Vec<u8> = records.iter().flat_map(|r| r.text.clone()).collect();
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "hello 0 2.500000\nhello 1 2.500000\nhello 2 2.500000\n",
            "{}",
            engine.name()
        );
    }
}

/// The printf buffer keeps what fits in its capacity and counts the records it drops.
#[test]
fn device_printf_drops_what_overflows_the_buffer() {
    let m = Module::from_cubin(&cubin("printf.cubin")).unwrap();
    let base = 0x6_0000_0000u64;
    let machine = {
        let mut machine = Machine::default();
        m.map_data(&mut machine.global, base).unwrap();
        machine
    };
    machine.host_output.set_limit(30);
    let k = m.kernel("printf_none", base).unwrap();
    launch(
        &Interpreter,
        &machine,
        &k,
        &config(1, 4),
        &[],
        &RunOptions::default(),
    )
    .unwrap();
    let (records, dropped) = machine.host_output.take();
    // "no arguments\n" is 13 bytes: two fit in 30.
    assert_eq!((records.len(), dropped), (2, 2));
}

/// A printf only some threads make (printf_some, 64 threads: "some t" for t a multiple of 3,
/// then "all t" for every t), on both engines and both cubins: each warp's records in the order
/// of its calls and each call's in lane order, warp 0's first.
#[test]
fn device_printf_from_some_lanes() {
    let mut want = String::new();
    for w in 0..2 {
        let lanes = 32 * w..32 * w + 32;
        for t in lanes.clone().filter(|t| t % 3 == 0) {
            want += &format!("some {t}\n");
        }
        for t in lanes {
            want += &format!("all {t}\n");
        }
    }
    for file in ["printf_jl.cubin", "printf.cubin"] {
        let m = Module::from_cubin(&cubin(file)).unwrap();
        let base = 0x6_0000_0000u64;
        let k = m.kernel("printf_some", base).unwrap();
        for engine in engines() {
            let mut machine = Machine::default();
            m.map_data(&mut machine.global, base).unwrap();
            let opts = RunOptions::default();
            launch(engine.as_ref(), &machine, &k, &config(1, 64), &[], &opts).unwrap();
            let (records, _) = machine.host_output.take();
            let text: Vec<u8> = records.iter().flat_map(|r| r.text.clone()).collect();
            let name = format!("{file} {}", engine.name());
            assert_eq!(String::from_utf8(text).unwrap(), want, "{name}");
        }
    }
}

/// Device assert (assert_k: CUDA's assert.h form, a call to __assertfail, the module's second
/// driver function): the threads whose input is negative (3 and 17) each print CUDA's message
/// to stderr, with the file, line, function and expression the source gives, and the launch
/// stops with a trap carrying the __assertfail code in lane 3, on both engines and both cubins
/// (ptxas's, whose JMX names its callee by the bank-4 slot it loaded, and nvJitLink's JCAL).
#[test]
fn device_assert_prints_cuda_s_message_and_stops_the_launch() {
    use warpjit::exec::hostcall::{HostStream, ASSERTFAIL_CODE};
    let input: Vec<u8> = (0..32i32)
        .flat_map(|t| (if t == 3 || t == 17 { -1 } else { t }).to_le_bytes())
        .collect();
    // The line of `device_assert(in[t] >= 0);` in printf.cu.
    let line = 1 + include_str!("cubin/printf.cu")
        .lines()
        .position(|l| l.contains("device_assert(in[t] >= 0);"))
        .unwrap();
    for file in ["printf_jl.cubin", "printf.cubin"] {
        let m = Module::from_cubin(&cubin(file)).unwrap();
        let base = 0x6_0000_0000u64;
        let k = m.kernel("assert_k", base).unwrap();
        for engine in engines() {
            let name = format!("{file} {}", engine.name());
            let mut machine = Machine::default();
            m.map_data(&mut machine.global, base).unwrap();
            let (inp, out) = (0x1_0000u64, 0x2_0000u64);
            machine.global.map(inp, 128, Init::Bytes(&input)).unwrap();
            machine.global.map(out, 128, Init::Zero).unwrap();
            let p = k
                .params()
                .layout(&[&inp.to_le_bytes(), &out.to_le_bytes()])
                .unwrap();
            let opts = RunOptions::default();
            match launch(engine.as_ref(), &machine, &k, &config(1, 32), &p, &opts) {
                Err(LaunchError::Fault(f)) => {
                    let code = ASSERTFAIL_CODE;
                    assert_eq!(f.kind, FaultKind::Trap { code }, "{name}");
                    assert_eq!(f.lane, 3, "{name}");
                }
                other => panic!("{name}: {other:?}"),
            }
            let (records, _) = machine.host_output.take();
            let got: Vec<(u32, HostStream, String)> = records
                .into_iter()
                .map(|r| (r.lane, r.stream, String::from_utf8(r.text).unwrap()))
                .collect();
            let want: Vec<(u32, HostStream, String)> = [3, 17]
                .map(|t| {
                    let text = format!(
                        "printf.cu:{line}: void assert_k(const int *, int *): block: [0,0,0], \
                         thread: [{t},0,0] Assertion `in[t] >= 0` failed.\n"
                    );
                    (t, HostStream::Stderr, text)
                })
                .into();
            assert_eq!(got, want, "{name}");
        }
    }
}

/// Runs the only kernel of a Numba module (`name` in tests/cubin) whose one parameter is an
/// array of `n` elements of `itemsize` bytes at a fixed address, on both engines, with `cfg`;
/// returns each engine's name and the array's bytes afterwards. Numba passes an array as
/// meminfo, parent, nitems, itemsize, data, shape and strides (seven 64-bit words).
fn run_numba_array_kernel(
    name: &str,
    n: u64,
    itemsize: u64,
    cfg: &LaunchConfig,
) -> Vec<(&'static str, Vec<u8>)> {
    let m = Module::from_cubin(&cubin(name)).unwrap();
    let kernel = m.kernel_names().next().unwrap().to_string();
    let k = m.kernel(&kernel, 0).unwrap();
    let x = 0x2000_0000_0000u64;
    let params: Vec<u8> = [0u64, 0, n, itemsize, x, n, itemsize]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(params.len(), k.params().size as usize);
    engines()
        .into_iter()
        .map(|engine| {
            let mut machine = Machine::default();
            machine.global.map(x, 0x100, Init::Zero).unwrap();
            launch(
                engine.as_ref(),
                &machine,
                &k,
                cfg,
                &params,
                &RunOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{}: {e:?}", engine.name()));
            (
                engine.name(),
                machine.global.read_bytes(x, n * itemsize).unwrap(),
            )
        })
        .collect()
}

/// Numba's dynamic shared memory slices (tests/cubin/numba_dynshared.py, numba-cuda's
/// test_dynshared_slice_gaps): the kernel asks for 28 bytes of dynamic shared memory and reads
/// them back with two 128-bit LDS, the second at offset 0x10, past the 28 bytes. The GPU
/// allocates shared memory in 256-byte units, so that read is inside the CTA's memory; the
/// launch runs and writes [99, 1, 2, 99, 3, 4, 99] (the test's expectation) on both engines.
#[test]
fn a_vector_read_past_the_dynamic_shared_size_stays_inside_the_allocation_unit() {
    let cfg = LaunchConfig {
        dynamic_shared_bytes: 7 * 4,
        ..config(1, 1)
    };
    for (engine, got) in run_numba_array_kernel("numba_dynshared.cubin", 7, 4, &cfg) {
        assert_eq!(words(&got), [99, 1, 2, 99, 3, 4, 99], "{engine}");
    }
    assert_eq!(warpjit::device::shared_allocation(28), 256);
}

/// A Numba kernel compiled with `debug=True` (tests/cubin/numba_debug.py): its DWARF sections
/// carry relocations (`.rel.debug_line`, ...), which the loader leaves alone; the module loads
/// and the kernel writes x[t] = 1.5 t on both engines.
#[test]
fn a_module_with_debug_information_loads_and_runs() {
    for (engine, got) in run_numba_array_kernel("numba_debug.cubin", 4, 8, &config(1, 4)) {
        let got: Vec<f64> = got
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, [0.0, 1.5, 3.0, 4.5], "{engine}");
    }
}

/// A recursive Numba kernel (tests/cubin/numba_recursion.py): ptxas writes 0xffffffff, "cannot
/// bound", as its stack size; the kernel gets CUDA's default stack limit (1 KiB per thread)
/// instead of 4 GiB per thread, which the host could never allocate.
#[test]
fn a_recursive_kernel_gets_the_default_stack() {
    let m = Module::from_cubin(&cubin("numba_recursion.cubin")).unwrap();
    let name = m
        .kernel_names()
        .find(|n| n.contains("raise_self_kernel"))
        .unwrap()
        .to_string();
    let k = m.kernel(&name, 0).unwrap();
    assert_eq!(k.local_bytes(), 1024);
}

/// Numba's reverse-strided slice of a dynamic shared array (tests/cubin/numba_dynshared_reverse.py,
/// numba-cuda's test_dynshared_slice_nonunit_reverse_stride): `dynsmem[-1::-2]` takes the array's
/// length from the shared memory size in c[0x0][0xfc], which is the 24 bytes asked for, not the
/// 256-byte allocation: [99, 3, 99, 2, 99, 1] (the test's expectation) on both engines.
#[test]
fn the_shared_size_a_kernel_reads_is_the_size_asked_for() {
    let cfg = LaunchConfig {
        dynamic_shared_bytes: 6 * 4,
        ..config(1, 1)
    };
    for (engine, got) in run_numba_array_kernel("numba_dynshared_reverse.cubin", 6, 4, &cfg) {
        assert_eq!(words(&got), [99, 3, 99, 2, 99, 1], "{engine}");
    }
}

/// A kernel's launch bounds (tests/cubin/numba_launch_bounds.py: `.maxntid 128`, the cubin's
/// EIATTR_MAX_THREADS): a block of 128 threads runs, one of 256 is refused before anything runs.
#[test]
fn launch_bounds_limit_the_block() {
    let m = Module::from_cubin(&cubin("numba_launch_bounds.cubin")).unwrap();
    let name = m.kernel_names().next().unwrap().to_string();
    let k = m.kernel(&name, 0).unwrap();
    assert_eq!(k.max_threads_per_block(), 128);
    assert_eq!(k.launch_bound(), Some(128));
    let machine = Machine::default();
    let run = |block| {
        launch(
            &Interpreter,
            &machine,
            &k,
            &config(1, block),
            &[],
            &RunOptions::default(),
        )
    };
    assert!(run(128).is_ok());
    match run(256) {
        Err(LaunchError::Invalid(why)) => assert!(why.contains("at most 128"), "{why}"),
        r => panic!("a block of 256 threads: {r:?}"),
    }
}

/// A Numba kernel that takes cooperative groups' grid group, compiled with `debug=True`
/// (tests/cubin/numba_grid_group.py, as numba-cuda's test_grid_group_type compiles it): its
/// initialised `__device__` data holds the addresses of its debug strings (`R_CUDA_G64` in
/// `.rel.nv.global.init`) and the device runtime's function descriptors (`R_CUDA_FUNC_DESC_64`).
/// The module loads, the data image holds each address for the base it is mapped at (a
/// pointer to a NUL-terminated string of the image), each function descriptor is warpjit's
/// non-null value that is no address, and the kernel (which calls
/// `__cuda_syscall_CGS_get_intrinsic_handle`, a host call) writes x[t] = 7 on both engines, in a
/// cooperative launch and in a plain one.
#[test]
fn initialised_device_data_holding_addresses_is_relocated() {
    let m = Module::from_cubin(&cubin("numba_grid_group.cubin")).unwrap();
    let data = &m.cubin().module;
    assert_eq!(data.init_relocs.len(), 270);
    assert_eq!(data.init_func_descs.len(), 32);
    let base = 0x2100_0000_0000u64;
    let image = m.data_image(base);
    let word = |at: usize| u64::from_le_bytes(image[at..at + 8].try_into().unwrap());
    for r in &data.init_relocs {
        assert_eq!(r.bytes, 8);
        let p = word(r.offset as usize);
        let (init, zeroed) = (base, base + data.zeroed_offset());
        let want = match r.section {
            warpjit::cubin::ModuleSection::Init => init,
            warpjit::cubin::ModuleSection::Zeroed => zeroed,
        } + r.offset_in;
        assert_eq!(p, want, "the word at {:#x}", r.offset);
        // A debug string: printable bytes up to a NUL inside the image.
        let s = &image[(p - base) as usize..];
        let end = s.iter().position(|&b| b == 0).unwrap();
        assert!(s[..end].iter().all(|b| b.is_ascii_graphic() || *b == b' '));
    }
    // The same image for another base moves every pointer by the difference.
    let moved = m.data_image(base + 0x1000);
    let r = &data.init_relocs[0];
    let at = r.offset as usize;
    assert_eq!(
        u64::from_le_bytes(moved[at..at + 8].try_into().unwrap()),
        word(at) + 0x1000
    );
    let mut descs: Vec<u64> = data.init_func_descs.iter().map(|&(_, v)| v).collect();
    for &(at, v) in &data.init_func_descs {
        assert_eq!(word(at as usize), v);
        assert!(v >= warpjit::cubin::FUNC_DESC_BASE);
    }
    descs.sort();
    descs.dedup();
    assert_eq!(descs.len(), 32, "one descriptor per function");

    let name = m.kernel_names().next().unwrap().to_string();
    let k = m.kernel(&name, base).unwrap();
    let x = 0x2000_0000_0000u64;
    let params: Vec<u8> = [0u64, 0, 4, 4, x, 4, 4]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let workspace = 0x2200_0000_0000u64;
    for cooperative in [None, Some(workspace)] {
        for engine in engines() {
            let mut machine = Machine::default();
            m.map_data(&mut machine.global, base).unwrap();
            machine.global.map(x, 0x100, Init::Zero).unwrap();
            machine.global.map(workspace, 0x100, Init::Zero).unwrap();
            let cfg = LaunchConfig {
                cooperative,
                ..config(1, 4)
            };
            launch(
                engine.as_ref(),
                &machine,
                &k,
                &cfg,
                &params,
                &RunOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{}: {e}", engine.name()));
            let got = machine.global.read_bytes(x, 16).unwrap();
            assert_eq!(words(&got), [7, 7, 7, 7], "{}", engine.name());
        }
    }
}

/// A launch may have as many threads as CUDA allows (grid up to 2^31-1 × 65535 × 65535 CTAs;
/// numba-cuda's test_issue_9229 launches 22,121,216 CTAs of 256 threads): the configuration is
/// valid, and the launch budget bounds what it runs. vadd with n = 0 (every thread exits at
/// once) over 2^30 + 2^10 threads runs to completion on both engines; the largest grid's CTAs
/// each get a share of 0 of the launch budget, so the first faults before it starts, at once.
#[test]
fn launches_past_2_to_the_30_threads_run_and_stay_bounded() {
    let m = Module::from_cubin(&cubin("vadd.cubin")).unwrap();
    let k = m.kernel("vadd", 0).unwrap();
    let largest = LaunchConfig::new([0x7fff_ffff, 0xffff, 0xffff], [1024, 1, 1]);
    assert_eq!(warpjit::device::check_config(&k, &largest), Ok(()));
    let params = k
        .params()
        .layout(&[
            &0u64.to_le_bytes(),
            &0u64.to_le_bytes(),
            &0u64.to_le_bytes(),
            &0u32.to_le_bytes(),
        ])
        .unwrap();
    for engine in engines() {
        let machine = Machine::default();
        let t = std::time::Instant::now();
        match launch(
            engine.as_ref(),
            &machine,
            &k,
            &largest,
            &params,
            &RunOptions::default(),
        ) {
            Err(LaunchError::Fault(f)) => {
                assert!(
                    matches!(f.kind, FaultKind::BudgetExhausted { .. }),
                    "{}: {f}",
                    engine.name()
                );
                assert_eq!(f.cta, [0, 0, 0]);
            }
            r => panic!("{}: {r:?}", engine.name()),
        }
        assert!(t.elapsed().as_secs() < 5, "{}: at once", engine.name());
    }
    // 2^20 + 1 CTAs of 1024 threads: 2^30 + 2^10 threads, each exiting at its bounds check,
    // under the CUDA driver's launch budget (2^36), on the JIT (the interpreter takes several
    // times as long for these 2^25 warps).
    let past = LaunchConfig::new([(1 << 20) + 1, 1, 1], [1024, 1, 1]);
    let machine = Machine {
        launch_budget: 1 << 36,
        ..Machine::default()
    };
    let jit = Jit::new().unwrap();
    let stats = launch(&jit, &machine, &k, &past, &params, &RunOptions::default()).unwrap();
    assert_eq!(stats.warps, ((1 << 20) + 1) * 32);
}
