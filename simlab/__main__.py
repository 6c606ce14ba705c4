"""``python -m simlab`` runs the command line (see ``simlab.cli.commands``)."""

import os
import sys


def _by_user(e: BaseException | None) -> bool:
    """Whether ``e`` is a Ctrl-C, maybe wrapped by the module it interrupted."""
    for _ in range(8):
        if e is None:
            return False
        if isinstance(e, KeyboardInterrupt):
            return True
        e = e.__cause__ or e.__context__
    return False


def run() -> None:
    """The command line, with a Ctrl-C while its modules load (numpy, polars, numba: most
    of a second) or before its own handler is set ending as any other Ctrl-C does: one
    line, exit status 130, no traceback."""
    try:
        from simlab.cli.commands import entry

        entry()
    except BaseException as e:
        if isinstance(e, SystemExit) or not _by_user(e):
            raise
        try:
            sys.stderr.write("simlab: interrupted\n")
            sys.stderr.flush()
        finally:
            os._exit(130)  # half-imported modules: no teardown


if __name__ == "__main__":
    run()
