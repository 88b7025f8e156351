// libFuzzer target: the `tilesim` command line and its value parsers (body_cli_args.hpp).
#include "body_cli_args.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tilesim_fuzz::cli_args_one(data, size);
}
