//! The per-run view table compiled code reads to find a `t#`/`u#` binding at run time.
//!
//! Compiled code is cached across launches, and a launch may bind other resources to the same
//! slots, so the inline fast paths of `LdBuf` and `LdTex` (`jit::codegen::view`) never bake a
//! binding in: they load the slot's [`ViewDesc`] from the [`ViewTable`] that `JitCx::views`
//! points at. The dispatcher (`jit::runner`) fills the table from the launch's
//! [`Resources`] before the first block of a run with those resources, and again whenever the
//! resources or `--check` change. An entry whose [`ViewDesc::kind`] is [`ViewDesc::ROUTINE`]
//! (an unbound slot, a texture format the fast path does not convert, a typed buffer read by
//! `ld`, or any slot in a run under `--check`) sends compiled code to the shared routine
//! (`jit::view`), which applies the interpreter's definition.
//!
//! The conversion the fast path applies is derived here from the format's own description
//! ([`Format::components`], [`Format::defaults`]) and never from a second table, so it cannot
//! drift from [`warpjit_runtime::format::decode`]: a texel whose components are all 32-bit
//! words in channel order reads its words untouched with the format's defaults in the missing
//! channels, and a 4-byte texel of four 8-bit UNORM components reads each code `c` as the f32
//! `c / 255` ([`warpjit_runtime::format::unorm_to_f32`]).

use warpjit_runtime::format::{Format, Kind};
use warpjit_runtime::resource::{Resource, Resources, Texture};

/// Slots per view kind: `t#` entries are `0..SLOTS`, `u#` entries `SLOTS..2 * SLOTS`.
pub const SLOTS: usize = 256;

/// One slot's binding as compiled code reads it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewDesc {
    /// [`ViewDesc::ROUTINE`], [`ViewDesc::BUFFER`], [`ViewDesc::TEX_WORDS`] or
    /// [`ViewDesc::TEX_UNORM8`].
    pub kind: u32,
    /// A texture: the 32-bit words of a texel the fast path fetches (its element bytes / 4 for
    /// [`ViewDesc::TEX_WORDS`], 1 for [`ViewDesc::TEX_UNORM8`]).
    pub words: u32,
    /// Host address of the storage's first byte.
    pub base: u64,
    /// A buffer: its size in bytes.
    pub len: u64,
    /// A texture: width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Slices (1 for a texture that is not an array).
    pub array: u32,
    /// Samples (1 for a texture that is not multisampled).
    pub samples: u32,
    /// All ones for an array texture, 0 otherwise (the slice operand is ignored).
    pub slice_mask: u32,
    /// All ones for a multisampled texture, 0 otherwise (the sample operand is ignored).
    pub sample_mask: u32,
    /// Bytes per texel (the distance between samples).
    pub texel: u32,
    /// Bytes between columns (`samples * texel`).
    pub column: u32,
    /// Bytes between rows.
    pub row: u64,
    /// Bytes between slices.
    pub slice: u64,
    /// Per channel: for [`ViewDesc::TEX_WORDS`], the value OR-ed into the fetched word (the
    /// format's default where it lacks the channel, the fetched word being 0 there; 0
    /// elsewhere); for [`ViewDesc::TEX_UNORM8`], the bit offset of the channel's code.
    pub fill: [u32; 4],
}

impl ViewDesc {
    /// Compiled code calls the shared routine.
    pub const ROUTINE: u32 = 0;
    /// A bound buffer: `base` and `len`.
    pub const BUFFER: u32 = 1;
    /// A texture whose components are 32-bit words in channel order (R32G32B32A32_*,
    /// R32G32B32_*, R32G32_*, R32_*, D32_FLOAT).
    pub const TEX_WORDS: u32 = 2;
    /// A 4-byte texture of four 8-bit UNORM components (R8G8B8A8_UNORM, B8G8R8A8_UNORM).
    pub const TEX_UNORM8: u32 = 3;

    /// The entry that sends compiled code to the routine.
    pub const EMPTY: ViewDesc = ViewDesc {
        kind: Self::ROUTINE,
        words: 0,
        base: 0,
        len: 0,
        width: 0,
        height: 0,
        array: 0,
        samples: 0,
        slice_mask: 0,
        sample_mask: 0,
        texel: 0,
        column: 0,
        row: 0,
        slice: 0,
        fill: [0; 4],
    };

