//! The Direct3D shader model 4/5 (DXBC) front-end layer: a typed program model and its two readers.
//!
//! What exists:
//! - [`ast`]: the model of a program (version, declarations, instructions with their modifiers,
//!   operands with indices, component selections and modifiers). The instruction opcodes come from one
//!   table ([`ast::Opcode`]) giving each its listing spelling and token number.
//! - [`text`]: the reader of listings as Microsoft's compilers print them (pasted whole, comments
//!   included), with located errors, and the printer back to that syntax (`parse(print(p)) == p`,
//!   float literals bit for bit).
//! - [`container`] and [`tokens`]: the reader of `DXBC` containers (the SHDR or SHEX chunk; other
//!   chunks ignored) and of their token stream into the same model, with errors naming the byte
//!   offset; and the inverse, a token encoder and container writer.
//!
//! What does not exist yet: no lowering of the model to the IR, no semantic checks (stage rules,
//! declared registers, operand counts per opcode), and nothing reaches this module from traces or
//! the command line (`frontend` still refuses `isa = "dxbc"`).

pub mod ast;
pub mod container;
pub mod text;
pub mod tokens;

pub use ast::Program;
