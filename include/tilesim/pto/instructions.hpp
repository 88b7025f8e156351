// The PTO instruction table (spec 21 §2, spec 70 item 12): one row per instruction. The C++
// vendor names (tilesim/pto.hpp), the engine's dispatch and dtype rules (src/pto/instr_table.cpp),
// the PTO-AS op names (lower case, "pto.tadd"), the Python functions (tilesim.pto.tadd) and the
// docs' instruction list all come from these rows. Adding TFOO is a row here plus its rules.
//
// X(NAME, KIND, OP, ALG, A2A3, A5)
//   KIND  the operand shape (signature and walker), see `enum class Kind` in engine.hpp
//   OP    the spec 15 op of src/ops/op_table.hpp the instruction computes (`none`: data movement)
//   ALG   the vendor's `auto PrecisionType` template parameter (NoAlg: none)
//   A2A3, A5  the dtypes of the instruction's page for that target (of src for compares,
//         reductions and TCVT's source); `cpu` takes their union (spec 21 §5)
#pragma once

#define TILESIM_PTO_BASIC_A2A3 (F16 | F32 | S16 | S32)
#define TILESIM_PTO_ALL_A5 (F16 | BF16 | F32 | S8 | S16 | S32 | S64 | U8 | U16 | U32 | U64)
#define TILESIM_PTO_INT124 (S8 | U8 | S16 | U16 | S32 | U32)

