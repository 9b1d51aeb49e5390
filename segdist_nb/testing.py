# Helpers for this library's own tests: a quick run's arguments, a callback that kills a rank on cue, and a local server
# of weights (torch.hub files and a Hugging Face Hub endpoint on 127.0.0.1).
#
# Not part of the documented API, and not a chapter: the tests of chapters 02f, 04d, 05, 05c and 05f import it. It is written
# by hand (nbdev-export leaves it alone), so that the documented modules hold only what users call.
# (A comment, not a docstring: nbdev-export would list the module in llms.txt.)


from __future__ import annotations
import hashlib, http.server, io, os, re, signal, threading
from pathlib import Path
from fastcore.all import store_attr
from fastai.callback.core import Callback
from fastai.torch_core import rank_distrib

__all__ = ['tiny_args', 'KillAt', 'FakeHub', 'sd_bytes']

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


class FakeHub(http.server.ThreadingHTTPServer):
    "torch.hub files at /NAME and a Hugging Face Hub endpoint (HF_ENDPOINT) at /REPO/resolve/REV/FILE, on 127.0.0.1; `log` holds (method, path) of each request"
    def __init__(self, files:dict|None=None, # NAME -> bytes, for torch.hub
                 repos:dict|None=None, # REPO -> {FILE: bytes}, for the Hub
                ):
        self.files, self.repos, self.log = dict(files or {}), dict(repos or {}), []
        super().__init__(('127.0.0.1', 0), _FakeHubHandler)
        threading.Thread(target=self.serve_forever, daemon=True).start()
    @property
    def url(self)->str: return f'http://127.0.0.1:{self.server_address[1]}'
    def stop(self): self.shutdown(); self.server_close()

class _FakeHubHandler(http.server.BaseHTTPRequestHandler):
    "The headers `hf_hub_download` reads: X-Repo-Commit, ETag, Content-Length; X-Error-Code for a missing file or repository"
    def log_message(self, *args): pass
    def reply(self, body:bool):
        self.server.log.append((self.command, self.path))
        repo, sep, rest = self.path.lstrip('/').partition('/resolve/')
        hdr = {}
        if sep:
            rev, _, fn = rest.partition('/')
            data = self.server.repos.get(repo, {}).get(fn)
            hdr['X-Repo-Commit'] = rev if re.fullmatch('[0-9a-f]{40}', rev) else 'c0ffee' * 6 + 'c0ff'
            if data is None: hdr['X-Error-Code'] = 'EntryNotFound' if repo in self.server.repos else 'RepoNotFound'
        else: data = self.server.files.get(self.path.lstrip('/'))
        self.send_response(404 if data is None else 200)
        if data is not None: hdr['ETag'] = f'"{hashlib.sha256(data).hexdigest()}"'
        for k, v in {**hdr, 'Content-Length': str(len(data or b''))}.items(): self.send_header(k, v)
        self.end_headers()
        if body and data: self.wfile.write(data)
    def do_HEAD(self): self.reply(False)
    def do_GET(self): self.reply(True)

def sd_bytes(sd:dict, # A state dict
             safe:bool=False, # As a .safetensors file (else torch.save's .pth)
            )->bytes:
    "The bytes of a weights file holding `sd`"
    import torch
    if safe:
        import safetensors.torch
        return safetensors.torch.save({k: v.contiguous() for k, v in sd.items()})
    b = io.BytesIO(); torch.save(sd, b); return b.getvalue()
