"""The legacy NKI generation's errors (issue 17, item 5): each raises a Python exception of the
stated type naming the kernel's file and line (`e.filename`, `e.lineno` of trnsim_nki.errors),
never a crash or a silent wrong answer; and docs/nki.md's `legacy.*` coverage rows agree with
what the modules do (a supported name resolves to an implementation, an unsupported one raises
NotImplementedError citing its own row).

The line each error must name is marked in this file with `# ERR:<tag>`.
"""
import os
import pathlib
import re

import numpy as np
import pytest

import neuronxcc.nki as nki
import neuronxcc.nki.compiler as ncc
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
import neuronxcc.nki.typing as nt
from trnsim_nki import errors, harness
from trnsim_nki.api_names import API, ROW_PREFIX

HERE = pathlib.Path(__file__).resolve()
REPO = HERE.parents[2]
A = np.zeros((128, 512), np.float32)


def line_of(tag):
    for number, text in enumerate(HERE.read_text().splitlines(), 1):
        if text.rstrip().endswith(f"# ERR:{tag}"):
            return number
    raise AssertionError(f"no line marked ERR:{tag}")


def fails(exc_type, tag, fn, *args, **kwargs):
    """Runs fn, expecting exc_type located at the line marked ERR:tag; returns the error."""
    with pytest.raises(exc_type) as info:
        fn(*args, **kwargs)
    e = info.value
    assert pathlib.Path(e.filename).resolve() == HERE, (e.filename, str(e))
    assert e.lineno == line_of(tag), str(e)
    assert str(e).startswith(f"{HERE.name}:{e.lineno}: ")
    return e


# ---- tile shapes, buffers, index bounds ----------------------------------------------------------

@nki.jit
def tall_tile(a):
    nl.load(a)  # ERR:pmax
    return a


@nki.jit
def past_the_end(a):
    p, f = nl.arange(128)[:, None], nl.arange(512)[None, :]
    nl.load(a[p + 64, f])  # ERR:oob
    return a


@nki.jit
def mask_too_loose(a):
    p, f = nl.arange(128)[:, None], nl.arange(512)[None, :]
    out = nl.ndarray((100, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out[p, f], nl.load(a), mask=(p < 101))  # ERR:mask_oob
    return out


@nki.jit
def compute_on_hbm(a):
    nl.exp(a)  # ERR:hbm
    return a


@nki.jit
def block_tensor_as_tile(a):
    blocks = nl.ndarray((2, nl.par_dim(128), 64), dtype=nl.float32)
    nl.exp(blocks)  # ERR:block
    return a


def test_tile_and_index_errors():
    e = fails(errors.NkiValueError, "pmax", tall_tile, np.zeros((256, 8), np.float32))
    assert "at most 128" in str(e)
    e = fails(errors.NkiValueError, "oob", past_the_end, A)
    assert "err_tensor_access_out_of_bound" in str(e) and "64 to 191" in str(e)
    fails(errors.NkiValueError, "mask_oob", mask_too_loose, A)
    e = fails(errors.NkiValueError, "hbm", compute_on_hbm, A)
    assert "err_unsupported_memory" in str(e)
    e = fails(errors.NkiValueError, "block", block_tensor_as_tile, A)
    assert "err_failed_to_infer_tile_from_local_tensor" in str(e)


# ---- index expressions and masks ----------------------------------------------------------------

@nki.jit
def product_index(a):
    p, f = nl.arange(128)[:, None], nl.arange(64)[None, :]
    nl.load(a[p, p * f])  # ERR:product
    return a


@nki.jit
def mixed_index(a):
    nl.load(a[nl.arange(128)[:, None], 0:64])  # ERR:mixed
    return a


@nki.jit
def flat_arange(a):
    nl.load(a[nl.arange(128)])  # ERR:flat
    return a


@nki.jit
def diagonal_mask(a):
    p, f = nl.arange(128)[:, None], nl.arange(512)[None, :]
    nl.load(a[p, f], mask=(p + f < 100))  # ERR:diag
    return a


@nki.jit
def branch_on_index(a):
    p = nl.arange(128)[:, None]
    if p < 64:  # ERR:branch
        nl.load(a)
    return a


def test_index_and_mask_errors():
    e = fails(errors.NkiNotImplementedError, "product", product_index, A)
    assert e.api == "legacy.nl.arange"
    fails(errors.NkiValueError, "mixed", mixed_index, A)
    e = fails(errors.NkiValueError, "flat", flat_arange, A)
    assert "err_1d_arange_not_supported" in str(e)
    e = fails(errors.NkiNotImplementedError, "diag", diagonal_mask, A)
    assert e.api == "legacy.nl.load" and "row `legacy.nl.load`" in str(e)
    fails(errors.NkiTypeError, "branch", branch_on_index, A)


# ---- matmul shapes, dtypes and buffers ------------------------------------------------------------

@nki.jit
def contraction_mismatch(a, b):
    nisa.nc_matmul(nl.load(a), nl.load(b))  # ERR:contract
    return a


@nki.jit
def stationary_in_psum(a):
    acc = nl.zeros((128, 128), nl.float32, buffer=nl.psum)
    nisa.nc_matmul(acc, nl.load(a))  # ERR:psum_operand
    return a


@nki.jit
def mixed_precision(a, b):
    nl.matmul(nl.load(a), nl.load(b), transpose_x=True)  # ERR:dtype
    return a


def test_matmul_errors():
    e = fails(errors.NkiValueError, "contract", contraction_mismatch,
              np.zeros((128, 128), np.float32), np.zeros((64, 512), np.float32))
    assert "128 != 64" in str(e)
    e = fails(errors.NkiValueError, "psum_operand", stationary_in_psum, A)
    assert "stationary is in psum" in str(e)
    fails(errors.NkiTypeError, "dtype", mixed_precision, np.zeros((128, 128), np.float32),
          nl.static_cast(np.zeros((128, 512), np.float32), nl.bfloat16))


# ---- SBUF and PSUM overflow -----------------------------------------------------------------------

@nki.jit
def hoard_sbuf(a):
    kept = [nl.load(a[i]) for i in range(16)]  # ERR:sbuf
    total = kept[0]
    for t in kept[1:]:
        total = total + t
    out = nl.ndarray((128, 4096), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, total)
    return out


@nki.jit
def hoard_psum(a):
    tile = nl.load(a)
    products = [nisa.nc_matmul(tile[:, 0:128], tile) for _ in range(9)]  # ERR:psum
    total = nl.copy(products[0])
    for p in products[1:]:
        total = total + p
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, total)
    return out


