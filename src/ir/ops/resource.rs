//! Resource-view ops: loads and stores of bound buffers and textures (DXBC `t#`, `u#`) and of
//! declared ranges of shared memory (`g#`), each with its operand roles. A view access never
//! faults: out of range, a read gives 0 and a write is dropped (docs/semantics.md, DXBC).

use crate::ir::operand::*;
use crate::ir::roles::*;

/// The view an op addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum View {
    /// `t#`: a shader resource view (read only).
    Srv(u8),
    /// `u#`: an unordered access view (read and write).
    Uav(u8),
    /// `g#`: `size` bytes of the CTA's shared memory from byte `base`.
    Tgsm {
        /// First byte in shared memory.
        base: u32,
        /// Bytes the declaration gives it.
        size: u32,
    },
    /// `x#`: a private array of each thread, `size` bytes in the CTA's shared memory from byte
    /// `base + size * t`, where `t` is the thread's index in its CTA (warp * 32 + lane).
    Temp {
        /// First byte of the region (thread 0's array).
        base: u32,
        /// Bytes each thread's array takes.
        size: u32,
    },
    /// `cb#` read by a register index: `entries` 16-byte entries of constant bank `bank` (read
    /// only; past them, reads give 0).
    Cb {
        /// The constant bank.
        bank: u8,
        /// Entries the program declares (at most 4096).
        entries: u16,
    },
    /// The `v#` values of a vertex, geometry or pixel shader's invocations (read only).
    Input,
    /// The `o#` values its invocations write.
    Output,
}

/// Loads up to four 32-bit words of a structured or raw view: the byte address is
/// `stride * index + offset` in 64 bits (`stride` 0 for a raw view: the address is `offset`),
/// and `d[c]` (unless `RZ`) receives the word at `address + 4 * comp[c]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LdBuf {
    /// Destination per component (`RZ`: not written).
    pub d: [Reg; 4],
    /// The view.
    pub view: View,
    /// Structure stride in bytes (0: raw).
    pub stride: u32,
    /// Structure index.
    pub index: Src,
    /// Byte offset.
    pub offset: Src,
    /// Which word of the structure (from the offset) each destination component reads.
    pub comp: [u8; 4],
}

impl Operands for LdBuf {
    fn operands(&self, o: &mut Roles<'_>) {
        let LdBuf {
            d,
            view: _,
            stride: _,
            index,
            offset,
            comp: _,
        } = *self;
        o.src(index);
        o.src(offset);
        let n = d.iter().filter(|r| !r.is_rz()).count() as u32;
        o.view_access(Dir::Use, 4 * n);
        for r in d {
            o.def(r);
        }
    }
}

/// Stores up to four 32-bit words to a structured or raw view: for each component `c` in
/// `mask`, `v[c]` goes to the word at `stride * index + offset + 4 * c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StBuf {
    /// The view (`u#` or `g#`).
    pub view: View,
    /// Structure stride in bytes (0: raw).
    pub stride: u32,
    /// Structure index.
    pub index: Src,
    /// Byte offset.
    pub offset: Src,
    /// The value of each component.
    pub v: [Src; 4],
    /// Components written (bit `c` for component `c`).
    pub mask: u8,
}

impl Operands for StBuf {
    fn operands(&self, o: &mut Roles<'_>) {
        let StBuf {
            view: _,
            stride: _,
            index,
            offset,
            v,
            mask,
        } = *self;
        o.src(index);
        o.src(offset);
        for (c, s) in v.iter().enumerate() {
            if mask & (1 << c) != 0 {
                o.src(*s);
            }
        }
        o.view_access(Dir::Def, 4 * mask.count_ones());
    }
}

/// Loads one texel of a texture (`ld`, `ldms`, `ld2dms`, `ld_uav_typed`): integer coordinates
/// `x`, `y`, `slice` (an array's slice, or a 3D texture's depth) and `sample` at mip level
/// `mip`, the texel axes plus an immediate offset where given (`_aoffimmi`), converted from the
/// texture's format to four words; `d[c]` (unless `RZ`) receives word `comp[c]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LdTex {
    /// Destination per component (`RZ`: not written).
    pub d: [Reg; 4],
    /// The texture's `t#` or `u#` slot.
    pub view: View,
    /// Column.
    pub x: Src,
    /// Row.
    pub y: Src,
    /// Array slice, or depth of a 3D texture (ignored by a texture that is neither).
    pub slice: Src,
    /// Sample (0 for a texture that is not multisampled).
    pub sample: Src,
    /// Mip level (at or past the texture's mip count: out of range).
    pub mip: Src,
    /// Immediate offsets added to `x`, `y` and a 3D texture's depth (`_aoffimmi(u,v,w)`;
    /// the front-end leaves 0 where the dimension has no such axis).
    pub offset: [i8; 3],
    /// Which converted word each destination component receives.
    pub comp: [u8; 4],
}

