; C = A B from memory to memory with a K loop (spec 31 §4): A 16x128 fp16, B 128x32 fp16, C 16x32 fp16.
; tilesim's assembler has no branch or scalar add, so the four K steps (32 columns of A, 32 rows of B
; each) are unrolled, and the host sets one address register per panel, as a compiler's address
; arithmetic would: a0..a3 = A + 64*k (A's k-th 32-column panel), s1..s4 = B + 2048*k (B's k-th
; 32-row panel), a4 = 256 (A's row stride in bytes), a5 = C. Run: gemm_k_check.py, or
; tilesim run gemm_k_loop.s --reg a0=0x1000 --reg a1=0x1040 --reg a2=0x1080 --reg a3=0x10C0 --reg a4=256
;   --reg s1=0x3000 --reg s2=0x3800 --reg s3=0x4000 --reg s4=0x4800 --reg a5=0x8000
;   --mem 0x1000=gemm_a.npy --mem 0x3000=gemm_b.npy --mem-out 0x8000:1024=c.bin
; K step 0: TMATMUL starts ACC.
TLOAD.ND2NZ <LB0:32, LB1:16, FP16>, [a0, a4], ->T<1KB>   ; A[:, 0:32] as a 16x32 NZ tile
TLOAD.ND2ZN <LB0:32, LB1:32, FP16>, [s1], ->U<2KB>       ; B[0:32, :] as a 32x32 ZN tile
TMATMUL <LB0:16, LB1:32, LB2:32, FP16>, T#1, U#1, ->ACC<2KB>
; K steps 1..3: TMATMUL.ACC continues each element's fp32 chain from ACC.
TLOAD.ND2NZ <LB0:32, LB1:16, FP16>, [a1, a4], ->T<1KB>
TLOAD.ND2ZN <LB0:32, LB1:32, FP16>, [s2], ->U<2KB>
TMATMUL.ACC <LB0:16, LB1:32, LB2:32, FP16>, T#1, U#1, ACC, ->ACC<2KB>
TLOAD.ND2NZ <LB0:32, LB1:16, FP16>, [a2, a4], ->T<1KB>
TLOAD.ND2ZN <LB0:32, LB1:32, FP16>, [s3], ->U<2KB>
TMATMUL.ACC <LB0:16, LB1:32, LB2:32, FP16>, T#1, U#1, ACC, ->ACC<2KB>
TLOAD.ND2NZ <LB0:32, LB1:16, FP16>, [a3, a4], ->T<1KB>
TLOAD.ND2ZN <LB0:32, LB1:32, FP16>, [s4], ->U<2KB>
TMATMUL.ACC <LB0:16, LB1:32, LB2:32, FP16>, T#1, U#1, ACC, ->ACC<2KB>
; ACC (16x32 fp32) -> fp16, row-major, then to memory at a5.
ACCCVT.NZ2ND <LB0:16, LB1:32, FP32, FP16>, ->T<1KB>
TSTORE <LB0:32, LB1:16, FP16>, T#1, [a5]
