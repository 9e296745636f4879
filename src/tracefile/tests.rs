//! Loader tests: every validation error, where it points, and the model of valid traces.

use super::*;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A scratch directory for this test process.
fn scratch_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpjit-trace-tests-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&d);
    d
}

/// Writes `text` to a fresh `t<N>.toml` in the scratch directory and loads it.
fn load_text(text: &str) -> Result<Trace, TraceError> {
    static N: AtomicUsize = AtomicUsize::new(0);
    let path = scratch_dir().join(format!("t{}.toml", N.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&path, text).expect("scratch file");
    load(&path)
}

const HEAD: &str = "format = \"warpjit-trace/1\"\n";

/// The error for `HEAD + body`, as `LINE:COL: MESSAGE` (path dropped), checking the rendering.
fn err(body: &str) -> String {
    let text = format!("{HEAD}{body}");
    let e = match load_text(&text) {
        Ok(_) => panic!("loaded:\n{text}"),
        Err(e) => e,
    };
    let shown = e.to_string();
    let first = shown.lines().next().unwrap_or("");
    let (_, rest) = first.split_once(".toml:").unwrap_or(("", first));
    let rest = rest.replacen(": error: ", ": ", 1);
    // The offending line follows, as the text of that line of the trace.
    let d = e.diagnostic();
    if let (Some(line), Some(line_text)) = (d.line(), d.line_text()) {
        assert_eq!(
            line_text,
            text.lines().nth(line as usize - 1).unwrap_or(""),
            "{shown}"
        );
        let excerpt = shown.lines().nth(1).unwrap_or("");
        assert!(excerpt.starts_with(&format!("{line} | ")), "{shown}");
    }
    rest
}

fn ok(body: &str) -> Trace {
    match load_text(&format!("{HEAD}{body}")) {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    }
}

const EXIT: &str = "[[launch]]\ncode = \"EXIT;\"\n";

#[test]
fn format_and_machine() {
    assert!(ok("").launches.is_empty());
    let e = match load_text("format = \"warpjit-trace/2\"\n") {
        Err(e) => e.to_string(),
        Ok(_) => panic!("loaded"),
    };
    assert!(
        e.contains(":1:10: error: unsupported trace format \"warpjit-trace/2\""),
        "{e}"
    );
    assert_eq!(
        err("[machine]\nshared_window = 0x1234\n"),
        "3:17: shared_window 0x1234 is not 16 MiB aligned (a multiple of 0x1000000)"
    );
    assert_eq!(
        err("[machine]\nshared_window = 0x1_0000_0000\n"),
        "3:17: shared_window 0x100000000: the 16 MiB window must lie below 4 GiB (0x100000000)"
    );
    assert_eq!(
        err("[machine]\nwindow = 0\n"),
        "3:1: unknown field `window`, expected one of `shared_window`, `local_window`, `launch_budget`, `quantum`"
    );
    assert_eq!(
        ok("[machine]\nshared_window = 0xff00_0000\n").shared_window,
        0xff00_0000
    );
    assert_eq!(ok("[machine]\nshared_window = 0\n").shared_window, 0);
    assert_eq!(ok("").shared_window, warpjit_runtime::DEFAULT_SHARED_WINDOW);
    assert!(err("bogus = 1\n").starts_with("2:1: unknown field `bogus`"));
    assert!(
        err("format = \"x\"\n").starts_with("2:1: duplicate key"),
        "{}",
        err("format = \"x\"\n")
    );
}

#[test]
fn global_segments() {
    assert!(err("[[global]]\naddr = 0x10\nu32 = [1]\nu8 = [1]\n")
        .starts_with("5:6: `u8` conflicts with `u32`"));
    assert_eq!(
        err("[[global]]\naddr = 0x10\nsize = 3\nu32 = [1]\n"),
        "4:8: size 0x3 is smaller than the data (0x4 bytes)"
    );
    assert_eq!(
        err("[[global]]\naddr = 0x10\n"),
        "2:1: [[global]] needs a `size` or one of the data keys u32, i32, f32, u8, file"
    );
    assert_eq!(
        err("[[global]]\naddr = 0x10\nu32 = []\n"),
        "4:7: the data is empty: give the segment a `size`"
    );
    assert_eq!(
        err("[[global]]\naddr = 0x10\nsize = 0\n"),
        "4:8: size must be at least 1"
    );
    assert_eq!(
        err("[[global]]\naddr = -1\nsize = 4\n"),
        "3:8: invalid value: integer `-1`, expected a non-negative integer, or a string holding a \
         decimal or 0x hexadecimal integer below 2^64"
    );
    assert_eq!(
        err("[[global]]\naddr = 0x10\nu8 = [256]\n"),
        "4:7: invalid value: integer `256`, expected u8"
    );
    assert_eq!(
        err("[[global]]\naddr = 0x10\nsize = 8\n[[global]]\naddr = 0x14\nsize = 8\n"),
        "6:8: segment [0x14, +0x8) overlaps segment [0x10, +0x8)"
    );
    assert!(
        err("[[global]]\naddr = 0x10\nfile = \"no_such.bin\"\n").starts_with("4:8: cannot read ")
    );
    let t = ok("[[global]]\naddr = 0x10\nsize = 16\ni32 = [-1, 2]\n[[global]]\naddr = 0x20\nu8 = [1, 2, 3]\n");
    assert_eq!(t.globals.len(), 2);
    assert_eq!(t.globals[0].data, Some(Data::I32(vec![-1, 2])));
    assert_eq!(t.globals[1].size, 3);
    assert_eq!(t.globals[1].line, 6);
    assert_eq!(
        t.machine.global.read_bytes(0x10, 8).ok(),
        Some(vec![0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0])
    );
    assert_eq!(
        t.machine.global.read_bytes(0x20, 3).ok(),
        Some(vec![1, 2, 3])
    );
}

#[test]
fn side_files_are_relative_to_the_trace() {
    let dir = scratch_dir().join("side");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("data.bin"), [1u8, 2, 3, 4, 5]).expect("file");
    std::fs::write(dir.join("k.sass"), "EXIT;\n").expect("file");
    let trace = dir.join("t.toml");
    std::fs::write(
        &trace,
        format!(
            "{HEAD}[[global]]\naddr = 0x100\nsize = 8\nfile = \"data.bin\"\n[[expect]]\naddr = 0x100\nfile = \"data.bin\"\n\
             [[launch]]\ncode_file = \"k.sass\"\n"
        ),
    )
    .expect("trace");
    let t = load(&trace).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        t.machine.global.read_bytes(0x100, 8).ok(),
        Some(vec![1, 2, 3, 4, 5, 0, 0, 0])
    );
    assert_eq!(
        t.expects[0].data,
        Data::File {
            path: std::fs::canonicalize(dir.join("data.bin")).expect("real path"),
            len: 5
        }
    );
    assert_eq!(t.launches[0].program_path, dir.join("k.sass"));
    // A side file that is a directory.
    std::fs::write(
        &trace,
        format!("{HEAD}[[global]]\naddr = 0x100\nfile = \".\"\n"),
    )
    .expect("trace");
    let e = load(&trace)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.contains(":4:8: error: ") && e.contains("is a directory, not a regular file"),
        "{e}"
    );
    // A code file that is missing.
    std::fs::write(
        &trace,
        format!("{HEAD}[[launch]]\ncode_file = \"nope.sass\"\n"),
    )
    .expect("trace");
    let e = load(&trace)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.contains(":3:13: error: cannot read ") && e.contains("nope.sass"),
        "{e}"
    );
}

/// The error loading `dir/t.toml` holding `body` with `opts`, or `None` when it loads.
fn confined(dir: &Path, body: &str, opts: &LoadOptions) -> Option<String> {
    let path = dir.join("t.toml");
    std::fs::write(&path, format!("{HEAD}{body}")).expect("trace");
    load_with(&path, opts).err().map(|e| e.to_string())
}

#[test]
fn side_files_stay_inside_the_trace_directory() {
    // outside/secret.bin and outside/k.sass next to the trace's directory, inner/.
    let top = scratch_sub("confine");
    let (inner, outside) = (top.join("inner"), top.join("outside"));
    for d in [&inner, &outside, &inner.join("sub")] {
        std::fs::create_dir_all(d).expect("dir");
    }
    std::fs::write(outside.join("secret.bin"), b"SECRET-BYTES").expect("file");
    std::fs::write(outside.join("k.sass"), "SECRET LINE;\n").expect("file");
    std::fs::write(inner.join("data.bin"), [1u8, 2, 3, 4]).expect("file");
    std::fs::write(inner.join("sub/data.bin"), [5u8, 6, 7, 8]).expect("file");
    let link = |name: &str, to: &str| {
        let at = inner.join(name);
        let _ = std::fs::remove_file(&at);
        std::os::unix::fs::symlink(to, &at).expect("symlink");
    };
    link("escape.bin", "../outside/secret.bin");
    link(
        "abs_escape.bin",
        outside.join("secret.bin").to_str().expect("utf-8"),
    );
    link("dir_escape", "../outside");
    link("k_escape.sass", "../outside/k.sass");
    link("inside.bin", "sub/data.bin");
    let secret = outside.join("secret.bin").display().to_string();
    let seg = |file: &str| format!("[[global]]\naddr = 0x100\nsize = 16\nfile = {file:?}\n");
    let default = LoadOptions::default();

    // Inside the tree: a subdirectory, `..` that stays inside, a link to a file inside.
    for file in [
        "data.bin",
        "sub/data.bin",
        "sub/../data.bin",
        "./inside.bin",
    ] {
        assert_eq!(confined(&inner, &seg(file), &default), None, "{file}");
    }
    let t = load(&inner.join("t.toml")).expect("loads");
    assert_eq!(
        t.globals[0].data,
        Some(Data::File {
            path: std::fs::canonicalize(inner.join("sub/data.bin")).expect("real path"),
            len: 4
        })
    );

    // A trace reached through a linked directory (`via` -> `inner`) may name its files by
    // absolute paths through the link; `..` out of the link's target is still refused.
    let via = top.join("via");
    let _ = std::fs::remove_file(&via);
    std::os::unix::fs::symlink(&inner, &via).expect("symlink");
    let through = via.join("sub/data.bin").display().to_string();
    assert_eq!(confined(&via, &seg(&through), &default), None, "{through}");
    let escape = format!("{}/../outside/secret.bin", via.display());
    let e = confined(&via, &seg(&escape), &default).expect("refused");
    assert!(e.contains("is outside the trace's directory"), "{e}");

    // Outside as written: refused at the value, before the file is looked at (a name that does
    // not exist gives the same error).
    let outside_as_written = [
        (secret.clone(), secret.clone()),
        (
            "../outside/secret.bin".to_string(),
            "../outside/secret.bin".to_string(),
        ),
        (
            "sub/../../outside/no_such.bin".to_string(),
            "sub/../../outside/no_such.bin".to_string(),
        ),
        ("/etc/hostname".to_string(), "/etc/hostname".to_string()),
    ];
    for (file, shown) in &outside_as_written {
        let e = confined(&inner, &seg(file), &default).expect("refused");
        assert!(
            e.contains(&format!(
                "t.toml:5:8: error: {shown:?} is outside the trace's directory ("
            )) && e.contains("`warpjit run --allow-path DIR` allows the files under DIR too"),
            "{file}: {e}"
        );
    }
    // Outside through a symbolic link inside the tree: to a file, by a relative or an absolute
    // target, or through a linked directory.
    for file in ["escape.bin", "abs_escape.bin", "dir_escape/secret.bin"] {
        let e = confined(&inner, &seg(file), &default).expect("refused");
        assert!(
            e.contains(&format!(
                "t.toml:5:8: error: {file:?} leads through a symbolic link to {secret}, outside the trace's directory"
            )),
            "{file}: {e}"
        );
        assert!(!e.contains("SECRET"), "{e}");
    }
    // Every key that names a side file: code_file (whose lines an error would quote), and the
    // expectations' data.
    for (body, at) in [
        (
            "[[launch]]\ncode_file = \"k_escape.sass\"\n".to_string(),
            "3:13",
        ),
        (
            "[[launch]]\ncode_file = \"../outside/k.sass\"\n".to_string(),
            "3:13",
        ),
        (
            format!(
                "{}[[expect]]\naddr = 0x100\nfile = \"escape.bin\"\n",
                seg("data.bin")
            ),
            "8:8",
        ),
        (
            "[[buffer]]\nslot = 0\nfile = \"../outside/secret.bin\"\n".to_string(),
            "4:8",
        ),
    ] {
        let e = confined(&inner, &body, &default).expect("refused");
        assert!(e.contains(&format!("t.toml:{at}: error: ")), "{body}: {e}");
        assert!(e.contains("outside the trace's directory"), "{body}: {e}");
        assert!(!e.contains("SECRET"), "{body}: {e}");
    }

    // Allowed explicitly: the directory's files load, whichever way they are named.
    let allow = LoadOptions {
        allow_paths: vec![outside.clone()],
    };
    for file in [
        secret.as_str(),
        "../outside/secret.bin",
        "escape.bin",
        "dir_escape/secret.bin",
    ] {
        assert_eq!(confined(&inner, &seg(file), &allow), None, "{file}");
    }
    let t = load_with(&inner.join("t.toml"), &allow).expect("loads");
    assert_eq!(
        t.machine.global.read_bytes(0x100, 12).ok(),
        Some(b"SECRET-BYTES".to_vec())
    );
    // Allowing another directory does not allow everything.
    let e = confined(&inner, &seg("/etc/hostname"), &allow).expect("refused");
    assert!(e.contains("is outside the trace's directory"), "{e}");
    // `/` allows every file.
    let any = LoadOptions {
        allow_paths: vec!["/".into()],
    };
    assert_eq!(confined(&inner, &seg(&secret), &any), None);
}

