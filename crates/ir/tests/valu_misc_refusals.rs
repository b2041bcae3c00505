//! Forms of the D094 instructions this project does not model are refused when lifting, before anything
//! runs, with the instruction's text and a reason (words from llvm-mc-19 -mcpu=gfx1030, except the SGPR
//! accumulator of v_mqsad_u32_u8, which the assembler rejects but the decoder decodes).

use rdna2spv_ir::lift::{lift, LiftOptions};
use rdna2spv_isa::Target;

#[test]
fn unmodelled_valu_misc_forms_are_refused() {
    let cases: &[(&[u32], &str, &str)] = &[
        (
            &[0xd712_0808, 0x0002_0300],
            "unsupported instruction v_cvt_pknorm_i16_f16 v8, v0, v1 op_sel:[1,0,0]",
            "op_sel",
        ),
        (
            &[0xd768_8008, 0x0002_0300],
            "unsupported instruction v_cvt_pknorm_i16_f32 v8, v0, v1 clamp",
            "clamp",
        ),
        (
            &[0xd5e4_8008, 0x0000_0101],
            "unsupported instruction v_cvt_norm_u16_f16_e64 v8, v1 clamp",
            "clamp",
        ),
        (
            &[0xd575_0008, 0x0012_0500],
            "unsupported instruction v_mqsad_u32_u8",
            "VGPR quad",
        ),
    ];
    for (words, text, reason) in cases {
        let mut w = words.to_vec();
        w.push(0xbf81_0000); // s_endpgm
        let code: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
        let e = lift(
            "k",
            &code,
            LiftOptions {
                target: Target::Gfx1030,
                wave_size: 32,
                private_segment_buffer: None,
            },
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains(text) && e.contains(reason), "{text}: {e}");
    }
}
