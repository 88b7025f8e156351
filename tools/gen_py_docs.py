#!/usr/bin/python3
"""Writes python/tilesim/_docstrings.py: the docstring of every public function, class and method
of the tilesim Python package (docs/python.md#docstrings).

Each docstring is: the signature, one paragraph saying what it computes and where the full rules
are, the dtypes it takes, and an example whose output this script gets by running it. Run it after
changing the Python API, from a build:

    PYTHONPATH=build/release/python /usr/bin/python3 tools/gen_py_docs.py

tests/python/test_docstrings.py fails if a public name has no entry, and runs every example as a
doctest, so an example that stops giving its printed output fails the tests.
"""
import contextlib
import importlib
import inspect
import io
import os
import pprint
import re
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "python", "tilesim", "_docstrings.py")

os.environ["TILESIM_GEN_DOCS"] = "1"  # the compiled signatures, not the previous table's text
import tilesim  # noqa: E402
from tilesim import ascendc, formats, linx, pto, tpu  # noqa: E402,F401

FLOATS = "fp16, fp32 (numpy float16, float32)"
D = {}  # qualified name -> (summary, dtypes, example lines)


def doc(name, summary, dtypes, *example):
    D[name] = (summary, dtypes, list(example))


# ----------------------------------------------------------------------------------------- tilesim
doc("tilesim.num_threads", "The number of threads large operations may use: TILESIM_THREADS if set"
    " (a positive integer), else the hardware concurrency (docs/python.md#threads).",
    "n/a (no arrays)", "n = tilesim.num_threads()", "n >= 1")
doc("tilesim.set_num_threads", "Sets the number of threads large operations may use: 1..1024, or 0 for"
    " the default again; anything else is an error. Results are bit-identical for every thread"
    " count (docs/python.md#threads).",
    "n/a (no arrays)", "tilesim.set_num_threads(2)", "tilesim.num_threads()")
doc("tilesim.compare", "Compares got with want element by element: equal bits (bits=True) or"
    " |got - want| <= atol + rtol * |want| with NaN matching NaN; returns a CompareReport with the"
    " mismatch count and the first mismatches (index, both values, both hex codes, ulp distance)."
    " docs/python.md#compare",
    "any NumPy numeric dtype (got and want alike)",
    "r = tilesim.compare(np.float32([1, 2, 3]), np.float32([1, 2, 3.5]))",
    "r.ok, r.mismatches")
doc("tilesim.CompareReport", "What tilesim.compare found: ok, mismatches, total, first (the first"
    " mismatches) and a readable repr. docs/python.md#compare",
    "n/a", "tilesim.compare(np.float16([0.0]), np.float16([-0.0]), bits=True).ok")
doc("tilesim.CompareReport.ok", "True when no element mismatched (docs/python.md#compare).", "n/a",
    "tilesim.compare(np.int32([7]), np.int32([7])).ok")
doc("tilesim.Error", "Every rejection tilesim raises; .code is one of Parse, Constraint, Bounds,"
    " Unsupported, Fault, Io, and the message names the instruction, operand, rule and values and"
    " cites a docs/ section (docs/python.md#errors).", "n/a",
    "try:\n    tilesim.formats.decode([1], 'fp7')\nexcept tilesim.Error as e:\n    print(e.code)")

# ----------------------------------------------------------------------------------------- formats
doc("tilesim.formats.names", "The canonical dtype names (docs/formats.md#dtype-names).", "n/a",
    "tilesim.formats.names()[:4]")
doc("tilesim.formats.decode", "Decodes codes of format fmt to values: float32 (float64 for fp64),"
    " same shape; 4-bit formats one code per element (docs/formats.md#python).",
    "fmt: any format of formats.names() or a NumPy dtype; codes: unsigned integers",
    "tilesim.formats.decode(np.uint8([0x38, 0x7e, 0x80]), 'e4m3')")
doc("tilesim.formats.encode", "Encodes values in format fmt with rounding (rne rna rtz rdn rup rhu rhd"
    " rto) and saturate; returns codes in the smallest unsigned dtype that holds them"
    " (docs/formats.md#python).",
    "fmt: any format of formats.names() or a NumPy dtype; values: any real NumPy dtype",
    "tilesim.formats.encode([1.0, 0.1, 1e9], 'e4m3', saturate=True)",
    "tilesim.formats.encode([1.0], np.float16)")
doc("tilesim.formats.pack_x2", "Packs 4-bit codes two per byte, low nibble first; 2-D input packs each"
    " row, padded to whole bytes (docs/formats.md#python).", "uint8 codes (4-bit formats)",
    "tilesim.formats.pack_x2(np.uint8([1, 2, 3, 4]))")
doc("tilesim.formats.unpack_x2", "Unpacks bytes holding two 4-bit codes into one code per element"
    " (count_or_shape: an element count or a 2-D shape) (docs/formats.md#python).", "uint8",
    "tilesim.formats.unpack_x2(np.uint8([0x21, 0x43]), 4)")

# -------------------------------------------------------------------------------------------- pto
PTO_DT = {}
for _name, _kind, _tmp in pto._impl._instructions():
    PTO_DT[_name.lower()] = _kind
H = "a = tilesim.pto.Tile(np.arange(32, dtype=np.float16).reshape(2, 16))"
HB = "b = tilesim.pto.Tile(np.full((2, 16), 2, np.float16))"
HI = "i = tilesim.pto.Tile(np.arange(32, dtype=np.int16).reshape(2, 16))"
HJ = "j = tilesim.pto.Tile(np.full((2, 16), 3, np.int16))"
PTO_OPS = {
    "tadd": "src0 + src1", "tsub": "src0 - src1", "tmul": "src0 * src1", "tdiv": "src0 / src1",
    "tmax": "max(src0, src1)", "tmin": "min(src0, src1)", "tand": "src0 & src1",
    "tor": "src0 | src1", "txor": "src0 ^ src1", "tshl": "src0 << src1", "tshr": "src0 >> src1",
    "trem": "the remainder of src0 / src1 (sign of src0)",
    "tprelu": "src0 > 0 ? src0 : src0 * src1 (src1: a slope per element)",
    "tabs": "|src|", "tneg": "-src", "tnot": "~src", "texp": "exp(src)", "tlog": "ln(src)",
    "tsqrt": "sqrt(src)", "trsqrt": "1 / sqrt(src)", "trecip": "1 / src", "trelu": "max(src, 0)",
    "tadds": "src + scalar", "tsubs": "src - scalar", "tmuls": "src * scalar",
    "tdivs": "src / scalar (or scalar / src when called as (scalar, src))",
    "tmaxs": "max(src, scalar)", "tmins": "min(src, scalar)", "tands": "src & scalar",
    "tors": "src | scalar", "txors": "src ^ scalar", "tshls": "src << scalar",
    "tshrs": "src >> scalar", "trems": "the remainder of src / scalar",
    "tlrelu": "src > 0 ? src : src * slope", "taxpy": "scalar * src + dst",
}
INT_OPS = {"tand", "tor", "txor", "tshl", "tshr", "tnot", "tands", "tors", "txors", "tshls", "tshrs"}


def pto_dtypes(name):
    """The dtypes of an instruction per target, from the engine's instruction table."""
    sets = pto._impl._dtypes(name.upper())
    return "; ".join("%s: %s" % (t, " ".join(d)) for t, d in sets) + " (docs/pto-instructions.md#dtypes)"


