//! A small builder for hand-made compute kernels (the profile probes, tests, examples).
//!
//! Every kernel has the same shape: SPIR-V 1.5, `Shader` + `PhysicalStorageBufferAddresses` + `Int64`,
//! `OpMemoryModel PhysicalStorageBuffer64 GLSL450`, `LocalSize 64 1 1`, entry point `main`, and a
//! push-constant block [`PushArgs`] `{ u64 input; u64 output; u32 count; u32 param }`. Invocation
//! `i = GlobalInvocationId.x` runs the body only when `i < count`. Inputs and outputs are addressed
//! as `base + i * stride + offset` through `PhysicalStorageBuffer` pointers, so every operand comes
//! from memory and the driver cannot fold it.

use rspirv::dr::{Builder, Instruction, Operand};
use spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel,
    FunctionControl, MemoryAccess, MemoryModel, Op, StorageClass, Word,
};

/// Workgroup size of every kernel built here.
pub const LOCAL_SIZE: u32 = 64;

/// The push-constant block of a [`KernelBuilder`] kernel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PushArgs {
    /// Device address of the input buffer.
    pub input: u64,
    /// Device address of the output buffer.
    pub output: u64,
    /// Number of invocations that run the body.
    pub count: u32,
    /// A free parameter (e.g. a loop trip count).
    pub param: u32,
}

impl PushArgs {
    /// The 24 bytes pushed.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(24);
        v.extend_from_slice(&self.input.to_le_bytes());
        v.extend_from_slice(&self.output.to_le_bytes());
        v.extend_from_slice(&self.count.to_le_bytes());
        v.extend_from_slice(&self.param.to_le_bytes());
        v
    }

    /// Workgroups needed for `count` invocations.
    pub fn workgroups(&self) -> [u32; 3] {
        [self.count.div_ceil(LOCAL_SIZE).max(1), 1, 1]
    }
}

/// Scalar types every kernel has.
#[derive(Debug, Clone, Copy)]
pub struct Types {
    /// `void`
    pub void: Word,
    /// `bool`
    pub bool: Word,
    /// `uint` (32-bit unsigned)
    pub u32: Word,
    /// `ulong` (64-bit unsigned)
    pub u64: Word,
    /// `float` (32-bit)
    pub f32: Word,
}

/// Builds one compute kernel; see the module documentation for its fixed shape.
pub struct KernelBuilder {
    /// The underlying rspirv builder; a block of `main` is selected while the body is built.
    pub b: Builder,
    /// The `GLSL.std.450` import.
    pub glsl: Word,
    /// Common types.
    pub t: Types,
    main: Word,
    interface: Vec<Word>,
    end_label: Word,
    index64: Word,
    input: Word,
    output: Word,
    count: Word,
    param: Word,
    index: Word,
}

impl KernelBuilder {
    /// Starts a kernel declaring `extra_capabilities` besides Shader, PhysicalStorageBufferAddresses
    /// and Int64.
    pub fn new(extra_capabilities: &[Capability]) -> Self {
        Self::with_modes(extra_capabilities, &[])
    }

