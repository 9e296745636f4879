//! Kernel parameters: a cubin kernel's parameter table and the layout of argument values in
//! constant bank 0, as the CUDA driver makes it for `cuLaunchKernel`.
//!
//! `ptxas` lists a kernel's parameters in its `.nv.info.NAME` section: `EIATTR_PARAM_CBANK` says
//! where the parameter block starts in constant bank 0 (`c[0x0][0x140]` on `sm_5x`) and how many
//! bytes it takes, and one `EIATTR_KPARAM_INFO` record per parameter gives its ordinal, its byte
//! offset in the block and its size (the offsets already hold the C alignment: a `short` after a
//! `char` is at offset 2, a `double` after an `int` at the next multiple of 8). A [`ParamTable`]
//! is that list ([`crate::cubin::Kernel::param_table`]); [`layout_params`] writes one value per
//! parameter at its offset, zeros in the padding between them, and checks each value against its
//! parameter's size.
//!
//! ```
//! use warpjit::params::{layout_params, KernelParam, ParamTable, ParamValue};
//!
//! // vadd(const unsigned *a, const unsigned *b, unsigned *c, unsigned n)
//! let table = ParamTable {
//!     offset: 0x140,
//!     size: 28,
//!     params: vec![
//!         KernelParam { ordinal: 0, offset: 0, size: 8 },
//!         KernelParam { ordinal: 1, offset: 8, size: 8 },
//!         KernelParam { ordinal: 2, offset: 16, size: 8 },
//!         KernelParam { ordinal: 3, offset: 24, size: 4 },
//!     ],
//! };
//! let block = layout_params(
//!     &table,
//!     &[
//!         ParamValue::Ptr(0x10000),
//!         ParamValue::Ptr(0x20000),
//!         ParamValue::Ptr(0x30000),
//!         ParamValue::Int(40),
//!     ],
//! )
//! .unwrap();
//! assert_eq!(block.len(), 28);
//! assert_eq!(&block[24..], &40u32.to_le_bytes());
//! // A value that does not fit its parameter is an error naming it.
//! let e = layout_params(
//!     &table,
//!     &[
//!         ParamValue::Ptr(0),
//!         ParamValue::Ptr(0),
//!         ParamValue::Ptr(0),
//!         ParamValue::U64(1),
//!     ],
//! )
//! .unwrap_err();
//! assert_eq!(e.index, Some(3));
//! ```

use std::fmt;

/// One parameter of a kernel: an `EIATTR_KPARAM_INFO` record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelParam {
    /// Its position in the kernel's signature, from 0.
    pub ordinal: u32,
    /// Its byte offset in the parameter block.
    pub offset: u32,
    /// Its size in bytes (1, 2, 4 or 8 for a scalar or pointer; any size for a structure passed
    /// by value).
    pub size: u32,
}

/// A kernel's parameters: where the block lies in constant bank 0, how long it is, and each
/// parameter in signature order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamTable {
    /// Where the block starts in constant bank 0 (0x140 on `sm_5x`).
    pub offset: u32,
    /// The block's size in bytes (the end of the last parameter).
    pub size: u32,
    /// The parameters, by ordinal.
    pub params: Vec<KernelParam>,
}

/// One argument value for [`layout_params`]. The untyped [`ParamValue::Int`] and
/// [`ParamValue::Float`] take their width from the parameter; the typed ones must match its size
/// exactly.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// An integer as wide as its parameter (1, 2, 4 or 8 bytes), which it must fit as a signed or
    /// an unsigned number (`-1` fills every byte).
    Int(i128),
    /// A float as wide as its parameter: binary32 for a 4-byte one (rounded from the `f64` once),
    /// binary64 for an 8-byte one.
    Float(f64),
    /// `unsigned char`.
    U8(u8),
    /// `signed char`.
    I8(i8),
    /// `unsigned short`.
    U16(u16),
    /// `short`.
    I16(i16),
    /// `unsigned`.
    U32(u32),
    /// `int`.
    I32(i32),
    /// `unsigned long long`.
    U64(u64),
    /// `long long`.
    I64(i64),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
    /// A device pointer (8 bytes).
    Ptr(u64),
    /// The raw bytes of a parameter, as many as its size (a structure passed by value).
    Bytes(Vec<u8>),
}

