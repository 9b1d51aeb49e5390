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
from .model import *
from .distributed import *
from .launch import *
from .train import *
from .predict import *
from .benchmark import *
