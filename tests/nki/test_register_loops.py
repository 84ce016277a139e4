"""Register loops of the NKI tracer (docs/nki.md "Register loops"): nl.fori_loop,
nl.while_loop, nl.dynamic_range, nisa.register_*, register offsets (.ap(scalar_offset=),
nl.ds(register)), and their synchronisation (python/trnsim_nki/loop_sync.py).

Every kernel reads its trip count on the device, so one NEFF serves every count; results are
checked exactly against NumPy for counts 0, 1 and several. The dependency tests drop one kind
of synchronisation (monkeypatching loop_sync or loop_deps) and check that the kernel built
without it is then wrong, so each kind is shown to be needed and present. Simulated time is
asserted as figures the model computes deterministically: it grows with the count by about
the same amount per iteration once the loop runs, and a repeated call gives the same
picoseconds.

Chips: TRNSIM_TEST_CHIPS (comma-separated, default trn2,trn3); through neurond (DAEMON in
CMakeLists.txt) the daemon's instance decides the device, and TRNSIM_TEST_EXPECT_INSTANCE names
it.
"""
import io
import json
import os
import sys
import tarfile

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import loop_kernels as K  # noqa: E402
import loop_programs  # noqa: E402
from kernels import register_loop  # noqa: E402

import nki  # noqa: E402
import nki.isa as nisa  # noqa: E402
import nki.language as nl  # noqa: E402
from trnsim_nki import loop_deps, loop_sync  # noqa: E402

CHIPS = tuple(c for c in os.environ.get("TRNSIM_TEST_CHIPS", "trn2,trn3").split(",") if c)
INSTANCES = {"trn2": "trn2.3xlarge", "trn3": "trn3.48xlarge"}


def use_platform(monkeypatch, chip, lnc=1):
    monkeypatch.setenv("NEURON_PLATFORM_TARGET_OVERRIDE", chip)
    monkeypatch.setenv("NEURON_LOGICAL_NC_CONFIG", str(lnc))
    if not os.environ.get("TRNSIM_DAEMON"):
        monkeypatch.setenv("TRNSIM_INSTANCE", INSTANCES[chip])


@pytest.fixture(params=CHIPS)
def chip(request, monkeypatch):
    use_platform(monkeypatch, request.param)
    return request.param


def count(c):
    return np.array([[c]], dtype=np.int32)


def blocks(rng, *shape):
    """Multiples of 1/8 in [-8, 8): sums of a few are exact in fp32."""
    return (rng.integers(-64, 64, size=shape) / 8).astype(np.float32)


def fresh(kernel):
    """The kernel's function under a new @nki.jit (nothing cached: traced and built anew)."""
    return nki.jit(kernel.fn)


def debug_info(kernel):
    neff = kernel.last.neff
    with tarfile.open(fileobj=io.BytesIO(neff[1024:])) as archive:
        return json.loads(archive.extractfile("kernel_debug_info.json").read())["instructions"]


def executed(kernel):
    """Instructions each engine of core 0 executed in the last call."""
    engines = kernel.report.stats["cores"][0]["engines"]
    return {e: int(v.get("instructions", 0)) for e, v in engines.items()}


def test_runs_on_the_expected_instance(chip):
    """In process the chip's default instance; through neurond (TRNSIM_TEST_EXPECT_INSTANCE)
    the daemon's."""
    register_loop.block_sum_fori(np.ones((4, 128, 64), np.float32), count(2))
    from trnsim_nki import runner
    info = runner.runtime_info()
    assert info["instance"] == os.environ.get("TRNSIM_TEST_EXPECT_INSTANCE", INSTANCES[chip])
    assert info["chip"] == chip


# ---- the suite's register-loop kernels (tests/nki/kernels/register_loop.py) -------------------

@pytest.mark.parametrize("kernel", [register_loop.block_sum_fori, register_loop.block_sum_while],
                         ids=["fori", "while"])
