"""The documentation (``docs/``): it builds in strict mode, its examples run, and its generated pages say what the
code says.

The build needs the ``docs`` extra (sphinx, myst-parser) and is skipped without it, except under CI (``CI`` set),
where a missing extra is a failure. The examples and the errata commands need only dpcert.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import dpcert_docs  # noqa: E402

from dpcert.cli import _parser, main  # noqa: E402
from dpcert.engine import registry  # noqa: E402

PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)
FENCE = re.compile(r"^```(console|pycon)[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _need_sphinx() -> None:
    if os.environ.get("CI"):
        import myst_parser  # noqa: F401  (CI installs the docs extra: a missing one fails here)
        import sphinx  # noqa: F401
    else:
        pytest.importorskip("sphinx")
        pytest.importorskip("myst_parser")


def _sphinx_build(src: Path, out: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-q", "-b", "html", str(src), str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HTML of a strict build (``-W --keep-going``): any warning (a broken reference, a malformed docstring,
    an unknown generated section) fails it."""
    _need_sphinx()
    out = tmp_path_factory.mktemp("html")
    proc = _sphinx_build(DOCS, out)
    assert proc.returncode == 0, f"strict build failed:\n{proc.stderr[-4000:]}"
    assert proc.stderr.strip() == "", proc.stderr[-4000:]
    return out


def _text(html_file: Path) -> str:
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", html_file.read_text(encoding="utf-8")))


# --------------------------------------------------------------------------------------------- the build


def test_strict_build_succeeds(built: Path) -> None:
    for page in ["index", "install", "examples", "cli", "formats", "errata", "api", "topics/darrm"]:
        assert (built / f"{page}.html").is_file(), page


def test_strict_build_fails_on_a_broken_reference(tmp_path: Path) -> None:
    """The same configuration fails on a link to a missing page or label and on a reference to a dpcert name that
    does not exist, and accepts a reference to a real but undocumented one (the missing-reference rule)."""
    _need_sphinx()
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(DOCS / '_ext')!r})\n"
        "extensions = ['myst_parser', 'sphinx.ext.autodoc', 'dpcert_docs']\nnitpicky = True\n",
        encoding="utf-8",
    )
    (src / "index.md").write_text(
        "# T\n\n{doc}`nowhere` and {ref}`no-such-label` and {func}`dpcert.engine.certificate.write_certificat`\n\n"
        "{func}`dpcert.composition.kov.KOV_MAX_K` is real but undocumented here.\n",
        encoding="utf-8",
    )
    proc = _sphinx_build(src, tmp_path / "out")
    assert proc.returncode != 0
    assert "nowhere" in proc.stderr and "no-such-label" in proc.stderr and "write_certificat" in proc.stderr
    assert "KOV_MAX_K" not in proc.stderr


def test_cli_page_lists_every_command_and_option(built: Path) -> None:
    """Every subcommand of the real parser has its section, and every option string appears on the page."""
    html = (built / "cli.html").read_text(encoding="utf-8")
    text = _text(built / "cli.html")
    commands = list(dpcert_docs.walk_parsers(_parser()))
    assert {words[0] for words, _, _ in commands} >= {"verify", "check", "list", "quantities", "eval", "claim"}
    for words, parser, _ in commands:
        assert f'id="{dpcert_docs.anchor("cli " + " ".join(words))}"' in html, words
        assert f"dpcert {' '.join(words)}" in text
        for action in parser._actions:
            for option in action.option_strings:
                assert option in text, (words, option)


def test_errata_page_lists_every_erratum_and_open_question(built: Path) -> None:
    text = _text(built / "errata.html")
    expected = [c for c in registry.claims().values() if c.expected.value in ("REFUTED", "UNDECIDED")]
    assert len([c for c in expected if c.expected.value == "REFUTED"]) >= 29
    assert "tranche" not in text  # the Gaussian set's heading said "(first tranche)" when all of it was built
    for c in expected:
        assert c.id in text, c.id
        assert f"dpcert verify --select {c.id}" in text, c.id


def test_topic_pages_list_their_quantities(built: Path) -> None:
    import importlib

    for decl in registry.declarations():
        text = _text(built / f"{decl.docs}.html")
        for name in importlib.import_module(decl.package).QUANTITIES:
            assert name in text, (decl.docs, name)


def test_topic_pages_document_their_package_api(built: Path) -> None:
    """Each topic page's API section documents every public function and class of its package, and has some
    (``dpcert.gaussian`` exported only its tables, so its page's API section was empty)."""
    import importlib

    for decl in registry.declarations():
        text = (built / f"{decl.docs}.html").read_text(encoding="utf-8")
        module = importlib.import_module(decl.package)
        public = {n for n in module.__all__ if callable(getattr(module, n))}  # functions and classes, not data
        assert public, decl.package
        for name in public:
            assert f'id="{decl.package}.{name}"' in text, (decl.docs, name)


