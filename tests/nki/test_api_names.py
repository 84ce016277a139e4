"""Checks python/trnsim_nki/api_names.py (the inventory of AWS's NKI API) and its coverage table
in docs/nki.md.

The expected names below are facts taken from AWS's reference (aws-neuron/aws-neuron-sdk:
nki/api/nki.isa.rst, nki/api/nki.language.rst, general/nki/api/nki.*.rst @ 0521004c) and from
/work/shared/reference/nki-api-facts.md ("What public kernels use, most used first").
"""

import ast
import pathlib
import re

import pytest

from trnsim_nki import api_entry
from trnsim_nki.api_entry import KINDS, Entry
from trnsim_nki.api_names import API, GENERATIONS, REFERENCE, ROW_PREFIX, TARGETS, TILE_SIZE

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA_DIR = pathlib.Path(api_entry.__file__).resolve().parent
CALLABLE = ("function", "decorator", "method")

CURRENT_MODULES = ("nki", "nki.language", "nki.isa", "nki.collectives")
LEGACY_MODULES = ("neuronxcc.nki", "neuronxcc.nki.language", "neuronxcc.nki.isa")

# nki-api-facts.md, most used first.
TOP_CURRENT = {
    "nki.language": ["ndarray", "sbuf", "tile_size", "add", "psum", "shared_hbm", "ds",
                     "dynamic_range"],
    "nki.isa": ["dma_copy", "tensor_copy", "tensor_tensor", "memset", "activation", "nc_matmul",
                "tensor_scalar", "nc_transpose", "dma_transpose", "sendrecv", "iota",
                "quantize_mx", "core_barrier", "nc_matmul_mx", "register_load", "register_alloc"],
}
TOP_LEGACY = {
    "neuronxcc.nki.isa": [
        "nc_matmul", "activation", "nc_transpose", "tensor_reduce", "tensor_tensor",
        "activation_reduce", "tensor_scalar", "get_nc_version", "memset", "scalar_tensor_tensor",
        "tensor_copy", "tensor_scalar_reduce", "affine_select", "iota", "dma_copy",
        "dma_transpose", "reciprocal", "tensor_copy_predicated", "tensor_tensor_scan", "bn_stats",
        "bn_aggr", "select_reduce", "tensor_partition_reduce", "vector_engine", "tensor_engine",
        "reduce_cmd.reset_reduce"],
    "neuronxcc.nki.language": [
        "ndarray", "load", "store", "affine_range", "shared_hbm", "par_dim", "sbuf", "arange",
        "tile_size.pmax", "copy", "zeros", "psum", "mgrid", "program_id", "multiply", "add",
        "sequential_range", "num_programs", "static_range", "ds", "tile_size.gemm_moving_fmax",
        "sum", "max", "program_ndim", "exp", "divide", "maximum", "loop_reduce", "full",
        "load_transpose2d", "shared_constant", "hbm", "matmul", "rsqrt", "square", "ones",
        "subtract", "where", "abs", "minimum", "transpose", "all_reduce", "broadcast_to", "log",
        "silu", "dropout", "random_seed", "private_hbm", "mean", "min", "mod", "floor", "sqrt",
        "equal", "silu_dx", "rms_norm", "finfo", "shared_identity_matrix", "bfloat16", "float32",
        "float8_e4m3", "int32", "float16", "uint32", "uint8", "float8_e5m2", "int8",
        "static_cast"],
    "neuronxcc.nki": ["jit", "benchmark", "baremetal", "simulate_kernel", "profile",
                      "benchmark_result.nc_latency.get_latency_percentile"],
    "neuronxcc.nki.compiler": ["skip_middle_end_transformations", "enable_stack_allocator",
                               "sbuf.mod_alloc", "psum.mod_alloc", "multi_buffer"],
}

# nki/api/nki.isa.rst, every name the index lists.
CURRENT_ISA_INDEX = [
    "nc_matmul", "nc_matmul_mx", "nc_transpose", "activation", "activation_reduce", "activate2",
    "tensor_reduce", "tensor_partition_reduce", "tensor_tensor", "tensor_tensor_scan",
    "scalar_tensor_tensor", "tensor_scalar", "tensor_scalar_reduce", "tensor_scalar_cumulative",
    "tensor_copy", "tensor_copy_predicated", "exponential", "reciprocal", "quantize_mx", "iota",
    "dropout", "affine_select", "range_select", "select_reduce", "sequence_bounds", "memset",
    "bn_stats", "bn_aggr", "local_gather", "nc_n_gather", "dma_copy", "dma_transpose",
    "dma_compute", "max8", "nc_find_index8", "nc_match_replace8", "nc_stream_shuffle",
    "register_alloc", "register_load", "register_move", "register_store", "core_barrier",
    "sendrecv", "rng", "rand2", "rand_set_state", "rand_get_state", "set_rng_seed",
    "nonzero_with_count", "topk", "engine", "dma_engine", "reduce_cmd", "dge_mode", "oob_mode",
    "matmul_perf_mode", "nc_version", "get_nc_version", "VirtualRegister", "NkiInstruction"]

