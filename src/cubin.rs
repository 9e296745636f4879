//! Loader for CUDA cubins: the ELF files that NVIDIA's `ptxas` makes for one GPU architecture.
//!
//! [`Cubin::parse`] reads a Maxwell (`sm_50`, `sm_52`, `sm_53`) cubin and returns, per kernel, its
//! machine code (the bytes of `.text.NAME`, not decoded here) and the facts a launcher needs:
//! registers per thread, static shared memory, per-thread local memory (stack), the kernel's own
//! constant bank 2, where the parameters live in constant bank 0 and how many bytes they take,
//! and the offsets of its `EXIT` instructions. The module's constant bank 3 (`__constant__` data)
//! is shared by all kernels.
//!
//! The ELF container is read with the `object` crate; this module adds the CUDA-specific parts
//! (architecture in `e_flags`, kernel symbols, the `.nv.info` attribute records) and checks every
//! size and offset it uses, so that a truncated or inconsistent file gives a [`CubinError`] that
//! names the section and the byte of the file, never a panic.
//!
//! What was verified against real `ptxas` 12.9 output (the fixtures in `tests/cubin/`, whose
//! README says what each kernel does):
//! - `e_ident[EI_ABIVERSION]` is 7 and `e_flags` is `0x320532`: the SM number (50) in the low byte,
//!   the virtual architecture (`compute_50`) in bits 16..23, and `EF_CUDA_64BIT_ADDRESS` (0x400) |
//!   `EF_CUDA_TEXMODE_UNIFIED` (0x100) in bits 8..11. Files of ELF ABI version 8 (CUDA 12.8 and
//!   later for Blackwell) keep the SM number in bits 8..15 instead; [`Cubin::parse`] reads it there
//!   for them (and then rejects it, as no such file is a Maxwell one).
//! - Kernels are function symbols with `STO_CUDA_ENTRY` (0x10) in `st_other`, global binding, value
//!   0, in a section named `.text.NAME`. Device subroutines that ptxas does not inline are function
//!   symbols *inside* the kernel's `.text.NAME` (`$calls$twice`, global, and `$calls$thrice`, local,
//!   in `calls.cubin`), without `STO_CUDA_ENTRY`: global binding alone does not make a kernel.
//! - `sh_info` of `.text.NAME` holds the register count in its top 8 bits (and the kernel symbol's
//!   index in the low 24); it equals the value of `EIATTR_REGCOUNT` in `.nv.info` for every
//!   fixture kernel.
//! - The `.nv.info` sections are sequences of records `u8 format, u8 attribute, u16 value-or-size`;
//!   the formats seen are 0x01 (`EIFMT_NVAL`, no value), 0x03 (`EIFMT_HVAL`, the 16-bit value
//!   inline) and 0x04 (`EIFMT_SVAL`, followed by `size` bytes). 0x02 (`EIFMT_BVAL`) carries a byte
//!   inline, also in the 4-byte record. See [`EIATTR_PARAM_CBANK`] and its neighbours for the
//!   attributes this module reads and what their payloads were seen to hold.

use object::elf::{self, FileHeader64};
use object::read::elf::{FileHeader, SectionHeader, SectionTable, Sym, SymbolTable};
use object::read::{SectionIndex, SymbolIndex};
use object::LittleEndian;
use std::collections::{HashMap, HashSet};

/// `e_machine` of CUDA cubins (`EM_CUDA`).
pub const EM_CUDA: u16 = 190;

/// The bit of a symbol's `st_other` that marks a kernel entry point (`STO_CUDA_ENTRY`).
pub const STO_CUDA_ENTRY: u8 = 0x10;

/// `.nv.info` record format: no value (`EIFMT_NVAL`); the record is 4 bytes.
pub const EIFMT_NVAL: u8 = 0x01;
/// `.nv.info` record format: a byte value inline (`EIFMT_BVAL`); the record is 4 bytes.
pub const EIFMT_BVAL: u8 = 0x02;
/// `.nv.info` record format: a 16-bit value inline (`EIFMT_HVAL`); the record is 4 bytes.
pub const EIFMT_HVAL: u8 = 0x03;
/// `.nv.info` record format: `size` bytes of payload follow the 4-byte record head (`EIFMT_SVAL`).
pub const EIFMT_SVAL: u8 = 0x04;

/// `EIATTR_PARAM_CBANK` (`.nv.info.NAME`, `EIFMT_SVAL`, 8 bytes): `u32` symbol index of the
/// kernel's `.nv.constant0.NAME` section symbol, `u16` offset of the parameters in constant bank 0
/// (0x140 in every fixture), `u16` their size in bytes (`vadd(u64, u64, u64, u32)`: 28;
/// `carry128(u64, u64, u64)`: 24; `consts(u64)`: 8).
pub const EIATTR_PARAM_CBANK: u8 = 0x0a;
/// `EIATTR_FRAME_SIZE` (`.nv.info`, `EIFMT_SVAL`, 8 bytes): `u32` function symbol index, `u32`
/// frame size in bytes (256 for `stack`, whose 64-word local array is kept in local memory; 0 for
/// the others).
pub const EIATTR_FRAME_SIZE: u8 = 0x11;
/// `EIATTR_MAX_THREADS` (`.nv.info.NAME`, `EIFMT_SVAL`, 12 bytes): the kernel's `.maxntid`
/// (CUDA's `__launch_bounds__`, Numba's `launch_bounds`), three `u32` x, y, z.
pub const EIATTR_MAX_THREADS: u8 = 0x05;
/// `EIATTR_MIN_STACK_SIZE` (`.nv.info`, `EIFMT_SVAL`, 8 bytes): `u32` kernel symbol index, `u32`
/// stack size in bytes (256 for `stack`, 0 for the others).
pub const EIATTR_MIN_STACK_SIZE: u8 = 0x12;
/// `EIATTR_KPARAM_INFO` (`.nv.info.NAME`, `EIFMT_SVAL`, 12 bytes, one per parameter, last one
/// first): `u32` index (0), `u16` ordinal, `u16` byte offset in the parameter block, `u32` flags
/// whose bits 18..31 hold the parameter's size in bytes (0x0021f000 for a `u64`, 0x0011f000 for a
/// `u32`).
pub const EIATTR_KPARAM_INFO: u8 = 0x17;
/// `EIATTR_MAXREG_COUNT` (`.nv.info.NAME`, `EIFMT_HVAL`): the register limit ptxas worked with
/// (0xff in every fixture). Not read.
pub const EIATTR_MAXREG_COUNT: u8 = 0x1b;
/// `EIATTR_CBANK_PARAM_SIZE` (`.nv.info.NAME`, `EIFMT_HVAL`): the parameter size in bytes, equal
/// to the size in [`EIATTR_PARAM_CBANK`] in every fixture.
pub const EIATTR_CBANK_PARAM_SIZE: u8 = 0x19;
/// `EIATTR_EXIT_INSTR_OFFSETS` (`.nv.info.NAME`, `EIFMT_SVAL`): `u32` byte offsets in
/// `.text.NAME` of the kernel's `EXIT` instructions (two in `vadd`, the early exit of the bounds
/// check and the final one).
pub const EIATTR_EXIT_INSTR_OFFSETS: u8 = 0x1c;
/// `EIATTR_INDIRECT_BRANCH_TARGETS` (`.nv.info.NAME`, `EIFMT_SVAL`): per indirect branch of the
/// kernel's code, `u32` its byte offset in `.text.NAME`, two `u16`s, `u32` a count, then that
/// many `u32` target offsets. ptxas 12.9 lists every `BRX` it writes for a `switch` (both
/// `u16`s 0; the targets are the values of its jump table in `.nv.constant2.NAME`, some at a
/// multiple of 0x20, a group's scheduling word, meaning the instruction after it) and every
/// `SYNC` (its one target, the reconvergence point); a `BRX` that is an indirect call (after
/// `PRET`, through a function pointer) has the first `u16` 1 and no targets. Read into
/// [`Kernel::indirect_branches`].
pub const EIATTR_INDIRECT_BRANCH_TARGETS: u8 = 0x34;
/// `EIATTR_MAX_STACK_SIZE` (`.nv.info`, `EIFMT_SVAL`, 8 bytes): `u32` kernel symbol index, `u32`
/// stack size including callees. Not emitted for any fixture; read like
/// [`EIATTR_MIN_STACK_SIZE`].
pub const EIATTR_MAX_STACK_SIZE: u8 = 0x23;
/// `EIATTR_REGCOUNT` (`.nv.info`, `EIFMT_SVAL`, 8 bytes): `u32` kernel symbol index, `u32`
/// registers per thread; the same number as the top byte of `.text.NAME`'s `sh_info`, which is
/// what [`Kernel::registers`] reports.
pub const EIATTR_REGCOUNT: u8 = 0x2f;

/// Where the parameters start in constant bank 0 on `sm_5x` when `EIATTR_PARAM_CBANK` does not
/// say (`c[0x0][0x140]`).
pub const DEFAULT_PARAM_OFFSET: u32 = 0x140;

/// The largest constant bank (64 KiB); a bigger `.nv.constant*` section is an error.
const MAX_CONST_BANK: u64 = 0x1_0000;

/// A parsed Maxwell cubin: its architecture, its kernels and its `__constant__` data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cubin {
    /// The SM number of the machine code: 50, 52 or 53.
    pub arch: u32,
    /// The kernels (entry points), in the order of their `.text.NAME` sections in the file.
    pub kernels: Vec<Kernel>,
    /// The contents of `.nv.constant3` (constant bank 3, the module's `__constant__` data, with
    /// the initial values given in the source); empty if the file has no such section.
    pub const3: Vec<u8>,
    /// The module's `__device__` data and the words of constant bank 4 that hold its addresses.
    pub module: ModuleData,
    /// The named variables of the module's data sections (`__device__` and `__constant__`
    /// symbols, and the compiler's own such as `$str`), in symbol-table order: what a driver's
    /// `cuModuleGetGlobal` looks up.
    pub symbols: Vec<DataSymbol>,
    /// The functions with a code section of their own that are not kernels.
    pub functions: Vec<Function>,
}

/// A named variable of a cubin's data: `__device__` (in `.nv.global.init` or `.nv.global`) or
/// `__constant__` (in `.nv.constant3`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataSymbol {
    /// The symbol's name.
    pub name: String,
    /// Where it lives.
    pub section: DataSection,
    /// Its offset in that section (`st_value`).
    pub offset: u64,
    /// Its size in bytes (`st_size`).
    pub size: u64,
}

/// The data section a [`DataSymbol`] lies in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataSection {
    /// `.nv.global.init` or `.nv.global`: `__device__` data in global memory.
    Global(ModuleSection),
    /// `.nv.constant3`: `__constant__` data, constant bank 3.
    Constant,
}

/// A module's `__device__` variables: `.nv.global.init` (those with initial values) and
/// `.nv.global` (zeroed), which the loader maps into global memory, and `.nv.constant4`, whose
/// words the relocations of `.rel.nv.constant4` set to their addresses (what the CUDA driver
/// does when it loads the module; ptxas leaves them to it even in a linked cubin). libdevice's
/// `sinf`, `cosf` and `sin` read their argument-reduction table this way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleData {
    /// The contents of `.nv.global.init`.
    pub init: Vec<u8>,
    /// The size of `.nv.global`.
    pub zeroed: u64,
    /// The contents of `.nv.constant4` before the relocations.
    pub const4: Vec<u8>,
    /// The relocations of `.rel.nv.constant4`.
    pub relocs: Vec<Reloc>,
    /// Words of `.nv.constant4` that a relocation sets to the address of a function the file
    /// does not define (`R_CUDA_32` to `vprintf`, which ptxas calls through `JMX c[0x4][..]`):
    /// (offset in the bank, the function's name). The driver supplies such functions.
    pub externs4: Vec<(u32, String)>,
    /// The relocations of `.rel.nv.global.init`: initialised `__device__` data that holds
    /// addresses of other data of the module (`R_CUDA_64`, `R_CUDA_G64`, `R_CUDA_32`,
    /// `R_CUDA_G32`: strings of a debug module, a table of pointers), each an offset into
    /// `.nv.global.init` where [`ModuleData::init_image`] writes the address.
    pub init_relocs: Vec<Reloc>,
    /// Words of `.nv.global.init` that hold a function descriptor (`R_CUDA_FUNC_DESC_64`: a
    /// pointer to a device function, such as the device runtime's table of its memcpy and
    /// memset functions in a module linked with it): (offset in `.nv.global.init`, the value
    /// written, [`func_desc`] of the function).
    pub init_func_descs: Vec<(u32, u64)>,
}