for name, kind in PTO_DT.items():
    ref = ("docs/pto-instructions.md#tile-scalar" if kind in ("Scalar", "ScalarTmp", "Axpy", "ScalarDiv", "LeakyRelu")
           else "docs/pto-instructions.md#element-wise")
    is_int = name in INT_OPS
    t0, t1 = ("i", "j") if is_int else ("a", "b")
    setup = [HI, HJ] if is_int else [H, HB]
    if name in ("trem", "trems"):  # fp32 and s32 only
        setup = [H.replace("float16", "float32"), HB.replace("float16", "float32")]
    if kind in ("Binary", "BinaryTmp"):
        doc("tilesim.pto." + name, "%s: dst = %s element by element over dst's valid region. dst=None:"
            " a new row-major tile shaped like src0 (valid = src0's valid shape); returns dst. %s"
            % (name.upper(), PTO_OPS[name], ref), pto_dtypes(name),
            *setup, "tilesim.pto.%s(%s, %s).data[0, :6]" % (name, t0, t1))
    elif kind in ("Unary", "UnaryRsqrt"):
        src = "i" if is_int else ("b" if name in ("tlog", "tsqrt", "trsqrt", "trecip") else "a")
        doc("tilesim.pto." + name, "%s: dst = %s element by element. dst=None: a new row-major tile"
            " shaped like src; returns dst. %s" % (name.upper(), PTO_OPS[name], ref), pto_dtypes(name),
            *([HI] if is_int else [H, HB]), "tilesim.pto.%s(%s).data[0, :6]" % (name, src))
    elif kind in ("Scalar", "ScalarTmp", "Axpy", "ScalarDiv", "LeakyRelu"):
        what = PTO_OPS.get(name, "src OP scalar")
        doc("tilesim.pto." + name, "%s: dst = %s; the scalar is a Python/NumPy number read in src's"
            " dtype. dst=None: a new row-major tile shaped like src; returns dst. %s"
            % (name.upper(), what, ref), pto_dtypes(name),
            *setup[:1], "tilesim.pto.%s(%s, %s).data[0, :6]" % (name, t0, "3" if is_int else "0.5"))
D_PTO_EXTRA = [
    ("tcmp", "TCMP: the packed predicate mask of src0 CMP src1 (cmp one of 'eq' 'ne' 'lt' 'le' 'gt'"
     " 'ge'), one bit per element. dst=None: a new u8 tile (u32 on a5). docs/pto-instructions.md#compare-and-select",
     [H, HB, "tilesim.pto.tcmp(a, b, 'lt').data[0, :4]"]),
    ("tcmps", "TCMPS: the packed predicate mask of src CMP scalar, one bit per element. dst=None: a new"
     " u8 tile (u32 on a5). docs/pto-instructions.md#compare-and-select", [H, "tilesim.pto.tcmps(a, 4.0, 'lt').data[0, :4]"]),
    ("tsel", "TSEL: dst = mask bit ? src0 : src1 with mask a TCMP result. docs/pto-instructions.md#compare-and-select",
     [H, HB, "m = tilesim.pto.tcmp(a, b, 'lt')", "tilesim.pto.tsel(m, a, b).data[0, :6]"]),
    ("tsels", "TSELS: dst = mask bit ? src : scalar with mask a TCMP result."
     " docs/pto-instructions.md#compare-and-select", [H, HB, "m = tilesim.pto.tcmp(a, b, 'lt')",
                                         "tilesim.pto.tsels(m, a, 9.0).data[0, :6]"]),
    ("trowsum", "TROWSUM: dst[i][0] = the sum over row i's valid columns (pairwise tree as the"
     " hardware adds). dst=None: (R, 1) col_major; tmp given: the tmp form (same results)."
     " docs/pto-instructions.md#reductions", [H, "tilesim.pto.trowsum(a).data[:, 0]"]),
    ("trowmax", "TROWMAX: dst[i][0] = the maximum of row i. dst=None: (R, 1) col_major."
     " docs/pto-instructions.md#reductions", [H, "tilesim.pto.trowmax(a).data[:, 0]"]),
    ("trowmin", "TROWMIN: dst[i][0] = the minimum of row i. dst=None: (R, 1) col_major."
     " docs/pto-instructions.md#reductions", [H, "tilesim.pto.trowmin(a).data[:, 0]"]),
    ("tcolsum", "TCOLSUM: dst[0][j] = the sum over column j's valid rows. dst=None: (1, C) row_major;"
     " tmp given: the (dst, src, tmp) form. docs/pto-instructions.md#reductions",
     [H, "tilesim.pto.tcolsum(a).data[0, :4]"]),
    ("tcolmax", "TCOLMAX: dst[0][j] = the maximum of column j. dst=None: (1, C) row_major."
     " docs/pto-instructions.md#reductions", [H, "tilesim.pto.tcolmax(a).data[0, :4]"]),
    ("tcolmin", "TCOLMIN: dst[0][j] = the minimum of column j. dst=None: (1, C) row_major."
     " docs/pto-instructions.md#reductions", [H, "tilesim.pto.tcolmin(a).data[0, :4]"]),
    ("trowargmax", "TROWARGMAX: the int32 index of each row's maximum (first on ties); dst_val given:"
     " also the values. dst=None: (R, 1) col_major. docs/pto-instructions.md#arg-reductions",
     [H, "tilesim.pto.trowargmax(a).data[:, 0]"]),
    ("trowargmin", "TROWARGMIN: the int32 index of each row's minimum; dst_val given: also the values."
     " dst=None: (R, 1) col_major. docs/pto-instructions.md#arg-reductions",
     [H, "tilesim.pto.trowargmin(a).data[:, 0]"]),
    ("tcolargmax", "TCOLARGMAX: the int32 index of each column's maximum; dst_val given: also the"
     " values. dst=None: (1, C) row_major. docs/pto-instructions.md#arg-reductions",
     [H, "tilesim.pto.tcolargmax(a).data[0, :4]"]),
    ("tcolargmin", "TCOLARGMIN: the int32 index of each column's minimum; dst_val given: also the"
     " values. dst=None: (1, C) row_major. docs/pto-instructions.md#arg-reductions",
     [H, "tilesim.pto.tcolargmin(a).data[0, :4]"]),
    ("trowexpand", "TROWEXPAND: dst[i][j] = src[i][0]. dst=None: src's rows x cols, valid (src's valid"
     " rows, cols). docs/pto-instructions.md#expand",
     ["s = tilesim.pto.Tile(np.arange(1, 9, dtype=np.float32).reshape(8, 1), layout='col_major')",
      "tilesim.pto.trowexpand(s, 8).data[:3, :3]"]),
    ("tcolexpand", "TCOLEXPAND: dst[i][j] = src[0][j]. dst=None: rows x src's columns, valid (rows,"
     " src's valid columns). docs/pto-instructions.md#expand",
     ["s = tilesim.pto.Tile(np.arange(8, dtype=np.float32).reshape(1, 8))",
      "tilesim.pto.tcolexpand(s, 2).data[:, :3]"]),
    ("texpands", "TEXPANDS: a new tile of shape and dtype with every valid element the scalar (read"
     " as for tadds). docs/pto-instructions.md#expand",
     ["tilesim.pto.texpands(1.5, (2, 16), np.float16).data[0, :4]"]),
    ("tcvt", "TCVT: src converted to dtype with rmode 'none' 'rint' 'round' 'floor' 'ceil' 'trunc'"
     " 'odd' (or CAST_* names) and saturation None (the target's default) / True / False."
     " dst=None: src's rows, the fewest aligned columns, valid = src's."
     " docs/pto-instructions.md#tcvt",
     ["f = tilesim.pto.Tile(np.float32([[0.5, 1.5, 2.5, -2.5, 70000.0, 3.7, 0, 0]]))",
      "tilesim.pto.tcvt(f, np.float16).data[0, :6]",
      "tilesim.pto.tcvt(f, 's32', rmode='floor').data[0, :6]"]),
]
for _n, _s, _ex in D_PTO_EXTRA:
    doc("tilesim.pto." + _n, _s, pto_dtypes(_n), *_ex)
