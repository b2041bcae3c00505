//! Device memory: every allocation at the address kernels see (decision D156). On the host backend the
//! runtime chooses addresses above 4 GiB with an unmapped 64 KiB gap after each allocation and keeps the
//! bytes in host memory; on the Vulkan backends every allocation is a persistent host-visible buffer and its
//! address is the buffer's device address. Copies map an address to (allocation, offset) and are refused
//! outside an allocation.

use crate::error::{code, fail, Failure, Result};
use rdna2spv_vulkan::{Buffer, Context};
use std::collections::BTreeMap;

/// What an allocation holds (for messages and for `hipFree`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `hipMalloc`.
    Malloc,
    /// A loaded code object's image (module index).
    Image(usize),
    /// One launch's kernarg segment or dispatch packet, freed after the launch.
    Launch,
}

enum Store {
    Host(Vec<u8>),
    Device(Buffer<'static>),
}

struct Allocation {
    size: u64,
    kind: Kind,
    store: Store,
}

/// Every live allocation by base address.
pub struct AddressSpace {
    device: Option<&'static Context>,
    allocations: BTreeMap<u64, Allocation>,
    next_host: u64,
}

/// Host backend: the first address and the gap after each allocation (as `dispatch::host_addresses`).
const HOST_BASE: u64 = 0x1_0000_0000;
const HOST_GAP: u64 = 0x1_0000;
/// The largest single allocation (the image cap of D155 and the evaluator's comfort).
pub const MAX_ALLOCATION: u64 = 1 << 32;

impl AddressSpace {
    /// Allocations in host memory (`device` None) or in `device`'s buffers.
    pub fn new(device: Option<&'static Context>) -> Self {
        AddressSpace {
            device,
            allocations: BTreeMap::new(),
            next_host: HOST_BASE,
        }
    }

    /// A zero-filled allocation of `size` bytes (at least 1); its address.
    pub fn alloc(&mut self, size: u64, kind: Kind) -> Result<u64> {
        if size > MAX_ALLOCATION {
            return fail(code::OUT_OF_MEMORY);
        }
        let size = size.max(1);
        let (base, store) = match self.device {
            Some(ctx) => {
                let b = ctx.create_buffer(size.max(4)).map_err(|e| {
                    Failure::Stop(format!("allocating {size} bytes on the device: {e}"))
                })?;
                (b.device_address(), Store::Device(b))
            }
            None => {
                let base = self.next_host;
                self.next_host += size.div_ceil(HOST_GAP) * HOST_GAP + HOST_GAP;
                (base, Store::Host(vec![0; size as usize]))
            }
        };
        self.allocations
            .insert(base, Allocation { size, kind, store });
        Ok(base)
    }

    /// Frees the allocation that starts at `base` (of `kind`).
    pub fn free(&mut self, base: u64, kind: Kind) -> Result<()> {
        match self.allocations.get(&base) {
            Some(a) if a.kind == kind => {
                self.allocations.remove(&base);
                Ok(())
            }
            _ => fail(code::INVALID_DEVICE_POINTER),
        }
    }

    /// Frees every allocation (`hipDeviceReset`); images stay (modules stay loaded).
    pub fn free_all_mallocs(&mut self) {
        self.allocations.retain(|_, a| a.kind != Kind::Malloc);
    }

    /// The allocation holding `[addr, addr + len)`: (base, offset).
    pub fn find(&self, addr: u64, len: u64) -> Option<(u64, u64)> {
        let (&base, a) = self.allocations.range(..=addr).next_back()?;
        let off = addr - base;
        (off.checked_add(len)? <= a.size).then_some((base, off))
    }

    /// Whether `addr` lies in an allocation (device memory).
    pub fn contains(&self, addr: u64) -> bool {
        self.find(addr, 0)
            .is_some_and(|(b, off)| off < self.allocations[&b].size)
    }

    /// `len` bytes at `addr`; `hipErrorInvalidValue` when they are not inside one allocation.
    pub fn read(&self, addr: u64, len: u64) -> Result<Vec<u8>> {
        let Some((base, off)) = self.find(addr, len) else {
            return fail(code::INVALID_VALUE);
        };
        match &self.allocations[&base].store {
            Store::Host(v) => Ok(v[off as usize..(off + len) as usize].to_vec()),
            Store::Device(b) => b
                .download(off, len as usize)
                .map_err(|e| Failure::Stop(format!("reading device memory at {addr:#x}: {e}"))),
        }
    }

