"""Errors like NKI's (issue 17 item 5): each mistake a kernel author makes raises a Python
exception of the right type naming the kernel's file and line — the line of the mistake, not a
line of the front end. Every kernel here is traced only (nothing runs on the emulated chip
except where the test says), so each case is fast.

A kernel line is found by the `# <- name` marker at its end, so the tests do not depend on
line numbers.
"""
import os

import numpy as np
import pytest

import nki
import nki.isa as nisa
import nki.language as nl
from trnsim_nki import errors

HERE = os.path.abspath(__file__)


def line_of(marker):
    with open(HERE) as f:
        for number, text in enumerate(f, 1):
            if text.rstrip().endswith(f"# <- {marker}"):
                return number
    raise AssertionError(f"no line marked {marker}")


@pytest.fixture(autouse=True)
def trn2(monkeypatch):
    monkeypatch.setenv("NEURON_PLATFORM_TARGET_OVERRIDE", "trn2")


def raised(kernel, *args, grid=None):
    with pytest.raises(Exception) as info:
        (kernel if grid is None else kernel[grid])(*args)
    return info.value


def check(exc, exc_type, marker, *fragments):
    assert isinstance(exc, exc_type), f"{type(exc).__name__}: {exc}"
    assert os.path.abspath(exc.filename) == HERE, exc.filename
    assert exc.lineno == line_of(marker), f"line {exc.lineno}, want {line_of(marker)}: {exc}"
    text = str(exc)
    assert text.startswith(f"test_errors.py:{line_of(marker)}: "), text
    for fragment in fragments:
        assert fragment in text, f"{fragment!r} not in {text!r}"


A = np.ones((128, 512), np.float32)


# ---- partition dimension over 128 ----------------------------------------------------------

@nki.jit
def too_many_partitions(a):
    t = nl.ndarray((256, 512), dtype=nl.float32, buffer=nl.sbuf)  # <- partitions
    nisa.dma_copy(dst=t, src=a)
    return a


def test_partition_dim_over_128():
    exc = raised(too_many_partitions, np.ones((256, 512), np.float32))
    check(exc, ValueError, "partitions", "partition dim is at most 128", "[256, 512]")


@nki.jit
def matmul_contracting_256(a, b):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    # A view of an HBM tensor may have any first dim; DMA-ing it into a 128-partition tile is
    # where the size shows, as an element-count mismatch.
    ta = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a[0:256, :])  # <- dma_count
    return out


def test_dma_element_count_mismatch():
    exc = raised(matmul_contracting_256, np.ones((256, 128), np.float32), A)
    check(exc, ValueError, "dma_count", "nisa.dma_copy", "elements")


# ---- SBUF and PSUM overflow -------------------------------------------------------------------

@nki.jit
def sbuf_overflow(a):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    tiles = []
    for i in nl.static_range(5):
        big = nl.ndarray((128, 12288), dtype=nl.float32, buffer=nl.sbuf)  # <- big
        nisa.memset(dst=big, value=float(i))
        tiles.append(big)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for big in tiles:  # every big tile is live until here: 5 x 48 KiB per partition
        nisa.tensor_tensor(dst=acc, data1=acc, data2=big[:, 0:512], op=nl.add)
    nisa.dma_copy(dst=out, src=acc)
    return out


def test_sbuf_overflow():
    exc = raised(sbuf_overflow, A)
    check(exc, MemoryError, "big", "SBUF overflow", "49152 bytes per partition", "212984")


@nki.jit
def psum_overflow(a):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    ta = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    tb = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a[:, 0:128])
    nisa.dma_copy(dst=tb, src=a)
    banks = []
    for i in nl.static_range(9):  # nine 2 KiB accumulators live at once: PSUM has 8 banks
        acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)  # <- acc
        nisa.nc_matmul(dst=acc, stationary=ta, moving=tb)
        banks.append(acc)
    total = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=total, value=0.0)
    for acc in banks:
        nisa.tensor_tensor(dst=total, data1=total, data2=acc, op=nl.add)
    nisa.dma_copy(dst=out, src=total)
    return out


def test_psum_overflow():
    exc = raised(psum_overflow, A)
    check(exc, MemoryError, "acc", "PSUM overflow", "16384")


# ---- matmul shape and dtype mismatches ----------------------------------------------------