GATHER_REF = "docs/pto-instructions.md#gather-and-scatter"
doc("tilesim.pto.tgather", "TGATHER: with indices, dst(i, j) = src's element at row-major index"
    " indices(i, j); with mask_pattern ('P0101' ... 'P1111'), axis 'row' packs the selected columns"
    " of every row into a continuous dst, 'col' keeps the selected rows. An index outside src is an"
    " error. dst=None: indices' valid shape (index form), else the selected shape; tmp=None on a2a3:"
    " a scratch tmp. " + GATHER_REF,
    "a2a3: fp16 bf16 fp32 s16 s32 u16 u32; a5: fp16 bf16 fp32 s8 s16 s32 u8 u16 u32 s64 u64; indices"
    " s16 u16 s32 u32 (a2a3: s32 u32) (" + GATHER_REF + ")",
    "src = tilesim.pto.Tile(np.arange(32, dtype=np.float32).reshape(2, 16))",
    "idx = tilesim.pto.Tile(np.arange(15, -1, -1, dtype=np.int32).reshape(2, 8))",
    "tilesim.pto.tgather(src, idx).data[0, :4]",
    "tilesim.pto.tgather(src, mask_pattern='P0101').data[:, :4]")
doc("tilesim.pto.tscatter", "TSCATTER: dst is zeroed, then with indexes dst's element at row-major"
    " index indexes(i, j) = src(i, j) (a later element wins); with mask_pattern, src spread over dst"
    " with zeros between ('row' widens columns, 'col' rows; 'P1111' is TMOV). An index outside dst"
    " is an error. dst=None: src's shape (index form), else the expanded shape. " + GATHER_REF,
    "a2a3: fp16 bf16 fp32 s8 s16 s32 u8 u16 u32; a5: also s64 u64; indexes s16 u16 s32 u32 ("
    + GATHER_REF + ")",
    "src = tilesim.pto.Tile(np.arange(1, 9, dtype=np.int32).reshape(1, 8))",
    "tilesim.pto.tscatter(src, mask_pattern='P1010').data[0, :6]")
for _op, _w in (("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/"), ("max", "max"),
                ("min", "min"), ("expdif", "exp(src0 - src1)")):
    _row = "v = tilesim.pto.Tile(np.arange(1, 9, dtype=np.float32).reshape(8, 1), layout='col_major')"
    _mat = "m = tilesim.pto.Tile(np.full((8, 8), 4, np.float32))"
    doc("tilesim.pto.trowexpand" + _op, "TROWEXPAND%s: dst[i][j] = src0[i][j] %s src1[i][0] (one operand"
        " a column broadcast along each row; operand order kept). tmp given: the tmp form."
        " docs/pto-instructions.md#expand" % (_op.upper(), _w), pto_dtypes("trowexpand" + _op),
        _row, _mat, "tilesim.pto.trowexpand%s(m, v).data[:3, :3]" % _op)
    doc("tilesim.pto.tcolexpand" + _op, "TCOLEXPAND%s: the column twin of TROWEXPAND%s: one operand a"
        " row (validRow 1) broadcast down each column. docs/pto-instructions.md#expand"
        % (_op.upper(), _op.upper()), pto_dtypes("tcolexpand" + _op),
        "v = tilesim.pto.Tile(np.arange(8, dtype=np.float32).reshape(1, 8))", _mat,
        "tilesim.pto.tcolexpand%s(m, v).data[:2, :3]" % _op)
doc("tilesim.pto.tmatmul", "TMATMUL: a (M, K) @ b (K, N) on the cube GEMM core with the hardware's"
    " accumulation order; acc given: TMATMUL_ACC (continues from acc); bias given (N values):"
    " TMATMUL_BIAS. Returns (M, N) float32 (int32 for int8 operands). docs/pto-kernels.md#matrix",
    "a, b: float16, float32, int8 arrays or Tiles of fp16 bf16 fp32 s8",
    "c = tilesim.pto.tmatmul(np.ones((16, 32), np.float16), np.ones((32, 8), np.float16))",
    "c.shape, c[0, 0]")
doc("tilesim.pto.run", "Runs PTO-AS source text: binds inputs (name -> array) to the program's"
    " parameters, runs it, returns its outputs by name. Every parameter must be bound; max_mem caps"
    " the total allocation (default 1 GiB); trace= writes one JSON line per instruction;"
    " check='sync' raises tilesim.Error listing every missing set_flag/wait_flag the pipeline-hazard"
    " checker finds, sync_timeline= writes the run as a Chrome trace (docs/sync.md)."
    " docs/pto.md#python", "every PTO dtype, from the program's declarations",
    "src = '.arg %x : !pto.tile<2x16xf32>\\n%y = pto.tadds %x, 1.5 : !pto.tile<2x16xf32>, f32 -> !pto.tile<2x16xf32>\\n'",
    "out = tilesim.pto.run(src, {'x': np.zeros((2, 16), np.float32)})",
    "sorted(out), out['y'][0, :3]")
doc("tilesim.pto.Tile", "A tile owning its storage: data (2-D, copied), layout 'row_major' or"
    " 'col_major' (None: row_major), valid (rows, cols) region (None: all), dtype (None: from the"
    " array; bf16 needs dtype='bf16' with uint16 codes). Alignment is checked here."
    " docs/pto.md#python", "fp16 fp32 bf16 s8 s16 s32 u8 u16 u32 (and more per target)",
    "t = tilesim.pto.Tile(np.zeros((4, 16), np.float16), valid=(3, 10))", "t")
for _p, _s, _ex in (("data", "A NumPy view of the storage in logical (row, col) coordinates.",
                     "t.data.shape"),
                    ("valid", "The valid region (rows, cols); assignable.", "t.valid"),
                    ("layout", "'row_major' or 'col_major'.", "t.layout"),
                    ("dtype", "The tile's dtype name (spec names, e.g. 'fp16').", "t.dtype"),
                    ("shape", "The storage shape (rows, cols).", "t.shape")):
    doc("tilesim.pto.Tile." + _p, _s + " docs/pto.md#python", "n/a",
        "t = tilesim.pto.Tile(np.zeros((4, 16), np.float16), valid=(3, 10))", _ex)

# ------------------------------------------------------------------------------------------- linx
MACH = "m = tilesim.linx.Machine(mem_bytes=4096)"
doc("tilesim.linx.assemble", "Assembles LinxISA text (one block per line; template form or BSTART"
    " blocks) into 32-bit words; errors name line:column (docs/linx.md#assembly).",
    "in the text: FP32 FP16 BF16 E4M3 E5M2 S8 S4 ... (docs/linx.md#data-types)",
    "words = tilesim.linx.assemble('TMATMUL <M:2, N:2, K:2, FP32>, T#1, U#1, ->ACC<1KB>')",
    "[hex(w) for w in words][:3]")
doc("tilesim.linx.disassemble", "Words back to text, one instruction per line; fold=True prints whole"
    " blocks in template form. An invalid word prints as '.word 0x... # invalid: reason' and"
    " disassembly goes on (docs/linx.md#disassembler).", "n/a (words)",
    "print(tilesim.linx.disassemble(tilesim.linx.assemble('B.DATR E5M2')), end='')")
doc("tilesim.linx.pack", "The bytes of a 2-D matrix in tile layout 'nz', 'zn' or 'nd' (4-bit formats"
    " packed two per byte), as TLOAD would place them (docs/linx.md#tile-layouts).",
    "fp32 fp16 bf16 (uint16 codes) e4m3 e5m2 (uint8 codes) s8 u8 s4 u4 ... or a NumPy dtype",
    "raw = tilesim.linx.pack(np.arange(4, dtype=np.float16).reshape(2, 2), np.float16, 'nd')",
    "raw.view(np.float16)")
