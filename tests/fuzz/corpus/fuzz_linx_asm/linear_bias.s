# A linear layer y = x W + b as one LinxISA CUBE template block (spec 30, seed 002):
#   x: 32 x 64 activations, FP16, NZ layout, in T#1
#   W: 64 x N  weights,     FP16, ZN layout, in U#1   (N = a0 = 48)
#   b: 1 x N  bias,         FP32, row-major, in N#1
# The result (32 x 48 FP32 = 6 KB) goes to ACC.
TMATMUL.BIAS <LB0:32, LB1:a0, LB2:64, FP16>, T#1, U#1, N#1, ->ACC<8KB>   // x W + b
