"""Push/fold Nash strategies under chip EV or ICM: every seat's jam and call ranges, heads-up to a full table,
inside a big field (see docs/algorithms.md).

``pokerlab.pushfold`` is both this package and the function :func:`pokerlab.pushfold.solve.pushfold`: once the
package has been imported, Python binds the name ``pushfold`` of ``pokerlab`` to it, so the package itself
forwards calls to the function and ``pokerlab.pushfold(...)`` works whichever was loaded first.
"""

import sys
import types
from typing import Any

from pokerlab.pushfold.charts import HeadsUpChart, heads_up_chart
from pokerlab.pushfold.solve import CLASS_NAMES, PushFoldResult, pushfold

__all__ = ["CLASS_NAMES", "HeadsUpChart", "PushFoldResult", "heads_up_chart", "pushfold"]


class _CallablePackage(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> PushFoldResult:
        return pushfold(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
