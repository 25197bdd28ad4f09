"""Names and symbol records of the pycparser lowering: the CUDA built-ins and barriers it
recognises, the marker prefix of the C prelude, and what it records per function, per
file-scope variable and per block scope.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from pycparser import c_ast

from .. import ir
from . import c_types as ct
from .c_types import T

BUILTIN_VARS = {"threadIdx", "blockIdx", "blockDim", "gridDim"}
BLOCK_BARRIERS = {"__syncthreads", "__syncthreads_count", "__syncthreads_and",
                  "__syncthreads_or", "__barrier_sync"}
WARP_BARRIERS = {"__syncwarp"}
MARK = "__cudalint_"


@dataclass
class FuncInfo:
    name: str
    decls: list = field(default_factory=list)  # c_ast.Decl nodes (prototypes and definition)
    defn: Optional[c_ast.FuncDef] = None
    file: str = ""
    markers: set = field(default_factory=set)
    launch_bounds: Optional[c_ast.Node] = None
    type: T = ct.UNKNOWN  # function type: elem = result, params


@dataclass
class FileVar:
    decl: c_ast.Decl
    type: T
    storage: str
    file: str
    var: Optional[ir.Variable] = None
    value: Optional[object] = None  # constant value of a const variable with a constant init


class Scope(dict):
    pass

