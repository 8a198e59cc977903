"""Speed figures of this machine, measured side by side in one run (docs/PERFORMANCE.md): the page's analysis (p50 /
p95 latency), SGI's views, the evaluation loop, PowerCLIP, TFLocal, the explainers and spaCy's parse, with peak memory;
and the same for models of ViT-B-32's and ViT-L-14's size (random weights, nothing downloaded). Where the page's
precision is not fp32 here, fp32 is timed beside it and how far it moves the scores is measured. The report is
printed as JSON; --markdown also writes it as docs/PERFORMANCE.md's table."""

from __future__ import annotations

import argparse

from explorer.commands.common import print_report
from explorer.commands.model_args import WHY_PRECISION, encoder_spec, model_command
from explorer.core.settings import Settings

NAME = "bench"
PRECISION_NOTE = ("bench defaults to native, the page's precision, because it times what the page runs; where that is "
                  "not fp32 it also times fp32 beside it and measures how far the scores move, the figures behind "
                  f"the page's choice ({WHY_PRECISION})")


def add_parser(sub, settings: Settings) -> argparse.ArgumentParser:
    b = model_command(sub, settings, NAME, "speed figures, measured side by side in one run", run,
                      description=__doc__, json="also write the figures to this JSON file (what --beside reads)",
                      precision="native", precision_note=PRECISION_NOTE)
    b.add_argument("--repeat", type=int, default=3, metavar="N",
                   help="times each SGI timing is run, the fastest kept (default %(default)s); more for steadier "
                        "figures on a busy machine")
    b.add_argument("--runs", type=int, default=20, metavar="N",
                   help="page analyses timed for the p50 / p95 latencies (default %(default)s; the larger models "
                        "a quarter of them, at least 3)")
    b.add_argument("--skip-vitb32", action="store_true",
                   help="skip the figures of a ViT-B-32-sized model (random weights), which say what an open_clip "
                        "model of that size costs on this machine")
    b.add_argument("--vitl14", action="store_true",
                   help="also time a ViT-L-14-sized model (random weights) on the CPU, where it takes minutes; on "
                        "CUDA it is always timed")
    b.add_argument("--markdown", metavar="PATH",
                   help="also write the figures as a table into this markdown file, e.g. docs/PERFORMANCE.md, with a "
                        "column for each --beside report; the file's '## Where the time goes' section onwards is kept")
    b.add_argument("--beside", action="append", default=[], metavar="JSON",
                   help="another device's report (the --json of a bench run there, e.g. docs/results/bench-cuda.json) "
                        "shown as a column beside this run's in --markdown (repeatable)")
    return b


def run(args: argparse.Namespace) -> int:
    import json
    from dataclasses import replace
    from pathlib import Path

    import torch

    from explorer import speed_bench as bench
    from explorer import speed_report
    from explorer.models.loader import EncoderSpec, load_encoder

    encoder = load_encoder(encoder_spec(args.settings))
    figures = bench.sgi_figures(encoder, repeat=args.repeat)
    figures |= bench.analysis_figures(encoder, "embedded", runs=args.runs)
    if encoder.image_dtype is not None:  # the page's precision is not fp32 here: fp32's figures beside it
        reference = load_encoder(replace(encoder_spec(args.settings), precision="fp32"))
        figures |= bench.analysis_figures(reference, "embedded_fp32", runs=args.runs)
        figures |= bench.precision_figures(encoder, reference)
    figures |= bench.eval_figures(encoder, "embedded")
    figures |= bench.powerset_figures(encoder)
    figures |= bench.tflocal_figures(encoder)
    figures |= bench.explain_figures(encoder, "embedded")
    figures |= bench.parse_figures()
    figures["memory.peak_mb.embedded"] = speed_report.peak_memory_mb()
    registry = [("vitb32", "ViT-B-32")] * (not args.skip_vitb32)
    registry += [("vitl14", "ViT-L-14")] * (args.vitl14 or encoder.device.startswith("cuda"))
    for tag, name in registry:
        other = load_encoder(EncoderSpec(name, device=args.settings.device, precision=args.precision))
        figures |= bench.analysis_figures(other, tag, runs=max(3, args.runs // 4))
        figures |= bench.explain_figures(other, tag)
        figures[f"memory.peak_mb.{tag}"] = speed_report.peak_memory_mb()
    command = "python -m explorer bench" + "".join(
        f" {flag}" for flag, on in (("--device cuda", encoder.device.startswith("cuda")),
                                    ("--skip-vitb32", args.skip_vitb32), ("--vitl14", args.vitl14),
                                    (f"--precision {args.precision}", args.precision != "native")) if on)
    report = {"model": encoder.label, "device": encoder.device, "machine": speed_report.machine(), "command": command,
              "precision": {"setting": args.precision, "image tower": str(encoder.image_dtype or torch.float32),
                            "text tower": str(encoder.text_dtype or torch.float32)},
              "figures": figures}
    if args.markdown:
        beside = [json.loads(Path(p).read_text()) for p in args.beside]
        speed_report.write_performance_markdown(Path(args.markdown), [report, *beside])
    return print_report(report, args.json)
