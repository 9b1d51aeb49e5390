# Helpers for this library's own tests: a quick run's arguments, a callback that kills a rank on cue, a fake device
# module whose streams record what the input path asks of them, a counter of the host's reads of tensor values, the
# command lines' test drivers, and a local server of weights (torch.hub files and a Hugging Face Hub endpoint on
# 127.0.0.1).
#
# Not part of the documented API, and not a chapter: the tests of chapters 00c, 02f, 03, 04, 04d, 05, 05c, 05f and 05g
# import it. It is written by hand (nbdev-export leaves it alone), so that the documented modules hold only what users
# call.
# (A comment, not a docstring: nbdev-export would list the module in llms.txt.)


from __future__ import annotations
import contextlib, hashlib, http.server, io, os, re, shutil, signal, sys, threading, time
from contextlib import contextmanager
from pathlib import Path
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from fastcore.all import store_attr
from fastai.callback.core import Callback
from fastai.torch_core import rank_distrib

__all__ = ['tiny_args', 'KillAt', 'FakeStreams', 'SyncCount', 'BatchSyncs', 'InputPath', 'cli', 'cli_argv', 'tree', 'bad_run', 'broken', 'FakeHub', 'sd_bytes']

def tiny_args(data:Path, out:Path, *more)->list:
    "Arguments of `train.py` for a quick run of the three seed stages on a tiny data set, from scratch (smoke tests)"
    return ['--data', data, '--out', out, '--arch', 'resnet18', '--void', 'void', '--bs', '2', '--sz-scale', '0.25',
            '--epochs-scale', '0.2', '--num-workers', '0', '--seed', '0', '--pretrained', 'false', *more]

class KillAt(Callback):
    "SIGKILL one rank at a point of the run: after epoch `ep` of stage `stage`, or at its batch `batch` (fault tests)"
    order = 99  # after EpochCheckpoint
    def __init__(self, stage:str, # Stage name
                 ep:int, # Epoch of that stage
                 batch:int|None=None, # Kill in the middle of the epoch, after this training batch; None: after it
                 rank:int=0, # Which rank
                 once:str|None=None, # A marker file: kill only if it does not exist yet (and create it)
                ): store_attr()
    def _hit(self):
        if rank_distrib() != self.rank or self.run_log.stage_name != self.stage: return False
        if self.run_log.start_epoch + self.epoch != self.ep: return False
        if self.once is not None:
            if Path(self.once).exists(): return False
            Path(self.once).touch()
        from segdist_nb.checkpoint import ckpt_writer
        ckpt_writer.wait()   # the checkpoints written so far (in a thread) on the disk: the kill lands mid-epoch
        return True
    def after_batch(self):
        if self.batch is not None and self.training and self.iter == self.batch and self._hit():
            os.kill(os.getpid(), signal.SIGKILL)
    def after_epoch(self):
        if self.batch is None and self._hit(): os.kill(os.getpid(), signal.SIGKILL)

class _FakeStream:
    "A stream of `FakeStreams`: it records the events recorded on it and waited on"
    def __init__(self, mod, kind:str, idx): self.mod, self.kind, self.idx = mod, kind, idx
    def record_event(self): self.mod.n += 1; self.mod.log.append(('record', self.kind, self.mod.n)); return self.mod.n
    def wait_event(self, ev): self.mod.log.append(('wait', self.kind, ev))

class FakeStreams:
    "A device module like `torch.cuda` whose device, streams and events only record what is asked of them (on CPUs)"
    def __init__(self, devices:int=8): self.log, self.idx, self.n, self.devices = [], 0, 0, devices
    def device_count(self)->int: return self.devices
    def set_device(self, i:int):
        # as CUDA's invalid device ordinal
        if not 0 <= i < self.devices: raise ValueError(f'device {i}: this fake has {self.devices}')
        self.log.append(('set_device', i)); self.idx = i
    def current_device(self)->int: return self.idx
    def Stream(self, idx=None): self.log.append(('stream', idx)); return _FakeStream(self, 'side', idx)
    def current_stream(self, idx=None): return _FakeStream(self, 'compute', idx)
    @contextmanager
    def stream(self, s): self.log.append(('copy', s.idx)); yield   # a copy issued on the side stream
    @contextmanager
    def keep(self):
        "`Tensor.record_stream` recorded instead of called (tensors on the CPU have no streams)"
        old = torch.Tensor.record_stream
        torch.Tensor.record_stream = lambda t, s: self.log.append(('keep', s.kind))
        try: yield self
        finally: torch.Tensor.record_stream = old

# Code whose tensors are on the host by construction, so that reading them waits for no device: fastai's schedulers
# (`combine_scheds` keeps its phase boundaries in a CPU tensor). On a CPU every tensor is on the host, so these reads
# must be told apart from those that would wait for a GPU.
host_code = ('fastai/callback/schedule.py',)

