// <tilesim/device.hpp> — the device compiler's keywords and synchronisation intrinsics as a host
// build sees them (spec 60 §3), shared by the PTO and Ascend C front ends so that both define each
// name once and token-identically. Qualifiers are empty: host memory is the simulated GM and UB.
// The pipe/event intrinsics order nothing in a sequential twin (spec 21 §2 sync row); their
// checking is the pipeline-hazard detector's job (docs/pto-kernels.md#sync).
#pragma once
#include "tilesim/cxx20.hpp"  // one-line error below C++20
#include "tilesim/error.hpp"  // tilesim::Error, what tilesim calls throw (issue 21 §5)
#include "tilesim/sync.hpp"   // the pipeline-hazard checker's hooks (issue 22)
#include <cstddef>
#include <cstdint>
#include <type_traits>

#ifndef AICORE
#define AICORE
#endif
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __in__
#define __in__
#endif
#ifndef __out__
#define __out__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __tf__
#define __tf__
#endif

// Vendor kernels use these unqualified without including <cstdint> (spec 60 §3).
using std::int16_t;
using std::int32_t;
using std::int64_t;
using std::int8_t;
using std::size_t;
using std::uint16_t;
using std::uint32_t;
using std::uint64_t;
using std::uint8_t;

// The pipes and event ids of the device compiler (CCE numbering: PIPE_S = 0 ... PIPE_FIX = 10).
enum pipe_t : uint8_t {
  PIPE_S,
  PIPE_V,
  PIPE_M,
  PIPE_MTE1,
  PIPE_MTE2,
  PIPE_MTE3,
  PIPE_ALL,
  PIPE_MTE4,
  PIPE_MTE5,
  PIPE_V2,
  PIPE_FIX,
};
enum event_t : uint8_t {
  EVENT_ID0,
  EVENT_ID1,
  EVENT_ID2,
  EVENT_ID3,
  EVENT_ID4,
  EVENT_ID5,
  EVENT_ID6,
  EVENT_ID7,
};

// The twin runs every instruction to completion in program order, so the flags and barriers
// have nothing to wait for (spec 21 §2: accepted, results unchanged). With the pipeline-hazard
// checker on (TILESIM_CHECK=sync, docs/sync.md) they order the pipes of its model.
inline void set_flag(pipe_t src, pipe_t dst, event_t id,
                     tilesim::sync::Site site = tilesim::sync::Site::here()) {
  if (tilesim::sync::on()) [[unlikely]]
    tilesim::sync::set_flag("set_flag", src, dst, id, site);
}
inline void wait_flag(pipe_t src, pipe_t dst, event_t id,
                      tilesim::sync::Site site = tilesim::sync::Site::here()) {
  if (tilesim::sync::on()) [[unlikely]]
    tilesim::sync::wait_flag("wait_flag", src, dst, id, site);
}
inline void set_flag(pipe_t src, pipe_t dst, int id,
                     tilesim::sync::Site site = tilesim::sync::Site::here()) {
  if (tilesim::sync::on()) [[unlikely]]
    tilesim::sync::set_flag("set_flag", src, dst, id, site);
}
inline void wait_flag(pipe_t src, pipe_t dst, int id,
                      tilesim::sync::Site site = tilesim::sync::Site::here()) {
  if (tilesim::sync::on()) [[unlikely]]
    tilesim::sync::wait_flag("wait_flag", src, dst, id, site);
}
inline void pipe_barrier(pipe_t pipe, tilesim::sync::Site site = tilesim::sync::Site::here()) {
  if (tilesim::sync::on()) [[unlikely]]
    tilesim::sync::barrier("pipe_barrier", pipe, site);
}
