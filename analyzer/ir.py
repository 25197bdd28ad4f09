"""The project's intermediate representation of CUDA source.

Both frontends (libclang for CUDA C++, pycparser for plain C) lower their ASTs into these
small dataclasses; every analysis in ``cudalint.analyzer`` reads only this IR. Every node
carries a :class:`SourceRange` so diagnostics can point back at the source.

Templates are already resolved here: a kernel instantiation carries its template bindings and
its body has template parameters substituted (non-type parameters become constants, type
parameters become concrete :class:`CType` values). A primary template analysed on its own
keeps its parameters as :class:`TemplateParam` expressions.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterator, Optional, Union


@dataclass(frozen=True)
class SourceRange:
    """1-based lines and columns; the end is exclusive (DESIGN.md contract)."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    @staticmethod
    def unknown(file: str = "") -> "SourceRange":
        return SourceRange(file, 0, 0, 0, 0)

    def in_file(self, path: str) -> bool:
        """Whether the range lies in the file ``path`` (False for a range without a file)."""
        return bool(self.file) and os.path.abspath(self.file) == os.path.abspath(path)


# --------------------------------------------------------------------------- types

SCALAR_SIZES = {
    "bool": 1, "char": 1, "signed char": 1, "unsigned char": 1, "short": 2,
    "unsigned short": 2, "int": 4, "unsigned int": 4, "unsigned": 4, "long": 8,
    "unsigned long": 8, "long long": 8, "unsigned long long": 8, "float": 4, "double": 8,
    "__half": 2, "half": 2, "__nv_bfloat16": 2, "size_t": 8, "int8_t": 1, "uint8_t": 1,
    "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4, "int64_t": 8, "uint64_t": 8,
}
FLOAT_TYPES = {"float", "double", "__half", "half", "__nv_bfloat16", "long double"}


@dataclass(frozen=True)
class CType:
    """A C type reduced to what the analyses need.

    ``kind`` is one of scalar, pointer, array, record, vector, void, function, unknown.
    ``size`` is in bytes (None when unknown, e.g. dependent on an unbound template parameter
    or an incomplete/extern array). ``element`` is the pointee (pointer) or element (array).
    ``extent`` is the array's number of elements (None for ``extern T a[]``).
    ``is_float`` is true for floating scalars and floating vector types (float4, double2).
    """

    spelling: str
    kind: str = "unknown"
    size: Optional[int] = None
    element: Optional["CType"] = None
    extent: Optional[int] = None
    is_float: bool = False
    is_const: bool = False
    is_volatile: bool = False
    lanes: int = 1  # number of components for vector types (float4 -> 4)
    align: Optional[int] = None  # alignment in bytes where known (records: alignas(16) -> 16)
    # records: (member name, byte offset) of each field clang laid out, where known
    fields: tuple = ()

    @property
    def is_pointer(self) -> bool:
        return self.kind == "pointer"

    @property
    def is_array(self) -> bool:
        return self.kind == "array"

    def array_extents(self) -> list[Optional[int]]:
        """Extents from outermost to innermost: float a[4][8] -> [4, 8]."""
        out: list[Optional[int]] = []
        t: Optional[CType] = self
        while t is not None and t.kind == "array":
            out.append(t.extent)
            t = t.element
        return out

    def innermost_element(self) -> "CType":
        t = self
        while t.kind in ("array", "pointer") and t.element is not None:
            t = t.element
        return t


UNKNOWN_TYPE = CType("<unknown>")
INT_TYPE = CType("int", "scalar", 4)
UINT_TYPE = CType("unsigned int", "scalar", 4)
FLOAT_TYPE = CType("float", "scalar", 4, is_float=True)
DOUBLE_TYPE = CType("double", "scalar", 8, is_float=True)
VOID_TYPE = CType("void", "void", None)


# --------------------------------------------------------------------------- expressions

