; relu(x W + b) from memory to memory (spec 31 §4): x 16x32 fp16 at a0, W 32x16 fp16 at a1,
; b 16 fp32 at a2, the 16x16 fp16 result to a3. Run: relu_check.py, or
; tilesim run relu_xw_b.s --reg a0=0x1000 --reg a1=0x4000 --reg a2=0x8000 --reg a3=0xC000
;   --mem 0x1000=relu_x.npy --mem 0x4000=relu_w.npy --mem 0x8000=relu_b.npy --mem-out 0xC000:512=out.bin
BSTART.TLOAD FP16
B.DATR ND2NZ
B.DIM zero, 32, ->LB0
B.DIM zero, 16, ->LB1
B.IOR a0
B.IOT last, ->T<1KB>
BSTART.TLOAD FP16
B.ARG ND2ZN.normal, FP16, Null
B.DIM zero, 16, ->LB0
B.DIM zero, 32, ->LB1
B.IOR a1
B.IOT last, ->U<1KB>
BSTART.TLOAD FP32
B.DIM zero, 16, ->LB0
B.IOR a2
B.IOT last, ->N<256B>
TMATMUL.BIAS <LB0:16, LB1:16, LB2:32, FP16>, T#1, U#1, N#1, ->ACC<1KB>
BSTART.ACCCVT FP32
B.DATR FP16, layout=27
B.DIM zero, 16, ->LB0
B.DIM zero, 16, ->LB1
B.IOT last, ->T<512B>
BSTART.TEPL TMAXS, FP16
B.DIM zero, 16, ->LB0
B.DIM zero, 16, ->LB1
B.IOR zero
B.IOT T#1, last, ->T<512B>
BSTART.TSTORE FP16
B.DIM zero, 16, ->LB0
B.DIM zero, 16, ->LB1
B.IOR a3
B.IOT T#1, last
