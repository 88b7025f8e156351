# header comment
 TMATMUL.BIAS <LB0:100,LB1:a0,LB2:a1+10,FP32,FP32>,T#1,U#1,N#1,->ACC<64KB> // x
