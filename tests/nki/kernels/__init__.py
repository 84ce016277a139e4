"""trnsim's NKI kernel suite, current generation (`import nki`, `nki.language`, `nki.isa`).

Written by this project from AWS's NKI API reference (aws-neuron-sdk `nki/api/`), one module
per kernel family; each module holds the kernel(s) and a NumPy reference. tests/nki/README.md
lists them, what each checks and how its tolerance was chosen; test_kernel_suite.py runs them.
"""
