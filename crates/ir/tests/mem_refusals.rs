//! Memory instructions whose semantics is not written yet are refused when lifting — before anything runs —
//! with the offset, the instruction's text and a reason (words from llvm-mc-19 -mcpu=gfx1030).

use rdna2spv_ir::lift::{lift, LiftOptions};
use rdna2spv_isa::Target;

#[test]
fn unlifted_memory_instructions_are_refused_by_name() {
    let cases: &[(&[u32], &str, &str)] = &[
        (
            &[0xe80c_0000, 0x8001_0100],
            "tbuffer_store_format_x v1, off, s[4:7], 0",
            "format BUF_FMT_8_UNORM (1): a store that rounds or clamps",
        ),
        (&[0xd866_0000, 0x0000_0001], "ds_gws_init v1 gds", "GDS"),
        (
            &[0xe8b0_0000, 0x8021_0100],
            "tbuffer_load_format_d16_x v1, off, s[4:7], 0 format:[BUF_FMT_32_FLOAT]",
            "format BUF_FMT_32_FLOAT (22): a d16 load",
        ),
        (
            &[0xdc30_6000, 0x0100_0000],
            "scratch_load_dword off, s0 lds",
            "lds = 1",
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
        assert!(
            e.contains("+0x0")
                && e.contains(&format!("unsupported instruction {text} at"))
                && e.contains("not supported yet")
                && e.contains(reason),
            "{text}: {e}"
        );
    }
}
