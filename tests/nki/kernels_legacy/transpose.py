"""2-D transpose, previous NKI generation: out[C, R] = x[R, C]^T, bit-exact.

transpose_pe_kernel(x) / transpose_pe
    Tiles of [128, 128] indexed with nl.mgrid (g.p, g.x); edge tiles are partial and masked in
    the input's axes on the load and the transpose, in the transposed axes on the copy and the
    store. nisa.nc_transpose(tile, engine=nisa.tensor_engine) returns the transpose as a PSUM
    tile (the PE multiplies by an identity); nl.copy brings it to SBUF.
transpose_load_kernel(x) / transpose_load
    nl.load_transpose2d: the DMA transposes while loading; x: [R, C] with C <= 128 (C becomes the
    partition dimension of the loaded tile); one load and one store.
"""
import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


def transpose_pe_kernel(x):
    R, C = x.shape
    P = nl.tile_size.pmax
    out = nl.ndarray((C, R), dtype=x.dtype, buffer=nl.shared_hbm)
    g = nl.mgrid[0:P, 0:P]
    for i in nl.affine_range((R + P - 1) // P):
        for j in nl.affine_range((C + P - 1) // P):
            in_valid = (i * P + g.p < R) & (j * P + g.x < C)
            out_valid = (j * P + g.p < C) & (i * P + g.x < R)
            tile = nl.load(x[i * P + g.p, j * P + g.x], mask=in_valid)
            tile_t = nisa.nc_transpose(tile[g.p, g.x], engine=nisa.tensor_engine, mask=in_valid)
            tile_t_sb = nl.copy(tile_t, mask=out_valid)
            nl.store(out[j * P + g.p, i * P + g.x], value=tile_t_sb, mask=out_valid)
    return out


def transpose_load_kernel(x):
    R, C = x.shape
    assert C <= nl.tile_size.pmax, f"C={C} columns exceed the {nl.tile_size.pmax} partitions"
    out = nl.ndarray((C, R), dtype=x.dtype, buffer=nl.shared_hbm)
    tile_t = nl.load_transpose2d(x[0:R, 0:C])
    nl.store(out[0:C, 0:R], value=tile_t)
    return out


transpose_pe = nki.jit(transpose_pe_kernel)
transpose_load = nki.jit(transpose_load_kernel)


def reference(x):
    return np.ascontiguousarray(np.asarray(x).T)
