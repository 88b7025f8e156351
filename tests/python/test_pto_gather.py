"""TGATHER / TSCATTER from Python (docs/pto-instructions.md#gather-and-scatter): hand-computed answers
for the index and mask forms, the out-of-range error with dst untouched, and the same bits as a
PTO-AS program running the same instructions."""
import numpy as np
import pytest

import tilesim
from tilesim import pto


def test_index_gather_and_scatter_known_answers():
    src = pto.Tile(np.arange(32, dtype=np.float32).reshape(2, 16) * 0.5)
    idx = pto.Tile(((np.arange(16) * 5) % 32).astype(np.int32).reshape(2, 8))
    for target in ("a2a3", "a5", "cpu"):
        g = pto.tgather(src, idx, target=target)
        assert g.data.tolist() == (((np.arange(16) * 5) % 32) * 0.5).reshape(2, 8).tolist()
    back = pto.tscatter(g, idx, dst=pto.Tile(np.full((2, 16), 7, np.float32)))
    want = np.zeros(32, np.float32)
    want[(np.arange(16) * 5) % 32] = g.data.reshape(-1)
    assert back.data.reshape(-1).tolist() == want.tolist()  # zeroed first, then the 16 elements


def test_mask_forms():
    src = pto.Tile(np.arange(1, 65, dtype=np.int32).reshape(4, 16))
    assert pto.tgather(src, mask_pattern="P1010").data.reshape(-1)[:4].tolist() == [2, 4, 6, 8]
    assert pto.tgather(src, mask_pattern="MaskPattern::P0101", axis="col").data.tolist() == \
        [list(range(1, 17)), list(range(33, 49))]
    s = pto.tscatter(pto.Tile(np.arange(1, 9, dtype=np.int32).reshape(1, 8)), mask_pattern="P0010")
    assert s.data.shape == (1, 32)
    assert s.data[0, 1::4].tolist() == list(range(1, 9)) and s.data[0, 0::4].tolist() == [0] * 8


def test_index_out_of_range_is_an_error_and_dst_untouched():
    src = pto.Tile(np.zeros((1, 8), np.float32))
    idx = pto.Tile(np.array([[0, 1, 2, 3, 4, 5, 6, 8]], np.int32))
    dst = pto.Tile(np.full((1, 8), 3, np.float32))
    with pytest.raises(tilesim.Error, match=r"indices element \(0, 7\) is 8, outside src0's 1x8"):
        pto.tgather(src, idx, dst=dst, target="a5")
    assert dst.data.tolist() == [[3] * 8]
    with pytest.raises(tilesim.Error, match="mask_pattern must be one of"):
        pto.tgather(src, mask_pattern="P0110")


def test_same_bits_as_ptoas():
    t = ("!pto.tile_buf<loc=vec, dtype={d}, rows=2, cols=8, v_row=2, v_col=8, blayout=row_major, "
         "slayout=none_box, fractal=512, pad=0>")
    F, I = t.format(d="f32"), t.format(d="i32")
    prog = f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %i: !pto.ptr<i32>, %y: !pto.ptr<f32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %xv = pto.make_tensor_view %x, shape = [%c2, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %iv = pto.make_tensor_view %i, shape = [%c2, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xi32>
    %yv = pto.make_tensor_view %y, shape = [%c2, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c2, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<2x8xf32>
    %ip = pto.partition_view %iv, offsets = [%c0, %c0], sizes = [%c2, %c8] : !pto.tensor_view<?x?xi32> -> !pto.partition_tensor_view<2x8xi32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c2, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<2x8xf32>
    %a = pto.alloc_tile : {F}
    %ix = pto.alloc_tile : {I}
    pto.tload ins(%xp : !pto.partition_tensor_view<2x8xf32>) outs(%a : {F})
    pto.tload ins(%ip : !pto.partition_tensor_view<2x8xi32>) outs(%ix : {I})
    %g = pto.tgather %a, %ix : ({F}, {I}) -> {F}
    pto.tstore ins(%g : {F}) outs(%yp : !pto.partition_tensor_view<2x8xf32>)
    return
  }}
}}
"""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 8)).astype(np.float32)
    i = rng.integers(0, 16, (2, 8)).astype(np.int32)
    out = pto.run(prog, {"x": x, "i": i, "y": np.zeros((2, 8), np.float32)}, target="a5")
    y = out["y"] if isinstance(out, dict) else out
    want = pto.tgather(pto.Tile(x), pto.Tile(i), target="a5").data
    assert np.asarray(y).view(np.uint32).tolist() == want.view(np.uint32).tolist()