doc("tilesim.linx.unpack", "The inverse of pack: a (rows, cols) matrix from tile-layout bytes"
    " (docs/linx.md#tile-layouts).", "as pack",
    "raw = tilesim.linx.pack(np.eye(2, dtype=np.float32), 'fp32', 'nz')",
    "tilesim.linx.unpack(raw, (2, 2), 'fp32', 'nz')")
doc("tilesim.linx.Machine", "A LinxISA machine: tile queues, ACC, registers and (mem_bytes > 0) a"
    " flat memory for TLOAD/TSTORE; profile selects the ISA version (docs/linx.md#machine).",
    "n/a", MACH, "m.mem_bytes")
doc("tilesim.linx.Machine.mem_bytes", "The size of the machine's memory in bytes (docs/linx.md#memory).",
    "n/a", MACH, "m.mem_bytes")
doc("tilesim.linx.Machine.write_mem", "Writes bytes (bytes, bytearray or an array's raw bytes) to"
    " memory at addr; out of range is a Bounds error, nothing written (docs/linx.md#memory).",
    "any array (its raw bytes)", MACH, "m.write_mem(0, np.float32([1.5, 2.5]))", "m.read_mem(0, 4)")
doc("tilesim.linx.Machine.read_mem", "nbytes bytes of memory from addr (docs/linx.md#memory).", "n/a",
    MACH, "m.write_mem(16, b'ab')", "m.read_mem(16, 2)")
doc("tilesim.linx.Machine.read_array", "A (rows, cols) matrix of dtype read from memory at addr in"
    " tile layout (default 'nd') (docs/linx.md#memory).", "as tilesim.linx.pack", MACH,
    "m.write_mem(0, np.float32([1, 2, 3, 4]))", "m.read_array(0, (2, 2), 'fp32')")
doc("tilesim.linx.Machine.set_reg", "Sets a scalar register (a0..a7 or R0..R31, 64-bit two's"
    " complement) that block operands such as LB1:a0 read (docs/linx.md#machine).", "n/a", MACH,
    "m.set_reg('a0', 24)")
doc("tilesim.linx.Machine.push_tile", "Pushes a matrix onto tile queue 'T', 'U', 'M' or 'N' in dtype"
    " and layout (as a TLOAD would), ready for the next CUBE block (docs/linx.md#machine).",
    "as tilesim.linx.pack", MACH, "m.push_tile('T', np.ones((2, 2), np.float32), dtype='fp32')",
    "m.tiles()['T']")
doc("tilesim.linx.Machine.push_raw", "Pushes raw tile bytes (size: the tile size in bytes, default"
    " their length) onto a tile queue (docs/linx.md#machine).", "n/a (bytes)", MACH,
    "m.push_raw('U', bytes(1024), 1024)", "m.tiles()['U']")
doc("tilesim.linx.Machine.run", "Runs a program (text or words) block by block; a fault raises"
    " tilesim.linx.Fault with kind, word_index and block_text and leaves state as before the"
    " faulting block. trace= writes one JSON line per block (docs/linx.md#machine).",
    "per block (docs/linx.md#data-types)", MACH,
    "m.push_tile('T', np.eye(2, dtype=np.float32), dtype='fp32', layout='nz')",
    "m.push_tile('U', np.float32([[1, 2], [3, 4]]), dtype='fp32', layout='zn')",
    "m.run('TMATMUL <M:2, N:2, K:2, FP32>, T#1, U#1, ->ACC<1KB>')", "m.acc()")
RUN2 = [MACH, "m.push_tile('T', np.eye(2, dtype=np.float32), dtype='fp32', layout='nz')",
        "m.push_tile('U', np.float32([[1, 2], [3, 4]]), dtype='fp32', layout='zn')",
        "m.run('TMATMUL <M:2, N:2, K:2, FP32>, T#1, U#1, ->ACC<1KB>')"]
doc("tilesim.linx.Machine.acc", "The accumulator's current (M, N) matrix (float32 or int32)"
    " (docs/linx.md#machine).", "float32, int32 results", *RUN2, "m.acc().shape")
doc("tilesim.linx.Machine.tiles", "Each queue's tiles, newest first: (index, bytes, released)"
    " (docs/linx.md#machine).", "n/a", MACH, "m.tiles()")
doc("tilesim.linx.Fault", "A LinxISA machine fault: a tilesim.Error with code 'Fault' and kind,"
    " word_index, block_text (docs/linx.md#machine).", "n/a",
    "try:\n    tilesim.linx.Machine().run('TMATMUL <M:2, N:2, K:2, FP32>, T#1, U#1, ->ACC<1KB>')\n"
    "except tilesim.linx.Fault as f:\n    print(f.kind)")

# ---------------------------------------------------------------------------------------- ascendc
ASC = {"Binary": ("a = np.arange(1, 9, dtype=np.float16)", "b = np.full(8, 2, np.float16)", "{f}(a, b, 8)"),
       "Scalar": ("a = np.arange(1, 9, dtype=np.float16)", "{f}(a, 2, 8)"),
       "Unary": ("a = np.arange(1, 9, dtype=np.float16)", "{f}(a, 8)")}
ASC_INT = {"and_", "or_", "not_", "shift_left", "shift_right"}
ASC_WHAT = {
    "add": "dst = a + b", "sub": "dst = a - b", "mul": "dst = a * b", "div": "dst = a / b",
    "max": "dst = max(a, b)", "min": "dst = min(a, b)", "and_": "dst = a & b", "or_": "dst = a | b",
    "add_relu": "dst = relu(a + b)", "sub_relu": "dst = relu(a - b)",
    "mul_add_dst": "dst = a * b + dst (float dst with half a, b: MulAddDst<float, half>)",
    "fused_mul_add": "dst = a * dst + b, one rounding", "adds": "dst = a + s", "muls": "dst = a * s",
    "maxs": "dst = max(a, s)", "mins": "dst = min(a, s)", "shift_left": "dst = a << s",
    "shift_right": "dst = a >> s (arithmetic for signed T; round_en rounds)",
    "leaky_relu": "dst = a >= 0 ? a : a * s", "exp": "dst = exp(a)", "ln": "dst = ln(a)",
    "abs": "dst = |a|", "sqrt": "dst = sqrt(a)", "rsqrt": "dst = 1 / sqrt(a)",
    "reciprocal": "dst = 1 / a", "relu": "dst = max(a, 0)", "not_": "dst = ~a"}
for py_name, (api, dts) in tilesim._tilesim.ascendc._api_table().items():
    kind = ("Unary" if py_name in ("exp", "ln", "abs", "sqrt", "rsqrt", "reciprocal", "relu", "not_")
            else "Scalar" if py_name in ("adds", "muls", "maxs", "mins", "shift_left", "shift_right", "leaky_relu")
            else "Binary")
    ex = [line.format(f="tilesim.ascendc." + py_name) for line in ASC[kind]]
    if py_name in ASC_INT:
        ex = [e.replace("np.float16", "np.int16") for e in ex]
    if kind == "Unary" and py_name in ("ln", "sqrt", "rsqrt", "reciprocal"):
        ex[0] = "a = np.float16([1, 2, 4, 8, 16, 0.25, 0.5, 1])"
    if kind == "Unary" and py_name == "exp":
        ex[0] = "a = np.float16([0, 1, -1, 2, 0.5, -0.5, 10, -10])"
    doc("tilesim.ascendc." + py_name, "Ascend C %s: %s for each selected element. count given: the"
        " count form (first count elements); else mask= (int: the first lanes; [hi, lo] bit words)"
        " and repeat= with params= (dst/src block and repeat strides) as the vendor's repeat form."
        " dst given: written in place and returned, else a new zeroed array. saturation: the"
        " CTRL saturation mode for half results. docs/ascendc.md#vector-apis"
        % (api, ASC_WHAT[py_name]), dts.replace(" ", ", ") + " (numpy float16, float32, int16, ...)", *ex)
