"""trnsim's NKI front end: the tracer, dtypes and runner shared by nki and neuronxcc.nki."""
