// The kernel of add_sync.cpp with one flag removed: V_MTE2, which keeps tile i + 2's copy-in from
// overwriting x and y before tile i's add has read them (what TQue::FreeTensor -> AllocTensor does
// for a queue). On the CPU the result is still right, so this program passes; with
// TILESIM_CHECK=sync the launch prints the two WAR hazards (README.md in this folder) and fails,
// and so does this program.
#include <cstdio>

#include "add_sync.hpp"

int main() {
  const bool ok = add_sync_ex::run(add_sync_ex::kVMte2);
  std::printf("add_sync_broken: V_MTE2 removed: %s\n",
              ok ? "PASS (the CPU runs in program order; TILESIM_CHECK=sync finds the hazard)"
                 : "FAIL (the sync checker found the missing flag)");
  return ok ? 0 : 1;
}
