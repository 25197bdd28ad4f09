"""Output formats for `cudalint check`: one module per format, all reading FileResult lists."""
