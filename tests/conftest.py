# Suite-wide settings for the processes the tests start.
#
# Many tests run the real `versus` command in a child process. Where PYTHONDONTWRITEBYTECODE is
# set (as in some CI images), every child would compile every module it imports again, about
# 0.15 s of CPU per child. The children instead keep their bytecode in one cache outside the
# source tree (PYTHONPYCACHEPREFIX), shared by the whole run and the next one; the test
# process itself and the user's tree are left as they are.
from __future__ import annotations

import os
import tempfile
from pathlib import Path

if os.environ.get("PYTHONDONTWRITEBYTECODE") and "PYTHONPYCACHEPREFIX" not in os.environ:
    os.environ.pop("PYTHONDONTWRITEBYTECODE")
    os.environ["PYTHONPYCACHEPREFIX"] = str(
        Path(tempfile.gettempdir()) / f"versus-tests-pycache-{os.getuid()}")