/// The value warpjit writes for a function descriptor (`R_CUDA_FUNC_DESC_64`) of the function
/// at `offset` bytes into the code section with index `section`: [`FUNC_DESC_BASE`] +
/// `section` × 2^32 + `offset`. Not an address of memory (a kernel that reads through it
/// faults), never 0, and equal only for the same function; warpjit does not call through
/// function pointers (the decoder refuses such calls), so no kernel it runs jumps to it.
pub fn func_desc(section: u16, offset: u64) -> u64 {
    FUNC_DESC_BASE
        .wrapping_add(u64::from(section) << 32)
        .wrapping_add(offset & 0xffff_ffff)
}

/// Where [`func_desc`]'s values start: 0xfd00_0000_0000_0000, in the upper half of the address
/// space, where nothing is mapped.
pub const FUNC_DESC_BASE: u64 = 0xfd00_0000_0000_0000;

/// Which of the module's data sections a relocation's symbol lies in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleSection {
    /// `.nv.global.init`.
    Init,
    /// `.nv.global`.
    Zeroed,
}

/// One relocation of `.rel.nv.constant4`: the `bytes` (4 or 8) at `offset` of bank 4 become the
/// address of `offset_in` bytes into `section` (the symbol's value plus the addend).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reloc {
    /// Where in `.nv.constant4`.
    pub offset: u32,
    /// 8 (`R_CUDA_64`) or 4 (`R_CUDA_32`).
    pub bytes: u8,
    /// The section the address points into.
    pub section: ModuleSection,
    /// How far into it.
    pub offset_in: u64,
}

impl ModuleData {
    /// Whether the module has no `__device__` data and no relocations.
    pub fn is_empty(&self) -> bool {
        self.init.is_empty() && self.zeroed == 0 && self.relocs.is_empty()
    }

    /// `.nv.global.init` with its relocations applied ([`ModuleData::init_relocs`],
    /// [`ModuleData::init_func_descs`]), for the module's data mapped as `place` says.
    pub fn init_image(&self, place: DataPlacement) -> Vec<u8> {
        let mut image = self.init.clone();
        let mut put = |at: u32, n: u8, v: u64| {
            let (at, n) = (at as usize, usize::from(n).min(8));
            // (A parsed module's relocations lie inside the section; one built by hand may not.)
            if let Some(dst) = image.get_mut(at..at.saturating_add(n)) {
                dst.copy_from_slice(&v.to_le_bytes()[..n]);
            }
        };
        for r in &self.init_relocs {
            put(
                r.offset,
                r.bytes,
                place.of(r.section).wrapping_add(r.offset_in),
            );
        }
        for &(at, v) in &self.init_func_descs {
            put(at, 8, v);
        }
        image
    }

    /// Bytes of global memory the module's `__device__` data takes when mapped as the trace
    /// loader and [`crate::device`] map it: `.nv.global.init` at the base, `.nv.global` at the
    /// next multiple of 256 after it ([`ModuleData::zeroed_offset`]).
    pub fn mapped_size(&self) -> u64 {
        self.zeroed_offset() + self.zeroed
    }

    /// Where `.nv.constant3` (bank 3's backing) starts in the module's data image as warpjit's
    /// CUDA driver maps it: after the `__device__` data, at the next multiple of 256.
    pub fn const3_offset(&self) -> u64 {
        self.mapped_size().next_multiple_of(256)
    }

    /// Where `.nv.global` starts, from the base of the module's data: `.nv.global.init`'s size
    /// rounded up to 256.
    pub fn zeroed_offset(&self) -> u64 {
        (self.init.len() as u64).next_multiple_of(256)
    }

    /// Constant bank 4 with the relocations applied, for `.nv.global.init` mapped at `init` and
    /// `.nv.global` at `zeroed`.
    pub fn bank4(&self, init: u64, zeroed: u64) -> Vec<u8> {
        let mut bank = self.const4.clone();
        for r in &self.relocs {
            let base = match r.section {
                ModuleSection::Init => init,
                ModuleSection::Zeroed => zeroed,
            };
            let v = base.wrapping_add(r.offset_in).to_le_bytes();
            let (at, n) = (r.offset as usize, (r.bytes as usize).min(8));
            // (A parsed module's relocations lie inside the bank; one built by hand may not.)
            if let Some(dst) = bank.get_mut(at..at.saturating_add(n)) {
                dst.copy_from_slice(&v[..n]);
            }
        }
        bank
    }
}

/// One kernel of a [`Cubin`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// The kernel's symbol name (mangled, if the source was C++).
    pub name: String,
    /// The bytes of `.text.NAME`: the machine code, a multiple of 8 bytes (on Maxwell one
    /// scheduling control word before every three instructions). Device subroutines called by the
    /// kernel are part of it.
    pub code: Vec<u8>,
    /// The file offset of `.text.NAME`, so that messages about the code can name the byte.
    pub code_offset: u64,
    /// Registers per thread (the top 8 bits of `.text.NAME`'s `sh_info`).
    pub registers: u32,
    /// Bytes of static shared memory per CTA: the size of `.nv.shared.NAME` (a `NOBITS`
    /// section), 0 if there is none.
    pub shared_bytes: u32,
    /// Bytes of local memory (stack) per thread: the largest of `EIATTR_FRAME_SIZE`,
    /// `EIATTR_MIN_STACK_SIZE` and `EIATTR_MAX_STACK_SIZE` given for this kernel's symbol in
    /// `.nv.info` or `.nv.info.NAME`, except 0xffffffff (ptxas's "unbounded", a recursive
    /// kernel's); 0 if none is given.
    pub local_bytes: u32,
    /// The contents of `.nv.constant2.NAME` (constant bank 2, the compiler's constants for this
    /// kernel); empty if absent.
    pub const2: Vec<u8>,
    /// The size of the parameter block in bytes: from `EIATTR_PARAM_CBANK`, else
    /// `EIATTR_CBANK_PARAM_SIZE`, else the end of the last parameter in `EIATTR_KPARAM_INFO`;
    /// `None` if `.nv.info.NAME` has none of them.
    pub param_bytes: Option<u32>,
    /// Where the parameters start in constant bank 0: from `EIATTR_PARAM_CBANK`, else
    /// [`DEFAULT_PARAM_OFFSET`] (0x140).
    pub param_offset: u32,
    /// Each parameter's ordinal, offset in the block and size, from its `EIATTR_KPARAM_INFO`
    /// record, by ordinal (empty for a kernel without parameters, or when the records are
    /// missing: [`Kernel::param_table`] tells them apart).
    pub params: Vec<crate::params::KernelParam>,
    /// Byte offsets in [`Kernel::code`] of the `EXIT` instructions, from
    /// `EIATTR_EXIT_INSTR_OFFSETS`; empty if the attribute is absent.
    pub exit_offsets: Vec<u32>,
    /// The indirect branches of the code and their targets, from
    /// [`EIATTR_INDIRECT_BRANCH_TARGETS`]; empty if the attribute is absent.
    pub indirect_branches: Vec<IndirectBranch>,
    /// The most threads a block of this kernel may have: the product of its `.maxntid` x, y
    /// and z ([`EIATTR_MAX_THREADS`]); `None` without launch bounds.
    pub max_threads: Option<u64>,
    /// The relocations of `.rel.text.NAME` (what nvJitLink leaves for the loader: the addresses
    /// of the module's data in `MOV32I` immediates, and calls to functions the driver supplies),
    /// in file order.
    pub code_relocs: Vec<CodeReloc>,
}

/// One entry of [`EIATTR_INDIRECT_BRANCH_TARGETS`]: an indirect branch and where it may go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndirectBranch {
    /// Byte offset of the branch in the kernel's code.
    pub offset: u32,
    /// The first of the entry's two 16-bit fields: 1 for a `BRX` that is an indirect call
    /// (ptxas gives it no targets), 0 for the others seen.
    pub kind: u16,
    /// The target offsets, as listed (a multiple of 0x20 means the instruction after it).
    pub targets: Vec<u32>,
}

impl Kernel {
    /// The kernel's parameter table: its `EIATTR_KPARAM_INFO` records, the block at
    /// [`Kernel::param_offset`] and of [`Kernel::param_bytes`] bytes (the end of the last record
    /// when the cubin gives no size). A kernel without parameters has an empty table (ptxas then
    /// writes neither records nor a size); `None` when the cubin gives a parameter size but no
    /// records, so that the parameters cannot be told apart.
    pub fn param_table(&self) -> Option<crate::params::ParamTable> {
        let end = self.params.iter().map(|p| p.offset + p.size).max();
        let size = match (self.param_bytes, end) {
            (Some(n), _) if n > 0 && self.params.is_empty() => return None,
            (Some(n), Some(_)) => n,
            (Some(n), None) => n,
            (None, e) => e.unwrap_or(0),
        };
        Some(crate::params::ParamTable {
            offset: self.param_offset,
            size,
            params: self.params.clone(),
        })
    }
}

/// A relocation of a kernel's code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeReloc {
    /// The byte offset of the instruction word in [`Kernel::code`] (a multiple of 8).
    pub offset: u32,
    /// Which part of the address goes into the word's 32-bit field at bit 20.
    pub kind: CodeRelocKind,
    /// What the address is of.
    pub target: RelocTarget,
}

/// Which 32 bits of a relocated address a [`CodeReloc`] writes into bits 20..52 of its
/// instruction word (`MOV32I`'s immediate, `JCAL`'s target).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeRelocKind {
    /// `R_CUDA_ABS32_20` (42): the address, which must fit in 32 bits.
    Abs32,
    /// `R_CUDA_ABS32_LO_20` (43): the low 32 bits.
    Lo32,
    /// `R_CUDA_ABS32_HI_20` (44): the high 32 bits.
    Hi32,
}

/// What a relocation's address is of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelocTarget {
    /// `offset` bytes into one of the module's data sections.
    Data {
        /// The section.
        section: ModuleSection,
        /// How far into it (the symbol's value plus the addend).
        offset: u64,
    },
    /// A function the file does not define (`vprintf`): the driver supplies it.
    Extern(String),
    /// Code of the file: `offset` bytes into `.text.SECTION` (a function nvJitLink keeps in a
    /// section of its own, such as `__cuda_sm20_div_rn_f64_full`, called by `JCAL`).
    Code {
        /// The section's name after `.text.`.
        section: String,
        /// How far into it.
        offset: u64,
    },
}

/// A function of a cubin that is not a kernel and has a code section of its own (nvJitLink
/// output keeps the compiler's subroutines this way); the kernels that call it get a copy
/// ([`Cubin::link`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// The section's name after `.text.`.
    pub name: String,
    /// Its code.
    pub code: Vec<u8>,
    /// The file offset of its code.
    pub code_offset: u64,
    /// Its relocations (`.rel.text.NAME`).
    pub code_relocs: Vec<CodeReloc>,
}

/// Where a module's `__device__` data is mapped: the addresses of `.nv.global.init` and
/// `.nv.global` (see [`ModuleData::bank4`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataPlacement {
    /// The address of `.nv.global.init`.
    pub init: u64,
    /// The address of `.nv.global`.
    pub zeroed: u64,
}

