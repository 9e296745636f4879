//! The `DXBC` container that fxc `/Fo` and `D3DCompile` write (`.cso`, `.fxo` shaders).
//!
//! Layout: the magic `DXBC`, a 16-byte checksum, a version (1), the total size in bytes, the chunk
//! count, then one 32-bit offset per chunk. Each chunk is a four-character code, its size in bytes,
//! and its data. The shader is the `SHDR` (shader model 4) or `SHEX` (shader model 5) chunk; every
//! other chunk (RDEF, ISGN, OSGN, STAT, SFI0, ...) is ignored, so stripped blobs read too. The
//! checksum is neither checked on reading nor computed on writing (it is written as zeros).

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
    Ok(out)
}
