#!/usr/bin/env python3
"""Generates tests/valu_packed/segments.rs: the packed opcheck segments of tests/ops_valu_packed.rs.

Every segment is a short straight-line sequence of gfx1030 instructions (several ops under test and, for
v_cmpx, the glue that saves EXEC into s16..s20 and restores it), assembled here by llvm-mc-19 so that the
words written next to each text are LLVM's. Run: python3 tests/valu_packed/gen.py > tests/valu_packed/segments.rs
"""
import re
import subprocess
import sys

CONDS32 = ["f", "lt", "eq", "le", "gt", "ne", "ge", "t"]
CONDS16 = ["lt", "eq", "le", "gt", "ne", "ge"]
TYPES = ["i16", "u16", "i32", "u32", "i64", "u64"]

# Source operand pairs. The tied pairs are the ones tests/ops_valu_packed.rs::correlated relates (equal,
# ±1, equal low or high halves) in many lanes; every opcode runs on one of them, so its eq/le/ge cases
# are reached. The other pairs (an SGPR, inline constants, a literal) are extra instances.
TIED32 = [("v0", "v1"), ("v2", "v3"), ("v4", "v5"), ("v6", "v7"), ("v8", "v9"), ("v10", "v11"),
          ("v12", "v13"), ("v14", "v15"), ("v1", "v0"), ("v3", "v2"), ("v5", "v4"), ("v7", "v6")]
TIED64 = [("v[0:1]", "v[2:3]"), ("v[4:5]", "v[6:7]"), ("v[8:9]", "v[10:11]"), ("v[12:13]", "v[14:15]"),
          ("v[2:3]", "v[0:1]"), ("v[6:7]", "v[4:5]"), ("v[10:11]", "v[8:9]"), ("v[14:15]", "v[12:13]")]
OTHER32 = [("s8", "v1"), ("-1", "v5"), ("0", "v7"), ("0x8000", "v3")]
OTHER64 = [("s[8:9]", "v[2:3]"), ("-1", "v[6:7]"), ("0", "v[10:11]"), ("s[12:13]", "v[14:15]")]


def names(x):
    out = []
    for t in TYPES:
        for c in (CONDS16 if t.endswith("16") else CONDS32):
            out.append((f"v_cmp{'x' if x else ''}_{c}_{t}", t))
    return out


def instances(x, literal):
    """Every opcode once on a tied pair, then extra instances on other operands to fill the last segment."""
    ns = names(x)
    out = []
    for k, (n, t) in enumerate(ns):
        tied = TIED64 if t.endswith("64") else TIED32
        out.append((n, t, tied[k % len(tied)]))
    extra = 0
    while len(out) % 6:
        n, t = ns[(11 * extra + 3) % len(ns)]
        other = OTHER64 if t.endswith("64") else OTHER32
        a, b = other[extra % len(other)]
        if a.startswith("0x") and not literal:
            a = "-1"
        out.append((n, t, (a, b)))
        extra += 1
    return out


def chunks(xs, n):
    return [xs[i:i + n] for i in range(0, len(xs), n)]


RESTORE = {"FromInput": "s_or_b32 exec_lo, s21, 0x100", "All": "s_mov_b32 exec_lo, -1"}
SGPRS = ["s16", "s17", "s18", "s19", "s20"]


def cmp_e64_segments():
    """5 compares to s16..s20 in the VOP3 encoding, the 6th in VOPC (to VCC); EXEC alternates."""
    segs = []
    for i, g in enumerate(chunks(instances(False, False), 6)):
        exec_ = "FromInput" if i % 2 == 0 else "All"
        lines = []
        for k, (n, t, (a, b)) in enumerate(g):
            if k < 5:
                lines.append(f"{n}_e64 {SGPRS[k]}, {a}, {b}")
            else:
                lines.append(f"{n}_e32 vcc_lo, {a}, {b}")
        segs.append((exec_, lines))
    return segs


def cmp_e32_segments():
    """6 compares in the VOPC encoding (to VCC), each but the last copied to s16..s20."""
    segs = []
    for i, g in enumerate(chunks(instances(False, True), 6)):
        exec_ = "All" if i % 2 == 0 else "FromInput"
        lines = []
        for k, (n, t, (a, b)) in enumerate(g):
            lines.append(f"{n}_e32 vcc_lo, {a}, {b}")
            if k < len(g) - 1:
                lines.append(f"s_mov_b32 {SGPRS[k]}, vcc_lo")
        segs.append((exec_, lines))
    return segs


