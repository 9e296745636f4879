//! The trace file as TOML gives it: one serde struct per table, every key spanned so that a value
//! found invalid after parsing can be pointed at. Unknown keys are errors everywhere.

use serde::de::{self, Deserializer, Unexpected, Visitor};
use serde::Deserialize;
use std::fmt;
use toml::Spanned;

/// A 64-bit unsigned value: a TOML integer (0 to 2^63 - 1, all TOML integers can hold), or a string
/// holding a decimal or `0x` hexadecimal integer up to 2^64 - 1, with `_` allowed between digits
/// (`"0xffff_ffff_ffff_f000"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct U64(pub(crate) u64);

/// The value of a [`U64`] string, if it is one.
pub(crate) fn parse_u64(s: &str) -> Option<u64> {
    let (digits, radix) = match s.strip_prefix("0x") {
        Some(h) => (h, 16),
        None => (s, 10),
    };
    let ok_chars = digits.chars().all(|c| c == '_' || c.is_digit(radix));
    if digits.is_empty()
        || !ok_chars
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    u64::from_str_radix(&clean, radix).ok()
}

impl<'de> Deserialize<'de> for U64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = U64;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a non-negative integer, or a string holding a decimal or 0x hexadecimal \
                     integer below 2^64",
                )
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<U64, E> {
                u64::try_from(v)
                    .map(U64)
                    .map_err(|_| E::invalid_value(Unexpected::Signed(v), &self))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<U64, E> {
                Ok(U64(v))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<U64, E> {
                parse_u64(s).map(U64).ok_or_else(|| {
                    let shown: String = s.chars().take(40).collect();
                    let more = if shown.len() < s.len() { "…" } else { "" };
                    E::custom(format!(
                        "invalid 64-bit value {shown:?}{more}: expected a decimal or 0x hexadecimal \
                         integer from 0 to 0xffff_ffff_ffff_ffff (`_` allowed between digits)"
                    ))
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// A `reg` key: a register number, or the name of a special register (`"oDepth"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RegName {
    /// `v#` / `o#`.
    Num(u32),
    /// `vCoverage`, `oDepth`, ...
    Name(String),
}

impl<'de> Deserialize<'de> for RegName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = RegName;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a register number, or the name of a special register such as \"oDepth\"",
                )
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RegName, E> {
                u32::try_from(v)
                    .map(RegName::Num)
                    .map_err(|_| E::invalid_value(Unexpected::Signed(v), &self))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RegName, E> {
                u32::try_from(v)
                    .map(RegName::Num)
                    .map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<RegName, E> {
                Ok(RegName::Name(s.chars().take(64).collect()))
            }
        }
        d.deserialize_any(V)
    }
}

/// One element of a launch's `params`: a TOML integer, float or string (a 64-bit integer), or a
/// one-key inline table naming the type, `{ f32 = 1.5 }` (the key and its value spanned, so that
/// the value can be pointed at and a float re-read from its text).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RawParam {
    /// A TOML integer.
    Int(i64),
    /// A TOML float.
    Float(f64),
    /// A string: a decimal or `0x` hexadecimal integer up to 2^64 - 1.
    Str(String),
    /// `{ TYPE = VALUE }`.
    Typed {
        /// The type's name.
        key: String,
        /// The value.
        value: Spanned<toml::Value>,
    },
}

impl<'de> Deserialize<'de> for RawParam {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawParam;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a parameter value: an integer, a float, a string holding a 64-bit integer, \
                     or a typed value such as { f32 = 1.5 }, { u64 = \"0xffff_ffff_ffff_ffff\" }, \
                     { ptr = 0x10000 } or { bytes = [1, 2] }",
                )
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawParam, E> {
                Ok(RawParam::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawParam, E> {
                i64::try_from(v)
                    .map(RawParam::Int)
                    .map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawParam, E> {
                Ok(RawParam::Float(v))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<RawParam, E> {
                Ok(RawParam::Str(s.chars().take(64).collect()))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<RawParam, A::Error> {
                let Some(key) = map.next_key::<String>()? else {
                    return Err(de::Error::invalid_length(0, &self));
                };
                let value = map.next_value::<Spanned<toml::Value>>()?;
                if map.next_key::<String>()?.is_some() {
                    return Err(de::Error::custom(
                        "a typed parameter value has one key, its type: { f32 = 1.5 }",
                    ));
                }
                Ok(RawParam::Typed {
                    key: key.chars().take(64).collect(),
                    value,
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// Adds the data keys (`u32`, `i32`, `f32`, `u8`, `file`) to a table struct and implements
/// [`HasData`] for it.
macro_rules! with_data {
    ($(#[$m:meta])* pub(crate) struct $name:ident { $($(#[$fm:meta])* pub(crate) $f:ident : $t:ty,)* }) => {
        $(#[$m])*
        pub(crate) struct $name {
            $($(#[$fm])* pub(crate) $f: $t,)*
            /// Data as 32-bit words.
            #[serde(default)]
            pub(crate) u32: Option<Spanned<Vec<u32>>>,
            /// Data as signed 32-bit words.
            #[serde(default)]
            pub(crate) i32: Option<Spanned<Vec<i32>>>,
            /// Data as floats (each element spanned: its text is re-read as an `f32`).
            #[serde(default)]
            pub(crate) f32: Option<Spanned<Vec<Spanned<f64>>>>,
            /// Data as bytes.
            #[serde(default)]
            pub(crate) u8: Option<Spanned<Vec<u8>>>,
            /// Data from a side file.
            #[serde(default)]
            pub(crate) file: Option<Spanned<String>>,
        }

        impl HasData for $name {
            fn data(&self) -> RawData<'_> {
                RawData { u32: &self.u32, i32: &self.i32, f32: &self.f32, u8: &self.u8, file: &self.file }
            }
        }
    };
}

/// The data keys of one table.
pub(crate) struct RawData<'a> {
    pub(crate) u32: &'a Option<Spanned<Vec<u32>>>,
    pub(crate) i32: &'a Option<Spanned<Vec<i32>>>,
    pub(crate) f32: &'a Option<Spanned<Vec<Spanned<f64>>>>,
    pub(crate) u8: &'a Option<Spanned<Vec<u8>>>,
    pub(crate) file: &'a Option<Spanned<String>>,
}

/// A table with the data keys.
pub(crate) trait HasData {
    fn data(&self) -> RawData<'_>;
}

/// The whole file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTrace {
    pub(crate) format: Spanned<String>,
    #[serde(default)]
    pub(crate) machine: Option<RawMachine>,
    #[serde(default)]
    pub(crate) global: Vec<Spanned<RawGlobal>>,
    #[serde(default)]
    pub(crate) sparse: Vec<Spanned<RawSparse>>,
    #[serde(default, rename = "const")]
    pub(crate) consts: Vec<Spanned<RawConst>>,
    #[serde(default)]
    pub(crate) texture: Vec<Spanned<RawTexture>>,
    #[serde(default)]
    pub(crate) buffer: Vec<Spanned<RawBuffer>>,
    #[serde(default)]
    pub(crate) sampler: Vec<Spanned<RawSampler>>,
    #[serde(default)]
    pub(crate) launch: Vec<Spanned<RawLaunch>>,
    #[serde(default)]
    pub(crate) expect: Vec<Spanned<RawExpect>>,
    #[serde(default)]
    pub(crate) expect_buffer: Vec<Spanned<RawExpectResource>>,
    #[serde(default)]
    pub(crate) expect_texture: Vec<Spanned<RawExpectResource>>,
}

/// `[machine]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawMachine {
    #[serde(default)]
    pub(crate) shared_window: Option<Spanned<U64>>,
    #[serde(default)]
    pub(crate) local_window: Option<Spanned<U64>>,
    #[serde(default)]
    pub(crate) launch_budget: Option<Spanned<U64>>,
    #[serde(default)]
    pub(crate) quantum: Option<Spanned<U64>>,
}

with_data! {
    /// `[[global]]`.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct RawGlobal {
        pub(crate) addr: Spanned<U64>,
        #[serde(default)]
        pub(crate) size: Option<Spanned<U64>>,
        #[serde(default)]
        pub(crate) uninitialized: Option<Spanned<bool>>,
    }
}

/// `[[sparse]]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSparse {
    pub(crate) addr: Spanned<U64>,
    pub(crate) size: Spanned<U64>,
}

with_data! {
    /// `[[const]]`.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct RawConst {
        pub(crate) bank: Spanned<u32>,
        #[serde(default)]
        pub(crate) offset: Option<Spanned<u32>>,
    }
}

with_data! {
    /// `[[texture]]`.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct RawTexture {
        pub(crate) slot: Spanned<u32>,
        #[serde(default)]
        pub(crate) view: Option<Spanned<String>>,
        pub(crate) dim: Spanned<String>,
        pub(crate) format: Spanned<String>,
        pub(crate) width: Spanned<u32>,
        #[serde(default)]
        pub(crate) height: Option<Spanned<u32>>,
        #[serde(default)]
        pub(crate) depth: Option<Spanned<u32>>,
        #[serde(default)]
        pub(crate) samples: Option<Spanned<u32>>,
        #[serde(default)]
        pub(crate) array_size: Option<Spanned<u32>>,
        #[serde(default)]
        pub(crate) mip_levels: Option<Spanned<u32>>,
    }
}

/// `[[sampler]]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSampler {
    pub(crate) slot: Spanned<u32>,
    #[serde(default)]
    pub(crate) filter: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) address: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) address_u: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) address_v: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) address_w: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) border_color: Option<Spanned<Vec<Spanned<f64>>>>,
    #[serde(default)]
    pub(crate) mip_lod_bias: Option<Spanned<f64>>,
    #[serde(default)]
    pub(crate) min_lod: Option<Spanned<f64>>,
    #[serde(default)]
    pub(crate) max_lod: Option<Spanned<f64>>,
    #[serde(default)]
    pub(crate) max_anisotropy: Option<Spanned<u32>>,
    #[serde(default)]
    pub(crate) comparison_func: Option<Spanned<String>>,
}