for name, summ, dts, ex in [
    ("cast", "Ascend C Cast: src converted to dtype with round_mode CAST_NONE CAST_RINT CAST_FLOOR"
     " CAST_CEIL CAST_ROUND CAST_TRUNC CAST_ODD; count form or mask/repeat form (params: the"
     " UnaryRepeatParams strides); src_dtype names a bit-carried src. docs/ascendc.md#cast",
     "the vendor's Cast pairs of fp32 fp16 bf16 s32 s16 s8 u8 s4 (dtype: name or NumPy dtype)",
     ["tilesim.ascendc.cast(np.float32([0.5, 1.5, 2.5, -2.5, 3.7, 0, 0, 0]), 's32', 'CAST_RINT', 8)",
      "tilesim.ascendc.cast(np.float32([0.1, 1, 2, 3, 4, 5, 6, 7]), np.float16, 'CAST_RINT', 8)"]),
    ("duplicate", "Ascend C Duplicate: dst = value for each selected element (count or mask/repeat"
     " form). dtype: the element type (default fp32). docs/ascendc.md#vector-apis",
     "fp16, fp32, s16, u16, s32, u32", ["tilesim.ascendc.duplicate(1.5, 16, dtype=np.float16)[:4]"]),
    ("compare", "Ascend C Compare: a bit mask, bit i set where a[i] CMP b[i] (cmp_mode LT GT EQ LE GE"
     " NE), as uint8 bytes; the count form takes whole 256-byte repeats. b a number: the Compares"
     " form. docs/ascendc.md#compare-and-select", "fp16, fp32 (s32 for EQ/NE on some products)",
     ["a = np.arange(128, dtype=np.float16)", "m = tilesim.ascendc.compare(a, np.full(128, 3, np.float16), 'LT', 128)",
      "m[:2]"]),
    ("select", "Ascend C Select: dst[i] = sel_mask bit i ? a[i] : b[i]; sel_mode VSEL_CMPMASK_SPR,"
     " VSEL_TENSOR_SCALAR_MODE (b a number) or VSEL_TENSOR_TENSOR_MODE. docs/ascendc.md#compare-and-select",
     "fp16, fp32", ["a = np.arange(128, dtype=np.float16)", "mask = np.zeros(32, np.uint8); mask[0] = 0x0F",
                    "tilesim.ascendc.select(mask, a, np.zeros(128, np.float16), count=128)[:6]"]),
    ("pair_reduce_sum", "Ascend C PairReduceSum: dst[k] = src[2k] + src[2k + 1] within each repeat"
     " (mask and repeat as the vendor's repeat form). docs/ascendc.md#reductions", "fp16, fp32",
     ["tilesim.ascendc.pair_reduce_sum(np.arange(16, dtype=np.float16), mask=16, repeat=1)[:4]"]),
    ("reduce_sum", "Ascend C ReduceSum: the sum of the first count elements (or the mask/repeat"
     " form) in the hardware's order, into dst[0]. docs/ascendc.md#reducesum-reducemax-reducemin",
     "fp16, fp32", ["tilesim.ascendc.reduce_sum(np.arange(16, dtype=np.float32), 16)[0]"]),
    ("reduce_max", "Ascend C ReduceMax: the maximum of the first count elements into dst[0];"
     " cal_index=True also writes its index after it. docs/ascendc.md#reducesum-reducemax-reducemin",
     "fp16, fp32", ["tilesim.ascendc.reduce_max(np.float32([3, 9, 2, 9, 1, 0, 0, 0]), 8, cal_index=True)[:2]"]),
    ("reduce_min", "Ascend C ReduceMin: the minimum of the first count elements into dst[0];"
     " cal_index=True also writes its index. docs/ascendc.md#reducesum-reducemax-reducemin",
     "fp16, fp32", ["tilesim.ascendc.reduce_min(np.float32([3, 9, 2, 9, 1, 5, 6, 7]), 8)[0]"]),
    ("whole_reduce_sum", "Ascend C WholeReduceSum: one sum per repeat of mask lanes (dst[k] for"
     " repeat k). docs/ascendc.md#reductions", "fp16, fp32",
     ["tilesim.ascendc.whole_reduce_sum(np.ones(128, np.float32), mask=64, repeat=2)[:2]"]),
    ("whole_reduce_max", "Ascend C WholeReduceMax: per repeat the maximum and its index"
     " (order: the vendor's ReduceOrder). docs/ascendc.md#reductions", "fp16, fp32",
     ["tilesim.ascendc.whole_reduce_max(np.arange(64, dtype=np.float32), mask=64, repeat=1)[:2]"]),
    ("whole_reduce_min", "Ascend C WholeReduceMin: per repeat the minimum and its index."
     " docs/ascendc.md#reductions", "fp16, fp32",
     ["tilesim.ascendc.whole_reduce_min(np.arange(64, dtype=np.float32), mask=64, repeat=1)[:2]"]),
    ("block_reduce_sum", "Ascend C BlockReduceSum: one sum per 32-byte block of each repeat (8 per"
     " repeat). mask: int (continuous) or [hi, lo] bit words. docs/ascendc.md#reductions", "fp16, fp32",
     ["tilesim.ascendc.block_reduce_sum(np.ones(128, np.float16), 1, 128, 1, 1, 8)"]),
    ("block_reduce_max", "Ascend C BlockReduceMax: the maximum of each 32-byte block of each repeat."
     " docs/ascendc.md#reductions", "fp16, fp32",
     ["tilesim.ascendc.block_reduce_max(np.arange(128, dtype=np.float16), 1, 128, 1, 1, 8)"]),
    ("block_reduce_min", "Ascend C BlockReduceMin: the minimum of each 32-byte block of each repeat."
     " docs/ascendc.md#reductions", "fp16, fp32",
     ["tilesim.ascendc.block_reduce_min(np.arange(128, dtype=np.float16), 1, 128, 1, 1, 8)"]),
    ("brcb", "Ascend C Brcb: each of 8 source elements per repeat broadcast to one 32-byte block"
     " of dst. docs/ascendc.md#brcb", "fp16, fp32, s16, u16, s32, u32",
     ["tilesim.ascendc.brcb(np.arange(8, dtype=np.float32), 1)[:10]"]),
    ("products", "The product names a call's product= accepts (docs/ascendc.md#products).", "n/a",
     ["tilesim.ascendc.products()"]),
]:
    doc("tilesim.ascendc." + name, summ, dts, *ex)

# -------------------------------------------------------------------------------------------- tpu
DEV = "d = tilesim.tpu.Device('bm1684x')"
PUT = ["d.s2l(0, np.float32([[[[1, -2, 3, -4]]]]), 'fp32')", "d.s2l(64, np.float32([[[[4, -2, 2, 1]]]]), 'fp32')"]
PUTI = ["d.s2l(0, np.int32([[[[1, -2, 3, -4]]]]), 's32')", "d.s2l(64, np.int32([[[[4, -2, 2, 1]]]]), 's32')"]
TPU_CANDS = ["fp32", "fp16", "bf16", "s8", "u8", "s16", "u16", "s32", "u32"]


def tpu_dtypes(meth, params):
    """The dtypes a BDC function takes, found by calling it on zeroed operands with each dtype (every
    dtype parameter the same; cast: each (src, dst) pair)."""
    def works(dts):
        d = tpu.Device("bm1684x")
        it = iter(dts)
        args = [next(it) if p.endswith("dtype") else eval(ARGS[p]) for p in params  # noqa: S307
                if not p.endswith("_stride")]
        if "C" in params:
            args[[q for q in params if not q.endswith("_stride")].index("C")] = 0
        try:
            getattr(d, meth)(*args)
            return True
        except tilesim.Error:
            return False
    n = sum(p.endswith("dtype") for p in params)
    if meth == "cast":
        pairs = {}
        for src in TPU_CANDS:
            dsts = [dst for dst in TPU_CANDS if dst != src and works([dst, src])]
            if dsts:
                pairs[src] = dsts
        return "; ".join("%s -> %s" % (k, " ".join(v)) for k, v in pairs.items())
    ok = [dt for dt in TPU_CANDS if works([dt] * n)]
    return " ".join(ok) + (" (every dtype argument the same; docs/tpu.md#bdc-arithmetic)" if n > 1 else
                           " (docs/tpu.md#bdc-arithmetic)")

