//! The texel buffer of a texel-LDS module (decision D288; the module side is
//! `rdna2spv_spirv::lower::TexelLds`): one storage texel buffer of `regions × region_words` words,
//! bound at descriptor set 0 as `R32_UINT` (binding 0) and `R32G32B32A32_UINT` (binding 1), and the
//! dispatch split into chunks of `regions` consecutive linear workgroup ids, each chunk's regions
//! zero-filled before it runs.

use ash::vk;

use crate::buffer::Buffer;
use crate::context::Context;
use crate::{vk_err, Error, Result};
use rdna2spv_spirv::lower::TexelLds;

/// The descriptor set layout of a texel-LDS pipeline: two storage texel buffers.
pub(crate) fn set_layout(device: &ash::Device) -> Result<vk::DescriptorSetLayout> {
    let bindings = [0, 1].map(|b| {
        vk::DescriptorSetLayoutBinding::default()
            .binding(b)
            .descriptor_type(vk::DescriptorType::STORAGE_TEXEL_BUFFER)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
    });
    // SAFETY: a valid create info.
    unsafe {
        device.create_descriptor_set_layout(
            &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
            None,
        )
    }
    .map_err(vk_err("vkCreateDescriptorSetLayout"))
}

/// The boxes (`base`, `count`) of the grid `grid` (row-major: x fastest) that hold the linear ids
/// `a..b`, in order: a partial row, whole rows of a plane, whole planes, and the same at the end.
pub fn boxes(grid: [u32; 3], a: u64, b: u64) -> Vec<([u32; 3], [u32; 3])> {
    let (x_n, y_n) = (grid[0] as u64, grid[1] as u64);
    let plane = x_n * y_n;
    let mut out = Vec::new();
    let mut p = a;
    while p < b && x_n > 0 && y_n > 0 {
        let (x, y, z) = (p % x_n, (p / x_n) % y_n, p / plane);
        let left = b - p;
        let (base, count) = if x != 0 || left < x_n {
            let n = (x_n - x).min(left);
            ([x, y, z], [n, 1, 1])
        } else if y != 0 || left < plane {
            let rows = (y_n - y).min(left / x_n);
            ([0, y, z], [x_n, rows, 1])
        } else {
            ([0, 0, z], [x_n, y_n, left / plane])
        };
        p += count[0] * count[1] * count[2];
        out.push((base.map(|v| v as u32), count.map(|v| v as u32)));
    }
    out
}

/// The texel buffer, its two views and the descriptor set of one dispatch.
pub(crate) struct TexelBinding<'a> {
    ctx: &'a Context,
    lds: TexelLds,
    buffer: Buffer<'a>,
    views: [vk::BufferView; 2],
    pool: vk::DescriptorPool,
    set: vk::DescriptorSet,
    /// Regions the buffer holds: `min(regions, workgroups)`, at least 1.
    held: u64,
}

