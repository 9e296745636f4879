//! Textures and buffers (Direct3D's `t#` and `u#` resources) with exact bounds, knowing nothing
//! of any shader syntax.
//!
//! Contents live in [`Storage`]: little-endian bytes held as `AtomicU32` words (in a lazily
//! committed anonymous mapping: a page costs memory once written), so that CTAs running on
//! several host threads may read and write one resource at the same time with
//! relaxed atomic accesses (a race between two guest stores is a guest-level race, never host
//! undefined behaviour), as global memory does (see `memory`). A store narrower than a word
//! (a 1- or 2-byte texel) is a compare-and-swap loop on its word, so that neighbouring texels
//! written by other threads are never lost; wider elements are stored a word at a time (an
//! element is not written atomically as a whole, as on GPUs).
//!
//! The rules (docs/semantics.md, DXBC section): a read outside a resource returns 0 for the
//! bytes outside (a texel load: the format's decoding of an all-zero element, i.e. 0 in the
//! format's components and the (0, 0, 0, 1) defaults in the others); a write outside is dropped;
//! addresses are computed in 64 bits, so that `stride * index + offset` never wraps. An unbound
//! slot (the caller's case) reads 0 in every component.

use crate::format::{decode, encode, Format};
use crate::sampler::SamplerState;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// `t#` slots (shader resource views) of a launch.
pub const SRV_SLOTS: usize = 128;
/// `u#` slots (unordered access views) of a launch.
pub const UAV_SLOTS: usize = 64;
/// `s#` slots (samplers) of a launch.
pub const SAMPLER_SLOTS: usize = 16;

/// A problem building a resource: each is a user (trace) error.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum ResourceError {
    /// A dimension is 0, or a non-array texture has more than one slice, or a non-multisample
    /// texture more than one sample.
    #[error("bad texture shape: {0}")]
    Shape(String),
    /// The initial data is larger than the resource.
    #[error("initial data ({len} bytes) is larger than the resource ({size} bytes)")]
    DataTooLong {
        /// Data length.
        len: u64,
        /// Resource size.
        size: u64,
    },
    /// The resource is larger than the host can hold.
    #[error("resource of {0} bytes is too large")]
    TooLarge(u64),
    /// The host cannot map memory for the resource's bytes.
    #[error("cannot map {len} bytes of memory for the resource: {reason}")]
    Map {
        /// The resource's size in bytes.
        len: u64,
        /// What the host said.
        reason: String,
    },
    /// A structured buffer's stride is 0 or not a multiple of 4.
    #[error("structure stride {0} is not a positive multiple of 4")]
    Stride(u32),
    /// A slot number past the last slot.
    #[error("slot {slot} is out of range (0 to {})", max - 1)]
    Slot {
        /// The slot.
        slot: u32,
        /// Number of slots.
        max: u32,
    },
}

/// A resource's bytes: `len` bytes in little-endian `AtomicU32` words (the last word padded with
/// zeros that no access reaches).
///
/// The words live in an anonymous private mapping of their own, so that they are committed
/// lazily: a page costs memory only once something writes it (a 4 GiB zero-filled buffer that
/// a kernel touches in a few places costs a few pages), and a mapping the host cannot give is
/// a [`ResourceError::Map`], never an abort.
pub struct Storage {
    /// The mapping holding the words (`None` for an empty storage); `words` points into it.
    _map: Option<memmap2::MmapMut>,
    /// The first word (dangling, but aligned, when empty).
    words: *const AtomicU32,
    /// Words in the mapping: `len` rounded up to a multiple of 4, over 4.
    count: usize,
    len: u64,
}

// SAFETY: the mapping is owned by the storage and every access to its words goes through
// `AtomicU32` (shared access only performs atomic loads and stores).
unsafe impl Send for Storage {}
// SAFETY: as above.
unsafe impl Sync for Storage {}

impl Storage {
    /// `len` bytes, the first `init.len()` of them copied from `init`, the rest zero (pages that
    /// are never written cost no memory).
    pub fn new(len: u64, init: &[u8]) -> Result<Self, ResourceError> {
        if init.len() as u64 > len {
            return Err(ResourceError::DataTooLong {
                len: init.len() as u64,
                size: len,
            });
        }
        let s = Storage::zeroed(len)?;
        if !init.is_empty() {
            s.write(0, init);
        }
        Ok(s)
    }