#[test]
fn sparse_regions() {
    let seg = "[[global]]\naddr = 0x20000\nsize = 0x20000\n";
    assert_eq!(
        err(&format!("{seg}[[sparse]]\naddr = 0x28000\nsize = 0x10000\n")),
        "6:8: sparse region [0x28000, +0x10000) must be 64 KiB aligned with a non-zero size a multiple of 64 KiB"
    );
    assert_eq!(
        err(&format!(
            "{seg}[[sparse]]\naddr = 0x40000\nsize = 0x10000\n"
        )),
        "6:8: sparse region [0x40000, +0x10000) is not inside mapped global memory"
    );
    assert!(
        err(&format!("{seg}[[sparse]]\naddr = 0x20000\n")).starts_with("5:1: missing field `size`")
    );
    let t = ok(&format!(
        "{seg}[[sparse]]\naddr = 0x30000\nsize = 0x10000\n"
    ));
    assert_eq!(
        t.sparse,
        vec![SparseRegion {
            addr: 0x30000,
            size: 0x10000
        }]
    );
    assert!(t.machine.global.is_sparse(0x30000));
    assert!(!t.machine.global.is_sparse(0x2ffff));
}

#[test]
fn constant_banks() {
    assert_eq!(
        err("[[const]]\nbank = 32\nu32 = [1]\n"),
        "3:8: bank 32 does not exist: there are 32 constant banks (0 to 31)"
    );
    assert_eq!(
        err("[[const]]\nbank = 1\noffset = 0xfffc\nu32 = [1, 2]\n"),
        "4:10: 0x8 bytes at offset 0xfffc run past the end of the 64 KiB bank (0x10000)"
    );
    assert_eq!(
        err("[[const]]\nbank = 1\n"),
        "2:1: [[const]] needs one of the data keys u32, i32, f32, u8, file"
    );
    assert_eq!(
        err("[[const]]\nbank = 1\noffset = 8\nu32 = [1, 2]\n[[const]]\nbank = 1\noffset = 12\nu8 = [1]\n"),
        "8:10: c[0x1][0xc..0xd] overlaps the [[const]] at line 2 (c[0x1][0x8..0x10])"
    );
    let t =
        ok("[[const]]\nbank = 31\noffset = 0xfffc\nf32 = [1.5]\n[[const]]\nbank = 0\nu8 = [7]\n");
    assert_eq!(t.base_consts().read(31, 0xfffc, 4, false)[0], 0x3fc0_0000);
    assert_eq!(
        t.consts[1],
        ConstData {
            bank: 0,
            offset: 0,
            bytes: vec![7],
            line: 6
        }
    );
}

#[test]
fn launch_constants_are_filled_byte_by_byte() {
    let t = ok("[[const]]\nbank = 0\noffset = 0x9\nu8 = [0xaa]\n[[const]]\nbank = 0\noffset = 0xfc\nu8 = [0xbb]\n\
                [[launch]]\ngrid = [7, 8]\nblock = [0x234, 1, 1]\nshared_bytes = 0x345678\ncode = \"EXIT;\"\n");
    let c = t.launch_consts(&t.launches[0]);
    let w = |a| c.read(0, a, 4, false)[0];
    assert_eq!(w(0x0), 0x0100_0000);
    assert_eq!(w(0x4), 0);
    assert_eq!(w(0x8), 0x0000_aa34, "byte 0x9 is the trace's");
    assert_eq!((w(0xc), w(0x10)), (1, 1));
    assert_eq!((w(0x14), w(0x18), w(0x1c)), (7, 8, 1));
    assert_eq!(w(0x20), 0);
    assert_eq!(w(0xfc), 0x0034_56bb, "byte 0xfc is the trace's");
    assert_eq!(w(0x24), 0, "nothing past 0x24");
    let l = t.launch(&t.launches[0]);
    assert_eq!(l.consts.read(0, 0x14, 4, false)[0], 7);
    assert_eq!(
        (l.grid, l.block, l.index, l.shared_bytes),
        ([7, 8, 1], [0x234, 1, 1], 0, 0x345678)
    );
}

/// `[machine] quantum` and `[[launch]] cooperative`: the quantum reaches the machine (at least
/// 1); a cooperative launch gets the grid workspace, mapped once and zeroed, its address in
/// c[0][0x34] (high word) and c[0][0x38] (low word) unless the trace's data covers them, and
/// other launches do not; cooperative is SASS only, and its grid at most what the device holds.
#[test]
fn quantum_and_cooperative_launches() {
    assert_eq!(ok(EXIT).machine.quantum, crate::exec::DEFAULT_QUANTUM);
    assert_eq!(
        ok(&format!("[machine]\nquantum = \"0x10\"\n{EXIT}"))
            .machine
            .quantum,
        16
    );
    assert_eq!(
        err("[machine]\nquantum = 0\n"),
        "3:11: quantum must be at least 1 warp instruction"
    );
    let t = ok("[[const]]\nbank = 0\noffset = 0x38\nu8 = [0xdd]\n\
                [[launch]]\ngrid = [4]\ncooperative = true\ncode = \"EXIT;\"\n\
                [[launch]]\ncooperative = false\ncode = \"EXIT;\"\n");
    let w = |i: usize, a| t.launch_consts(&t.launches[i]).read(0, a, 4, false)[0];
    let base = super::GRID_WORKSPACE;
    assert_eq!(
        (w(0, 0x34), w(0, 0x38)),
        ((base >> 32) as u32, base as u32 & !0xff | 0xdd),
        "byte 0x38 is the trace's"
    );
    assert_eq!((w(1, 0x34), w(1, 0x38)), (0, 0xdd));
    assert!(t.launch(&t.launches[0]).cooperative);
    assert!(!t.launch(&t.launches[1]).cooperative);
    let ws = t
        .machine
        .global
        .read_bytes(base, super::GRID_WORKSPACE_BYTES)
        .expect("mapped");
    assert!(ws.iter().all(|&b| b == 0));
    // Without a cooperative launch, no workspace.
    assert!(ok(EXIT).machine.global.read_bytes(base, 4).is_err());
    // A trace segment where the workspace goes.
    assert!(err(&format!(
        "[[global]]\naddr = {base:#x}\nsize = 16\n[[launch]]\ncooperative = true\ncode = \"EXIT;\"\n"
    ))
    .contains("the grid workspace of cooperative launches (0x100 bytes at 0x7e0000000000)"));
    // DXBC has no cooperative launches.
    assert!(
        err("[[launch]]\nisa = \"dxbc\"\ncooperative = true\ncode = \"cs_5_0\"\n")
            .contains("`cooperative` launches are CUDA's: a DXBC program cannot have one")
    );
    // 16 SMs x 2 CTAs of 1024 threads with 32 registers: 32 resident, 33 too many.
    let coop = |n: u32| {
        format!("[[launch]]\ngrid = [{n}]\nblock = [1024]\nregisters = 32\ncooperative = true\ncode = \"EXIT;\"\n")
    };
    assert_eq!(ok(&coop(32)).launches[0].grid, [32, 1, 1]);
    assert!(err(&coop(33))
        .contains("this grid has 33 CTAs, and the device (16 SMs of a GTX 980) holds 32"));
}

#[test]
fn launch_const_tables_are_for_their_launch_only() {
    // The trace gives c[0][0x140..0x148] and c[3][0]; launch 0 overrides c[0][0x144..0x14c] and
    // a launch constant (c[0][0x8], ntid.x); launch 1 sees the trace's data again.
    let t = ok(
        "[[const]]\nbank = 0\noffset = 0x140\nu32 = [1, 2]\n[[const]]\nbank = 3\nu32 = [9]\n\
                [[launch]]\nblock = [64]\ncode = \"EXIT;\"\n\
                [[launch.const]]\nbank = 0\noffset = 0x144\nu32 = [20, 30]\n\
                [[launch.const]]\nbank = 0\noffset = 0x8\nu8 = [0x77]\n\
                [[launch.const]]\nbank = 17\nf32 = [0.5]\n\
                [[launch]]\nblock = [64]\ncode = \"EXIT;\"\n",
    );
    assert_eq!(
        t.launches[0].consts[0],
        ConstData {
            bank: 0,
            offset: 0x144,
            bytes: [20u32, 30].iter().flat_map(|w| w.to_le_bytes()).collect(),
            line: 12
        }
    );
    assert_eq!(t.launches[0].params, None);
    let c = t.launch_consts(&t.launches[0]);
    let w = |b, a| c.read(b, a, 4, false)[0];
    assert_eq!((w(0, 0x140), w(0, 0x144), w(0, 0x148)), (1, 20, 30));
    assert_eq!(w(0, 0x8), 0x77, "over the launch constant (ntid.x = 64)");
    assert_eq!((w(3, 0), w(17, 0)), (9, 0x3f00_0000));
    let c = t.launch_consts(&t.launches[1]);
    let w = |b, a| c.read(b, a, 4, false)[0];
    assert_eq!((w(0, 0x140), w(0, 0x144), w(0, 0x148)), (1, 2, 0));
    assert_eq!((w(0, 0x8), w(3, 0), w(17, 0)), (64, 9, 0));
    // The trace's own data is unchanged.
    assert_eq!(t.base_consts().read(0, 0x144, 4, false)[0], 2);

    // The same rules as [[const]], within the launch: tables of one launch may not overlap (those
    // of different launches may, and may cover the trace's).
    let head = "[[launch]]\ncode = \"EXIT;\"\n";
    assert_eq!(
        err(&format!("{head}[[launch.const]]\nbank = 0\noffset = 0x140\nu32 = [1, 2]\n\
                      [[launch.const]]\nbank = 0\noffset = 0x144\nu32 = [3]\n")),
        "10:10: c[0x0][0x144..0x148] overlaps the [[launch.const]] at line 4 (c[0x0][0x140..0x148])"
    );
    assert!(ok(&format!(
        "{head}[[launch.const]]\nbank = 0\nu32 = [1]\n\
                         {head}[[launch.const]]\nbank = 0\nu32 = [2]\n"
    ))
    .launches
    .iter()
    .all(|l| l.consts.len() == 1));
    assert_eq!(
        err(&format!("{head}[[launch.const]]\nbank = 32\nu32 = [1]\n")),
        "5:8: bank 32 does not exist: there are 32 constant banks (0 to 31)"
    );
    assert_eq!(
        err(&format!("{head}[[launch.const]]\nbank = 1\n")),
        "4:1: [[launch.const]] needs one of the data keys u32, i32, f32, u8, file"
    );
    assert_eq!(
        err(&format!(
            "{head}[[launch.const]]\nbank = 1\noffset = 0xfffe\nu32 = [1]\n"
        )),
        "6:10: 0x4 bytes at offset 0xfffe run past the end of the 64 KiB bank (0x10000)"
    );
    assert!(err(&format!(
        "{head}[[launch.const]]\nbank = 1\naddr = 0\nu32 = [1]\n"
    ))
    .starts_with("6:1: unknown field `addr`"));
}

/// A scratch directory holding tests/cubin/params.cubin, and a trace of `body` there: the error
/// rendered, or the trace.
fn with_params_cubin(body: &str) -> Result<Trace, String> {
    let dir = scratch_sub("params");
    let cubin = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cubin/params.cubin");
    std::fs::copy(cubin, dir.join("params.cubin")).expect("fixture");
    let path = dir.join("t.toml");
    std::fs::write(&path, format!("{HEAD}{body}")).expect("trace");
    load(&path).map_err(|e| e.to_string())
}

