/**
 * The program that makes the mutants of a Python file with Python's own `ast` (python-mutants.ts runs
 * it). It only parses: the file's text comes in a JSON file, nothing of the project is imported or run.
 * Each mutant is a replacement at a source position (never `ast.unparse` of the file: its formatting and
 * comments stay), of the kinds and names of Stryker's mutators, so that choose.ts ranks them alike.
 * Positions go out as 0-based lines and UTF-16 columns (ast gives UTF-8 byte columns, tokenize code
 * points), as a JavaScript string indexes the text. A mutant that does not parse is dropped.
 *
 * In: {"priority": [mutator, ...], "perLine": n, "budget": seconds, "files": [{"text": str, "lines": [1-based], "more": [1-based]}]}
 * (`lines` ran; `more`: other changed lines, mutated where they continue a statement whose first line ran)
 * Out: {"files": [{"mutants": [[line, col, endLine, endCol, mutator, replacement], ...], "cut": bool} | {"skip": why}]}
 */
export const PYTHON_MUTATOR = String.raw`# code-trm: mutants of the changed lines of Python files, by source position. Parses only.
import ast, bisect, io, json, sys, time, tokenize, warnings

warnings.simplefilter("ignore")  # the parser's SyntaxWarnings (invalid escapes, 1if) say nothing here

EQ = {ast.Lt: ["<=", ">="], ast.LtE: ["<", ">"], ast.Gt: [">=", "<="], ast.GtE: [">", "<"],
      ast.Eq: ["!="], ast.NotEq: ["=="], ast.Is: ["is not"], ast.IsNot: ["is"],
      ast.In: ["not in"], ast.NotIn: ["in"]}
ARITH = {ast.Add: "-", ast.Sub: "+", ast.Mult: "/", ast.Div: "*", ast.FloorDiv: "*", ast.Mod: "*"}
AUG = {ast.Add: "-=", ast.Sub: "+=", ast.Mult: "/=", ast.Div: "*=", ast.FloorDiv: "*=", ast.Mod: "*=",
       ast.LShift: ">>=", ast.RShift: "<<=", ast.BitAnd: "|=", ast.BitOr: "&="}
LOGGERS = {"logging", "logger", "log", "_logger", "_log", "LOGGER", "LOG", "warnings"}
LOG_CALLS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log", "getLogger"}
TYPE_CALLS = {"cast", "TypeVar", "NewType", "ParamSpec", "TypeVarTuple"}
# Annotations, decorators and type parameters say nothing a test runs.
SKIP_FIELDS = {"annotation", "returns", "decorator_list", "type_comment", "type_params"}
TYPE_ALIAS = getattr(ast, "TypeAlias", ())
SKIP_TOKENS = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER, tokenize.ENCODING}


def stringy(e):
    if isinstance(e, ast.Constant):
        return isinstance(e.value, (str, bytes))
    if isinstance(e, (ast.JoinedStr, ast.List, ast.Tuple, ast.ListComp)):
        return True
    return isinstance(e, ast.BinOp) and (stringy(e.left) or stringy(e.right))


def name_of(e):
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        return e.attr
    return None


def is_log(call):
    f = call.func
    return isinstance(f, ast.Attribute) and f.attr in LOG_CALLS and name_of(f.value) in LOGGERS


def is_guard(test):
    # if TYPE_CHECKING: / if __name__ == "__main__":
    if name_of(test) == "TYPE_CHECKING":
        return True
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__")


class File:
    def __init__(self, src, want):
        self.src = src
        self.lines = src.split("\n")
        self.raw = {}
        self.want = want
        self.wanted = sorted(want)
        self.out = []
        self.seen = set()
        self.conds = set()
        self.no_strings = 0
        self.toks = []
        try:
            for t in tokenize.generate_tokens(io.StringIO(src).readline):
                if t.type not in SKIP_TOKENS:
                    self.toks.append(t)
        except (tokenize.TokenError, SyntaxError, IndentationError):
            self.toks = []
        self.tok_starts = [t.start for t in self.toks]

    def touches(self, n):
        # Whether a wanted line is among the node's: every mutant of a node lies within its lines.
        first = getattr(n, "lineno", None)
        if first is None:
            return True
        i = bisect.bisect_left(self.wanted, first)
        return i < len(self.wanted) and self.wanted[i] <= (n.end_lineno or first)

    def tokens(self, a, b):
        i = bisect.bisect_left(self.tok_starts, a)
        out = []
        while i < len(self.toks) and self.toks[i].start < b:
            out.append(self.toks[i])
            i += 1
        return out

    def col(self, line, byte_col):
        b = self.raw.get(line)
        if b is None:
            b = self.raw[line] = self.lines[line - 1].encode("utf-8")
        return len(b[:byte_col].decode("utf-8"))

    def start(self, n):
        return (n.lineno, self.col(n.lineno, n.col_offset))

    def end(self, n):
        return (n.end_lineno, self.col(n.end_lineno, n.end_col_offset))

    def text(self, a, b):
        if a[0] == b[0]:
            return self.lines[a[0] - 1][a[1]:b[1]]
        return "\n".join([self.lines[a[0] - 1][a[1]:]] + self.lines[a[0]:b[0] - 1] + [self.lines[b[0] - 1][:b[1]]])

    def add(self, a, b, mutator, repl):
        if a[0] not in self.want or (a, b, repl) in self.seen or self.text(a, b) == repl:
            return
        self.seen.add((a, b, repl))
        self.out.append((a, b, mutator, repl))

    def node(self, n, mutator, repl):
        self.add(self.start(n), self.end(n), mutator, repl)

    def between(self, a, b):
        # The operator's tokens between two operands: what lies there besides parentheses and comments.
        ts = [t for t in self.tokens(a, b) if t.end <= b and t.string not in ("(", ")")]
        return (ts[0].start, ts[-1].end) if ts else None

    def cond(self, test, repls):
        # Of (y := test), the test: without the binding, y is unbound wherever it is read, and any run kills it.
        while isinstance(test, ast.NamedExpr):
            test = test.value
        if isinstance(test, ast.Constant):
            return
        self.conds.add(id(test))
        for r in repls:
            self.node(test, "ConditionalExpression", r)

    def boolean(self, n, parent):
        if id(n) in self.conds:
            return
        if isinstance(parent, ast.BoolOp):
            self.cond(n, ["False"] if isinstance(parent.op, ast.Or) else ["True"])
        else:
            self.cond(n, ["True", "False"])

    def visit(self, n, parent=None):
        if not self.touches(n):
            return
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str):
            return  # a docstring, a bare string
        if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(isinstance(t, ast.Name) and t.id in ("__all__", "__slots__") for t in targets):
                return
        if isinstance(n, TYPE_ALIAS):
            return
        if isinstance(n, ast.Call) and is_log(n):
            return
        if isinstance(n, ast.JoinedStr):
            if n.values and not self.no_strings:
                self.node(n, "StringLiteral", '""')
            return  # f-string internals
        handler = getattr(self, "m_" + type(n).__name__, None)
        if handler is not None:
            handler(n, parent)
        quiet = isinstance(n, (ast.Raise, ast.Assert)) or (isinstance(n, ast.Call) and name_of(n.func) in TYPE_CALLS)
        self.no_strings += quiet
        for field, value in ast.iter_fields(n):
            if field in SKIP_FIELDS:
                continue
            for x in value if isinstance(value, list) else [value]:
                if not isinstance(x, ast.AST) or (field == "keys" and isinstance(n, ast.Dict) and stringy(x)):
                    continue
                if isinstance(n, ast.If) and field == "test" and is_guard(x):
                    continue
                self.visit(x, n)
        self.no_strings -= quiet

    def m_If(self, n, parent):
        # False first (Stryker gives true first): an "if" a change adds is mostly a case it handles, and
        # "if False:" is that case undone, which survives when no test checks it; "if True:" runs the
        # case's body every time, and whatever test takes the usual path kills it.
        if not is_guard(n.test):
            self.cond(n.test, ["False", "True"])

    def m_While(self, n, parent):
        self.cond(n.test, ["False"])

    def m_IfExp(self, n, parent):
        self.cond(n.test, ["True", "False"])

    def m_Assert(self, n, parent):
        self.cond(n.test, ["True"])

    def m_comprehension(self, n, parent):
        for c in n.ifs:
            self.cond(c, ["True"])

    def m_Compare(self, n, parent):
        self.boolean(n, parent)
        prev = n.left
        for op, right in zip(n.ops, n.comparators):
            span = self.between(self.end(prev), self.start(right))
            if span:
                for r in EQ.get(type(op), []):
                    self.add(span[0], span[1], "EqualityOperator", r)
            prev = right

    def m_BoolOp(self, n, parent):
        self.boolean(n, parent)
        other = "or" if isinstance(n.op, ast.And) else "and"
        for left, right in zip(n.values, n.values[1:]):
            span = self.between(self.end(left), self.start(right))
            if span:
                self.add(span[0], span[1], "LogicalOperator", other)

    def m_BinOp(self, n, parent):
        r = ARITH.get(type(n.op))
        if r and not stringy(n.left) and not stringy(n.right):
            span = self.between(self.end(n.left), self.start(n.right))
            if span:
                self.add(span[0], span[1], "ArithmeticOperator", r)

    def m_AugAssign(self, n, parent):
        r = AUG.get(type(n.op))
        if r and not stringy(n.value):
            span = self.between(self.end(n.target), self.start(n.value))
            if span:
                self.add(span[0], span[1], "AssignmentOperator", r)

    def m_UnaryOp(self, n, parent):
        a = self.start(n)
        i = bisect.bisect_left(self.tok_starts, a)
        if i >= len(self.toks) or self.toks[i].start != a:
            return
        op = self.toks[i]
        if isinstance(n.op, ast.Not):
            nxt = self.toks[i + 1] if i + 1 < len(self.toks) else None
            stop = nxt.start if nxt is not None and nxt.start[0] == op.end[0] else op.end
            self.add(op.start, stop, "BooleanLiteral", "")
        elif isinstance(n.op, ast.USub):
            self.add(op.start, op.end, "UnaryOperator", "+")
        elif isinstance(n.op, ast.UAdd):
            self.add(op.start, op.end, "UnaryOperator", "-")
        elif isinstance(n.op, ast.Invert):
            self.add(op.start, op.end, "UnaryOperator", "")

    def m_Constant(self, n, parent):
        v = n.value
        if isinstance(v, bool):
            self.node(n, "BooleanLiteral", "False" if v else "True")
        elif isinstance(v, (str, bytes)) and not self.no_strings:
            b = "b" if isinstance(v, bytes) else ""
            self.node(n, "StringLiteral", b + ('"Stryker was here!"' if len(v) == 0 else '""'))

    def m_List(self, n, parent):
        if n.elts and isinstance(n.ctx, ast.Load):
            self.node(n, "ArrayDeclaration", "[]")

    def m_Dict(self, n, parent):
        if n.keys:
            self.node(n, "ObjectLiteral", "{}")

    def m_Return(self, n, parent):
        if n.value is not None and not (isinstance(n.value, ast.Constant) and n.value.value is None):
            self.node(n.value, "ReturnValue", "None")


def offsets(lines):
    out, at = [], 0
    for line in lines:
        out.append(at)
        at += len(line) + 1
    return out


def utf16(line, col):
    return col + sum(1 for ch in line[:col] if ord(ch) > 0xFFFF)


def continuations(tree, want, more):
    # coverage.py counts a statement on its first line: the changed lines that continue one that ran
    # (a call's arguments, a condition spread over lines, up to the body of a compound statement).
    # A match's cases have no line of their own: each starts at its pattern's.
    extra = set()
    for node in ast.walk(tree) if more else ():
        if not isinstance(node, ast.stmt) or node.lineno not in want:
            continue
        kids = [getattr(c, "pattern", c) for f in ("body", "orelse", "finalbody", "handlers", "cases") for c in getattr(node, f, None) or []]
        inner = [c.lineno for c in kids if hasattr(c, "lineno")]
        last = min(inner) - 1 if inner else node.end_lineno
        extra.update(line for line in more if node.lineno < line <= last)
    return extra


def mutate(text, want, more, priority, per_line, deadline):
    # Past the budget a file is not even parsed: a large one takes seconds, and python3 is stopped at last.
    if time.monotonic() > deadline:
        return {"mutants": [], "cut": True}
    if "\r" in text.replace("\r\n", ""):
        return {"skip": "it has a carriage return that ends no line"}
    bom = 1 if text.startswith("\ufeff") else 0
    src = text[bom:]
    try:
        tree = ast.parse(src)
    except (SyntaxError, ValueError) as e:
        return {"skip": "Python's parser refused it (%s, line %s)" % (type(e).__name__, getattr(e, "lineno", "?"))}
    f = File(src, want | continuations(tree, want, more))
    f.visit(tree)
    rank = {m: i for i, m in enumerate(priority)}
    by_line = {}
    for m in f.out:
        by_line.setdefault(m[0][0], []).append(m)
    starts = offsets(f.lines)
    out, cut = [], False
    for line in sorted(by_line):
        kept = 0
        for a, b, mutator, repl in sorted(by_line[line], key=lambda m: rank.get(m[2], len(priority))):
            if kept >= per_line:
                break
            if time.monotonic() > deadline:
                cut = True
                break
            i, j = starts[a[0] - 1] + a[1], starts[b[0] - 1] + b[1]
            try:
                ast.parse(src[:i] + repl + src[j:])
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            kept += 1
            la, lb = f.lines[a[0] - 1], f.lines[b[0] - 1]
            out.append([a[0] - 1, utf16(la, a[1]) + (bom if a[0] == 1 else 0), b[0] - 1, utf16(lb, b[1]) + (bom if b[0] == 1 else 0), mutator, repl])
        if cut:
            break
    return {"mutants": out, "cut": cut}


def main():
    sys.setrecursionlimit(3000)
    with open(sys.argv[1], encoding="utf-8") as fh:
        inp = json.load(fh)
    deadline = time.monotonic() + float(inp.get("budget", 30))
    res = []
    for f in inp["files"]:
        try:
            res.append(mutate(f["text"], set(f["lines"]), set(f.get("more", [])), inp["priority"], int(inp["perLine"]), deadline))
        except (RecursionError, MemoryError):
            res.append({"skip": "it is nested too deeply for Python's parser"})
        except Exception as e:
            res.append({"skip": "the mutants could not be made (%s)" % type(e).__name__})
    sys.stdout.write(json.dumps({"files": res}))


main()
`;
