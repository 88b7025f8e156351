// PTO global memory views (spec 21 §1): Shape, Stride, Layout and GlobalTensor in the vendor's
// names, over host pointers (the twin's GM). A view is five dimensions, each static or DYNAMIC;
// the engine sees it as a GmDesc (tilesim/pto/engine.hpp) and checks every access against the
// view's own shape and strides (docs/pto-kernels.md#globaltensor).
#pragma once
#include <cstdint>
#include <type_traits>

#include "tilesim/pto/engine.hpp"

namespace pto {

enum class Layout {
  ND,  // row-major rows of dims 0..3 by dim 4
  DN,  // column-major
  NZ,  // fractal (cube) layout
  // Names of the MX and HIF4 layouts, so sources compile; instructions on them are Unsupported.
  SCALE, MX_A_ND, MX_A_DN, MX_A_ZZ, MX_B_ND, MX_B_DN, MX_B_NN, HIF4_A_ZZ, HIF4_B_NN,
};

namespace GlobalTensorDim {
constexpr int DIM_0 = 0;
constexpr int DIM_1 = 1;
constexpr int DIM_2 = 2;
constexpr int DIM_3 = 3;
constexpr int DIM_4 = 4;
constexpr int TOTAL_DIM = 5;
}  // namespace GlobalTensorDim

namespace detail {
// Five extents, each static (a template argument) or dynamic: given to the constructor in order of
// the dynamic dimensions, or all five positionally (then the static ones are ignored, as the
// vendor's constructors do); a dynamic extent not given is 1.
template <int64_t... N>
struct Fill5 {
  static constexpr int64_t kStatic[5] = {N...};
  static constexpr int kDynamic = (0 + ... + (N == -1 ? 1 : 0));
  static constexpr void defaults(int64_t* v) {
    for (int i = 0; i < 5; ++i) v[i] = kStatic[i] == -1 ? 1 : kStatic[i];
  }
  static constexpr void positional(int64_t* v, const int64_t (&in)[5]) {
    for (int i = 0; i < 5; ++i) v[i] = kStatic[i] == -1 ? in[i] : kStatic[i];
  }
  template <class... I>
  static constexpr void dynamic(int64_t* v, I... dyn) {
    static_assert(int(sizeof...(I)) == kDynamic,
                  "Shape/Stride: give one value per DYNAMIC dimension, or all five "
                  "[docs/pto-kernels.md#globaltensor]");
    const int64_t in[] = {int64_t(dyn)...};
    int k = 0;
    for (int i = 0; i < 5; ++i) v[i] = kStatic[i] == -1 ? in[k++] : kStatic[i];
  }
};
template <class... I>
inline constexpr bool kFewInts = sizeof...(I) >= 1 && sizeof...(I) <= 4 && (std::is_integral_v<I> && ...);
}  // namespace detail

template <int64_t N1 = DYNAMIC, int64_t N2 = DYNAMIC, int64_t N3 = DYNAMIC, int64_t N4 = DYNAMIC,
          int64_t N5 = DYNAMIC>
struct Shape {
  using Fill = detail::Fill5<N1, N2, N3, N4, N5>;
  static constexpr int64_t staticShape[5] = {N1, N2, N3, N4, N5};
  int64_t shape[5] = {};
  constexpr Shape() { Fill::defaults(shape); }
  constexpr Shape(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) {
    Fill::positional(shape, {a, b, c, d, e});
  }
  template <class... I>
    requires detail::kFewInts<I...>
  constexpr Shape(I... dyn) {
    Fill::dynamic(shape, dyn...);
  }
};

template <int64_t S1 = DYNAMIC, int64_t S2 = DYNAMIC, int64_t S3 = DYNAMIC, int64_t S4 = DYNAMIC,
          int64_t S5 = DYNAMIC>
struct Stride {
  using Fill = detail::Fill5<S1, S2, S3, S4, S5>;
  static constexpr int64_t staticStride[5] = {S1, S2, S3, S4, S5};
  int64_t stride[5] = {};
  constexpr Stride() { Fill::defaults(stride); }
  constexpr Stride(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) {
    Fill::positional(stride, {a, b, c, d, e});
  }
  template <class... I>
    requires detail::kFewInts<I...>
  constexpr Stride(I... dyn) {
    Fill::dynamic(stride, dyn...);
  }
};

template <typename Element_, typename Shape_, typename Stride_, Layout Layout_ = Layout::ND>
struct GlobalTensor {
  using Shape = Shape_;
  using Stride = Stride_;
  using RawDType = std::remove_cv_t<Element_>;
  using DType = RawDType;
  static constexpr Layout layout = Layout_;
  static constexpr int64_t staticShape[5] = {Shape_::staticShape[0], Shape_::staticShape[1],
                                             Shape_::staticShape[2], Shape_::staticShape[3],
                                             Shape_::staticShape[4]};
  static constexpr int64_t staticStride[5] = {Stride_::staticStride[0], Stride_::staticStride[1],
                                              Stride_::staticStride[2], Stride_::staticStride[3],
                                              Stride_::staticStride[4]};

