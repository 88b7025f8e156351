// Vendor include path <pto/common/constants.hpp> (spec 60 §3): the PTO constants kernels use.
#pragma once
#include "tilesim/pto.hpp"
