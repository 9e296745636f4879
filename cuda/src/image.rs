//! Module images as programs hand them to the driver: cubins (ELF), fatbins (the container nvcc,
//! NVRTC and nvJitLink write; the sm_5x cubin is taken, else the PTX), and PTX text, which is
//! compiled for sm_52 by NVIDIA's ptxas.

use crate::error::{self, Res};
use std::path::PathBuf;
use std::process::Command;

/// The fatbin container's magic (`0xBA55ED50`).
pub const FATBIN_MAGIC: u32 = 0xba55_ed50;
/// The magic of the wrapper nvcc's host code passes (`__fatBinC_Wrapper_t`, `0x466243B1`).
pub const FATBIN_WRAPPER_MAGIC: u32 = 0x4662_43b1;

/// The architectures whose cubins run, in order of preference for the sm_52 device.
const ARCHS: [u32; 3] = [52, 50, 53];

/// What an image is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Image {
    /// A cubin.
    Cubin(Vec<u8>),
    /// PTX text.
    Ptx(Vec<u8>),
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// The size of the image at `p` when the caller gives none (`cuModuleLoadData`): an ELF file's
/// size from its headers, a fatbin's from its header, PTX text up to its NUL.
///
/// # Safety
/// `p` must point to a whole image of one of these kinds.
pub unsafe fn image_len(p: *const u8) -> Res<usize> {
    if p.is_null() {
        return Err(error::INVALID_VALUE);
    }
    let head = std::slice::from_raw_parts(p, 16);
    if head[..4] == *b"\x7fELF" {
        let h = std::slice::from_raw_parts(p, 64);
        let shoff = u64_at(h, 0x28).unwrap_or(0);
        let shnum = u64::from(u16_at(h, 0x3c).unwrap_or(0));
        let phoff = u64_at(h, 0x20).unwrap_or(0);
        let phnum = u64::from(u16_at(h, 0x38).unwrap_or(0));
        let mut end = (shoff + shnum * 64).max(phoff + phnum * 56).max(64);
        // Sections may lie past the header table.
        for i in 0..shnum {
            let s = std::slice::from_raw_parts(p.add((shoff + i * 64) as usize), 64);
            let kind = u32_at(s, 4).unwrap_or(0);
            if kind != 8 {
                end = end.max(u64_at(s, 0x18).unwrap_or(0) + u64_at(s, 0x20).unwrap_or(0));
            }
        }
        return usize::try_from(end).map_err(|_| error::INVALID_IMAGE);
    }
    if u32_at(head, 0) == Some(FATBIN_MAGIC) {
        let size = u64_at(head, 8).unwrap_or(0) + 16;
        return usize::try_from(size).map_err(|_| error::INVALID_IMAGE);
    }
    Ok(libc::strlen(p.cast()))
}

/// Reads `bytes` (a cubin, a fatbin, or PTX text) as the image to load.
pub fn classify(bytes: &[u8]) -> Res<Image> {
    if bytes.starts_with(b"\x7fELF") {
        return Ok(Image::Cubin(bytes.to_vec()));
    }
    if u32_at(bytes, 0) == Some(FATBIN_MAGIC) {
        return fatbin(bytes);
    }
    let text = bytes.split(|&b| b == 0).next().unwrap_or(&[]);
    let s = String::from_utf8_lossy(text);
    if s.contains(".version") && s.contains(".target") {
        return Ok(Image::Ptx(text.to_vec()));
    }
    Err(error::INVALID_IMAGE)
}

