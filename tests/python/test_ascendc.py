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
        (dict(repeat=256), "Constraint", "repeatTime must be in [0, 255], got 256 [spec 40 §3]"),
        (dict(mask=0), "Constraint", "continuous mask (half) must be in [1, 128], got 0"),
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
