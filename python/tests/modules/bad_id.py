import flashscope


@flashscope.kernel(id="bad id", family="gemm", title="t")
def gemm(a, b, c):
    pass
