"""nki.isa for trnsim (the current NKI generation): one function per engine instruction, `dst`
first. Shared with the legacy generation through trnsim_nki.ops_isa; docs/nki.md lists every
name of AWS's reference and its status here."""

from trnsim_nki.isa_api import *  # noqa: F401,F403 - the public names of nki.isa
from trnsim_nki.unsupported import module_getattr as _module_getattr

__getattr__ = _module_getattr("nki.isa", globals())
