//! Host calls (docs/semantics.md §22g): the functions the CUDA driver supplies to kernels,
//! `vprintf` (device `printf`, Numba's `print`), `__assertfail` (CUDA's and Numba's `assert`)
//! and `__cuda_syscall_CGS_get_intrinsic_handle` (cooperative groups' grid handle in debug code).
//! The cubin loader turns a call to one into `BPT.TRAP code` with the function's code
//! ([`crate::maxwell::decode_linked`]); the interpreter runs such a `BPT` as the function, lane
//! by lane, with this module's code, and the JIT delegates the instruction to the interpreter's
//! code, so both engines give the same output and the same faults.
//!
//! What a call prints goes into the machine's [`HostOutput`] as one [`HostRecord`] per lane;
//! the host program (warpjit's CUDA driver) takes the records of a launch when it completes
//! ([`HostOutput::take`]) and writes them out in CTA, warp, call, lane order.

use super::CtaEnv;
use warpjit_runtime::{Fault, FaultKind, WarpState, LANES, SHARED_WINDOW_SIZE};

/// The host calls' `BPT.TRAP` codes, defined with the op in the IR.
pub use crate::ir::{ASSERTFAIL_CODE, CGS_HANDLE_CODE, VPRINTF_CODE};

/// Whether `BPT.TRAP code` is a host call (rather than a trap).
pub fn is_host_call(code: u32) -> bool {
    code == VPRINTF_CODE || code == ASSERTFAIL_CODE || code == CGS_HANDLE_CODE
}

/// `cudaCGScopeGrid`, the scope of `__cuda_syscall_CGS_get_intrinsic_handle` whose handle is the
/// grid workspace's address.
const CG_SCOPE_GRID: u32 = 1;

/// The default capacity of a machine's [`HostOutput`] in bytes of text: 1 MiB, CUDA's default
/// `printf` FIFO size (`CU_LIMIT_PRINTF_FIFO_SIZE`).
pub const DEFAULT_HOST_OUTPUT_BYTES: usize = 1 << 20;

/// The longest string a host call reads (a format, a `%s` argument, an assertion's texts); a
/// longer one is cut there.
pub const MAX_STRING_BYTES: usize = 4096;

/// Where a host record's text goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostStream {
    /// The process's standard output (`vprintf`).
    Stdout,
    /// Its standard error (`__assertfail`).
    Stderr,
}

/// What one lane's host call printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostRecord {
    /// The lane's CTA (x, y, z).
    pub cta: [u32; 3],
    /// The warp in the CTA.
    pub warp: u32,
    /// The lane.
    pub lane: u32,
    /// Where the text goes.
    pub stream: HostStream,
    /// The text, formatted.
    pub text: Vec<u8>,
}

/// The records host calls make, shared by the CTAs of a launch (on any host thread), with a
/// capacity in bytes of text ([`DEFAULT_HOST_OUTPUT_BYTES`]; a record that does not fit is
/// dropped and counted, as CUDA drops what overflows its FIFO).
#[derive(Debug)]
pub struct HostOutput {
    inner: std::sync::Mutex<Buffer>,
}

#[derive(Debug)]
struct Buffer {
    records: Vec<HostRecord>,
    bytes: usize,
    limit: usize,
    dropped: u64,
}

impl Default for HostOutput {
    fn default() -> Self {
        HostOutput {
            inner: std::sync::Mutex::new(Buffer {
                records: Vec::new(),
                bytes: 0,
                limit: DEFAULT_HOST_OUTPUT_BYTES,
                dropped: 0,
            }),
        }
    }
}

impl HostOutput {
    fn buffer(&self) -> std::sync::MutexGuard<'_, Buffer> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets the capacity in bytes of text.
    pub fn set_limit(&self, bytes: usize) {
        self.buffer().limit = bytes;
    }

    /// The capacity in bytes of text.
    pub fn limit(&self) -> usize {
        self.buffer().limit
    }

    fn push(&self, r: HostRecord) {
        let mut b = self.buffer();
        if b.bytes + r.text.len() > b.limit {
            b.dropped += 1;
        } else {
            b.bytes += r.text.len();
            b.records.push(r);
        }
    }

    /// Takes every record made so far, ordered by CTA (linear order: x fastest, then y, then
    /// z), then warp; a warp's records in the order its calls ran, a call's in lane order. The
    /// second value counts the records dropped for want of room. The buffer is then empty.
    pub fn take(&self) -> (Vec<HostRecord>, u64) {
        let mut b = self.buffer();
        let mut records = std::mem::take(&mut b.records);
        let dropped = std::mem::take(&mut b.dropped);
        b.bytes = 0;
        drop(b);
        // Stable: a warp's records were pushed by one host thread in the order they were made.
        records.sort_by_key(|r| (r.cta[2], r.cta[1], r.cta[0], r.warp));
        (records, dropped)
    }
}

