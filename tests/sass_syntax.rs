//! The SASS front-end's contract where Rust says it best: block construction (pcs, labels,
//! terminators), whole listings, error rendering, and the printing round trip as property tests.
//!
//! Single instructions (the accepted syntax of docs/semantics.md §2, §17–§19) and the assembler's
//! errors are text cases in tests/asm/*.sass, run by tests/asm.rs.

use proptest::prelude::*;
use proptest::sample::select;
use warpjit::ir::*;
use warpjit::sass::*;

// ---- helpers ---------------------------------------------------------------------------------

fn opts() -> AsmOptions {
    AsmOptions::default()
}

fn program(text: &str) -> Program {
    parse_program(text, &opts()).unwrap_or_else(|e| panic!("{}", e.render("test", 0)))
}

fn strip_inst(p: ParsedInst) -> ParsedInst {
    match p {
        ParsedInst::Op(i) => ParsedInst::Op(Inst {
            loc: SrcLoc::default(),
            ..i
        }),
        ParsedInst::Control(c) => ParsedInst::Control(Control {
            loc: SrcLoc::default(),
            ..c
        }),
    }
}

fn strip_program(mut p: Program) -> Program {
    for b in &mut p.blocks {
        for i in &mut b.insts {
            i.loc = SrcLoc::default();
        }
    }
    // Where each instruction is written (for fault reports) depends on the text's layout.
    p.lines.clear();
    p
}

const fn c(bank: u8, offset: u16) -> Src {
    Src::Const(ConstRef { bank, offset })
}

// ---- seeds -----------------------------------------------------------------------------------
//
// Single instructions (the seeds' LDC, LDG and LEA examples, every accepted form of operands and
// modifiers, and the errors) are text cases: tests/asm/*.sass, run by tests/asm.rs.

/// Every instruction line of the LEA page's examples (`Rd` substituted), as one listing.
const SEED_004: &str = r#"
LEA.LO        R0.CC, R2, R4, 3            ?WAIT6  ; // R0 = ( R2 << 3 )     + R4
LEA.HI.X  P0, R1,    R2, R5, R3, 3        ?WAIT13 ; // R1 = ({R3,R2} >> 29) + R5 + CC.CF
LD.64         R6, [R0 + 80], P0     &wr0  ?WAIT1  ;
BFE.S32       R3,     R2, 0x011f           ?WAIT1  ; // sign extend R2 into R3
LEA.LO        R0.CC, -R2, R4, 3            ?WAIT6  ; // R0 = ( -R2 << 3 )     + R4
LEA.HI.X  P0, R1,    -R2, R5, R3, 3        ?WAIT13 ; // R1 = (-{R3,R2} >> 29) + R5 + CC.CF
LD.64         R6, [R0 + 800], P0     &wr0  ?WAIT1  ;
LEA.LO        R0.CC, R2, c[0][0], 7            ?WAIT6  ; // R0 = ( R2 << 7 )     + c[0][0]
LEA.HI.X  P0, R1,    R2, c[0][4], 7            ?WAIT13 ; // R1 = ({RZ,R2} >> 25) + c[0][4] + CC.CF
LD.32         R7, [R0 + 20], P0          &wr0  ?WAIT1  ;
LEA.LO  P1, R10, R12, R2             ?WAIT13 ;  // R10 = ( R12 << 0 ) + R2 - 2
LD.U8       R7, [R10 - 2], P1  &wr0  ?WAIT1  ;
LEA.LO    R12.CC, R8, R0,      17 ?WAIT6 ;
LEA.HI.X  R13.CC, R8, R1, R9,  17 ?WAIT6 ;
LEA.HI.X  R14.CC, R9, R2, R10, 17 ?WAIT6 ;
LEA.HI.X  R15,   R10, R3, R11, 17        ;
"#;

#[test]
fn seed_004_lea_examples_are_one_block() {
    // Each line's value is a case of tests/asm/syntax.sass; here, the listing as a whole.
    let p = program(SEED_004);
    assert_eq!(p.blocks.len(), 1);
    assert_eq!(p.blocks[0].insts.len(), 16);
}

#[test]
fn scheduling_text_and_comments_are_ignored() {
    let a = program(
        "        /*0008*/                   MOV R1, c[0x0][0x20] ;          /* 0x4c98078000870001 */\n\
         \x20                                                                /* 0x001c7c00e22007f6 */\n\
         /*0010*/   { IADD R0, R0, R5 &req_6 &wr0 &rd1 ?WAIT6 ;  // dual issue\n\
         /*0018*/     SYNC ; }\n",
    );
    let b = program("MOV R1, c[0x0][0x20]\nIADD R0, R0, R5\nSYNC\n");
    assert_eq!(strip_program(a), strip_program(b));
}

#[test]
fn maxwell_layout_pcs() {
    let p = program("NOP\nNOP\nNOP\nNOP\nNOP\nNOP\nNOP\n");
    let pcs: Vec<u32> = p.blocks[0].insts.iter().map(|i| i.pc).collect();
    assert_eq!(pcs, [0x08, 0x10, 0x18, 0x28, 0x30, 0x38, 0x48]);
    assert_eq!(parse_inst("NOP", &opts()).map(|i| i.pc()), Ok(0x8));
    assert_eq!(
        parse_inst("/*01a8*/ NOP", &opts()).map(|i| i.pc()),
        Ok(0x1a8)
    );
}

#[test]
fn absolute_branch_targets() {
    // Maxwell layout: the 4th instruction is at 0x28.
    let p = program("BRA 0x28;\nNOP;\nNOP;\nEXIT;\n");
    assert_eq!(
        p.blocks[0].term,
        Terminator::Jump {
            target: 2,
            pc: Some(0x8)
        }
    );
    assert_eq!(p.blocks[2].pc, 0x28);
    // With address comments, those are the addresses.
    let p = program("/*0000*/ BRA 0x10;\n/*0008*/ NOP;\n/*0010*/ EXIT;\n");
    assert_eq!(
        p.blocks[0].term,
        Terminator::Jump {
            target: 2,
            pc: Some(0x0)
        }
    );
    assert_eq!(p.blocks[2].pc, 0x10);
}

