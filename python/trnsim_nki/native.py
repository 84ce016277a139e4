"""The C++ extension module `_trnsim_nki` (python/binding/): trnsim's kernel builder and the
libnrt runner. Imported on first use so that tracing errors in pure Python are reported even
where the module is missing, with an error that says how to get it."""

_module = None


def native():
    global _module
    if _module is None:
        try:
            import _trnsim_nki
        except ImportError as e:
            raise ImportError(
                "trnsim's native module _trnsim_nki is not importable: build trnsim (make "
                "build) and put <build>/python on PYTHONPATH, or use an installed trnsim "
                "(PYTHONPATH=<prefix>/lib/python3/dist-packages); see docs/nki.md") from e
        _module = _trnsim_nki
    return _module