impl DataPlacement {
    /// The module's data mapped from `base` as [`ModuleData::mapped_size`] says.
    pub fn at(base: u64, data: &ModuleData) -> DataPlacement {
        DataPlacement {
            init: base,
            zeroed: base + data.zeroed_offset(),
        }
    }

    /// The address of `section`.
    pub fn of(&self, section: ModuleSection) -> u64 {
        match section {
            ModuleSection::Init => self.init,
            ModuleSection::Zeroed => self.zeroed,
        }
    }
}

/// A kernel's code ready to decode ([`Cubin::link`]): its own code, then a copy of each function
/// of another section it calls, every relocation applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkedCode {
    /// The code.
    pub code: Vec<u8>,
    /// The instructions that call a function the driver supplies: (byte offset in
    /// [`LinkedCode::code`], the function's name). The relocated `JCAL`s of nvJitLink's code;
    /// ptxas's `PRET` + `JMX` through bank 4 are found by the decoder
    /// ([`ModuleData::externs4`]).
    pub host_calls: Vec<(u32, String)>,
    /// Where each part came from: (start in [`LinkedCode::code`], file offset, length).
    pub parts: Vec<(u32, u64, u32)>,
}

impl LinkedCode {
    /// The file offset of byte `at` of the linked code (for messages).
    pub fn file_offset(&self, at: u32) -> u64 {
        self.parts
            .iter()
            .find(|(start, _, len)| at >= *start && at - start < *len)
            .map_or(0, |(start, file, _)| file + u64::from(at - start))
    }
}

/// Why a cubin could not be read: the byte of the file, the section (or header) concerned, and
/// what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("byte {offset:#x}: {section}: {message}")]
pub struct CubinError {
    /// The offset in the file of the byte (or the first byte of the field or record) at fault.
    pub offset: u64,
    /// The section, by name (`.text.vadd`), or the part of the file (`ELF header`, `section
    /// headers`) concerned.
    pub section: String,
    /// What is wrong.
    pub message: String,
}

impl CubinError {
    /// The error located in the file `bytes` (at `path`): its byte and the bytes around it, the
    /// section and the message.
    pub fn diagnostic(&self, path: &std::path::Path, bytes: &[u8]) -> crate::diag::Diagnostic {
        crate::diag::Diagnostic::byte(
            path,
            bytes,
            self.offset,
            format!("{}: {}", self.section, self.message),
        )
    }

    fn new(offset: u64, section: impl Into<String>, message: impl Into<String>) -> Self {
        CubinError {
            offset,
            section: section.into(),
            message: message.into(),
        }
    }
}

const ELF_HEADER: &str = "ELF header";
const SECTION_HEADERS: &str = "section headers";
/// Size of an ELF64 file header, section header and symbol.
const EHDR_SIZE: usize = 64;
const SHDR_SIZE: u64 = 64;
const SYM_SIZE: u64 = 24;

type Elf = FileHeader64<LittleEndian>;
type Shdr = elf::SectionHeader64<LittleEndian>;

/// One section, with its name checked and (unless `NOBITS`) its file range inside the file.
struct Section<'data> {
    name: String,
    header: &'data Shdr,
    /// File offset of the section's contents.
    offset: u64,
    /// `sh_size` (for `NOBITS`, the size in memory).
    size: u64,
    /// The contents (empty for `NOBITS`).
    data: &'data [u8],
    nobits: bool,
}

/// One `.nv.info` record.
struct InfoRecord<'data> {
    /// File offset of the record's head.
    offset: u64,
    format: u8,
    attr: u8,
    /// The inline value (formats 0x01..0x03) or the payload size (0x04).
    value: u16,
    /// The payload (format 0x04 only).
    payload: &'data [u8],
}

impl Cubin {
    /// Reads a cubin: an ELF64 little-endian file for `EM_CUDA` whose machine code is for
    /// `sm_50`, `sm_52` or `sm_53`, with its relocations already applied (made by `ptxas`
    /// without `-c`, or linked by `nvlink`).
    ///
    /// Every size and offset used is checked: a file of another kind, or one that is truncated or
    /// inconsistent, gives a [`CubinError`] naming the byte and the section.
    pub fn parse(bytes: &[u8]) -> Result<Cubin, CubinError> {
        let endian = LittleEndian;
        let header = check_header(bytes)?;
        let arch = arch_of(header)?;
        let sections = read_sections(header, bytes)?;
        // Not used, but a file whose program headers (the segments a driver would load) do not
        // fit is truncated or damaged. ptxas writes them last.
        header.program_headers(endian, bytes).map_err(|e| {
            CubinError::new(
                header.e_phoff(endian),
                "program headers",
                format!(
                    "{} program headers from byte {:#x}: {e}",
                    header.e_phnum(endian),
                    header.e_phoff(endian)
                ),
            )
        })?;

        for section in &sections {
            let kind = section.header.sh_type(endian);
            if (kind == elf::SHT_REL || kind == elf::SHT_RELA)
                && !relocates_const4(section)
                && !relocates_init(section)
                && relocated_text(section).is_none()
                && !relocates_unloaded(section, &sections)
            {
                return Err(CubinError::new(
                    section.offset,
                    &section.name,
                    "relocations are applied only to `.nv.constant4`, `.nv.global.init` and \
                     to kernel code (`.rel.text.NAME`): load a linked cubin (ptxas without -c, or nvlink or \
                     nvJitLink output)",
                ));
            }
        }

        let section_table = header
            .sections(endian, bytes)
            .map_err(|e| CubinError::new(shoff(header), SECTION_HEADERS, e.to_string()))?;
        let (symtab_index, symtab) = sections
            .iter()
            .enumerate()
            .find(|(_, s)| s.header.sh_type(endian) == elf::SHT_SYMTAB)
            .ok_or_else(|| {
                CubinError::new(shoff(header), SECTION_HEADERS, "no symbol table (.symtab)")
            })?;
        let symbols = SymbolTable::parse(
            endian,
            bytes,
            &section_table,
            SectionIndex(symtab_index),
            symtab.header,
        )
        .map_err(|e| CubinError::new(symtab.offset, &symtab.name, e.to_string()))?;

        let global_info = match find(&sections, ".nv.info") {
            Some(s) => info_records(s)?,
            None => Vec::new(),
        };

        let mut entries = Vec::new();
        for (index, symbol) in symbols.enumerate() {
            if symbol.st_type() != elf::STT_FUNC || symbol.st_other().0 & STO_CUDA_ENTRY == 0 {
                continue;
            }
            let symbol_offset = symtab.offset + index.0 as u64 * SYM_SIZE;
            let name = symbol_name(&symbols, &sections, symbol)?;
            let text_index = match symbols.symbol_section(endian, symbol, index) {
                Ok(Some(i)) if i.0 < sections.len() => i.0,
                _ => {
                    return Err(CubinError::new(
                        symbol_offset,
                        &symtab.name,
                        format!("kernel symbol `{name}` is not defined in a section of the file"),
                    ))
                }
            };
            let text = &sections[text_index];
            if text.name.strip_prefix(".text.") != Some(name.as_str()) {
                return Err(CubinError::new(
                    symbol_offset,
                    &symtab.name,
                    format!(
                        "kernel symbol `{name}` is defined in section `{}`, not `.text.{name}`",
                        text.name
                    ),
                ));
            }
            entries.push((text_index, index, name));
        }
        entries.sort_by_key(|&(text_index, _, _)| text_index);

        // Sections by name (the first of a name, as `find` gives) and the stack sizes
        // `.nv.info` gives per kernel symbol, each read once: a search of every section and
        // every record per kernel was quadratic in a cubin of thousands of kernels. The records
        // are checked when there is a kernel to read them for, as before.
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        for (i, s) in sections.iter().enumerate() {
            by_name.entry(s.name.as_str()).or_insert(i);
        }
        let mut stacks: HashMap<usize, u32> = HashMap::new();
        if let (Some(global), false) = (find(&sections, ".nv.info"), entries.is_empty()) {
            for record in &global_info {
                if let Some((owner, bytes)) = stack_owner(global, record)? {
                    let at = stacks.entry(owner).or_insert(0);
                    *at = (*at).max(bytes);
                }
            }
        }
        let mut kernels: Vec<Kernel> = Vec::with_capacity(entries.len());
        let mut names: HashSet<String> = HashSet::new();
        for (text_index, symbol_index, name) in entries {
            if !names.insert(name.clone()) {
                let text = &sections[text_index];
                return Err(CubinError::new(
                    text.offset,
                    &text.name,
                    format!("a second kernel symbol named `{name}`"),
                ));
            }
            let stack = stacks.get(&symbol_index.0).copied().unwrap_or(0);
            kernels.push(read_kernel(
                &sections,
                &by_name,
                symtab,
                text_index,
                symbol_index,
                name,
                stack,
            )?);
        }

        let const3 = match find(&sections, ".nv.constant3") {
            Some(s) => constant_bank(s)?,
            None => Vec::new(),
        };
        let module = module_data(&sections, symtab)?;
        let symbols = data_symbols(&sections, symtab)?;
        let mut functions = Vec::new();
        for s in &sections {
            let Some(name) = s.name.strip_prefix(".text.") else {
                continue;
            };
            if names.contains(name) {
                continue;
            }
            if s.header.sh_type(endian) != elf::SHT_PROGBITS || !s.data.len().is_multiple_of(8) {
                return Err(CubinError::new(
                    s.offset,
                    &s.name,
                    "a code section that is not PROGBITS or not whole 8-byte words",
                ));
            }
            functions.push(Function {
                name: name.to_string(),
                code: s.data.to_vec(),
                code_offset: s.offset,
                code_relocs: code_relocs(&sections, symtab, name, s.data.len())?,
            });
        }
        Ok(Cubin {
            arch,
            kernels,
            const3,
            module,
            symbols,
            functions,
        })
    }

    /// The kernel called `name`; with `None`, the only kernel of the file.
    ///
    /// The error says which kernels there are: when `name` is not one of them, or when `name` is
    /// `None` and the file has several kernels (or none).
    pub fn kernel(&self, name: Option<&str>) -> Result<&Kernel, String> {
        let names = || {
            let list: Vec<&str> = self.kernels.iter().map(|k| k.name.as_str()).collect();
            if list.is_empty() {
                "the cubin has no kernels".to_string()
            } else {
                format!("the cubin's kernels are: {}", list.join(", "))
            }
        };
        match name {
            Some(name) => self
                .kernels
                .iter()
                .find(|k| k.name == name)
                .ok_or_else(|| format!("no kernel named `{name}`: {}", names())),
            None => match self.kernels.as_slice() {
                [only] => Ok(only),
                [] => Err(names()),
                _ => Err(format!("which kernel? {}", names())),
            },
        }
    }
}