#[test]
fn blocks_and_terminators() {
    let src = "\
        S2R R0, SR_TID.X;
        ISETP.GE.AND P0, PT, R0, 0x10, PT;
    @P0 BRA .L_1;
        SSY .L_2;
        BAR.SYNC 0x1;
        IADD R0, R0, 1;
    .L_2:
        SYNC;
    @P1 EXIT;
        BRA `(.L_2);
    .L_1:
        MOV R1, R0;
";
    let p = program(src);
    let t: Vec<Terminator> = p.blocks.iter().map(|b| b.term).collect();
    let p0 = Cond {
        guard: Guard(PredSrc {
            pred: Pred(0),
            neg: false,
        }),
        cc: None,
    };
    let p1 = Cond {
        guard: Guard(PredSrc {
            pred: Pred(1),
            neg: false,
        }),
        cc: None,
    };
    assert_eq!(
        t,
        [
            Terminator::Branch {
                cond: p0,
                taken: 7,
                fallthrough: 1,
                pc: 0x18
            },
            Terminator::Push {
                region: Region::Sync,
                target: 4,
                next: 2,
                pc: 0x28
            },
            Terminator::Barrier {
                id: 1,
                cond: Cond::ALWAYS,
                red: None,
                count: 0,
                arrive: false,
                next: 3,
                pc: 0x30
            },
            Terminator::Jump {
                target: 4,
                pc: None
            },
            Terminator::Wait {
                region: Region::Sync,
                cond: Cond::ALWAYS,
                next: 5,
                pc: 0x48
            },
            Terminator::Exit {
                cond: p1,
                next: Some(6),
                pc: Some(0x50)
            },
            Terminator::Jump {
                target: 4,
                pc: Some(0x58)
            },
            Terminator::Exit {
                cond: Cond::ALWAYS,
                next: None,
                pc: None
            },
        ]
    );
    assert_eq!(p.blocks[0].insts.len(), 2);
    assert_eq!(p.blocks[4].labels, [".L_2"]);
    assert_eq!(p.blocks[7].labels, [".L_1"]);
    assert_eq!(p.blocks[7].pc, 0x68);
    assert_eq!(p.blocks[3].pc, 0x38);
    assert_eq!(p.registers, 255);
}

#[test]
fn final_blocks() {
    // Unconditional EXIT at the end: no extra block.
    let p = program("NOP;\nEXIT;\n");
    assert_eq!(p.blocks.len(), 1);
    assert_eq!(
        p.blocks[0].term,
        Terminator::Exit {
            cond: Cond::ALWAYS,
            next: None,
            pc: Some(0x10)
        }
    );
    // A guarded EXIT at the end: the other lanes end too.
    let p = program("@P0 EXIT;");
    assert!(matches!(
        p.blocks[0].term,
        Terminator::Exit {
            next: None,
            pc: Some(0x8),
            ..
        }
    ));
    // A conditional branch at the end falls through to an implicit exit block.
    let p = program("loop:\n@P0 BRA loop;");
    assert_eq!(p.blocks.len(), 2);
    assert!(matches!(
        p.blocks[0].term,
        Terminator::Branch {
            taken: 0,
            fallthrough: 1,
            ..
        }
    ));
    assert_eq!(
        p.blocks[1].term,
        Terminator::Exit {
            cond: Cond::ALWAYS,
            next: None,
            pc: None
        }
    );
    assert_eq!(p.blocks[1].pc, 0x10);
    // A label at the end names an empty exit block.
    let p = program("BRA .L_end;\nNOP\nNOP\n.L_end:\n");
    assert_eq!(p.blocks.len(), 3);
    assert_eq!(p.blocks[2].labels, [".L_end"]);
    assert_eq!(p.blocks[2].pc, 0x28);
    assert_eq!(
        p.blocks[1].term,
        Terminator::Jump {
            target: 2,
            pc: None
        }
    );
    // An empty text is one empty block that exits.
    let p = program("// nothing\n");
    assert_eq!(p.blocks.len(), 1);
    assert_eq!(
        p.blocks[0].term,
        Terminator::Exit {
            cond: Cond::ALWAYS,
            next: None,
            pc: None
        }
    );
}

#[test]
fn instructions_without_semicolons_and_labels_on_their_own_line() {
    let a = program("  MOV R1, R2\n.L_1:\n  @P0 BRA .L_1\n  EXIT");
    let b = program("  MOV R1, R2;\n.L_1:\n  @P0 BRA .L_1;\n  EXIT;");
    assert_eq!(strip_program(a), strip_program(b));
}

#[test]
fn print_program_round_trips_a_kernel() {
    let src = "\
        /*0008*/ MOV R1, c[0x0][0x20];
        /*0010*/ S2R R0, SR_TID.X;
        /*0018*/ ISETP.GE.AND P0, PT, R0, c[0x0][0x148], PT;
        /*0028*/ @P0 EXIT;
        /*0030*/ SSY `(.L_1);
        /*0038*/ @P1 BRA 0x58;
        /*0048*/ LEA R2.CC, R0, c[0x0][0x140], 0x2;
        /*0050*/ LEA.HI.X R3, R0, c[0x0][0x144], RZ, 0x2;
        /*0058*/ LDG.E R4, [R2];
        /*0068*/ IADD32I R4, R4, 0x1;
        /*0070*/ STG.E [R2], R4;
        /*0078*/ SYNC;
.L_1:
        /*0088*/ BAR.SYNC 0x0;
        /*0090*/ EXIT;
.L_2:
        /*0098*/ BRA `(.L_2);
";
    let p1 = program(src);
    let t2 = print_program(&p1).unwrap();
    let p2 = program(&t2);
    assert_eq!(strip_program(p1.clone()), strip_program(p2.clone()));
    assert_eq!(print_program(&p2).unwrap(), t2);
    // The absolute branch prints as the target block's address.
    assert!(t2.contains("@P1 BRA 0x58;"), "{t2}");
    // And the same program without address comments (Maxwell layout) prints identically.
    let p3 = parse_program(&strip_addr_comments(src), &opts()).unwrap();
    assert_eq!(print_program(&p3).unwrap(), t2);
}

fn strip_addr_comments(s: &str) -> String {
    s.lines()
        .map(|l| match (l.find("/*"), l.find("*/")) {
            (Some(a), Some(b)) => format!("{}{}", &l[..a], &l[b + 2..]),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

// ---- errors ----------------------------------------------------------------------------------

#[test]
fn error_display_and_render() {
    // The error cases themselves are text: tests/asm/errors.sass, run by tests/asm.rs.
    let e = parse_program("NOP;\n  IADD.FOO R1, R2, R3;\n", &opts()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "2:7: error: unknown modifier `.FOO` for IADD"
    );
    assert_eq!(
        e.render("k.toml", 10),
        "k.toml:12:7: error: unknown modifier `.FOO` for IADD\n12 |   IADD.FOO R1, R2, R3;\n   |       ^\n   |\n   = note: modifiers of IADD: .SAT .PO .X .CC"
    );
    // Tabs in the line are shown as spaces, with the caret under the column.
    let e = parse_program("\tFOO;", &opts()).unwrap_err();
    assert_eq!(
        e.render("p", 0).lines().take(3).collect::<Vec<_>>(),
        [
            "p:1:2: error: unknown opcode `FOO`",
            "1 |     FOO;",
            "  |     ^"
        ]
    );
}

// ---- the round trip --------------------------------------------------------------------------

type S = BoxedStrategy<String>;

fn num(v: i64, style: u8) -> String {
    let (s, a) = (if v < 0 { "-" } else { "" }, v.unsigned_abs());
    match style {
        0 => format!("{s}{a:#x}"),
        1 => format!("{s}0x{a:X}"),
        _ => format!("{s}{a}"),
    }
}

fn imm(lo: i64, hi: i64) -> S {
    (lo..=hi, 0u8..3).prop_map(|(v, k)| num(v, k)).boxed()
}

/// A video instruction: `.UD`/`.SD` (or neither), two operand types, `minmax`, `.SAT`, a
/// secondary step, and operands whose selects fit their types (a byte type with `.B0`-`.B3` or
/// none, a half with `.H0`/`.H1` or none, a word with none); a 16-bit immediate `Sb` with a
/// half type.
fn video(name: &'static str, minmax: &'static [&'static str]) -> S {
    let ty = || {
        select(vec![
            ("U8", 0),
            ("S8", 0),
            ("U16", 1),
            ("S16", 1),
            ("U32", 2),
            ("S32", 2),
        ])
    };
    let sel = |w: usize| match w {
        0 => select(vec!["", ".B0", ".B1", ".B2", ".B3"]).boxed(),
        1 => select(vec!["", ".H0", ".H1"]).boxed(),
        _ => Just("").boxed(),
    };
    (
        select(vec!["", ".UD", ".SD"]),
        ty(),
        ty(),
        select(minmax.to_vec()),
        select(vec!["", ".SAT"]),
        select(vec![
            "", ".MRG_16H", ".MRG_16L", ".MRG_8B0", ".MRG_8B2", ".ACC", ".MIN", ".MAX",
        ]),
        (reg(), rreg(), rreg(), rreg(), any::<bool>(), 0..0x10000u32),
    )
        .prop_flat_map(
            move |(d, ta, tb, mm, sat, second, (rd, ra, rb, rc, imm, v))| {
                let b_imm = imm && tb.1 == 1;
                (sel(ta.1), sel(tb.1)).prop_map(move |(sa, sb)| {
                    let b = if b_imm {
                        format!("{v:#x}")
                    } else {
                        format!("{rb}{sb}")
                    };
                    format!(
                        "{name}{d}.{}.{}{mm}{sat}{second} {rd}, {ra}{sa}, {b}, {rc}",
                        ta.0, tb.0
                    )
                })
            },
        )
        .boxed()
}

fn imm20() -> S {
    prop_oneof![4 => imm(-0x80000, 0xfffff), 1 => imm(0xfff8_0000, 0xffff_ffff)].boxed()
}

fn any32() -> S {
    imm(-0x8000_0000, 0xffff_ffff)
}

fn reuse(s: S) -> S {
    (s, any::<bool>())
        .prop_map(|(s, r)| {
            if r && s != "RZ" {
                format!("{s}.reuse")
            } else {
                s
            }
        })
        .boxed()
}

/// A register group start aligned to `n` (1, 2, 4), or RZ.
fn wreg(n: u32) -> S {
    prop_oneof![10 => (0..=(255 - n) / n).prop_map(move |i| format!("R{}", i * n)), 1 => Just("RZ".to_string())]
        .boxed()
}

fn reg() -> S {
    wreg(1)
}

fn rreg() -> S {
    reuse(reg())
}

fn pred() -> S {
    (0u8..=7)
        .prop_map(|p| if p == 7 { "PT".into() } else { format!("P{p}") })
        .boxed()
}

fn psrc() -> S {
    pre("!", pred())
}

fn cref() -> S {
    (0i64..=31, 0i64..=0xffff, 0u8..3, 0u8..3)
        .prop_map(|(b, o, k1, k2)| format!("c[{}][{}]", num(b, k1), num(o, k2)))
        .boxed()
}

/// A binary32 immediate as text: the shortest decimal for finite values, else the bit pattern;
/// `low12` keeps the low 12 bits (else the value fits the 20-bit float forms).
fn fimm(low12: bool) -> S {
    any::<u32>()
        .prop_map(move |b| {
            let b = if low12 { b } else { b & 0xffff_f000 };
            let v = f32::from_bits(b);
            if v.is_finite() && b & 0x7fff_ffff >= 0x80_0000 || v == 0.0 {
                format!("{v:?}")
            } else if v.is_finite() {
                // A subnormal: decimal too (a bit pattern below 0x800000 is refused).
                format!("{v:e}")
            } else {
                format!("{b:#010x}")
            }
        })
        .boxed()
}

/// A float register or constant with a random `-`, `|x|` or `-|x|`.
fn fmodded(s: S) -> S {
    (s, 0u8..4)
        .prop_map(|(s, k)| match k {
            0 => s,
            1 => format!("-{s}"),
            2 => format!("|{s}|"),
            _ => format!("-|{s}|"),
        })
        .boxed()
}

/// A float Sb: a (modified) register or constant, or a 20-bit float immediate.
fn fsb() -> S {
    prop_oneof![fmodded(regc()), fimm(false)].boxed()
}

/// A float Sb with only negation allowed (FMUL, FFMA).
fn fsb_neg() -> S {
    prop_oneof![pre("-", regc()), fimm(false)].boxed()
}

const FCMPS: &[&str] = &[
    "F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU",
    "GEU", "T",
];
const FRNDS: &[&str] = &["", "RN", "RM", "RP", "RZ"];

fn src(i: S) -> S {
    prop_oneof![rreg(), cref(), i].boxed()
}

fn regc() -> S {
    prop_oneof![rreg(), cref()].boxed()
}

/// A binary64 immediate: the high word, with the low 12 bits clear.
fn dimm() -> S {
    (0u32..0x10_0000)
        .prop_map(|v| format!("{:#x}", v << 12))
        .boxed()
}

/// A constant whose offset is a multiple of 8 (a 64-bit constant operand).
fn dcref() -> S {
    (0i64..=31, 0i64..=0x1fff)
        .prop_map(|(b, o)| format!("c[{b:#x}][{:#x}]", o * 8))
        .boxed()
}

/// A binary64 `Sb`: a pair, an aligned constant or a float immediate.
fn dsrc() -> S {
    prop_oneof![wreg(2), dcref(), dimm()].boxed()
}

/// [`dsrc`] without immediates (a slot that takes `-`).
fn dsrc_nb() -> S {
    prop_oneof![wreg(2), dcref()].boxed()
}

/// `(prefix, operand)`: `-`, `|x|` or both on a register or constant, nothing on an immediate.
fn fmods(s: S) -> BoxedStrategy<(String, String)> {
    (s, any::<bool>(), any::<bool>())
        .prop_map(|(s, n, a)| {
            if s.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
                return (String::new(), s);
            }
            let s = if a { format!("|{s}|") } else { s };
            (if n { "-".to_string() } else { String::new() }, s)
        })
        .boxed()
}

/// A source for a 64-bit (`wide`) or 32-bit slot from `b`: registers made pairs, constants
/// aligned.
fn wide_b(b: &str, wide: bool) -> String {
    if !wide {
        return b.to_string();
    }
    let (l, core, r) = match b.strip_prefix('|').and_then(|x| x.strip_suffix('|')) {
        Some(c) => ("|", c, "|"),
        None => ("", b, ""),
    };
    let core = if core.starts_with('R') && core != "RZ" {
        "R12".to_string()
    } else if core.starts_with('c') {
        "c[0x1][0x18]".to_string()
    } else {
        core.to_string()
    };
    format!("{l}{core}{r}")
}

fn dcmp() -> S {
    select(vec![
        "F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU",
        "GEU", "T",
    ])
    .prop_map(|s| s.to_string())
    .boxed()
}

/// `p` prefixed half of the time.
fn pre(p: &'static str, s: S) -> S {
    (any::<bool>(), s)
        .prop_map(move |(b, s)| if b { format!("{p}{s}") } else { s })
        .boxed()
}

/// `s` half of the time, else nothing.
fn maybe(s: S) -> S {
    prop_oneof![Just(String::new()), s].boxed()
}

fn half(s: S) -> S {
    (s, select(vec!["", ".H0", ".H1"]))
        .prop_map(|(s, h)| format!("{s}{h}"))
        .boxed()
}

/// One choice from each group (empty = none), shuffled, as `.A.B`.
fn mods(groups: Vec<Vec<&'static str>>) -> S {
    let v: Vec<_> = groups.into_iter().map(select).collect();
    v.prop_shuffle()
        .prop_map(|v| {
            v.into_iter()
                .filter(|s| !s.is_empty())
                .map(|s| format!(".{s}"))
                .collect()
        })
        .boxed()
}

fn guard() -> S {
    prop_oneof![3 => Just(String::new()), 1 => psrc().prop_map(|p| format!("@{p} "))].boxed()
}

/// Mnemonic with modifiers and `.CC` either on the opcode or on the destination.
fn with_cc(mn: &'static str, groups: Vec<Vec<&'static str>>, d: S) -> S {
    (mods(groups), 0u8..3, d)
        .prop_map(move |(m, cc, d)| match cc {
            0 => format!("{mn}{m} {d}"),
            1 => format!("{mn}{m}.CC {d}"),
            _ => format!("{mn}{m} {d}.CC"),
        })
        .boxed()
}

/// A destination with `.CC` nowhere, on the opcode (the first string, to append to the
/// mnemonic) or on the register.
fn cc_dst(d: S) -> BoxedStrategy<(String, String)> {
    (0u8..3, d)
        .prop_map(|(cc, d)| match cc {
            0 => (String::new(), d),
            1 => (".CC".to_string(), d),
            _ => (String::new(), format!("{d}.CC")),
        })
        .boxed()
}

fn inner_addr(b: &str, off: i64, style: u8, k: u8) -> String {
    let a = num(off.abs(), k);
    match (off < 0, style) {
        (false, 0) if off == 0 => b.to_string(),
        (false, s) if s % 2 == 0 => format!("{b}+{a}"),
        (false, _) => format!(" {b} + {a} "),
        (true, s) if s % 2 == 0 => format!("{b}-{a}"),
        (true, _) => format!("{b} + -{a}"),
    }
}

/// `[Ra+off]` with a signed `bits`-bit offset, or `[off]` / `[RZ+off]` with an unsigned one.
fn mem(base: S, bits: u32) -> S {
    let (lo, hi, max) = (
        -(1i64 << (bits - 1)),
        (1i64 << (bits - 1)) - 1,
        (1i64 << bits) - 1,
    );
    prop_oneof![
        3 => (base, lo..=hi, 0u8..4, 0u8..3).prop_map(|(b, o, s, k)| format!("[{}]", inner_addr(&b, o, s, k))),
        1 => (0..=max, 0u8..3, any::<bool>()).prop_map(|(o, k, rz)| if rz {
            format!("[RZ+{}]", num(o, k))
        } else {
            format!("[{}]", num(o, k))
        }),
    ]
    .boxed()
}

/// An atomic's operation and type modifiers (shuffled), its register count and whether it is
/// a CAS; `cas` allows CAS and EXCH (ATOM, ATOMS), else only RED's operations.
fn atomic_kind(cas: bool) -> BoxedStrategy<(String, u32, bool)> {
    let mut v: Vec<(&'static str, &'static str, u32)> = vec![("ADD", "F32.FTZ.RN", 1)];
    let ops: &[&str] = if cas {
        &["ADD", "MIN", "MAX", "AND", "OR", "XOR", "EXCH"]
    } else {
        &["ADD", "MIN", "MAX", "AND", "OR", "XOR"]
    };
    for op in ops {
        for (t, n) in [("", 1), ("U32", 1), ("S32", 1), ("U64", 2), ("S64", 2)] {
            v.push((op, t, n));
        }
    }
    v.push(("INC", "", 1));
    v.push(("DEC", "U32", 1));
    if cas {
        v.push(("CAS", "", 1));
        v.push(("CAS", "64", 2));
    }
    select(v)
        .prop_flat_map(|(op, t, n)| {
            let groups = if t.contains('.') {
                vec![vec![op], vec!["F32"], vec!["FTZ"], vec!["RN"]]
            } else {
                vec![vec![op], vec![t]]
            };
            mods(groups).prop_map(move |m| (m, n, op == "CAS"))
        })
        .boxed()
}

/// An ATOMS address: `[Ra+off]` with a signed 24-bit offset that is a multiple of 4, or an
/// absolute one.
fn mem4() -> S {
    prop_oneof![
        3 => (base(false), -(1i64 << 21)..(1i64 << 21), 0u8..4, 0u8..3)
            .prop_map(|(b, o, s, k)| format!("[{}]", inner_addr(&b, 4 * o, s, k))),
        1 => (0i64..(1 << 22), 0u8..3).prop_map(|(o, k)| format!("[{}]", num(4 * o, k))),
    ]
    .boxed()
}

/// A non-RZ base register, a pair start when `e`.
fn base(e: bool) -> S {
    let n = if e { 2 } else { 1 };
    (0..=(254 - n) / n)
        .prop_map(move |i| format!("R{}", i * n))
        .boxed()
}

const SIZES: [(&str, u32); 9] = [
    ("", 1),
    ("U8", 1),
    ("S8", 1),
    ("U16", 1),
    ("S16", 1),
    ("32", 1),
    ("64", 2),
    ("128", 4),
    ("U.128", 4),
];
const LOAD_COPS: [&str; 7] = ["", "CA", "CG", "CS", "LU", "CV", "CI"];
const STORE_COPS: [&str; 5] = ["", "WB", "CG", "CS", "WT"];

/// A memory op: (mnemonic with modifiers, register group start, address) for `sizes`.
fn memop(
    mn: &'static str,
    sizes: &[(&'static str, u32)],
    extra: Vec<Vec<&'static str>>,
    can_e: bool,
    bits: u32,
) -> BoxedStrategy<(String, String, String)> {
    (select(sizes.to_vec()), any::<bool>())
        .prop_flat_map(move |((sz, n), e)| {
            let e = e && can_e;
            let mut groups = extra.clone();
            groups.push(vec![sz]);
            groups.push(vec![if e { "E" } else { "" }]);
            (mods(groups), wreg(n), mem(base(e), bits))
                .prop_map(move |(m, r, a)| (format!("{mn}{m}"), r, a))
        })
        .boxed()
}

fn templates() -> Vec<(&'static str, S)> {
    let sel = |v: &[&'static str]| select(v.to_vec()).prop_map(|s| s.to_string()).boxed();
    vec![
        (
            "MOV",
            (reg(), src(any32()))
                .prop_map(|(d, b)| format!("MOV {d}, {b}"))
                .boxed(),
        ),
        (
            "MOV32I",
            (reg(), any32())
                .prop_map(|(d, i)| format!("MOV32I {d}, {i}"))
                .boxed(),
        ),
        (
            "S2R",
            (
                reg(),
                sel(&[
                    "SR_TID.X",
                    "SR_TID.Y",
                    "SR_TID.Z",
                    "SR_CTAID.X",
                    "SR_CTAID.Y",
                    "SR_CTAID.Z",
                    "SR_LANEID",
                    "SR_EQMASK",
                    "SR_LTMASK",
                    "SR_LEMASK",
                    "SR_GTMASK",
                    "SR_GEMASK",
                    "SR_CLOCKLO",
                    "SR_CLOCKHI",
                ]),
            )
                .prop_map(|(d, s)| format!("S2R {d}, {s}"))
                .boxed(),
        ),
        (
            "IADD",
            prop_oneof![
                (
                    with_cc("IADD", vec![vec!["", "PO"], vec!["", "X"]], reg()),
                    pre("-", rreg()),
                    prop_oneof![pre("-", regc()), imm20()],
                )
                    .prop_map(|(h, a, b)| format!("{h}, {a}, {b}")),
                // .SAT takes none of .CC, .X and .PO.
                (
                    reg(),
                    pre("-", rreg()),
                    prop_oneof![pre("-", regc()), imm20()]
                )
                    .prop_map(|(d, a, b)| format!("IADD.SAT {d}, {a}, {b}")),
            ]
            .boxed(),
        ),
        (
            "IADD32I",
            (
                prop_oneof![
                    with_cc("IADD32I", vec![vec!["", "PO"], vec!["", "X"]], reg()),
                    reg().prop_map(|d| format!("IADD32I.SAT {d}")),
                ],
                pre("-", rreg()),
                any32(),
            )
                .prop_map(|(h, a, b)| format!("{h}, {a}, {b}"))
                .boxed(),
        ),
        (
            "IADD3",
            (
                with_cc("IADD3", vec![vec!["", "RS", "LS"], vec!["", "X"]], reg()),
                pre("-", half(rreg())),
                prop_oneof![pre("-", half(regc())), imm20()],
                pre("-", half(rreg())),
            )
                .prop_map(|(h, a, b, c)| format!("{h}, {a}, {b}, {c}"))
                .boxed(),
        ),
        (
            "ISCADD",
            (
                with_cc("ISCADD", vec![vec!["", "PO"]], reg()),
                pre("-", rreg()),
                prop_oneof![pre("-", regc()), imm20()],
                imm(0, 31),
            )
                .prop_map(|(h, a, b, s)| format!("{h}, {a}, {b}, {s}"))
                .boxed(),
        ),
        (
            "XMAD",
            (
                sel(&[
                    "", ".S16", ".U16", ".S16.U16", ".U16.S16", ".S16.S16", ".U16.U16",
                ]),
                with_cc(
                    "",
                    vec![
                        vec!["", "PSL"],
                        vec!["", "MRG"],
                        vec!["", "CLO", "CHI", "CBCC", "CSFU"],
                    ],
                    reg(),
                ),
                half(rreg()),
                prop_oneof![half(regc()), imm(0, 0xffff)],
                regc(),
            )
                .prop_map(|(s, h, a, b, c)| format!("XMAD{s}{h}, {a}, {b}, {c}"))
                .boxed(),
        ),
        (
            "SHL",
            (
                with_cc("SHL", vec![vec!["", "W"], vec!["", "X"]], reg()),
                rreg(),
                src(imm20()),
            )
                .prop_map(|(h, a, b)| format!("{h}, {a}, {b}"))
                .boxed(),
        ),
        (
            "SHR",
            (
                with_cc(
                    "SHR",
                    vec![
                        vec!["", "U32", "S32"],
                        vec!["", "W"],
                        vec!["", "BREV"],
                        vec!["", "X"],
                    ],
                    reg(),
                ),
                rreg(),
                src(imm20()),
            )
                .prop_map(|(h, a, b)| format!("{h}, {a}, {b}"))
                .boxed(),
        ),
        (
            "SHF",
            prop_oneof![
                (
                    mods(vec![
                        vec!["L"],
                        vec!["", "W"],
                        vec!["", "U32", "S32", "U64", "S64"],
                    ]),
                    reg(),
                    rreg(),
                    prop_oneof![rreg(), imm(0, 0x3f)],
                    rreg(),
                )
                    .prop_map(|(m, d, a, b, c)| format!("SHF{m} {d}, {a}, {b}, {c}")),
                (
                    mods(vec![
                        vec!["R"],
                        vec!["", "W"],
                        vec!["", "U32", "S32", "U64", "S64"],
                        vec!["", "HI"],
                    ]),
                    reg(),
                    rreg(),
                    prop_oneof![rreg(), imm(0, 0x3f)],
                    rreg(),
                )
                    .prop_map(|(m, d, a, b, c)| format!("SHF{m} {d}, {a}, {b}, {c}")),
            ]
            .boxed(),
        ),
        (
            "LOP",
            (
                mods(vec![
                    vec!["AND", "OR", "XOR", "PASS_B"],
                    vec!["", "Z", "NZ", "T", "F"],
                    vec!["", "X"],
                ]),
                maybe(pred().prop_map(|p| format!("{p}, ")).boxed()),
                cc_dst(reg()),
                pre("~", rreg()),
                pre("~", src(imm20())),
            )
                .prop_map(|(m, p, (c, d), a, b)| format!("LOP{m}{c} {p}{d}, {a}, {b}"))
                .boxed(),
        ),
        (
            "LOP32I",
            (
                with_cc(
                    "LOP32I",
                    vec![vec!["AND", "OR", "XOR", "PASS_B"], vec!["", "X"]],
                    reg(),
                ),
                pre("~", rreg()),
                pre("~", any32()),
            )
                .prop_map(|(h, a, b)| format!("{h}, {a}, {b}"))
                .boxed(),
        ),
        (
            "LOP3",
            (
                mods(vec![
                    vec!["LUT"],
                    vec!["", "Z", "NZ", "T", "F"],
                    vec!["", "X"],
                ]),
                maybe(pred().prop_map(|p| format!("{p}, ")).boxed()),
                cc_dst(reg()),
                rreg(),
                src(any32()),
                rreg(),
                imm(0, 255),
            )
                .prop_map(|(m, p, (cc, d), a, b, c, l)| {
                    format!("LOP3{m}{cc} {p}{d}, {a}, {b}, {c}, {l}")
                })
                .boxed(),
        ),
        (
            "BFE",
            (
                with_cc("BFE", vec![vec!["", "U32", "S32"], vec!["", "BREV"]], reg()),
                rreg(),
                src(imm20()),
            )
                .prop_map(|(h, a, b)| format!("{h}, {a}, {b}"))
                .boxed(),
        ),
        (
            "BFI",
            (with_cc("BFI", vec![], reg()), rreg(), src(imm20()), regc())
                .prop_map(|(h, a, b, c)| format!("{h}, {a}, {b}, {c}"))
                .boxed(),
        ),
        (
            "POPC",
            (reg(), pre("~", src(imm20())))
                .prop_map(|(d, b)| format!("POPC {d}, {b}"))
                .boxed(),
        ),
        (
            "FLO",
            (
                mods(vec![vec!["", "U32", "S32"], vec!["", "SH"]]),
                reg(),
                pre("~", src(imm20())),
            )
                .prop_map(|(m, d, b)| format!("FLO{m} {d}, {b}"))
                .boxed(),
        ),
        (
            "SEL",
            (reg(), rreg(), src(imm20()), psrc())
                .prop_map(|(d, a, b, p)| format!("SEL {d}, {a}, {b}, {p}"))
                .boxed(),
        ),
        (
            "ISETP",
            (
                mods(vec![
                    vec!["F", "LT", "EQ", "LE", "GT", "NE", "GE", "T"],
                    vec!["", "U32", "S32"],
                    vec!["", "X"],
                    vec!["", "AND", "OR", "XOR"],
                ]),
                pred(),
                pred(),
                rreg(),
                src(imm20()),
                psrc(),
            )
                .prop_map(|(m, p, q, a, b, c)| format!("ISETP{m} {p}, {q}, {a}, {b}, {c}"))
                .boxed(),
        ),
        (
            "PSETP",
            (
                sel(&["AND", "OR", "XOR"]),
                sel(&["AND", "OR", "XOR"]),
                pred(),
                pred(),
                psrc(),
                psrc(),
                psrc(),
            )
                .prop_map(|(b1, b2, p, q, a, b, c)| {
                    format!("PSETP.{b1}.{b2} {p}, {q}, {a}, {b}, {c}")
                })
                .boxed(),
        ),
        (
            "P2R",
            (
                mods(vec![vec!["", "B0", "B1", "B2", "B3"]]),
                reg(),
                sel(&["PR", "CC"]),
                rreg(),
                src(imm20()),
            )
                .prop_map(|(m, d, s, a, b)| format!("P2R{m} {d}, {s}, {a}, {b}"))
                .boxed(),
        ),
        (
            "ISET",
            (
                with_cc(
                    "ISET",
                    vec![
                        vec!["", "BF"],
                        vec!["F", "LT", "EQ", "LE", "GT", "NE", "GE", "T"],
                        vec!["", "U32", "S32"],
                        vec!["", "X"],
                        vec!["", "AND", "OR", "XOR"],
                    ],
                    reg(),
                ),
                rreg(),
                src(imm20()),
                psrc(),
            )
                .prop_map(|(h, a, b, c)| format!("{h}, {a}, {b}, {c}"))
                .boxed(),
        ),
        (
            "PSET",
            (
                with_cc(
                    "PSET",
                    vec![
                        vec!["", "BF"],
                        vec!["AND", "OR", "XOR"],
                        vec!["AND", "OR", "XOR"],
                    ],
                    reg(),
                ),
                psrc(),
                psrc(),
                psrc(),
            )
                .prop_map(|(h, a, b, c)| format!("{h}, {a}, {b}, {c}"))
                .boxed(),
        ),
        (
            "CSETP",
            (
                sel(&[
                    "F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU",
                    "GTU", "NEU", "GEU", "T", "OFF", "LO", "SFF", "LS", "HI", "SFT", "HS", "OFT",
                ]),
                mods(vec![vec!["", "AND", "OR", "XOR"]]),
                pred(),
                pred(),
                psrc(),
            )
                .prop_map(|(t, m, p, q, c)| format!("CSETP.{t}{m} {p}, {q}, CC, {c}"))
                .boxed(),
        ),
        (
            "IMUL",
            (
                with_cc("IMUL", vec![vec!["", "U32", "S32"], vec!["", "HI"]], reg()),
                rreg(),
                src(imm20()),
            )
                .prop_map(|(h, a, b)| format!("{h}, {a}, {b}"))
                .boxed(),
        ),
        (
            "ISCADD32I",
            (
                with_cc("ISCADD32I", vec![], reg()),
                rreg(),
                any32(),
                0u8..32,
            )
                .prop_map(|(h, a, b, s)| format!("{h}, {a}, {b}, {s:#x}"))
                .boxed(),
        ),
        (
            "IMUL32I",
            (
                with_cc(
                    "IMUL32I",
                    vec![
                        vec!["", "U32", "S32"],
                        vec!["", "U32", "S32"],
                        vec!["", "HI"],
                    ],
                    reg(),
                ),
                rreg(),
                any32(),
            )
                .prop_map(|(h, a, b)| format!("{h}, {a}, {b}"))
                .boxed(),
        ),
        (
            "IMADSP",
            (
                select(vec!["U32", "U24", "U16H0", "U16H1"]),
                select(vec!["U24", "S24", "U16H0", "S16H0"]),
                select(vec!["U32", "U24", "U16H0"]),
                0u8..2,
                cc_dst(reg()),
                rreg(),
                src(imm20()),
                regc(),
            )
                .prop_map(|(pa, pb, pc, signed, (cc, d), a, b, c)| {
                    // Ra's and Rc's parts share one sign.
                    let s = |p: &str| {
                        if signed == 1 {
                            p.replacen('U', "S", 1)
                        } else {
                            p.to_string()
                        }
                    };
                    format!("IMADSP.{}.{pb}.{}{cc} {d}, {a}, {b}, {c}", s(pa), s(pc))
                })
                .boxed(),
        ),
        (
            "IMAD",
            (
                with_cc(
                    "IMAD",
                    vec![vec!["", "U32", "S32"], vec!["", "HI"], vec!["", "X"]],
                    reg(),
                ),
                rreg(),
                src(imm20()),
                regc(),
            )
                .prop_map(|(h, a, b, c)| format!("{h}, {a}, {b}, {c}"))
                .boxed(),
        ),
        (
            "R2P",
            (
                mods(vec![vec!["", "B0", "B1", "B2", "B3"]]),
                sel(&["PR", "CC"]),
                rreg(),
                src(imm20()),
            )
                .prop_map(|(m, s, a, b)| format!("R2P{m} {s}, {a}, {b}"))
                .boxed(),
        ),
        (
            "IMNMX",
            (
                with_cc(
                    "IMNMX",
                    vec![vec!["", "U32", "S32"], vec!["", "XLO", "XHI"]],
                    reg(),
                ),
                rreg(),
                src(imm20()),
                psrc(),
            )
                .prop_map(|(h, a, b, p)| format!("{h}, {a}, {b}, {p}"))
                .boxed(),
        ),
        (
            "ICMP",
            (
                mods(vec![
                    vec!["F", "LT", "EQ", "LE", "GT", "NE", "GE", "T"],
                    vec!["", "U32", "S32"],
                ]),
                reg(),
                rreg(),
                prop_oneof![
                    (rreg(), regc()).boxed(),
                    (prop_oneof![cref(), imm20()], rreg()).boxed(),
                ],
            )
                .prop_map(|(m, d, a, (b, c))| format!("ICMP{m} {d}, {a}, {b}, {c}"))
                .boxed(),
        ),
        (
            "FADD",
            (
                mods(vec![vec!["", "FTZ"], FRNDS.to_vec(), vec!["", "SAT"]]),
                reg(),
                fmodded(rreg()),
                fsb(),
            )
                .prop_map(|(m, d, a, b)| format!("FADD{m} {d}, {a}, {b}"))
                .boxed(),
        ),
        (
            "FADD32I",
            (
                mods(vec![vec!["", "FTZ"]]),
                reg(),
                fmodded(rreg()),
                fimm(true),
            )
                .prop_map(|(m, d, a, b)| format!("FADD32I{m} {d}, {a}, {b}"))
                .boxed(),
        ),
        (
            "FMUL",
            (
                mods(vec![
                    vec!["", "FTZ"],
                    vec!["", "D2", "D4", "D8", "M2", "M4", "M8"],
                    FRNDS.to_vec(),
                    vec!["", "SAT"],
                ]),
                reg(),
                rreg(),
                fsb_neg(),
            )
                .prop_map(|(m, d, a, b)| format!("FMUL{m} {d}, {a}, {b}"))
                .boxed(),
        ),
        (
            "FMUL32I",
            (
                mods(vec![vec!["", "FTZ"], vec!["", "SAT"]]),
                reg(),
                rreg(),
                fimm(true),
            )
                .prop_map(|(m, d, a, b)| format!("FMUL32I{m} {d}, {a}, {b}"))
                .boxed(),
        ),
        (
            "FFMA",
            (
                mods(vec![vec!["", "FTZ"], FRNDS.to_vec(), vec!["", "SAT"]]),
                reg(),
                rreg(),
                prop_oneof![
                    (pre("-", rreg()), pre("-", regc())).boxed(),
                    (prop_oneof![pre("-", cref()), fimm(false)], pre("-", rreg())).boxed(),
                ],
            )
                .prop_map(|(m, d, a, (b, c))| format!("FFMA{m} {d}, {a}, {b}, {c}"))
                .boxed(),
        ),
        (
            "FFMA32I",
            (
                mods(vec![vec!["", "FTZ"], vec!["", "SAT"]]),
                reg(),
                pre("-", rreg()),
                fimm(true),
                any::<bool>(),
            )
                .prop_map(|(m, d, a, b, n)| {
                    let c = if n { format!("-{d}") } else { d.clone() };
                    format!("FFMA32I{m} {d}, {a}, {b}, {c}")
                })
                .boxed(),
        ),
        (
            "FMNMX",
            (
                mods(vec![vec!["", "FTZ"]]),
                reg(),
                fmodded(rreg()),
                fsb(),
                psrc(),
            )
                .prop_map(|(m, d, a, b, p)| format!("FMNMX{m} {d}, {a}, {b}, {p}"))
                .boxed(),
        ),
        (
            "FSETP",
            (
                mods(vec![
                    FCMPS.to_vec(),
                    vec!["", "FTZ"],
                    vec!["", "AND", "OR", "XOR"],
                ]),
                pred(),
                pred(),
                fmodded(rreg()),
                fsb(),
                psrc(),
            )
                .prop_map(|(m, p, q, a, b, c)| format!("FSETP{m} {p}, {q}, {a}, {b}, {c}"))
                .boxed(),
        ),
        (
            "FSET",
            (
                mods(vec![
                    vec!["", "BF"],
                    FCMPS.to_vec(),
                    vec!["", "FTZ"],
                    vec!["", "AND", "OR", "XOR"],
                ]),
                cc_dst(reg()),
                fmodded(rreg()),
                fsb(),
                psrc(),
            )
                .prop_map(|(m, (cm, d), a, b, c)| format!("FSET{m}{cm} {d}, {a}, {b}, {c}"))
                .boxed(),
        ),
        (
            "FCMP",
            (
                mods(vec![FCMPS.to_vec(), vec!["", "FTZ"]]),
                reg(),
                rreg(),
                prop_oneof![
                    (rreg(), regc()).boxed(),
                    (prop_oneof![cref(), fimm(false)], rreg()).boxed(),
                ],
            )
                .prop_map(|(m, d, a, (b, c))| format!("FCMP{m} {d}, {a}, {b}, {c}"))
                .boxed(),
        ),
        (
            "MUFU",
            (
                sel(&[
                    "COS", "SIN", "EX2", "LG2", "RCP", "RSQ", "RCP64H", "RSQ64H", "SQRT",
                ]),
                mods(vec![vec!["", "SAT"]]),
                reg(),
                fmodded(rreg()),
            )
                .prop_map(|(f, m, d, a)| format!("MUFU.{f}{m} {d}, {a}"))
                .boxed(),
        ),
        (
            "RRO",
            (sel(&["SINCOS", "EX2"]), reg(), fsb())
                .prop_map(|(f, d, b)| format!("RRO.{f} {d}, {b}"))
                .boxed(),
        ),
        (
            "FCHK",
            (pred(), fmodded(rreg()), fsb())
                .prop_map(|(p, a, b)| format!("FCHK.DIVIDE {p}, {a}, {b}"))
                .boxed(),
        ),
        (
            "PRMT",
            (
                mods(vec![vec!["", "F4E", "B4E", "RC8", "ECL", "ECR", "RC16"]]),
                reg(),
                rreg(),
                src(imm20()),
                regc(),
            )
                .prop_map(|(m, d, a, b, c)| format!("PRMT{m} {d}, {a}, {b}, {c}"))
                .boxed(),
        ),
        (
            "LEA",
            prop_oneof![
                // LEA.LO: Plg or .CC (or neither), Sb register/constant/imm20, optional scale.
                (
                    mods(vec![vec!["", "LO"], vec!["", "X"]]),
                    0u8..4,
                    pred(),
                    reg(),
                    pre("-", rreg()),
                    src(imm20()),
                    maybe(imm(0, 31).prop_map(|s| format!(", {s}")).boxed())
                )
                    .prop_map(|(m, k, p, d, a, b, s)| match k {
                        0 => format!("LEA{m} {p}, {d}, {a}, {b}{s}"),
                        1 => format!("LEA{m}.CC {d}, {a}, {b}{s}"),
                        2 => format!("LEA{m} {d}.CC, {a}, {b}{s}"),
                        _ => format!("LEA{m} {d}, {a}, {b}{s}"),
                    }),
                // LEA.HI: Sb register/constant, optional Rc, optional scale.
                (
                    mods(vec![vec!["HI"], vec!["", "X"]]),
                    0u8..4,
                    pred(),
                    reg(),
                    pre("-", rreg()),
                    regc(),
                    maybe(rreg().prop_map(|c| format!(", {c}")).boxed()),
                    maybe(imm(0, 31).prop_map(|s| format!(", {s}")).boxed())
                )
                    .prop_map(|(m, k, p, d, a, b, c, s)| match k {
                        0 => format!("LEA{m} {p}, {d}, {a}, {b}{c}{s}"),
                        1 => format!("LEA{m}.CC {d}, {a}, {b}{c}{s}"),
                        2 => format!("LEA{m} {d}.CC, {a}, {b}{c}{s}"),
                        _ => format!("LEA{m} {d}, {a}, {b}{c}{s}"),
                    }),
            ]
            .boxed(),
        ),
        (
            "LDC",
            select(vec![
                ("", 1u32),
                ("U8", 1),
                ("S8", 1),
                ("U16", 1),
                ("S16", 1),
                ("32", 1),
                ("64", 2),
                ("128", 4),
            ])
            .prop_flat_map(|(sz, n)| {
                (
                    mods(vec![vec![sz], vec!["", "IA", "IL", "IS", "ISL"]]),
                    wreg(n),
                    0i64..=31,
                    prop_oneof![
                        (base(false), -0x8000i64..=0x7fff, 0u8..4, 0u8..3)
                            .prop_map(|(b, o, s, k)| inner_addr(&b, o, s, k)),
                        (-0x8000i64..=0xffff, 0u8..3).prop_map(|(o, k)| num(o, k)),
                        (-0x8000i64..=0xffff, 0u8..3)
                            .prop_map(|(o, k)| format!("RZ+{}", num(o, k))),
                    ],
                )
                    .prop_map(|(m, d, b, a)| format!("LDC{m} {d}, c[{b}][{a}]"))
            })
            .boxed(),
        ),
        (
            "LDG",
            prop_oneof![
                memop("LDG", &SIZES, vec![LOAD_COPS.to_vec()], true, 24)
                    .prop_map(|(h, d, a)| format!("{h} {d}, {a}")),
                (
                    memop("LDG", &SIZES, vec![LOAD_COPS.to_vec()], true, 20),
                    pred()
                )
                    .prop_map(|((h, d, a), p)| format!("{h} {p}, {d}, {a}")),
            ]
            .boxed(),
        ),
        (
            "STG",
            memop("STG", &SIZES, vec![STORE_COPS.to_vec()], true, 24)
                .prop_map(|(h, v, a)| format!("{h} {a}, {v}"))
                .boxed(),
        ),
        (
            "LD",
            (
                memop("LD", &SIZES, vec![LOAD_COPS.to_vec()], true, 24),
                maybe(psrc().prop_map(|p| format!(", {p}")).boxed()),
            )
                .prop_map(|((h, d, a), p)| format!("{h} {d}, {a}{p}"))
                .boxed(),
        ),
        (
            "ST",
            (
                memop("ST", &SIZES, vec![STORE_COPS.to_vec()], true, 24),
                maybe(psrc().prop_map(|p| format!(", {p}")).boxed()),
            )
                .prop_map(|((h, v, a), p)| format!("{h} {a}, {v}{p}"))
                .boxed(),
        ),
        (
            "LDS",
            memop("LDS", &SIZES[..8], vec![vec!["", "U"]], false, 24)
                .prop_map(|(h, d, a)| format!("{h} {d}, {a}"))
                .boxed(),
        ),
        (
            "STS",
            memop("STS", &SIZES[..8], vec![], false, 24)
                .prop_map(|(h, v, a)| format!("{h} {a}, {v}"))
                .boxed(),
        ),
        (
            "LDL",
            memop(
                "LDL",
                &SIZES[..8],
                vec![vec!["", "LU", "CI", "CV"]],
                false,
                24,
            )
            .prop_map(|(h, d, a)| format!("{h} {d}, {a}"))
            .boxed(),
        ),
        (
            "STL",
            memop(
                "STL",
                &SIZES[..8],
                vec![vec!["", "CG", "CS", "WT"]],
                false,
                24,
            )
            .prop_map(|(h, v, a)| format!("{h} {a}, {v}"))
            .boxed(),
        ),
        (
            "MEMBAR",
            (
                sel(&["CTA", "GL", "SYS", "VC"]),
                sel(&["", ".IVALLD", ".IVALLT", ".IVALLTD"]),
            )
                .prop_map(|(s, i)| format!("MEMBAR.{s}{i}"))
                .boxed(),
        ),
        ("NOP", Just("NOP".to_string()).boxed()),
        (
            "BPT",
            imm(0, 0xf_ffff)
                .prop_map(|c| format!("BPT.TRAP {c}"))
                .boxed(),
        ),
        ("VMNMX", video("VMNMX", &[".MN", ".MX", ""])),
        ("VABSDIFF", video("VABSDIFF", &[""])),
        (
            "VABSDIFF4",
            (
                select(vec!["", ".SD"]),
                select(vec![".U8", ".S8"]),
                select(vec![".U8", ".S8"]),
                select(vec!["", ".SAT", ".ACC"]),
                (reg(), rreg(), rreg(), rreg()),
            )
                .prop_map(|(sd, ta, tb, m, (d, a, b, c))| {
                    format!("VABSDIFF4{sd}{ta}{tb}{m} {d}, {a}, {b}, {c}")
                })
                .boxed(),
        ),
        (
            "ATOM",
            (
                atomic_kind(true),
                any::<bool>(),
                mem(base(true), 20),
                0u32..60,
            )
                .prop_map(|((m, n, cas), e, a, k)| {
                    let e = if e { ".E" } else { "" };
                    let (d, b) = (format!("R{}", 2 * k), format!("R{}", 4 * k));
                    let c = if cas {
                        format!(", R{}", 4 * k + n)
                    } else {
                        String::new()
                    };
                    format!("ATOM{e}{m} {d}, {a}, {b}{c}")
                })
                .boxed(),
        ),
        (
            "RED",
            (atomic_kind(false), mem(base(true), 20), 0u32..60)
                .prop_map(|((m, _, _), a, k)| format!("RED.E{m} {a}, R{}", 2 * k))
                .boxed(),
        ),
        (
            "ATOMS",
            (atomic_kind(true), mem4(), 0u32..60)
                .prop_filter("ATOMS has no .F32", |((m, _, _), _, _)| !m.contains("F32"))
                .prop_map(|((m, n, cas), a, k)| {
                    let (d, b) = (format!("R{}", 2 * k), format!("R{}", 4 * k));
                    let c = if cas {
                        format!(", R{}", 4 * k + n)
                    } else {
                        String::new()
                    };
                    format!("ATOMS{m} {d}, {a}, {b}{c}")
                })
                .boxed(),
        ),
        (
            "SHFL",
            (
                sel(&["IDX", "UP", "DOWN", "BFLY"]),
                pred(),
                reg(),
                rreg(),
                prop_oneof![reg(), imm(0, 0x1f)],
                prop_oneof![reg(), imm(0, 0x1fff)],
            )
                .prop_map(|(m, p, d, a, b, c)| format!("SHFL.{m} {p}, {d}, {a}, {b}, {c}"))
                .boxed(),
        ),
        (
            "VOTE",
            (sel(&["ALL", "ANY", "EQ"]), reg(), pred(), psrc())
                .prop_map(|(m, d, p, a)| format!("VOTE.{m} {d}, {p}, {a}"))
                .boxed(),
        ),
        (
            "B2R",
            (reg(), maybe(pred().prop_map(|p| format!(", {p}")).boxed()))
                .prop_map(|(d, p)| format!("B2R.RESULT {d}{p}"))
                .boxed(),
        ),
        (
            "CS2R",
            (reg(), sel(&["SR_CLOCKLO", "SR_CLOCKHI"]))
                .prop_map(|(d, s)| format!("CS2R {d}, {s}"))
                .boxed(),
        ),
        (
            "DEPBAR",
            (
                mods(vec![vec!["", "LE"]]),
                0u8..6,
                imm(0, 7),
                maybe(Just(", {1,0}".to_string()).boxed()),
            )
                .prop_map(|(m, sb, n, l)| format!("DEPBAR{m} SB{sb}, {n}{l}"))
                .boxed(),
        ),
        (
            "I2F",
            (
                select(vec!["F16", "F32", "F64"]),
                select(vec!["U8", "U16", "U32", "S8", "S16", "S32", "U64", "S64"]),
                mods(vec![vec!["", "RN", "RM", "RP", "RZ"]]),
                any::<bool>(),
                fmods(src(imm20())),
            )
                .prop_map(|(dt, st, m, w, (pre, b))| {
                    let d = if dt == "F64" { "R4" } else { "R3" };
                    let b = wide_b(&b, st.ends_with("64"));
                    let ty = if w {
                        format!(".{dt}.{st}")
                    } else {
                        format!(".{st}.{dt}")
                    };
                    format!("I2F{ty}{m} {d}, {pre}{b}")
                })
                .boxed(),
        ),
        (
            "F2I",
            (
                select(vec!["U8", "U16", "U32", "S8", "S16", "S32", "U64", "S64"]),
                select(vec!["F32", "F64"]),
                mods(vec![
                    vec!["", "ROUND", "FLOOR", "CEIL", "TRUNC"],
                    vec!["", "FTZ"],
                ]),
                fmods(dimm()),
            )
                .prop_map(|(dt, st, m, (pre, b))| {
                    let d = if dt.ends_with("64") { "R8" } else { "R9" };
                    format!("F2I.{dt}.{st}{m} {d}, {pre}{}", wide_b(&b, st == "F64"))
                })
                .boxed(),
        ),
        (
            "F2F",
            (
                select(vec!["F16", "F32", "F64"]),
                select(vec!["F32", "F64"]),
                mods(vec![
                    vec!["", "RN", "RM", "RP", "RZ"],
                    vec!["", "FTZ"],
                    vec!["", "SAT"],
                ]),
                fmods(dimm()),
            )
                .prop_map(|(dt, st, m, (pre, b))| {
                    let d = if dt == "F64" { "R10" } else { "R11" };
                    format!("F2F.{dt}.{st}{m} {d}, {pre}{}", wide_b(&b, st == "F64"))
                })
                .boxed(),
        ),
        (
            "F2F",
            (
                select(vec!["F32", "F64"]),
                mods(vec![
                    vec!["ROUND", "FLOOR", "CEIL", "TRUNC"],
                    vec!["", "SAT"],
                ]),
                fmods(wreg(2)),
            )
                .prop_map(|(t, m, (pre, b))| format!("F2F.{t}.{t}{m} R2, {pre}{b}"))
                .boxed(),
        ),
        (
            "I2I",
            (
                select(vec!["U8", "U16", "U32", "S8", "S16", "S32"]),
                select(vec!["U8", "U16", "U32", "S8", "S16", "S32"]),
                mods(vec![vec!["", "SAT"]]),
                cc_dst(reg()),
                fmods(src(imm20())),
            )
                .prop_map(|(dt, st, m, (c, d), (pre, b))| {
                    format!("I2I.{dt}.{st}{m}{c} {d}, {pre}{b}")
                })
                .boxed(),
        ),
        (
            "I2F",
            (
                select(vec!["F16", "F32", "F64"]),
                prop_oneof![
                    (
                        select(vec!["U8", "S8"]),
                        select(vec!["", ".B0", ".B1", ".B2", ".B3"])
                    ),
                    (select(vec!["U16", "S16"]), select(vec!["", ".H0", ".H1"])),
                ]
                .prop_flat_map(|(st, sel)| {
                    (
                        Just(st),
                        fmods(reg().prop_map(move |r| format!("{r}{sel}")).boxed()),
                    )
                }),
            )
                .prop_map(|(dt, (st, (pre, b)))| {
                    let d = if dt == "F64" { "R4" } else { "R3" };
                    format!("I2F.{dt}.{st} {d}, {pre}{b}")
                })
                .boxed(),
        ),
        (
            "I2I",
            (
                select(vec!["U8", "U16", "U32", "S8", "S16", "S32"]),
                prop_oneof![
                    (select(vec!["U8", "S8"]), select(vec![".B1", ".B2", ".B3"])),
                    (select(vec!["U16", "S16"]), Just(".H1")),
                ],
                reg(),
                prop_oneof![reg(), cref()],
            )
                .prop_map(|(dt, (st, sel), d, b)| format!("I2I.{dt}.{st} {d}, {b}{sel}"))
                .boxed(),
        ),
        (
            "F2F",
            (
                select(vec!["F32", "F64"]),
                select(vec!["F2I.S32", "F2F"]),
                fmods(reg().prop_map(|r| format!("{r}.H1")).boxed()),
            )
                .prop_map(|(dt, op, (pre, b))| {
                    let d = if dt == "F64" { "R10" } else { "R11" };
                    let t = if op == "F2F" {
                        format!(".{dt}")
                    } else {
                        String::new()
                    };
                    format!("{op}{t}.F16 {d}, {pre}{b}")
                })
                .boxed(),
        ),
        (
            "DADD",
            (
                mods(vec![vec!["", "RN", "RM", "RP", "RZ"]]),
                wreg(2),
                fmods(wreg(2)),
                fmods(dsrc()),
            )
                .prop_map(|(m, d, (pa, a), (pb, b))| format!("DADD{m} {d}, {pa}{a}, {pb}{b}"))
                .boxed(),
        ),
        (
            "DMUL",
            (
                mods(vec![vec!["", "RN", "RM", "RP", "RZ"]]),
                wreg(2),
                wreg(2),
                pre("-", dsrc_nb()),
            )
                .prop_map(|(m, d, a, b)| format!("DMUL{m} {d}, {a}, {b}"))
                .boxed(),
        ),
        (
            "DFMA",
            (
                mods(vec![vec!["", "RN", "RM", "RP", "RZ"]]),
                wreg(2),
                wreg(2),
                prop_oneof![
                    (pre("-", dsrc_nb()), pre("-", wreg(2))),
                    (pre("-", wreg(2)), pre("-", dcref())),
                ],
            )
                .prop_map(|(m, d, a, (b, c))| format!("DFMA{m} {d}, {a}, {b}, {c}"))
                .boxed(),
        ),
        (
            "DMNMX",
            (wreg(2), fmods(wreg(2)), fmods(dsrc()), psrc())
                .prop_map(|(d, (pa, a), (pb, b), p)| format!("DMNMX {d}, {pa}{a}, {pb}{b}, {p}"))
                .boxed(),
        ),
        (
            "DSETP",
            (
                dcmp(),
                mods(vec![vec!["", "AND", "OR", "XOR"]]),
                pred(),
                pred(),
                fmods(wreg(2)),
                fmods(dsrc()),
                psrc(),
            )
                .prop_map(|(c, m, p, q, (pa, a), (pb, b), r)| {
                    format!("DSETP.{c}{m} {p}, {q}, {pa}{a}, {pb}{b}, {r}")
                })
                .boxed(),
        ),
        (
            "DSET",
            (
                dcmp(),
                mods(vec![vec!["", "AND", "OR", "XOR"], vec!["", "BF"]]),
                cc_dst(reg()),
                fmods(wreg(2)),
                fmods(dsrc()),
                psrc(),
            )
                .prop_map(|(c, m, (cm, d), (pa, a), (pb, b), r)| {
                    format!("DSET.{c}{m}{cm} {d}, {pa}{a}, {pb}{b}, {r}")
                })
                .boxed(),
        ),
        (
            "BRA",
            (
                mods(vec![vec!["", "U"]]),
                maybe(sel(&[
                    "CC.EQ, ", "CC.NE, ", "CC.NEU, ", "CC.LTU, ", "CC.HI, ", "CC.OFT, ",
                ])),
                prop_oneof![
                    (0u32..100).prop_map(|n| format!(".L_{n}")),
                    (0u32..100).prop_map(|n| format!("`(.L_x_{n})")),
                    Just("loop".to_string()),
                    (0u32..0x1000).prop_map(|a| format!("{:#x}", a * 8)),
                ],
            )
                .prop_map(|(m, cc, t)| format!("BRA{m} {cc}{t}"))
                .boxed(),
        ),
        (
            "BRX",
            (
                maybe(sel(&["CC.EQ, ", "CC.NE, ", "CC.LTU, "])),
                reg(),
                -0x80_0000i64..0x80_0000,
                proptest::collection::vec(
                    prop_oneof![
                        (0u32..100).prop_map(|n| format!(".L_{n}")),
                        (0u32..100).prop_map(|n| format!(".L_x_{n}")),
                        (0u32..0x1000).prop_map(|a| format!("{:#x}", a * 8)),
                    ],
                    1..5,
                ),
            )
                .prop_map(|(cc, r, off, ts)| {
                    let off = if off < 0 {
                        format!("-{:#x}", -off)
                    } else {
                        format!("{off:#x}")
                    };
                    format!("BRX {cc}{r} {off} (*\"BRANCH_TARGETS {}\"*)", ts.join(","))
                })
                .boxed(),
        ),
        (
            "SSY",
            (0u32..100).prop_map(|n| format!("SSY `(.L_{n})")).boxed(),
        ),
        (
            "SYNC",
            maybe(sel(&[" CC.EQ", " CC.NE", " CC.GEU", " CC.LO"]))
                .prop_map(|c| format!("SYNC{c}"))
                .boxed(),
        ),
        (
            "CAL",
            prop_oneof![
                (0u32..100).prop_map(|n| format!("`(.L_x_{n})")),
                (0u32..100).prop_map(|n| format!(".L_{n}")),
                (0u32..0x1000).prop_map(|a| format!("{:#x}", a * 8)),
            ]
            .prop_map(|t| format!("CAL {t}"))
            .boxed(),
        ),
        (
            "RET",
            maybe(sel(&[" CC.EQ", " CC.NE", " CC.GEU", " CC.LO"]))
                .prop_map(|c| format!("RET{c}"))
                .boxed(),
        ),
        (
            "EXIT",
            maybe(sel(&[" CC.EQ", " CC.NE", " CC.GEU", " CC.LO"]))
                .prop_map(|c| format!("EXIT{c}"))
                .boxed(),
        ),
        (
            "BAR",
            prop_oneof![
                maybe(imm(0, 15).prop_map(|i| format!(" {i}")).boxed())
                    .prop_map(|i| format!("BAR.SYNC{i}")),
                (imm(0, 15), imm(1, 0xfff)).prop_map(|(i, n)| format!("BAR.SYNC {i}, {n}")),
                (imm(0, 15), imm(1, 0xfff)).prop_map(|(i, n)| format!("BAR.ARV {i}, {n}")),
                (sel(&["POPC", "AND", "OR"]), imm(0, 15), psrc())
                    .prop_map(|(m, i, p)| format!("BAR.RED.{m} {i}, {p}")),
                (
                    sel(&["POPC", "AND", "OR"]),
                    imm(0, 15),
                    imm(1, 0xfff),
                    psrc()
                )
                    .prop_map(|(m, i, n, p)| format!("BAR.RED.{m} {i}, {n}, {p}")),
            ]
            .boxed(),
        ),
    ]
}

