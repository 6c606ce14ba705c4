"""``python -m simlab`` runs the command line (see ``simlab.cli``)."""

from simlab.cli import entry

entry()
