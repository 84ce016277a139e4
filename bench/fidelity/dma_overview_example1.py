"""The kernel of AWS's DMA overview, Example 1 (nki/get-started/about/nki-dma-overview.rst),
written to the same structure: A[4, 4096] bf16 loaded HBM -> SBUF with one dma_copy, ScalarE
activation(exp), stored back with one dma_copy. C-1 (the load), C-2 (the table load, the exp,
the store) are all read from its profile (cases/c01_dma.py, cases/c02_activation.py)."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def tensor_exp_kernel_isa(in_tensor):
    out_tensor = nl.ndarray(in_tensor.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
    sbuf_tensor = nl.ndarray(in_tensor.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
    out_tile = nl.ndarray(in_tensor.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(src=in_tensor[0:4, 0:4096], dst=sbuf_tensor)
    nisa.activation(dst=out_tile, op=nl.exp, data=sbuf_tensor)
    nisa.dma_copy(src=out_tile, dst=out_tensor[0:4, 0:4096])
    return out_tensor
