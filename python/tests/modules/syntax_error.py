import flashscope


@flashscope.kernel(id="bad.syntax", family="gemm", title="t")
def gemm(a, b, c)
    pass