def test_every_quantity_is_on_a_topic_page() -> None:
    """Each package's declared topic page exists, tabulates the package's quantities and is in the index's
    toctree (generated from the declarations)."""
    pages = []
    for decl in registry.declarations():
        page = DOCS / f"{decl.docs}.md"
        assert page.is_file(), decl
        assert f"\n% dpcert: quantities {decl.package}\n" in page.read_text(encoding="utf-8"), decl
        pages.append(decl.docs)
    index = dpcert_docs.expand((DOCS / "index.md").read_text(encoding="utf-8"))
    assert all(f"\n{page}\n" in index for page in pages)


def test_run_them_all_selects_each_package_claims() -> None:
    """The errata summary's ``dpcert verify --select <paper>.*`` selects exactly that package's claims."""
    for pkg, _, _ in dpcert_docs.errata_claims():
        prefix = pkg.__name__.split(".")[-1]
        assert {c.id for c in registry.select(f"{prefix}.*")} == {c.id for c in pkg.CLAIMS}


# ------------------------------------------------------------------------------------ executed examples


def _blocks() -> list[tuple[str, str, str]]:
    out = []
    for page in PAGES:
        for m in FENCE.finditer(page.read_text(encoding="utf-8")):
            out.append((str(page.relative_to(DOCS)), m.group(1), m.group(2)))
    return out


def _run_cli(line: str) -> str:
    """One console line ``dpcert ARGS [; echo "exit $?"]`` run in-process; stdout and stderr as a terminal shows
    them."""
    echo = re.search(r';\s*echo\s+"exit \$\?"\s*$', line)
    argv = shlex.split(line[: echo.start()] if echo else line, comments=True)
    assert argv[0] == "dpcert", f"a console block runs dpcert commands only (use a bash block to show {line!r})"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        code = main(argv[1:])
    return buf.getvalue() + (f"exit {code}\n" if echo else "")


def test_pages_have_examples() -> None:
    kinds = {(page, kind) for page, kind, _ in _blocks()}
    assert ("examples.md", "console") in kinds and ("examples.md", "pycon") in kinds


# The float64 evidence beside an enclosure is computed by numpy/scipy, whose last bits depend on the BLAS kernel
# OpenBLAS picks for the processor (OPENBLAS_CORETYPE=Haswell and SkylakeX print 1.67581699189539e-06 and
# 1.6758169918953897e-06 for the same δ). A page's shown evidence is compared to this relative tolerance; every other
# character, certified enclosures included, is compared exactly.
EVIDENCE_REL_TOL = 1e-12
EVIDENCE = re.compile(r"^(\s*float64 \(evidence\):\s+)(\S+)[ \t]*$", re.MULTILINE)


class EvidenceChecker(doctest.OutputChecker):
    """doctest's checker, except that a ``float64 (evidence):`` value printed within ``EVIDENCE_REL_TOL`` (relative)
    of the shown one counts as the shown one."""

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        shown = [m.group(2) for m in EVIDENCE.finditer(want)]
        values = iter(shown)

        def as_shown(m: re.Match[str]) -> str:
            w = next(values, None)
            try:
                g_val, w_val = float(m.group(2)), float(w) if w is not None else None
            except ValueError:
                return m.group(0)
            if w_val is not None and abs(g_val - w_val) <= EVIDENCE_REL_TOL * abs(w_val):
                return m.group(1) + w
            return m.group(0)

        if shown:
            got = EVIDENCE.sub(as_shown, got)
        return super().check_output(want, got, optionflags)


def _check_page(page: str) -> list[str]:
    """Run a page's examples in the current directory (which holds ``verify`` and ``docs``): every ``console``
    block's ``$ dpcert ...`` lines and every ``pycon`` block, in order (a page's Python blocks share their names).
    Returns one message per difference (empty: the page prints what it shows) and raises if the page shows none."""
    checker = EvidenceChecker()
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(checker=checker, optionflags=FLAGS)
    globs: dict[str, object] = {}
    ran, failures = 0, []
    for _, kind, body in [b for b in _blocks() if b[0] == page]:
        if kind == "pycon":
            test = parser.get_doctest(body, globs, page, page, 0)
            out = io.StringIO()
            result = runner.run(test, out=out.write, clear_globs=False)
            globs = test.globs  # a DocTest works on a copy: the next block sees this one's names
            if result.failed:
                failures.append(out.getvalue())
            ran += result.attempted
            continue
        commands = re.split(r"^\$ ", body, flags=re.MULTILINE)
        if commands[0] != "":
            failures.append(f"{page}: a console block must start with '$ '")
        for chunk in commands[1:]:
            line, _, want = chunk.partition("\n")
            got = _run_cli(line)
            if not checker.check_output(want, got, FLAGS):
                failures.append(f"{page}: $ {line}\n--- shown:\n{want}--- got:\n{got}")
            ran += 1
    if ran == 0:
        failures.append(f"{page}: no example ran")
    return failures


