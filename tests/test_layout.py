"""The layout (issue 17): no import cycle among the referee's modules, lazy imports inside
functions included (they are cycles all the same, only deferred); the CLI's command modules
depend on its app, never on each other."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "referee"


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        out[name] = path
    return out


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imports(path: Path, known: dict[str, Path]) -> set[str]:
    """The referee modules `path` imports, anywhere in it but under `if TYPE_CHECKING:`."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if _type_checking(node):
            return
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module in known:
                found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in known)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in known)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def graph() -> dict[str, set[str]]:
    known = modules()
    # a package's own modules import it implicitly; only the edges written in the code count
    return {name: imports(path, known) - {name} for name, path in known.items()}


def test_no_module_of_the_referee_is_in_an_import_cycle():
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_cli_commands_depend_on_the_app_not_on_each_other():
    g = graph()
    commands = [m for m in g if m.startswith("referee.cli.") and m != "referee.cli.common"]
    assert len(commands) >= 6
    for module in commands:
        assert "referee.cli.common" in g[module], module
        assert not {m for m in g[module] if m.startswith("referee.cli") and m != "referee.cli.common"}, module
    assert not {m for m in g["referee.cli.common"] if m.startswith("referee.cli")}


def test_the_subpackages_hold_what_their_names_say():
    for package, members in {"cli": {"common", "play", "tournament", "replay", "validate"},
                             "bots": {"player", "sandbox", "limits"},
                             "replay": {"records", "verify", "terminal", "html"},
                             "tournament": {"config", "designs", "run", "executors", "standings"}}.items():
        present = {p.stem for p in (PACKAGE / package).glob("*.py")}
        assert members <= present, (package, members - present)
