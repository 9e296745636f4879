//! Resource-view ops: buffer and texture loads and stores against the launch's bound resources
//! (`CtaEnv::resources`) and the `g#` ranges of the CTA's shared memory. Nothing here faults:
//! out of range, reads give 0 and writes are dropped (with a `--check` finding for `g#`).

use super::lanes::*;
use super::ops::*;
use crate::exec::{CtaEnv, MemSpace};
use crate::ir::*;
use std::sync::atomic::Ordering;
use warpjit_runtime::resource::{AtomicOp, Buffer, BufferKind, Resource, Resources};
use warpjit_runtime::WarpState;

/// The resource a `t#`/`u#` view names, if one is bound.
fn bound(res: &Resources, view: View) -> Option<&Resource> {
    match view {
        View::Srv(s) => res.srv(s as u32),
        View::Uav(s) => res.uav(s as u32),
        View::Tgsm { .. } | View::Temp { .. } | View::Cb { .. } | View::Input | View::Output => {
            None
        }
    }
}

/// The byte of shared memory where word `addr` of lane `lane`'s `x#` array starts, if `addr` is
/// inside the array's `size` bytes.
fn temp_byte(env: &CtaEnv<'_>, base: u32, size: u32, addr: u64, lane: usize) -> Option<usize> {
    let a = addr & !3;
    (a + 4 <= size as u64).then(|| {
        let thread = env.at.warp as usize * 32 + lane;
        base as usize + thread * size as usize + a as usize
    })
}

/// The buffer a buffer view reads or writes: a bound `t#`/`u#` buffer, or the stage's inputs
/// and outputs.
pub(crate) fn buffer(res: &Resources, view: View) -> Option<&Buffer> {
    match view {
        View::Input => res.input(),
        View::Output => res.output(),
        _ => bound(res, view).and_then(Resource::buffer),
    }
}

/// The word at byte address `addr` of view `view` (0 out of range or unbound).
fn read_word(env: &mut CtaEnv<'_>, view: View, addr: u64, lane: usize) -> u32 {
    match view {
        View::Tgsm { base, size } => {
            let a = addr & !3;
            if a + 4 <= size as u64 {
                let at = base as usize + a as usize;
                let v = match env.shared.get(at..at + 4) {
                    Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                    None => 0,
                };
                env.access(
                    lane,
                    MemSpace::Shared,
                    at as u64,
                    4,
                    false,
                    false,
                    [v, 0, 0, 0],
                );
                v
            } else {
                env.finding(
                    lane,
                    format!("g# read at byte {addr:#x} is outside its {size} bytes (reads 0)"),
                );
                0
            }
        }
        View::Cb { bank, entries } => {
            let a = addr & !3;
            if a + 4 <= 16 * entries as u64 && (bank as u32) < env.nbanks {
                env.consts.word(bank as u32, a as u32)
            } else {
                env.finding(
                    lane,
                    format!(
                        "cb{bank}[{}] is past the {entries} entries the program declares (reads 0)",
                        addr / 16
                    ),
                );
                0
            }
        }
        View::Temp { base, size } => match temp_byte(env, base, size, addr, lane) {
            Some(at) => match env.shared.get(at..at + 4) {
                Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                None => 0,
            },
            None => {
                env.finding(
                    lane,
                    format!(
                        "x# read of element {} is outside its {} elements (reads 0)",
                        addr / 16,
                        size / 16
                    ),
                );
                0
            }
        },
        _ => match buffer(env.resources, view) {
            Some(b) => {
                let a = addr & !3;
                if env.check && a.checked_add(4).is_none_or(|end| end > b.size()) {
                    env.finding(
                        lane,
                        format!(
                            "{} read at byte {addr:#x} is past its {} bytes (reads 0)",
                            view_name(view),
                            b.size()
                        ),
                    );
                }
                b.read_u32(addr)
            }
            None => {
                env.finding(lane, format!("{} is not bound (reads 0)", view_name(view)));
                0
            }
        },
    }
}

/// How a diagnostic names a view.
fn view_name(view: View) -> String {
    match view {
        View::Srv(s) => format!("t{s}"),
        View::Uav(s) => format!("u{s}"),
        View::Tgsm { .. } => "g#".into(),
        View::Temp { .. } => "x#".into(),
        View::Cb { bank, .. } => format!("cb{bank}"),
        View::Input => "v#".into(),
        View::Output => "o#".into(),
    }
}