# nki/api/nki.language.rst, every name the index lists.
CURRENT_LANGUAGE_INDEX = [
    "ndarray", "zeros", "ones", "full", "zeros_like", "empty_like", "shared_constant",
    "shared_identity_matrix", "rand", "random_seed", "NkiTensor", "load", "load_transpose2d",
    "store", "copy", "matmul", "transpose", "abs", "abs_max", "abs_min", "add", "arctan", "ceil",
    "cos", "exp", "floor", "log", "maximum", "minimum", "multiply", "negative", "power",
    "reciprocal", "rsqrt", "sign", "sin", "sqrt", "square", "subtract", "tan", "tanh", "trunc",
    "relu", "sigmoid", "silu", "silu_dx", "gelu", "gelu_dx", "gelu_apprx_sigmoid",
    "gelu_apprx_sigmoid_dx", "gelu_apprx_tanh", "mish", "softplus", "softmax", "erf", "erf_dx",
    "dropout", "rms_norm", "all", "max", "mean", "min", "prod", "sum", "var", "equal",
    "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
    "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "invert",
    "left_shift", "right_shift", "broadcast_to", "ds", "expand_dims", "where",
    "gather_flattened", "affine_range", "dynamic_range", "sequential_range", "static_range",
    "fori_loop", "while_loop", "psum", "sbuf", "hbm", "private_hbm", "shared_hbm", "is_psum",
    "is_sbuf", "is_hbm", "is_on_chip", "device_print", "no_reorder", "program_id",
    "num_programs", "program_ndim", "bool_", "int8", "int16", "int32", "uint8", "uint16",
    "uint32", "float16", "float32", "bfloat16", "tfloat32", "float8_e4m3", "float8_e5m2",
    "float8_e4m3fn", "float8_e8m0fnu", "float8_e5m2_x4", "float8_e4m3fn_x4", "float4_e2m1fn_x4",
    "tile_size", "prelu", "bypass"]

# general/nki/api/nki.isa.rst @ 0521004c.
LEGACY_ISA_INDEX = [
    "nc_matmul", "nc_transpose", "activation", "activation_reduce", "tensor_reduce",
    "tensor_partition_reduce", "tensor_tensor", "tensor_tensor_scan", "scalar_tensor_tensor",
    "tensor_scalar", "tensor_scalar_reduce", "tensor_copy", "tensor_copy_dynamic_src",
    "tensor_copy_dynamic_dst", "tensor_copy_predicated", "reciprocal", "iota", "dropout",
    "affine_select", "range_select", "select_reduce", "sequence_bounds", "memset", "bn_stats",
    "bn_aggr", "local_gather", "dma_copy", "dma_transpose", "max8", "nc_find_index8",
    "nc_match_replace8", "nc_stream_shuffle", "engine", "reduce_cmd", "dge_mode", "nc_version",
    "get_nc_version"]

BUFFERS = ("sbuf", "psum", "hbm", "private_hbm", "shared_hbm")


def params(signature):
    """Positional and keyword-only parameter names of a callable's signature."""
    args = ast.parse(f"def f{signature}: pass").body[0].args
    return [a.arg for a in args.posonlyargs + args.args], [a.arg for a in args.kwonlyargs]


def all_entries():
    for gen, modules in API.items():
        for module, entries in modules.items():
            for name, entry in entries.items():
                yield gen, module, name, entry


def test_generations_and_required_modules_are_non_empty():
    assert tuple(API) == GENERATIONS == ("current", "legacy")
    for gen, required in (("current", CURRENT_MODULES), ("legacy", LEGACY_MODULES)):
        for module in required:
            assert API[gen].get(module), f"{gen} {module} missing or empty"
    for gen, modules in API.items():
        for module in modules:
            assert module in ROW_PREFIX and module in REFERENCE, module
            assert module.startswith("neuronxcc.") == (gen == "legacy"), module