    /// Like [`new`](Self::new), also declaring execution modes `(mode, literal operands)`.
    pub fn with_modes(
        extra_capabilities: &[Capability],
        modes: &[(ExecutionMode, &[u32])],
    ) -> Self {
        let mut b = Builder::new();
        b.set_version(1, 5);
        let mut caps = vec![
            Capability::Shader,
            Capability::PhysicalStorageBufferAddresses,
            Capability::Int64,
        ];
        for c in extra_capabilities {
            if !caps.contains(c) {
                caps.push(*c);
            }
        }
        for c in caps {
            b.capability(c);
        }
        let glsl = b.ext_inst_import("GLSL.std.450");
        b.memory_model(
            AddressingModel::PhysicalStorageBuffer64,
            MemoryModel::GLSL450,
        );

        let t = Types {
            void: b.type_void(),
            bool: b.type_bool(),
            u32: b.type_int(32, 0),
            u64: b.type_int(64, 0),
            f32: b.type_float(32, None),
        };
        // Push constants.
        let pc_struct = b.type_struct([t.u64, t.u64, t.u32, t.u32]);
        b.decorate(pc_struct, Decoration::Block, []);
        for (m, off) in [(0u32, 0u32), (1, 8), (2, 16), (3, 20)] {
            b.member_decorate(
                pc_struct,
                m,
                Decoration::Offset,
                [Operand::LiteralBit32(off)],
            );
        }
        let pc_ptr = b.type_pointer(None, StorageClass::PushConstant, pc_struct);
        let pc = b.variable(pc_ptr, None, StorageClass::PushConstant, None);
        // GlobalInvocationId.
        let v3 = b.type_vector(t.u32, 3);
        let v3_ptr = b.type_pointer(None, StorageClass::Input, v3);
        let gid = b.variable(v3_ptr, None, StorageClass::Input, None);
        b.decorate(
            gid,
            Decoration::BuiltIn,
            [Operand::BuiltIn(BuiltIn::GlobalInvocationId)],
        );

        let fn_ty = b.type_function(t.void, []);
        let main = b
            .begin_function(t.void, None, FunctionControl::NONE, fn_ty)
            .expect("no function is open");
        b.begin_block(None).expect("function is open");
        let g = b.load(v3, None, gid, None, []).expect("block open");
        let index = b
            .composite_extract(t.u32, None, g, [0])
            .expect("block open");
        let field = |b: &mut Builder, ty: Word, m: u32| {
            let p = b.type_pointer(None, StorageClass::PushConstant, ty);
            let c = b.constant_bit32(t.u32, m);
            let ptr = b.access_chain(p, None, pc, [c]).expect("block open");
            b.load(ty, None, ptr, None, []).expect("block open")
        };
        let input = field(&mut b, t.u64, 0);
        let output = field(&mut b, t.u64, 1);
        let count = field(&mut b, t.u32, 2);
        let param = field(&mut b, t.u32, 3);
        let index64 = b.u_convert(t.u64, None, index).expect("block open");
        let in_range = b
            .u_less_than(t.bool, None, index, count)
            .expect("block open");
        let body = b.id();
        let end_label = b.id();
        b.selection_merge(end_label, spirv::SelectionControl::NONE)
            .expect("block open");
        b.branch_conditional(in_range, body, end_label, [])
            .expect("block open");
        b.begin_block(Some(body)).expect("function open");

        let mut k = KernelBuilder {
            b,
            glsl,
            t,
            main,
            interface: vec![pc, gid],
            end_label,
            index64,
            input,
            output,
            count,
            param,
            index,
        };
        k.b.execution_mode(main, ExecutionMode::LocalSize, [LOCAL_SIZE, 1, 1]);
        for (mode, ops) in modes {
            k.b.execution_mode(main, *mode, ops);
        }
        k
    }

    /// `GlobalInvocationId.x` (u32).
    pub fn index(&self) -> Word {
        self.index
    }

    /// The push constant `count` (u32).
    pub fn count(&self) -> Word {
        self.count
    }

    /// The push constant `param` (u32).
    pub fn param(&self) -> Word {
        self.param
    }

    /// A 32-bit constant of type `ty` (int or float) with these bits.
    pub fn const32(&mut self, ty: Word, bits: u32) -> Word {
        rdna2spv_spirv::exact::constant_bits(&mut self.b, ty, u64::from(bits), false)
    }

    /// A 64-bit constant of type `ty` with these bits.
    pub fn const64(&mut self, ty: Word, bits: u64) -> Word {
        rdna2spv_spirv::exact::constant_bits(&mut self.b, ty, bits, true)
    }

    fn address(&mut self, base: Word, stride: u64, offset: u64) -> Word {
        let mut addr = base;
        if stride != 0 {
            let s = self.const64(self.t.u64, stride);
            let scaled = self
                .b
                .i_mul(self.t.u64, None, self.index64, s)
                .expect("block open");
            addr = self
                .b
                .i_add(self.t.u64, None, addr, scaled)
                .expect("block open");
        }
        if offset != 0 {
            let o = self.const64(self.t.u64, offset);
            addr = self.b.i_add(self.t.u64, None, addr, o).expect("block open");
        }
        addr
    }

    fn pointer(&mut self, ty: Word, addr: Word) -> Word {
        let p = self
            .b
            .type_pointer(None, StorageClass::PhysicalStorageBuffer, ty);
        self.b.convert_u_to_ptr(p, None, addr).expect("block open")
    }

    /// Loads a `ty` value (of `align` bytes) from `input + index * stride + offset`.
    pub fn load_input(&mut self, ty: Word, align: u32, stride: u64, offset: u64) -> Word {
        let addr = self.address(self.input, stride, offset);
        let ptr = self.pointer(ty, addr);
        self.b
            .load(
                ty,
                None,
                ptr,
                Some(MemoryAccess::ALIGNED),
                [Operand::LiteralBit32(align)],
            )
            .expect("block open")
    }

    /// Stores `value` of type `ty` to `output + index * stride + offset`; `volatile` keeps the
    /// compiler from merging repeated stores.
    pub fn store_output(
        &mut self,
        ty: Word,
        value: Word,
        align: u32,
        stride: u64,
        offset: u64,
        volatile: bool,
    ) {
        let addr = self.address(self.output, stride, offset);
        let ptr = self.pointer(ty, addr);
        let access = if volatile {
            MemoryAccess::ALIGNED | MemoryAccess::VOLATILE
        } else {
            MemoryAccess::ALIGNED
        };
        self.b
            .store(ptr, value, Some(access), [Operand::LiteralBit32(align)])
            .expect("block open");
    }

