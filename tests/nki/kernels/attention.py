"""Fused attention forward, flash-style (online softmax), non-causal:
out = softmax(q @ k^T * scale) @ v, scale = 1/sqrt(d) unless given.

flash_attention_fwd(q, k, v, softmax_scale=None, kv_block=512)
    q: [Sq, d], k: [Skv, d], v: [Skv, dv], one dtype (float32 or bfloat16); d <= 128,
    dv <= 512, Sq and Skv multiples of 128, Skv a multiple of the KV block
    (min(kv_block, Skv), itself a multiple of 128 and <= 512). Output [Sq, dv] in q's dtype.

    Set-up (once): every 128-row chunk of k is transposed on the PE (nc_transpose through PSUM)
    into a resident kT [d, Skv] SBUF tile (d on partitions: the contraction of q . k^T);
    v stays resident as v_sb[p, c, :] = v[c * 128 + p, :].
    Per tile of 128 queries: qT [d, 128] by the same PE transpose; running state in SBUF, fp32:
    m [128, 1] (row max of the raw scores so far), l [128, 1] (sum of exp), o [128, dv]
    (unnormalised output). Per KV block j (nl.sequential_range: a loop-carried dependency):
      s     = nc_matmul(stationary=qT, moving=kT[:, block])       [128, B] fp32 in PSUM
      m_new = max(m, rowmax(s))                                   (tensor_reduce, tensor_tensor)
      p     = exp(scale * s - scale * m_new), rowsum = sum(p)     (one activation, bias vector)
              p is kept in v's dtype: it is the PE operand of p @ v
      pv    = sum over the block's 128-column chunks c of nc_matmul(stationary=p[:, c]^T,
              moving=v chunk) with p[:, c]^T from nc_transpose     [128, dv] fp32 PSUM
      alpha = exp(scale * (m - m_new))
      l     = l * alpha + rowsum;  o = o * alpha + pv             (scalar_tensor_tensor)
    (block 0 just initialises m, l, o). Finally out = o * (1 / l).

API used: nisa.nc_transpose (PE), nisa.nc_matmul with explicit accumulate, nisa.tensor_reduce,
nisa.tensor_tensor, nisa.tensor_scalar, nisa.activation (exp with scale, bias vector and
reduction), nisa.scalar_tensor_tensor (PSUM operand), nisa.reciprocal, nl.sequential_range.
"""
import math

import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl


def _transpose_to_sbuf(src_tile, dst):
    """dst[:, :] = src_tile^T via the PE and a PSUM tile of the same dtype."""
    rows, cols = src_tile.shape
    t_psum = nl.ndarray((cols, rows), dtype=src_tile.dtype, buffer=nl.psum)
    nisa.nc_transpose(dst=t_psum, data=src_tile, engine=nisa.engine.tensor)
    nisa.tensor_copy(dst=dst, src=t_psum)


