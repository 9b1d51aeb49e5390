__version__ = "0.0.1"

# fastai/layers.py decorates four functions with `torch.jit.script` when it is imported, and torch >= 2.10 warns at each
# (FutureWarning: "`torch.jit.script` is deprecated"): every command and every rank of a run printed it. It is imported
# once here, before any of our modules imports fastai, with exactly that warning silenced; any other warning, and a
# later `torch.jit.script` of the user's own, still shows.
import warnings as _warnings
with _warnings.catch_warnings():
    _warnings.filterwarnings('ignore', message=r'`torch\.jit\.script` is (deprecated|not supported)', category=FutureWarning)
    import fastai.layers as _fastai_layers

# Output to a file or a pipe (a log, CI, a cluster job, nbdev-test) gets one line per epoch instead of progress-bar
# frames; a terminal or a notebook is left as it is (chapter 04_distributed, `log_progress`).
from .distributed import log_progress as _log_progress
_log_progress()
