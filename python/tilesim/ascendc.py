"""Ascend C vector model (spec 40): BlockReduceSum / Max / Min on NumPy arrays.

    block_reduce_sum(src, repeat, mask, dst_rep_stride, src_blk_stride, src_rep_stride,
                     *, dst=None, product='atlas_a2', saturation=None) -> np.ndarray

src is the source LocalTensor (1-D float16/float32); mask is an int (continuous mode) or a list
of 1-2 words (bit mode). Returns a new array: the destination after the call (spec 60 §4).
"""
from ._load import export as _export

_export(globals(), "ascendc")