@dataclass(eq=False)
class Expr:
    range: SourceRange
    type: CType

    def children(self) -> list["Expr"]:
        return []

    def walk(self) -> Iterator["Expr"]:
        """Pre-order traversal of this expression tree. Iterative: the analyses walk trees
        millions of times per run, and nested generators cost a frame per level per node."""
        stack = [self]
        pop, push = stack.pop, stack.extend
        while stack:
            e = pop()
            yield e
            ch = e.children()
            if ch:
                push([c for c in reversed(ch) if c is not None])


@dataclass(eq=False)
class Const(Expr):
    value: Union[int, float, bool, str]


@dataclass(eq=False)
class VarRef(Expr):
    """A reference to a :class:`Variable` (local, parameter, shared, file-scope)."""

    var: "Variable"

    @property
    def name(self) -> str:
        return self.var.name


@dataclass(eq=False)
class Builtin(Expr):
    """threadIdx.x, blockIdx.y, blockDim.z, gridDim.x, or warpSize (component '')."""

    name: str
    component: str


@dataclass(eq=False)
class TemplateParam(Expr):
    """A non-type template parameter with no binding (primary template analysed as such)."""

    name: str


@dataclass(eq=False)
class FuncRef(Expr):
    """A reference to a function by name (callee of an indirect call, or a function pointer)."""

    name: str
    # A function template specialization's arguments as a launch site spells them (``scale<4>``
    # passed to a host wrapper that launches it: ``("4",)``).
    template_args: tuple = ()


@dataclass(eq=False)
class BinOp(Expr):
    op: str  # + - * / % << >> & | ^ && || == != < <= > >= ,
    lhs: Expr
    rhs: Expr

    def children(self):
        return [self.lhs, self.rhs]


@dataclass(eq=False)
class UnaryOp(Expr):
    op: str  # - + ! ~ * & pre++ pre-- post++ post--
    operand: Expr

    def children(self):
        return [self.operand]


@dataclass(eq=False)
class Assign(Expr):
    op: str  # '=' or a compound operator such as '+='
    target: Expr
    value: Expr

    def children(self):
        return [self.target, self.value]


@dataclass(eq=False)
class Call(Expr):
    callee: str
    args: list[Expr]
    function: Optional["Function"] = field(default=None, repr=False)  # resolved device function
    # A record's constructor: the fields it sets straight from one of its parameters, as
    # ((field, argument index), ...) (``p(const dim3 &b) : block(b) {}``); None otherwise.
    fields: Optional[tuple] = field(default=None, repr=False)
    # A method call (``obj.f(a)``): ``args[0]`` is the object (its address, ``&obj``, for a
    # method of the project's own), the method's parameters take ``args[1:]``.
    method: bool = False
    # ``cudaLaunchKernel((void *)k, grid, block, args, smem, stream)`` and its cooperative twin:
    # the launch it makes (not a child: the call itself stays what the host rules check).
    launch: Optional["LaunchExpr"] = field(default=None, repr=False)

    def children(self):
        return list(self.args)


@dataclass(eq=False)
class LaunchExpr(Expr):
    """A kernel launch in host code; ``config`` is [grid, block, smem, stream] as written
    (absent trailing parts are omitted), ``args`` the kernel arguments."""

    site: "LaunchSite" = field(repr=False)
    config: list[Expr] = field(default_factory=list)
    args: list[Expr] = field(default_factory=list)

    def children(self):
        return list(self.config) + list(self.args)


@dataclass(eq=False)
class Index(Expr):
    """``base[index]``; multi-dimensional access nests: ``a[i][j]`` = Index(Index(a, i), j)."""

    base: Expr
    index: Expr

    def children(self):
        return [self.base, self.index]


@dataclass(eq=False)
class Member(Expr):
    base: Expr
    member: str
    arrow: bool = False

    def children(self):
        return [self.base]


@dataclass(eq=False)
class Cast(Expr):
    operand: Expr
    implicit: bool = False

    def children(self):
        return [self.operand]


@dataclass(eq=False)
class Ternary(Expr):
    cond: Expr
    then: Expr
    otherwise: Expr

    def children(self):
        return [self.cond, self.then, self.otherwise]


