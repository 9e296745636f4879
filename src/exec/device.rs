//! The device warpjit models where a launch's outcome depends on how many CTAs fit on a GPU at
//! once: a GeForce GTX 980 (GM204, compute capability 5.2), whose 16 SMs each hold up to 2048
//! threads, 32 CTAs, 65,536 registers and 96 KiB of shared memory.
//!
//! Only cooperative launches depend on it (docs/semantics.md §9): their CTAs must all be resident
//! at once, as CUDA's `cuLaunchCooperativeKernel` requires, so that CTAs can wait for each
//! other. [`CtaShape::per_sm`] is CUDA's occupancy calculation for this device.

use super::Launch;

/// Streaming multiprocessors.
pub const SMS: u64 = 16;
/// Threads one SM holds.
pub const THREADS_PER_SM: u64 = 2048;
/// CTAs one SM holds.
pub const CTAS_PER_SM: u64 = 32;
/// 32-bit registers of one SM.
pub const REGISTERS_PER_SM: u64 = 65_536;
/// Registers are given to warps in units of this many (8 per thread).
pub const REGISTER_UNIT: u64 = 256;
/// Shared memory of one SM, in bytes.
pub const SHARED_PER_SM: u64 = 96 << 10;
/// Shared memory is given to CTAs in units of this many bytes.
pub const SHARED_UNIT: u64 = 256;
/// Local memory warpjit keeps for the CTAs of one cooperative launch at once (a launch whose
/// resident CTAs would need more has fewer resident: [`CtaShape::resident`]).
pub const COOPERATIVE_LOCAL_BYTES: u64 = 512 << 20;

/// What decides how many CTAs of a launch fit on an SM: its shape and resources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtaShape {
    /// Threads per CTA.
    pub threads: u64,
    /// Registers per thread (the program's register count).
    pub registers: u32,
    /// Shared memory per CTA, in bytes.
    pub shared_bytes: u32,
    /// Local memory per thread, in bytes.
    pub local_bytes: u32,
}

impl CtaShape {
    /// The shape of `launch`'s CTAs.
    pub fn of(launch: &Launch) -> CtaShape {
        CtaShape {
            threads: launch.threads_per_cta(),
            registers: launch.program.registers,
            shared_bytes: launch.shared_bytes,
            local_bytes: launch.local_bytes,
        }
    }

    /// How many such CTAs one SM holds at once: the fewest its threads (in whole warps),
    /// registers (given to each warp in units of [`REGISTER_UNIT`]), shared memory (in units
    /// of [`SHARED_UNIT`]) and [`CTAS_PER_SM`] allow. 0 when one CTA needs more than an SM has.
    pub fn per_sm(&self) -> u64 {
        let warps = self.threads.div_ceil(32).max(1);
        let by_threads = THREADS_PER_SM / 32 / warps;
        let per_warp = (self.registers as u64 * 32).div_ceil(REGISTER_UNIT) * REGISTER_UNIT;
        let by_registers = REGISTERS_PER_SM
            .checked_div(per_warp * warps)
            .unwrap_or(u64::MAX);
        let shared = (self.shared_bytes as u64).div_ceil(SHARED_UNIT) * SHARED_UNIT;
        let by_shared = SHARED_PER_SM.checked_div(shared).unwrap_or(u64::MAX);
        CTAS_PER_SM.min(by_threads).min(by_registers).min(by_shared)
    }

    /// How many such CTAs the device holds at once: [`SMS`] × [`CtaShape::per_sm`], and no
    /// more than [`COOPERATIVE_LOCAL_BYTES`] of local memory hold (at least one CTA when the
    /// others allow one). A cooperative launch may have at most this many CTAs.
    pub fn resident(&self) -> u64 {
        let n = SMS * self.per_sm();
        let local = self.threads.div_ceil(32) * 32 * self.local_bytes as u64;
        match COOPERATIVE_LOCAL_BYTES.checked_div(local) {
            Some(by_local) => n.min(by_local.max(1)),
            None => n,
        }
    }
}

/// How many CTAs of `launch` the device holds at once ([`CtaShape::resident`]).
pub fn resident_ctas(launch: &Launch) -> u64 {
    CtaShape::of(launch).resident()
}
