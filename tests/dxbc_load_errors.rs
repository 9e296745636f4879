//! Every load error of the DXBC lowering, each from a small listing: the error names the
//! listing's line and column and says why (exit 2 from `warpjit run`). The messages are the
//! project's wording, written here by hand.

use warpjit::frontend::{compile, Options};
use warpjit::ir::Isa;

/// The headline of the error `listing` gives (it must not lower).
fn error(listing: &str) -> String {
    let opts = Options {
        isa: Isa::Dxbc,
        registers: 255,
        path: "k.asm".into(),
        kernel: None,
    };
    match compile(listing.as_bytes(), &opts) {
        Ok(_) => panic!("lowered:\n{listing}"),
        Err(d) => d.headline(),
    }
}

/// A compute shader with `decls` and `body` (the body starts at line 3 + the declaration lines).
fn cs(decls: &str, body: &str) -> String {
    format!("cs_5_0\ndcl_thread_group 1, 1, 1\n{decls}{body}")
}

#[test]
fn every_lowering_error_is_located_and_explained() {
    let cases: Vec<(String, &str)> = vec![
        // Stages and declarations.
        ("hs_5_0\nret\n".into(), "1:1: error: hull shaders (tessellation) are not supported: warpjit runs compute, vertex, geometry and pixel shaders"),
        ("ds_5_0\nret\n".into(), "1:1: error: domain shaders (tessellation) are not supported: warpjit runs compute, vertex, geometry and pixel shaders"),
        ("cs_5_0\nret\n".into(), "1:1: error: a compute shader needs `dcl_thread_group x, y, z`"),
        ("gs_4_0\ndcl_inputprimitive point\nret\n".into(), "1:1: error: a geometry shader needs `dcl_maxout n` (1 to 1024)"),
        (cs("dcl_indexableTemp x0[2], 4\ndcl_indexableTemp x0[2], 4\n", "ret\n"), "4:1: error: x0 is declared twice"),
        ("cs_5_0\ndcl_thread_group 1024, 1, 1\ndcl_indexableTemp x0[4096], 4\nret\n".into(), "3:1: error: x0[4096] for 1024 threads needs 67108864 bytes, more than the 16 MiB of shared memory that holds the g# and x# arrays"),
        ("vs_5_0\ndcl_input v31.x\ndcl_output o31.x\nret\n".into(), "1:1: error: 32 inputs and 32 outputs need 256 registers (4 each); warpjit gives a program 255, of which 59 are its own"),
        // Registers.
        (cs("dcl_temps 1\n", "mov r1.x, l(0)\n"), "4:1: error: r1 is not declared (dcl_temps 1)"),
        (cs("dcl_temps 1\n", "mov r0.x, x0[0].x\n"), "4:1: error: x0 is not declared (dcl_indexableTemp)"),
        (cs("dcl_temps 1\n", "mov r0.x, icb[0].x\n"), "4:1: error: icb is read without dcl_immediateConstantBuffer"),
        (cs("dcl_temps 1\n", "mov r0.x, cb1[r0.x + 0].x\n"), "4:1: error: cb1 is not declared"),
        (cs("dcl_temps 1\n", "mov r0.x, cb14[0].x\n"), "4:1: error: constant buffer slot out of range (cb0 to cb13)"),
        (cs("dcl_temps 1\n", "mov r0.x, cb0[4096].x\n"), "4:1: error: constant buffer index out of range (at most 4095)"),
        (cs("dcl_temps 1\n", "mov l(1), r0.x\n"), "4:1: error: a literal cannot be a destination"),
        (cs("dcl_temps 1\n", "iadd r0.x, |r0.x|, l(1)\n"), "4:1: error: `|x|` on an integer operand"),
        (cs("dcl_temps 1\n", "mov r0.x, vPrim\n"), "4:1: error: vPrim is not declared (dcl_input vPrim)"),
        (cs("dcl_input vCoverage\n", "ret\n"), "1:1: error: a compute shader has no vCoverage"),
        (cs("dcl_temps 1\n", "mov oDepth, r0.x\n"), "4:1: error: oDepth is not declared (dcl_output oDepth)"),
        ("gs_4_0\ndcl_inputprimitive point\ndcl_maxout 1\ndcl_temps 1\nmov r0.x, vCoverage.x\nret\n".into(), "5:1: error: a geometry shader has no vCoverage"),
        (cs("dcl_temps 1\n", "mov r0.x, v[0][0].x\n"), "4:1: error: `v[vertex][reg]` is a geometry shader's input"),
        ("vs_5_0\ndcl_output o0.xyzw\nmov o1.xyzw, l(0,0,0,0)\nret\n".into(), "3:1: error: o1 is not declared"),
        ("vs_5_0\ndcl_input v0.x\nmov r0.x, v1.x\nret\n".into(), "3:1: error: r0 is not declared (dcl_temps 0)"),
        ("vs_5_0\ndcl_temps 1\ndcl_input v0.x\nmov r0.x, v1.x\nret\n".into(), "4:1: error: an input register v# that is not declared"),
        // Operand counts.
        (cs("dcl_temps 1\n", "mov r0.x\n"), "4:1: error: `mov` takes a destination and 1 source operands, not 1 operands"),
        (cs("dcl_temps 1\n", "dp3 r0.x, r0.xyzx\n"), "4:1: error: a dot product takes one destination and two sources"),
        // Control flow.
        (cs("", "else\n"), "3:1: error: `else` without `if`"),
        (cs("dcl_temps 1\n", "if_nz r0.x\nelse\nelse\nendif\n"), "6:1: error: a second `else` for one `if`"),
        (cs("", "endif\n"), "3:1: error: `endif` without `if`"),
        (cs("", "endloop\n"), "3:1: error: `endloop` without `loop`"),
        (cs("", "break\n"), "3:1: error: `break` outside a loop or switch"),
        (cs("", "continue\n"), "3:1: error: `continue` outside a loop"),
        (cs("", "case l(0)\n"), "3:1: error: `case` or `default` outside a switch"),
        (cs("", "endswitch\n"), "3:1: error: `endswitch` without `switch`"),
        (cs("dcl_temps 1\n", "switch r0.x\ncase l(1)\ncase l(1)\nbreak\nendswitch\n"), "6:1: error: a case value or `default` repeated in one switch"),
        (cs("dcl_temps 1\n", "if_nz r0.x\nret\n"), "5:1: error: an `if` without its `endif`"),
        (cs("", "loop\n"), "3:1: error: a `loop` without its `endloop`"),
        (cs("", "emit\n"), "3:1: error: `emit` is a geometry shader instruction"),
        (cs("", "cut\n"), "3:1: error: `cut` is a geometry shader instruction"),
        (cs("", "discard_nz l(1)\n"), "3:1: error: `discard` is a pixel shader instruction"),
        // Sampling.
        (cs("dcl_sampler s0, mode_default\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_temps 1\n", "sample r0.xyzw, r0.xyxx, t0.xyzw, s0\n"), "6:1: error: `sample` needs an implicit LOD (derivatives of the coordinates), which only a pixel shader's 2x2 quads have; a compute shader samples with `sample_l`, `sample_d`, `sample_c_lz` or `gather4` (Direct3D allows implicit derivatives outside pixel shaders from shader model 6.6 only)"),
        ("vs_5_0\ndcl_temps 1\nderiv_rtx_coarse r0.x, r0.x\nret\n".into(), "3:1: error: `deriv_rtx_coarse` needs a derivative, which only a pixel shader's 2x2 quads have; a vertex shader samples with `sample_l`, `sample_d`, `sample_c_lz` or `gather4` (Direct3D allows implicit derivatives outside pixel shaders from shader model 6.6 only)"),
        (cs("dcl_resource_texture2d (float,float,float,float) t0\ndcl_temps 1\n", "sample_l r0.xyzw, r0.xyxx, t0.xyzw, s0, l(0)\n"), "5:1: error: s0 is not declared (dcl_sampler)"),
        (cs("dcl_sampler s0, mode_default\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_temps 1\n", "sample_c_lz r0.x, r0.xyxx, t0.xxxx, s0, l(0.5)\n"), "6:1: error: `sample_c_lz` needs a sampler declared mode_comparison, and s0 is declared mode_default"),
        (cs("dcl_sampler s0, mode_comparison\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_temps 1\n", "sample_l r0.xyzw, r0.xyxx, t0.xyzw, s0, l(0)\n"), "6:1: error: `sample_l` needs a sampler declared mode_default, and s0 is declared mode_comparison"),
        (cs("dcl_sampler s0, mode_default\ndcl_resource_texture3d (float,float,float,float) t0\ndcl_temps 1\n", "gather4 r0.xyzw, r0.xyzx, t0.xyzw, s0.x\n"), "6:1: error: `gather4` gathers from a 2D texture, a cube, or an array of them (this view is Tex3d)"),
        (cs("dcl_sampler s0, mode_default\ndcl_resource_texturecube (float,float,float,float) t0\ndcl_temps 1\n", "gather4_po r0.xyzw, r0.xyzx, l(1, 0, 0, 0), t0.xyzw, s0.x\n"), "6:1: error: `gather4_po` gathers from a 2D texture or 2D array (this view is Cube)"),
        (cs("dcl_sampler s0, mode_default\ndcl_resource_texture2dms(4) (float,float,float,float) t0\ndcl_temps 1\n", "sample_l r0.xyzw, r0.xyxx, t0.xyzw, s0, l(0)\n"), "6:1: error: `sample_l` samples a t# texture that is not multisampled (1D, 2D, 3D, cube or an array of them)"),
        (cs("dcl_sampler s0, mode_default\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_temps 1\n", "sample_l r0.xyzw, r0.xyxx, t0.xyzw, s0\n"), "6:1: error: `sample_l` takes 5 operands"),
        (cs("dcl_resource_texturecube (float,float,float,float) t0\ndcl_temps 1\n", "ld r0.xyzw, r0.xyzw, t0.xyzw\n"), "5:1: error: `ld` cannot read a cube texture (Direct3D's `ld` reads every texture but cubes: sample it, or view it as a 2D array)"),
        // Resources.
        (cs("dcl_temps 1\n", "ld_structured r0.x, l(0), l(0), t0.xxxx\n"), "4:1: error: t0 is not declared"),
        (cs("dcl_resource_raw t0\ndcl_temps 1\n", "ld_structured r0.x, l(0), l(0), t0.xxxx\n"), "5:1: error: `ld_structured` needs a structured view"),
        (cs("dcl_resource_structured t0, 4\ndcl_temps 1\n", "store_structured t0.x, l(0), l(0), r0.x\n"), "5:1: error: a t# view is read only"),
        (cs("dcl_resource_structured t0, 4\ndcl_temps 1\n", "atomic_iadd t0, l(0), l(1)\n"), "5:1: error: an atomic needs a u# or g# view"),
        (cs("dcl_uav_raw u0\ndcl_temps 1\n", "imm_atomic_alloc r0.x, u0\n"), "5:1: error: `imm_atomic_alloc` needs a structured u# view (its hidden counter)"),
        (cs("dcl_resource_texture2d (float,float,float,float) t0\ndcl_temps 1\n", "ldms r0.xyzw, r0.xyzw, t0.xyzw, l(0)\n"), "5:1: error: `ldms` reads a multisampled texture"),
        (cs("dcl_resource_texture2dms(4) (float,float,float,float) t0\ndcl_temps 1\n", "ld r0.xyzw, r0.xyzw, t0.xyzw\n"), "5:1: error: a multisampled texture is read with `ldms`"),
        ("cs_4_0\ndcl_thread_group 1, 1, 1\ndcl_resource_texture2dms(4) (float,float,float,float) t0\ndcl_temps 1\nldms r0.xyzw, r0.xyzw, t0.xyzw, l(0)\nret\n".into(), "5:1: error: `ldms` needs shader model 4.1 or later (4.0 in a pixel shader); this program is cs_4_0"),
        (cs("dcl_uav_typed_texture2d (float,float,float,float) u0\ndcl_temps 1\n", "bufinfo r0.x, u0\n"), "5:1: error: `bufinfo` does not apply to that view"),
    ];
    let mut failures = Vec::new();
    for (listing, want) in &cases {
        let got = error(listing);
        let want = format!("k.asm:{want}");
        if got != want {
            failures.push(format!("{listing}\n  want {want}\n  got  {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A misspelt instruction gets a "did you mean", with its modifiers kept, as SASS does; a word
/// that is nothing like an instruction gets none.
#[test]
fn a_misspelt_instruction_gets_a_suggestion() {
    let help = |listing: &str| -> Vec<String> {
        let opts = Options {
            isa: Isa::Dxbc,
            registers: 255,
            path: "k.asm".into(),
            kernel: None,
        };
        match compile(listing.as_bytes(), &opts) {
            Ok(_) => panic!("lowered:\n{listing}"),
            Err(d) => d.notes.iter().map(|n| n.message.clone()).collect(),
        }
    };
    let body = |inst: &str| cs("dcl_temps 1\n", &format!("{inst}\nret\n"));
    assert_eq!(
        error(&body("mull r0.x, r0.x, r0.x")),
        "k.asm:4:1: error: unknown instruction `mull`"
    );
    assert_eq!(
        help(&body("mull r0.x, r0.x, r0.x")),
        ["did you mean `mul`?"]
    );
    assert_eq!(
        help(&body("ld_strutured_indexable(structured_buffer, stride=4)(mixed,mixed,mixed,mixed) r0.x, l(0), l(0), t0.xxxx")),
        ["did you mean `ld_structured_indexable(structured_buffer, stride=4)(mixed,mixed,mixed,mixed)`?"]
    );
    assert_eq!(
        help(&body("imadd_sat r0.x, r0.x, r0.x, r0.x")),
        ["did you mean `imad_sat`?"]
    );
    assert!(help(&body("qqqqqqqq r0.x")).is_empty());
}