    /// Loads u32 word `k` of this invocation's record of `stride` bytes.
    pub fn load_u32(&mut self, stride: u64, k: u64) -> Word {
        self.load_input(self.t.u32, 4, stride, 4 * k)
    }

    /// Loads f32 word `k` of this invocation's record of `stride` bytes.
    pub fn load_f32(&mut self, stride: u64, k: u64) -> Word {
        self.load_input(self.t.f32, 4, stride, 4 * k)
    }

    /// Stores a 32-bit value (u32 or f32) as word `k` of this invocation's output record.
    pub fn store32(&mut self, value: Word, stride: u64, k: u64) {
        let ty = self.type_of(value).unwrap_or(self.t.u32);
        self.store_output(ty, value, 4, stride, 4 * k, false);
    }

    /// Declares a `Function`-storage variable of type `ty` in the entry block.
    pub fn function_variable(&mut self, ty: Word) -> Word {
        let ptr = self.b.type_pointer(None, StorageClass::Function, ty);
        let id = self.b.id();
        let inst = Instruction::new(
            Op::Variable,
            Some(ptr),
            Some(id),
            vec![Operand::StorageClass(StorageClass::Function)],
        );
        let f = self
            .b
            .selected_function()
            .expect("main is open while the body is built");
        self.b.module_mut().functions[f].blocks[0]
            .instructions
            .insert(0, inst);
        id
    }

    /// Declares a `Workgroup`-storage variable of type `ty` (no initializer: its value is undefined until
    /// the kernel writes it) and returns it.
    pub fn workgroup_variable(&mut self, ty: Word) -> Word {
        let ptr = self.b.type_pointer(None, StorageClass::Workgroup, ty);
        let id = self.b.id();
        self.b
            .module_mut()
            .types_global_values
            .push(Instruction::new(
                Op::Variable,
                Some(ptr),
                Some(id),
                vec![Operand::StorageClass(StorageClass::Workgroup)],
            ));
        self.interface.push(id);
        id
    }

    /// Decorates `id` NoContraction and returns it.
    pub fn nc(&mut self, id: Word) -> Word {
        self.b.decorate(id, Decoration::NoContraction, []);
        id
    }

    /// `GLSL.std.450` extended instruction `op` on `args`.
    pub fn glsl(&mut self, ty: Word, op: spirv::GlslStd450Op, args: &[Word]) -> Word {
        let glsl = self.glsl;
        self.b
            .ext_inst(
                ty,
                None,
                glsl,
                op as u32,
                args.iter().map(|&a| Operand::IdRef(a)),
            )
            .expect("block open")
    }

    /// The result type of an instruction already emitted in `main` (for loads and arithmetic).
    pub fn type_of(&self, id: Word) -> Option<Word> {
        let m = self.b.module_ref();
        m.functions
            .iter()
            .flat_map(|f| f.blocks.iter())
            .flat_map(|b| b.instructions.iter())
            .chain(m.types_global_values.iter())
            .find(|i| i.result_id == Some(id))
            .and_then(|i| i.result_type)
    }

    /// Adds an input variable decorated with `builtin` (e.g. `SubgroupSize`) and returns its loaded
    /// value of type `ty`.
    pub fn load_builtin(&mut self, ty: Word, builtin: BuiltIn) -> Word {
        let ptr = self.b.type_pointer(None, StorageClass::Input, ty);
        let var = self.b.variable(ptr, None, StorageClass::Input, None);
        // `variable` appended it to the current block; move it to the globals.
        let f = self.b.selected_function().expect("main is open");
        let blk = self.b.selected_block().expect("block open");
        let inst = self.b.module_mut().functions[f].blocks[blk]
            .instructions
            .pop()
            .expect("just added");
        self.b.module_mut().types_global_values.push(inst);
        self.b
            .decorate(var, Decoration::BuiltIn, [Operand::BuiltIn(builtin)]);
        self.interface.push(var);
        self.b.load(ty, None, var, None, []).expect("block open")
    }

    /// Closes the body (branching from the current block to the end) and returns the module words.
    pub fn finish(mut self) -> Vec<u32> {
        self.b.branch(self.end_label).expect("block open");
        self.b
            .begin_block(Some(self.end_label))
            .expect("function open");
        self.b.ret().expect("block open");
        self.b.end_function().expect("function open");
        self.b.entry_point(
            ExecutionModel::GLCompute,
            self.main,
            "main",
            &self.interface,
        );
        use rspirv::binary::Assemble;
        self.b.module().assemble()
    }
}