/// Any instruction text a template generates, guarded (SSY and CAL never are) and terminated
/// variously.
fn any_inst() -> S {
    let arms: Vec<S> = templates()
        .into_iter()
        .map(|(name, s)| {
            let g = if name == "SSY" || name == "CAL" {
                Just(String::new()).boxed()
            } else {
                guard()
            };
            (
                g,
                s,
                select(vec![";", "", " ;", " ?WAIT6 ;", " &wr0 ?WAIT1;"]),
            )
                .prop_map(|(g, s, e)| format!("{g}{s}{e}"))
                .boxed()
        })
        .collect();
    proptest::strategy::Union::new(arms).boxed()
}

#[test]
fn every_op_and_control_instruction_has_a_template() {
    let names: Vec<&str> = templates().iter().map(|t| t.0).collect();
    for m in MNEMONICS
        .iter()
        .chain(&["BRA", "BRX", "SSY", "SYNC", "CAL", "RET", "EXIT", "BAR"])
    {
        assert!(names.contains(m), "no template for {m}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    /// parse(print(parse(t))) == parse(t), and printing is a fixpoint.
    #[test]
    fn instruction_round_trip(t in any_inst()) {
        let p1 = parse_inst(&t, &opts()).map_err(|e| TestCaseError::fail(format!("{t}: {e}")))?;
        let s1 = p1.to_string();
        let p2 = parse_inst(&s1, &opts()).map_err(|e| TestCaseError::fail(format!("{t} -> {s1}: {e}")))?;
        prop_assert_eq!(strip_inst(p1), strip_inst(p2.clone()), "{} -> {}", t, s1);
        prop_assert_eq!(p2.to_string(), s1);
    }

    /// Whole listings with labels and branches (symbolic and absolute) print and parse back.
    #[test]
    fn program_round_trip(lines in proptest::collection::vec((any_inst(), 0u8..8), 1..40), labels in proptest::collection::vec(0usize..40, 1..4)) {
        // Labels .L_0.. are defined before random lines; branches go to defined labels or to
        // the Maxwell-layout address of some instruction.
        let n = lines.len();
        let pcs: Vec<u32> = (0..n as u32).map(|i| 8 * (i + i / 3 + 1)).collect();
        let mut text = String::new();
        for (i, (l, k)) in lines.iter().enumerate() {
            for (j, &at) in labels.iter().enumerate() {
                if at % n == i {
                    text.push_str(&format!(".L_{j}:\n"));
                }
            }
            let line = match k {
                0 => format!("@P0 BRA .L_{};", i % labels.len()),
                1 => format!("BRA {:#x};", pcs[(i * 7) % n]),
                2 => format!("SSY `(.L_{});", i % labels.len()),
                3 => format!("CAL `(.L_{});", i % labels.len()),
                4 => format!(
                    "@P1 BRX R{} -{:#x} (*\"BRANCH_TARGETS .L_{}, {:#x},.L_0\"*);",
                    i % 7,
                    pcs[i] + 8,
                    (i + 1) % labels.len(),
                    pcs[(i * 5) % n]
                ),
                _ if l.contains("BRA") || l.contains("BRX") || l.contains("SSY") || l.contains("CAL ") => {
                    "NOP;".to_string()
                }
                _ => l.clone(),
            };
            text.push_str(&line);
            text.push('\n');
        }
        let p1 = parse_program(&text, &opts()).map_err(|e| TestCaseError::fail(format!("{text}\n{}", e.render("t", 0))))?;
        let t2 = print_program(&p1).unwrap();
        let p2 = parse_program(&t2, &opts()).map_err(|e| TestCaseError::fail(format!("{t2}\n{}", e.render("t", 0))))?;
        prop_assert_eq!(strip_program(p1), strip_program(p2.clone()), "{}\n--\n{}", text, t2);
        prop_assert_eq!(print_program(&p2).unwrap(), t2);
    }

    /// No input makes the assembler panic.
    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,80}") {
        let _ = parse_program(&s, &opts());
        let _ = parse_inst(&s, &opts());
    }

    /// Nor does a soup of SASS-like tokens.
    #[test]
    fn token_soup_never_panics(toks in proptest::collection::vec(select(vec![
        "R1", "RZ", "R254", "P0", "!", "@", "PT", "c", "[", "]", "+", "-", "~", ",", ";", "\n", ".", "CC", ":",
        ".L_1", "`(", ")", "{", "}", "0x10", "-0x8", "LDG", "LDC", "LEA", "BRA", "SSY", "EXIT", "IADD3", "XMAD",
        ".E", ".64", ".U", ".128", ".HI", ".X", "/*0008*/", "/* 0x1 */", "//", "?WAIT1", "&wr0", "é", " ",
    ]), 0..30)) {
        let s: String = toks.concat();
        let _ = parse_program(&s, &opts());
        let _ = parse_inst(&s, &opts());
        let _ = parse_program(&s, &AsmOptions { registers: 3 });
    }
}

