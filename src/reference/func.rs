//! The per-lane function ops ([`Un`], [`Bin`], [`Tern`]): each lane applies the function
//! `crate::semantics::func` defines.

use super::lanes::*;
use super::ops::*;
use crate::exec::CtaEnv;
use crate::ir::*;
use crate::semantics::func::{bin, tern, un};
use warpjit_runtime::WarpState;

impl Exec for Un {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let a = src(w, self.a, mask, env)?;
        let r: Row = std::array::from_fn(|l| un(self.f, a[l]));
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

impl Exec for Bin {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let a = src(w, self.a, mask, env)?;
        let b = src(w, self.b, mask, env)?;
        let r: Row = std::array::from_fn(|l| bin(self.f, a[l], b[l]));
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

impl Exec for Tern {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let a = src(w, self.a, mask, env)?;
        let b = src(w, self.b, mask, env)?;
        let c = src(w, self.c, mask, env)?;
        let r: Row = std::array::from_fn(|l| tern(self.f, a[l], b[l], c[l]));
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

impl Exec for Table {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let i = src(w, self.index, mask, env)?;
        if env.check {
            for l in lanes(mask) {
                if i[l] as usize >= self.table.len() {
                    env.finding(
                        l,
                        format!(
                            "icb read past the {} entries of the immediate constant buffer (reads 0)",
                            self.table.len() / 4
                        ),
                    );
                }
            }
        }
        let r: Row = std::array::from_fn(|l| self.table.get(i[l] as usize).copied().unwrap_or(0));
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}
