"""``simlab new-game NAME``: write a pip-installable plug-in package for a new game.

The template lives in ``simlab/cli/templates/new_game/`` (files ending ``.tmpl``, shipped
as package data): a small complete trick-taking game over the state-and-step contract,
its random, heuristic and search players, its questions, a house rule of Belote as a
second plug-in game, and its own tests. Writing it replaces ``__NAME__`` (the slug),
``__PKG__`` (the Python package, ``simlab_NAME``), ``__DIST__`` (the distribution,
``simlab-NAME`` with hyphens) and ``__TITLE__`` in names and text, and drops the ``.tmpl`` suffix.

May import: simlab.engine.*, simlab.games (the registry: a NAME must be new).
"""

from __future__ import annotations

import argparse
import keyword
import sys
from pathlib import Path

from simlab.engine.knobs import SimlabError

TEMPLATE = Path(__file__).parent / "templates" / "new_game"
SUFFIX = ".tmpl"
MAX_NAME = 32  # longer, and the generated code's lines pass ruff's 120 columns


def substitutions(name: str) -> dict[str, str]:
    """Placeholder -> text for a game called ``name`` (longest placeholders first)."""
    return {"__TITLE__": name.replace("_", " ").strip().capitalize(),
            "__PKG__": f"simlab_{name}", "__DIST__": "simlab-" + name.replace("_", "-"),
            "__NAME__": name}


def check_name(name: str) -> None:
    """A game name must be a lower-case Python identifier that is not a game yet."""
    from simlab.games import game_names

    if not name.isidentifier() or keyword.iskeyword(name) or not name.isascii() \
            or name != name.lower() or name.startswith("_"):
        raise SimlabError(f"new-game NAME must be a lower-case Python identifier (letters, "
                          f"digits, underscores, not starting with a digit or underscore), "
                          f"got {name!r}")
    if len(name) > MAX_NAME:
        raise SimlabError(f"new-game NAME must be at most {MAX_NAME} characters (it names "
                          f"columns, metric keys and a package), got {len(name)}: {name!r}")
    if name in game_names():
        raise SimlabError(f"new-game NAME {name!r} is already a game (simlab list); choose "
                          "another name")


def _fill(text: str, subs: dict[str, str]) -> str:
    for key, value in subs.items():
        text = text.replace(key, value)
    return text


def template_files() -> list[Path]:
    """Every template file, relative to the template folder, in a fixed order."""
    return sorted(p.relative_to(TEMPLATE) for p in TEMPLATE.rglob(f"*{SUFFIX}") if p.is_file())


def write_package(name: str, out: Path) -> list[Path]:
    """Write the package for game ``name`` into ``out`` (which must not hold any of its
    files yet); return the files written."""
    check_name(name)
    subs = substitutions(name)
    subs_paths = {**subs, "__pkg__": subs["__PKG__"]}
    targets = []
    for rel in template_files():
        dest = out / _fill(str(rel)[: -len(SUFFIX)], subs_paths)
        if dest.exists():
            raise SimlabError(f"{dest} already exists; give new-game an empty or new --out "
                              "folder")
        targets.append((rel, dest))
    written = []
    for rel, dest in targets:
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(_fill((TEMPLATE / rel).read_text(encoding="utf-8"), subs),
                        encoding="utf-8")
        written.append(dest)
    return written


def cmd_new_game(args: argparse.Namespace) -> int:
    out = Path(args.out) if args.out is not None else Path(args.name)
    check_name(args.name)
    written = write_package(args.name, out)
    print(f"wrote {len(written)} files to {out}/ (package simlab_{args.name}, games "
          f"{args.name} and {args.name}_belote_house)")
    print("next:")
    print(f"  pip install -e {out}")
    print("  simlab list")
    print(f"  simlab run {args.name} -n 20000")
    print(f"  python -m pytest {out}/tests")
    sys.stdout.flush()
    return 0


def add_command(sub, formatter) -> None:
    """Register ``simlab new-game`` on the command line's subparsers."""
    p = sub.add_parser(
        "new-game", help="write a pip-installable plug-in package for your own game",
        formatter_class=formatter,
        description="Write a Python package for a new game, from a template: a small "
                    "complete trick-taking game (deck, knobs, deal, legal moves, apply, "
                    "outcome, what a seat sees), random, heuristic and search players, "
                    "balance questions, a house rule of Belote as a second game, and its "
                    "own tests. Its pyproject.toml declares the entry point "
                    "[project.entry-points.\"simlab.games\"], so once installed (pip "
                    "install DIR) simlab lists and runs it like its own games.",
        epilog="examples:\n"
               "  simlab new-game my_tricks\n"
               "  simlab new-game my_tricks --out ~/src/my-tricks\n"
               "  pip install -e my_tricks && simlab list")
    p.add_argument("name", metavar="NAME",
                   help="the game's slug: a lower-case Python identifier, not a game yet")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="folder to write (default ./NAME); must not hold the package's files")
    p.set_defaults(func=cmd_new_game)