impl Operands for LdTex {
    fn operands(&self, o: &mut Roles<'_>) {
        let LdTex {
            d,
            view: _,
            x,
            y,
            slice,
            sample,
            mip,
            offset: _,
            comp: _,
        } = *self;
        for s in [x, y, slice, sample, mip] {
            o.src(s);
        }
        o.view_access(Dir::Use, 16);
        for r in d {
            o.def(r);
        }
    }
}

/// Writes one texel of a texture or element of a typed buffer (`store_uav_typed`): the four
/// values converted to the view's format (a buffer's element `x`; a texture's texel `x`, `y` of
/// `slice`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StTex {
    /// The `u#` view.
    pub view: View,
    /// Column, or element of a buffer.
    pub x: Src,
    /// Row.
    pub y: Src,
    /// Array slice (ignored by a texture that is not an array).
    pub slice: Src,
    /// The four values (components the format lacks are ignored).
    pub v: [Src; 4],
}

impl Operands for StTex {
    fn operands(&self, o: &mut Roles<'_>) {
        let StTex {
            view: _,
            x,
            y,
            slice,
            v,
        } = *self;
        for s in [x, y, slice] {
            o.src(s);
        }
        for s in v {
            o.src(s);
        }
        o.view_access(Dir::Def, 16);
    }
}

/// The read-modify-write of an atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomFn {
    /// Wrapping add.
    Add,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise xor.
    Xor,
    /// Signed maximum.
    Imax,
    /// Signed minimum.
    Imin,
    /// Unsigned maximum.
    Umax,
    /// Unsigned minimum.
    Umin,
    /// Exchange with `a`.
    Exch,
    /// Writes `b` where the word equals `a`.
    CmpExch,
    /// `imm_atomic_alloc`: the view's hidden counter (not a word of it; `addr`, `a` and `b`
    /// unused) is returned, then incremented (wrapping).
    Alloc,
    /// `imm_atomic_consume`: the view's hidden counter is decremented (wrapping), then
    /// returned.
    Consume,
}

/// An atomic on one 32-bit word of a view, lane by lane in ascending lane order: `d` (unless
/// `RZ`) receives the word's value before the lane's own update. The word is, by the view:
/// raw, byte `addr[0]`; structured, byte `stride * addr[0] + addr[1]`; a typed buffer, element
/// `addr[0]`; a texture, texel (`addr[0]`, `addr[1]`) of slice `addr[2]`. Out of range nothing
/// is written and `d` receives 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Atom {
    /// The old value (`RZ`: not returned).
    pub d: Reg,
    /// The `u#` or `g#` view.
    pub view: View,
    /// Structure stride of a structured `g#` (0: raw); a `u#` view's own kind decides.
    pub stride: u32,
    /// The address, as above.
    pub addr: [Src; 3],
    /// The operation.
    pub f: AtomFn,
    /// Its operand (the compared value of `CmpExch`).
    pub a: Src,
    /// The value `CmpExch` writes (unused by the others).
    pub b: Src,
}

impl Operands for Atom {
    fn operands(&self, o: &mut Roles<'_>) {
        let Atom {
            d,
            view: _,
            stride: _,
            addr,
            f: _,
            a,
            b,
        } = *self;
        for s in addr {
            o.src(s);
        }
        o.src(a);
        o.src(b);
        o.view_access(Dir::Use, 4);
        o.view_access(Dir::Def, 4);
        o.def(d);
    }
}

/// What [`Info`] asks of a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InfoKind {
    /// A buffer's length in its elements (`bufinfo`): structures of a structured buffer, bytes
    /// of a raw one, elements of a typed one; in all four components.
    BufferLength,
    /// A texture's width, height, array size (or 1) and mip count at a mip level (`resinfo`).
    Dimensions(InfoFormat),
    /// A texture's sample count in `x` (`sampleinfo`; 1 for a texture that is not multisampled).
    Samples(InfoFormat),
}

/// How [`Info`] returns numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InfoFormat {
    /// As floats.
    Float,
    /// As unsigned integers (`_uint`).
    Uint,
    /// Width, height and depth as reciprocal floats, the rest as floats (`_rcpFloat`).
    RcpFloat,
}

/// Queries the size of a view: four words, of which `d[c]` (unless `RZ`) receives word
/// `comp[c]`. An unbound view gives 0 in all four (but the reciprocals of `_rcpFloat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Info {
    /// Destination per component (`RZ`: not written).
    pub d: [Reg; 4],
    /// The `t#` or `u#` view.
    pub view: View,
    /// The dimension the program declares the view with (`None` for a buffer): which words
    /// `resinfo` fills, also for an unbound view.
    pub dim: Option<crate::ir::TextureKind>,
    /// What is asked.
    pub kind: InfoKind,
    /// The mip level (`resinfo`).
    pub mip: Src,
    /// Which word each destination component receives.
    pub comp: [u8; 4],
}