impl<'a> TexelBinding<'a> {
    /// The buffer for a dispatch of `workgroups` (zero-filled: the first chunk's fill).
    pub(crate) fn new(
        ctx: &'a Context,
        set_layout: vk::DescriptorSetLayout,
        lds: TexelLds,
        workgroups: [u32; 3],
    ) -> Result<Self> {
        let total: u64 = workgroups.iter().map(|&n| n as u64).product();
        let held = total.clamp(1, lds.regions as u64);
        let words = held * lds.region_words as u64;
        let max = ctx.info().max_texel_buffer_elements as u64;
        if words > max {
            return Err(Error::InvalidArgument(format!(
                "the module's workgroup memory needs a texel buffer of {words} words; the device allows \
                 {max} (D288)"
            )));
        }
        let buffer =
            ctx.create_buffer_for(words * 4, vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER)?;
        let d = &ctx.device;
        let mut binding = TexelBinding {
            ctx,
            lds,
            buffer,
            views: [vk::BufferView::null(); 2],
            pool: vk::DescriptorPool::null(),
            set: vk::DescriptorSet::null(),
            held,
        };
        for (k, format) in [vk::Format::R32_UINT, vk::Format::R32G32B32A32_UINT]
            .into_iter()
            .enumerate()
        {
            // SAFETY: the buffer is alive and was created with the texel usage; on failure `binding`'s
            // drop destroys what was made.
            binding.views[k] = unsafe {
                d.create_buffer_view(
                    &vk::BufferViewCreateInfo::default()
                        .buffer(binding.buffer.raw())
                        .format(format)
                        .offset(0)
                        .range(words * 4),
                    None,
                )
            }
            .map_err(vk_err("vkCreateBufferView"))?;
        }
        let sizes = [vk::DescriptorPoolSize::default()
            .ty(vk::DescriptorType::STORAGE_TEXEL_BUFFER)
            .descriptor_count(2)];
        // SAFETY: valid create infos; the pool outlives the set, both destroyed by drop.
        binding.pool = unsafe {
            d.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(1)
                    .pool_sizes(&sizes),
                None,
            )
        }
        .map_err(vk_err("vkCreateDescriptorPool"))?;
        let layouts = [set_layout];
        binding.set = unsafe {
            d.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(binding.pool)
                    .set_layouts(&layouts),
            )
        }
        .map_err(vk_err("vkAllocateDescriptorSets"))?[0];
        // Binding k: view k (`R32_UINT`, `R32G32B32A32_UINT`).
        let views = binding.views.map(|v| [v]);
        let writes = [0, 1].map(|k| {
            vk::WriteDescriptorSet::default()
                .dst_set(binding.set)
                .dst_binding(k as u32)
                .descriptor_type(vk::DescriptorType::STORAGE_TEXEL_BUFFER)
                .texel_buffer_view(&views[k])
        });
        // SAFETY: the set and views are alive.
        unsafe { d.update_descriptor_sets(&writes, &[]) };
        Ok(binding)
    }

    /// Records the dispatch of `workgroups` into `cb` (after the pipeline is bound): the descriptor
    /// set, then each chunk of `regions` linear ids as `vkCmdDispatchBase` boxes, a fill of the buffer
    /// with zeros and barriers between chunks (the buffer starts zeroed).
    pub(crate) fn record(
        &self,
        cb: vk::CommandBuffer,
        layout: vk::PipelineLayout,
        workgroups: [u32; 3],
    ) {
        let d = &self.ctx.device;
        let total: u64 = workgroups.iter().map(|&n| n as u64).product();
        let sets = [self.set];
        // SAFETY: `cb` is recording with a compute pipeline of `layout` bound; the set is alive.
        unsafe {
            d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, &sets, &[]);
            if total == 0 {
                d.cmd_dispatch(cb, 0, 0, 0);
                return;
            }
            let regions = self.lds.regions as u64;
            let mut first = 0u64;
            while first < total {
                if first > 0 {
                    // The chunk before has finished with the buffer; zero it; the next chunk sees zeros.
                    let shader = vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE;
                    let (compute, transfer) = (
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        vk::PipelineStageFlags::TRANSFER,
                    );
                    let write = vk::AccessFlags::TRANSFER_WRITE;
                    barrier(d, cb, (compute, shader), (transfer, write));
                    let bytes = self.held * self.lds.region_words as u64 * 4;
                    d.cmd_fill_buffer(cb, self.buffer.raw(), 0, bytes, 0);
                    barrier(d, cb, (transfer, write), (compute, shader));
                }
                let end = (first + regions).min(total);
                for (base, count) in boxes(workgroups, first, end) {
                    d.cmd_dispatch_base(
                        cb, base[0], base[1], base[2], count[0], count[1], count[2],
                    );
                }
                first = end;
            }
        }
    }
}

/// A global memory barrier from `src` (stage, accesses) to `dst` in `cb`.
///
/// # Safety
/// `cb` is recording.
unsafe fn barrier(
    d: &ash::Device,
    cb: vk::CommandBuffer,
    src: (vk::PipelineStageFlags, vk::AccessFlags),
    dst: (vk::PipelineStageFlags, vk::AccessFlags),
) {
    let m = [vk::MemoryBarrier::default()
        .src_access_mask(src.1)
        .dst_access_mask(dst.1)];
    // SAFETY: the caller's (`cb` is recording).
    unsafe { d.cmd_pipeline_barrier(cb, src.0, dst.0, vk::DependencyFlags::empty(), &m, &[], &[]) };
}

impl Drop for TexelBinding<'_> {
    fn drop(&mut self) {
        if self.ctx.check_usable().is_err() {
            return; // a hung device may still use them: leak (the buffer leaks itself)
        }
        let d = &self.ctx.device;
        // SAFETY: dispatches are synchronous: nothing submitted uses them any more.
        unsafe {
            if self.pool != vk::DescriptorPool::null() {
                d.destroy_descriptor_pool(self.pool, None);
            }
            for v in self.views {
                if v != vk::BufferView::null() {
                    d.destroy_buffer_view(v, None);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::boxes;

    /// Every linear id of `a..b` exactly once, in order, each box inside the grid.
    fn covered(grid: [u32; 3], a: u64, b: u64) -> Vec<u64> {
        let mut ids = Vec::new();
        for (base, count) in boxes(grid, a, b) {
            for d in 0..3 {
                assert!(
                    count[d] >= 1 && base[d] + count[d] <= grid[d],
                    "{base:?} {count:?}"
                );
            }
            for z in base[2]..base[2] + count[2] {
                for y in base[1]..base[1] + count[1] {
                    for x in base[0]..base[0] + count[0] {
                        ids.push(
                            x as u64 + grid[0] as u64 * (y as u64 + grid[1] as u64 * z as u64),
                        );
                    }
                }
            }
        }
        ids
    }

    #[test]
    fn boxes_cover_every_linear_range_once_in_order() {
        for grid in [
            [1, 1, 1],
            [7, 1, 1],
            [3, 4, 1],
            [5, 3, 4],
            [1, 6, 5],
            [4, 1, 3],
        ] {
            let total = grid.iter().map(|&n| n as u64).product::<u64>();
            for a in 0..=total {
                for b in a..=total {
                    let want: Vec<u64> = (a..b).collect();
                    assert_eq!(covered(grid, a, b), want, "grid {grid:?} range {a}..{b}");
                }
            }
        }
        // At most five boxes: partial row, rows, planes, rows, partial row.
        assert_eq!(boxes([5, 3, 4], 2, 57).len(), 5);
    }
}
