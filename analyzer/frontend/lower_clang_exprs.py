"""Expression lowering for :class:`.lower_clang.Lowerer`: operators, references to variables
and built-ins, calls (device functions lowered on demand, barriers, cooperative groups) and
kernel launches.
"""
from __future__ import annotations


from typing import Optional

import clang.cindex as ci

from .. import ir
from .clang_ext import binary_operator, evaluate, specialized_template, unary_operator
from .clang_fast import children
from .clang_cursors import (
    BUILTIN_VARS, CK, NO_SIZE_KINDS, TK, callee_spelling, cursor_key, find_ref, first_token, infix_op,
    int_or_none, is_default_arg, is_prelude, prefix_op, same_extent, srange, tokens_between,
    tokens_text
)


# dim3 and its kin are (x, y, z) values of their own to constant propagation, not records.
_VECTOR_CTORS = {"dim3", "uint3", "int3"}


class ExprLowering:
    """Mixin of :class:`.lower_clang.Lowerer`: reads and writes its per-function state."""

    #: calls of CUB block collectives met while lowering statements (their names), each to be
    #: followed by the block barrier it executes (see :func:`cub_block_collective`)
    @property
    def cub_barriers(self) -> list:
        lst = self.__dict__.get("_cub_barriers")
        if lst is None:
            lst = self.__dict__["_cub_barriers"] = []
        return lst

    def expr(self, c: ci.Cursor) -> ir.Expr:
        try:
            return self._expr(c)
        except RecursionError:
            return ir.Unknown(srange(c), ir.UNKNOWN_TYPE, "<too deep>")

    def _expr(self, c: ci.Cursor) -> ir.Expr:
        k = c.kind
        if k in (CK.UNEXPOSED_EXPR, CK.PAREN_EXPR):
            kids = children(c)
            if len(kids) == 1:
                return self._expr(kids[0])  # implicit conversions and parentheses: no node
            r = srange(c)
            if not kids:
                v = self._eval(c)
                if v is not None:
                    return ir.Const(r, self.ctype(c.type), v)
                return ir.Unknown(r, self.ctype(c.type), "")
            return ir.Unknown(r, self.ctype(c.type), tokens_text(c), [self._expr(x) for x in kids])
        r = srange(c)
        t = self.ctype(c.type)
        if k == CK.INTEGER_LITERAL or k == CK.CHARACTER_LITERAL:
            v = self._eval(c, force=True)
            if v is None:
                v = int_or_none(first_token(c)) or 0
            return ir.Const(r, t, int(v))
        if k == CK.FLOATING_LITERAL:
            v = self._eval(c, force=True)
            if v is None:
                try:
                    v = float(first_token(c).rstrip("fFlL"))
                except ValueError:
                    v = 0.0
            return ir.Const(r, t, float(v))
        if k == CK.CXX_BOOL_LITERAL_EXPR:
            return ir.Const(r, t, first_token(c) == "true")
        if k == CK.CXX_NULL_PTR_LITERAL_EXPR or k == CK.GNU_NULL_EXPR:
            return ir.Const(r, t, 0)
        if k == CK.STRING_LITERAL:
            return ir.Const(r, t, c.spelling)
        if k == CK.DECL_REF_EXPR:
            if not c.spelling:
                # A substituted non-type template argument (`TILE` in `f<32>`): its value is
                # the literal child.
                kids = [x for x in children(c) if x.kind.is_expression()]
                if len(kids) == 1:
                    return self._expr(kids[0])
                v = self._eval(c)
                if v is not None:
                    return ir.Const(r, t, v)
            return self._declref(c, r, t)
        if k == CK.MEMBER_REF_EXPR:
            ref = c.referenced
            if ref is not None and ref.kind == CK.VAR_DECL:
                # `obj.size` naming a static data member (llm.c's `x128::size`): the member's
                # value, not a read of the object.
                v = self._eval(c)
                if v is not None:
                    return ir.Const(r, t, v)
                return self._declref(c, r, t)
            kids = children(c)
            if kids:
                base = self._expr(kids[0])
                if isinstance(base, ir.VarRef) and base.var.name in BUILTIN_VARS and \
                        c.spelling in ("x", "y", "z") and base.var.storage == "builtin":
                    return ir.Builtin(r, ir.UINT_TYPE, base.var.name, c.spelling)
                arrow = "->" in tokens_between(c, kids[0])
                return ir.Member(r, t, base, c.spelling, arrow)
            return ir.Member(r, t, ir.Unknown(r, ir.UNKNOWN_TYPE, "this"), c.spelling, True)
        if k == CK.ARRAY_SUBSCRIPT_EXPR:
            kids = children(c)
            if len(kids) == 2:
                return ir.Index(r, t, self._expr(kids[0]), self._expr(kids[1]))
        if k == CK.BINARY_OPERATOR:
            kids = children(c)
            op = binary_operator(c) or infix_op(c, kids)
            if len(kids) == 2:
                lhs, rhs = self._expr(kids[0]), self._expr(kids[1])
                if op == "=":
                    return ir.Assign(r, t, "=", lhs, rhs)
                return ir.BinOp(r, t, op, lhs, rhs)
        if k == CK.COMPOUND_ASSIGNMENT_OPERATOR:
            kids = children(c)
            op = binary_operator(c) or infix_op(c, kids)
            if len(kids) == 2:
                return ir.Assign(r, t, op, self._expr(kids[0]), self._expr(kids[1]))
        if k == CK.UNARY_OPERATOR:
            kids = children(c)
            op = unary_operator(c) or prefix_op(c)
            if kids:
                return ir.UnaryOp(r, t, op, self._expr(kids[0]))
        if k == CK.CONDITIONAL_OPERATOR:
            kids = children(c)
            if len(kids) == 3:
                return ir.Ternary(r, t, self._expr(kids[0]), self._expr(kids[1]), self._expr(kids[2]))
        if k in (CK.CSTYLE_CAST_EXPR, CK.CXX_STATIC_CAST_EXPR, CK.CXX_REINTERPRET_CAST_EXPR,
                 CK.CXX_CONST_CAST_EXPR, CK.CXX_DYNAMIC_CAST_EXPR, CK.CXX_FUNCTIONAL_CAST_EXPR):
            kids = [x for x in children(c) if x.kind.is_expression()]
            if kids:
                return ir.Cast(r, t, self._expr(kids[-1]))
        if k == CK.CALL_EXPR:
            return self._call(c, r, t)
        if k == CK.INIT_LIST_EXPR:
            return ir.InitList(r, t, [self._expr(x) for x in children(c)],
                               record_fields(c.type) or None if t.kind == "record" else None)
        if k == CK.LAMBDA_EXPR:
            # Not modelled as a value, but its body is lowered so that what it does (e.g. a
            # kernel launch inside `[&]{ k<<<g, b>>>(...); }`) is visible to the analyses.
            body = next((x for x in children(c) if x.kind == CK.COMPOUND_STMT), None)
            parts: list = []
            if body is not None:
                for st in ir.walk_stmt(self.block(body)):
                    parts.extend(st.exprs())
            return ir.Unknown(r, t, "<lambda>", parts)
        if k == CK.CXX_UNARY_EXPR:  # sizeof / alignof
            v = self._eval(c)
            return ir.SizeOf(r, t, int(v) if v is not None else None)
        kids = [x for x in children(c) if x.kind.is_expression()]
        return ir.Unknown(r, t, tokens_text(c)[:200], [self._expr(x) for x in kids])

    def _eval(self, c: ci.Cursor, force: bool = False):
        if self._dependent and not force:
            return None
        if c.type.kind.name in ("DEPENDENT", "OVERLOAD", "INVALID") or \
                c.type.get_canonical().kind.name in NO_SIZE_KINDS:
            return None  # error-recovery or dependent expressions: clang's evaluator aborts
        try:
            return evaluate(c)
        except Exception:
            return None

    def _declref(self, c: ci.Cursor, r: ir.SourceRange, t: ir.CType) -> ir.Expr:
        ref = c.referenced
        name = c.spelling
        if ref is None:
            return ir.Unknown(r, t, name)
        rk = ref.kind
        if rk == CK.VAR_DECL and name in BUILTIN_VARS and ref.location.file is not None and \
                is_prelude(ref.location.file.name):
            v = ir.Variable(name, t, "builtin", r, file_scope=True)
            return ir.VarRef(r, t, v)
        if rk == CK.VAR_DECL and name == "warpSize" and (ref.location.file is None or is_prelude(ref.location.file.name)):
            return ir.Builtin(r, ir.INT_TYPE, "warpSize", "")
        if rk == CK.TEMPLATE_NON_TYPE_PARAMETER:
            return ir.TemplateParam(r, t, name)
        if rk in (CK.VAR_DECL, CK.PARM_DECL):
            key = cursor_key(ref)
            v = self.vars.get(key)
            if v is None and rk == CK.VAR_DECL and ref.semantic_parent is not None and \
                    ref.semantic_parent.kind in (CK.TRANSLATION_UNIT, CK.NAMESPACE, CK.LINKAGE_SPEC):
                v = self._file_var(ref)
            if v is None:
                # e.g. a static class member or a variable from a header: keep its value if
                # it is a constant, else a fresh variable record.
                val = self._eval(c)
                if val is not None and ref.type.is_const_qualified():
                    return ir.Const(r, t, val)
                v = self._file_var(ref) if rk == CK.VAR_DECL else ir.Variable(name, t, "auto", r)
            if v.file_scope and self._globals_used is not None and v not in self._globals_used \
                    and v.storage not in ("host",):
                self._globals_used.append(v)
            if v.file_scope and v.storage in ("host", "static") and ref.type.is_const_qualified():
                val = self._eval(c)
                if val is not None:
                    return ir.Const(r, t, val)
            if not v.file_scope and v.storage == "auto" and rk == CK.VAR_DECL and \
                    ref.type.is_const_qualified() and not ref.type.is_volatile_qualified() and \
                    t.kind == "scalar":
                # `const int UNROLL = 8;` / `constexpr int`: a compile-time constant wherever it
                # is used (trip counts of loops the compiler unrolls, array extents).
                val = self._eval(c)
                if val is not None:
                    return ir.Const(r, t, val)
            return ir.VarRef(r, t, v)
        if rk == CK.ENUM_CONSTANT_DECL:
            return ir.Const(r, t, ref.enum_value)
        if rk in (CK.FUNCTION_DECL, CK.FUNCTION_TEMPLATE, CK.CXX_METHOD):
            return ir.FuncRef(r, t, name, self._template_texts(ref))
        return ir.Unknown(r, t, name)

    def _call(self, c: ci.Cursor, r: ir.SourceRange, t: ir.CType) -> ir.Expr:
        kids = children(c)
        # A kernel launch: callee, then the configuration call, then the arguments.
        if len(kids) >= 2 and kids[1].kind == CK.CALL_EXPR and kids[1].spelling in (
                "cudaConfigureCall", "__cudaPushCallConfiguration"):
            return self._launch(c, kids, r, t)
        name = c.spelling
        ref = c.referenced
        # Operator calls in templates and on class types: treat like the built-in operator.
        if name.startswith("operator") and len(name) > 8:
            op = name[8:].strip()
            args = [self._expr(x) for x in kids if x.kind.is_expression() and
                    not (x.kind == CK.UNEXPOSED_EXPR and x.spelling == name)]
            args = [a for a in args if not isinstance(a, ir.FuncRef)]
            if op in ("=",) and len(args) == 2:
                return ir.Assign(r, t, "=", args[0], args[1])
            if op.endswith("=") and op not in ("==", "!=", "<=", ">=") and len(args) == 2:
                return ir.Assign(r, t, op, args[0], args[1])
            if op == "[]" and len(args) == 2:
                return ir.Index(r, t, args[0], args[1])
            if len(args) == 2:
                return ir.BinOp(r, t, op, args[0], args[1])
            if len(args) == 1:
                return ir.UnaryOp(r, t, op, args[0])
        args_c = kids[1:] if kids and not (ref is not None and ref.kind == CK.CONSTRUCTOR) else kids
        if ref is not None and ref.kind == CK.CONSTRUCTOR:
            args_c = [x for x in kids if x.kind.is_expression()]
        args_c = [x for x in args_c if x.kind.is_expression() and not is_default_arg(x)]
        if ref is not None and ref.kind == CK.CONSTRUCTOR and len(args_c) == 1 and \
                same_extent(args_c[0], c):
            # An implicit conversion or copy (`dim3 b = 256`, passing a struct by value):
            # the constructor call adds nothing to model.
            return self._expr(args_c[0])
        if ref is not None and ref.kind == CK.CXX_METHOD and not args_c and ref.is_static_method():
            # a static constexpr member (`g.size()` of a thread_block_tile<32>, whose size() is
            # `static constexpr ... { return Size; }`): its value, where clang can evaluate it
            v = self._eval(c)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return ir.Const(r, t, v)
        args = [self._expr(x) for x in args_c]
        if ref is not None and self._device_function(ref) is None:
            args = self._by_reference(ref, args)
        if not name and kids:
            callee = self._expr(kids[0])
            name = callee.name if isinstance(callee, ir.FuncRef) else callee_spelling(kids[0])
            if isinstance(callee, ir.Member):
                name = callee.member
        call = ir.Call(r, t, name, args)
        if ref is not None and ref.kind == CK.CXX_METHOD and kids:
            # Keep the object of a method call (x.sync()) as the first argument.
            obj = kids[0]
            if obj.kind == CK.MEMBER_REF_EXPR:
                ok = children(obj)
                if ok:
                    o = self._expr(ok[0])
                    if o.type is not None and o.type.kind == "record" and \
                            self._device_function(ref) is not None:
                        # a method of the project's own (`local_q.reset(i)` on a __shared__
                        # struct) gets the object's address as `this`: the call reads none
                        # of it by itself (what the method reads, it reads through `this`)
                        ptr = ir.CType(o.type.spelling + " *", "pointer", 8, element=o.type)
                        o = ir.UnaryOp(o.range, ptr, "&", o)
                    call.args.insert(0, o)
                    call.method = True
        if ref is not None and ref.kind == CK.CXX_METHOD:
            collective = cub_block_collective(ref)
            if collective:
                self.cub_barriers.append(collective)
        if ref is not None and ref.kind == CK.CONSTRUCTOR and len(args) > 1 and \
                name not in _VECTOR_CTORS:
            call.fields = ctor_fields(ref)
        fn = self._device_function(ref) if ref is not None else None
        if fn is not None:
            call.function = fn
            if self._callees is not None and fn not in self._callees:
                self._callees.append(fn)
        if name in _API_LAUNCHES and len(args) >= 3:
            call.launch = self._api_launch(call, args_c)
        return call

    def _api_launch(self, call: ir.Call, args_c: list) -> Optional[ir.LaunchExpr]:
        """The launch a ``cudaLaunchKernel``/``cudaLaunchCooperativeKernel`` call makes:
        ``(func, gridDim, blockDim, args, sharedMem, stream)``. The kernel's arguments are
        those of a local ``void *args[] = {(void *)&a, &b, ...}`` the call passes; otherwise
        none are known."""
        k = call.args[0]
        while isinstance(k, ir.Cast):
            k = k.operand
        if isinstance(k, ir.VarRef) and k.var.type is not None and k.var.type.kind == "pointer":
            # a function pointer (`auto kernel = f<T>;`, or a parameter): the kernels the caller
            # assigns to it, or those its callers pass (launch._pointer_candidates, hostflow)
            k = ir.FuncRef(k.range, k.type, k.var.name)
        if not isinstance(k, ir.FuncRef):
            return None
        a = call.args
        cfg = [a[1], a[2]] + a[4:6]
        kargs: list = []
        items = a[3] if len(a) > 3 else None
        while isinstance(items, ir.Cast):
            items = items.operand
        init = self._list_inits.get(items.var) if isinstance(items, ir.VarRef) and \
            items.var.type.element is not None and items.var.type.element.spelling.replace(" ", "") == "void*" \
            else None
        if init is not None:
            init.launch_args = True
            for x in init.items:
                while isinstance(x, ir.Cast):
                    x = x.operand
                if not (isinstance(x, ir.UnaryOp) and x.op == "&"):
                    kargs = []
                    break
                kargs.append(x.operand)
        texts = [self._text(x) for x in args_c]
        site = ir.LaunchSite(kernel=k.name, template_args=k.template_args, range=call.range, args=kargs,
                             grid_text=texts[1], block_text=texts[2],
                             smem_text=texts[4] if len(texts) > 4 else "",
                             stream_text=texts[5] if len(texts) > 5 else "", api=call.callee)
        site.caller = self._current_function
        self.out.launches.append(site)
        return ir.LaunchExpr(call.range, call.type, site, cfg, kargs)

    def _by_reference(self, ref: ci.Cursor, args: list) -> list:
        """A __shared__ object (a CUB TempStorage, say) bound to a reference parameter of a
        function the analysis cannot see into is not read by the call: the callee gets its
        address. Lowered as ``&arg`` so that no load of the whole object is recorded."""
        try:
            params = [p.type for p in ref.get_arguments()]
        except Exception:  # a libclang query on an odd declaration
            return args
        out = list(args)
        for i, (a, pt) in enumerate(zip(args, params)):
            if pt.kind != TK.LVALUEREFERENCE or a.type is None or a.type.kind != "record":
                continue
            root = a
            while isinstance(root, (ir.Index, ir.Member)):
                root = root.base
            if isinstance(root, ir.VarRef) and root.var.storage in ("shared", "extern_shared"):
                ptr = ir.CType(a.type.spelling + " *", "pointer", 8, element=a.type)
                out[i] = ir.UnaryOp(a.range, ptr, "&", a)
        return out

    def _template_texts(self, ref: ci.Cursor) -> tuple:
        """A function template specialization's arguments, spelled as the kernel's display
        name spells them (``()`` for a function that is not one)."""
        try:
            if ref.get_num_template_arguments() <= 0:
                return ()
        except Exception:  # a libclang query on an odd declaration
            return ()
        tparams = []
        tmpl = specialized_template(ref)
        if tmpl is not None:
            tparams = [ch.spelling for ch in children(tmpl)
                       if ch.kind in (CK.TEMPLATE_TYPE_PARAMETER, CK.TEMPLATE_NON_TYPE_PARAMETER)]
        _, texts = self._bindings(ref, tparams)
        return tuple(texts)

    def _launch(self, c, kids, r, t) -> ir.Expr:
        callee_c = kids[0]
        cfg = [x for x in children(kids[1])[1:]  # drop the configure function itself
               if not is_default_arg(x)]
        args = [self._expr(x) for x in kids[2:]]
        cfg_ir = [self._expr(x) for x in cfg]
        ref = find_ref(callee_c)
        kname = ref.spelling if ref is not None else callee_c.spelling
        targs = self._template_texts(ref) if ref is not None else ()
        texts = [self._text(x) for x in cfg]
        site = ir.LaunchSite(kernel=kname, template_args=targs, range=r, args=args,
                             grid_text=texts[0] if texts else "", block_text=texts[1] if len(texts) > 1 else "",
                             smem_text=texts[2] if len(texts) > 2 else "",
                             stream_text=texts[3] if len(texts) > 3 else "")
        site.caller = self._current_function
        self.out.launches.append(site)
        return ir.LaunchExpr(r, t, site, cfg_ir, args)



