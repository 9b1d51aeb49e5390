# Helpers for this library's own tests: a quick run's arguments, and a callback that kills a rank on cue.
#
# Not part of the documented API, and not a chapter: the tests of chapters 04d, 05, 05c and 05f import it. It is written
# by hand (nbdev-export leaves it alone), so that the documented modules hold only what users call.
# (A comment, not a docstring: nbdev-export would list the module in llms.txt.)


from __future__ import annotations
import os, signal
from pathlib import Path
from fastcore.all import store_attr
from fastai.callback.core import Callback
from fastai.torch_core import rank_distrib

__all__ = ['tiny_args', 'KillAt']

def tiny_args(data:Path, out:Path, *more)->list:
    "Arguments of `train.py` for a quick run of the three seed stages on a tiny data set, from scratch (tests, smoke runs)"
    return ['--data', data, '--out', out, '--arch', 'resnet18', '--void', 'void', '--bs', '2', '--sz-scale', '0.25',
            '--epochs-scale', '0.2', '--num-workers', '0', '--seed', '0', '--pretrained', 'false', *more]

class KillAt(Callback):
    "SIGKILL one rank at a point of the run: after epoch `ep` of stage `stage`, or at its batch `batch` (tests of faults)"
    order = 99  # after EpochCheckpoint
    def __init__(self, stage:str, # Stage name
                 ep:int, # Epoch of that stage
                 batch:int|None=None, # Kill in the middle of the epoch, after this training batch; None = after the epoch
                 rank:int=0, # Which rank
                 once:str|None=None, # A marker file: kill only if it does not exist yet (and create it)
                ): store_attr()
    def _hit(self):
        if rank_distrib() != self.rank or self.run_log.stage_name != self.stage: return False
        if self.run_log.start_epoch + self.epoch != self.ep: return False
        if self.once is not None:
            if Path(self.once).exists(): return False
            Path(self.once).touch()
        return True
    def after_batch(self):
        if self.batch is not None and self.training and self.iter == self.batch and self._hit(): os.kill(os.getpid(), signal.SIGKILL)
    def after_epoch(self):
        if self.batch is None and self._hit(): os.kill(os.getpid(), signal.SIGKILL)
