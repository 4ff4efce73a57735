"""How MindSpore's CPU kernels are chosen for a converted file, set where the file loads (same rules as
helper_source.py: read as text by helpers.py, never imported by the converter)."""
import mindspore


def gemm_cpu_convolutions():
    """On CPU, let oneDNN (MindSpore's convolution library) use instructions up to AVX2 only. On a CPU with
    AVX-512, oneDNN 3.10 (MindSpore 2.10) runs a convolution on plain NCHW data, the only layout MindSpore
    gives it, through its reference code (`jit_uni_ncsp:conv+ref:any` in ONEDNN_VERBOSE); capped at AVX2
    it takes its GEMM kernel (`gemm:jit`). Measured on an AMD EPYC, one thread, batch 32, 16->32 channels,
    14x14, 5x5: 390 ms a forward against 6 ms, forward and backward compiled 274 against 11 ms. oneDNN reads
    the cap once, before its first operator, so this runs where the file loads; a cap the user set wins, and
    a CPU without AVX-512 is not changed by it. Other devices do not run oneDNN. The cap also moves
    oneDNN's matmul (Dense) to its AVX2 GEMM: a 512x512x512 product about 2x slower, small ones the same."""
    import os
    if mindspore.get_context("device_target") != "CPU":
        return
    if "ONEDNN_MAX_CPU_ISA" not in os.environ and "DNNL_MAX_CPU_ISA" not in os.environ:
        os.environ["ONEDNN_MAX_CPU_ISA"] = "AVX2"
