//! The `DXBC` container that fxc `/Fo` and `D3DCompile` write (`.cso`, `.fxo` shaders).
//!
//! Layout: the magic `DXBC`, a 16-byte checksum, a version (1), the total size in bytes, the chunk
//! count, then one 32-bit offset per chunk. Each chunk is a four-character code, its size in bytes,
//! and its data. The shader is the `SHDR` (shader model 4) or `SHEX` (shader model 5) chunk; every
//! other chunk (RDEF, ISGN, OSGN, STAT, SFI0, ...) is ignored, so stripped blobs read too. The
//! checksum is not checked on reading (hand-made and patched blobs read too); [`write_program`]
//! computes it ([`checksum`]), as Direct3D requires of a blob it loads.

use super::ast::Program;
use super::tokens::{self, BinaryError, EncodeError};

/// The container magic.
pub const MAGIC: &[u8; 4] = b"DXBC";

const HEADER: usize = 32;

/// One chunk of a container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// Its four-character code (`SHEX`, `RDEF`, ...).
    pub fourcc: [u8; 4],
    /// Byte offset of its data in the container.
    pub offset: usize,
    /// Its data.
    pub data: &'a [u8],
}

/// A container's header and chunks, borrowed from its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Container<'a> {
    /// The checksum field, as stored.
    pub checksum: [u8; 16],
    /// The chunks, in table order.
    pub chunks: Vec<Chunk<'a>>,
}

fn u32_at(bytes: &[u8], at: usize, what: &str) -> Result<u32, BinaryError> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| BinaryError {
            offset: at.min(bytes.len()),
            message: format!("the container ends inside its {what}"),
        })
}

