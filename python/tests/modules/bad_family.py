import flashscope


@flashscope.kernel(id="bad.family", family="attention_bwd", title="t")
def gemm(a, b, c):
    pass
