"""The README's first picture: test images of a data set, their true masks and a trained model's predictions.

    python tools/readme_figure.py RUN/model.pkl DATA OUT.png [--split test] [--n 3] [--tile 256]

Takes `--n` images of the split, evenly spaced in name order (not chosen by score), predicts them as `segdist-predict`
does (whole images at the model's training size, or by `--tile` windows at native resolution), and draws image, truth and prediction in a row each, as a run
folder's results.png, with each image's mean IoU in its caption.
"""
import argparse
import numpy as np
from segdist_nb.describe import load_data
from segdist_nb.dls import GetMask
from segdist_nb.engine import inference_model
from segdist_nb.predict import predict_masks
from segdist_nb.evaluate import image_confusion, image_scores
from segdist_nb.plots import plot_triplets

if __name__ == '__main__':
    p = argparse.ArgumentParser(); p.add_argument('model'); p.add_argument('data'); p.add_argument('out')
    p.add_argument('--split', default='test'); p.add_argument('--n', type=int, default=3)
    p.add_argument('--tile', type=int, help='predict by windows of this side at native resolution (a model trained on crops)')
    a = p.parse_args()
    spec, m = load_data(a.data), inference_model(a.model, cpu=True)
    fns = spec.files(a.split)
    fns = [fns[int(i)] for i in np.linspace(0, len(fns) - 1, a.n).round()]
    gm, rows, caps = GetMask(spec.label_fn([a.split]), spec.reader), [], []
    for fn, img, pred in predict_masks(m, fns, tile=a.tile, progress=False):
        t = gm(fn); s = image_scores(image_confusion(pred, t, len(m.codes)), m.void)
        rows.append((np.asarray(img), t, pred)); caps.append(f'{fn.stem[:20]}: mean IoU {s["miou"]:.2f}')
    plot_triplets(rows, m.codes, a.out, captions=caps)
    print(f'wrote {a.out}: ' + '; '.join(caps))