# Runtime calls that launch the kernel passed as their first argument.
_API_LAUNCHES = frozenset({"cudaLaunchKernel", "cudaLaunchCooperativeKernel"})


def record_fields(t: ci.Type) -> tuple:
    """The field names of a record type, in declaration order (an aggregate's braced
    initializer sets them in this order)."""
    decl = t.get_canonical().get_declaration()
    if decl is None or decl.kind not in (CK.STRUCT_DECL, CK.CLASS_DECL) or decl.spelling in _VECTOR_CTORS:
        return ()
    return tuple(x.spelling for x in children(decl) if x.kind == CK.FIELD_DECL)


def ctor_fields(ref: ci.Cursor) -> tuple:
    """The fields a constructor sets straight from one of its parameters (through casts
    only), as ((field, parameter index), ...): ``p(const dim3 &b, int s) : block(b),
    smem((size_t)s) {}`` gives (("block", 0), ("smem", 1))."""
    ctor = ref.get_definition() or ref
    kids = children(ctor)
    params = [x for x in kids if x.kind == CK.PARM_DECL]
    keys = {cursor_key(p): i for i, p in enumerate(params)}
    out = []
    for i, x in enumerate(kids):
        if x.kind != CK.MEMBER_REF or i + 1 >= len(kids) or not kids[i + 1].kind.is_expression():
            continue
        e = kids[i + 1]
        while e.kind in (CK.UNEXPOSED_EXPR, CK.PAREN_EXPR, CK.CSTYLE_CAST_EXPR,
                         CK.CXX_STATIC_CAST_EXPR, CK.CXX_FUNCTIONAL_CAST_EXPR, CK.CALL_EXPR):
            inner = [y for y in children(e) if y.kind.is_expression()]
            if len(inner) != 1 or (e.kind == CK.CALL_EXPR and
                                   (e.referenced is None or e.referenced.kind != CK.CONSTRUCTOR)):
                break
            e = inner[0]
        if e.kind == CK.DECL_REF_EXPR and e.referenced is not None and \
                e.referenced.kind == CK.PARM_DECL and cursor_key(e.referenced) in keys:
            out.append((x.spelling, keys[cursor_key(e.referenced)]))
    return tuple(out)


