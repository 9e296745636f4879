//! A C program against NVIDIA's `cuda.h` (cuda/tests/c/vadd.c), compiled with the system C
//! compiler (`CC`, else `cc`) and run under `warpjit cuda` with the library cargo built.
//!
//! cuda.h comes from `CUDA_INCLUDE`, else from the `nvidia-cuda-runtime-cu12` wheel of
//! `python3` (`import nvidia.cuda_runtime`); its licence does not allow copying it into the
//! repository. Without it the test says so and does nothing, unless `WARPJIT_REQUIRE_CUDA_H`
//! is set (as .ci/run sets it), when that is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

fn cuda_include() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CUDA_INCLUDE") {
        return Some(PathBuf::from(p));
    }
    let out = Command::new(std::env::var("PYTHON").unwrap_or_else(|_| "python3".into()))
        .args([
            "-c",
            "import nvidia.cuda_runtime as r; print(list(r.__path__)[0] + '/include')",
        ])
        .output()
        .ok()?;
    let dir = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    dir.join("cuda.h").is_file().then_some(dir)
}

/// target/<profile>/deps (this test's directory), where cargo built libcuda.so.
fn deps() -> PathBuf {
    std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The warpjit binary of this target directory, built if it is missing.
pub fn warpjit() -> PathBuf {
    let profile = deps().parent().unwrap().to_path_buf();
    let bin = profile.join("warpjit");
    if !bin.is_file() {
        let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        cmd.args(["build", "--bin", "warpjit"])
            .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap());
        if profile.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        assert!(cmd.status().unwrap().success(), "cargo build --bin warpjit");
    }
    bin
}

#[test]
fn c_program_against_cuda_h() {
    let Some(include) = cuda_include() else {
        assert!(
            std::env::var_os("WARPJIT_REQUIRE_CUDA_H").is_none(),
            "no cuda.h: set CUDA_INCLUDE or install nvidia-cuda-runtime-cu12"
        );
        eprintln!(
            "c_program_against_cuda_h: skipped: no cuda.h (CUDA_INCLUDE, nvidia-cuda-runtime-cu12)"
        );
        return;
    };
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("warpjit-c-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Linking asks for the SONAME libcuda.so.1; `-lcuda` needs libcuda.so.
    std::os::unix::fs::symlink(deps().join("libcuda.so"), dir.join("libcuda.so")).unwrap();
    let exe = dir.join("vadd");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(cc)
        .arg(manifest.join("tests/c/vadd.c"))
        .arg(format!("-I{}", include.display()))
        .arg(format!("-L{}", dir.display()))
        .args(["-lcuda", "-o"])
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(warpjit())
        .args(["cuda", "--"])
        .arg(&exe)
        .arg(manifest.join("../tests/cubin/vadd.cubin"))
        .env("WARPJIT_CUDA_LIB", deps().join("libcuda.so"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(run.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("warpjit Maxwell (sm_52), compute capability 5.2, 16 SMs, driver 12090"),
        "{stdout}"
    );
    assert!(stdout.contains("vadd of 1000 elements: ok"), "{stdout}");
    assert!(
        stdout.contains("CUDA_ERROR_ILLEGAL_ADDRESS, as expected"),
        "{stdout}"
    );
    // The fault report, as compute-sanitizer would print it.
    assert!(
        stderr.contains("kernel `vadd`") && stderr.contains("illegal address"),
        "{stderr}"
    );
}

/// `warpjit cuda --check` on an unmodified program (cuda/tests/c/sanitize.c, seeded bugs in
/// kernels of tests/cubin/sanitize.cu): each bug is reported once, on stderr, by its tool, at
/// its instruction and thread (worked out from the source: see the comment atop sanitize.c); the
/// clean launch reports nothing; the summary line sums the launches; the program's own exit
/// status 0 becomes 5, as `warpjit run --check`'s errors make it. `--check=memcheck` runs that
/// tool only.
#[test]
fn check_reports_each_seeded_bug_of_a_driver_program_once() {
    let Some(include) = cuda_include() else {
        assert!(
            std::env::var_os("WARPJIT_REQUIRE_CUDA_H").is_none(),
            "no cuda.h: set CUDA_INCLUDE or install nvidia-cuda-runtime-cu12"
        );
        eprintln!("check_reports_each_seeded_bug: skipped: no cuda.h");
        return;
    };
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("warpjit-c-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(deps().join("libcuda.so"), dir.join("libcuda.so")).unwrap();
    let exe = dir.join("sanitize");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(cc)
        .arg(manifest.join("tests/c/sanitize.c"))
        .arg(format!("-I{}", include.display()))
        .arg(format!("-L{}", dir.display()))
        .args(["-lcuda", "-o"])
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = |check: &str| {
        Command::new(warpjit())
            .args(["cuda", check, "--engine", "interp", "--"])
            .arg(&exe)
            .arg(manifest.join("../tests/cubin/sanitize.cubin"))
            .env("WARPJIT_CUDA_LIB", deps().join("libcuda.so"))
            .output()
            .unwrap()
    };
    let o = run("--check");
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(5), "{stdout}\n{stderr}");
    assert_eq!(stdout, "done\n");
    let headlines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with("check: "))
        .collect();
    assert_eq!(
        headlines,
        [
            "racecheck: Error: Race reported between Write access at pc 0x00a8 in kernel race_rotate (launch 2) [64 hazards]",
            "initcheck: Uninitialized __global__ memory read of size 4 bytes at pc 0x0090 in kernel copy (launch 4)",
            "memcheck: Invalid __global__ read of size 4 bytes at pc 0x0090 in kernel oob_read (launch 5)",
            "warpjit cuda --check: 3 errors, 0 warnings in all launches",
        ],
        "{stderr}"
    );
    // Where: the racing store and load, the first thread reading unwritten words, the thread
    // reading past the allocation of 400 bytes.
    for want in [
        "    at race_rotate: pc 0x00a8: STS [R7], R0",
        "    Read by thread (32,0,0) in block (0,0,0) (warp 1, lane 0)",
        "  by thread (32,0,0) in block (0,0,0) (warp 1, lane 0), and 31 more at this site",
        "  by thread (99,0,0) in block (0,0,0) (warp 3, lane 3)\n  Address ",
        " is out of bounds and is 0 bytes after the nearest allocation at ",
        " of size 400 bytes\n  at oob_read: pc 0x0090: LDG.E R2, [R2+0x4]\n",
    ] {
        assert!(stderr.contains(want), "{want:?} in\n{stderr}");
    }
    assert!(!stderr.contains("rotate_ok"), "{stderr}");
    // One tool only.
    let o = run("--check=memcheck");
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(5), "{stderr}");
    assert!(
        stderr.starts_with("memcheck: Invalid __global__ read")
            && stderr.ends_with("warpjit cuda --check: 1 error, 0 warnings in all launches\n"),
        "{stderr}"
    );
    // Without --check: nothing reported, the program's own status.
    let o = Command::new(warpjit())
        .args(["cuda", "--"])
        .arg(&exe)
        .arg(manifest.join("../tests/cubin/sanitize.cubin"))
        .env("WARPJIT_CUDA_LIB", deps().join("libcuda.so"))
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
