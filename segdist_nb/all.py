# One import for the whole API, as fastai's `from fastai.vision.all import *`: `from segdist_nb.all import *`.
# It brings fastai's vision API and every chapter's exports; no name of ours shadows one of fastai's (the seed's
# validation rule is `SeedSplitter`, beside fastai's own `FileSplitter`). The tests' helpers stay in
# `segdist_nb.testing`. (A comment, not a docstring: nbdev-export would list the module in llms.txt.)
from fastai.vision.all import *
from fastai.distributed import *
from .read import *
from .synthetic import *
from .augment import *
from .describe import *
from .split import *
from .check import *
from .cache import *
from .dls import *
from .metrics import *
from .plots import *
from .losses import *
from .encoders import *
from .compiled import *
from .model import *
from .distributed import *
from .launch import *
from .checkpoint import *
from .runfolder import *
from .config import *
from .recipe import *
from .train import *
from .engine import *
from .predict import *
from .evaluate import *
from .export import *
from .notebook import *
from .benchmark import *
