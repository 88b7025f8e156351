"""The pipeline-hazard checker's overhead (bench/bench_sync.cpp; bench/compare.py, issue 22 "Speed").

Each case times an example kernel with the checker on (TILESIM_CHECK=sync's work) against the same
kernel unchecked ("unchecked": BM_sync_.../off); bench.json holds sync_overhead = on / off (the
target: at most 5). The flag-pair case is the checker-off cost of a set_flag/wait_flag pair (the
"zero overhead when off" figure: compare it with memcpy of 32 bytes).
"""


def cases():
    out = [
        {"case": "sync.attention/S512/D64 (checked)", "family": "sync", "threads": 1,
         "bench": "BM_sync_attention/S512/D64/on", "unchecked": "BM_sync_attention/S512/D64/off"},
        {"case": "sync.softmax_db/256x128 (checked)", "family": "sync", "threads": 1,
         "bench": "BM_sync_softmax_db/256x128/on", "unchecked": "BM_sync_softmax_db/256x128/off"},
        {"case": "sync.ascendc_add/b8x2048 (checked)", "family": "sync", "threads": 1,
         "bench": "BM_sync_ascendc_add/b8x2048/on", "unchecked": "BM_sync_ascendc_add/b8x2048/off"},
        {"case": "sync.hook_off/flag_pair (checker off)", "family": "sync", "threads": 1,
         "bench": "BM_sync_hook_off/flag_pair", "memcpy_bytes": 32},
    ]
    return out
