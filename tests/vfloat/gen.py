#!/usr/bin/env python3
"""Regenerates tests/vfloat/kernels.rs: the instruction words of the float-VALU differential tests.

Each case is assembled with `llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding` (the words are LLVM's,
not ours). Run: python3 tests/vfloat/gen.py > tests/vfloat/kernels.rs
Inputs per work-item: eight dwords in v0..v7 (layout per kernel in tests/vfloat_ops.rs); every case leaves
its result in v8 (v[8:9] for 64-bit results), which the test stores after the case.
"""
import re, subprocess, sys

def enc(lines):
    out = subprocess.run(["llvm-mc-19", "-arch=amdgcn", "-mcpu=gfx1030", "-show-encoding"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True, check=True).stdout
    words = []
    encs = re.findall(r"encoding: \[([^\]]*)\]", out)
    assert len(encs) == len(lines), (lines, out)
    for e in encs:
        b = [int(x, 16) for x in e.split(",")]
        words.append([b[i] | b[i+1] << 8 | b[i+2] << 16 | b[i+3] << 24 for i in range(0, len(b), 4)])
    return words

REL = ["f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru"]

def compares(w, a, b, mod_a, mod_b, slot):
    """v_cmp e32, v_cmp e64 with modifiers, v_cmpx e32 for every relation and the class test."""
    cases = []
    for rel in REL + ["class"]:
        bb = "v5" if rel == "class" else b
        bm = "v5" if rel == "class" else mod_b
        up = f"V_CMP_{rel.upper()}_{w.upper()}"
        upx = f"V_CMPX_{rel.upper()}_{w.upper()}"
        cases.append((f"cmp_{rel}_{w}_e32", [up], [f"v_cmp_{rel}_{w}_e32 vcc_lo, {a}, {bb}",
                      "v_cndmask_b32_e64 v8, 0, 1, vcc_lo"], slot, False, f"cmp_{rel}", 0))
        slot += 1
        cases.append((f"cmp_{rel}_{w}_e64_mods", [up], [f"v_cmp_{rel}_{w}_e64 s20, {mod_a}, {bm}",
                      "v_cndmask_b32_e64 v8, 0, 1, s20"], slot, False, f"cmp_{rel}", 1))
        slot += 1
        cases.append((f"cmpx_{rel}_{w}", [upx], ["s_mov_b32 s21, exec_lo", "v_mov_b32_e32 v8, 0",
                      f"v_cmpx_{rel}_{w}_e32 {a}, {bb}", "v_mov_b32_e32 v8, 1",
                      "s_mov_b32 exec_lo, s21"], slot, False, f"cmp_{rel}", 0))
        slot += 1
        # The VOP3 encoding of v_cmpx (its own table row; issue 28), with source modifiers.
        cases.append((f"cmpx_{rel}_{w}_e64_mods", [upx], ["s_mov_b32 s21, exec_lo", "v_mov_b32_e32 v8, 0",
                      f"v_cmpx_{rel}_{w}_e64 {mod_a}, {bm}", "v_mov_b32_e32 v8, 1",
                      "s_mov_b32 exec_lo, s21"], slot, False, f"cmp_{rel}", 1))
        slot += 1
    return cases, slot

def f64_cases():
    # v[0:1] = a, v[2:3] = b, v4 = k (i32), v5 = class mask / u32, v6 = f32, v7 = spare
    c = []
    s = 16
    def one(name, ops, asm, wide, ref, mods=0):
        nonlocal s
        c.append((name, ops, [l.format(d="v[8:9]" if wide else "v8") for l in asm], s, wide, ref, mods))
        s += 2 if wide else 1
    one("add_f64", ["V_ADD_F64"], ["v_add_f64 {d}, v[0:1], v[2:3]"], True, "add")
    one("add_f64_mods_clamp", ["V_ADD_F64"], ["v_add_f64 {d}, -v[0:1], |v[2:3]| clamp"], True, "add", 1)
    one("mul_f64", ["V_MUL_F64"], ["v_mul_f64 {d}, v[0:1], v[2:3]"], True, "mul")
    one("mul_f64_mods", ["V_MUL_F64"], ["v_mul_f64 {d}, -v[0:1], |v[2:3]|"], True, "mul", 1)
    one("min_f64", ["V_MIN_F64"], ["v_min_f64 {d}, v[0:1], v[2:3]"], True, "min")
    one("max_f64", ["V_MAX_F64"], ["v_max_f64 {d}, v[0:1], v[2:3]"], True, "max")
    one("max_f64_mods", ["V_MAX_F64"], ["v_max_f64 {d}, -v[0:1], |v[2:3]|"], True, "max", 1)
    one("ldexp_f64", ["V_LDEXP_F64"], ["v_ldexp_f64 {d}, v[0:1], v4"], True, "ldexp")
    one("frexp_mant_f64", ["V_FREXP_MANT_F64"], ["v_frexp_mant_f64_e32 {d}, v[0:1]"], True, "frexp_mant")
    one("frexp_exp_f64", ["V_FREXP_EXP_I32_F64"], ["v_frexp_exp_i32_f64_e32 {d}, v[0:1]"], False, "frexp_exp")
    one("fract_f64", ["V_FRACT_F64"], ["v_fract_f64_e32 {d}, v[0:1]"], True, "fract")
    one("trunc_f64", ["V_TRUNC_F64"], ["v_trunc_f64_e32 {d}, v[0:1]"], True, "trunc")
    one("ceil_f64", ["V_CEIL_F64"], ["v_ceil_f64_e32 {d}, v[0:1]"], True, "ceil")
    one("floor_f64", ["V_FLOOR_F64"], ["v_floor_f64_e32 {d}, v[0:1]"], True, "floor")
    one("floor_f64_e64_neg", ["V_FLOOR_F64"], ["v_floor_f64_e64 {d}, -v[0:1]"], True, "floor", 1)
    one("rndne_f64", ["V_RNDNE_F64"], ["v_rndne_f64_e32 {d}, v[0:1]"], True, "rndne")
    one("cvt_f64_f32", ["V_CVT_F64_F32"], ["v_cvt_f64_f32_e32 {d}, v6"], True, "cvt_f64_f32")
    one("cvt_f64_i32", ["V_CVT_F64_I32"], ["v_cvt_f64_i32_e32 {d}, v4"], True, "cvt_f64_i32")
    one("cvt_f64_u32", ["V_CVT_F64_U32"], ["v_cvt_f64_u32_e32 {d}, v4"], True, "cvt_f64_u32")
    one("cvt_f32_f64", ["V_CVT_F32_F64"], ["v_cvt_f32_f64_e32 {d}, v[0:1]"], False, "cvt_f32_f64")
    one("cvt_i32_f64", ["V_CVT_I32_F64"], ["v_cvt_i32_f64_e32 {d}, v[0:1]"], False, "cvt_i32_f64")
    one("cvt_u32_f64", ["V_CVT_U32_F64"], ["v_cvt_u32_f64_e32 {d}, v[0:1]"], False, "cvt_u32_f64")
    # The VOP3 (e64) encodings of the VOP1 ops above: their own table rows (issue 28).
    for op in ["trunc", "ceil", "rndne", "fract", "frexp_mant"]:
        one(f"{op}_f64_e64_neg", [f"V_{op.upper()}_F64"], [f"v_{op}_f64_e64 {{d}}, -v[0:1]"], True, op, 1)
    one("frexp_exp_f64_e64_neg", ["V_FREXP_EXP_I32_F64"], ["v_frexp_exp_i32_f64_e64 {d}, -v[0:1]"], False,
        "frexp_exp", 1)
    one("cvt_f64_f32_e64", ["V_CVT_F64_F32"], ["v_cvt_f64_f32_e64 {d}, v6"], True, "cvt_f64_f32")
    one("cvt_f64_i32_e64", ["V_CVT_F64_I32"], ["v_cvt_f64_i32_e64 {d}, v4"], True, "cvt_f64_i32")
    one("cvt_f64_u32_e64", ["V_CVT_F64_U32"], ["v_cvt_f64_u32_e64 {d}, v4"], True, "cvt_f64_u32")
    one("cvt_f32_f64_e64_neg", ["V_CVT_F32_F64"], ["v_cvt_f32_f64_e64 {d}, -v[0:1]"], False, "cvt_f32_f64", 1)
    one("cvt_i32_f64_e64_neg", ["V_CVT_I32_F64"], ["v_cvt_i32_f64_e64 {d}, -v[0:1]"], False, "cvt_i32_f64", 1)
    one("cvt_u32_f64_e64", ["V_CVT_U32_F64"], ["v_cvt_u32_f64_e64 {d}, v[0:1]"], False, "cvt_u32_f64")
    cc, s = compares("f64", "v[0:1]", "v[2:3]", "-v[0:1]", "|v[2:3]|", s)
    return c + cc, s

def f32_cases():
    # v0 = a, v1 = b, v2 = c, v3 = k (i32), v5 = class mask, v4/v6/v7 spare
    c = []
    s = 16
    def one(name, ops, asm, ref, mods=0):
        nonlocal s
        c.append((name, ops, [l.format(d="v8") for l in asm], s, False, ref, mods))
        s += 1
    for op in ["trunc", "ceil", "floor", "rndne", "fract"]:
        one(f"{op}_f32", [f"V_{op.upper()}_F32"], [f"v_{op}_f32_e32 {{d}}, v0"], op)
    one("floor_f32_e64_neg_clamp", ["V_FLOOR_F32"], ["v_floor_f32_e64 {d}, -v0 clamp"], "floor", 1)
    one("ldexp_f32", ["V_LDEXP_F32"], ["v_ldexp_f32 {d}, v0, v3"], "ldexp")
    one("frexp_mant_f32", ["V_FREXP_MANT_F32"], ["v_frexp_mant_f32_e32 {d}, v0"], "frexp_mant")
    one("frexp_exp_f32", ["V_FREXP_EXP_I32_F32"], ["v_frexp_exp_i32_f32_e32 {d}, v0"], "frexp_exp")
    one("min3_f32", ["V_MIN3_F32"], ["v_min3_f32 {d}, v0, v1, v2"], "min3")
    one("max3_f32", ["V_MAX3_F32"], ["v_max3_f32 {d}, v0, v1, v2"], "max3")
    one("med3_f32", ["V_MED3_F32"], ["v_med3_f32 {d}, v0, v1, v2"], "med3")
    one("med3_f32_mods", ["V_MED3_F32"], ["v_med3_f32 {d}, -v0, |v1|, v2"], "med3", 1)
    one("add_f32", ["V_ADD_F32"], ["v_add_f32_e32 {d}, v0, v1"], "add")
    one("sub_f32", ["V_SUB_F32"], ["v_sub_f32_e32 {d}, v0, v1"], "sub")
    one("subrev_f32", ["V_SUBREV_F32"], ["v_subrev_f32_e32 {d}, v0, v1"], "subrev")
    one("mul_f32", ["V_MUL_F32"], ["v_mul_f32_e32 {d}, v0, v1"], "mul")
    one("mul_f32_mods", ["V_MUL_F32"], ["v_mul_f32_e64 {d}, -v0, |v1|"], "mul", 1)
    one("mul_legacy_f32", ["V_MUL_LEGACY_F32"], ["v_mul_legacy_f32_e32 {d}, v0, v1"], "mul_legacy")
    one("cvt_f32_i32", ["V_CVT_F32_I32"], ["v_cvt_f32_i32_e32 {d}, v3"], "cvt_f32_i32")
    one("cvt_f32_u32", ["V_CVT_F32_U32"], ["v_cvt_f32_u32_e32 {d}, v3"], "cvt_f32_u32")
    one("cvt_i32_f32", ["V_CVT_I32_F32"], ["v_cvt_i32_f32_e32 {d}, v0"], "cvt_i32_f32")
    one("cvt_u32_f32", ["V_CVT_U32_F32"], ["v_cvt_u32_f32_e32 {d}, v0"], "cvt_u32_f32")
    one("rcp_f32", ["V_RCP_F32"], ["v_rcp_f32_e32 {d}, v0"], "rcp")
    one("sqrt_f32", ["V_SQRT_F32"], ["v_sqrt_f32_e32 {d}, v0"], "sqrt")
    one("cndmask_b32_float_mods", ["V_CNDMASK_B32"],
        ["v_cmp_lt_f32_e64 s22, v2, v0", "v_cndmask_b32_e64 {d}, -v0, |v1|, s22"], "cndmask", 1)
    one("min_f32", ["V_MIN_F32"], ["v_min_f32_e32 {d}, v0, v1"], "min")
    one("max_f32", ["V_MAX_F32"], ["v_max_f32_e32 {d}, v0, v1"], "max")
    one("min_f32_mods_clamp", ["V_MIN_F32"], ["v_min_f32_e64 {d}, -v0, |v1| clamp"], "min", 1)
    one("cvt_flr_i32_f32", ["V_CVT_FLR_I32_F32"], ["v_cvt_flr_i32_f32_e32 {d}, v0"], "cvt_flr")
    one("cvt_rpi_i32_f32", ["V_CVT_RPI_I32_F32"], ["v_cvt_rpi_i32_f32_e32 {d}, v0"], "cvt_rpi")
    for i in range(4):
        one(f"cvt_f32_ubyte{i}", [f"V_CVT_F32_UBYTE{i}"], [f"v_cvt_f32_ubyte{i}_e32 {{d}}, v3"], f"ubyte{i}")
    # The VOP3 (e64) encodings of VOP1/VOP2 ops above: their own table rows (issue 28).
    for op in ["trunc", "ceil", "rndne", "fract", "frexp_mant"]:
        one(f"{op}_f32_e64_neg", [f"V_{op.upper()}_F32"], [f"v_{op}_f32_e64 {{d}}, -v0"], op, 1)
    one("frexp_exp_f32_e64_neg", ["V_FREXP_EXP_I32_F32"], ["v_frexp_exp_i32_f32_e64 {d}, -v0"], "frexp_exp", 1)
    for op in ["add", "sub", "subrev", "max"]:
        one(f"{op}_f32_e64_mods", [f"V_{op.upper()}_F32"], [f"v_{op}_f32_e64 {{d}}, -v0, |v1|"], op, 1)
    one("cvt_f32_i32_e64", ["V_CVT_F32_I32"], ["v_cvt_f32_i32_e64 {d}, v3"], "cvt_f32_i32")
    one("cvt_f32_u32_e64", ["V_CVT_F32_U32"], ["v_cvt_f32_u32_e64 {d}, v3"], "cvt_f32_u32")
    one("cvt_i32_f32_e64_neg", ["V_CVT_I32_F32"], ["v_cvt_i32_f32_e64 {d}, -v0"], "cvt_i32_f32", 1)
    one("cvt_u32_f32_e64", ["V_CVT_U32_F32"], ["v_cvt_u32_f32_e64 {d}, v0"], "cvt_u32_f32")
    one("cvt_flr_i32_f32_e64", ["V_CVT_FLR_I32_F32"], ["v_cvt_flr_i32_f32_e64 {d}, v0"], "cvt_flr")
    one("cvt_rpi_i32_f32_e64", ["V_CVT_RPI_I32_F32"], ["v_cvt_rpi_i32_f32_e64 {d}, v0"], "cvt_rpi")
    one("rcp_f32_e64", ["V_RCP_F32"], ["v_rcp_f32_e64 {d}, v0"], "rcp")
    for i in range(4):
        one(f"cvt_f32_ubyte{i}_e64", [f"V_CVT_F32_UBYTE{i}"], [f"v_cvt_f32_ubyte{i}_e64 {{d}}, v3"], f"ubyte{i}")
    cc, s = compares("f32", "v0", "v1", "-v0", "|v1|", s)
    return c + cc, s

def f16_cases():
    # v0 = a (low half), v1 = b, v3 = k, v5 = class mask
    c = []
    s = 16
    def one(name, ops, asm, ref, mods=0):
        nonlocal s
        c.append((name, ops, [l.format(d="v8") for l in asm], s, False, ref, mods))
        s += 1
    for op in ["trunc", "ceil", "floor", "rndne", "fract"]:
        one(f"{op}_f16", [f"V_{op.upper()}_F16"], [f"v_{op}_f16_e32 {{d}}, v0"], op)
    one("frexp_mant_f16", ["V_FREXP_MANT_F16"], ["v_frexp_mant_f16_e32 {d}, v0"], "frexp_mant")
    one("frexp_exp_f16", ["V_FREXP_EXP_I16_F16"], ["v_frexp_exp_i16_f16_e32 {d}, v0"], "frexp_exp")
    one("add_f16", ["V_ADD_F16"], ["v_add_f16_e32 {d}, v0, v1"], "add")
    one("mul_f16", ["V_MUL_F16"], ["v_mul_f16_e32 {d}, v0, v1"], "mul")
    one("min_f16", ["V_MIN_F16"], ["v_min_f16_e32 {d}, v0, v1"], "min")
    one("max_f16", ["V_MAX_F16"], ["v_max_f16_e32 {d}, v0, v1"], "max")
    one("max_f16_mods", ["V_MAX_F16"], ["v_max_f16_e64 {d}, -v0, |v1|"], "max", 1)
    one("sub_f16", ["V_SUB_F16"], ["v_sub_f16_e32 {d}, v0, v1"], "sub")
    one("subrev_f16", ["V_SUBREV_F16"], ["v_subrev_f16_e32 {d}, v0, v1"], "subrev")
    one("sub_f16_mods_clamp", ["V_SUB_F16"], ["v_sub_f16_e64 {d}, -v0, |v1| clamp"], "sub", 1)
    one("ldexp_f16", ["V_LDEXP_F16"], ["v_ldexp_f16_e32 {d}, v0, v3"], "ldexp")
    one("min3_f16", ["V_MIN3_F16"], ["v_min3_f16 {d}, v0, v1, v2"], "min3")
    one("max3_f16", ["V_MAX3_F16"], ["v_max3_f16 {d}, v0, v1, v2"], "max3")
    one("med3_f16", ["V_MED3_F16"], ["v_med3_f16 {d}, v0, v1, v2"], "med3")
    one("cvt_f32_f16", ["V_CVT_F32_F16"], ["v_cvt_f32_f16_e32 {d}, v0"], "cvt_f32_f16")
    one("cvt_f16_f32", ["V_CVT_F16_F32"], ["v_cvt_f16_f32_e32 {d}, v6"], "cvt_f16_f32")
    one("cvt_f16_u16", ["V_CVT_F16_U16"], ["v_cvt_f16_u16_e32 {d}, v3"], "cvt_f16_u16")
    one("cvt_f16_i16", ["V_CVT_F16_I16"], ["v_cvt_f16_i16_e32 {d}, v3"], "cvt_f16_i16")
    one("cvt_u16_f16", ["V_CVT_U16_F16"], ["v_cvt_u16_f16_e32 {d}, v0"], "cvt_u16_f16")
    one("cvt_i16_f16", ["V_CVT_I16_F16"], ["v_cvt_i16_f16_e32 {d}, v0"], "cvt_i16_f16")
    one("cvt_pkrtz_f16_f32", ["V_CVT_PKRTZ_F16_F32"], ["v_cvt_pkrtz_f16_f32_e32 {d}, v6, v7"], "pkrtz")
    one("pack_b32_f16", ["V_PACK_B32_F16"], ["v_pack_b32_f16 {d}, v0, v1"], "pack")
    one("pack_b32_f16_mods", ["V_PACK_B32_F16"], ["v_pack_b32_f16 {d}, -v0, |v1|"], "pack", 1)
    for op in ["add", "mul", "min", "max"]:
        u = op.upper()
        one(f"pk_{op}_f16", [f"V_PK_{u}_F16"], [f"v_pk_{op}_f16 {{d}}, v0, v1"], f"pk_{op}")
        one(f"pk_{op}_f16_sel_neg", [f"V_PK_{u}_F16"],
            [f"v_pk_{op}_f16 {{d}}, v0, v1 op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[1,0] neg_hi:[0,1]"], f"pk_{op}", 2)
    one("pk_add_f16_clamp", ["V_PK_ADD_F16"], ["v_pk_add_f16 {d}, v0, v1 clamp"], "pk_add")
    # The VOP3 (e64) encodings of VOP1/VOP2 ops above: their own table rows (issue 28).
    for op in ["floor", "trunc", "ceil", "rndne", "fract", "frexp_mant"]:
        one(f"{op}_f16_e64_neg", [f"V_{op.upper()}_F16"], [f"v_{op}_f16_e64 {{d}}, -v0"], op, 1)
    one("frexp_exp_f16_e64_neg", ["V_FREXP_EXP_I16_F16"], ["v_frexp_exp_i16_f16_e64 {d}, -v0"], "frexp_exp", 1)
    for op in ["subrev", "mul", "min"]:
        one(f"{op}_f16_e64_mods", [f"V_{op.upper()}_F16"], [f"v_{op}_f16_e64 {{d}}, -v0, |v1|"], op, 1)
    one("ldexp_f16_e64_neg", ["V_LDEXP_F16"], ["v_ldexp_f16_e64 {d}, -v0, v3"], "ldexp", 1)
    one("cvt_f32_f16_e64", ["V_CVT_F32_F16"], ["v_cvt_f32_f16_e64 {d}, v0"], "cvt_f32_f16")
    one("cvt_f16_f32_e64", ["V_CVT_F16_F32"], ["v_cvt_f16_f32_e64 {d}, v6"], "cvt_f16_f32")
    one("cvt_f16_u16_e64", ["V_CVT_F16_U16"], ["v_cvt_f16_u16_e64 {d}, v3"], "cvt_f16_u16")
    one("cvt_f16_i16_e64", ["V_CVT_F16_I16"], ["v_cvt_f16_i16_e64 {d}, v3"], "cvt_f16_i16")
    one("cvt_u16_f16_e64", ["V_CVT_U16_F16"], ["v_cvt_u16_f16_e64 {d}, v0"], "cvt_u16_f16")
    one("cvt_i16_f16_e64", ["V_CVT_I16_F16"], ["v_cvt_i16_f16_e64 {d}, v0"], "cvt_i16_f16")
    # v8 is +0 when the case starts: D = fma(-a, |b|, +0).
    one("fmac_f16_e64_mods", ["V_FMAC_F16"], ["v_fmac_f16_e64 {d}, -v0, |v1|"], "fmac_zero", 1)
    one("cvt_pkrtz_f16_f32_e64", ["V_CVT_PKRTZ_F16_F32"], ["v_cvt_pkrtz_f16_f32_e64 {d}, v6, v7"], "pkrtz")
    cc, s = compares("f16", "v0", "v1", "-v0", "|v1|", s)
    return c + cc, s

def emit(name, cases, top):
    print(f"pub const {name}: &[Case] = &[")
    for (cname, ops, asm, slot, wide, ref, mods) in cases:
        words = enc(asm)
        print("    Case {")
        print(f"        name: {cname!r},".replace("'", '"'))
        print("        opcodes: &[" + ", ".join(f'"{o}"' for o in ops) + "],")
        print("        asm: &[")
        for a, w in zip(asm, words):
            print(f"            ({a!r}, &[{', '.join(f'0x{x:08x}' for x in w)}]),".replace("'", '"'))
        print("        ],")
        print(f"        wide: {str(wide).lower()},\n        reference: {ref!r},\n        mods: {mods},".replace("'", '"'))
        print("    },")
    print("];\n")

print("// @generated by tests/vfloat/gen.py from llvm-mc-19 -mcpu=gfx1030 -show-encoding. DO NOT EDIT.\n")
print("use super::Case;\n")
for name, f in [("F64_CASES", f64_cases), ("F32_CASES", f32_cases), ("F16_CASES", f16_cases)]:
    cases, top = f()
    emit(name, cases, top)