impl ParamValue {
    /// What the value is, for messages (`"a u32 (4 bytes)"`).
    fn describe(&self) -> String {
        let (what, size) = match self {
            ParamValue::Int(_) => return "an integer".into(),
            ParamValue::Float(_) => return "a float".into(),
            ParamValue::U8(_) => ("a u8", 1),
            ParamValue::I8(_) => ("an i8", 1),
            ParamValue::U16(_) => ("a u16", 2),
            ParamValue::I16(_) => ("an i16", 2),
            ParamValue::U32(_) => ("a u32", 4),
            ParamValue::I32(_) => ("an i32", 4),
            ParamValue::U64(_) => ("a u64", 8),
            ParamValue::I64(_) => ("an i64", 8),
            ParamValue::F32(_) => ("an f32", 4),
            ParamValue::F64(_) => ("an f64", 8),
            ParamValue::Ptr(_) => ("a pointer", 8),
            ParamValue::Bytes(b) => return format!("{} bytes", b.len()),
        };
        format!("{what} ({size} bytes)")
    }

    /// The value's bytes for a parameter of `size` bytes, or why it does not fit.
    fn bytes(&self, size: u32) -> Result<Vec<u8>, String> {
        let exact = |b: &[u8]| {
            if b.len() == size as usize {
                Ok(b.to_vec())
            } else {
                Err(format!(
                    "{} does not fit a {size}-byte parameter",
                    self.describe()
                ))
            }
        };
        match *self {
            ParamValue::Int(v) => {
                if !matches!(size, 1 | 2 | 4 | 8) {
                    return Err(format!(
                        "an integer for a {size}-byte parameter (a structure): give its bytes \
                         with {{ bytes = [...] }}"
                    ));
                }
                let bits = 8 * size;
                let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << bits) - 1);
                if v < lo || v > hi {
                    return Err(format!(
                        "{v} does not fit a {size}-byte parameter ({lo} to {hi})"
                    ));
                }
                Ok(v.to_le_bytes()[..size as usize].to_vec())
            }
            ParamValue::Float(f) => match size {
                4 => Ok((f as f32).to_bits().to_le_bytes().to_vec()),
                8 => Ok(f.to_bits().to_le_bytes().to_vec()),
                _ => Err(format!(
                    "a float for a {size}-byte parameter: a float parameter is 4 (float) or 8 \
                     (double) bytes"
                )),
            },
            ParamValue::U8(v) => exact(&v.to_le_bytes()),
            ParamValue::I8(v) => exact(&v.to_le_bytes()),
            ParamValue::U16(v) => exact(&v.to_le_bytes()),
            ParamValue::I16(v) => exact(&v.to_le_bytes()),
            ParamValue::U32(v) => exact(&v.to_le_bytes()),
            ParamValue::I32(v) => exact(&v.to_le_bytes()),
            ParamValue::U64(v) => exact(&v.to_le_bytes()),
            ParamValue::I64(v) => exact(&v.to_le_bytes()),
            ParamValue::F32(v) => exact(&v.to_bits().to_le_bytes()),
            ParamValue::F64(v) => exact(&v.to_bits().to_le_bytes()),
            ParamValue::Ptr(v) => exact(&v.to_le_bytes()),
            ParamValue::Bytes(ref b) => exact(b),
        }
    }
}

/// Why [`layout_params`] refused: which value (`None`: the list as a whole, or the table), and
/// what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    /// The index of the value at fault, if one is.
    pub index: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParamError {}

impl ParamTable {
    /// The parameters' sizes, for messages: `8, 8, 4 bytes`.
    pub fn sizes(&self) -> String {
        match self.params.len() {
            0 => "none".into(),
            _ => {
                let sizes: Vec<String> = self.params.iter().map(|p| p.size.to_string()).collect();
                format!("{} bytes", sizes.join(", "))
            }
        }
    }

