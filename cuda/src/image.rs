//! Module images as programs hand them to the driver: cubins (ELF), fatbins (the container nvcc,
//! NVRTC and nvJitLink write; the sm_5x cubin is taken, else the PTX; an entry compressed with
//! LZ4 or zstd is decompressed), and PTX text, which is compiled for sm_52 by NVIDIA's ptxas.

use crate::error::{self, Res};
use std::path::PathBuf;
use std::process::Command;

/// The fatbin container's magic (`0xBA55ED50`).
pub const FATBIN_MAGIC: u32 = 0xba55_ed50;
/// The magic of the wrapper nvcc's host code passes (`__fatBinC_Wrapper_t`, `0x466243B1`).
pub const FATBIN_WRAPPER_MAGIC: u32 = 0x4662_43b1;

/// The architectures whose cubins run, in order of preference for the sm_52 device.
const ARCHS: [u32; 3] = [52, 50, 53];

/// The largest entry a fatbin may decompress to (a bound on what a hostile image can make the
/// driver allocate); real cubins and PTX are far smaller.
pub const MAX_DECOMPRESSED: u64 = 256 << 20;

/// A fatbin entry's flag: its payload is an LZ4 block (nvcc's `fatbinary --compress`, CUDA 11
/// to 12.7).
const FLAG_LZ4: u64 = 0x2000;
/// A fatbin entry's flag: its payload is a zstd frame (CUDA 12.8 and later).
const FLAG_ZSTD: u64 = 0x8000;

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
/// `CUDA_ERROR_NO_BINARY_FOR_GPU`. A compressed entry (LZ4 or zstd) is decompressed, to at most
/// [`MAX_DECOMPRESSED`] bytes.
pub fn fatbin(bytes: &[u8]) -> Res<Image> {
    let total = u64_at(bytes, 8).ok_or(error::INVALID_IMAGE)?;
    let header = u16_at(bytes, 6).ok_or(error::INVALID_IMAGE)? as u64;
    let end = (header + total).min(bytes.len() as u64) as usize;
    let mut at = header as usize;
    let mut cubins: Vec<(u32, Entry<'_>)> = Vec::new();
    let mut ptx: Vec<(u32, Entry<'_>)> = Vec::new();
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
        let entry = Entry {
            payload,
            flags,
            packed: u32_at(e, 16).ok_or(error::INVALID_IMAGE)? as usize,
            unpacked: u64_at(e, 56).ok_or(error::INVALID_IMAGE)?,
        };
        match kind {
            1 => ptx.push((arch, entry)),
            2 | 0x10 => cubins.push((arch, entry)),
            _ => {}
        }
        at = stop;
    }
    for want in ARCHS {
        if let Some((_, e)) = cubins.iter().find(|(a, _)| *a == want) {
            return Ok(Image::Cubin(e.bytes()?));
        }
    }
    let best = ptx.iter().filter(|(a, _)| *a <= 52).max_by_key(|(a, _)| *a);
    match best {
        Some((_, e)) => {
            let text = e.bytes()?;
            Ok(Image::Ptx(
                text.split(|&b| b == 0).next().unwrap_or(&[]).to_vec(),
            ))
        }
        None => Err(error::NO_BINARY_FOR_GPU),
    }
}

/// One entry of a fatbin: its payload as stored, its flags, and (when compressed) the
/// compressed length (header offset 16) and the length it decompresses to (offset 56).
struct Entry<'a> {
    payload: &'a [u8],
    flags: u64,
    packed: usize,
    unpacked: u64,
}