    /// `len` zero bytes, committed lazily: an anonymous private mapping, whose pages cost memory
    /// only once written.
    pub fn zeroed(len: u64) -> Result<Self, ResourceError> {
        let count = usize::try_from(len.div_ceil(4)).map_err(|_| ResourceError::TooLarge(len))?;
        if count == 0 {
            return Ok(Storage {
                _map: None,
                words: std::ptr::NonNull::<AtomicU32>::dangling().as_ptr(),
                count: 0,
                len,
            });
        }
        let bytes = count.checked_mul(4).ok_or(ResourceError::TooLarge(len))?;
        let mut map = memmap2::MmapOptions::new()
            .len(bytes)
            .map_anon()
            .map_err(|e| ResourceError::Map {
                len,
                reason: e.to_string(),
            })?;
        // A fresh mapping is page aligned (so 4-byte aligned) and reads as zeros.
        let words = map.as_mut_ptr() as *const AtomicU32;
        Ok(Storage {
            _map: Some(map),
            words,
            count,
            len,
        })
    }

    /// Size in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the storage has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The word holding bytes `[4 * i, 4 * i + 4)` (for atomics and for compiled code).
    pub fn word(&self, i: usize) -> &AtomicU32 {
        &self.words()[i]
    }

    /// The words (compiled code may address them through `as_ptr`; every access must stay
    /// inside `len` bytes).
    pub fn words(&self) -> &[AtomicU32] {
        // SAFETY: `words` points at `count` words of the mapping the storage owns (or is a
        // dangling, aligned pointer with `count` 0), alive as long as `self`; they are only ever
        // accessed as atomics.
        unsafe { std::slice::from_raw_parts(self.words, self.count) }
    }

    /// Whether `[off, off + n)` lies inside the storage (no wrap: computed without overflow).
    #[inline]
    pub fn holds(&self, off: u64, n: u64) -> bool {
        n <= self.len && off <= self.len - n
    }

    /// The 32 bits at byte `off`, which must be a multiple of 4 with 4 bytes inside.
    #[inline]
    pub fn load_u32(&self, off: u64) -> u32 {
        debug_assert!(off.is_multiple_of(4) && self.holds(off, 4));
        self.words()[(off / 4) as usize].load(Relaxed)
    }

    /// Stores 32 bits at byte `off`, a multiple of 4 with 4 bytes inside.
    #[inline]
    pub fn store_u32(&self, off: u64, v: u32) {
        debug_assert!(off.is_multiple_of(4) && self.holds(off, 4));
        self.words()[(off / 4) as usize].store(v, Relaxed)
    }

    /// Copies `out.len()` bytes from byte `off` (all inside).
    pub fn read(&self, off: u64, out: &mut [u8]) {
        assert!(self.holds(off, out.len() as u64), "read outside storage");
        let words = self.words();
        let mut at = off;
        let mut i = 0;
        while i < out.len() {
            let w = words[(at / 4) as usize].load(Relaxed).to_le_bytes();
            let s = (at % 4) as usize;
            let n = (4 - s).min(out.len() - i);
            out[i..i + n].copy_from_slice(&w[s..s + n]);
            i += n;
            at += n as u64;
        }
    }

    /// Writes `data` at byte `off` (all inside): whole words with a store, parts of words with
    /// a compare-and-swap that keeps the word's other bytes.
    pub fn write(&self, off: u64, data: &[u8]) {
        assert!(self.holds(off, data.len() as u64), "write outside storage");
        let words = self.words();
        let mut at = off;
        let mut i = 0;
        while i < data.len() {
            let word = &words[(at / 4) as usize];
            let s = (at % 4) as usize;
            let n = (4 - s).min(data.len() - i);
            if n == 4 {
                word.store(
                    u32::from_le_bytes(data[i..i + 4].try_into().unwrap()),
                    Relaxed,
                );
            } else {
                let mut mask = [0u8; 4];
                let mut bits = [0u8; 4];
                mask[s..s + n].fill(0xff);
                bits[s..s + n].copy_from_slice(&data[i..i + n]);
                let (mask, bits) = (u32::from_le_bytes(mask), u32::from_le_bytes(bits));
                let _ = word.fetch_update(Relaxed, Relaxed, |w| Some(w & !mask | bits));
            }
            i += n;
            at += n as u64;
        }
    }

    /// A copy of the contents (for tests and small resources: it allocates and touches `len`
    /// bytes; [`Storage::read`] a chunk at a time for large ones).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = vec![0u8; self.len as usize];
        self.read(0, &mut v);
        v
    }
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Storage({} bytes)", self.len)
    }
}

