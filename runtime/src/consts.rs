//! Constant banks: 32 banks of 64 KiB (docs/semantics.md §14).

/// Number of constant banks.
pub const BANKS: usize = 32;
/// Bytes per bank.
pub const BANK_SIZE: usize = 0x1_0000;

/// How many banks a launch can reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BankMode {
    /// 8 banks.
    #[default]
    Compute,
    /// 18 banks.
    Graphics,
}

impl BankMode {
    /// Banks available in this mode; an index at or past this reads 0.
    pub fn banks(self) -> u32 {
        match self {
            BankMode::Compute => 8,
            BankMode::Graphics => 18,
        }
    }
}

/// The 32 constant banks, 2 MiB in one allocation.
#[derive(Clone)]
pub struct ConstBanks {
    data: Box<[u8]>,
}

impl Default for ConstBanks {
    fn default() -> Self {
        ConstBanks {
            data: vec![0u8; BANKS * BANK_SIZE].into_boxed_slice(),
        }
    }
}

impl ConstBanks {
    /// Zeroed banks.
    pub fn new() -> Self {
        Self::default()
    }

    /// All banks as one byte slice (bank `b` starts at `b * 0x10000`), for JIT code.
    pub fn as_bytes(&self) -> &[u8] {
        &self.data
    }

    /// Writes bytes into a bank; `None` if they do not fit inside it.
    pub fn write(&mut self, bank: u32, offset: u32, bytes: &[u8]) -> Option<()> {
        if bank as usize >= BANKS || offset as usize + bytes.len() > BANK_SIZE {
            return None;
        }
        let at = bank as usize * BANK_SIZE + offset as usize;
        self.data[at..at + bytes.len()].copy_from_slice(bytes);
        Some(())
    }

    /// Reads a little-endian word at a 4-aligned address (`bank < 32`, `addr + 4 <= 0x10000`).
    #[inline]
    pub fn word(&self, bank: u32, addr: u32) -> u32 {
        let at = bank as usize * BANK_SIZE + addr as usize;
        let b = &self.data[at..at + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }

    /// Reads `size` bytes (1, 2, 4, 8, 16) at `addr` of `bank` into words, sub-words extended per
    /// `signed`. The caller has checked alignment and range; out of range reads 0.
    #[inline]
    pub fn read(&self, bank: u32, addr: u32, size: u32, signed: bool) -> [u32; 4] {
        let mut out = [0u32; 4];
        if bank as usize >= BANKS || addr as usize + size as usize > BANK_SIZE {
            return out;
        }
        let at = bank as usize * BANK_SIZE + addr as usize;
        let b = &self.data[at..at + size as usize];
        match size {
            1 => {
                out[0] = if signed {
                    b[0] as i8 as i32 as u32
                } else {
                    b[0] as u32
                }
            }
            2 => {
                let v = u16::from_le_bytes([b[0], b[1]]);
                out[0] = if signed {
                    v as i16 as i32 as u32
                } else {
                    v as u32
                };
            }
            _ => {
                for (w, c) in out.iter_mut().zip(b.chunks_exact(4)) {
                    *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                }
            }
        }
        out
    }
}