    /// The entry for what a slot holds.
    pub fn of(r: Option<&Resource>) -> ViewDesc {
        match r {
            None => Self::EMPTY,
            Some(Resource::Buffer(b)) => ViewDesc {
                kind: Self::BUFFER,
                base: b.storage().words().as_ptr() as u64,
                len: b.storage().len(),
                ..Self::EMPTY
            },
            Some(Resource::Texture(t)) => Self::texture(t),
        }
    }

    /// The entry of a texture: [`ViewDesc::ROUTINE`] unless [`inline_class`] knows its format.
    fn texture(t: &Texture) -> ViewDesc {
        // Mip levels past the first, and a 3D texture's depth offsets, are the routine's.
        if t.mips() > 1 || t.dim() == warpjit_runtime::resource::TextureDim::Tex3d {
            return Self::EMPTY;
        }
        let Some((kind, fill)) = inline_class(t.format()) else {
            return Self::EMPTY;
        };
        let texel = t.format().element_bytes();
        let column = t.samples() as u64 * texel as u64;
        let row = t.width() as u64 * column;
        ViewDesc {
            kind,
            words: if kind == Self::TEX_WORDS {
                texel / 4
            } else {
                1
            },
            base: t.storage().words().as_ptr() as u64,
            len: t.storage().len(),
            width: t.width(),
            height: t.height(),
            array: t.array_size(),
            samples: t.samples(),
            slice_mask: if t.dim().is_layered() { u32::MAX } else { 0 },
            sample_mask: if t.dim().is_multisample() {
                u32::MAX
            } else {
                0
            },
            texel,
            // The texture's size fits in memory, so a column's and a row's bytes fit in 32 and
            // 64 bits.
            column: column as u32,
            row,
            slice: t.height() as u64 * row,
            fill,
        }
    }
}

/// How the fast path converts a texel of `format`, derived from its description: the kind
/// ([`ViewDesc::TEX_WORDS`] or [`ViewDesc::TEX_UNORM8`]) and [`ViewDesc::fill`], or `None`
/// (the routine converts it).
pub fn inline_class(format: Format) -> Option<(u32, [u32; 4])> {
    let comps = format.components();
    let bytes = format.element_bytes();
    // Component i is the 32-bit word i of channel i: `decode` gives every such word untouched
    // (a 32-bit float, unsigned or signed component alike), and the defaults elsewhere.
    let words = comps
        .iter()
        .enumerate()
        .all(|(i, c)| c.bits == 32 && c.offset as usize == 32 * i && c.channel as usize == i);
    if words && bytes == 4 * comps.len() as u32 {
        let d = format.defaults();
        let fill = std::array::from_fn(|ch| if ch < comps.len() { 0 } else { d[ch] });
        return Some((ViewDesc::TEX_WORDS, fill));
    }
    // Four 8-bit UNORM codes in one word, one per channel.
    let unorm8 = bytes == 4
        && comps.len() == 4
        && comps
            .iter()
            .all(|c| c.bits == 8 && c.offset % 8 == 0 && c.kind == Kind::Unorm);
    if unorm8 {
        let mut fill = [0; 4];
        for c in comps {
            fill[c.channel as usize] = c.offset as u32;
        }
        // Every channel once.
        let mut seen = [false; 4];
        comps.iter().for_each(|c| seen[c.channel as usize] = true);
        if seen.iter().all(|&s| s) {
            return Some((ViewDesc::TEX_UNORM8, fill));
        }
    }
    None
}

/// The table `JitCx::views` points at: `--check` and one [`ViewDesc`] per `t#` and `u#` slot.
#[repr(C)]
pub struct ViewTable {
    /// Nonzero in a run under `--check`: every view access takes the routine (which raises the
    /// findings), `g#` ones included.
    pub check: u32,
    /// Padding (keeps the layout explicit).
    pub _pad: u32,
    /// `t0..t255`, then `u0..u255`.
    pub descs: [ViewDesc; 2 * SLOTS],
    /// The entries of `descs` the last [`ViewTable::fill`] set to something other than
    /// [`ViewDesc::EMPTY`] (the next fill clears only those: most runs bind a few slots or
    /// none, and the table is 48 KiB).
    set: Vec<u16>,
}

impl ViewTable {
    /// A table that sends every access to the routine.
    pub fn new() -> Box<ViewTable> {
        Box::new(ViewTable {
            check: 1,
            _pad: 0,
            descs: [ViewDesc::EMPTY; 2 * SLOTS],
            set: Vec::new(),
        })
    }