/// A texture's dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureDim {
    /// `Texture1D`.
    Tex1d,
    /// `Texture1DArray`.
    Tex1dArray,
    /// `Texture2D`.
    Tex2d,
    /// `Texture2DArray`.
    Tex2dArray,
    /// `Texture2DMS`.
    Tex2dMs,
    /// `Texture2DMSArray`.
    Tex2dMsArray,
    /// `Texture3D`.
    Tex3d,
    /// `TextureCube`: six square faces (layers 0 to 5: +X, -X, +Y, -Y, +Z, -Z).
    TexCube,
    /// `TextureCubeArray`: six faces per cube (cube `c`'s face `f` is layer `6c + f`).
    TexCubeArray,
}

impl TextureDim {
    /// Whether the texture is an array in the API's sense (the array index is an operand).
    pub fn is_array(self) -> bool {
        matches!(
            self,
            TextureDim::Tex1dArray
                | TextureDim::Tex2dArray
                | TextureDim::Tex2dMsArray
                | TextureDim::TexCubeArray
        )
    }
    /// Whether the texture has samples.
    pub fn is_multisample(self) -> bool {
        matches!(self, TextureDim::Tex2dMs | TextureDim::Tex2dMsArray)
    }
    /// Whether an integer address's slice operand applies: an array's slice, a 3D texture's
    /// depth, a cube's layer.
    pub fn is_layered(self) -> bool {
        self.is_array() || self.is_cube() || self == TextureDim::Tex3d
    }
    /// Whether the texture is a cube or cube array.
    pub fn is_cube(self) -> bool {
        matches!(self, TextureDim::TexCube | TextureDim::TexCubeArray)
    }
    /// Whether the texture is one-dimensional (its height is 1).
    pub fn is_1d(self) -> bool {
        matches!(self, TextureDim::Tex1d | TextureDim::Tex1dArray)
    }
    /// How many coordinates address a texel within a layer: 1, 2 or 3 (a cube's faces are 2D).
    pub fn axes(self) -> usize {
        match self {
            TextureDim::Tex1d | TextureDim::Tex1dArray => 1,
            TextureDim::Tex3d => 3,
            _ => 2,
        }
    }
}

/// The shape of a texture: its dimension and sizes. Every size is at least 1; what does not
/// apply to the dimension is 1 (`height` of a 1D texture, `depth` of all but 3D, `layers` of a
/// texture that is not an array or cube, `samples` of all but multisample ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextureShape {
    /// The dimension.
    pub dim: TextureDim,
    /// Width of mip level 0, in texels.
    pub width: u32,
    /// Height of mip level 0 (1 for 1D textures; equal to `width` for cubes).
    pub height: u32,
    /// Depth of mip level 0 (3D textures; 1 otherwise).
    pub depth: u32,
    /// Layers: array slices, or faces of a cube (6) and cube array (6 per cube); 1 otherwise.
    pub layers: u32,
    /// Samples per texel (multisample textures; 1 otherwise).
    pub samples: u32,
    /// Mip levels, 1 to the full chain (`1 + log2` of the largest size).
    pub mips: u32,
}

impl TextureShape {
    /// A shape with one mip level, depth 1 and the given sizes (the constructor of
    /// [`Texture::new`]).
    pub fn new(dim: TextureDim, width: u32, height: u32, samples: u32, layers: u32) -> Self {
        TextureShape {
            dim,
            width,
            height,
            depth: 1,
            layers,
            samples,
            mips: 1,
        }
    }

    /// The most mip levels a texture of these sizes has: `1 + floor(log2(largest size))`.
    pub fn full_chain(&self) -> u32 {
        let m = self.width.max(self.height).max(self.depth).max(1);
        32 - m.leading_zeros()
    }

    /// Width, height and depth of mip level `level` (each `max(1, size >> level)`).
    pub fn level_size(&self, level: u32) -> [u32; 3] {
        let at = |n: u32| n.checked_shr(level).unwrap_or(0).max(1);
        [at(self.width), at(self.height), at(self.depth)]
    }

    /// Texels (samples counted) of mip level `level`, every layer.
    pub fn level_texels(&self, level: u32) -> u64 {
        let [w, h, d] = self.level_size(level);
        w as u64 * h as u64 * d as u64 * self.layers as u64 * self.samples as u64
    }

