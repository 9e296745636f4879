//! The state of one warp, laid out for JIT code.
//!
//! `#[repr(C)]` and register-major (`regs[reg][lane]`): one register of all 32 lanes is 128
//! contiguous bytes, so an op over a whole warp is a few vector loads and stores. Predicates and
//! condition-code flags are lane masks (bit `l` = lane `l`). JIT code addresses every field with
//! `core::mem::offset_of!`.

/// Lanes per warp.
pub const LANES: usize = 32;
/// Registers in the file (R0..R254 and RZ = 255, which always holds 0).
pub const REGS: usize = 256;
/// Index of the carry flag in [`WarpState::cc`].
pub const CF: usize = 0;
/// Index of the zero flag in [`WarpState::cc`].
pub const ZF: usize = 1;
/// Index of the sign flag in [`WarpState::cc`].
pub const SF: usize = 2;
/// Index of the overflow flag in [`WarpState::cc`].
pub const OF: usize = 3;

/// One warp's architectural state.
#[repr(C, align(64))]
#[derive(Clone)]
pub struct WarpState {
    /// General registers, register-major; `regs[255]` (RZ) is always 0.
    pub regs: [[u32; LANES]; REGS],
    /// The hidden per-thread word written by every LEA.LO (its Rd), read by LEA.HI's window test.
    pub lea_lo: [u32; LANES],
    /// Per-lane thread ids within the CTA (x, y, z).
    pub tid: [[u32; LANES]; 3],
    /// Predicates P0..P6 as lane masks; `preds[7]` (PT) is always all ones.
    pub preds: [u32; 8],
    /// Condition code as lane masks: `cc[CF]`, `cc[ZF]`, `cc[SF]`, `cc[OF]`.
    pub cc: [u32; 4],
    /// Lanes executing now.
    pub active: u32,
    /// Lanes that have executed EXIT (or never existed).
    pub exited: u32,
    /// CTA id (x, y, z).
    pub ctaid: [u32; 3],
    /// Warp index within its CTA.
    pub warp_id: u32,
    /// The warp's clock: warp instructions it issued before the next one (docs/semantics.md
    /// §22d). Set by the dispatcher at each block start, advanced by the engines within a block.
    pub clock: u64,
    /// The result of the last `BAR.RED` the warp was released from (the count for `.POPC`, 0
    /// or 1 for `.AND`/`.OR`), what `B2R.RESULT` reads; 0 at launch.
    pub bar_result: u32,
}

impl WarpState {
    /// A fresh warp: registers, predicates and CC clear, `live` lanes active.
    pub fn new_boxed(live: u32) -> Box<WarpState> {
        // Built on the heap directly: the state is 33 KiB.
        let mut w: Box<WarpState> = Box::new(WarpState {
            regs: [[0; LANES]; REGS],
            lea_lo: [0; LANES],
            tid: [[0; LANES]; 3],
            preds: [0; 8],
            cc: [0; 4],
            active: 0,
            exited: 0,
            ctaid: [0; 3],
            warp_id: 0,
            clock: 0,
            bar_result: 0,
        });
        w.reset(live);
        w
    }

    /// Clears the state for a new warp with `live` lanes.
    pub fn reset(&mut self, live: u32) {
        for r in self.regs.iter_mut() {
            *r = [0; LANES];
        }
        self.lea_lo = [0; LANES];
        self.preds = [0, 0, 0, 0, 0, 0, 0, u32::MAX];
        self.cc = [0; 4];
        self.active = live;
        self.exited = !live;
        self.clock = 0;
        self.bar_result = 0;
    }

    /// Reads predicate `p` as a lane mask (`PT` = all lanes).
    #[inline]
    pub fn pred(&self, p: u8) -> u32 {
        self.preds[p as usize & 7]
    }

    /// Writes predicate `p` for the lanes in `mask` (writes to `PT` are ignored).
    #[inline]
    pub fn set_pred(&mut self, p: u8, mask: u32, value: u32) {
        if p < 7 {
            let slot = &mut self.preds[p as usize];
            *slot = (*slot & !mask) | (value & mask);
        }
    }

    /// Writes a CC flag for the lanes in `mask`.
    #[inline]
    pub fn set_flag(&mut self, flag: usize, mask: u32, value: u32) {
        self.cc[flag] = (self.cc[flag] & !mask) | (value & mask);
    }
}
