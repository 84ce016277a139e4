"""trnsim's NKI kernel suite in the previous generation ("Beta 1", `import neuronxcc.nki as nki`,
`neuronxcc.nki.language as nl`, `neuronxcc.nki.isa as nisa`): nl.load / nl.store, nl.arange /
nl.mgrid index arithmetic, mask=, nl.par_dim, nisa calls returning their result, PSUM
accumulation with `+=`.

Each module defines plain kernel functions (`*_kernel`) and their `nki.jit` wrappers, so a test
can call the wrapper directly, hand it to nki.simulate_kernel, or wrap the plain function with
nki.baremetal / nki.benchmark, as the legacy documentation shows. tests/nki/README.md lists
them; test_kernel_suite_legacy.py runs them.
"""