    /// Why the shape is not valid for its dimension, if it is not.
    pub fn check(&self) -> Result<(), ResourceError> {
        let s = self;
        let bad = |m: String| Err(ResourceError::Shape(m));
        if s.width == 0 || s.height == 0 || s.depth == 0 || s.samples == 0 || s.layers == 0 {
            return bad(format!(
                "{}x{}x{}, {} samples, {} layers: every dimension must be at least 1",
                s.width, s.height, s.depth, s.samples, s.layers
            ));
        }
        let d = s.dim;
        if d.is_1d() && s.height != 1 {
            return bad(format!("{d:?} with height {}", s.height));
        }
        if d != TextureDim::Tex3d && s.depth != 1 {
            return bad(format!("{d:?} with depth {}", s.depth));
        }
        if d.is_cube() && s.width != s.height {
            return bad(format!(
                "{d:?} with {}x{} faces (not square)",
                s.width, s.height
            ));
        }
        let layers_ok = match d {
            TextureDim::TexCube => s.layers == 6,
            TextureDim::TexCubeArray => s.layers.is_multiple_of(6),
            _ if d.is_array() => true,
            _ => s.layers == 1,
        };
        if !layers_ok {
            return bad(format!("{d:?} with {} layers", s.layers));
        }
        if !d.is_multisample() && s.samples != 1 {
            return bad(format!("{d:?} with {} samples", s.samples));
        }
        if s.mips == 0 || s.mips > s.full_chain() || (d.is_multisample() && s.mips != 1) {
            return bad(format!(
                "{d:?} of {}x{}x{} with {} mip levels (1 to {})",
                s.width,
                s.height,
                s.depth,
                s.mips,
                if d.is_multisample() {
                    1
                } else {
                    s.full_chain()
                }
            ));
        }
        Ok(())
    }
}

/// A texture: its shape, format and bytes. The bytes hold mip level 0 of every layer, then
/// level 1 of every layer, and so on; within a level, texels are ordered layer (or, in a 3D
/// texture, depth slice), row, column, sample. Level 0 is laid out as a texture of one level,
/// so the first `level_texels(0)` elements are the same whatever the mip count.
#[derive(Debug)]
pub struct Texture {
    shape: TextureShape,
    format: Format,
    /// Byte offset of each level's first texel (`mips + 1` entries: the last is the size).
    levels: Vec<u64>,
    data: Storage,
}

impl Texture {
    /// A texture of one mip level of the given shape (depth 1), the first `init.len()` bytes
    /// from `init`, the rest zero. Every dimension must be at least 1; a non-array texture has
    /// `array_size` 1 and a non-multisample texture `samples` 1.
    pub fn new(
        dim: TextureDim,
        format: Format,
        width: u32,
        height: u32,
        samples: u32,
        array_size: u32,
        init: &[u8],
    ) -> Result<Self, ResourceError> {
        Self::with_shape(
            TextureShape::new(dim, width, height, samples, array_size),
            format,
            init,
        )
    }

    /// A texture of any shape ([`TextureShape::check`] must accept it), the first `init.len()`
    /// bytes from `init` (in the order of [`Texture`]'s bytes), the rest zero.
    pub fn with_shape(
        shape: TextureShape,
        format: Format,
        init: &[u8],
    ) -> Result<Self, ResourceError> {
        shape.check()?;
        let mut levels = Vec::with_capacity(shape.mips as usize + 1);
        let mut at = 0u64;
        for l in 0..shape.mips {
            levels.push(at);
            at = shape
                .level_texels(l)
                .checked_mul(format.element_bytes() as u64)
                .and_then(|n| at.checked_add(n))
                .ok_or(ResourceError::TooLarge(u64::MAX))?;
        }
        levels.push(at);
        Ok(Texture {
            shape,
            format,
            levels,
            data: Storage::new(at, init)?,
        })
    }

    /// Dimension.
    pub fn dim(&self) -> TextureDim {
        self.shape.dim
    }
    /// The shape.
    pub fn shape(&self) -> &TextureShape {
        &self.shape
    }
    /// Format.
    pub fn format(&self) -> Format {
        self.format
    }
    /// Width of mip level 0 in texels.
    pub fn width(&self) -> u32 {
        self.shape.width
    }
    /// Height of mip level 0 in texels.
    pub fn height(&self) -> u32 {
        self.shape.height
    }
    /// Depth of mip level 0 (1 unless 3D).
    pub fn depth(&self) -> u32 {
        self.shape.depth
    }
    /// Samples per texel.
    pub fn samples(&self) -> u32 {
        self.shape.samples
    }
    /// Layers: array slices, or cube faces (6 per cube).
    pub fn array_size(&self) -> u32 {
        self.shape.layers
    }
    /// Mip levels.
    pub fn mips(&self) -> u32 {
        self.shape.mips
    }
    /// The texel bytes.
    pub fn storage(&self) -> &Storage {
        &self.data
    }
    /// Byte offset of mip level `level`'s first texel (`level` up to `mips`: the last is the
    /// texture's size).
    pub fn level_offset(&self, level: u32) -> Option<u64> {
        self.levels.get(level as usize).copied()
    }

