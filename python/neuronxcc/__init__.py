"""trnsim's stand-in for AWS's `neuronxcc` package: only `neuronxcc.nki`, the legacy ("Beta 1")
generation of the Neuron Kernel Interface, traced by trnsim's NKI front end (docs/nki.md,
"The legacy generation"). The Neuron compiler itself is not part of trnsim."""