#define TILESIM_PTO_INSTRS(X)                                                                      \
  /* element-wise, tile op tile (docs/pto-instructions.md#element-wise) */                         \
  X(TADD, Binary, add, NoAlg, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                          \
  X(TSUB, Binary, sub, NoAlg, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                          \
  X(TMUL, Binary, mul, NoAlg, TILESIM_PTO_BASIC_A2A3,                                              \
    F16 | BF16 | F32 | S16 | U16 | S32 | U32 | S64 | U64)                                          \
  X(TDIV, Binary, div, DivAlgorithm, F16 | F32, F16 | F32 | S16 | U16 | S32 | U32 | S64 | U64)     \
  X(TMAX, Binary, max, NoAlg, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                          \
  X(TMIN, Binary, min, NoAlg, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                          \
  X(TAND, Binary, band, NoAlg, TILESIM_PTO_INT124, TILESIM_PTO_INT124)                             \
  X(TOR, Binary, bor, NoAlg, TILESIM_PTO_INT124, TILESIM_PTO_INT124)                               \
  X(TSHL, Binary, shl, NoAlg, TILESIM_PTO_INT124, TILESIM_PTO_INT124 | S64 | U64)                  \
  X(TSHR, Binary, shr, NoAlg, TILESIM_PTO_INT124, TILESIM_PTO_INT124 | S64 | U64)                  \
  X(TXOR, BinaryTmp, bxor, NoAlg, TILESIM_PTO_INT124, TILESIM_PTO_INT124)                          \
  X(TREM, BinaryTmp, rem, RemAlgorithm, F32 | S32, F16 | F32 | S16 | U16 | S32 | U32 | S64 | U64)  \
  X(TPRELU, BinaryTmp, mul, NoAlg, F16 | F32, F16 | F32)                                          \
  /* element-wise, unary */                                                                        \
  X(TNOT, Unary, bnot, NoAlg, TILESIM_PTO_INT124, TILESIM_PTO_INT124)                              \
  X(TABS, Unary, abs, NoAlg, F16 | F32, F16 | F32 | S8 | S16 | S32)                                \
  X(TNEG, Unary, neg, NoAlg, TILESIM_PTO_BASIC_A2A3, F16 | BF16 | F32 | S16 | U16 | S32 | U32)     \
  X(TRELU, Unary, relu, NoAlg, F16 | F32 | S32, F16 | F32 | S32)                                   \
  X(TEXP, Unary, exp, ExpAlgorithm, F16 | F32, F16 | F32)                                          \
  X(TLOG, Unary, ln, LogAlgorithm, F16 | F32, F16 | F32)                                           \
  X(TSQRT, Unary, sqrt, SqrtAlgorithm, F16 | F32, F16 | F32)                                       \
  X(TRSQRT, UnaryRsqrt, rsqrt, RsqrtAlgorithm, F16 | F32, F16 | F32)                               \
  X(TRECIP, Unary, recip, RecipAlgorithm, F16 | F32 | S16 | S32, F16 | F32 | S16 | S32)            \
  /* tile-scalar (docs/pto-instructions.md#tile-scalar) */                                         \
  X(TADDS, Scalar, add, NoAlg, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                         \
  X(TSUBS, Scalar, sub, NoAlg, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                         \
  X(TMULS, Scalar, mul, NoAlg, TILESIM_PTO_BASIC_A2A3,                                             \
    F16 | BF16 | F32 | S16 | U16 | S32 | U32 | S64 | U64)                                          \
  X(TDIVS, ScalarDiv, div, DivAlgorithm, TILESIM_PTO_BASIC_A2A3,                                   \
    F16 | F32 | S16 | U16 | S32 | U32 | S64 | U64)                                                 \
  X(TMAXS, Scalar, max, NoAlg, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                         \
  X(TMINS, Scalar, min, NoAlg, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                         \
  X(TANDS, Scalar, band, NoAlg, TILESIM_PTO_INT124, TILESIM_PTO_INT124)                            \
  X(TORS, Scalar, bor, NoAlg, TILESIM_PTO_INT124, TILESIM_PTO_INT124)                              \
  X(TSHLS, Scalar, shl, NoAlg, S16 | U16 | S32 | U32, TILESIM_PTO_INT124 | S64 | U64)              \
  X(TSHRS, Scalar, shr, NoAlg, S16 | U16 | S32 | U32, TILESIM_PTO_INT124 | S64 | U64)              \
  X(TXORS, ScalarTmp, bxor, NoAlg, TILESIM_PTO_INT124, TILESIM_PTO_INT124)                         \
  X(TREMS, ScalarTmp, rem, RemSAlgorithm, F32 | S32, F16 | F32 | S16 | U16 | S32 | U32 | S64 | U64) \
  X(TLRELU, LeakyRelu, mul, NoAlg, F16 | F32, F16 | F32)                                           \
  X(TAXPY, Axpy, mul, NoAlg, F16 | F32, F16 | F32)                                                 \
  X(TEXPANDS, ExpandScalar, copy, NoAlg, TILESIM_PTO_INT124 | F16 | BF16 | F32,                    \
    TILESIM_PTO_ALL_A5)                                                                            \
  /* compare and select (docs/pto-instructions.md#compare-and-select) */                           \
  X(TCMP, Compare, eq, NoAlg, F16 | F32 | S32, TILESIM_PTO_ALL_A5)                                 \
  X(TCMPS, CompareScalar, eq, NoAlg, F16 | F32 | S16 | U16 | S32, TILESIM_PTO_ALL_A5)              \
  X(TSEL, Select, select, NoAlg, F16 | BF16 | F32 | S16 | U16 | S32 | U32, TILESIM_PTO_ALL_A5)     \
  X(TSELS, SelectScalar, select, NoAlg, F16 | BF16 | F32 | S16 | U16 | S32 | U32,                  \
    F16 | F32 | TILESIM_PTO_INT124 | S64 | U64)                                                    \
  /* reductions (docs/pto-instructions.md#reductions) */                                           \
  X(TROWSUM, RowReduce, add, NoAlg, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_BASIC_A2A3 | S64 | U64)    \
  X(TROWMAX, RowReduce, max, NoAlg, TILESIM_PTO_BASIC_A2A3,                                        \
    TILESIM_PTO_BASIC_A2A3 | S64 | U64 | S8 | U8)                                                  \
  X(TROWMIN, RowReduce, min, NoAlg, TILESIM_PTO_BASIC_A2A3,                                        \
    TILESIM_PTO_BASIC_A2A3 | S64 | U64 | S8 | U8)                                                  \
  X(TCOLSUM, ColReduce, add, NoAlg, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                    \
  X(TCOLMAX, ColReduce, max, NoAlg, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                    \
  X(TCOLMIN, ColReduce, min, NoAlg, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                    \
  X(TROWARGMAX, RowArg, max, NoAlg, TILESIM_PTO_BASIC_A2A3, F16 | BF16 | F32 | S16 | U16 | S32 | U32) \
  X(TROWARGMIN, RowArg, min, NoAlg, TILESIM_PTO_BASIC_A2A3, F16 | BF16 | F32 | S16 | U16 | S32 | U32) \
  X(TCOLARGMAX, ColArg, max, NoAlg, F16 | F32 | U16 | U32, F16 | F32 | TILESIM_PTO_INT124)         \
  X(TCOLARGMIN, ColArg, min, NoAlg, F16 | F32 | U16 | U32, F16 | F32 | TILESIM_PTO_INT124)         \
  /* expand (docs/pto-instructions.md#expand) */                                                   \
  X(TROWEXPAND, RowExpand, copy, NoAlg, TILESIM_PTO_INT124 | F16 | BF16 | F32, TILESIM_PTO_ALL_A5) \
  X(TCOLEXPAND, ColExpand, copy, NoAlg, TILESIM_PTO_INT124 | F16 | BF16 | F32, TILESIM_PTO_ALL_A5) \
  X(TCOLEXPANDADD, ColExpandOp, add, NoAlg, TILESIM_PTO_BASIC_A2A3,                                \
    TILESIM_PTO_BASIC_A2A3 | U16 | U32 | BF16 | S8 | U8)                                           \
  X(TCOLEXPANDSUB, ColExpandOp, sub, NoAlg, TILESIM_PTO_BASIC_A2A3,                                \
    TILESIM_PTO_BASIC_A2A3 | U16 | U32 | BF16 | S8 | U8)                                           \
  X(TCOLEXPANDMUL, ColExpandOp, mul, NoAlg, TILESIM_PTO_BASIC_A2A3,                                \
    TILESIM_PTO_BASIC_A2A3 | U16 | U32 | BF16 | S8 | U8)                                           \
  X(TCOLEXPANDDIV, ColExpandOp, div, DivAlgorithm, F16 | F32,                                      \
    TILESIM_PTO_BASIC_A2A3 | U16 | U32 | BF16 | S8 | U8)                                           \
  X(TCOLEXPANDMAX, ColExpandOp, max, NoAlg, TILESIM_PTO_BASIC_A2A3,                                \
    TILESIM_PTO_BASIC_A2A3 | U16 | U32 | BF16 | S8 | U8)                                           \
  X(TCOLEXPANDMIN, ColExpandOp, min, NoAlg, TILESIM_PTO_BASIC_A2A3,                                \
    TILESIM_PTO_BASIC_A2A3 | U16 | U32 | BF16 | S8 | U8)                                           \
  X(TCOLEXPANDEXPDIF, ColExpandOp, exp, NoAlg, F16 | F32, F16 | F32)                               \
  /* conversion (docs/pto-instructions.md#tcvt); the pairs are their own table */                  \
  X(TCVT, Convert, copy, NoAlg, F16 | BF16 | F32 | S8 | U8 | S16 | S32 | S64,                      \
    F16 | BF16 | F32 | S8 | U8 | S16 | U32 | S32 | S64)                                            \
  /* memory and movement (docs/pto-kernels.md#memory); dtypes of the tile operand */                \
  X(TLOAD, Load, copy, NoAlg, TILESIM_PTO_ALL_A5, TILESIM_PTO_ALL_A5)                              \
  X(TSTORE, Store, copy, NoAlg, TILESIM_PTO_ALL_A5, TILESIM_PTO_ALL_A5)                            \
  X(TPREFETCH, Prefetch, copy, NoAlg, TILESIM_PTO_ALL_A5, TILESIM_PTO_ALL_A5)                      \
  X(TMOV, Move, copy, NoAlg, TILESIM_PTO_ALL_A5, TILESIM_PTO_ALL_A5)                               \
  X(TTRANS, Transpose, copy, NoAlg, TILESIM_PTO_ALL_A5, TILESIM_PTO_ALL_A5)                        \
  X(TEXTRACT, Extract, copy, NoAlg, TILESIM_PTO_ALL_A5, TILESIM_PTO_ALL_A5)                        \
  X(TRESHAPE, Reshape, copy, NoAlg, TILESIM_PTO_ALL_A5, TILESIM_PTO_ALL_A5)                        \
  X(TFILLPAD, FillPad, copy, NoAlg, TILESIM_PTO_ALL_A5, TILESIM_PTO_ALL_A5)                        \
  /* matrix (docs/pto-kernels.md#matrix): dtypes of Left; Right and Acc follow the pair table */   \
  X(TMATMUL, Matmul, mul, NoAlg, F16 | BF16 | F32 | S8, F16 | BF16 | F32 | S8)                     \
  X(TMATMUL_ACC, MatmulAcc, mul, NoAlg, F16 | BF16 | F32 | S8, F16 | BF16 | F32 | S8)             \
  X(TMATMUL_BIAS, MatmulBias, mul, NoAlg, F16 | BF16 | F32 | S8, F16 | BF16 | F32 | S8)