@nki.jit
def flash_attention_fwd(q, k, v, softmax_scale=None, kv_block=512):
    Sq, d = q.shape
    Skv, d_k = k.shape
    Skv_v, dv = v.shape
    P = nl.tile_size.pmax
    assert d == d_k and Skv == Skv_v, f"shapes q {q.shape}, k {k.shape}, v {v.shape} disagree"
    assert d <= P, f"head dim {d} exceeds {P}"
    assert dv <= nl.tile_size.gemm_moving_fmax, f"value dim {dv} exceeds one PSUM bank"
    assert Sq % P == 0 and Skv % P == 0, "sequence lengths must be multiples of 128"
    block = min(kv_block, Skv)
    assert block % P == 0 and block <= nl.tile_size.psum_bank_fmax, f"bad KV block {block}"
    assert Skv % block == 0, f"Skv={Skv} is not a multiple of the KV block {block}"
    chunks_per_block = block // P
    scale = softmax_scale if softmax_scale is not None else 1.0 / math.sqrt(d)
    out = nl.ndarray((Sq, dv), dtype=q.dtype, buffer=nl.shared_hbm)

    # Resident K^T and V.
    k_t = nl.ndarray((d, Skv), dtype=k.dtype, buffer=nl.sbuf)
    v_sb = nl.ndarray((P, Skv // P, dv), dtype=v.dtype, buffer=nl.sbuf)
    for c in nl.affine_range(Skv // P):
        k_chunk = nl.ndarray((P, d), dtype=k.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=k_chunk, src=k[c * P:(c + 1) * P, :])
        _transpose_to_sbuf(k_chunk, k_t[:, c * P:(c + 1) * P])
        nisa.dma_copy(dst=v_sb[:, c, :], src=v[c * P:(c + 1) * P, :])

    for qi in nl.affine_range(Sq // P):
        q_chunk = nl.ndarray((P, d), dtype=q.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=q_chunk, src=q[qi * P:(qi + 1) * P, :])
        q_t = nl.ndarray((d, P), dtype=q.dtype, buffer=nl.sbuf)
        _transpose_to_sbuf(q_chunk, q_t)

        run_max = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        run_sum = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        run_out = nl.ndarray((P, dv), dtype=nl.float32, buffer=nl.sbuf)

        for j in nl.sequential_range(Skv // block):
            scores = nl.ndarray((P, block), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_matmul(dst=scores, stationary=q_t, moving=k_t[:, j * block:(j + 1) * block],
                           accumulate=False)

            blk_max = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_reduce(dst=blk_max, op=nl.maximum, data=scores, axis=1)
            new_max = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
            if j == 0:
                nisa.tensor_copy(dst=new_max, src=blk_max)
            else:
                nisa.tensor_tensor(dst=new_max, data1=run_max, data2=blk_max, op=nl.maximum)
            neg_scaled_max = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_scalar(dst=neg_scaled_max, data=new_max, op0=nl.multiply,
                               operand0=-scale)

            probs = nl.ndarray((P, block), dtype=v.dtype, buffer=nl.sbuf)
            blk_sum = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.activation(dst=probs, op=nl.exp, data=scores, bias=neg_scaled_max, scale=scale,
                            reduce_op=nl.add, reduce_res=blk_sum,
                            reduce_cmd=nisa.reduce_cmd.reset_reduce)

            pv = nl.ndarray((P, dv), dtype=nl.float32, buffer=nl.psum)
            for c in range(chunks_per_block):
                probs_t = nl.ndarray((P, P), dtype=v.dtype, buffer=nl.sbuf)
                _transpose_to_sbuf(probs[:, c * P:(c + 1) * P], probs_t)
                nisa.nc_matmul(dst=pv, stationary=probs_t,
                               moving=v_sb[:, j * chunks_per_block + c, :], accumulate=(c > 0))

            if j == 0:
                nisa.tensor_copy(dst=run_sum, src=blk_sum)
                nisa.tensor_copy(dst=run_out, src=pv)
            else:
                max_diff = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=max_diff, data1=run_max, data2=new_max, op=nl.subtract)
                alpha = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
                nisa.activation(dst=alpha, op=nl.exp, data=max_diff, scale=scale)
                nisa.scalar_tensor_tensor(dst=run_sum, data=run_sum, op0=nl.multiply,
                                          operand0=alpha, op1=nl.add, operand1=blk_sum)
                nisa.scalar_tensor_tensor(dst=run_out, data=run_out, op0=nl.multiply,
                                          operand0=alpha, op1=nl.add, operand1=pv)
            nisa.tensor_copy(dst=run_max, src=new_max)

        inv_sum = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.reciprocal(dst=inv_sum, data=run_sum)
        o_tile = nl.ndarray((P, dv), dtype=q.dtype, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=o_tile, data=run_out, op0=nl.multiply, operand0=inv_sum)
        nisa.dma_copy(dst=out[qi * P:(qi + 1) * P, :], src=o_tile)
    return out


def reference(q, k, v, softmax_scale=None):
    """softmax(q k^T * scale) v in float64 of the given (already rounded) inputs."""
    q64, k64, v64 = (np.asarray(t, np.float64) for t in (q, k, v))
    scale = softmax_scale if softmax_scale is not None else 1.0 / math.sqrt(q64.shape[1])
    s = (q64 @ k64.T) * scale
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v64