# CUB's block-wide collectives whose methods synchronise the block (CTA_SYNC) when it has more
# than one warp: scans, reductions, exchanges, sorts, histograms, discontinuities, shuffles.
# (BlockLoad/BlockStore do only with their transposing algorithms: not counted.)
_CUB_SYNCING = {"BlockScan", "BlockReduce", "BlockExchange", "BlockRadixSort", "BlockRadixRank",
                "BlockHistogram", "BlockDiscontinuity", "BlockAdjacentDifference", "BlockShuffle",
                "BlockMergeSort"}


def cub_block_collective(ref: ci.Cursor) -> Optional[str]:
    """``"BlockScan::InclusiveSum"`` when ``ref`` is a method of a CUB block collective whose
    BLOCK_DIM_X (its second template argument) exceeds a warp: the call executes at least one
    block barrier (CUB: "a subsequent __syncthreads() ... should be invoked ... if the
    collective's temporary storage is to be reused"), so every access a thread makes before
    the call is ordered before every access any thread makes after it."""
    cls = ref.semantic_parent
    if cls is None or cls.spelling not in _CUB_SYNCING:
        return None
    ns = cls.semantic_parent
    while ns is not None and ns.kind == CK.NAMESPACE and ns.spelling != "cub":
        ns = ns.semantic_parent
    if ns is None or ns.kind != CK.NAMESPACE:
        return None
    spelling = cls.type.get_canonical().spelling
    if "<" not in spelling:
        return None
    depth, parts, cur = 0, [], ""
    for ch in spelling[spelling.index("<") + 1:]:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    x = int_or_none(parts[1]) if len(parts) > 1 else None
    if x is None or x <= 32:
        return None
    return f"{cls.spelling}::{ref.spelling}"
