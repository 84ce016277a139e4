"""Names of AWS's NKI API that trnsim does not implement: looking one up gives a stub that
raises NotImplementedError naming the API and its row of docs/nki.md (errors.py), so a kernel
that uses one fails at the line that uses it, never silently."""

from trnsim_nki.errors import NkiNotImplementedError

from trnsim_nki.api_names import ROW_PREFIX as _PREFIX


def _known(module, name):
    try:
        from trnsim_nki.api_names import API
    except ImportError:
        return None
    generation = "legacy" if module.startswith("neuronxcc") else "current"
    entries = API.get(generation, {}).get(module, {})
    return entries.get(name)


def module_getattr(module, namespace):
    """A module-level __getattr__ for `module` (PEP 562)."""
    prefix = _PREFIX.get(module, module)

    def __getattr__(name):  # noqa: N807 - the PEP 562 hook
        if name.startswith("__"):
            raise AttributeError(name)
        entry = _known(module, name)
        if entry is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        api = f"{prefix}.{name}"
        if getattr(entry, "kind", "function") in ("function", "decorator"):
            def stub(*args, **kwargs):
                raise NkiNotImplementedError(api)
            stub.__name__ = name
            stub.__qualname__ = name
            stub.__doc__ = f"Not supported by trnsim (docs/nki.md#coverage, row `{api}`)."
            return stub
        raise NkiNotImplementedError(api)

    return __getattr__