    /// The byte offset of texel (x, y) of `slice`, `sample` at mip level 0, or `None` when any
    /// coordinate is out of range (`sample >= samples` included). `slice` is the layer, or the
    /// depth slice of a 3D texture.
    #[inline]
    pub fn texel_offset(&self, x: u32, y: u32, slice: u32, sample: u32) -> Option<u64> {
        self.texel_offset_at(0, x, y, slice, sample)
    }

    /// The byte offset of texel (x, y) of `slice` (the layer, or a 3D texture's depth slice),
    /// `sample`, at mip level `level`, or `None` when any coordinate is out of range.
    #[inline]
    pub fn texel_offset_at(
        &self,
        level: u32,
        x: u32,
        y: u32,
        slice: u32,
        sample: u32,
    ) -> Option<u64> {
        let base = *self
            .levels
            .get(level as usize)
            .filter(|_| level < self.shape.mips)?;
        let [w, h, d] = self.shape.level_size(level);
        let slices = if self.shape.dim == TextureDim::Tex3d {
            d
        } else {
            self.shape.layers
        };
        if x >= w || y >= h || slice >= slices || sample >= self.shape.samples {
            return None;
        }
        let index = ((slice as u64 * h as u64 + y as u64) * w as u64 + x as u64)
            * self.shape.samples as u64
            + sample as u64;
        Some(base + index * self.format.element_bytes() as u64)
    }

    /// A copy of the bytes of one texel of mip level 0 (the first `element_bytes` of the
    /// array), or `None` out of range.
    pub fn texel(&self, x: u32, y: u32, slice: u32, sample: u32) -> Option<[u8; 16]> {
        self.texel_at(0, x, y, slice, sample)
    }

    /// A copy of the bytes of one texel of mip level `level`, or `None` out of range.
    pub fn texel_at(
        &self,
        level: u32,
        x: u32,
        y: u32,
        slice: u32,
        sample: u32,
    ) -> Option<[u8; 16]> {
        let off = self.texel_offset_at(level, x, y, slice, sample)?;
        let mut b = [0u8; 16];
        self.data
            .read(off, &mut b[..self.format.element_bytes() as usize]);
        Some(b)
    }

    /// Writes the bytes of one texel of mip level 0 (`bytes` holds at least `element_bytes`);
    /// `false` (and nothing written) out of range.
    pub fn set_texel(&self, x: u32, y: u32, slice: u32, sample: u32, bytes: &[u8]) -> bool {
        match self.texel_offset(x, y, slice, sample) {
            Some(off) => {
                self.data
                    .write(off, &bytes[..self.format.element_bytes() as usize]);
                true
            }
            None => false,
        }
    }

    /// What a load (`ld`, `ldms`, `ld_uav_typed`) of the texel at mip level 0 returns: its
    /// decoding, or out of range the decoding of an all-zero element (0 in the format's
    /// components, the defaults in the rest). A `slice` other than 0 of a texture that is not
    /// an array (nor 3D) is the caller's out-of-range case (pass 0).
    pub fn load(&self, x: u32, y: u32, slice: u32, sample: u32) -> [u32; 4] {
        self.load_at(0, x, y, slice, sample)
    }

    /// What a load of the texel at mip level `level` returns (see [`Texture::load`]); a level
    /// at or past the mip count is out of range.
    pub fn load_at(&self, level: u32, x: u32, y: u32, slice: u32, sample: u32) -> [u32; 4] {
        let b = self.texel_at(level, x, y, slice, sample).unwrap_or([0; 16]);
        decode(self.format, &b)
    }

    /// A typed store (`store_uav_typed`) at mip level 0: `value` converted to the format and
    /// written; `false` (nothing written) out of range.
    pub fn store(&self, x: u32, y: u32, slice: u32, sample: u32, value: [u32; 4]) -> bool {
        let mut b = [0u8; 16];
        encode(self.format, value, &mut b);
        self.set_texel(x, y, slice, sample, &b)
    }

