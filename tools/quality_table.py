"""The time-to-accuracy study (issues 28 and 40): each row trains from scratch for the same wall-clock, then is scored.

    python tools/quality_table.py DATA OUT [--budget 900] [--cpus 2] [--rows r128,a192,...,peer_bf16] [--seed 0]

DATA is a data set with train, valid and test splits (CamVid as the SegNet tutorial ships it, with the data.yaml that
`segdist-check-data --write` writes and the class names filled in). Each library row is `train.py` on --cpus
processes with its config below (`--cache --monitor miou`, resnet18, from scratch); its stages' epochs are scaled so
that the whole command takes --budget seconds: a calibration run of one epoch per stage measures each stage's epoch
and the fixed costs (start-up, cache, export), and the epochs of the real run are the config's, times the factor that
fills the budget. The row default is the default config (the seed's stages and options, resnet18 from scratch), so
scaled. The peer row is tools/peer_smp.py with the same budget. The rows budget and budget_ema (issue 49) are
`train.py --budget SECONDS --arch resnet18` with no config (and --ema): the run plans its own stages from the data and this machine. Every model is then scored on the test split
by `segdist-eval --split test` (full resolution, void left out). Writes OUT/quality.json and prints the table.
"""
import argparse, csv, json, subprocess, sys, time
from collections import Counter
from pathlib import Path
import yaml
from segdist_nb.config import default_config, seed_stages

ROOT = Path(__file__).resolve().parent.parent
stages = lambda lr3: [dict(name='stage-1-small', sz=96, bs=8, epochs=4, lr=2e-3, pct_start=0.3),
                      dict(name='stage-1-large', sz=128, bs=8, epochs=3, lr=1e-3, pct_start=0.3),
                      dict(name='stage-2', sz=128, bs=8, epochs=3, lr=lr3, pct_start=0.3, freeze=False)]
ROWS = {   # name: config (every row: resnet18 from scratch, weights by median frequency; the three stages above unless the row gives its own)
    'seed': dict(decoder='fastai', aug='seed', loss='ce'),
    'unet_seed': dict(decoder='unet', aug='seed', loss='ce'),
    'unet': dict(decoder='unet', aug='scene', loss='ce+dice'),
    'fpn': dict(decoder='fpn', aug='scene', loss='ce+dice'),
    'deeplabv3plus': dict(decoder='deeplabv3plus', aug='scene', loss='ce+dice'),
    'segformer': dict(decoder='segformer', aug='scene', loss='ce+dice'),
    'unet_128': dict(decoder='unet', aug='scene', loss='ce+dice', stages=[dict(name='stage-1', sz=128, bs=8, epochs=10, lr=2e-3, pct_start=0.3)]),
    # issue 40: bf16 where the CPU computes it (precision auto), and the resolution that thin classes need
    'r128_fp32': dict(decoder='unet', aug='scene', loss='ce+dice', precision='fp32', stages=[dict(name='stage-1', sz=128, bs=8, epochs=10, lr=2e-3, pct_start=0.3)]),
    'r128': dict(decoder='unet', aug='scene', loss='ce+dice', stages=[dict(name='stage-1', sz=128, bs=8, epochs=10, lr=2e-3, pct_start=0.3)]),
    'a192': dict(decoder='unet', aug='scene', loss='ce+dice', stages=[dict(name='stage-1', sz=[192, 256], bs=8, epochs=10, lr=2e-3, pct_start=0.3)]),
    'a240': dict(decoder='unet', aug='scene', loss='ce+dice', stages=[dict(name='stage-1', sz=[240, 320], bs=8, epochs=10, lr=2e-3, pct_start=0.3)]),
    'prog': dict(decoder='unet', aug='scene', loss='ce+dice', stages=[dict(name='stage-1', sz=[144, 192], bs=8, epochs=6, lr=2e-3, pct_start=0.3),
                                                                     dict(name='stage-2', sz=[240, 320], bs=8, epochs=4, lr=1e-3, pct_start=0.2)]),
    'crop': dict(decoder='unet', aug='scene', loss='ce+dice', item_sz=[288, 384], stages=[dict(name='stage-1', sz=192, bs=8, epochs=7, lr=2e-3, pct_start=0.3, crop=True),
                                                                                          dict(name='stage-2', sz=[288, 384], bs=8, epochs=3, lr=1e-3, pct_start=0.2)]),
}

def run(cmd, log):
    t0 = time.time()
    with open(log, 'w') as f: r = subprocess.run([str(c) for c in cmd], stdout=f, stderr=subprocess.STDOUT, cwd=ROOT)
    if r.returncode: sys.exit(f'{cmd} failed: see {log}')
    return time.time() - t0

def epoch_times(run_dir):
    "Seconds per epoch of each stage, from the run's timing.json: a stage's whole time, its set-up and validation included (metrics.csv's times leave them out)"
    t = json.loads((run_dir/'timing.json').read_text())
    return {k.removeprefix('stage '): v for k, v in t.items() if k.startswith('stage ')}

