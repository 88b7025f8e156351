"""tilesim.ascendc (spec 60 §4) against the known answers of spec 40 §4 and an independent
NumPy model of the tree (computed here with float16 numpy arithmetic, not tilesim)."""
import numpy as np
import pytest

import tilesim
from tilesim import ascendc


def test_seed_known_answer_16_32():
    src = np.repeat(np.arange(1, 9, dtype=np.float16), 16)
    out = ascendc.block_reduce_sum(src, 1, 128, 1, 1, 8)
    assert out.dtype == np.float16
    assert out.tolist() == [16.0 * v for v in range(1, 9)]


def test_seed_saturation_35584():
    src = np.zeros(128, np.float16)
    src[:4] = [60000, 60000, -30000, 100]
    out = ascendc.block_reduce_sum(src, 1, 4, 1, 1, 8)
    assert out[0] == 35584.0
    assert out.view(np.uint16)[0] == 0x7858
    assert np.isposinf(ascendc.block_reduce_sum(src, 1, 4, 1, 1, 8, saturation=False)[0])


def test_seed_bit_mask_8_not_written():
    src = np.arange(1, 129, dtype=np.float16)
    dst = np.full(8, -7, np.float16)
    out = ascendc.block_reduce_sum(src, 1, [8, 0], 1, 1, 8, dst=dst)
    assert out.tolist() == [4.0] + [-7.0] * 7
    assert dst.tolist() == [-7.0] * 8  # the given dst is not modified; a new array is returned


def test_seed_200i_float_mask32_zero():
    src = np.arange(64, dtype=np.float32)
    dst = np.full(8, -7, np.float32)
    out = ascendc.block_reduce_sum(src, 1, 32, 1, 1, 8, dst=dst, product="atlas_200i_500_a2")
    assert out.tolist() == [28.0, 92.0, 156.0, 220.0, 0.0, 0.0, 0.0, 0.0]


def _tree_f16(block, saturate=True):
    v = [np.float16(x) for x in block]
    while len(v) > 1:
        nxt = []
        for a, b in zip(v[0::2], v[1::2]):
            with np.errstate(over="ignore", invalid="ignore"):
                s = np.float16(np.float32(a) + np.float32(b))
            if saturate:
                if np.isnan(s):
                    s = np.float16(0)
                elif np.isinf(s):
                    s = np.float16(65504 if s > 0 else -65504)
            nxt.append(s)
        v = nxt
    return v[0]


@pytest.mark.parametrize("seed", range(5))
def test_sum_half_matches_independent_model(seed):
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore"):  # some inputs become ±Inf: wanted
        src = (rng.standard_normal(128 * 3) * 20000).astype(np.float16)
    out = ascendc.block_reduce_sum(src, 3, 128, 1, 1, 8)
    want = [_tree_f16(src[i * 16:(i + 1) * 16]) for i in range(24)]
    assert out.view(np.uint16).tolist() == np.array(want, np.float16).view(np.uint16).tolist()


def test_max_min_float_and_default_dst_length():
    src = np.arange(64 * 2, dtype=np.float32)[::-1].copy()
    out = ascendc.block_reduce_max(src, 2, 64, 2, 1, 8)
    assert out.shape == (24,)
    assert out[:8].tolist() == [127.0 - 8 * k for k in range(8)]
    assert out[8:16].tolist() == [0.0] * 8
    assert ascendc.block_reduce_min(src, 1, [0xFF], 1, 1, 8)[0] == 120.0


def test_float_bit_mask_second_word_zero_accepted():
    src = np.ones(64, np.float32)
    assert ascendc.block_reduce_sum(src, 1, [0xFF, 0], 1, 1, 8)[0] == 8.0


