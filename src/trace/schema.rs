//! The trace file as TOML gives it: one serde struct per table, every key spanned so that a value
//! found invalid after parsing can be pointed at. Unknown keys are errors everywhere.

use serde::Deserialize;
use toml::Spanned;

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
    pub(crate) launch: Vec<Spanned<RawLaunch>>,
    #[serde(default)]
    pub(crate) expect: Vec<Spanned<RawExpect>>,
    #[serde(default)]
    pub(crate) expect_buffer: Vec<Spanned<RawExpectBuffer>>,
}

/// `[machine]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawMachine {
    #[serde(default)]
    pub(crate) shared_window: Option<Spanned<u64>>,
    #[serde(default)]
    pub(crate) launch_budget: Option<Spanned<u64>>,
}

with_data! {
    /// `[[global]]`.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct RawGlobal {
        pub(crate) addr: Spanned<u64>,
        #[serde(default)]
        pub(crate) size: Option<Spanned<u64>>,
    }
}

/// `[[sparse]]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSparse {
    pub(crate) addr: Spanned<u64>,
    pub(crate) size: Spanned<u64>,
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
        pub(crate) dim: Spanned<String>,
        pub(crate) format: Spanned<String>,
        pub(crate) width: Spanned<u32>,
        pub(crate) height: Spanned<u32>,
        pub(crate) samples: Spanned<u32>,
        #[serde(default)]
        pub(crate) array_size: Option<Spanned<u32>>,
    }
}

with_data! {
    /// `[[buffer]]`.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct RawBuffer {
        pub(crate) slot: Spanned<u32>,
        #[serde(default)]
        pub(crate) view: Option<Spanned<String>>,
        pub(crate) stride: Spanned<u32>,
        #[serde(default)]
        pub(crate) size: Option<Spanned<u64>>,
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
    pub(crate) grid: Option<Spanned<Vec<Spanned<u32>>>>,
    #[serde(default)]
    pub(crate) block: Option<Spanned<Vec<Spanned<u32>>>>,
    #[serde(default)]
    pub(crate) invocations: Option<Spanned<u32>>,
    #[serde(default)]
    pub(crate) mode: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) registers: Option<Spanned<u32>>,
    #[serde(default)]
    pub(crate) shared_bytes: Option<Spanned<u32>>,
    #[serde(default)]
    pub(crate) budget: Option<Spanned<u64>>,
    #[serde(default)]
    pub(crate) input: Vec<Spanned<RawRegData>>,
    #[serde(default)]
    pub(crate) expect_output: Vec<Spanned<RawRegData>>,
}

with_data! {
    /// `[[launch.input]]` and `[[launch.expect_output]]`.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct RawRegData {
        pub(crate) reg: Spanned<u32>,
    }
}

with_data! {
    /// `[[expect]]`.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct RawExpect {
        pub(crate) addr: Spanned<u64>,
    }
}

with_data! {
    /// `[[expect_buffer]]`.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct RawExpectBuffer {
        pub(crate) slot: Spanned<u32>,
        #[serde(default)]
        pub(crate) view: Option<Spanned<String>>,
    }
}