class SyncCount(TorchDispatchMode):
    "Count the host's reads of tensor values (`.item()`, `bool()`, `float()`), but of tensors in `skip` or `host_code`"
    def __init__(self, skip=()): super().__init__(); self.n, self.skip = 0, set(skip)
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if (func is torch.ops.aten._local_scalar_dense.default and id(args[0]) not in self.skip
            and not _from_host_code()):
            self.n += 1
        return func(*args, **(kwargs or {}))

def _from_host_code()->bool:
    "Whether the read was made by `host_code`"
    f = sys._getframe(2)
    while f is not None:
        if f.f_code.co_filename.endswith(host_code): return True
        f = f.f_back
    return False

class BatchSyncs(Callback):
    "From the second epoch on, the host's reads from the end of one training batch to the end of the next, in `n`"
    order = -100   # the first `after_batch`: a window closes; `_Open`, the last, opens the next
    def __init__(self): self.n, self.mode = [], None
    def before_fit(self): self.mode = None   # `n` goes on across fits (a run's stages)
    def after_batch(self):
        if self.mode is not None: self.mode.__exit__(None, None, None); self.n.append(self.mode.n); self.mode = None
    def before_validate(self):   # the epoch's last window is left out: the end of an epoch reads what it logs
        if self.mode is not None: self.mode.__exit__(None, None, None); self.mode = None
    def open(self):
        "Open the next window (`_Open`, the last `after_batch`), not counting the optimizer's step counters"
        self.mode = SyncCount({id(s['step']) for s in self.learn.opt.opt.state.values() if 'step' in s})
        self.mode.__enter__()
    @property
    def cbs(self)->list: return [self, _Open(self)]

class _Open(Callback):
    order = 1000   # the last `after_batch`: `BatchSyncs` opens its next window
    def __init__(self, counter): self.counter = counter
    def after_batch(self):
        if self.training and self.epoch >= 1 and self.iter + 1 < self.n_iter: self.counter.open()

class InputPath(Callback):
    "Per training epoch, how the batches reached the step: the loader's class, how many came by its thread or workers"
    def __init__(self): self.epochs = []
    def after_train(self):
        dl = self.dl; f = getattr(dl, 'feeder', dl)
        pf, w = getattr(f, '_pf', None), getattr(dl, '_workers', None)
        self.epochs.append(dict(loader=type(dl).__name__, batches=self.n_iter, thread=pf.delivered if pf else 0,
                                workers=w._num_yielded if w else 0))

def cli_argv(*args, **kw)->list:
    "A command line from Python arguments: positional ones as they are, `k=v` as `--k v`, `k=True` as `--k`"
    out = [str(a) for a in args]
    for k, v in kw.items():
        if v is None or v is False: continue
        out += [f"--{k.replace('_', '-')}"] + ([] if v is True else [str(v)])
    return out

def cli(f, *args, **kw)->tuple:
    "(exit status, stdout, stderr) of a console script's function run in this process on a command line (`cli_argv`)"
    argv = args[0] if len(args) == 1 and isinstance(args[0], list) and not kw else cli_argv(*args, **kw)
    o, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        try: f(argv); code = 0
        except SystemExit as x: code = x.code
    return code, o.getvalue(), e.getvalue()

def tree(d)->dict:
    "Every file under `d`: relative path -> (size, modification time), to tell whether anything changed"
    d = Path(d)
    return ({p.relative_to(d): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(d.rglob('*')) if p.is_file()}
            if d.exists() else None)

def bad_run(data, # The data set
            *args, # More arguments of `train.py` (after `tiny_args`)
            out=None, # The run folder: not created, or left as it was; default a new temporary one
           )->str: # The error message
    "The message of `train.py`'s `main` run in this process on a tiny config, checked to exit 2 with the run untouched"
    from segdist_nb.train import main
    import tempfile
    out = Path(out) if out is not None else Path(tempfile.mkdtemp())/'run'
    before, err = tree(out), io.StringIO()
    with contextlib.redirect_stderr(err):
        try: main([str(o) for o in tiny_args(data, out, *args)]); raise AssertionError('no error')
        except SystemExit as e: assert e.code == 2, e.code
    assert tree(out) == before, f'{out} was created or changed'
    msg = err.getvalue()
    assert msg.startswith('train.py: error: ') and 'Traceback' not in msg, msg
    return msg

def broken(good, # A data set
           dest, # Where its copy goes
           f, # What breaks the copy: f(path)
          )->Path:
    "A copy of `good` at `dest`, broken by `f`"
    p = Path(shutil.copytree(good, dest)); f(p); return p


# FakeHub serves torch.hub files at /NAME; and a Hugging Face Hub endpoint (HF_ENDPOINT) at /REPO/resolve/REV/FILE, its
# repository API (`snapshot_download`) and uploads (`HfApi.create_repo`, `upload_folder`: files sent whole); `log` holds
# (method, path) of each request.
class FakeHub(http.server.ThreadingHTTPServer):
    "A local server of torch.hub files at /NAME and of a Hugging Face Hub endpoint (HF_ENDPOINT) on 127.0.0.1"
    def __init__(self, files:dict|None=None, # NAME -> bytes, for torch.hub
                 repos:dict|None=None, # REPO -> {FILE: bytes}, for the Hub
                ):
        self.files, self.repos, self.log = dict(files or {}), dict(repos or {}), []
        super().__init__(('127.0.0.1', 0), _FakeHubHandler)
        threading.Thread(target=self.serve_forever, daemon=True).start()
    @property
    def url(self)->str: return f'http://127.0.0.1:{self.server_address[1]}'
    def commit(self, repo:str)->str: return hashlib.sha1(repr(sorted((k, hashlib.sha1(v).hexdigest())
                                                                     for k, v in self.repos.get(repo, {}).items())
                                                              ).encode()).hexdigest()
    def stop(self): self.shutdown(); self.server_close()

