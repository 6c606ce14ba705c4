"""tests/plugins/ holds plug-in packages as ``simlab new-game`` writes them (the committed
copy that tests/test_plugins.py compares with the template's output). Their own tests
need the plug-in installed, so the suite does not collect them here: tests/test_plugins.py
installs each into a temporary folder and runs its tests there."""

collect_ignore_glob = ["*"]
