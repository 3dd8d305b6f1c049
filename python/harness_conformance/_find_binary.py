"""Locates the ``harness-conformance`` executable this package installed.

pip puts a wheel's binary in the scripts directory of the scheme it installed into, which is not
always the one on PATH (``--user``, ``--prefix``, ``--target``, a venv that is not activated), so
this looks in each place an installer can have put it, in the order pip would choose, and says
where it looked when it finds nothing.
"""

from __future__ import annotations

import os
import sys
import sysconfig

NAME = "harness-conformance"


def _candidates() -> list[str]:
    exe = NAME + (sysconfig.get_config_var("EXE") or "")
    dirs = [sysconfig.get_path("scripts")]
    user_scheme = {"nt": "nt_user", "posix": "posix_user"}.get(os.name)
    if sys.version_info >= (3, 10):
        user_scheme = sysconfig.get_preferred_scheme("user")
    if user_scheme:
        dirs.append(sysconfig.get_path("scripts", scheme=user_scheme))
    # `pip install --target DIR` puts scripts in DIR/bin beside the package.
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dirs.append(os.path.join(here, "bin"))
    seen: list[str] = []
    for d in dirs:
        path = os.path.join(d, exe)
        if path not in seen:
            seen.append(path)
    return seen


def find_binary() -> str:
    """The path of the installed executable; FileNotFoundError naming every place looked at."""
    candidates = _candidates()
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(
        f"{NAME}: the executable is not where this package installs it; looked at "
        + ", ".join(candidates)
    )
