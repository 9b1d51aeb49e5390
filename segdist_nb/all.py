# One import for the whole API, as fastai's `from fastai.vision.all import *`: `from segdist_nb.all import *`.
# It brings fastai's vision API and every chapter's exports, in chapter order; no name of ours shadows one of fastai's
# or another chapter's (the seed's validation rule is `SeedSplitter`, beside fastai's own `FileSplitter`): `python
# tools/docs.py lint` checks both. Left out: `segdist_nb.testing`, the tests' helpers (a plain module, not a chapter).
# (A comment, not a docstring: nbdev-export would list the module in llms.txt.)
from fastai.vision.all import *
from fastai.distributed import *
from .options import *
from .process import *
from .read import *
from .synthetic import *
from .augment import *
from .multilabel import *
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
from .decoders import *
from .modelfile import *
from .weights import *
from .multilabel_learn import *
from .model import *
from .distributed import *
from .launch import *
from .checkpoint import *
from .runfolder import *
from .track import *
from .config import *
from .budget import *
from .recipe import *
from .hub import *
from .train import *
from .engine import *
from .predict import *
from .evaluate import *
from .export import *
from .notebook import *
from .measure import *
from .scaling import *
from .benchmark import *