    /// The word of a texel of mip level 0 of a 32-bit single-component format (R32_UINT,
    /// R32_SINT, R32_FLOAT), for atomics; `None` out of range or for another format.
    pub fn atomic_word(&self, x: u32, y: u32, slice: u32) -> Option<&AtomicU32> {
        if self.format.element_bytes() != 4 || self.format.components().len() != 1 {
            return None;
        }
        let off = self.texel_offset(x, y, slice, 0)?;
        Some(self.data.word((off / 4) as usize))
    }
}

/// How a buffer is viewed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufferKind {
    /// A structured buffer of `stride`-byte structures.
    Structured {
        /// Bytes per structure (a positive multiple of 4).
        stride: u32,
    },
    /// A typed buffer: elements of a format.
    Typed(Format),
    /// A raw (byte-address) buffer.
    Raw,
}

/// A buffer: its view kind and its bytes.
#[derive(Debug)]
pub struct Buffer {
    kind: BufferKind,
    data: Storage,
    /// The hidden counter of a structured UAV (`imm_atomic_alloc` / `imm_atomic_consume`).
    counter: AtomicU32,
}

impl Buffer {
    /// A buffer of `size` bytes, the first `init.len()` from `init`, the rest zero.
    pub fn new(kind: BufferKind, size: u64, init: &[u8]) -> Result<Self, ResourceError> {
        if let BufferKind::Structured { stride } = kind {
            if stride == 0 || stride % 4 != 0 {
                return Err(ResourceError::Stride(stride));
            }
        }
        Ok(Buffer {
            kind,
            data: Storage::new(size, init)?,
            counter: AtomicU32::new(0),
        })
    }

    /// The buffer's hidden counter (0 when made), which `imm_atomic_alloc` increments and
    /// `imm_atomic_consume` decrements, wrapping.
    pub fn counter(&self) -> &AtomicU32 {
        &self.counter
    }

    /// The view kind.
    pub fn kind(&self) -> BufferKind {
        self.kind
    }
    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.data.len()
    }
    /// The bytes.
    pub fn storage(&self) -> &Storage {
        &self.data
    }

    /// The byte address of `offset` in structure `index`: `stride * index + offset`, computed in
    /// 64 bits (it may pass 2^32; it is then out of range of any buffer a trace can hold).
    #[inline]
    pub fn structured_address(stride: u32, index: u32, offset: u32) -> u64 {
        stride as u64 * index as u64 + offset as u64
    }

    /// The 32-bit word at byte address `addr` (its 2 low bits ignored: such addresses must be
    /// multiples of 4), or 0 when any of its bytes lies past the end.
    #[inline]
    pub fn read_u32(&self, addr: u64) -> u32 {
        let a = addr & !3;
        if self.data.holds(a, 4) {
            self.data.load_u32(a)
        } else {
            0
        }
    }

    /// Writes the 32-bit word at byte address `addr` (2 low bits ignored); `false` (nothing
    /// written) when any of its bytes lies past the end.
    #[inline]
    pub fn write_u32(&self, addr: u64, value: u32) -> bool {
        let a = addr & !3;
        if self.data.holds(a, 4) {
            self.data.store_u32(a, value);
            true
        } else {
            false
        }
    }

    /// Component `k` of a multi-component raw or structured access at byte address `addr`:
    /// the word at `addr + 4 * k` (64-bit arithmetic: never wraps), 0 past the end.
    #[inline]
    pub fn read_component(&self, addr: u64, k: u32) -> u32 {
        match addr.checked_add(4 * k as u64) {
            Some(a) => self.read_u32(a),
            None => 0,
        }
    }

    /// Writes component `k` of a raw or structured store at `addr` (see
    /// [`Buffer::read_component`]); `false` when dropped.
    #[inline]
    pub fn write_component(&self, addr: u64, k: u32, value: u32) -> bool {
        match addr.checked_add(4 * k as u64) {
            Some(a) => self.write_u32(a, value),
            None => false,
        }
    }

    /// The byte offset of element `index` of a typed buffer, or `None` past the last whole
    /// element (or for a buffer that is not typed).
    pub fn element_offset(&self, index: u32) -> Option<u64> {
        let BufferKind::Typed(f) = self.kind else {
            return None;
        };
        let n = f.element_bytes() as u64;
        let off = index as u64 * n;
        self.data.holds(off, n).then_some(off)
    }

    /// What a typed load (`ld` on a buffer, `ld_uav_typed`) of element `index` returns: its
    /// decoding, or past the end the decoding of an all-zero element. A buffer that is not typed
    /// reads as zeros (an error the front-end rejects).
    pub fn load_typed(&self, index: u32) -> [u32; 4] {
        let BufferKind::Typed(f) = self.kind else {
            return [0; 4];
        };
        let mut b = [0u8; 16];
        if let Some(off) = self.element_offset(index) {
            self.data.read(off, &mut b[..f.element_bytes() as usize]);
        }
        decode(f, &b)
    }

    /// A typed store (`store_uav_typed`) of element `index`; `false` (nothing written) past the
    /// end or for a buffer that is not typed.
    pub fn store_typed(&self, index: u32, value: [u32; 4]) -> bool {
        let BufferKind::Typed(f) = self.kind else {
            return false;
        };
        let Some(off) = self.element_offset(index) else {
            return false;
        };
        let mut b = [0u8; 16];
        encode(f, value, &mut b);
        self.data.write(off, &b[..f.element_bytes() as usize]);
        true
    }

    /// The word an atomic at byte address `addr` (2 low bits ignored) works on, or `None` past
    /// the end.
    pub fn atomic_word(&self, addr: u64) -> Option<&AtomicU32> {
        let a = addr & !3;
        self.data
            .holds(a, 4)
            .then(|| self.data.word((a / 4) as usize))
    }
}

