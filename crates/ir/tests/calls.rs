//! Calls are inlined when their target is known at translation time (D099), and refused by name otherwise.
//! Instruction words from `llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding`; the code objects built by
//! clang-19 are tested end to end in tests/fixtures_run.rs (calls_*, multi_*) and tests/calls.rs.

use rdna2spv_ir::lift::{lift_with_calls, CallSpace, Callee, LiftError, LiftOptions};
use rdna2spv_ir::Program;
use rdna2spv_isa::Target;

const S_GETPC_S4: u32 = 0xbe84_1f00; // s_getpc_b64 s[4:5]
const S_ADD_S4_20: u32 = 0x8004_9404; // s_add_u32 s4, s4, 20
const S_ADDC_S5_0: u32 = 0x8205_8005; // s_addc_u32 s5, s5, 0
const S_SWAPPC: u32 = 0xbe9e_2104; // s_swappc_b64 s[30:31], s[4:5]
const S_SETPC: u32 = 0xbe80_201e; // s_setpc_b64 s[30:31]
const S_ENDPGM: u32 = 0xbf81_0000;
const S_ADD_S30_4: u32 = 0x801e_841e; // s_add_u32 s30, s30, 4
const S_MOV_S30_S4: u32 = 0xbe9e_0304; // s_mov_b32 s30, s4

/// s_call_b64 s[30:31], simm16
fn s_call(simm: i16) -> u32 {
    0xbb1e_0000 | simm as u16 as u32
}

/// Lifts `kernel` (at address 0) with one callee `f` whose code is `f` placed right after the kernel.
fn lift_pair(kernel: &[u32], f: &[u32]) -> Result<Program, LiftError> {
    let bytes = |w: &[u32]| -> Vec<u8> { w.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let callees = [Callee {
        name: "f".into(),
        address: 4 * kernel.len() as u64,
        code: bytes(f),
    }];
    lift_with_calls(
        "k",
        &bytes(kernel),
        LiftOptions {
            target: Target::Gfx1030,
            wave_size: 32,
            private_segment_buffer: None,
        },
        &Default::default(),
        &CallSpace {
            kernel_address: 0,
            callees: &callees,
        },
    )
}

fn texts(p: &Program) -> Vec<String> {
    p.blocks
        .iter()
        .flat_map(|(_, b)| b.insts.iter().map(|i| i.text.clone()))
        .collect()
}

fn refusal(r: Result<Program, LiftError>) -> String {
    match r {
        Err(e @ LiftError::Unsupported { .. }) => e.to_string(),
        Err(e) => panic!("not a refusal: {e}"),
        Ok(p) => panic!("lifted:\n{p}"),
    }
}

#[test]
fn each_call_site_gets_its_own_copy_of_the_callee() {
    // 0x00 s_getpc (s[4:5] = 0x04), + 20 = 0x18 = f; two calls; f returns at once.
    let kernel = [
        S_GETPC_S4,
        S_ADD_S4_20,
        S_ADDC_S5_0,
        S_SWAPPC,
        S_SWAPPC,
        S_ENDPGM,
    ];
    let p = lift_pair(&kernel, &[S_SETPC]).unwrap();
    rdna2spv_ir::verify(&p).unwrap();
    let t = texts(&p);
    assert_eq!(
        t.iter().filter(|s| *s == "s_setpc_b64 s[30:31]").count(),
        2,
        "{t:?}"
    );
    assert_eq!(
        t.iter().filter(|s| s.starts_with("s_swappc_b64")).count(),
        2
    );
    // The same through s_call_b64 (PC-relative: 0x00 + 4 + 4 * 5 = 0x18).
    let kernel = [s_call(5), S_ENDPGM, s_call(3), S_ENDPGM, S_ENDPGM, S_ENDPGM];
    let p = lift_pair(&kernel, &[S_SETPC]).unwrap();
    assert_eq!(
        texts(&p)
            .iter()
            .filter(|s| *s == "s_setpc_b64 s[30:31]")
            .count(),
        1
    );
}

#[test]
fn recursion_is_refused() {
    // f at 0x08 calls itself: 0x08 + 4 + 4 * -1 = 0x08.
    let e = refusal(lift_pair(&[s_call(1), S_ENDPGM], &[s_call(-1), S_SETPC]));
    assert!(
        e.contains("unsupported instruction s_call_b64 s[30:31], 65535 at f+0x0")
            && e.contains("recursive call of f")
            && e.contains("called by kernel k"),
        "{e}"
    );
}

#[test]
fn a_return_to_a_changed_address_is_refused() {
    let e = refusal(lift_pair(&[s_call(1), S_ENDPGM], &[S_ADD_S30_4, S_SETPC]));
    assert!(
        e.contains("s_setpc_b64 s[30:31] at f+0x4") && e.contains("not the return address 0x4"),
        "{e}"
    );
    // A return address overwritten by an unknown value: the jump target is not known.
    let e = refusal(lift_pair(&[s_call(1), S_ENDPGM], &[S_MOV_S30_S4, S_SETPC]));
    assert!(
        e.contains("at f+0x4") && e.contains("not known at translation time"),
        "{e}"
    );
}

#[test]
fn unknown_and_foreign_targets_are_refused() {
    // s[4:5] loaded from memory: an indirect call.
    let kernel = [0xf404_0100, 0xfa00_0000, S_SWAPPC, S_ENDPGM];
    let e = refusal(lift_pair(&kernel, &[S_SETPC]));
    assert!(
        e.contains("unsupported instruction s_swappc_b64 s[30:31], s[4:5] at k+0x8")
            && e.contains("call target is not known at translation time"),
        "{e}"
    );
    // A known target that is not a function's entry (the kernel's own s_endpgm at 0x04).
    let e = refusal(lift_pair(&[s_call(0), S_ENDPGM], &[S_SETPC]));
    assert!(
        e.contains("s_call_b64 s[30:31], 0 at k+0x0")
            && e.contains("call target 0x4 is not the entry of a function"),
        "{e}"
    );
    // s_setpc_b64 outside a call: a computed jump within the kernel.
    let kernel = [S_GETPC_S4, 0xbe80_2004, S_ENDPGM];
    let e = refusal(lift_pair(&kernel, &[S_SETPC]));
    assert!(
        e.contains("s_setpc_b64 s[4:5] at k+0x4") && e.contains("outside a call"),
        "{e}"
    );
}