def test_every_entry_has_a_kind_signature_and_one_line_summary():
    count = 0
    for gen, module, name, e in all_entries():
        where = f"{gen} {module} {name}"
        assert isinstance(e, Entry), where
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", name), where
        assert e.kind in KINDS, where
        assert isinstance(e.signature, str) and e.signature.strip() == e.signature != "", where
        assert isinstance(e.summary, str) and "\n" not in e.summary, where
        assert 10 <= len(e.summary) <= 160 and e.summary.endswith("."), where
        count += 1
    assert count > 450  # both references together list about 520 names


def test_callable_signatures_parse_and_others_show_a_value_or_type():
    for gen, module, name, e in all_entries():
        where = f"{gen} {module} {name}: {e.signature}"
        if e.kind in CALLABLE:
            assert e.signature.startswith("("), where
            params(e.signature)  # raises SyntaxError if it is not a parameter list
        elif e.kind == "class":
            assert e.signature[0] in "([", where
        else:
            assert e.signature[0] in "=:[", where


def test_names_are_unique_in_the_data_sources():
    # A duplicated key in a dict literal silently replaces the first entry, so read the files.
    files = sorted(DATA_DIR.glob("api_names_*.py"))
    assert len(files) == 4
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict):
                keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
                dups = {k for k in keys if keys.count(k) > 1}
                assert not dups, f"{path.name}: duplicated {sorted(dups)}"
    rows = [ROW_PREFIX[m] + "." + n for _, m, n, _ in all_entries()]
    assert len(rows) == len(set(rows))


def test_members_hang_off_a_class_enum_or_constant():
    for gen, module, name, e in all_entries():
        entries = API[gen][module]
        parent = name.split(".")[0]
        if e.kind == "enum_member":
            assert entries[parent].kind == "enum", f"{gen} {module} {name}"
            assert re.fullmatch(r"= ('[a-z_]+'|\d+)", e.signature), e.signature
        if "." in name and parent in entries:
            assert entries[parent].kind in ("class", "enum", "constant"), f"{gen} {name}"
        if e.kind == "enum":
            assert any(n.startswith(name + ".") for n in entries), f"{gen} empty enum {name}"


def test_most_used_names_are_present():
    for gen, wanted in (("current", TOP_CURRENT), ("legacy", TOP_LEGACY)):
        for module, names in wanted.items():
            missing = [n for n in names if n not in API[gen][module]]
            assert not missing, f"{gen} {module} lacks {missing}"


def test_every_name_of_the_reference_indexes_is_present():
    for gen, module, index in (("current", "nki.isa", CURRENT_ISA_INDEX),
                               ("current", "nki.language", CURRENT_LANGUAGE_INDEX),
                               ("legacy", "neuronxcc.nki.isa", LEGACY_ISA_INDEX)):
        missing = [n for n in index if n not in API[gen][module]]
        assert not missing, f"{gen} {module} lacks {missing}"
    legacy_nki = API["legacy"]["neuronxcc.nki"]
    for name in ("jit", "benchmark", "profile", "baremetal"):
        assert legacy_nki[name].kind == "decorator", name
    assert API["current"]["nki"]["jit"].kind == "decorator"


def test_dtypes_and_buffers():
    cur = API["current"]["nki.language"]
    dtypes = {n for n, e in cur.items() if e.kind == "dtype"}
    assert dtypes == set(CURRENT_LANGUAGE_INDEX[CURRENT_LANGUAGE_INDEX.index("bool_"):
                                                CURRENT_LANGUAGE_INDEX.index("tile_size")])
    leg = API["legacy"]["neuronxcc.nki.language"]
    assert {n for n, e in leg.items() if e.kind == "dtype"} == {
        "bfloat16", "bool_", "float16", "float32", "float8_e4m3", "float8_e5m2", "int8", "int16",
        "int32", "uint8", "uint16", "uint32", "tfloat32"}
    for entries in (cur, leg):
        assert {n for n, e in entries.items() if e.kind == "buffer"} == set(BUFFERS)


