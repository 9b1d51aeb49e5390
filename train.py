#!/usr/bin/env python
"""Train the seed's segmentation recipe. The command line is `segdist_nb.train` (nbs/05_train.ipynb); the recipe it runs, `segdist_nb.recipe` (nbs/04e_recipe.ipynb), its config `segdist_nb.config` (nbs/04d_config.ipynb).

One process:        python train.py --data PATH
GPUs / CPU procs:   python -m segdist_nb.launch --gpus 0,1 train.py --data PATH   (or --cpus 2)
Options:            python train.py --help
"""
from segdist_nb.train import main

if __name__ == '__main__': main()