def cmpx_segments():
    """6 v_cmpx each (VOPC and VOP3 encodings alternating); EXEC after each but the last is copied to
    s16..s20 and EXEC restored to the segment's starting value."""
    segs = []
    for i, g in enumerate(chunks(instances(True, False), 6)):
        exec_ = "FromInput" if i % 4 != 3 else "All"
        lines = []
        for k, (n, t, (a, b)) in enumerate(g):
            enc = "e32" if (i + k) % 2 == 0 else "e64"
            lines.append(f"{n}_{enc} {a}, {b}")
            if k < len(g) - 1:
                lines.append(f"s_mov_b32 {SGPRS[k]}, exec_lo")
                lines.append(RESTORE[exec_])
        segs.append((exec_, lines))
    return segs


def cmp_e64_vcc_segments():
    """Every integer v_cmp in the VOP3 encoding, six per segment: five to s16..s20, the sixth to VCC
    (cmp_e64_segments gives the sixth the VOPC encoding, so its VOP3 row is reached here)."""
    segs = []
    for i, g in enumerate(chunks(instances(False, False), 6)):
        exec_ = "All" if i % 2 == 0 else "FromInput"
        lines = []
        for k, (n, t, (a, b)) in enumerate(g):
            lines.append(f"{n}_e64 {(SGPRS + ['vcc_lo'])[k]}, {a}, {b}")
        segs.append((exec_, lines))
    return segs


def cmpx_swapped_segments():
    """As cmpx_segments with the encodings swapped: every v_cmpx in the encoding cmpx_segments did not
    give it (literal operands are left out: a VOP3 literal does not exist on gfx10)."""
    segs = []
    for i, g in enumerate(chunks(instances(True, False), 6)):
        exec_ = "FromInput" if i % 4 != 1 else "All"
        lines = []
        for k, (n, t, (a, b)) in enumerate(g):
            enc = "e64" if (i + k) % 2 == 0 else "e32"
            lines.append(f"{n}_{enc} {a}, {b}")
            if k < len(g) - 1:
                lines.append(f"s_mov_b32 {SGPRS[k]}, exec_lo")
                lines.append(RESTORE[exec_])
        segs.append((exec_, lines))
    return segs


MISC = [
    ("All", [
        "v_lshrrev_b32_e32 v8, v0, v1",
        "v_lshrrev_b32_e64 v9, v2, s9",
        "v_and_b32_e32 v10, v0, v1",
        "v_and_b32_e64 v11, s8, v3",
        "v_sub_nc_u32_e32 v12, v0, v1",
        "v_sub_nc_u32_e64 v13, v2, s10",
        "v_subrev_nc_u32_e32 v14, v0, v1",
        "v_subrev_nc_u32_e64 v15, v4, v5",
    ]),
    ("FromInput", [
        "v_sub_co_ci_u32_e32 v8, vcc_lo, v0, v1, vcc_lo",
        "v_mov_b32_e32 v9, vcc_lo",
        "v_subrev_co_ci_u32_e32 v10, vcc_lo, v2, v3, vcc_lo",
        "v_add_co_u32 v11, s16, v0, v1",
        "v_sub_co_u32 v12, s17, v2, v3",
        "v_subrev_co_u32 v13, s18, v4, v5",
        "v_sub_co_ci_u32_e64 v14, s19, v6, v7, s22",
        "v_subrev_co_u32 v15, s20, -1, v7",
    ]),
    ("All", [
        "v_min3_u32 v8, v0, v1, v2",
        "v_max3_i32 v9, v0, v1, v2",
        "v_xor3_b32 v10, v0, v1, v2",
        "v_lshlrev_b64 v[11:12], v0, v[2:3]",
        "v_add_lshl_u32 v13, v0, v1, v2",
        "v_lshl_or_b32 v14, v0, v1, v2",
        "v_and_or_b32 v15, v0, v1, v2",
    ]),
    ("All", [
        "v_or3_b32 v8, v0, v1, v2",
        "v_mbcnt_hi_u32_b32 v9, v0, v1",
        "v_mbcnt_hi_u32_b32 v10, s8, v1",
        "v_permlane16_b32 v11, v0, s8, s9",
        "v_permlane16_b32 v12, v1, s10, s11",
        "v_mad_u64_u32 v[13:14], s16, v3, v4, v[5:6]",
        "v_lshl_or_b32 v15, s8, 4, v1",
    ]),
]