impl Operands for Info {
    fn operands(&self, o: &mut Roles<'_>) {
        let Info {
            d,
            view: _,
            dim: _,
            kind: _,
            mip,
            comp: _,
        } = *self;
        o.src(mip);
        o.view_access(Dir::Use, 0);
        for r in d {
            o.def(r);
        }
    }
}

/// What a [`Sample`] computes (docs/semantics.md §32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SampleFn {
    /// A filtered sample whose LOD comes from the derivatives `ddx` and `ddy` of the
    /// coordinates, plus the bias `lod` (`sample`, `sample_b`, `sample_d`, `sample_c`: the
    /// front-end computes the implicit derivatives of `sample` with [`Deriv`]).
    Grad,
    /// A filtered sample at the LOD `lod` (`sample_l`; `sample_c_lz` with 0).
    Level,
    /// The four texels of the bilinear footprint at mip level 0, channel `0..4` of each
    /// (`gather4*`).
    Gather(u8),
    /// The LOD a [`SampleFn::Grad`] sample would use: (clamped, unclamped, 0, 0) (`lod`).
    Lod,
}

/// Samples a texture `t#` through sampler `s#` (`sample*`, `gather4*`, `lod`): per lane, the
/// coordinates (floats), the derivatives or LOD, a comparison reference and offsets, in the
/// texture's dimension's interpretation; `d[c]` (unless `RZ`) receives word `comp[c]` of the
/// result. An unbound texture gives 0 in all four words. Never faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Destination per component (`RZ`: not written).
    pub d: [Reg; 4],
    /// The `t#` view.
    pub view: View,
    /// The `s#` slot (0 to 15).
    pub sampler: u8,
    /// What is computed.
    pub f: SampleFn,
    /// A comparison (`sample_c`, `sample_c_lz`, `gather4_c`, `gather4_po_c`): texels are
    /// compared with `reference` first.
    pub compare: bool,
    /// The coordinates: u, v, w (or a cube direction x, y, z), and the array index where the
    /// dimension has one (1D arrays: the second; 2D arrays: the third; cube arrays: the fourth).
    pub coord: [Src; 4],
    /// Derivatives of u, v, w along x ([`SampleFn::Grad`], [`SampleFn::Lod`]).
    pub ddx: [Src; 3],
    /// Derivatives of u, v, w along y.
    pub ddy: [Src; 3],
    /// The LOD of [`SampleFn::Level`], the bias of [`SampleFn::Grad`] (0 but for `sample_b`).
    pub lod: Src,
    /// The comparison reference.
    pub reference: Src,
    /// Immediate texel offsets (`_aoffimmi(u,v,w)`), 0 where the dimension has no such axis.
    pub offset: [i8; 3],
    /// Programmable offsets (`gather4_po`): u and v from these operands' low 6 bits, replacing
    /// `offset`.
    pub po: Option<[Src; 2]>,
    /// Which result word each destination component receives.
    pub comp: [u8; 4],
}

impl Operands for Sample {
    fn operands(&self, o: &mut Roles<'_>) {
        let Sample {
            d,
            view: _,
            sampler: _,
            f: _,
            compare: _,
            coord,
            ddx,
            ddy,
            lod,
            reference,
            offset: _,
            po,
            comp: _,
        } = *self;
        for s in coord.into_iter().chain(ddx).chain(ddy) {
            o.src(s);
        }
        o.src(lod);
        o.src(reference);
        if let Some(p) = po {
            for s in p {
                o.src(s);
            }
        }
        o.view_access(Dir::Use, 16);
        for r in d {
            o.def(r);
        }
    }
}

/// A screen-space derivative of a pixel shader (`deriv_rtx_coarse`, `deriv_rty_fine`, ...):
/// the difference of `a` between two lanes of the lane's 2x2 quad (lanes `4q` to `4q + 3` are
/// its top-left, top-right, bottom-left and bottom-right pixels), as the registers hold it in
/// those lanes (docs/semantics.md §33), with Direct3D's float subtraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deriv {
    /// Destination.
    pub d: Reg,
    /// The value differentiated.
    pub a: Src,
    /// Along y (`rty`), else along x (`rtx`).
    pub y: bool,
    /// Per pixel (`_fine`: the lane's own row or column), else per quad (`_coarse`: the top row
    /// or left column).
    pub fine: bool,
}

impl Operands for Deriv {
    fn operands(&self, o: &mut Roles<'_>) {
        let Deriv {
            d,
            a,
            y: _,
            fine: _,
        } = *self;
        o.src(a);
        o.def(d);
        // A lane's result comes from other lanes' registers.
        o.lane_varying(true);
    }
}
