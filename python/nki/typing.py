"""nki.typing for trnsim: type annotations for kernel signatures; not implemented yet (each
name raises NotImplementedError citing its row of docs/nki.md)."""

from trnsim_nki.unsupported import module_getattr as _module_getattr

__getattr__ = _module_getattr("nki.typing", globals())