/// Runs the host call `code` for the lanes of `mask` (non-zero): `vprintf` prints each lane's
/// line and sets its R4 to the number of arguments; `__assertfail` prints each lane's message
/// and stops the launch with a trap fault carrying [`ASSERTFAIL_CODE`] in the lowest lane.
/// A string or argument at an address no lane may read is that lane's fault, as a load's.
pub fn run(code: u32, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> Result<(), Fault> {
    let lanes = (0..LANES as u32).filter(|l| mask >> l & 1 != 0);
    let pair = |w: &WarpState, r: usize, l: usize| {
        u64::from(w.regs[r][l]) | u64::from(w.regs[r + 1][l]) << 32
    };
    if code == CGS_HANDLE_CODE {
        // The grid's handle is the address of the cooperative launch's grid workspace, which
        // `%envreg1:%envreg2` also give (c[0x0][0x34] high, c[0x0][0x38] low; 0 outside a
        // cooperative launch); every other scope's is 0.
        let grid = u64::from(env.consts.word(0, 0x34)) << 32 | u64::from(env.consts.word(0, 0x38));
        for l in lanes {
            let lu = l as usize;
            let h = if w.regs[4][lu] == CG_SCOPE_GRID {
                grid
            } else {
                0
            };
            w.regs[4][lu] = h as u32;
            w.regs[5][lu] = (h >> 32) as u32;
        }
        return Ok(());
    }
    if code == VPRINTF_CODE {
        for l in lanes {
            let lu = l as usize;
            let (format, args) = (pair(w, 4, lu), pair(w, 6, lu));
            let (text, count) = vprintf(env, lu, format, args).map_err(|k| Fault::new(k, l))?;
            env.host.push(HostRecord {
                cta: env.at.cta,
                warp: env.at.warp,
                lane: l,
                stream: HostStream::Stdout,
                text,
            });
            w.regs[4][lu] = count;
        }
        return Ok(());
    }
    for l in lanes {
        let lu = l as usize;
        let text = assertfail(env, w, lu).map_err(|k| Fault::new(k, l))?;
        env.host.push(HostRecord {
            cta: env.at.cta,
            warp: env.at.warp,
            lane: l,
            stream: HostStream::Stderr,
            text,
        });
    }
    Err(Fault::new(
        FaultKind::Trap {
            code: ASSERTFAIL_CODE,
        },
        mask.trailing_zeros(),
    ))
}

/// Reads `out.len()` bytes at the generic address `addr` as lane `l`'s load would: in the
/// local window (a launch with local memory) its local memory, in the shared window the CTA's
/// shared memory, else global memory.
fn read_generic(env: &CtaEnv<'_>, l: usize, addr: u64, out: &mut [u8]) -> Result<(), FaultKind> {
    let n = out.len() as u32;
    if env.in_local_window(addr) {
        let at = env
            .local_range(addr.wrapping_sub(env.local_window), n, l)
            .map_err(|f| f.kind)?;
        out.copy_from_slice(&env.local[at..at + out.len()]);
        return Ok(());
    }
    let off = addr.wrapping_sub(env.shared_window);
    if off < SHARED_WINDOW_SIZE {
        let len = env.shared.len() as u64;
        if off + u64::from(n) > len {
            return Err(FaultKind::SharedOutOfRange {
                offset: off,
                size: n,
                shared_bytes: len as u32,
            });
        }
        out.copy_from_slice(&env.shared[off as usize..off as usize + out.len()]);
        return Ok(());
    }
    env.mem
        .read_into(addr, out)
        .map_err(|_| FaultKind::IllegalAddress { addr, size: n })
}

/// The NUL-terminated string at `addr` (at most [`MAX_STRING_BYTES`] bytes of it).
fn read_string(env: &CtaEnv<'_>, l: usize, addr: u64) -> Result<Vec<u8>, FaultKind> {
    let mut s = Vec::new();
    let mut b = [0u8];
    while s.len() < MAX_STRING_BYTES {
        read_generic(env, l, addr.wrapping_add(s.len() as u64), &mut b)?;
        if b[0] == 0 {
            break;
        }
        s.push(b[0]);
    }
    Ok(s)
}

/// One conversion of a format: its text (`%` to the conversion character) and what it takes.
#[derive(Debug, PartialEq)]
enum Piece {
    /// Text printed as it is (`%%` already made `%`).
    Text(Vec<u8>),
    /// A conversion taking an argument of `bytes` bytes (4 or 8), of the given kind.
    Conv { spec: Vec<u8>, kind: ArgKind },
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum ArgKind {
    /// d, i: a signed integer (4 bytes, or 8 with `l`/`ll`/`j`/`z`/`t`).
    Signed(u8),
    /// u, o, x, X, c: an unsigned integer.
    Unsigned(u8),
    /// f, F, e, E, g, G, a, A: a double (8 bytes: float arguments are promoted).
    Float,
    /// s: a string pointer (8 bytes).
    Str,
    /// p: a pointer (8 bytes).
    Ptr,
}

/// Splits a format into text and conversions as C's printf reads it: `%`, flags (`-+ #0`),
/// a width, a precision (`.digits`), a length (`hh h l ll j z t L`) and a conversion
/// character. A `%` not followed by a complete conversion is printed as written.
fn parse_format(f: &[u8]) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut text = Vec::new();
    let mut i = 0;
    while i < f.len() {
        if f[i] != b'%' {
            text.push(f[i]);
            i += 1;
            continue;
        }
        if f.get(i + 1) == Some(&b'%') {
            text.push(b'%');
            i += 2;
            continue;
        }
        let start = i;
        let mut j = i + 1;
        while j < f.len() && b"-+ #0".contains(&f[j]) {
            j += 1;
        }
        while j < f.len() && f[j].is_ascii_digit() {
            j += 1;
        }
        if f.get(j) == Some(&b'.') {
            j += 1;
            while j < f.len() && f[j].is_ascii_digit() {
                j += 1;
            }
        }
        let len_start = j;
        while j < f.len() && b"hljztL".contains(&f[j]) {
            j += 1;
        }
        let length = &f[len_start..j];
        let wide = length.iter().any(|c| b"ljzt".contains(c));
        let n = if wide { 8 } else { 4 };
        let kind = match f.get(j) {
            Some(b'd' | b'i') => Some(ArgKind::Signed(n)),
            Some(b'u' | b'o' | b'x' | b'X' | b'c') => Some(ArgKind::Unsigned(n)),
            Some(b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A') => Some(ArgKind::Float),
            Some(b's') => Some(ArgKind::Str),
            Some(b'p') => Some(ArgKind::Ptr),
            _ => None,
        };
        match kind {
            Some(kind) => {
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                // The spec as the host's snprintf is given it: the length kept for integers
                // (`ll` for 8 bytes: `l` is 8 bytes on the LP64 hosts warpjit runs on too),
                // dropped for floats, strings and pointers.
                let mut spec = f[start..len_start].to_vec();
                match kind {
                    ArgKind::Signed(8) | ArgKind::Unsigned(8) => spec.extend_from_slice(b"ll"),
                    ArgKind::Signed(_) | ArgKind::Unsigned(_) => {
                        spec.extend_from_slice(if length == b"h" || length == b"hh" {
                            length
                        } else {
                            b""
                        })
                    }
                    _ => {}
                }
                spec.push(f[j]);
                out.push(Piece::Conv { spec, kind });
                i = j + 1;
            }
            None => {
                text.extend_from_slice(&f[start..j.min(f.len())]);
                i = j;
            }
        }
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    out
}

/// Formats one conversion with the host C library's `snprintf`.
fn c_format(spec: &[u8], arg: CArg<'_>) -> Vec<u8> {
    let Ok(spec) = std::ffi::CString::new(spec) else {
        return Vec::new();
    };
    let mut buf = vec![0u8; 512];
    loop {
        let (p, n) = (buf.as_mut_ptr() as *mut libc::c_char, buf.len());
        // SAFETY: `spec` is one conversion whose argument type `arg` matches (parse_format
        // built it); the buffer is `n` bytes long.
        let len = unsafe {
            match arg {
                CArg::I32(v) => libc::snprintf(p, n, spec.as_ptr(), v),
                CArg::I64(v) => libc::snprintf(p, n, spec.as_ptr(), v),
                CArg::F64(v) => libc::snprintf(p, n, spec.as_ptr(), v),
                CArg::Str(s) => libc::snprintf(p, n, spec.as_ptr(), s.as_ptr()),
                CArg::Ptr(v) => libc::snprintf(p, n, spec.as_ptr(), v as usize as *const u8),
            }
        };
        let Ok(len) = usize::try_from(len) else {
            return Vec::new();
        };
        if len < n {
            buf.truncate(len);
            return buf;
        }
        if len > 1 << 20 {
            // A width beyond reason: printed as nothing rather than allocating it.
            return Vec::new();
        }
        buf.resize(len + 1, 0);
    }
}

#[derive(Clone, Copy)]
enum CArg<'a> {
    I32(i32),
    I64(i64),
    F64(f64),
    Str(&'a std::ffi::CStr),
    Ptr(u64),
}

/// One lane's `vprintf(format, args)`: the formatted text and the number of arguments (what
/// CUDA's `printf` returns). Each argument lies in the buffer at the next multiple of its size.
fn vprintf(
    env: &CtaEnv<'_>,
    l: usize,
    format: u64,
    args: u64,
) -> Result<(Vec<u8>, u32), FaultKind> {
    let f = read_string(env, l, format)?;
    let mut out = Vec::new();
    let mut at = 0u64;
    let mut count = 0;
    for piece in parse_format(&f) {
        let (spec, kind) = match piece {
            Piece::Text(t) => {
                out.extend_from_slice(&t);
                continue;
            }
            Piece::Conv { spec, kind } => (spec, kind),
        };
        let n: u64 = match kind {
            ArgKind::Signed(4) | ArgKind::Unsigned(4) => 4,
            _ => 8,
        };
        at = at.next_multiple_of(n);
        let mut b = [0u8; 8];
        read_generic(env, l, args.wrapping_add(at), &mut b[..n as usize])?;
        at += n;
        count += 1;
        let v = u64::from_le_bytes(b);
        let text = match kind {
            ArgKind::Signed(4) | ArgKind::Unsigned(4) => {
                c_format(&spec, CArg::I32(v as u32 as i32))
            }
            ArgKind::Signed(_) | ArgKind::Unsigned(_) => c_format(&spec, CArg::I64(v as i64)),
            ArgKind::Float => c_format(&spec, CArg::F64(f64::from_bits(v))),
            ArgKind::Ptr => c_format(&spec, CArg::Ptr(v)),
            ArgKind::Str => {
                let s = if v == 0 {
                    b"(null)".to_vec()
                } else {
                    read_string(env, l, v)?
                };
                let s = std::ffi::CString::new(s).unwrap_or_default();
                c_format(&spec, CArg::Str(&s))
            }
        };
        out.extend_from_slice(&text);
    }
    Ok((out, count))
}

/// One lane's `__assertfail(message, file, line, function, charSize)` (arguments in R4:R5,
/// R6:R7, R8, R10:R11): the line CUDA prints,
/// `file:line: function: block: [x,y,z], thread: [x,y,z] Assertion `message` failed.`
fn assertfail(env: &CtaEnv<'_>, w: &WarpState, l: usize) -> Result<Vec<u8>, FaultKind> {
    let pair = |r: usize| u64::from(w.regs[r][l]) | u64::from(w.regs[r + 1][l]) << 32;
    let string = |addr: u64| -> Result<String, FaultKind> {
        Ok(if addr == 0 {
            String::new()
        } else {
            String::from_utf8_lossy(&read_string(env, l, addr)?).into_owned()
        })
    };
    let message = string(pair(4))?;
    let file = string(pair(6))?;
    let line = w.regs[8][l];
    let function = string(pair(10))?;
    let [bx, by, bz] = w.ctaid;
    let (tx, ty, tz) = (w.tid[0][l], w.tid[1][l], w.tid[2][l]);
    Ok(format!(
        "{file}:{line}: {function}: block: [{bx},{by},{bz}], thread: [{tx},{ty},{tz}] \
         Assertion `{message}` failed.\n"
    )
    .into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_split_into_text_and_conversions() {
        let p = parse_format(b"a=%d %% b=%-5.2f c=%lld d=%hx %s%q");
        assert_eq!(
            p,
            vec![
                Piece::Text(b"a=".to_vec()),
                Piece::Conv {
                    spec: b"%d".to_vec(),
                    kind: ArgKind::Signed(4)
                },
                Piece::Text(b" % b=".to_vec()),
                Piece::Conv {
                    spec: b"%-5.2f".to_vec(),
                    kind: ArgKind::Float
                },
                Piece::Text(b" c=".to_vec()),
                Piece::Conv {
                    spec: b"%lld".to_vec(),
                    kind: ArgKind::Signed(8)
                },
                Piece::Text(b" d=".to_vec()),
                Piece::Conv {
                    spec: b"%hx".to_vec(),
                    kind: ArgKind::Unsigned(4)
                },
                Piece::Text(b" ".to_vec()),
                Piece::Conv {
                    spec: b"%s".to_vec(),
                    kind: ArgKind::Str
                },
                Piece::Text(b"%q".to_vec()),
            ]
        );
    }

    #[test]
    fn conversions_format_as_c_does() {
        assert_eq!(c_format(b"%5.2f", CArg::F64(2.5)), b" 2.50");
        assert_eq!(c_format(b"%g", CArg::F64(1.0 / 3.0)), b"0.333333");
        assert_eq!(c_format(b"%x", CArg::I32(255)), b"ff");
        assert_eq!(c_format(b"%lld", CArg::I64(-(1 << 40))), b"-1099511627776");
        assert_eq!(c_format(b"%-4d|", CArg::I32(7)), b"7   |");
    }
}