#[test]
fn params_are_laid_out_by_the_parameter_table() {
    let scan = |params: &str| {
        with_params_cubin(&format!(
            "[[launch]]\ncode_file = \"params.cubin\"\nkernel = \"scan_block\"\nparams = {params}\n"
        ))
    };
    // scan_block(const unsigned *, unsigned *, unsigned *, unsigned): 8, 8, 8, 4 bytes.
    let t = scan("[{ ptr = 0x10000 }, \"0xffff_ffff_ffff_fff0\", 0x30000, 7]").expect("loads");
    let p = t.launches[0].params.clone().expect("params");
    assert_eq!((p.bank, p.offset, p.bytes.len(), p.line), (0, 0x140, 28, 5));
    let c = t.launch_consts(&t.launches[0]);
    let w = |a| c.read(0, a, 4, false)[0];
    assert_eq!(
        [
            w(0x140),
            w(0x144),
            w(0x148),
            w(0x14c),
            w(0x150),
            w(0x154),
            w(0x158)
        ],
        [0x10000, 0, 0xffff_fff0, 0xffff_ffff, 0x30000, 0, 7]
    );
    // Errors point at the value (or at the list for the count).
    let e = |params: &str| scan(params).err().expect("refused");
    let msg = e("[0, 0, 0]");
    assert!(
        msg.contains("t.toml:5:10: error: kernel `scan_block`: the kernel takes 4 parameters (8, 8, 8, 4 bytes), and 3 are given"),
        "{msg}"
    );
    let msg = e("[0, 0, 0, 1, 2]");
    assert!(
        msg.contains("t.toml:5:23: error: kernel `scan_block`: the kernel takes 4 parameters"),
        "{msg}"
    );
    let msg = e("[0, 0, 0, 0x1_0000_0000]");
    assert!(
        msg.contains("t.toml:5:20: error: kernel `scan_block`: parameter 3 (c[0x0][0x158], 4 bytes): 4294967296 does not fit a 4-byte parameter (-2147483648 to 4294967295)"),
        "{msg}"
    );
    let msg = e("[0, { u32 = 1 }, 0, 0]");
    assert!(
        msg.contains("t.toml:5:14: error: kernel `scan_block`: parameter 1 (c[0x0][0x148], 8 bytes): a u32 (4 bytes) does not fit a 8-byte parameter"),
        "{msg}"
    );
    // The table gives sizes, not types: a float fits an 8-byte parameter as a double.
    assert!(scan("[0, 0, 1.5, 0]").is_ok());
    let msg = e("[0, 0, 0, { u32 = -1 }]");
    assert!(
        msg.contains("t.toml:5:28: error: -1 is out of range for a `u32` (0 to 4294967295)"),
        "{msg}"
    );
    let msg = e("[0, 0, 0, { u23 = 1 }]");
    assert!(
        msg.contains("t.toml:5:20: error: unknown parameter type `u23`: expected one of u8, i8, u16, i16, u32, i32, u64, i64, f32, f64, ptr, bytes")
            && msg.contains("did you mean `u32`?"),
        "{msg}"
    );
    let msg = e("[0, 0, 0, { u32 = 1, i32 = 2 }]");
    assert!(msg.contains("a typed parameter value has one key"), "{msg}");
    let msg = e("[0, 0, 0, true]");
    assert!(
        msg.contains("t.toml:5:20: error: ") && msg.contains("a parameter value"),
        "{msg}"
    );
    let msg = e("[0, 0, 0, \"12x\"]");
    assert!(
        msg.contains("t.toml:5:20: error: invalid 64-bit value \"12x\""),
        "{msg}"
    );
    let msg = e("[0, 0, 0, { bytes = [1, 256, 3, 4] }]");
    assert!(
        msg.contains("`bytes` holds integers from 0 to 255"),
        "{msg}"
    );
    let msg = e("[0, 0, 0, { bytes = [1, 2] }]");
    assert!(
        msg.contains("2 bytes does not fit a 4-byte parameter"),
        "{msg}"
    );
    // Given with the typed forms, the same bytes.
    let t =
        scan("[{ u64 = 0x10000 }, { i64 = -16 }, { ptr = \"0x30000\" }, { bytes = [7, 0, 0, 0] }]")
            .expect("loads");
    let c = t.launch_consts(&t.launches[0]);
    assert_eq!(c.read(0, 0x148, 4, false)[0], 0xffff_fff0);
    assert_eq!(c.read(0, 0x158, 4, false)[0], 7);

    // A bare float for a 4-byte parameter is the binary32 nearest to its text, not the binary64
    // rounded again: 1.00000005960464477539062500001 lies just above the midpoint between 1 and
    // the next binary32, which rounding its binary64 (the midpoint) would miss.
    let t = with_params_cubin(
        "[[launch]]\ncode_file = \"params.cubin\"\nkernel = \"every_kind\"\n\
         params = [0, 0, 0, 0, 0, 0, 0, 0, 1.00000005960464477539062500001, 0.1, 0, { bytes = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }, { f64 = 1 }]\n",
    )
    .expect("loads");
    let c = t.launch_consts(&t.launches[0]);
    assert_eq!(c.read(0, 0x160, 4, false)[0], 0x3f80_0001);
    let d = |a| c.read(0, a, 4, false)[0] as u64 | (c.read(0, a + 4, 4, false)[0] as u64) << 32;
    assert_eq!(d(0x168), 0.1f64.to_bits());
    assert_eq!(d(0x188), 1.0f64.to_bits());

    // A kernel without parameters takes `params = []`.
    let none = |params: &str| {
        with_params_cubin(&format!(
            "[[launch]]\ncode_file = \"params.cubin\"\nkernel = \"no_params\"\nparams = {params}\n"
        ))
    };
    let t = none("[]").expect("loads");
    assert_eq!(
        t.launches[0].params.as_ref().map(|p| p.bytes.len()),
        Some(0)
    );
    let e = none("[1]").err().expect("refused");
    assert!(
        e.contains("t.toml:5:11: error: kernel `no_params`: the kernel takes no parameters, and 1 are given"),
        "{e}"
    );
    // `params` needs a cubin, and may not share bytes with the launch's [[launch.const]].
    let e = with_params_cubin("[[launch]]\ncode = \"EXIT;\"\nparams = [1]\n")
        .err()
        .expect("refused");
    assert!(
        e.contains("t.toml:4:10: error: `params` lays out a cubin kernel's arguments by its parameter table, and this launch's program is not a cubin"),
        "{e}"
    );
    let e = with_params_cubin(
        "[[launch]]\ncode_file = \"params.cubin\"\nkernel = \"add_prefix\"\nparams = [0, 0, 1]\n\
         [[launch.const]]\nbank = 0\noffset = 0x150\nu32 = [1]\n",
    )
    .err()
    .expect("refused");
    assert!(
        e.contains("t.toml:5:10: error: `params` fills c[0x0][0x140..0x154], which the [[launch.const]] at line 6 also gives (c[0x0][0x150..0x154])"),
        "{e}"
    );
    // Beside a trace-wide [[const]] at the same place, `params` win for their launch.
    let t = with_params_cubin(
        "[[const]]\nbank = 0\noffset = 0x140\nu32 = [5, 5, 5, 5, 5]\n\
         [[launch]]\ncode_file = \"params.cubin\"\nkernel = \"add_prefix\"\nparams = [1, 2, 3]\n\
         [[launch]]\ncode_file = \"params.cubin\"\nkernel = \"add_prefix\"\n",
    )
    .expect("loads");
    let words = |i: usize| {
        let c = t.launch_consts(&t.launches[i]);
        (0..5)
            .map(|k| c.read(0, 0x140 + 4 * k, 4, false)[0])
            .collect::<Vec<_>>()
    };
    assert_eq!(words(0), [1, 0, 2, 0, 3]);
    assert_eq!(words(1), [5, 5, 5, 5, 5]);
    // Without either, the parameters are missing.
    let e =
        with_params_cubin("[[launch]]\ncode_file = \"params.cubin\"\nkernel = \"add_prefix\"\n")
            .err()
            .expect("refused");
    assert!(
        e.contains("kernel `add_prefix` reads 0x14 bytes of parameters at c[0x0][0x140..0x154], but no constant data of bank 0 ([[const]], [[launch.const]] or `params`) gives c[0x0][0x140]"),
        "{e}"
    );
}

#[test]
fn local_memory_launch_constants() {
    // With local memory: c[0][0x4] the local window, c[0][0x20] local_bytes; trace data wins
    // byte by byte (byte 0x22 here).
    let t = ok(
        "[machine]\nlocal_window = 0x0700_0000\n[[const]]\nbank = 0\noffset = 0x22\nu8 = [0xcc]\n\
                [[launch]]\nlocal_bytes = 0x180\ncode = \"EXIT;\"\n[[launch]]\ncode = \"EXIT;\"\n",
    );
    assert_eq!(t.local_window, 0x0700_0000);
    let c = t.launch_consts(&t.launches[0]);
    let w = |a| c.read(0, a, 4, false)[0];
    assert_eq!(
        (w(0x0), w(0x4), w(0x20)),
        (0x0100_0000, 0x0700_0000, 0x00cc_0180)
    );
    assert_eq!(t.launch(&t.launches[0]).local_bytes, 0x180);
    // Without: both stay 0 (but for the trace's byte).
    let c = t.launch_consts(&t.launches[1]);
    let w = |a| c.read(0, a, 4, false)[0];
    assert_eq!((w(0x4), w(0x20)), (0, 0x00cc_0000));
    assert_eq!(t.launch(&t.launches[1]).local_bytes, 0);
}

#[test]
fn local_window_rules() {
    assert_eq!(ok("").local_window, warpjit_runtime::DEFAULT_LOCAL_WINDOW);
    assert_eq!(ok("").machine.local_window, 0x0200_0000);
    assert_eq!(
        ok("[machine]\nlocal_window = \"0xff00_0000\"\n").local_window,
        0xff00_0000
    );
    assert_eq!(
        err("[machine]\nlocal_window = 0x1234\n"),
        "3:16: local_window 0x1234 is not 16 MiB aligned (a multiple of 0x1000000)"
    );
    assert_eq!(
        err("[machine]\nlocal_window = 0x1_0000_0000\n"),
        "3:16: local_window 0x100000000: the 16 MiB window must lie below 4 GiB (0x100000000)"
    );
    assert_eq!(
        err("[machine]\nlocal_window = 0x0100_0000\n"),
        "3:16: local_window 0x1000000 overlaps the shared window at 0x1000000"
    );
    assert_eq!(
        err("[machine]\nshared_window = 0x0300_0000\nlocal_window = 0x0300_0000\n"),
        "4:16: local_window 0x3000000 overlaps the shared window at 0x3000000"
    );
    // A shared window on the default local window is fine until a launch has local memory.
    let body = "[machine]\nshared_window = 0x0200_0000\n[[launch]]\ncode = \"EXIT;\"\n";
    assert_eq!(ok(body).shared_window, 0x0200_0000);
    assert_eq!(
        err(&format!(
            "{body}[[launch]]\nlocal_bytes = 4\ncode = \"EXIT;\"\n"
        )),
        "3:17: shared_window 0x2000000 is the default local window, and launch 1 has local \
         memory: set [machine] local_window elsewhere"
    );
    let t = ok(&format!(
        "[machine]\nlocal_window = 0\n{}[[launch]]\nlocal_bytes = 4\ncode = \"EXIT;\"\n",
        &body[10..]
    ));
    assert_eq!((t.shared_window, t.local_window), (0x0200_0000, 0));
}

