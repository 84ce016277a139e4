"""`mask=` predicates of the legacy generation (neuronxcc.nki): a comparison of an nl.arange /
nl.mgrid expression (legacy_index.IndexExpr) with a constant is a Predicate; `&` joins them.
Each comparison must involve exactly one axis; it bounds that axis of the instruction's
iteration space to a contiguous range [lo, hi) (`bounds()`), which the operation applies to its
operands (legacy_index.restrict). AWS: general/nki/api/nki.api.shared.rst @ 0521004c,
"NKI API Masking".
"""

from trnsim_nki.errors import NkiNotImplementedError, NkiTypeError

_CMP = {"lt": lambda v: v < 0, "le": lambda v: v <= 0, "gt": lambda v: v > 0,
        "ge": lambda v: v >= 0}


class Predicate:
    """A conjunction of `expr <op> 0` comparisons."""

    __slots__ = ("terms",)
    _nki_index_expr = True
    __array_ufunc__ = None

    def __init__(self, terms):
        self.terms = list(terms)

    def __and__(self, other):
        if not isinstance(other, Predicate):
            return NotImplemented
        return Predicate(self.terms + other.terms)

    __rand__ = __and__

    def __or__(self, other):
        raise NkiNotImplementedError("legacy.nl.arange", "a mask is a conjunction (&) of "
                                     "comparisons; '|' is not supported")

    __ror__ = __xor__ = __invert__ = __or__

    def __bool__(self):
        raise NkiTypeError("a mask predicate has no truth value at trace time (pass it as "
                           "mask=, and join comparisons with &, not 'and')")

    def __repr__(self):
        return " & ".join(f"({e!r} {op} 0)" for e, op in self.terms)

    def bounds(self, row="legacy.nl.arange"):
        """{axis: (lo, hi)}: the range [lo, hi) of each constrained axis (hi <= lo: empty).
        `row` names the docs/nki.md row an unsupported predicate cites."""
        out = {}
        for expr, op in self.terms:
            axes = [k for k, c in enumerate(expr.coefs) if c and expr.shape[k] > 1]
            if not axes:
                if not _CMP[op](expr.const):
                    return {0: (0, 0)}
                continue
            if len(axes) > 1:
                raise NkiNotImplementedError(
                    row, f"mask=: a comparison must involve one index axis; "
                    f"({expr!r} {op} 0) involves {len(axes)}")
            k = axes[0]
            c = expr.coefs[k]
            valid = [a for a in range(expr.shape[k]) if _CMP[op](c * a + expr.const)]
            lo, hi = (valid[0], valid[-1] + 1) if valid else (0, 0)
            old = out.get(k, (0, expr.shape[k]))
            out[k] = (max(lo, old[0]), min(hi, old[1]))
        return out


def mask_bounds(mask, api):
    """{axis: (lo, hi)} of a `mask=` argument (None: no restriction)."""
    if mask is None or mask is True:
        return {}
    if mask is False:  # a condition known at trace time (ints compared): skip the instruction
        return {0: (0, 0)}
    if type(mask).__name__ == "bool_":
        return {} if bool(mask) else {0: (0, 0)}
    if not isinstance(mask, Predicate):
        raise NkiNotImplementedError(
            f"legacy.{api}", f"mask= must be comparisons of nl.arange/nl.mgrid "
            f"expressions with constants joined by &, not {type(mask).__name__}")
    return mask.bounds(f"legacy.{api}")




def empty(bounds):
    """True when a bound leaves an axis with nothing (the instruction is skipped)."""
    return any(hi <= lo for lo, hi in bounds.values())