/// Writes the word at byte address `addr` of view `view` (dropped out of range or unbound).
fn write_word(env: &mut CtaEnv<'_>, view: View, addr: u64, value: u32, lane: usize) {
    match view {
        View::Tgsm { base, size } => {
            let a = addr & !3;
            if a + 4 <= size as u64 {
                let at = base as usize + a as usize;
                if let Some(b) = env.shared.get_mut(at..at + 4) {
                    b.copy_from_slice(&value.to_le_bytes());
                }
                let data = [value, 0, 0, 0];
                env.access(lane, MemSpace::Shared, at as u64, 4, true, false, data);
            } else {
                env.finding(
                    lane,
                    format!("g# write at byte {addr:#x} is outside its {size} bytes (dropped)"),
                );
            }
        }
        View::Temp { base, size } => match temp_byte(env, base, size, addr, lane) {
            Some(at) => {
                if let Some(b) = env.shared.get_mut(at..at + 4) {
                    b.copy_from_slice(&value.to_le_bytes());
                }
            }
            None => env.finding(
                lane,
                format!(
                    "x# write of element {} is outside its {} elements (dropped)",
                    addr / 16,
                    size / 16
                ),
            ),
        },
        View::Input | View::Cb { .. } => {}
        _ => match buffer(env.resources, view) {
            Some(b) => {
                if !b.write_u32(addr, value) {
                    env.finding(
                        lane,
                        format!(
                            "{} write at byte {addr:#x} is past its {} bytes (dropped)",
                            view_name(view),
                            b.size()
                        ),
                    );
                }
            }
            None => env.finding(
                lane,
                format!("{} is not bound (write dropped)", view_name(view)),
            ),
        },
    }
}

/// `stride * index + offset` in 64 bits.
fn address(stride: u32, index: u32, offset: u32) -> u64 {
    stride as u64 * index as u64 + offset as u64
}

/// [`LdBuf`] for the lanes of `mask`, given each lane's index and offset: the words each
/// destination component receives (0 in lanes outside `mask`). The one definition the
/// interpreter runs and the JIT calls.
pub fn ld_buf_lanes(
    op: &LdBuf,
    env: &mut CtaEnv<'_>,
    mask: u32,
    index: &[u32; 32],
    offset: &[u32; 32],
) -> [[u32; 32]; 4] {
    let mut out = [[0u32; 32]; 4];
    for l in lanes(mask) {
        let a = address(op.stride, index[l], offset[l]);
        for c in 0..4 {
            if op.d[c].is_rz() {
                continue;
            }
            let k = op.comp[c] as u64;
            if env.check && op.stride != 0 && offset[l] as u64 + 4 * k + 4 > op.stride as u64 {
                env.finding(
                    l,
                    format!(
                        "structured read at byte offset {:#x} + {} passes the {}-byte stride",
                        offset[l],
                        4 * k,
                        op.stride
                    ),
                );
            }
            out[c][l] = read_word(env, op.view, a + 4 * k, l);
        }
    }
    out
}

/// [`StBuf`] for the lanes of `mask`, given each lane's index, offset and component values:
/// lane by lane in ascending order (where lanes collide, the highest lane's value stays). The
/// one definition the interpreter runs and the JIT calls.
pub fn st_buf_lanes(
    op: &StBuf,
    env: &mut CtaEnv<'_>,
    mask: u32,
    index: &[u32; 32],
    offset: &[u32; 32],
    vals: &[[u32; 32]; 4],
) {
    for l in lanes(mask) {
        let a = address(op.stride, index[l], offset[l]);
        for (c, v) in vals.iter().enumerate() {
            if op.mask & (1 << c) != 0 {
                write_word(env, op.view, a + 4 * c as u64, v[l], l);
            }
        }
    }
}

impl Exec for LdBuf {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let index = src(w, self.index, mask, env)?;
        let offset = src(w, self.offset, mask, env)?;
        let out = ld_buf_lanes(self, env, mask, &index, &offset);
        for c in 0..4 {
            if !self.d[c].is_rz() {
                put(w, self.d[c].0, &out[c], mask);
            }
        }
        Ok(())
    }
}

