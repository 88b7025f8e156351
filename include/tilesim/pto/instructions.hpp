// The PTO instruction table (spec 21 §2, spec 70 item 12): one row per instruction. The C++
// vendor names (tilesim/pto.hpp), the engine's dispatch and dtype rules (src/pto/instr_table.cpp),
// the PTO-AS op names (lower case, "pto.tadd"), the Python functions (tilesim.pto.tadd) and the
// docs' instruction list all come from these rows. Adding TFOO is a row here plus its rules.
//
// X(NAME, KIND, OP, ALG, PIPE, A2A3, A5)
//   KIND  the operand shape (signature and walker), see `enum class Kind` in engine.hpp
//   OP    the spec 15 op of src/ops/op_table.hpp the instruction computes (`none`: data movement)
//   ALG   the vendor's `auto PrecisionType` template parameter (NoAlg: none)
//   PIPE  the pipe the instruction issues on (issue 22, docs/sync.md#pipes): V, M, MTE2; BySrc
//         (TSTORE: MTE3 from Vec/Mat, FIX from Acc) and ByLocs (TMOV/TEXTRACT: by the location
//         pair, pto::sync_pipe in src/pto/instr_table.cpp)
//   A2A3, A5  the dtypes of the instruction's page for that target (of src for compares,
//         reductions and TCVT's source); `cpu` takes their union (spec 21 §5)
#pragma once

#define TILESIM_PTO_BASIC_A2A3 (F16 | F32 | S16 | S32)
#define TILESIM_PTO_ALL_A5 (F16 | BF16 | F32 | S8 | S16 | S32 | S64 | U8 | U16 | U32 | U64)
#define TILESIM_PTO_INT124 (S8 | U8 | S16 | U16 | S32 | U32)