impl Cubin {
    /// Kernel `kernel`'s code ready to decode: its `.text` with every function of another
    /// section it calls (transitively) appended, each at a 32-byte boundary (padded with `NOP`
    /// groups), and the relocations applied as the CUDA driver applies them when it loads the
    /// module: the addresses of the module's data (mapped as `data` says) written into the
    /// instructions, and each `JCAL` to code of the file turned into the `CAL` that reaches the
    /// copy (a `JCAL`'s 32-bit absolute target and a `CAL`'s pc-relative one differ only in how
    /// the target is written). Calls to functions the driver supplies are listed, not resolved.
    ///
    /// An error names the relocation (its byte in the file): a data address without `data`, a
    /// relocated word that is not the instruction it should be, a call too far for `CAL`.
    pub fn link(
        &self,
        kernel: &Kernel,
        data: Option<DataPlacement>,
    ) -> Result<LinkedCode, CubinError> {
        const JCAL: u64 = 0xe220;
        const CAL: u64 = 0xe260;
        // Padding: NOP in an instruction slot, no effect in a scheduling word's.
        const NOP: u64 = 0x50b0_0000_0007_0f00;
        let mut out = LinkedCode {
            code: kernel.code.clone(),
            host_calls: Vec::new(),
            parts: vec![(0, kernel.code_offset, kernel.code.len() as u32)],
        };
        // (section name, start in the linked code), the kernel's own first.
        let mut placed: Vec<(String, u32)> = vec![(kernel.name.clone(), 0)];
        let mut todo: Vec<(u32, u64, &[CodeReloc])> =
            vec![(0, kernel.code_offset, &kernel.code_relocs)];
        while let Some((start, file, relocs)) = todo.pop() {
            for r in relocs {
                let at = start + r.offset;
                let err = |m: String| {
                    CubinError::new(
                        file + u64::from(r.offset),
                        format!("code of `{}`", kernel.name),
                        m,
                    )
                };
                let i = at as usize;
                let word = u64::from_le_bytes(out.code[i..i + 8].try_into().expect("8 bytes"));
                let patched = match &r.target {
                    RelocTarget::Data { section, offset } => {
                        let Some(place) = data else {
                            return Err(err(
                                "the code holds the address of the module's `__device__` data, \
                                 which is not placed"
                                    .into(),
                            ));
                        };
                        let addr = place.of(*section).wrapping_add(*offset);
                        let v = match r.kind {
                            CodeRelocKind::Lo32 => addr as u32,
                            CodeRelocKind::Hi32 => (addr >> 32) as u32,
                            CodeRelocKind::Abs32 => u32::try_from(addr).map_err(|_| {
                                err(format!("address {addr:#x} does not fit in 32 bits"))
                            })?,
                        };
                        word & !(0xffff_ffff << 20) | u64::from(v) << 20
                    }
                    RelocTarget::Extern(name) => {
                        if word >> 48 & 0xfff0 != JCAL {
                            return Err(err(format!(
                                "a relocation to `{name}` on a word that is not JCAL: {word:#018x}"
                            )));
                        }
                        out.host_calls.push((at, name.clone()));
                        word
                    }
                    RelocTarget::Code { section, offset } => {
                        if word >> 48 & 0xfff0 != JCAL || r.kind != CodeRelocKind::Abs32 {
                            return Err(err(format!(
                                "a relocation to code of `.text.{section}` on a word that is not \
                                 JCAL: {word:#018x}"
                            )));
                        }
                        let base = match placed.iter().find(|(n, _)| n == section) {
                            Some(&(_, b)) => b,
                            None => {
                                let f = self
                                    .functions
                                    .iter()
                                    .find(|f| f.name == *section)
                                    .ok_or_else(|| {
                                        err(format!("no function section `.text.{section}`"))
                                    })?;
                                while !out.code.len().is_multiple_of(32) {
                                    out.code.extend_from_slice(&NOP.to_le_bytes());
                                }
                                let b = out.code.len() as u32;
                                out.code.extend_from_slice(&f.code);
                                while !out.code.len().is_multiple_of(32) {
                                    out.code.extend_from_slice(&NOP.to_le_bytes());
                                }
                                out.parts.push((b, f.code_offset, f.code.len() as u32));
                                placed.push((section.clone(), b));
                                todo.push((b, f.code_offset, &f.code_relocs));
                                b
                            }
                        };
                        let target = i64::from(base) + *offset as i64;
                        let rel = target - (i64::from(at) + 8);
                        if !(-(1 << 23)..(1 << 23)).contains(&rel) {
                            return Err(err(format!("call target {target:#x} is too far for CAL")));
                        }
                        word & !(0xfff0 << 48) & !(0xffff_ffff << 20)
                            | CAL << 48
                            | ((rel as u64) & 0xff_ffff) << 20
                    }
                };
                out.code[i..i + 8].copy_from_slice(&patched.to_le_bytes());
            }
        }
        Ok(out)
    }
}

fn shoff(header: &Elf) -> u64 {
    header.e_shoff(LittleEndian)
}

/// Checks the ELF identification and `e_machine`, and returns the file header.
fn check_header(bytes: &[u8]) -> Result<&Elf, CubinError> {
    if bytes.len() < EHDR_SIZE {
        return Err(CubinError::new(
            bytes.len() as u64,
            ELF_HEADER,
            format!(
                "the file ends after {} bytes, inside the {EHDR_SIZE}-byte ELF64 header",
                bytes.len()
            ),
        ));
    }
    if bytes[..4] != elf::ELFMAG {
        return Err(CubinError::new(
            0,
            ELF_HEADER,
            "not an ELF file (no \\x7fELF magic)",
        ));
    }
    if bytes[4] != elf::ELFCLASS64.0 {
        return Err(CubinError::new(
            4,
            ELF_HEADER,
            format!("ELF class {} is not ELFCLASS64 (2)", bytes[4]),
        ));
    }
    if bytes[5] != elf::ELFDATA2LSB.0 {
        return Err(CubinError::new(
            5,
            ELF_HEADER,
            format!("data encoding {} is not little-endian (1)", bytes[5]),
        ));
    }
    let header = Elf::parse(bytes).map_err(|e| CubinError::new(0, ELF_HEADER, e.to_string()))?;
    let machine = header.e_machine(LittleEndian).0;
    if machine != EM_CUDA {
        return Err(CubinError::new(
            18,
            ELF_HEADER,
            format!("e_machine {machine} is not EM_CUDA ({EM_CUDA}): not a cubin"),
        ));
    }
    Ok(header)
}

/// The SM number from `e_flags`: the low byte for ELF ABI versions up to 7, bits 8..15 for
/// version 8 (the layout NVIDIA introduced with Blackwell). Only 50, 52 and 53 are accepted.
fn arch_of(header: &Elf) -> Result<u32, CubinError> {
    let flags = header.e_flags(LittleEndian).0;
    let abi_version = header.e_ident().abi_version;
    let sm = if abi_version >= 8 {
        (flags >> 8) & 0xff
    } else {
        flags & 0xff
    };
    if matches!(sm, 50 | 52 | 53) {
        Ok(sm)
    } else {
        Err(CubinError::new(
            0x30,
            ELF_HEADER,
            format!(
                "e_flags {flags:#x} (ELF ABI version {abi_version}) say sm_{sm}: only Maxwell \
                 (sm_50, sm_52, sm_53) is supported"
            ),
        ))
    }
}

/// Every section with its name, and its contents checked to lie inside the file.
fn read_sections<'data>(
    header: &'data Elf,
    bytes: &'data [u8],
) -> Result<Vec<Section<'data>>, CubinError> {
    let endian = LittleEndian;
    let shoff = shoff(header);
    let shnum = u64::from(header.e_shnum(endian));
    let table_end = shnum
        .checked_mul(SHDR_SIZE)
        .and_then(|size| size.checked_add(shoff));
    if shoff == 0 || shnum == 0 {
        return Err(CubinError::new(
            0x28,
            ELF_HEADER,
            "the file has no section headers",
        ));
    }
    if usize::from(header.e_shentsize(endian)) != SHDR_SIZE as usize {
        return Err(CubinError::new(
            0x3a,
            ELF_HEADER,
            format!(
                "e_shentsize {} is not the {SHDR_SIZE} bytes of an ELF64 section header",
                header.e_shentsize(endian)
            ),
        ));
    }
    if table_end.is_none_or(|end| end > bytes.len() as u64) {
        return Err(CubinError::new(
            shoff,
            SECTION_HEADERS,
            format!(
                "{shnum} section headers of {SHDR_SIZE} bytes from byte {shoff:#x} run past the \
                 end of the {}-byte file",
                bytes.len()
            ),
        ));
    }
    let table: SectionTable<'data, Elf, &'data [u8]> = header
        .sections(endian, bytes)
        .map_err(|e| CubinError::new(shoff, SECTION_HEADERS, e.to_string()))?;
    let mut sections = Vec::with_capacity(table.len());
    for (index, section) in table.enumerate() {
        let header_offset = shoff + index.0 as u64 * SHDR_SIZE;
        let name = table.section_name(endian, section).map_err(|e| {
            CubinError::new(
                header_offset,
                format!("section {}", index.0),
                format!("section name: {e}"),
            )
        })?;
        let name = std::str::from_utf8(name).map_err(|_| {
            CubinError::new(
                header_offset,
                format!("section {}", index.0),
                "the section name is not UTF-8",
            )
        })?;
        let offset = section.sh_offset(endian);
        let size = section.sh_size(endian);
        let nobits =
            section.sh_type(endian) == elf::SHT_NOBITS || section.sh_type(endian) == elf::SHT_NULL;
        let data = if nobits {
            &[][..]
        } else {
            offset
                .checked_add(size)
                .filter(|&end| end <= bytes.len() as u64)
                .map(|end| &bytes[offset as usize..end as usize])
                .ok_or_else(|| {
                    CubinError::new(
                        header_offset,
                        name,
                        format!(
                            "its {size} bytes at {offset:#x} (sh_offset, sh_size) run past the \
                             end of the {}-byte file",
                            bytes.len()
                        ),
                    )
                })?
        };
        sections.push(Section {
            name: name.to_string(),
            header: section,
            offset,
            size,
            data,
            nobits,
        });
    }
    Ok(sections)
}

/// Whether `section` holds the relocations of `.nv.constant4`.
fn relocates_const4(section: &Section<'_>) -> bool {
    matches!(
        section.name.as_str(),
        ".rel.nv.constant4" | ".rela.nv.constant4"
    )
}

/// Whether `section` holds the relocations of `.nv.global.init`.
fn relocates_init(section: &Section<'_>) -> bool {
    matches!(
        section.name.as_str(),
        ".rel.nv.global.init" | ".rela.nv.global.init"
    )
}

/// Whether a relocation section applies to debug information (`sh_info` names one of the DWARF
/// sections `.debug_*` or `.nv_debug_*` of a module compiled with `-G` or `-lineinfo`, which
/// warpjit does not read): its relocations are ignored.
fn relocates_unloaded(section: &Section<'_>, sections: &[Section<'_>]) -> bool {
    let target = section.header.sh_info(LittleEndian) as usize;
    sections
        .get(target)
        .is_some_and(|t| t.name.starts_with(".debug_") || t.name.starts_with(".nv_debug"))
}

/// For `.rel.text.NAME` / `.rela.text.NAME`: `NAME`, the kernel whose code it relocates.
fn relocated_text<'s>(section: &'s Section<'_>) -> Option<&'s str> {
    section
        .name
        .strip_prefix(".rel.text.")
        .or_else(|| section.name.strip_prefix(".rela.text."))
}

/// A symbol-table entry read by hand (relocations name symbols by index): its name offset,
/// type, section index and value.
struct RawSym {
    name: u32,
    kind: u8,
    shndx: u16,
    value: u64,
    size: u64,
}

fn raw_sym(symtab: &Section<'_>, index: u64) -> Option<RawSym> {
    let at = usize::try_from(index.checked_mul(SYM_SIZE)?).ok()?;
    let e = symtab.data.get(at..at.checked_add(SYM_SIZE as usize)?)?;
    Some(RawSym {
        name: u32_at(e, 0),
        kind: e[4] & 0xf,
        shndx: u16::from_le_bytes([e[6], e[7]]),
        value: u64::from_le_bytes(e[8..16].try_into().ok()?),
        size: u64::from_le_bytes(e[16..24].try_into().ok()?),
    })
}