impl Exec for StBuf {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let index = src(w, self.index, mask, env)?;
        let offset = src(w, self.offset, mask, env)?;
        let mut vals = [[0u32; 32]; 4];
        for c in 0..4 {
            if self.mask & (1 << c) != 0 {
                vals[c] = src(w, self.v[c], mask, env)?;
            }
        }
        st_buf_lanes(self, env, mask, &index, &offset, &vals);
        Ok(())
    }
}

/// The operand rows of an [`LdTex`]: column, row, slice, sample, mip level.
pub type TexCoords = [[u32; 32]; 5];

/// [`LdTex`] for the lanes of `mask`, given each lane's coordinates: the words each destination
/// component receives (0 in lanes outside `mask`). The one definition the interpreter runs and
/// the JIT calls.
pub fn ld_tex_lanes(
    op: &LdTex,
    env: &mut CtaEnv<'_>,
    mask: u32,
    coords: &TexCoords,
) -> [[u32; 32]; 4] {
    let [x, y, slice, sample, mip] = coords;
    let res = env.resources;
    let mut out = [[0u32; 32]; 4];
    for l in lanes(mask) {
        let texel = match bound(res, op.view) {
            Some(Resource::Texture(t)) => {
                let d = t.dim();
                let s = if d.is_layered() { slice[l] } else { 0 };
                let q = if d.is_multisample() { sample[l] } else { 0 };
                if env.check && d.is_multisample() && q >= t.samples() {
                    env.finding(
                        l,
                        format!(
                            "sample index {q} is not below the texture's {} samples (read as out of range)",
                            t.samples()
                        ),
                    );
                }
                // Offsets are added with wrap-around: below zero is far out of range.
                let cx = x[l].wrapping_add(op.offset[0] as i32 as u32);
                let cy = y[l].wrapping_add(op.offset[1] as i32 as u32);
                let cs = s.wrapping_add(op.offset[2] as i32 as u32);
                t.load_at(mip[l], cx, cy, cs, q)
            }
            // A typed buffer: element `x`.
            Some(Resource::Buffer(b)) => b.load_typed(x[l]),
            None => {
                env.finding(l, format!("{} is not bound (reads 0)", view_name(op.view)));
                [0; 4]
            }
        };
        for c in 0..4 {
            out[c][l] = texel[op.comp[c] as usize & 3];
        }
    }
    out
}

impl Exec for LdTex {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let coords = [
            src(w, self.x, mask, env)?,
            src(w, self.y, mask, env)?,
            src(w, self.slice, mask, env)?,
            src(w, self.sample, mask, env)?,
            src(w, self.mip, mask, env)?,
        ];
        let out = ld_tex_lanes(self, env, mask, &coords);
        for c in 0..4 {
            if !self.d[c].is_rz() {
                put(w, self.d[c].0, &out[c], mask);
            }
        }
        Ok(())
    }
}

/// [`StTex`] for the lanes of `mask`, given each lane's column, row, slice and four values: lane
/// by lane in ascending order, each value converted to the view's format by the runtime's
/// conversion (where lanes collide, the highest lane's texel stays; out of range the write is
/// dropped). The one definition the interpreter runs and the JIT calls.
pub fn st_tex_lanes(
    op: &StTex,
    env: &mut CtaEnv<'_>,
    mask: u32,
    coords: &[[u32; 32]; 3],
    v: &[[u32; 32]; 4],
) {
    let [x, y, slice] = coords;
    let res = env.resources;
    for l in lanes(mask) {
        let value = [v[0][l], v[1][l], v[2][l], v[3][l]];
        match bound(res, op.view) {
            Some(Resource::Texture(t)) => {
                let s = if t.dim().is_layered() { slice[l] } else { 0 };
                t.store(x[l], y[l], s, 0, value);
            }
            Some(Resource::Buffer(b)) => {
                b.store_typed(x[l], value);
            }
            None => env.finding(
                l,
                format!("{} is not bound (write dropped)", view_name(op.view)),
            ),
        }
    }
}

impl Exec for StTex {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let coords = [
            src(w, self.x, mask, env)?,
            src(w, self.y, mask, env)?,
            src(w, self.slice, mask, env)?,
        ];
        let mut v = [[0u32; 32]; 4];
        for (c, s) in self.v.iter().enumerate() {
            v[c] = src(w, *s, mask, env)?;
        }
        st_tex_lanes(self, env, mask, &coords, &v);
        Ok(())
    }
}