TPU_WHAT = {
    "fp_add": "dst = src0 + src1", "fp_sub": "dst = src0 - src1", "fp_mul": "dst = src0 * src1",
    "fp_div": "dst = src0 / src1", "fp_add_C": "dst = src + C", "fp_sub_C": "dst = src - C",
    "fp_mul_C": "dst = src * C", "fp_div_C": "dst = src / C", "fp_C_sub": "dst = C - src",
    "fp_C_div": "dst = C / src", "max": "dst = max(src0, src1)", "min": "dst = min(src0, src1)",
    "max_C": "dst = max(src, C)", "min_C": "dst = min(src, C)",
    "int_add": "dst = saturate(round_shift(src0 + src1, shift))",
    "int_sub": "dst = saturate(round_shift(src0 - src1, shift))",
    "int_mul": "dst = saturate(round_shift(src0 * src1, shift))",
    "int_add_C": "dst = saturate(round_shift(src + C, shift))",
    "int_sub_C": "dst = saturate(round_shift(src - C, shift))",
    "int_mul_C": "dst = saturate(round_shift(src * C, shift))",
    "int_C_sub": "dst = saturate(round_shift(C - src, shift))",
    "equal": "dst = src0 == src1 ? true_val : 0", "not_equal": "dst = src0 != src1 ? true_val : 0",
    "greater": "dst = src0 > src1 ? true_val : 0", "less": "dst = src0 < src1 ? true_val : 0",
    "greater_equal": "dst = src0 >= src1 ? true_val : 0", "less_equal": "dst = src0 <= src1 ? true_val : 0",
    "equal_C": "dst = src == C ? true_val : 0", "not_equal_C": "dst = src != C ? true_val : 0",
    "greater_C": "dst = src > C ? true_val : 0", "less_C": "dst = src < C ? true_val : 0",
    "greater_equal_C": "dst = src >= C ? true_val : 0", "less_equal_C": "dst = src <= C ? true_val : 0",
    "and": "dst = src0 & src1", "or": "dst = src0 | src1", "xor": "dst = src0 ^ src1", "not": "dst = ~src",
    "and_C": "dst = src & C", "or_C": "dst = src | C", "xor_C": "dst = src ^ C", "abs": "dst = |src|",
    "neg": "dst = -src", "fp_exp": "dst = exp(src), the vendor's table method (work and coeff areas)",
    "relu": "dst = max(src, 0)", "set_C": "dst = C", "cpy": "dst = src",
    "npu_bcast": "every NPU's dst = NPU 0's src", "cast": "dst = src converted with rounding mode",
}
ARGS = {"dst_addr": "128", "src0_addr": "0", "src1_addr": "64", "src_addr": "0", "C": "2",
        "true_val": "1", "shape": "(1, 1, 1, 4)", "shift": "0", "rounding_mode": "'RM_HALF_TO_EVEN'",
        "saturation": "False", "mode": "'RM_HALF_TO_EVEN'", "work0_addr": "256", "work1_addr": "384",
        "coeff_addr": "512"}
for vendor, params, _c in tpu._impl.bdc_signatures():
    name = vendor[len("tpu_bdc_"):]
    ints = name.startswith("int_") or name in ("and", "or", "xor", "not", "and_C", "or_C", "xor_C")
    dtypes = {p: "'s32'" if ints else "'fp32'" for p in params if p.endswith("dtype")}
    if name == "cast":
        dtypes["dst_dtype"] = "'s32'"
    call = ", ".join(dtypes.get(p) or ARGS[p] for p in params if not p.endswith("_stride"))
    setup = [DEV] + (PUTI if ints else PUT)
    if name == "fp_exp":
        setup = [DEV, "d.s2l(0, np.float32([[[[0, 1, -1, 2]]]]), 'fp32')"]
    meth = name if name not in ("and", "or", "not") else name + "_"
    out_dt = dtypes.get("dst_dtype") or dtypes.get("dtype")
    for alias in (meth,):  # 'and' 'or' 'not' are the same methods as and_ or_ not_
        doc("tilesim.tpu.Device." + alias, "%s: %s over an NCHW shape at local addresses (operands"
            " laid out as the caller placed them; strides None = the compact layout), with every"
            " constraint of the vendor's prototype checked before a byte is written."
            " docs/tpu.md#bdc-arithmetic" % (vendor, TPU_WHAT[name]),
            tpu_dtypes(meth, params),
            *setup, "d.%s(%s)" % (meth, call), "d.l2s(128, (1, 1, 1, 4), %s).ravel()" % out_dt)
SEL = ("x = np.float32([[[[-2, -0.5, 0.5, 2]]]])",)
for nm, op in (("greater", ">"), ("less", "<"), ("equal", "==")):
    doc("tilesim.tpu.%s_select" % nm, "tpu_bdc_%s_select on arrays: dst = src0 %s src1 ? src2 : src3,"
        " each operand an NCHW array (TENSOR), a number (SCALAR) or tilesim.tpu.vector (VECTOR);"
        " returns dst in dst_dtype's carrier. NaN compares as IEEE. docs/tpu.md#select-semantics" % (nm, op),
        "src: fp32 fp16 bf16 s8 u8 s16 u16 s32 u32; dst: the same set (docs/tpu.md#select-semantics)",
        *SEL, "tilesim.tpu.%s_select(x, 0.5, x, 0.0).ravel()" % nm)
    doc("tilesim.tpu.Device.%s_select" % nm, "tpu_bdc_%s_select at local addresses: dst = src0 %s src1"
        " ? src2 : src3 with operands tilesim.tpu.tensor / vector_at / scalar. docs/tpu.md#select-semantics"
        % (nm, op), "as tilesim.tpu.%s_select" % nm, DEV, PUT[0],
        "d.%s_select(128, tilesim.tpu.tensor(0), tilesim.tpu.scalar(0.0), tilesim.tpu.tensor(0),"
        " tilesim.tpu.scalar(0.0), (1, 1, 1, 4), 'fp32', 'fp32')" % nm,
        "d.l2s(128, (1, 1, 1, 4), 'fp32').ravel()")
for nm, op in (("maximum_greater", ">"), ("minimum_less", "<")):
    doc("tilesim.tpu.%s_select" % nm, "tpu_bdc_%s_select on arrays: (dst0, dst1) = src0 %s src1 ?"
        " (src0, src2) : (src1, src3), ties to src1/src3; returns both. docs/tpu.md#select-semantics"
        % (nm, op), "as greater_select (dst0 in src's dtype, dst1 in dst1_dtype)",
        "v, i = tilesim.tpu.%s_select(np.float32([[[[1, 5, 3]]]]), np.float32([[[[4, 2, 3]]]]), np.int32(0), np.int32(1))" % nm,
        "v.ravel(), i.ravel()")
    doc("tilesim.tpu.Device.%s_select" % nm, "tpu_bdc_%s_select at local addresses (two destinations)."
        " docs/tpu.md#select-semantics" % nm, "as tilesim.tpu.%s_select" % nm, DEV, PUT[0], PUT[1],
        "d.%s_select(128, 192, tilesim.tpu.tensor(0), tilesim.tpu.tensor(64), tilesim.tpu.scalar(np.int32(0)),"
        " tilesim.tpu.scalar(np.int32(1)), (1, 1, 1, 4), 'fp32', 's32')" % nm,
        "d.l2s(128, (1, 1, 1, 4), 'fp32').ravel(), d.l2s(192, (1, 1, 1, 4), 's32').ravel()")