#[test]
fn launch_keys() {
    let t = ok(EXIT);
    let l = &t.launches[0];
    assert_eq!(
        (l.grid, l.block, l.registers, l.shared_bytes),
        ([1, 1, 1], [32, 1, 1], 255, 0)
    );
    assert_eq!(
        (l.mode, l.budget, l.line),
        (BankMode::Compute, exec::DEFAULT_BUDGET, 2)
    );
    let t = ok("[[launch]]\nisa = \"sass\"\nmode = \"graphics\"\nregisters = 16\nbudget = 5\ncode = \"EXIT;\"\n");
    assert_eq!(
        (
            t.launches[0].mode,
            t.launches[0].registers,
            t.launches[0].budget
        ),
        (BankMode::Graphics, 16, 5)
    );
    assert_eq!(t.launches[0].program.registers, 16);

    assert_eq!(
        err("[[launch]]\nisa = \"ptx\"\n"),
        "3:7: unknown isa \"ptx\": expected \"sass\" or \"dxbc\""
    );
    assert_eq!(
        err("[[launch]]\nisa = \"dxbc\"\ncode = \"ret\"\n"),
        "4:9: expected a version line such as `cs_5_0` or `ps_4_1`"
    );
    assert_eq!(
        err("[[launch]]\nisa = \"dxbc\"\n"),
        "2:1: [[launch]] needs `code` (the program text) or `code_file`"
    );
    assert_eq!(
        err("[[launch]]\n"),
        "2:1: [[launch]] needs `code` (the program text) or `code_file`"
    );
    assert_eq!(
        err("[[launch]]\ncode = \"EXIT;\"\ncode_file = \"k.sass\"\n"),
        "4:13: `code_file` conflicts with `code`: a launch takes exactly one of them"
    );
    assert_eq!(
        err("[[launch]]\ngrid = [1, 0]\ncode = \"EXIT;\"\n"),
        "3:12: grid y must be at least 1"
    );
    assert_eq!(
        err("[[launch]]\ngrid = []\ncode = \"EXIT;\"\n"),
        "3:8: grid takes 1 to 3 components [x, y, z]"
    );
    assert_eq!(
        err("[[launch]]\nblock = [1, 1, 1, 1]\n"),
        "3:9: block takes 1 to 3 components [x, y, z]"
    );
    assert_eq!(
        err("[[launch]]\nblock = [1, 1, 65]\n"),
        "3:16: block z = 65 is more than 64 (Maxwell's limit)"
    );
    assert_eq!(
        err("[[launch]]\nblock = [64, 32]\ncode = \"EXIT;\"\n"),
        "3:9: block has 2048 threads: a CTA has at most 1024"
    );
    assert_eq!(
        err("[[launch]]\ngrid = [1, 65536]\n"),
        "3:12: grid y = 65536 is more than 65535 (Maxwell's limit)"
    );
    assert_eq!(
        err("[[launch]]\nregisters = 0\n"),
        "3:13: registers = 0: expected 1 to 255"
    );
    assert_eq!(
        err("[[launch]]\nregisters = 256\n"),
        "3:13: registers = 256: expected 1 to 255"
    );
    assert_eq!(
        err("[[launch]]\nshared_bytes = 0x1000001\n"),
        "3:16: shared_bytes = 0x1000001 is larger than the 16 MiB shared window (0x1000000)"
    );
    assert_eq!(
        err("[[launch]]\nbudget = 0\n"),
        "3:10: budget must be at least 1 warp instruction"
    );
    assert_eq!(
        err("[[launch]]\nmode = \"pixel\"\n"),
        "3:8: unknown mode \"pixel\": expected \"compute\" or \"graphics\""
    );
    assert_eq!(
        err("[[launch]]\ninvocations = 4\ncode = \"EXIT;\"\n"),
        "3:15: `invocations` counts DXBC vs/gs/ps invocations; a SASS launch runs grid × block threads"
    );
    assert_eq!(
        err("[[launch]]\ncode = \"EXIT;\"\n[[launch.input]]\nreg = 0\nu32 = [1]\n"),
        "4:1: [[launch.input]] is for the v# registers of DXBC vs/gs/ps invocations; a SASS launch \
         has none"
    );
    assert_eq!(
        err("[[launch]]\ncode = \"EXIT;\"\n[[launch.expect_output]]\nreg = 0\nu32 = [1]\n"),
        "4:1: [[launch.expect_output]] is for the o# registers of DXBC vs/gs/ps invocations; a SASS \
         launch has none"
    );
    assert!(
        err("[[launch]]\ncode = \"EXIT;\"\n[[launch.input]]\nreg = 0\nvalue = 1\n")
            .starts_with("6:1: unknown field `value`")
    );
    assert!(err("[[launch]]\ncde = \"EXIT;\"\n").starts_with("3:1: unknown field `cde`"));
}

#[test]
fn expectations() {
    let seg = "[[global]]\naddr = 0x100\nsize = 8\n[[global]]\naddr = 0x108\nsize = 8\n";
    let t = ok(&format!("{seg}[[expect]]\naddr = 0x104\nu32 = [0, 0, 0]\n"));
    assert_eq!(
        t.expects[0].line, 8,
        "an expectation may span adjacent segments"
    );
    assert_eq!(t.expects[0].index, 0);
    assert_eq!(
        err(&format!("{seg}[[expect]]\naddr = 0x10c\nu32 = [0, 0]\n")),
        "9:8: range [0x10c, +0x8) is not inside mapped global memory"
    );
    assert_eq!(
        err(&format!("{seg}[[expect]]\naddr = 0x100\n")),
        "8:1: [[expect]] needs one of the data keys u32, i32, f32, u8, file"
    );
    assert!(err(&format!("{seg}[[expect]]\naddr = 0x100\nsize = 4\n"))
        .starts_with("10:1: unknown field `size`"));
}

/// A 2x2, 2-sample `R32_UINT` multisample texture at t0 (lines 2 to 8).
const TEX: &str = "[[texture]]\nslot = 0\ndim = \"2dms\"\nformat = \"R32_UINT\"\nwidth = 2\nheight = 2\nsamples = 2\n";
/// A 2x2 `R32_UINT` texture at t0 (lines 2 to 7).
const TEX2D: &str =
    "[[texture]]\nslot = 0\ndim = \"2d\"\nformat = \"R32_UINT\"\nwidth = 2\nheight = 2\n";

#[test]
fn textures_are_kept() {
    let t = ok("[[texture]]\nslot = 3\ndim = \"2dmsarray\"\nformat = \"DXGI_FORMAT_R8G8B8A8_UNORM\"\nwidth = 2\nheight = 2\n\
                samples = 4\narray_size = 2\nu8 = [1, 2, 3]\n");
    let x = &t.textures[0];
    assert_eq!(
        (x.slot, x.view, x.dim, x.format.as_str(), x.element_bytes),
        (3, View::Srv, TextureDim::Ms2dArray, "R8G8B8A8_UNORM", 4)
    );
    assert_eq!((x.width, x.height, x.samples, x.array_size), (2, 2, 4, 2));
    assert_eq!((x.data.clone(), x.line), (Some(Data::U8(vec![1, 2, 3])), 2));
    // 2 slices x 2 rows x 2 columns x 4 samples x 4 bytes.
    assert_eq!(x.byte_len(), 2 * 2 * 2 * 4 * 4);
    // Element order: slice, row, column, sample.
    assert_eq!(x.offset(0, 1, 0, 1, 3), ((4 + 1) * 4 + 3) * 4);
    assert_eq!(x.element_at(((4 + 1) * 4 + 3) * 4 + 2), (0, 1, 0, 1, 3));
    assert_eq!(x.initial_bytes(5).ok(), Some(vec![1, 2, 3, 0, 0]));

    for (dim, want) in [
        ("2d", TextureDim::Tex2d),
        ("2darray", TextureDim::Tex2dArray),
        ("2dms", TextureDim::Ms2d),
        ("2dmsarray", TextureDim::Ms2dArray),
    ] {
        let t = ok(&TEX2D.replace("\"2d\"", &format!("{dim:?}")));
        let x = &t.textures[0];
        // Defaults: one sample, one slice, a t# slot.
        assert_eq!(
            (x.dim, x.samples, x.array_size, x.view),
            (want, 1, 1, View::Srv)
        );
        assert_eq!(x.dim.name(), dim);
    }
    // A RWTexture2D at u0 and a Texture2D at t0: t# and u# are numbered apart.
    let t = ok(&format!(
        "{TEX2D}{}",
        TEX2D.replace("slot = 0", "slot = 0\nview = \"uav\"")
    ));
    assert_eq!(
        (t.textures[0].view, t.textures[1].view),
        (View::Srv, View::Uav)
    );
    let t = ok(&format!("{TEX2D}u32 = [1, 2, 3, 4]\n"));
    assert_eq!(t.textures[0].data, Some(Data::U32(vec![1, 2, 3, 4])));
    let t = ok(&TEX2D
        .replace("\"2d\"", "\"2darray\"")
        .replace("height = 2", "height = 2\narray_size = 2048"));
    assert_eq!(t.textures[0].array_size, 2048);
}

#[test]
fn texture_errors() {
    assert_eq!(
        err(&TEX.replace("\"2dms\"", "\"4d\"")),
        "4:7: unknown dim \"4d\": expected \"1d\", \"1darray\", \"2d\", \"2darray\", \"2dms\", \
         \"2dmsarray\", \"3d\", \"cube\" or \"cubearray\""
    );
    assert!(err(&TEX.replace("R32_UINT", "BC1_UNORM"))
        .starts_with("5:10: unknown format \"BC1_UNORM\""));
    let e = load_text(&format!("{HEAD}{}", TEX.replace("R32_UINT", "r32_uint")))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("did you mean `R32_UINT`?"), "{e}");
    assert_eq!(
        err(&TEX.replace("samples = 2", "samples = 3")),
        "8:11: samples 3: expected 1, 2, 4, 8, 16 or 32"
    );
    assert_eq!(
        err(&TEX.replace("samples = 2", "samples = 64")),
        "8:11: samples 64: expected 1, 2, 4, 8, 16 or 32"
    );
    assert_eq!(
        err(&TEX.replace("width = 2", "width = 0")),
        "6:9: width 0 is out of range 1 to 16384"
    );
    assert_eq!(
        err(&TEX.replace("height = 2", "height = 16385")),
        "7:10: height 16385 is out of range 1 to 16384"
    );
    // Direct3D's texture description always carries a sample count and an array size: 1 fits
    // every dim (the trace format's own example gives a "2dms" texture `array_size = 1`).
    for dim in ["2d", "2darray", "2dms", "2dmsarray"] {
        let t = ok(&format!(
            "{}samples = 1\narray_size = 1\n",
            TEX2D.replace("\"2d\"", &format!("\"{dim}\""))
        ));
        assert_eq!(
            (t.textures[0].samples, t.textures[0].array_size),
            (1, 1),
            "{dim}"
        );
        assert_eq!(t.textures[0].byte_len(), 16, "{dim}");
    }
    let t = ok(&format!("{TEX}array_size = 1\n"));
    assert_eq!((t.textures[0].samples, t.textures[0].array_size), (2, 1));
    assert_eq!(
        err(&format!("{TEX2D}samples = 2\n")),
        "8:11: samples 2: `samples` above 1 is for multisample textures (\"2dms\", \"2dmsarray\"); a \"2d\" texture has one sample"
    );
    assert_eq!(
        err(&format!("{}samples = 2\n", TEX2D.replace("\"2d\"", "\"2darray\""))),
        "8:11: samples 2: `samples` above 1 is for multisample textures (\"2dms\", \"2dmsarray\"); a \"2darray\" texture has one sample"
    );
    assert_eq!(
        err(&format!("{TEX}array_size = 2\n")),
        "9:14: array_size 2: `array_size` above 1 is for texture arrays; a \"2dms\" texture has one slice (use dim = \"2dmsarray\")"
    );
    assert_eq!(
        err(&format!("{TEX2D}array_size = 2\n")),
        "8:14: array_size 2: `array_size` above 1 is for texture arrays; a \"2d\" texture has one slice (use dim = \"2darray\")"
    );
    let arr = TEX.replace("\"2dms\"", "\"2dmsarray\"");
    assert_eq!(
        err(&format!("{arr}array_size = 0\n")),
        "9:14: array_size 0 is out of range 1 to 2048"
    );
    assert_eq!(
        err(&format!("{arr}array_size = 2049\n")),
        "9:14: array_size 2049 is out of range 1 to 2048"
    );
    assert_eq!(
        err(&format!("{TEX}u32 = [1, 2, 3, 4, 5, 6, 7, 8, 9]\n")),
        "9:7: the data (36 bytes) is larger than the texture (32 bytes)"
    );
    assert_eq!(
        ok(&format!("{TEX}u8 = [{}]\n", ["7"; 32].join(", "))).textures[0]
            .data
            .as_ref()
            .map(Data::byte_len),
        Some(32)
    );
    assert_eq!(
        err(&format!("{TEX}{TEX}")),
        "10:8: t0 is already bound by the [[texture]] at line 2"
    );
    assert_eq!(
        err(&TEX.replace("slot = 0", "slot = 128")),
        "3:8: slot 128 is out of range: t# slots are 0 to 127"
    );
    let uav = TEX2D.replace("slot = 0", "slot = 64\nview = \"uav\"");
    assert_eq!(
        err(&uav),
        "3:8: slot 64 is out of range: u# slots are 0 to 63"
    );
    assert_eq!(
        err(&TEX2D.replace("slot = 0", "slot = 0\nview = \"rtv\"")),
        "4:8: unknown view \"rtv\": expected \"srv\" (t#) or \"uav\" (u#)"
    );
    assert_eq!(
        err(&TEX.replace("slot = 0", "slot = 0\nview = \"uav\"")),
        "5:7: a \"2dms\" texture cannot be a \"uav\": Direct3D has no multisample or cube UAVs (a \
         uav texture is \"1d\", \"1darray\", \"2d\", \"2darray\" or \"3d\")"
    );
    assert_eq!(
        err(&format!("{arr}array_size = 2048\n")
            .replace("samples = 2", "samples = 32")
            .replace("R32_UINT", "R32G32B32A32_UINT")
            .replace("width = 2", "width = 16384")
            .replace("height = 2", "height = 16384")),
        "6:9: the texture is 281474976710656 bytes (every mip level's width × height × depth × \
         samples × slices × 16-byte R32G32B32A32_UINT): a resource is at most 0x100000000 bytes \
         (4 GiB)"
    );
    assert_eq!(
        err(&format!("{TEX}depth = 1\n")),
        "9:9: `depth` is for \"3d\" textures; use `array_size` for the slices of an array (this \
         texture is \"2dms\")"
    );
    assert!(err(&format!("{TEX}levels = 1\n")).starts_with("9:1: unknown field `levels`"));
    assert!(
        err(&TEX.replace("width = 2\n", "")).starts_with("2:1: missing field `width`"),
        "{}",
        err(&TEX.replace("width = 2\n", ""))
    );
}

