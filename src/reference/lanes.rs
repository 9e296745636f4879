//! Whole-warp building blocks: 32-lane rows, masks and flag packing.
//!
//! Every op runs its arithmetic over all 32 lanes (branch-free, so the loops vectorise) and then
//! commits the result only for the lanes in its execution mask.

use warpjit_runtime::{WarpState, LANES};

/// One value per lane.
pub type Row = [u32; LANES];

/// A row holding `v` in every lane.
#[inline(always)]
pub fn splat(v: u32) -> Row {
    [v; LANES]
}

/// Applies `f` lane by lane.
#[inline(always)]
pub fn map(a: &Row, f: impl Fn(u32) -> u32) -> Row {
    let mut out = [0; LANES];
    for l in 0..LANES {
        out[l] = f(a[l]);
    }
    out
}

/// Applies `f` lane by lane over two rows.
#[inline(always)]
pub fn map2(a: &Row, b: &Row, f: impl Fn(u32, u32) -> u32) -> Row {
    let mut out = [0; LANES];
    for l in 0..LANES {
        out[l] = f(a[l], b[l]);
    }
    out
}

/// Applies `f` lane by lane over three rows.
#[inline(always)]
pub fn map3(a: &Row, b: &Row, c: &Row, f: impl Fn(u32, u32, u32) -> u32) -> Row {
    let mut out = [0; LANES];
    for l in 0..LANES {
        out[l] = f(a[l], b[l], c[l]);
    }
    out
}

/// Packs a per-lane condition into a lane mask.
#[inline(always)]
pub fn mask_of(f: impl Fn(usize) -> bool) -> u32 {
    let mut m = 0u32;
    for l in 0..LANES {
        m |= (f(l) as u32) << l;
    }
    m
}

/// The lane bit of `l` is set in `mask`.
#[inline(always)]
pub fn lane_on(mask: u32, l: usize) -> bool {
    mask >> l & 1 != 0
}

/// Iterates over the set lanes of a mask, lowest first.
#[inline(always)]
pub fn lanes(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let l = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            Some(l)
        }
    })
}

/// Writes `v` into register `d` for the lanes in `mask` (`RZ` ignores writes).
#[inline(always)]
pub fn put(w: &mut WarpState, d: u8, v: &Row, mask: u32) {
    if d == 255 {
        return;
    }
    let r = &mut w.regs[d as usize];
    if mask == u32::MAX {
        *r = *v;
    } else {
        for l in 0..LANES {
            r[l] = if lane_on(mask, l) { v[l] } else { r[l] };
        }
    }
}