impl Entry<'_> {
    /// The entry's bytes, decompressed if its flags say it is compressed: an LZ4 block or a
    /// zstd frame, which must give exactly the length the header states (at most
    /// [`MAX_DECOMPRESSED`]); anything else is `CUDA_ERROR_INVALID_IMAGE`.
    fn bytes(&self) -> Res<Vec<u8>> {
        if self.flags & (FLAG_LZ4 | FLAG_ZSTD) == 0 {
            return Ok(self.payload.to_vec());
        }
        let bad = |why: &str| {
            if crate::entry::log_enabled() {
                crate::entry::log_line(&format!("fatbin: a compressed entry is invalid: {why}"));
            }
            error::INVALID_IMAGE
        };
        if self.unpacked > MAX_DECOMPRESSED {
            return Err(bad("it would decompress to more than 256 MiB"));
        }
        let want = self.unpacked as usize;
        let input = self
            .payload
            .get(..self.packed)
            .ok_or_else(|| bad("its compressed length runs past its payload"))?;
        if self.flags & FLAG_ZSTD != 0 {
            use std::io::Read;
            let mut out = Vec::with_capacity(want);
            let dec = ruzstd::decoding::StreamingDecoder::new(input)
                .map_err(|e| bad(&format!("zstd: {e}")))?;
            dec.take(want as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|e| bad(&format!("zstd: {e}")))?;
            if out.len() != want {
                return Err(bad("zstd: not the length its header states"));
            }
            return Ok(out);
        }
        let mut out = vec![0u8; want];
        match lz4_flex::block::decompress_into(input, &mut out) {
            Ok(n) if n == want => Ok(out),
            Ok(_) => Err(bad("LZ4: not the length its header states")),
            Err(e) => Err(bad(&format!("LZ4: {e}"))),
        }
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
    python_sites()
        .into_iter()
        .map(|s| s.join("nvidia/cuda_nvcc/bin/ptxas"))
        .find(|p| p.is_file())
}

/// The `site-packages` folders of the Pythons this process has loaded libraries from (a Python
/// program using `cuda-python` or Numba), and of one that sits beside the program's executable:
/// where NVIDIA's wheels put ptxas and nvJitLink.
pub fn python_sites() -> Vec<PathBuf> {
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
}