/// A texture of `dim` at t0 (`R8_UNORM`, lines 2 to 5) followed by `rest`.
fn tex(dim: &str, rest: &str) -> String {
    format!("[[texture]]\nslot = 0\ndim = \"{dim}\"\nformat = \"R8_UNORM\"\n{rest}")
}

#[test]
fn textures_of_every_dimension_and_mip_chains() {
    // 1D: one texel high; `height` is an error.
    let t = ok(&tex("1d", "width = 8\nmip_levels = 0\n"));
    let x = &t.textures[0];
    assert_eq!((x.width, x.height, x.depth, x.mips), (8, 1, 1, 4));
    assert_eq!(x.byte_len(), 8 + 4 + 2 + 1);
    assert_eq!(x.offset(2, 0, 0, 1, 0), 12 + 1);
    assert_eq!(x.element_at(13), (2, 0, 0, 1, 0));
    assert_eq!(
        err(&tex("1d", "width = 8\nheight = 2\n")),
        "7:10: `height` is for 2D, 3D and cube textures; a \"1d\" texture is one texel high"
    );
    let t = ok(&tex(
        "1darray",
        "width = 4\narray_size = 3\nmip_levels = 2\n",
    ));
    // Level 0 of the three slices (12 texels), then level 1 (6).
    assert_eq!(t.textures[0].byte_len(), 18);
    assert_eq!(t.textures[0].offset(1, 2, 0, 1, 0), 12 + 4 + 1);
    // 3D: `depth` required; mips shrink in depth too.
    let t = ok(&tex(
        "3d",
        "width = 4\nheight = 2\ndepth = 8\nmip_levels = 0\n",
    ));
    let x = &t.textures[0];
    assert_eq!((x.depth, x.mips), (8, 4));
    // Levels 4x2x8, 2x1x4, 1x1x2 and 1x1x1 of one byte each.
    assert_eq!(x.byte_len(), 64 + 8 + 2 + 1);
    assert_eq!(x.element_at(64 + 2 + 1), (1, 1, 0, 1, 0));
    assert_eq!(
        err(&tex("3d", "width = 4\nheight = 2\n")),
        "2:1: a \"3d\" texture needs `depth`"
    );
    assert_eq!(
        err(&tex("3d", "width = 4\nheight = 2\ndepth = 2\narray_size = 2\n")),
        "9:14: array_size 2: `array_size` above 1 is for texture arrays; a \"3d\" texture has `depth` slices, not an array"
    );
    // Cubes: six square faces (`height` optional, equal to `width`); a cube array counts cubes.
    let t = ok(&tex("cube", "width = 4\nmip_levels = 3\n"));
    let x = &t.textures[0];
    assert_eq!((x.height, x.array_size), (4, 1));
    assert_eq!(x.byte_len(), 6 * (16 + 4 + 1));
    assert_eq!(x.offset(1, 5, 1, 1, 0), 6 * 16 + 5 * 4 + 3);
    assert_eq!(
        err(&tex("cube", "width = 4\nheight = 2\n")),
        "7:10: a cube's faces are square: height 2 differs from width 4 (leave `height` out)"
    );
    let t = ok(&tex("cubearray", "width = 2\narray_size = 2\n"));
    assert_eq!(t.textures[0].byte_len(), 2 * 6 * 4);
    assert_eq!(
        err(&tex("cubearray", "width = 2\narray_size = 342\n")),
        "7:14: array_size 342 is out of range 1 to 341 (cubes: 6 faces each, 2048 faces at most)"
    );
    // Mip chains: at most the full chain; multisample textures and UAVs have one level.
    assert_eq!(
        err(&tex("2d", "width = 8\nheight = 4\nmip_levels = 5\n")),
        "8:14: mip_levels 5: a 8x4 texture has at most 4 (0 means all of them)"
    );
    assert_eq!(
        err(&tex("2dms", "width = 8\nheight = 4\nmip_levels = 2\n")),
        "8:14: a multisample texture has one mip level, not 2"
    );
    assert!(err(&tex(
        "2d",
        "view = \"uav\"\nwidth = 8\nheight = 4\nmip_levels = 2\n"
    ))
    .starts_with("9:14: a \"uav\" texture has one mip level"));
    assert_eq!(
        err(&tex("cube", "view = \"uav\"\nwidth = 8\n")),
        "4:7: a \"cube\" texture cannot be a \"uav\": Direct3D has no multisample or cube UAVs (a \
         uav texture is \"1d\", \"1darray\", \"2d\", \"2darray\" or \"3d\")"
    );
    assert_eq!(
        err(&tex("2d", "width = 8\n")),
        "2:1: a \"2d\" texture needs `height`"
    );
}

#[test]
fn samplers_are_kept_and_checked() {
    use warpjit_runtime::sampler::{AddressMode, ComparisonFunc, Filter, Reduction, SamplerState};
    let t = ok("[[sampler]]\nslot = 3\nfilter = \"D3D11_FILTER_COMPARISON_MIN_MAG_LINEAR_MIP_POINT\"\n\
                comparison_func = \"less_equal\"\naddress_u = \"border\"\nborder_color = [0.5, 0, 1, 1]\n\
                mip_lod_bias = -1.5\nmin_lod = 1\nmax_lod = 3.25\n\
                [[sampler]]\nslot = 0\n\
                [[sampler]]\nslot = 1\nfilter = \"anisotropic\"\nmax_anisotropy = 8\naddress = \"mirror_once\"\n");
    let s = &t.samplers;
    assert_eq!((s[0].slot, s[0].line), (3, 2));
    let st = s[0].state;
    assert_eq!(
        (st.min, st.mag, st.mip, st.anisotropic, st.reduction),
        (
            Filter::Linear,
            Filter::Linear,
            Filter::Point,
            false,
            Reduction::Comparison
        )
    );
    assert_eq!(st.comparison, ComparisonFunc::LessEqual);
    assert_eq!(
        st.address,
        [AddressMode::Border, AddressMode::Clamp, AddressMode::Clamp]
    );
    assert_eq!(st.border_color, [0.5, 0.0, 1.0, 1.0]);
    assert_eq!((st.mip_lod_bias, st.min_lod, st.max_lod), (-1.5, 1.0, 3.25));
    assert_eq!(s[1].state, SamplerState::DEFAULT);
    assert!(s[2].state.anisotropic);
    assert_eq!(s[2].state.max_anisotropy, 8);
    assert_eq!(s[2].state.address, [AddressMode::MirrorOnce; 3]);
    assert_eq!(t.machine.resources.sampler(3), &st);
    assert_eq!(t.machine.resources.sampler(5), &SamplerState::DEFAULT);

    let e = |body: &str| err(&format!("[[sampler]]\nslot = 0\n{body}"));
    assert_eq!(
        err("[[sampler]]\nslot = 16\n"),
        "3:8: slot 16 is out of range: s# slots are 0 to 15"
    );
    assert_eq!(
        err("[[sampler]]\nslot = 1\n[[sampler]]\nslot = 1\n"),
        "5:8: s1 is already bound by the [[sampler]] at line 2"
    );
    assert!(e("filter = \"MIN_MAG_MIP_LINEAER\"\n")
        .starts_with("4:10: unknown filter \"MIN_MAG_MIP_LINEAER\""));
    assert_eq!(
        e("filter = \"COMPARISON_MIN_MAG_MIP_POINT\"\n"),
        "4:10: a comparison filter needs `comparison_func` (\"less\", \"less_equal\", ...)"
    );
    assert_eq!(
        e("comparison_func = \"less\"\n"),
        "4:19: `comparison_func` is used only by a comparison filter (filter = \"COMPARISON_...\")"
    );
    assert_eq!(
        e("filter = \"COMPARISON_ANISOTROPIC\"\ncomparison_func = \"lesser\"\n"),
        "5:19: unknown comparison_func \"lesser\": expected \"never\", \"less\", \"equal\", \
         \"less_equal\", \"greater\", \"not_equal\", \"greater_equal\" or \"always\""
    );
    assert_eq!(
        e("max_anisotropy = 4\n"),
        "4:18: `max_anisotropy` is used only by an anisotropic filter (filter = \"ANISOTROPIC\")"
    );
    assert_eq!(
        e("filter = \"ANISOTROPIC\"\nmax_anisotropy = 17\n"),
        "5:18: max_anisotropy 17 is out of range 1 to 16"
    );
    assert_eq!(
        e("border_color = [0, 0, 0, 1]\n"),
        "4:16: `border_color` is used only where an address mode is \"border\", and none is"
    );
    assert_eq!(
        e("address = \"border\"\nborder_color = [0, 0, 1]\n"),
        "5:16: border_color has 3 values: expected 4 (red, green, blue, alpha)"
    );
    assert_eq!(
        e("address = \"wrap\"\naddress_v = \"clamp\"\n"),
        "5:13: `address` sets u, v and w: give either it or `address_u`, `address_v`, `address_w`"
    );
    let full = load_text(&format!(
        "{HEAD}[[sampler]]\nslot = 0\naddress_w = \"mirroronce\"\n"
    ))
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(full.contains("did you mean `mirror_once`?"), "{full}");
    assert_eq!(
        e("mip_lod_bias = 16\n"),
        "4:16: mip_lod_bias 16 is out of range -16 to 15.99"
    );
    assert_eq!(e("min_lod = nan\n"), "4:11: min_lod is NaN");
    assert!(e("mag = \"point\"\n").starts_with("4:1: unknown field `mag`"));
}

/// A structured buffer at u0, 12-byte stride, 24 bytes (lines 2 to 5).
const BUF: &str = "[[buffer]]\nslot = 0\nstride = 12\nsize = 24\n";

#[test]
fn buffers_are_kept() {
    let t = ok(&format!(
        "{TEX2D}[[buffer]]\nslot = 1\nview = \"srv\"\nstride = 16\nu32 = [1, 2, 3, 4]\n\
         [[buffer]]\nslot = 0\nformat = \"DXGI_FORMAT_R32G32B32_FLOAT\"\nsize = 24\n\
         [[buffer]]\nslot = 1\nu8 = [1, 2, 3, 4, 5, 6, 7, 8]\n"
    ));
    let b = &t.buffers;
    assert_eq!(b.len(), 3);
    assert_eq!(
        (b[0].view, b[0].slot, b[0].size, b[0].stride(), b[0].line),
        (View::Srv, 1, 16, Some(16), 8)
    );
    assert_eq!(b[0].kind, BufferKind::Structured { stride: 16 });
    assert_eq!(
        b[1].kind,
        BufferKind::Typed {
            format: "R32G32B32_FLOAT".to_string(),
            element_bytes: 12
        }
    );
    // The default view is "uav": u0 and u1, apart from t0 and t1.
    assert_eq!(
        (
            b[1].view,
            b[1].slot,
            b[1].size,
            b[1].element_bytes(),
            b[1].stride()
        ),
        (View::Uav, 0, 24, 12, None)
    );
    assert_eq!(
        (
            b[2].view,
            b[2].kind.clone(),
            b[2].size,
            b[2].element_bytes()
        ),
        (View::Uav, BufferKind::Raw, 8, 4)
    );
    assert_eq!(b[0].initial_bytes(6).ok(), Some(vec![1, 0, 0, 0, 2, 0]));
    assert_eq!(b[1].initial_bytes(3).ok(), Some(vec![0, 0, 0]));
    // The largest buffer: 4 GiB (nothing is allocated at load).
    let t = ok("[[buffer]]\nslot = 0\nsize = 0x1_0000_0000\n");
    assert_eq!(t.buffers[0].size, 1 << 32);
}