def test_isa_enum_values():
    # nki/api/nki/isa/__init__.py; the legacy dge_mode numbers none/unknown the other way round.
    cur, leg = API["current"]["nki.isa"], API["legacy"]["neuronxcc.nki.isa"]
    engines = {"tensor": 1, "vector": 5, "scalar": 2, "gpsimd": 3, "sync": 6, "unknown": 0}
    for entries in (cur, leg):
        for member, value in engines.items():
            assert entries["engine." + member].signature == f"= {value}", member
        assert entries["reduce_cmd.reset_reduce"].signature == "= 3"
        assert entries["oob_mode.skip"].signature == "= 1"
    assert cur["engine.dma"].signature == "= 4" and "engine.dma" not in leg
    assert cur["dge_mode.unknown"].signature == "= 0" and cur["dge_mode.none"].signature == "= 3"
    assert leg["dge_mode.unknown"].signature == "= 3" and leg["dge_mode.none"].signature == "= 0"
    assert cur["reduce_cmd.load_reduce"].signature == "= 4" and "reduce_cmd.load_reduce" not in leg
    assert cur["nc_version.gen4"].signature == "= 4" and "nc_version.gen4" not in leg
    assert cur["dge_mode"].signature == ": Enum"
    assert leg["dge_mode"].signature == ": IntEnum"


def test_current_isa_takes_dst_first_and_legacy_calls_take_mask():
    cur = API["current"]["nki.isa"]
    not_dst_first = {n for n, e in cur.items()
                     if e.kind == "function" and params(e.signature)[0][:1] != ["dst"]}
    # No destination tile: queries, barriers, register allocation, seeding; sendrecv takes src
    # first and topk two destinations.
    assert not_dst_first == {"core_barrier", "get_nc_sub_version", "get_nc_version",
                             "rand_set_state", "register_alloc", "sendrecv", "set_rng_seed",
                             "topk"}
    leg = API["legacy"]["neuronxcc.nki.isa"]
    no_mask = {n for n, e in leg.items()
               if e.kind == "function" and "mask" not in sum(params(e.signature), [])}
    assert no_mask == {"builtin_custom_op", "get_nc_version", "sequence_bounds"}
    assert params(leg["dma_copy"].signature) == (
        [], ["dst", "src", "mask", "dst_rmw_op", "oob_mode", "dge_mode"])


def test_tile_size_values():
    assert TARGETS == tuple(TILE_SIZE) == ("trn2", "trn3")
    for target, t in TILE_SIZE.items():
        assert t["pmax"] == 128 and t["gemm_stationary_fmax"] == 128
        assert t["gemm_moving_fmax"] == t["psum_bank_fmax"] == t["psum_fmax"] == 512
        assert t["psum_bank_fmax"] * 4 == t["psum_bank_fmax_bytes"]
        assert t["sbuf_fmax_bytes"] == t["total_available_sbuf_size"]
        assert t["sbuf_fmax"] == t["sbuf_fmax_bytes"] // 4
        assert t["sbuf_fmax_bytes"] * 128 < t["sbuf_size_bytes"]
    assert TILE_SIZE["trn2"]["sbuf_fmax_bytes"] < TILE_SIZE["trn3"]["sbuf_fmax_bytes"]
    for gen, module in (("current", "nki.language"), ("legacy", "neuronxcc.nki.language")):
        fields = {n.split(".", 1)[1]: e for n, e in API[gen][module].items()
                  if n.startswith("tile_size.")}
        assert set(fields) <= set(TILE_SIZE["trn2"])
        assert len(fields) == (14 if gen == "current" else 8)
        for field, e in fields.items():
            a, b = TILE_SIZE["trn2"][field], TILE_SIZE["trn3"][field]
            shown = f"= {a}" if a == b else f"= {a} (trn2), {b} (trn3)"
            assert e.signature == shown, (gen, field)


def coverage_rows():
    """(row name, signature, status) of every table row of docs/nki.md's Coverage section."""
    text = (REPO / "docs" / "nki.md").read_text()
    start = text.index("\n## Coverage\n")
    end = text.find("\n## ", start + 1)
    section = text[start:] if end < 0 else text[start:end]
    assert "docs/nki.md#coverage, row `nl.add`" in section.replace("\n", " ")
    rows = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        assert len(cells) == 4, line
        assert cells[0].startswith("`") and cells[0].endswith("`"), line
        assert cells[1].startswith("`") and cells[1].endswith("`"), line
        rows.append((cells[0][1:-1], cells[1][1:-1], cells[2]))
    return rows


def test_docs_coverage_table_matches_the_data():
    rows = coverage_rows()
    expected = {ROW_PREFIX[m] + "." + n: e.signature for _, m, n, e in all_entries()}
    names = [r[0] for r in rows]
    assert len(names) == len(set(names)), "duplicated rows"
    assert set(names) - set(expected) == set(), "rows without an entry"
    assert set(expected) - set(names) == set(), "entries without a row"
    for name, signature, status in rows:
        assert signature == expected[name], name
        assert status in ("supported", "partial", "not supported", "not yet"), (name, status)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