/// An atomic read-modify-write on a 32-bit word (`atomic_*` and `imm_atomic_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// Wrapping add (`iadd`).
    Add(u32),
    /// Bitwise and.
    And(u32),
    /// Bitwise or.
    Or(u32),
    /// Bitwise xor.
    Xor(u32),
    /// Signed maximum (`imax`).
    IMax(u32),
    /// Signed minimum (`imin`).
    IMin(u32),
    /// Unsigned maximum (`umax`).
    UMax(u32),
    /// Unsigned minimum (`umin`).
    UMin(u32),
    /// Exchange (`imm_atomic_exch`).
    Exchange(u32),
    /// Writes `value` when the word equals `compare` (`atomic_cmp_store`,
    /// `imm_atomic_cmp_exch`).
    CompareExchange {
        /// The value compared with the word.
        compare: u32,
        /// The value written when they are equal.
        value: u32,
    },
}

impl AtomicOp {
    /// The word's new value given its old one (the operation as a pure function).
    pub fn combine(self, old: u32) -> u32 {
        match self {
            AtomicOp::Add(v) => old.wrapping_add(v),
            AtomicOp::And(v) => old & v,
            AtomicOp::Or(v) => old | v,
            AtomicOp::Xor(v) => old ^ v,
            AtomicOp::IMax(v) => (old as i32).max(v as i32) as u32,
            AtomicOp::IMin(v) => (old as i32).min(v as i32) as u32,
            AtomicOp::UMax(v) => old.max(v),
            AtomicOp::UMin(v) => old.min(v),
            AtomicOp::Exchange(v) => v,
            AtomicOp::CompareExchange { compare, value } => {
                if old == compare {
                    value
                } else {
                    old
                }
            }
        }
    }

    /// Performs the operation on `word` atomically and returns the old value.
    pub fn apply(self, word: &AtomicU32) -> u32 {
        match self {
            AtomicOp::Add(v) => word.fetch_add(v, Relaxed),
            AtomicOp::And(v) => word.fetch_and(v, Relaxed),
            AtomicOp::Or(v) => word.fetch_or(v, Relaxed),
            AtomicOp::Xor(v) => word.fetch_xor(v, Relaxed),
            AtomicOp::UMax(v) => word.fetch_max(v, Relaxed),
            AtomicOp::UMin(v) => word.fetch_min(v, Relaxed),
            AtomicOp::Exchange(v) => word.swap(v, Relaxed),
            AtomicOp::CompareExchange { compare, value } => {
                match word.compare_exchange(compare, value, Relaxed, Relaxed) {
                    Ok(old) | Err(old) => old,
                }
            }
            AtomicOp::IMax(_) | AtomicOp::IMin(_) => {
                match word.fetch_update(Relaxed, Relaxed, |old| Some(self.combine(old))) {
                    Ok(old) | Err(old) => old,
                }
            }
        }
    }
}

/// A bound resource.
#[derive(Debug)]
pub enum Resource {
    /// A texture.
    Texture(Texture),
    /// A buffer.
    Buffer(Buffer),
}