    /// Fills the table for a run with `res`, under `--check` when `check` (every entry then
    /// sends its accesses to the routine).
    pub fn fill(&mut self, res: &Resources, check: bool) {
        self.check = check as u32;
        for i in self.set.drain(..) {
            self.descs[i as usize] = ViewDesc::EMPTY;
        }
        if check {
            return;
        }
        for s in 0..SLOTS {
            for (i, r) in [(s, res.srv(s as u32)), (SLOTS + s, res.uav(s as u32))] {
                if r.is_some() {
                    let d = ViewDesc::of(r);
                    if d != ViewDesc::EMPTY {
                        self.descs[i] = d;
                        self.set.push(i as u16);
                    }
                }
            }
        }
    }

    /// Byte offset of the entry of `t{slot}` (`uav`: `u{slot}`) from the table's start.
    pub fn offset_of(slot: u8, uav: bool) -> i32 {
        let i = slot as usize + if uav { SLOTS } else { 0 };
        (std::mem::offset_of!(ViewTable, descs) + i * std::mem::size_of::<ViewDesc>()) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpjit_runtime::format::decode;

    /// For every format the fast path converts, its model of the conversion (words untouched
    /// plus `fill`; or `code / 255` at each channel's offset) is `decode` on sample texels,
    /// every 8-bit code included.
    #[test]
    fn inline_classes_agree_with_decode() {
        let mut seen = 0;
        for &f in Format::ALL {
            let Some((kind, fill)) = inline_class(f) else {
                continue;
            };
            seen += 1;
            let n = f.element_bytes() as usize;
            for seed in 0..256u32 {
                let mut bytes = [0u8; 16];
                for (i, b) in bytes[..n].iter_mut().enumerate() {
                    *b = (seed as usize * 37 + i * 101) as u8 ^ (seed as u8);
                }
                if kind == ViewDesc::TEX_UNORM8 {
                    bytes[..4].fill(seed as u8);
                    bytes[(seed % 4) as usize] = (seed * 7) as u8;
                }
                let w: [u32; 4] = std::array::from_fn(|j| {
                    u32::from_le_bytes(bytes[4 * j..4 * j + 4].try_into().unwrap())
                });
                let want = decode(f, &bytes);
                let got: [u32; 4] = std::array::from_fn(|ch| match kind {
                    ViewDesc::TEX_WORDS => (if 4 * ch < n { w[ch] } else { 0 }) | fill[ch],
                    _ => ((((w[0] >> fill[ch]) & 0xff) as i32 as f32) / 255.0).to_bits(),
                });
                assert_eq!(got, want, "{f} {bytes:?}");
            }
        }
        // R32G32B32A32 (3), R32G32B32 (3), R32G32 (3), R32 (3), D32_FLOAT, RGBA8 and BGRA8 UNORM.
        assert_eq!(seen, 15);
    }

    /// A refill sets the slots the new resources bind and clears every slot the last fill set
    /// (the table is kept from run to run); under `--check` every entry is the routine's.
    #[test]
    fn a_refill_clears_what_the_last_one_set() {
        use warpjit_runtime::resource::{Buffer, BufferKind, Resource};
        let raw = |n: u64| Resource::Buffer(Buffer::new(BufferKind::Raw, n, &[]).unwrap());
        let mut a = Resources::new();
        a.bind_srv(0, raw(16)).unwrap();
        a.bind_uav(3, raw(32)).unwrap();
        let mut b = Resources::new();
        b.bind_srv(1, raw(64)).unwrap();
        let mut t = ViewTable::new();
        let kinds = |t: &ViewTable| -> Vec<(usize, u32, u64)> {
            (0..2 * SLOTS)
                .filter(|&i| t.descs[i] != ViewDesc::EMPTY)
                .map(|i| (i, t.descs[i].kind, t.descs[i].len))
                .collect()
        };
        t.fill(&a, false);
        assert_eq!(t.check, 0);
        assert_eq!(
            kinds(&t),
            [(0, ViewDesc::BUFFER, 16), (SLOTS + 3, ViewDesc::BUFFER, 32)]
        );
        t.fill(&b, false);
        assert_eq!(kinds(&t), [(1, ViewDesc::BUFFER, 64)]);
        t.fill(&a, true);
        assert_eq!((t.check, kinds(&t)), (1, vec![]));
        t.fill(&a, false);
        assert_eq!(kinds(&t).len(), 2);
    }
}
