//! The op table: every per-lane operation of the IR, defined once.
//!
//! [`for_each_op!`](crate::for_each_op) is the single list of ops: `Variant(Struct)`. Each op is
//! one struct (in [`alu`] or [`memory`]) with, right below it, its [`Operands`](super::roles::Operands) impl: every field
//! by role (registers and widths, predicates, flags, the LEA.LO word, memory), from which the
//! register visitor, effects, liveness and uniformity are derived (see [`super::roles`]).
//!
//! The table is IR-neutral: no spellings. Every consumer expands it (`$m! { Variant(Struct), ... }`)
//! and needs one implementation per op, each found by the compiler when missing: the
//! interpreter's `Exec`, the JIT's `Lower` (its native lowering), and each
//! front-end's spelling (the SASS table in `sass::spelling` gives every op a SASS syntax or
//! declares it has none).
//!
//! Control flow (BRA, SSY, SYNC, EXIT, BAR) is not an op: it ends a block as a
//! [`Terminator`](super::Terminator).

pub mod alu;
pub mod barrier;
pub mod convert;
pub mod float;
pub mod func;
pub mod imadsp;
pub mod int;
pub mod memory;
pub mod resource;
pub mod warp;

pub use alu::*;
pub use barrier::*;
pub use convert::*;
pub use float::*;
pub use func::*;
pub use imadsp::*;
pub use int::*;
pub use memory::*;
pub use resource::*;
pub use warp::*;

/// Invokes `$m!` with the whole op list: `Variant(Struct)`, comma separated.
#[macro_export]
macro_rules! for_each_op {
    ($m:ident) => {
        $m! {
            Mov(Mov),
            S2r(S2r),
            Iadd(Iadd),
            Iadd3(Iadd3),
            Iscadd(Iscadd),
            Xmad(Xmad),
            Shl(Shl),
            Shr(Shr),
            Shf(Shf),
            Lop(Lop),
            Lop3(Lop3),
            Bfe(Bfe),
            Bfi(Bfi),
            Popc(Popc),
            Flo(Flo),
            Sel(Sel),
            Isetp(Isetp),
            Psetp(Psetp),
            P2r(P2r),
            Imnmx(Imnmx),
            Vmnmx(Vmnmx),
            Vabsdiff(Vabsdiff),
            Vabsdiff4(Vabsdiff4),
            Icmp(Icmp),
            Prmt(Prmt),
            Fadd(Fadd),
            Fmul(Fmul),
            Ffma(Ffma),
            Fmnmx(Fmnmx),
            Fset(Fset),
            Fsetp(Fsetp),
            Fcmp(Fcmp),
            Mufu(Mufu),
            Rro(Rro),
            Fchk(Fchk),
            Iset(Iset),
            Pset(Pset),
            Csetp(Csetp),
            R2p(R2p),
            Imul(Imul),
            Imad(Imad),
            Imadsp(Imadsp),
            Lea(Lea),
            Ldc(Ldc),
            Ldg(Ldg),
            Stg(Stg),
            Ld(Ld),
            St(St),
            Lds(Lds),
            Sts(Sts),
            Ldl(Ldl),
            Stl(Stl),
            Membar(Membar),
            Nop(Nop),
            Bpt(Bpt),
            Depbar(Depbar),
            Atomg(Atomg),
            Red(Red),
            Atoms(Atoms),
            Shfl(Shfl),
            Vote(Vote),
            Cs2r(Cs2r),
            Un(Un),
            Bin(Bin),
            Tern(Tern),
            LdBuf(LdBuf),
            StBuf(StBuf),
            LdTex(LdTex),
            StTex(StTex),
            Atom(Atom),
            Info(Info),
            Table(Table),
            Sample(Sample),
            Deriv(Deriv),
            I2f(I2f),
            F2i(F2i),
            F2f(F2f),
            I2i(I2i),
            Dadd(Dadd),
            Dmul(Dmul),
            Dfma(Dfma),
            Dmnmx(Dmnmx),
            Dsetp(Dsetp),
            Dset(Dset),
            B2r(B2r),
        }
    };
}

macro_rules! define_op_enum {
    ($($v:ident($s:ident),)*) => {
        /// One per-lane operation of the IR (see the module docs for the table).
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum Op {
            $(
                #[doc = concat!("[`", stringify!($s), "`]")]
                $v($s),
            )*
        }

        impl Op {
            /// The op's name in the table (its variant, e.g. `Iadd3`): IR-neutral, for
            /// diagnostics; front-ends have their own spellings.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Op::$v(_) => stringify!($v),)*
                }
            }

        }

        $(
            impl From<$s> for Op {
                fn from(op: $s) -> Op {
                    Op::$v(op)
                }
            }
        )*
    };
}
for_each_op!(define_op_enum);