def main():
    p = argparse.ArgumentParser(); p.add_argument('data'); p.add_argument('out'); p.add_argument('--budget', type=float, default=900)
    p.add_argument('--cpus', type=int, default=2); p.add_argument('--rows', default='r128,a192,a240,prog,crop,peer_bf16')
    p.add_argument('--seed', type=int, default=0, help='the runs\' seed; a row run with another seed is named ROW_sSEED')
    a = p.parse_args()
    out = Path(a.out).absolute(); out.mkdir(parents=True, exist_ok=True)
    res = json.loads((out/'quality.json').read_text()) if (out/'quality.json').exists() else {}
    launch = [sys.executable, '-m', 'segdist_nb.launch', '--cpus', a.cpus]
    for row_name in a.rows.split(','):
        name = row_name if a.seed == 0 else f'{row_name}_s{a.seed}'
        if name in res: continue
        if row_name in ('peer', 'peer_bf16'):
            (out/name).mkdir(exist_ok=True)
            wall = run([*launch, ROOT/'tools/peer_smp.py', a.data, out/name, '--budget', a.budget, '--seed', a.seed, *(['--bf16'] if row_name == 'peer_bf16' else [])], out/f'{name}.log')
            model, info = out/name/'peer.onnx', json.loads((out/name/'peer.json').read_text())
            row = dict(row=name, decoder='unet (plain PyTorch DDP loop)', aug='hflip + lighting', loss='ce+dice', wall_s=wall, epochs=info['epochs'],
                       valid_miou=info['best_valid_miou'], precision='bf16' if row_name == 'peer_bf16' else 'fp32')
        elif row_name.startswith('budget'):   # issue 49: no config, the run plans itself from --budget (the same seconds), no calibration
            wall = run([*launch, ROOT/'train.py', '--data', a.data, '--out', out/name, '--cache', '--pretrained', 'false', '--seed', a.seed,
                        '--arch', 'resnet18',   # the study's encoder, as every row's: the rows compare the plans
                        '--budget', f'{round(a.budget)}s', *(['--ema'] if row_name == 'budget_ema' else [])], out/f'{name}.log')
            model, c = out/name/'model', json.loads((out/name/'config.json').read_text())
            ran = Counter(r['name'] for r in csv.DictReader(open(out/name/'metrics.csv')))   # as run: the plan may have cut them
            row = dict(row=name, decoder=c['decoder'], aug=c['aug'], loss=c['loss'], wall_s=wall, epochs=[ran[s['name']] for s in c['stages']],
                       sizes=[s['sz'] for s in c['stages']], precision=c['precision'], valid_miou=json.loads((out/name/'final.json').read_text())['miou'])
        else:
            if row_name == 'default':   # issue 49: the default config (the seed's stages and options), resnet18 from scratch as every row
                cfg = dict(arch='resnet18', pretrained=False, seed=a.seed, stages=seed_stages)
            else: cfg = dict(arch='resnet18', pretrained=False, weights='median_freq', monitor='miou', seed=a.seed, **{'stages': stages([1e-4, 1e-3]), **ROWS[row_name]})
            (out/f'{name}_cal.yaml').write_text(yaml.safe_dump(dict(cfg, stages=[dict(s, epochs=1) for s in cfg['stages']])))
            cal = out/f'{name}_cal'
            wall1 = run([*launch, ROOT/'train.py', '--config', out/f'{name}_cal.yaml', '--data', a.data, '--out', cal, '--cache'], out/f'{name}_cal.log')
            per = epoch_times(cal)   # one epoch per stage in the calibration run
            fixed = max(0., wall1 - sum(per.values()))
            base = sum(s['epochs'] * per[s['name']] for s in cfg['stages'])
            k = (a.budget - fixed) / base
            cfg['stages'] = [dict(s, epochs=max(1, round(s['epochs'] * k))) for s in cfg['stages']]
            (out/f'{name}.yaml').write_text(yaml.safe_dump(cfg))
            wall = run([*launch, ROOT/'train.py', '--config', out/f'{name}.yaml', '--data', a.data, '--out', out/name, '--cache'], out/f'{name}.log')
            model = out/name/'model'   # the run's model folder: opened without pickle
            row = dict(row=name, **{k: cfg.get(k, default_config[k]) for k in ('decoder', 'aug', 'loss')}, wall_s=wall, epochs=[s['epochs'] for s in cfg['stages']],
                       sizes=[s['sz'] for s in cfg['stages']], precision=json.loads((out/name/'config.json').read_text())['precision'],
                       valid_miou=json.loads((out/name/'final.json').read_text())['miou'], calibration=dict(epoch_s=per, fixed_s=fixed))
        ev = out/f'eval-{name}'
        run([sys.executable, '-m', 'segdist_nb.evaluate', model, a.data, '--split', 'test', '--out', ev], out/f'{name}_eval.log')
        e, pc = json.loads((ev/'eval.json').read_text()), list(csv.DictReader(open(ev/'per_class.csv')))
        row.update(test_miou=e['metrics']['miou'], test_iou={r['name']: float(r['iou']) for r in pc})
        res[name] = row
        (out/'quality.json').write_text(json.dumps(res, indent=1))
        print(json.dumps({k: v for k, v in row.items() if k not in ('test_iou', 'calibration')}), flush=True)
    print('| row | decoder | precision | sizes | epochs | wall-clock (s) | valid mean IoU | test mean IoU |\n|---|---|---|---|---|---|---|---|')
    for r in res.values():
        print(f"| {r['row']} | {r['decoder']} | {r.get('precision', 'fp32')} | {r.get('sizes', [128])} | {r['epochs']} | {r['wall_s']:.0f} | {r['valid_miou']:.3f} | {r['test_miou']:.3f} |")

if __name__ == '__main__': main()
