//! The canonical instances of the call instructions need a call around them (D099): a one-instruction kernel
//! has no function to call or return from, so the row's instance runs in the smallest context that makes
//! its target known — `s_swappc_b64` after `s_getpc_b64` + `s_add_u32`/`s_addc_u32` of the callee's
//! offset, `s_call_b64` with its PC-relative offset pointing at the callee (the instance's simm16 is
//! replaced), `s_setpc_b64` as the return of a callee entered by `s_call_b64` with that register pair. The
//! callee is one `s_setpc_b64` of the return-address pair.

use rdna2spv_ir::lift::{lift_with_calls, CallSpace, Callee, LiftError, LiftOptions};
use rdna2spv_ir::Program;
use rdna2spv_isa::Opcode;

const S_ENDPGM: u32 = 0xbf81_0000;

fn s_getpc(sdst: u32) -> u32 {
    0xbe80_1f00 | (sdst << 16)
}
fn s_setpc(ssrc: u32) -> u32 {
    0xbe80_2000 | ssrc
}
/// s_call_b64 s[sdst:sdst+1], simm16
fn s_call(sdst: u32, simm: u16) -> u32 {
    0xbb00_0000 | (sdst << 16) | simm as u32
}
/// s_add_u32 / s_addc_u32 sdst, sdst, literal
fn s_add_lit(carry: bool, sdst: u32, lit: u32) -> [u32; 2] {
    let op = if carry { 0x8200_0000 } else { 0x8000_0000 };
    [op | (sdst << 16) | (0xff << 8) | sdst, lit]
}

/// The kernel words and the callee for a call instruction's instance; None for other rows.
fn context(op: Opcode, words: &[u32]) -> Option<(Vec<u32>, Vec<u32>)> {
    let w0 = words[0];
    let sdst = (w0 >> 16) & 0x7f;
    let ssrc = w0 & 0xff;
    // Register pairs the instance names that the context can write (an SGPR pair below VCC).
    let pair = |r: u32| r.is_multiple_of(2) && r < 104;
    let mut k: Vec<u32> = Vec::new();
    match op {
        Opcode::S_SWAPPC_B64 if pair(sdst) && pair(ssrc) => {
            // s_getpc gives 4; the callee follows the kernel's 8 words at 32: 32 - 4 = 28.
            k.push(s_getpc(ssrc));
            k.extend(s_add_lit(false, ssrc, 28));
            k.extend(s_add_lit(true, ssrc + 1, 0));
            k.push(w0);
            k.resize(8, S_ENDPGM);
            Some((k, vec![s_setpc(sdst)]))
        }
        Opcode::S_CALL_B64 if pair(sdst) => {
            // 0 + 4 + 4 * 7 = 32.
            k.push((w0 & 0xffff_0000) | 7);
            k.resize(8, S_ENDPGM);
            Some((k, vec![s_setpc(sdst)]))
        }
        Opcode::S_SETPC_B64 if pair(ssrc) => {
            k.push(s_call(ssrc, 7));
            k.resize(8, S_ENDPGM);
            Some((k, vec![w0]))
        }
        _ => None,
    }
}

/// Lifts a call instruction's instance in its context; None for other rows.
pub(super) fn lift_in_context(
    op: Opcode,
    words: &[u32],
    opts: LiftOptions,
) -> Option<Result<Program, LiftError>> {
    let (kernel, callee) = context(op, words)?;
    let bytes = |w: &[u32]| -> Vec<u8> { w.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let callees = [Callee {
        name: "callee".into(),
        address: 4 * kernel.len() as u64,
        code: bytes(&callee),
    }];
    Some(lift_with_calls(
        "coverage",
        &bytes(&kernel),
        opts,
        &Default::default(),
        &CallSpace {
            kernel_address: 0,
            callees: &callees,
        },
    ))
}