with_data! {
    /// `[[buffer]]`.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct RawBuffer {
        pub(crate) slot: Spanned<u32>,
        #[serde(default)]
        pub(crate) view: Option<Spanned<String>>,
        #[serde(default)]
        pub(crate) stride: Option<Spanned<u32>>,
        #[serde(default)]
        pub(crate) format: Option<Spanned<String>>,
        #[serde(default)]
        pub(crate) size: Option<Spanned<U64>>,
        #[serde(default)]
        pub(crate) counter: Option<Spanned<u32>>,
    }
}

/// `[[launch]]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawLaunch {
    #[serde(default)]
    pub(crate) isa: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) code: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) code_file: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) kernel: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) grid: Option<Spanned<Vec<Spanned<u32>>>>,
    #[serde(default)]
    pub(crate) block: Option<Spanned<Vec<Spanned<u32>>>>,
    #[serde(default)]
    pub(crate) invocations: Option<Spanned<u32>>,
    #[serde(default)]
    pub(crate) pixels: Option<Spanned<Vec<Spanned<u32>>>>,
    #[serde(default)]
    pub(crate) mode: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) registers: Option<Spanned<u32>>,
    #[serde(default)]
    pub(crate) shared_bytes: Option<Spanned<u32>>,
    #[serde(default)]
    pub(crate) local_bytes: Option<Spanned<u32>>,
    #[serde(default)]
    pub(crate) budget: Option<Spanned<U64>>,
    #[serde(default)]
    pub(crate) cooperative: Option<Spanned<bool>>,
    pub(crate) module_data: Option<Spanned<U64>>,
    #[serde(default)]
    pub(crate) input: Vec<Spanned<RawRegData>>,
    #[serde(default)]
    pub(crate) expect_output: Vec<Spanned<RawRegData>>,
    /// `[[launch.const]]`: constant data for this launch only.
    #[serde(default, rename = "const")]
    pub(crate) consts: Vec<Spanned<RawConst>>,
    /// `params = [...]`: a cubin kernel's arguments.
    #[serde(default)]
    pub(crate) params: Option<Spanned<Vec<Spanned<RawParam>>>>,
}

with_data! {
    /// `[[launch.input]]` and `[[launch.expect_output]]`.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct RawRegData {
        pub(crate) reg: Spanned<RegName>,
    }
}

with_data! {
    /// `[[expect]]`.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct RawExpect {
        pub(crate) addr: Spanned<U64>,
    }
}

with_data! {
    /// `[[expect_buffer]]` and `[[expect_texture]]`.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct RawExpectResource {
        pub(crate) slot: Spanned<u32>,
        #[serde(default)]
        pub(crate) view: Option<Spanned<String>>,
    }
}
