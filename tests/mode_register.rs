//! The MODE register tracked through the CFG at lift time (crates/ir/src/lift/mode.rs, decision D072):
//! float instructions that would run in a mode other than the modelled ones (FP_DENORM flushed or preserved
//! by IR flush steps (D166, D185), FP_ROUND directed for the instructions D186 models, DX10_CLAMP and IEEE
//! on) are refused with the field named; a mode set around integer code and
//! restored before the float code is accepted; hardware registers that are not deterministic on a
//! translated device are refused by name. (The values s_getreg reads are checked host vs lavapipe in
//! tests/ops_scalar_all.rs.) Words from `llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding`.

use rdna2spv_ir::lift::{lift, LiftError, LiftOptions};
use rdna2spv_isa::Target;

const V_ADD_F32: u32 = 0x0600_0501; // v_add_f32_e32 v0, v1, v2
const V_SQRT_F32: u32 = 0x7e00_6701; // v_sqrt_f32_e32 v0, v1
                                     // v_div_fixup_f64 v[0:1], v[2:3], v[4:5], v[6:7]
const V_DIV_FIXUP_F64: [u32; 2] = [0xd560_0000, 0x041a_0902];
const V_ADD_NC_U32: u32 = 0x4a00_0501; // v_add_nc_u32_e32 v0, v1, v2
const S_ADD_U32: u32 = 0x8000_0201; // s_add_u32 s0, s1, s2
const S_ENDPGM: u32 = 0xbf81_0000;
const ROUND_UP: u32 = 0xbfa4_0001; // s_round_mode 0x1
const ROUND_NEAREST: u32 = 0xbfa4_0000; // s_round_mode 0x0
const FLUSH_ALL: u32 = 0xbfa5_0000; // s_denorm_mode 0
const PRESERVE_ALL: u32 = 0xbfa5_000f; // s_denorm_mode 15

fn lifted(words: &[u32]) -> Result<(), LiftError> {
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    lift(
        "k",
        &code,
        LiftOptions {
            target: Target::Gfx1030,
            wave_size: 32,
            private_segment_buffer: None,
        },
    )
    .map(|_| ())
}

fn refused(words: &[u32], want: &[&str]) {
    let e = lifted(words).expect_err("refused").to_string();
    assert!(e.starts_with("unsupported instruction "), "{e}");
    for w in want {
        assert!(e.contains(w), "`{w}` missing from: {e}");
    }
}

#[test]
fn directed_rounding_is_modelled_or_refused_at_the_float_instruction() {
    // f32 add under FP_ROUND toward +inf: modelled (D186).
    lifted(&[ROUND_UP, V_ADD_F32, S_ENDPGM]).expect("v_add_f32 rounds toward +inf");
    // v_sqrt_f32's rounding is not: refused by name.
    refused(
        &[ROUND_UP, V_SQRT_F32, S_ENDPGM],
        &[
            "v_sqrt_f32_e32 v0, v1 at k+0x4",
            "FP_ROUND f32 = 1 (toward +inf)",
            "D186",
        ],
    );
}

#[test]
fn flushing_is_modelled_or_refused_at_the_float_instruction() {
    // Both denormal fields flushed: f32 add is modelled (D166); the f64 division helper has no f16/f64
    // flush rule (D185) and is refused by name.
    lifted(&[FLUSH_ALL, S_ADD_U32, V_ADD_F32, S_ENDPGM]).expect("v_add_f32 flushes");
    refused(
        &[
            FLUSH_ALL,
            S_ADD_U32,
            V_DIV_FIXUP_F64[0],
            V_DIV_FIXUP_F64[1],
            S_ENDPGM,
        ],
        &["at k+0x8", "FP_DENORM f16/f64 = 0", "D185"],
    );
    // Exception enables would trap on the hardware.
    refused(
        &[0xba80_3301, 0x0000_007f, V_ADD_F32, S_ENDPGM],
        &["exception enables = 0x7f"],
    );
}

