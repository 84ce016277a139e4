"""trnsim's NKI front end: the tracer both NKI generations share (python/nki for `import nki`,
python/neuronxcc/nki for the legacy `neuronxcc.nki`). docs/nki.md describes it."""

from trnsim_nki.host import chip_peak_flops, host_array  # noqa: F401
