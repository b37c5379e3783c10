"""The package's own tests. They import `sluice` from the tree (python/) with the library of
`make build` (or SLUICE_LIBRARY), unless SLUICE_TEST_INSTALLED=1 asks for the installed one."""

import os
import pathlib
import sys

if os.environ.get("SLUICE_TEST_INSTALLED") != "1":
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