@pytest.mark.parametrize(
    "kwargs, code, text",
    [
        (dict(repeat=256), "Constraint", "repeatTime must be in [0, 255], got 256 [docs/ascendc.md#checks]"),
        (dict(mask=0), "Constraint", "continuous mask must be in [1, 128] (lanes per repeat), got 0"),
        (dict(mask=[0, 0]), "Constraint", "must not both be 0"),
        (dict(mask=[1]), "Constraint", "bit mode for half needs two words"),
        (dict(mask=[-1, 0]), "Constraint", "mask words must be in [0, 2^64-1]"),
        (dict(mask=[1 << 64, 0]), "Constraint", "mask words must be in [0, 2^64-1]"),
        (dict(mask=[1, 2, 3]), "Constraint", "list of 1 or 2 words"),
        (dict(mask=True), "Constraint", "continuous mask must be an integer, got a bool (True)"),
        (dict(mask=[True, 0]), "Constraint", "mask words must be integers, got a bool (True)"),
        (dict(repeat=False), "Constraint", "repeatTime must be an integer, got a bool (False)"),
        (dict(src_rep_stride=-1), "Constraint", "srcRepStride must be in [0, 65535], got -1"),
        (dict(product="atlas_inference_vectorcore"), "Unsupported", "not supported on product"),
        (dict(product="nope"), "Unsupported", "unknown Ascend C product 'nope'"),
        (dict(dst_rep_stride=0, repeat=2, product="atlas_training"), "Constraint", "dstRepStride = 0 is not allowed"),
        (dict(repeat=2), "Bounds", "src: repeat 1 datablock 7 reads elements [240, 256) beyond src's 128 elements"),
    ],
)
def test_rejections(kwargs, code, text):
    args = dict(src=np.ones(128, np.float16), repeat=1, mask=128, dst_rep_stride=1, src_blk_stride=1,
                src_rep_stride=8)
    args.update(kwargs)
    with pytest.raises(tilesim.Error) as e:
        ascendc.block_reduce_sum(**args)
    assert e.value.code == code
    assert text in str(e.value)


def test_dtype_rejections():
    with pytest.raises(tilesim.Error, match="T must be half or float"):
        ascendc.block_reduce_sum(np.ones(128, np.float64), 1, 128, 1, 1, 8)
    with pytest.raises(tilesim.Error, match="dst and src must have the same T"):
        ascendc.block_reduce_sum(np.ones(128, np.float16), 1, 128, 1, 1, 8, dst=np.zeros(8, np.float32))
    with pytest.raises(tilesim.Error, match="not supported on product atlas_training"):
        ascendc.block_reduce_sum(np.ones(64, np.float32), 1, 64, 1, 1, 8, product="atlas_training")
    with pytest.raises(tilesim.Error, match="dst: repeat 0 datablock 7 writes element 7"):
        ascendc.block_reduce_sum(np.ones(128, np.float16), 1, 128, 1, 1, 8, dst=np.zeros(7, np.float16))


def test_saturation_argument_checked():
    src = np.ones(128, np.float16)
    assert ascendc.block_reduce_sum(src, 1, 128, 1, 1, 8, saturation=np.bool_(True))[0] == 16.0
    with pytest.raises(tilesim.Error, match="saturation must be None, True or False"):
        ascendc.block_reduce_sum(src, 1, 128, 1, 1, 8, saturation="yes")


def _model(src, op, repeat, mask_bits, dst, dst_rep, blk, rep, E):
    """Independent model of spec 40 §2 for MAX/MIN/float SUM (no half rounding needed: exact
    for MAX/MIN; float SUM uses float32 numpy adds in tree order)."""
    out = dst.copy()
    ident = {"sum": 0.0, "max": -np.inf, "min": np.inf}[op]
    for r in range(repeat):
        for b in range(8):
            act = [mask_bits[b * E + i] for i in range(E)]
            if not any(act):
                continue
            start = (r * rep + b * blk) * E
            v = [src[start + i] if act[i] else src.dtype.type(ident) for i in range(E)]
            while len(v) > 1:
                nxt = []
                for x, y in zip(v[0::2], v[1::2]):
                    if op == "sum":
                        nxt.append(np.float32(x) + np.float32(y))
                    elif np.isnan(x) or np.isnan(y):
                        nxt.append(np.float32(np.nan))
                    elif x == y:
                        nxt.append(x if (np.signbit(x) == (op == "min")) else y)
                    else:
                        nxt.append(max(x, y) if op == "max" else min(x, y))
                v = nxt
            out[r * dst_rep * 8 + b] = v[0]
    return out


# half SUM is covered by the saturating model above.
@pytest.mark.parametrize("op, dtype", [("sum", np.float32), ("max", np.float32), ("min", np.float32),
                                       ("max", np.float16), ("min", np.float16)])