@nki.jit
def matmul_bad_contraction(a, b):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    ta = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    tb = nl.ndarray((64, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a)
    nisa.dma_copy(dst=tb, src=b)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc, stationary=ta, moving=tb)  # <- contraction
    return out


def test_matmul_contraction_mismatch():
    exc = raised(matmul_bad_contraction, np.ones((128, 128), np.float32),
                 np.ones((64, 512), np.float32))
    check(exc, ValueError, "contraction", "nisa.nc_matmul", "128 != 64")


@nki.jit
def matmul_bad_dst(a, b):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    ta = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    tb = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a)
    nisa.dma_copy(dst=tb, src=b)
    acc = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc, stationary=ta, moving=tb)  # <- dst_shape
    return out


def test_matmul_dst_shape_mismatch():
    exc = raised(matmul_bad_dst, np.ones((128, 128), np.float32), A)
    check(exc, ValueError, "dst_shape", "must be [128, 512]")


@nki.jit
def matmul_mixed_dtypes(a, b):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    ta = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    tb = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a)
    nisa.dma_copy(dst=tb, src=b)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc, stationary=ta, moving=tb)  # <- dtypes
    return out


def test_matmul_dtype_mismatch():
    exc = raised(matmul_mixed_dtypes, np.ones((128, 128), np.float32), A)
    check(exc, TypeError, "dtypes", "float32", "bfloat16")


# ---- an operand in a buffer the instruction cannot read ---------------------------------------

@nki.jit
def matmul_moving_in_psum(a):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    ta = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a[:, 0:128])
    moving = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc, stationary=ta, moving=moving)  # <- psum_moving
    return out


def test_operand_in_wrong_buffer():
    exc = raised(matmul_moving_in_psum, A)
    check(exc, ValueError, "psum_moving", "moving is in psum", "only in sbuf")


@nki.jit
def dma_from_psum(a):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    nisa.dma_copy(dst=out, src=acc)  # <- dma_psum
    return out


def test_dma_cannot_read_psum():
    exc = raised(dma_from_psum, A)
    check(exc, ValueError, "dma_psum", "src is in psum")


@nki.jit
def gpsimd_on_psum(a):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=t, src=acc, engine=nisa.engine.gpsimd)  # <- pool_psum
    return out


def test_gpsimd_cannot_access_psum():
    exc = raised(gpsimd_on_psum, A)
    check(exc, ValueError, "pool_psum", "GpSimd engine cannot access PSUM")


# ---- unsupported names ------------------------------------------------------------------------

@nki.jit
def uses_unsupported(a):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.rand((128, 512), dtype=nl.float32)  # <- unsupported
    return out


def test_unsupported_name_cites_its_docs_row():
    exc = raised(uses_unsupported, A)
    check(exc, NotImplementedError, "unsupported", "nl.rand",
          "docs/nki.md#coverage, row `nl.rand`")
    docs = os.path.join(os.path.dirname(HERE), "..", "..", "docs", "nki.md")
    with open(docs) as f:
        assert "| `nl.rand` |" in f.read(), "the cited row must exist in docs/nki.md"


@nki.jit
def uses_unsupported_dtype(a):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=nl.float8_e4m3fn, buffer=nl.sbuf)  # <- fp8fn
    return out


def test_unsupported_dtype():
    exc = raised(uses_unsupported_dtype, A)
    check(exc, NotImplementedError, "fp8fn", "nl.float8_e4m3fn")


# ---- the ISA's own checks come back at the kernel line too ------------------------------------

@nki.jit
def act_with_bitvec(a):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.tensor_scalar(dst=t, data=t, op0=nl.subtract, operand0=1.0,  # <- act_op
                       engine=nisa.engine.scalar)
    nisa.dma_copy(dst=out, src=t)
    return out


def test_engine_restriction():
    exc = raised(act_with_bitvec, A)
    check(exc, ValueError, "act_op", "Scalar engine runs only")


def test_errors_are_trnsim_nki_classes():
    # Each class is both NKI-like (a standard exception type) and carries the location.
    for cls, base in ((errors.NkiValueError, ValueError), (errors.NkiTypeError, TypeError),
                      (errors.NkiResourceError, MemoryError),
                      (errors.NkiNotImplementedError, NotImplementedError)):
        assert issubclass(cls, base)
