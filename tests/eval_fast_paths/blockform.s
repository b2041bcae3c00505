// A hand-written raw program (wave32) for tests/eval_fast_paths.rs: scalar state carried inside and out of
// whole-block forms (decision D113). s[0:1]: the address of `out`; s2: the workgroup id; s3: the trip count.
// The loop block reads SCC written in the block (s_addc_u32, s_cselect_b32 after s_add_u32 / s_add_i32),
// overwrites an SGPR with no read in between (s9) and one a VALU instruction reads in between (s17), writes 64 bits and reads each half (s[10:11]), and feeds
// SGPRs it wrote to VALU instructions; the block after it leaves SCC and SGPRs live out of a block form.
// Build: llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -filetype=obj blockform.s -o blockform.o
//        llvm-objcopy-19 -O binary --only-section=.text blockform.o blockform.bin
  s_mov_b32 s4, 0
  s_mov_b64 s[6:7], 0
  v_mov_b32 v1, v0
loop:
  s_add_u32 s6, s6, 0x9e3779b9
  s_addc_u32 s7, s7, s4
  s_cselect_b32 s8, s6, s7
  s_mov_b32 s9, 1
  s_mov_b64 s[10:11], s[6:7]
  v_add_nc_u32 v1, s8, v1
  v_xor_b32 v1, s11, v1
  s_lshl_b32 s9, s10, 3
  v_mul_lo_u32 v1, v1, s9
  s_add_i32 s14, s6, s7
  s_cselect_b32 s15, 1, 2
  v_add3_u32 v1, v1, s15, s4
  v_xor_b32_sdwa v1, v1, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
  s_mov_b32 s17, s6
  v_add_nc_u32 v1, s17, v1
  s_mov_b32 s17, s7
  s_add_i32 s4, s4, 1
  s_cmp_lt_u32 s4, s3
  s_cbranch_scc1 loop
  s_cmp_eq_u32 s3, s3
  s_cselect_b32 s12, 5, 7
  s_mov_b32 s16, s12
  s_branch store
store:
  v_lshl_add_u32 v2, s2, 6, v0
  v_lshlrev_b32 v2, 2, v2
  v_add_nc_u32 v1, s12, v1
  global_store_dword v2, v1, s[0:1]
  s_endpgm
