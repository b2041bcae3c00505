//! Host-visible buffers with device addresses.

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use crate::{vk_err, Context, Error, Result};

/// A buffer in host-visible, host-coherent memory with a 64-bit device address, for kernels that
/// reach memory through `PhysicalStorageBuffer64` pointers. Freed when dropped.
pub struct Buffer<'c> {
    ctx: &'c Context,
    raw: vk::Buffer,
    allocation: Option<Allocation>,
    len: u64,
    address: u64,
}

impl std::fmt::Debug for Buffer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffer")
            .field("len", &self.len)
            .field("address", &format_args!("{:#x}", self.address))
            .finish()
    }
}

impl Context {
    /// Creates a zero-filled buffer of `len` bytes (at least 1) with a device address.
    pub fn create_buffer(&self, len: u64) -> Result<Buffer<'_>> {
        self.create_buffer_for(len, vk::BufferUsageFlags::empty())
    }

    /// [`create_buffer`](Self::create_buffer) usable for `extra` too (a storage texel buffer, D288).
    pub(crate) fn create_buffer_for(
        &self,
        len: u64,
        extra: vk::BufferUsageFlags,
    ) -> Result<Buffer<'_>> {
        self.check_usable()?;
        if len == 0 {
            return Err(Error::InvalidArgument(
                "a buffer needs at least 1 byte".into(),
            ));
        }
        // Round the Vulkan size up to a multiple of 16 so vector loads at the end stay inside.
        let size = len.div_ceil(16) * 16;
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST
            | extra;
        let d = &self.device;
        // SAFETY: valid create info; the buffer is destroyed on every failure path below.
        let raw = unsafe {
            d.create_buffer(
                &vk::BufferCreateInfo::default()
                    .size(size)
                    .usage(usage)
                    .sharing_mode(vk::SharingMode::EXCLUSIVE),
                None,
            )
        }
        .map_err(vk_err("vkCreateBuffer"))?;
        let mut requirements = unsafe { d.get_buffer_memory_requirements(raw) };
        // Every buffer starts at a multiple of 256 bytes: an image's T# holds its base address >> 8 (D183).
        requirements.alignment = requirements.alignment.max(256);
        let allocated = {
            let mut guard = self.allocator.lock().unwrap_or_else(|p| p.into_inner());
            let alloc = guard
                .as_mut()
                .expect("allocator lives as long as the context");
            alloc.allocate(&AllocationCreateDesc {
                name: "rdna2spv buffer",
                requirements,
                location: MemoryLocation::CpuToGpu,
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
        };
        let mut allocation = match allocated {
            Ok(a) => a,
            Err(e) => {
                unsafe { d.destroy_buffer(raw, None) };
                return Err(e.into());
            }
        };
        let mut buffer = Buffer {
            ctx: self,
            raw,
            allocation: None,
            len,
            address: 0,
        };
        // SAFETY: the allocation satisfies the buffer's requirements and is not bound elsewhere.
        if let Err(e) =
            unsafe { d.bind_buffer_memory(raw, allocation.memory(), allocation.offset()) }
        {
            buffer.allocation = Some(allocation);
            return Err(vk_err("vkBindBufferMemory")(e)); // Drop frees both.
        }
        match allocation.mapped_slice_mut() {
            Some(bytes) => bytes.fill(0),
            None => {
                buffer.allocation = Some(allocation);
                return Err(Error::InvalidArgument(
                    "the allocator returned unmapped memory for a host-visible buffer".into(),
                ));
            }
        }
        buffer.allocation = Some(allocation);
        buffer.address = unsafe {
            d.get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(raw))
        };
        Ok(buffer)
    }

    /// Creates a buffer holding a copy of `bytes`.
    pub fn buffer_from_bytes(&self, bytes: &[u8]) -> Result<Buffer<'_>> {
        let mut b = self.create_buffer(bytes.len().max(1) as u64)?;
        b.upload(0, bytes)?;
        Ok(b)
    }
}

impl Buffer<'_> {
    /// Length in bytes (as requested).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Always false: a buffer has at least one byte.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The address kernels use to reach byte 0 (`vkGetBufferDeviceAddress`).
    pub fn device_address(&self) -> u64 {
        self.address
    }

    /// The Vulkan handle.
    pub fn raw(&self) -> vk::Buffer {
        self.raw
    }

    fn range(&self, offset: u64, len: usize) -> Result<std::ops::Range<usize>> {
        let end = offset.checked_add(len as u64);
        match end {
            Some(end) if end <= self.len => Ok(offset as usize..end as usize),
            _ => Err(Error::InvalidArgument(format!(
                "bytes {offset}..{offset}+{len} lie outside a buffer of {} bytes",
                self.len
            ))),
        }
    }

    /// Copies `data` into the buffer at byte `offset`.
    pub fn upload(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        let r = self.range(offset, data.len())?;
        let slice = self
            .allocation
            .as_mut()
            .and_then(|a| a.mapped_slice_mut())
            .ok_or_else(|| Error::InvalidArgument("buffer memory is not mapped".into()))?;
        slice[r].copy_from_slice(data);
        Ok(())
    }

    /// Reads `len` bytes at byte `offset`.
    pub fn download(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let r = self.range(offset, len)?;
        let slice = self
            .allocation
            .as_ref()
            .and_then(|a| a.mapped_slice())
            .ok_or_else(|| Error::InvalidArgument("buffer memory is not mapped".into()))?;
        Ok(slice[r].to_vec())
    }

    /// Reads the whole buffer.
    pub fn download_all(&self) -> Result<Vec<u8>> {
        self.download(0, self.len as usize)
    }

    /// Uploads little-endian u32 words at byte `offset`.
    pub fn upload_u32(&mut self, offset: u64, words: &[u32]) -> Result<()> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.upload(offset, &bytes)
    }

    /// Reads `count` little-endian u32 words at byte `offset`.
    pub fn download_u32(&self, offset: u64, count: usize) -> Result<Vec<u32>> {
        let bytes = self.download(offset, count * 4)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}

impl Drop for Buffer<'_> {
    fn drop(&mut self) {
        if self.ctx.check_usable().is_err() {
            return; // a hung device may still use it: leak
        }
        // SAFETY: dispatches are synchronous, so no submitted work uses the buffer any more.
        unsafe { self.ctx.device.destroy_buffer(self.raw, None) };
        if let Some(a) = self.allocation.take() {
            let mut guard = self.ctx.allocator.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(alloc) = guard.as_mut() {
                let _ = alloc.free(a);
            }
        }
    }
}
