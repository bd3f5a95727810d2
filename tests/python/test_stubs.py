"""The hand-written type stub (python/nmt/_nmt.pyi) against the module itself: the same names, the
same parameters in the same order with the same defaults, the same properties. Types are the stub's
own business (pybind11 writes List where the stub may say Sequence)."""

import ast
import inspect
import pathlib

import pytest

import nmt._nmt as module

STUB = pathlib.Path(__file__).resolve().parents[2] / "python" / "nmt" / "_nmt.pyi"
MISSING = object()  # a parameter without a default


def split_top_level(text):
    """'a: int = 1, b: Dict[str, int] = {}' -> ['a: int = 1', 'b: Dict[str, int] = {}']"""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:].strip())
    return parts


def default_value(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def module_signatures(function, name):
    """Each signature pybind11 documents for `function`: [(parameter, default or MISSING), ...], self left out."""
    signatures = []
    for line in (function.__doc__ or "").splitlines():
        line = line.strip()
        if line[:3] in {f"{k}. " for k in range(1, 10)}:
            line = line[3:]
        if not line.startswith(name + "(") or line.startswith(name + "(*args, **kwargs)"):
            continue
        inside = line[len(name) + 1:line.rindex(") ->")]
        params = []
        for part in split_top_level(inside):
            if part.startswith("self"):
                continue
            if part.startswith("**"):
                params.append((part.split(":")[0].strip(), MISSING))  # **kwargs: its name differs by design
                continue
            head, _, default = part.partition(" = ")
            params.append((head.split(":")[0].strip(), default_value(default) if default else MISSING))
        signatures.append(params)
    return signatures


def stub_signature(node):
    args = node.args
    params = [a.arg for a in args.posonlyargs + args.args]
    defaults = [MISSING] * (len(params) - len(args.defaults)) + [ast.literal_eval(d) for d in args.defaults]
    out = [(p, d) for p, d in zip(params, defaults) if p != "self"]
    out += [(a.arg, MISSING if d is None else ast.literal_eval(d)) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg:
        out.append(("**" + args.kwarg.arg, MISSING))
    return out


def comparable(signature):
    """**kwargs compared by being there, not by name (pybind11 calls it kwargs)."""
    return [("**", d) if p.startswith("**") else (p, d) for p, d in signature]


def stub_members(body):
    """name -> list of FunctionDef (overloads) or 'property' or ClassDef."""
    members = {}
    for node in body:
        if isinstance(node, ast.ClassDef):
            members[node.name] = node
        elif isinstance(node, ast.FunctionDef):
            if any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list):
                members[node.name] = "property"
            else:
                members.setdefault(node.name, []).append(node)
    return members


def check_function(function, nodes, where):
    documented = sorted(map(repr, map(comparable, module_signatures(function, nodes[0].name))))
    stubbed = sorted(map(repr, map(comparable, (stub_signature(n) for n in nodes))))
    assert documented == stubbed, f"{where}: the module has {documented}, the stub {stubbed}"


def check_python_function(function, nodes, where):
    params = []
    for p in inspect.signature(function).parameters.values():
        if p.name == "self":
            continue
        name = "**" + p.name if p.kind == p.VAR_KEYWORD else p.name
        params.append((name, MISSING if p.default is p.empty else p.default))
    stubbed = [stub_signature(n) for n in nodes]
    assert [params] == stubbed, f"{where}: the module has {params}, the stub {stubbed}"


def test_the_stub_declares_what_the_module_has_and_nothing_else():
    stub = stub_members(ast.parse(STUB.read_text(encoding="utf-8")).body)
    module_names = {n for n in dir(module) if not n.startswith("_")}
    assert module_names == set(stub), f"only in the module: {module_names - set(stub)}; only in the stub: {set(stub) - module_names}"
    for name in sorted(module_names):
        thing = getattr(module, name)
        if isinstance(thing, type) and issubclass(thing, BaseException):  # a warning or error category: its base
            assert [b.id for b in stub[name].bases] == [thing.__bases__[0].__name__], name
        elif isinstance(thing, type):
            members = stub_members(stub[name].body)
            own = {n for n, v in vars(thing).items()  # __hash__ = None; pybind11's own (2.13: _pybind11_conduit_v1_)
                   if v is not None and not n.startswith("_pybind11")} - {"__doc__", "__module__"}
            if not module_signatures(vars(thing)["__init__"], "__init__"):
                own.discard("__init__")  # no constructor of its own: made by the module only
            stubbed = set(members)
            assert own == stubbed, f"{name}: only in the module: {own - stubbed}; only in the stub: {stubbed - own}"
            for member in sorted(own):
                value = vars(thing)[member]
                if isinstance(value, property):
                    assert members[member] == "property", f"{name}.{member} is a property"
                elif inspect.isfunction(value):  # written in Python (nmt/__init__.py)
                    check_python_function(value, members[member], f"{name}.{member}")
                elif module_signatures(value, member):
                    check_function(value, members[member], f"{name}.{member}")
        else:
            check_function(thing, stub[name], name)


def test_the_check_catches_a_changed_default():
    translate = stub_members(stub_members(ast.parse(STUB.read_text(encoding="utf-8")).body)["Translator"].body)["translate"]
    source = ast.unparse(translate[0])
    assert "beam: int=1" in source
    changed = ast.parse(source.replace("beam: int=1", "beam: int=2")).body
    with pytest.raises(AssertionError, match="Translator.translate: the module has"):
        check_function(module.Translator.translate, [changed[0], translate[1]], "Translator.translate")