def test_overflow_errors():
    e = fails(errors.NkiResourceError, "sbuf", hoard_sbuf, np.zeros((16, 128, 4096), np.float32))
    assert isinstance(e, MemoryError) and "SBUF overflow" in str(e)
    e = fails(errors.NkiResourceError, "psum", hoard_psum, A)
    assert "PSUM overflow" in str(e)


# ---- assignment, harness and unsupported names ------------------------------------------------------

@nki.jit
def stale_view(a):
    t = nl.ndarray((128, 512), dtype=a.dtype)
    r = nl.exp(nl.load(a))
    early = r[...]
    t[...] = r
    nl.exp(early)  # ERR:stale
    return a


@nki.jit
def unsupported_calls(a):
    tile = nl.load(a)
    nl.gather_flattened(tile, tile)  # ERR:gather
    return a


@nki.jit
def read_modify_write(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=a, dst_rmw_op=np.add)  # ERR:rmw
    return out


@nki.jit(platform_target="trn3" if os.environ.get(
    "NEURON_PLATFORM_TARGET_OVERRIDE", "trn2") == "trn2" else "trn2")
def other_chip(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, nl.load(a))
    return out


def test_assignment_harness_and_unsupported_errors():
    fails(errors.NkiError, "stale", stale_view, A)
    e = fails(errors.NkiNotImplementedError, "gather", unsupported_calls, A)
    assert e.api == "legacy.nl.gather_flattened"
    e = fails(errors.NkiNotImplementedError, "rmw", read_modify_write, A)
    assert e.api == "legacy.nisa.dma_copy"
    # Harness calls raise at the line that calls them.
    with pytest.raises(errors.NkiValueError) as info:
        other_chip(A)  # ERR:platform
    assert info.value.lineno == line_of("platform")
    assert "NEURON_PLATFORM_TARGET_OVERRIDE" in str(info.value)
    with pytest.raises(errors.NkiValueError) as info:
        nki.profile(working_directory="out")  # ERR:relative
    assert info.value.lineno == line_of("relative") and "absolute" in str(info.value)
    with pytest.raises(errors.NkiNotImplementedError) as info:
        nki.jit(other_chip.fn, mode="jax")  # ERR:jax
    assert info.value.lineno == line_of("jax") and info.value.api == "legacy.nki.jit"
    with pytest.raises(errors.NkiNotImplementedError) as info:
        ncc.sbuf.mod_alloc(base_addr=0)  # ERR:alloc
    assert info.value.lineno == line_of("alloc")
    assert info.value.api == "legacy.ncc.sbuf.mod_alloc"


# ---- docs/nki.md's legacy rows against the modules -----------------------------------------------

MODULES = {"neuronxcc.nki": nki, "neuronxcc.nki.language": nl, "neuronxcc.nki.isa": nisa,
           "neuronxcc.nki.compiler": ncc, "neuronxcc.nki.typing": nt}


def legacy_rows():
    text = (REPO / "docs" / "nki.md").read_text()
    found = {}
    for m in re.finditer(r"^\| `(legacy\.[^`]+)` \| `.*` \| ([a-z ]+) \| (.*) \|$", text, re.M):
        found[m.group(1)] = (m.group(2), m.group(3))
    return found


def resolve(module, name):
    if name == "benchmark_result.nc_latency.get_latency_percentile":
        return harness.LatencyResult.get_latency_percentile
    obj = module
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def is_stub(obj):
    return (getattr(obj, "__doc__", None) or "").startswith("Not supported by trnsim")


def test_every_legacy_row_matches_the_modules():
    rows = legacy_rows()
    checked = 0
    for module_name, module in MODULES.items():
        for name in API["legacy"][module_name]:
            row = f"{ROW_PREFIX[module_name]}.{name}"
            status, note = rows[row]
            if status in ("supported", "partial"):
                obj = resolve(module, name)
                assert not is_stub(obj), row
                if status == "partial":
                    assert note, f"{row}: a partial row says what is missing"
            else:
                assert status == "not supported" and note or status == "not yet", row
                with pytest.raises(errors.NkiNotImplementedError) as info:
                    obj = resolve(module, name)
                    for args in ((), (None,), (None, None)):
                        try:
                            obj(*args)
                        except TypeError as e:
                            if isinstance(e, errors.NkiTypeError):
                                raise
                            continue
                        break
                # a member of an unsupported class cites the class's row
                parent = row.rsplit(".", 1)[0]
                assert info.value.api in (row, parent), (row, str(info.value))
            checked += 1
    assert checked == len(rows) == 236