    /// Whether the table is one a launch can use: ordinals 0, 1, ... in order, each parameter
    /// inside the block and apart from the others, and the block inside constant bank 0.
    pub fn check(&self) -> Result<(), String> {
        if u64::from(self.offset) + u64::from(self.size) > 0x1_0000 {
            return Err(format!(
                "the parameter block c[0x0][{:#x}..{:#x}] runs past the 64 KiB bank",
                self.offset,
                u64::from(self.offset) + u64::from(self.size)
            ));
        }
        let mut end = 0u64;
        for (i, p) in self.params.iter().enumerate() {
            if p.ordinal as usize != i {
                return Err(format!(
                    "parameter {i} has ordinal {}: the ordinals are not 0, 1, 2, ...",
                    p.ordinal
                ));
            }
            let (start, stop) = (u64::from(p.offset), u64::from(p.offset) + u64::from(p.size));
            if p.size == 0 || start < end || stop > u64::from(self.size) {
                return Err(format!(
                    "parameter {i} ({} bytes at offset {}) is empty, overlaps the one before or \
                     passes the {}-byte block",
                    p.size, p.offset, self.size
                ));
            }
            end = stop;
        }
        Ok(())
    }

    /// The parameter block for values given as bytes, one slice per parameter, each exactly
    /// its size (little-endian, as the kernel reads them: what `cuLaunchKernel`'s
    /// `kernelParams` point at); [`layout_params`] with every value [`ParamValue::Bytes`].
    pub fn layout(&self, values: &[&[u8]]) -> Result<Vec<u8>, ParamError> {
        let values: Vec<ParamValue> = values
            .iter()
            .map(|v| ParamValue::Bytes(v.to_vec()))
            .collect();
        layout_params(self, &values)
    }
}