INT_E64 = [
    ("All", [
        "v_mul_hi_i32_i24_e64 v8, v0, v1",
        "v_mul_u32_u24_e64 v9, v2, s9",
        "v_mul_hi_u32_u24_e64 v10, v3, v4",
        "v_max_i32_e64 v11, v4, v5",
        "v_min_u32_e64 v12, s8, v6",
        "v_or_b32_e64 v13, v7, v0",
        "v_xor_b32_e64 v14, v1, v2",
        "v_max_i32_e64 v15, -1, v5",
    ]),
    ("FromInput", [
        "v_ffbh_u32_e64 v8, v0",
        "v_ffbl_b32_e64 v9, v1",
        "v_ffbh_i32_e64 v10, v2",
        "v_mov_b32_e64 v11, s9",
        "v_or_b32_e32 v12, v3, v4",
        "v_max_u32_e32 v13, v4, v5",
        "v_xnor_b32_e32 v14, v6, v7",
        "v_add_co_ci_u32_e64 v15, s16, v0, v1, s22",
    ]),
    ("All", [
        "v_min_i32_e64 v8, v0, v1",
        "v_max_u32_e64 v9, v2, v3",
        "v_ashrrev_i32_e64 v10, v4, v5",
        "v_lshlrev_b32_e64 v11, v6, v7",
        "v_xnor_b32_e64 v12, v0, s8",
        "v_not_b32_e64 v13, v1",
        "v_bfrev_b32_e64 v14, v2",
        "v_mul_i32_i24_e64 v15, v3, v4",
    ]),
    ("FromInput", [
        "v_subrev_co_ci_u32_e64 v8, s17, v2, v3, s22",
        "v_mul_hi_i32_i24_e64 v9, s8, v0",
        "v_add_nc_i32 v10, v0, v1",
        "v_sub_nc_i32 v11, v2, v3",
        "v_add_nc_i32 v12, v4, v5 clamp",
        "v_sub_nc_i32 v13, v6, v7 clamp",
        "v_ffbh_i32_e64 v14, s10",
        "v_mov_b32_e64 v15, v3",
    ]),
    # EXEC all lanes: the hardware writes the selected lane even when EXEC disables it, which the IR does
    # not model (docs/captures.md, lift/permlane.rs); compilers write with EXEC = all lanes.
    ("All", [
        "v_writelane_b32 v8, s8, 5",
        "v_writelane_b32 v9, s9, s10",
        "v_writelane_b32 v10, -1, 31",
    ]),
]


def assemble(lines):
    src = "\n".join(lines) + "\n"
    r = subprocess.run(["llvm-mc-19", "-arch=amdgcn", "-mcpu=gfx1030", "-show-encoding"], input=src,
                       capture_output=True, text=True)
    if r.returncode != 0 or r.stderr:
        sys.exit(f"llvm-mc-19 failed:\n{r.stderr}")
    out = []
    for line in r.stdout.splitlines():
        m = re.match(r"\s*(.*?)\s*; encoding: \[(.*)\]", line)
        if not m:
            continue
        text, enc = m.group(1), [int(b, 16) for b in m.group(2).split(",")]
        words = [int.from_bytes(bytes(enc[i:i + 4]), "little") for i in range(0, len(enc), 4)]
        out.append((text, words))
    assert len(out) == len(lines), (lines, out)
    return out


def emit(group, segs, last=False):
    print(f"pub fn {group}() -> Vec<Op> {{")
    print("    vec![")
    for exec_, lines in segs:
        ins = assemble(lines)
        text = "\\n".join(t for t, _ in ins)
        print(f"        seg!({exec_}, \"{text}\", [")
        for t, w in ins:
            print(f"            {', '.join(f'0x{x:08x}' for x in w)}, // {t}")
        print("        ]),")
    print("    ]")
    print("}")
    if not last:
        print()


print("// Generated by tests/valu_packed/gen.py (llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding).")
print("// Do not edit by hand.")
print()
print("use crate::Op;")
print()
emit("cmp_e64", cmp_e64_segments())
emit("cmp_e32", cmp_e32_segments())
emit("cmpx", cmpx_segments())
emit("misc", MISC)
emit("cmp_e64_vcc", cmp_e64_vcc_segments())
emit("cmpx_swapped", cmpx_swapped_segments())
emit("int_e64", INT_E64, last=True)