#[test]
fn nvdisasm_style_listing() {
    let src = r#"
        .text._Z6kernelPi:
        /*0008*/                   MOV R1, c[0x0][0x20] ;
        /*0010*/         {         S2R R0, SR_TID.X ;
        /*0018*/                   S2R R2, SR_CTAID.X         }
        /*0028*/                   XMAD.MRG R3, R2.reuse, c[0x0] [0x8].H1, RZ ;
        /*0030*/                   XMAD R0, R2.reuse, c[0x0] [0x8], R0 ;
        /*0038*/                   XMAD.PSL.CBCC R0, R2.H1, R3.H1, R0 ;
        /*0048*/                   ISETP.GE.AND P0, PT, R0, c[0x0][0x148], PT ;
        /*0050*/               @P0 EXIT ;
        /*0058*/                   SHL R2, R0.reuse, 0x2 ;
        /*0068*/                   SHR R0, R0, 0x1e ;
        /*0070*/                   IADD R2.CC, R2, c[0x0][0x140] ;
        /*0078*/                   IADD.X R3, R0, c[0x0][0x144] ;
        /*0088*/                   LDG.E R0, [R2] ;
        /*0090*/                   IADD32I R0, R0, 0x1 ;
        /*0098*/                   STG.E [R2], R0 ;
        /*00a8*/                   EXIT ;
        .L_x_0:
        /*00b0*/                   BRA `(.L_x_0) ;
        /*00b8*/                   NOP;
"#;
    let p = program(src);
    assert_eq!(p.blocks.len(), 4);
    assert_eq!(p.blocks[0].labels, [".text._Z6kernelPi"]);
    assert_eq!(p.blocks[0].insts.len(), 7);
    let Op::Xmad(x) = &p.blocks[0].insts[3].op else {
        panic!()
    };
    assert_eq!((x.b, x.b_h1, x.mrg), (c(0, 8), true, true));
    assert!(matches!(
        p.blocks[0].term,
        Terminator::Exit {
            next: Some(1),
            pc: Some(0x50),
            ..
        }
    ));
    assert_eq!(p.blocks[1].insts.len(), 7);
    assert_eq!(
        p.blocks[2].term,
        Terminator::Jump {
            target: 2,
            pc: Some(0xb0)
        }
    );
    assert_eq!(p.blocks[3].pc, 0xb8);
    let t = print_program(&p).unwrap();
    assert_eq!(strip_program(program(&t)), strip_program(p));
}

/// Each of the eight `*32I` forms is its base op with `Sb` a `Src::Imm32`, the form's modifiers
/// on the op's fields and the ones it lacks at their defaults; it prints back in the form, and
/// the same value with `Src::Imm` (the base form's immediate) prints with the base mnemonic.
#[test]
fn each_32i_form_is_its_base_op_with_an_imm32_operand() {
    let cases: Vec<(&str, Op)> = vec![
        (
            "MOV32I R1, 0xdeadbeef",
            Mov {
                d: Reg(1),
                b: Src::Imm32(0xdead_beef),
            }
            .into(),
        ),
        (
            "IADD32I.PO.X R1.CC, -R2, -0x5",
            Iadd {
                d: Reg(1),
                sat: false,
                cc: true,
                x: true,
                po: true,
                neg_a: true,
                a: Reg(2),
                neg_b: false,
                b: Src::Imm32(-5i32 as u32),
            }
            .into(),
        ),
        (
            "ISCADD32I R3.CC, R4, 0x12345678, 0x3",
            Iscadd {
                d: Reg(3),
                cc: true,
                po: false,
                neg_a: false,
                a: Reg(4),
                neg_b: false,
                b: Src::Imm32(0x1234_5678),
                shift: 3,
            }
            .into(),
        ),
        (
            "LOP32I.XOR.X R5.CC, ~R6, ~0xf0f0f0f0",
            Lop {
                func: LopFn::Xor,
                f: LogicCc { cc: true, x: true },
                pout: PredOut::None,
                p: None,
                d: Reg(5),
                not_a: true,
                a: Reg(6),
                not_b: true,
                b: Src::Imm32(0xf0f0_f0f0),
            }
            .into(),
        ),
        (
            "IMUL32I.S32.U32.HI R7.CC, R8, 0x80000001",
            Imul {
                d: Reg(7),
                cc: true,
                hi: true,
                a_signed: true,
                b_signed: false,
                a: Reg(8),
                b: Src::Imm32(0x8000_0001),
            }
            .into(),
        ),
        (
            "FADD32I.FTZ R9, -|R10|, 1.0000001",
            Fadd {
                d: Reg(9),
                ftz: true,
                sat: false,
                rnd: FRnd::Rn,
                a: Reg(10),
                am: FMod {
                    neg: true,
                    abs: true,
                },
                b: Src::Imm32(0x3f80_0001),
                bm: FMod::NONE,
            }
            .into(),
        ),
        (
            "FMUL32I.FTZ.SAT R11, R12, -0.5",
            Fmul {
                d: Reg(11),
                ftz: true,
                scale: 0,
                sat: true,
                rnd: FRnd::Rn,
                a: Reg(12),
                b: Src::Imm32(0xbf00_0000),
                neg_b: false,
            }
            .into(),
        ),
        (
            "FFMA32I.SAT R13, -R14, 2.0, -R13",
            Ffma {
                d: Reg(13),
                ftz: false,
                sat: true,
                rnd: FRnd::Rn,
                a: Reg(14),
                b: Src::Imm32(0x4000_0000),
                neg_b: true,
                c: Src::Reg(Reg(13)),
                neg_c: true,
            }
            .into(),
        ),
    ];
    for (text, want) in cases {
        let ParsedInst::Op(i) =
            parse_inst(text, &opts()).unwrap_or_else(|e| panic!("{text}: {e:?}"))
        else {
            panic!("{text}: not an op");
        };
        assert_eq!(i.op, want, "{text}");
        assert_eq!(Sass(&i.op).to_string(), text);
        let form = text.split(['.', ' ']).next().unwrap();
        assert_eq!(mnemonic(&i.op), Some(form), "{text}");
        // The same op with the base form's immediate kind prints with the base mnemonic.
        let mut base = want.clone();
        match &mut base {
            Op::Mov(o) => o.b = Src::Imm(0x5),
            Op::Iadd(o) => o.b = Src::Imm(0x5),
            Op::Iscadd(o) => o.b = Src::Imm(0x5),
            Op::Lop(o) => o.b = Src::Imm(0x5),
            Op::Imul(o) => o.b = Src::Imm(0x5),
            Op::Fadd(o) => o.b = Src::Imm(0x3f80_0000),
            Op::Fmul(o) => o.b = Src::Imm(0x3f80_0000),
            Op::Ffma(o) => o.b = Src::Imm(0x3f80_0000),
            op => panic!("{op:?}"),
        }
        assert_eq!(
            mnemonic(&base),
            Some(form.trim_end_matches("32I")),
            "{text}"
        );
        let printed = Sass(&base).to_string();
        assert!(
            printed.starts_with(form.trim_end_matches("32I")) && !printed.contains("32I"),
            "{printed}"
        );
    }
    // Text the forms refuse: a modifier only the base op has.
    for bad in [
        "IADD32I R1, R2, -R3",
        "LOP32I.AND.Z P0, R1, R2, 0x1",
        "FADD32I.RZ R1, R2, 1.0",
        "FMUL32I.D2 R1, R2, 1.0",
        "FFMA32I R1, R2, 1.0, R3",
    ] {
        assert!(parse_inst(bad, &opts()).is_err(), "{bad}");
    }
}