#define TILESIM_PTO_INSTRS(X)                                                                      \
  /* element-wise, tile op tile (docs/pto-instructions.md#element-wise) */                         \
  X(TADD, Binary, add, NoAlg, V, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                          \
  X(TSUB, Binary, sub, NoAlg, V, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                          \
  X(TMUL, Binary, mul, NoAlg, V, TILESIM_PTO_BASIC_A2A3,                                              \
    F16 | BF16 | F32 | S16 | U16 | S32 | U32 | S64 | U64)                                          \
  X(TDIV, Binary, div, DivAlgorithm, V, F16 | F32, F16 | F32 | S16 | U16 | S32 | U32 | S64 | U64)     \
  X(TMAX, Binary, max, NoAlg, V, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                          \
  X(TMIN, Binary, min, NoAlg, V, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                          \
  X(TAND, Binary, band, NoAlg, V, TILESIM_PTO_INT124, TILESIM_PTO_INT124)                             \
  X(TOR, Binary, bor, NoAlg, V, TILESIM_PTO_INT124, TILESIM_PTO_INT124)                               \
  X(TSHL, Binary, shl, NoAlg, V, TILESIM_PTO_INT124, TILESIM_PTO_INT124 | S64 | U64)                  \
  X(TSHR, Binary, shr, NoAlg, V, TILESIM_PTO_INT124, TILESIM_PTO_INT124 | S64 | U64)                  \
  X(TXOR, BinaryTmp, bxor, NoAlg, V, TILESIM_PTO_INT124, TILESIM_PTO_INT124)                          \
  X(TREM, BinaryTmp, rem, RemAlgorithm, V, F32 | S32, F16 | F32 | S16 | U16 | S32 | U32 | S64 | U64)  \
  X(TPRELU, BinaryTmp, mul, NoAlg, V, F16 | F32, F16 | F32)                                          \
  /* element-wise, unary */                                                                        \
  X(TNOT, Unary, bnot, NoAlg, V, TILESIM_PTO_INT124, TILESIM_PTO_INT124)                              \
  X(TABS, Unary, abs, NoAlg, V, F16 | F32, F16 | F32 | S8 | S16 | S32)                                \
  X(TNEG, Unary, neg, NoAlg, V, TILESIM_PTO_BASIC_A2A3, F16 | BF16 | F32 | S16 | U16 | S32 | U32)     \
  X(TRELU, Unary, relu, NoAlg, V, F16 | F32 | S32, F16 | F32 | S32)                                   \
  X(TEXP, Unary, exp, ExpAlgorithm, V, F16 | F32, F16 | F32)                                          \
  X(TLOG, Unary, ln, LogAlgorithm, V, F16 | F32, F16 | F32)                                           \
  X(TSQRT, Unary, sqrt, SqrtAlgorithm, V, F16 | F32, F16 | F32)                                       \
  X(TRSQRT, UnaryRsqrt, rsqrt, RsqrtAlgorithm, V, F16 | F32, F16 | F32)                               \
  X(TRECIP, Unary, recip, RecipAlgorithm, V, F16 | F32 | S16 | S32, F16 | F32 | S16 | S32)            \
  /* tile-scalar (docs/pto-instructions.md#tile-scalar) */                                         \
  X(TADDS, Scalar, add, NoAlg, V, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                         \
  X(TSUBS, Scalar, sub, NoAlg, V, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                         \
  X(TMULS, Scalar, mul, NoAlg, V, TILESIM_PTO_BASIC_A2A3,                                             \
    F16 | BF16 | F32 | S16 | U16 | S32 | U32 | S64 | U64)                                          \
  X(TDIVS, ScalarDiv, div, DivAlgorithm, V, TILESIM_PTO_BASIC_A2A3,                                   \
    F16 | F32 | S16 | U16 | S32 | U32 | S64 | U64)                                                 \
  X(TMAXS, Scalar, max, NoAlg, V, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                         \
  X(TMINS, Scalar, min, NoAlg, V, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                         \
  X(TANDS, Scalar, band, NoAlg, V, TILESIM_PTO_INT124, TILESIM_PTO_INT124)                            \
  X(TORS, Scalar, bor, NoAlg, V, TILESIM_PTO_INT124, TILESIM_PTO_INT124)                              \
  X(TSHLS, Scalar, shl, NoAlg, V, S16 | U16 | S32 | U32, TILESIM_PTO_INT124 | S64 | U64)              \
  X(TSHRS, Scalar, shr, NoAlg, V, S16 | U16 | S32 | U32, TILESIM_PTO_INT124 | S64 | U64)              \
  X(TXORS, ScalarTmp, bxor, NoAlg, V, TILESIM_PTO_INT124, TILESIM_PTO_INT124)                         \
  X(TREMS, ScalarTmp, rem, RemSAlgorithm, V, F32 | S32, F16 | F32 | S16 | U16 | S32 | U32 | S64 | U64) \
  X(TLRELU, LeakyRelu, mul, NoAlg, V, F16 | F32, F16 | F32)                                           \
  X(TAXPY, Axpy, mul, NoAlg, V, F16 | F32, F16 | F32)                                                 \
  X(TEXPANDS, ExpandScalar, copy, NoAlg, V, TILESIM_PTO_INT124 | F16 | BF16 | F32,                    \
    TILESIM_PTO_ALL_A5)                                                                            \
  /* compare and select (docs/pto-instructions.md#compare-and-select) */                           \
  X(TCMP, Compare, eq, NoAlg, V, F16 | F32 | S32, TILESIM_PTO_ALL_A5)                                 \
  X(TCMPS, CompareScalar, eq, NoAlg, V, F16 | F32 | S16 | U16 | S32, TILESIM_PTO_ALL_A5)              \
  X(TSEL, Select, select, NoAlg, V, F16 | BF16 | F32 | S16 | U16 | S32 | U32, TILESIM_PTO_ALL_A5)     \
  X(TSELS, SelectScalar, select, NoAlg, V, F16 | BF16 | F32 | S16 | U16 | S32 | U32,                  \
    F16 | F32 | TILESIM_PTO_INT124 | S64 | U64)                                                    \
  /* reductions (docs/pto-instructions.md#reductions) */                                           \
  X(TROWSUM, RowReduce, add, NoAlg, V, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_BASIC_A2A3 | S64 | U64)    \
  X(TROWMAX, RowReduce, max, NoAlg, V, TILESIM_PTO_BASIC_A2A3,                                        \
    TILESIM_PTO_BASIC_A2A3 | S64 | U64 | S8 | U8)                                                  \
  X(TROWMIN, RowReduce, min, NoAlg, V, TILESIM_PTO_BASIC_A2A3,                                        \
    TILESIM_PTO_BASIC_A2A3 | S64 | U64 | S8 | U8)                                                  \
  X(TCOLSUM, ColReduce, add, NoAlg, V, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                    \
  X(TCOLMAX, ColReduce, max, NoAlg, V, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                    \
  X(TCOLMIN, ColReduce, min, NoAlg, V, TILESIM_PTO_BASIC_A2A3, TILESIM_PTO_ALL_A5)                    \
  X(TROWARGMAX, RowArg, max, NoAlg, V, TILESIM_PTO_BASIC_A2A3, F16 | BF16 | F32 | S16 | U16 | S32 | U32) \
  X(TROWARGMIN, RowArg, min, NoAlg, V, TILESIM_PTO_BASIC_A2A3, F16 | BF16 | F32 | S16 | U16 | S32 | U32) \
  X(TCOLARGMAX, ColArg, max, NoAlg, V, F16 | F32 | U16 | U32, F16 | F32 | TILESIM_PTO_INT124)         \
  X(TCOLARGMIN, ColArg, min, NoAlg, V, F16 | F32 | U16 | U32, F16 | F32 | TILESIM_PTO_INT124)         \
  /* expand (docs/pto-instructions.md#expand) */                                                   \
  X(TROWEXPAND, RowExpand, copy, NoAlg, V, TILESIM_PTO_INT124 | F16 | BF16 | F32, TILESIM_PTO_ALL_A5) \
  X(TCOLEXPAND, ColExpand, copy, NoAlg, V, TILESIM_PTO_INT124 | F16 | BF16 | F32, TILESIM_PTO_ALL_A5) \
  X(TCOLEXPANDADD, ColExpandOp, add, NoAlg, V, TILESIM_PTO_BASIC_A2A3,                                \
    TILESIM_PTO_BASIC_A2A3 | U16 | U32 | BF16 | S8 | U8)                                           \
  X(TCOLEXPANDSUB, ColExpandOp, sub, NoAlg, V, TILESIM_PTO_BASIC_A2A3,                                \
    TILESIM_PTO_BASIC_A2A3 | U16 | U32 | BF16 | S8 | U8)                                           \
  X(TCOLEXPANDMUL, ColExpandOp, mul, NoAlg, V, TILESIM_PTO_BASIC_A2A3,                                \
    TILESIM_PTO_BASIC_A2A3 | U16 | U32 | BF16 | S8 | U8)                                           \
  X(TCOLEXPANDDIV, ColExpandOp, div, DivAlgorithm, V, F16 | F32,                                      \
    TILESIM_PTO_BASIC_A2A3 | U16 | U32 | BF16 | S8 | U8)                                           \
  X(TCOLEXPANDMAX, ColExpandOp, max, NoAlg, V, TILESIM_PTO_BASIC_A2A3,                                \
    TILESIM_PTO_BASIC_A2A3 | U16 | U32 | BF16 | S8 | U8)                                           \
  X(TCOLEXPANDMIN, ColExpandOp, min, NoAlg, V, TILESIM_PTO_BASIC_A2A3,                                \
    TILESIM_PTO_BASIC_A2A3 | U16 | U32 | BF16 | S8 | U8)                                           \
  X(TCOLEXPANDEXPDIF, ColExpandOp, exp, NoAlg, V, F16 | F32, F16 | F32)                               \
  /* conversion (docs/pto-instructions.md#tcvt); the pairs are their own table */                  \
  X(TCVT, Convert, copy, NoAlg, V, F16 | BF16 | F32 | S8 | U8 | S16 | S32 | S64,                      \
    F16 | BF16 | F32 | S8 | U8 | S16 | U32 | S32 | S64)                                            \
  /* memory and movement (docs/pto-kernels.md#memory); dtypes of the tile operand */                \
  X(TLOAD, Load, copy, NoAlg, MTE2, TILESIM_PTO_ALL_A5, TILESIM_PTO_ALL_A5)                              \
  X(TSTORE, Store, copy, NoAlg, BySrc, TILESIM_PTO_ALL_A5, TILESIM_PTO_ALL_A5)                            \
  X(TPREFETCH, Prefetch, copy, NoAlg, MTE2, TILESIM_PTO_ALL_A5, TILESIM_PTO_ALL_A5)                      \
  X(TMOV, Move, copy, NoAlg, ByLocs, TILESIM_PTO_ALL_A5, TILESIM_PTO_ALL_A5)                               \
  X(TTRANS, Transpose, copy, NoAlg, V, TILESIM_PTO_ALL_A5, TILESIM_PTO_ALL_A5)                        \
  X(TEXTRACT, Extract, copy, NoAlg, ByLocs, TILESIM_PTO_ALL_A5, TILESIM_PTO_ALL_A5)                        \
  X(TRESHAPE, Reshape, copy, NoAlg, V, TILESIM_PTO_ALL_A5, TILESIM_PTO_ALL_A5)                        \
  X(TFILLPAD, FillPad, copy, NoAlg, V, TILESIM_PTO_ALL_A5, TILESIM_PTO_ALL_A5)                        \
  /* matrix (docs/pto-kernels.md#matrix): dtypes of Left; Right and Acc follow the pair table */   \
  X(TMATMUL, Matmul, mul, NoAlg, M, F16 | BF16 | F32 | S8, F16 | BF16 | F32 | S8)                     \
  X(TMATMUL_ACC, MatmulAcc, mul, NoAlg, M, F16 | BF16 | F32 | S8, F16 | BF16 | F32 | S8)             \
  X(TMATMUL_BIAS, MatmulBias, mul, NoAlg, M, F16 | BF16 | F32 | S8, F16 | BF16 | F32 | S8)       \
  /* gather and scatter (docs/pto-instructions.md#gather-and-scatter): dtypes of dst */           \
  X(TGATHER, Gather, copy, NoAlg, V, F16 | BF16 | F32 | S16 | U16 | S32 | U32, TILESIM_PTO_ALL_A5)   \
  X(TSCATTER, Scatter, copy, NoAlg, V, TILESIM_PTO_INT124 | F16 | BF16 | F32, TILESIM_PTO_ALL_A5)
