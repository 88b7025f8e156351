// Vendor include path <pto/common/pto_tile.hpp> (spec 60 §3): the whole PTO surface is tilesim/pto.hpp.
#pragma once
#include "tilesim/pto.hpp"