#[test]
fn buffer_errors() {
    assert_eq!(
        err(&BUF.replace("12", "6")),
        "4:10: stride 6: expected a multiple of 4 from 4 to 2048"
    );
    assert_eq!(
        err(&BUF.replace("12", "0")),
        "4:10: stride 0: expected a multiple of 4 from 4 to 2048"
    );
    assert_eq!(
        err(&BUF.replace("12", "2052").replace("24", "2052")),
        "4:10: stride 2052: expected a multiple of 4 from 4 to 2048"
    );
    assert_eq!(
        err(&BUF.replace("24", "20")),
        "5:8: buffer size 20 is not a non-zero multiple of the stride (12)"
    );
    assert_eq!(
        err(&BUF.replace("24", "0")),
        "5:8: buffer size 0 is not a non-zero multiple of the stride (12)"
    );
    assert_eq!(
        err(&format!("{BUF}u32 = [1, 2, 3, 4, 5, 6, 7]\n")),
        "5:8: size 24 is smaller than the data (28 bytes)"
    );
    assert_eq!(
        err("[[buffer]]\nslot = 0\nstride = 4\n"),
        "2:1: [[buffer]] needs a `size` or one of the data keys u32, i32, f32, u8, file"
    );
    assert_eq!(
        err("[[buffer]]\nslot = 0\nstride = 8\nu32 = [1, 2, 3]\n"),
        "5:7: buffer size 12 is not a non-zero multiple of the stride (8)"
    );
    assert_eq!(
        err(&format!("{BUF}{BUF}")),
        "7:8: u0 is already bound by the [[buffer]] at line 2"
    );
    assert_eq!(
        err(&format!(
            "{TEX}[[buffer]]\nslot = 0\nview = \"srv\"\nstride = 4\nsize = 4\n"
        )),
        "10:8: t0 is already bound by the [[texture]] at line 2"
    );
    let rw = TEX2D.replace("slot = 0", "slot = 0\nview = \"uav\"");
    assert_eq!(
        err(&format!("{rw}{BUF}")),
        "10:8: u0 is already bound by the [[texture]] at line 2"
    );
    assert_eq!(
        err(&BUF.replace("slot = 0", "slot = 64")),
        "3:8: slot 64 is out of range: u# slots are 0 to 63"
    );
    assert_eq!(
        err(&BUF.replace("slot = 0", "slot = 128\nview = \"srv\"")),
        "3:8: slot 128 is out of range: t# slots are 0 to 127"
    );
    assert_eq!(
        err(&BUF.replace("slot = 0", "slot = 0\nview = \"rtv\"")),
        "4:8: unknown view \"rtv\": expected \"srv\" (t#) or \"uav\" (u#)"
    );
    // Structured, typed or raw: `stride` and `format` exclude each other.
    assert_eq!(
        err("[[buffer]]\nslot = 0\nstride = 4\nformat = \"R32_UINT\"\nsize = 4\n"),
        "5:10: `format` conflicts with `stride`: a buffer is structured (`stride`), typed \
         (`format`) or raw (neither)"
    );
    assert_eq!(
        err("[[buffer]]\nslot = 0\nformat = \"R32_UINT\"\nstride = 4\nsize = 4\n"),
        "5:10: `stride` conflicts with `format`: a buffer is structured (`stride`), typed \
         (`format`) or raw (neither)"
    );
    // Typed: a DXGI format, the size a multiple of its element.
    assert!(
        err("[[buffer]]\nslot = 0\nformat = \"R32_UINTT\"\nsize = 4\n")
            .starts_with("4:10: unknown format \"R32_UINTT\"")
    );
    assert_eq!(
        err("[[buffer]]\nslot = 0\nformat = \"R32G32B32_FLOAT\"\nsize = 16\n"),
        "5:8: buffer size 16 is not a non-zero multiple of the size of a R32G32B32_FLOAT element (12)"
    );
    assert_eq!(
        err("[[buffer]]\nslot = 0\nformat = \"R16_UINT\"\nu8 = [1]\n"),
        "5:6: buffer size 1 is not a non-zero multiple of the size of a R16_UINT element (2)"
    );
    // Raw: a multiple of 4 bytes.
    assert_eq!(
        err("[[buffer]]\nslot = 0\nsize = 6\n"),
        "4:8: buffer size 6 is not a non-zero multiple of 4, a raw buffer's word (4)"
    );
    assert_eq!(
        err("[[buffer]]\nslot = 0\nu8 = [1, 2, 3]\n"),
        "4:6: buffer size 3 is not a non-zero multiple of 4, a raw buffer's word (4)"
    );
    assert_eq!(
        err("[[buffer]]\nslot = 0\nu8 = []\n"),
        "4:6: buffer size 0 is not a non-zero multiple of 4, a raw buffer's word (4)"
    );
    assert_eq!(
        err("[[buffer]]\nslot = 0\nsize = 0x1_0000_0004\n"),
        "4:8: buffer size 0x100000004: a resource is at most 0x100000000 bytes (4 GiB)"
    );
    assert!(err(&format!("{BUF}dim = \"2d\"\n")).starts_with("6:1: unknown field `dim`"));
}

/// t0: a 2x1 `R32_UINT` texture (line 2); t1: a 4-word structured buffer (line 8); u1: a raw
/// 16-byte buffer (line 13); u2: a 4x4 `R8_UNORM` RWTexture2D (line 16). Expectations start at
/// line 23.
const RESOURCES: &str = "[[texture]]\nslot = 0\ndim = \"2d\"\nformat = \"R32_UINT\"\nwidth = 2\nheight = 1\n\
    [[buffer]]\nslot = 1\nview = \"srv\"\nstride = 4\nu32 = [1, 2, 3, 4]\n\
    [[buffer]]\nslot = 1\nsize = 16\n\
    [[texture]]\nslot = 2\nview = \"uav\"\ndim = \"2d\"\nformat = \"R8_UNORM\"\nwidth = 4\nheight = 4\n";

#[test]
fn resource_expectations_are_kept() {
    let t = ok(&format!(
        "{RESOURCES}[[expect_buffer]]\nslot = 1\nu32 = [0]\n\
         [[expect_buffer]]\nslot = 1\nview = \"srv\"\ni32 = [1, 2, 3, 4]\n\
         [[expect_texture]]\nslot = 0\nview = \"srv\"\nu32 = [0, 0]\n\
         [[expect_texture]]\nslot = 2\nu8 = [0, 0, 0]\n"
    ));
    let b = &t.expect_buffers;
    assert_eq!(b.len(), 2);
    assert_eq!(
        (b[0].index, b[0].view, b[0].slot, b[0].resource, b[0].line),
        (0, View::Uav, 1, 1, 23)
    );
    assert_eq!(b[0].data, Data::U32(vec![0]));
    assert_eq!(
        (b[1].index, b[1].view, b[1].slot, b[1].resource, b[1].line),
        (1, View::Srv, 1, 0, 26)
    );
    let x = &t.expect_textures;
    assert_eq!(
        (x[0].index, x[0].view, x[0].slot, x[0].resource, x[0].line),
        (0, View::Srv, 0, 0, 30)
    );
    assert_eq!(
        (x[1].index, x[1].view, x[1].slot, x[1].resource, x[1].line),
        (1, View::Uav, 2, 1, 34)
    );
    assert_eq!(x[1].data, Data::U8(vec![0, 0, 0]));
}

#[test]
fn resource_expectation_errors() {
    let e = |body: &str| err(&format!("{RESOURCES}{body}"));
    assert_eq!(
        e("[[expect_buffer]]\nslot = 5\nu32 = [1]\n"),
        "24:8: u5 is not bound: [[expect_buffer]] checks a [[buffer]] of view \"uav\" (the default \
         view is \"uav\")"
    );
    assert_eq!(
        e("[[expect_buffer]]\nslot = 0\nview = \"srv\"\nu32 = [1]\n"),
        "24:8: t0 is the [[texture]] at line 2, not a [[buffer]]: check it with [[expect_texture]]"
    );
    assert_eq!(
        e("[[expect_texture]]\nslot = 1\nview = \"srv\"\nu32 = [1]\n"),
        "24:8: t1 is the [[buffer]] at line 8, not a [[texture]]: check it with [[expect_buffer]]"
    );
    // The default view is "uav": slot 0 is u0, which nothing binds.
    assert_eq!(
        e("[[expect_texture]]\nslot = 0\nu32 = [1]\n"),
        "24:8: u0 is not bound: [[expect_texture]] checks a [[texture]] of view \"uav\" (the \
         default view is \"uav\")"
    );
    assert_eq!(
        e("[[expect_texture]]\nslot = 0\nview = \"srv\"\nu32 = [1, 2, 3]\n"),
        "26:7: the expected data (12 bytes) is larger than t0 (8 bytes)"
    );
    assert_eq!(
        e("[[expect_buffer]]\nslot = 1\nu8 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]\n"),
        "25:6: the expected data (17 bytes) is larger than u1 (16 bytes)"
    );
    assert_eq!(
        e("[[expect_buffer]]\nslot = 1\n"),
        "23:1: [[expect_buffer]] needs one of the data keys u32, i32, f32, u8, file"
    );
    assert_eq!(
        e("[[expect_texture]]\nslot = 2\n"),
        "23:1: [[expect_texture]] needs one of the data keys u32, i32, f32, u8, file"
    );
    assert_eq!(
        e("[[expect_buffer]]\nslot = 1\nu32 = []\n"),
        "25:7: the expected data is empty: an expectation must check at least one byte"
    );
    assert_eq!(
        e("[[expect_buffer]]\nslot = 64\nu32 = [1]\n"),
        "24:8: slot 64 is out of range: u# slots are 0 to 63"
    );
    assert_eq!(
        e("[[expect_texture]]\nslot = 128\nview = \"srv\"\nu32 = [1]\n"),
        "24:8: slot 128 is out of range: t# slots are 0 to 127"
    );
    assert_eq!(
        e("[[expect_buffer]]\nslot = 0\nview = \"rtv\"\nu32 = [1]\n"),
        "25:8: unknown view \"rtv\": expected \"srv\" (t#) or \"uav\" (u#)"
    );
    assert!(e("[[expect_texture]]\nslot = 2\naddr = 0\nu8 = [1]\n")
        .starts_with("25:1: unknown field `addr`"));
    assert!(
        e("[[expect_buffer]]\nu32 = [1]\n").starts_with("23:1: missing field `slot`"),
        "{}",
        e("[[expect_buffer]]\nu32 = [1]\n")
    );
}

/// A DXBC vertex shader launch with every key valid (lines 2 to 8): it declares v0, v1 and o0 to
/// o3.
const DXBC: &str = "[[launch]]\nisa = \"dxbc\"\ninvocations = 2\ncode = \"vs_5_0\\ndcl_input v1.xyzw\\ndcl_output o3.xyzw\\nret\\n\"\n\
    [[launch.input]]\nreg = 0\nu32 = [1, 2, 3, 4, 5, 6, 7, 8]\n";

#[test]
fn dxbc_launch_keys() {
    let t = ok(DXBC);
    let l = &t.launches[0];
    assert_eq!(
        (l.isa, l.invocations, l.grid, l.block, l.inputs.len()),
        (Isa::Dxbc, Some(2), [1, 1, 1], [32, 1, 1], 1)
    );
    assert_eq!(l.mode, BankMode::Graphics, "a DXBC launch sees every bank");
    let t = ok(&format!("{DXBC}[[launch.expect_output]]\nreg = 1\nf32 = [1, 2, 3, 4]\n[[launch.input]]\nreg = 1\nu8 = []\n"));
    assert_eq!(
        (
            t.launches[0].inputs.len(),
            t.launches[0].expect_outputs.len()
        ),
        (2, 1)
    );
    assert_eq!(
        err(&format!(
            "{DXBC}[[launch.expect_output]]\nreg = 4\nu32 = [1, 2, 3, 4]\n"
        )),
        "10:7: [[launch.expect_output]] names o4, but the program declares 4 o# registers"
    );
    assert_eq!(
        err(&DXBC.replace("reg = 0", "reg = 32")),
        "7:7: reg 32 is out of range 0 to 31"
    );
    assert_eq!(
        err(&format!("{DXBC}[[launch.input]]\nreg = 0\nu32 = []\n")),
        "10:7: v0 is already given by the [[launch.input]] at line 6"
    );
    assert_eq!(
        err(&format!("{DXBC}[[launch.expect_output]]\nreg = 3\nu32 = [1, 2, 3, 4]\n[[launch.expect_output]]\nreg = 3\nu32 = [1, 2, 3, 4]\n")),
        "13:7: o3 is already given by the [[launch.expect_output]] at line 9"
    );
    assert_eq!(
        err(&DXBC.replace("invocations = 2\n", "")),
        "5:1: [[launch.input]] needs the launch's `invocations` (its data is 4 words per invocation)"
    );
    assert_eq!(
        err(&DXBC.replace("[1, 2, 3, 4, 5, 6, 7, 8]", "[1, 2, 3, 4, 5]")),
        "8:7: the data is 20 bytes, not a whole number of invocations: v0 is 4 words (x, y, z, w, \
         16 bytes) per invocation"
    );
    assert_eq!(
        err(&DXBC.replace(
            "[1, 2, 3, 4, 5, 6, 7, 8]",
            "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]"
        )),
        "8:7: the data covers 3 invocations, more than the launch's 2"
    );
    assert_eq!(
        err(&format!(
            "{DXBC}[[launch.expect_output]]\nreg = 0\ni32 = []\n"
        )),
        "11:7: the expected data is empty: an expectation must check at least one invocation"
    );
    assert_eq!(
        err(&format!("{DXBC}[[launch.expect_output]]\nreg = 0\n")),
        "9:1: [[launch.expect_output]] needs one of the data keys u32, i32, f32, u8, file"
    );
    assert_eq!(
        err(&DXBC.replace("invocations = 2", "invocations = 2\ngrid = [1]")),
        "4:15: `invocations` (a vs/gs/ps launch) conflicts with `grid` (a cs launch's thread \
         groups): give one or the other"
    );
    assert_eq!(
        err(&DXBC.replace("invocations = 2", "invocations = 2\nblock = [64]")),
        "4:15: `invocations` (a vs/gs/ps launch) conflicts with `block` (a cs launch's thread \
         groups): give one or the other"
    );
    assert_eq!(
        err(&DXBC.replace("invocations = 2", "invocations = 0x40000001")),
        "4:15: invocations = 1073741825: a launch has at most 1073741824 (2^30)"
    );
    assert_eq!(
        err(&DXBC.replace("invocations = 2", "invocations = 2\nlocal_bytes = 16")),
        "5:15: `local_bytes` gives SASS local memory; a DXBC program has none (its indexable temps \
         x# are sized by dcl_indexableTemp)"
    );
    assert_eq!(
        err(&DXBC.replace("invocations = 2", "invocations = 2\nkernel = \"main\"")),
        "5:10: `kernel` picks a kernel of a SASS listing or a cubin; a DXBC program is one shader"
    );
    assert!(err(&format!(
        "{DXBC}[[launch.input]]\nreg = 1\nu32 = [1]\nmask = 1\n"
    ))
    .starts_with("12:1: unknown field `mask`"));
}