@dataclass(eq=False)
class InitList(Expr):
    items: list[Expr]
    # A record's braced aggregate initialization: its field names in declaration order.
    fields: Optional[tuple] = field(default=None, repr=False)
    # ``void *args[] = {&a, &b}`` handed to cudaLaunchKernel: the runtime reads a and b
    # through it, nothing writes them (the addresses taken here are no out-arguments).
    launch_args: bool = False

    def children(self):
        return list(self.items)


@dataclass(eq=False)
class SizeOf(Expr):
    """sizeof/alignof, already evaluated when the size is known (``value``)."""

    value: Optional[int]


@dataclass(eq=False)
class Unknown(Expr):
    """An expression the lowering does not model (lambda, new, …); ``text`` is the source."""

    text: str
    parts: list[Expr] = field(default_factory=list)

    def children(self):
        return list(self.parts)


# --------------------------------------------------------------------------- variables

STORAGE_KINDS = ("auto", "static", "shared", "extern_shared", "device", "constant", "managed",
                 "param")


@dataclass(eq=False)
class Variable:
    """A declared variable. ``storage`` is the CUDA storage the declaration asks for:

    auto (automatic), static (function-scope static), shared, extern_shared, device
    (``__device__`` file-scope), constant, managed, param (a function parameter).
    """

    name: str
    type: CType
    storage: str
    range: SourceRange
    file_scope: bool = False
    is_reference: bool = False
    uid: int = 0
    default: Optional["Expr"] = None  # a parameter's default argument (`int n = 1024`)

    def __repr__(self) -> str:
        return f"Variable({self.name!r}, {self.type.spelling!r}, {self.storage})"

    def __hash__(self) -> int:  # identity semantics: two declarations may share a name
        return id(self)

    def __eq__(self, other) -> bool:
        return self is other


# --------------------------------------------------------------------------- statements

@dataclass(eq=False)
class Stmt:
    range: SourceRange

    def child_blocks(self) -> list["Block"]:
        return []

    def exprs(self) -> list[Expr]:
        """Expressions evaluated directly by this statement (not by nested statements)."""
        return []


@dataclass(eq=False)
class Block(Stmt):
    stmts: list[Stmt] = field(default_factory=list)

    def child_blocks(self):
        return []

    def walk(self) -> Iterator[Stmt]:
        """Pre-order traversal over all statements nested in this block."""
        for s in self.stmts:
            yield from walk_stmt(s)


@dataclass(eq=False)
class DeclStmt(Stmt):
    var: Variable
    init: Optional[Expr] = None

    def exprs(self):
        return [self.init] if self.init is not None else []


@dataclass(eq=False)
class ExprStmt(Stmt):
    expr: Expr

    def exprs(self):
        return [self.expr]


@dataclass(eq=False)
class Barrier(Stmt):
    """A block- or warp-level barrier: __syncthreads (and _count/_and/_or), __syncwarp,
    cooperative-groups ``sync``. ``scope`` is 'block' or 'warp'."""

    name: str
    scope: str
    args: list[Expr] = field(default_factory=list)
    grid: bool = False  # `grid.sync()` on a cooperative-groups grid: orders every block too

    def exprs(self):
        return list(self.args)


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: Block
    otherwise: Optional[Block] = None

    def child_blocks(self):
        return [b for b in (self.then, self.otherwise) if b is not None]

    def exprs(self):
        return [self.cond]


@dataclass(eq=False)
class Loop(Stmt):
    """for / while / do-while. ``init`` statements run once; ``cond`` is tested before each
    iteration (after it for do-while); ``step`` runs after each iteration.
    ``unroll`` is the ``#pragma unroll`` argument: None (no pragma), 0 (full: ``#pragma
    unroll`` with no count) or the count given (1 disables unrolling)."""

    kind: str  # for | while | do
    init: list[Stmt]
    cond: Optional[Expr]
    step: Optional[Expr]
    body: Block
    unroll: Optional[int] = None

    def child_blocks(self):
        return [self.body]

    def exprs(self):
        return [e for e in (self.cond, self.step) if e is not None]


