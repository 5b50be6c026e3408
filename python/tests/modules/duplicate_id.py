import flashscope


@flashscope.kernel(id="bad.twice", family="gemm", title="t")
def one(a, b, c):
    pass


@flashscope.kernel(id="bad.twice", family="gemm", title="t")
def two(a, b, c):
    pass
