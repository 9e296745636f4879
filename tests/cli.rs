//! The `warpjit run` command line: exit statuses and what it prints, per docs/trace-format.md's table.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the binary from the crate root with these arguments.
fn warpjit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpjit"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the warpjit binary runs")
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally, not by a signal")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch file in the target directory, named after the test.
fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("scratch file");
    p
}

#[test]
fn a_passing_trace_prints_one_summary_line() {
    let o = warpjit(&["run", "examples/gather.toml"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1, "{out}");
    // 3 CTAs of 16 threads: 20 instructions for the 32 threads with i < 40 and 8 of them for
    // CTA 2's 8 others, before their EXIT: 20 * 16 * 2 + 20 * 8 + 10 * 8 = 880.
    assert!(
        out.starts_with("1 launch, 3 warps, 880 lane-instructions, "),
        "{out}"
    );
    assert!(out.trim_end().ends_with(" lane-instructions/s"), "{out}");
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

#[test]
fn stats_adds_a_line_per_launch() {
    let o = warpjit(&["run", "examples/gather.toml", "--stats", "--threads", "2"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with(
            "launch 0: 3 CTAs of 1 warp, 3 warps, 60 warp instructions, 880 lane-instructions, "
        ),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.starts_with("1 launch, 3 warps, ")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("jit: ") && l.contains("compiled")),
        "the default engine is the JIT and --stats reports its compile work: {out}"
    );
    // By default the JIT compiles the kernel's three blocks ahead (outside the launch's time);
    // `--compile lazy` compiles none before the launch, with the same results.
    let jit_line = |out: &str| {
        out.lines()
            .find(|l| l.starts_with("jit: "))
            .map(str::to_owned)
    };
    let ahead = jit_line(&out).unwrap_or_default();
    assert!(
        ahead.starts_with("jit: 3 blocks compiled in ")
            && ahead.contains(" ms before the launches"),
        "{ahead}"
    );
    let o = warpjit(&[
        "run",
        "examples/gather.toml",
        "--stats",
        "--compile",
        "lazy",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lazy = jit_line(&stdout(&o)).unwrap_or_default();
    assert!(
        lazy.starts_with("jit: 0 blocks compiled in 0.000 ms before the launches "),
        "{lazy}"
    );

    let o = warpjit(&["run", "examples/const_table.toml", "--stats"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(
            "launch 0: 1 CTA of 1 warp, 1 warp, 33 warp instructions, 132 lane-instructions"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "launch 1: 1 CTA of 1 warp, 1 warp, 20 warp instructions, 80 lane-instructions"
        ),
        "{out}"
    );
    assert!(
        out.contains("2 launches, 2 warps, 212 lane-instructions, "),
        "{out}"
    );
}

#[test]
fn check_reports_diagnostics_on_stderr() {
    let o = warpjit(&["run", "examples/const_table.toml", "--check"]);
    assert_eq!(code(&o), 0);
    let err = stderr(&o);
    assert!(err.lines().count() >= 2, "no diagnostics");
    // Each finding, then its instruction's source line, as a fault gives it.
    assert!(
        err.lines().step_by(2).all(|l| l.starts_with("check: ")),
        "{err}"
    );
    assert!(
        err.lines()
            .skip(1)
            .step_by(2)
            .all(|l| l.starts_with("  at examples/const_table.toml:")),
        "{err}"
    );
    assert!(
        err.contains(
            "(launch 0, CTA (0, 0, 0), warp 0, lane 0, pc 0x00b8)\n  at examples/const_table.toml:91:36: /*00b8*/                   LDC R17, c[0x8][R2];"
        ),
        "{err}"
    );

    let o = warpjit(&["run", "examples/const_table.toml"]);
    assert!(
        stderr(&o).is_empty(),
        "diagnostics without --check: {}",
        stderr(&o)
    );
}

#[test]
fn dxbc_robust_accesses_are_check_diagnostics_on_both_engines() {
    // tests/traces/dxbc_robust_access.toml: one thread makes every kind of access D3D's robust
    // rules define (docs/semantics.md §27); each reads 0 or is dropped, and is a diagnostic.
    // Each finding with its instruction's line of the trace (lines 51 to 59).
    let at = |line: u32, text: &str| {
        format!("  at tests/traces/dxbc_robust_access.toml:{line}:1: {text}")
    };
    let ld_t0 = "ld_structured_indexable(structured_buffer, stride=8)(mixed,mixed,mixed,mixed) r1.xy, l(1), l(4), t0.xyxx";
    let ld_t1 = "ld_structured_indexable(structured_buffer, stride=8)(mixed,mixed,mixed,mixed) r1.z, l(0), l(0), t1.xxxx";
    let want = [
        "check: structured read at byte offset 0x4 + 4 passes the 8-byte stride (launch 0, CTA (0, 0, 0), warp 0, lane 0, pc 0x0001)".to_string(),
        at(51, ld_t0),
        "check: t0 read at byte 0x10 is past its 16 bytes (reads 0) (launch 0, CTA (0, 0, 0), warp 0, lane 0, pc 0x0001)".to_string(),
        at(51, ld_t0),
        "check: t1 is not bound (reads 0) (launch 0, CTA (0, 0, 0), warp 0, lane 0, pc 0x0002)".to_string(),
        at(52, ld_t1),
        "check: g# read at byte 0x40 is outside its 64 bytes (reads 0) (launch 0, CTA (0, 0, 0), warp 0, lane 0, pc 0x0003)".to_string(),
        at(53, "ld_structured r1.w, l(16), l(0), g0.xxxx"),
        "check: x# read of element 4 is outside its 4 elements (reads 0) (launch 0, CTA (0, 0, 0), warp 0, lane 0, pc 0x0004)".to_string(),
        at(54, "mov r2.x, x0[4].x"),
        "check: cb0[2] is past the 2 entries the program declares (reads 0) (launch 0, CTA (0, 0, 0), warp 0, lane 0, pc 0x0005)".to_string(),
        at(55, "mov r2.y, cb0[r0.x + 2].x"),
        "check: icb read past the 3 entries of the immediate constant buffer (reads 0) (launch 0, CTA (0, 0, 0), warp 0, lane 0, pc 0x0006)".to_string(),
        at(56, "mov r2.z, icb[r0.x + 3].x"),
        "check: u0 write at byte 0x20 is past its 32 bytes (dropped) (launch 0, CTA (0, 0, 0), warp 0, lane 0, pc 0x0008)".to_string(),
        at(58, "store_structured u0.x, l(2), l(0), l(5)"),
        "check: u1 is not bound (write dropped) (launch 0, CTA (0, 0, 0), warp 0, lane 0, pc 0x0009)".to_string(),
        at(59, "store_structured u1.x, l(0), l(0), l(6)"),
    ];
    for engine in ["interp", "jit"] {
        let o = warpjit(&[
            "run",
            "tests/traces/dxbc_robust_access.toml",
            "--check",
            "--engine",
            engine,
        ]);
        assert_eq!(code(&o), 0, "{engine}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().collect::<Vec<_>>(), want, "{engine}");
    }
}

#[test]
fn failing_traces_exit_and_print_as_their_headers_say() {
    let dir = root().join("tests/traces/fail");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/traces/fail")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 10);
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("trace");
        let mut exit = None;
        let mut want = Vec::new();
        for line in text.lines().take_while(|l| l.starts_with('#')) {
            if let Some(v) = line.strip_prefix("# expect-exit:") {
                exit = v.trim().parse::<i32>().ok();
            } else if let Some(v) = line.strip_prefix("# expect-stderr: ") {
                want.push(v.to_string());
            }
        }
        let rel = path
            .strip_prefix(root())
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        // Some use the fixtures of tests/cubin/, outside their directory.
        let o = warpjit(&["run", &rel, "--allow-path", "."]);
        let err = stderr(&o);
        assert_eq!(Some(code(&o)), exit, "{rel}:\n{err}");
        for s in &want {
            assert!(err.contains(s.as_str()), "{rel}: {s:?} not in:\n{err}");
        }
        match code(&o) {
            // It ran: the summary is on stdout.
            1 => assert!(
                stdout(&o).contains(" lane-instructions/s"),
                "{rel}: {}",
                stdout(&o)
            ),
            // Invalid binary input: `PATH: byte 0xN: error: MESSAGE` then the bytes there.
            2 if err.lines().next().is_some_and(|l| l.contains(": byte 0x")) => {
                assert!(
                    err.lines().nth(1).is_some_and(|l| l.starts_with(" | 0x")),
                    "{rel}: {err}"
                );
                assert!(stdout(&o).is_empty(), "{rel}: {}", stdout(&o));
            }
            // Invalid: `PATH:LINE:COL: error: MESSAGE` then the offending line.
            2 => {
                let first = err.lines().next().unwrap_or("");
                let located = first.split(": error: ").next().unwrap_or("");
                let mut parts = located.rsplitn(3, ':');
                let col = parts.next().and_then(|c| c.parse::<u32>().ok());
                let line = parts.next().and_then(|l| l.parse::<u32>().ok());
                assert!(
                    col.is_some() && line.is_some(),
                    "{rel}: not PATH:LINE:COL: {first}"
                );
                let line = line.unwrap_or(0);
                assert!(
                    err.lines()
                        .nth(1)
                        .is_some_and(|l| l.starts_with(&format!("{line} | "))),
                    "{rel}: {err}"
                );
                // Not a terminal: no colour.
                assert!(!err.contains('\u{1b}'), "{rel}: {err:?}");
                assert!(stdout(&o).is_empty(), "{rel}: {}", stdout(&o));
            }
            // A fault: one line with its kind, launch, CTA, warp, lane and pc.
            3 => {
                assert!(err.starts_with("fault: "), "{rel}: {err}");
                for part in ["(launch ", ", CTA (", "), warp ", ", lane ", ", pc 0x"] {
                    assert!(err.contains(part), "{rel}: {part:?} not in {err}");
                }
            }
            other => panic!("{rel}: exit {other}"),
        }
    }
}

#[test]
fn errors_in_a_code_file_point_into_that_file() {
    let o = warpjit(&["run", "tests/traces/fail/bad_program_file.toml"]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(
        err.starts_with("tests/traces/fail/kernels/bad.sass:2:49: error: "),
        "the path is the code file's, relative to the trace: {err}"
    );
}

#[test]
fn errors_in_inline_code_point_into_the_trace() {
    let o = warpjit(&["run", "tests/traces/fail/bad_program_inline.toml"]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(
        err.starts_with("tests/traces/fail/bad_program_inline.toml:15:9: error: "),
        "{err}"
    );
    assert_eq!(
        err.lines().nth(1),
        Some("15 |         BOGUS R1, R2;"),
        "{err}"
    );
    assert_eq!(err.lines().nth(2), Some("   |         ^"), "{err}");
}

#[test]
fn both_engines_run_every_example() {
    for ex in [
        "examples/gather.toml",
        "examples/const_table.toml",
        "examples/addr64.toml",
    ] {
        for engine in ["jit", "interp"] {
            let o = warpjit(&["run", ex, "--engine", engine]);
            assert_eq!(code(&o), 0, "{ex} under {engine}: {}", stderr(&o));
        }
    }
    let o = warpjit(&["run", "examples/gather.toml", "--engine", "cuda"]);
    assert_eq!(code(&o), 64, "an unknown engine is a usage error");
}

#[test]
fn usage_errors_exit_64() {
    for args in [
        &[][..],
        &["run"],
        &["frobnicate"],
        &["run", "examples/gather.toml", "--engine", "gpu"],
        &["run", "examples/gather.toml", "--threads", "many"],
        &["run", "examples/gather.toml", "--threads", "-1"],
        &["run", "examples/gather.toml", "--bogus"],
        &["run", "tests/dxbc"],
    ] {
        // EX_USAGE, distinct from an invalid trace (2).
        let o = warpjit(args);
        assert_eq!(code(&o), 64, "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).is_empty(), "{args:?}");
    }
    assert_eq!(code(&warpjit(&["--help"])), 0);
    assert_eq!(code(&warpjit(&["run", "--help"])), 0);
}

#[test]
fn unreadable_and_garbage_traces_exit_2_without_panicking() {
    let o = warpjit(&["run", "tests/traces/no_such_trace.toml"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("cannot read the trace"),
        "{}",
        stderr(&o)
    );

    // A directory is a set of traces (several_traces_and_directories_run_in_one_command); one
    // with none in it is a usage error (usage_errors_exit_64).

    let cases: [(&str, &[u8]); 7] = [
        ("empty.toml", b""),
        ("binary.toml", &[0xff, 0xfe, 0x00, 0x81, 0x0a]),
        ("not_toml.toml", b"this is not = = toml\n"),
        ("wrong_types.toml", b"format = 1\n"),
        ("huge_numbers.toml", b"format = \"warpjit-trace/1\"\n[[global]]\naddr = 0x7fff_ffff_ffff_ffff\nsize = 0x7fff_ffff_ffff_ffff\n"),
        ("launch_no_code.toml", b"format = \"warpjit-trace/1\"\n[[launch]]\nblock = [0]\n"),
        ("deep.toml", b"format = \"warpjit-trace/1\"\n[machine]\nshared_window = [[[[[[1]]]]]]\n"),
    ];
    for (name, bytes) in cases {
        let p = scratch(name, bytes);
        let o = warpjit(&["run", &p.to_string_lossy()]);
        assert_eq!(code(&o), 2, "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(": error: "), "{name}: {}", stderr(&o));
    }
}

#[test]
fn thread_counts_do_not_change_the_outcome() {
    for t in ["1", "2", "0"] {
        let o = warpjit(&["run", "tests/traces/barrier_shared.toml", "--threads", t]);
        assert_eq!(code(&o), 0, "--threads {t}: {}", stderr(&o));
        let o = warpjit(&[
            "run",
            "tests/traces/fail/fault_illegal_address.toml",
            "--threads",
            t,
        ]);
        assert_eq!(code(&o), 3);
        assert!(
            stderr(&o).contains("(launch 1, CTA (1, 0, 0), warp 0, lane 3, pc 0x0028)"),
            "{}",
            stderr(&o)
        );
    }
}

/// CTAs that communicate through global memory behind `__threadfence()` (the last-block
/// reduction of tests/traces/cubin_fence_sum.toml: partial sums, a fence, an atomic ticket) get
/// the expected result on any number of host threads, under each engine (`--engine both` runs
/// on one host thread, so each engine runs alone here).
#[test]
fn a_fenced_last_block_reduction_holds_on_several_host_threads() {
    for engine in ["interp", "jit"] {
        for t in ["1", "2", "4"] {
            for _ in 0..3 {
                let o = warpjit(&[
                    "run",
                    "tests/traces/cubin_fence_sum.toml",
                    "--allow-path",
                    "tests",
                    "--engine",
                    engine,
                    "--threads",
                    t,
                ]);
                assert_eq!(code(&o), 0, "{engine} --threads {t}: {}", stderr(&o));
            }
        }
    }
}

#[test]
fn a_trace_path_with_a_directory_finds_its_side_files() {
    // Run from another directory: side files are relative to the trace, not to the cwd.
    let o = Command::new(env!("CARGO_BIN_EXE_warpjit"))
        .args([
            "run",
            &root()
                .join("tests/traces/two_launches.toml")
                .to_string_lossy(),
        ])
        .current_dir(Path::new(env!("CARGO_TARGET_TMPDIR")))
        .output()
        .expect("runs");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn error_output_is_bounded_whatever_the_input() {
    // A program line of 5000 NUL bytes: a few hundred bytes of error, NULs escaped.
    let o = warpjit(&["run", "tests/traces/fail/nul_program.toml"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.len() < 600, "{} bytes of error", err.len());
    assert!(!err.contains('\0'), "{err}");
    // A 2 MB line of junk in the trace itself.
    let mut text = b"format = \"warpjit-trace/1\"\nx = ".to_vec();
    text.extend(std::iter::repeat_n(b'\x01', 2_000_000));
    let p = scratch("junk_line.toml", &text);
    let o = warpjit(&["run", &p.to_string_lossy()]);
    assert_eq!(code(&o), 2, "{}", &stderr(&o)[..stderr(&o).len().min(500)]);
    assert!(
        stderr(&o).len() < 1000,
        "{} bytes of error",
        stderr(&o).len()
    );
}

#[test]
fn a_fifo_as_the_trace_is_refused_without_blocking() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let fifo = dir.join("fifo.toml");
    let _ = std::fs::remove_file(&fifo);
    let status = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_warpjit"))
        .args(["run", &fifo.to_string_lossy()])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the warpjit binary runs");
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed().as_secs() > 20 {
            let _ = child.kill();
            panic!("warpjit blocked reading a FIFO");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(2));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut err)
        .expect("stderr");
    assert!(err.contains("is a FIFO, not a regular file"), "{err}");
}

#[test]
fn more_than_four_threads_per_core_is_a_usage_error() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let max = 4 * cores;
    for cmd in [
        &["run", "examples/gather.toml"][..],
        &["bench", "--iters", "1"],
    ] {
        let too_many = (max + 1).to_string();
        let mut args = cmd.to_vec();
        args.extend(["--threads", &too_many]);
        let o = warpjit(&args);
        assert_eq!(code(&o), 64, "{args:?}: {}", stderr(&o));
        assert_eq!(
            stderr(&o),
            format!(
                "warpjit: error: --threads {too_many} is more than {max}, 4 × this host's {cores} cores\n"
            ),
            "{args:?}"
        );
        assert!(stdout(&o).is_empty(), "{args:?}: {}", stdout(&o));
    }
    let o = warpjit(&["run", "examples/gather.toml", "--threads", &max.to_string()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn several_traces_and_directories_run_in_one_command() {
    // A directory of two traces: one passes, one mismatches (1); each line names its trace, and
    // a last line counts the outcomes.
    let dir = std::env::temp_dir().join(format!("warpjit-cli-several-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let trace = |word: u32| {
        format!(
            "format = \"warpjit-trace/1\"\n[[global]]\naddr = 0x1000\nsize = 4\n[[launch]]\n\
             code = \"MOV32I R0, 0x5; STG [RZ+0x1000], R0; EXIT;\"\n[[expect]]\naddr = 0x1000\nu32 = [{word}]\n"
        )
    };
    std::fs::write(dir.join("a_pass.toml"), trace(5)).expect("write");
    std::fs::write(dir.join("b_mismatch.toml"), trace(6)).expect("write");
    std::fs::write(dir.join("notes.txt"), "not a trace").expect("write");
    let o = warpjit(&["run", dir.to_str().expect("utf-8 path")]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let out = stdout(&o);
    let a = dir.join("a_pass.toml").display().to_string();
    let b = dir.join("b_mismatch.toml").display().to_string();
    assert!(
        out.starts_with(&format!("{a}: 1 launch, 1 warp, ")),
        "{out}"
    );
    assert!(
        out.ends_with("2 traces: 1 passed, 1 with mismatches, 0 invalid, 0 faulted\n"),
        "{out}"
    );
    assert!(
        stderr(&o).starts_with(&format!(
            "{b}: mismatch: expect 0 (line 7): u32[0] at 0x1000: expected 6"
        )),
        "{}",
        stderr(&o)
    );
    // An invalid trace outranks a mismatch.
    std::fs::write(dir.join("c_invalid.toml"), "format = 1\n").expect("write");
    let o = warpjit(&["run", dir.to_str().expect("utf-8 path")]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn engine_both_runs_the_interpreter_and_the_jit_and_compares() {
    let o = warpjit(&["run", "examples/gather.toml", "--engine", "both"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("interp: 1 launch, 3 warps, "), "{out}");
    assert!(lines[1].starts_with("jit: 1 launch, 3 warps, "), "{out}");
    // Both fault alike on a fault trace: exit 3, not 4.
    let o = warpjit(&[
        "run",
        "tests/traces/fail/fault_illegal_address.toml",
        "--engine",
        "both",
    ]);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
}

#[test]
fn json_reports_outcomes_launches_mismatches_and_faults() {
    let o = warpjit(&[
        "run",
        "examples/gather.toml",
        "tests/traces/fail/fault_illegal_address.toml",
        "--json",
    ]);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON document");
    assert_eq!(doc["exit"], 3);
    assert_eq!(
        (doc["passed"].as_u64(), doc["faulted"].as_u64()),
        (Some(1), Some(1))
    );
    let t = &doc["traces"];
    assert_eq!(t[0]["trace"], "examples/gather.toml");
    assert_eq!(t[0]["outcome"], "passed");
    assert_eq!(t[0]["reports"][0]["engine"], "jit");
    assert_eq!(t[0]["reports"][0]["launches"][0]["ctas"], 3);
    assert!(t[0]["reports"][0]["lane_instructions"].as_u64() > Some(0));
    assert_eq!(t[1]["outcome"], "fault");
    let f = &t[1]["reports"][0]["fault"];
    assert_eq!(
        (f["launch"].as_u64(), f["lane"].as_u64(), f["pc"].as_u64()),
        (Some(1), Some(3), Some(0x28))
    );
    assert!(
        f["kind"]
            .as_str()
            .is_some_and(|k| k.starts_with("illegal address")),
        "{f}"
    );
    assert!(
        f["at"]
            .as_str()
            .is_some_and(|a| a.ends_with("LDG R4, [R3+0x10000];")),
        "{f}"
    );
    // The register the faulting instruction read, with the faulting lane's value (8 * 1 + 3
    // words into the array).
    assert_eq!(
        f["registers"],
        serde_json::json!([{"reg": "R3", "value": 0x2c}]),
        "{f}"
    );
    // An invalid trace: its error, rendered without colour.
    let o = warpjit(&["run", "tests/traces/fail/bad_program_inline.toml", "--json"]);
    assert_eq!(code(&o), 2);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON document");
    assert_eq!(doc["traces"][0]["outcome"], "invalid");
    assert!(doc["traces"][0]["error"]
        .as_str()
        .is_some_and(|e| e.contains("bad_program_inline.toml:15:9: error:")));
}

#[test]
fn dump_writes_every_segment_and_resource_after_the_run() {
    let dir = std::env::temp_dir().join(format!("warpjit-cli-dump-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let o = warpjit(&[
        "run",
        "examples/gather.toml",
        "--dump",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("the dump directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "global_0x0000000000010000.bin",
            "global_0x0000000000020000.bin",
            "global_0x00000001fffffff0.bin"
        ]
    );
    // out[i] = src[idx[i]] = 1000 + (7 i + 3) mod 16 for the 40 threads with i < n; the last 8
    // of the 48 words stay 0.
    let out = std::fs::read(dir.join("global_0x0000000000020000.bin")).expect("out");
    let words: Vec<u32> = out
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let want: Vec<u32> = (0..48)
        .map(|i| if i < 40 { 1000 + (7 * i + 3) % 16 } else { 0 })
        .collect();
    assert_eq!(words, want);
    // A buffer's bytes under its register name.
    let o = warpjit(&[
        "run",
        "tests/traces/dxbc_robust_access.toml",
        "--dump",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let u0 = std::fs::read(dir.join("u0.bin")).expect("u0");
    assert_eq!(u0.len(), 32);
    assert_eq!(&u0[..4], &8u32.to_le_bytes());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_real_bc7_encoder_runs_the_same_under_both_engines() {
    // DirectXTex's BC7 encoder (tests/traces/dxbc_bc7_encoder.toml): --engine both compares
    // every statistic and byte the interpreter and the JIT leave.
    let o = warpjit(&[
        "run",
        "tests/traces/dxbc_bc7_encoder.toml",
        "--engine",
        "both",
        "--allow-path",
        "tests/dxbc",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("interp: 1 launch, 8 warps, "),
        "{}",
        stdout(&o)
    );
}

#[test]
fn bench_and_gen_trace_refuse_unknown_workloads() {
    for args in [
        &["bench", "--kernel", "nope"][..],
        &["gen-trace", "nope", "-o", "/nonexistent"],
    ] {
        let o = warpjit(args);
        assert_eq!(code(&o), 64, "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("nope"), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn an_unwritable_clif_dump_directory_is_an_error() {
    let o = Command::new(env!("CARGO_BIN_EXE_warpjit"))
        .args(["run", "examples/gather.toml"])
        .env("WARPJIT_DUMP_CLIF", "/dev/null/clif")
        .current_dir(root())
        .output()
        .expect("runs");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("WARPJIT_DUMP_CLIF=/dev/null/clif: cannot write the CLIF dumps there"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn bench_json_is_one_document_with_engines_ratios_and_scaling() {
    let svg = std::env::temp_dir().join(format!("warpjit-cli-bench-{}.svg", std::process::id()));
    let o = warpjit(&[
        "bench",
        "--plot",
        svg.to_str().expect("utf-8 temp dir"),
        "--kernel",
        "loop",
        "--size",
        "256",
        "--iters",
        "1",
        "--threads",
        "2",
        "--json",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON document");
    let w = &doc["workloads"][0];
    assert_eq!(w["trace"], "loop");
    assert!(w["lane_instructions"].as_u64() > Some(0), "{w}");
    let engines: Vec<&str> = w["engines"]
        .as_array()
        .expect("engines")
        .iter()
        .map(|e| e["engine"].as_str().expect("name"))
        .collect();
    assert_eq!(engines, ["interp", "jit", "rust"]);
    for e in w["engines"].as_array().expect("engines") {
        assert!(e["run_seconds"].as_f64() > Some(0.0), "{e}");
        assert!(
            e["lane_instructions_per_second"].as_f64() > Some(0.0),
            "{e}"
        );
    }
    assert!(w["jit_over_interp"].as_f64() > Some(0.0), "{w}");
    // Scaling from one host thread to two, per engine, native code's included.
    for e in w["engines"].as_array().expect("engines") {
        let s = &e["scaling"];
        assert_eq!(s["threads"], 2, "{e}");
        for key in ["one_thread_seconds", "n_threads_seconds", "speedup"] {
            assert!(s[key].as_f64() > Some(0.0), "{key}: {e}");
        }
        // The best one-thread run on each core, and the speedup they would allow together.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let per_core = s["one_thread_seconds_per_core"]
            .as_array()
            .expect("per core");
        assert_eq!(per_core.len(), cores, "{e}");
        if cores >= 2 {
            assert!(s["ideal_speedup"].as_f64() > Some(1.0), "{e}");
        }
    }
    assert_eq!(doc["scaling_threads"], 2);
    for e in ["interp", "jit"] {
        assert!(
            doc["geometric_mean_speedup"][e].as_f64() > Some(0.0),
            "{doc}"
        );
    }
    for e in ["jit", "rust"] {
        assert!(
            doc["geometric_mean_speedup_rust_kernels"][e].as_f64() > Some(0.0),
            "{doc}"
        );
    }
    // --plot drew the chart: the workload and its three engines.
    let chart = std::fs::read_to_string(&svg).expect("--plot wrote the chart");
    let _ = std::fs::remove_file(&svg);
    for word in ["<svg", "loop", "interp", "jit", "rust"] {
        assert!(chart.contains(word), "{word} not in the chart");
    }
}

/// `warpjit disasm` prints a cubin as nvdisasm does, and that text, given back as the
/// launch's program, runs the trace the cubin passes with the same results.
#[test]
fn a_cubins_disassembly_runs_as_the_cubin() {
    let o = warpjit(&["disasm", "tests/cubin/vadd.cubin"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains(".text.vadd:"), "{text}");
    assert!(
        text.contains("/*0008*/                   MOV R1, c[0x0][0x20] ;"),
        "{text}"
    );
    assert!(text.contains("/* 0x4c98078000870001 */"), "{text}");
    let listing = scratch("vadd_disasm.sass", text.as_bytes());
    let trace = std::fs::read_to_string(root().join("tests/traces/cubin_vadd.toml")).unwrap();
    let trace = trace.replace(
        "code_file = \"../cubin/vadd.cubin\"",
        &format!(
            "code_file = {:?}\nkernel = \"vadd\"",
            listing.display().to_string()
        ),
    );
    assert!(trace.contains("kernel = \"vadd\""));
    let t = scratch("vadd_disasm.toml", trace.as_bytes());
    for engine in ["jit", "interp"] {
        let o = warpjit(&["run", "--engine", engine, t.to_str().unwrap()]);
        assert_eq!(code(&o), 0, "{engine}: {}{}", stdout(&o), stderr(&o));
    }
    // The same for `stack` (LDL/STL): as text, its listing has no stack size to default
    // `local_bytes` from, so the trace gives it.
    let o = warpjit(&["disasm", "tests/cubin/stack.cubin"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("LDL R2, [R0] ;"), "{text}");
    let listing = scratch("stack_disasm.sass", text.as_bytes());
    let trace = std::fs::read_to_string(root().join("tests/traces/cubin_stack.toml")).unwrap();
    let trace = trace.replace(
        "code_file = \"../cubin/stack.cubin\"",
        &format!(
            "code_file = {:?}\nlocal_bytes = 0x100",
            listing.display().to_string()
        ),
    );
    assert!(trace.contains("local_bytes = 0x100"));
    let t = scratch("stack_disasm.toml", trace.as_bytes());
    for engine in ["jit", "interp"] {
        let o = warpjit(&["run", "--engine", engine, t.to_str().unwrap()]);
        assert_eq!(code(&o), 0, "{engine}: {}{}", stdout(&o), stderr(&o));
    }
    // A kernel with BRX (a switch): its listing, each BRX with its targets in nvdisasm's note,
    // is the one tests/traces/switch_listing.toml runs as text (its jump tables in the trace's
    // bank 2).
    let o = warpjit(&["disasm", "tests/cubin/switch.cubin", "--kernel", "sw8"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("BRX R2 -0xb8 (*\"BRANCH_TARGETS .L_x_0,.L_x_1,.L_x_10\"*) ;"),
        "{text}"
    );
    let committed =
        std::fs::read_to_string(root().join("tests/traces/kernels/switch_sw8.sass")).unwrap();
    assert_eq!(text, committed);
    // A kernel that does not decode is left out, named, and the status is 2.
    let o = warpjit(&["disasm", "tests/cubin/unsupported.cubin"]);
    assert_eq!(code(&o), 2);
    assert!(
        stdout(&o).contains("// kernel `vadd3` left out"),
        "{}",
        stdout(&o)
    );
    assert!(
        stderr(&o).contains("error: kernel `vadd3`: instruction at 0x"),
        "{}",
        stderr(&o)
    );
    // An unknown kernel is an error listing those there are.
    let o = warpjit(&["disasm", "tests/cubin/memory.cubin", "--kernel", "nope"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("no kernel named `nope`"),
        "{}",
        stderr(&o)
    );
}

/// The table has a scaling section (one row per workload, a geometric mean per engine) when
/// `--threads` is above one, and none on one host thread.
#[test]
fn bench_reports_scaling_beyond_one_host_thread() {
    let args = |threads: &'static str| {
        [
            "bench",
            "--kernel",
            "stream",
            "--size",
            "512",
            "--iters",
            "1",
            "--threads",
            threads,
        ]
    };
    let o = warpjit(&args("2"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    let section = text
        .split_once("\nscaling: lane-instructions per second on 1 and on 2 host threads")
        .expect("a scaling section")
        .1;
    let row = section
        .lines()
        .find(|l| l.starts_with("stream "))
        .expect("a row for the kernel");
    assert_eq!(
        row.matches('x').count(),
        4,
        "the interpreter's, the JIT's (and its ideal) and native Rust's speedups: {row}"
    );
    assert!(
        section.contains("  ideal, each core at its own one-thread speed: interp "),
        "{text}"
    );
    assert!(
        section.contains("geometric mean speedup on 2 host threads: interp "),
        "{text}"
    );
    assert!(
        section.contains("on the kernels with a Rust version: jit "),
        "{text}"
    );
    assert!(!section.contains("CPU time"), "{text}");
    let o = warpjit(&args("1"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stdout(&o).contains("scaling"), "{}", stdout(&o));
}

/// `--engine both` runs each engine on one host thread, whatever `--threads` says: the CTAs of
/// `cubin_casloop` meet on the same global words in CAS retry loops, so on several threads their
/// retries, and the instruction counts, would change from run to run.
#[test]
fn engine_both_compares_communicating_ctas() {
    for _ in 0..3 {
        let o = warpjit(&[
            "run",
            "--engine",
            "both",
            "--threads",
            "2",
            "tests/traces/cubin_casloop.toml",
            "--allow-path",
            "tests/cubin",
        ]);
        assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    }
}

/// Misaligned accesses are legal (aligned down) but never silent: the summary line counts them,
/// the same under both engines (the JIT sends such lanes to the interpreter's code, which
/// counts; `--engine both` compares the counts). 64 CTAs x 224 misaligned lanes, by hand in the
/// trace's comment.
#[test]
fn the_summary_counts_misaligned_accesses() {
    for engine in ["interp", "jit", "both"] {
        let o = warpjit(&[
            "run",
            "tests/traces/misaligned_aligned_down.toml",
            "--engine",
            engine,
        ]);
        assert_eq!(code(&o), 0, "{engine}: {}", stderr(&o));
        let out = stdout(&o);
        for line in out.lines() {
            assert!(
                line.ends_with(
                    "; 14336 misaligned lane accesses aligned down (--check=memcheck reports them)"
                ),
                "{engine}: {line}"
            );
        }
    }
    // None in a trace without misaligned accesses.
    let o = warpjit(&["run", "examples/gather.toml"]);
    assert!(!stdout(&o).contains("misaligned"), "{}", stdout(&o));
}

/// Traces of different kinds share a directory: every side file is named after its kind, so
/// generating `gather` after `loop` leaves the `loop` trace intact (both still pass).
#[test]
fn generated_traces_of_two_kinds_share_a_directory() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-gen-two-kinds");
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().expect("utf-8 path");
    for kind in ["loop", "gather"] {
        let o = warpjit(&["gen-trace", kind, "--lane-instructions", "20000", "-o", d]);
        assert_eq!(code(&o), 0, "{kind}: {}", stderr(&o));
    }
    for kind in ["loop", "gather"] {
        for side in ["src", "idx", "expected"] {
            assert!(
                dir.join(format!("{kind}.{side}.bin")).is_file(),
                "{kind}.{side}.bin"
            );
        }
        let trace = dir.join(format!("{kind}.toml"));
        let o = warpjit(&["run", trace.to_str().expect("utf-8"), "--engine", "both"]);
        assert_eq!(code(&o), 0, "{kind}: {}{}", stdout(&o), stderr(&o));
    }
}

/// `bench TRACE` measures only the trace: its table says so (no thread count of the built-in
/// kernels), and the name column fits a long path.
#[test]
fn bench_of_a_trace_names_it_and_fits_its_path() {
    let o = warpjit(&[
        "bench",
        "tests/traces/misaligned_aligned_down.toml",
        "--iters",
        "1",
        "--threads",
        "1",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let mut lines = out.lines();
    let head = lines.next().expect("a header");
    assert!(
        head.starts_with("traces: as written, the median run of 1+ interleaved rounds"),
        "{out}"
    );
    assert!(!head.contains("threads"), "{out}");
    let columns = lines.next().expect("column names");
    let row = lines.next().expect("a row");
    let path = "tests/traces/misaligned_aligned_down.toml";
    assert!(row.starts_with(&format!("{path} ")), "{out}");
    // The columns after the name line up with their headings.
    let at = |line: &str, word: &str| line.find(word).expect(word) + word.len();
    assert_eq!(at(columns, "jit/interp"), at(row, "x"), "{out}");
}

/// `warpjit ARGS --allow-path tests`: the traces of tests/sanitize run kernels of tests/cubin.
fn warpjit_tests(args: &[&str]) -> std::process::Output {
    let mut v = args.to_vec();
    v.extend(["--allow-path", "tests"]);
    warpjit(&v)
}

/// `--check` runs the sanitizer: its reports on stderr, compute-sanitizer's words, each with the
/// instruction's source line, then a summary; errors exit 5 (a fault still 3), warnings alone 0;
/// `--check=TOOLS` runs those tools only; the output is the same for any `--threads`.
#[test]
fn check_runs_the_sanitizer_tools_and_errors_exit_5() {
    let o = warpjit_tests(&["run", "tests/sanitize/race_rotate.toml", "--check"]);
    assert_eq!(code(&o), 5, "{}", stderr(&o));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].starts_with(
            "racecheck: Error: Race reported between Write access at pc 0x00a8 in kernel race_rotate (launch 0) [64 hazards]"
        ),
        "{err}"
    );
    assert_eq!(
        lines[2], "    at tests/sanitize/../cubin/sanitize.cubin: instruction 168: STS [R7], R0",
        "{err}"
    );
    assert_eq!(
        lines.last().copied(),
        Some("check: 1 error, 0 warnings (racecheck 1)"),
        "{err}"
    );
    // The run itself passed: its summary line is there.
    assert!(
        stdout(&o).contains(" lane-instructions/s"),
        "{}",
        stdout(&o)
    );
    for threads in ["1", "3"] {
        let again = warpjit_tests(&[
            "run",
            "tests/sanitize/race_rotate.toml",
            "--check",
            "--threads",
            threads,
            "--engine",
            "interp",
        ]);
        assert_eq!(stderr(&again), err, "--threads {threads}");
    }
    // Only the tools asked for.
    let o = warpjit_tests(&[
        "run",
        "tests/sanitize/race_rotate.toml",
        "--check=memcheck,initcheck,synccheck,ub",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    let o = warpjit_tests(&[
        "run",
        "tests/sanitize/race_rotate.toml",
        "--check=racecheck",
    ]);
    assert_eq!(code(&o), 5, "{}", stderr(&o));
    // A warning alone leaves the status 0.
    let o = warpjit_tests(&["run", "tests/sanitize/warp_neighbour.toml", "--check"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).starts_with("racecheck: Warning: "),
        "{}",
        stderr(&o)
    );
    // An out-of-bounds access: the memcheck report, then the fault; status 3.
    let o = warpjit_tests(&["run", "tests/sanitize/oob_read.toml", "--check"]);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.starts_with("memcheck: Invalid __global__ read of size 4 bytes at pc 0x0090 in kernel oob_read (launch 0)\n  by thread (31,0,0) in block (1,0,0) (warp 0, lane 31)\n  Address 0x10100 is out of bounds and is 0 bytes after the nearest allocation at 0x10000 of size 256 bytes\n"),
        "{err}"
    );
    assert!(err.contains("\nfault: illegal address: "), "{err}");
    // An unknown tool is a usage error.
    let o = warpjit_tests(&["run", "examples/gather.toml", "--check=memcheck,leakcheck"]);
    assert_eq!(code(&o), 64);
    assert!(
        stderr(&o).contains(
            "--check: unknown check `leakcheck`: the checks are memcheck, racecheck, initcheck, synccheck, ub, or all"
        ),
        "{}",
        stderr(&o)
    );
    // Several traces: the worst status, and the count of traces with errors.
    let o = warpjit_tests(&[
        "run",
        "tests/sanitize/race_rotate.toml",
        "tests/sanitize/race_rotate_ok.toml",
        "--check",
    ]);
    assert_eq!(code(&o), 5);
    assert!(
        stdout(&o).contains(
            "2 traces: 1 passed, 0 with mismatches, 0 invalid, 0 faulted, 1 with --check errors"
        ),
        "{}",
        stdout(&o)
    );
    // JSON: the reports under "check".
    let o = warpjit_tests(&[
        "run",
        "tests/sanitize/uninit_shared.toml",
        "--check",
        "--json",
    ]);
    assert_eq!(code(&o), 5);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let check = &v["traces"][0]["check"];
    assert_eq!(check["errors"], 1);
    assert_eq!(check["reports"][0]["tool"], "initcheck");
    assert_eq!(check["reports"][0]["count"], 32);
    assert_eq!(v["traces"][0]["exit"], 5);
    assert_eq!(v["check_errors"], 1);
}

/// A trace reads side files only inside its own directory tree: tests/traces/cubin_vadd.toml
/// names `../cubin/vadd.cubin`, which `--allow-path` must allow.
#[test]
fn side_files_outside_the_trace_directory_need_allow_path() {
    let o = warpjit(&["run", "tests/traces/cubin_vadd.toml"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.starts_with(
            "tests/traces/cubin_vadd.toml:45:13: error: \"../cubin/vadd.cubin\" is outside the \
             trace's directory (tests/traces): a trace reads side files only inside its own \
             directory tree (`warpjit run --allow-path DIR` allows the files under DIR too)"
        ),
        "{err}"
    );
    assert!(stdout(&o).is_empty());
    for allow in ["tests/cubin", "tests", "."] {
        let o = warpjit(&["run", "tests/traces/cubin_vadd.toml", "--allow-path", allow]);
        assert_eq!(code(&o), 0, "--allow-path {allow}: {}", stderr(&o));
    }
    // Another directory does not do.
    let o = warpjit(&[
        "run",
        "tests/traces/cubin_vadd.toml",
        "--allow-path",
        "tests/dxbc",
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    // --allow-path names a directory.
    for bad in ["tests/no_such_dir", "tests/cli.rs"] {
        let o = warpjit(&["run", "examples/gather.toml", "--allow-path", bad]);
        assert_eq!(code(&o), 64, "{bad}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("--allow-path {bad}: not a directory")),
            "{}",
            stderr(&o)
        );
    }
}

/// `--dump DIR` never writes through a symbolic link already in DIR: each file is written anew
/// and renamed over the link, and a `DIR/<trace name>` that is a link is refused.
#[test]
fn dump_never_writes_through_a_symbolic_link() {
    let top = std::env::temp_dir().join(format!("warpjit-cli-dump-links-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&top);
    let (dir, elsewhere) = (top.join("dump"), top.join("elsewhere"));
    std::fs::create_dir_all(&dir).expect("dump dir");
    std::fs::create_dir_all(&elsewhere).expect("other dir");
    let victim = elsewhere.join("victim.txt");
    std::fs::write(&victim, b"the victim's own bytes").expect("victim");
    let planted = dir.join("global_0x0000000000020000.bin");
    std::os::unix::fs::symlink(&victim, &planted).expect("symlink");
    // A stale file is replaced too.
    std::fs::write(dir.join("global_0x0000000000010000.bin"), b"stale").expect("stale");
    let o = warpjit(&[
        "run",
        "examples/gather.toml",
        "--dump",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        std::fs::read(&victim).expect("victim"),
        b"the victim's own bytes",
        "the dump wrote through the link"
    );
    let meta = std::fs::symlink_metadata(&planted).expect("dumped");
    assert!(meta.file_type().is_file(), "{meta:?}");
    // The output segment: 48 words, out[0] = 1000 + 3.
    let out = std::fs::read(&planted).expect("out");
    assert_eq!(out.len(), 48 * 4);
    assert_eq!(&out[..4], &1003u32.to_le_bytes());
    assert_ne!(
        std::fs::read(dir.join("global_0x0000000000010000.bin")).expect("src"),
        b"stale"
    );
    // No temporary file is left behind.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("dump dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "global_0x0000000000010000.bin",
            "global_0x0000000000020000.bin",
            "global_0x00000001fffffff0.bin"
        ]
    );

    // With several traces each dumps into DIR/<trace name>/: a link there is refused (exit 2),
    // and nothing is written where it points.
    let several = top.join("several");
    std::fs::create_dir_all(&several).expect("dir");
    std::os::unix::fs::symlink(&elsewhere, several.join("gather")).expect("symlink");
    let o = warpjit(&[
        "run",
        "examples/gather.toml",
        "examples/const_table.toml",
        "--dump",
        several.to_str().expect("utf-8"),
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "warpjit: error: --dump {}: a symbolic link: a dump never writes through one",
            several.join("gather").display()
        )),
        "{}",
        stderr(&o)
    );
    let mut there: Vec<String> = std::fs::read_dir(&elsewhere)
        .expect("other dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    there.sort();
    assert_eq!(there, ["victim.txt"]);
    // The other trace's dump went where it belongs.
    assert!(several.join("const_table").is_dir());
    let _ = std::fs::remove_dir_all(&top);
}

/// A trace of 4 GiB resources (the largest a trace may have): a raw buffer that the first launch
/// writes at its first and last words, a typed buffer and a texture never touched, and a small
/// buffer the second launch copies the far words into.
const LARGE_RESOURCES: &str = r#"format = "warpjit-trace/1"

[[buffer]]
slot = 0
size = "0x1_0000_0000"

[[buffer]]
slot = 1
size = 16

[[buffer]]
slot = 2
format = "R32_UINT"
size = "0x1_0000_0000"

[[texture]]
slot = 0
dim = "2d"
format = "R32G32B32A32_UINT"
width = 16384
height = 16384

[[launch]]
isa = "dxbc"
code = """
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_thread_group 1, 1, 1
store_raw u0.x, l(0xfffffffc), l(0x12345678)
store_raw u0.x, l(0), l(7)
ret
"""

[[launch]]
isa = "dxbc"
code = """
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_uav_raw u1
dcl_resource_texture2d (uint,uint,uint,uint) t0
dcl_temps 2
dcl_thread_group 1, 1, 1
ld_raw r0.x, l(0xfffffffc), u0.xxxx
ld_raw r0.y, l(0), u0.xxxx
ld_indexable(texture2d)(uint,uint,uint,uint) r1.xyzw, l(16383, 16383, 0, 0), t0.xyzw
iadd r0.z, r1.x, l(9)
store_raw u1.xyz, l(0), r0.xyzx
ret
"""

[[expect_buffer]]
slot = 1
u32 = [0x12345678, 7, 9, 0]

[[expect_buffer]]
slot = 0
u32 = [7]
"#;

/// Runs `warpjit ARGS` with its address space limited to `limit_as` bytes (when given); returns
/// its exit status (`None`: killed by a signal), stderr and peak resident memory in KiB.
// The child is reaped by `wait4` (for its own rusage), which clippy does not see.
#[allow(clippy::zombie_processes)]
fn run_measured(args: &[&str], limit_as: Option<u64>) -> (Option<i32>, String, i64) {
    use std::io::Read;
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_warpjit"));
    cmd.args(args)
        .current_dir(root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    if let Some(limit) = limit_as {
        // SAFETY: setrlimit is async-signal-safe, and the closure touches nothing else.
        unsafe {
            cmd.pre_exec(move || {
                let r = libc::rlimit {
                    rlim_cur: limit,
                    rlim_max: limit,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &r) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let mut child = cmd.spawn().expect("the warpjit binary runs");
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid out-parameter.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: our own child, waited for once, with valid out-pointers.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t, "wait4");
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (code, err, usage.ru_maxrss)
}

/// Resources of 4 GiB are lazily committed mappings: a run touches a few pages of them, whatever
/// the engine (and `--engine both`, which compares every byte of them); under an address-space
/// limit that cannot hold them the trace is invalid (exit 2, located at the table), never an
/// abort (exit 134) or a signal.
#[test]
fn large_resources_run_in_little_memory_or_fail_located() {
    let trace = scratch("large_resources.toml", LARGE_RESOURCES.as_bytes());
    let path = trace.to_str().expect("utf-8");
    for engine in ["interp", "jit", "both"] {
        let (code, err, rss_kib) = run_measured(&["run", path, "--engine", engine], None);
        assert_eq!(code, Some(0), "{engine}: {err}");
        // 12 GiB of resources; the run touches a few pages of them.
        assert!(rss_kib < 512 * 1024, "{engine}: peak RSS {rss_kib} KiB");
    }
    // 3 GB of address space cannot hold a 4 GiB resource.
    for engine in ["interp", "jit"] {
        let (code, err, _) = run_measured(&["run", path, "--engine", engine], Some(3_000_000_000));
        assert_eq!(code, Some(2), "{engine}: {err}");
        assert!(
            err.contains("large_resources.toml:")
                && err.contains(": error: the ")
                && err.contains("cannot map 4294967296 bytes of memory for the resource"),
            "{engine}: {err}"
        );
    }
}

/// Memory after a fault is not defined (docs/semantics.md §10): 256 CTAs store their ids and
/// CTA 3 spins into its share of the launch budget; the fault is the same on 1, 2 and 8 host
/// threads (CTAs after the faulting one may have run on the others), and `--dump` writes no
/// file, says why, and gives an empty `dumped` list in `--json`.
#[test]
fn memory_after_a_fault_is_not_dumped_whatever_the_thread_count() {
    let trace = "tests/traces/fail/fault_memory_after.toml";
    let mut faults = Vec::new();
    for threads in ["1", "2", "8"] {
        let dir = std::env::temp_dir().join(format!(
            "warpjit-cli-fault-dump-{}-{threads}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let d = dir.to_str().expect("utf-8");
        let o = warpjit(&["run", trace, "--threads", threads, "--dump", d]);
        assert_eq!(code(&o), 3, "{}", stderr(&o));
        let err = stderr(&o);
        faults.push(err.lines().next().unwrap_or_default().to_string());
        assert!(
            err.contains(&format!(
                "warpjit: --dump {d}: nothing written: a launch faulted, and what memory holds \
                 after a fault is not defined (docs/semantics.md §10)"
            )),
            "{err}"
        );
        assert!(
            !dir.exists(),
            "--threads {threads}: {} was made",
            dir.display()
        );
        let o = warpjit(&["run", trace, "--threads", threads, "--dump", d, "--json"]);
        assert_eq!(code(&o), 3);
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        assert_eq!(doc["traces"][0]["dumped"], serde_json::json!([]));
        assert!(!dir.exists());
    }
    assert!(
        faults[0].contains("(launch 0, CTA (3, 0, 0), warp 0, lane 0, pc 0x0050)"),
        "{}",
        faults[0]
    );
    assert!(faults.iter().all(|f| *f == faults[0]), "{faults:?}");
}