@dataclass(eq=False)
class Return(Stmt):
    value: Optional[Expr] = None

    def exprs(self):
        return [self.value] if self.value is not None else []


@dataclass(eq=False)
class Break(Stmt):
    pass


@dataclass(eq=False)
class Continue(Stmt):
    pass


@dataclass(eq=False)
class Switch(Stmt):
    cond: Expr
    body: Block

    def child_blocks(self):
        return [self.body]

    def exprs(self):
        return [self.cond]


@dataclass(eq=False)
class Case(Stmt):
    """A ``case``/``default`` label inside a switch body; ``value`` None for default."""

    value: Optional[Expr] = None


@dataclass(eq=False)
class OtherStmt(Stmt):
    """A statement not modelled (goto, label, asm, try); its sub-expressions are kept."""

    text: str
    parts: list[Expr] = field(default_factory=list)

    def exprs(self):
        return list(self.parts)


def launch_in(x: Expr) -> Optional[LaunchExpr]:
    """The kernel launch expression node ``x`` makes: itself (``k<<<g, b>>>(...)``), or the
    one a ``cudaLaunchKernel``-style call carries (``Call.launch``); None otherwise."""
    if isinstance(x, LaunchExpr):
        return x
    return x.launch if isinstance(x, Call) else None


def walk_stmt(s: Stmt) -> Iterator[Stmt]:
    """Pre-order: a block's statements; a loop's init statements, then its child blocks; any
    other statement's child blocks (iterative, as :meth:`Expr.walk`)."""
    stack = [s]
    pop, push = stack.pop, stack.extend
    while stack:
        st = pop()
        yield st
        if isinstance(st, Block):
            push(st.stmts[::-1])
            continue
        kids = list(st.init) if isinstance(st, Loop) else []
        kids.extend(st.child_blocks())
        if kids:
            push(kids[::-1])


def stmt_exprs(s: Stmt) -> Iterator[Expr]:
    """Every expression node evaluated anywhere inside ``s`` (pre-order)."""
    for st in walk_stmt(s):
        for e in st.exprs():
            yield from e.walk()


# --------------------------------------------------------------------------- functions

@dataclass(eq=False)
class Function:
    """A kernel (``__global__``), device or host function.

    ``name`` is the plain name, ``display_name`` adds template arguments for an instantiation
    (``scale<float, 256>``). ``template_bindings`` maps template parameter names to their
    bound values (a CType for a type parameter, an int/bool for a non-type one); a primary
    template analysed unbound has ``template_params`` but no bindings.
    """

    name: str
    kind: str  # global | device | host | host_device
    params: list[Variable]
    body: Optional[Block]
    range: SourceRange
    return_type: CType = VOID_TYPE
    display_name: str = ""
    template_params: list[str] = field(default_factory=list)
    template_bindings: dict = field(default_factory=dict)
    launch_bounds: Optional[tuple[Optional[int], Optional[int]]] = None
    # Variables declared in the body (all nesting levels), in declaration order.
    locals: list[Variable] = field(default_factory=list)
    # File-scope variables (__device__, __constant__, __shared__) the body references.
    globals_used: list[Variable] = field(default_factory=list)
    # Device functions this one calls (resolved in this file).
    callees: list["Function"] = field(default_factory=list, repr=False)
    mangled_name: str = ""

    def __post_init__(self):
        if not self.display_name:
            self.display_name = self.name

    @property
    def is_kernel(self) -> bool:
        return self.kind == "global"

    @property
    def is_device(self) -> bool:
        return self.kind in ("device", "host_device")

    def statements(self) -> Iterator[Stmt]:
        if self.body is not None:
            yield from walk_stmt(self.body)

    def expressions(self) -> Iterator[Expr]:
        if self.body is not None:
            yield from stmt_exprs(self.body)


# --------------------------------------------------------------------------- launches

