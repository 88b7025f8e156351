// The double-buffered add of add_sync.hpp with every flag in place: with the pipeline-hazard
// checker on (TILESIM_CHECK=sync) it reports nothing. Prints PASS or FAIL; exits non-zero on FAIL.
#include <cstdio>

#include "add_sync.hpp"

int main() {
  const bool ok = add_sync_ex::run(add_sync_ex::kNone);
  std::printf("add_sync: %d blocks x %d tiles, double-buffered, synchronised by SetFlag/WaitFlag: %s\n",
              add_sync_ex::kBlocks, add_sync_ex::kTiles, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
