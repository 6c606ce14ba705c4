"""simlab's version, where every layer can read it (``simlab.__version__`` is this)."""

VERSION = "0.1.0"
