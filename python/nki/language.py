"""nki.language for trnsim (the current NKI generation): tensors, buffers, dtypes, math
functions, loops and SPMD queries. The implementation is shared with the legacy generation in
trnsim_nki; docs/nki.md lists every name of AWS's reference and its status here."""

from trnsim_nki import language_api as _api
from trnsim_nki.language_api import *  # noqa: F401,F403 - the public names of nki.language
from trnsim_nki.unsupported import module_getattr as _module_getattr

__getattr__ = _module_getattr("nki.language", globals())