@dataclass(eq=False)
class LaunchSite:
    """A host-side ``kernel<<<grid, block, smem, stream>>>(args)``.

    ``grid``/``block`` are resolved to (x, y, z) integers where constant propagation could
    resolve them, else None with the unresolved expression text in ``grid_text``/``block_text``.
    """

    kernel: str
    template_args: tuple = ()
    grid: Optional[tuple[int, int, int]] = None
    block: Optional[tuple[int, int, int]] = None
    dynamic_smem: Optional[int] = 0
    grid_text: str = ""
    block_text: str = ""
    smem_text: str = ""
    stream_text: str = ""
    args: list[Expr] = field(default_factory=list)
    arg_values: list[Optional[Union[int, float]]] = field(default_factory=list)
    # Per argument, where it has no single value but is the counter of a counted host loop
    # around the launch (``for (int i = 1; i <= 32; i++) k<<<g, b>>>(a, i);``): (first, last,
    # the loop's line, how it steps where not by one, the counter's name); None elsewhere.
    arg_ranges: list = field(default_factory=list)
    # Per argument, a pointer passed a constant number of elements past another pointer
    # (``k<<<g, b>>>(d_in + RADIUS)``, ``&d_in[3]``): (bytes past it, that pointer's name);
    # None elsewhere. Buffers are assumed 256-byte aligned: the kernel's pointer is not.
    arg_offsets: list = field(default_factory=list)
    range: SourceRange = field(default_factory=SourceRange.unknown)
    caller: str = ""
    # Why a part of the configuration or a scalar argument has no known value (sentences).
    unknown: list[str] = field(default_factory=list)
    # Values that came from a caller of the host function (parameters bound from its calls).
    from_callers: list[str] = field(default_factory=list)
    # Figures the runtime's device queries gave (``cudaDeviceGetAttribute``'s SM count...): the
    # target device's, an assumption (analyzer/device_queries).
    from_device: list[str] = field(default_factory=list)
    # The grid is passed as an integer, not a dim3: gridDim.y = gridDim.z = 1 even where the
    # value (gridDim.x) is not known.
    grid_1d: bool = False
    # A block not known as a whole but known in some components (``dim3 b(16, n)``,
    # ``{4, 8, bs / 32}``): (x, y, z) with None for each unknown one.
    block_partial: Optional[tuple] = None
    # The block this launch has when the program runs without command-line arguments
    # (``main``'s ``argc`` is 1: ``if (argc > 1) blocksize = atoi(argv[1]);`` keeps the value
    # written before it), where ``block`` is not known statically; None otherwise.
    noargs_block: Optional[tuple[int, int, int]] = None
    # A launch through a function pointer (``kernel<<<grid, block>>>(...)`` after ``kernel =
    # &copyRow;`` in a switch): the kernels the pointer is assigned in the launching function.
    candidates: tuple = ()
    # Launched by a host function that takes the kernel as a parameter (``template <class K>
    # void launch(K kernel, const params &p, ...) { kernel<<<p.grid, p.block>>>(...); }``):
    # that function's name; ``range`` is then the call that hands it the kernel.
    via: str = ""
    # Launched through the runtime API (``cudaLaunchKernel``, ``cudaLaunchCooperativeKernel``):
    # its name. The call returns the launch's error itself (CL701's, not CL702's concern).
    api: str = ""
    # Kernel parameters passed the same variable as a component of the block (``dim3 b(n);
    # k<<<g, b>>>(..., n)``): parameter name -> component.
    block_params: dict = field(default_factory=dict)


@dataclass(eq=False)
class TranslationUnit:
    path: str
    functions: list[Function] = field(default_factory=list)
    globals: list[Variable] = field(default_factory=list)
    launches: list[LaunchSite] = field(default_factory=list)
    frontend: str = "clang"
    notes: list[str] = field(default_factory=list)  # e.g. headers stubbed because not found

    @property
    def kernels(self) -> list[Function]:
        return [f for f in self.functions if f.is_kernel]

    def function(self, name: str) -> Optional[Function]:
        for f in self.functions:
            if f.name == name or f.display_name == name:
                return f
        return None