/// The parameter block of a launch: `values[i]` written at parameter `i`'s offset, zeros between
/// them; `table.size` bytes, for `c[0x0][table.offset]` onward.
///
/// Errors: the table is inconsistent ([`ParamTable::check`]); the number of values is not the
/// number of parameters (the index is the first value too many, or `None` for too few); a value
/// does not fit its parameter (its index): an integer out of the parameter's range, a float for a
/// parameter that is neither 4 nor 8 bytes, a typed value or bytes of another size.
pub fn layout_params(table: &ParamTable, values: &[ParamValue]) -> Result<Vec<u8>, ParamError> {
    table.check().map_err(|m| ParamError {
        index: None,
        message: format!("the kernel's parameter table is inconsistent: {m}"),
    })?;
    let n = table.params.len();
    if values.len() != n {
        let takes = match n {
            0 => "no parameters".to_string(),
            1 => format!("1 parameter ({})", table.sizes()),
            _ => format!("{n} parameters ({})", table.sizes()),
        };
        return Err(ParamError {
            index: (values.len() > n).then_some(n),
            message: format!("the kernel takes {takes}, and {} are given", values.len()),
        });
    }
    let mut block = vec![0u8; table.size as usize];
    for (i, (p, v)) in table.params.iter().zip(values).enumerate() {
        let bytes = v.bytes(p.size).map_err(|m| ParamError {
            index: Some(i),
            message: format!(
                "parameter {i} (c[0x0][{:#x}], {} bytes): {m}",
                table.offset + p.offset,
                p.size
            ),
        })?;
        block[p.offset as usize..(p.offset + p.size) as usize].copy_from_slice(&bytes);
    }
    Ok(block)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `every_kind` of tests/cubin/params.cu as ptxas lists it: (char, uchar, short, ushort,
    /// int, unsigned, long long, unsigned long long, float, double, pointer, 16-byte struct,
    /// pointer).
    fn every_kind() -> ParamTable {
        let p = |ordinal, offset, size| KernelParam {
            ordinal,
            offset,
            size,
        };
        ParamTable {
            offset: 0x140,
            size: 80,
            params: vec![
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
                p(12, 72, 8),
            ],
        }
    }

    #[test]
    fn values_are_written_at_their_offsets_with_zero_padding() {
        let values = [
            ParamValue::Int(-2),
            ParamValue::Int(255),
            ParamValue::I16(-3),
            ParamValue::Int(0xfffe),
            ParamValue::Int(-4),
            ParamValue::U32(0xdead_beef),
            ParamValue::Int(i64::MIN as i128),
            ParamValue::Int(u64::MAX as i128),
            ParamValue::Float(1.5),
            ParamValue::Float(-0.1),
            ParamValue::Ptr(0x7f00_0000_0000),
            ParamValue::Bytes((1..=16).collect()),
            ParamValue::U64(0x10000),
        ];
        let b = layout_params(&every_kind(), &values).unwrap();
        let mut want = vec![0u8; 80];
        want[0] = 0xfe;
        want[1] = 0xff;
        want[2..4].copy_from_slice(&(-3i16).to_le_bytes());
        want[4..6].copy_from_slice(&0xfffeu16.to_le_bytes());
        // 6..8: padding.
        want[8..12].copy_from_slice(&(-4i32).to_le_bytes());
        want[12..16].copy_from_slice(&0xdead_beefu32.to_le_bytes());
        want[16..24].copy_from_slice(&i64::MIN.to_le_bytes());
        want[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
        want[32..36].copy_from_slice(&1.5f32.to_bits().to_le_bytes());
        // 36..40: padding.
        want[40..48].copy_from_slice(&(-0.1f64).to_bits().to_le_bytes());
        want[48..56].copy_from_slice(&0x7f00_0000_0000u64.to_le_bytes());
        for (i, b) in want[56..72].iter_mut().enumerate() {
            *b = i as u8 + 1;
        }
        want[72..80].copy_from_slice(&0x10000u64.to_le_bytes());
        assert_eq!(b, want);
    }

    #[test]
    fn mismatches_name_the_value() {
        let t = every_kind();
        let mut good: Vec<ParamValue> = t.params.iter().map(|_| ParamValue::Int(0)).collect();
        good[11] = ParamValue::Bytes(vec![0; 16]);
        assert!(layout_params(&t, &good).is_ok());
        let bad = |i: usize, v: ParamValue| {
            let mut values = good.clone();
            values[i] = v;
            layout_params(&t, &values).unwrap_err()
        };
        let e = bad(0, ParamValue::Int(256));
        assert_eq!(e.index, Some(0));
        assert_eq!(
            e.message,
            "parameter 0 (c[0x0][0x140], 1 bytes): 256 does not fit a 1-byte parameter (-128 to 255)"
        );
        assert!(bad(0, ParamValue::Int(-129))
            .message
            .contains("-129 does not fit"));
        assert!(layout_params(&t, &{
            let mut v = good.clone();
            v[4] = ParamValue::Int(-(1 << 31));
            v
        })
        .is_ok());
        let e = bad(4, ParamValue::U64(1));
        assert_eq!(
            (e.index, e.message.as_str()),
            (
                Some(4),
                "parameter 4 (c[0x0][0x148], 4 bytes): a u64 (8 bytes) does not fit a 4-byte parameter"
            )
        );
        assert!(bad(10, ParamValue::U32(1))
            .message
            .contains("a u32 (4 bytes)"));
        assert!(bad(8, ParamValue::F64(1.0))
            .message
            .contains("an f64 (8 bytes)"));
        assert!(bad(0, ParamValue::Float(1.0))
            .message
            .contains("a float for a 1-byte parameter"));
        let e = bad(11, ParamValue::Int(1));
        assert!(e.message.contains("{ bytes = [...] }"), "{e}");
        assert!(bad(11, ParamValue::Bytes(vec![0; 15]))
            .message
            .contains("15 bytes does not fit a 16-byte parameter"));
        // Counts.
        let e = layout_params(&t, &good[..12]).unwrap_err();
        assert_eq!(e.index, None);
        assert_eq!(
            e.message,
            "the kernel takes 13 parameters (1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 8, 16, 8 bytes), and 12 are given"
        );
        let mut more = good.clone();
        more.push(ParamValue::Int(0));
        more.push(ParamValue::Int(0));
        assert_eq!(layout_params(&t, &more).unwrap_err().index, Some(13));
        let none = ParamTable {
            offset: 0x140,
            size: 0,
            params: vec![],
        };
        assert_eq!(layout_params(&none, &[]).unwrap(), Vec::<u8>::new());
        assert_eq!(
            layout_params(&none, &[ParamValue::Int(1)])
                .unwrap_err()
                .message,
            "the kernel takes no parameters, and 1 are given"
        );
    }

    #[test]
    fn an_inconsistent_table_is_refused() {
        let mut t = every_kind();
        t.params[3].offset = 3;
        let e = layout_params(&t, &[]).unwrap_err();
        assert_eq!(e.index, None);
        assert!(e.message.contains("overlaps the one before"), "{e}");
        let mut t = every_kind();
        t.params.swap(0, 1);
        assert!(layout_params(&t, &[])
            .unwrap_err()
            .message
            .contains("ordinal"));
        let mut t = every_kind();
        t.offset = 0xfff0;
        assert!(layout_params(&t, &[])
            .unwrap_err()
            .message
            .contains("64 KiB"));
    }
}
