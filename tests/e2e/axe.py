"""axe-core in the browser tests: the WCAG 2.1 A and AA rules run on a page Playwright has open.

axe.min.js is vendored in tests/e2e/vendor/ (see the README there: version, licence, checksum), so a
clean clone runs it with no npm step. It is injected with ``page.evaluate`` (the DevTools protocol),
which a Content-Security-Policy on the page does not block, as it would block an inline <script>.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

AXE_JS = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
WCAG_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")

RUN = """async (tags) => {
  const results = await window.axe.run(document, {
    runOnly: {type: "tag", values: tags},
    resultTypes: ["violations"],
  });
  return {
    version: results.testEngine.version,
    violations: results.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({target: n.target.join(" "), summary: n.failureSummary || ""})),
    })),
  };
}"""


@cache
def axe_source() -> str:
    return AXE_JS.read_text(encoding="utf-8")


@dataclass(frozen=True)
class Violation:
    rule: str
    impact: str | None
    help: str
    page: str
    target: str
    summary: str

    def __str__(self) -> str:
        summary = " ".join(self.summary.split())
        return f"{self.rule} ({self.impact}) on {self.page} at {self.target}: {self.help}. {summary}"


def page_path(url: str) -> str:
    """The page an address shows: its path (the query string and fragment do not make a new page)."""
    return urlsplit(url).path or "/"


def audit(page, *, label: str = "") -> tuple[str, list[Violation]]:
    """Run axe-core's WCAG 2.1 A/AA rules on the page as it is now; return axe's version and violations."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(axe_source() + "\n;undefined")
    result = page.evaluate(RUN, list(WCAG_TAGS))
    where = page_path(page.url) + (f" ({label})" if label else "")
    return result["version"], [
        Violation(v["id"], v["impact"], v["help"], where, node["target"], node["summary"])
        for v in result["violations"]
        for node in v["nodes"]
    ]
