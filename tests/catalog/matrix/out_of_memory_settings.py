"""Test settings for a worker whose next matrix computation runs out of memory.

A real MemoryError needs a catalog larger than the machine; instead the engine's first tile
raises it while the file named by ECOMAP_TEST_OOM_ONCE exists (deleted as it fires), exactly
where a failed NumPy allocation would. The engine has no Django, so patching it here, before
the task modules import it, is safe."""

import os
from pathlib import Path

from catalog.engine import matrix_tiles
from ecomap.settings.test import *  # noqa: F403

_tile = matrix_tiles.PairCodes.tile


def _tile_that_runs_out_once(self, rows, cols):
    marker = Path(os.environ.get("ECOMAP_TEST_OOM_ONCE", "/nonexistent"))
    if marker.exists():
        marker.unlink()
        raise MemoryError("Unable to allocate 33.7 GiB for an array with shape (95073, 95150)")
    return _tile(self, rows, cols)


matrix_tiles.PairCodes.tile = _tile_that_runs_out_once