/// A symbol's name from the string table `symtab` links to (`sh_link`), checked to be UTF-8.
fn raw_sym_name(
    sections: &[Section<'_>],
    symtab: &Section<'_>,
    sym: &RawSym,
) -> Result<String, CubinError> {
    let strtab = sections.get(symtab.header.sh_link(LittleEndian) as usize);
    let bad = |m: &str| {
        CubinError::new(
            strtab.map_or(symtab.offset, |s| s.offset),
            strtab.map_or(".strtab", |s| s.name.as_str()),
            m.to_string(),
        )
    };
    let data = strtab.map_or(&[][..], |s| s.data);
    let tail = data
        .get(sym.name as usize..)
        .ok_or_else(|| bad("a symbol name lies past the end of the string table"))?;
    let end = tail
        .iter()
        .position(|&b| b == 0)
        .ok_or_else(|| bad("a symbol name is not NUL-terminated"))?;
    std::str::from_utf8(&tail[..end])
        .map(str::to_string)
        .map_err(|_| bad("a symbol name is not UTF-8"))
}

/// The named objects of the data sections (see [`DataSymbol`]).
fn data_symbols(
    sections: &[Section<'_>],
    symtab: &Section<'_>,
) -> Result<Vec<DataSymbol>, CubinError> {
    let index = |name: &str| sections.iter().position(|s| s.name == name);
    let (init, zeroed, constant) = (
        index(".nv.global.init"),
        index(".nv.global"),
        index(".nv.constant3"),
    );
    let mut out = Vec::new();
    for i in 1..symtab.data.len() as u64 / SYM_SIZE {
        let Some(sym) = raw_sym(symtab, i) else { break };
        if sym.kind != elf::STT_OBJECT.0 {
            continue;
        }
        let shndx = Some(sym.shndx as usize);
        let section = if shndx == init {
            DataSection::Global(ModuleSection::Init)
        } else if shndx == zeroed {
            DataSection::Global(ModuleSection::Zeroed)
        } else if shndx == constant {
            DataSection::Constant
        } else {
            continue;
        };
        let name = raw_sym_name(sections, symtab, &sym)?;
        out.push(DataSymbol {
            name,
            section,
            offset: sym.value,
            size: sym.size,
        });
    }
    Ok(out)
}

/// What relocation `entry` (at file offset `at` of section `rel`) names: `offset` bytes into a
/// data section, or a function the file does not define.
fn reloc_target(
    sections: &[Section<'_>],
    symtab: &Section<'_>,
    rel: &Section<'_>,
    at: u64,
    sym: u64,
    addend: u64,
) -> Result<RelocTarget, CubinError> {
    let err = |m: String| CubinError::new(at, &rel.name, m);
    let Some(entry) = raw_sym(symtab, sym) else {
        return Err(err(format!(
            "relocation names symbol {sym}, not in `.symtab`"
        )));
    };
    let index = |name: &str| sections.iter().position(|s| s.name == name);
    let shndx = Some(entry.shndx as usize);
    if shndx == index(".nv.global.init") {
        return Ok(RelocTarget::Data {
            section: ModuleSection::Init,
            offset: entry.value.wrapping_add(addend),
        });
    }
    if shndx == index(".nv.global") {
        return Ok(RelocTarget::Data {
            section: ModuleSection::Zeroed,
            offset: entry.value.wrapping_add(addend),
        });
    }
    if entry.shndx == 0 && entry.kind == elf::STT_FUNC.0 {
        return Ok(RelocTarget::Extern(raw_sym_name(sections, symtab, &entry)?));
    }
    if let Some(text) = sections
        .get(entry.shndx as usize)
        .and_then(|s| s.name.strip_prefix(".text."))
    {
        if entry.kind == elf::STT_FUNC.0 || entry.kind == elf::STT_SECTION.0 {
            return Ok(RelocTarget::Code {
                section: text.to_string(),
                offset: entry.value.wrapping_add(addend),
            });
        }
    }
    let name = raw_sym_name(sections, symtab, &entry).unwrap_or_default();
    Err(err(format!(
        "relocation names symbol {sym} (`{name}`), which is neither `__device__` data \
         (.nv.global.init or .nv.global) nor a function the driver supplies"
    )))
}

/// The relocations of kernel `name`'s code (`.rel.text.NAME`, `.rela.text.NAME`), each checked
/// to lie on an instruction word of the code.
fn code_relocs(
    sections: &[Section<'_>],
    symtab: &Section<'_>,
    name: &str,
    code_len: usize,
) -> Result<Vec<CodeReloc>, CubinError> {
    let mut out = Vec::new();
    for rel in sections.iter().filter(|s| relocated_text(s) == Some(name)) {
        for RelEntry {
            at,
            offset,
            kind,
            sym,
            addend,
        } in rel_entries(rel)?
        {
            let err = |m: String| CubinError::new(at, &rel.name, m);
            let kind = match kind {
                42 => CodeRelocKind::Abs32,
                43 => CodeRelocKind::Lo32,
                44 => CodeRelocKind::Hi32,
                t => {
                    return Err(err(format!(
                        "code relocation type {t} is not supported (only R_CUDA_ABS32_20, 42, \
                         R_CUDA_ABS32_LO_20, 43, and R_CUDA_ABS32_HI_20, 44)"
                    )))
                }
            };
            if offset % 8 != 0 || offset.saturating_add(8) > code_len as u64 {
                return Err(err(format!(
                    "relocation at {offset:#x} is not on an instruction word of the \
                     {code_len}-byte code"
                )));
            }
            let target = reloc_target(sections, symtab, rel, at, sym, addend)?;
            out.push(CodeReloc {
                offset: offset as u32,
                kind,
                target,
            });
        }
    }
    Ok(out)
}

/// The module's `__device__` data and the relocations of `.nv.constant4` (see [`ModuleData`]):
/// each relocation is checked to lie inside `.nv.constant4` and to name a symbol of
/// `.nv.global.init` or `.nv.global` whose address it takes whole (`R_CUDA_64`, 8 bytes, or
/// `R_CUDA_32`, 4).
fn module_data(sections: &[Section<'_>], symtab: &Section<'_>) -> Result<ModuleData, CubinError> {
    const MAX_MODULE_DATA: u64 = 1 << 32;
    let index = |name: &str| sections.iter().position(|s| s.name == name);
    let (init_i, zeroed_i) = (index(".nv.global.init"), index(".nv.global"));
    let mut externs4 = Vec::new();
    let too_big = |s: &Section<'_>| {
        CubinError::new(
            s.offset,
            &s.name,
            format!("{} bytes of `__device__` data: at most 4 GiB", s.size),
        )
    };
    let init = match init_i.map(|i| &sections[i]) {
        Some(s) if s.size > MAX_MODULE_DATA => return Err(too_big(s)),
        Some(s) if s.nobits => vec![0; s.size as usize],
        Some(s) => s.data.to_vec(),
        None => Vec::new(),
    };
    let zeroed = match zeroed_i.map(|i| &sections[i]) {
        Some(s) if s.size > MAX_MODULE_DATA => return Err(too_big(s)),
        Some(s) => s.size,
        None => 0,
    };
    let const4 = match find(sections, ".nv.constant4") {
        Some(s) => constant_bank(s)?,
        None => Vec::new(),
    };
    let mut relocs = Vec::new();
    for rel in sections.iter().filter(|s| relocates_const4(s)) {
        for RelEntry {
            at,
            offset,
            kind,
            sym,
            addend,
        } in rel_entries(rel)?
        {
            let err = |m: String| CubinError::new(at, &rel.name, m);
            let width: u8 = match kind {
                2 => 8,
                1 => 4,
                t => {
                    return Err(err(format!(
                    "relocation type {t} is not supported (only R_CUDA_64, 2, and R_CUDA_32, 1)"
                )))
                }
            };
            if offset.saturating_add(u64::from(width)) > const4.len() as u64 {
                return Err(err(format!(
                    "relocation at {offset:#x} of {width} bytes past the end of `.nv.constant4` ({:#x} bytes)",
                    const4.len()
                )));
            }
            match reloc_target(sections, symtab, rel, at, sym, addend)? {
                RelocTarget::Data { section, offset: o } => relocs.push(Reloc {
                    offset: offset as u32,
                    bytes: width,
                    section,
                    offset_in: o,
                }),
                RelocTarget::Extern(name) if width == 4 => externs4.push((offset as u32, name)),
                RelocTarget::Code { section, .. } => {
                    return Err(err(format!(
                        "a relocation of `.nv.constant4` to code of `.text.{section}`: function \
                         pointers are not supported"
                    )))
                }
                RelocTarget::Extern(name) => {
                    return Err(err(format!(
                        "an 8-byte relocation to function `{name}`: the driver's functions take \
                         32-bit addresses"
                    )))
                }
            }
        }
    }
    let (init_relocs, init_func_descs) = init_relocs(sections, symtab, init.len() as u64)?;
    Ok(ModuleData {
        init,
        zeroed,
        const4,
        relocs,
        externs4,
        init_relocs,
        init_func_descs,
    })
}

/// The relocations of `.nv.global.init` (see [`ModuleData::init_relocs`]): each checked to lie
/// inside the section, and to be an address of the module's data (`R_CUDA_32`, 1, and
/// `R_CUDA_G32`, 3: 4 bytes; `R_CUDA_64`, 2, and `R_CUDA_G64`, 4: 8 bytes; global addresses
/// are generic addresses in warpjit) or a function descriptor of its code
/// (`R_CUDA_FUNC_DESC_64`, 35). A `.rel` entry's addend is 0 (ptxas leaves the words zero).
#[allow(clippy::type_complexity)]
fn init_relocs(
    sections: &[Section<'_>],
    symtab: &Section<'_>,
    init_len: u64,
) -> Result<(Vec<Reloc>, Vec<(u32, u64)>), CubinError> {
    let mut relocs = Vec::new();
    let mut descs = Vec::new();
    for rel in sections.iter().filter(|s| relocates_init(s)) {
        for RelEntry {
            at,
            offset,
            kind,
            sym,
            addend,
        } in rel_entries(rel)?
        {
            let err = |m: String| CubinError::new(at, &rel.name, m);
            let (width, desc): (u8, bool) = match kind {
                1 | 3 => (4, false),
                2 | 4 => (8, false),
                35 => (8, true),
                t => {
                    return Err(err(format!(
                        "relocation type {t} is not supported in `.nv.global.init` (only \
                         R_CUDA_32, 1, R_CUDA_64, 2, R_CUDA_G32, 3, R_CUDA_G64, 4, and \
                         R_CUDA_FUNC_DESC_64, 35)"
                    )))
                }
            };
            if offset.saturating_add(u64::from(width)) > init_len {
                return Err(err(format!(
                    "relocation at {offset:#x} of {width} bytes past the end of \
                     `.nv.global.init` ({init_len:#x} bytes)"
                )));
            }
            let target = reloc_target(sections, symtab, rel, at, sym, addend)?;
            match (target, desc) {
                (RelocTarget::Data { section, offset: o }, false) => relocs.push(Reloc {
                    offset: offset as u32,
                    bytes: width,
                    section,
                    offset_in: o,
                }),
                (RelocTarget::Code { .. }, true) => {
                    // The section index and the offset, from the symbol again (the target
                    // names the section by name).
                    let entry = raw_sym(symtab, sym).ok_or_else(|| {
                        err(format!("relocation names symbol {sym}, not in `.symtab`"))
                    })?;
                    descs.push((
                        offset as u32,
                        func_desc(entry.shndx, entry.value.wrapping_add(addend)),
                    ));
                }
                (t, _) => {
                    return Err(err(format!(
                        "relocation type {kind} of `.nv.global.init` to {}: not supported \
                         (addresses of the module's data, and function descriptors of its code)",
                        match t {
                            RelocTarget::Data { .. } =>
                                "data, as a function descriptor".to_string(),
                            RelocTarget::Extern(n) =>
                                format!("function `{n}`, which the file does not define"),
                            RelocTarget::Code { section, .. } =>
                                format!("code of `.text.{section}` as a data address"),
                        }
                    )))
                }
            }
        }
    }
    Ok((relocs, descs))
}

/// One entry of a `.rel` (16 bytes) or `.rela` (24 bytes, with an addend) section: the file
/// offset it was read at, and its fields.
struct RelEntry {
    at: u64,
    offset: u64,
    kind: u32,
    sym: u64,
    addend: u64,
}

/// The entries of relocation section `rel`, or an error if its size is not a whole number of
/// them.
fn rel_entries(rel: &Section<'_>) -> Result<Vec<RelEntry>, CubinError> {
    let rela = rel.name.starts_with(".rela");
    let entry = if rela { 24 } else { 16 };
    if !rel.data.len().is_multiple_of(entry) {
        return Err(CubinError::new(
            rel.offset,
            &rel.name,
            format!(
                "{} bytes: not a whole number of {entry}-byte entries",
                rel.data.len()
            ),
        ));
    }
    Ok(rel
        .data
        .chunks_exact(entry)
        .enumerate()
        .map(|(k, e)| {
            let word = |i: usize| u64::from_le_bytes(e[i..i + 8].try_into().expect("8 bytes"));
            let info = word(8);
            RelEntry {
                at: rel.offset + (k * entry) as u64,
                offset: word(0),
                kind: info as u32,
                sym: info >> 32,
                addend: if rela { word(16) } else { 0 },
            }
        })
        .collect())
}

fn find<'a, 'data>(sections: &'a [Section<'data>], name: &str) -> Option<&'a Section<'data>> {
    sections.iter().find(|s| s.name == name)
}

/// A symbol's name, checked to be UTF-8.
fn symbol_name<'data>(
    symbols: &SymbolTable<'data, Elf, &'data [u8]>,
    sections: &[Section<'_>],
    symbol: &elf::Sym64<LittleEndian>,
) -> Result<String, CubinError> {
    let endian = LittleEndian;
    let strtab = sections.get(symbols.string_section().0);
    let strtab_name = strtab.map_or(".strtab", |s| s.name.as_str());
    let name_offset = strtab
        .map_or(0, |s| s.offset)
        .saturating_add(u64::from(symbol.st_name(endian)));
    let name = symbols
        .symbol_name(endian, symbol)
        .map_err(|e| CubinError::new(name_offset, strtab_name, format!("symbol name: {e}")))?;
    std::str::from_utf8(name)
        .map(str::to_string)
        .map_err(|_| CubinError::new(name_offset, strtab_name, "a symbol name is not UTF-8"))
}

/// The contents of a constant bank section (zeros for a `NOBITS` one), at most 64 KiB.
fn constant_bank(section: &Section<'_>) -> Result<Vec<u8>, CubinError> {
    if section.size > MAX_CONST_BANK {
        return Err(CubinError::new(
            section.offset,
            &section.name,
            format!(
                "{} bytes do not fit in a {MAX_CONST_BANK}-byte constant bank",
                section.size
            ),
        ));
    }
    Ok(if section.nobits {
        vec![0; section.size as usize]
    } else {
        section.data.to_vec()
    })
}

/// The records of an `.nv.info` section, each checked to lie inside it.
fn info_records<'data>(section: &Section<'data>) -> Result<Vec<InfoRecord<'data>>, CubinError> {
    let data = section.data;
    let mut records = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let offset = section.offset + pos as u64;
        let Some(head) = data.get(pos..pos + 4) else {
            return Err(CubinError::new(
                offset,
                &section.name,
                format!(
                    "a record head of 4 bytes runs past the end of the section ({} bytes left)",
                    data.len() - pos
                ),
            ));
        };
        let (format, attr) = (head[0], head[1]);
        let value = u16::from_le_bytes([head[2], head[3]]);
        pos += 4;
        let payload = match format {
            EIFMT_NVAL | EIFMT_BVAL | EIFMT_HVAL => &[][..],
            EIFMT_SVAL => {
                let end = pos + usize::from(value);
                let payload = data.get(pos..end).ok_or_else(|| {
                    CubinError::new(
                        offset,
                        &section.name,
                        format!(
                            "attribute {attr:#04x}: its {value} bytes run past the end of the \
                             section ({} bytes left)",
                            data.len() - pos
                        ),
                    )
                })?;
                pos = end;
                payload
            }
            _ => {
                return Err(CubinError::new(
                    offset,
                    &section.name,
                    format!("attribute {attr:#04x}: unknown record format {format:#04x}"),
                ))
            }
        };
        records.push(InfoRecord {
            offset,
            format,
            attr,
            value,
            payload,
        });
    }
    Ok(records)
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

/// Checks that a record is `EIFMT_SVAL` with a payload of `len` bytes (or, with `multiple`, a
/// multiple of `len` bytes).
fn expect_payload(
    section: &Section<'_>,
    record: &InfoRecord<'_>,
    what: &str,
    len: usize,
    multiple: bool,
) -> Result<(), CubinError> {
    let fits = if multiple {
        record.payload.len().is_multiple_of(len)
    } else {
        record.payload.len() == len
    };
    if record.format == EIFMT_SVAL && fits {
        Ok(())
    } else {
        let expected = if multiple {
            format!("a multiple of {len} bytes")
        } else {
            format!("{len} bytes")
        };
        Err(CubinError::new(
            record.offset,
            &section.name,
            format!(
                "{what} ({:#04x}): expected a payload (format 0x04) of {expected}, found format \
                 {:#04x} with {} bytes",
                record.attr,
                record.format,
                record.payload.len()
            ),
        ))
    }
}

/// A stack size attribute (`[u32 symbol, u32 bytes]`) for the symbol `symbol`, if it is one.
fn stack_size(
    section: &Section<'_>,
    record: &InfoRecord<'_>,
    symbol: SymbolIndex,
) -> Result<Option<u32>, CubinError> {
    Ok(stack_owner(section, record)?
        .and_then(|(owner, bytes)| (owner == symbol.0).then_some(bytes)))
}

/// The symbol (its index) and size of a stack-size record, `None` for another record.
fn stack_owner(
    section: &Section<'_>,
    record: &InfoRecord<'_>,
) -> Result<Option<(usize, u32)>, CubinError> {
    let what = match record.attr {
        EIATTR_FRAME_SIZE => "EIATTR_FRAME_SIZE",
        EIATTR_MIN_STACK_SIZE => "EIATTR_MIN_STACK_SIZE",
        EIATTR_MAX_STACK_SIZE => "EIATTR_MAX_STACK_SIZE",
        _ => return Ok(None),
    };
    expect_payload(section, record, what, 8, false)?;
    let owner = u32_at(record.payload, 0);
    let bytes = u32_at(record.payload, 4);
    // ptxas writes 0xffffffff for a stack it cannot bound (a recursive function's): no size is
    // known, and the driver gives such a kernel the context's stack limit (CUDA's default, 1
    // KiB: `frontend::CALL_STACK_BYTES`).
    if bytes == u32::MAX {
        return Ok(None);
    }
    Ok(Some((owner as usize, bytes)))
}

/// Everything about one kernel, from its `.text.NAME` and the sections named after it.
fn read_kernel(
    sections: &[Section<'_>],
    by_name: &HashMap<&str, usize>,
    symtab: &Section<'_>,
    text_index: usize,
    symbol: SymbolIndex,
    name: String,
    global_stack: u32,
) -> Result<Kernel, CubinError> {
    let find = |n: &str| by_name.get(n).map(|&i| &sections[i]);
    let endian = LittleEndian;
    let text = &sections[text_index];
    if text.header.sh_type(endian) != elf::SHT_PROGBITS {
        return Err(CubinError::new(
            text.offset,
            &text.name,
            "the kernel's code section is not PROGBITS",
        ));
    }
    if !text.data.len().is_multiple_of(8) {
        return Err(CubinError::new(
            text.offset,
            &text.name,
            format!(
                "{} bytes of code are not a whole number of 8-byte instruction words",
                text.data.len()
            ),
        ));
    }
    let registers = text.header.sh_info(endian) >> 24;

    let shared_bytes = match find(&format!(".nv.shared.{name}")) {
        Some(shared) => u32::try_from(shared.size).map_err(|_| {
            CubinError::new(
                shared.offset,
                &shared.name,
                format!(
                    "{} bytes of shared memory do not fit in 32 bits",
                    shared.size
                ),
            )
        })?,
        None => 0,
    };
    let const2 = match find(&format!(".nv.constant2.{name}")) {
        Some(s) => constant_bank(s)?,
        None => Vec::new(),
    };

    let mut local_bytes = global_stack;

    let mut cbank: Option<(u32, u32)> = None;
    let mut cbank_param_size: Option<u32> = None;
    let mut kparam_end: Option<u32> = None;
    let mut params = Vec::new();
    let mut exit_offsets = Vec::new();
    let mut indirect_branches = Vec::new();
    let mut max_threads = None;
    if let Some(info) = find(&format!(".nv.info.{name}")) {
        for record in info_records(info)? {
            if let Some(bytes) = stack_size(info, &record, symbol)? {
                local_bytes = local_bytes.max(bytes);
            }
            match record.attr {
                EIATTR_PARAM_CBANK => {
                    expect_payload(info, &record, "EIATTR_PARAM_CBANK", 8, false)?;
                    let offset = u32::from(u16_at(record.payload, 4));
                    let size = u32::from(u16_at(record.payload, 6));
                    cbank = Some((offset, size));
                }
                EIATTR_CBANK_PARAM_SIZE => {
                    if record.format != EIFMT_HVAL {
                        return Err(CubinError::new(
                            record.offset,
                            &info.name,
                            format!(
                                "EIATTR_CBANK_PARAM_SIZE (0x19): expected an inline 16-bit value \
                                 (format 0x03), found format {:#04x}",
                                record.format
                            ),
                        ));
                    }
                    cbank_param_size = Some(u32::from(record.value));
                }
                EIATTR_KPARAM_INFO => {
                    expect_payload(info, &record, "EIATTR_KPARAM_INFO", 12, false)?;
                    let ordinal = u32::from(u16_at(record.payload, 4));
                    let offset = u32::from(u16_at(record.payload, 6));
                    let size = u32_at(record.payload, 8) >> 18;
                    let end = offset + size;
                    kparam_end = Some(kparam_end.map_or(end, |e| e.max(end)));
                    params.push(crate::params::KernelParam {
                        ordinal,
                        offset,
                        size,
                    });
                }
                EIATTR_EXIT_INSTR_OFFSETS => {
                    expect_payload(info, &record, "EIATTR_EXIT_INSTR_OFFSETS", 4, true)?;
                    exit_offsets.extend(record.payload.chunks_exact(4).map(|w| u32_at(w, 0)));
                }
                EIATTR_INDIRECT_BRANCH_TARGETS => {
                    expect_payload(info, &record, "EIATTR_INDIRECT_BRANCH_TARGETS", 4, true)?;
                    indirect_branches.extend(branch_targets(info, &record)?);
                }
                EIATTR_MAX_THREADS => {
                    expect_payload(info, &record, "EIATTR_MAX_THREADS", 12, false)?;
                    let n = (0..3)
                        .map(|i| u64::from(u32_at(record.payload, 4 * i)))
                        .product();
                    max_threads = Some(n);
                }
                _ => {}
            }
        }
    }
    let param_bytes = cbank
        .map(|(_, size)| size)
        .or(cbank_param_size)
        .or(kparam_end);
    let param_offset = cbank.map_or(DEFAULT_PARAM_OFFSET, |(offset, _)| offset);
    // ptxas lists them last one first.
    params.sort_by_key(|p| p.ordinal);
    if let Some(w) = params.windows(2).find(|w| w[0].ordinal == w[1].ordinal) {
        let info = find(&format!(".nv.info.{name}")).map_or(0, |s| s.offset);
        return Err(CubinError::new(
            info,
            format!(".nv.info.{name}"),
            format!("EIATTR_KPARAM_INFO gives parameter {} twice", w[0].ordinal),
        ));
    }
    let code_relocs = code_relocs(sections, symtab, &name, text.data.len())?;

    Ok(Kernel {
        name,
        code: text.data.to_vec(),
        code_offset: text.offset,
        registers,
        shared_bytes,
        local_bytes,
        const2,
        param_bytes,
        param_offset,
        params,
        exit_offsets,
        indirect_branches,
        max_threads,
        code_relocs,
    })
}

/// The entries of an [`EIATTR_INDIRECT_BRANCH_TARGETS`] record (its payload a whole number of
/// words): each must fit in the payload.
fn branch_targets(
    info: &Section<'_>,
    record: &InfoRecord<'_>,
) -> Result<Vec<IndirectBranch>, CubinError> {
    let p = record.payload;
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < p.len() {
        let bad = |what: &str| {
            CubinError::new(
                record.offset + 4 + at as u64,
                &info.name,
                format!("EIATTR_INDIRECT_BRANCH_TARGETS (0x34): {what}"),
            )
        };
        if p.len() - at < 12 {
            return Err(bad("an entry's 12-byte head runs past the payload"));
        }
        let offset = u32_at(p, at);
        let kind = u16_at(p, at + 4);
        let count = u32_at(p, at + 8) as usize;
        let start = at + 12;
        if count > (p.len() - start) / 4 {
            return Err(bad(&format!(
                "an entry's {count} targets run past the payload"
            )));
        }
        let targets = (0..count).map(|k| u32_at(p, start + 4 * k)).collect();
        out.push(IndirectBranch {
            offset,
            kind,
            targets,
        });
        at = start + 4 * count;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VADD: &[u8] = include_bytes!("../tests/cubin/vadd.cubin");
    const MEMORY: &[u8] = include_bytes!("../tests/cubin/memory.cubin");
    const CONSTS: &[u8] = include_bytes!("../tests/cubin/consts.cubin");
    const REDUCE: &[u8] = include_bytes!("../tests/cubin/reduce.cubin");
    const ARITH: &[u8] = include_bytes!("../tests/cubin/arith.cubin");
    const STACK: &[u8] = include_bytes!("../tests/cubin/stack.cubin");
    const CALLS: &[u8] = include_bytes!("../tests/cubin/calls.cubin");

    const ALL: [(&str, &[u8]); 7] = [
        ("vadd", VADD),
        ("memory", MEMORY),
        ("consts", CONSTS),
        ("reduce", REDUCE),
        ("arith", ARITH),
        ("stack", STACK),
        ("calls", CALLS),
    ];

    fn parse(bytes: &[u8]) -> Cubin {
        Cubin::parse(bytes).unwrap_or_else(|e| panic!("{e}"))
    }

    fn names(cubin: &Cubin) -> Vec<&str> {
        cubin.kernels.iter().map(|k| k.name.as_str()).collect()
    }

    /// `devdata`'s `__device__` table (16 bytes with their initial values) and counter (4
    /// zeroed bytes), and the two relocations that put their addresses in bank 4's words 0..8
    /// and 8..16.
    #[test]
    fn module_data_and_its_relocations() {
        let m = parse(include_bytes!("../tests/cubin/devdata.cubin")).module;
        let tbl: Vec<u8> = [10u32, 20, 30, 40]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        assert_eq!((m.init.as_slice(), m.zeroed), (tbl.as_slice(), 4));
        assert_eq!(m.relocs.len(), 2);
        let bank = m.bank4(0x1234_0000_0000, 0x5678_0000_0100);
        assert_eq!(bank[0..8], 0x1234_0000_0000u64.to_le_bytes());
        assert_eq!(bank[8..16], 0x5678_0000_0100u64.to_le_bytes());
        assert!(parse(VADD).module.is_empty());
        // A relocation past the bank's end (only a hand-built module has one) is left out.
        let mut m = m;
        m.relocs[1].offset = 12;
        assert_eq!(m.bank4(1, 2).len(), 16);
    }

    #[test]
    fn every_fixture_is_sm_50_with_whole_words_of_code() {
        for (file, bytes) in ALL {
            let cubin = parse(bytes);
            assert_eq!(cubin.arch, 50, "{file}");
            assert!(!cubin.kernels.is_empty(), "{file}");
            for kernel in &cubin.kernels {
                assert!(!kernel.code.is_empty(), "{file} {}", kernel.name);
                assert_eq!(kernel.code.len() % 8, 0, "{file} {}", kernel.name);
                assert_eq!(kernel.param_offset, 0x140, "{file} {}", kernel.name);
                assert!(kernel.registers > 0, "{file} {}", kernel.name);
                assert!(!kernel.exit_offsets.is_empty(), "{file} {}", kernel.name);
                for &exit in &kernel.exit_offsets {
                    assert!(
                        (exit as usize) < kernel.code.len(),
                        "{file} {}",
                        kernel.name
                    );
                    assert_eq!(exit % 8, 0, "{file} {}", kernel.name);
                }
                let start = kernel.code_offset as usize;
                assert_eq!(
                    &bytes[start..start + kernel.code.len()],
                    kernel.code.as_slice()
                );
                assert!(kernel.const2.is_empty(), "{file} {}", kernel.name);
            }
        }
    }

    #[test]
    fn kernel_names_and_lookup() {
        let vadd = parse(VADD);
        assert_eq!(names(&vadd), ["vadd"]);
        assert_eq!(vadd.kernel(None).unwrap().name, "vadd");
        assert_eq!(vadd.kernel(Some("vadd")).unwrap().name, "vadd");
        let missing = vadd.kernel(Some("vsub")).unwrap_err();
        assert!(
            missing.contains("vsub") && missing.contains("vadd"),
            "{missing}"
        );

        let memory = parse(MEMORY);
        assert_eq!(names(&memory), ["generic", "sizes", "gather"]);
        let which = memory.kernel(None).unwrap_err();
        for name in ["generic", "sizes", "gather"] {
            assert!(which.contains(name), "{which}");
            assert_eq!(memory.kernel(Some(name)).unwrap().name, name);
        }
        assert_eq!(names(&parse(ARITH)), ["carry128", "mul", "diverge"]);
        assert_eq!(names(&parse(CONSTS)), ["consts"]);
        assert_eq!(names(&parse(REDUCE)), ["reduce"]);
        assert_eq!(names(&parse(STACK)), ["stack"]);
        // The device subroutines `$calls$twice` (global) and `$calls$thrice` are functions but
        // not entry points.
        assert_eq!(names(&parse(CALLS)), ["calls"]);

        let empty = Cubin {
            arch: 50,
            kernels: Vec::new(),
            const3: Vec::new(),
            module: ModuleData::default(),
            symbols: Vec::new(),
            functions: Vec::new(),
        };
        assert!(empty.kernel(None).unwrap_err().contains("no kernels"));
    }

    #[test]
    fn registers_shared_and_local_memory() {
        // Register counts as ptxas 12.9 assigned them (also EIATTR_REGCOUNT in .nv.info).
        let expect = [
            (VADD, "vadd", 8),
            (MEMORY, "generic", 12),
            (MEMORY, "sizes", 24),
            (MEMORY, "gather", 8),
            (ARITH, "carry128", 16),
            (ARITH, "mul", 10),
            (ARITH, "diverge", 9),
            (CONSTS, "consts", 21),
            (REDUCE, "reduce", 7),
            (STACK, "stack", 32),
        ];
        for (bytes, name, registers) in expect {
            let cubin = parse(bytes);
            assert_eq!(
                cubin.kernel(Some(name)).unwrap().registers,
                registers,
                "{name}"
            );
        }
        let reduce = parse(REDUCE);
        // 256 u32 words of `sdata`.
        assert_eq!(reduce.kernels[0].shared_bytes, 1024);
        assert_eq!(reduce.kernels[0].local_bytes, 0);
        let memory = parse(MEMORY);
        assert_eq!(memory.kernel(Some("generic")).unwrap().shared_bytes, 512);
        assert_eq!(memory.kernel(Some("sizes")).unwrap().shared_bytes, 0);
        // 64 u32 words of `.local` array.
        let stack = parse(STACK);
        assert_eq!(stack.kernels[0].local_bytes, 256);
        assert_eq!(stack.kernels[0].shared_bytes, 0);
    }

    #[test]
    fn parameter_sizes() {
        let expect = [
            (VADD, "vadd", 28),      // u64 a, b, c; u32 n
            (MEMORY, "gather", 28),  // u64 table, idx, out; u32 n
            (MEMORY, "sizes", 16),   // u64 src, dst
            (MEMORY, "generic", 12), // u64 data; u32 flag
            (ARITH, "carry128", 24), // u64 a, b, out
            (ARITH, "mul", 12),      // u64 data; u32 k
            (ARITH, "diverge", 8),   // u64 out
            (CONSTS, "consts", 8),   // u64 out
            (REDUCE, "reduce", 16),  // u64 in, out
            (STACK, "stack", 8),     // u64 data
            (CALLS, "calls", 8),     // u64 data
        ];
        for (bytes, name, size) in expect {
            let cubin = parse(bytes);
            let kernel = cubin.kernel(Some(name)).unwrap();
            assert_eq!(kernel.param_bytes, Some(size), "{name}");
            assert_eq!(kernel.param_offset, DEFAULT_PARAM_OFFSET, "{name}");
        }
    }

    #[test]
    fn parameter_tables_list_each_parameter() {
        use crate::params::KernelParam;
        let p = |ordinal, offset, size| KernelParam {
            ordinal,
            offset,
            size,
        };
        // tests/cubin/params.cu: every_kind's thirteen parameters of every size, with C's
        // padding (6..8, 36..40); a kernel without parameters has an empty table.
        let cubin = parse(include_bytes!("../tests/cubin/params.cubin"));
        let every = cubin
            .kernel(Some("every_kind"))
            .unwrap()
            .param_table()
            .unwrap();
        assert_eq!((every.offset, every.size), (0x140, 80));
        assert_eq!(
            every.params,
            [
                p(0, 0, 1),
                p(1, 1, 1),
                p(2, 2, 2),
                p(3, 4, 2),
                p(4, 8, 4),
                p(5, 12, 4),
                p(6, 16, 8),
                p(7, 24, 8),
                p(8, 32, 4),
                p(9, 40, 8),
                p(10, 48, 8),
                p(11, 56, 16),
                p(12, 72, 8)
            ]
        );
        let scan = cubin
            .kernel(Some("scan_block"))
            .unwrap()
            .param_table()
            .unwrap();
        assert_eq!(
            scan.params,
            [p(0, 0, 8), p(1, 8, 8), p(2, 16, 8), p(3, 24, 4)]
        );
        let none = cubin.kernel(Some("no_params")).unwrap();
        assert_eq!(none.param_bytes, None);
        assert_eq!(
            none.param_table(),
            Some(crate::params::ParamTable {
                offset: 0x140,
                size: 0,
                params: vec![]
            })
        );
        // Every fixture kernel's table is consistent and as long as its parameter size.
        for (file, bytes) in ALL {
            for k in parse(bytes).kernels {
                let t = k.param_table().unwrap();
                assert_eq!(t.check(), Ok(()), "{file} {}", k.name);
                assert_eq!(Some(t.size), k.param_bytes, "{file} {}", k.name);
            }
        }
        // A size without records cannot be laid out.
        let mut k = cubin.kernel(Some("every_kind")).unwrap().clone();
        k.params.clear();
        assert_eq!(k.param_table(), None);
    }

    #[test]
    fn exit_offsets_point_at_exit_instructions() {
        // On Maxwell, EXIT is opcode 0xe30 in the top 12 bits of the instruction word.
        for (file, bytes) in ALL {
            for kernel in parse(bytes).kernels {
                for &exit in &kernel.exit_offsets {
                    let at = exit as usize;
                    let word = u64::from_le_bytes(kernel.code[at..at + 8].try_into().unwrap());
                    assert_eq!(word >> 52, 0xe30, "{file} {} at {exit:#x}", kernel.name);
                }
            }
        }
        assert_eq!(parse(VADD).kernels[0].exit_offsets.len(), 2);
    }

    #[test]
    fn const3_holds_the_ptx_initialisers() {
        let consts = parse(CONSTS);
        let words: Vec<u32> = consts
            .const3
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
            .collect();
        // ctab (16 words) then ktab (8 words), as written in tests/cubin/consts.ptx.
        let expect: [u32; 24] = [
            0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c, //
            0xdeadbeef, 0xcafef00d, 0x12345678, 0x9abcdef0, //
            0x00000001, 0xffffffff, 0x80000000, 0x7fffffff, //
            0x11111111, 0x22222222, 0x33333333, 0x44444444, //
            1, 2, 3, 5, 8, 13, 21, 34,
        ];
        assert_eq!(words, expect);
        assert!(parse(VADD).const3.is_empty());
    }

    #[test]
    fn param_cbank_agrees_with_kparam_info_and_regcount() {
        // The three sources of the parameter size agree, and EIATTR_REGCOUNT equals sh_info >> 24.
        for (file, bytes) in ALL {
            let endian = LittleEndian;
            let header = check_header(bytes).unwrap();
            let sections = read_sections(header, bytes).unwrap();
            let global = find(&sections, ".nv.info").unwrap();
            let global_records = info_records(global).unwrap();
            for section in &sections {
                let Some(kernel) = section.name.strip_prefix(".nv.info.") else {
                    continue;
                };
                let records = info_records(section).unwrap();
                let cbank = records
                    .iter()
                    .find(|r| r.attr == EIATTR_PARAM_CBANK)
                    .unwrap();
                let size = u16_at(cbank.payload, 6);
                let hval = records
                    .iter()
                    .find(|r| r.attr == EIATTR_CBANK_PARAM_SIZE)
                    .unwrap();
                assert_eq!(hval.value, size, "{file} {kernel}");
                let kparam_end = records
                    .iter()
                    .filter(|r| r.attr == EIATTR_KPARAM_INFO)
                    .map(|r| u16_at(r.payload, 6) as u32 + (u32_at(r.payload, 8) >> 18))
                    .max()
                    .unwrap();
                assert_eq!(kparam_end, u32::from(size), "{file} {kernel}");

                let text = find(&sections, &format!(".text.{kernel}")).unwrap();
                let sh_info = text.header.sh_info(endian);
                let symbol = sh_info & 0xff_ffff;
                let regcount = global_records
                    .iter()
                    .find(|r| r.attr == EIATTR_REGCOUNT && u32_at(r.payload, 0) == symbol)
                    .unwrap();
                assert_eq!(
                    u32_at(regcount.payload, 4),
                    sh_info >> 24,
                    "{file} {kernel}"
                );
            }
        }
    }

    fn section_header_offset(bytes: &[u8], name: &str) -> usize {
        let header = check_header(bytes).unwrap();
        let sections = read_sections(header, bytes).unwrap();
        let index = sections.iter().position(|s| s.name == name).unwrap();
        shoff(header) as usize + index * SHDR_SIZE as usize
    }

    fn patched(bytes: &[u8], at: usize, new: &[u8]) -> Vec<u8> {
        let mut copy = bytes.to_vec();
        copy[at..at + new.len()].copy_from_slice(new);
        copy
    }

    /// A relocation section whose size is not a whole number of entries (16 bytes for `.rel`)
    /// is an error at that section's header.
    #[test]
    fn relocation_sections_of_part_entries_are_errors() {
        let devdata: &[u8] = include_bytes!("../tests/cubin/devdata.cubin");
        let header = section_header_offset(devdata, ".rel.nv.constant4");
        let size_at = header + 0x20;
        let size = u64::from_le_bytes(devdata[size_at..size_at + 8].try_into().unwrap());
        let bad = patched(devdata, size_at, &(size - 1).to_le_bytes());
        let err = Cubin::parse(&bad).unwrap_err();
        assert_eq!(err.section, ".rel.nv.constant4", "{err}");
        assert!(
            err.message
                .contains("not a whole number of 16-byte entries"),
            "{err}"
        );
    }

    #[test]
    fn truncated_files_are_errors() {
        for len in [
            0,
            1,
            4,
            16,
            63,
            64,
            65,
            0x100,
            VADD.len() / 2,
            VADD.len() - 1,
        ] {
            let err = Cubin::parse(&VADD[..len]).unwrap_err();
            assert!(!err.section.is_empty(), "{len}: {err}");
        }
        let err = Cubin::parse(&VADD[..40]).unwrap_err();
        assert_eq!(err.section, "ELF header");
        assert!(
            err.to_string().starts_with("byte 0x28: ELF header: "),
            "{err}"
        );
    }

    #[test]
    fn wrong_kind_of_file_is_an_error() {
        let err = Cubin::parse(&patched(VADD, 18, &[62, 0])).unwrap_err();
        assert_eq!((err.offset, err.section.as_str()), (18, "ELF header"));
        assert!(err.message.contains("EM_CUDA"), "{err}");

        let err = Cubin::parse(&patched(VADD, 4, &[1])).unwrap_err();
        assert_eq!(err.offset, 4, "{err}");
        let err = Cubin::parse(&patched(VADD, 5, &[2])).unwrap_err();
        assert_eq!(err.offset, 5, "{err}");
        let err = Cubin::parse(&patched(VADD, 0, b"\x7fELG")).unwrap_err();
        assert_eq!(err.offset, 0, "{err}");

        // sm_75 in the old layout; sm_50 in the ABI-version-8 layout is read from bits 8..15.
        let err = Cubin::parse(&patched(VADD, 0x30, &[75])).unwrap_err();
        assert!(err.message.contains("sm_75"), "{err}");
        let mut v8 = patched(VADD, 0x30, &[0x00, 50, 0x32, 0x00]);
        v8[8] = 8;
        assert_eq!(parse(&v8).arch, 50);
        let old_layout_sm_52 = patched(VADD, 0x30, &[52]);
        assert_eq!(parse(&old_layout_sm_52).arch, 52);
    }

    #[test]
    fn inconsistent_sections_are_errors() {
        // .text.vadd's sh_offset (at byte 0x18 of its section header) pointed past the file.
        let header = section_header_offset(VADD, ".text.vadd");
        let bad = patched(VADD, header + 0x18, &0xffff_fff0u64.to_le_bytes());
        let err = Cubin::parse(&bad).unwrap_err();
        assert_eq!(
            (err.offset, err.section.as_str()),
            (header as u64, ".text.vadd"),
            "{err}"
        );

        // An offset with its top bit flipped (overflows when the size is added).
        let mut flipped = VADD.to_vec();
        flipped[header + 0x18 + 7] ^= 0x80;
        assert_eq!(Cubin::parse(&flipped).unwrap_err().section, ".text.vadd");

        // .text size not a multiple of 8.
        let size = u64::from_le_bytes(VADD[header + 0x20..header + 0x28].try_into().unwrap());
        let bad = patched(VADD, header + 0x20, &(size - 4).to_le_bytes());
        let err = Cubin::parse(&bad).unwrap_err();
        assert_eq!(err.section, ".text.vadd");
        assert!(err.message.contains("8-byte"), "{err}");

        // .nv.info.vadd one byte shorter: its last record runs past the section.
        let header = section_header_offset(VADD, ".nv.info.vadd");
        let size = u64::from_le_bytes(VADD[header + 0x20..header + 0x28].try_into().unwrap());
        let bad = patched(VADD, header + 0x20, &(size - 1).to_le_bytes());
        let err = Cubin::parse(&bad).unwrap_err();
        assert_eq!(err.section, ".nv.info.vadd", "{err}");

        // A record with an unknown format.
        let info = find_section(VADD, ".nv.info.vadd");
        let bad = patched(VADD, info, &[0x09]);
        let err = Cubin::parse(&bad).unwrap_err();
        assert_eq!(
            (err.offset, err.section.as_str()),
            (info as u64, ".nv.info.vadd")
        );

        // The kernel's name in .strtab made invalid UTF-8.
        let strtab = find_section(VADD, ".strtab");
        let at = strtab + memmem(&VADD[strtab..], b"\0vadd\0").unwrap() + 1;
        let bad = patched(VADD, at, &[0xff]);
        let err = Cubin::parse(&bad).unwrap_err();
        assert!(err.message.contains("UTF-8"), "{err}");

        // The section header table past the end of the file.
        let bad = patched(VADD, 0x28, &(VADD.len() as u64 - 8).to_le_bytes());
        assert_eq!(Cubin::parse(&bad).unwrap_err().section, "section headers");
    }

    fn find_section(bytes: &[u8], name: &str) -> usize {
        let header = check_header(bytes).unwrap();
        let sections = read_sections(header, bytes).unwrap();
        sections.iter().find(|s| s.name == name).unwrap().offset as usize
    }

    fn memmem(haystack: &[u8], needle: &[u8]) -> Option<usize> {
        haystack.windows(needle.len()).position(|w| w == needle)
    }

    #[test]
    fn truncation_at_every_97th_length_is_an_error() {
        for (_, bytes) in ALL {
            for len in (0..bytes.len()).step_by(97) {
                // ptxas writes the program headers last, so every cut is noticed.
                assert!(Cubin::parse(&bytes[..len]).is_err(), "{len}");
            }
        }
    }

    /// ptxas's `EIATTR_INDIRECT_BRANCH_TARGETS` for `switch` statements (tests/cubin/switch.cu,
    /// brxidx.ptx): every entry at a BRX word lists that BRX's jump table, a run of the words
    /// of `.nv.constant2.NAME`; every other entry is a SYNC's or BRK's one target.
    #[test]
    fn indirect_branch_targets_are_the_jump_tables() {
        let switch: &[u8] = include_bytes!("../tests/cubin/switch.cubin");
        let brxidx: &[u8] = include_bytes!("../tests/cubin/brxidx.cubin");
        let mut brx = 0;
        for file in [switch, brxidx] {
            for k in &parse(file).kernels {
                let words: Vec<u32> = k.const2.chunks_exact(4).map(|w| u32_at(w, 0)).collect();
                assert!(!k.indirect_branches.is_empty(), "{}", k.name);
                for b in &k.indirect_branches {
                    let at = b.offset as usize;
                    let word = u64::from_le_bytes(k.code[at..at + 8].try_into().unwrap());
                    assert_eq!(b.kind, 0, "{}", k.name);
                    match word >> 52 {
                        0xe25 => {
                            brx += 1;
                            assert!(
                                words.windows(b.targets.len()).any(|w| w == b.targets),
                                "{}: {b:?} in {words:x?}",
                                k.name
                            );
                        }
                        0xf0f | 0xe34 => assert_eq!(b.targets.len(), 1, "{}", k.name),
                        _ => panic!("{}: {b:?} at {word:#018x}", k.name),
                    }
                }
            }
        }
        assert_eq!(brx, 24 + 2);
        // The largest table: brx16's sixteen targets.
        let k = &parse(brxidx).kernels[0];
        assert_eq!(k.indirect_branches[0].targets.len(), 16);
    }

    /// An entry whose count runs past the record, or a head cut short, is an error naming the
    /// record's byte.
    #[test]
    fn indirect_branch_targets_out_of_the_record_are_errors() {
        let file: &[u8] = include_bytes!("../tests/cubin/brxidx.cubin");
        let at = memmem(file, &[0x04, EIATTR_INDIRECT_BRANCH_TARGETS]).unwrap();
        // The first entry's count (16) made 0x4000_0000.
        let e =
            Cubin::parse(&patched(file, at + 4 + 8, &0x4000_0000u32.to_le_bytes())).unwrap_err();
        assert!(e.message.contains("targets run past the payload"), "{e}");
        assert_eq!(e.offset, at as u64 + 4);
        // A payload of 4 bytes: a head cut short (the record's size made 4; the bytes after it
        // are then read as the next records, which the parser must also survive).
        let r = Cubin::parse(&patched(file, at + 2, &4u16.to_le_bytes()));
        assert!(r.is_err(), "{r:?}");
    }

    #[test]
    fn single_byte_corruption_never_panics() {
        // Every byte of one three-kernel file, of one with relocations of `.nv.constant4` and of
        // one with jump tables (EIATTR_INDIRECT_BRANCH_TARGETS), set in turn to a few values.
        let devdata: &[u8] = include_bytes!("../tests/cubin/devdata.cubin");
        let brxidx: &[u8] = include_bytes!("../tests/cubin/brxidx.cubin");
        for file in [MEMORY, devdata, brxidx] {
            for at in 0..file.len() {
                for value in [0x00, 0x7f, 0xff] {
                    let _ = Cubin::parse(&patched(file, at, &[value]));
                }
            }
        }
    }
}
