"""What the CLI tests share: running `simcli` in-process and checking a usage error."""

from typer.testing import CliRunner

from simcli.cli import app


def invoke(*args):
    """Run `simcli ARGS...` in-process (arguments turned to strings); the click Result."""
    return CliRunner().invoke(app, [str(a) for a in args])


def one_line_error(r) -> str:
    """The error line of a run that must fail as bad input: exit 2, one line on stderr
    starting `simcli: error:`, no traceback (a compile notice before it, on a machine
    compiling the kernels for the first time, or a note such as --threads beyond the
    cores, is not part of the error)."""
    assert r.exit_code == 2, (r.exit_code, r.output)
    text = "\n".join(x for x in r.stderr.strip().splitlines()
                     if not x.startswith(("simcli: compiling ", "simcli: note: ")))
    assert "Traceback" not in r.output and "Traceback" not in text
    assert len(text.splitlines()) == 1, text
    assert text.startswith("simcli: error:")
    return text
