# The debug-stream conformance kernel (tests/api/debug_stream_test.c, debug_stream_dump_test.py):
# y = 2x for x, y fp32 [4, 8], with three device prints per execution, in this simulated-time
# order (docs/isa.md §7.10):
#   "x/hbm"        SP prints x straight from HBM as [4, 2, 4], right after issuing the load;
#   "x tile"       ACT prints the loaded tile [4, 8] once the load has landed (S[0]);
#   "doubled bf16" POOL prints 2x rounded to bf16 [4, 8] once DVE has made it (S[1]).
.kernel debug_print
.input x fp32 [4, 8]
.output y fp32 [4, 8]
.debug_prefix 0 "x tile"
.debug_prefix 1 "doubled bf16"
.debug_prefix 2 "x/hbm"

.engine sp
dma_copy dst=sbuf[p0:4, 0 + [8 x 1]] fp32 src=hbm[var0 + 0, [4 x 8, 8 x 1]] fp32 queue=0 then S[0] += 1 @complete
debug_print src=hbm[var0 + 0, [4 x 8, 2 x 4, 4 x 1]] fp32 prefix=2
wait S[1] >= 1 dma_copy dst=hbm[var1 + 0, [4 x 8, 8 x 1]] fp32 src=sbuf[p0:4, 64 + [8 x 1]] fp32 queue=1 then S[2] += 1 @complete
wait S[2] >= 1 notify_end code=0

.engine act
wait S[0] >= 1 debug_print src=sbuf[p0:4, 0 + [8 x 1]] fp32 prefix=0
notify_end code=0

.engine dve
wait S[0] >= 1 tensor_scalar dst=sbuf[p0:4, 64 + [8 x 1]] fp32 in=sbuf[p0:4, 0 + [8 x 1]] fp32 operand0=2.0 operand1=0.0 op0=multiply op1=bypass
tensor_copy dst=sbuf[p0:4, 128 + [8 x 1]] bf16 in=sbuf[p0:4, 64 + [8 x 1]] fp32 then S[1] += 1 @complete
notify_end code=0

.engine pool
wait S[1] >= 1 debug_print src=sbuf[p0:4, 128 + [8 x 1]] bf16 prefix=1
notify_end code=0
