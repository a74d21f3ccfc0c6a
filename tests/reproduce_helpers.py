"""Shared by the `ndncc reproduce` tests: run a reproduction once per module while recording
every figure it saves, by file name."""

from __future__ import annotations

import pytest
from ndncc import experiments
from ndncc.experiments import common


def reproduce_recording(name, out_dir, drawn, *, also_patch=(), **kwargs):
    """Runs `experiments.reproduce(name, out_dir, **kwargs)` with `save_figure` wrapped (in
    `common` and in each module of `also_patch` that imported it) so that each saved figure is
    put in `drawn` under its file name, then saved as before."""
    save = common.save_figure

    def record(fig, path):
        drawn[path.name] = fig
        return save(fig, path)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(common, "save_figure", record)
        for module in also_patch:
            mp.setattr(module, "save_figure", record)
        return experiments.reproduce(name, out_dir, **kwargs)
