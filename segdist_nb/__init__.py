__version__ = "0.0.1"

# fastai/layers.py decorates four functions with `torch.jit.script` when it is imported, and torch >= 2.10 warns at each
# (FutureWarning: "`torch.jit.script` is deprecated"): every command and every rank of a run printed it. It is imported
# once here, before any of our modules imports fastai, with exactly that warning silenced; any other warning, and a
# later `torch.jit.script` of the user's own, still shows.
import warnings as _warnings
with _warnings.catch_warnings():
    _warnings.filterwarnings('ignore', message=r'`torch\.jit\.script` is (deprecated|not supported)',
                             category=FutureWarning)
    import fastai.layers as _fastai_layers

# Nothing else happens at import: fastai's and fastprogress's settings are left as they are. The commands set what
# they need (`setup_rank` and `log_progress`, chapter 04_distributed: one line per epoch in a log or a pipe).
