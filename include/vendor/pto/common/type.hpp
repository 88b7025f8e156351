// Vendor include path <pto/common/type.hpp> (spec 60 §3): the whole PTO surface is tilesim/pto.hpp.
#pragma once
#include "tilesim/pto.hpp"