def test_strided_bit_masks_match_model(op, dtype):
    rng = np.random.default_rng(3)
    E = 16 if dtype == np.float16 else 8
    repeat, dst_rep, blk, rep = 5, 2, 2, 9
    n = ((repeat - 1) * rep + 7 * blk + 1) * E
    src = rng.integers(-50, 50, n).astype(dtype)
    src[5] = -0.0
    words = [int(rng.integers(0, 2**63)) * 2 + 1, int(rng.integers(0, 2**63))]
    if dtype == np.float32:
        words = words[:1]
    bits = [(words[i // 64] >> (i % 64)) & 1 if i // 64 < len(words) else 0 for i in range(8 * E)]
    dst = np.full((repeat - 1) * dst_rep * 8 + 8, -7, dtype)
    fn = getattr(ascendc, "block_reduce_" + op)
    got = fn(src, repeat, words, dst_rep, blk, rep, dst=dst)
    want = _model(src, op, repeat, bits, dst, dst_rep, blk, rep, E)
    np.testing.assert_array_equal(got.view(np.uint16 if dtype == np.float16 else np.uint32),
                                  want.view(np.uint16 if dtype == np.float16 else np.uint32))


# ---- spec 41 vector APIs (spec 60 §4) ----
# The correctly rounded ops are checked bit for bit against NumPy (fp16 arithmetic in NumPy is the
# fp32 result rounded once, which is the correctly rounded fp16 result for + - * / and sqrt); exp,
# ln, rsqrt and reciprocal against the PTO front end, which calls the same element-op core from
# other C++ code; the mask/repeat forms against the count forms and a NumPy model of the strides.

_BIN = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
        "max": np.maximum, "min": np.minimum}
_SCALAR = {"adds": np.add, "muls": np.multiply, "maxs": np.maximum, "mins": np.minimum}


def _rand(rng, n, dtype, lo=-100.0, hi=100.0):
    return rng.uniform(lo, hi, n).astype(dtype)


def _bits(x):
    return x.view(np.uint16 if x.dtype.itemsize == 2 else np.uint32)


def _sat16(x):
    # CTRL saturation on half results (spec 41 §3, the A2 default): +-Inf -> +-65504, NaN -> +0.
    if x.dtype != np.float16:
        return x
    y = x.copy()
    y[np.isposinf(y)] = 65504
    y[np.isneginf(y)] = -65504
    y[np.isnan(y)] = 0
    return y


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("name", sorted(_BIN))
@pytest.mark.parametrize("seed", range(3))
def test_binary_count_form_matches_numpy(name, dtype, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    a, b = _rand(rng, n, dtype), _rand(rng, n, dtype)
    if name == "div":
        b[b == 0] = 1
    got = getattr(ascendc, name)(a, b, n)
    assert got.dtype == dtype and got.shape == (n,)
    with np.errstate(all="ignore"):
        want = _sat16(_BIN[name](a, b))
    np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("name", sorted(_SCALAR))
def test_scalar_count_form_matches_numpy(name, dtype):
    rng = np.random.default_rng(5)
    a = _rand(rng, 1000, dtype)
    s = 3.37
    got = getattr(ascendc, name)(a, s, 1000)
    with np.errstate(all="ignore"):
        want = _sat16(_SCALAR[name](a, dtype(s)))
    np.testing.assert_array_equal(_bits(got), _bits(want))


def test_int_dtypes_binary():
    a = np.arange(-64, 64, dtype=np.int32)
    b = np.full(128, 7, np.int32)
    np.testing.assert_array_equal(ascendc.add(a, b, 128), a + 7)
    np.testing.assert_array_equal(ascendc.max(a.astype(np.int16), b.astype(np.int16), 100)[:100],
                                  np.maximum(a, 7)[:100])


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_unary_exact_ops_match_numpy(dtype):
    rng = np.random.default_rng(11)
    a = _rand(rng, 2000, dtype)
    np.testing.assert_array_equal(_bits(ascendc.abs(a, 2000)), _bits(np.abs(a)))
    np.testing.assert_array_equal(_bits(ascendc.relu(a, 2000)), _bits(np.maximum(a, dtype(0))))
    p = np.abs(a)
    np.testing.assert_array_equal(_bits(ascendc.sqrt(p, 2000)), _bits(np.sqrt(p)))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("name, pto_name, lo, hi", [("exp", "texp", -10, 10), ("ln", "tlog", 0.01, 1000),
                                                    ("rsqrt", "trsqrt", 0.01, 1000),
                                                    ("reciprocal", "trecip", 0.01, 1000)])
def test_unary_transcendentals_match_pto_front_end(name, pto_name, lo, hi, dtype):
    from tilesim import pto
    rng = np.random.default_rng(13)
    a = _rand(rng, 64 * 16, dtype, lo, hi)
    got = getattr(ascendc, name)(a, a.size)
    ref = getattr(pto, pto_name)(a.reshape(16, 64)).data.reshape(-1)
    np.testing.assert_array_equal(_bits(got), _bits(ref))
    with np.errstate(all="ignore"):
        f = {"exp": np.exp, "ln": np.log, "rsqrt": lambda x: 1 / np.sqrt(x), "reciprocal": lambda x: 1 / x}[name]
        np.testing.assert_allclose(got.astype(np.float64), f(a.astype(np.float64)),
                                   rtol=2e-3 if dtype == np.float16 else 2e-6)


def _strided_model(fn, a, b, mask_lanes, repeat, p, n_dst, dtype, dst):
    E = 32 // np.dtype(dtype).itemsize
    out = dst.copy()
    for r in range(repeat):
        for l in mask_lanes:
            blk, off = divmod(l, E)
            d = (r * p["dst_rep_stride"] + blk * p["dst_blk_stride"]) * E + off
            i0 = (r * p["src0_rep_stride"] + blk * p["src0_blk_stride"]) * E + off
            i1 = (r * p["src1_rep_stride"] + blk * p["src1_blk_stride"]) * E + off
            with np.errstate(all="ignore"):
                out[d] = fn(a[i0], b[i1])
    return out


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("seed", range(4))
def test_binary_mask_repeat_form_matches_stride_model(dtype, seed):
    rng = np.random.default_rng(100 + seed)
    lanes = 256 // np.dtype(dtype).itemsize
    repeat = int(rng.integers(1, 5))
    p = {"dst_blk_stride": int(rng.integers(1, 3)), "src0_blk_stride": int(rng.integers(0, 3)),
         "src1_blk_stride": int(rng.integers(1, 3)), "dst_rep_stride": int(rng.integers(16, 20)),
         "src0_rep_stride": int(rng.integers(0, 20)), "src1_rep_stride": int(rng.integers(8, 20))}
    a, b = _rand(rng, 6000, dtype), _rand(rng, 6000, dtype)
    if rng.integers(2):
        mask = int(rng.integers(1, lanes + 1))
        on = list(range(mask))
    else:
        words = [int(rng.integers(0, 2**63)), int(rng.integers(0, 2**63))] if lanes == 128 else \
                [int(rng.integers(0, 2**63))]
        mask = words
        on = [l for l in range(lanes) if (words[l // 64] >> (l % 64)) & 1]
    got = ascendc.mul(a, b, mask=mask, repeat=repeat, params=p)
    n_dst = got.size
    want = _strided_model(np.multiply, a, b, on, repeat, p, n_dst, dtype, np.zeros(n_dst, dtype))
    assert n_dst == (1 + max(((repeat - 1) * p["dst_rep_stride"] + (l // (32 // a.itemsize)) * p["dst_blk_stride"])
                            * (32 // a.itemsize) + l % (32 // a.itemsize) for l in on) if on else 0)
    np.testing.assert_array_equal(_bits(got), _bits(_sat16(want)))


def test_mask_form_equals_count_form_and_dst_kept():
    rng = np.random.default_rng(3)
    a, b = _rand(rng, 64 * 6, np.float32), _rand(rng, 64 * 6, np.float32)
    np.testing.assert_array_equal(ascendc.sub(a, b, mask=64, repeat=6), ascendc.sub(a, b, 384))
    dst = np.full(70, -1, np.float32)
    out = ascendc.adds(a, 1.0, mask=[0b101], repeat=1, dst=dst)
    assert out[0] == a[0] + 1 and out[2] == a[2] + 1 and out[1] == -1 and (out[3:] == -1).all()
    assert (dst == -1).all()  # the given dst is not modified
    u = ascendc.exp(a, mask=64, repeat=2, params={"dst_blk_stride": 1, "src_blk_stride": 1,
                                                  "dst_rep_stride": 8, "src_rep_stride": 8})
    np.testing.assert_array_equal(u, ascendc.exp(a, 128))


def test_vector_api_rejections():
    a = np.ones(64, np.float32)
    with pytest.raises(tilesim.Error, match="count"):
        ascendc.add(a, a, 65)
    with pytest.raises(tilesim.Error, match="unknown key"):
        ascendc.exp(a, mask=64, repeat=1, params={"dst_blk_stride": 1, "src_blk_stride": 1, "dst_rep_stride": 8,
                                                  "src_rep_stride": 8, "bogus": 1})
    with pytest.raises(tilesim.Error, match="missing key"):
        ascendc.add(a, a, mask=64, repeat=1, params={"dst_blk_stride": 1})
    with pytest.raises(tilesim.Error):
        ascendc.add(a, a.astype(np.float16), 64)
    with pytest.raises(tilesim.Error):
        ascendc.exp(a)  # neither form
    with pytest.raises(tilesim.Error):
        ascendc.add(a, a, mask=64, repeat=256)


def test_saturation_argument_vector_api():
    a = np.full(16, 60000, np.float16)
    assert ascendc.add(a, a, 16)[0] == 65504
    assert np.isposinf(ascendc.add(a, a, 16, saturation=False)[0])


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_whole_reduce_count_and_mask_forms(dtype):
    rng = np.random.default_rng(21)
    lanes = 256 // np.dtype(dtype).itemsize
    a = rng.integers(-8, 8, lanes * 3).astype(dtype)  # small integers: every sum exact
    s = ascendc.whole_reduce_sum(a, lanes * 3)
    assert s.shape == (3,)
    np.testing.assert_array_equal(s, a.reshape(3, lanes).sum(axis=1).astype(dtype))
    np.testing.assert_array_equal(ascendc.whole_reduce_sum(a, mask=lanes, repeat=3), s)
    m = ascendc.whole_reduce_max(a, mask=lanes, repeat=3)
    assert m.shape == (6,)
    rows = a.reshape(3, lanes)
    np.testing.assert_array_equal(m[0::2], rows.max(axis=1))
    idx = m[1::2].view(np.uint16 if dtype == np.float16 else np.uint32)
    np.testing.assert_array_equal(idx, rows.argmax(axis=1))
    v = ascendc.whole_reduce_min(a, lanes * 3, order="ORDER_ONLY_VALUE")
    np.testing.assert_array_equal(v, rows.min(axis=1))
    with pytest.raises(tilesim.Error):
        ascendc.whole_reduce_max(a, lanes, order="bogus")


def test_cast_count_form():
    a = np.array([1.5, 2.5, -1.5, 65520.0, 1e-8], np.float32)
    h = ascendc.cast(a, "fp16", "CAST_RINT", 5)
    assert h.dtype == np.float16
    np.testing.assert_array_equal(h[:3], np.array([1.5, 2.5, -1.5], np.float16))
    r = ascendc.cast(np.array([1.5, 2.5, -1.5, -2.5], np.float32), "s32", "CAST_RINT", 4)
    assert r.dtype == np.int32 and r.tolist() == [2, 2, -2, -2]
    r = ascendc.cast(np.array([1.5, 2.5, -1.5, -2.5], np.float32), "s32", "CAST_FLOOR", 4)
    assert r.tolist() == [1, 2, -2, -3]
    with pytest.raises(tilesim.Error):
        ascendc.cast(a, "fp16", "CAST_BOGUS", 5)


# ---- the rest of the closure: every row of the API table, Cast mask form, Duplicate, Compare, Select,
# PairReduceSum, ReduceSum/Max/Min, Brcb (docs/ascendc.md#python). Models are NumPy, written here.

def _np_round(x, dtype):
    with np.errstate(all="ignore"):
        return np.asarray(x).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_add_relu_sub_relu_match_numpy(dtype):
    rng = np.random.default_rng(21)
    n = 1000
    a, b = _rand(rng, n, dtype), _rand(rng, n, dtype)
    want_add = np.maximum(_np_round(a + b, dtype), dtype(0))
    want_sub = np.maximum(_np_round(a - b, dtype), dtype(0))
    np.testing.assert_array_equal(_bits(ascendc.add_relu(a, b, n)), _bits(want_add))
    np.testing.assert_array_equal(_bits(ascendc.sub_relu(a, b, n)), _bits(want_sub))
    i = np.array([-30000, 20000, 5, -5], np.int16)
    j = np.array([-10000, 20000, -7, 2], np.int16)
    # int16 wraps (spec 15): -40000 -> 25536, 40000 -> -25536 -> relu 0
    assert ascendc.add_relu(i, j, 4).tolist() == [25536, 0, 0, 0]


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_mul_add_dst_and_fused_mul_add_round_twice(dtype):
    rng = np.random.default_rng(22)
    n = 640
    a, b, d = _rand(rng, n, dtype, -10, 10), _rand(rng, n, dtype, -10, 10), _rand(rng, n, dtype, -10, 10)
    # Two roundings to T (docs/ascendc.md#muladddst): product, then the add.
    want = _np_round(_np_round(a * b, dtype) + d, dtype)
    np.testing.assert_array_equal(_bits(ascendc.mul_add_dst(a, b, n, dst=d)), _bits(want))
    want = _np_round(_np_round(a * d, dtype) + b, dtype)
    np.testing.assert_array_equal(_bits(ascendc.fused_mul_add(a, b, n, dst=d)), _bits(want))
    # dst is read: without it the destination is zeros, so MulAddDst is a plain product
    np.testing.assert_array_equal(_bits(ascendc.mul_add_dst(a, b, n)), _bits(_np_round(a * b, dtype)))


def test_bitwise_and_or_not():
    a = np.array([0x0F0F, -1, 0x1234, 0], np.int16)
    b = np.array([0x00FF, 0x5555, -0x1235, 7], np.int16)
    assert ascendc.and_(a, b, 4).tolist() == (a & b).tolist()
    assert ascendc.or_(a, b, 4).tolist() == (a | b).tolist()
    assert ascendc.not_(a, 4).tolist() == (~a).tolist()
    u = np.array([0xFFFF, 0x8000, 1], np.uint16)
    assert ascendc.not_(u, 3).tolist() == [0, 0x7FFF, 0xFFFE]
    with pytest.raises(tilesim.Error, match="Unsupported|not supported"):
        ascendc.and_(np.ones(16, np.float32), np.ones(16, np.float32), 16)


def test_shift_left_right_and_round():
    a = np.array([17, -17, 1, -32768, 12345], np.int16)
    assert ascendc.shift_left(a, 3, 5).tolist() == (a << 3).astype(np.int16).tolist()
    assert ascendc.shift_right(a, 5, 5).tolist() == (a >> 5).tolist()  # arithmetic for signed
    u = np.array([0x8000, 17, 0xFFFF], np.uint16)
    assert ascendc.shift_right(u, 4, 3).tolist() == [0x0800, 1, 0x0FFF]  # logical for unsigned
    # roundEn (mask + repeat form): (x >> n) + bit n-1 of x; the vendor example 17 >> 5 = 1
    x = np.zeros(128, np.int16)
    x[:3] = [17, 15, 16]
    got = ascendc.shift_right(x, 5, mask=3, repeat=1, round_en=True)
    assert got[:3].tolist() == [1, 0, 1]
    with pytest.raises(tilesim.Error):
        ascendc.shift_right(u, 4, mask=3, repeat=1, round_en=True)  # roundEn on an unsigned T
    with pytest.raises(tilesim.Error, match="round_en"):
        ascendc.shift_right(x, 5, mask=3, repeat=1, round_en=1)
    with pytest.raises(tilesim.Error):
        ascendc.shift_left(a, 17, 5)  # beyond the width


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_leaky_relu(dtype):
    rng = np.random.default_rng(23)
    a = _rand(rng, 300, dtype)
    a[:3] = [0.0, -0.0, -1.0]
    want = np.where(a >= 0, a, _np_round(a * dtype(0.1), dtype))
    np.testing.assert_array_equal(_bits(ascendc.leaky_relu(a, 0.1, 300)), _bits(want))


def test_every_table_row_has_a_function():
    for name in ["add", "sub", "mul", "div", "max", "min", "and_", "or_", "add_relu", "sub_relu", "mul_add_dst",
                 "fused_mul_add", "adds", "muls", "maxs", "mins", "shift_left", "shift_right", "leaky_relu", "exp",
                 "ln", "abs", "sqrt", "rsqrt", "reciprocal", "relu", "not_", "cast", "duplicate", "compare",
                 "select", "whole_reduce_sum", "whole_reduce_max", "whole_reduce_min", "pair_reduce_sum",
                 "reduce_sum", "reduce_max", "reduce_min", "brcb"]:
        assert callable(getattr(ascendc, name)), name


def test_cast_mask_form_strides_and_lanes_of_wider_type():
    # half -> float: 64 lanes per repeat (the wider type); each operand's strides count its own
    # 32-byte datablocks: src datablocks hold 16 halves, dst datablocks 8 floats.
    src = np.arange(512, dtype=np.float16)
    got = ascendc.cast(src, "fp32", "CAST_NONE", mask=64, repeat=2,
                       params=dict(dst_blk_stride=1, src_blk_stride=1, dst_rep_stride=8, src_rep_stride=4))
    want = np.concatenate([src[0:64], src[64:128]]).astype(np.float32)
    np.testing.assert_array_equal(got, want)
    # float -> half, continuous mask 10, dst kept outside the active lanes
    f = np.linspace(-3, 3, 64, dtype=np.float32)
    dst = np.full(64, 7, np.float16)
    got = ascendc.cast(f, np.float16, "CAST_RINT", mask=10, repeat=1, dst=dst,
                       params=dict(dst_blk_stride=1, src_blk_stride=1, dst_rep_stride=4, src_rep_stride=8))
    np.testing.assert_array_equal(got[:10], f[:10].astype(np.float16))
    assert (got[10:] == 7).all()
    # mask form equals count form on full contiguous repeats
    g = np.random.default_rng(5).uniform(-1e4, 1e4, 128).astype(np.float32)
    np.testing.assert_array_equal(
        _bits(ascendc.cast(g, "fp16", "CAST_FLOOR", 128)),
        _bits(ascendc.cast(g, "fp16", "CAST_FLOOR", mask=64, repeat=2,
                           params=dict(dst_blk_stride=1, src_blk_stride=1, dst_rep_stride=4, src_rep_stride=8))))


def test_duplicate_count_and_mask_forms():
    assert ascendc.duplicate(2.5, 5, dtype="float16").tolist() == [2.5] * 5
    assert ascendc.duplicate(-3, 4, dtype=np.int32).tolist() == [-3] * 4
    d = ascendc.duplicate(1.0, mask=[0b101, 0], repeat=2, dst=np.zeros(256, np.float16))
    assert d[0] == 1 and d[1] == 0 and d[2] == 1 and d[128] == 1 and d[130] == 1 and d.sum() == 4
    with pytest.raises(tilesim.Error, match="dtype or dst"):
        ascendc.duplicate(1.0, 4)
    with pytest.raises(tilesim.Error, match="count"):
        ascendc.duplicate(1.0, 9, dst=np.zeros(8, np.float32))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("mode", ["LT", "GT", "EQ", "LE", "GE", "NE"])
def test_compare_count_form_bits(dtype, mode):
    rng = np.random.default_rng(24)
    n = 512
    a = rng.integers(-3, 4, n).astype(dtype)
    b = rng.integers(-3, 4, n).astype(dtype)
    a[:4] = [np.nan, 1, np.nan, -0.0]
    b[:4] = [1, np.nan, np.nan, 0.0]
    op = {"LT": np.less, "GT": np.greater, "EQ": np.equal, "LE": np.less_equal, "GE": np.greater_equal,
          "NE": np.not_equal}[mode]
    with np.errstate(invalid="ignore"):
        want = np.packbits(op(a, b), bitorder="little")
        want_s = np.packbits(op(a, dtype(1)), bitorder="little")
    got = ascendc.compare(a, b, mode, n)
    assert got.dtype == np.uint8 and got.tolist() == want.tolist()
    assert ascendc.compare(a, 1, mode, n).tolist() == want_s.tolist()  # Compares


def test_compare_repeat_form_and_rules():
    a = np.arange(256, dtype=np.float32)
    b = np.full(256, 100, np.float32)
    got = ascendc.compare(a, b, "LT", repeat=2,
                          params=dict(dst_blk_stride=1, src0_blk_stride=1, src1_blk_stride=1, dst_rep_stride=8,
                                      src0_rep_stride=16, src1_rep_stride=8))
    want = np.packbits(np.concatenate([a[:64], a[128:192]]) < 100, bitorder="little")
    assert got.tolist() == want.tolist()
    with pytest.raises(tilesim.Error, match="reserved"):
        ascendc.compare(a, b, "LT", mask=64, repeat=1)
    with pytest.raises(tilesim.Error, match="256"):
        ascendc.compare(a, b, "LT", 100)  # count * sizeof(T) must be whole repeats
    with pytest.raises(tilesim.Error, match="cmp_mode"):
        ascendc.compare(a, b, "lt", 64)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_select_is_where_of_compare(dtype):
    rng = np.random.default_rng(25)
    n = 1024
    a, b = _rand(rng, n, dtype), _rand(rng, n, dtype)
    bits = ascendc.compare(a, b, "GT", n)
    got = ascendc.select(bits, a, b, "VSEL_TENSOR_TENSOR_MODE", n)
    np.testing.assert_array_equal(_bits(got), _bits(np.maximum(a, b)))
    got = ascendc.select(bits, a, 5.0, "VSEL_TENSOR_SCALAR_MODE", n)
    np.testing.assert_array_equal(_bits(got), _bits(np.where(a > b, a, dtype(5))))
    with pytest.raises(tilesim.Error):
        ascendc.select(bits, a, 5.0, "VSEL_TENSOR_TENSOR_MODE", n)  # a scalar needs the scalar mode
    with pytest.raises(tilesim.Error, match="uint8"):
        ascendc.select(bits.astype(np.int16), a, b, "VSEL_TENSOR_TENSOR_MODE", n)


def test_select_cmpmask_spr_reuses_16_bytes_every_repeat():
    lanes = 64
    a = np.arange(2 * lanes, dtype=np.float32)
    b = -a
    sel = np.zeros(16, np.uint8)
    sel[0] = 0b1001  # lanes 0 and 3 of every repeat take a
    got = ascendc.select(sel, a, b, "VSEL_CMPMASK_SPR", mask=lanes, repeat=2)
    want = -a
    for r in range(2):
        want[r * lanes + 0] = a[r * lanes + 0]
        want[r * lanes + 3] = a[r * lanes + 3]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_pair_reduce_sum(dtype):
    rng = np.random.default_rng(26)
    lanes = 256 // np.dtype(dtype).itemsize
    src = _rand(rng, 3 * lanes, dtype, -50, 50)
    got = ascendc.pair_reduce_sum(src, mask=lanes, repeat=3, params=dict(dst_rep_stride=1, src_blk_stride=1,
                                                                         src_rep_stride=8))
    want = _np_round(src[0::2].astype(np.float64) + src[1::2], dtype)
    # dst_rep_stride counts 128-byte units: repeat r's lanes/2 results start at element r * 128 / size
    np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_reduce_max_min_with_index(dtype):
    rng = np.random.default_rng(27)
    n = 1000
    src = _rand(rng, n, dtype)
    src[500] = 1000
    src[700] = 1000  # tie: the smaller index
    src[20] = -1000
    idx_view = np.uint16 if dtype == np.float16 else np.uint32
    got = ascendc.reduce_max(src, n, cal_index=True)
    assert got[0] == 1000 and int(got[1:2].view(idx_view)[0]) == 500
    got = ascendc.reduce_min(src, n, cal_index=True)
    assert got[0] == -1000 and int(got[1:2].view(idx_view)[0]) == 20
    assert ascendc.reduce_max(src, n).shape == (1,)
    with pytest.raises(tilesim.Error, match="count"):
        ascendc.reduce_max(src, n + 1)


def test_reduce_sum_count_form_is_repeat_sums_in_order():
    # docs/ascendc.md#reducesum-reducemax-reducemin: the tree of each repeat, then the repeat results
    # added in order from +0, every node a T result. The per-repeat trees are WholeReduceSum's.
    rng = np.random.default_rng(28)
    n = 64 * 7 + 13
    src = _rand(rng, n, np.float32)
    parts = ascendc.whole_reduce_sum(src, n)  # one slot per repeat
    acc = np.float32(0)
    for p in parts:
        acc = np.float32(acc + p)
    got = ascendc.reduce_sum(src, n)
    assert got.shape == (1,) and _bits(got)[0] == np.float32(acc).view(np.uint32)


def test_brcb_broadcasts_each_element_to_a_datablock():
    src = np.arange(16, dtype=np.float32)
    got = ascendc.brcb(src, 2)
    np.testing.assert_array_equal(got, np.repeat(src, 8))
    h = np.arange(8, dtype=np.float16)
    got = ascendc.brcb(h, 1, params=dict(dst_blk_stride=2, dst_rep_stride=8))
    assert got.shape == (15 * 16,)
    for j in range(8):
        assert (got[2 * j * 16:(2 * j + 1) * 16] == j).all()
    with pytest.raises(tilesim.Error, match="src"):
        ascendc.brcb(src, 3)  # needs 8 * repeat elements


def test_dtype_arguments_accept_numpy_dtypes_and_names():
    f = np.array([1.25, -2.5], np.float32)
    for d in ["fp16", "float16", "half", np.float16, np.dtype("float16")]:
        assert ascendc.cast(f, d, "CAST_NONE", 2).dtype == np.float16


def test_python_padding_never_extends_an_array():
    # The UB copies are padded to whole datablocks, but a count past an array is an error.
    a = np.ones(10, np.float16)
    with pytest.raises(tilesim.Error, match="count reaches element 11"):
        ascendc.add(a, a, 11)
    with pytest.raises(tilesim.Error, match="dst"):
        ascendc.add(np.ones(16, np.float16), np.ones(16, np.float16), 16, dst=np.zeros(12, np.float16))
    # a mask walk reading the rest of a source's last datablock is what the hardware does: accepted
    got = ascendc.abs(np.full(10, -2, np.float16), mask=10, repeat=1)
    assert got.tolist() == [2.0] * 10


def test_mul_add_dst_float_dst_half_sources():
    # MulAddDst<float, half>: the product of two halves is exact in float: one rounding, the add's.
    rng = np.random.default_rng(29)
    n = 200
    a, b = _rand(rng, n, np.float16, -300, 300), _rand(rng, n, np.float16, -300, 300)
    d = _rand(rng, n, np.float32, -3e5, 3e5)
    want = (a.astype(np.float32) * b.astype(np.float32)) + d
    got = ascendc.mul_add_dst(a, b, n, dst=d)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(_bits(got), _bits(want))
    # mask form: 64 lanes of the float dst, half source repeat stride 4
    d2 = np.full(128, -1, np.float32)
    got = ascendc.mul_add_dst(a[:128], b[:128], mask=10, repeat=2, dst=d2,
                              params=dict(dst_blk_stride=1, src0_blk_stride=1, src1_blk_stride=1, dst_rep_stride=8,
                                          src0_rep_stride=4, src1_rep_stride=4))
    want = d2.copy()
    for r in range(2):
        k = slice(r * 64, r * 64 + 10)
        want[k] = a[k].astype(np.float32) * b[k].astype(np.float32) - 1
    np.testing.assert_array_equal(_bits(got), _bits(want))
