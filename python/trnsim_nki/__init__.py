"""trnsim's NKI front end: the tracer, dtypes and runner shared by both NKI generations."""
