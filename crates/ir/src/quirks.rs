//! RDNA 2's target quirks as data: the one home of each target fact that the lifter, the evaluator and the
//! lowering all need (STYLE.md 7, SoftFloat's `specialize.h`; decision D170).
//!
//! The behaviour built on these facts stays with each consumer: the evaluator's `specialize` module is the
//! specification (values as bits), the lowering's `lower::quirks` reproduces it in SPIR-V keyed by the device
//! profile, and the lifter spells some instructions' NaN rules out as IR. What they share is here.

/// The default quiet NaN of each width: every NaN result the target produces where devices could disagree on
/// which operand's payload survives is canonicalised to this pattern (sign clear, quiet bit set, payload zero;
/// ../shared/DESIGN.md, decision D005).
pub const F16_DEFAULT_NAN: u16 = 0x7e00;
/// See [`F16_DEFAULT_NAN`].
pub const F32_DEFAULT_NAN: u32 = 0x7fc0_0000;
/// See [`F16_DEFAULT_NAN`].
pub const F64_DEFAULT_NAN: u64 = 0x7ff8_0000_0000_0000;

#[cfg(test)]
mod tests {
    use super::*;

    /// The patterns are the IEEE 754 quiet NaNs with a zero payload and a clear sign (checked against the
    /// host's own encoding of each width's fields, not against the constants' text).
    #[test]
    fn default_nans_are_positive_quiet_nans_with_no_payload() {
        for (bits, width, man) in [
            (u64::from(F16_DEFAULT_NAN), 16, 10),
            (u64::from(F32_DEFAULT_NAN), 32, 23),
            (F64_DEFAULT_NAN, 64, 52),
        ] {
            let exp_bits = width - 1 - man;
            let exp = (bits >> man) & ((1 << exp_bits) - 1);
            assert_eq!(exp, (1 << exp_bits) - 1, "{width}: exponent all ones");
            assert_eq!(bits >> (width - 1), 0, "{width}: sign clear");
            assert_eq!(
                bits & ((1 << man) - 1),
                1 << (man - 1),
                "{width}: quiet bit only"
            );
        }
        assert!(f32::from_bits(F32_DEFAULT_NAN).is_nan());
        assert!(f64::from_bits(F64_DEFAULT_NAN).is_nan());
        assert_eq!(f32::NAN.to_bits(), F32_DEFAULT_NAN);
        assert_eq!(f64::NAN.to_bits(), F64_DEFAULT_NAN);
    }
}