/// Whether `bytes` start with the container magic.
pub fn is_container(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

impl<'a> Container<'a> {
    /// Reads the header and the chunk table, checking that every chunk lies inside the container.
    pub fn parse(bytes: &'a [u8]) -> Result<Container<'a>, BinaryError> {
        if !is_container(bytes) {
            return Err(BinaryError {
                offset: 0,
                message: "not a DXBC container (no `DXBC` magic)".into(),
            });
        }
        if bytes.len() < HEADER {
            return Err(BinaryError {
                offset: bytes.len(),
                message: format!(
                    "the container is {} bytes, shorter than its header",
                    bytes.len()
                ),
            });
        }
        let mut checksum = [0u8; 16];
        checksum.copy_from_slice(&bytes[4..20]);
        let total = u32_at(bytes, 24, "header")? as usize;
        if total > bytes.len() || total < HEADER {
            return Err(BinaryError {
                offset: 24,
                message: format!(
                    "the header gives a size of {total} bytes, the file has {}",
                    bytes.len()
                ),
            });
        }
        let bytes = &bytes[..total];
        let count = u32_at(bytes, 28, "header")? as usize;
        let table_end = count
            .checked_mul(4)
            .and_then(|n| n.checked_add(HEADER))
            .filter(|&e| e <= total)
            .ok_or_else(|| BinaryError {
                offset: 28,
                message: format!("{count} chunks do not fit the container"),
            })?;
        let mut chunks = Vec::with_capacity(count);
        for k in 0..count {
            let at = HEADER + 4 * k;
            let off = u32_at(bytes, at, "chunk table")? as usize;
            if off < table_end || off.checked_add(8).is_none_or(|e| e > total) {
                return Err(BinaryError {
                    offset: at,
                    message: format!("chunk {k} starts at {off:#x}, outside the container"),
                });
            }
            let mut fourcc = [0u8; 4];
            fourcc.copy_from_slice(&bytes[off..off + 4]);
            let size = u32_at(bytes, off + 4, "chunk header")? as usize;
            let data_end = (off + 8).checked_add(size).filter(|&e| e <= total);
            let Some(data_end) = data_end else {
                return Err(BinaryError {
                    offset: off + 4,
                    message: format!(
                        "chunk `{}` of {size} bytes runs past the end of the container",
                        String::from_utf8_lossy(&fourcc)
                    ),
                });
            };
            chunks.push(Chunk {
                fourcc,
                offset: off + 8,
                data: &bytes[off + 8..data_end],
            });
        }
        Ok(Container { checksum, chunks })
    }

    /// The shader chunk: the first `SHEX` or `SHDR`.
    pub fn shader_chunk(&self) -> Option<&Chunk<'a>> {
        self.chunks
            .iter()
            .find(|c| &c.fourcc == b"SHEX" || &c.fourcc == b"SHDR")
    }
}

/// Reads a container's program. Errors name byte offsets in `bytes`.
pub fn read_program(bytes: &[u8]) -> Result<Program, BinaryError> {
    let c = Container::parse(bytes)?;
    let chunk = c.shader_chunk().ok_or_else(|| BinaryError {
        offset: 28,
        message: "the container has no SHDR or SHEX chunk (is it a DXIL shader?)".into(),
    })?;
    tokens::decode(chunk.data, chunk.offset)
}

/// The checksum of a container (`bytes` whole, header included): the MD5 compression function
/// run over everything after the checksum field, with the container format's own padding (the bit
/// count at the start of the last block and `(bits >> 2) | 1` at its end, instead of MD5's).
pub fn checksum(bytes: &[u8]) -> [u8; 16] {
    let data = bytes.get(20..).unwrap_or(&[]);
    let bits = (data.len() as u32).wrapping_mul(8);
    let mut state = [0x6745_2301u32, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let full = data.len() / 64 * 64;
    for block in data[..full].chunks_exact(64) {
        md5_block(&mut state, block);
    }
    let rest = &data[full..];
    let mut last = [0u8; 64];
    if rest.len() < 56 {
        last[4..4 + rest.len()].copy_from_slice(rest);
        last[4 + rest.len()] = 0x80;
    } else {
        let mut pad = [0u8; 64];
        pad[..rest.len()].copy_from_slice(rest);
        pad[rest.len()] = 0x80;
        md5_block(&mut state, &pad);
    }
    last[..4].copy_from_slice(&bits.to_le_bytes());
    last[60..].copy_from_slice(&((bits >> 2) | 1).to_le_bytes());
    md5_block(&mut state, &last);
    let mut out = [0u8; 16];
    for (o, s) in out.chunks_exact_mut(4).zip(state) {
        o.copy_from_slice(&s.to_le_bytes());
    }
    out
}

/// MD5's compression function on one 64-byte block.
fn md5_block(state: &mut [u32; 4], block: &[u8]) {
    const SHIFTS: [[u32; 4]; 4] = [
        [7, 12, 17, 22],
        [5, 9, 14, 20],
        [4, 11, 16, 23],
        [6, 10, 15, 21],
    ];
    let m: Vec<u32> = block
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let [mut a, mut b, mut c, mut d] = *state;
    for i in 0..64 {
        let (f, g) = match i / 16 {
            0 => ((b & c) | (!b & d), i),
            1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
            2 => (b ^ c ^ d, (3 * i + 5) % 16),
            _ => (c ^ (b | !d), (7 * i) % 16),
        };
        // The sine table of MD5: floor(|sin(i + 1)| * 2^32).
        let k = ((i as f64 + 1.0).sin().abs() * 4_294_967_296.0) as u32;
        let f = f.wrapping_add(a).wrapping_add(k).wrapping_add(m[g]);
        a = d;
        d = c;
        c = b;
        b = b.wrapping_add(f.rotate_left(SHIFTS[i / 16][i % 4]));
    }
    for (s, v) in state.iter_mut().zip([a, b, c, d]) {
        *s = s.wrapping_add(v);
    }
}

/// Writes a container holding `p` alone, in a `SHEX` chunk for shader model 5 and `SHDR` below.
pub fn write_program(p: &Program) -> Result<Vec<u8>, EncodeError> {
    let data = tokens::encode(p)?;
    let fourcc = if p.version.major >= 5 {
        b"SHEX"
    } else {
        b"SHDR"
    };
    let total = HEADER + 4 + 8 + data.len();
    let total32 =
        u32::try_from(total).map_err(|_| EncodeError("the program is too large".into()))?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[0; 16]);
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&((HEADER + 4) as u32).to_le_bytes());
    out.extend_from_slice(fourcc);
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(&data);
    let sum = checksum(&out);
    out[4..20].copy_from_slice(&sum);
    Ok(out)
}
