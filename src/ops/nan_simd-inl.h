// Internal, per Highway target (include after hwy/highway.h inside a foreach_target file, outside
// any namespace): the NaN helpers the fp32 kernels of elementwise_simd.cpp and math_simd.cpp
// share. A kernel tests a pair of vectors for NaN once (AnyNaN: one unordered compare on AVX2 and
// AVX-512) and makes the NaN lanes canonical (spec 00) only when it says so.
#if defined(TILESIM_OPS_NAN_SIMD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TILESIM_OPS_NAN_SIMD_INL_H_
#undef TILESIM_OPS_NAN_SIMD_INL_H_
#else
#define TILESIM_OPS_NAN_SIMD_INL_H_
#endif

HWY_BEFORE_NAMESPACE();
namespace tilesim::ops::nan_simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether a lane of a or b is NaN.
template <class V>
HWY_INLINE bool AnyNaN(V a, V b) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (sizeof(hn::TFromV<V>) == 4 && sizeof(a.raw) == 64)
    return _mm512_cmp_ps_mask(a.raw, b.raw, _CMP_UNORD_Q) != 0;
#elif HWY_TARGET == HWY_AVX2
  if constexpr (sizeof(hn::TFromV<V>) == 4 && sizeof(a.raw) == 32)
    return _mm256_movemask_ps(_mm256_cmp_ps(a.raw, b.raw, _CMP_UNORD_Q)) != 0;
#endif
  const hn::DFromV<V> d;
  return !hn::AllFalse(d, hn::Or(hn::IsNaN(a), hn::IsNaN(b)));
}

// r with its NaN lanes replaced by the canonical fp32 NaN.
template <class V>
HWY_INLINE V Canonical(V r) {
  const hn::DFromV<V> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  return hn::IfThenElse(hn::IsNaN(r), hn::BitCast(d, hn::Set(du, 0x7FC00000u)), r);
}

// The NaN lanes of n stored fp32 values (n a multiple of the vector length) made canonical in
// place: the AVX3 kernels' pass after a row or call whose ORed NaN mask was set.
HWY_INLINE void CanonicalInPlace(float* o, size_t n) {
  const hn::ScalableTag<float> df;
  for (size_t j = 0; j < n; j += hn::Lanes(df))
    hn::StoreU(Canonical(hn::LoadU(df, o + j)), df, o + j);
}

}  // namespace tilesim::ops::nan_simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif
