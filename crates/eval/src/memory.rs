//! Device memory as the evaluator sees it: allocations at 64-bit device addresses (the same addresses the
//! Vulkan runner gives its buffers), every access bounds-checked.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub kind: &'static str,
    pub address: u64,
    pub bytes: u64,
    pub lane: Option<u32>,
    /// For scratch faults: the size of the wave's scratch region and the wave size (the address is a byte
    /// of that region, see `rdna2spv_ir::Space::Scratch`).
    pub scratch: Option<(u64, u32)>,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.scratch {
            Some((size, ws)) => {
                let (dword, byte) = (self.address / 4, self.address % 4);
                write!(
                    f,
                    "scratch {} of {} bytes at byte 0x{:x} of the wave's private segment (lane {}'s offset 0x{:x}) is outside its {} bytes ({} lanes of {} bytes)",
                    self.kind,
                    self.bytes,
                    self.address,
                    dword % ws as u64,
                    (dword / ws as u64) * 4 + byte,
                    size,
                    ws,
                    size / ws as u64
                )?;
            }
            None => write!(
                f,
                "{} of {} bytes at 0x{:x} is outside every allocation",
                self.kind, self.bytes, self.address
            )?,
        }
        if let Some(l) = self.lane {
            write!(f, " (lane {l})")?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
pub struct Allocation {
    pub name: String,
    pub base: u64,
    pub data: Vec<u8>,
    /// A store reached it since it was added ([`Memory::write`]): a caller that ran over a copy writes
    /// back only these (the HIP runtime's `auto`, D254).
    pub written: bool,
}

/// A sparse device address space.
#[derive(Debug, Clone, Default)]
pub struct Memory {
    allocs: Vec<Allocation>,
}

impl Memory {
    /// Adds an allocation; it must not overlap another.
    pub fn add(&mut self, name: &str, base: u64, data: Vec<u8>) -> Result<(), String> {
        let end = base
            .checked_add(data.len() as u64)
            .ok_or("allocation wraps the address space")?;
        if let Some(a) = self
            .allocs
            .iter()
            .find(|a| base < a.base + a.data.len() as u64 && a.base < end)
        {
            return Err(format!(
                "{name} at 0x{base:x} overlaps {} at 0x{:x}",
                a.name, a.base
            ));
        }
        self.allocs.push(Allocation {
            name: name.to_string(),
            base,
            data,
            written: false,
        });
        self.allocs.sort_by_key(|a| a.base);
        Ok(())
    }

    pub fn allocation(&self, name: &str) -> Option<&Allocation> {
        self.allocs.iter().find(|a| a.name == name)
    }

    pub fn allocations(&self) -> &[Allocation] {
        &self.allocs
    }

    /// The allocations, by base address, handing their bytes back (a runtime that keeps the memory between
    /// runs moves it in with [`Memory::add`] and out again without copying).
    pub fn into_allocations(self) -> Vec<Allocation> {
        self.allocs
    }

    fn find(&self, address: u64, bytes: u64) -> Option<(usize, usize)> {
        let i = self
            .allocs
            .partition_point(|a| a.base <= address)
            .checked_sub(1)?;
        let a = &self.allocs[i];
        let off = address - a.base;
        (off.checked_add(bytes)? <= a.data.len() as u64).then_some((i, off as usize))
    }

    /// Reads `bytes` (1, 2, 4 or 8) little-endian.
    pub fn read(&self, address: u64, bytes: u64) -> Result<u64, Fault> {
        let (i, off) = self.find(address, bytes).ok_or(Fault {
            kind: "load",
            address,
            bytes,
            lane: None,
            scratch: None,
        })?;
        let mut le = [0u8; 8];
        let n = (bytes as usize).min(8);
        le[..n].copy_from_slice(&self.allocs[i].data[off..off + n]);
        Ok(u64::from_le_bytes(le))
    }

    pub fn write(&mut self, address: u64, bytes: u64, value: u64) -> Result<(), Fault> {
        let (i, off) = self.find(address, bytes).ok_or(Fault {
            kind: "store",
            address,
            bytes,
            lane: None,
            scratch: None,
        })?;
        self.allocs[i].written = true;
        if bytes <= 8 {
            let n = bytes as usize;
            self.allocs[i].data[off..off + n].copy_from_slice(&value.to_le_bytes()[..n]);
            return Ok(());
        }
        for k in 0..bytes as usize {
            self.allocs[i].data[off + k] = (value >> (8 * k)) as u8;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_checked() {
        let mut m = Memory::default();
        m.add("a", 0x1000, vec![1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        assert!(m.add("b", 0x1004, vec![0; 4]).is_err());
        assert_eq!(m.read(0x1000, 4).unwrap(), 0x0403_0201);
        assert_eq!(m.read(0x1004, 4).unwrap(), 0x0807_0605);
        assert!(m.read(0x1006, 4).is_err());
        assert!(m.read(0xfff, 1).is_err());
        assert!(m.read(u64::MAX, 8).is_err());
        m.add("c", 0x2000, vec![0; 4]).unwrap();
        assert!(m.write(0x1006, 4, 0).is_err());
        assert!(m.allocations().iter().all(|a| !a.written));
        m.write(0x1004, 2, 0xbeef).unwrap();
        assert_eq!(m.read(0x1004, 2).unwrap(), 0xbeef);
        let written: Vec<bool> = m.allocations().iter().map(|a| a.written).collect();
        assert_eq!(written, [true, false]);
    }
}
