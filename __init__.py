"""cudalint: a static analyzer for CUDA C/C++."""
__version__ = "0.1.0"
