//! What both engines share below the op semantics: the shared-window test.

use crate::SHARED_WINDOW_SIZE;

/// The shared-window detect of LEA and generic LD/ST: whether `ea` lies in
/// `[window, window + 16 MiB)`. LEA's form of it (with the 32-bit effective address of `.LO`
/// and the 64-bit one of `.HI`) is `warpjit::semantics::lea_outside_window`, which the
/// interpreter calls and the JIT mirrors.
#[inline(always)]
pub fn window_detect(window: u64, ea: u64) -> bool {
    ea.wrapping_sub(window) < SHARED_WINDOW_SIZE
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
}
