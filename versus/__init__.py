# The project's one installed name. Its four packages keep the checkout's required layout, the
# top-level folders engine/, protocol/, p2p/ and cli/, and are installed as versus.engine,
# versus.protocol, versus.p2p and versus.cli (pyproject.toml maps them with package-dir), so
# nothing of ours lands in site-packages under a name another distribution owns (`protocol`
# and `p2p` are PyPI names, and pip does not detect file clashes).
#
# In a wheel the four packages sit inside this folder. In a checkout (the tests, the benches,
# an editable install) they sit beside it: then their parent folder joins this package's search
# path, so `versus.engine` is the checkout's engine/ and no second copy of it can be imported.
from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent
if not (_HERE / "engine").is_dir() and (_HERE.parent / "engine" / "__init__.py").is_file():
    __path__.append(str(_HERE.parent))
