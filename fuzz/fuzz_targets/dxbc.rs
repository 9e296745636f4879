//! The DXBC front-end from arbitrary bytes: a listing (text) or a container (`DXBC` magic) must
//! compile to a program or give a located diagnostic, never panic. For a container that reads,
//! its listing must read back to the same program and assemble back to a container that reads
//! the same (`decode(encode(x)) == x`); the lowering must accept or refuse it with a diagnostic.
//!
//! Run (nightly): `cargo +nightly fuzz run dxbc fuzz/corpus/dxbc fuzz/seeds/dxbc` (see
//! fuzz/README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpjit::dxbc::{container, text};
use warpjit::frontend::{compile, Options};
use warpjit::ir::Isa;

fuzz_target!(|data: &[u8]| {
    let opts = Options {
        isa: Isa::Dxbc,
        registers: 255,
        path: "fuzz.dxbc".into(),
        kernel: None,
    };
    if let Err(d) = compile(data, &opts) {
        // A diagnostic renders (bounded) without panicking.
        let _ = d.render(false);
    }
    if let Ok(p) = container::read_program(data) {
        let listing = text::print(&p);
        let back = text::parse(&listing).expect("a printed listing reads back");
        assert_eq!(back, p, "print then parse is the identity");
        if let Ok(bytes) = container::write_program(&p) {
            let again = container::read_program(&bytes).expect("a written container reads");
            assert_eq!(again, p, "encode then decode is the identity");
        }
    } else if let Ok(s) = std::str::from_utf8(data) {
        if let Ok(p) = text::parse(s) {
            let back = text::parse(&text::print(&p)).expect("a printed listing reads back");
            assert_eq!(back, p, "print then parse is the identity");
        }
    }
});
