"""Time the editorial renderer on the worst Markdown inputs, at sizes up to the length limit.

Run by hand:  .venv/bin/python benchmarks/markdown_worst.py [--rounds 5] [--sizes 2000,8000,20000]

Prints the median of ``--rounds`` renderings (Markdown to sanitised HTML, what the preview and the
save path run) for each input and size. The inputs are those of tests/newsletters/test_editorial_limits.py.
When python-markdown is installed (``pip install markdown``; the site no longer uses it) the same
inputs go through the old renderer (python-markdown "extra" + nh3) side by side, at the sizes up to
``--baseline-max`` (its quadratic cases take minutes at the limit).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")

import django

django.setup()

from newsletters import services  # noqa: E402
from newsletters.models import EDITORIAL_MAX_LENGTH  # noqa: E402
from tests.newsletters.test_editorial_limits import WORST  # noqa: E402


def old_renderer():
    try:
        import markdown
    except ImportError:
        return None
    import nh3

    def render(text: str) -> str:
        html = markdown.markdown(text, extensions=["extra", "sane_lists"], output_format="html")
        return nh3.clean(html, tags=services.EDITORIAL_TAGS, attributes=services.EDITORIAL_ATTRIBUTES)

    return render


def median_seconds(render, text: str, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        render(text)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sizes", default=f"2000,8000,{EDITORIAL_MAX_LENGTH}")
    parser.add_argument("--baseline-max", type=int, default=4000, help="largest size given to the old renderer")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    old = old_renderer()
    print(f"limit {EDITORIAL_MAX_LENGTH} characters; median of {args.rounds} rounds, milliseconds")
    print(f"{'input':24s}" + "".join(f"{f'cmark {n}':>13s}" for n in sizes), end="")
    print(
        "".join(f"{f'old {n}':>13s}" for n in sizes if n <= args.baseline_max)
        if old
        else "  (python-markdown not installed)"
    )
    worst = 0.0
    for name, full in WORST.items():
        row = f"{name:24s}"
        for n in sizes:
            seconds = median_seconds(services.render_markdown, full[:n], args.rounds)
            if n == EDITORIAL_MAX_LENGTH:
                worst = max(worst, seconds)
            row += f"{seconds * 1000:13.1f}"
        if old:
            for n in sizes:
                if n <= args.baseline_max:
                    row += f"{median_seconds(old, full[:n], 1) * 1000:13.1f}"
        print(row)
    print(f"worst at the limit: {worst * 1000:.1f} ms")


if __name__ == "__main__":
    main()
