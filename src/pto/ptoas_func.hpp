// What the two PTO-AS forms share inside src/pto (not installed): the operand patterns of every
// instruction kind, the carrier of a dtype, and the entry points of the func.func form
// (src/pto/ptoas_func.cpp; docs/pto.md#funcfunc-files).
#pragma once
#include <string_view>
#include <vector>

#include "tilesim/pto/engine.hpp"
#include "tilesim/pto/ptoas.hpp"

namespace tilesim::pto::as::detail {

// The ins(...) operand shapes of an instruction (nullptr = the TROWEXPAND* family), each a string
// of letters in the C++ signature's order after dst: a = src0, b = src1, m = mask, t = tmp,
// s = scalar, g = GlobalTensor view, c = TMATMUL_ACC's cIn, x = bias, i / j = TEXTRACT's
// indexRow / indexCol, q = the preQuantScalar. The .arg form uses only a b m t s.
std::vector<const char*> operand_patterns(const InstrInfo* info);
// "(%src0, %src1) or (%src0, %src1, %tmp)" for messages.
std::string pattern_usage(const std::vector<const char*>& pats);

// The NumPy descr of an element type's spec 60 §2 carrier ("<f4", "<u2" for bf16, ...).
const char* carrier_of(Elem e);

std::vector<Output> run_func(std::string_view text, std::string_view file, const RunOptions& o);
std::vector<Param> func_parameters(std::string_view text, std::string_view file,
                                   std::string_view entry);

}  // namespace tilesim::pto::as::detail
