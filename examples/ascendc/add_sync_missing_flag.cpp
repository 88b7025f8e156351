// The kernel of add_sync.cpp with one flag removed: V_MTE3, which keeps the copy-out of z from
// reading it before the add has written it (what TQue::EnQue -> DeQue of a VECOUT queue does). On
// the CPU the result is still right, so this program passes; with TILESIM_CHECK=sync the launch
// prints the RAW hazard (README.md in this folder) and fails, and so does this program.
#include <cstdio>

#include "add_sync.hpp"

int main() {
  const bool ok = add_sync_ex::run(add_sync_ex::kVMte3);
  std::printf("add_sync_missing_flag: V_MTE3 removed: %s\n",
              ok ? "PASS (the CPU runs in program order; TILESIM_CHECK=sync finds the hazard)"
                 : "FAIL (the sync checker found the missing flag)");
  return ok ? 0 : 1;
}
