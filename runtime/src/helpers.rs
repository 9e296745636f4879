//! What both engines share below the op semantics: the shared-window test and the C-layout
//! fault slot that compiled code records a fault in.

use crate::fault::FaultKind;
use crate::SHARED_WINDOW_SIZE;

/// The shared-window detect of LEA and generic LD/ST: whether `ea` lies in
/// `[window, window + 16 MiB)`. Inlined by the interpreter; JIT code computes the same test
/// inline.
#[inline(always)]
pub fn window_detect(window: u64, ea: u64) -> bool {
    ea.wrapping_sub(window) < SHARED_WINDOW_SIZE
}

/// Where JIT code and the interpreter record a fault: a C-layout slot, decoded with
/// [`FaultSlot::kind`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultSlot {
    /// Non-zero once a fault is recorded (the first fault wins).
    pub raised: u32,
    /// Fault code (see [`FaultSlot::kind`]).
    pub code: u32,
    /// Faulting lane.
    pub lane: u32,
    /// Faulting pc.
    pub pc: u32,
    /// First argument (address or offset).
    pub a: u64,
    /// Second argument (size).
    pub b: u64,
    /// Third argument (bank or limit).
    pub c: u64,
}

/// Fault codes of [`FaultSlot`].
pub mod code {
    /// [`FaultKind::IllegalAddress`](crate::FaultKind::IllegalAddress): a = addr, b = size.
    pub const ILLEGAL_ADDRESS: u32 = 1;
    /// [`FaultKind::MisalignedConstant`](crate::FaultKind::MisalignedConstant): a = addr, b = size,
    /// c = bank.
    pub const MISALIGNED_CONSTANT: u32 = 2;
    /// [`FaultKind::SharedOutOfRange`](crate::FaultKind::SharedOutOfRange): a = offset, b = size,
    /// c = shared_bytes.
    pub const SHARED_OUT_OF_RANGE: u32 = 3;
    /// [`FaultKind::BudgetExhausted`](crate::FaultKind::BudgetExhausted): a = budget, b = 1 for
    /// the launch budget (0 for the per-warp one), c = CTAs.
    pub const BUDGET: u32 = 4;
    /// [`FaultKind::StackOverflow`](crate::FaultKind::StackOverflow): a = depth.
    pub const STACK_OVERFLOW: u32 = 5;
    /// [`FaultKind::BarrierDeadlock`](crate::FaultKind::BarrierDeadlock): a = barrier.
    pub const BARRIER_DEADLOCK: u32 = 6;
}

impl FaultSlot {
    /// Decodes the recorded fault kind, `None` if nothing (or an unknown code) was recorded.
    pub fn kind(&self) -> Option<FaultKind> {
        if self.raised == 0 {
            return None;
        }
        Some(match self.code {
            code::ILLEGAL_ADDRESS => FaultKind::IllegalAddress {
                addr: self.a,
                size: self.b as u32,
            },
            code::MISALIGNED_CONSTANT => FaultKind::MisalignedConstant {
                bank: self.c as u32,
                addr: self.a as u32,
                size: self.b as u32,
            },
            code::SHARED_OUT_OF_RANGE => FaultKind::SharedOutOfRange {
                offset: self.a,
                size: self.b as u32,
                shared_bytes: self.c as u32,
            },
            code::BUDGET => FaultKind::BudgetExhausted {
                budget: self.a,
                ctas: (self.b != 0).then_some(self.c),
            },
            code::STACK_OVERFLOW => FaultKind::StackOverflow {
                depth: self.a as u32,
            },
            code::BARRIER_DEADLOCK => FaultKind::BarrierDeadlock {
                barrier: self.a as u32,
            },
            _ => return None,
        })
    }

    /// Encodes a fault kind.
    pub fn encode(kind: FaultKind, lane: u32, pc: u32) -> FaultSlot {
        let (code, a, b, c) = match kind {
            FaultKind::IllegalAddress { addr, size } => {
                (code::ILLEGAL_ADDRESS, addr, size as u64, 0)
            }
            FaultKind::MisalignedConstant { bank, addr, size } => (
                code::MISALIGNED_CONSTANT,
                addr as u64,
                size as u64,
                bank as u64,
            ),
            FaultKind::SharedOutOfRange {
                offset,
                size,
                shared_bytes,
            } => (
                code::SHARED_OUT_OF_RANGE,
                offset,
                size as u64,
                shared_bytes as u64,
            ),
            FaultKind::BudgetExhausted { budget, ctas } => (
                code::BUDGET,
                budget,
                ctas.is_some() as u64,
                ctas.unwrap_or(0),
            ),
            FaultKind::StackOverflow { depth } => (code::STACK_OVERFLOW, depth as u64, 0, 0),
            FaultKind::BarrierDeadlock { barrier } => {
                (code::BARRIER_DEADLOCK, barrier as u64, 0, 0)
            }
        };
        FaultSlot {
            raised: 1,
            code,
            lane,
            pc,
            a,
            b,
            c,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_detect_bounds() {
        let w = 0x0100_0000;
        assert!(window_detect(w, w));
        assert!(window_detect(w, w + 0xff_ffff));
        assert!(!window_detect(w, w + 0x100_0000));
        assert!(!window_detect(w, w - 1));
        // The window may lie at the top of the space; nothing wraps into it from 0.
        let top = u64::MAX - 0xff_ffff;
        assert!(window_detect(top, u64::MAX));
        assert!(!window_detect(top, 0));
    }

    #[test]
    fn fault_slot_round_trip() {
        for k in [
            FaultKind::IllegalAddress {
                addr: 0xdead_0000_0000,
                size: 8,
            },
            FaultKind::MisalignedConstant {
                bank: 3,
                addr: 0x402,
                size: 4,
            },
            FaultKind::SharedOutOfRange {
                offset: u64::MAX,
                size: 4,
                shared_bytes: 256,
            },
            FaultKind::BudgetExhausted {
                budget: 1000,
                ctas: None,
            },
            FaultKind::BudgetExhausted {
                budget: 1 << 30,
                ctas: Some(4096),
            },
            FaultKind::StackOverflow { depth: 64 },
            FaultKind::BarrierDeadlock { barrier: 2 },
        ] {
            let t = FaultSlot::encode(k, 5, 0x18);
            assert_eq!(t.kind(), Some(k));
            assert_eq!((t.lane, t.pc), (5, 0x18));
        }
    }
}
