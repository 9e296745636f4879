//! Device `printf` (`vprintf`) and `assert` (`__assertfail`), which the driver supplies to
//! kernels: the engines run the calls as host calls (docs/semantics.md §22g) that leave one
//! record per lane in the machine's [`HostOutput`]; when a launch completes, [`flush`] writes
//! them, `printf`'s to the process's stdout and assertions' to its stderr, in CTA, warp, call,
//! lane order.

use std::io::Write;
use warpjit::exec::hostcall::{HostOutput, HostStream};

/// Writes and empties what the launch's host calls printed. Records that did not fit in the
/// buffer (`CU_LIMIT_PRINTF_FIFO_SIZE`) are lost, as on a GPU; with `WARPJIT_CUDA_LOG=1` their
/// number is logged.
pub fn flush(out: &HostOutput) {
    let (records, dropped) = out.take();
    if records.is_empty() && dropped == 0 {
        return;
    }
    let (mut o, mut e) = (std::io::stdout().lock(), std::io::stderr().lock());
    for r in &records {
        // Write errors (a closed stdout) are the program's business, not the kernel's.
        let _ = match r.stream {
            HostStream::Stdout => o.write_all(&r.text),
            HostStream::Stderr => e.write_all(&r.text),
        };
    }
    let _ = o.flush();
    let _ = e.flush();
    if dropped > 0 && crate::entry::log_enabled() {
        crate::entry::log_line(&format!(
            "printf: {dropped} records dropped (the buffer holds {} bytes)",
            out.limit()
        ));
    }
}
