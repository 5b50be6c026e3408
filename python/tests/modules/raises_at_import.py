import flashscope  # noqa: F401

raise RuntimeError("this module refuses to load")