# Two kernels whose float64 results differ in the last bits on an AVX-512 machine (on one without AVX-512 OpenBLAS
# runs SkylakeX as its best available kernel); a BLAS other than OpenBLAS ignores the variable.
CORETYPES = ("Haswell", "SkylakeX")


@pytest.mark.parametrize("coretype", CORETYPES)
@pytest.mark.parametrize("page", sorted({p for p, _, _ in _blocks()}))
def test_examples_run_as_shown(page: str, coretype: str, tmp_path: Path) -> None:
    """Every example of a page prints what the page shows (see ``_check_page``), with OpenBLAS forced to each of two
    kernels, in a fresh process (OpenBLAS reads ``OPENBLAS_CORETYPE`` once, when numpy loads it): what a page shows
    does not depend on the last bits of a float from BLAS. Console commands run in a fresh directory in which
    ``verify/`` and ``docs/`` are the checkout's (so a page may name ``verify/...`` files). A command that is not
    ``dpcert`` belongs in a ``bash`` block, which is shown and not run."""
    for name in ("verify", "docs"):
        (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    env = dict(os.environ, OPENBLAS_CORETYPE=coretype, OPENBLAS_VERBOSE="0")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests"), env.get("PYTHONPATH", "")])
    code = f"import json, test_docs; print(json.dumps(test_docs._check_page({page!r})))"
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    failures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert failures == [], "\n".join(failures)


def test_evidence_checker_allows_kernel_rounding_only() -> None:
    """The evidence tolerance admits the two kernels' δ and nothing wider; it never applies to an enclosure."""
    checker = EvidenceChecker()
    shown = "d = [1, 2]\n  float64 (evidence):  1.6758169918953897e-06\n  reference: x\n"
    assert checker.check_output(shown, shown.replace("1.6758169918953897e-06", "1.67581699189539e-06"), FLAGS)
    assert not checker.check_output(shown, shown.replace("1.6758169918953897e-06", "1.6758169919e-06"), FLAGS)
    assert not checker.check_output(shown, shown.replace("[1, 2]", "[1, 3]"), FLAGS)
    assert not checker.check_output(shown, shown.replace("evidence):  1.6758169918953897e-06", "evidence):  x"), FLAGS)
    enclosure = "  certified enclosure: [1.6758169918953897e-06, 2]\n"
    assert not checker.check_output(enclosure, enclosure.replace("97e-06", "9e-06"), FLAGS)


def test_examples_fail_when_the_output_differs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison is not vacuous: a wrong last digit is caught."""
    monkeypatch.chdir(tmp_path)
    got = _run_cli("dpcert eval composition.simple.eps k=3 eps=0.1")
    checker = EvidenceChecker()
    assert checker.check_output("composition.simple.eps = 0.3\n...", got, FLAGS)
    assert not checker.check_output("composition.simple.eps = 0.4\n...", got, FLAGS)


# ------------------------------------------------------------------------------------------ the errata


def test_errata_commands_reproduce_the_verdicts() -> None:
    """Each erratum's command on the errata page (as generated) gives REFUTED: the ``dpcert verify --select``
    lines together (slow ones excluded), and each ``dpcert claim`` line on its own (exit 1, REFUTED)."""
    page = dpcert_docs.errata()
    verify_lines = re.findall(r"Reproduce \(REFUTED\): `(dpcert verify --select \S+)`", page)
    refuted = [c for c in registry.claims().values() if c.expected.value == "REFUTED"]
    assert len(verify_lines) == len([c for c in refuted if not c.slow])  # a slow one's line says "REFUTED, slow"
    argv = ["verify", "--json", "--quiet"]
    for line in verify_lines:
        argv += shlex.split(line)[2:]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
        code = main(argv)
    report = json.loads(buf.getvalue())
    verdicts = {r["id"]: r["verdict"] for r in report["results"]}
    assert code == 0
    assert set(verdicts) == {c.id for c in refuted if not c.slow}
    assert set(verdicts.values()) == {"REFUTED"}

    claim_lines = re.findall(r"The same check by hand: `(dpcert claim [^`]+)`", page)
    assert claim_lines
    for line in claim_lines:
        out = _run_cli(line + '; echo "exit $?"')
        assert out.startswith("REFUTED: ") and out.endswith("exit 1\n"), (line, out)


def test_try_it_commands_are_valid(capsys: pytest.CaptureFixture[str]) -> None:
    """The ``Try it:`` command of each topic page is accepted by the real parser (each was run by hand; running
    them all here would cost several seconds)."""
    found = []
    for page in sorted((DOCS / "topics").glob("*.md")):
        found += re.findall(r"Try it: `(dpcert [^`]+)`", page.read_text(encoding="utf-8"))
    assert len(found) >= 5
    parser = _parser()
    for line in found:
        args = parser.parse_args(shlex.split(line)[1:])
        assert getattr(args, "fn", None) is not None, line


# ------------------------------------------------------------------------------------- the pages' claims


def test_no_page_calls_a_built_quantity_not_yet_built() -> None:
    """A "Not yet: ..." sentence on a topic page names nothing that is registered (gaussian.md said "Not yet: the
    tight PLD accounting of DP-SGD, `dpsgd.sigma`, ..." while all of it was built)."""
    names = set(registry.quantities())
    for page in sorted((DOCS / "topics").glob("*.md")):
        for sentence in re.findall(r"Not yet:[^\n]*(?:\n(?!\n)[^\n]*)*", page.read_text(encoding="utf-8")):
            built = [n for n in re.findall(r"`([a-z0-9_.]+)`", sentence) if n in names]
            assert not built, (page.name, built)


def test_gaussian_page_names_every_dpsgd_tool_and_method() -> None:
    """The Gaussian topic page names each DP-SGD quantity, and says that ``dpcert dpsgd eps`` computes by PLD unless
    given ``--method rdp`` (it called the command an RDP tool)."""
    head = (DOCS / "topics" / "gaussian.md").read_text(encoding="utf-8").split("## Quantities")[0]
    for name in (n for n in registry.quantities() if n.startswith("dpsgd.")):
        assert f"`{name}`" in head, name
    eps_parser = next(p for words, p, _ in dpcert_docs.walk_parsers(_parser()) if words == ("dpsgd", "eps"))
    method = next(a for a in eps_parser._actions if "--method" in a.option_strings)
    assert method.default == "pld"
    bullets = [b for b in head.split("\n- ") if "`dpcert dpsgd eps" in b]
    assert any("privacy loss distribution" in b for b in bullets if "--method rdp" not in b)
    assert any("`dpcert dpsgd eps --method rdp`" in b and "RDP" in b for b in bullets)


def test_index_counts_are_derived(built: Path) -> None:
    """The index quotes the registry's counts, substituted at build time (it said 440 claims when 472 were
    registered); no page writes a count of claims by hand."""
    text = " ".join(_text(built / "index.html").split())
    counts = dpcert_docs.counts()
    assert counts["n_claims"] == len(registry.claims())
    assert f"ships {counts['n_claims']} claims" in text
    assert f"lists the {counts['n_errata']} that are wrong" in text
    for page in PAGES:
        assert not re.search(r"\b\d{2,} (bundled )?claims\b", page.read_text(encoding="utf-8")), page


def test_no_smart_quotes_or_dashes_in_commands(built: Path) -> None:
    """Options and quoted commands render in ASCII, as a shell needs them (the CLI page showed ``–executor`` and
    ``pip install “dpcert[distributed]”``)."""
    for page in ["cli", "index", "install", "parallel", "examples"]:
        text = _text(built / f"{page}.html")
        assert not re.search(r"(^|\s)[–—][a-z]", text), (page, re.search(r".{20}(^|\s)[–—][a-z].{20}", text))
        assert not set("“”‘’") & set(text), page
    cli = _text(built / "cli.html")
    assert "--executor" in cli and 'pip install "dpcert[distributed]"' in cli


# ------------------------------------------------------------------------------------------- the README

#: positional arguments that name files the command reads, and options that name what a command writes
READS = ("manifest", "certificates", "file")
WRITES = ("certificate", "certificates", "out")


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = [ln for m in FENCE.finditer(text) if m.group(1) == "console" for ln in m.group(2).splitlines()]
    return [ln[2:] for ln in lines if ln.startswith("$ ")]


def test_readme_commands_parse_and_name_files_that_exist() -> None:
    """Each ``$ dpcert ...`` line of the README, run from the checkout's root, is accepted by the real parser and
    every file it reads exists there or is written by an earlier README command (the README's
    ``dpcert sml mechanism channel.json`` named a file that is ``docs/examples/channel.json``)."""
    commands = _readme_commands()
    assert len(commands) >= 10
    parser = _parser()
    written: list[str] = []
    for line in commands:
        argv = shlex.split(line, comments=True)
        assert argv[0] == "dpcert", line
        args = parser.parse_args(argv[1:])
        for dest in READS:
            value = getattr(args, dest, None)
            for path in [value] if isinstance(value, str) else value or []:
                from_readme = any(path.startswith(w.rstrip("/") + "/") for w in written)
                assert from_readme or list(ROOT.glob(path)), f"README: $ {line}: no file {path!r} in the checkout"
        for dest in WRITES:
            value = getattr(args, dest, None)
            if isinstance(value, str) and any(f"--{dest}" in a for a in argv):
                written.append(value)
