//! Condition-code tests as formulas over the four flags (docs/semantics.md §21).
//!
//! Tests 0 to 15 follow the formula table envytools documents for NVIDIA's condition codes (the
//! same codes and order Maxwell keeps): integer results never set ZF and SF together, and there
//! the tests mean what their names say (`LT`: signed less; `LTU` the same for integers); ZF and
//! SF both set is the floating-point "unordered" state (`NAN`). Tests 16 to 23 test one flag or
//! an unsigned comparison: `OFF`/`OFT` OF clear/set, `LO`/`HS` CF clear/set, `SFF`/`SFT` SF
//! clear/set, `LS` = ZF or not CF, `HI` = CF and not ZF (after `a - b` computed as `a + ~b + 1`,
//! CF set means no borrow: a ≥ b unsigned). The interpreter, the dispatcher and the JIT evaluate
//! these trees (`semantics::cc`); the analyses read [`CcExpr::reads`].

use super::CcTest;

/// A boolean formula over the four CC flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcExpr {
    /// False.
    Never,
    /// True.
    Always,
    /// ZF.
    Z,
    /// SF.
    S,
    /// CF.
    C,
    /// OF.
    O,
    /// Not.
    Not(&'static CcExpr),
    /// And.
    And(&'static CcExpr, &'static CcExpr),
    /// Or.
    Or(&'static CcExpr, &'static CcExpr),
    /// Exclusive or.
    Xor(&'static CcExpr, &'static CcExpr),
}

use CcExpr::*;

impl CcTest {
    /// The test's formula (docs/semantics.md §21).
    pub fn expr(self) -> &'static CcExpr {
        match self {
            CcTest::F => &Never,
            CcTest::Lt => &Xor(&And(&S, &Not(&Z)), &O),
            CcTest::Eq => &And(&Z, &Not(&S)),
            CcTest::Le => &Xor(&S, &Or(&Z, &O)),
            CcTest::Gt => &And(&Not(&Z), &Not(&Xor(&S, &O))),
            CcTest::Ne => &Not(&Z),
            CcTest::Ge => &Not(&Xor(&S, &O)),
            CcTest::Num => &Or(&Not(&Z), &Not(&S)),
            CcTest::Nan => &And(&Z, &S),
            CcTest::Ltu => &Xor(&S, &O),
            CcTest::Equ => &Z,
            CcTest::Leu => &Or(&Z, &Xor(&S, &O)),
            CcTest::Gtu => &Xor(&Not(&S), &Or(&Z, &O)),
            CcTest::Neu => &Or(&Not(&Z), &S),
            CcTest::Geu => &Xor(&Or(&Not(&S), &Z), &O),
            CcTest::T => &Always,
            CcTest::Off => &Not(&O),
            CcTest::Lo => &Not(&C),
            CcTest::Sff => &Not(&S),
            CcTest::Ls => &Or(&Z, &Not(&C)),
            CcTest::Hi => &And(&Not(&Z), &C),
            CcTest::Sft => &S,
            CcTest::Hs => &C,
            CcTest::Oft => &O,
        }
    }
}

impl CcExpr {
    /// Evaluates the formula bitwise on lane masks of ZF, SF, CF and OF.
    pub fn eval(&self, zf: u32, sf: u32, cf: u32, of: u32) -> u32 {
        let e = |x: &CcExpr| x.eval(zf, sf, cf, of);
        match *self {
            Never => 0,
            Always => u32::MAX,
            Z => zf,
            S => sf,
            C => cf,
            O => of,
            Not(a) => !e(a),
            And(a, b) => e(a) & e(b),
            Or(a, b) => e(a) | e(b),
            Xor(a, b) => e(a) ^ e(b),
        }
    }

    /// The flags the formula reads, as `[ZF, SF, CF, OF]`.
    pub fn reads(&self) -> [bool; 4] {
        match *self {
            Never | Always => [false; 4],
            Z => [true, false, false, false],
            S => [false, true, false, false],
            C => [false, false, true, false],
            O => [false, false, false, true],
            Not(a) => a.reads(),
            And(a, b) | Or(a, b) | Xor(a, b) => {
                let (x, y) = (a.reads(), b.reads());
                std::array::from_fn(|i| x[i] | y[i])
            }
        }
    }
}
