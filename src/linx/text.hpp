// Text forms of decoded header words (spec 30 §5), shared by the disassembler and fault messages.
#pragma once
#include <optional>
#include <span>
#include <string>

#include "linx/encoding_table.hpp"

namespace tilesim::linx::text {

bool is_commit(enc::Op op);
// The raw form of one word ("B.DIM a1, 10, ->LB2").
std::string raw_line(const enc::Word& w);
// The template form of a whole CUBE, TMA, ACCCVT or TEPL block (commit word first) when it is exactly a template
// expansion (so assembling the text gives the same words), else nullopt.
std::optional<std::string> fold_block(std::span<const enc::Word> block);
// Folded form if foldable, else the raw lines joined with "; ".
std::string block_text(std::span<const enc::Word> block);

}  // namespace tilesim::linx::text
