__version__ = "0.0.1"

# fastai/layers.py decorates four functions with `torch.jit.script` when it is imported, and torch >= 2.10 warns at each
# (FutureWarning: "`torch.jit.script` is deprecated"): every command and every rank of a run printed it. Whenever
# `fastai.layers` is first imported after this package (by any of our modules, or the user's `from fastai.vision.all
# import *`), it is imported with exactly that warning silenced; any other warning, and a later `torch.jit.script` of
# the user's own, still shows. It is not imported here: the launcher (`python -m segdist_nb.launch`) and the commands
# that need only torch do not pay fastai's import (seconds) in a process that trains nothing.
import sys as _sys

class _QuietFastaiLayers:
    "A `sys.meta_path` finder that loads `fastai.layers`, once, with torch's `jit.script` FutureWarning silenced"
    def find_spec(self, name, path, target=None):
        if name != 'fastai.layers': return None
        import importlib.machinery, warnings
        _sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None: return spec
        run = spec.loader.exec_module
        def exec_module(module):
            with warnings.catch_warnings():
                warnings.filterwarnings('ignore', message=r'`torch\.jit\.script` is (deprecated|not supported)',
                                        category=FutureWarning)
                run(module)
        spec.loader.exec_module = exec_module
        return spec

if 'fastai.layers' not in _sys.modules and not any(isinstance(f, _QuietFastaiLayers) for f in _sys.meta_path):
    _sys.meta_path.insert(0, _QuietFastaiLayers())

# Nothing else happens at import: fastai's and fastprogress's settings are left as they are. The commands set what
# they need (`setup_rank` and `log_progress`, chapter 04_distributed: one line per epoch in a log or a pipe).