doc("tilesim.tpu.vector", "A VECTOR operand of the array-level selects: C values, channel c reads"
    " value c mod NPU_NUM; numbers are encoded in the operand's dtype. docs/tpu.md#python",
    "the operand's dtype", "tilesim.tpu.greater_select(tilesim.tpu.vector([1.0, -1.0]), 0.0,"
    " np.float32(1), np.float32(0), src_dtype='fp32', shape=(1, 2, 1, 2)).ravel()")
doc("tilesim.tpu.tensor", "A TENSOR operand at local address addr for the Device selects."
    " docs/tpu.md#python", "n/a", "tilesim.tpu.tensor(128)")
doc("tilesim.tpu.vector_at", "A VECTOR operand at local address addr: channel c reads NPU"
    " (start + c) % NPU_NUM. docs/tpu.md#python", "n/a", "tilesim.tpu.vector_at(64)")
doc("tilesim.tpu.scalar", "A SCALAR operand: a value in the operand's dtype (a NumPy unsigned"
    " integer is the code of a bit-carried dtype). docs/tpu.md#python", "n/a", "tilesim.tpu.scalar(0.5)")
doc("tilesim.tpu.chips", "The chip names a Device or a select's chip= accepts (docs/tpu.md#runtime).",
    "n/a", "tilesim.tpu.chips()")
doc("tilesim.tpu.Device", "One chip's local memory and address-level API (operands where the caller"
    " places them), with global memory shared by the process. docs/tpu.md#python", "n/a", DEV,
    "d.npu_num, d.local_mem_size")
for _p, _s in (("npu_num", "The chip's NPU count (lanes of the C dimension)."),
               ("local_mem_size", "Bytes of local memory per NPU."),
               ("align_bytes", "The local-memory alignment of a compact tensor, in bytes."),
               ("bank_num", "Local-memory banks per NPU."), ("core_num", "The chip's core count."),
               ("chip", "The chip name.")):
    doc("tilesim.tpu.Device." + _p, _s + " docs/tpu.md#runtime", "n/a", DEV, "d." + _p)
doc("tilesim.tpu.Device.npu_stride", "Host bytes from NPU k's local memory to NPU k + 1's: more than"
    " local_mem_size (padding, so the NPUs do not share cache sets); memory() hides it."
    " docs/tpu.md#host-layout", "n/a", DEV, "d.npu_stride > d.local_mem_size")
doc("tilesim.tpu.Device.memory", "A uint8 (npu_num, local_mem_size) view of the local memory: row k"
    " is NPU k, column the in-NPU offset (local address k * local_mem_size + r is memory()[k, r])."
    " docs/tpu.md#host-layout", "n/a", DEV, "d.memory().shape == (d.npu_num, d.local_mem_size)")
doc("tilesim.tpu.Device.s2l", "Copies an NCHW array (fewer dims padded with leading 1s) to local"
    " memory at local_addr in dtype (tpu_gdma_cpy_S2L from the host). docs/tpu.md#gdma",
    "every TPU dtype; array in its carrier", DEV, PUT[0], "d.l2s(0, (1, 1, 1, 4), 'fp32').ravel()")
doc("tilesim.tpu.Device.l2s", "A new NCHW array of shape in dtype's carrier from local memory at"
    " local_addr (tpu_gdma_cpy_L2S to the host). docs/tpu.md#gdma", "every TPU dtype", DEV,
    "d.s2l(0, np.int16([[[[5, 6]]]]), np.int16)", "d.l2s(0, (1, 1, 1, 2), np.int16)")
doc("tilesim.tpu.Device.global_alloc", "tilesim_tpu_global_alloc: a zeroed, 64-byte aligned global"
    " address of nbytes. docs/tpu.md#global-memory", "n/a", DEV, "g = d.global_alloc(64)", "hex(g)[:4]")
doc("tilesim.tpu.Device.global_free", "tilesim_tpu_global_free of an allocation's base address; a"
    " later use of it is an error. docs/tpu.md#global-memory", "n/a", DEV, "d.global_free(d.global_alloc(64))")
doc("tilesim.tpu.Device.global_write", "Writes an array's raw bytes (C order) to global memory at"
    " addr, inside one live allocation. docs/tpu.md#global-memory", "any array", DEV,
    "g = d.global_alloc(16)", "d.global_write(g, np.int32([1, 2, 3, 4]))", "d.global_read(g, 4, 's32')")
doc("tilesim.tpu.Device.global_read", "A new array of shape in dtype's carrier from global memory at"
    " addr. docs/tpu.md#global-memory", "every TPU dtype", DEV, "g = d.global_alloc(8)",
    "d.global_read(g, (2,), np.float32)")
for _n, _d in (("S2L", "global -> local"), ("L2S", "local -> global"), ("L2L", "local -> local"),
               ("S2S", "global -> global")):
    src, dst = ("g", "0") if _n == "S2L" else ("0", "g") if _n == "L2S" else ("0", "256") if _n == "L2L" else ("g", "g2")
    ex = [DEV, "g = d.global_alloc(16)", "g2 = d.global_alloc(16)", "d.global_write(g, np.float32([1, 2, 3, 4]))",
          "d.s2l(0, np.float32([[[[5, 6, 7, 8]]]]), 'fp32')",
          "d.gdma_cpy_%s(%s, %s, (1, 1, 1, 4), 'fp32')" % (_n, dst, src)]
    ex.append("d.l2s(%s, (1, 1, 1, 4), 'fp32').ravel()" % dst if _n in ("S2L", "L2L")
              else "d.global_read(%s, 4, 'fp32')" % dst)
    doc("tilesim.tpu.Device.gdma_cpy_" + _n, "tpu_gdma_cpy_%s: an NCHW copy %s with optional strides"
        " (None: compact), every documented constraint checked before a byte moves."
        " docs/tpu.md#gdma" % (_n, _d), "every TPU dtype", *ex)
doc("tilesim.tpu.Device.gdma_set_C_system", "tpu_gdma_set_C_system: fills an NCHW region of global"
    " memory with C (a value in dtype). docs/tpu.md#gdma", "every TPU dtype", DEV,
    "g = d.global_alloc(16)", "d.gdma_set_C_system(g, 7, (1, 1, 1, 4), 's32')", "d.global_read(g, 4, 's32')")
doc("tilesim.tpu.Device.gdma_set_C_local", "tpu_gdma_set_C_local: fills an NCHW region of local memory"
    " with C. docs/tpu.md#gdma", "every TPU dtype", DEV, "d.gdma_set_C_local(0, 1.5, (1, 1, 1, 4), 'fp32')",
    "d.l2s(0, (1, 1, 1, 4), 'fp32').ravel()")
doc("tilesim.tpu.Device.gdma_system_cpy", "tpu_gdma_system_cpy: count contiguous elements, global ->"
    " global. docs/tpu.md#gdma", "every TPU dtype", DEV, "g = d.global_alloc(16)", "h = d.global_alloc(16)",
    "d.global_write(g, np.int32([1, 2, 3, 4]))", "d.gdma_system_cpy(h, g, 4, 's32')", "d.global_read(h, 4, 's32')")
doc("tilesim.tpu.Device.tpu_cast", "tpu_cast: the scalar src (a value in src_dtype) converted to"
    " dst_dtype with rounding mode; returns the result in dst_dtype's carrier. docs/tpu.md#scalar-casts",
    "fp32 fp16 bf16 s8 u8 s16 u16 s32 u32", DEV, "d.tpu_cast(1.0, 'fp16', 'fp32', 'RM_HALF_TO_EVEN')")
