"""Errors a kernel author sees, each naming the kernel's file and line.

Tracing runs the kernel's own Python code, so the line that caused an error is the innermost
stack frame outside the front end's packages (trnsim_nki, nki, neuronxcc). Every error the
tracer raises carries that location in its message ("kernel.py:42: ...") and as attributes
`filename` / `lineno`, so tests and tools can check it without parsing text.
"""

import os
import sys

_FRONT_END_DIRS = tuple(
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), pkg) + os.sep
    for pkg in ("trnsim_nki", "nki", "neuronxcc"))


_is_front_end = {}  # code filename -> whether it is one of the front end's files


def _front_end_file(filename):
    known = _is_front_end.get(filename)
    if known is None:
        known = _is_front_end[filename] = os.path.abspath(filename).startswith(_FRONT_END_DIRS)
    return known


def user_location(skip_front_end=True):
    """(filename, lineno) of the innermost frame that is the kernel author's code. Called for
    every traced instruction, so each file's verdict is computed once."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not (skip_front_end and _front_end_file(filename)):
            return filename, frame.f_lineno
        frame = frame.f_back
    return "<unknown>", 0


class _Located:
    """Mixin: a message prefixed with the kernel's file:line."""

    def _locate(self, message, location):
        if location is None:
            location = user_location()
        self.filename, self.lineno = location
        self.message = message
        return f"{os.path.basename(self.filename)}:{self.lineno}: {message}"


class NkiError(_Located, Exception):
    """A kernel that is not valid NKI: bad shapes, buffers, dtypes, arguments."""

    def __init__(self, message, location=None):
        super().__init__(self._locate(message, location))


class NkiTypeError(_Located, TypeError):
    """An argument of the wrong type (a tensor where a scalar goes, a bad dtype, ...)."""

    def __init__(self, message, location=None):
        super().__init__(self._locate(message, location))


class NkiValueError(_Located, ValueError):
    """An argument of the right type with a bad value (a partition dim over 128, a shape
    mismatch, an operand in a buffer the instruction cannot read)."""

    def __init__(self, message, location=None):
        super().__init__(self._locate(message, location))


class NkiResourceError(_Located, MemoryError):
    """The kernel's tiles do not fit in SBUF or PSUM."""

    def __init__(self, message, location=None):
        super().__init__(self._locate(message, location))


class NkiNotImplementedError(_Located, NotImplementedError):
    """A name of AWS's NKI API that trnsim does not implement (yet); the message names the
    row of docs/nki.md that says why."""

    def __init__(self, api, reason="", location=None):
        message = (f"{api} is not implemented by trnsim's NKI front end"
                   f"{': ' + reason if reason else ''} (docs/nki.md#coverage, row `{api}`)")
        self.api = api
        super().__init__(self._locate(message, location))


class NkiRuntimeError(_Located, RuntimeError):
    """Building or running the kernel's NEFF failed (the runtime's status and message)."""

    def __init__(self, message, location=None):
        super().__init__(self._locate(message, location))
