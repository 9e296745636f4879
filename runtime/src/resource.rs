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
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// `t#` slots (shader resource views) of a launch.
pub const SRV_SLOTS: usize = 128;
/// `u#` slots (unordered access views) of a launch.
pub const UAV_SLOTS: usize = 64;

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
    /// `Texture2D`.
    Tex2d,
    /// `Texture2DArray`.
    Tex2dArray,
    /// `Texture2DMS`.
    Tex2dMs,
    /// `Texture2DMSArray`.
    Tex2dMsArray,
}

impl TextureDim {
    /// Whether the texture has slices.
    pub fn is_array(self) -> bool {
        matches!(self, TextureDim::Tex2dArray | TextureDim::Tex2dMsArray)
    }
    /// Whether the texture has samples.
    pub fn is_multisample(self) -> bool {
        matches!(self, TextureDim::Tex2dMs | TextureDim::Tex2dMsArray)
    }
}

/// A 2D texture (one mip level), its texels ordered slice, row, column, sample.
#[derive(Debug)]
pub struct Texture {
    dim: TextureDim,
    format: Format,
    width: u32,
    height: u32,
    samples: u32,
    array_size: u32,
    data: Storage,
}

impl Texture {
    /// A texture of the given shape, the first `init.len()` bytes from `init`, the rest zero.
    /// Every dimension must be at least 1; a non-array texture has `array_size` 1 and a
    /// non-multisample texture `samples` 1.
    pub fn new(
        dim: TextureDim,
        format: Format,
        width: u32,
        height: u32,
        samples: u32,
        array_size: u32,
        init: &[u8],
    ) -> Result<Self, ResourceError> {
        if width == 0 || height == 0 || samples == 0 || array_size == 0 {
            return Err(ResourceError::Shape(format!(
                "{width}x{height}, {samples} samples, {array_size} slices: every dimension must be at least 1"
            )));
        }
        if !dim.is_array() && array_size != 1 {
            return Err(ResourceError::Shape(format!(
                "{dim:?} with {array_size} slices"
            )));
        }
        if !dim.is_multisample() && samples != 1 {
            return Err(ResourceError::Shape(format!(
                "{dim:?} with {samples} samples"
            )));
        }
        let texels = width as u64 * height as u64 * samples as u64 * array_size as u64;
        let size = texels
            .checked_mul(format.element_bytes() as u64)
            .ok_or(ResourceError::TooLarge(u64::MAX))?;
        Ok(Texture {
            dim,
            format,
            width,
            height,
            samples,
            array_size,
            data: Storage::new(size, init)?,
        })
    }

    /// Dimension.
    pub fn dim(&self) -> TextureDim {
        self.dim
    }
    /// Format.
    pub fn format(&self) -> Format {
        self.format
    }
    /// Width in texels.
    pub fn width(&self) -> u32 {
        self.width
    }
    /// Height in texels.
    pub fn height(&self) -> u32 {
        self.height
    }
    /// Samples per texel.
    pub fn samples(&self) -> u32 {
        self.samples
    }
    /// Slices.
    pub fn array_size(&self) -> u32 {
        self.array_size
    }
    /// The texel bytes.
    pub fn storage(&self) -> &Storage {
        &self.data
    }

    /// The byte offset of texel (x, y) of `slice`, `sample`, or `None` when any coordinate is
    /// out of range (`sample >= samples` included).
    #[inline]
    pub fn texel_offset(&self, x: u32, y: u32, slice: u32, sample: u32) -> Option<u64> {
        if x >= self.width || y >= self.height || slice >= self.array_size || sample >= self.samples
        {
            return None;
        }
        let index = ((slice as u64 * self.height as u64 + y as u64) * self.width as u64 + x as u64)
            * self.samples as u64
            + sample as u64;
        Some(index * self.format.element_bytes() as u64)
    }

    /// A copy of the bytes of one texel (the first `element_bytes` of the array), or `None`
    /// out of range.
    pub fn texel(&self, x: u32, y: u32, slice: u32, sample: u32) -> Option<[u8; 16]> {
        let off = self.texel_offset(x, y, slice, sample)?;
        let mut b = [0u8; 16];
        self.data
            .read(off, &mut b[..self.format.element_bytes() as usize]);
        Some(b)
    }

    /// Writes the bytes of one texel (`bytes` holds at least `element_bytes`); `false` (and
    /// nothing written) out of range.
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

    /// What a load (`ld`, `ldms`, `ld_uav_typed`) of the texel returns: its decoding, or out of
    /// range the decoding of an all-zero element (0 in the format's components, the defaults in
    /// the rest). The texture has one mip level: a load of another level is the caller's
    /// out-of-range case, as is a `slice` other than 0 of a non-array texture (pass 0).
    pub fn load(&self, x: u32, y: u32, slice: u32, sample: u32) -> [u32; 4] {
        let b = self.texel(x, y, slice, sample).unwrap_or([0; 16]);
        decode(self.format, &b)
    }

    /// A typed store (`store_uav_typed`): `value` converted to the format and written; `false`
    /// (nothing written) out of range.
    pub fn store(&self, x: u32, y: u32, slice: u32, sample: u32, value: [u32; 4]) -> bool {
        let mut b = [0u8; 16];
        encode(self.format, value, &mut b);
        self.set_texel(x, y, slice, sample, &b)
    }

    /// The word of a texel of a 32-bit single-component format (R32_UINT, R32_SINT, R32_FLOAT),
    /// for atomics; `None` out of range or for another format.
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
