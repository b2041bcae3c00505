//! The persistent pipeline cache's Vulkan side (D160): a cache made with this device's header is taken,
//! anything else (another device's header, a damaged or truncated blob) is refused before the driver sees
//! it, and the data a context gives back carries its device's header.

mod common;

use rdna2spv_vulkan::kernel::PushArgs;
use rdna2spv_vulkan::profile::modules;
use rdna2spv_vulkan::{pipeline_cache_data_matches, PIPELINE_CACHE_HEADER_BYTES};

#[test]
fn pipeline_cache_data_round_trips_and_foreign_headers_are_refused() {
    let ctx = common::lavapipe();
    let header = ctx.pipeline_cache_header();
    // The header as Vulkan 1.3 §10.7.4 lays it out: length 32, version ONE (1), then vendor and device.
    assert_eq!(&header[0..4], &32u32.to_le_bytes());
    assert_eq!(&header[4..8], &1u32.to_le_bytes());
    assert_eq!(ctx.pipeline_cache_data().unwrap(), None);
    assert!(!ctx.load_pipeline_cache(&[]).unwrap());
    let mut inp = ctx.create_buffer(256).unwrap();
    inp.upload_u32(0, &[7; 64]).unwrap();
    let out = ctx.create_buffer(256).unwrap();
    let args = PushArgs {
        input: inp.device_address(),
        output: out.device_address(),
        count: 64,
        param: 0,
    };
    let words = modules::add_one_u32();
    ctx.dispatch(&words, "main", args.workgroups(), &args.to_bytes())
        .unwrap();
    assert_eq!(out.download_u32(0, 64).unwrap(), vec![8; 64]);
    assert_eq!(ctx.pipeline_counts().0, 1);
    let data = ctx.pipeline_cache_data().unwrap().expect("a cache");
    println!(
        "{} bytes of pipeline cache data; counts {:?}",
        data.len(),
        ctx.pipeline_counts()
    );
    // The driver wrote the header the device's properties give.
    assert!(pipeline_cache_data_matches(&header, &data), "{data:02x?}");

    // A second context takes it; one whose UUID, vendor or version differs, or a truncated blob, is refused.
    let again = common::lavapipe();
    assert!(again.load_pipeline_cache(&data).unwrap());
    for at in [4, 8, 12, 16, 31] {
        let mut bad = data.clone();
        bad[at] ^= 0x40;
        assert!(!pipeline_cache_data_matches(&header, &bad), "byte {at}");
        assert!(!again.load_pipeline_cache(&bad).unwrap(), "byte {at}");
    }
    assert!(!again
        .load_pipeline_cache(&data[..PIPELINE_CACHE_HEADER_BYTES - 1])
        .unwrap());
    again
        .dispatch(&words, "main", args.workgroups(), &args.to_bytes())
        .unwrap();
    assert_eq!(out.download_u32(0, 64).unwrap(), vec![8; 64]);
    println!("second context: counts {:?}", again.pipeline_counts());
}