/// The runtime's operation for an atomic's function and operands.
fn atomic_op(f: AtomFn, a: u32, b: u32) -> AtomicOp {
    match f {
        AtomFn::Add => AtomicOp::Add(a),
        AtomFn::And => AtomicOp::And(a),
        AtomFn::Or => AtomicOp::Or(a),
        AtomFn::Xor => AtomicOp::Xor(a),
        AtomFn::Imax => AtomicOp::IMax(a),
        AtomFn::Imin => AtomicOp::IMin(a),
        AtomFn::Umax => AtomicOp::UMax(a),
        AtomFn::Umin => AtomicOp::UMin(a),
        AtomFn::Exch => AtomicOp::Exchange(a),
        AtomFn::CmpExch => AtomicOp::CompareExchange {
            compare: a,
            value: b,
        },
        // Counters are not words: `Atom::exec` handles them first.
        AtomFn::Alloc | AtomFn::Consume => AtomicOp::Add(0),
    }
}

/// The operand rows of an [`Atom`]: the three address rows, the operand and the swap value.
pub type AtomRows = [[u32; 32]; 5];

/// [`Atom`] for the lanes of `mask`, given its operand rows: one lane at a time in ascending
/// order, each seeing the updates of the lanes before it; the old value of each lane's word
/// (0 in the lanes outside `mask`, out of range and for an unbound view). The one definition the
/// interpreter runs and the JIT calls.
pub fn view_atom_lanes(op: &Atom, env: &mut CtaEnv<'_>, mask: u32, rows: &AtomRows) -> [u32; 32] {
    let [a0, a1, a2, a, b] = rows;
    let addr = [a0, a1, a2];
    let res = env.resources;
    let mut old = [0u32; 32];
    if matches!(op.f, AtomFn::Alloc | AtomFn::Consume) {
        // The counter of a bound structured buffer; an unbound view returns 0.
        let counter = match bound(res, op.view) {
            Some(Resource::Buffer(buf)) => Some(buf.counter()),
            _ => None,
        };
        for l in lanes(mask) {
            old[l] = match (counter, op.f) {
                (Some(c), AtomFn::Alloc) => c.fetch_add(1, Ordering::Relaxed),
                (Some(c), _) => c.fetch_sub(1, Ordering::Relaxed).wrapping_sub(1),
                (None, _) => 0,
            };
        }
        return old;
    }
    for l in lanes(mask) {
        let f = atomic_op(op.f, a[l], b[l]);
        old[l] = match op.view {
            View::Tgsm { base, size } => {
                let at = if op.stride == 0 {
                    addr[0][l] as u64
                } else {
                    address(op.stride, addr[0][l], addr[1][l])
                } & !3;
                if at + 4 <= size as u64 {
                    let i = base as usize + at as usize;
                    match env.shared.get_mut(i..i + 4) {
                        Some(bytes) => {
                            let o = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                            let v = f.combine(o);
                            bytes.copy_from_slice(&v.to_le_bytes());
                            env.access(l, MemSpace::Shared, i as u64, 4, true, true, [v, 0, 0, 0]);
                            o
                        }
                        None => 0,
                    }
                } else {
                    env.finding(
                        l,
                        format!("g# atomic at byte {at:#x} is outside its {size} bytes (dropped)"),
                    );
                    0
                }
            }
            _ => {
                let word = match bound(res, op.view) {
                    Some(Resource::Buffer(buf)) => match buf.kind() {
                        BufferKind::Raw => buf.atomic_word(addr[0][l] as u64),
                        BufferKind::Structured { stride } => {
                            buf.atomic_word(address(stride, addr[0][l], addr[1][l]))
                        }
                        BufferKind::Typed(_) => buf
                            .element_offset(addr[0][l])
                            .and_then(|off| buf.atomic_word(off)),
                    },
                    Some(Resource::Texture(t)) => {
                        let s = if t.dim().is_layered() { addr[2][l] } else { 0 };
                        t.atomic_word(addr[0][l], addr[1][l], s)
                    }
                    None => None,
                };
                word.map_or(0, |wd| f.apply(wd))
            }
        };
    }
    old
}

