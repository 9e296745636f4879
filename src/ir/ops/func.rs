//! Pure per-lane functions of one, two or three 32-bit values ([`Un`], [`Bin`], [`Tern`]): the
//! integer and binary32 arithmetic of the DXBC ALU under the Direct3D 11 rules. Each function
//! is named for what it computes; `crate::semantics::func` defines every one of them, once, for
//! both engines. Float functions take and return binary32 bits.

use crate::ir::operand::*;
use crate::ir::roles::*;
use std::sync::Arc;

macro_rules! lane_fns {
    ($(#[$m:meta])* $name:ident { $($(#[$d:meta])* $v:ident,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$d])* $v,)*
        }

        impl $name {
            /// Every function, in table order.
            pub const ALL: &'static [$name] = &[$($name::$v),*];
        }
    };
}

lane_fns! {
    /// A function of one value.
    UnFn {
        /// Two's complement negation.
        Ineg,
        /// Bitwise not.
        Not,
        /// Bit reversal.
        Bfrev,
        /// Population count.
        CountBits,
        /// Index of the highest set bit counted from the MSB (D3D `firstbit_hi`); `!0` for 0.
        FirstBitHi,
        /// Index of the lowest set bit; `!0` for 0.
        FirstBitLo,
        /// `firstbit_shi`: the highest bit that differs from the sign, from the MSB; `!0` for 0 and -1.
        FirstBitShi,
        /// Signed integer to float.
        Itof,
        /// Unsigned integer to float.
        Utof,
        /// Float to signed integer (toward zero, saturating, NaN to 0).
        Ftoi,
        /// Float to unsigned integer (toward zero, saturating, NaN to 0).
        Ftou,
        /// Float to half in the low 16 bits.
        F32ToF16,
        /// Half in the low 16 bits to float.
        F16ToF32,
        /// Fractional part.
        Frc,
        /// Round to nearest even integral value.
        RoundNe,
        /// Round toward negative infinity.
        RoundNi,
        /// Round toward positive infinity.
        RoundPi,
        /// Round toward zero.
        RoundZ,
        /// Square root.
        Sqrt,
        /// Reciprocal square root.
        Rsq,
        /// Reciprocal.
        Rcp,
        /// 2 to the power.
        Exp,
        /// Base-2 logarithm.
        Log,
        /// Sine.
        Sin,
        /// Cosine.
        Cos,
        /// Clamp to [0, 1], NaN to 0 (`_sat`).
        Sat,
        /// Flip the sign bit (the `-` source modifier of a float operand).
        FNeg,
        /// Clear the sign bit (the `|x|` source modifier).
        FAbs,
    }
}

lane_fns! {
    /// A function of two values.
    BinFn {
        /// Integer add (wrapping).
        Iadd,
        /// Low 32 bits of the product (signed and unsigned alike).
        MulLo,
        /// High 32 bits of the signed product.
        ImulHi,
        /// High 32 bits of the unsigned product.
        UmulHi,
        /// Unsigned quotient (`!0` when dividing by 0).
        Udiv,
        /// Unsigned remainder (`!0` when dividing by 0).
        Urem,
        /// Carry out of the unsigned add (0 or 1).
        AddCarry,
        /// Borrow out of the unsigned subtract `a - b` (0 or 1).
        SubBorrow,
        /// Wrapping subtract `a - b`.
        Isub,
        /// Shift left by the low 5 bits of `b`.
        Ishl,
        /// Arithmetic shift right by the low 5 bits of `b`.
        Ishr,
        /// Logical shift right by the low 5 bits of `b`.
        Ushr,
        /// Bitwise and.
        And,
        /// Bitwise or.
        Or,
        /// Bitwise xor.
        Xor,
        /// Signed minimum.
        Imin,
        /// Signed maximum.
        Imax,
        /// Unsigned minimum.
        Umin,
        /// Unsigned maximum.
        Umax,
        /// `!0` if equal, else 0.
        Ieq,
        /// `!0` if not equal.
        Ine,
        /// `!0` if signed less.
        Ilt,
        /// `!0` if signed greater or equal.
        Ige,
        /// `!0` if unsigned less.
        Ult,
        /// `!0` if unsigned greater or equal.
        Uge,
        /// The mask of `bfi`: `width` (a, low 5 bits) ones shifted left by `offset` (b, low 5 bits).
        BfMask,
        /// Float add.
        Add,
        /// Float multiply.
        Mul,
        /// Float divide.
        Div,
        /// Float minimum (a NaN operand gives the other).
        Min,
        /// Float maximum (a NaN operand gives the other).
        Max,
        /// `!0` if the floats are equal.
        Eq,
        /// `!0` if not equal (true when either is NaN).
        Ne,
        /// `!0` if less.
        Lt,
        /// `!0` if greater or equal.
        Ge,
    }
}

lane_fns! {
    /// A function of three values.
    TernFn {
        /// Low 32 bits of `a * b + c`.
        Imad,
        /// Float `a * b + c`, the product rounded first (unfused).
        Mad,
        /// `b` where `a` is non-zero, else `c`.
        Movc,
        /// `(b & a) | (c & !a)`: bits of `b` where the mask `a` is set, of `c` elsewhere.
        BitSelect,
        /// Unsigned bit-field extract: width `a`, offset `b` (low 5 bits each) from `c`.
        Ubfe,
        /// Signed bit-field extract.
        Ibfe,
        /// Masked sum of absolute byte differences of reference `a` and source `b`, plus `c`
        /// (reference bytes that are 0 are skipped).
        Msad,
    }
}

/// `d = f(a)` in each lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Un {
    /// Destination.
    pub d: Reg,
    /// The function.
    pub f: UnFn,
    /// Operand.
    pub a: Src,
}

impl Operands for Un {
    fn operands(&self, o: &mut Roles<'_>) {
        let Un { d, f: _, a } = *self;
        o.def(d);
        o.src(a);
    }
}

/// `d = f(a, b)` in each lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bin {
    /// Destination.
    pub d: Reg,
    /// The function.
    pub f: BinFn,
    /// First operand.
    pub a: Src,
    /// Second operand.
    pub b: Src,
}

impl Operands for Bin {
    fn operands(&self, o: &mut Roles<'_>) {
        let Bin { d, f: _, a, b } = *self;
        o.def(d);
        o.src(a);
        o.src(b);
    }
}

/// `d = f(a, b, c)` in each lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tern {
    /// Destination.
    pub d: Reg,
    /// The function.
    pub f: TernFn,
    /// First operand.
    pub a: Src,
    /// Second operand.
    pub b: Src,
    /// Third operand.
    pub c: Src,
}

impl Operands for Tern {
    fn operands(&self, o: &mut Roles<'_>) {
        let Tern { d, f: _, a, b, c } = *self;
        o.def(d);
        o.src(a);
        o.src(b);
        o.src(c);
    }
}

/// `d = table[index]` in each lane, 0 past its end: a constant table the program carries (DXBC's
/// immediate constant buffer, `icb[...]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    /// Destination.
    pub d: Reg,
    /// Word index.
    pub index: Src,
    /// The words.
    pub table: Arc<[u32]>,
}

impl Operands for Table {
    fn operands(&self, o: &mut Roles<'_>) {
        let Table { d, index, table: _ } = self;
        o.def(*d);
        o.src(*index);
    }
}