/// The f32 denormal field set by s_denorm_mode is honoured by flush steps in the IR (D166): two
/// `b32.flush` of the inputs and one of the result where both directions flush, none where f32
/// denormals are allowed, and only the output flush under FP_DENORM f32 = 1 (inputs allowed).
#[test]
fn s_denorm_mode_places_flush_steps() {
    let flushes = |words: &[u32]| {
        let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let p = lift(
            "k",
            &code,
            LiftOptions {
                target: Target::Gfx1030,
                wave_size: 32,
                private_segment_buffer: None,
            },
        )
        .unwrap();
        p.nodes
            .iter()
            .filter(|(_, n)| {
                matches!(
                    n,
                    rdna2spv_ir::Node::Unary {
                        op: rdna2spv_ir::UnOp::Flush,
                        ..
                    }
                )
            })
            .count()
    };
    assert_eq!(flushes(&[0xbfa5_000c, V_ADD_F32, S_ENDPGM]), 3); // f32 flush in and out
    assert_eq!(flushes(&[0xbfa5_000d, V_ADD_F32, S_ENDPGM]), 1); // inputs allowed: output only
    assert_eq!(flushes(&[0xbfa5_000e, V_ADD_F32, S_ENDPGM]), 2); // outputs allowed: inputs only
    assert_eq!(flushes(&[PRESERVE_ALL, V_ADD_F32, S_ENDPGM]), 0);
    assert_eq!(flushes(&[0xbfa5_000c, V_ADD_NC_U32, S_ENDPGM]), 0);
}

#[test]
fn a_mode_set_around_integer_code_and_restored_is_accepted() {
    lifted(&[
        ROUND_UP,
        FLUSH_ALL,
        S_ADD_U32,
        V_ADD_NC_U32,
        ROUND_NEAREST,
        PRESERVE_ALL,
        V_ADD_F32,
        S_ENDPGM,
    ])
    .expect("the float instruction runs in the modelled mode");
}

#[test]
fn a_mode_that_differs_between_paths_is_refused() {
    // s_cbranch_scc1 skips the s_round_mode: MODE at the v_add_f32 depends on SCC.
    refused(
        &[0xbf85_0001, ROUND_UP, V_ADD_F32, S_ENDPGM],
        &["at k+0x8", "not a constant here"],
    );
    // Both paths restore it: accepted.
    lifted(&[0xbf85_0001, ROUND_UP, ROUND_NEAREST, V_ADD_F32, S_ENDPGM]).expect("accepted");
}

#[test]
fn mode_from_an_sgpr_is_refused_before_float_code() {
    // s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s8: the value is not known at translation time.
    refused(
        &[0xb988_1801, V_ADD_F32, S_ENDPGM],
        &["at k+0x4", "not a constant here"],
    );
    lifted(&[0xb988_1801, V_ADD_NC_U32, S_ENDPGM]).expect("integer code runs in any mode");
}

#[test]
fn nondeterministic_hardware_registers_are_refused() {
    // s_getreg_b32 s16, hwreg(HW_REG_HW_ID1)
    refused(&[0xb910_f817, S_ENDPGM], &["HW_ID1", "at k+0x0"]);
    // s_setreg_b32 hwreg(HW_REG_STATUS), s8
    refused(&[0xb988_f802, S_ENDPGM], &["STATUS", "at k+0x0"]);
    // s_setreg_b32 hwreg(HW_REG_FLAT_SCR_LO), s8: clang's flat-scratch set-up, accepted.
    lifted(&[0xb988_f814, S_ENDPGM]).expect("accepted");
}

#[test]
fn calls_and_m0_relative_indexing_lift_or_are_refused_precisely() {
    // s_getpc_b64 s[4:5] (clang's call sequence starts with it): lifted, D099.
    lifted(&[0xbe84_1f00, S_ENDPGM]).expect("s_getpc_b64 is lifted");
    // s_getpc_b64 s[4:5]; s_setpc_b64 s[4:5]: a computed jump outside any call is refused by name.
    refused(
        &[0xbe84_1f00, 0xbe80_2004, S_ENDPGM],
        &["s_setpc_b64 s[4:5] at k+0x4", "outside a call"],
    );
    // s_swappc_b64 s[30:31], s[4:5] with s[4:5] unknown (an indirect call).
    refused(
        &[0xbe9e_2104, S_ENDPGM],
        &[
            "s_swappc_b64 s[30:31], s[4:5] at k+0x0",
            "not known at translation time",
        ],
    );
    // s_movrels_b32 s16, s8: lifted as selects over the SGPRs, D100.
    lifted(&[0xbe90_2e08, S_ENDPGM]).expect("s_movrels_b32 is lifted");
}