impl Resource {
    /// The texture, if this is one.
    pub fn texture(&self) -> Option<&Texture> {
        match self {
            Resource::Texture(t) => Some(t),
            Resource::Buffer(_) => None,
        }
    }
    /// The buffer, if this is one.
    pub fn buffer(&self) -> Option<&Buffer> {
        match self {
            Resource::Buffer(b) => Some(b),
            Resource::Texture(_) => None,
        }
    }
    /// The bytes.
    pub fn storage(&self) -> &Storage {
        match self {
            Resource::Texture(t) => t.storage(),
            Resource::Buffer(b) => b.storage(),
        }
    }
}

/// The `t#` and `u#` slots of a launch: built once, then shared (`&Resources` is `Sync`) by every
/// CTA on every host thread.
#[derive(Debug)]
pub struct Resources {
    srv: Vec<Option<Resource>>,
    uav: Vec<Option<Resource>>,
    /// The `s#` slots (`None`: Direct3D's default state).
    samplers: [Option<SamplerState>; SAMPLER_SLOTS],
    /// The `v#` values of every invocation of a vertex or pixel shader launch.
    input: Option<Buffer>,
    /// The `o#` values every invocation of a vertex or pixel shader launch writes.
    output: Option<Buffer>,
}

impl Default for Resources {
    fn default() -> Self {
        Self::new()
    }
}

impl Resources {
    /// No resource bound.
    pub fn new() -> Self {
        Resources {
            input: None,
            output: None,
            srv: (0..SRV_SLOTS).map(|_| None).collect(),
            uav: (0..UAV_SLOTS).map(|_| None).collect(),
            samplers: [None; SAMPLER_SLOTS],
        }
    }

    /// Binds `t{slot}` (replacing what was bound).
    pub fn bind_srv(&mut self, slot: u32, r: Resource) -> Result<(), ResourceError> {
        Self::bind(&mut self.srv, slot, r)
    }

    /// Binds `u{slot}` (replacing what was bound).
    pub fn bind_uav(&mut self, slot: u32, r: Resource) -> Result<(), ResourceError> {
        Self::bind(&mut self.uav, slot, r)
    }

    fn bind(v: &mut [Option<Resource>], slot: u32, r: Resource) -> Result<(), ResourceError> {
        let max = v.len() as u32;
        match v.get_mut(slot as usize) {
            Some(s) => {
                *s = Some(r);
                Ok(())
            }
            None => Err(ResourceError::Slot { slot, max }),
        }
    }

    /// Binds `s{slot}` (replacing what was bound).
    pub fn bind_sampler(&mut self, slot: u32, s: SamplerState) -> Result<(), ResourceError> {
        match self.samplers.get_mut(slot as usize) {
            Some(x) => {
                *x = Some(s);
                Ok(())
            }
            None => Err(ResourceError::Slot {
                slot,
                max: SAMPLER_SLOTS as u32,
            }),
        }
    }

    /// The state of `s{slot}`: what the trace binds there, or Direct3D's default state
    /// ([`SamplerState::DEFAULT`]) for an unbound slot (or one past the last).
    #[inline]
    pub fn sampler(&self, slot: u32) -> &SamplerState {
        match self.samplers.get(slot as usize) {
            Some(Some(s)) => s,
            _ => &SamplerState::DEFAULT,
        }
    }

    /// Sets (or clears) the buffer of `v#` values a launch's invocations read.
    pub fn set_input(&mut self, b: Option<Buffer>) {
        self.input = b;
    }

    /// Sets (or clears) the buffer of `o#` values a launch's invocations write.
    pub fn set_output(&mut self, b: Option<Buffer>) {
        self.output = b;
    }

    /// The invocations' `v#` values, if set.
    #[inline]
    pub fn input(&self) -> Option<&Buffer> {
        self.input.as_ref()
    }

    /// The invocations' `o#` values, if set.
    #[inline]
    pub fn output(&self) -> Option<&Buffer> {
        self.output.as_ref()
    }

    /// What `t{slot}` holds (`None`: unbound, or past the last slot).
    #[inline]
    pub fn srv(&self, slot: u32) -> Option<&Resource> {
        self.srv.get(slot as usize)?.as_ref()
    }

    /// What `u{slot}` holds (`None`: unbound, or past the last slot).
    #[inline]
    pub fn uav(&self, slot: u32) -> Option<&Resource> {
        self.uav.get(slot as usize)?.as_ref()
    }
}

#[cfg(test)]
mod tests;
