//! The runtime routines compiled code calls, defined once: each [`Helper`]'s symbol, address
//! and signature come from the one table below, which the module registration
//! (`JITBuilder::symbol`), the declarations and the per-function imports all expand.
//!
//! A function imports only the helpers it calls, on first use ([`crate::jit::codegen::Tx`]
//! keeps the imports): Cranelift lowers the ABI of every signature a function imports, used or
//! not, and importing all of them (sixteen, when it was measured) cost about a quarter of
//! compiling a small block.

use super::{abi, fp, lanes, sample, view, warp};
use cranelift_codegen::ir::{types, AbiParam, Signature, Type};

/// The shape of a helper's signature (`ptr` is the host pointer type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `(w, jcx, inst, mask) -> fault`.
    Exec,
    /// `(w, jcx, inst, mask, slot) -> fault`.
    MemSlow,
    /// `(jcx, w, exec, slot, offset, access) -> fault`.
    Lanes,
    /// `(jcx, op, mask, area)`.
    View,
    /// `(jcx, op, mask, area) -> fault`.
    ViewFault,
}

impl Shape {
    /// The parameters and results, `ptr` standing for the pointer type.
    pub fn signature(self, mut sig: Signature, ptr: Type) -> Signature {
        let (p, w) = (AbiParam::new(ptr), AbiParam::new(types::I32));
        let (params, ret): (&[AbiParam], bool) = match self {
            Shape::Exec => (&[p, p, p, w], true),
            Shape::MemSlow => (&[p, p, p, w, w], true),
            Shape::Lanes => (&[p, p, w, w, w, w], true),
            Shape::View => (&[p, p, w, p], false),
            Shape::ViewFault => (&[p, p, w, p], true),
        };
        sig.params.extend_from_slice(params);
        if ret {
            sig.returns.push(w);
        }
        sig
    }
}

macro_rules! helpers {
    ($($(#[$doc:meta])* $name:ident = $sym:literal, $addr:path, $shape:ident;)*) => {
        /// A runtime routine compiled code calls.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Helper {
            $($(#[$doc])* $name,)*
        }

        impl Helper {
            /// Every helper, in declaration order (`h as usize` indexes it).
            pub const ALL: &'static [Helper] = &[$(Helper::$name,)*];

            /// The symbol it is registered and imported by.
            pub fn symbol(self) -> &'static str {
                match self {
                    $(Helper::$name => $sym,)*
                }
            }

            /// Its address in this process.
            pub fn address(self) -> *const u8 {
                match self {
                    $(Helper::$name => $addr as *const u8,)*
                }
            }

            /// Its signature's shape.
            pub fn shape(self) -> Shape {
                match self {
                    $(Helper::$name => Shape::$shape,)*
                }
            }
        }
    };
}

helpers! {
    /// One instruction by the interpreter's code (`jit::abi`).
    ExecInst = "warpjit_jit_exec_inst", abi::warpjit_jit_exec_inst, Exec;
    /// Tier 1's indexed LDC (`jit::abi`).
    Ldc = "warpjit_jit_ldc", abi::warpjit_jit_ldc, Exec;
    /// A memory access's slow path (`jit::abi`).
    MemSlow = "warpjit_jit_mem_slow", abi::warpjit_jit_mem_slow, MemSlow;
    /// The lane routine of memory instructions (`jit::lanes`).
    Lanes = "warpjit_jit_lanes", lanes::warpjit_jit_lanes, Lanes;
    /// The buffer-view load routine (`jit::view`).
    LdBuf = "warpjit_jit_ld_buf", view::warpjit_jit_ld_buf, View;
    /// The buffer-view store routine.
    StBuf = "warpjit_jit_st_buf", view::warpjit_jit_st_buf, View;
    /// The texture-load routine.
    LdTex = "warpjit_jit_ld_tex", view::warpjit_jit_ld_tex, View;
    /// The typed-store routine.
    StTex = "warpjit_jit_st_tex", view::warpjit_jit_st_tex, View;
    /// The view-atomic routine.
    ViewAtom = "warpjit_jit_view_atom", view::warpjit_jit_view_atom, View;
    /// The view-query routine.
    Info = "warpjit_jit_info", view::warpjit_jit_info, View;
    /// The one-operand function ops not written as vector code (`jit::view`).
    Un = "warpjit_jit_un", view::warpjit_jit_un, View;
    /// As `Un`, for two operands.
    Bin = "warpjit_jit_bin", view::warpjit_jit_bin, View;
    /// As `Un`, for three operands.
    Tern = "warpjit_jit_tern", view::warpjit_jit_tern, View;
    /// The conversion and binary64 routine (`jit::fp`).
    Fp = "warpjit_jit_fp", fp::warpjit_jit_fp, View;
    /// The lane routine of the ops not written as vector code: float ops in a directed
    /// rounding mode and MUFU, per-lane shifts and bit fields, PRMT by a register, P2R.
    LaneOp = "warpjit_jit_lane_op", view::warpjit_jit_lane_op, View;
    /// The atomics' routine (`jit::warp`).
    Atom = "warpjit_jit_atom", warp::warpjit_jit_atom, ViewFault;
    /// The SHFL routine (`jit::warp`).
    Shfl = "warpjit_jit_shfl", warp::warpjit_jit_shfl, View;
    /// The texture-sampling routine (`jit::sample`).
    Sample = "warpjit_jit_sample", sample::warpjit_jit_sample, View;
    /// The screen-space derivative routine (`jit::sample`).
    Deriv = "warpjit_jit_deriv", sample::warpjit_jit_deriv, View;
}

/// A helper as a function imports it: its declaration's index in the module and signature.
#[derive(Clone, Debug)]
pub struct Declared {
    /// The module's function id (`FuncId::as_u32`).
    pub index: u32,
    /// The signature it was declared with.
    pub sig: Signature,
}