    /// Writes `data` at `addr`; `hipErrorInvalidValue` when it is not inside one allocation.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<()> {
        let Some((base, off)) = self.find(addr, data.len() as u64) else {
            return fail(code::INVALID_VALUE);
        };
        match &mut self.allocations.get_mut(&base).expect("found").store {
            Store::Host(v) => {
                v[off as usize..off as usize + data.len()].copy_from_slice(data);
                Ok(())
            }
            Store::Device(b) => b
                .upload(off, data)
                .map_err(|e| Failure::Stop(format!("writing device memory at {addr:#x}: {e}"))),
        }
    }

    /// Every allocation's (base, kind, bytes).
    pub fn snapshot(&self) -> Result<Vec<(u64, Kind, Vec<u8>)>> {
        self.allocations
            .iter()
            .map(|(&base, a)| Ok((base, a.kind, self.read(base, a.size)?)))
            .collect()
    }

    /// Every allocation's (base, size), in address order.
    pub fn ranges(&self) -> Vec<(u64, u64)> {
        self.allocations.iter().map(|(&b, a)| (b, a.size)).collect()
    }

    /// Moves every host-backed allocation's bytes out (base, kind, bytes), leaving it empty until
    /// [`AddressSpace::put_back`]: the host evaluator runs on them without a copy.
    pub fn take_host(&mut self) -> Vec<(u64, Kind, Vec<u8>)> {
        self.allocations
            .iter_mut()
            .filter_map(|(&base, a)| match &mut a.store {
                Store::Host(v) => Some((base, a.kind, std::mem::take(v))),
                Store::Device(_) => None,
            })
            .collect()
    }

    /// Returns bytes [`AddressSpace::take_host`] moved out.
    pub fn put_back(&mut self, base: u64, data: Vec<u8>) {
        if let Some(Allocation {
            store: Store::Host(v),
            ..
        }) = self.allocations.get_mut(&base)
        {
            *v = data;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_allocations_sit_above_4_gib_with_gaps_and_copies_stay_inside() {
        let mut m = AddressSpace::new(None);
        let a = m.alloc(100, Kind::Malloc).unwrap();
        let b = m.alloc(0x1_0000, Kind::Malloc).unwrap();
        let c = m.alloc(1, Kind::Malloc).unwrap();
        assert_eq!(a, 0x1_0000_0000);
        // 100 bytes round up to 64 KiB, then a 64 KiB gap.
        assert_eq!(b, a + 0x2_0000);
        assert_eq!(c, b + 0x2_0000);
        m.write(a + 10, &[1, 2, 3]).unwrap();
        assert_eq!(m.read(a + 9, 5).unwrap(), [0, 1, 2, 3, 0]);
        // The last byte is inside; one more is not; the gap belongs to nobody.
        assert!(m.read(a + 99, 1).is_ok());
        assert!(matches!(
            m.read(a + 99, 2),
            Err(Failure::Code(code::INVALID_VALUE))
        ));
        assert!(matches!(
            m.write(a + 100, &[0]),
            Err(Failure::Code(code::INVALID_VALUE))
        ));
        assert!(!m.contains(a + 100) && m.contains(a + 99) && !m.contains(a - 1));
        assert_eq!(m.find(b + 5, 4), Some((b, 5)));
        // Free only by base and kind.
        assert!(m.free(a + 1, Kind::Malloc).is_err());
        assert!(m.free(a, Kind::Launch).is_err());
        m.free(a, Kind::Malloc).unwrap();
        assert!(m.read(a, 1).is_err());
        let snap = m.snapshot().unwrap();
        assert_eq!(snap.len(), 2);
        assert_eq!(snap[0].0, b);
        // Bytes moved out for the evaluator and back.
        m.write(b, &[9]).unwrap();
        let taken = m.take_host();
        assert_eq!(taken.len(), 2);
        assert_eq!(taken[0].2[0], 9);
        for (base, _, data) in taken {
            m.put_back(base, data);
        }
        assert_eq!(m.read(b, 1).unwrap(), [9]);
        m.free_all_mallocs();
        assert!(m.snapshot().unwrap().is_empty());
    }
}
