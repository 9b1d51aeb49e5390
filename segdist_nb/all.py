# One import for the whole API, as fastai's `from fastai.vision.all import *`: `from segdist_nb.all import *`.
# It brings fastai's vision API and every chapter's exports. One name differs: the seed's validation rule
# (`segdist_nb.split.FileSplitter`, chapter 01) is `SeedSplitter` here, since fastai's own `FileSplitter` (a file of
# validation names) keeps its name. (A comment, not a docstring: nbdev-export would list the module in llms.txt.)
from fastai.vision.all import *
from fastai.distributed import *
from .data import *
from .dataset import *
from .cache import *
from .dls import *
from .split import naive_split, random_paths, random_names, bench_split
from .split import FileSplitter as SeedSplitter
from .metrics import *
from .plots import *
from .losses import *
from .encoders import *
from .speed import *
from .model import *
from .distributed import *
from .launch import *
from .checkpoint import *
from .runfolder import *
from .recipe import *
from .train import *
from .predict import *
from .evaluate import *
from .export import *
from .notebook import *
from .benchmark import *
from .testing import *     # the tests' helpers (tiny_args, KillAt), importable as before they moved out of train