def test_block_sum(chip, kernel):
    rng = np.random.default_rng(17)
    x = blocks(rng, 4, 128, 64)
    for c in (0, 1, 3, 4):
        got_sum, got_side = kernel(x, count(c))
        np.testing.assert_array_equal(got_sum, register_loop.reference_sum(x, c))
        want_side = c - 1 if kernel is register_loop.block_sum_fori else 0
        np.testing.assert_array_equal(got_side, [[want_side]])


@pytest.mark.parametrize("kernel", [register_loop.block_sum_fori, register_loop.block_sum_while],
                         ids=["fori", "while"])
def test_time_and_instructions_grow_per_iteration(chip, kernel):
    x = np.ones((4, 128, 64), np.float32)
    durations, instructions = [], []
    for c in (0, 1, 2, 3, 4):
        kernel(x, count(c))
        durations.append(kernel.report.duration_ps)
        instructions.append(executed(kernel))
    kernel(x, count(4))
    assert kernel.report.duration_ps == durations[-1]  # deterministic
    steps = np.diff(durations)
    assert (steps > 0).all(), durations
    # Once the loop runs, every further iteration costs about the same simulated time (the
    # iterations cannot overlap: each load waits for the previous add to read the one block
    # buffer), within 1% of each other.
    assert steps[1:].max() <= 1.01 * steps[1:].min(), durations
    # Each engine in the loop executes the same number of instructions per iteration (its body
    # plus its own loop control); the others none.
    looping = set()
    for engine in instructions[0]:
        per = {instructions[c][engine] - instructions[c - 1][engine] for c in range(1, 5)}
        assert len(per) == 1, (engine, [i[engine] for i in instructions])
        if per.pop() > 0:
            looping.add(engine)
    assert {"sp", "dve"} <= looping and "pe" not in looping, looping


# ---- each kind of synchronisation is needed ----------------------------------------------------

def _dropping(monkeypatch, kind):
    """Builds kernels without one kind of loop synchronisation (loop_sync.py), or, for
    "zero_trip", with an analysis that forgets that a loop may run zero times (loop_deps.py)."""
    if kind == "zero_trip":
        def loop_without_merge(walk, node, copies):
            for c in (0, 1):
                walk._nodes(node.children, copies + ((node, c),))
        monkeypatch.setattr(loop_deps._Walk, "_loop", loop_without_merge)
        return
    if kind == "drain":
        original = loop_sync.assign

        def assign(plan, trace):
            semaphores = original(plan, trace)
            for node in plan.loops:
                for engine in node.engines:
                    node.exit(engine).drains.clear()
            return semaphores
        monkeypatch.setattr(loop_sync, "assign", assign)
        return
    original = loop_sync.edges

    def keep(edge):
        region, carried, cons, prod = edge
        return not {"carried": carried,
                    "intra": region is not None and not carried,
                    "entry": cons.kind == "entry",
                    "exit": prod.kind == "exit"}[kind]

    monkeypatch.setattr(loop_sync, "edges",
                        lambda plan, trace: [e for e in original(plan, trace) if keep(e)])


def _pipelined(rng, kernel):
    results = []
    for c in (1, 2, 4):
        x = blocks(rng, 4, 128, 64)
        results.append(np.array_equal(kernel(x, count(c)), 2 * K.block_sums(x, c)))
    return results


def _entry(rng, kernel):
    y = blocks(rng, 128, 64)
    return [np.array_equal(kernel(y), 8 * y.astype(np.float64))]


def _zero_trip(rng, kernel):
    results = []
    for c in (0, 2):
        u = blocks(rng, 128, 2048)
        want = u[:, :64] if c == 0 else np.full((128, 64), 2.0)
        results.append(np.array_equal(kernel(u, count(c)), want))
    return results