/// Compiles PTX text to an sm_52 cubin with ptxas, or without one with nvJitLink
/// ([`crate::link`], which compiles PTX too). The error log goes to `log` (and to stderr with
/// `WARPJIT_CUDA_LOG`): `CUDA_ERROR_JIT_COMPILER_NOT_FOUND` with neither,
/// `CUDA_ERROR_INVALID_PTX` when the compiler refuses the PTX.
pub fn compile_ptx(ptx: &[u8], log: &mut String) -> Res<Vec<u8>> {
    let Some(ptxas) = find_ptxas() else {
        let mut text = ptx.to_vec();
        text.push(0);
        let input = [(crate::abi::consts::CU_JIT_INPUT_PTX, text, String::new())];
        let made = crate::link::link(&input, log);
        if made == Err(error::JIT_COMPILER_NOT_FOUND) {
            log.push_str(
                "\nwarpjit: no ptxas found either (set WARPJIT_PTXAS, or put ptxas on PATH)",
            );
        }
        return made;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// One fatbin entry to write: kind (1 PTX, 2 cubin), architecture, flags, the payload as
    /// stored, and the length it decompresses to (0 when stored plain).
    struct Put<'a>(u16, u32, u64, &'a [u8], u64);

    /// A fatbin container as nvcc's fatbinary lays it out: a 16-byte header, then each entry's
    /// 64-byte header and its payload padded to 8 bytes.
    fn container(entries: &[Put<'_>]) -> Vec<u8> {
        let mut body = Vec::new();
        for Put(kind, arch, flags, payload, unpacked) in entries {
            let padded = payload.len().div_ceil(8) * 8;
            let mut h = [0u8; 64];
            h[0..2].copy_from_slice(&kind.to_le_bytes());
            h[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
            h[4..8].copy_from_slice(&64u32.to_le_bytes());
            h[8..16].copy_from_slice(&(padded as u64).to_le_bytes());
            h[16..20].copy_from_slice(&(payload.len() as u32).to_le_bytes());
            h[28..32].copy_from_slice(&arch.to_le_bytes());
            h[40..48].copy_from_slice(&flags.to_le_bytes());
            h[56..64].copy_from_slice(&unpacked.to_le_bytes());
            body.extend_from_slice(&h);
            body.extend_from_slice(payload);
            body.resize(body.len() + padded - payload.len(), 0);
        }
        let mut out = Vec::new();
        out.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&16u16.to_le_bytes());
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    fn cubin() -> Vec<u8> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/cubin/gather64.cubin");
        std::fs::read(path).expect("fixture")
    }

    const PTX: &[u8] =
        b"//\n.version 8.5\n.target sm_52\n.address_size 64\n.visible .entry k() { ret; }\n";

    #[test]
    fn the_sm52_cubin_is_taken_before_others_and_before_ptx() {
        let c = cubin();
        let f = container(&[
            Put(1, 52, 0, PTX, 0),
            Put(2, 61, 0, b"not this one", 0),
            Put(2, 50, 0, b"nor this one", 0),
            Put(2, 52, 0, &c, 0),
        ]);
        assert_eq!(classify(&f), Ok(Image::Cubin(c)));
    }

    #[test]
    fn an_lz4_compressed_cubin_is_decompressed() {
        let c = cubin();
        let packed = lz4_flex::block::compress(&c);
        assert!(packed.len() < c.len());
        let f = container(&[Put(2, 52, FLAG_LZ4, &packed, c.len() as u64)]);
        assert_eq!(classify(&f), Ok(Image::Cubin(c)));
    }

    #[test]
    fn zstd_compressed_ptx_is_decompressed_when_no_cubin_runs() {
        let packed =
            ruzstd::encoding::compress_to_vec(PTX, ruzstd::encoding::CompressionLevel::Fastest);
        let f = container(&[
            Put(2, 61, 0, b"an sm_61 cubin", 0),
            Put(1, 52, FLAG_ZSTD, &packed, PTX.len() as u64),
        ]);
        assert_eq!(classify(&f), Ok(Image::Ptx(PTX.to_vec())));
    }

    #[test]
    fn bad_compressed_entries_are_invalid_images() {
        let c = cubin();
        let packed = lz4_flex::block::compress(&c);
        let n = c.len() as u64;
        // A stated length that is wrong, one past the bound, garbage, a truncated payload.
        for (flags, payload, unpacked) in [
            (FLAG_LZ4, &packed[..], n + 1),
            (FLAG_LZ4, &packed[..], MAX_DECOMPRESSED + 1),
            (FLAG_LZ4, &[0xffu8; 40][..], n),
            (FLAG_LZ4, &packed[..packed.len() / 2], n),
            (FLAG_ZSTD, &packed[..], n),
        ] {
            let f = container(&[Put(2, 52, flags, payload, unpacked)]);
            assert_eq!(classify(&f), Err(error::INVALID_IMAGE));
        }
    }

    /// Garbage in a compressed entry (random bytes, and real compressed data with bytes
    /// flipped, with stated lengths small and large) is an error or some bytes, never a panic.
    #[test]
    fn hostile_compressed_entries_never_panic() {
        let c = cubin();
        let lz4 = lz4_flex::block::compress(&c);
        let zstd =
            ruzstd::encoding::compress_to_vec(&c[..], ruzstd::encoding::CompressionLevel::Fastest);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..600 {
            let (flags, mut payload) = match round % 3 {
                0 => (FLAG_LZ4, lz4.clone()),
                1 => (FLAG_ZSTD, zstd.clone()),
                _ => (
                    [FLAG_LZ4, FLAG_ZSTD][round % 2],
                    (0..next() % 300).map(|_| next() as u8).collect(),
                ),
            };
            for _ in 0..1 + next() % 4 {
                if !payload.is_empty() {
                    let i = (next() as usize) % payload.len();
                    payload[i] ^= 1 << (next() % 8);
                }
            }
            let unpacked = [c.len() as u64, next() % 100_000, 0][round % 3];
            let f = container(&[Put(2, 52, flags, &payload, unpacked)]);
            let _ = classify(&f);
        }
    }

    #[test]
    fn no_entry_for_sm52_is_no_binary_for_gpu() {
        let f = container(&[Put(2, 61, 0, b"sm_61", 0), Put(1, 60, 0, PTX, 0)]);
        assert_eq!(classify(&f), Err(error::NO_BINARY_FOR_GPU));
    }
}
