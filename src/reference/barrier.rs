//! `B2R.RESULT`: the barrier reduction's result, which the execution core leaves in the warp
//! state when it releases a `BAR.RED` (docs/semantics.md §30).

use super::lanes::{put, splat};
use super::ops::{Exec, OpResult};
use crate::exec::CtaEnv;
use crate::ir::*;
use warpjit_runtime::WarpState;

impl Exec for B2r {
    fn exec(&self, w: &mut WarpState, mask: u32, _: &mut CtaEnv<'_>) -> OpResult {
        let r = w.bar_result;
        put(w, self.d.0, &splat(r), mask);
        w.set_pred(self.p.0, mask, if r != 0 { mask } else { 0 });
        Ok(())
    }
}