  GlobalTensor() = default;
  GlobalTensor(DType* data, const Shape& shape = Shape(), const Stride& stride = Stride())
      : data_(data), shape_(shape), stride_(stride) {}

  DType* data() const { return data_; }
  int64_t GetShape(int dim) const { return dim >= 0 && dim < 5 ? shape_.shape[dim] : -1; }
  int64_t GetStride(int dim) const { return dim >= 0 && dim < 5 ? stride_.stride[dim] : -1; }
  template <int dim>
  static constexpr int64_t GetShape() {
    static_assert(dim >= 0 && dim < 5, "GetShape<dim>: dim must be 0..4");
    static_assert(staticShape[dim] != DYNAMIC, "GetShape<dim>: the dimension is DYNAMIC");
    return staticShape[dim];
  }
  template <int dim>
  static constexpr int64_t GetStride() {
    static_assert(dim >= 0 && dim < 5, "GetStride<dim>: dim must be 0..4");
    static_assert(staticStride[dim] != DYNAMIC, "GetStride<dim>: the dimension is DYNAMIC");
    return staticStride[dim];
  }
  template <int... dims, class... V>
    requires(sizeof...(dims) == sizeof...(V) && sizeof...(dims) >= 1)
  void SetShape(V... s) {
    static_assert(((dims >= 0 && dims < 5) && ...), "SetShape: dims must be 0..4");
    static_assert(((staticShape[dims] == DYNAMIC) && ...), "SetShape: dim must be DYNAMIC");
    ((shape_.shape[dims] = int64_t(s)), ...);
  }
  template <int... dims, class... V>
    requires(sizeof...(dims) == sizeof...(V) && sizeof...(dims) >= 1)
  void SetStride(V... s) {
    static_assert(((dims >= 0 && dims < 5) && ...), "SetStride: dims must be 0..4");
    static_assert(((staticStride[dims] == DYNAMIC) && ...), "SetStride: dim must be DYNAMIC");
    ((stride_.stride[dims] = int64_t(s)), ...);
  }
  // Element access in the view's coordinates (the vendor CPU simulator's helpers).
  DType GetElement(int64_t i0, int64_t i1, int64_t i2, int64_t i3, int64_t i4) const {
    return data_[offset(i0, i1, i2, i3, i4)];
  }
  void SetElement(int64_t i0, int64_t i1, int64_t i2, int64_t i3, int64_t i4, const DType& v) {
    data_[offset(i0, i1, i2, i3, i4)] = v;
  }

  tilesim::pto::GmDesc gm_desc() const;

 private:
  int64_t offset(int64_t i0, int64_t i1, int64_t i2, int64_t i3, int64_t i4) const {
    return i0 * stride_.stride[0] + i1 * stride_.stride[1] + i2 * stride_.stride[2] + i3 * stride_.stride[3] +
           i4 * stride_.stride[4];
  }
  DType* data_ = nullptr;
  Shape shape_{};
  Stride stride_{};
};

template <class T>
struct is_global : std::false_type {};
template <typename E, typename S, typename St, Layout L>
struct is_global<GlobalTensor<E, S, St, L>> : std::true_type {};
template <class T>
inline constexpr bool is_global_data_v = is_global<std::remove_cv_t<T>>::value;

}  // namespace pto