#[test]
fn sass_launch_keys() {
    let t = ok("[[launch]]\nlocal_bytes = 0x80000\ncode = \"EXIT;\"\n[[launch]]\nblock = [64]\ncode = \"EXIT;\"\n");
    let l = &t.launches;
    assert_eq!(
        (
            l[0].isa,
            l[0].local_bytes,
            l[0].block_given,
            l[0].invocations,
            l[0].kernel.clone()
        ),
        (Isa::Sass, Some(0x80000), false, None, None)
    );
    assert!(l[0].inputs.is_empty() && l[0].expect_outputs.is_empty());
    assert_eq!(
        (l[1].local_bytes, l[1].block_given, l[1].block),
        (None, true, [64, 1, 1])
    );
    assert_eq!(
        err("[[launch]]\nlocal_bytes = 0x80001\ncode = \"EXIT;\"\n"),
        "3:15: local_bytes = 0x80001 is more than 0x80000 (512 KiB, Maxwell's local memory per thread)"
    );
    assert_eq!(
        err("[[launch]]\nkernel = \"k\"\ncode = \"EXIT;\"\n"),
        "3:10: `kernel = \"k\"`, but this listing has no kernels to choose from (no `Function :` or \
         `.section .text.NAME` lines): a plain listing is one kernel"
    );
    assert_eq!(
        err("[[launch]]\nkernel = \"\"\ncode = \"EXIT;\"\n"),
        "3:10: `kernel` is empty: name the cubin's entry"
    );
}

#[test]
fn binaries_set_the_isa() {
    let dir = scratch_dir().join("binaries");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("k.cso"), b"DXBC\0\0\0\0").expect("file");
    std::fs::write(dir.join("k.cubin"), b"\x7fELF\x02\x01\x01").expect("file");
    std::fs::write(dir.join("k.sass"), "EXIT;\n").expect("file");
    let trace = dir.join("t.toml");
    let run = |launch: &str| {
        std::fs::write(&trace, format!("{HEAD}[[launch]]\n{launch}")).expect("trace");
        load(&trace)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    let e = run("isa = \"sass\"\ncode_file = \"k.cso\"\n");
    assert!(
        e.contains(":3:7: error: isa = \"sass\", but the code_file \"k.cso\" is a DXBC container"),
        "{e}"
    );
    let e = run("isa = \"dxbc\"\ncode_file = \"k.cubin\"\n");
    assert!(
        e.contains(
            ":3:7: error: isa = \"dxbc\", but the code_file \"k.cubin\" is a CUDA cubin (SASS)"
        ),
        "{e}"
    );
    // A DXBC container is a DXBC launch without `isa`: its keys are accepted.
    let e = run("code_file = \"k.cso\"\ninvocations = 1\n");
    assert!(
        e.contains("k.cso: byte 0x8: error: the container is 8 bytes, shorter than its header"),
        "{e}"
    );
    let e = run("code_file = \"k.cso\"\nlocal_bytes = 4\n");
    assert!(
        e.contains(":4:15: error: `local_bytes` gives SASS local memory"),
        "{e}"
    );
    // A cubin or a tool's listing takes `kernel`; other files do not.
    let e = run("code_file = \"k.cubin\"\nkernel = \"vecadd\"\n");
    assert!(
        e.contains("k.cubin: byte 0x7: error: ELF header: the file ends after 7 bytes"),
        "{e}"
    );
    let e = run("code_file = \"k.sass\"\nkernel = \"vecadd\"\n");
    assert!(
        e.contains(
            ":4:10: error: `kernel = \"vecadd\"`, but this listing has no kernels to choose from"
        ),
        "{e}"
    );
    let e = run("code_file = \"k.cso\"\nkernel = \"main\"\n");
    assert!(
        e.contains(":4:10: error: `kernel` picks a kernel of a SASS listing or a cubin; a DXBC program is one shader"),
        "{e}"
    );
}

#[test]
fn f32_data_is_the_nearest_float_to_its_text() {
    let t = ok("[[global]]\naddr = 0\nf32 = [0.1, 2, -0.0, 1e3, nan, -nan, +inf, 0x10, 1_000.5, 3.4028235e38, \
                1.000000178813934326171874999]\n");
    let Some(Data::F32(v)) = &t.globals[0].data else {
        panic!("f32 data")
    };
    let bits: Vec<u32> = v.iter().map(|f| f.to_bits()).collect();
    assert_eq!(
        bits,
        [
            0x3dcc_cccd,
            0x4000_0000,
            0x8000_0000,
            0x447a_0000,
            0x7fc0_0000,
            0xffc0_0000,
            0x7f80_0000,
            0x4180_0000,
            0x447a_2000,
            0x7f7f_ffff,
            // Just below the midpoint of 1 + 2^-23 and 1 + 2^-22: via f64 it would round to the
            // midpoint and then to even (0x3f800002).
            0x3f80_0001,
        ]
    );
}

#[test]
fn inline_program_errors_point_into_the_trace() {
    // The usual form: a line break after the opening quotes.
    assert_eq!(
        err("[[launch]]\ncode = \"\"\"\n    EXIT;\n    BOGUS R1;\n\"\"\"\n"),
        "5:5: unknown opcode `BOGUS`"
    );
    // The program starting on the line of the quotes.
    assert_eq!(
        err("[[launch]]\ncode = \"\"\"EXIT; BOGUS;\n\"\"\"\n"),
        "3:17: unknown opcode `BOGUS`"
    );
    // A one-line basic string with an escaped line break: the second line of the program is
    // on the trace's line 3 too.
    assert_eq!(
        err("[[launch]]\ncode = \"EXIT;\\n  BOGUS;\"\n"),
        "3:18: unknown opcode `BOGUS`"
    );
    // A literal string.
    assert_eq!(
        err("[[launch]]\ncode = '''\nEXIT;\n\tBOGUS;\n'''\n"),
        "5:2: unknown opcode `BOGUS`"
    );
    // A line-ending backslash joins lines.
    assert_eq!(
        err("[[launch]]\ncode = \"\"\"\nMOV R1, \\\n   R2;\n BOGUS;\n\"\"\"\n"),
        "6:2: unknown opcode `BOGUS`"
    );
    let e = load_text(&format!(
        "{HEAD}[[launch]]\ncode = \"\"\"\n  BOGUS;\n\"\"\"\n"
    ))
    .err()
    .expect("an error");
    assert!(matches!(e, TraceError::Program(_)), "{e:?}");
    assert!(
        e.to_string()
            .ends_with(":4:3: error: unknown opcode `BOGUS`\n4 |   BOGUS;\n  |   ^"),
        "{e}"
    );
}

#[test]
fn unreadable_and_non_utf8_traces() {
    let e = load(Path::new("/no/such/trace.toml"))
        .err()
        .expect("an error");
    assert!(matches!(e, TraceError::Unreadable(_)));
    assert!(
        e.to_string()
            .starts_with("/no/such/trace.toml: error: cannot read the trace: "),
        "{e}"
    );
    let path = scratch_dir().join("latin1.toml");
    std::fs::write(&path, b"format = \"warpjit-trace/1\"\n# caf\xe9\n").expect("file");
    let e = load(&path).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        e.contains("latin1.toml:2:6: error: the trace is not UTF-8 text"),
        "{e}"
    );
}

/// A scratch subdirectory for one test.
fn scratch_sub(name: &str) -> PathBuf {
    let d = scratch_dir().join(name);
    std::fs::create_dir_all(&d).expect("dir");
    d
}

/// Loads `text` written to `dir/t.toml`, expecting an error; its rendering.
fn err_in(dir: &Path, text: &str) -> String {
    let path = dir.join("t.toml");
    std::fs::write(&path, text).expect("trace");
    match load(&path) {
        Ok(_) => panic!("loaded:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// Makes a FIFO at `path`.
fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

/// Runs `f` on another thread and fails if it takes more than 20 seconds (a read that blocks).
fn within_seconds<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(20))
        .expect("finished in time (no blocking read)")
}

#[test]
fn the_trace_must_be_a_bounded_regular_file() {
    let dir = scratch_sub("trace_kinds");
    let fifo = dir.join("fifo.toml");
    mkfifo(&fifo);
    let e = within_seconds(move || load(&fifo).err().map(|e| e.to_string()));
    let e = e.expect("a FIFO is refused");
    assert!(
        e.contains("fifo.toml: error: cannot read the trace: ") && e.contains("is a FIFO"),
        "{e}"
    );
    let e = load(Path::new("/dev/zero"))
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("/dev/zero is a character device, not a regular file"),
        "{e}"
    );
    let big = dir.join("big.toml");
    let f = std::fs::File::create(&big).expect("file");
    f.set_len(MAX_TRACE_BYTES + 1).expect("sparse file");
    let e = load(&big).err().expect("refused").to_string();
    assert!(
        e.contains("is 67108865 bytes: a trace is limited to 67108864 bytes (64 MiB)"),
        "{e}"
    );
}

#[test]
fn side_files_must_be_bounded_regular_files() {
    let dir = scratch_sub("side_kinds");
    mkfifo(&dir.join("k.fifo"));
    let d = dir.clone();
    let e =
        within_seconds(move || err_in(&d, &format!("{HEAD}[[launch]]\ncode_file = \"k.fifo\"\n")));
    assert!(
        e.contains("t.toml:3:13: error: ") && e.contains("k.fifo is a FIFO, not a regular file"),
        "{e}"
    );
    let d = dir.clone();
    let e = within_seconds(move || {
        err_in(
            &d,
            &format!("{HEAD}[[global]]\naddr = 0x100\nsize = 8\nfile = \"k.fifo\"\n"),
        )
    });
    assert!(
        e.contains("t.toml:5:8: error: ") && e.contains("is a FIFO"),
        "{e}"
    );
    // A device outside the trace's directory is refused as such; allowed, as a device.
    let e = err_in(
        &dir,
        &format!("{HEAD}[[launch]]\ncode_file = \"/dev/zero\"\n"),
    );
    assert!(
        e.contains("\"/dev/zero\" is outside the trace's directory"),
        "{e}"
    );
    let dev = LoadOptions {
        allow_paths: vec!["/dev".into()],
    };
    let e = confined(&dir, "[[launch]]\ncode_file = \"/dev/zero\"\n", &dev).expect("refused");
    assert!(
        e.contains("/dev/zero is a character device, not a regular file"),
        "{e}"
    );
    let e = confined(
        &dir,
        "[[global]]\naddr = 0x100\nsize = 8\nfile = \"/dev/zero\"\n",
        &dev,
    )
    .expect("refused");
    assert!(e.contains("/dev/zero is a character device"), "{e}");
    let e = confined(
        &dir,
        "[[expect]]\naddr = 0x100\nfile = \"/dev/zero\"\n",
        &dev,
    )
    .expect("refused");
    assert!(
        e.contains("t.toml:4:8: error: ") && e.contains("character device"),
        "{e}"
    );
    let big = dir.join("big.sass");
    let f = std::fs::File::create(&big).expect("file");
    f.set_len(MAX_PROGRAM_BYTES + 1).expect("sparse file");
    let e = err_in(
        &dir,
        &format!("{HEAD}[[launch]]\ncode_file = \"big.sass\"\n"),
    );
    assert!(
        e.contains("t.toml:3:13: error: ")
            && e.contains("is 4194305 bytes: a code_file is limited to 4194304 bytes (4 MiB)"),
        "{e}"
    );
}

#[test]
fn the_number_of_values_is_bounded() {
    let dir = scratch_sub("values");
    let n = MAX_TRACE_VALUES;
    // `u8 = [` is two values, and n - 1 commas separate n elements: one value too many.
    let mut text = format!("{HEAD}[[global]]\naddr = 0x100\nu8 = [0");
    text.push_str(&",0".repeat(n - 1));
    text.push_str("]\n");
    let e = err_in(&dir, &text);
    assert!(
        e.contains("t.toml:4:")
            && e.contains(&format!("more than {n} values"))
            && e.contains("`file = "),
        "{}",
        &e[..e.len().min(500)]
    );
    assert!(e.len() < 1000, "the excerpt is cut");
    // Commas in strings and comments do not count.
    let mut ok_text = format!(
        "{HEAD}# {}\n[[launch]]\ncode = \"\"\"\n// {}\nEXIT;\n\"\"\"\n",
        ",".repeat(n),
        ",".repeat(n)
    );
    ok_text.push_str("[[global]]\naddr = 0x100\nu8 = [0, 0]\n");
    let path = dir.join("ok.toml");
    std::fs::write(&path, ok_text).expect("trace");
    if let Err(e) = load(&path) {
        let e = e.to_string();
        panic!(
            "commas in comments and strings are not values: {}",
            &e[..e.len().min(300)]
        );
    }
}

#[test]
fn u64_values_may_be_strings() {
    let t = ok(
        "[[global]]\naddr = \"0xffff_ffff_ffff_f000\"\nsize = \"4095\"\n\
                [[sparse]]\naddr = \"0xffff_ffff_ffff_0000\"\nsize = 0x10000\n\
                [[expect]]\naddr = \"18446744073709547520\"\nu32 = [0]\n",
    );
    assert_eq!(t.globals[0].addr, 0xffff_ffff_ffff_f000);
    assert_eq!(t.globals[0].size, 4095);
    assert_eq!(t.expects[0].addr, u64::MAX - 4095);
    assert!(t.machine.global.is_sparse(u64::MAX - 1));
    assert_eq!(
        ok("[machine]\nshared_window = \"0x0200_0000\"\n").shared_window,
        0x200_0000
    );
    let t = ok("[[launch]]\ncode = \"EXIT;\"\nbudget = \"1_000\"\n");
    assert_eq!(t.launches[0].budget, 1000);
    // A segment may end exactly at 2^64, not one byte later.
    let t = ok("[[global]]\naddr = \"0xffff_ffff_ffff_f000\"\nsize = \"0x1000\"\n");
    assert_eq!(t.globals[0].size, 0x1000);
    assert_eq!(
        err("[[global]]\naddr = \"0xffff_ffff_ffff_f000\"\nsize = \"0x1001\"\n"),
        "3:8: segment [0xfffffffffffff000, +0x1001) is empty or wraps the 64-bit address space"
    );
    for bad in [
        "0x",
        "",
        "_1",
        "1_",
        "1__0",
        "0x1_0000_0000_0000_0000",
        "18446744073709551616",
        "-1",
        "+1",
        "0X10",
        "1e3",
        " 1",
    ] {
        let e = err(&format!("[[global]]\naddr = {bad:?}\nsize = 4\n"));
        assert!(e.starts_with("3:8: invalid 64-bit value"), "{bad:?}: {e}");
    }
    assert!(
        err("[[expect]]\naddr = \"x\"\nu8 = [1]\n").starts_with("3:8: invalid 64-bit value \"x\"")
    );
    assert!(err("[[buffer]]\nslot = 0\nstride = 4\nsize = \"0x\"\n")
        .starts_with("5:8: invalid 64-bit value"));
}

#[test]
fn expectations_need_mapped_bytes() {
    let seg = "[[global]]\naddr = 0x100\nsize = 8\n";
    assert_eq!(
        err(&format!("{seg}[[expect]]\naddr = 0x9000\nu32 = []\n")),
        "7:7: the expected data is empty: an expectation must check at least one byte"
    );
    assert_eq!(
        err(&format!("{seg}[[expect]]\naddr = 0xfc\nu32 = [0, 0]\n")),
        "6:8: range [0xfc, +0x8) is not inside mapped global memory"
    );
    assert_eq!(
        err(&format!(
            "{seg}[[expect]]\naddr = \"0xffff_ffff_ffff_fffc\"\nu32 = [0, 0]\n"
        )),
        "6:8: range [0xfffffffffffffffc, +0x8) is not inside mapped global memory"
    );
}

#[test]
fn file_segments_are_mapped_and_16_byte_aligned() {
    let dir = scratch_sub("file_align");
    let data: Vec<u8> = (0..5000u32).map(|i| i as u8 | 1).collect();
    std::fs::write(dir.join("d.bin"), &data).expect("file");
    let path = dir.join("t.toml");
    std::fs::write(
        &path,
        format!("{HEAD}[[global]]\naddr = 0x10010\nsize = 0x10000\nfile = \"d.bin\"\n"),
    )
    .expect("trace");
    let t = load(&path).expect("trace");
    let s = &t.machine.global.segments()[0];
    assert_eq!(
        s.host_base() as u64 % 4096,
        0,
        "the file is mapped at a page, not copied"
    );
    let got = t
        .machine
        .global
        .read_bytes(0x10010, 0x10000)
        .expect("mapped");
    assert_eq!(&got[..5000], &data[..]);
    assert!(got[5000..].iter().all(|&b| b == 0));
    let e = err_in(
        &dir,
        &format!("{HEAD}[[global]]\naddr = 0x10008\nfile = \"d.bin\"\n"),
    );
    assert!(
        e.contains("t.toml:3:8: error: segment [0x10008, +0x1388) is initialised from a file, so its address must be a multiple of 16"),
        "{e}"
    );
}

#[test]
fn a_hundred_thousand_segments_load_quickly() {
    let dir = scratch_sub("many");
    let n = 100_000u64;
    let mut text = String::from(HEAD);
    // In reverse address order, with data, expectations and a few sparse tiles.
    for i in (0..n).rev() {
        let a = 0x10_0000 + i * 0x100;
        text.push_str(&format!(
            "[[global]]\naddr = {a:#x}\nsize = 0x40\nu32 = [{i}]\n"
        ));
    }
    text.push_str("[[global]]\naddr = 0x1_0000_0000\nsize = 0x20000\n[[sparse]]\naddr = 0x1_0001_0000\nsize = 0x10000\n");
    for i in (0..n).step_by(1000) {
        text.push_str(&format!(
            "[[expect]]\naddr = {:#x}\nu32 = [{i}, 0]\n",
            0x10_0000 + i * 0x100
        ));
    }
    text.push_str(EXIT);
    let path = dir.join("t.toml");
    std::fs::write(&path, text).expect("trace");
    let start = std::time::Instant::now();
    let t = load(&path).expect("trace");
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(t.globals.len() as u64, n + 1);
    assert_eq!(t.machine.global.segments().len() as u64, n + 1);
    assert!(secs < 20.0, "loading took {secs} s");
    let r = crate::runner::run(t, &crate::interp::Interpreter, &Default::default()).expect("runs");
    assert!(r.passed(), "{}", r.failure_text(5));
    // Overlaps are still found among many segments, pointing at the later table.
    let mut text = String::from(HEAD);
    for i in 0..1000u64 {
        text.push_str(&format!(
            "[[global]]\naddr = {:#x}\nsize = 0x10\n",
            (1000 - i) * 0x100
        ));
    }
    text.push_str(
        "[[global]]\naddr = 0x1ff08\nsize = 0x10\n[[global]]\naddr = 0x2ff0\nsize = 0x20\n",
    );
    let e = err_in(&dir, &text);
    assert!(
        e.contains(
            "t.toml:3003:8: error: segment [0x1ff08, +0x10) overlaps segment [0x1ff00, +0x10)"
        ),
        "{e}"
    );
}

#[test]
fn program_text_is_bounded_and_assembled_once() {
    let dir = scratch_sub("programs");
    // 1.5 MiB of program text: three launches of it are one program; three texts are too many.
    let text = format!("{}EXIT;\n", "NOP;\n".repeat(300_000));
    for k in ["a", "b", "c"] {
        std::fs::write(dir.join(format!("{k}.sass")), &text).expect("code");
    }
    let path = dir.join("same.toml");
    let launch = |k: &str| format!("[[launch]]\ncode_file = \"{k}.sass\"\n");
    std::fs::write(
        &path,
        format!("{HEAD}{}{}{}", launch("a"), launch("a"), launch("a")),
    )
    .expect("trace");
    let t = load(&path).expect("one program, assembled once");
    assert!(Arc::ptr_eq(&t.launches[0].program, &t.launches[2].program));
    let e = err_in(
        &dir,
        &format!("{HEAD}{}{}{}", launch("a"), launch("b"), launch("c")),
    );
    assert!(
        e.contains(
            "t.toml:7:13: error: the trace's programs hold more than 4194304 bytes (4 MiB) of text"
        ),
        "{e}"
    );
    // Inline code counts too.
    let inline = format!("[[launch]]\ncode = \"\"\"\n{text}\"\"\"\n");
    let e = err_in(
        &dir,
        &format!("{HEAD}{}{}{inline}", launch("a"), launch("b")),
    );
    assert!(
        e.contains("t.toml:7:8: error: the trace's programs hold more than"),
        "{e}"
    );
}

#[test]
fn code_files_are_bytes_chosen_by_content() {
    let d = scratch_dir().join("bytes");
    let _ = std::fs::create_dir_all(&d);
    let trace = d.join("t.toml");
    let cases: [(&[u8], &str); 4] = [
        (
            b"\x7fELF\x02\x01\x01\x00",
            "k.bin: byte 0x8: error: ELF header: the file ends after 8 bytes",
        ),
        (
            b"DXBC\x00\x01",
            "k.bin: byte 0x6: error: the container is 6 bytes, shorter than its header",
        ),
        (
            b"NOP;\n\xe9",
            "k.bin: byte 0x5: error: the program is neither UTF-8 text nor a known binary format",
        ),
        (
            b"NOP;\n  VADD R1, R2, R3, R4;\n",
            "k.bin:2:3: error: `VADD` is a Maxwell instruction warpjit does not support yet",
        ),
    ];
    for (bytes, want) in cases {
        std::fs::write(d.join("k.bin"), bytes).expect("code file");
        std::fs::write(&trace, format!("{HEAD}[[launch]]\ncode_file = \"k.bin\"\n"))
            .expect("trace");
        let e = load(&trace).err().expect("an error");
        assert!(matches!(e, TraceError::Program(_)), "{e:?}");
        let shown = e.to_string();
        let first = shown.lines().next().unwrap_or("");
        assert!(first.ends_with(want) || first.contains(want), "{shown}");
        assert!(first.starts_with(&d.display().to_string()), "{shown}");
    }
}

#[test]
fn inline_code_notes_count_trace_lines() {
    // The duplicate label's first definition is named by its line in the trace file, as the
    // error's own location is.
    let text = format!("{HEAD}[[launch]]\ncode = \"\"\"\nL:\n  NOP;\nL:\n\"\"\"\n");
    let e = load_text(&text).err().expect("an error");
    let shown = e.to_string();
    assert!(
        shown.contains(".toml:6:1: error: duplicate label `L`"),
        "{shown}"
    );
    assert!(
        shown.ends_with("= note: first defined on line 4"),
        "{shown}"
    );
    // And so do did-you-mean notes and unknown keys.
    let shown = load_text(&format!("{HEAD}[[launch]]\ncode = \"IADDD R1, R2, R3;\"\n"))
        .err()
        .expect("an error")
        .to_string();
    assert!(
        shown.contains(":3:9: error: unknown opcode `IADDD`"),
        "{shown}"
    );
    assert!(shown.ends_with("= help: did you mean `IADD`?"), "{shown}");
    assert_eq!(
        err("[[global]]\nsize = 16\nadress = 0x1000\n"),
        "4:1: unknown field `adress`, expected one of `addr`, `size`, `uninitialized`, `u32`, `i32`, `f32`, `u8`, `file`"
    );
    let shown = load_text(&format!("{HEAD}[[global]]\nsize = 16\nadress = 0x1000\n"))
        .err()
        .expect("an error")
        .to_string();
    assert!(shown.ends_with("= help: did you mean `addr`?"), "{shown}");
}
