"""nki.collectives for trnsim: not implemented yet — every name raises NotImplementedError
citing its row of docs/nki.md (collectives between NeuronCores inside a kernel; trnsim's ISA
has the `collective` instruction, docs/isa.md §7.8, that a future version can lower them to)."""

from trnsim_nki.unsupported import module_getattr as _module_getattr

__getattr__ = _module_getattr("nki.collectives", globals())
