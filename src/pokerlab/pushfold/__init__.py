"""Push/fold Nash strategies under chip EV or ICM: every seat's jam and call ranges, heads-up to a full table,
inside a big field (see docs/algorithms.md)."""

from pokerlab.cards.classes import CLASS_NAMES
from pokerlab.pushfold.charts import HeadsUpChart, heads_up_chart
from pokerlab.pushfold.solve import PushFoldResult, pushfold

__all__ = ["CLASS_NAMES", "HeadsUpChart", "PushFoldResult", "heads_up_chart", "pushfold"]