def _nested(rng, kernel):
    results = []
    for no, ni in ((1, 2), (3, 3), (2, 1)):
        x = blocks(rng, 3, 3, 128, 64)
        results.append(np.array_equal(kernel(x, count(no), count(ni)),
                                      K.nested_reference(x, no, ni)))
    return results


# kind -> (kernel, check): the check returns one bool per call, True when the output is right.
# Fresh inputs in every call: a stale tile left in SBUF by an earlier call cannot look right.
DEPENDENCY_CASES = {
    "carried": (K.pipelined_sum, _pipelined),  # iteration i+1's load overwrites i's tile
    "intra": (K.pipelined_sum, _pipelined),  # ACT reads the tile before the load
    "exit": (K.pipelined_sum, _pipelined),  # the store before the last add
    "entry": (K.entry_sum, _entry),  # DVE's loop before ACT's base
    "drain": (K.nested_sums, _nested),  # the inner loop re-entered with a credit left
    "zero_trip": (K.zero_trip_overwrite, _zero_trip),  # ACT after a loop that never wrote
}


@pytest.mark.parametrize("kind", sorted(DEPENDENCY_CASES))
def test_dependency_kind_is_needed(chip, kind, monkeypatch):
    kernel, check = DEPENDENCY_CASES[kind]
    rng = np.random.default_rng(len(kind))
    assert all(check(rng, fresh(kernel))), "wrong with every dependency in place"
    with monkeypatch.context() as m:
        _dropping(m, kind)
        results = check(rng, fresh(kernel))
    assert not all(results), f"still right without the {kind} dependencies: the test proves nothing"


# ---- random programs --------------------------------------------------------------------------

@pytest.mark.parametrize("first", [0, 40, 80])
def test_random_programs(chip, first):
    """40 random programs of loads, copies, negations, max/min and stores on ACT, DVE, POOL and
    SP, in up to five loops nested up to twice (loop_programs.py), each run with four sets of
    trip counts, are exact against their NumPy interpretation (1500 programs were, on trn2 and
    trn3, while writing this test). Built without the carried, same-iteration, entry or exit
    dependencies, 60, 125, 54 and 132 of the first 300 go wrong on trn2, and 2 without the
    zero-trip merge (test_dependency_kind_is_needed has a kernel for each); 29 of them reuse
    semaphores across loops."""
    for seed in range(first, first + 40):
        rng = np.random.default_rng(seed)
        program = loop_programs.random_program(rng)
        x = blocks(rng, loop_programs.BLOCKS, loop_programs.R, loop_programs.F)
        for counts in loop_programs.COUNT_SETS:
            got = loop_programs.run_program(x, np.array([counts], np.int32), program)
            want = loop_programs.reference(x, counts, program)
            assert np.array_equal(got, want), (seed, counts, program)


# ---- more loops --------------------------------------------------------------------------------

def test_nested_loops(chip):
    rng = np.random.default_rng(3)
    for no, ni in ((0, 0), (0, 3), (3, 0), (1, 1), (2, 3), (3, 3)):
        x = blocks(rng, 3, 3, 128, 64)
        np.testing.assert_array_equal(K.nested_sums(x, count(no), count(ni)),
                                      K.nested_reference(x, no, ni))


def test_more_than_four_waits_and_updates(chip):
    rng = np.random.default_rng(5)
    for c in (0, 1, 3):
        x = blocks(rng, 3, 128, 64)
        got = K.fan_out(x, count(c))
        for k in range(5):
            np.testing.assert_array_equal(got[k], (k + 1) * K.block_sums(x, c))
        x5 = blocks(rng, 3, 128, 5 * 32)
        want = np.zeros_like(x5)
        want[:c] = 3 * x5[:c]
        np.testing.assert_array_equal(K.fan_in(x5, count(c)), want)
    # The spills happened: fan_out's load carries its extra updates on a barrier after it,
    # fan_in's tile write its extra waits on a nop before it (kernel_debug_info.json).
    spilled = [(i["api"], i["opcode"]) for i in debug_info(K.fan_out)]
    assert ("nisa.dma_copy", "barrier") in spilled
    spilled = [(i["api"], i["opcode"]) for i in debug_info(K.fan_in)]
    assert ("nisa.tensor_scalar", "nop") in spilled