class _FakeHubHandler(http.server.BaseHTTPRequestHandler):
    "The headers `hf_hub_download` reads (X-Repo-Commit, ETag, Content-Length, X-Error-Code), and the Hub API's JSON"
    def log_message(self, *args): pass
    def send(self, code:int, data:bytes|None, hdr:dict, body:bool=True):
        self.send_response(code)
        for k, v in {**hdr, 'Content-Length': str(len(data or b''))}.items(): self.send_header(k, v)
        self.end_headers()
        if body and data: self.wfile.write(data)
    def api(self, method:str):
        "GET /api/models/REPO/revision/REV and .../tree/REV; POST /api/repos/create, validate-yaml, preupload, commit"
        import json, base64, urllib.parse
        path, hub = urllib.parse.unquote(self.path.split('?')[0])[len('/api/'):], self.server
        body = self.rfile.read(int(self.headers.get('Content-Length') or 0)) if method == 'POST' else b''
        js = lambda o, code=200: self.send(code, json.dumps(o).encode(), {'Content-Type': 'application/json'})
        if path == 'validate-yaml': return js({})   # a README.md's metadata: accepted
        if path == 'repos/create':
            d = json.loads(body); repo = '/'.join(o for o in (d.get('organization'), d['name']) if o)
            hub.repos.setdefault(repo, {}); return js(dict(url=f'{hub.url}/{repo}', name=repo))
        repo, _, rest = path[len('models/'):].rpartition('/revision/') if '/revision/' in path else (None, None, None)
        if repo is not None:
            if repo not in hub.repos: return self.send(404, b'', {'X-Error-Code': 'RepoNotFound'})
            return js(dict(id=repo, sha=hub.commit(repo),
                           siblings=[dict(rfilename=f) for f in sorted(hub.repos[repo])]))
        m = re.fullmatch(r'models/(.+)/tree/[^/]+', path)   # `list_repo_tree`
        if m is not None and m.group(1) in hub.repos:
            return js([dict(type='file', path=f, size=len(b), oid=hashlib.sha1(b).hexdigest())
                       for f, b in sorted(hub.repos[m.group(1)].items())])
        m = re.fullmatch(r'models/(.+)/(preupload|commit)/[^/]+', path)
        if m is None or m.group(1) not in hub.repos: return self.send(404, b'', {'X-Error-Code': 'RepoNotFound'})
        repo = m.group(1)
        if m.group(2) == 'preupload':
            return js(dict(files=[dict(path=f['path'], uploadMode='regular', shouldIgnore=False)
                                  for f in json.loads(body)['files']]))
        for line in body.decode().splitlines():   # NDJSON: a header, then each file whole (base64)
            o = json.loads(line)
            if o['key'] == 'file': hub.repos[repo][o['value']['path']] = base64.b64decode(o['value']['content'])
        js(dict(commitUrl=f'{hub.url}/{repo}/commit/{hub.commit(repo)}', commitOid=hub.commit(repo)))
    def reply(self, body:bool):
        self.server.log.append((self.command, self.path))
        if self.path.startswith('/api/'): return self.api(self.command)
        repo, sep, rest = self.path.lstrip('/').partition('/resolve/')
        hdr = {}
        if sep:
            rev, _, fn = rest.partition('/')
            data = self.server.repos.get(repo, {}).get(fn)
            hdr['X-Repo-Commit'] = (rev if re.fullmatch('[0-9a-f]{40}', rev) else self.server.commit(repo)
                                    if repo in self.server.repos else 'c0ffee' * 6 + 'c0ff')
            if data is None: hdr['X-Error-Code'] = 'EntryNotFound' if repo in self.server.repos else 'RepoNotFound'
        else: data = self.server.files.get(self.path.lstrip('/'))
        if data is not None: hdr['ETag'] = f'"{hashlib.sha256(data).hexdigest()}"'
        self.send(404 if data is None else 200, data, hdr, body)
    def do_HEAD(self): self.reply(False)
    def do_GET(self): self.reply(True)
    def do_POST(self): self.server.log.append((self.command, self.path)); self.api('POST')

def sd_bytes(sd:dict, # A state dict
             safe:bool=False, # As a .safetensors file (else torch.save's .pth)
            )->bytes:
    "The bytes of a weights file holding `sd`"
    import torch
    if safe:
        import safetensors.torch
        return safetensors.torch.save({k: v.contiguous() for k, v in sd.items()})
    b = io.BytesIO(); torch.save(sd, b); return b.getvalue()
