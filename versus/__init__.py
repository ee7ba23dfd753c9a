# The project's one installed name. Its four packages keep the checkout's required layout, the
# top-level folders engine/, protocol/, p2p/ and cli/, and are installed as versus.engine,
# versus.protocol, versus.p2p and versus.cli (pyproject.toml maps them with package-dir), so
# nothing of ours lands in site-packages under a name another distribution owns (`protocol`
# and `p2p` are PyPI names, and pip does not detect file clashes).
#
# In a wheel the four packages sit inside this folder. In a checkout (the tests, the benches,
# an editable install) they sit beside it: then their parent folder joins this package's search
# path, so `versus.engine` is the checkout's engine/ and no second copy of it can be imported.
# (os.path, not pathlib: this runs at the start of every `versus` command.)
from __future__ import annotations

import os

_HERE = os.path.dirname(os.path.abspath(__file__))
_PARENT = os.path.dirname(_HERE)
if (not os.path.isdir(os.path.join(_HERE, "engine"))
        and os.path.isfile(os.path.join(_PARENT, "engine", "__init__.py"))):
    __path__.append(_PARENT)

# The optional compiled build of the engine's hot modules (versus/compiled.py): opt-in, and
# before anything imports the engine.
if os.environ.get("VERSUS_COMPILED", "") not in ("", "0"):
    from . import compiled as _compiled

    _compiled.activate()