/// The entry to load from a fatbin: a cubin for sm_52, sm_50 or sm_53 (in that order of
/// preference), else the PTX of the highest version not above compute_52, else
/// `CUDA_ERROR_NO_BINARY_FOR_GPU`. Compressed entries are refused.
pub fn fatbin(bytes: &[u8]) -> Res<Image> {
    let total = u64_at(bytes, 8).ok_or(error::INVALID_IMAGE)?;
    let header = u16_at(bytes, 6).ok_or(error::INVALID_IMAGE)? as u64;
    let end = (header + total).min(bytes.len() as u64) as usize;
    let mut at = header as usize;
    let mut cubins: Vec<(u32, &[u8], bool)> = Vec::new();
    let mut ptx: Vec<(u32, &[u8], bool)> = Vec::new();
    while at + 64 <= end {
        let e = &bytes[at..];
        let kind = u16_at(e, 0).ok_or(error::INVALID_IMAGE)?;
        let hsize = u32_at(e, 4).ok_or(error::INVALID_IMAGE)? as usize;
        let psize = u64_at(e, 8).ok_or(error::INVALID_IMAGE)? as usize;
        let arch = u32_at(e, 28).ok_or(error::INVALID_IMAGE)?;
        let flags = u64_at(e, 40).ok_or(error::INVALID_IMAGE)?;
        if hsize < 64 {
            return Err(error::INVALID_IMAGE);
        }
        let start = at.checked_add(hsize).ok_or(error::INVALID_IMAGE)?;
        let stop = start.checked_add(psize).ok_or(error::INVALID_IMAGE)?;
        let payload = bytes
            .get(start..stop.min(end))
            .ok_or(error::INVALID_IMAGE)?;
        // Bit 13 (LZ4-style, CUDA 11-12) or 15 (zstd, CUDA 12.8+) marks a compressed payload.
        let compressed = flags & 0xa000 != 0;
        match kind {
            1 => ptx.push((arch, payload, compressed)),
            2 | 0x10 => cubins.push((arch, payload, compressed)),
            _ => {}
        }
        at = stop;
    }
    for want in ARCHS {
        if let Some(&(_, p, compressed)) = cubins.iter().find(|(a, _, _)| *a == want) {
            if compressed {
                crate::entry::log_line(&format!(
                    "fatbin: the sm_{want} cubin is compressed, which warpjit does not read \
                     (build with -Xfatbin -compress=false)"
                ));
                return Err(error::NOT_SUPPORTED);
            }
            return Ok(Image::Cubin(p.to_vec()));
        }
    }
    let best = ptx
        .iter()
        .filter(|(a, _, c)| *a <= 52 && !c)
        .max_by_key(|(a, _, _)| *a);
    match best {
        Some(&(_, p, _)) => Ok(Image::Ptx(
            p.split(|&b| b == 0).next().unwrap_or(&[]).to_vec(),
        )),
        None => Err(error::NO_BINARY_FOR_GPU),
    }
}

/// NVIDIA's ptxas: `WARPJIT_PTXAS`, else on `PATH`, else in the `nvidia-cuda-nvcc-cu12` wheel
/// of a Python whose `site-packages` this process has loaded libraries from (a Python program
/// using `cuda-python` or Numba) or that sits beside the program's executable.
pub fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("WARPJIT_PTXAS") {
        return Some(PathBuf::from(p));
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let p = dir.join("ptxas");
            if p.is_file() {
                return Some(p);
            }
        }
    }
    let mut sites: Vec<PathBuf> = Vec::new();
    if let Ok(maps) = std::fs::read_to_string("/proc/self/maps") {
        for line in maps.lines() {
            if let Some(i) = line.find("/site-packages/") {
                if let Some(start) = line.find('/') {
                    if start <= i {
                        let site = PathBuf::from(&line[start..i + "/site-packages".len()]);
                        if !sites.contains(&site) {
                            sites.push(site);
                        }
                    }
                }
            }
        }
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(prefix) = exe.parent().and_then(|b| b.parent()) {
            if let Ok(entries) = std::fs::read_dir(prefix.join("lib")) {
                for e in entries.flatten() {
                    sites.push(e.path().join("site-packages"));
                }
            }
        }
    }
    sites
        .into_iter()
        .map(|s| s.join("nvidia/cuda_nvcc/bin/ptxas"))
        .find(|p| p.is_file())
}

/// Compiles PTX text to an sm_52 cubin with ptxas. The error log goes to `log` (and to stderr
/// with `WARPJIT_CUDA_LOG`): `CUDA_ERROR_JIT_COMPILER_NOT_FOUND` without ptxas,
/// `CUDA_ERROR_INVALID_PTX` when it refuses the PTX.
pub fn compile_ptx(ptx: &[u8], log: &mut String) -> Res<Vec<u8>> {
    let Some(ptxas) = find_ptxas() else {
        log.push_str("warpjit: no ptxas found (set WARPJIT_PTXAS, or put ptxas on PATH)");
        return Err(error::JIT_COMPILER_NOT_FOUND);
    };
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("warpjit-cuda-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|_| error::UNKNOWN)?;
    let (src, out) = (dir.join("module.ptx"), dir.join("module.cubin"));
    let result = (|| {
        std::fs::write(&src, ptx).map_err(|_| error::UNKNOWN)?;
        let run = Command::new(&ptxas)
            .arg("-arch=sm_52")
            .arg("-o")
            .arg(&out)
            .arg(&src)
            .output()
            .map_err(|_| error::JIT_COMPILER_NOT_FOUND)?;
        let text = String::from_utf8_lossy(&run.stderr).replace(&*src.to_string_lossy(), "ptx");
        log.push_str(&text);
        if !run.status.success() {
            if crate::entry::log_enabled() {
                crate::entry::log_line(&format!("ptxas refused the PTX:\n{text}"));
            }
            return Err(if text.contains("Unsupported .version") {
                error::UNSUPPORTED_PTX_VERSION
            } else {
                error::INVALID_PTX
            });
        }
        std::fs::read(&out).map_err(|_| error::INVALID_PTX)
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// The cubin to load for `bytes` (compiling PTX), with the JIT log.
pub fn cubin_of(bytes: &[u8], log: &mut String) -> Res<Vec<u8>> {
    match classify(bytes)? {
        Image::Cubin(c) => Ok(c),
        Image::Ptx(p) => compile_ptx(&p, log),
    }
}
