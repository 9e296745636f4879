//! Texture sampling (`Sample`: `sample*`, `gather4*`, `lod`) and screen-space derivatives
//! (`Deriv`: `deriv_rt*`): the lanes' operands gathered into rows, then
//! [`crate::semantics::sample`]'s per-lane definition against the launch's bound texture and
//! sampler. Nothing here faults.

use super::lanes::*;
use super::ops::*;
use crate::exec::CtaEnv;
use crate::ir::*;
use crate::semantics::sample::{deriv, SampleArgs, TextureSampler};
use warpjit_runtime::resource::Resource;
use warpjit_runtime::WarpState;

/// The operand rows of a [`Sample`], in this order: the four coordinates, the three x
/// derivatives, the three y derivatives, the LOD (or bias), the reference, the two programmable
/// offsets.
pub type SampleRows = [[u32; 32]; 14];

/// Row indices in [`SampleRows`].
const DDX: usize = 4;
const DDY: usize = 7;
const LOD: usize = 10;
const REF: usize = 11;
const PO: usize = 12;

/// The source operands of a [`Sample`], in [`SampleRows`] order (an absent programmable
/// offset is 0).
pub fn sample_sources(op: &Sample) -> [Src; 14] {
    let po = op.po.unwrap_or([Src::Imm(0); 2]);
    [
        op.coord[0],
        op.coord[1],
        op.coord[2],
        op.coord[3],
        op.ddx[0],
        op.ddx[1],
        op.ddx[2],
        op.ddy[0],
        op.ddy[1],
        op.ddy[2],
        op.lod,
        op.reference,
        po[0],
        po[1],
    ]
}

/// [`Sample`] for the lanes of `mask`, given its operand rows: the words each destination
/// component receives (0 in lanes outside `mask`). The one definition the interpreter runs and
/// the JIT calls.
pub fn sample_lanes(
    op: &Sample,
    env: &mut CtaEnv<'_>,
    mask: u32,
    rows: &SampleRows,
) -> [[u32; 32]; 4] {
    let res = env.resources;
    let tex = match op.view {
        View::Srv(s) => match res.srv(s as u32) {
            Some(Resource::Texture(t)) => Some(t),
            _ => None,
        },
        _ => None,
    };
    if tex.is_none() && env.check {
        for l in lanes(mask) {
            env.finding(l, "the sampled texture is not bound (reads 0)".to_string());
        }
    }
    let sampler = res.sampler(op.sampler as u32);
    let prepared = tex.map(|t| TextureSampler::new(t, sampler));
    let mut out = [[0u32; 32]; 4];
    for l in lanes(mask) {
        let offset = match op.po {
            // gather4_po: the low 6 bits of each, signed.
            Some(_) => [
                ((rows[PO][l] << 26) as i32) >> 26,
                ((rows[PO + 1][l] << 26) as i32) >> 26,
                0,
            ],
            None => op.offset.map(i32::from),
        };
        let a = SampleArgs {
            coord: std::array::from_fn(|k| rows[k][l]),
            ddx: std::array::from_fn(|k| rows[DDX + k][l]),
            ddy: std::array::from_fn(|k| rows[DDY + k][l]),
            lod: rows[LOD][l],
            reference: rows[REF][l],
            offset,
        };
        let v = match &prepared {
            Some(p) => p.sample(op.f, op.compare, &a),
            None => [0; 4],
        };
        for c in 0..4 {
            out[c][l] = v[op.comp[c] as usize & 3];
        }
    }
    out
}

impl Exec for Sample {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let mut rows = [[0u32; 32]; 14];
        for (k, s) in sample_sources(self).into_iter().enumerate() {
            rows[k] = src(w, s, mask, env)?;
        }
        let out = sample_lanes(self, env, mask, &rows);
        for c in 0..4 {
            if !self.d[c].is_rz() {
                put(w, self.d[c].0, &out[c], mask);
            }
        }
        Ok(())
    }
}

/// [`Deriv`] on a whole operand row: every lane's derivative (the caller keeps those of the
/// lanes that execute). The one definition the interpreter runs and the JIT calls.
pub fn deriv_row(op: &Deriv, a: &[u32; 32]) -> [u32; 32] {
    std::array::from_fn(|l| deriv(a, l, op.y, op.fine))
}

impl Exec for Deriv {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        // The operand in every lane of the quads: a register's row as the state holds it.
        let a = src(w, self.a, mask, env)?;
        let out = deriv_row(self, &a);
        put(w, self.d.0, &out, mask);
        Ok(())
    }
}
