"""The OpenBLAS peer (spec 60 §6), timed in its own process.

This host sets OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, which force an older OpenBLAS kernel (about
half the speed here). OpenBLAS reads them when it loads, so the peer runs in a child process with
both unset and reports the kernel it chose (openblas_get_corename). compare.py calls measure(quick)
on such a peer instead of timing a callable in its own process.

Child mode: python3 openblas_peer.py M N K THREADS quick|full [cpu] -> prints "<seconds per call>
<core>"; with `cpu` the child times with time.thread_time (compare.py --cpu, one thread).
"""
import ctypes
import ctypes.util
import os
import subprocess
import sys

_ENV_FORCING_A_KERNEL = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


class Sgemm:
    """cblas_sgemm of an (M x K) by (K x N) fp32 product, row-major, in a child process."""

    def __init__(self, m, n, k, threads):
        self.args = [str(m), str(n), str(k), str(threads)]

    def measure(self, quick, cpu=False):
        env = {k: v for k, v in os.environ.items() if k not in _ENV_FORCING_A_KERNEL}
        out = subprocess.run([sys.executable, os.path.abspath(__file__), *self.args,
                              "quick" if quick else "full"] + (["cpu"] if cpu else []), env=env,
                             capture_output=True, text=True, check=True).stdout.split()
        return float(out[0]), "openblas kernel " + (out[1] if len(out) > 1 else "?")


def _child(m, n, k, threads, quick, cpu=False):
    import numpy as np
    lib = None
    for name in ("libopenblas.so", "libopenblas.so.0", ctypes.util.find_library("openblas")):
        if name:
            try:
                lib = ctypes.CDLL(name)
                break
            except OSError:
                pass
    if lib is None:
        raise SystemExit("libopenblas not found")
    lib.openblas_set_num_threads(threads)
    lib.openblas_get_corename.restype = ctypes.c_char_p
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    c = np.empty((m, n), np.float32)
    P = ctypes.c_void_p
    one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)

    def call():
        lib.cblas_sgemm(101, 111, 111, m, n, k, one, P(a.ctypes.data), k, P(b.ctypes.data), n, zero,
                        P(c.ctypes.data), n)

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from compare import time_call  # the same sampling as every other peer

    import time
    seconds = time_call(call, quick, time.thread_time if cpu else time.perf_counter)
    print(seconds, lib.openblas_get_corename().decode())


if __name__ == "__main__":
    m, n, k, threads = (int(x) for x in sys.argv[1:5])
    _child(m, n, k, threads, sys.argv[5] == "quick", len(sys.argv) > 6 and sys.argv[6] == "cpu")