def test_loops_one_after_another_reuse_registers_and_semaphores(chip):
    """150 loops in a row fit in 64 registers (each loop holds an induction register and a
    count register while it runs: a number is free again after its last use) and in 256
    semaphores (each loop's body needs three credits; a semaphore is reused once every engine
    of a later loop is ordered after the engine that consumed it)."""
    @nki.jit
    def repeated(x, c):
        NB, R, F = x.shape
        out = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=acc, value=0.0)
        for _ in range(150):
            n = K._count(c)

            def body(i):
                blk = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.sbuf)
                nisa.dma_copy(dst=blk, src=K._block(x, i))
                nisa.tensor_tensor(dst=acc, data1=acc, data2=blk, op=nl.add)

            nl.fori_loop(0, n, body)
        nisa.dma_copy(dst=out, src=acc)
        return out

    rng = np.random.default_rng(23)
    x = (rng.integers(-8, 8, size=(2, 128, 64)) / 8).astype(np.float32)
    for c in (0, 2):
        np.testing.assert_array_equal(repeated(x, count(c)), 150 * K.block_sums(x, c))
    texts = {i["opcode"] for i in debug_info(repeated)}
    assert "branch" in texts


def test_while_loop_with_a_new_register_each_iteration(chip):
    for c in (0, 1, 5):
        np.testing.assert_array_equal(K.countdown(count(c)), [[c * (c + 1) // 2, c]])


def test_registers_without_a_loop(chip):
    np.testing.assert_array_equal(K.registers_io(count(-5)), [[7, -5, -5, 7]])
    np.testing.assert_array_equal(K.registers_io(count(2 ** 31 - 1)),
                                  [[7, 2 ** 31 - 1, 2 ** 31 - 1, 7]])


def test_dynamic_range(chip):
    rng = np.random.default_rng(7)
    for c in (0, 1, 2, 4):
        x = blocks(rng, 4, 128, 64)
        np.testing.assert_array_equal(K.ranged_sum(x, count(c)),
                                      K.block_sums(x[1:], max(c - 1, 0)))


def test_ds_with_a_register_expression(chip):
    rng = np.random.default_rng(11)
    for c in (0, 1, 4):
        x = blocks(rng, 128, 4 * 64)
        want = np.zeros_like(x)
        want[:, :c * 64] = 2 * x[:, :c * 64]
        np.testing.assert_array_equal(K.doubled_columns(x, count(c)), want)


def test_matmul_accumulating_across_iterations(chip):
    rng = np.random.default_rng(13)
    a = (rng.integers(-8, 8, size=(3, 128, 64)) / 8).astype(np.float32)
    b = (rng.integers(-8, 8, size=(3, 128, 256)) / 8).astype(np.float32)
    for c in (0, 1, 3):
        want = sum((a[i].T.astype(np.float64) @ b[i] for i in range(c)), np.zeros((64, 256)))
        np.testing.assert_array_equal(K.matmul_sum(a, b, count(c)), want)


def test_lnc2_programs_each_loop_on_their_core(monkeypatch):
    use_platform(monkeypatch, CHIPS[0], lnc=2)
    rng = np.random.default_rng(19)
    for grid in (2, 4):  # grid 4: two programs, so two loops in a row, on each core
        for c in (0, 3):
            x = blocks(rng, grid, 3, 128, 64)
            np.testing.assert_array_equal(K.program_sums[grid](x, count(c)),
                                          x[:, :c].sum(axis=1))
        assert K.program_sums.last.lnc == 2


def test_lnc2_sendrecv_after_a_loop(monkeypatch):
    use_platform(monkeypatch, CHIPS[0], lnc=2)
    rng = np.random.default_rng(29)
    for c in (0, 1, 3):
        x = blocks(rng, 2, 3, 128, 64)
        both = x[:, :c].sum(axis=1).sum(axis=0)
        np.testing.assert_array_equal(K.exchanged_sums[2](x, count(c)), np.stack([both, both]))


# ---- errors ------------------------------------------------------------------------------------

def _trace_error(fn, *args):
    """The exception tracing fn raises (the platform need not run anything)."""
    with pytest.raises(Exception) as info:
        nki.jit(fn)(*args)
    return info.value


def test_a_register_has_no_value_at_trace_time(chip):
    def in_if(count):
        r = nisa.register_alloc(1)
        if r:
            pass

    def in_range(count):
        for _ in range(nisa.register_alloc(3)):
            pass

    for fn in (in_if, in_range):
        e = _trace_error(fn, count(1))
        assert isinstance(e, TypeError) and "not known while the kernel is traced" in str(e)
        assert e.filename == __file__


def test_loop_errors_name_the_line(chip):
    def write_induction(count):
        nl.fori_loop(0, 4, lambda i: nisa.register_move(i, 0))

    def zero_step(count):
        nl.fori_loop(0, 4, lambda i: None, step=0)

    def break_out(count):
        for _ in nl.dynamic_range(3):
            break

    def no_register_returned(count):
        nl.while_loop(nisa.register_alloc(1), lambda r: None)

    for fn, kind, text in ((write_induction, ValueError, "induction register"),
                           (zero_step, ValueError, "step must be a positive int"),
                           (break_out, Exception, "never finished"),
                           (no_register_returned, TypeError, "next condition register")):
        e = _trace_error(fn, count(1))
        assert isinstance(e, kind) and text in str(e), (fn.__name__, e)
        assert e.filename == __file__, (fn.__name__, e.filename)


def test_register_operand_errors(chip):
    def float_load(count):
        t = nl.ndarray((1, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=t, value=1.0)
        nisa.register_load(nisa.register_alloc(), t)

    def big_load(count):
        t = nl.ndarray((2, 2), dtype=nl.int32, buffer=nl.sbuf)
        nisa.memset(dst=t, value=1)
        nisa.register_load(nisa.register_alloc(), t)

    def partition_offset(count):
        t = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.sbuf)
        r = nisa.register_alloc(0)
        nisa.memset(dst=t[nl.ds(r, 1), :], value=0.0)

    def too_many_registers(count):
        regs = [nisa.register_alloc(k) for k in range(65)]
        t = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
        for r in regs:  # all 65 live at once
            nisa.register_store(t, r)

    for fn, kind, text in ((float_load, TypeError, "int32 or uint32"),
                           (big_load, ValueError, "exactly one element"),
                           (partition_offset, NotImplementedError, "partition dim"),
                           (too_many_registers, MemoryError, "out of registers")):
        e = _trace_error(fn, count(1))
        assert isinstance(e, kind) and text in str(e), (fn.__name__, e)


def test_inferred_matmul_accumulation_in_a_loop_is_an_error(chip):
    a = np.ones((2, 128, 64), np.float32)
    b = np.ones((2, 128, 256), np.float32)
    e = _trace_error(K.matmul_inferred.fn, a, b, count(2))
    assert isinstance(e, ValueError) and "accumulate=True" in str(e)
    assert e.filename == K.__file__


def test_lnc2_pair_instructions_are_refused_in_a_loop(monkeypatch):
    use_platform(monkeypatch, CHIPS[0], lnc=2)

    @nki.jit
    def barrier_in_loop(x):
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        nl.fori_loop(0, 2, lambda i: nisa.core_barrier(out, (0, 1)))
        return out

    with pytest.raises(NotImplementedError, match="inside a register loop"):
        barrier_in_loop[2](np.zeros((4, 4), np.float32))


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