impl Exec for Atom {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let rows = [
            src(w, self.addr[0], mask, env)?,
            src(w, self.addr[1], mask, env)?,
            src(w, self.addr[2], mask, env)?,
            src(w, self.a, mask, env)?,
            src(w, self.b, mask, env)?,
        ];
        let old = view_atom_lanes(self, env, mask, &rows);
        put(w, self.d.0, &old, mask);
        Ok(())
    }
}

/// `n` as [`Info`] returns it.
fn info_number(n: u32, f: InfoFormat, reciprocal: bool) -> u32 {
    match f {
        InfoFormat::Uint => n,
        InfoFormat::Float => (n as f32).to_bits(),
        InfoFormat::RcpFloat if reciprocal => (1.0 / n as f32).to_bits(),
        InfoFormat::RcpFloat => (n as f32).to_bits(),
    }
}

/// The four words [`Info`] gives for view binding `res` at mip level `mip` (only
/// `resinfo` reads it). The one definition the interpreter runs and the JIT calls.
///
/// `resinfo` (the Direct3D 11.3 page): by the dimension, the level's width, height, depth or
/// array size in `x`, `y`, `z` (1D: `w, 0, 0`; 1D array: `w, slices, 0`; 2D: `w, h, 0`; 2D
/// array: `w, h, slices`; 3D: `w, h, d`; cube: `w, h, 0`; cube array: `w, h, cubes`), and the
/// mip count in `w`; past the last level, or unbound, the sizes are 0 (the mip count is 0
/// unbound). `_rcpFloat` returns the width, height and (3D) depth as reciprocals, including
/// infinity for 0, and the rest as floats.
pub fn info_words(res: &Resources, op: &Info, mip: u32) -> [u32; 4] {
    let b = bound(res, op.view);
    match op.kind {
        InfoKind::BufferLength => match b {
            Some(Resource::Buffer(b)) => {
                let n = match b.kind() {
                    BufferKind::Raw => b.size(),
                    BufferKind::Structured { stride } => b.size() / stride as u64,
                    BufferKind::Typed(f) => b.size() / f.element_bytes() as u64,
                };
                [n.min(u32::MAX as u64) as u32; 4]
            }
            _ => [0; 4],
        },
        InfoKind::Samples(f) => match b {
            Some(Resource::Texture(t)) => [info_number(t.samples(), f, false), 0, 0, 0],
            _ => [0; 4],
        },
        InfoKind::Dimensions(f) => {
            let t = b.and_then(Resource::texture);
            let Some(dim) = op.dim else {
                return [0; 4];
            };
            let mips = t.map_or(0, |t| t.mips());
            let [w, h, d] = match t {
                Some(t) if mip < mips => t.shape().level_size(mip),
                _ => [0; 3],
            };
            let slices = t.map_or(0, |t| t.array_size());
            let slices = if mip < mips { slices } else { 0 };
            // (value, is a width/height/depth): zeros that are not returned stay zeros.
            let (x, y, z): ((u32, bool), (u32, bool), (u32, bool)) = match dim {
                TextureKind::Tex1d => ((w, true), (0, false), (0, false)),
                TextureKind::Tex1dArray => ((w, true), (slices, false), (0, false)),
                TextureKind::Tex2d | TextureKind::Tex2dMs | TextureKind::Cube => {
                    ((w, true), (h, true), (0, false))
                }
                TextureKind::Tex2dArray | TextureKind::Tex2dMsArray => {
                    ((w, true), (h, true), (slices, false))
                }
                TextureKind::Tex3d => ((w, true), (h, true), (d, true)),
                TextureKind::CubeArray => ((w, true), (h, true), (slices / 6, false)),
            };
            let word = |(v, size): (u32, bool)| {
                if size || v != 0 {
                    info_number(v, f, size)
                } else {
                    0
                }
            };
            [word(x), word(y), word(z), info_number(mips, f, false)]
        }
    }
}

impl Exec for Info {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let mip = src(w, self.mip, mask, env)?;
        let res = env.resources;
        let mut out = [[0u32; 32]; 4];
        for l in lanes(mask) {
            let v = info_words(res, self, mip[l]);
            for c in 0..4 {
                out[c][l] = v[self.comp[c] as usize & 3];
            }
        }
        for c in 0..4 {
            if !self.d[c].is_rz() {
                put(w, self.d[c].0, &out[c], mask);
            }
        }
        Ok(())
    }
}
