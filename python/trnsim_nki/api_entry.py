"""The record type of trnsim_nki.api_names: one public name of AWS's NKI API."""

from collections import namedtuple

# kind: one of KINDS. signature: for callables (function, decorator, method) the parameter
# list as AWS's reference spells it, "(x, y, dtype=None)"; for classes the constructor's
# parameters, "(...)" when the reference documents none, "[d0, d1, ...]" for subscripted
# annotations; for the others the value or type, "= 128", ": DType", ": Enum".
# summary: one line in trnsim's own words.
Entry = namedtuple("Entry", ["kind", "signature", "summary"])

KINDS = (
    "function",     # module-level callable
    "decorator",    # module-level callable used as @decorator (nki.jit, nki.benchmark, ...)
    "class",        # class or annotation type
    "method",       # callable member of a class ("NkiTensor.ap")
    "attribute",    # data member of a class ("NkiTensor.shape")
    "enum",         # enumeration class ("engine")
    "enum_member",  # member of an enumeration ("engine.tensor")
    "constant",     # other named value (tile_size fields, operator tokens, engine aliases)
    "dtype",        # element type (nl.bfloat16)
    "buffer",       # memory region (nl.sbuf)
)