doc("tilesim.tpu.Device.tpu_fp_cast", "tpu_fp_cast: a float scalar converted to dst_dtype with"
    " rounding mode; returns the result. docs/tpu.md#scalar-casts", "fp32 fp16 bf16", DEV,
    "d.tpu_fp_cast(1.5, 'fp16', 'fp32', 'RM_HALF_TO_EVEN')")
doc("tilesim.tpu.Device.tpu_int_cast", "tpu_int_cast: an integer scalar converted to an integer"
    " dst_dtype, saturating; returns the result. docs/tpu.md#scalar-casts", "s8 u8 s16 u16 s32 u32", DEV,
    "d.tpu_int_cast(300, 's8', 's32')")


# ------------------------------------------------------------------------------------------ writer
def run_example(lines, ns):
    """The example as doctest text: each statement after '>>> ' (continuations '... '), then what the
    interactive interpreter prints for it."""
    out = []
    for stmt in lines:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(stmt + "\n", "<example>", "single"), ns)  # noqa: S102 - our own examples
        first, *rest = stmt.split("\n")
        out.append(">>> " + first)
        out.extend("... " + r for r in rest)
        if rest:
            out.append("... ")
        text = buf.getvalue().rstrip("\n")
        if text:
            out.extend(text.split("\n"))
    return out


def signature(qual, obj):
    """The signature line: the compiled function's own (without 'object' annotations), or Python's."""
    name = qual.rsplit(".", 1)[1]
    if isinstance(obj, property):
        return name
    d = getattr(obj, "__doc__", None) or ""
    if callable(obj) and not inspect.isclass(obj) and type(obj).__name__ in ("builtin_function_or_method", "instancemethod"):
        line = d.splitlines()[0] if d else name + "(...)"
        line = re.sub(r"self: [\w.]+(, )?", "", line)
        line = line.replace(": object = ", "=").replace(": object", "").replace(": str = ", "=")
        return re.sub(r"\(\s*,\s*", "(", line)
    if inspect.isclass(obj) and type(obj).__name__ == "pybind11_type":  # the compiled __init__'s
        line = (obj.__init__.__doc__ or "").splitlines()[0]
        line = re.sub(r"self: [\w.]+(, )?", "", line).replace(": object = ", "=").replace(": object", "")
        return name + line[len("__init__"):].replace(" -> None", "")
    try:
        sig = str(inspect.signature(obj))
    except (TypeError, ValueError):
        sig = "(...)"
    sig = sig.replace("(self, ", "(").replace("(self)", "()")
    return name + sig


def wrap(text, width=96):
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = (cur + " " + w) if cur else w
    if cur:
        lines.append(cur)
    return lines


def resolve(qual):
    parts = qual.split(".")
    obj = importlib.import_module(".".join(parts[:2])) if len(parts) > 1 and parts[1] in (
        "formats", "pto", "linx", "ascendc", "tpu") else tilesim
    rest = parts[2:] if obj is not tilesim else parts[1:]
    for p in rest:
        obj = inspect.getattr_static(obj, p) if inspect.isclass(obj) else getattr(obj, p)
    return obj


STUB_HEAD = ('"""Type stubs for editors (docs/python.md#type-stubs). Generated by tools/gen_py_docs.py from'
             ' the\nsame signatures as the docstrings; do not edit."""\n'
             "from typing import Any\n\nimport numpy\nimport numpy as np\n")
KEYWORDS = {"and", "or", "not"}  # Device methods reachable only by getattr; and_/or_/not_ are stubbed


def stub_def(sig_line, indent="", method=False):
    """A stub 'def' from a docstring's signature line: types kept where the line has them."""
    m = re.match(r"(\w+)\((.*)\)( -> (.+))?$", sig_line)
    name, params, ret = m.group(1), m.group(2), m.group(4) or ("None" if m.group(1) == "__init__" else "Any")
    ret = {"List[int]": "list[int]", "List[str]": "list[str]"}.get(ret, ret)
    params = params.replace("List[", "list[").replace("numpy.ndarray[numpy.uint8]", "numpy.ndarray")
    params = params.replace("numpy.ndarray[numpy.float64]", "numpy.ndarray")
    ret = re.sub(r"numpy\.ndarray\[[\w.]+\]", "numpy.ndarray", ret)
    ret = "Any" if ret in ("dict", "list", "CompareReport") and name != "compare" else ret
    params = re.sub(r"=([^,*]+?)(?=, |$)", lambda x: "=...", params)
    if method:
        params = "self" + (", " + params if params else "")
    return "%sdef %s(%s) -> %s: ...\n" % (indent, name, params, ret)


def write_stubs(docs):
    per_module = {}
    for qual, text in docs.items():
        parts = qual.split(".")
        mod = ".".join(parts[:2]) if len(parts) > 1 and parts[1] in ("formats", "pto", "linx", "ascendc", "tpu") else "tilesim"
        per_module.setdefault(mod, []).append((qual[len(mod) + 1:], text.split("\n", 1)[0], resolve(qual)))
    for mod, items in per_module.items():
        lines = [STUB_HEAD]
        if mod == "tilesim":
            lines.append("from . import ascendc, formats, linx, pto, tpu\n\n__version__: str\n")
        if mod in ("tilesim.pto", "tilesim.tpu", "tilesim.linx"):
            lines.append("from . import Error as Error\n")
        classes = {}
        for rel, sig, obj in sorted(items):
            if "." in rel:
                classes.setdefault(rel.split(".")[0], []).append((rel.split(".")[1], sig, obj))
            elif inspect.isclass(obj):
                classes.setdefault(rel, [])
        for rel, sig, obj in sorted(items):
            if "." in rel or rel in classes:
                continue
            lines.append("\n" + stub_def(sig))
        for cls, members in sorted(classes.items()):
            qual = mod + "." + cls
            base = "(Error)" if cls == "Fault" else "(Exception)" if cls == "Error" else ""
            lines.append("\n\nclass %s%s:\n" % (cls, base))
            lines.append(stub_def("__init__" + docs[qual].split("\n", 1)[0][len(cls):], "    ", True))
            for name, sig, obj in members:
                if name in KEYWORDS:
                    continue
                if isinstance(obj, property):
                    lines.append("    @property\n    def %s(self) -> Any: ...\n" % name)
                else:
                    lines.append(stub_def(sig, "    ", True))
        path = os.path.join(ROOT, "python", "tilesim", (mod.split(".")[1] if "." in mod else "__init__") + ".pyi")
        with open(path, "w") as f:
            f.write("".join(lines))
    with open(os.path.join(ROOT, "python", "tilesim", "py.typed"), "w"):
        pass


def main():
    np.set_printoptions(legacy=False)
    docs, failed = {}, []
    for qual in sorted(D):
        summary, dtypes, example = D[qual]
        obj = resolve(qual)
        ns = {"np": np, "tilesim": tilesim}
        try:
            shown = run_example(example, ns)
        except Exception as e:  # noqa: BLE001 - report every broken example at once
            failed.append("%s: %s: %s" % (qual, type(e).__name__, e))
            continue
        docs[qual] = "\n".join([signature(qual, obj), ""] + wrap(summary) + [""] + wrap("dtypes: " + dtypes)
                               + ["", "Example:", ""] + shown)
    if failed:
        sys.exit("gen_py_docs: examples failed:\n  " + "\n  ".join(failed))
    with open(OUT, "w") as f:
        f.write('"""The docstring of every public function, class and method (docs/python.md#docstrings).\n\n'
                "Generated by tools/gen_py_docs.py from its table, with each example's output as tilesim\n"
                'printed it; edit the table there and re-run, not this file."""\n\n')
        f.write("DOCS = ")
        f.write(pprint.pformat(docs, width=110, sort_dicts=True))
        f.write("\n")
    write_stubs(docs)
    print("gen_py_docs: wrote %d docstrings to %s and the .pyi stubs" % (len(docs), os.path.relpath(OUT, ROOT)))


if __name__ == "__main__":
    main()
